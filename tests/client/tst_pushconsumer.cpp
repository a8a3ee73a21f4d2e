// QRocket's push consumer against an embedded cluster: clustering (every queue owned by exactly
// one member after each rebalance, every message consumed at least once), broadcasting with
// local offsets, retry then DLQ, delay levels, orderly consumption, SQL92 selectors, offsets
// resumed after a restart, and shutdown or destruction from inside a listener.

#include "clientlib/client/threads.h"
#include "clienttestutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <map>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_PushConsumer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void clusteringOwnsEveryQueueOnce();
    void broadcastingDeliversToAllAndResumesFromFile();
    void retryThenDeadLetterQueue();
    void delayLevelDeliversOnTime();
    void orderlyKeepsPerKeyOrder();
    void orderlyKeepsOrderAcrossARebalance();
    void sqlSelectorFilters();
    void offsetsResumeAfterRestart();
    void shutdownAndDestroyFromListener();
    void badOptionsAreRefused();

private:
    void createTopic(const QString &topic, int queues);
    void send(const QByteArray &topic, int count, const QByteArray &prefix);
    PushConsumerOptions options(const QByteArray &group, const QByteArray &instance) const;
    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Producer> m_producer;
};

void tst_PushConsumer::initTestCase()
{
    m_cluster = startCluster(2);
    QVERIFY(m_cluster);
    ProducerOptions o;
    o.group = "tst_push_producer";
    o.client = clientConfig(*m_cluster, "producer");
    m_producer = std::make_unique<Producer>(o);
    QVERIFY(m_producer->start().isOk());
}

void tst_PushConsumer::cleanupTestCase()
{
    m_producer.reset();
    m_cluster.reset();
}

void tst_PushConsumer::createTopic(const QString &topic, int queues)
{
    QVERIFY(m_cluster->createTopic(topic, queues).isOk());
    QVERIFY(m_cluster->waitForRoute(topic).isOk());
}

void tst_PushConsumer::send(const QByteArray &topic, int count, const QByteArray &prefix)
{
    for (int i = 0; i < count; ++i) {
        auto r = m_producer->sendSync(Message(topic, prefix + QByteArray::number(i)));
        QVERIFY_OK(r);
    }
}

PushConsumerOptions tst_PushConsumer::options(
    const QByteArray &group, const QByteArray &instance) const
{
    PushConsumerOptions o;
    o.group = group;
    o.client = clientConfig(*m_cluster, instance);
    o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = o.consumeThreadMax = 4;
    o.brokerSuspendMaxTimeMillis = 2000;
    // A held pull the broker never answers is given up and sent again after this long.
    o.consumerTimeoutMillisWhenSuspend = 5000;
    return o;
}

