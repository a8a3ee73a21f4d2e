// The qrocket-namesrv process: command line, config errors, port in use, SIGTERM, and a fake
// broker against the real daemon (persistence across a restart).

#include "clientlib/protocol/extensioncode.h"
#include "rawclient.h"
#include "tests/testlib/daemonprocess.h"

#include <QDateTime>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdlib>

using namespace qrocket;
using namespace qrocket::testing;

namespace {

QString daemonPath()
{
    return qEnvironmentVariable("QROCKET_BIN_DIR") + QStringLiteral("/qrocket-namesrv");
}

/// Keys of `key=value` and `#key=value` lines (descriptions are `# text`).
QSet<QString> keysOf(const QString &text)
{
    static const QRegularExpression re(
        QStringLiteral("^#?([A-Za-z][A-Za-z0-9.]*)="), QRegularExpression::MultilineOption);
    QSet<QString> keys;
    for (auto it = re.globalMatch(text); it.hasNext();)
        keys.insert(it.next().captured(1));
    return keys;
}

} // namespace

class tst_NamesrvDaemon : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void printsEveryKeyOfTheConfFile();
    void printsImportantSubset();
    void helpAndVersion();
    void badConfigExitsNonZero_data();
    void badConfigExitsNonZero();
    void portInUseExitsNonZero();
    void servesBrokerAndExitsCleanlyOnSigterm();
    void sigintAlsoStops();
    void runtimeInfoReportsTheDaemonsMemory();

private:
    QString writeConfig(const QByteArray &content);
    bool startDaemon(QProcess &proc, const QString &configPath, quint16 port);
    QTemporaryDir m_dir;
    int m_configs = 0;
};

void tst_NamesrvDaemon::initTestCase()
{
    QVERIFY(QFile::exists(daemonPath()));
    QVERIFY(m_dir.isValid());
}

QString tst_NamesrvDaemon::writeConfig(const QByteArray &content)
{
    const QString path = m_dir.filePath(QStringLiteral("ns%1.conf").arg(++m_configs));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(content);
    return path;
}

bool tst_NamesrvDaemon::startDaemon(QProcess &proc, const QString &configPath, quint16 port)
{
    proc.setProcessChannelMode(QProcess::SeparateChannels);
    testlib::dieWithTheTest(proc);
    proc.start(daemonPath(), {QStringLiteral("-c"), configPath});
    if (!proc.waitForStarted(5000))
        return false;
    // Ready once it accepts connections.
    QDeadlineTimer deadline(10000);
    while (!deadline.hasExpired() && proc.state() == QProcess::Running) {
        QTcpSocket s;
        s.connectToHost(QStringLiteral("127.0.0.1"), port);
        if (s.waitForConnected(200))
            return true;
        proc.waitForFinished(50); // bounded pause that also notices an early exit
    }
    return false;
}

void tst_NamesrvDaemon::printsEveryKeyOfTheConfFile()
{
    QProcess proc;
    proc.start(daemonPath(), {QStringLiteral("-p")});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QCOMPARE(proc.exitCode(), 0);
    const QSet<QString> printed = keysOf(QString::fromUtf8(proc.readAllStandardOutput()));
    QVERIFY(printed.contains(QStringLiteral("listenPort")));

    QFile conf(QStringLiteral(QROCKET_SOURCE_DIR "/resources/conf/namesrv.conf"));
    QVERIFY(conf.open(QIODevice::ReadOnly));
    const QString confText = QString::fromUtf8(conf.readAll());
    QCOMPARE(keysOf(confText), printed);

    // And the sample file itself is a valid config.
    proc.start(daemonPath(), {QStringLiteral("-c"), conf.fileName(), QStringLiteral("-p")});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitCode(), 0);
    QVERIFY(!proc.readAllStandardError().contains("unknown"));
}

