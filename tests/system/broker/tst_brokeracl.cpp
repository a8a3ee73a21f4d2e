// A broker with aclEnable=true, over a socket: signed, unsigned and badly signed requests get
// RocketMQ's answers; the rules file is reloaded while clients run, and a file that does not parse
// keeps the last good rules; a missing or bad file keeps the broker from starting.

#include "brokertestutil.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/remoting/remotingclient.h"
#include "inprocessbroker.h"
#include "namesrv/namesrvcontroller.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: producer1
    secretKey: producer-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - Orders=PUB|SUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
)";

RemotingCommand signedBy(RemotingCommand r, const QByteArray &ak, const QByteArray &sk)
{
    protocol::aclSign(r, ak, sk);
    return r;
}

bool writeFile(const QString &path, const QByteArray &text)
{
    QSaveFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size() && f.commit();
}

} // namespace

class tst_BrokerAcl final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home/conf"))));
        m_rules = m_dir.filePath(QStringLiteral("home/conf/plain_acl.yml"));
        QVERIFY(writeFile(m_rules, kRules));
        startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
            QStringLiteral("broker-acl"), QStringLiteral("127.0.0.1:1"),
            [this](broker::BrokerConfig &c) {
                c.aclEnable = true;
                c.rocketmqHome = m_dir.filePath(QStringLiteral("home")); // RocketMQ's place
            });
        QVERIFY(m_broker);
        m_addr = localAddr(m_broker->listenPort());
    }

    void cleanupTestCase() { stopInProcessBroker(m_broker); }

    void signedSendIsStoredOthersAreRefused()
    {
        const RemotingCommand ok
            = call(signedBy(sendV2("Orders", 0, "hello"), "producer1", "producer-secret"));
        QCOMPARE(ok.code, 0);
        const QByteArray prefix = "org.apache.rocketmq.acl.common.AclException: ";
        RemotingCommand r = call(sendV2("Orders", 0, "unsigned"));
        QCOMPARE(r.code, 1);
        QCOMPARE(r.remark, prefix + "No accessKey is configured");
        r = call(signedBy(sendV2("Orders", 0, "x"), "producer1", "wrong-secret"));
        QCOMPARE(r.code, 1);
        QCOMPARE(r.remark, prefix + "Check signature failed for accessKey=producer1");
        r = call(signedBy(sendV2("Other", 0, "x"), "producer1", "producer-secret"));
        QCOMPARE(r.code, 1);
        QCOMPARE(r.remark, prefix + "No default permission for topic:Other");
        // Tampered body after signing.
        RemotingCommand t
            = signedBy(sendV2("Orders", 0, "original"), "producer1", "producer-secret");
        t.body = "tampered";
        QCOMPARE(call(t).code, 1);
        // Nothing refused was stored: one message in Orders. The consume queue is built behind
        // the commit log (the reput thread), so the accepted message shows up within a moment.
        const auto maxOffset = [&] {
            return call(signedBy(request(30, {{"topic", "Orders"}, {"queueId", "0"}}), "producer1",
                            "producer-secret"))
                .extLong("offset");
        };
        QTRY_COMPARE_WITH_TIMEOUT(maxOffset(), std::optional<std::int64_t>(1), 5000);
        QCOMPARE(maxOffset(), std::optional<std::int64_t>(1));
    }

    void adminOnlyRequests()
    {
        const RemotingCommand create = request(17,
            {{"topic", "NewTopic"}, {"readQueueNums", "4"}, {"writeQueueNums", "4"}, {"perm", "6"},
                {"topicFilterType", "SINGLE_TAG"}});
        RemotingCommand r = call(signedBy(create, "producer1", "producer-secret"));
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.remark.contains("Need admin permission for request code=17"), r.remark.constData());
        QCOMPARE(call(signedBy(create, "admin001", "admin-secret")).code, 0);
        r = call(
            signedBy(request(25, {}, "defaultTopicQueueNums=2\n"), "producer1", "producer-secret"));
        QCOMPARE(r.code, 1);
        QCOMPARE(m_broker->config().defaultTopicQueueNums, 8);
    }

    void rulesReloadWhileRunning()
    {
        acl::AclGuard *guard = m_broker->context().acl;
        QVERIFY(guard);
        const RemotingCommand send
            = signedBy(sendV2("Orders", 1, "reload"), "producer1", "producer-secret");
        QCOMPARE(call(send).code, 0);
        // Deny Orders: the running broker picks it up within its watch interval.
        QByteArray denied = kRules;
        denied.replace("Orders=PUB|SUB", "Orders=DENY");
        QVERIFY(writeFile(m_rules, denied));
        QTRY_COMPARE_WITH_TIMEOUT(call(send).code, 1, 10000);
        // A file that does not parse keeps the last good rules (Orders still denied).
        const std::uint64_t reloads = guard->reloads();
        QVERIFY(writeFile(m_rules, "accounts:\n  - accessKey: [broken\n"));
        QVERIFY(!guard->reloadNow());
        QCOMPARE(guard->reloads(), reloads);
        QCOMPARE(call(send).code, 1);
        QCOMPARE(call(signedBy(request(26), "admin001", "admin-secret")).code, 0);
        // Back to the original rules.
        QVERIFY(writeFile(m_rules, kRules));
        QTRY_COMPARE_WITH_TIMEOUT(call(send).code, 0, 10000);
        QVERIFY(guard->refusals() > 0);
    }

    void nameServerWithAclTakesOnlySignedBrokers()
    {
        // A name server with aclEnable: REGISTER_BROKER only from an admin account (the broker
        // signs with innerAccessKey/innerSecretKey), so nobody can hijack a route.
        namesrv::NamesrvConfig nc;
        nc.listenPort = 0;
        nc.listenAddress = QStringLiteral("127.0.0.1");
        nc.kvConfigPath = m_dir.filePath(QStringLiteral("ns/kvConfig.json"));
        nc.configStorePath = m_dir.filePath(QStringLiteral("ns/namesrv.properties"));
        nc.aclEnable = true;
        nc.aclFilePath = m_rules;
        namesrv::NamesrvController ns(nc);
        QVERIFY(ns.initialize().isOk());
        QVERIFY(ns.start().isOk());
        const QByteArray nsAddr = localAddr(ns.serverPort());
        const auto route = [&](const QByteArray &topic) {
            return invoke(m_client, nsAddr,
                signedBy(request(105, {{"topic", topic}}), "producer1", "producer-secret"));
        };
        const QByteArray prefix = "org.apache.rocketmq.acl.common.AclException: ";
        QCOMPARE(invoke(m_client, nsAddr, request(105, {{"topic", "Orders"}})).remark,
            prefix + "No accessKey is configured");
        // A hijacker: REGISTER_BROKER signed by a non-admin, and unsigned.
        RemotingCommand reg = request(103,
            {{"brokerId", "0"}, {"clusterName", "DefaultCluster"}, {"brokerAddr", "10.9.9.9:10911"},
                {"brokerName", "broker-acl"}, {"haServerAddr", "10.9.9.9:10912"},
                {"compressed", "false"}},
            R"({"topicConfigSerializeWrapper":{"topicConfigTable":{"Orders":{"topicName":"Orders","readQueueNums":4,"writeQueueNums":4,"perm":6}},"dataVersion":{"timestamp":1,"counter":1}},"filterServerList":[]})");
        RemotingCommand r = invoke(m_client, nsAddr, signedBy(reg, "producer1", "producer-secret"));
        QCOMPARE(r.code, 1);
        QVERIFY2(
            r.remark.contains("Need admin permission for request code=103"), r.remark.constData());
        QCOMPARE(invoke(m_client, nsAddr, reg).code, 1);
        QCOMPARE(route("Orders").code, 17); // TOPIC_NOT_EXIST: nothing registered
        // A broker with the inner account registers, and its routes are served.
        std::unique_ptr<broker::BrokerController> b;
        startInProcessBroker(b, m_dir.filePath(QStringLiteral("store-ns")),
            QStringLiteral("broker-signed"), QString::fromUtf8(nsAddr),
            [](broker::BrokerConfig &c) {
                c.innerAccessKey = QStringLiteral("admin001");
                c.innerSecretKey = QStringLiteral("admin-secret");
            });
        QVERIFY(b);
        QTRY_COMPARE_WITH_TIMEOUT(route("TBW102").code, 0, 10000);
        QVERIFY(route("TBW102").body.contains("broker-signed"));
        // The secret never leaves the broker: GET_BROKER_CONFIG does not print it.
        const RemotingCommand conf = invoke(m_client, localAddr(b->listenPort()), request(26));
        QCOMPARE(conf.code, 0);
        QVERIFY(conf.body.contains("innerAccessKey=admin001"));
        QVERIFY(!conf.body.contains("admin-secret"));
        // KV and config changes are admin-only.
        r = invoke(m_client, nsAddr,
            signedBy(request(100, {{"namespace", "ns"}, {"key", "k"}, {"value", "v"}}), "producer1",
                "producer-secret"));
        QCOMPARE(r.code, 1);
        stopInProcessBroker(b);
        ns.shutdown();
    }

    void missingOrBadFileKeepsTheBrokerFromStarting()
    {
        for (const QByteArray &content : {QByteArray(), QByteArray("accounts: [1, 2\n")}) {
            QTemporaryDir dir;
            const QString path = dir.filePath(QStringLiteral("acl.yml"));
            if (!content.isEmpty())
                QVERIFY(writeFile(path, content));
            broker::BrokerConfig config;
            config.brokerIP1 = QStringLiteral("127.0.0.1");
            config.brokerName = QStringLiteral("broker-noacl");
            config.namesrvAddr = QStringLiteral("127.0.0.1:1");
            config.storePathRootDir = dir.filePath(QStringLiteral("store"));
            config.aclEnable = true;
            config.aclFilePath = path;
            config.listenPort = 0;
            storage::MessageStoreConfig store;
            store.storePathRootDir = config.storePathRootDir;
            store.mappedFileSizeCommitLog = 1024 * 1024;
            broker::BrokerController b(config, store);
            const Status st = b.initialize();
            QVERIFY(!st);
            QVERIFY2(
                st.message().contains(QStringLiteral("aclEnable=true")), qPrintable(st.message()));
            b.shutdown();
        }
    }

private:
    RemotingCommand call(RemotingCommand r) { return invoke(m_client, m_addr, std::move(r)); }

    QTemporaryDir m_dir;
    QString m_rules;
    std::unique_ptr<broker::BrokerController> m_broker;
    QByteArray m_addr;
    remoting::RemotingClient m_client;
};

QTEST_GUILESS_MAIN(tst_BrokerAcl)
#include "tst_brokeracl.moc"