namespace {
ConcurrentListener recordInto(Received &received)
{
    return [&received](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
        for (const MessageExt &m : msgs)
            received.add(m);
        return ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
}

/// True when the members' queues are disjoint and cover `total` queues of `topic`.
bool ownedExactlyOnce(
    const std::vector<PushConsumer *> &members, const QByteArray &topic, std::size_t total)
{
    std::map<MessageQueue, int> owners;
    for (PushConsumer *c : members) {
        for (const MessageQueue &mq : c->assignedQueues()) {
            if (mq.topic == topic)
                ++owners[mq];
        }
    }
    if (owners.size() != total)
        return false;
    return std::all_of(owners.begin(), owners.end(), [](const auto &e) { return e.second == 1; });
}
} // namespace

void tst_PushConsumer::clusteringOwnsEveryQueueOnce()
{
    createTopic(QStringLiteral("ClusterTopic"), 4); // 2 brokers x 4 queues
    Received received;
    std::vector<std::unique_ptr<PushConsumer>> members;
    for (int i = 0; i < 4; ++i) {
        members.push_back(std::make_unique<PushConsumer>(
            options("tst_cluster_group", "member" + QByteArray::number(i))));
        QVERIFY(members.back()->subscribe("ClusterTopic").isOk());
        members.back()->registerMessageListener(recordInto(received));
        QVERIFY(members.back()->start().isOk());
    }
    auto raw = [&] {
        std::vector<PushConsumer *> out;
        for (auto &m : members)
            out.push_back(m.get());
        return out;
    };
    // Settled: every queue owned once, two each (Averagely: 8 queues over 4 members).
    QVERIFY2(waitFor(
                 [&] {
                     return ownedExactlyOnce(raw(), "ClusterTopic", 8)
                         && std::all_of(members.begin(), members.end(),
                             [](const auto &m) { return m->assignedQueues().size() >= 2; });
                 },
                 15000),
        "4 members never split 8 queues");
    send("ClusterTopic", 200, "c");
    QVERIFY2(waitFor([&] { return received.distinct() >= 200; }, 20000),
        qPrintable(QStringLiteral("%1 of 200").arg(received.distinct())));
    // One member leaves: the other three take its queues.
    members.back()->shutdown();
    members.pop_back();
    QVERIFY2(waitFor([&] { return ownedExactlyOnce(raw(), "ClusterTopic", 8); }, 15000),
        "3 members never took over");
    send("ClusterTopic", 100, "d");
    QVERIFY(waitFor([&] { return received.distinct() >= 300; }, 20000));
    // A new member joins.
    members.push_back(std::make_unique<PushConsumer>(options("tst_cluster_group", "member9")));
    QVERIFY(members.back()->subscribe("ClusterTopic").isOk());
    members.back()->registerMessageListener(recordInto(received));
    QVERIFY(members.back()->start().isOk());
    QVERIFY2(waitFor(
                 [&] {
                     return ownedExactlyOnce(raw(), "ClusterTopic", 8)
                         && !members.back()->assignedQueues().empty();
                 },
                 15000),
        "the new member got no queues");
    qInfo("clustering: %d deliveries of 300 messages (%d duplicates)", received.count.load(),
        received.count.load() - static_cast<int>(received.distinct()));
}

void tst_PushConsumer::broadcastingDeliversToAllAndResumesFromFile()
{
    createTopic(QStringLiteral("BroadcastTopic"), 2);
    QTemporaryDir dir;
    Received a;
    Received b;
    auto make = [&](const QByteArray &instance, Received &r) {
        PushConsumerOptions o = options("tst_broadcast_group", instance);
        o.messageModel = MessageModel::Broadcasting;
        o.offsetStoreDir = dir.path();
        auto c = std::make_unique<PushConsumer>(o);
        c->subscribe("BroadcastTopic");
        c->registerMessageListener(recordInto(r));
        return c;
    };
    auto ca = make("bcA", a);
    auto cb = make("bcB", b);
    QVERIFY(ca->start().isOk());
    QVERIFY(cb->start().isOk());
    QVERIFY(waitFor(
        [&] { return ca->assignedQueues().size() == 4 && cb->assignedQueues().size() == 4; },
        10000));
    send("BroadcastTopic", 40, "b");
    QVERIFY(waitFor([&] { return a.distinct() == 40 && b.distinct() == 40; }, 15000));
    ca->shutdown();
    const QString file
        = dir.path() + QStringLiteral("/127.0.0.1@bcA/tst_broadcast_group/offsets.json");
    QVERIFY2(QFile::exists(file), qPrintable(file));
    // Restart: only what came after.
    Received again;
    ca = make("bcA", again);
    QVERIFY(ca->start().isOk());
    send("BroadcastTopic", 10, "after");
    QVERIFY(waitFor([&] { return again.distinct() >= 10; }, 15000));
    QTest::qWait(300);
    std::lock_guard lock(again.mutex);
    for (const QByteArray &body : again.bodies)
        QVERIFY2(body.startsWith("after"), body.constData());
}

void tst_PushConsumer::retryThenDeadLetterQueue()
{
    createTopic(QStringLiteral("RetryTopicClient"), 1);
    std::mutex mutex;
    std::vector<int> reconsumeTimes;
    PushConsumerOptions o = options("tst_retry_group", "retry");
    o.maxReconsumeTimes = 2;
    PushConsumer consumer(o);
    consumer.subscribe("RetryTopicClient");
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &ctx) {
            std::lock_guard lock(mutex);
            for (const MessageExt &m : msgs) {
                reconsumeTimes.push_back(m.reconsumeTimes());
                if (m.topic() != "RetryTopicClient")
                    qWarning("redelivery shows topic %s", m.topic().constData());
            }
            ctx.delayLevelWhenNextConsume = 1; // 1 s instead of the default 10 s, 30 s...
            return ConsumeConcurrentlyStatus::ReconsumeLater;
        });
    QVERIFY(consumer.start().isOk());
    send("RetryTopicClient", 1, "fails always ");
    QVERIFY(waitFor(
        [&] {
            std::lock_guard lock(mutex);
            return reconsumeTimes.size() >= 3;
        },
        20000));
    {
        std::lock_guard lock(mutex);
        QCOMPARE(reconsumeTimes[0], 0);
        QCOMPARE(reconsumeTimes[1], 1);
        QCOMPARE(reconsumeTimes[2], 2);
    }
    // Then it is in the group's DLQ.
    Received dlq;
    PushConsumer reader(options("tst_dlq_reader", "dlq"));
    QVERIFY(waitFor(
        [&] { return m_cluster->topicRoute(QStringLiteral("%DLQ%tst_retry_group")).has_value(); },
        10000));
    reader.subscribe("%DLQ%tst_retry_group");
    reader.registerMessageListener(recordInto(dlq));
    QVERIFY(reader.start().isOk());
    QVERIFY(waitFor([&] { return dlq.count.load() >= 1; }, 15000));
    std::lock_guard lock(dlq.mutex);
    QVERIFY(dlq.messages.front().body().startsWith("fails always"));
    std::lock_guard l2(mutex);
    QCOMPARE(static_cast<int>(reconsumeTimes.size()), 3); // no fourth delivery
}

