// Where the broker used to approximate RocketMQ 4.9 and now behaves the same, over sockets with
// raw frames against in-process brokers (and a name server): QUERY_CONSUMER_OFFSET without a
// committed offset, UPDATE/GET_BROKER_CONFIG (persisted, black list), the broker permission in
// the registered routes and in pull refusals, GET_BROKER_RUNTIME_INFO's values, and the
// OFFSET_MOVED_EVENT a corrected pull posts.

#include "broker/brokercontroller.h"
#include "broker/brokerstartup.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/protocol/json.h"
#include "clientlib/remoting/remotingclient.h"
#include "namesrv/namesrvcontroller.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessnamesrv.h"

#include <QDateTime>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

struct BrokerOptions
{
    QString name = QStringLiteral("broker-p");
    int accessMessageInMemoryMaxRatio = 40;
    QString configFile; // where UPDATE_BROKER_CONFIG persists; empty: nowhere
    QString configBlackList;

    static BrokerOptions named(const QString &name)
    {
        BrokerOptions o;
        o.name = name;
        return o;
    }
};

} // namespace

class tst_RocketmqParity final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void queryOffsetOfNewGroupInMemory();
    void queryOffsetOfNewGroupOnDisk();
    void updateBrokerConfigIsShownAndPersisted();
    void updateBrokerConfigRefusals();
    void updateBrokerConfigRefusesTakeoverKeys_data();
    void updateBrokerConfigRefusesTakeoverKeys();
    void brokerPermissionReachesRoutesAndPulls();
    void deleteTopicOutsideTheStoreIsRefused();
    void sendChecksFollowMsgCheck();
    void runtimeInfoHasRealValues();
    void correctedPullPostsOffsetMovedEvent();

private:
    std::unique_ptr<broker::BrokerController> startBroker(const QString &store,
        const BrokerOptions &options = {}, broker::BrokerStartupConfig *loaded = nullptr);
    RemotingCommand call(broker::BrokerController &b, RemotingCommand req);
    RemotingCommand callNs(RemotingCommand req);
    std::int64_t maxOffset(broker::BrokerController &b, const QByteArray &topic, int queueId);
    RemotingCommand queryOffset(
        broker::BrokerController &b, const QByteArray &group, const QByteArray &topic, int q);
    RemotingCommand pull(broker::BrokerController &b, const QByteArray &topic, int queueId,
        std::int64_t offset, const QByteArray &group = "G_parity");
    static QByteArray configValue(const QByteArray &properties, const QByteArray &key);

    QTemporaryDir m_dir;
    std::unique_ptr<namesrv::NamesrvController> m_ns;
    QByteArray m_nsAddr;
    remoting::RemotingClient m_client;
};

std::unique_ptr<broker::BrokerController> tst_RocketmqParity::startBroker(
    const QString &store, const BrokerOptions &options, broker::BrokerStartupConfig *loaded)
{
    broker::BrokerConfig config;
    storage::MessageStoreConfig storeConfig;
    if (loaded) {
        config = loaded->broker;
        storeConfig = loaded->store;
    } else {
        config.brokerIP1 = QStringLiteral("127.0.0.1");
        config.brokerIP2 = QStringLiteral("127.0.0.1");
        config.brokerName = options.name;
        config.namesrvAddr = QString::fromUtf8(m_nsAddr);
        config.storePathRootDir = store;
        if (!options.configBlackList.isEmpty())
            config.configBlackList = options.configBlackList;
        storeConfig.storePathRootDir = store;
        storeConfig.mappedFileSizeCommitLog = 16 * 1024 * 1024;
        storeConfig.mappedFileSizeConsumeQueue = 1000 * 20;
        storeConfig.accessMessageInMemoryMaxRatio = options.accessMessageInMemoryMaxRatio;
        if (!config.validate().isOk() || !storeConfig.validate().isOk())
            return nullptr;
        config.configFilePath = options.configFile;
    }
    config.listenPort = 0;
    auto controller = std::make_unique<broker::BrokerController>(config, storeConfig);
    if (Status st = controller->initialize(); !st) {
        qWarning().noquote() << "initialize:" << st.message();
        return nullptr;
    }
    if (Status st = controller->start(); !st) {
        qWarning().noquote() << "start:" << st.message();
        return nullptr;
    }
    return controller;
}

