// Socket-level tests of the name server: an in-process NamesrvController on port 0, driven by a
// fake broker and fake clients made of raw frames (the recorded RocketMQ 4.9.7 frames where one
// exists, protocol.md §3).

#include "clientlib/common/hash.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/extensioncode.h"
#include "namesrv/kvconfigmanager.h"
#include "namesrv/namesrvcontroller.h"
#include "namesrv/routeinfomanager.h"
#include "rawclient.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace qrocket;
using namespace qrocket::namesrv;
using namespace qrocket::testing;

namespace {

// Recorded frame ids (frames.jsonl).
constexpr int kRegisterBrokerReq = 1; // broker-a, 127.0.0.1:20911, version 407
constexpr int kRouteTbw102JavaReq = 5; // mqadmin GET_ROUTEINFO_BY_TOPIC TBW102
constexpr int kClusterInfoReq = 6; // mqadmin GET_BROKER_CLUSTER_INFO
constexpr int kClusterInfoResp = 7; // its answer (fastjson, unquoted integer keys)
constexpr int kRouteTbw102JavaResp = 8; // standard JSON answer to version 407
constexpr int kTopicListReq = 13; // GET_ALL_TOPIC_LIST_FROM_NAMESERVER
constexpr int kTopicListResp = 15;
constexpr int kGetNamesrvConfigReq = 32; // GET_NAMESRV_CONFIG
constexpr int kPutKvReq = 35; // PUT_KV_CONFIG VEC_NAMESPACE vecKey=vecValue
constexpr int kRouteCppReq = 75; // cpp client (version 333) GET_ROUTEINFO_BY_TOPIC TBW102
constexpr int kRouteAliOnsReq = 104; // ali-ons (version 121) AliOnsTopic -> 17
constexpr int kUnregisterBrokerReq = 286; // UNREGISTER_BROKER broker-a

const QByteArray kBrokerAddr = QByteArrayLiteral("127.0.0.1:20911");

QJsonObject jsonObject(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

class tst_NamesrvServer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();

    void registersRecordedBrokerAndServesRoutes();
    void answersClusterInfoLikeRocketMq();
    void answersTopicLists();
    void rejectsBodyWithBadCrc();
    void acceptsCompressedRegistration();
    void refusesCompressedBomb();
    void incrementalRegistrationKeepsOtherTopics();
    void slaveGetsMasterAddresses();
    void queryDataVersion();
    void unregisterRemovesRoutes();
    void wipeAndAddWritePermission();
    void deleteTopic();
    void kvConfigRoundTripAndPersistence();
    void orderTopicConfInRoute();
    void namesrvConfigGetAndUpdate();
    void closedBrokerConnectionRemovesBroker();
    void expiresSilentBroker();
    void twoNameServersReceiveSameBroker();
    void hostileFramesLeaveServerServing_data();
    void hostileFramesLeaveServerServing();
    void unknownCodeAnswers3();
    void missingHeaderFieldIsAnError();
    void livenessExtension();
    void onewayRegistrationIsNotAnswered();
    void oldBrokerSendsBareWrapper();
    void kvConfigCapsOverTheWire();
    void namesrvConfigShowsTheLimits();
    void connectionCapsOverTheWire();

private:
    std::unique_ptr<NamesrvController> startServer(NamesrvConfig config = {});
    NamesrvConfig baseConfig() const;
    RemotingCommand registerFrame() const { return recordedCommand(kRegisterBrokerReq); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<NamesrvController> m_ns;
    RawClient m_broker;
};

void tst_NamesrvServer::initTestCase()
{
    QROCKET_REQUIRE_VECTORS();
    QCOMPARE(recordedFrame(kRegisterBrokerReq).value(QLatin1String("code")).toInt(), 103);
}

NamesrvConfig tst_NamesrvServer::baseConfig() const
{
    NamesrvConfig config;
    config.listenAddress = QStringLiteral("127.0.0.1");
    config.listenPort = 0;
    config.serverSelectorThreads = 2;
    config.kvConfigPath = m_dir->filePath(QStringLiteral("kvConfig.json"));
    config.configStorePath = m_dir->filePath(QStringLiteral("namesrv.properties"));
    return config;
}

std::unique_ptr<NamesrvController> tst_NamesrvServer::startServer(NamesrvConfig config)
{
    auto ns = std::make_unique<NamesrvController>(config);
    const Status st = ns->start();
    if (!st.isOk())
        qWarning("start failed: %s", qPrintable(st.toString()));
    return st.isOk() ? std::move(ns) : nullptr;
}

void tst_NamesrvServer::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_ns = startServer(baseConfig());
    QVERIFY(m_ns);
    QVERIFY(m_broker.connectTo(m_ns->serverPort()));
}

void tst_NamesrvServer::cleanup()
{
    m_broker.close();
    m_ns.reset();
    m_dir.reset();
}

void tst_NamesrvServer::registersRecordedBrokerAndServesRoutes()
{
    // The broker's real frame, byte for byte.
    m_broker.sendRaw(recordedBytes(kRegisterBrokerReq, "frame_b64"));
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->opaque, 0);
    QVERIFY(resp->isResponse());
    QVERIFY(resp->body.isEmpty()); // no ORDER_TOPIC_CONFIG entries
    QVERIFY(!resp->hasExt("masterAddr"));

