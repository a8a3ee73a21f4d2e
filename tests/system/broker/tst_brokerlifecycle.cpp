// qrocket-broker as a real process across stop and restart: a long-poll pull held when SIGTERM
// arrives (RocketMQ's PullRequestHoldService.shutdown drops held pulls unanswered and the server
// closes their connections: the broker exits cleanly, without a crash or a leak, and the client's
// pull fails at once instead of at its timeout), and UPDATE_BROKER_CONFIG persisted to the -c
// file so that the restarted broker has it.

#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

class tst_BrokerLifecycle final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void heldPullAtSigterm();
    void updatedConfigSurvivesRestart();

private:
    QByteArray brokerConf(const QString &store, quint16 port) const;
    bool startBroker(DaemonProcess &broker, const QString &store, quint16 &port,
        const QString &confPath, const QByteArray &conf = {});
    RemotingCommand call(quint16 port, RemotingCommand req);
    static void verifyCleanExit(DaemonProcess &broker);

    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
};

QByteArray tst_BrokerLifecycle::brokerConf(const QString &store, quint16 port) const
{
    return "brokerName=broker-life\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nstorePathRootDir=" + store.toUtf8()
        + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
}

bool tst_BrokerLifecycle::startBroker(DaemonProcess &broker, const QString &store, quint16 &port,
    const QString &confPath, const QByteArray &conf)
{
    // An existing file (a restart) is used as it is, as an operator's -c file would be.
    return startOnFreePort(broker, confPath, port,
        [&](quint16 p) { return conf.isEmpty() ? brokerConf(store, p) : conf; });
}

RemotingCommand tst_BrokerLifecycle::call(quint16 port, RemotingCommand req)
{
    return invoke(m_client, localAddr(port), std::move(req));
}

void tst_BrokerLifecycle::verifyCleanExit(DaemonProcess &broker)
{
    const QByteArray out = broker.output();
    for (const char *bad :
        {"AddressSanitizer", "LeakSanitizer", "runtime error:", "ThreadSanitizer"})
        QVERIFY2(!out.contains(bad), out.right(4000).constData());
}

void tst_BrokerLifecycle::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
}

void tst_BrokerLifecycle::heldPullAtSigterm()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(startBroker(broker, m_dir.filePath(QStringLiteral("held")), port,
        m_dir.filePath(QStringLiteral("held.conf"))));
    const QByteArray addr = localAddr(port);
    QCOMPARE(call(port, sendV2("HeldTopic", 0, "m0")).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(call(port, request(30, {{"topic", "HeldTopic"}, {"queueId", "0"}}))
                                  .extLong("offset")
                                  .value_or(-1),
        1, 5000);

    // Two pulls at the end of the queue with SUSPEND (sysFlag 2|4), held for up to 30 s.
    std::atomic<int> answered {0};
    std::atomic<int> failed {0};
    std::atomic<std::int64_t> lastFailureAt {0};
    for (int q = 0; q < 2; ++q) {
        m_client.invokeAsync(addr,
            request(11,
                {{"consumerGroup", "G_held"}, {"topic", "HeldTopic"}, {"queueId", "0"},
                    {"queueOffset", "1"}, {"maxMsgNums", "32"}, {"sysFlag", "6"},
                    {"commitOffset", "-1"}, {"suspendTimeoutMillis", "30000"},
                    {"subscription", "*"}, {"subVersion", "0"}}),
            40000, [&](Result<RemotingCommand> r) {
                if (r) {
                    ++answered;
                } else {
                    lastFailureAt = QDateTime::currentMSecsSinceEpoch();
                    ++failed;
                }
            });
    }
    // A request after them on the same connection is answered: the broker has read both pulls
    // (parked by now, or about to be: either way the stop below must cope). Nothing arrives for
    // their queue, so they stay unanswered.
    QCOMPARE(call(port, request(28)).code, 0);
    QCOMPARE(answered.load(), 0);

    const std::int64_t stopAt = QDateTime::currentMSecsSinceEpoch();
    QCOMPARE(broker.stop(), 0);
    QVERIFY2(QDateTime::currentMSecsSinceEpoch() - stopAt < 10000, "slow stop with held pulls");
    // Dropped unanswered; the closed connection fails them long before their 30 s.
    QTRY_COMPARE_WITH_TIMEOUT(failed.load(), 2, 10000);
    QVERIFY(lastFailureAt.load() - stopAt < 10000);
    QCOMPARE(answered.load(), 0);
    verifyCleanExit(broker);
}

void tst_BrokerLifecycle::updatedConfigSurvivesRestart()
{
    const QString store = m_dir.filePath(QStringLiteral("restart"));
    const QString conf = m_dir.filePath(QStringLiteral("restart.conf"));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(startBroker(broker, store, port, conf));
    QCOMPARE(call(port,
                 request(25, {},
                     "defaultTopicQueueNums=2\nregionId=LifeRegion\n"
                     "fileReservedTime=120\n"))
                 .code,
        0);
    QCOMPARE(broker.stop(), 0);
    verifyCleanExit(broker);

    // The -c file now holds the whole configuration, the update included; start from it as is.
    QFile f(conf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray persisted = f.readAll();
    f.close();
    QVERIFY(persisted.contains("\nregionId=LifeRegion\n"));
    QVERIFY(persisted.contains("listenPort=" + QByteArray::number(port) + '\n'));
    // The same port first; when something else took it (or its +1 / -2 neighbours, which the
    // broker also binds) since the stop, as parallel tests on a busy machine do, the next free
    // one: the configuration surviving is the point here, not the port.
    DaemonProcess again(QStringLiteral("qrocket-broker"));
    const QByteArray portLine = "listenPort=" + QByteArray::number(port) + '\n';
    QVERIFY2(startOnFreePort(again, conf, port,
                 [&](quint16 p) {
                     QByteArray c = persisted;
                     return c.replace(portLine, "listenPort=" + QByteArray::number(p) + '\n');
                 }),
        qPrintable(again.error()));
    const RemotingCommand get = call(port, request(26));
    QCOMPARE(get.code, 0);
    for (const char *line :
        {"\ndefaultTopicQueueNums=2\n", "\nregionId=LifeRegion\n", "\nfileReservedTime=120\n"})
        QVERIFY2(('\n' + get.body).contains(line), line);
    QCOMPARE(again.stop(), 0);
    verifyCleanExit(again);
}

QTEST_GUILESS_MAIN(tst_BrokerLifecycle)
#include "tst_brokerlifecycle.moc"
