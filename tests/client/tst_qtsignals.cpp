// tst_QtSignals: the client's Qt-signal forms (clientlib/client/qtsignals.h) against an
// EmbeddedCluster: sent/sendFailed arrive once per send on the object's thread, the queue
// overload too; ConsumerSignals delivers every message on its thread; destroying either object
// stops deliveries without a crash while sends and consumption are still in flight.

#include "clientlib/client/qtsignals.h"
#include "clienttestutil.h"

#include <QSignalSpy>
#include <QThread>

#include <set>

using namespace qrocket;
using namespace qrocket::client;

Q_DECLARE_METATYPE(qrocket::client::SendResult)

class tst_QtSignals : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EmbeddedCluster> m_cluster;

    ProducerOptions producerOptions(const QByteArray &instance)
    {
        ProducerOptions o;
        o.group = "qt_signals_producer_" + instance;
        o.client = clienttest::clientConfig(*m_cluster, instance);
        return o;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_cluster = clienttest::startCluster(1);
        QVERIFY(m_cluster);
        QVERIFY_OK(m_cluster->createTopic(QStringLiteral("QtSig"), 4));
        QVERIFY_OK(m_cluster->waitForRoute(QStringLiteral("QtSig")));
    }
    void cleanupTestCase() { m_cluster.reset(); }

    void sentArrivesOncePerSendOnTheObjectsThread()
    {
        Producer producer(producerOptions("sig-a"));
        QVERIFY_OK(producer.start());
        ProducerSignals notifier(producer);
        std::set<quint64> tokens;
        std::set<quint64> answered;
        int wrongThread = 0;
        connect(&notifier, &ProducerSignals::sent, this, [&](quint64 token, const SendResult &r) {
            if (QThread::currentThread() != thread())
                ++wrongThread;
            QVERIFY(!r.msgId.isEmpty());
            answered.insert(token);
        });
        QSignalSpy failed(&notifier, &ProducerSignals::sendFailed);
        for (int i = 0; i < 50; ++i)
            tokens.insert(notifier.send(Message("QtSig", "body-" + QByteArray::number(i))));
        QCOMPARE(tokens.size(), std::size_t(50));
        const auto queues = producer.fetchPublishMessageQueues("QtSig");
        QVERIFY_OK(queues);
        for (int i = 0; i < 10; ++i)
            tokens.insert(notifier.send(Message("QtSig", "q"), queues.value().front()));
        QTRY_COMPARE_WITH_TIMEOUT(answered.size(), std::size_t(60), 15000);
        QCOMPARE(answered, tokens);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(wrongThread, 0);
    }

    void sendFailedCarriesTheError()
    {
        Producer producer(producerOptions("sig-b"));
        QVERIFY_OK(producer.start());
        ProducerSignals notifier(producer);
        QSignalSpy failed(&notifier, &ProducerSignals::sendFailed);
        QSignalSpy sent(&notifier, &ProducerSignals::sent);
        // Bigger than maxMessageSize: refused before anything is sent.
        const quint64 token = notifier.send(Message("QtSig", QByteArray(5 * 1024 * 1024, 'x')));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QCOMPARE(failed.front().at(0).value<quint64>(), token);
        QVERIFY2(failed.front().at(1).toString().contains(QLatin1String("InvalidArgument")),
            qPrintable(failed.front().at(1).toString()));
        QCOMPARE(sent.count(), 0);
    }

    void consumerSignalsDeliverEveryMessage()
    {
        PushConsumerOptions o;
        o.group = "qt_signals_consumer";
        o.client = clienttest::clientConfig(*m_cluster, "sig-c");
        o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
        PushConsumer consumer(o);
        QVERIFY_OK(consumer.subscribe("QtSig"));
        ConsumerSignals messages(consumer);
        std::set<QByteArray> ids;
        int wrongThread = 0;
        connect(&messages, &ConsumerSignals::messagesReceived, this,
            [&](const std::vector<MessageExt> &batch) {
                if (QThread::currentThread() != thread())
                    ++wrongThread;
                for (const MessageExt &m : batch)
                    ids.insert(m.msgId());
            });
        QVERIFY_OK(consumer.start());
        // The 60 messages of the first test and 20 more now.
        Producer producer(producerOptions("sig-d"));
        QVERIFY_OK(producer.start());
        for (int i = 0; i < 20; ++i)
            QVERIFY_OK(producer.sendSync(Message("QtSig", "more")));
        QTRY_VERIFY_WITH_TIMEOUT(ids.size() >= 80, 20000);
        QCOMPARE(wrongThread, 0);
        consumer.shutdown();
    }

    void destroyingTheObjectsStopsDeliveries()
    {
        Producer producer(producerOptions("sig-e"));
        QVERIFY_OK(producer.start());
        PushConsumerOptions o;
        o.group = "qt_signals_consumer_2";
        o.client = clienttest::clientConfig(*m_cluster, "sig-f");
        o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
        PushConsumer consumer(o);
        QVERIFY_OK(consumer.subscribe("QtSig"));
        auto messages = std::make_unique<ConsumerSignals>(consumer);
        int received = 0;
        connect(messages.get(), &ConsumerSignals::messagesReceived, this,
            [&](const std::vector<MessageExt> &batch) { received += int(batch.size()); });
        QVERIFY_OK(consumer.start());
        auto notifier = std::make_unique<ProducerSignals>(producer);
        int sent = 0;
        connect(notifier.get(), &ProducerSignals::sent, this, [&] { ++sent; });
        const auto queues = producer.fetchPublishMessageQueues("QtSig");
        QVERIFY_OK(queues);
        for (int i = 0; i < 200; ++i) {
            if (i % 2)
                notifier->send(Message("QtSig", "x"));
            else
                notifier->send(Message("QtSig", "y"), queues.value().back());
        }
        QTRY_VERIFY_WITH_TIMEOUT(received > 0, 20000);
        // Both objects go away with sends and batches still in flight.
        notifier.reset();
        messages.reset();
        const int sentThen = sent;
        const int receivedThen = received;
        // Whatever is still queued for the dead objects is dropped; the event loop keeps running.
        QTest::qWait(300);
        QCOMPARE(sent, sentThen);
        QCOMPARE(received, receivedThen);
        consumer.shutdown();
        producer.shutdown();
    }
};

QTEST_GUILESS_MAIN(tst_QtSignals)
#include "tst_qtsignals.moc"