void tst_NamesrvDaemon::printsImportantSubset()
{
    QProcess proc;
    const QString cfg = writeConfig("listenPort=12345\n");
    proc.start(daemonPath(), {QStringLiteral("-c"), cfg, QStringLiteral("-m")});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitCode(), 0);
    const QByteArray out = proc.readAllStandardOutput();
    QVERIFY(out.contains("listenPort=12345\n"));
    QVERIFY(!out.contains("productEnvName"));
}

void tst_NamesrvDaemon::helpAndVersion()
{
    QProcess proc;
    proc.start(daemonPath(), {QStringLiteral("--version")});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitCode(), 0);
    QVERIFY(proc.readAllStandardOutput().contains("qrocket-namesrv"));
    proc.start(daemonPath(), {QStringLiteral("-h")});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitCode(), 0);
    const QByteArray help = proc.readAllStandardOutput();
    QVERIFY(help.contains("--configFile"));
    QVERIFY(help.contains("--printConfigItem"));
    QVERIFY(help.contains("--printImportantConfig"));
}

void tst_NamesrvDaemon::badConfigExitsNonZero_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QByteArray>("message");
    QTest::addRow("not a number") << QByteArray("listenPort=abc\n") << QByteArray("listenPort");
    QTest::addRow("port out of range")
        << QByteArray("listenPort=70000\n") << QByteArray("listenPort");
    QTest::addRow("bad bool") << QByteArray("orderMessageEnable=yes\n")
                              << QByteArray("orderMessageEnable");
    QTest::addRow("bad address") << QByteArray("listenAddress=not.an.ip\n")
                                 << QByteArray("listenAddress");
    QTest::addRow("zero interval") << QByteArray("scanNotActiveBrokerInterval=0\n")
                                   << QByteArray("scanNotActiveBrokerInterval");
}

void tst_NamesrvDaemon::badConfigExitsNonZero()
{
    QFETCH(QByteArray, content);
    QFETCH(QByteArray, message);
    QProcess proc;
    proc.start(daemonPath(), {QStringLiteral("-c"), writeConfig(content)});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QVERIFY(proc.exitCode() != 0);
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(err.contains(message), err.constData());

    // A missing file, too.
    proc.start(daemonPath(), {QStringLiteral("-c"), m_dir.filePath(QStringLiteral("nope.conf"))});
    QVERIFY(proc.waitForFinished(10000));
    QVERIFY(proc.exitCode() != 0);
    QVERIFY(proc.readAllStandardError().contains("nope.conf"));
}

void tst_NamesrvDaemon::portInUseExitsNonZero()
{
    QTcpServer occupier;
    QVERIFY(occupier.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0));
    QProcess proc;
    proc.start(daemonPath(),
        {QStringLiteral("-c"),
            writeConfig("listenAddress=127.0.0.1\nlistenPort="
                + QByteArray::number(occupier.serverPort()) + "\nkvConfigPath="
                + m_dir.filePath(QStringLiteral("kv-busy.json")).toUtf8() + '\n')});
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QVERIFY(proc.exitCode() != 0);
    const QByteArray err = proc.readAllStandardError();
    QVERIFY2(err.contains("cannot listen"), err.constData());
}

void tst_NamesrvDaemon::servesBrokerAndExitsCleanlyOnSigterm()
{
    QROCKET_REQUIRE_VECTORS();
    const quint16 port = testlib::freePort();
    QVERIFY(port != 0);
    const QString kvPath = m_dir.filePath(QStringLiteral("kv-daemon.json"));
    const QString cfg
        = writeConfig("listenAddress=127.0.0.1\nlistenPort=" + QByteArray::number(port)
            + "\nkvConfigPath=" + kvPath.toUtf8() + "\nunknownKeyForTest=1\n");
    for (int round = 0; round < 2; ++round) {
        QProcess proc;
        QVERIFY(startDaemon(proc, cfg, port));
        RawClient broker;
        QVERIFY(broker.connectTo(port));
        broker.sendRaw(recordedBytes(1, "frame_b64")); // REGISTER_BROKER broker-a
        auto resp = broker.readFrame();
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        resp = broker.call(request(105, {{"topic", "TBW102"}}));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->body, recordedBytes(8, "body_b64"));
        if (round == 0) {
            resp = broker.call(request(100, {{"namespace", "NS"}, {"key", "k"}, {"value", "v"}}));
            QCOMPARE(resp->code, 0);
        } else {
            // Persisted across the restart.
            resp = broker.call(request(101, {{"namespace", "NS"}, {"key", "k"}}));
            QCOMPARE(resp->code, 0);
            QCOMPARE(resp->extString("value").toByteArray(), QByteArray("v"));
        }
        proc.terminate(); // SIGTERM
        QVERIFY(proc.waitForFinished(10000));
        QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
        QCOMPARE(proc.exitCode(), 0);
        const QByteArray err = proc.readAllStandardError();
        QVERIFY2(err.contains("unknownKeyForTest"), err.constData());
        QVERIFY2(err.contains("stopped"), err.constData());
    }
}

