// tst_RuntimeBodies: the runtime-report bodies of clientlib/protocol/bodies/runtimebodies.h
// round-trip (write -> read -> equal), and their writers keep the bytes the producers wrote by
// hand before the writers moved here (push and lite-pull consumers, the broker's
// VIEW_BROKER_STATS_DATA and store-files extension, the name server's liveness extension); every
// body's "array of objects" member reads the same way (arraysOfObjects).

#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/bodies/habodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/bodies/runtimebodies.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

template<typename T>
void roundTrip(const T &value)
{
    const QByteArray json = value.toJson();
    const Result<T> back = T::fromJson(json);
    QVERIFY2(back.has_value(), back ? "" : qPrintable(back.error().toString()));
    QVERIFY2(*back == value, json.constData());
}

std::vector<SubscriptionData> subscriptions()
{
    SubscriptionData retry;
    retry.topic = "%RETRY%G1";
    retry.subVersion = 1700000000456;
    SubscriptionData tags;
    tags.topic = "TopicA";
    tags.subString = "tagA || tagB";
    tags.buildTags();
    tags.subVersion = 1700000000123;
    return {retry, tags};
}

/// What the push consumer reported for a fixed state (the golden below).
ConsumerRunningInfo pushInfo()
{
    ConsumerRunningInfo info;
    info.jstack = "\"main\" #1\n\tat x.y(Z.java:1)";
    ProcessQueueInfo &q0 = info.mqTable[MessageQueue {"TopicA", "broker-a", 0}];
    q0.cachedMsgCount = 3;
    q0.cachedMsgMinOffset = 10;
    q0.cachedMsgMaxOffset = 12;
    q0.cachedMsgSizeInMiB = 1;
    q0.commitOffset = 10;
    q0.lastConsumeTimestamp = 1700000001000;
    q0.lastPullTimestamp = 1700000002000;
    ProcessQueueInfo &q1 = info.mqTable[MessageQueue {"TopicA", "broker-a", 1}];
    q1.commitOffset = -1;
    q1.dropped = true;
    q1.lastLockTimestamp = 1700000003000;
    q1.lastPullTimestamp = 1700000004000;
    q1.locked = true;
    q1.transactionMsgCount = 2;
    info.properties = {{"PROP_CLIENT_VERSION", "V4_9_7"}, {"PROP_CONSUMEORDERLY", "false"},
        {"PROP_CONSUMER_START_TIMESTAMP", "1700000000000"},
        {"PROP_CONSUME_TYPE", "CONSUME_PASSIVELY"}, {"PROP_NAMESERVER_ADDR", "127.0.0.1:9876"},
        {"PROP_THREADPOOL_CORE_SIZE", "20"}, {"allocateMessageQueueStrategy", "AVG"},
        {"awaitTerminationMillisWhenShutdown", "0"}, {"consumeConcurrentlyMaxSpan", "2000"},
        {"consumeFromWhere", "CONSUME_FROM_LAST_OFFSET"}, {"consumeMessageBatchMaxSize", "1"},
        {"consumeThreadMax", "20"}, {"consumeThreadMin", "20"},
        {"consumeTimestamp", "20231114221320"}, {"consumerGroup", "G1"},
        {"maxReconsumeTimes", "16"}, {"messageModel", "CLUSTERING"}, {"pullBatchSize", "32"},
        {"pullInterval", "0"}, {"pullThresholdForQueue", "1000"},
        {"postSubscriptionWhenPull", "false"}, {"pullThresholdForTopic", "-1"},
        {"pullThresholdSizeForQueue", "100"}, {"pullThresholdSizeForTopic", "-1"},
        {"suspendCurrentQueueTimeMillis", "1000"}, {"unitMode", "false"}};
    info.statusTable["%RETRY%G1"] = ConsumeStatus {};
    // 7 consumed, 1 failed in 40 ms, 3 pulls of 8 messages in 10 ms, over 3 s.
    info.statusTable["TopicA"] = ConsumeStatus {10.0 / 3, 8.0 / 3, 40.0 / 8, 7.0 / 3, 1.0 / 3, 1};
    info.subscriptionSet = subscriptions();
    return info;
}

