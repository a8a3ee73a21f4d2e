// QRocket's push consumer in RocketMQ 5's broker-assigned mode (clientRebalance = false) against
// an embedded cluster of two brokers: a group switched to POP (SET_MESSAGE_REQUEST_MODE) is
// assigned "any queue" of each broker and its members pop, consume and ack every message exactly
// once between them; a message the listener wants later comes back after the POP back-off with
// its reconsume count raised; a group left in PULL mode is assigned real queues and pulls; bad
// POP options are refused at start.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clienttestutil.h"

#include <QTest>

#include <map>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_PopPushConsumer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void popGroupConsumesEverythingOnce();
    void reconsumeLaterComesBackWithCountRaised();
    void pullGroupIsAssignedRealQueues();
    void badPopOptionsAreRefused();

private:
    PushConsumerOptions options(const QByteArray &group, const QByteArray &instance) const;
    void createTopic(const QByteArray &topic);
    void setMode(const QByteArray &topic, const QByteArray &group, const QByteArray &mode);
    void send(const QByteArray &topic, int count, const QByteArray &prefix);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Producer> m_producer;
    std::unique_ptr<Admin> m_admin;
};

void tst_PopPushConsumer::initTestCase()
{
    m_cluster = startCluster(2);
    QVERIFY(m_cluster);
    ProducerOptions o;
    o.group = "tst_poppush_producer";
    o.client = clientConfig(*m_cluster, "producer");
    m_producer = std::make_unique<Producer>(o);
    QVERIFY_OK(m_producer->start());
    AdminOptions a;
    a.client = clientConfig(*m_cluster, "admin");
    m_admin = std::make_unique<Admin>(a);
    QVERIFY_OK(m_admin->start());
}

void tst_PopPushConsumer::cleanupTestCase()
{
    m_admin.reset();
    m_producer.reset();
    m_cluster.reset();
}

PushConsumerOptions tst_PopPushConsumer::options(
    const QByteArray &group, const QByteArray &instance) const
{
    PushConsumerOptions o;
    o.group = group;
    o.client = clientConfig(*m_cluster, instance);
    o.clientRebalance = false;
    o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = o.consumeThreadMax = 4;
    o.brokerSuspendMaxTimeMillis = 1000; // the pop's long polling
    o.consumerTimeoutMillisWhenSuspend = 5000;
    return o;
}

void tst_PopPushConsumer::createTopic(const QByteArray &topic)
{
    QVERIFY_OK(m_cluster->createTopic(QString::fromUtf8(topic), 2));
    QVERIFY_OK(m_cluster->waitForRoute(QString::fromUtf8(topic)));
}

void tst_PopPushConsumer::setMode(
    const QByteArray &topic, const QByteArray &group, const QByteArray &mode)
{
    protocol::SetMessageRequestModeRequestBody body;
    body.topic = topic;
    body.consumerGroup = group;
    body.mode = mode;
    auto r = m_admin->setMessageRequestModeInCluster(m_cluster->clusterName().toUtf8(), body);
    QVERIFY_OK(r);
    QVERIFY2(r->isOk(), qPrintable(r->status().toString()));
    QCOMPARE(r->outcomes.size(), std::size_t(2));
}

void tst_PopPushConsumer::send(const QByteArray &topic, int count, const QByteArray &prefix)
{
    for (int i = 0; i < count; ++i) {
        const auto r = m_producer->sendSync(Message(topic, "TagA", prefix + QByteArray::number(i)));
        QVERIFY2(r, qPrintable(errorText(r)));
    }
}

void tst_PopPushConsumer::popGroupConsumesEverythingOnce()
{
    createTopic("PopPushT1");
    setMode("PopPushT1", "GPopPush1", "POP");
    constexpr int kCount = 200;

    Received a;
    Received b;
    const auto listener = [](Received &into) {
        return [&into](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            for (const MessageExt &m : msgs)
                into.add(m);
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        };
    };
    PushConsumer c1(options("GPopPush1", "c1"));
    PushConsumer c2(options("GPopPush1", "c2"));
    QVERIFY_OK(c1.subscribe("PopPushT1", "TagA"));
    QVERIFY_OK(c2.subscribe("PopPushT1", "TagA"));
    c1.registerMessageListener(listener(a));
    c2.registerMessageListener(listener(b));
    QVERIFY_OK(c1.start());
    QVERIFY_OK(c2.start());

    // Every member is assigned "any queue" (-1) of both brokers: the broker, not the client,
    // decides who gets which message.
    const auto assigned = [](PushConsumer &c) {
        std::set<QByteArray> brokers;
        for (const MessageQueue &mq : c.assignedQueues()) {
            if (mq.topic == "PopPushT1" && mq.queueId == -1)
                brokers.insert(mq.brokerName);
            if (mq.topic == "PopPushT1" && mq.queueId != -1)
                return std::size_t(0);
        }
        return brokers.size();
    };
    QVERIFY(waitFor([&] { return assigned(c1) == 2 && assigned(c2) == 2; }, 15000));
    send("PopPushT1", kCount, "m");
    const auto distinct = [&] {
        std::set<QByteArray> all;
        for (Received *r : {&a, &b}) {
            std::lock_guard lock(r->mutex);
            all.insert(r->bodies.begin(), r->bodies.end());
        }
        return all.size();
    };
    QVERIFY2(waitFor([&] { return distinct() == std::size_t(kCount); }, 30000),
        qPrintable(QStringLiteral("%1 of %2 consumed").arg(distinct()).arg(kCount)));
    // Acked messages never come back: nothing more arrives within twice the long polling.
    QTest::qWait(2500);
    QCOMPARE(a.count.load() + b.count.load(), kCount);
    qInfo("members consumed %d and %d", a.count.load(), b.count.load());
}

