// Interop with RocketMQ 5's official gRPC client: the npm package rocketmq-client-nodejs runs the
// scenarios of tests/interop/rocketmq5-nodejs/grpcnode.js against qrocket-namesrv + qrocket-broker
// (its grpcServerPort) started as processes on free ports, with the 4.9 remoting client ali-ons
// beside it for the gRPC <-> remoting scenarios. One broker serves every scenario but twoBrokers,
// which also uses a second broker on the same name server; each scenario is its own node run (its
// own SDK clients, topics and groups). The node dependencies are installed (npm ci, else npm
// install) in a copy of that folder under the build directory when missing.

#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace qrocket::testlib;

class tst_InteropGrpcNode final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void scenario_data();
    void scenario();
    void sessionCredentials();

private:
    bool prepareNodeProject(QString *why);
    /// Runs grpcnode.js `name` against the broker at `brokerPort` / `grpcPort` with `extra` in
    /// its environment.
    void runScenario(const QString &name, quint16 brokerPort, quint16 grpcPort,
        const QList<std::pair<QString, QString>> &extra = {}, DaemonProcess *broker = nullptr);

    QString m_work = QStringLiteral(QROCKET_GRPCNODE_WORK_DIR);
    QTemporaryDir m_dir;
    std::unique_ptr<DaemonProcess> m_namesrv;
    std::unique_ptr<DaemonProcess> m_broker;
    std::unique_ptr<DaemonProcess> m_broker2; // twoBrokers
    quint16 m_nsPort = 0;
    quint16 m_broker2Port = 0;
    quint16 m_grpc2Port = 0;
    quint16 m_brokerPort = 0;
    quint16 m_grpcPort = 0;
};

bool tst_InteropGrpcNode::prepareNodeProject(QString *why)
{
    const QDir src(QStringLiteral(QROCKET_GRPCNODE_SOURCE_DIR));
    const QDir alions(QStringLiteral(QROCKET_ALIONS_SOURCE_DIR)); // rpc.js: the raw-frame helper
    QDir().mkpath(m_work);
    for (const char *name : {"package.json", "package-lock.json", "grpcnode.js", "rpc.js"}) {
        const QString from
            = (qstrcmp(name, "rpc.js") == 0 ? alions : src).filePath(QLatin1String(name));
        const QString to = QDir(m_work).filePath(QLatin1String(name));
        QFile::remove(to);
        if (!QFile::copy(from, to)) {
            *why = QStringLiteral("cannot copy %1 to %2").arg(from, to);
            return false;
        }
    }
    const QStringList installed {
        QDir(m_work).filePath(QStringLiteral("node_modules/rocketmq-client-nodejs/package.json")),
        QDir(m_work).filePath(QStringLiteral("node_modules/ali-ons/package.json"))};
    auto present = [&] { return QFile::exists(installed[0]) && QFile::exists(installed[1]); };
    if (present())
        return true;
    const QString npm = QStringLiteral(QROCKET_NPM);
    const QStringList common {QStringLiteral("--no-audit"), QStringLiteral("--no-fund"),
        QStringLiteral("--prefix"), m_work};
    auto [rc, out] = runProgram(npm, QStringList {QStringLiteral("ci")} + common, 300000);
    if (rc != 0 || !present()) {
        qWarning("npm ci failed (%d), trying npm install:\n%s", rc, out.constData());
        std::tie(rc, out)
            = runProgram(npm, QStringList {QStringLiteral("install")} + common, 300000);
    }
    if (rc != 0 || !present()) {
        *why = QStringLiteral("npm could not install rocketmq-client-nodejs and ali-ons: ")
            + QString::fromUtf8(out.right(2000));
        return false;
    }
    return true;
}

void tst_InteropGrpcNode::initTestCase()
{
    QString why;
    QVERIFY2(prepareNodeProject(&why), qPrintable(why));
    QVERIFY(m_dir.isValid());
    m_namesrv = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-namesrv"));
    m_nsPort = startNamesrv(*m_namesrv, m_dir.path());
    QVERIFY2(
        m_nsPort != 0, qPrintable(m_namesrv->error() + QString::fromUtf8(m_namesrv->output())));

    // The gRPC port is the test's choice as well (a broker that cannot bind it runs on without
    // it, so each attempt takes a fresh one and the port is waited for below).
    m_broker = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const bool started = startOnFreePort(
        *m_broker, m_dir.filePath(QStringLiteral("broker.conf")), m_brokerPort, [&](quint16 port) {
            m_grpcPort = freePort();
            return "brokerClusterName=InteropCluster\nbrokerName=broker-grpcnode\n"
                   "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(port) + "\ngrpcServerPort=" + QByteArray::number(m_grpcPort)
                + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort)
                + "\nstorePathRootDir=" + m_dir.filePath(QStringLiteral("store")).toUtf8()
                + "\nmappedFileSizeCommitLog=134217728\n"
                  // transactionWithCheck: the broker checks open transactions every second.
                  "transactionCheckInterval=1000\ntransactionTimeOut=3000\n";
        });
    QVERIFY2(started, qPrintable(m_broker->error()));
    QVERIFY2(waitForPort(m_grpcPort, 10000), m_broker->output().right(4000).constData());

    m_broker2 = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const bool started2 = startOnFreePort(*m_broker2,
        m_dir.filePath(QStringLiteral("broker2.conf")), m_broker2Port, [&](quint16 port) {
            m_grpc2Port = freePort();
            return "brokerClusterName=InteropCluster\nbrokerName=broker-grpcnode-b\n"
                   "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(port) + "\ngrpcServerPort=" + QByteArray::number(m_grpc2Port)
                + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort)
                + "\nstorePathRootDir=" + m_dir.filePath(QStringLiteral("store2")).toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\n";
        });
    QVERIFY2(started2, qPrintable(m_broker2->error()));
    QVERIFY2(waitForPort(m_grpc2Port, 10000), m_broker2->output().right(4000).constData());
}

