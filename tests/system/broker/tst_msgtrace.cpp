// tst_MsgTrace: message traces end to end with real daemons (issue 29). qrocket-namesrv and a
// qrocket-broker with traceTopicEnable=true run as processes; a producer and a push consumer of
// the client library with enableMsgTrace write Pub, SubBefore and SubAfter records (a failed
// first delivery and its retry included), a transaction producer writes EndTransaction; they
// are read back through Admin::queryMessageTrace and qrocket-admin queryMsgTraceById, and a
// customised trace topic is honoured.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/systemtopics.h"
#include "tests/system/broker/singlebrokerfixture.h"

#include <QTest>

#include <atomic>
#include <mutex>
#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using client::MessageTraceView;
using protocol::trace::TraceType;

namespace {

constexpr char kTopic[] = "TraceTopicA";
constexpr char kCustomTraceTopic[] = "MyTraceTopic";
constexpr char kPopTopic[] = "TracePopTopic";
constexpr char kProducerGroup[] = "trace-producer";
constexpr char kConsumerGroup[] = "trace-consumer";
constexpr int kMessages = 3;

const MessageTraceView *findRecord(
    const std::vector<MessageTraceView> &views, TraceType type, bool success = true)
{
    for (const MessageTraceView &v : views) {
        if (v.record.type == type && v.record.success == success)
            return &v;
    }
    return nullptr;
}

class CommitListener : public client::TransactionListener
{
public:
    client::LocalTransactionState executeLocalTransaction(const client::Message &, void *) override
    {
        return client::LocalTransactionState::CommitMessage;
    }
    client::LocalTransactionState checkLocalTransaction(const client::MessageExt &) override
    {
        return client::LocalTransactionState::CommitMessage;
    }
};

} // namespace

class tst_MsgTrace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void producerAndConsumerTraces();
    void queryMsgTraceByIdPrintsAsMqadmin();
    void transactionTraces();
    void customTraceTopic();
    void popConsumerTraces();

private:
    client::ClientConfig clientConfig() const;
    /// The trace of `msgId` once it holds every type in `types` (the index is built
    /// asynchronously); the last answer otherwise.
    std::vector<MessageTraceView> awaitTrace(const QByteArray &msgId,
        const std::vector<TraceType> &types, const QByteArray &traceTopic = {});

    SingleBrokerFixture m_fx;
    testlib::DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    std::unique_ptr<client::Admin> m_admin;
    std::vector<client::SendResult> m_sent;
};

client::ClientConfig tst_MsgTrace::clientConfig() const
{
    client::ClientConfig config;
    config.namesrvAddr = localAddr(m_fx.namesrvPort());
    config.clientIP = "127.0.0.1";
    return config;
}