void tst_PushConsumer::delayLevelDeliversOnTime()
{
    createTopic(QStringLiteral("DelayTopicClient"), 1);
    std::atomic<std::int64_t> arrived {0};
    PushConsumer consumer(options("tst_delay_group", "delay"));
    consumer.subscribe("DelayTopicClient");
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
            arrived = currentTimeMillis();
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start().isOk());
    QVERIFY(waitFor([&] { return !consumer.assignedQueues().empty(); }, 10000));
    Message m("DelayTopicClient", "later");
    m.setDelayTimeLevel(2); // 5 s
    const std::int64_t sent = currentTimeMillis();
    QVERIFY_OK(m_producer->sendSync(m));
    QVERIFY(waitFor([&] { return arrived.load() != 0; }, 15000));
    const std::int64_t late = arrived.load() - sent;
    qInfo("delay level 2 (5 s): delivered after %lld ms", static_cast<long long>(late));
    QVERIFY(late >= 4900);
    QVERIFY2(late < 6000, qPrintable(QString::number(late)));
}

void tst_PushConsumer::orderlyKeepsPerKeyOrder()
{
    createTopic(QStringLiteral("OrderTopicClient"), 4);
    std::mutex mutex;
    std::map<QByteArray, std::vector<int>> seen;
    std::atomic<int> total {0};
    std::atomic<int> concurrentOnQueue {0};
    std::map<MessageQueue, int> busy;
    PushConsumer consumer(options("tst_orderly_group", "orderly"));
    consumer.subscribe("OrderTopicClient");
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &msgs, ConsumeOrderlyContext &ctx) {
            {
                std::lock_guard lock(mutex);
                if (++busy[ctx.messageQueue] > 1)
                    ++concurrentOnQueue;
            }
            QThread::usleep(200);
            std::lock_guard lock(mutex);
            --busy[ctx.messageQueue];
            for (const MessageExt &m : msgs) {
                const QList<QByteArray> parts = m.body().split(':');
                seen[parts[0]].push_back(parts[1].toInt());
                ++total;
            }
            return ConsumeOrderlyStatus::Success;
        });
    QVERIFY(consumer.start().isOk());
    for (int i = 0; i < 40; ++i) {
        for (const char *key : {"k1", "k2", "k3"}) {
            auto r = m_producer->sendSync(
                Message("OrderTopicClient", QByteArray(key) + ':' + QByteArray::number(i)),
                selectors::byHash(key));
            QVERIFY_OK(r);
        }
    }
    QVERIFY(waitFor([&] { return total.load() >= 120; }, 20000));
    std::lock_guard lock(mutex);
    for (const auto &[key, seq] : seen) {
        QCOMPARE(static_cast<int>(seq.size()), 40);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(seq[static_cast<std::size_t>(i)], i);
    }
    QCOMPARE(concurrentOnQueue.load(), 0);
}

