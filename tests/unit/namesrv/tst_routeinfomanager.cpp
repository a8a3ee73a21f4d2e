// RouteInfoManager semantics (protocol.md §3.1–§3.8).

#include "clientlib/common/hash.h"
#include "namesrv/routeinfomanager.h"
#include "tests/testlib/vectors.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace qrocket;
using namespace qrocket::namesrv;

namespace {

class FakeChannel : public remoting::Channel
{
public:
    explicit FakeChannel(std::uint64_t id) : m_id(id) { }
    std::uint64_t id() const override { return m_id; }
    QByteArray remoteAddress() const override { return QByteArrayLiteral("127.0.0.1:50000"); }
    bool isActive() const override { return !closed; }
    void close() override { closed = true; }
    void send(remoting::RemotingCommand) override { }
    void invokeAsync(remoting::RemotingCommand, int, remoting::InvokeCallback) override { }
    void invokeOneway(remoting::RemotingCommand) override { }
    bool closed = false;

private:
    std::uint64_t m_id;
};

RegisterBrokerBody body(
    std::int64_t counter, const QList<QByteArray> &topics, int queues = 4, int perm = 6)
{
    RegisterBrokerBody b;
    b.topicConfigSerializeWrapper.dataVersion = DataVersion {counter, 1700000000000};
    for (const QByteArray &t : topics) {
        TopicConfig tc;
        tc.topicName = t;
        tc.readQueueNums = queues;
        tc.writeQueueNums = queues;
        tc.perm = perm;
        b.topicConfigSerializeWrapper.topicConfigTable[t] = tc;
    }
    return b;
}

const QByteArray kCluster = QByteArrayLiteral("DefaultCluster");
const QByteArray kBrokerA = QByteArrayLiteral("broker-a");
const QByteArray kMasterAddr = QByteArrayLiteral("10.0.0.1:10911");
const QByteArray kMasterHa = QByteArrayLiteral("10.0.0.1:10912");
const QByteArray kSlaveAddr = QByteArrayLiteral("10.0.0.2:10911");
const QByteArray kSlaveHa = QByteArrayLiteral("10.0.0.2:10912");

} // namespace

class tst_RouteInfoManager : public QObject
{
    Q_OBJECT

private slots:
    void registersMasterAndServesRoute();
    void slaveRegistrationReturnsMasterAddresses();
    void slaveBeforeMasterGetsNoMasterAddress();
    void slaveOnlyTopicsAreIgnored();
    void reregisterWithChangedVersionRebuildsQueueData();
    void reregisterWithSameVersionKeepsQueueData();
    void deleteTopicWithRegistrationDropsMissingTopics();
    void slaveToMasterSwitchDropsOldId();
    void deleteTopicForOneCluster();
    void deleteTopicEverywhere();
    void wipeAndAddWritePermission();
    void expiresSilentBrokers();
    void queryDataVersionRefreshesLiveness();
    void channelCloseRemovesBrokerAtOnce();
    void unregisterLastAddressRemovesBrokerName();
    void unregisterSlaveKeepsBrokerName();
    void topicListsAndSystemTopics();
    void unitTopicLists();
    void clusterInfoJsonIsStandard();
    void routeJsonMatchesRecordedShape();
    void registerBodyFromRecordedFrame();
    void compressedBodyRoundTrip();
    void compressedBodyRejectsGarbage();
    void livenessReportsAges();
    void fastRouteJsonEqualsRouteData();
    void grpcPortsFollowTheLiveBrokers();
    void preparedBodiesFollowEveryChange();
    void departuresAreRememberedAndBounded();

private:
    std::int64_t m_now = 1000;
};

void tst_RouteInfoManager::registersMasterAndServesRoute()
{
    RouteInfoManager rim;
    QSignalSpy registered(&rim, &RouteInfoManager::brokerRegistered);
    const auto r = rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA", "TopicB"}), nullptr);
    QVERIFY(r.masterAddr.isEmpty());
    QVERIFY(r.haServerAddr.isEmpty());
    QCOMPARE(registered.size(), 1);
    QCOMPARE(registered.at(0).at(3).toByteArray(), kMasterAddr);

    const auto route = rim.pickupTopicRouteData("TopicA");
    QVERIFY(route.has_value());
    QCOMPARE(route->queueDatas.size(), size_t(1));
    QCOMPARE(route->queueDatas[0].brokerName, kBrokerA);
    QCOMPARE(route->queueDatas[0].readQueueNums, 4);
    QCOMPARE(route->queueDatas[0].perm, 6);
    QCOMPARE(route->brokerDatas.size(), size_t(1));
    QCOMPARE(route->brokerDatas[0].cluster, kCluster);
    QCOMPARE(route->brokerDatas[0].brokerAddrs.at(0), kMasterAddr);
    QVERIFY(!rim.pickupTopicRouteData("Nope").has_value());

    // A second registration of the same broker is not "new".
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), nullptr);
    QCOMPARE(registered.size(), 1);
}