void tst_MsgTrace::initTestCase()
{
    if (const QString missing = SingleBrokerFixture::missingDaemons(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QString err = m_fx.startNamesrv();
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY2(m_fx.startBroker(m_broker, m_fx.path(QStringLiteral("store")), "broker-trace",
                 "traceTopicEnable=true\n"),
        qPrintable(m_broker.error()));
    client::AdminOptions ao;
    ao.client = clientConfig();
    m_admin = std::make_unique<client::Admin>(ao);
    QVERIFY(m_admin->start());
    // The broker registered its topics, the trace topic among them; ours are created here.
    QTRY_VERIFY_WITH_TIMEOUT(m_admin->topicRoute(protocol::topics::kTrace).has_value(), 15000);
    for (const char *topic : {kTopic, kCustomTraceTopic, kPopTopic}) {
        const Status s = m_admin->createOrUpdateTopic(
            localAddr(m_fx.port()), protocol::TopicConfig(QByteArray(topic), 4));
        QVERIFY2(s, qPrintable(s.toString()));
        QTRY_VERIFY_WITH_TIMEOUT(m_admin->topicRoute(topic).has_value(), 15000);
    }
}

void tst_MsgTrace::cleanupTestCase()
{
    if (m_admin)
        m_admin->shutdown();
    if (m_broker.isRunning()) {
        const QByteArray out = m_broker.output();
        QCOMPARE(m_broker.stop(), 0);
        for (const char *bad : {"AddressSanitizer", "runtime error:", "ThreadSanitizer"})
            QVERIFY2(!out.contains(bad), out.right(4000).constData());
    }
    m_fx.stopNamesrv();
}

std::vector<MessageTraceView> tst_MsgTrace::awaitTrace(
    const QByteArray &msgId, const std::vector<TraceType> &types, const QByteArray &traceTopic)
{
    std::vector<MessageTraceView> views;
    QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        auto r = m_admin->queryMessageTrace(msgId, traceTopic);
        if (r) {
            views = *r;
            std::multiset<TraceType> have;
            for (const MessageTraceView &v : views)
                have.insert(v.record.type);
            bool all = true;
            std::multiset<TraceType> need(types.begin(), types.end());
            for (TraceType t : std::set<TraceType>(need.begin(), need.end()))
                all = all && have.count(t) >= need.count(t);
            if (all)
                return views;
        }
        QTest::qWait(200);
    }
    return views;
}

void tst_MsgTrace::producerAndConsumerTraces()
{
    client::ProducerOptions po;
    po.group = kProducerGroup;
    po.client = clientConfig();
    po.enableMsgTrace = true;
    client::Producer producer(po);
    QVERIFY(producer.start());
    for (int i = 0; i < kMessages; ++i) {
        client::Message msg(kTopic, "TagA", "order-" + QByteArray::number(i),
            "traced body " + QByteArray::number(i));
        auto sent = producer.sendSync(msg);
        QVERIFY2(sent, qPrintable(sent.status().toString()));
        m_sent.push_back(*sent);
    }
    const QByteArray failing = m_sent[0].msgId;

    client::PushConsumerOptions co;
    co.group = kConsumerGroup;
    co.client = clientConfig();
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    co.consumeThreadMin = co.consumeThreadMax = 2;
    co.enableMsgTrace = true;
    client::PushConsumer consumer(co);
    QVERIFY(consumer.subscribe(kTopic, "*"));
    std::mutex mutex;
    std::set<QByteArray> consumed;
    std::atomic<int> failures {0};
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &ctx) {
            for (const client::MessageExt &m : msgs) {
                // The first delivery of the first message fails: a SubAfter "failed", then a
                // redelivery (1 s later) with retryTimes 1.
                if (m.msgId() == failing && m.reconsumeTimes() == 0) {
                    ++failures;
                    ctx.delayLevelWhenNextConsume = 1;
                    return client::ConsumeConcurrentlyStatus::ReconsumeLater;
                }
                std::lock_guard lock(mutex);
                consumed.insert(m.msgId());
            }
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return consumed.size() == std::size_t(kMessages);
        }(),
        30000);
    QCOMPARE(failures.load(), 1);
    // Shutting down sends what the dispatchers still hold.
    consumer.shutdown();
    producer.shutdown();

    const QByteArray brokerAddr = localAddr(m_fx.port());
    for (int i = 0; i < kMessages; ++i) {
        const client::SendResult &sent = m_sent[static_cast<std::size_t>(i)];
        std::vector<TraceType> expected {TraceType::Pub, TraceType::SubBefore, TraceType::SubAfter};
        expected.reserve(5);
        if (i == 0) { // the failed delivery and the retry
            expected.push_back(TraceType::SubBefore);
            expected.push_back(TraceType::SubAfter);
        }
        const std::vector<MessageTraceView> views = awaitTrace(sent.msgId, expected);
        QCOMPARE(views.size(), expected.size());
        for (const MessageTraceView &v : views)
            QCOMPARE(v.record.msgId, sent.msgId);

        const MessageTraceView *pub = findRecord(views, TraceType::Pub);
        QVERIFY(pub);
        QCOMPARE(pub->record.groupName, QByteArray(kProducerGroup));
        QCOMPARE(pub->record.topic, QByteArray(kTopic));
        QCOMPARE(pub->record.offsetMsgId, sent.offsetMsgId);
        QCOMPARE(pub->record.tags, QByteArray("TagA"));
        QCOMPARE(pub->record.keys, "order-" + QByteArray::number(i));
        QCOMPARE(pub->record.storeHost, brokerAddr);
        QCOMPARE(pub->record.bodyLength, int(("traced body " + QByteArray::number(i)).size()));
        QCOMPARE(pub->record.regionId, QByteArray("DefaultRegion"));
        QCOMPARE(pub->record.msgType, protocol::trace::TraceMessageType::Normal);
        QCOMPARE(pub->clientHost, QByteArray("127.0.0.1"));
        QVERIFY(pub->record.costTime >= 0);
        QVERIFY(pub->record.timestamp > 0);

        const MessageTraceView *after = findRecord(views, TraceType::SubAfter, true);
        QVERIFY(after);
        QCOMPARE(after->record.groupName, QByteArray(kConsumerGroup));
        QCOMPARE(after->record.contextCode, 0); // SUCCESS
        QCOMPARE(after->status(), QByteArray("success"));
        // Its SubBefore carries the same request id, the group and the delivery's retry count.
        const MessageTraceView *before = nullptr;
        for (const MessageTraceView &v : views) {
            if (v.record.type == TraceType::SubBefore
                && v.record.requestId == after->record.requestId)
                before = &v;
        }
        QVERIFY(before);
        QCOMPARE(before->record.groupName, QByteArray(kConsumerGroup));
        QCOMPARE(before->record.retryTimes, i == 0 ? 1 : 0);
        QCOMPARE(before->record.keys, "order-" + QByteArray::number(i));
        QVERIFY(before->record.timestamp >= pub->record.timestamp);
        QVERIFY(after->record.timestamp >= before->record.timestamp);
        if (i == 0) {
            const MessageTraceView *failed = findRecord(views, TraceType::SubAfter, false);
            QVERIFY(failed);
            QCOMPARE(failed->record.contextCode, 4); // FAILED
            QCOMPARE(failed->status(), QByteArray("failed"));
            QVERIFY(failed->record.requestId != after->record.requestId);
        }
    }
    // A message nobody traced has no trace, and that is not an error.
    auto none = m_admin->queryMessageTrace("7F000001000000000000000000000000");
    QVERIFY2(none, qPrintable(none.status().toString()));
    QVERIFY(none->empty());
}