    // A Java 4.9.7 client's request: the same bytes the real name server sent back.
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    client.sendRaw(recordedBytes(kRouteTbw102JavaReq, "frame_b64"));
    resp = client.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->body, recordedBytes(kRouteTbw102JavaResp, "body_b64"));

    // A cpp client (version 333) gets standard JSON too, same content.
    client.sendRaw(recordedBytes(kRouteCppReq, "frame_b64"));
    resp = client.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->body, recordedBytes(kRouteTbw102JavaResp, "body_b64"));

    // ali-ons asks for a topic nobody has.
    client.sendRaw(recordedBytes(kRouteAliOnsReq, "frame_b64"));
    resp = client.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 17);
    QVERIFY(
        resp->remark.startsWith("No topic route info in name server for the topic: AliOnsTopic"));
}

void tst_NamesrvServer::answersClusterInfoLikeRocketMq()
{
    m_broker.sendRaw(recordedBytes(kRegisterBrokerReq, "frame_b64"));
    QVERIFY(m_broker.readFrame());
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    client.sendRaw(recordedBytes(kClusterInfoReq, "frame_b64"));
    auto resp = client.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    // RocketMQ wrote `{0:"…"}`; we write the standard `{"0":"…"}`, otherwise identical.
    QByteArray recorded = recordedBytes(kClusterInfoResp, "body_b64");
    recorded.replace("{0:", "{\"0\":");
    QCOMPARE(resp->body, recorded);
}

void tst_NamesrvServer::answersTopicLists()
{
    m_broker.sendRaw(recordedBytes(kRegisterBrokerReq, "frame_b64"));
    QVERIFY(m_broker.readFrame());
    m_broker.sendRaw(recordedBytes(kTopicListReq, "frame_b64"));
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    const auto toSet = [](const QByteArray &json) {
        QSet<QString> s;
        const QJsonArray arr = jsonObject(json).value(QLatin1String("topicList")).toArray();
        for (const QJsonValue &v : arr)
            s.insert(v.toString());
        return s;
    };
    QCOMPARE(toSet(resp->body), toSet(recordedBytes(kTopicListResp, "body_b64")));

    resp = m_broker.call(request(224, {{"cluster", "DefaultCluster"}}));
    QVERIFY(resp);
    QCOMPARE(toSet(resp->body), toSet(recordedBytes(kTopicListResp, "body_b64")));
    resp = m_broker.call(request(224, {{"cluster", "Nope"}}));
    QCOMPARE(resp->body, QByteArray(R"({"topicList":[]})"));

    resp = m_broker.call(request(304));
    QVERIFY(resp);
    QCOMPARE(resp->body,
        QByteArray(
            R"({"brokerAddr":"127.0.0.1:20911","topicList":["DefaultCluster","broker-a"]})"));
    for (const int code : {311, 312, 313}) {
        resp = m_broker.call(request(code));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->body, QByteArray(R"({"topicList":[]})"));
    }
}

void tst_NamesrvServer::rejectsBodyWithBadCrc()
{
    RemotingCommand reg = registerFrame();
    reg.setExt("bodyCrc32", QByteArray("12345"));
    auto resp = m_broker.call(reg);
    QVERIFY(resp);
    QCOMPARE(resp->code, 1);
    QCOMPARE(resp->remark, QByteArray("crc32 not match"));
    QVERIFY(!m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));

    // bodyCrc32 = 0 means "not checked".
    reg.setExt("bodyCrc32", QByteArray("0"));
    resp = m_broker.call(reg);
    QCOMPARE(resp->code, 0);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
}