RemotingCommand tst_RocketmqParity::call(broker::BrokerController &b, RemotingCommand req)
{
    return invoke(m_client, localAddr(b.listenPort()), std::move(req));
}

RemotingCommand tst_RocketmqParity::callNs(RemotingCommand req)
{
    return invoke(m_client, m_nsAddr, std::move(req));
}

std::int64_t tst_RocketmqParity::maxOffset(
    broker::BrokerController &b, const QByteArray &topic, int queueId)
{
    const RemotingCommand r = call(b, request(30, {{"topic", topic}, {"queueId", num(queueId)}}));
    return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
}

RemotingCommand tst_RocketmqParity::queryOffset(
    broker::BrokerController &b, const QByteArray &group, const QByteArray &topic, int q)
{
    return call(b, request(14, {{"consumerGroup", group}, {"topic", topic}, {"queueId", num(q)}}));
}

RemotingCommand tst_RocketmqParity::pull(broker::BrokerController &b, const QByteArray &topic,
    int queueId, std::int64_t offset, const QByteArray &group)
{
    return call(b,
        request(11,
            {{"consumerGroup", group}, {"topic", topic}, {"queueId", num(queueId)},
                {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"},
                {"commitOffset", "-1"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
                {"subVersion", "0"}}));
}

QByteArray tst_RocketmqParity::configValue(const QByteArray &properties, const QByteArray &key)
{
    for (const QByteArray &line : properties.split('\n')) {
        if (line.startsWith(key + '='))
            return line.mid(key.size() + 1);
    }
    return "<absent>";
}

void tst_RocketmqParity::initTestCase()
{
    QVERIFY(m_dir.isValid());
    startInProcessNamesrv(m_ns, m_dir.path());
    QVERIFY(m_ns);
    m_nsAddr = localAddr(m_ns->serverPort());
}

void tst_RocketmqParity::cleanupTestCase()
{
    if (m_ns)
        m_ns->shutdown();
}

void tst_RocketmqParity::queryOffsetOfNewGroupInMemory()
{
    auto b = startBroker(m_dir.filePath(QStringLiteral("q-mem")));
    QVERIFY(b);
    // A queue that does not exist yet: offset 0.
    RemotingCommand r = queryOffset(*b, "G_new", "NoSuchTopic", 0);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.extLong("offset").value_or(-1), 0);
    // Its first message is well inside the page-cache window: still 0.
    QCOMPARE(call(*b, sendV2("QTopic", 0, "m0")).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(*b, "QTopic", 0), 1, 5000);
    r = queryOffset(*b, "G_new", "QTopic", 0);
    QCOMPARE(r.code, 0);
    QCOMPARE(r.extLong("offset").value_or(-1), 0);
    // A committed offset wins.
    QCOMPARE(call(*b,
                 request(15,
                     {{"consumerGroup", "G_new"}, {"topic", "QTopic"}, {"queueId", "0"},
                         {"commitOffset", "1"}}))
                 .code,
        0);
    QCOMPARE(queryOffset(*b, "G_new", "QTopic", 0).extLong("offset").value_or(-1), 1);
    b->shutdown();
}

void tst_RocketmqParity::queryOffsetOfNewGroupOnDisk()
{
    // accessMessageInMemoryMaxRatio=0: every message but the newest byte is "on disk"
    // (checkInDiskByConsumeOffset), so a new group is told QUERY_NOT_FOUND and its
    // ConsumeFromWhere decides.
    BrokerOptions options;
    options.accessMessageInMemoryMaxRatio = 0;
    auto b = startBroker(m_dir.filePath(QStringLiteral("q-disk")), options);
    QVERIFY(b);
    QCOMPARE(queryOffset(*b, "G_new", "DiskTopic", 0).code, 0); // no queue: 0 still
    QCOMPARE(call(*b, sendV2("DiskTopic", 0, "m0")).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(*b, "DiskTopic", 0), 1, 5000);
    const RemotingCommand r = queryOffset(*b, "G_new", "DiskTopic", 0);
    QCOMPARE(r.code, 22);
    QCOMPARE(
        r.remark, QByteArray("Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"));
    b->shutdown();
}

void tst_RocketmqParity::updateBrokerConfigIsShownAndPersisted()
{
    const QString file = m_dir.filePath(QStringLiteral("persist/broker.properties"));
    QVERIFY(QDir().mkpath(QFileInfo(file).absolutePath()));
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("brokerName=broker-persist\ncustomToolKey=1\ncustomSecretKey=s3cr3t\n");
    }
    BrokerOptions options;
    options.name = QStringLiteral("broker-persist");
    options.configFile = file;
    const QString store = m_dir.filePath(QStringLiteral("persist"));
    auto b = startBroker(store, options);
    QVERIFY(b);
    const RemotingCommand before = call(*b, request(26));
    QCOMPARE(before.code, 0);
    // Keys of the file the broker does not know, and secrets, are never answered (RocketMQ
    // prints them: a credential an operator put in the file would leak).
    QCOMPARE(configValue(before.body, "customToolKey"), QByteArray("<absent>"));
    QVERIFY(!before.body.contains("s3cr3t"));
    const auto v1 = protocol::parseJson(before.extString("version").toByteArray());
    QVERIFY(v1.has_value());

    // A number (applied now), a text key and a store key (next start), a file-only key and a
    // key nobody knows (both ignored, as RocketMQ's mergeIfExist ignores unknown keys).
    const RemotingCommand update = call(*b,
        request(25, {},
            "defaultTopicQueueNums=3\nregionId=ParityRegion\nfileReservedTime=96\n"
            "customToolKey=2\nnoSuchKey=x\n"));
    QCOMPARE(update.code, 0);
    QVERIFY(update.remark.isEmpty());
    QCOMPARE(b->config().defaultTopicQueueNums, 3);

    const RemotingCommand after = call(*b, request(26));
    QCOMPARE(configValue(after.body, "defaultTopicQueueNums"), QByteArray("3"));
    QCOMPARE(configValue(after.body, "regionId"), QByteArray("ParityRegion"));
    QCOMPARE(configValue(after.body, "fileReservedTime"), QByteArray("96"));
    QCOMPARE(configValue(after.body, "customToolKey"), QByteArray("<absent>"));
    QCOMPARE(configValue(after.body, "noSuchKey"), QByteArray("<absent>"));
    const auto v2 = protocol::parseJson(after.extString("version").toByteArray());
    QVERIFY(v2.has_value());
    QVERIFY(v2.value()["counter"].toInteger() > v1.value()["counter"].toInteger());

    // The file holds the whole configuration now (Configuration.persist), .bak the old one.
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray persisted = f.readAll();
    QCOMPARE(configValue(persisted, "defaultTopicQueueNums"), QByteArray("3"));
    QCOMPARE(configValue(persisted, "regionId"), QByteArray("ParityRegion"));
    QCOMPARE(configValue(persisted, "fileReservedTime"), QByteArray("96"));
    QCOMPARE(configValue(persisted, "customToolKey"), QByteArray("1")); // as the operator wrote
    QCOMPARE(configValue(persisted, "customSecretKey"), QByteArray("s3cr3t"));
    QVERIFY(QFile::exists(file + QStringLiteral(".bak")));
    b->shutdown();
    b.reset();

    // A restart from that file (the daemon's -c) has every update in effect.
    broker::BrokerStartupConfig restarted;
    QStringList unknown;
    QVERIFY(restarted.load(file, {}, &unknown).isOk());
    QCOMPARE(unknown,
        (QStringList {QStringLiteral("customToolKey"), QStringLiteral("customSecretKey")}));
    QCOMPARE(restarted.broker.defaultTopicQueueNums, 3);
    QCOMPARE(restarted.broker.regionId, QStringLiteral("ParityRegion"));
    QCOMPARE(restarted.store.fileReservedTime, 96);
    auto again = startBroker(store, options, &restarted);
    QVERIFY(again);
    QCOMPARE(again->config().regionId, QStringLiteral("ParityRegion"));
    QCOMPARE(configValue(call(*again, request(26)).body, "customToolKey"), QByteArray("<absent>"));
    again->shutdown();
}