void tst_MsgTrace::queryMsgTraceByIdPrintsAsMqadmin()
{
    QVERIFY(!m_sent.empty());
    const QByteArray msgId = m_sent[1].msgId;
    const auto [code, out]
        = testlib::runProgram(testlib::binDir() + QStringLiteral("/qrocket-admin"),
            {QStringLiteral("queryMsgTraceById"), QStringLiteral("-i"), QString::fromUtf8(msgId),
                QStringLiteral("-n"), QString::fromUtf8(localAddr(m_fx.namesrvPort()))},
            20000);
    QVERIFY2(code == 0, out.constData());
    const QList<QByteArray> lines = out.split('\n');
    // mqadmin's layout: the Pub heading and row, a blank line, then per consumer group its
    // heading and SubAfter rows.
    const QByteArray pubHeading = QStringLiteral("%1 %2 %3 %4 %5 %6")
                                      .arg(QStringLiteral("#Type"), -10)
                                      .arg(QStringLiteral("#ProducerGroup"), -20)
                                      .arg(QStringLiteral("#ClientHost"), -20)
                                      .arg(QStringLiteral("#SendTime"), -20)
                                      .arg(QStringLiteral("#CostTimes"), -10)
                                      .arg(QStringLiteral("#Status"), -10)
                                      .toUtf8();
    const qsizetype pubAt = lines.indexOf(pubHeading);
    QVERIFY2(pubAt >= 0, out.constData());
    const QList<QByteArray> pub = lines[pubAt + 1].simplified().split(' ');
    QCOMPARE(pub.size(), 7); // Pub group host date time cost status
    QCOMPARE(pub[0], QByteArray("Pub"));
    QCOMPARE(pub[1], QByteArray(kProducerGroup));
    QCOMPARE(pub[2], QByteArray("127.0.0.1"));
    QVERIFY(pub[5].endsWith("ms"));
    QCOMPARE(pub[6], QByteArray("success"));
    QVERIFY(lines[pubAt + 2].isEmpty());
    qsizetype subAt = -1;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (lines[i].startsWith("#Type") && lines[i].contains("#ConsumerGroup")
            && lines[i].contains("#ConsumerTime"))
            subAt = i;
    }
    QVERIFY2(subAt > pubAt, out.constData());
    const QList<QByteArray> sub = lines[subAt + 1].simplified().split(' ');
    QCOMPARE(sub.size(), 7);
    QCOMPARE(sub[0], QByteArray("Sub"));
    QCOMPARE(sub[1], QByteArray(kConsumerGroup));
    QCOMPARE(sub[6], QByteArray("success"));

    // --json lists every record, SubBefore included.
    const auto [jcode, json]
        = testlib::runProgram(testlib::binDir() + QStringLiteral("/qrocket-admin"),
            {QStringLiteral("queryMsgTraceById"), QStringLiteral("-i"), QString::fromUtf8(msgId),
                QStringLiteral("--json"), QStringLiteral("-n"),
                QString::fromUtf8(localAddr(m_fx.namesrvPort()))},
            20000);
    QVERIFY2(jcode == 0, json.constData());
    QVERIFY2(json.contains("\"SubBefore\"") && json.contains("\"records\""), json.constData());
}

