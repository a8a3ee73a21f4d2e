// The admin requests of adminmore.cpp over sockets against an in-process BrokerController,
// as RocketMQ 4.9 answers them: QUERY_CONSUME_TIME_SPAN (303), CLONE_GROUP_OFFSET (314),
// GET_BROKER_CONSUME_STATS (317), QUERY_CONSUME_QUEUE (321), GET_ALL_PRODUCER_INFO (328) and
// INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223, answered by a consumer's GET_CONSUMER_STATUS_FROM_
// CLIENT processor).

#include "broker/brokercontroller.h"
#include "broker/common/brokercontext.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/json.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QTemporaryDir>
#include <QTest>

#include <mutex>

using namespace qrocket;
using namespace qrocket::brokertest;
using protocol::JsonValue;

namespace {

const QByteArray kTopic = "TA";

QByteArray ext(const RemotingCommand &c, const char *key)
{
    return c.extString(key).toByteArray();
}

JsonValue parse(const QByteArray &body)
{
    auto v = protocol::parseJson(body);
    if (!v) {
        qWarning() << "bad JSON:" << body;
        return {};
    }
    return v.value();
}

/// A consumer's GET_CONSUMER_STATUS_FROM_CLIENT (221): answers a fixed messageQueueTable and
/// records the request.
class StatusAnswerer final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) override
    {
        {
            std::lock_guard lock(m_mutex);
            m_requests.push_back(request);
        }
        RemotingCommand r = RemotingCommand::createResponse(request, 0);
        r.body = "{\"consumerTable\":{},\"messageQueueTable\":{{\"brokerName\":\"broker-a\","
                 "\"queueId\":0,\"topic\":\"TA\"}:5}}";
        respond(std::move(r));
    }
    std::vector<RemotingCommand> requests() const
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<RemotingCommand> m_requests;
};

} // namespace

class tst_AdminMore final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void consumeTimeSpan();
    void cloneGroupOffset();
    void brokerConsumeStats();
    void queryConsumeQueue();
    void allProducerInfo();
    void consumerStatus();
    void runtimeInfoCountsTheRemotingLimits();

private:
    RemotingCommand call(RemotingCommand req);

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    std::unique_ptr<remoting::RemotingClient> m_consumer;
    std::shared_ptr<StatusAnswerer> m_status;
    QByteArray m_addr;
};

void tst_AdminMore::initTestCase()
{
    QVERIFY(m_dir.isValid());
    brokertest::startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-a"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_addr = localAddr(m_broker->listenPort());
    m_client = std::make_unique<remoting::RemotingClient>();

    // TA (auto-created, 4 queues): three messages in queue 0; G1 consumed one of them.
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call(sendV2(kTopic, 0, "m" + num(i))).code, 0);
    QVERIFY(m_broker->context().store->waitForDispatch(5000));
    QCOMPARE(call(request(200, {}, "{\"groupName\":\"G1\"}")).code, 0);
    QCOMPARE(call(request(15,
                      {{"consumerGroup", "G1"}, {"topic", kTopic}, {"queueId", "0"},
                          {"commitOffset", "1"}}))
                 .code,
        0);
}