void tst_NamesrvServer::acceptsCompressedRegistration()
{
    const RemotingCommand recorded = registerFrame();
    auto body = RegisterBrokerBody::fromJson(recorded.body);
    QVERIFY(body.has_value());
    RemotingCommand reg = recorded;
    reg.body = body->encodeCompressed().value();
    reg.setExt("compressed", QByteArray("true"));
    reg.setExt("bodyCrc32", crc32Masked(reg.body));
    auto resp = m_broker.call(reg);
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->body, recordedBytes(kRouteTbw102JavaResp, "body_b64"));

    // A broken zlib body is an error, not a crash.
    reg.body = "definitely not zlib";
    reg.setExt("bodyCrc32", QByteArray("0"));
    resp = m_broker.call(reg);
    QVERIFY(resp);
    QCOMPARE(resp->code, 1);
}

void tst_NamesrvServer::refusesCompressedBomb()
{
    // 72 MiB of zeros packs into ~70 KiB: a valid frame whose body would inflate past the name
    // server's 64 MiB bound. Refused with a clear remark; the name server keeps serving.
    RemotingCommand reg = registerFrame();
    reg.body = protocol::zlibCompress(QByteArray(72 * 1024 * 1024, '\0'), 9).value();
    QVERIFY(reg.body.size() < 1024 * 1024);
    reg.setExt("compressed", QByteArray("true"));
    reg.setExt("bodyCrc32", crc32Masked(reg.body));
    auto resp = m_broker.call(reg, 30000);
    QVERIFY(resp);
    QCOMPARE(resp->code, 1);
    QVERIFY2(resp->remark.contains("exceeds the limit"), resp->remark.constData());
    QVERIFY(!m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
}

void tst_NamesrvServer::incrementalRegistrationKeepsOtherTopics()
{
    // RocketMQ 4.9.7's registerIncrementBrokerData: a registration with a new DataVersion and
    // only the changed topic; the name server merges it and keeps the broker's other topics,
    // also with deleteTopicWithBrokerRegistration when the request says it is incremental.
    m_ns->routeInfoManager().setDeleteTopicWithBrokerRegistration(true);
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    const QList<QByteArray> before = m_ns->routeInfoManager().allTopicList();
    QVERIFY(before.contains("TBW102"));
    auto body = RegisterBrokerBody::fromJson(registerFrame().body);
    QVERIFY(body.has_value());
    RegisterBrokerBody increment;
    increment.topicConfigSerializeWrapper.dataVersion
        = body->topicConfigSerializeWrapper.dataVersion;
    increment.topicConfigSerializeWrapper.dataVersion.next();
    TopicConfig added;
    added.topicName = "IncrementTopic";
    added.readQueueNums = 2;
    added.writeQueueNums = 2;
    added.perm = 6;
    increment.topicConfigSerializeWrapper.topicConfigTable.emplace(added.topicName, added);
    RemotingCommand reg = registerFrame();
    reg.body = increment.toJson();
    reg.setExt("bodyCrc32", crc32Masked(reg.body));
    reg.setExt("incremental", QByteArray("true"));
    QCOMPARE(m_broker.call(reg)->code, 0);
    const QList<QByteArray> after = m_ns->routeInfoManager().allTopicList();
    QVERIFY(after.contains("IncrementTopic"));
    for (const QByteArray &topic : before)
        QVERIFY2(after.contains(topic), topic.constData());
    // Without the flag (a full registration) the option drops what the body lacks.
    increment.topicConfigSerializeWrapper.dataVersion.next();
    reg.body = increment.toJson();
    reg.setExt("bodyCrc32", crc32Masked(reg.body));
    reg.setExt("incremental", QByteArray("false"));
    QCOMPARE(m_broker.call(reg)->code, 0);
    QCOMPARE(m_ns->routeInfoManager().allTopicList(), QList<QByteArray> {"IncrementTopic"});
}

void tst_NamesrvServer::slaveGetsMasterAddresses()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    RemotingCommand slave = registerFrame();
    slave.setExt("brokerId", QByteArray("1"));
    slave.setExt("brokerAddr", QByteArray("127.0.0.1:30911"));
    slave.setExt("haServerAddr", QByteArray("127.0.0.1:30912"));
    RawClient slaveConn;
    QVERIFY(slaveConn.connectTo(m_ns->serverPort()));
    auto resp = slaveConn.call(slave);
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->extString("masterAddr").toByteArray(), kBrokerAddr);
    QCOMPARE(resp->extString("haServerAddr").toByteArray(), QByteArray("192.0.2.2:20912"));

    resp = slaveConn.call(request(105, {{"topic", "TBW102"}}));
    const auto route = TopicRouteData::fromJson(resp->body);
    QVERIFY(route.has_value());
    QCOMPARE(route->brokerDatas[0].brokerAddrs.size(), size_t(2));
}