void tst_RocketmqParity::updateBrokerConfigRefusals()
{
    BrokerOptions options;
    options.configBlackList = QStringLiteral("configBlackList;brokerConfigPath;brokerIP1");
    options.configFile = m_dir.filePath(QStringLiteral("refuse/broker.properties"));
    auto b = startBroker(m_dir.filePath(QStringLiteral("refuse")), options);
    QVERIFY(b);
    // RocketMQ 4.9.8's black list: always rocketmqHome, brokerConfigPath, configBlackList, plus
    // the configured keys; 16 NO_PERMISSION, nothing changes.
    for (const QByteArray &body : {QByteArray("rocketmqHome=/tmp/evil\n"),
             QByteArray("brokerConfigPath=/tmp/x\n"), QByteArray("configBlackList=\n"),
             QByteArray("defaultTopicQueueNums=2\nbrokerIP1=10.0.0.1\n")}) {
        const RemotingCommand r = call(*b, request(25, {}, body));
        QCOMPARE(r.code, 16);
        QVERIFY2(
            r.remark.startsWith("Can not update config in black list: "), r.remark.constData());
    }
    QCOMPARE(b->config().defaultTopicQueueNums, 8);
    QVERIFY(!QFile::exists(options.configFile)); // nothing persisted
    // A value the next start would refuse is refused now (RocketMQ would persist it).
    for (const QByteArray &body : {QByteArray("defaultTopicQueueNums=abc\n"),
             QByteArray("brokerPermission=99\n"), QByteArray("flushDiskType=PRIMARY\n")}) {
        const RemotingCommand r = call(*b, request(25, {}, body));
        QCOMPARE(r.code, 1);
        QVERIFY(!r.remark.isEmpty());
    }
    QCOMPARE(b->config().brokerPermission, 6);
    // No body: SUCCESS and nothing else.
    QCOMPARE(call(*b, request(25)).code, 0);
    b->shutdown();
}