void tst_InteropGrpcNode::cleanupTestCase()
{
    if (m_broker)
        QCOMPARE(m_broker->stop(), 0);
    if (m_broker2)
        QCOMPARE(m_broker2->stop(), 0);
    if (m_namesrv)
        QCOMPARE(m_namesrv->stop(), 0);
}

void tst_InteropGrpcNode::scenario_data()
{
    QTest::addColumn<QString>("name");
    for (const char *s : {"normalSendReceiveAck", "fifoMessageGroup", "delayDeliveryTimestamp",
             "invisibleTimeRedelivery", "changeInvisibleDuration", "grpcToRemoting",
             "remotingToGrpc", "transactionWithCheck", "twoBrokers", "pushConsumer",
             "fifoPushConsumer"})
        QTest::newRow(s) << QString::fromLatin1(s);
}

void tst_InteropGrpcNode::scenario()
{
    QFETCH(QString, name);
    QVERIFY(m_broker && m_broker->isRunning());
    runScenario(name, m_brokerPort, m_grpcPort);
}

void tst_InteropGrpcNode::runScenario(const QString &name, quint16 brokerPort, quint16 grpcPort,
    const QList<std::pair<QString, QString>> &extra, DaemonProcess *broker)
{
    if (!broker)
        broker = m_broker.get();
    QProcess node;
    node.setWorkingDirectory(m_work);
    node.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QROCKET_NAMESRV"), QStringLiteral("127.0.0.1:%1").arg(m_nsPort));
    env.insert(QStringLiteral("QROCKET_BROKER"), QStringLiteral("127.0.0.1:%1").arg(brokerPort));
    env.insert(QStringLiteral("QROCKET_GRPC"), QStringLiteral("127.0.0.1:%1").arg(grpcPort));
    for (const auto &[key, value] : extra)
        env.insert(key, value);
    env.insert(
        QStringLiteral("QROCKET_BROKER2"), QStringLiteral("127.0.0.1:%1").arg(m_broker2Port));
    node.setProcessEnvironment(env);
    node.start(QStringLiteral(QROCKET_NODE), {QStringLiteral("grpcnode.js"), name});
    QVERIFY2(node.waitForStarted(10000), qPrintable(node.errorString()));
    // The script bounds each scenario at 90 s; this bound is the backstop.
    const bool finished = node.waitForFinished(120000);
    if (!finished) {
        node.kill();
        node.waitForFinished(5000);
    }
    const QByteArray out = node.readAll();
    qInfo("grpcnode.js %s output:\n%s", qPrintable(name), out.constData());
    const bool ok = finished && node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0;
    if (!ok)
        qInfo("broker output (tail):\n%s", broker->output().right(6000).constData());
    QVERIFY2(finished, "grpcnode.js did not finish within 120 s");
    QVERIFY2(
        ok, qPrintable(QStringLiteral("grpcnode.js %1 exited %2").arg(name).arg(node.exitCode())));
    QVERIFY2(
        out.contains(" passed, 0 failed") && out.contains("PASS "), out.right(2000).constData());
}

void tst_InteropGrpcNode::sessionCredentials()
{
    // A second broker, with aclEnable and its own plain_acl.yml: the SDK signs with
    // sessionCredentials (the topic is created with the admin account's signature).
    const QString home = m_dir.filePath(QStringLiteral("acl-home"));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/conf")));
    QFile rules(home + QStringLiteral("/conf/plain_acl.yml"));
    QVERIFY(rules.open(QIODevice::WriteOnly));
    rules.write("accounts:\n"
                "  - accessKey: grpcnode01\n    secretKey: grpcnode-secret\n"
                "    defaultTopicPerm: PUB|SUB\n    defaultGroupPerm: SUB\n"
                "  - accessKey: nodeadmin01\n    secretKey: nodeadmin-secret\n    admin: true\n");
    rules.close();
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    quint16 grpcPort = 0;
    const bool started = startOnFreePort(
        broker, m_dir.filePath(QStringLiteral("broker-acl.conf")), port, [&](quint16 p) {
            grpcPort = freePort();
            return "brokerClusterName=InteropAclCluster\nbrokerName=broker-grpcnode-acl\n"
                   "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(p) + "\ngrpcServerPort=" + QByteArray::number(grpcPort)
                + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort)
                + "\nstorePathRootDir=" + m_dir.filePath(QStringLiteral("acl-store")).toUtf8()
                + "\nmappedFileSizeCommitLog=67108864\naclEnable=true\nrocketmqHome="
                + home.toUtf8() + "\n";
        });
    QVERIFY2(started, qPrintable(broker.error()));
    QVERIFY2(waitForPort(grpcPort, 10000), broker.output().right(4000).constData());
    runScenario(QStringLiteral("sessionCredentials"), port, grpcPort,
        {{QStringLiteral("QROCKET_ACL_AK"), QStringLiteral("grpcnode01")},
            {QStringLiteral("QROCKET_ACL_SK"), QStringLiteral("grpcnode-secret")},
            {QStringLiteral("QROCKET_ACL_ADMIN_AK"), QStringLiteral("nodeadmin01")},
            {QStringLiteral("QROCKET_ACL_ADMIN_SK"), QStringLiteral("nodeadmin-secret")}},
        &broker);
    QCOMPARE(broker.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_InteropGrpcNode)
#include "tst_interop_grpcnode.moc"