void tst_PopPushConsumer::reconsumeLaterComesBackWithCountRaised()
{
    createTopic("PopPushT2");
    setMode("PopPushT2", "GPopPush2", "POP");
    constexpr int kCount = 4;
    send("PopPushT2", kCount, "r");

    std::mutex mutex;
    std::map<QByteArray, std::vector<int>> deliveries; // body -> reconsume counts seen
    std::set<QByteArray> topics; // as the listener saw them
    PushConsumer c(options("GPopPush2", "c3"));
    QVERIFY_OK(c.subscribe("PopPushT2"));
    c.registerMessageListener(
        [&](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            bool later = false;
            std::lock_guard lock(mutex);
            for (const MessageExt &m : msgs) {
                deliveries[m.body()].push_back(m.reconsumeTimes());
                topics.insert(m.topic());
                later = later || m.reconsumeTimes() == 0;
            }
            return later ? ConsumeConcurrentlyStatus::ReconsumeLater
                         : ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY_OK(c.start());
    const auto settled = [&] {
        std::lock_guard lock(mutex);
        if (deliveries.size() != std::size_t(kCount))
            return false;
        for (const auto &[body, counts] : deliveries)
            if (counts.size() < 2)
                return false;
        return true;
    };
    // The first back-off step is 10 s (RocketMQ 5's popDelayLevel[0]).
    QVERIFY2(waitFor(settled, 40000), "not every message came back after RECONSUME_LATER");
    std::lock_guard lock(mutex);
    QCOMPARE(topics, std::set<QByteArray>({"PopPushT2"})); // never the retry topic
    for (const auto &[body, counts] : deliveries) {
        QCOMPARE(counts.front(), 0);
        QVERIFY2(counts.back() >= 1, body.constData());
    }
}

void tst_PopPushConsumer::pullGroupIsAssignedRealQueues()
{
    createTopic("PopPushT3");
    constexpr int kCount = 40;
    send("PopPushT3", kCount, "p");
    Received got;
    PushConsumer c(options("GPopPush3", "c4")); // no mode set: PULL
    QVERIFY_OK(c.subscribe("PopPushT3"));
    c.registerMessageListener(
        [&got](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            for (const MessageExt &m : msgs)
                got.add(m);
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY_OK(c.start());
    QVERIFY2(waitFor([&] { return got.distinct() == std::size_t(kCount); }, 30000),
        qPrintable(QStringLiteral("%1 of %2").arg(got.distinct()).arg(kCount)));
    int queues = 0;
    for (const MessageQueue &mq : c.assignedQueues()) {
        if (mq.topic != "PopPushT3")
            continue;
        QVERIFY(mq.queueId >= 0);
        ++queues;
    }
    QCOMPARE(queues, 4); // 2 queues on each of 2 brokers, one member
    QVERIFY(waitFor(
        [&] {
            std::int64_t sum = 0;
            for (const auto &[mq, offset] : c.committedOffsets("PopPushT3"))
                sum += offset;
            return sum == kCount;
        },
        10000));
}

void tst_PopPushConsumer::badPopOptionsAreRefused()
{
    PushConsumerOptions o = options("GPopPush4", "c5");
    o.popBatchNums = 33;
    PushConsumer c(o);
    QVERIFY_OK(c.subscribe("PopPushT1"));
    c.registerMessageListener([](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
        return ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    const Status s = c.start();
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().contains(QStringLiteral("popBatchNums")), qPrintable(s.message()));
    o.popBatchNums = 32;
    o.popInvisibleTime = 10;
    PushConsumer d(o);
    d.registerMessageListener([](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
        return ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    QVERIFY(!d.start().isOk());
}

QTEST_GUILESS_MAIN(tst_PopPushConsumer)
#include "tst_poppushconsumer.moc"