void tst_RocketmqParity::updateBrokerConfigRefusesTakeoverKeys_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    // Every path, address, port, role, identity and security key (CVE-2023-33246's class).
    const std::pair<const char *, const char *> keys[] = {{"storePathRootDir", "/tmp/evil"},
        {"storePathCommitLog", "/tmp/evil/commitlog"}, {"brokerConfigPath", "/tmp/evil.conf"},
        {"rocketmqHome", "/tmp/evil"}, {"configBlackList", "x"}, {"namesrvAddr", "10.9.9.9:9876"},
        {"brokerIP1", "10.9.9.9"}, {"brokerIP2", "10.9.9.9"}, {"listenPort", "12345"},
        {"haListenPort", "12346"}, {"haMasterAddress", "10.9.9.9:10912"}, {"brokerRole", "SLAVE"},
        {"brokerId", "1"}, {"brokerName", "evil"}, {"brokerClusterName", "EvilCluster"},
        {"aclEnable", "false"}, {"haAllowedAddresses", "*"}, {"tls.server.mode", "disabled"},
        {"tls.server.certPath", "/tmp/evil.pem"}, {"innerSecretKey", "x"}, {"metricsPort", "1"}};
    for (const auto &[key, value] : keys)
        QTest::newRow(key) << QByteArray(key) << QByteArray(value);
}

void tst_RocketmqParity::updateBrokerConfigRefusesTakeoverKeys()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    // An operator who narrowed configBlackList to one harmless key gets the same protection.
    const QString dir = m_dir.filePath(QStringLiteral("takeover-") + QString::fromUtf8(key));
    BrokerOptions options;
    options.configBlackList = QStringLiteral("regionId");
    options.configFile = dir + QStringLiteral("/broker.properties");
    auto b = startBroker(dir, options);
    QVERIFY(b);
    const QByteArray before = call(*b, request(26)).body;
    // Alone and beside a harmless key: nothing of the request is applied or written.
    for (const QByteArray &body :
        {key + '=' + value + '\n', "defaultTopicQueueNums=2\n" + key + '=' + value + '\n'}) {
        const RemotingCommand r = call(*b, request(25, {}, body));
        QCOMPARE(r.code, 16);
        QVERIFY2(r.remark.startsWith("Can not update config in black list: " + key),
            r.remark.constData());
    }
    QCOMPARE(b->config().defaultTopicQueueNums, 8);
    QCOMPARE(call(*b, request(26)).body, before);
    QVERIFY(!QFile::exists(options.configFile));
    b->shutdown();
}

