// qrocket-admin's cluster, broker, topic, configuration and maintenance commands as a real process
// against an EmbeddedCluster of two brokers, each output checked against what the test set up.

#include "clientlib/client/admin/admin.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace qrocket;
using namespace qrocket::admintest;

class TestAdminTopics : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void clusterList();
    void clusterListJson();
    void brokerStatus();
    void topicLifecycle();
    void topicAttributes();
    void topicStatusCountsSentMessages();
    void allocateMQ();
    void brokerConfig();
    void nameServerConfig();
    void kvConfig();
    void writePerm();
    void maintenance();
    void storeFiles();
    void namesrvStatus();
    void haStatusAndEpochInPlainMode();
    void cleanupTestCase();

private:
    Run at(std::initializer_list<const char *> args) { return runAt(m_ns, args); }
    Run at(const QStringList &args) { return runAt(m_ns, args); }
    /// The #Perm column of topicRoute -l, one per broker.
    QStringList routePerms(const char *topic)
    {
        QStringList perms;
        for (const QString &l : at({"topicRoute", "-l", "-t", topic}).lines()) {
            if (l.startsWith(QLatin1String("DefaultCluster")))
                perms << fields(l).last();
        }
        return perms;
    }

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::Admin> m_admin;
    QString m_ns;
    QString m_addr0;
    QString m_addr1;
};

void TestAdminTopics::initTestCase()
{
    QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
    EmbeddedClusterOptions o;
    o.brokerCount = 2;
    m_cluster = std::make_unique<EmbeddedCluster>(o);
    const Status s = m_cluster->start();
    QVERIFY2(s.isOk(), qPrintable(s.toString()));
    m_ns = m_cluster->namesrvAddress();
    m_addr0 = m_cluster->brokerAddress(0);
    m_addr1 = m_cluster->brokerAddress(1);
    client::AdminOptions ao;
    ao.client.namesrvAddr = m_ns.toUtf8();
    m_admin = std::make_unique<client::Admin>(ao);
    QVERIFY(m_admin->start().isOk());
}

void TestAdminTopics::cleanupTestCase()
{
    m_admin.reset();
    m_cluster.reset();
}