// The push consumer's hand-written body for pushInfo(), captured before the writer moved.
const QByteArray kPushBefore = QByteArray(
    "{\"jstack\":\"\\\"main\\\" #1\\n\\tat "
    "x.y(Z.java:1)\",\"mqTable\":{{\"brokerName\":\"broker-a\","
    R"("queueId":0,"topic":"TopicA"}:{"cachedMsgCount":3,"cachedMsgMaxOffset":12,)"
    R"("cachedMsgMinOffset":10,"cachedMsgSizeInMiB":1,"commitOffset":10,"droped":false,)"
    R"("lastConsumeTimestamp":1700000001000,"lastLockTimestamp":0,)"
    R"("lastPullTimestamp":1700000002000,"locked":false,"transactionMsgCount":0,)"
    R"("transactionMsgMaxOffset":0,"transactionMsgMinOffset":0,"tryUnlockTimes":0},)"
    R"({"brokerName":"broker-a","queueId":1,"topic":"TopicA"}:{"cachedMsgCount":0,)"
    R"("cachedMsgMaxOffset":0,"cachedMsgMinOffset":0,"cachedMsgSizeInMiB":0,)"
    R"("commitOffset":-1,"droped":true,"lastConsumeTimestamp":0,)"
    R"("lastLockTimestamp":1700000003000,"lastPullTimestamp":1700000004000,"locked":true,)"
    R"("transactionMsgCount":2,"transactionMsgMaxOffset":0,"transactionMsgMinOffset":0,)"
    R"("tryUnlockTimes":0}},"properties":{"PROP_CLIENT_VERSION":"V4_9_7",)"
    R"("PROP_CONSUMEORDERLY":"false","PROP_CONSUMER_START_TIMESTAMP":"1700000000000",)"
    R"("PROP_CONSUME_TYPE":"CONSUME_PASSIVELY","PROP_NAMESERVER_ADDR":"127.0.0.1:9876",)"
    R"("PROP_THREADPOOL_CORE_SIZE":"20","allocateMessageQueueStrategy":"AVG",)"
    R"("awaitTerminationMillisWhenShutdown":"0","consumeConcurrentlyMaxSpan":"2000",)"
    R"("consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeMessageBatchMaxSize":"1",)"
    R"("consumeThreadMax":"20","consumeThreadMin":"20","consumeTimestamp":"20231114221320",)"
    R"("consumerGroup":"G1","maxReconsumeTimes":"16","messageModel":"CLUSTERING",)"
    R"("pullBatchSize":"32","pullInterval":"0","pullThresholdForQueue":"1000",)"
    R"("postSubscriptionWhenPull":"false","pullThresholdForTopic":"-1",)"
    R"("pullThresholdSizeForQueue":"100","pullThresholdSizeForTopic":"-1",)"
    R"("suspendCurrentQueueTimeMillis":"1000","unitMode":"false"},)"
    R"("statusTable":{"%RETRY%G1":{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,)"
    R"("consumeOKTPS":0.0,"consumeRT":0.0,"pullRT":0.0,"pullTPS":0.0},)"
    R"("TopicA":{"consumeFailedMsgs":1,"consumeFailedTPS":0.3333333333333333,)"
    R"("consumeOKTPS":2.3333333333333335,"consumeRT":5.0,"pullRT":3.3333333333333335,)"
    R"("pullTPS":2.6666666666666665}},"subscriptionSet":[{"classFilterMode":false,)"
    R"("codeSet":[],"expressionType":"TAG","subString":"*","subVersion":1700000000456,)"
    R"("tagsSet":[],"topic":"%RETRY%G1"},{"classFilterMode":false,"codeSet":[3552231,)"
    R"(3552232],"expressionType":"TAG","subString":"tagA || tagB",)"
    R"("subVersion":1700000000123,"tagsSet":["tagA","tagB"],"topic":"TopicA"}]})");

// The lite-pull consumer's hand-written body (no queues, no rates), captured likewise.
const QByteArray kLitePullBefore = QByteArray(
    R"({"jstack":"","mqTable":{},"properties":{"PROP_CLIENT_VERSION":"V4_9_7",)"
    R"("PROP_CONSUME_TYPE":"CONSUME_ACTIVELY",)"
    R"("PROP_CONSUMER_START_TIMESTAMP":"1700000000000","consumerGroup":"LG",)"
    R"("messageModel":"BROADCASTING"},"statusTable":{},)"
    R"("subscriptionSet":[{"classFilterMode":false,"codeSet":[],"expressionType":"TAG",)"
    R"("subString":"*","subVersion":1700000000456,"tagsSet":[],"topic":"%RETRY%G1"},)"
    R"({"classFilterMode":false,"codeSet":[3552231,3552232],"expressionType":"TAG",)"
    R"("subString":"tagA || tagB","subVersion":1700000000123,"tagsSet":["tagA","tagB"],)"
    R"("topic":"TopicA"}]})");

/// `json` with the member `"key":"value",` taken out and put back before `before`.
QByteArray moveMember(QByteArray json, const QByteArray &member, const QByteArray &before)
{
    const qsizetype at = json.indexOf(member);
    Q_ASSERT(at >= 0);
    json.remove(at, member.size());
    const qsizetype to = json.indexOf(before);
    Q_ASSERT(to >= 0);
    return json.insert(to, member);
}

} // namespace