void tst_RocketmqParity::deleteTopicOutsideTheStoreIsRefused()
{
    // DELETE_TOPIC_IN_BROKER (215) removed consumequeue/<topic> recursively, whatever the name:
    // "../../x" deleted folders outside the store (CVE-2019-17572's class).
    const QString store = m_dir.filePath(QStringLiteral("del-path/store"));
    auto b = startBroker(store, BrokerOptions::named(QStringLiteral("broker-delpath")));
    QVERIFY(b);
    const QString victim = m_dir.filePath(QStringLiteral("del-path/victim"));
    QVERIFY(QDir().mkpath(victim + QStringLiteral("/0")));
    for (const QByteArray &topic : {QByteArray("../../victim"), QByteArray("../consumequeue"),
             QByteArray(".."), QByteArray("a/../../../victim")}) {
        const RemotingCommand r = call(*b, request(215, {{"topic", topic}}));
        QCOMPARE(r.code, 1);
        QVERIFY2(r.remark.contains("illegal characters"), r.remark.constData());
    }
    QVERIFY(QFileInfo::exists(victim + QStringLiteral("/0")));
    QVERIFY(QFileInfo::exists(store));
    b->shutdown();
}

void tst_RocketmqParity::brokerPermissionReachesRoutesAndPulls()
{
    auto b = startBroker(m_dir.filePath(QStringLiteral("perm")),
        BrokerOptions::named(QStringLiteral("broker-perm")));
    QVERIFY(b);
    QCOMPARE(call(*b, sendV2("PermTopic", 0, "m0")).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(callNs(request(105, {{"topic", "PermTopic"}}))
                                 .body.contains("\"brokerName\":\"broker-perm\",\"perm\":6"),
        5000);
    // A unit topic (topicSysFlag 1) is registered as it is while the broker is read-write.
    QCOMPARE(call(*b,
                 request(17,
                     {{"topic", "UnitTopic"}, {"readQueueNums", "2"}, {"writeQueueNums", "2"},
                         {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "1"}}))
                 .code,
        0);
    QTRY_VERIFY_WITH_TIMEOUT(callNs(request(105, {{"topic", "UnitTopic"}}))
                                 .body.contains("\"perm\":6,\"readQueueNums\":2,"
                                                "\"topicSysFlag\":1"),
        5000);
    // Read-only: the routes carry perm 4 at once (forced re-registration with a new
    // DataVersion), so producers stop choosing this broker; as RocketMQ's registerBrokerAll,
    // each topic is registered as new TopicConfig(name, read, write, perm): sysFlag 0.
    QCOMPARE(call(*b, request(25, {}, "brokerPermission=4\n")).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(callNs(request(105, {{"topic", "PermTopic"}}))
                                 .body.contains("\"brokerName\":\"broker-perm\",\"perm\":4"),
        5000);
    QVERIFY(callNs(request(105, {{"topic", "UnitTopic"}}))
                .body.contains("\"perm\":4,\"readQueueNums\":2,\"topicSysFlag\":0"));
    // Write-only: pulls are refused, naming brokerIP1 only.
    QCOMPARE(call(*b, request(25, {}, "brokerPermission=2\n")).code, 0);
    const RemotingCommand refused = pull(*b, "PermTopic", 0, 0);
    QCOMPARE(refused.code, 16);
    QCOMPARE(refused.remark, QByteArray("the broker[127.0.0.1] pulling message is forbidden"));
    QCOMPARE(call(*b, request(25, {}, "brokerPermission=6\n")).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(callNs(request(105, {{"topic", "PermTopic"}}))
                                 .body.contains("\"brokerName\":\"broker-perm\",\"perm\":6"),
        5000);
    QCOMPARE(pull(*b, "PermTopic", 0, 0).code, 0);
    b->shutdown();
}

void tst_RocketmqParity::sendChecksFollowMsgCheck()
{
    // RocketMQ 4.9's send checks: before startAcceptSendRequestTimeStamp every send gets 1; a
    // broker without write permission refuses only order topics (16, naming brokerIP1); topic
    // permissions are not checked on sends.
    // Which topics are order topics comes from the name server's ORDER_TOPIC_CONFIG table,
    // returned by each registration (RocketMQ's updateOrderTopicConfig).
    QCOMPARE(callNs(request(100,
                        {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "OrderTopic"},
                            {"value", "broker-a:2"}}))
                 .code,
        0);
    auto b = startBroker(m_dir.filePath(QStringLiteral("sendchecks")));
    QVERIFY(b);
    broker::TopicConfig order;
    order.topicName = "OrderTopic";
    order.readQueueNums = order.writeQueueNums = 2;
    QVERIFY(b->context().topics->updateTopicConfig(order)); // registers again
    broker::TopicConfig readOnly;
    readOnly.topicName = "ReadOnlyTopic";
    readOnly.readQueueNums = readOnly.writeQueueNums = 2;
    readOnly.perm = 4;
    QVERIFY(b->context().topics->updateTopicConfig(readOnly));
    QCOMPARE(call(*b, sendV2("ReadOnlyTopic", 0, "m0")).code, 0);

    QTRY_VERIFY_WITH_TIMEOUT(b->context().topics->find("OrderTopic")->order, 5000);
    QCOMPARE(call(*b, request(25, {}, "brokerPermission=4\n")).code, 0);
    const RemotingCommand refused = call(*b, sendV2("OrderTopic", 0, "m1"));
    QCOMPARE(refused.code, 16);
    QCOMPARE(refused.remark, QByteArray("the broker[127.0.0.1] sending message is forbidden"));
    QCOMPARE(call(*b, sendV2("PlainTopic", 0, "m2")).code, 0);
    QCOMPARE(call(*b, request(25, {}, "brokerPermission=6\n")).code, 0);
    QCOMPARE(call(*b, sendV2("OrderTopic", 0, "m3")).code, 0);

    const qint64 later = QDateTime::currentMSecsSinceEpoch() + 3600 * 1000;
    QCOMPARE(
        call(*b,
            request(25, {}, "startAcceptSendRequestTimeStamp=" + QByteArray::number(later) + "\n"))
            .code,
        0);
    const RemotingCommand early = call(*b, sendV2("PlainTopic", 0, "m4"));
    QCOMPARE(early.code, 1);
    QCOMPARE(early.remark,
        "broker unable to service, until "
            + QDateTime::fromMSecsSinceEpoch(later)
                  .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss,zzz"))
                  .toUtf8());
    QCOMPARE(call(*b, request(25, {}, "startAcceptSendRequestTimeStamp=0\n")).code, 0);
    QCOMPARE(call(*b, sendV2("PlainTopic", 0, "m5")).code, 0);
    // Gone from the table: no longer an order topic after the next registration.
    QCOMPARE(
        callNs(request(102, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "OrderTopic"}})).code, 0);
    QCOMPARE(callNs(request(100,
                        {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "OtherOrderTopic"},
                            {"value", "broker-a:2"}}))
                 .code,
        0);
    QVERIFY(b->context().topics->updateTopicConfig(readOnly)); // registers again
    QTRY_VERIFY_WITH_TIMEOUT(!b->context().topics->find("OrderTopic")->order, 5000);
    QCOMPARE(callNs(request(102, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "OtherOrderTopic"}}))
                 .code,
        0);
    b->shutdown();
}

