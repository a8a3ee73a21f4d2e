// qrocket-admin's command line and bad input, as a real process: the command list, -h, unknown
// commands and options, missing or malformed values, no or an unreachable name server, a topic
// that does not exist. Each gives one clear line on stderr, its exit code, within a few seconds.

#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::admintest;

class TestAdminErrors : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void commandList();
    void commandHelp();
    void unknownCommand();
    void unknownOption();
    void missingRequiredOption();
    void malformedValues_data();
    void malformedValues();
    void noNameServer();
    void badNameServerAddress();
    void unreachableNameServer();
    void missingTopic_data();
    void missingTopic();
    void unknownCluster();

private:
    std::unique_ptr<EmbeddedCluster> m_cluster;
    QString m_ns;
};

void TestAdminErrors::initTestCase()
{
    QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
    m_cluster = std::make_unique<EmbeddedCluster>();
    const Status s = m_cluster->start();
    QVERIFY2(s.isOk(), qPrintable(s.toString()));
    m_ns = m_cluster->namesrvAddress();
}

void TestAdminErrors::commandList()
{
    const Run r = runAdmin({});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QStringList expected = argv({"clusterList", "brokerStatus", "brokerConsumeStats",
        "topicList", "topicRoute", "topicStatus", "topicClusterList", "updateTopic", "deleteTopic",
        "updateTopicPerm", "updateSubGroup", "deleteSubGroup", "setConsumeMode", "popStats",
        "consumerProgress", "consumerConnection", "producerConnection", "consumerStatus",
        "queryMsgById", "queryMsgByKey", "queryMsgByUniqueKey", "queryMsgByOffset", "printMsg",
        "printMsgByQueue", "queryMsgTraceById", "resetOffsetByTime", "skipAccumulatedMessage",
        "cloneGroupOffset", "getBrokerConfig", "updateBrokerConfig", "getNamesrvConfig",
        "updateNamesrvConfig", "updateKvConfig", "deleteKvConfig", "wipeWritePerm", "addWritePerm",
        "sendMessage", "consumeMessage", "deleteExpiredCommitLog", "cleanExpiredCQ",
        "cleanUnusedTopic", "statsAll", "checkMsgSendRT", "allocateMQ", "getConsumerConfig",
        "storeFiles", "namesrvStatus", "createUser", "updateUser", "deleteUser", "getUser",
        "listUser", "createAcl", "updateAcl", "deleteAcl", "getAcl", "listAcl", "haStatus",
        "getBrokerEpoch", "explainGroup", "explainCleanup", "explainSend", "explainBroker"});
    QStringList listed;
    for (const QString &l : r.lines()) {
        if (l.startsWith(QLatin1String("   ")))
            listed << fields(l).first();
    }
    for (const QString &c : expected)
        QVERIFY2(listed.contains(c), qPrintable(c + QStringLiteral(" missing from the list")));
    QCOMPARE(listed.size(), expected.size());
    QCOMPARE(runAdmin({QStringLiteral("help")}).exitCode, 0);
}

void TestAdminErrors::commandHelp()
{
    const Run r = runAdmin({QStringLiteral("updateTopic"), QStringLiteral("-h")});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    for (const char *option : {"-b,--brokerAddr <arg>", "-c,--clusterName <arg>",
             "-t,--topic <arg>", "-r,--readQueueNums <arg>", "-w,--writeQueueNums <arg>",
             "-p,--perm <arg>", "-o,--order <arg>", "-n,--namesrvAddr <arg>", "--json"})
        QVERIFY2(r.out.contains(QLatin1String(option)), qPrintable(QLatin1String(option) + r.out));
    QVERIFY(r.out.startsWith(QLatin1String("usage: qrocket-admin updateTopic")));
    QVERIFY(r.out.contains(QLatin1String("Exit status: 0 on success")));
    const Run viaHelp = runAdmin({QStringLiteral("help"), QStringLiteral("updateTopic")});
    QCOMPARE(viaHelp.exitCode, 0);
    QCOMPARE(viaHelp.out, r.out);
}

void TestAdminErrors::unknownCommand()
{
    const Run r = runAdmin({QStringLiteral("frobnicate"), QStringLiteral("-n"), m_ns});
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    QVERIFY(r.err.contains(QLatin1String("unknown command 'frobnicate'")));
}

void TestAdminErrors::unknownOption()
{
    const Run r = runAt(m_ns, {"topicRoute", "-t", "T", "-x"});
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QCOMPARE(r.err,
        QStringLiteral("qrocket-admin: topicRoute: unknown option '-x' (see 'qrocket-admin "
                       "topicRoute -h')\n"));
    const Run longForm = runAt(m_ns, {"topicRoute", "-t", "T", "--bogus=1"});
    QVERIFY2(longForm.exitCode == 2, longForm.describe().constData());
    QVERIFY(longForm.err.contains(QLatin1String("unknown option '--bogus=1'")));
    const Run positional = runAt(m_ns, {"topicList", "extra"});
    QVERIFY2(positional.exitCode == 2, positional.describe().constData());
    QVERIFY(positional.err.contains(QLatin1String("unexpected argument 'extra'")));
}