void tst_NamesrvServer::queryDataVersion()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    const auto ext
        = std::initializer_list<std::pair<const char *, QByteArray>> {{"brokerName", "broker-a"},
            {"brokerAddr", kBrokerAddr}, {"clusterName", "DefaultCluster"}, {"brokerId", "0"}};
    auto resp = m_broker.call(request(322, ext, R"({"counter":0,"timestamp":1796013276532})"));
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->extString("changed").toByteArray(), QByteArray("false"));
    QCOMPARE(resp->body, QByteArray(R"({"counter":0,"timestamp":1796013276532})"));
    resp = m_broker.call(request(322, ext, R"({"counter":1,"timestamp":1796013276532})"));
    QCOMPARE(resp->extString("changed").toByteArray(), QByteArray("true"));
    resp = m_broker.call(request(322, ext, "garbage"));
    QCOMPARE(resp->code, 1);
}

void tst_NamesrvServer::unregisterRemovesRoutes()
{
    m_broker.sendRaw(recordedBytes(kRegisterBrokerReq, "frame_b64"));
    QVERIFY(m_broker.readFrame());
    QSignalSpy unregistered(&m_ns->routeInfoManager(), &RouteInfoManager::brokerUnregistered);
    m_broker.sendRaw(recordedBytes(kUnregisterBrokerReq, "frame_b64"));
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->opaque, 3211);
    QCOMPARE(unregistered.size(), 1);
    resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QCOMPARE(resp->code, 17);
    resp = m_broker.call(request(106));
    QCOMPARE(resp->body, QByteArray(R"({"brokerAddrTable":{},"clusterAddrTable":{}})"));
}

void tst_NamesrvServer::wipeAndAddWritePermission()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    const int topics = int(m_ns->routeInfoManager().allTopicList().size());
    auto resp = m_broker.call(request(205, {{"brokerName", "broker-a"}}));
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->extInt("wipeTopicCount").value_or(-1), topics);
    resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QCOMPARE(TopicRouteData::fromJson(resp->body)->queueDatas[0].perm, 5); // 7 & ~2
    resp = m_broker.call(request(327, {{"brokerName", "broker-a"}}));
    QCOMPARE(resp->extInt("addTopicCount").value_or(-1), topics);
    resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QCOMPARE(TopicRouteData::fromJson(resp->body)->queueDatas[0].perm, 6);
}