void tst_PushConsumer::orderlyKeepsOrderAcrossARebalance()
{
    createTopic(QStringLiteral("OrderRebalance"), 4); // 8 queues over 2 brokers
    std::mutex mutex;
    std::map<QByteArray, std::vector<int>> seen; // per key, in processing order, group-wide
    std::atomic<int> total {0};
    auto listener = [&](const std::vector<MessageExt> &msgs, ConsumeOrderlyContext &) {
        QThread::usleep(300);
        std::lock_guard lock(mutex);
        for (const MessageExt &m : msgs) {
            const QList<QByteArray> parts = m.body().split(':');
            seen[parts[0]].push_back(parts[1].toInt());
            ++total;
        }
        return ConsumeOrderlyStatus::Success;
    };
    PushConsumer a(options("tst_orderly_rebalance", "orderA"));
    a.subscribe("OrderRebalance");
    a.registerMessageListener(OrderlyListener(listener));
    QVERIFY(a.start().isOk());
    std::unique_ptr<PushConsumer> b;
    const char *keys[] = {"k1", "k2", "k3", "k4", "k5", "k6"};
    for (int i = 0; i < 60; ++i) {
        for (const char *key : keys)
            QVERIFY_OK(m_producer->sendSync(
                Message("OrderRebalance", QByteArray(key) + ':' + QByteArray::number(i)),
                selectors::byHash(key)));
        if (i == 20) {
            // A second member joins mid-stream: queues move from A to B.
            b = std::make_unique<PushConsumer>(options("tst_orderly_rebalance", "orderB"));
            b->subscribe("OrderRebalance");
            b->registerMessageListener(OrderlyListener(listener));
            QVERIFY(b->start().isOk());
        }
        QTest::qWait(5);
    }
    QVERIFY(waitFor(
        [&] {
            std::lock_guard lock(mutex);
            for (const char *key : keys) {
                if (seen[key].empty() || seen[key].back() != 59)
                    return false;
            }
            return true;
        },
        30000));
    QVERIFY(!b->assignedQueues().empty());
    std::lock_guard lock(mutex);
    int redelivered = 0;
    for (const auto &[key, seq] : seen) {
        // Never out of order: a redelivery may repeat the last message, never go back further.
        int highest = -1;
        for (int v : seq) {
            QVERIFY2(v >= highest - 1 && v <= highest + 1,
                qPrintable(QStringLiteral("%1: %2 after %3")
                               .arg(QString::fromLatin1(key))
                               .arg(v)
                               .arg(highest)));
            if (v <= highest)
                ++redelivered;
            highest = std::max(highest, v);
        }
        QCOMPARE(highest, 59);
    }
    qInfo(
        "orderly across a rebalance: %d deliveries of 360, %d repeated", total.load(), redelivered);
}

void tst_PushConsumer::sqlSelectorFilters()
{
    createTopic(QStringLiteral("SqlTopicClient"), 2);
    Received received;
    PushConsumer consumer(options("tst_sql_group", "sql"));
    QVERIFY(consumer.subscribe("SqlTopicClient", MessageSelector::bySql("a > 5")).isOk());
    consumer.registerMessageListener(recordInto(received));
    QVERIFY(consumer.start().isOk());
    for (int i = 1; i <= 10; ++i) {
        Message m("SqlTopicClient", "a=" + QByteArray::number(i));
        m.setProperty("a", QByteArray::number(i));
        QVERIFY_OK(m_producer->sendSync(m));
    }
    QVERIFY(waitFor([&] { return received.distinct() >= 5; }, 15000));
    QTest::qWait(500);
    std::lock_guard lock(received.mutex);
    QByteArray got;
    for (const QByteArray &b : received.bodies)
        got += b + ' ';
    QVERIFY2(received.bodies == (std::multiset<QByteArray> {"a=10", "a=6", "a=7", "a=8", "a=9"}),
        got.constData());
    // A selector the broker cannot parse is refused at start.
    PushConsumer bad(options("tst_sql_bad", "sqlbad"));
    QVERIFY(bad.subscribe("SqlTopicClient", MessageSelector::bySql("a >>> ")).isOk());
    bad.registerMessageListener(recordInto(received));
    const Status s = bad.start();
    QVERIFY(!s.isOk());
    qInfo("bad SQL92 at start: %s", qPrintable(s.message()));
}