void tst_RouteInfoManager::slaveRegistrationReturnsMasterAddresses()
{
    RouteInfoManager rim;
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), nullptr);
    const auto r = rim.registerBroker(
        kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"TopicA"}), nullptr);
    QCOMPARE(r.masterAddr, kMasterAddr);
    QCOMPARE(r.haServerAddr, kMasterHa);

    const auto route = rim.pickupTopicRouteData("TopicA");
    QVERIFY(route);
    QCOMPARE(route->brokerDatas.size(), size_t(1));
    QCOMPARE(route->brokerDatas[0].brokerAddrs.size(), size_t(2));
    QCOMPARE(route->brokerDatas[0].brokerAddrs.at(1), kSlaveAddr);
    QCOMPARE(rim.liveBrokerCount(), 2);
}

void tst_RouteInfoManager::slaveBeforeMasterGetsNoMasterAddress()
{
    RouteInfoManager rim;
    const auto r = rim.registerBroker(
        kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"TopicA"}), nullptr);
    QVERIFY(r.masterAddr.isEmpty());
    QVERIFY(r.haServerAddr.isEmpty());
}

void tst_RouteInfoManager::slaveOnlyTopicsAreIgnored()
{
    // Only masters contribute queue data.
    RouteInfoManager rim;
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"TopicS"}), nullptr);
    QVERIFY(!rim.pickupTopicRouteData("TopicS"));
    QVERIFY(rim.allTopicList().isEmpty());
}

void tst_RouteInfoManager::reregisterWithChangedVersionRebuildsQueueData()
{
    RouteInfoManager rim;
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}, 4), nullptr);
    QCOMPARE(rim.pickupTopicRouteData("TopicA")->queueDatas[0].writeQueueNums, 4);
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(2, {"TopicA", "TopicNew"}, 8), nullptr);
    QCOMPARE(rim.pickupTopicRouteData("TopicA")->queueDatas[0].writeQueueNums, 8);
    QCOMPARE(rim.pickupTopicRouteData("TopicNew")->queueDatas[0].readQueueNums, 8);
    // Default (RocketMQ 4.x): a topic missing from a later body keeps its queue data.
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(3, {"TopicNew"}, 8), nullptr);
    QVERIFY(rim.pickupTopicRouteData("TopicA"));
}

void tst_RouteInfoManager::reregisterWithSameVersionKeepsQueueData()
{
    RouteInfoManager rim;
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(5, {"TopicA"}, 4), nullptr);
    QVERIFY(!rim.isBrokerTopicConfigChanged(kMasterAddr, DataVersion {5, 1700000000000}));
    QVERIFY(rim.isBrokerTopicConfigChanged(kMasterAddr, DataVersion {6, 1700000000000}));
    QVERIFY(rim.isBrokerTopicConfigChanged("1.2.3.4:1", DataVersion {5, 1700000000000}));
    // Same version, different content: the name server trusts the version and keeps its data.
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(5, {"TopicA"}, 16), nullptr);
    QCOMPARE(rim.pickupTopicRouteData("TopicA")->queueDatas[0].writeQueueNums, 4);
}

void tst_RouteInfoManager::deleteTopicWithRegistrationDropsMissingTopics()
{
    RouteInfoManager rim;
    rim.setDeleteTopicWithBrokerRegistration(true);
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"T1", "T2"}), nullptr);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(2, {"T2"}), nullptr);
    QVERIFY(!rim.pickupTopicRouteData("T1"));
    QVERIFY(rim.pickupTopicRouteData("T2"));
}

void tst_RouteInfoManager::slaveToMasterSwitchDropsOldId()
{
    RouteInfoManager rim;
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"TopicA"}), nullptr);
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 0, kSlaveHa, body(1, {"TopicA"}), nullptr);
    const auto route = rim.pickupTopicRouteData("TopicA");
    QVERIFY(route);
    QCOMPARE(route->brokerDatas[0].brokerAddrs.size(), size_t(1));
    QCOMPARE(route->brokerDatas[0].brokerAddrs.begin()->first, 0);
}