void tst_RocketmqParity::runtimeInfoHasRealValues()
{
    auto b = startBroker(m_dir.filePath(QStringLiteral("runtime")));
    QVERIFY(b);
    const std::int64_t startedAt = QDateTime::currentMSecsSinceEpoch();
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call(*b, sendV2("RtTopic", 0, "runtime-" + num(i))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(*b, "RtTopic", 0), 3, 5000);
    QCOMPARE(pull(*b, "RtTopic", 0, 0).code, 0); // found: 3 messages
    QCOMPARE(pull(*b, "RtTopic", 0, 3).code, 19); // missed
    QCOMPARE(call(*b, request(25, {}, "startAcceptSendRequestTimeStamp=1700000000123\n")).code, 0);

    const RemotingCommand r = call(*b, request(28));
    QCOMPARE(r.code, 0);
    const auto body = protocol::parseJson(r.body);
    QVERIFY(body.has_value());
    const protocol::JsonValue t = body.value()["table"];
    auto value = [&t](const char *key) { return t[key].toString(); };
    QCOMPARE(value("msgPutTotalTodayNow"), QByteArray("3"));
    QCOMPARE(value("msgGetTotalTodayNow"), QByteArray("3"));
    QCOMPARE(value("putMessageTimesTotal"), QByteArray("3"));
    // Until the first local midnight after start, as BrokerStats.record() has not run.
    QCOMPARE(value("msgPutTotalTodayMorning"), QByteArray("0"));
    QCOMPARE(value("msgGetTotalYesterdayMorning"), QByteArray("0"));
    QCOMPARE(value("startAcceptSendRequestTimeStamp"), QByteArray("1700000000123"));
    const std::int64_t earliest = value("earliestMessageTimeStamp").toLongLong();
    QVERIFY2(earliest >= startedAt - 1000 && earliest <= QDateTime::currentMSecsSinceEpoch(),
        value("earliestMessageTimeStamp").constData());
    for (const char *key : {"commitLogDiskRatio", "consumeQueueDiskRatio"}) {
        bool ok = false;
        const double ratio = value(key).toDouble(&ok);
        QVERIFY2(ok && ratio > 0 && ratio <= 1, key);
    }
    QCOMPARE(value("dispatchBehindBytes"), QByteArray("0"));
    QCOMPARE(value("pullThreadPoolQueueCapacity"), QByteArray("100000"));
    QCOMPARE(value("sendThreadPoolQueueCapacity"), QByteArray("10000"));
    QCOMPARE(value("pullThreadPoolQueueSize"), QByteArray("0"));
    QVERIFY(value("remainHowManyDataToFlush").endsWith("B"));
    // Rates over 10 s, 60 s and 600 s of one-second samples: empty until there are enough
    // (getTotalTps prints 0.0 then), always two separators.
    for (const char *key :
        {"putTps", "getFoundTps", "getMissTps", "getTransferedTps", "getTotalTps"})
        QCOMPARE(value(key).count(' '), 2);
    QCOMPARE(value("getTotalTps"), QByteArray("0.0 0.0 0.0"));
    b->shutdown();
}