void TestAdminErrors::missingRequiredOption()
{
    const Run r = runAt(m_ns, {"topicRoute"});
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QVERIFY2(r.err.startsWith(QLatin1String("qrocket-admin: topicRoute: missing required option "
                                            "-t,--topic (see 'qrocket-admin topicRoute -h')\n")),
        r.describe().constData());
    const Run noValue = runAt(m_ns, {"topicStatus", "-t"});
    QVERIFY2(noValue.exitCode == 2, noValue.describe().constData());
    const Run group = runAt(m_ns, {"updateTopic", "-t", "T"});
    QVERIFY2(group.exitCode == 2, group.describe().constData());
    QVERIFY(
        group.err.contains(QLatin1String("give exactly one of -b brokerAddr and -c clusterName")));
}

void TestAdminErrors::malformedValues_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("queues") << argv({"updateTopic", "-c", "DefaultCluster", "-t", "T", "-r", "abc"})
                            << QStringLiteral("-r,--readQueueNums wants a number, not 'abc'");
    QTest::newRow("perm") << argv({"updateTopic", "-c", "DefaultCluster", "-t", "T", "-p", "7"})
                          << QStringLiteral("-p wants 2 (W), 4 (R) or 6 (RW), not 7");
    QTest::newRow("bool") << argv({"consumerProgress", "-g", "G", "-s", "yes"})
                          << QStringLiteral("-s,--showClientIP wants true or false, not 'yes'");
    QTest::newRow("timestamp")
        << argv({"resetOffsetByTime", "-g", "G", "-t", "T", "-s", "yesterday"})
        << QStringLiteral(
               "-s,--timestamp wants now, epoch milliseconds or yyyy-MM-dd#HH:mm:ss:SSS");
    QTest::newRow("timeout") << argv({"topicList", "--timeout", "0"})
                             << QStringLiteral("--timeout wants a positive number of milliseconds");
}

void TestAdminErrors::malformedValues()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = runAt(m_ns, args);
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QVERIFY2(r.err.contains(message), r.describe().constData());
}

void TestAdminErrors::noNameServer()
{
    const Run r = runAdmin({QStringLiteral("topicList")});
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QVERIFY(r.err.contains(QLatin1String("no name server: give -n host:port or set NAMESRV_ADDR")));
    // NAMESRV_ADDR is honoured when -n is absent.
    QProcessEnvironment env;
    env.insert(QStringLiteral("NAMESRV_ADDR"), m_ns);
    const Run viaEnv = runAdmin({QStringLiteral("topicList")}, env);
    QVERIFY2(viaEnv.exitCode == 0, viaEnv.describe().constData());
    QVERIFY(viaEnv.lines().contains(QStringLiteral("TBW102")));
}

void TestAdminErrors::badNameServerAddress()
{
    const Run r = runAdmin(
        {QStringLiteral("topicList"), QStringLiteral("-n"), QStringLiteral("localhost")});
    QVERIFY2(r.exitCode == 2, r.describe().constData());
    QVERIFY(r.err.contains(QLatin1String("bad name server address 'localhost'")));
}

void TestAdminErrors::unreachableNameServer()
{
    // A port nothing listens on: one error line, exit 1, well within a few seconds.
    for (const QStringList &args : {argv({"topicList"}), argv({"clusterList"}),
             argv({"topicRoute", "-t", "T"}), argv({"consumerProgress"})}) {
        const Run r = runAt(QStringLiteral("127.0.0.1:1"), args);
        QVERIFY2(r.exitCode == 1, r.describe().constData());
        QVERIFY2(r.elapsedMs < 8000, r.describe().constData());
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.startsWith(QStringLiteral("qrocket-admin: %1: ").arg(args.first())),
            r.describe().constData());
    }
}

void TestAdminErrors::missingTopic_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("topicRoute") << argv({"topicRoute", "-t", "NoSuchTopic"});
    QTest::newRow("topicStatus") << argv({"topicStatus", "-t", "NoSuchTopic"});
    QTest::newRow("queryMsgByKey") << argv({"queryMsgByKey", "-t", "NoSuchTopic", "-k", "k"});
    QTest::newRow("printMsg") << argv({"printMsg", "-t", "NoSuchTopic"});
    QTest::newRow("deleteTopic") << argv(
        {"updateTopicPerm", "-t", "NoSuchTopic", "-p", "4", "-c", "DefaultCluster"});
}

void TestAdminErrors::missingTopic()
{
    QFETCH(QStringList, args);
    const Run r = runAt(m_ns, args);
    QVERIFY2(r.exitCode == 1, r.describe().constData());
    QVERIFY2(r.elapsedMs < 5000, r.describe().constData());
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(r.err.contains(QLatin1String("TOPIC_NOT_EXIST(17)")), r.describe().constData());
}

void TestAdminErrors::unknownCluster()
{
    const Run r = runAt(m_ns, {"getBrokerConfig", "-c", "NoSuchCluster"});
    QVERIFY2(r.exitCode == 1, r.describe().constData());
    QVERIFY2(r.err.contains(QLatin1String("cluster NoSuchCluster does not exist")),
        r.describe().constData());
}

QTEST_GUILESS_MAIN(TestAdminErrors)
#include "tst_admin_errors.moc"