void tst_RouteInfoManager::deleteTopicForOneCluster()
{
    RouteInfoManager rim;
    rim.registerBroker("C1", "10.0.0.1:10911", "b1", 0, {}, body(1, {"Shared", "Only1"}), nullptr);
    rim.registerBroker("C2", "10.0.0.2:10911", "b2", 0, {}, body(1, {"Shared"}), nullptr);
    QCOMPARE(rim.pickupTopicRouteData("Shared")->queueDatas.size(), size_t(2));

    rim.deleteTopic("Shared", "C1");
    const auto route = rim.pickupTopicRouteData("Shared");
    QVERIFY(route);
    QCOMPARE(route->queueDatas.size(), size_t(1));
    QCOMPARE(route->queueDatas[0].brokerName, QByteArray("b2"));
    QVERIFY(rim.pickupTopicRouteData("Only1"));

    rim.deleteTopic("Shared", "C2");
    QVERIFY(!rim.pickupTopicRouteData("Shared"));
    QVERIFY(!rim.allTopicList().contains("Shared"));
    rim.deleteTopic("Only1", "NoSuchCluster");
    QVERIFY(rim.pickupTopicRouteData("Only1"));
}

void tst_RouteInfoManager::deleteTopicEverywhere()
{
    RouteInfoManager rim;
    rim.registerBroker("C1", "10.0.0.1:10911", "b1", 0, {}, body(1, {"Shared"}), nullptr);
    rim.registerBroker("C2", "10.0.0.2:10911", "b2", 0, {}, body(1, {"Shared"}), nullptr);
    rim.deleteTopic("Shared");
    QVERIFY(!rim.pickupTopicRouteData("Shared"));
}

void tst_RouteInfoManager::wipeAndAddWritePermission()
{
    RouteInfoManager rim;
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, {}, body(1, {"T1", "T2"}, 4, 6), nullptr);
    rim.registerBroker(
        kCluster, "10.0.0.9:10911", "broker-b", 0, {}, body(1, {"T1"}, 4, 6), nullptr);
    QCOMPARE(rim.wipeWritePermOfBroker(kBrokerA), 2);
    const auto route = rim.pickupTopicRouteData("T1");
    for (const QueueData &qd : route->queueDatas)
        QCOMPARE(qd.perm, qd.brokerName == kBrokerA ? 4 : 6);
    QCOMPARE(rim.wipeWritePermOfBroker("nobody"), 0);
    QCOMPARE(rim.addWritePermOfBroker(kBrokerA), 2);
    QCOMPARE(rim.pickupTopicRouteData("T2")->queueDatas[0].perm, 6);
}

void tst_RouteInfoManager::expiresSilentBrokers()
{
    RouteInfoManager rim;
    rim.setClock([this] { return m_now; });
    QSignalSpy expired(&rim, &RouteInfoManager::brokerExpired);
    auto ch = std::make_shared<FakeChannel>(7);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), ch);
    m_now += 60'000;
    rim.registerBroker(kCluster, "10.0.0.5:10911", "broker-b", 0, {}, body(1, {"TopicA"}), nullptr);

    m_now += 60'000; // broker-a: exactly 120 s, not yet expired
    QCOMPARE(rim.scanNotActiveBroker(120'000), 0);
    m_now += 1;
    QCOMPARE(rim.scanNotActiveBroker(120'000), 1);
    QCOMPARE(expired.size(), 1);
    QCOMPARE(expired.at(0).at(0).toByteArray(), kMasterAddr);
    QVERIFY(ch->closed);
    QVERIFY(!rim.isBrokerLive(kMasterAddr));
    const auto route = rim.pickupTopicRouteData("TopicA");
    QVERIFY(route);
    QCOMPARE(route->queueDatas.size(), size_t(1));
    QCOMPARE(route->queueDatas[0].brokerName, QByteArray("broker-b"));
    QVERIFY(!rim.clusterInfoJson().contains(kBrokerA));

    m_now += 60'000;
    QCOMPARE(rim.scanNotActiveBroker(120'000), 1);
    QVERIFY(!rim.pickupTopicRouteData("TopicA"));
    QCOMPARE(rim.clusterInfoJson(), QByteArray(R"({"brokerAddrTable":{},"clusterAddrTable":{}})"));
}

void tst_RouteInfoManager::queryDataVersionRefreshesLiveness()
{
    RouteInfoManager rim;
    rim.setClock([this] { return m_now; });
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), nullptr);
    m_now += 100'000;
    rim.updateBrokerInfoUpdateTimestamp(kMasterAddr);
    m_now += 100'000;
    QCOMPARE(rim.scanNotActiveBroker(120'000), 0);
    QCOMPARE(rim.queryBrokerTopicConfig(kMasterAddr)->counter, 1);
}

void tst_RouteInfoManager::channelCloseRemovesBrokerAtOnce()
{
    RouteInfoManager rim;
    QSignalSpy expired(&rim, &RouteInfoManager::brokerExpired);
    auto master = std::make_shared<FakeChannel>(1);
    auto slave = std::make_shared<FakeChannel>(2);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), master);
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"TopicA"}), slave);

    rim.onChannelDestroy(99); // not a broker's channel
    QCOMPARE(rim.liveBrokerCount(), 2);
    rim.onChannelDestroy(1);
    QCOMPARE(expired.size(), 1);
    QCOMPARE(rim.liveBrokerCount(), 1);
    auto route = rim.pickupTopicRouteData("TopicA");
    QVERIFY(route); // the slave still serves broker-a
    QCOMPARE(route->brokerDatas[0].brokerAddrs.size(), size_t(1));
    QCOMPARE(route->brokerDatas[0].brokerAddrs.at(1), kSlaveAddr);
    rim.onChannelDestroy(2);
    QVERIFY(!rim.pickupTopicRouteData("TopicA"));
    QVERIFY(rim.allTopicList().isEmpty());
}