void tst_NamesrvServer::deleteTopic()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    auto resp = m_broker.call(request(216, {{"topic", "TBW102"}, {"clusterName", "OtherCluster"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(m_broker.call(request(105, {{"topic", "TBW102"}}))->code, 0);
    resp = m_broker.call(request(216, {{"topic", "TBW102"}, {"clusterName", "DefaultCluster"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(m_broker.call(request(105, {{"topic", "TBW102"}}))->code, 17);
    resp = m_broker.call(request(216, {{"topic", "SELF_TEST_TOPIC"}}));
    QCOMPARE(m_broker.call(request(105, {{"topic", "SELF_TEST_TOPIC"}}))->code, 17);
}

void tst_NamesrvServer::kvConfigRoundTripAndPersistence()
{
    // mqadmin updateKvConfig, as recorded.
    m_broker.sendRaw(recordedBytes(kPutKvReq, "frame_b64"));
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    resp = m_broker.call(request(101, {{"namespace", "VEC_NAMESPACE"}, {"key", "vecKey"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->extString("value").toByteArray(), QByteArray("vecValue"));
    resp = m_broker.call(request(219, {{"namespace", "VEC_NAMESPACE"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->body, QByteArray(R"({"table":{"vecKey":"vecValue"}})"));
    resp = m_broker.call(request(219, {{"namespace", "NOPE"}}));
    QCOMPARE(resp->code, 22);
    resp = m_broker.call(request(101, {{"namespace", "VEC_NAMESPACE"}, {"key", "nope"}}));
    QCOMPARE(resp->code, 22);

    // The file is byte-identical to what RocketMQ wrote for the same command.
    QFile file(m_dir->filePath(QStringLiteral("kvConfig.json")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), readVectorFile(QStringLiteral("store/namesrv/kvConfig.json")));

    // Restart: the value survives.
    m_broker.close();
    m_ns.reset();
    m_ns = startServer(baseConfig());
    QVERIFY(m_ns);
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    resp = client.call(request(101, {{"namespace", "VEC_NAMESPACE"}, {"key", "vecKey"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(resp->extString("value").toByteArray(), QByteArray("vecValue"));
    resp = client.call(request(102, {{"namespace", "VEC_NAMESPACE"}, {"key", "vecKey"}}));
    QCOMPARE(resp->code, 0);
    resp = client.call(request(101, {{"namespace", "VEC_NAMESPACE"}, {"key", "vecKey"}}));
    QCOMPARE(resp->code, 22);
}

void tst_NamesrvServer::orderTopicConfInRoute()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    QCOMPARE(
        m_broker
            .call(request(100,
                {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "TBW102"}, {"value", "broker-a:8"}}))
            ->code,
        0);
    // Off by default.
    auto resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QVERIFY(!resp->body.contains("orderTopicConf"));
    resp = m_broker.call(request(318, {}, "orderMessageEnable=true\n"));
    QCOMPARE(resp->code, 0);
    resp = m_broker.call(request(105, {{"topic", "TBW102"}}));
    QCOMPARE(TopicRouteData::fromJson(resp->body)->orderTopicConf, QByteArray("broker-a:8"));
    // And a registering broker receives the namespace as a KVTable.
    resp = m_broker.call(registerFrame());
    QCOMPARE(resp->body, QByteArray(R"({"table":{"TBW102":"broker-a:8"}})"));
}

void tst_NamesrvServer::namesrvConfigGetAndUpdate()
{
    m_broker.sendRaw(recordedBytes(kGetNamesrvConfigReq, "frame_b64"));
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QVERIFY(resp->body.contains("listenPort=0\n"));
    QVERIFY(resp->body.contains("orderMessageEnable=false\n"));
    QVERIFY(resp->body.contains("kvConfigPath="));

    resp = m_broker.call(request(318, {}, "kvConfigPath=/tmp/evil.json\n"));
    QCOMPARE(resp->code, 16);
    resp = m_broker.call(request(318, {}, "configBlackList=\n"));
    QCOMPARE(resp->code, 16);
    // Narrowed black list (CVE-2023-37582): paths, addresses and ports stay refused.
    resp = m_broker.call(request(318, {}, "configBlackList=productEnvName\n"));
    QCOMPARE(resp->code, 16);
    for (const QByteArray &body : {QByteArray("configStorePath=/tmp/evil.properties\n"),
             QByteArray("kvConfigPath=/tmp/evil.json\n"), QByteArray("rocketmqHome=/tmp/x\n"),
             QByteArray("listenAddress=10.9.9.9\n"), QByteArray("listenPort=1\n"),
             QByteArray("clusterTest=true\nconfigStorePath=/tmp/evil.properties\n")}) {
        resp = m_broker.call(request(318, {}, body));
        QCOMPARE(resp->code, 16);
        QVERIFY2(resp->remark.startsWith("Can not update config in black list: "),
            resp->remark.constData());
    }
    QVERIFY(!QFile::exists(QStringLiteral("/tmp/evil.properties")));
    QVERIFY(!m_broker.call(request(319))->body.contains("clusterTest=true"));
    resp = m_broker.call(request(318, {}, "brokerChannelExpiredTime=notanumber\n"));
    QCOMPARE(resp->code, 1);
    resp = m_broker.call(request(318, {}, "noSuchKey=1\n"));
    QCOMPARE(resp->code, 1);
    resp = m_broker.call(request(318, {}, "brokerChannelExpiredTime=60000\nclusterTest=true\n"));
    QCOMPARE(resp->code, 0);
    resp = m_broker.call(request(319));
    QVERIFY(resp->body.contains("brokerChannelExpiredTime=60000\n"));
    QVERIFY(resp->body.contains("clusterTest=true\n"));
    // Persisted to configStorePath.
    QFile stored(m_dir->filePath(QStringLiteral("namesrv.properties")));
    QVERIFY(stored.open(QIODevice::ReadOnly));
    QVERIFY(stored.readAll().contains("brokerChannelExpiredTime=60000"));
}

void tst_NamesrvServer::closedBrokerConnectionRemovesBroker()
{
    QSignalSpy expired(&m_ns->routeInfoManager(), &RouteInfoManager::brokerExpired);
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
    // A client connection closing does not touch the broker.
    {
        RawClient client;
        QVERIFY(client.connectTo(m_ns->serverPort()));
        QCOMPARE(client.call(request(105, {{"topic", "TBW102"}}))->code, 0);
    }
    m_broker.close();
    QTRY_VERIFY_WITH_TIMEOUT(!m_ns->routeInfoManager().isBrokerLive(kBrokerAddr), 5000);
    // brokerExpired is emitted after the removal, on the closing connection's thread.
    QTRY_COMPARE_WITH_TIMEOUT(expired.size(), 1, 5000);
    QVERIFY(m_ns->routeInfoManager().allTopicList().isEmpty());
}

void tst_NamesrvServer::expiresSilentBroker()
{
    cleanup();
    m_dir = std::make_unique<QTemporaryDir>();
    NamesrvConfig config = baseConfig();
    config.scanNotActiveBrokerDelay = 20;
    config.scanNotActiveBrokerInterval = 50;
    // Long enough that a loaded ASan run still sees the broker live right after registering.
    config.brokerChannelExpiredTime = 1000;
    m_ns = startServer(config);
    QVERIFY(m_ns);
    QVERIFY(m_broker.connectTo(m_ns->serverPort()));
    QSignalSpy expired(&m_ns->routeInfoManager(), &RouteInfoManager::brokerExpired);

    QElapsedTimer timer;
    timer.start();
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
    QTRY_VERIFY_WITH_TIMEOUT(!m_ns->routeInfoManager().isBrokerLive(kBrokerAddr), 10000);
    QVERIFY(timer.elapsed() >= 1000);
    QCOMPARE(expired.size(), 1);
    // The name server closed the silent broker's connection.
    QVERIFY(m_broker.waitForClosed(5000));
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    QCOMPARE(client.call(request(105, {{"topic", "TBW102"}}))->code, 17);
}

void tst_NamesrvServer::twoNameServersReceiveSameBroker()
{
    auto second = startServer(baseConfig());
    QVERIFY(second);
    RawClient toSecond;
    QVERIFY(toSecond.connectTo(second->serverPort()));
    // The broker registers with every name server, the same frame to each.
    const QByteArray frame = recordedBytes(kRegisterBrokerReq, "frame_b64");
    m_broker.sendRaw(frame);
    toSecond.sendRaw(frame);
    QCOMPARE(m_broker.readFrame()->code, 0);
    QCOMPARE(toSecond.readFrame()->code, 0);
    for (NamesrvController *ns : {m_ns.get(), second.get()}) {
        RawClient client;
        QVERIFY(client.connectTo(ns->serverPort()));
        auto resp = client.call(request(105, {{"topic", "TBW102"}}));
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->body, recordedBytes(kRouteTbw102JavaResp, "body_b64"));
    }
    // One name server losing the broker does not affect the other.
    toSecond.close();
    QTRY_VERIFY_WITH_TIMEOUT(!second->routeInfoManager().isBrokerLive(kBrokerAddr), 5000);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
}

void tst_NamesrvServer::hostileFramesLeaveServerServing_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addRow("garbage") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    QTest::addRow("oversize length") << QByteArray::fromHex("7fffffff00000010");
    QTest::addRow("negative length") << QByteArray::fromHex("ffffff0000000010");
    QTest::addRow("header longer than frame") << QByteArray::fromHex("0000000800ffffff00000000");
    QTest::addRow("bad json header")
        << QByteArray::fromHex("0000000900000005") + QByteArray("{{{{{");
    QTest::addRow("unknown serialize type")
        << QByteArray::fromHex("0000000907000005") + QByteArray("{}{}{");
}

void tst_NamesrvServer::hostileFramesLeaveServerServing()
{
    QFETCH(QByteArray, bytes);
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    RawClient hostile;
    QVERIFY(hostile.connectTo(m_ns->serverPort()));
    // A half-sent frame on a third connection stays pending without blocking anyone.
    RawClient partial;
    QVERIFY(partial.connectTo(m_ns->serverPort()));
    partial.sendRaw(QByteArray::fromHex("00000100000000"));
    hostile.sendRaw(bytes);
    QVERIFY(hostile.waitForClosed(5000));
    // Everyone else is still served.
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    auto resp = client.call(request(105, {{"topic", "TBW102"}}));
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    QCOMPARE(m_broker.call(request(106))->code, 0);
    QVERIFY(m_ns->routeInfoManager().isBrokerLive(kBrokerAddr));
}

void tst_NamesrvServer::unknownCodeAnswers3()
{
    for (const int code : {10, 999, 9999, 12345}) {
        auto resp = m_broker.call(request(code));
        QVERIFY(resp);
        QCOMPARE(resp->code, 3);
    }
    QCOMPARE(m_broker.call(request(106))->code, 0);
}

void tst_NamesrvServer::missingHeaderFieldIsAnError()
{
    auto resp = m_broker.call(request(103, {{"brokerName", "b"}}, "{}"));
    QVERIFY(resp);
    QCOMPARE(resp->code, 1);
    QVERIFY(resp->remark.contains("is null"));
    resp = m_broker.call(request(105));
    QCOMPARE(resp->code, 1);
    resp = m_broker.call(request(100, {{"namespace", "n"}}));
    QCOMPARE(resp->code, 1);
    RemotingCommand reg = registerFrame();
    reg.setExt("brokerId", QByteArray("zero"));
    QCOMPARE(m_broker.call(reg)->code, 1);
    reg = registerFrame();
    reg.body = "{\"topicConfigSerializeWrapper\":[";
    reg.setExt("bodyCrc32", QByteArray("0"));
    QCOMPARE(m_broker.call(reg)->code, 1);
}

void tst_NamesrvServer::livenessExtension()
{
    QCOMPARE(m_broker.call(registerFrame())->code, 0);
    auto resp = m_broker.call(request(protocol::extensioncode::kGetBrokerLiveness));
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    const QJsonObject o = jsonObject(resp->body);
    QCOMPARE(o.value(QLatin1String("brokerChannelExpiredTime")).toInteger(), 120000);
    const QJsonArray brokers = o.value(QLatin1String("brokers")).toArray();
    QCOMPARE(brokers.size(), 1);
    const QJsonObject b = brokers.at(0).toObject();
    QCOMPARE(b.value(QLatin1String("brokerAddr")).toString(), QStringLiteral("127.0.0.1:20911"));
    QCOMPARE(b.value(QLatin1String("brokerName")).toString(), QStringLiteral("broker-a"));
    QCOMPARE(b.value(QLatin1String("clusterName")).toString(), QStringLiteral("DefaultCluster"));
    QCOMPARE(b.value(QLatin1String("haServerAddr")).toString(), QStringLiteral("192.0.2.2:20912"));
    QVERIFY(b.value(QLatin1String("ageMillis")).toInteger() >= 0);
    QVERIFY(b.value(QLatin1String("ageMillis")).toInteger() < 60000);
    QVERIFY(b.value(QLatin1String("lastUpdateTimestamp")).toInteger()
        <= o.value(QLatin1String("now")).toInteger());
}

void tst_NamesrvServer::onewayRegistrationIsNotAnswered()
{
    // The broker's oneway REGISTER_BROKER after auto-creating a topic (frames.jsonl id 59,
    // dataVersion counter 2): applied, never answered.
    m_broker.sendRaw(recordedBytes(kRegisterBrokerReq, "frame_b64"));
    QCOMPARE(m_broker.readFrame()->code, 0);
    const RemotingCommand oneway = recordedCommand(59);
    QVERIFY(oneway.isOneway());
    m_broker.sendRaw(recordedBytes(59, "frame_b64"));
    RemotingCommand clusterInfo = request(106);
    clusterInfo.opaque = 4242;
    m_broker.send(clusterInfo);
    auto resp = m_broker.readFrame();
    QVERIFY(resp);
    QCOMPARE(resp->opaque, 4242); // the answer to this request, none to the oneway frame
    // Registrations run on the name server's writer thread and reads on the I/O thread, so the
    // oneway registration is not necessarily applied yet when the read's answer arrives.
    QTRY_COMPARE_WITH_TIMEOUT(m_ns->routeInfoManager().queryBrokerTopicConfig(kBrokerAddr)->counter,
        std::int64_t(2), 5000);
    const auto body = RegisterBrokerBody::fromJson(oneway.body);
    QVERIFY(body.has_value());
    QCOMPARE(m_ns->routeInfoManager().allTopicList().size(),
        qsizetype(body->topicConfigSerializeWrapper.topicConfigTable.size()));
}

void tst_NamesrvServer::oldBrokerSendsBareWrapper()
{
    // Brokers before V3_0_11 (version < 37) send a bare TopicConfigSerializeWrapper.
    RemotingCommand reg = registerFrame();
    reg.version = 36;
    reg.body = R"({"dataVersion":{"counter":7,"timestamp":1},"topicConfigTable":{"OldTopic":)"
               R"({"perm":6,"readQueueNums":2,"topicName":"OldTopic","writeQueueNums":2}}})";
    reg.setExt("bodyCrc32", crc32Masked(reg.body));
    auto resp = m_broker.call(reg);
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    resp = m_broker.call(request(105, {{"topic", "OldTopic"}}));
    QCOMPARE(resp->code, 0);
    QCOMPARE(TopicRouteData::fromJson(resp->body)->queueDatas[0].readQueueNums, 2);
    QCOMPARE(m_ns->routeInfoManager().queryBrokerTopicConfig(kBrokerAddr)->counter, 7);
}

void tst_NamesrvServer::kvConfigCapsOverTheWire()
{
    m_broker.close();
    m_ns.reset();
    NamesrvConfig config = baseConfig();
    config.kvConfigMaxValueBytes = 100;
    config.kvConfigMaxEntries = 2;
    m_ns = startServer(config);
    QVERIFY(m_ns);
    RawClient client;
    QVERIFY(client.connectTo(m_ns->serverPort()));
    auto put = [&](const QByteArray &key, const QByteArray &value) {
        return client.call(request(100, {{"namespace", "NS"}, {"key", key}, {"value", value}}));
    };
    auto resp = put("big", QByteArray(101, 'v'));
    QVERIFY(resp);
    QCOMPARE(resp->code, 1); // SYSTEM_ERROR
    QVERIFY2(resp->remark.contains("kvConfigMaxValueBytes"), resp->remark.constData());
    QCOMPARE(client.call(request(101, {{"namespace", "NS"}, {"key", "big"}}))->code, 22);
    QFile file(m_dir->filePath(QStringLiteral("kvConfig.json")));
    QVERIFY(!file.exists()); // nothing stored, nothing persisted
    QCOMPARE(put("a", QByteArray(100, 'v'))->code, 0);
    QCOMPARE(put("b", "v")->code, 0);
    resp = put("c", "v");
    QCOMPARE(resp->code, 1);
    QVERIFY2(resp->remark.contains("kvConfigMaxEntries"), resp->remark.constData());
    QCOMPARE(client.call(request(101, {{"namespace", "NS"}, {"key", "c"}}))->code, 22);
    QCOMPARE(put("a", "replaced")->code, 0); // replacing is not a new entry
    // The caps follow UPDATE_NAMESRV_CONFIG.
    QCOMPARE(client.call(request(318, {}, "kvConfigMaxEntries=3\n"))->code, 0);
    QCOMPARE(put("c", "v")->code, 0);
}

void tst_NamesrvServer::namesrvConfigShowsTheLimits()
{
    auto resp = m_broker.call(request(319)); // GET_NAMESRV_CONFIG
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    for (const char *line :
        {"serverChannelMaxIdleTimeSeconds=120\n", "serverFrameTimeoutMillis=60000\n",
            "serverMaxConnections=10000\n", "serverMaxConnectionsPerAddress=1000\n",
            "serverMaxPendingInputBytes=67108864\n", "serverMaxUnsentBytes=67108864\n",
            "serverMaxInflightRequestsPerConnection=4096\n", "kvConfigMaxNamespaces=64\n",
            "kvConfigMaxEntries=10000\n", "kvConfigMaxKeyBytes=1024\n",
            "kvConfigMaxValueBytes=65536\n", "kvConfigMaxTotalBytes=67108864\n"})
        QVERIFY2(resp->body.contains(line), line);
    QCOMPARE(m_broker.call(request(318, {}, "serverMaxConnections=-1\n"))->code, 1);
}

void tst_NamesrvServer::connectionCapsOverTheWire()
{
    m_broker.close();
    m_ns.reset();
    NamesrvConfig config = baseConfig();
    config.serverMaxConnectionsPerAddress = 2;
    m_ns = startServer(config);
    QVERIFY(m_ns);
    RawClient a;
    RawClient b;
    QVERIFY(a.connectTo(m_ns->serverPort()));
    QVERIFY(b.connectTo(m_ns->serverPort()));
    QCOMPARE(a.call(registerFrame())->code, 0);
    QCOMPARE(b.call(request(105, {{"topic", "TBW102"}}))->code, 0);
    RawClient third;
    QVERIFY(third.connectTo(m_ns->serverPort()));
    third.sendRaw(protocol::encodeFrame(request(105, {{"topic", "TBW102"}})));
    QVERIFY(third.waitForClosed(5000)); // closed unanswered
    QCOMPARE(a.call(request(106))->code, 0); // the others go on
    b.close();
    // Once the server has seen b go, a new connection is served.
    int attempts = 0;
    const auto served = [&] {
        ++attempts;
        RawClient later;
        return later.connectTo(m_ns->serverPort())
            && later.call(request(105, {{"topic", "TBW102"}}), 500).has_value();
    };
    QElapsedTimer waited;
    waited.start();
    bool ok = false;
    while (!(ok = served()) && waited.elapsed() < 10000)
        QTest::qWait(50);
    QVERIFY2(
        ok, qPrintable(QStringLiteral("%1 attempts in %2 ms").arg(attempts).arg(waited.elapsed())));
}

QTEST_GUILESS_MAIN(tst_NamesrvServer)
#include "tst_namesrvserver.moc"
