// Start -> produce/consume -> shutdown, over and over, with callbacks in flight: the shutdown
// and destruction paths that crash or hang other C++ RocketMQ clients (rocketmq-client-cpp #335,
// #286, #318; rocketmq-clients #1334, #521). Each cycle picks one ending:
//   0  shutdown() from the test thread while listeners run;
//   1  shutdown() from inside a listener;
//   2  the consumer destroyed from inside a listener (its last owner lets go there);
//   3  a producer shut down, then destroyed, from inside one of its own async-send callbacks.
// QROCKET_TORTURE_CYCLES sets the number of cycles (default 1000). Every wait is bounded; the
// test fails on a cycle that does not complete, and the sanitizer builds fail on any race,
// leak or use after free.

#include "clienttestutil.h"

#include <QElapsedTimer>
#include <QTest>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_ClientTorture : public QObject
{
    Q_OBJECT

private slots:
    void startConsumeShutdownCycles();
};

void tst_ClientTorture::startConsumeShutdownCycles()
{
    const int cycles = qEnvironmentVariableIntValue("QROCKET_TORTURE_CYCLES") > 0
        ? qEnvironmentVariableIntValue("QROCKET_TORTURE_CYCLES")
        : 1000;
    auto cluster = startCluster(1);
    QVERIFY(cluster);
    QVERIFY(cluster->createTopic(QStringLiteral("TortureTopic"), 2).isOk());
    QVERIFY(cluster->waitForRoute(QStringLiteral("TortureTopic")).isOk());
    const ClientConfig config = clientConfig(*cluster, "torture");
    ProducerOptions po;
    po.group = "torture_producer";
    po.client = config;
    Producer producer(po);
    QVERIFY(producer.start().isOk());

    QElapsedTimer total;
    total.start();
    std::atomic<int> consumed {0};
    for (int cycle = 0; cycle < cycles; ++cycle) {
        const int ending = cycle % 4;
        for (int i = 0; i < 4; ++i)
            producer.sendAsync(Message("TortureTopic", "cycle " + QByteArray::number(cycle)),
                [](Result<SendResult>) {});

        if (ending == 3) {
            ProducerOptions own = po;
            own.group = "torture_producer_" + QByteArray::number(cycle);
            auto holder
                = std::make_shared<std::shared_ptr<Producer>>(std::make_shared<Producer>(own));
            QVERIFY((*holder)->start().isOk());
            std::atomic<bool> released {false};
            std::atomic<bool> done {false};
            {
                // The test thread holds the producer while it calls it (nobody may destroy an
                // object a caller is inside), then lets go: from then on the callback is the
                // last owner, and destroys it from inside its own callback.
                std::shared_ptr<Producer> caller = *holder;
                caller->sendAsync(Message("TortureTopic", "own 2"), [](Result<SendResult>) {});
                caller->sendAsync(
                    Message("TortureTopic", "own"), [holder, &released, &done](Result<SendResult>) {
                        waitFor([&] { return released.load(); }, 5000);
                        (*holder)->shutdown();
                        holder->reset();
                        done = true;
                    });
            }
            released = true;
            QVERIFY2(waitFor([&] { return done.load(); }, 10000),
                qPrintable(QStringLiteral("cycle %1").arg(cycle)));
            continue;
        }

        PushConsumerOptions co;
        co.group = "torture_group";
        co.client = config;
        co.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
        co.consumeThreadMin = co.consumeThreadMax = 3;
        co.brokerSuspendMaxTimeMillis = 1000;
        co.awaitTerminationMillisWhenShutdown = 2000;
        auto holder
            = std::make_shared<std::shared_ptr<PushConsumer>>(std::make_shared<PushConsumer>(co));
        std::weak_ptr<PushConsumer> weak = *holder;
        // Per-cycle flags on the heap: a listener of this cycle's consumer may still run after
        // the cycle ended (a shutdown begun inside a listener finishes on the consumer's thread).
        struct Flags
        {
            std::atomic<bool> inListener {false};
            std::atomic<bool> ended {false};
            std::atomic<bool> released {false};
        };
        auto flags = std::make_shared<Flags>();
        std::atomic<bool> &inListener = flags->inListener;
        std::atomic<bool> &ended = flags->ended;
        std::atomic<bool> &released = flags->released;
        (*holder)->subscribe("TortureTopic");
        (*holder)->registerMessageListener(
            [&consumed, flags, holder, weak, ending](
                const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
                flags->inListener = true;
                consumed += static_cast<int>(msgs.size());
                QThread::usleep(500);
                if (ending == 1 && !flags->ended.exchange(true)) {
                    if (auto c = weak.lock())
                        c->shutdown();
                } else if (ending == 2 && !flags->ended.exchange(true)) {
                    // Once the test thread let go, this listener holds the last reference.
                    waitFor([&] { return flags->released.load(); }, 5000);
                    holder->reset();
                }
                return ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        {
            // The previous cycle's consumer may still be finishing its shutdown on its own
            // thread (its handle is gone, its unregistration not yet done): the group is free
            // again once it has, within the wait.
            std::shared_ptr<PushConsumer> caller = *holder;
            QVERIFY(waitFor([&] { return caller->start().isOk(); }, 5000));
        }
        if (ending == 2) {
            // The consumer goes away inside its listener; nothing here touches it any more.
            released = true;
            QVERIFY2(waitFor([&] { return ended.load() && weak.expired(); }, 10000),
                qPrintable(QStringLiteral("cycle %1: not destroyed").arg(cycle)));
            continue;
        }
        QVERIFY2(waitFor([&] { return inListener.load(); }, 10000),
            qPrintable(QStringLiteral("cycle %1").arg(cycle)));
        if (ending == 0) {
            (*holder)->shutdown();
            ended = true;
        }
        QVERIFY2(waitFor([&] { return ended.load(); }, 10000),
            qPrintable(QStringLiteral("cycle %1: no end").arg(cycle)));
        holder->reset();
        QVERIFY(waitFor([&] { return weak.expired(); }, 10000));
    }
    qInfo("%d cycles in %lld ms, %d messages consumed", cycles,
        static_cast<long long>(total.elapsed()), consumed.load());
}

QTEST_GUILESS_MAIN(tst_ClientTorture)
#include "tst_clienttorture.moc"