void tst_RouteInfoManager::unregisterLastAddressRemovesBrokerName()
{
    RouteInfoManager rim;
    QSignalSpy unregistered(&rim, &RouteInfoManager::brokerUnregistered);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, {}, body(1, {"T1", "T2"}), nullptr);
    rim.registerBroker(kCluster, "10.0.0.9:10911", "broker-b", 0, {}, body(1, {"T2"}), nullptr);
    rim.unregisterBroker(kCluster, kMasterAddr, kBrokerA, 0);
    QCOMPARE(unregistered.size(), 1);
    QVERIFY(!rim.pickupTopicRouteData("T1"));
    QVERIFY(!rim.allTopicList().contains("T1"));
    QCOMPARE(rim.pickupTopicRouteData("T2")->queueDatas.size(), size_t(1));
    QVERIFY(!rim.clusterInfoJson().contains(kBrokerA));
    QVERIFY(rim.clusterInfoJson().contains("\"DefaultCluster\":[\"broker-b\"]"));
    QVERIFY(!rim.isBrokerLive(kMasterAddr));
    rim.unregisterBroker(kCluster, "10.0.0.9:10911", "broker-b", 0);
    QVERIFY(!rim.clusterInfoJson().contains(kCluster));
}

void tst_RouteInfoManager::unregisterSlaveKeepsBrokerName()
{
    RouteInfoManager rim;
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"T1"}), nullptr);
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"T1"}), nullptr);
    rim.unregisterBroker(kCluster, kSlaveAddr, kBrokerA, 1);
    const auto route = rim.pickupTopicRouteData("T1");
    QVERIFY(route);
    QCOMPARE(route->brokerDatas[0].brokerAddrs.size(), size_t(1));
}

void tst_RouteInfoManager::topicListsAndSystemTopics()
{
    RouteInfoManager rim;
    rim.registerBroker("C1", "10.0.0.1:10911", "b1", 0, {}, body(1, {"T1", "Shared"}), nullptr);
    rim.registerBroker("C2", "10.0.0.2:10911", "b2", 0, {}, body(1, {"T2", "Shared"}), nullptr);
    QCOMPARE(rim.allTopicList(), (QList<QByteArray> {"Shared", "T1", "T2"}));
    QCOMPARE(rim.topicsByCluster("C1"), (QList<QByteArray> {"Shared", "T1"}));
    QCOMPARE(rim.topicsByCluster("C2"), (QList<QByteArray> {"Shared", "T2"}));
    QVERIFY(rim.topicsByCluster("C3").isEmpty());
    QByteArray addr;
    QCOMPARE(rim.systemTopicList(&addr), (QList<QByteArray> {"C1", "C2", "b1", "b2"}));
    QCOMPARE(addr, QByteArray("10.0.0.1:10911"));
    QCOMPARE(topicListJson({"a", "b"}, addr),
        QByteArray(R"({"brokerAddr":"10.0.0.1:10911","topicList":["a","b"]})"));
    QCOMPARE(topicListJson({}), QByteArray(R"({"topicList":[]})"));
}

void tst_RouteInfoManager::unitTopicLists()
{
    RouteInfoManager rim;
    RegisterBrokerBody b = body(1, {"plain", "unit", "unitSub", "both"});
    b.topicConfigSerializeWrapper.topicConfigTable["unit"].topicSysFlag = kTopicSysFlagUnit;
    b.topicConfigSerializeWrapper.topicConfigTable["unitSub"].topicSysFlag = kTopicSysFlagUnitSub;
    b.topicConfigSerializeWrapper.topicConfigTable["both"].topicSysFlag
        = kTopicSysFlagUnit | kTopicSysFlagUnitSub;
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, {}, b, nullptr);
    QCOMPARE(rim.unitTopics(), (QList<QByteArray> {"both", "unit"}));
    QCOMPARE(rim.hasUnitSubTopics(), (QList<QByteArray> {"both", "unitSub"}));
    QCOMPARE(rim.hasUnitSubUnUnitTopics(), (QList<QByteArray> {"unitSub"}));
}