class tst_RuntimeBodies : public QObject
{
    Q_OBJECT

private slots:
    void consumerRunningInfoRoundTrips()
    {
        roundTrip(pushInfo());
        roundTrip(ConsumerRunningInfo {});
        ConsumerRunningInfo lite;
        lite.properties = {{"PROP_CONSUME_TYPE", "CONSUME_ACTIVELY"}, {"consumerGroup", "LG"}};
        lite.subscriptionSet = subscriptions();
        roundTrip(lite);
        QVERIFY(!lite.isPushConsumer());
        QVERIFY(pushInfo().isPushConsumer());
    }

    void consumerRunningInfoKeepsTheBytes()
    {
        // What the reader makes of the old bytes is the value, and the writer writes the same
        // bytes except for the properties, which it writes in key order: the old push writer
        // had postSubscriptionWhenPull among the pull* keys, the lite-pull one had
        // PROP_CONSUME_TYPE before PROP_CONSUMER_START_TIMESTAMP ('_' sorts after 'R').
        const ConsumerRunningInfo push = pushInfo();
        QCOMPARE(ConsumerRunningInfo::fromJson(kPushBefore).value(), push);
        QCOMPARE(push.toJson(),
            moveMember(
                kPushBefore, R"("postSubscriptionWhenPull":"false",)", R"("pullBatchSize")"));

        ConsumerRunningInfo lite;
        lite.properties
            = {{"PROP_CLIENT_VERSION", "V4_9_7"}, {"PROP_CONSUME_TYPE", "CONSUME_ACTIVELY"},
                {"PROP_CONSUMER_START_TIMESTAMP", "1700000000000"}, {"consumerGroup", "LG"},
                {"messageModel", "BROADCASTING"}};
        lite.subscriptionSet = subscriptions();
        QCOMPARE(ConsumerRunningInfo::fromJson(kLitePullBefore).value(), lite);
        QCOMPARE(lite.toJson(),
            moveMember(kLitePullBefore, R"("PROP_CONSUME_TYPE":"CONSUME_ACTIVELY",)",
                R"("consumerGroup")"));
    }

    void brokerStatsData()
    {
        BrokerStatsData d;
        d.statsMinute = {120, 2.0, 0.5};
        d.statsHour = {7200, 2.0, 0.25};
        roundTrip(d);
        roundTrip(BrokerStatsData {});
        // The broker's VIEW_BROKER_STATS_DATA body before the writer moved here.
        QCOMPARE(d.toJson(),
            QByteArray(R"({"statsDay":{"avgpt":0.0,"sum":0,"tps":0.0},)"
                       R"("statsHour":{"avgpt":0.25,"sum":7200,"tps":2.0},)"
                       R"("statsMinute":{"avgpt":0.5,"sum":120,"tps":2.0}})"));
    }

    void storeFiles()
    {
        StoreFiles s;
        s.commitLogMaxOffset = 1073745000;
        s.diskRatio = 0.4375;
        s.fileReservedTimeHours = 72;
        s.now = 1700000100000;
        s.files.push_back({"/store/commitlog/00000000000000000000", 1073741824, 1700000000000,
            100000, 1700259200000, "not expired"});
        s.files.push_back({"/store/commitlog/00000000001073741824", 1073741824, 1700000200000, 0,
            1700259400000, QStringLiteral("in use \"active\" é").toUtf8()});
        roundTrip(s);
        roundTrip(StoreFiles {});
        StoreFiles full;
        full.diskFull = true;
        full.refuseReason = "disk full";
        roundTrip(full);
        // The broker's kGetStoreFiles body before the writer moved here.
        QCOMPARE(s.toJson(),
            QByteArray(R"({"commitLogMaxOffset":1073745000,"commitLogMinOffset":0,)"
                       R"("diskFull":false,"diskRatio":0.4375,"fileReservedTimeHours":72,)"
                       R"("files":[{"ageMillis":100000,"expiresAt":1700259200000,)"
                       R"("lastModified":1700000000000,)"
                       R"("path":"/store/commitlog/00000000000000000000",)"
                       R"("reasonKept":"not expired","size":1073741824},)"
                       R"({"ageMillis":0,"expiresAt":1700259400000,"lastModified":1700000200000,)"
                       R"("path":"/store/commitlog/00000000001073741824",)"
                       "\"reasonKept\":\"in use \\\"active\\\" é\",\"size\":1073741824}],"
                       R"("now":1700000100000,"refuseReason":""})"));
    }