void tst_NamesrvDaemon::sigintAlsoStops()
{
    const quint16 port = testlib::freePort();
    const QString cfg
        = writeConfig("listenAddress=127.0.0.1\nlistenPort=" + QByteArray::number(port)
            + "\nkvConfigPath=" + m_dir.filePath(QStringLiteral("kv-int.json")).toUtf8() + '\n');
    QProcess proc;
    QVERIFY(startDaemon(proc, cfg, port));
    QVERIFY(::kill(pid_t(proc.processId()), SIGINT) == 0);
    QVERIFY(proc.waitForFinished(10000));
    QCOMPARE(proc.exitStatus(), QProcess::NormalExit);
    QCOMPARE(proc.exitCode(), 0);
}

void tst_NamesrvDaemon::runtimeInfoReportsTheDaemonsMemory()
{
    // Extension 9002: the name server's RSS (RocketMQ's name server has no runtime info), read
    // here beside the daemon's own /proc/<pid>/status.
    QROCKET_REQUIRE_VECTORS();
    const quint16 port = testlib::freePort();
    QVERIFY(port != 0);
    const QString cfg = writeConfig(
        "listenAddress=127.0.0.1\nlistenPort=" + QByteArray::number(port)
        + "\nkvConfigPath=" + m_dir.filePath(QStringLiteral("kv-runtime.json")).toUtf8() + "\n");
    QProcess proc;
    QVERIFY(startDaemon(proc, cfg, port));
    RawClient broker;
    QVERIFY(broker.connectTo(port));
    broker.sendRaw(recordedBytes(1, "frame_b64")); // REGISTER_BROKER broker-a
    QCOMPARE(broker.readFrame()->code, 0);
    auto resp = broker.call(request(protocol::extensioncode::kGetNamesrvRuntimeInfo));
    QVERIFY(resp);
    QCOMPARE(resp->code, 0);
    const QJsonObject table
        = QJsonDocument::fromJson(resp->body)[QLatin1String("table")].toObject();
    auto value
        = [&](const char *key) { return table.value(QLatin1String(key)).toString().toLongLong(); };
    qint64 statusRss = 0;
    QFile status(QStringLiteral("/proc/%1/status").arg(proc.processId()));
    QVERIFY(status.open(QIODevice::ReadOnly));
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            statusRss = line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    const qint64 rss = value("processRssBytes");
    QVERIFY2(rss > 1024 * 1024, resp->body.constData());
    QVERIFY2(std::abs(rss - statusRss) < 16 * 1024 * 1024, resp->body.constData());
    QVERIFY(rss <= value("processPeakRssBytes"));
    QVERIFY(value("topicCount") > 0);
    QCOMPARE(value("brokersLive"), qint64(1));
    QCOMPARE(value("registrationsTotal"), qint64(1));
    QVERIFY(value("bootTimestamp") <= QDateTime::currentMSecsSinceEpoch());
    QVERIFY(table.value(QLatin1String("runtime")).toString().endsWith(QLatin1String("seconds ]")));
    proc.terminate();
    QVERIFY(proc.waitForFinished(10000));
}

QTEST_GUILESS_MAIN(tst_NamesrvDaemon)
#include "tst_namesrvdaemon.moc"