void tst_RouteInfoManager::clusterInfoJsonIsStandard()
{
    RouteInfoManager rim;
    rim.registerBroker(kCluster, "127.0.0.1:20911", kBrokerA, 0, {}, body(1, {"T"}), nullptr);
    const QByteArray json = rim.clusterInfoJson();
    // Same structure as the recorded answer of RocketMQ 4.9.7, with the quoted key it can read.
    QCOMPARE(json,
        QByteArray(R"({"brokerAddrTable":{"broker-a":{"brokerAddrs":{"0":"127.0.0.1:20911"},)"
                   R"("brokerName":"broker-a","cluster":"DefaultCluster"}},)"
                   R"("clusterAddrTable":{"DefaultCluster":["broker-a"]}})"));
    QVERIFY(QJsonDocument::fromJson(json).isObject());
}

void tst_RouteInfoManager::routeJsonMatchesRecordedShape()
{
    // The answer the real 4.9.7 name server gave a 4.9.7 Java client (frames.jsonl id 8).
    const QByteArray recorded
        = R"({"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:20911"},"brokerName":"broker-a",)"
          R"("cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":)"
          R"("broker-a","perm":7,"readQueueNums":8,"topicSysFlag":0,"writeQueueNums":8}]})";
    RouteInfoManager rim;
    rim.registerBroker(
        kCluster, "127.0.0.1:20911", kBrokerA, 0, {}, body(1, {"TBW102"}, 8, 7), nullptr);
    QCOMPARE(rim.pickupTopicRouteData("TBW102")->toJson(), recorded);

    auto parsed = TopicRouteData::fromJson(recorded);
    QVERIFY(parsed.has_value());
    QCOMPARE(parsed->toJson(), recorded);

    // fastjson's form for old clients (unquoted integer keys, frames.jsonl id 76) reads the same.
    QByteArray fastjson = recorded;
    fastjson.replace("{\"0\":", "{0:");
    auto parsedFast = TopicRouteData::fromJson(fastjson);
    QVERIFY(parsedFast.has_value());
    QCOMPARE(parsedFast->toJson(), recorded);

    TopicRouteData withOrder = *parsed;
    withOrder.orderTopicConf = "broker-a:8";
    QVERIFY(withOrder.toJson().contains(R"("orderTopicConf":"broker-a:8")"));
}

