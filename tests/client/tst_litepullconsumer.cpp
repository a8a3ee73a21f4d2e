// QRocket's lite pull consumer against an embedded cluster: subscribe (rebalanced) and assign
// modes, poll, commitSync and committed(), seek / seekToBegin / seekToEnd, offsetForTimestamp,
// resumption after a restart, and bad calls.

#include "clientlib/client/litepullconsumer.h"
#include "clientlib/client/threads.h"
#include "clienttestutil.h"

#include <QElapsedTimer>
#include <QTest>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_LitePullConsumer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void subscribePollCommitAndResume();
    void assignSeekAndTimestamps();
    void badCallsAreErrors();

private:
    LitePullConsumerOptions options(const QByteArray &group, const QByteArray &instance) const;
    std::vector<MessageExt> pollUntil(LitePullConsumer &c, std::size_t count, int ms);
    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Producer> m_producer;
};

void tst_LitePullConsumer::initTestCase()
{
    m_cluster = startCluster(2);
    QVERIFY(m_cluster);
    QVERIFY(m_cluster->createTopic(QStringLiteral("LiteTopic"), 2).isOk());
    QVERIFY(m_cluster->createTopic(QStringLiteral("LiteAssign"), 1).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("LiteTopic")).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("LiteAssign")).isOk());
    ProducerOptions o;
    o.group = "tst_lite_producer";
    o.client = clientConfig(*m_cluster, "producer");
    m_producer = std::make_unique<Producer>(o);
    QVERIFY(m_producer->start().isOk());
}

void tst_LitePullConsumer::cleanupTestCase()
{
    m_producer.reset();
    m_cluster.reset();
}

LitePullConsumerOptions tst_LitePullConsumer::options(
    const QByteArray &group, const QByteArray &instance) const
{
    LitePullConsumerOptions o;
    o.group = group;
    o.client = clientConfig(*m_cluster, instance);
    o.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    o.autoCommit = false;
    o.brokerSuspendMaxTimeMillis = 1000;
    return o;
}

std::vector<MessageExt> tst_LitePullConsumer::pollUntil(
    LitePullConsumer &c, std::size_t count, int ms)
{
    std::vector<MessageExt> all;
    QElapsedTimer t;
    t.start();
    while (all.size() < count && t.elapsed() < ms) {
        for (MessageExt &m : c.poll(200))
            all.push_back(std::move(m));
    }
    return all;
}

void tst_LitePullConsumer::subscribePollCommitAndResume()
{
    for (int i = 0; i < 30; ++i)
        QVERIFY_OK(m_producer->sendSync(Message("LiteTopic", "first " + QByteArray::number(i))));
    {
        LitePullConsumer c(options("tst_lite_group", "lite1"));
        QVERIFY(c.subscribe("LiteTopic").isOk());
        QVERIFY(c.start().isOk());
        const auto got = pollUntil(c, 30, 15000);
        if (got.size() != 30) {
            for (const MessageExt &m : got)
                qInfo("%s/%d@%lld %s", m.brokerName().constData(), m.queueId(),
                    static_cast<long long>(m.queueOffset()), m.body().constData());
        }
        QCOMPARE(static_cast<int>(got.size()), 30);
        QVERIFY(c.commitSync().isOk());
        std::int64_t committed = 0;
        for (const MessageQueue &mq : c.assignment()) {
            auto off = c.committed(mq);
            QVERIFY_OK(off);
            committed += *off;
        }
        QCOMPARE(committed, std::int64_t(30));
    }
    for (int i = 0; i < 5; ++i)
        QVERIFY_OK(m_producer->sendSync(Message("LiteTopic", "second " + QByteArray::number(i))));
    LitePullConsumer again(options("tst_lite_group", "lite2"));
    QVERIFY(again.subscribe("LiteTopic").isOk());
    QVERIFY(again.start().isOk());
    const auto more = pollUntil(again, 5, 15000);
    QCOMPARE(static_cast<int>(more.size()), 5);
    for (const MessageExt &m : more)
        QVERIFY2(m.body().startsWith("second"), m.body().constData());
    QVERIFY(again.poll(300).empty());
}

void tst_LitePullConsumer::assignSeekAndTimestamps()
{
    const std::int64_t before = currentTimeMillis();
    QTest::qWait(20);
    std::vector<SendResult> sent;
    MessageQueue target;
    for (int i = 0; i < 10; ++i) {
        auto r = m_producer->sendSync(
            Message("LiteAssign", "n" + QByteArray::number(i)), selectors::byHash("one"));
        QVERIFY_OK(r);
        target = r->messageQueue;
        sent.push_back(*r);
    }
    LitePullConsumer c(options("tst_lite_assign", "lite3"));
    QVERIFY(c.assign({target}).isOk());
    QVERIFY(c.start().isOk());
    QCOMPARE(c.assignment().size(), std::size_t(1));
    auto first = pollUntil(c, 10, 10000);
    QCOMPARE(static_cast<int>(first.size()), 10);
    QCOMPARE(first.front().queueOffset(), sent.front().queueOffset);
    // seek into the middle
    QVERIFY(c.seek(target, sent[5].queueOffset).isOk());
    auto mid = pollUntil(c, 5, 10000);
    QVERIFY(!mid.empty());
    QCOMPARE(mid.front().queueOffset(), sent[5].queueOffset);
    QCOMPARE(mid.front().body(), QByteArray("n5"));
    // to the beginning
    QVERIFY(c.seekToBegin(target).isOk());
    auto again = pollUntil(c, 1, 10000);
    QVERIFY(!again.empty());
    QCOMPARE(again.front().queueOffset(), std::int64_t(0));
    // to the end: nothing until something new
    QVERIFY(c.seekToEnd(target).isOk());
    QTest::qWait(100);
    (void)c.poll(100); // a batch fetched before the seek is dropped
    QVERIFY(c.poll(300).empty());
    QVERIFY_OK(m_producer->sendSync(Message("LiteAssign", "newest"), target));
    auto newest = pollUntil(c, 1, 10000);
    QCOMPARE(static_cast<int>(newest.size()), 1);
    QCOMPARE(newest.front().body(), QByteArray("newest"));
    // timestamps
    auto ts = c.offsetForTimestamp(target, before);
    QVERIFY_OK(ts);
    QVERIFY(*ts <= sent.front().queueOffset);
    // an offset past the end is refused
    QCOMPARE(c.seek(target, 1'000'000).code(), Status::Code::InvalidArgument);
}

void tst_LitePullConsumer::badCallsAreErrors()
{
    LitePullConsumer idle(options("tst_lite_idle", "lite4"));
    QElapsedTimer t;
    t.start();
    QVERIFY(idle.poll(2000).empty()); // not started: at once
    QVERIFY(t.elapsed() < 500);
    QCOMPARE(
        idle.seek(MessageQueue {"LiteTopic", "broker-0", 0}, 0).code(), Status::Code::Unavailable);
    LitePullConsumer c(options("tst_lite_bad", "lite5"));
    QVERIFY(c.subscribe("LiteTopic").isOk());
    QCOMPARE(c.assign({MessageQueue {"LiteTopic", "broker-0", 0}}).code(),
        Status::Code::InvalidArgument);
    QVERIFY(c.start().isOk());
    QCOMPARE(c.seek(MessageQueue {"OtherTopic", "broker-0", 0}, 0).code(),
        Status::Code::InvalidArgument);
    LitePullConsumer noGroup(options("", "lite6"));
    QCOMPARE(noGroup.start().code(), Status::Code::InvalidArgument);
}

QTEST_GUILESS_MAIN(tst_LitePullConsumer)
#include "tst_litepullconsumer.moc"