    void brokerLiveness()
    {
        BrokerLiveness l;
        l.brokerChannelExpiredTime = 120000;
        l.now = 1700000002000;
        l.brokers.push_back({"DefaultCluster", "broker-a", 0, "10.0.0.1:10911", "10.0.0.1:10912",
            DataVersion {3, 1699999999000}, 1700000000000, 1500});
        l.brokers.push_back({"DefaultCluster", "broker-a", 1, "10.0.0.2:10911", "", DataVersion {},
            1700000001000, 500});
        roundTrip(l);
        roundTrip(BrokerLiveness {});
        // The name server's kGetBrokerLiveness body before the writer moved here.
        QCOMPARE(l.toJson(),
            QByteArray(R"({"brokerChannelExpiredTime":120000,"brokers":[{"ageMillis":1500,)"
                       R"("brokerAddr":"10.0.0.1:10911","brokerId":0,"brokerName":"broker-a",)"
                       R"("clusterName":"DefaultCluster",)"
                       R"("dataVersion":{"counter":3,"timestamp":1699999999000},)"
                       R"("haServerAddr":"10.0.0.1:10912","lastUpdateTimestamp":1700000000000},)"
                       R"({"ageMillis":500,"brokerAddr":"10.0.0.2:10911","brokerId":1,)"
                       R"("brokerName":"broker-a","clusterName":"DefaultCluster",)"
                       R"("dataVersion":{"counter":0,"timestamp":0},"haServerAddr":"",)"
                       R"("lastUpdateTimestamp":1700000001000}],"now":1700000002000})"));
    }

    // Every "array of objects" member (bodyjson::readObjectArray): absent or null reads as
    // empty, an element that is not an object is an error naming the body and the member, and
    // an element's own error (a bad messageQueue, dataVersion) ends the reading.
    void arraysOfObjects_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("member");
        QTest::addColumn<int>("readAs");
        QTest::newRow("liveness") << QByteArray("BrokerLiveness") << QByteArray("brokers") << 0;
        QTest::newRow("store files") << QByteArray("StoreFiles") << QByteArray("files") << 1;
        QTest::newRow("ha") << QByteArray("HARuntimeInfo") << QByteArray("haConnectionInfo") << 2;
        QTest::newRow("epochs") << QByteArray("EpochEntryCache") << QByteArray("epochList") << 3;
        QTest::newRow("explain") << QByteArray("ExplainBody") << QByteArray("findings") << 4;
        QTest::newRow("pop stats") << QByteArray("PopStatsBody") << QByteArray("groups") << 5;
        QTest::newRow("assignment") << QByteArray("QueryAssignmentResponseBody")
                                    << QByteArray("messageQueueAssignments") << 6;
    }
    void arraysOfObjects()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, member);
        QFETCH(int, readAs);
        // {error message, element count} of the body read as its type
        auto read = [readAs](const QByteArray &json) -> std::pair<QString, int> {
            auto out = [](const auto &r, auto count) -> std::pair<QString, int> {
                if (!r)
                    return {r.error().message(), -1};
                return {QString(), static_cast<int>(count(*r))};
            };
            switch (readAs) {
            case 0:
                return out(
                    BrokerLiveness::fromJson(json), [](auto &b) { return b.brokers.size(); });
            case 1:
                return out(StoreFiles::fromJson(json), [](auto &b) { return b.files.size(); });
            case 2:
                return out(HARuntimeInfo::fromJson(json),
                    [](auto &b) { return b.haConnectionInfo.size(); });
            case 3:
                return out(
                    EpochEntryCache::fromJson(json), [](auto &b) { return b.epochList.size(); });
            case 4:
                return out(ExplainBody::fromJson(json), [](auto &b) { return b.findings.size(); });
            case 5:
                return out(PopStatsBody::fromJson(json), [](auto &b) { return b.groups.size(); });
            default:
                return out(QueryAssignmentResponseBody::fromJson(json),
                    [](auto &b) { return b.messageQueueAssignments.size(); });
            }
        };
        QCOMPARE(read("{}"), std::make_pair(QString(), 0));
        QCOMPARE(read("{\"" + member + "\":null}"), std::make_pair(QString(), 0));
        const QByteArray element = readAs == 6
            ? QByteArray(R"({"messageQueue":{"topic":"T","brokerName":"b","queueId":1}})")
            : QByteArray("{}");
        QCOMPARE(read("{\"" + member + "\":[" + element + "," + element + "]}"),
            std::make_pair(QString(), 2));
        const auto [error, count] = read("{\"" + member + "\":[" + element + ",7]}");
        QCOMPARE(count, -1);
        QVERIFY2(error.contains(QLatin1String(body)) && error.contains(QLatin1String(member))
                && error.contains(QLatin1String("an array of objects")),
            qPrintable(error));
        QVERIFY(read("{\"" + member + "\":5}").second == -1);
        if (readAs == 6) // the element's own error
            QCOMPARE(read(R"({"messageQueueAssignments":[{"messageQueue":7}]})").second, -1);
        if (readAs == 0)
            QCOMPARE(read(R"({"brokers":[{"dataVersion":7}]})").second, -1);
    }
};

QTEST_APPLESS_MAIN(tst_RuntimeBodies)
#include "tst_runtimebodies.moc"