void tst_RouteInfoManager::registerBodyFromRecordedFrame()
{
    // The first REGISTER_BROKER body of frames.jsonl (RocketMQ 4.9.7 broker).
    QFile f(qrocket::testing::vectorPath(QStringLiteral("frames.jsonl")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray bodyBytes;
    while (!f.atEnd()) {
        const QJsonObject o = QJsonDocument::fromJson(f.readLine()).object();
        if (o.value(QLatin1String("code")).toInt() == 103) {
            bodyBytes
                = QByteArray::fromBase64(o.value(QLatin1String("body_b64")).toString().toLatin1());
            break;
        }
    }
    QVERIFY(!bodyBytes.isEmpty());
    auto b = RegisterBrokerBody::fromJson(bodyBytes);
    QVERIFY2(b.has_value(), qPrintable(b.status().toString()));
    const TopicConfigSerializeWrapper &w = b->topicConfigSerializeWrapper;
    QCOMPARE(w.dataVersion.counter, 0);
    QCOMPARE(w.dataVersion.timestamp, 1796013276532);
    QVERIFY(w.topicConfigTable.contains("TBW102"));
    QCOMPARE(w.topicConfigTable.at("TBW102").perm, 7);
    QCOMPARE(w.topicConfigTable.at("SCHEDULE_TOPIC_XXXX").readQueueNums, 18);
    QCOMPARE(crc32Masked(bodyBytes), 942065949);

    // Re-encoding keeps every topic.
    auto again = RegisterBrokerBody::fromJson(b->toJson());
    QVERIFY(again.has_value());
    QCOMPARE(again->topicConfigSerializeWrapper.topicConfigTable.size(), w.topicConfigTable.size());
    QVERIFY(!RegisterBrokerBody::fromJson("{not json").has_value());
    QVERIFY(!RegisterBrokerBody::fromJson("[1,2]").has_value());
}

void tst_RouteInfoManager::compressedBodyRoundTrip()
{
    RegisterBrokerBody b = body(42, {"T1", "T2"}, 3, 6);
    b.filterServerList = {"10.0.0.7:1234"};
    const QByteArray z = b.encodeCompressed().value();
    QVERIFY(!z.isEmpty());
    auto back = RegisterBrokerBody::decode(z, true);
    QVERIFY2(back.has_value(), qPrintable(back.status().toString()));
    const TopicConfigSerializeWrapper &w = back->topicConfigSerializeWrapper;
    QCOMPARE(w.dataVersion, b.topicConfigSerializeWrapper.dataVersion);
    QCOMPARE(w.topicConfigTable.size(), size_t(2));
    QCOMPARE(w.topicConfigTable.at("T2").readQueueNums, 3);
    QCOMPARE(w.topicConfigTable.at("T2").perm, 6);
    QCOMPARE(back->filterServerList, b.filterServerList);
}

void tst_RouteInfoManager::compressedBodyRejectsGarbage()
{
    QVERIFY(!RegisterBrokerBody::decodeCompressed("not zlib at all").has_value());
    QVERIFY(!RegisterBrokerBody::decodeCompressed({}).has_value());
    // A valid zlib stream of a truncated plaintext.
    const QByteArray z = qCompress(QByteArray("\x00\x00\x00\x10{", 5)).mid(4);
    QVERIFY(!RegisterBrokerBody::decodeCompressed(z).has_value());
    // A zip bomb is capped.
    const QByteArray bomb = qCompress(QByteArray(1 << 20, 'x'), 9).mid(4);
    QVERIFY(!RegisterBrokerBody::decodeCompressed(bomb, 1024).has_value());
}

void tst_RouteInfoManager::livenessReportsAges()
{
    RouteInfoManager rim;
    rim.setClock([this] { return m_now; });
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(3, {"T"}), nullptr);
    m_now += 1500;
    const auto live = rim.brokerLiveness();
    QCOMPARE(live.size(), 1);
    QCOMPARE(live[0].brokerAddr, kMasterAddr);
    QCOMPARE(live[0].brokerName, kBrokerA);
    QCOMPARE(live[0].clusterName, kCluster);
    QCOMPARE(live[0].haServerAddr, kMasterHa);
    QCOMPARE(live[0].ageMs, 1500);
    QCOMPARE(live[0].dataVersion.counter, 3);
    QVERIFY(live[0].lastUpdateEpochMs > 1700000000000);
}

void tst_RouteInfoManager::fastRouteJsonEqualsRouteData()
{
    RouteInfoManager rim;
    RegisterBrokerBody withFilters = body(1, {"T1", "T2"});
    withFilters.filterServerList = {"10.0.0.1:7000", "10.0.0.1:7001"};
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, withFilters, nullptr);
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"T1"}), nullptr);
    rim.registerBroker("C2", "10.0.0.3:10911", "broker-b", 0, {}, body(1, {"T1"}, 2, 4), nullptr);
    for (const QByteArray topic : {"T1", "T2"}) {
        const auto route = rim.pickupTopicRouteData(topic);
        QVERIFY(route);
        QCOMPARE(rim.topicRouteJson(topic).value_or(""), route->toJson());
        TopicRouteData ordered = *route;
        ordered.orderTopicConf = "broker-a:4;broker-b:2";
        QCOMPARE(rim.topicRouteJson(topic, ordered.orderTopicConf).value_or(""), ordered.toJson());
    }
    QVERIFY(rim.topicRouteJson("T1").value_or("").contains(
        R"("filterServerTable":{"10.0.0.1:10911":["10.0.0.1:7000","10.0.0.1:7001"]})"));
    QVERIFY(!rim.topicRouteJson("nope"));
}

void tst_RouteInfoManager::grpcPortsFollowTheLiveBrokers()
{
    // The gRPC port a broker registered (QRocket's "grpcPort" header field) is given back per
    // broker id in the route, by both encoders; a broker without one, and the cluster info, show
    // nothing; a broker that goes takes its port with it.
    RouteInfoManager rim;
    rim.registerBroker(
        kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"T1"}), nullptr, false, 8081);
    rim.registerBroker(
        kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"T1"}), nullptr, false, 8082);
    rim.registerBroker(kCluster, "10.0.0.3:10911", "broker-b", 0, {}, body(1, {"T1"}), nullptr);
    auto route = rim.pickupTopicRouteData("T1");
    QVERIFY(route);
    QCOMPARE(route->brokerDatas.size(), std::size_t(2));
    QCOMPARE(route->brokerDatas[0].grpcPorts, (std::map<std::int64_t, int> {{0, 8081}, {1, 8082}}));
    QVERIFY(route->brokerDatas[1].grpcPorts.empty());
    const QByteArray json = rim.topicRouteJson("T1").value_or("");
    QCOMPARE(json, route->toJson());
    QVERIFY(json.contains(R"("cluster":"DefaultCluster","grpcPorts":{"0":8081,"1":8082}})"));
    QVERIFY(!rim.freshClusterInfoJson().contains("grpcPorts"));
    // Re-registered without a port (gRPC turned off): none.
    rim.registerBroker(
        kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(1, {"T1"}), nullptr, false, 0);
    route = rim.pickupTopicRouteData("T1");
    QCOMPARE(route->brokerDatas[0].grpcPorts, (std::map<std::int64_t, int> {{0, 8081}}));
    rim.unregisterBroker(kCluster, kMasterAddr, kBrokerA, 0);
    route = rim.pickupTopicRouteData("T1");
    QVERIFY(route);
    QVERIFY(route->brokerDatas[0].grpcPorts.empty());
    QCOMPARE(rim.topicRouteJson("T1").value_or(""), route->toJson());
}