void tst_RocketmqParity::correctedPullPostsOffsetMovedEvent()
{
    auto b = startBroker(m_dir.filePath(QStringLiteral("moved")),
        BrokerOptions::named(QStringLiteral("broker-moved")));
    QVERIFY(b);
    QCOMPARE(call(*b, sendV2("MovedTopic", 1, "m0")).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(*b, "MovedTopic", 1), 1, 5000);
    // Far beyond the end: OFFSET_OVERFLOW_BADLY -> 21 PULL_OFFSET_MOVED, corrected to the
    // queue's end (1) as RocketMQ 4.9.7 does, also when its minimum is 0.
    const RemotingCommand moved = pull(*b, "MovedTopic", 1, 50, "G_moved");
    QCOMPARE(moved.code, 21);
    QCOMPARE(moved.extLong("nextBeginOffset").value_or(-1), 1);
    // An in-range pull posts nothing.
    QCOMPARE(pull(*b, "MovedTopic", 1, 0, "G_moved").code, 0);

    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(*b, "OFFSET_MOVED_EVENT", 0), 1, 5000);
    const RemotingCommand event = pull(*b, "OFFSET_MOVED_EVENT", 0, 0, "G_watch");
    QCOMPARE(event.code, 0);
    const auto recs = records(event.body);
    QCOMPARE(recs.size(), std::size_t(1));
    const protocol::MessageRecordView &rec = recs.front();
    QCOMPARE(rec.body.toByteArray(),
        QByteArray("{\"consumerGroup\":\"G_moved\",\"messageQueue\":{\"brokerName\":"
                   "\"broker-moved\",\"queueId\":1,\"topic\":\"MovedTopic\"},\"offsetNew\":1,"
                   "\"offsetRequest\":50}"));
    const QByteArray properties = rec.properties.toByteArray();
    QVERIFY2(properties.contains("TAGS\x01G_moved") && properties.contains("KEYS\x01G_moved"),
        properties.constData());
    b->shutdown();
}

QTEST_GUILESS_MAIN(tst_RocketmqParity)
#include "tst_rocketmqparity.moc"