void tst_AdminMore::cleanupTestCase()
{
    m_client.reset();
    m_consumer.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_AdminMore::call(RemotingCommand req)
{
    return invoke(*m_client, m_addr, std::move(req), 15000);
}

void tst_AdminMore::consumeTimeSpan()
{
    const RemotingCommand r = call(request(303, {{"topic", kTopic}, {"group", "G1"}}));
    QCOMPARE(r.code, 0);
    const JsonValue body = parse(r.body);
    const auto &spans = body["consumeTimeSpanSet"].items();
    QCOMPARE(spans.size(), std::size_t(4));
    const JsonValue &q0 = spans[0];
    QCOMPARE(q0["messageQueue"]["topic"].toString(), kTopic);
    QCOMPARE(q0["messageQueue"]["brokerName"].toString(), QByteArray("broker-a"));
    QCOMPARE(q0["messageQueue"]["queueId"].toInteger(-1), 0);
    const std::int64_t minTime = q0["minTimeStamp"].toInteger();
    QVERIFY(minTime > 0);
    QVERIFY(q0["maxTimeStamp"].toInteger() >= minTime);
    // Consumed up to offset 1: the consume time is the store time of message 0.
    QCOMPARE(q0["consumeTimeStamp"].toInteger(), minTime);
    QVERIFY(q0["delayTime"].toInteger(-1) >= 0);
    QVERIFY(q0["minTimeStampStr"].toString().contains('#'));
    QVERIFY(q0.find("consumeTimeStampStr"));
    QVERIFY(q0.find("maxTimeStampStr"));
    // An empty queue: no messages (min/max -1). As RocketMQ, no offset (-1) counts as behind
    // the empty queue's max offset 0: the delay is now minus the store time of -1 (-1).
    QCOMPARE(spans[1]["minTimeStamp"].toInteger(), -1);
    QVERIFY(spans[1]["delayTime"].toInteger() > minTime);

    const RemotingCommand none = call(request(303, {{"topic", "NOPE"}, {"group", "G1"}}));
    QCOMPARE(none.code, 17);
    QCOMPARE(none.remark, QByteArray("topic[NOPE] not exist"));
    const RemotingCommand bad = call(request(303, {{"topic", kTopic}}));
    QCOMPARE(bad.code, 1);
    QCOMPARE(bad.remark, QByteArray("the custom field <group> is null"));
}

void tst_AdminMore::cloneGroupOffset()
{
    QCOMPARE(call(request(314,
                      {{"srcGroup", "G1"}, {"destGroup", "G2"}, {"topic", kTopic},
                          {"offline", "false"}}))
                 .code,
        0);
    const RemotingCommand q
        = call(request(14, {{"consumerGroup", "G2"}, {"topic", kTopic}, {"queueId", "0"}}));
    QCOMPARE(q.code, 0);
    QCOMPARE(ext(q, "offset"), QByteArray("1"));
    // No topic: every topic the source group has offsets for.
    QCOMPARE(call(request(314, {{"srcGroup", "G1"}, {"destGroup", "G3"}})).code, 0);
    QCOMPARE(ext(call(request(14, {{"consumerGroup", "G3"}, {"topic", kTopic}, {"queueId", "0"}})),
                 "offset"),
        QByteArray("1"));

    const RemotingCommand bad = call(request(314, {{"srcGroup", "G1"}}));
    QCOMPARE(bad.code, 1);
    QCOMPARE(bad.remark, QByteArray("the custom field <destGroup> is null"));
}

void tst_AdminMore::brokerConsumeStats()
{
    const RemotingCommand r = call(request(317, {{"isOrder", "false"}}));
    QCOMPARE(r.code, 0);
    const JsonValue body = parse(r.body);
    QCOMPARE(body["brokerAddr"].toString(), m_addr);
    // G1 has offsets (3 stored, 1 consumed); G2 and G3 are clones without a subscription group
    // entry: only subscription groups are listed.
    QCOMPARE(body["totalDiff"].toInteger(-1), 2);
    const JsonValue *g1 = nullptr;
    for (const JsonValue &entry : body["consumeStatsList"].items()) {
        if (const JsonValue *v = entry.find("G1"))
            g1 = v;
    }
    QVERIFY(g1);
    QCOMPARE(g1->items().size(), std::size_t(1));
    const JsonValue &stats = g1->items()[0];
    QVERIFY(stats.find("consumeTps"));
    const auto &offsets = stats["offsetTable"].members();
    QCOMPARE(offsets.size(), std::size_t(4));
    QCOMPARE(offsets[0].first["queueId"].toInteger(-1), 0);
    QCOMPARE(offsets[0].second["brokerOffset"].toInteger(), 3);
    QCOMPARE(offsets[0].second["consumerOffset"].toInteger(), 1);
    QVERIFY(offsets[0].second["lastTimestamp"].toInteger() > 0);

    const RemotingCommand ordered = call(request(317, {{"isOrder", "true"}}));
    QCOMPARE(ordered.code, 0);
    QCOMPARE(parse(ordered.body)["totalDiff"].toInteger(-1), 0);
    const RemotingCommand bad = call(request(317));
    QCOMPARE(bad.code, 1);
    QCOMPARE(bad.remark, QByteArray("the custom field <isOrder> is null"));
}

void tst_AdminMore::queryConsumeQueue()
{
    const RemotingCommand r
        = call(request(321, {{"topic", kTopic}, {"queueId", "0"}, {"index", "1"}, {"count", "5"}}));
    QCOMPARE(r.code, 0);
    QVERIFY(r.remark.isEmpty());
    const JsonValue body = parse(r.body);
    QCOMPARE(body["maxQueueIndex"].toInteger(-1), 3);
    QCOMPARE(body["minQueueIndex"].toInteger(-1), 0);
    QVERIFY(!body.find("filterData"));
    const auto &units = body["queueData"].items();
    QCOMPARE(units.size(), std::size_t(2)); // units 1 and 2
    QVERIFY(units[0]["physicOffset"].toInteger() > 0);
    QVERIFY(units[1]["physicOffset"].toInteger() > units[0]["physicOffset"].toInteger());
    QVERIFY(units[0]["physicSize"].toInteger() > 0);
    QCOMPARE(units[0]["eval"].toBool(true), false);

    const RemotingCommand offline = call(request(321,
        {{"topic", kTopic}, {"queueId", "0"}, {"index", "0"}, {"count", "1"},
            {"consumerGroup", "G1"}}));
    QCOMPARE(offline.code, 0);
    QCOMPARE(parse(offline.body)["filterData"].toString(), QByteArray("G1@TA is not online!"));
    QCOMPARE(parse(offline.body)["queueData"].items().size(), std::size_t(1));

    const RemotingCommand past = call(
        request(321, {{"topic", kTopic}, {"queueId", "0"}, {"index", "10"}, {"count", "1"}}));
    QCOMPARE(past.code, 0);
    QCOMPARE(past.remark, QByteArray("Index 10 of 0@TA is not exist!"));
    QVERIFY(!parse(past.body).find("queueData"));

    const RemotingCommand missing
        = call(request(321, {{"topic", "NOPE"}, {"queueId", "3"}, {"index", "0"}, {"count", "1"}}));
    QCOMPARE(missing.code, 1);
    QCOMPARE(missing.remark, QByteArray("3@NOPE is not exist!"));
    const RemotingCommand bad = call(request(321, {{"topic", kTopic}, {"queueId", "0"}}));
    QCOMPARE(bad.code, 1);
    QCOMPARE(bad.remark, QByteArray("the custom field <index> is null"));
}

void tst_AdminMore::allProducerInfo()
{
    protocol::HeartbeatData hb;
    hb.clientID = "127.0.0.1@prod";
    hb.producerDataSet.push_back({"PG_info"});
    QCOMPARE(call(request(34, {}, hb.toJson())).code, 0);

    const RemotingCommand r = call(request(328));
    QCOMPARE(r.code, 0);
    const JsonValue body = parse(r.body);
    const auto &list = body["data"]["PG_info"].items();
    QCOMPARE(list.size(), std::size_t(1));
    QCOMPARE(list[0]["clientId"].toString(), QByteArray("127.0.0.1@prod"));
    QCOMPARE(list[0]["language"].toString(), QByteArray("JAVA"));
    QVERIFY(list[0]["remoteIP"].toString().startsWith("127.0.0.1:"));
    QVERIFY(list[0]["lastUpdateTimestamp"].toInteger() > 0);
    QVERIFY(list[0].find("version"));
}

void tst_AdminMore::consumerStatus()
{
    const RemotingCommand none = call(request(223, {{"topic", kTopic}, {"group", "GC"}}));
    QCOMPARE(none.code, 1);
    QCOMPARE(none.remark, QByteArray("No Any Consumer online in the consumer group: [GC]"));

    m_consumer = std::make_unique<remoting::RemotingClient>();
    m_status = std::make_shared<StatusAnswerer>();
    m_consumer->registerProcessor(221, m_status);
    protocol::HeartbeatData hb;
    hb.clientID = "127.0.0.1@cons";
    protocol::ConsumerData cd;
    cd.groupName = "GC";
    protocol::SubscriptionData sd;
    sd.topic = kTopic;
    cd.subscriptionDataSet.push_back(sd);
    hb.consumerDataSet.push_back(cd);
    auto hbr = m_consumer->invokeSync(m_addr, request(34, {}, hb.toJson()), 5000);
    QVERIFY(hbr.has_value());
    QCOMPARE(hbr.value().code, 0);

    const RemotingCommand r = call(request(223, {{"topic", kTopic}, {"group", "GC"}}));
    QCOMPARE(r.code, 0);
    const JsonValue body = parse(r.body);
    QVERIFY(body["messageQueueTable"].isObject());
    QCOMPARE(body["messageQueueTable"].members().size(), std::size_t(0));
    const JsonValue &table = body["consumerTable"]["127.0.0.1@cons"];
    QCOMPARE(table.members().size(), std::size_t(1));
    QCOMPARE(table.members()[0].first["topic"].toString(), kTopic);
    QCOMPARE(table.members()[0].second.toInteger(), 5);
    const auto asked = m_status->requests();
    QCOMPARE(asked.size(), std::size_t(1));
    QCOMPARE(ext(asked[0], "topic"), kTopic);
    QCOMPARE(ext(asked[0], "group"), QByteArray("GC"));

    // Another client id: nobody asked, an empty table.
    const RemotingCommand other
        = call(request(223, {{"topic", kTopic}, {"group", "GC"}, {"clientAddr", "10.0.0.1@x"}}));
    QCOMPARE(other.code, 0);
    QCOMPARE(parse(other.body)["consumerTable"].members().size(), std::size_t(0));
    QCOMPARE(m_status->requests().size(), std::size_t(1));
}

void tst_AdminMore::runtimeInfoCountsTheRemotingLimits()
{
    // GET_BROKER_RUNTIME_INFO: QRocket's remoting keys beside RocketMQ's, both ports together.
    const RemotingCommand r = call(request(28));
    QCOMPARE(r.code, 0);
    const JsonValue table = parse(r.body)["table"];
    for (const char *key : {"remotingConnections", "remotingRefusedMaxConnections",
             "remotingRefusedMaxConnectionsPerAddress", "remotingPendingInputBytes",
             "remotingClosedPendingInputBudget", "remotingClosedFrameTimeout", "remotingClosedIdle",
             "remotingClosedUnsentCap", "remotingInflightPauses"})
        QVERIFY2(table[key].isString(), key);
    QVERIFY(table["remotingConnections"].toInteger() >= 1); // this client's
    QCOMPARE(table["remotingRefusedMaxConnections"].toInteger(), std::int64_t(0));
    QVERIFY(table["bootTimestamp"].isString()); // RocketMQ's keys unchanged
    QVERIFY(table["commitLogMaxOffset"].isString());
}

QTEST_GUILESS_MAIN(tst_AdminMore)
#include "tst_adminmore.moc"