void tst_RouteInfoManager::preparedBodiesFollowEveryChange()
{
    // GET_ALL_TOPIC_LIST_FROM_NAMESERVER and GET_BROKER_CLUSTER_INFO answer prepared bodies: after
    // every kind of change they are the bytes the answers had before (topicListJson of
    // allTopicList(), the cluster info encoded now); with no change in between, the same buffer.
    RouteInfoManager rim;
    rim.setClock([this] { return m_now; });
    rim.setDeleteTopicWithBrokerRegistration(true);
    QByteArray lastTopics = rim.allTopicListJson();
    QByteArray lastCluster = rim.clusterInfoJson();
    QCOMPARE(lastTopics, QByteArray(R"({"topicList":[]})"));
    QCOMPARE(lastCluster, QByteArray(R"({"brokerAddrTable":{},"clusterAddrTable":{}})"));
    // Checks both bodies; `topics` / `cluster`: whether that body was expected to change.
    auto check = [&](const char *what, bool topics, bool cluster) -> QByteArray {
        const QByteArray t = rim.allTopicListJson();
        const QByteArray c = rim.clusterInfoJson();
        const QByteArray where = QByteArray(what) + ": ";
        if (t != topicListJson(rim.allTopicList()) || t != rim.freshAllTopicListJson())
            return where + "topic list differs from a fresh encode: " + t;
        if (c != rim.freshClusterInfoJson())
            return where + "cluster info differs from a fresh encode: " + c;
        if (rim.allTopicListJson().constData() != t.constData()
            || rim.clusterInfoJson().constData() != c.constData())
            return where + "encoded again without a change";
        if (topics != (t != lastTopics))
            return where + (topics ? "topic list did not change" : "topic list changed");
        if (cluster != (c != lastCluster))
            return where + (cluster ? "cluster info did not change" : "cluster info changed");
        lastTopics = t;
        lastCluster = c;
        return {};
    };
    auto a = std::make_shared<FakeChannel>(1);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"T1", "T2"}), a);
    QCOMPARE(check("first registration", true, true), QByteArray());
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"T1", "T2"}), a);
    QCOMPARE(check("same registration again", false, false), QByteArray());
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(2, {"T3"}), a, true);
    QCOMPARE(check("incremental registration of a new topic", true, false), QByteArray());
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(3, {"T3"}, 8), a, true);
    QCOMPARE(check("a topic's queues changed", false, false), QByteArray());
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(3, {"T1"}), nullptr);
    QCOMPARE(check("slave registration", false, true), QByteArray());
    rim.registerBroker("C2", "10.0.0.7:10911", "broker-c", 0, {}, body(1, {"T1", "C"}), nullptr);
    QCOMPARE(check("another cluster", true, true), QByteArray());
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(4, {"T1", "T3"}), a);
    QCOMPARE(check("full registration without T2", true, false), QByteArray());
    QCOMPARE(rim.wipeWritePermOfBroker(kBrokerA), 2);
    QCOMPARE(check("wipe write permission", false, false), QByteArray());
    rim.deleteTopic("T3");
    QCOMPARE(check("topic deleted", true, false), QByteArray());
    rim.deleteTopic("T1", kCluster);
    QCOMPARE(check("topic deleted in one cluster (still in C2)", false, false), QByteArray());
    rim.deleteTopic("T1", "C2");
    QCOMPARE(check("topic deleted in its last cluster", true, false), QByteArray());
    rim.deleteTopic("Missing");
    QCOMPARE(check("missing topic deleted", false, false), QByteArray());
    rim.unregisterBroker(kCluster, kSlaveAddr, kBrokerA, 1);
    QCOMPARE(check("slave unregistered", false, true), QByteArray());
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 1, kSlaveHa, body(3, {"T1"}), nullptr);
    rim.registerBroker(kCluster, kSlaveAddr, kBrokerA, 0, kSlaveHa, body(5, {"S"}), nullptr);
    QCOMPARE(check("slave became master", true, true), QByteArray());
    m_now += 200'000;
    rim.registerBroker("C2", "10.0.0.7:10911", "broker-c", 0, {}, body(1, {"C"}), nullptr);
    QCOMPARE(check("re-registration (liveness only)", false, false), QByteArray());
    QCOMPARE(rim.scanNotActiveBroker(120'000), 2); // broker-a's old master and its new one
    QCOMPARE(check("broker expired", true, true), QByteArray());
    rim.onChannelDestroy(99);
    QCOMPARE(check("unknown channel closed", false, false), QByteArray());
    auto c = std::make_shared<FakeChannel>(3);
    rim.registerBroker("C2", "10.0.0.7:10911", "broker-c", 0, {}, body(2, {"C"}), c);
    QCOMPARE(check("new channel", false, false), QByteArray());
    rim.onChannelDestroy(3);
    QCOMPARE(check("connection closed", true, true), QByteArray());
    QCOMPARE(lastTopics, QByteArray(R"({"topicList":[]})"));
    QCOMPARE(lastCluster, QByteArray(R"({"brokerAddrTable":{},"clusterAddrTable":{}})"));
}

void tst_RouteInfoManager::departuresAreRememberedAndBounded()
{
    // explainBroker's history: each address's latest departure, with its age on the clock.
    RouteInfoManager rim;
    rim.setClock([this] { return m_now; });
    auto ch = std::make_shared<FakeChannel>(9);
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(1, {"TopicA"}), nullptr);
    rim.registerBroker(kCluster, "10.0.0.6:10911", kBrokerA, 1, {}, body(1, {"TopicA"}), ch);
    QVERIFY(rim.departures(kBrokerA).isEmpty());
    m_now += 120'001;
    rim.updateBrokerInfoUpdateTimestamp("10.0.0.6:10911");
    QCOMPARE(rim.scanNotActiveBroker(120'000), 1);
    m_now += 500;
    QList<BrokerDeparture> gone = rim.departures(kBrokerA);
    QCOMPARE(gone.size(), 1);
    QCOMPARE(gone[0].kind, QByteArray("expired"));
    QCOMPARE(gone[0].brokerAddr, kMasterAddr);
    QCOMPARE(gone[0].clusterName, kCluster);
    QCOMPARE(gone[0].ageMs, std::int64_t(500));
    QVERIFY2(gone[0].reason.contains("no registration for 120001 ms (brokerChannelExpiredTime "
                                     "120000 ms)"),
        gone[0].reason.constData());

    rim.onChannelDestroy(9);
    gone = rim.departures(kBrokerA);
    QCOMPARE(gone.size(), 2);
    QCOMPARE(gone[1].kind, QByteArray("connectionClosed"));
    QCOMPARE(gone[1].brokerId, std::int64_t(1));
    QVERIFY(rim.departures("broker-b").isEmpty());

    // The same address again: its latest departure replaces the earlier one.
    rim.registerBroker(kCluster, kMasterAddr, kBrokerA, 0, kMasterHa, body(2, {"TopicA"}), nullptr);
    rim.unregisterBroker(kCluster, kMasterAddr, kBrokerA, 0);
    gone = rim.departures(kBrokerA);
    QCOMPARE(gone.size(), 2);
    QCOMPARE(gone[0].kind, QByteArray("unregistered"));
    QCOMPARE(gone[0].ageMs, std::int64_t(0));

    // Bounded: the oldest go first.
    for (std::size_t i = 0; i < RouteInfoManager::kMaxDepartures; ++i) {
        m_now += 1;
        const QByteArray addr = "10.1.0." + QByteArray::number(i) + ":10911";
        rim.registerBroker(kCluster, addr, "broker-many", 0, {}, body(1, {"TopicM"}), nullptr);
        rim.unregisterBroker(kCluster, addr, "broker-many", 0);
    }
    QVERIFY(rim.departures(kBrokerA).isEmpty());
    QCOMPARE(std::size_t(rim.departures("broker-many").size()), RouteInfoManager::kMaxDepartures);

    // Refused registrations: the latest per name, clipped, none for an empty name.
    QVERIFY(!rim.lastRegistrationError(kBrokerA));
    rim.noteRegistrationError(kBrokerA, kMasterAddr, "crc32 not match");
    rim.noteRegistrationError(kBrokerA, kMasterAddr, QByteArray(5000, 'e'));
    rim.noteRegistrationError({}, kMasterAddr, "nobody");
    m_now += 7;
    const std::optional<BrokerDeparture> e = rim.lastRegistrationError(kBrokerA);
    QVERIFY(e);
    QCOMPARE(e->kind, QByteArray("registrationRefused"));
    QCOMPARE(e->reason.size(), qsizetype(1024));
    QCOMPARE(e->ageMs, std::int64_t(7));
    QVERIFY(!rim.lastRegistrationError({}));
}

QTEST_GUILESS_MAIN(tst_RouteInfoManager)
#include "tst_routeinfomanager.moc"
