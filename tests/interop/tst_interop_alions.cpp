// Interop with a real third-party client: the npm package ali-ons (pure JavaScript) runs the
// scenarios of tests/interop/ali-ons/roundtrip.js against qrocket-namesrv + qrocket-broker started
// as processes on free ports. The node dependencies are installed (npm ci, else npm install) in a
// copy of that folder under the build directory when missing.

#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket::testlib;

class tst_InteropAliOns final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void roundTrip();
    void signedWithAcl();

private:
    bool prepareNodeProject(QString *why);
    /// Runs `script` (node, in the work folder) against the name server and broker, prints its
    /// output, then stops the broker: true when the script and the broker both exit 0, else
    /// false and why.
    bool runScript(const QString &script, quint16 nsPort, quint16 brokerPort, int timeoutMs,
        DaemonProcess &broker, QString *why);
    QString m_work = QStringLiteral(QROCKET_ALIONS_WORK_DIR);
};

bool tst_InteropAliOns::prepareNodeProject(QString *why)
{
    const QDir src(QStringLiteral(QROCKET_ALIONS_SOURCE_DIR));
    QDir().mkpath(m_work);
    for (const char *name :
        {"package.json", "package-lock.json", "roundtrip.js", "aclcheck.js", "rpc.js"}) {
        const QString from = src.filePath(QLatin1String(name));
        const QString to = QDir(m_work).filePath(QLatin1String(name));
        if (!QFile::exists(from))
            continue;
        QFile::remove(to);
        if (!QFile::copy(from, to)) {
            *why = QStringLiteral("cannot copy %1 to %2").arg(from, to);
            return false;
        }
    }
    const QString installed
        = QDir(m_work).filePath(QStringLiteral("node_modules/ali-ons/package.json"));
    if (QFile::exists(installed))
        return true;
    const QString npm = QStringLiteral(QROCKET_NPM);
    const QStringList common {QStringLiteral("--no-audit"), QStringLiteral("--no-fund"),
        QStringLiteral("--prefix"), m_work};
    auto [rc, out] = runProgram(npm, QStringList {QStringLiteral("ci")} + common, 300000);
    if (rc != 0 || !QFile::exists(installed)) {
        qWarning("npm ci failed (%d), trying npm install:\n%s", rc, out.constData());
        std::tie(rc, out)
            = runProgram(npm, QStringList {QStringLiteral("install")} + common, 300000);
    }
    if (rc != 0 || !QFile::exists(installed)) {
        *why = QStringLiteral("npm could not install ali-ons: ")
            + QString::fromUtf8(out.right(2000));
        return false;
    }
    return true;
}

bool tst_InteropAliOns::runScript(const QString &script, quint16 nsPort, quint16 brokerPort,
    int timeoutMs, DaemonProcess &broker, QString *why)
{
    QProcess node;
    node.setWorkingDirectory(m_work);
    node.setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QROCKET_NAMESRV"), QStringLiteral("127.0.0.1:%1").arg(nsPort));
    env.insert(QStringLiteral("QROCKET_BROKER"), QStringLiteral("127.0.0.1:%1").arg(brokerPort));
    node.setProcessEnvironment(env);
    node.start(QStringLiteral(QROCKET_NODE), {script});
    if (!node.waitForStarted(10000)) {
        *why = node.errorString();
        return false;
    }
    const bool finished = node.waitForFinished(timeoutMs);
    if (!finished) {
        node.kill();
        node.waitForFinished(5000);
    }
    const QByteArray out = node.readAll();
    qInfo("ali-ons %s output:\n%s", qPrintable(script), out.constData());
    const int brokerRc = broker.stop();
    if (!finished || node.exitCode() != 0)
        qInfo("broker output (tail):\n%s", broker.output().right(6000).constData());
    if (!finished) {
        *why = script + QStringLiteral(" did not finish within %1 ms").arg(timeoutMs);
        return false;
    }
    if (node.exitStatus() != QProcess::NormalExit || node.exitCode() != 0 || brokerRc != 0) {
        *why = QStringLiteral("%1 exited %2, the broker %3")
                   .arg(script)
                   .arg(node.exitCode())
                   .arg(brokerRc);
        return false;
    }
    return true;
}

void tst_InteropAliOns::initTestCase()
{
    QString why;
    QVERIFY2(prepareNodeProject(&why), qPrintable(why));
}

void tst_InteropAliOns::roundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = startNamesrv(namesrv, dir.path());
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error() + QString::fromUtf8(namesrv.output())));

    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 brokerPort = 0;
    const bool started = startOnFreePort(
        broker, dir.filePath(QStringLiteral("broker.conf")), brokerPort, [&](quint16 port) {
            return "brokerClusterName=InteropCluster\nbrokerName=broker-interop\n"
                   "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(nsPort)
                + "\nstorePathRootDir=" + dir.filePath(QStringLiteral("store")).toUtf8()
                + "\nmappedFileSizeCommitLog=134217728\nmessageDelayLevel=1s 1s 1s 1s 1s 1s 1s "
                  "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s\n";
        });
    QVERIFY2(started, qPrintable(broker.error()));

    QString why;
    QVERIFY2(runScript(QStringLiteral("roundtrip.js"), nsPort, brokerPort, 180000, broker, &why),
        qPrintable(why));
    QCOMPARE(namesrv.stop(), 0);
}

void tst_InteropAliOns::signedWithAcl()
{
    // ali-ons signs with accessKey/secretKey (its own HMAC code, plus its OnsChannel field);
    // a broker with aclEnable=true checks it as RocketMQ 4.9 does
    // (tests/interop/ali-ons/aclcheck.js).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString rules = dir.filePath(QStringLiteral("plain_acl.yml"));
    {
        QFile f(rules);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("accounts:\n"
                "  - accessKey: aliapp01\n"
                "    secretKey: aliapp-secret\n"
                "    defaultTopicPerm: DENY\n"
                "    defaultGroupPerm: SUB\n"
                "    topicPerms: [ \"IT_Acl=PUB|SUB\" ]\n"
                "  - accessKey: aliadmin\n"
                "    secretKey: aliadmin-secret\n"
                "    admin: true\n");
    }
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = startNamesrv(namesrv, dir.path());
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error() + QString::fromUtf8(namesrv.output())));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 brokerPort = 0;
    const bool started = startOnFreePort(
        broker, dir.filePath(QStringLiteral("broker.conf")), brokerPort, [&](quint16 port) {
            return "brokerClusterName=InteropCluster\nbrokerName=broker-acl\n"
                   "brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(nsPort)
                + "\nstorePathRootDir=" + dir.filePath(QStringLiteral("store")).toUtf8()
                + "\nmappedFileSizeCommitLog=134217728\naclEnable=true\naclFilePath="
                + rules.toUtf8()
                + "\nmessageDelayLevel=1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s\n";
        });
    QVERIFY2(started, qPrintable(broker.error()));

    QString why;
    QVERIFY2(runScript(QStringLiteral("aclcheck.js"), nsPort, brokerPort, 120000, broker, &why),
        qPrintable(why));
    QCOMPARE(namesrv.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_InteropAliOns)
#include "tst_interop_alions.moc"