void tst_PushConsumer::offsetsResumeAfterRestart()
{
    createTopic(QStringLiteral("ResumeTopic"), 2);
    send("ResumeTopic", 20, "first");
    {
        Received r;
        PushConsumer c(options("tst_resume_group", "resume1"));
        c.subscribe("ResumeTopic");
        c.registerMessageListener(recordInto(r));
        QVERIFY(c.start().isOk());
        QVERIFY(waitFor([&] { return r.distinct() >= 20; }, 15000));
        QTest::qWait(200);
    } // shutdown commits
    send("ResumeTopic", 10, "second");
    Received r;
    PushConsumer c(options("tst_resume_group", "resume2"));
    c.subscribe("ResumeTopic");
    c.registerMessageListener(recordInto(r));
    QVERIFY(c.start().isOk());
    QVERIFY(waitFor([&] { return r.distinct() >= 10; }, 15000));
    QTest::qWait(500);
    std::lock_guard lock(r.mutex);
    for (const QByteArray &body : r.bodies)
        QVERIFY2(body.startsWith("second"), body.constData());
}

void tst_PushConsumer::shutdownAndDestroyFromListener()
{
    createTopic(QStringLiteral("SelfStopTopic"), 2);
    send("SelfStopTopic", 20, "s");
    // shutdown() from inside the listener. Other consume threads may be inside the listener at
    // the same moment: shutdown() waits for them, so once it returns no listener call runs or
    // starts. The listener's state is shared, not on this stack: the test must not leave its
    // scope while a call may still touch it (isStarted() turns false when shutdown() begins).
    {
        auto calls = std::make_shared<std::atomic<int>>(0);
        auto callsWhenShutDown = std::make_shared<std::atomic<int>>(-1);
        auto consumer = std::make_shared<PushConsumer>(options("tst_selfstop_group", "selfstop"));
        consumer->subscribe("SelfStopTopic");
        std::weak_ptr<PushConsumer> weak = consumer;
        consumer->registerMessageListener(
            [calls, callsWhenShutDown, weak](
                const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
                if (++*calls == 1) {
                    if (auto c = weak.lock()) {
                        c->shutdown();
                        callsWhenShutDown->store(calls->load());
                    }
                }
                return ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        QVERIFY(consumer->start().isOk());
        QVERIFY(waitFor([&] { return callsWhenShutDown->load() >= 1; }, 15000));
        QVERIFY(!consumer->isStarted());
        const int atShutdown = callsWhenShutDown->load();
        QVERIFY2(!waitFor([&] { return calls->load() != atShutdown; }, 300),
            "a listener call ran after shutdown() returned");
    }
    // Destruction from inside the listener (the last owner lets go on the consume thread); the
    // destructor's shutdown waits for the other listener calls in the same way.
    auto destroyed = std::make_shared<std::atomic<bool>>(false);
    auto destroyedDone = std::make_shared<std::atomic<bool>>(false);
    {
        auto holder = std::make_shared<std::shared_ptr<PushConsumer>>();
        *holder = std::make_shared<PushConsumer>(options("tst_selfdestroy_group", "selfdestroy"));
        (*holder)->subscribe("SelfStopTopic");
        (*holder)->registerMessageListener(
            [holder, destroyed, destroyedDone](
                const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
                if (!destroyed->exchange(true)) {
                    holder->reset();
                    destroyedDone->store(true);
                }
                return ConsumeConcurrentlyStatus::ConsumeSuccess;
            });
        QVERIFY((*holder)->start().isOk());
    }
    QVERIFY(waitFor([&] { return destroyedDone->load(); }, 15000));
}

void tst_PushConsumer::badOptionsAreRefused()
{
    PushConsumerOptions o = options("DEFAULT_CONSUMER", "bad");
    PushConsumer noListener(options("tst_nolistener", "bad1"));
    QCOMPARE(noListener.start().code(), Status::Code::InvalidArgument);
    PushConsumer defaultGroup(o);
    defaultGroup.registerMessageListener(
        [](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QCOMPARE(defaultGroup.start().code(), Status::Code::InvalidArgument);
    PushConsumer badTopic(options("tst_badtopic", "bad2"));
    QCOMPARE(badTopic.subscribe("no spaces allowed").code(), Status::Code::InvalidArgument);
    PushConsumerOptions threads = options("tst_badthreads", "bad3");
    threads.consumeThreadMin = 0;
    PushConsumer badThreads(threads);
    badThreads.registerMessageListener(
        [](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QCOMPARE(badThreads.start().code(), Status::Code::InvalidArgument);
}

QTEST_GUILESS_MAIN(tst_PushConsumer)
#include "tst_pushconsumer.moc"