void TestAdminTopics::clusterList()
{
    const Run r = at({"clusterList"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.lines().first().startsWith(
        QLatin1String("#Cluster Name     #Broker Name            #BID  #Addr")));
    QCOMPARE(r.lines().size(), 3);
    for (const QString &addr : {m_addr0, m_addr1}) {
        bool found = false;
        for (const QString &l : r.lines()) {
            const QStringList f = fields(l);
            if (f.size() >= 4 && f[3] == addr) {
                found = true;
                QCOMPARE(f[0], QStringLiteral("DefaultCluster"));
                QVERIFY(f[1].startsWith(QLatin1String("broker-")));
                QCOMPARE(f[2], QStringLiteral("0"));
                QVERIFY2(f[4].startsWith(QLatin1Char('V')), qPrintable(l));
            }
        }
        QVERIFY2(found, qPrintable(addr + QLatin1Char('\n') + r.out));
    }
    const Run more = at({"clusterList", "-m"});
    QVERIFY2(more.exitCode == 0, more.describe().constData());
    QVERIFY(fields(more.lines().first())
        == argv({"#Cluster", "Name", "#Broker", "Name", "#InTotalYest", "#OutTotalYest",
            "#InTotalToday", "#OutTotalToday"}));
    QVERIFY(!lineStartingWith(more, QStringLiteral("DefaultCluster")).isNull());
}

void TestAdminTopics::clusterListJson()
{
    const Run r = at({"clusterList", "--json"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonArray brokers = doc.object().value(QStringLiteral("brokers")).toArray();
    QCOMPARE(brokers.size(), 2);
    QCOMPARE(brokers[0].toObject().value(QStringLiteral("cluster")).toString(),
        QStringLiteral("DefaultCluster"));
    QCOMPARE(brokers[0].toObject().value(QStringLiteral("brokerId")).toInt(-1), 0);
    QVERIFY(brokers[0].toObject().value(QStringLiteral("inTps")).isDouble());
}

void TestAdminTopics::brokerStatus()
{
    const Run r = at(argv({"brokerStatus", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QString version = lineStartingWith(r, QStringLiteral("brokerVersionDesc"));
    QVERIFY2(!version.isNull(), qPrintable(r.out));
    QCOMPARE(version.indexOf(QLatin1Char(':')), 32); // "%-32s: %s"
    const Run all = at({"brokerStatus", "-c", "DefaultCluster"});
    QVERIFY2(all.exitCode == 0, all.describe().constData());
    int perBroker0 = 0;
    for (const QString &l : all.lines())
        perBroker0 += l.startsWith(m_addr0) ? 1 : 0;
    QVERIFY(perBroker0 > 5);
    const Run none = at({"brokerStatus"});
    QCOMPARE(none.exitCode, 2);
}

void TestAdminTopics::topicLifecycle()
{
    Run r = at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmT", "-r", "3", "-w", "3"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(QStringLiteral("create topic to %1 success.").arg(m_addr0)));
    QVERIFY(r.out.contains(QStringLiteral("create topic to %1 success.").arg(m_addr1)));
    // Without -a the line is mqadmin 4.9's, to the byte (no RocketMQ 5 "attributes=").
    QVERIFY2(r.lines().contains(QLatin1String(
                 "TopicConfig [topicName=AdmT, readQueueNums=3, writeQueueNums=3, "
                 "perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]")),
        qPrintable(r.out));

    r = at({"topicRoute", "-t", "AdmT"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("\"readQueueNums\":3")), 2);
    QVERIFY(r.out.contains(QStringLiteral("{0:\"%1\"").arg(m_addr0)));

    r = at({"topicRoute", "-t", "AdmT", "-l"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(
        fields(lineStartingWith(r, QStringLiteral("Total:"))), argv({"Total:", "2", "6", "6"}));
    const QStringList row = fields(lineStartingWith(r, QStringLiteral("DefaultCluster")));
    QCOMPARE(row.mid(3), argv({"3", "3", "6"}));

    r = at({"topicRoute", "-t", "AdmT", "--json"});
    const QJsonObject route = QJsonDocument::fromJson(r.out.toUtf8())
                                  .object()
                                  .value(QStringLiteral("route"))
                                  .toObject();
    QCOMPARE(route.value(QStringLiteral("queueDatas")).toArray().size(), 2);

    r = at({"topicList"});
    QVERIFY(r.lines().contains(QStringLiteral("AdmT")));
    r = at({"topicList", "-c"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().first(),
        QStringLiteral("%1  %2  %3")
            .arg(QStringLiteral("#Cluster Name"), -20)
            .arg(QStringLiteral("#Topic"), -48)
            .arg(QStringLiteral("#Consumer Group"), -48));
    bool listed = false;
    for (const QString &l : r.lines())
        listed = listed || fields(l) == argv({"DefaultCluster", "AdmT"});
    QVERIFY2(listed, qPrintable(r.out));
    r = at({"topicClusterList", "-t", "AdmT"});
    QCOMPARE(r.lines(), argv({"DefaultCluster"}));

    r = at({"updateTopicPerm", "-c", "DefaultCluster", "-t", "AdmT", "-p", "4"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("update topic perm from 6 to 4 in")), 2);
    QTRY_COMPARE_WITH_TIMEOUT(routePerms("AdmT"), argv({"4", "4"}), 5000);
    r = at(argv({"updateTopicPerm", "-t", "AdmT", "-p", "6", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(
        QStringLiteral("update topic perm from 4 to 6 in %1 success.").arg(m_addr0)));

    r = at({"deleteTopic", "-c", "DefaultCluster", "-t", "AdmT"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines(),
        argv({"delete topic [AdmT] from cluster [DefaultCluster] success.",
            "delete topic [AdmT] from NameServer success."}));
    r = at({"topicRoute", "-t", "AdmT"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains(QLatin1String("TOPIC_NOT_EXIST(17)")));
}

/// RocketMQ 5's topic attributes through updateTopic -a: set on every master, read back with
/// GET_ALL_TOPIC_CONFIG, kept by an update without -a, removed with -key, and the broker's
/// refusals (unknown key, unknown type, MIXED without enableMixedMessageType) printed with exit 1.
void TestAdminTopics::topicAttributes()
{
    const QByteArray topic("AdmAttr");
    const auto attributesAt = [&](const QString &addr) {
        auto c = m_admin->topicConfig(addr.toUtf8(), topic);
        return c ? c->attributes : std::map<QByteArray, QByteArray> {{"error", "no topic"}};
    };
    const std::map<QByteArray, QByteArray> fifo {{"message.type", "FIFO"}};

    Run r = at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmAttr", "-r", "2", "-w", "2", "-a",
        "+message.type=FIFO"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.lines().contains(QLatin1String(
                 "TopicConfig [topicName=AdmAttr, readQueueNums=2, writeQueueNums=2, perm=RW-, "
                 "topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false, "
                 "attributes={+message.type=FIFO}]")),
        qPrintable(r.out));
    QCOMPARE(attributesAt(m_addr0), fifo);
    QCOMPARE(attributesAt(m_addr1), fifo);

    // An update without -a (here updateTopicPerm, which re-sends the broker's config) keeps them,
    // and the config it prints shows them.
    r = at(argv({"updateTopicPerm", "-t", "AdmAttr", "-p", "4", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QLatin1String("order=false, attributes={message.type=FIFO}].")),
        qPrintable(r.out));
    QCOMPARE(attributesAt(m_addr0), fifo);

    // The broker's refusals: exit 1, its reason on stderr, the attributes unchanged.
    struct Refused
    {
        const char *attributes;
        const char *reason;
    };
    for (const Refused &bad : {Refused {"+queue.type=BatchCQ", "queue.type is not supported"},
             Refused {"+message.type=BOGUS", "message.type BOGUS is none of"},
             Refused {"+message.type=MIXED", "enableMixedMessageType=false"},
             Refused {"message.type=FIFO", "'+key=value' sets an attribute"}}) {
        r = at(argv({"updateTopic", "-t", "AdmAttr", "-r", "2", "-w", "2", "-b"})
            << m_addr1 << QStringLiteral("-a") << QString::fromUtf8(bad.attributes));
        QVERIFY2(r.exitCode == 1, r.describe().constData());
        QVERIFY2(r.err.contains(QLatin1String(bad.reason)), r.describe().constData());
        QVERIFY2(r.err.contains(QLatin1String("qrocket-admin: updateTopic: ")),
            r.describe().constData());
        QVERIFY2(!r.out.contains(QLatin1String("success")), r.describe().constData());
        QCOMPARE(attributesAt(m_addr1), fifo);
    }
    // Over the cluster, each master's refusal is printed and the exit is 1 too.
    r = at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmAttr", "-r", "2", "-w", "2", "-a",
        "+cleanup.policy=COMPACTION"});
    QVERIFY2(r.exitCode == 1, r.describe().constData());
    QVERIFY2(r.err.count(QLatin1String("cleanup.policy is not supported")) >= 2,
        r.describe().constData());

    // "-key" removes it (the value after -a may start with '-', as with mqadmin).
    r = at(argv({"updateTopic", "-t", "AdmAttr", "-r", "2", "-w", "2", "-a", "-message.type", "-b"})
        << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QLatin1String("order=false, attributes={-message.type=}]")),
        qPrintable(r.out));
    QCOMPARE(attributesAt(m_addr0), (std::map<QByteArray, QByteArray> {}));
    QCOMPARE(attributesAt(m_addr1), fifo);
    // Removing what is not there is refused.
    r = at(argv({"updateTopic", "-t", "AdmAttr", "-a", "-message.type", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 1, r.describe().constData());
    QVERIFY2(r.err.contains(QLatin1String("to remove is not set")), r.describe().constData());

    QVERIFY(at({"deleteTopic", "-c", "DefaultCluster", "-t", "AdmAttr"}).exitCode == 0);
}

void TestAdminTopics::topicStatusCountsSentMessages()
{
    QVERIFY(at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmS", "-r", "2", "-w", "2"}).exitCode
        == 0);
    for (int i = 0; i < 5; ++i) {
        const Run s = at({"sendMessage", "-t", "AdmS", "-p", "body", "-k", "k"});
        QVERIFY2(s.exitCode == 0, s.describe().constData());
        QVERIFY(s.out.startsWith(QLatin1String(
            "#Broker Name                      #QID  #Send Result            #MsgId")));
        QCOMPARE(fields(s.lines().value(1)).value(2), QStringLiteral("SEND_OK"));
    }
    // queryMsgById -s true sends a message again: one more in the topic.
    const Run sent = at({"sendMessage", "-t", "AdmS", "-p", "again", "--json"});
    QVERIFY2(sent.exitCode == 0, sent.describe().constData());
    const QString offsetMsgId = QJsonDocument::fromJson(sent.out.toUtf8())
                                    .object()
                                    .value(QStringLiteral("offsetMsgId"))
                                    .toString();
    const Run resent = at(argv({"queryMsgById", "-s", "true", "-i"}) << offsetMsgId);
    QVERIFY2(resent.exitCode == 0, resent.describe().constData());
    QCOMPARE(resent.lines().value(0),
        QStringLiteral("prepare resend msg. originalMsgId=%1").arg(offsetMsgId));
    QVERIFY(resent.lines().value(1).startsWith(
        QLatin1String("SendResult [sendStatus=SEND_OK, msgId=")));
    const Run r = at({"topicStatus", "-t", "AdmS"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(QLatin1String("#Broker Name                      #QID  #Min Offset    "
                                           "       #Max Offset             #Last Updated")));
    QCOMPARE(r.lines().size(), 5); // heading + 2 brokers x 2 queues
    // The consume queues follow the commit log asynchronously: the max offsets catch up.
    auto total = [this] {
        qint64 sum = 0;
        for (const QString &l : at({"topicStatus", "-t", "AdmS"}).lines().mid(1))
            sum += fields(l).value(3).toLongLong();
        return sum;
    };
    QTRY_COMPARE_WITH_TIMEOUT(total(), qint64(7), 5000);
}

void TestAdminTopics::allocateMQ()
{
    QVERIFY(at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmA", "-r", "3", "-w", "3"}).exitCode
        == 0);
    const Run r = at({"allocateMQ", "-t", "AdmA", "-i", "c1,c2,c3,c4"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8())
                                   .object()
                                   .value(QStringLiteral("result"))
                                   .toObject();
    QCOMPARE(result.size(), 4);
    int total = 0;
    for (const QString &c :
        {QStringLiteral("c1"), QStringLiteral("c2"), QStringLiteral("c3"), QStringLiteral("c4")})
        total += result.value(c).toArray().size();
    QCOMPARE(total, 6);
    QCOMPARE(result.value(QStringLiteral("c1")).toArray().size(), 2); // 6 over 4: 2, 2, 1, 1
    QCOMPARE(result.value(QStringLiteral("c4")).toArray().size(), 1);
}

void TestAdminTopics::brokerConfig()
{
    Run r = at(argv({"getBrokerConfig", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().first(), QStringLiteral("============%1============").arg(m_addr0));
    const QString name = lineStartingWith(r, QStringLiteral("brokerName"));
    QCOMPARE(name.indexOf(QLatin1Char('=')), 50); // "%-50s=  %s"
    QCOMPARE(fields(name).last(), QStringLiteral("broker-0"));

    r = at(argv({"updateBrokerConfig", "-k", "fileReservedTime", "-v", "50", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(
        r.lines(), QStringList {QStringLiteral("update broker config success, %1").arg(m_addr0)});
    r = at(argv({"getBrokerConfig", "-b"}) << m_addr0);
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("fileReservedTime"))).last(),
        QStringLiteral("50"));

    r = at({"getBrokerConfig", "-c", "DefaultCluster"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("============Master: ")), 2);
}

void TestAdminTopics::nameServerConfig()
{
    Run r = at({"getNamesrvConfig"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().first(), QStringLiteral("============%1============").arg(m_ns));
    QVERIFY(r.lines().size() > 3);
    r = at({"updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(QLatin1String("orderMessageEnable : true")));
    r = at({"getNamesrvConfig"});
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("orderMessageEnable"))).last(),
        QStringLiteral("true"));
}

void TestAdminTopics::kvConfig()
{
    Run r = at({"updateKvConfig", "-s", "AdmNS", "-k", "k1", "-v", "v1"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines(), argv({"create or update kv config to namespace success."}));
    auto value = m_admin->kvConfig("AdmNS", "k1");
    QVERIFY(value);
    QCOMPARE(*value, QByteArray("v1"));
    r = at({"deleteKvConfig", "-s", "AdmNS", "-k", "k1"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines(), argv({"delete kv config from namespace success."}));
    QCOMPARE(m_admin->kvConfig("AdmNS", "k1").error().code(), Status::Code::NotFound);
}

void TestAdminTopics::writePerm()
{
    QVERIFY(at({"updateTopic", "-c", "DefaultCluster", "-t", "AdmW", "-r", "1", "-w", "1"}).exitCode
        == 0);
    Run r = at({"wipeWritePerm", "-b", "broker-1"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.startsWith(
                 QStringLiteral("wipe write perm of broker[broker-1] in name server[%1] OK, ")
                     .arg(m_ns)),
        r.describe().constData());
    QVERIFY(fields(r.lines().first()).last().toInt() >= 1);
    r = at({"addWritePerm", "-b", "broker-1"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(
        QStringLiteral("add write perm of broker[broker-1] in name server[%1] OK, ").arg(m_ns)));
}

void TestAdminTopics::maintenance()
{
    for (const char *command : {"deleteExpiredCommitLog", "cleanExpiredCQ", "cleanUnusedTopic"}) {
        Run r = at(argv({command, "-b"}) << m_addr0);
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QCOMPARE(r.lines(), argv({"success"}));
        r = at({command, "-c", "DefaultCluster"});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QCOMPARE(r.lines(), argv({"success"}));
    }
}

void TestAdminTopics::storeFiles()
{
    QVERIFY(at({"sendMessage", "-t", "AdmS", "-p", "x"}).exitCode == 0);
    const Run r = at(argv({"storeFiles", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(QLatin1String("#Broker                 #File")));
    const QString file = lineStartingWith(r, m_addr0);
    QVERIFY2(file.contains(QLatin1String("commitlog")), qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("commitLog offsets")));
    const Run json = at(argv({"storeFiles", "--json", "-b"}) << m_addr0);
    const QJsonArray files = QJsonDocument::fromJson(json.out.toUtf8())
                                 .object()
                                 .value(QStringLiteral("files"))
                                 .toArray();
    QVERIFY(!files.isEmpty());
    QVERIFY(files[0].toObject().value(QStringLiteral("size")).toDouble() > 0);
    QVERIFY(!files[0].toObject().value(QStringLiteral("reasonKept")).toString().isEmpty());
}

void TestAdminTopics::namesrvStatus()
{
    // QRocket extension 9002: the name server's RSS, topics and live brokers.
    const Run r = at({"namesrvStatus"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    auto value = [&](const char *key) {
        const QString line = lineStartingWith(r, QLatin1String(key));
        return line.section(QLatin1Char(':'), 1).trimmed().toLongLong();
    };
    QVERIFY2(value("processRssBytes") > 1024 * 1024, qPrintable(r.out));
    QVERIFY(value("processRssBytes") <= value("processPeakRssBytes"));
    QVERIFY(value("topicCount") > 0);
    QVERIFY(value("brokersLive") >= 1);
    QVERIFY(value("registrationsTotal") >= 1);
}

void TestAdminTopics::haStatusAndEpochInPlainMode()
{
    // GET_BROKER_HA_STATUS / GET_BROKER_EPOCH_CACHE in plain master/slave mode: a master
    // without slaves, and no epochs (no controller). tst_fencing runs both against an elected
    // master and its follower.
    QVERIFY(at({"sendMessage", "-t", "AdmHa", "-p", "x"}).exitCode == 0);
    const auto rt = m_admin->brokerRuntimeInfo(m_addr0.toUtf8());
    QVERIFY(rt.has_value());
    const QString end = QString::fromUtf8(rt->value("commitLogMaxOffset"));
    Run r = at(argv({"haStatus", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().mid(0, 4),
        QStringList({QStringLiteral("#MasterAddr\t") + m_addr0,
            QStringLiteral("#MasterCommitLogMaxOffset\t") + end, QStringLiteral("#SlaveNum\t0"),
            QStringLiteral("#InSyncSlaveNum\t0")}));
    QCOMPARE(fields(r.lines().value(4)),
        argv({"#SlaveAddr", "#SlaveAckOffset", "#Diff", "#TransferSpeed(KB/s)", "#Status",
            "#TransferFromWhere"}));
    QCOMPARE(r.lines().size(), 5);
    // -c: every master of the cluster.
    r = at({"haStatus", "-c", "DefaultCluster"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("#MasterAddr")), 2);
    r = at(argv({"haStatus", "--json", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QJsonObject ha = QJsonDocument::fromJson(r.out.toUtf8())
                               .object()
                               .value(QStringLiteral("brokers"))
                               .toArray()
                               .at(0)
                               .toObject();
    QVERIFY(ha.value(QStringLiteral("master")).toBool());
    QCOMPARE(
        QString::number(ha.value(QStringLiteral("masterCommitLogMaxOffset")).toInteger()), end);

    // -i: again every -i seconds until stopped, as mqadmin's; not with --json.
    QCOMPARE(at(argv({"haStatus", "-i", "-1", "-b"}) << m_addr0).exitCode, 2);
    QCOMPARE(at(argv({"haStatus", "--json", "-i", "1", "-b"}) << m_addr0).exitCode, 2);
    QProcess repeating;
    repeating.start(adminPath(),
        argv({"haStatus", "-i", "1", "-n"}) << m_ns << QStringLiteral("-b") << m_addr0);
    QVERIFY(repeating.waitForStarted(5000));
    QString seen;
    QTRY_VERIFY_WITH_TIMEOUT((seen += QString::fromUtf8(repeating.readAllStandardOutput()))
                                 .count(QLatin1String("#MasterAddr"))
            >= 2,
        15000);
    QCOMPARE(repeating.state(), QProcess::Running);
    repeating.kill();
    QVERIFY(repeating.waitForFinished(5000));

    r = at(argv({"getBrokerEpoch", "-b"}) << m_addr0);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines(),
        QStringList({QStringLiteral("#clusterName\tDefaultCluster"),
            QStringLiteral("#brokerName\tbroker-0"), QStringLiteral("#brokerAddr\t") + m_addr0,
            QStringLiteral("#brokerId\t0")}));
    // By broker name, as mqadmin's -b.
    r = at({"getBrokerEpoch", "-b", "broker-1"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QStringLiteral("#brokerAddr\t") + m_addr1), qPrintable(r.out));
    QVERIFY(at({"getBrokerEpoch", "-b", "no-such-broker"}).exitCode != 0);
    QCOMPARE(at({"getBrokerEpoch"}).exitCode, 2);
    const auto cache = m_admin->brokerEpochCache(m_addr1.toUtf8());
    QVERIFY(cache.has_value());
    QVERIFY(cache->epochList.empty());
    QCOMPARE(cache->brokerName, QByteArray("broker-1"));
    QVERIFY(cache->maxOffset >= 0);
}

QTEST_GUILESS_MAIN(TestAdminTopics)
#include "tst_admin_topics.moc"