void tst_MsgTrace::transactionTraces()
{
    CommitListener listener;
    client::ProducerOptions po;
    po.group = "trace-tx-producer";
    po.client = clientConfig();
    po.enableMsgTrace = true;
    client::TransactionProducer producer(po, &listener);
    QVERIFY(producer.start());
    auto sent = producer.sendMessageInTransaction(client::Message(kTopic, "TagTx", "tx-1", "tx"));
    QVERIFY2(sent, qPrintable(sent.status().toString()));
    producer.shutdown();
    const std::vector<MessageTraceView> views
        = awaitTrace(sent->sendResult.msgId, {TraceType::Pub, TraceType::EndTransaction});
    const MessageTraceView *pub = findRecord(views, TraceType::Pub);
    const MessageTraceView *end = findRecord(views, TraceType::EndTransaction);
    QVERIFY(pub && end);
    QCOMPARE(pub->record.msgType, protocol::trace::TraceMessageType::TransHalf);
    QCOMPARE(end->record.msgType, protocol::trace::TraceMessageType::TransCommit);
    QCOMPARE(end->record.transactionState, QByteArray("COMMIT_MESSAGE"));
    QCOMPARE(end->record.transactionId, sent->sendResult.transactionId);
    QCOMPARE(end->record.groupName, QByteArray("trace-tx-producer"));
    QCOMPARE(end->record.keys, QByteArray("tx-1"));
    QVERIFY(!end->record.fromTransactionCheck);
}

void tst_MsgTrace::customTraceTopic()
{
    client::ProducerOptions po;
    po.group = "trace-custom-producer";
    po.client = clientConfig();
    po.enableMsgTrace = true;
    po.customizedTraceTopic = kCustomTraceTopic;
    client::Producer producer(po);
    QVERIFY(producer.start());
    auto sent = producer.sendSync(client::Message(kTopic, "custom"));
    QVERIFY2(sent, qPrintable(sent.status().toString()));
    producer.shutdown();
    const std::vector<MessageTraceView> views
        = awaitTrace(sent->msgId, {TraceType::Pub}, kCustomTraceTopic);
    QCOMPARE(views.size(), std::size_t(1));
    QCOMPARE(views[0].record.groupName, QByteArray("trace-custom-producer"));
    // Nothing went to the default trace topic.
    auto dflt = m_admin->queryMessageTrace(sent->msgId);
    QVERIFY(dflt);
    QVERIFY(dflt->empty());
}

void tst_MsgTrace::popConsumerTraces()
{
    // A push consumer in RocketMQ 5's broker-assigned mode (clientRebalance=false, the group in
    // POP mode) traces its deliveries as the pull path does: SubBefore and SubAfter.
    protocol::SetMessageRequestModeRequestBody mode;
    mode.topic = kPopTopic;
    mode.consumerGroup = "trace-pop-consumer";
    mode.mode = "POP";
    auto set = m_admin->setMessageRequestModeInCluster("DefaultCluster", mode);
    QVERIFY2(set, qPrintable(set.status().toString()));
    QVERIFY2(set->isOk(), qPrintable(set->status().toString()));

    client::ProducerOptions po;
    po.group = "trace-pop-producer";
    po.client = clientConfig();
    po.enableMsgTrace = true;
    client::Producer producer(po);
    QVERIFY(producer.start());
    std::vector<client::SendResult> sent;
    for (int i = 0; i < kMessages; ++i) {
        auto r = producer.sendSync(
            client::Message(kPopTopic, "TagP", "pop-" + QByteArray::number(i), "popped"));
        QVERIFY2(r, qPrintable(r.status().toString()));
        sent.push_back(*r);
    }
    client::PushConsumerOptions co;
    co.group = "trace-pop-consumer";
    co.client = clientConfig();
    co.clientRebalance = false;
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    co.brokerSuspendMaxTimeMillis = 1000;
    co.enableMsgTrace = true;
    client::PushConsumer consumer(co);
    QVERIFY(consumer.subscribe(kPopTopic, "*"));
    std::mutex mutex;
    std::set<QByteArray> consumed;
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            std::lock_guard lock(mutex);
            for (const client::MessageExt &m : msgs)
                consumed.insert(m.msgId());
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start());
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return consumed.size() == std::size_t(kMessages);
        }(),
        30000);
    consumer.shutdown();
    producer.shutdown();
    for (const client::SendResult &s : sent) {
        const std::vector<MessageTraceView> views
            = awaitTrace(s.msgId, {TraceType::Pub, TraceType::SubBefore, TraceType::SubAfter});
        const MessageTraceView *after = findRecord(views, TraceType::SubAfter, true);
        QVERIFY2(after, s.msgId.constData());
        QCOMPARE(after->record.groupName, QByteArray("trace-pop-consumer"));
        QCOMPARE(after->record.contextCode, 0);
        const MessageTraceView *before = nullptr;
        for (const MessageTraceView &v : views) {
            if (v.record.type == TraceType::SubBefore
                && v.record.requestId == after->record.requestId)
                before = &v;
        }
        QVERIFY(before);
        QCOMPARE(before->record.groupName, QByteArray("trace-pop-consumer"));
        QCOMPARE(before->record.msgId, s.msgId); // SubBefore has no topic field (Java)
    }
}

QTEST_GUILESS_MAIN(tst_MsgTrace)
#include "tst_msgtrace.moc"
