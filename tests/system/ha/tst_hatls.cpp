// TLS on the HA port, with real qrocket-broker processes on loopback (certificates made at test
// time, tests/testlib/testcerts.h):
// - tls.server.mode=enforcing: a slave with tls.enable=true replicates, a SYNC_MASTER answers
//   SEND_OK through it, and what it acknowledged survives kill -9 of the master; a plain fake
//   slave (the HA wire format on a raw socket) gets not one byte and is closed, while the real
//   slave keeps replicating;
// - permissive: the TLS slave and a plain fake slave are both streamed the log;
// - tls.server.need.client.auth=require: a slave with a certificate signed by the trusted CA
//   replicates; a TLS peer without a certificate gets nothing, and a slave broker without one
//   does not replicate;
// - a TLS slave against a master whose HA port is plain is closed with a message saying so.
// Every wait is bounded.

#include "broker/ha/haprotocol.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/testcerts.h"

#include <QElapsedTimer>
#include <QNetworkProxy>
#include <QRandomGenerator>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

namespace {

/// A plain HA peer: connects to 127.0.0.1:port, reports offset 0 and reads for up to
/// `listenMs` (or until closed). Returns the bytes received; `closed` tells whether the master
/// closed the connection.
std::int64_t plainProbe(quint16 port, int listenMs, bool &closed)
{
    closed = false;
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    sockaddr_in remote {};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&remote), sizeof remote) != 0) {
        ::close(fd);
        return -1;
    }
    char report[broker::ha::kReportSize];
    broker::ha::encodeReport(report, 0);
    std::int64_t received = 0;
    if (::send(fd, report, sizeof report, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof report))
        closed = true;
    QElapsedTimer t;
    t.start();
    char chunk[65536];
    while (!closed && t.elapsed() < listenMs) {
        pollfd p {fd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0)
            continue;
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
            closed = true;
        else if (n > 0)
            received += n;
    }
    ::close(fd);
    return received;
}

} // namespace

class tst_HaTls final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void enforcingReplicatesAndRefusesPlainSlave();
    void syncMasterKilledOverTls();
    void permissiveServesBoth();
    void requiredClientCertificate();
    void tlsSlaveAgainstPlainHaPort();

private:
    struct Pair
    {
        DaemonProcess master {QStringLiteral("qrocket-broker")};
        DaemonProcess slave {QStringLiteral("qrocket-broker")};
        quint16 masterPort = 0;
        quint16 slavePort = 0;
        QString masterStore;
        QString slaveStore;
        QByteArray role = "ASYNC_MASTER";
        QByteArray masterExtra;
        quint16 haPort() const { return static_cast<quint16>(masterPort + 1); }
    };
    QByteArray serverTls(const char *mode, bool requireClientCert = false) const;
    QByteArray slaveTls(bool withCert) const;
    bool startMaster(Pair &p);
    bool startSlave(Pair &p, const QByteArray &extra);
    std::int64_t info(quint16 port, const QByteArray &key)
    {
        return runtimeLong(*m_clientPtr, port, key);
    }
    bool waitCaughtUp(Pair &p, int ms);
    void compareCommitLogs(const Pair &p);

    QTemporaryDir m_dir;
    TestCerts m_certs;
    remoting::RemotingClientOptions m_tlsOptions;
    std::unique_ptr<remoting::RemotingClient> m_tlsClient;
    remoting::RemotingClient m_plainClient; // the slaves' ports are plain
    remoting::RemotingClient *m_clientPtr = nullptr; // the TLS client (initTestCase)
    int m_pairs = 0;
};

QByteArray tst_HaTls::serverTls(const char *mode, bool requireClientCert) const
{
    QByteArray c = QByteArray("tls.server.mode=") + mode
        + "\ntls.config.file=\ntls.server.certPath=" + m_certs.serverCert.toUtf8()
        + "\ntls.server.keyPath=" + m_certs.serverKey.toUtf8() + "\n";
    if (requireClientCert)
        c += "tls.server.need.client.auth=require\ntls.server.trustCertPath="
            + m_certs.caCert.toUtf8() + "\n";
    return c;
}

QByteArray tst_HaTls::slaveTls(bool withCert) const
{
    // The slave's own connections (name server, master's main and HA ports) use TLS.
    QByteArray c = "tls.config.file=\ntls.enable=true\ntls.client.trustCertPath="
        + m_certs.caCert.toUtf8() + "\n";
    if (withCert)
        c += "tls.client.certPath=" + m_certs.clientCert.toUtf8()
            + "\ntls.client.keyPath=" + m_certs.clientKey.toUtf8() + "\n";
    return c;
}

void tst_HaTls::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
    QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend (libssl3)");
    const QString error = generateTestCerts(m_dir.path(), m_certs);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // Every master below serves its main port with TLS too (one tls.server.mode): the test's
    // requests go over TLS, with a client certificate for the masters that require one.
    m_tlsOptions.tls.enable = true;
    m_tlsOptions.tls.configFile.clear();
    m_tlsOptions.tls.clientTrustCertPath = m_certs.caCert;
    m_tlsOptions.tls.clientCertPath = m_certs.clientCert;
    m_tlsOptions.tls.clientKeyPath = m_certs.clientKey;
    m_tlsClient = std::make_unique<remoting::RemotingClient>(m_tlsOptions);
    QVERIFY(m_tlsClient->tlsStatus().isOk());
    m_clientPtr = m_tlsClient.get();
}

bool tst_HaTls::startMaster(Pair &p)
{
    if (p.masterStore.isEmpty()) {
        const QString n = QString::number(++m_pairs);
        p.masterStore = m_dir.filePath(QStringLiteral("m") + n);
        p.slaveStore = m_dir.filePath(QStringLiteral("s") + n);
    }
    return startOnFreePort(p.master, p.masterStore + QStringLiteral(".conf"), p.masterPort,
        [&](quint16 port) { return brokerConf(p.masterStore, port, p.role, 0, p.masterExtra); });
}

bool tst_HaTls::startSlave(Pair &p, const QByteArray &extra)
{
    return startOnFreePort(p.slave, p.slaveStore + QStringLiteral(".conf"), p.slavePort,
        [&](quint16 port) { return brokerConf(p.slaveStore, port, "SLAVE", p.masterPort, extra); });
}

bool tst_HaTls::waitCaughtUp(Pair &p, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        const std::int64_t m = runtimeLong(*m_clientPtr, p.masterPort, "commitLogMaxOffset");
        if (m > 0 && runtimeLong(m_plainClient, p.slavePort, "commitLogMaxOffset") == m)
            return true;
        QTest::qWait(20);
    }
    qWarning() << "slave at" << runtimeLong(m_plainClient, p.slavePort, "commitLogMaxOffset")
               << "master at" << runtimeLong(*m_clientPtr, p.masterPort, "commitLogMaxOffset");
    return false;
}

void tst_HaTls::compareCommitLogs(const Pair &p)
{
    const std::int64_t end = runtimeLong(*m_clientPtr, p.masterPort, "commitLogMaxOffset");
    QVERIFY(end > 0);
    const QByteArray m = readCommitLog(p.masterStore, 0, end);
    QCOMPARE(m.size(), end);
    QVERIFY(readCommitLog(p.slaveStore, 0, end) == m);
}

void tst_HaTls::enforcingReplicatesAndRefusesPlainSlave()
{
    remoting::RemotingClient &client = *m_clientPtr;
    Pair p;
    p.role = "SYNC_MASTER";
    p.masterExtra = serverTls("enforcing");
    QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    QVERIFY2(startSlave(p, slaveTls(false)), qPrintable(p.slave.error()));
    // SYNC_MASTER: SEND_OK only once the TLS slave acknowledged the message.
    QTRY_VERIFY_WITH_TIMEOUT(
        call(client, p.masterPort, sendV2("HaTls", 0, "probe")).code == 0, 15000);
    for (int i = 0; i < 50; ++i)
        QCOMPARE(call(client, p.masterPort, sendV2("HaTls", i % 4, "m-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p);
    QCOMPARE(info(p.masterPort, "haConnectionCount"), 1);
    QVERIFY(info(p.masterPort, "haTlsConnections") >= 1);
    QCOMPARE(runtimeInfo(m_plainClient, p.slavePort)["haMasterConnected"], QByteArray("true"));
    QTRY_VERIFY_WITH_TIMEOUT(p.slave.output().contains("with TLS"), 5000);

    // A plain fake slave: not one byte, closed, counted; the master says why.
    bool closed = false;
    QCOMPARE(plainProbe(p.haPort(), 5000, closed), 0);
    QVERIFY(closed);
    QTRY_COMPARE_WITH_TIMEOUT(info(p.masterPort, "haConnectionsRefusedPlain"), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("tls.server.mode is enforcing"), 5000);

    // The real slave keeps replicating (SYNC_MASTER acknowledgements included).
    for (int i = 0; i < 50; ++i)
        QCOMPARE(call(client, p.masterPort, sendV2("HaTls", i % 4, "after-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p);
    QCOMPARE(info(p.masterPort, "haConnectionCount"), 1);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaTls::syncMasterKilledOverTls()
{
    remoting::RemotingClient &client = *m_clientPtr;
    Pair p;
    p.role = "SYNC_MASTER";
    p.masterExtra = serverTls("enforcing") + "flushDiskType=SYNC_FLUSH\n";
    QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    QVERIFY2(startSlave(p, slaveTls(false)), qPrintable(p.slave.error()));
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("seed %u", seed);
    QRandomGenerator rng(seed);
    std::int64_t totalAcked = 0;
    for (int cycle = 0; cycle < 3; ++cycle) {
        QTRY_VERIFY_WITH_TIMEOUT(
            call(client, p.masterPort, sendV2("HaTlsSync", 0, "probe")).code == 0, 15000);
        Producer producer(
            p.masterPort, "HaTlsSync", "c" + QByteArray::number(cycle), 4, 200, m_tlsOptions);
        QTRY_VERIFY_WITH_TIMEOUT(producer.ackedCount() > 20, 10000);
        QTest::qWait(static_cast<int>(rng.bounded(50, 400)));
        p.master.kill(); // SIGKILL, sends in flight
        producer.stop();
        const std::vector<Acked> acked = producer.acked();
        totalAcked += static_cast<std::int64_t>(acked.size());
        const std::int64_t slaveEnd = runtimeLong(m_plainClient, p.slavePort, "commitLogMaxOffset");
        QVERIFY(slaveEnd > 0);
        for (const Acked &a : acked) {
            QVERIFY2(a.offset < slaveEnd,
                qPrintable(
                    QStringLiteral("acked at %1, slave ends at %2").arg(a.offset).arg(slaveEnd)));
            const QByteArray head = readCommitLog(p.slaveStore, a.offset, a.offset + 4);
            QCOMPARE(head.size(), 4);
            const QByteArray rec
                = readCommitLog(p.slaveStore, a.offset, a.offset + readI32(head.constData()));
            protocol::MessageRecordView v;
            QCOMPARE(protocol::decodeRecord(rec, v, true).status, protocol::RecordStatus::Ok);
            QCOMPARE(QByteArray(v.body.toByteArray()), a.body);
        }
        QVERIFY(
            readCommitLog(p.slaveStore, 0, slaveEnd) == readCommitLog(p.masterStore, 0, slaveEnd));
        QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    }
    qInfo("acknowledged sends checked on the slave: %lld", static_cast<long long>(totalAcked));
    QVERIFY(totalAcked > 60);
    QVERIFY(waitCaughtUp(p, 20000));
    compareCommitLogs(p);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaTls::permissiveServesBoth()
{
    remoting::RemotingClient &client = *m_clientPtr;
    Pair p;
    p.masterExtra = serverTls("permissive");
    QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    QVERIFY2(startSlave(p, slaveTls(false)), qPrintable(p.slave.error()));
    for (int i = 0; i < 30; ++i)
        QCOMPARE(call(client, p.masterPort, sendV2("HaTlsP", 0, "m-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p);
    QVERIFY(info(p.masterPort, "haTlsConnections") >= 1);
    // A plain peer is streamed the log too (and closes it itself).
    bool closed = false;
    QVERIFY(plainProbe(p.haPort(), 2000, closed) > 0);
    QVERIFY(!closed);
    QCOMPARE(info(p.masterPort, "haConnectionsRefusedPlain"), 0);
    for (int i = 0; i < 30; ++i)
        QCOMPARE(call(client, p.masterPort, sendV2("HaTlsP", 0, "after-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaTls::requiredClientCertificate()
{
    remoting::RemotingClient &client = *m_clientPtr;
    Pair p;
    p.role = "SYNC_MASTER";
    p.masterExtra = serverTls("enforcing", true);
    QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    QVERIFY2(startSlave(p, slaveTls(true)), qPrintable(p.slave.error()));
    QTRY_VERIFY_WITH_TIMEOUT(
        call(client, p.masterPort, sendV2("HaTlsC", 0, "probe")).code == 0, 15000);
    for (int i = 0; i < 30; ++i)
        QCOMPARE(call(client, p.masterPort, sendV2("HaTlsC", 0, "m-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p);

    // A TLS peer trusting the master, without a certificate: the handshake fails (TLS 1.2) or
    // the master rejects the empty certificate right after it (TLS 1.3). Either way its offset
    // report is never read and not one byte of the log comes back.
    QSslSocket peer;
    peer.setProxy(QNetworkProxy::NoProxy);
    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setCaCertificates(QSslCertificate::fromPath(m_certs.caCert));
    peer.setSslConfiguration(config);
    peer.connectToHostEncrypted(QStringLiteral("127.0.0.1"), p.haPort());
    if (peer.waitForEncrypted(5000)) {
        char report[broker::ha::kReportSize];
        broker::ha::encodeReport(report, 0);
        peer.write(report, sizeof report);
    }
    QByteArray got;
    QElapsedTimer t;
    t.start();
    while (peer.state() == QAbstractSocket::ConnectedState && t.elapsed() < 5000) {
        peer.waitForReadyRead(100);
        got += peer.readAll();
    }
    got += peer.readAll();
    QCOMPARE(got.size(), 0);
    QVERIFY(peer.state() != QAbstractSocket::ConnectedState);
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("TLS handshake failed"), 5000);
    QCOMPARE(info(p.masterPort, "haConnectionCount"), 1);
    QCOMPARE(call(client, p.masterPort, sendV2("HaTlsC", 0, "still")).code, 0);

    // A slave broker without a certificate does not replicate (its master connection to the
    // main port fails too: the same tls.server.need.client.auth).
    DaemonProcess bare {QStringLiteral("qrocket-broker")};
    quint16 barePort = 0;
    const QString bareStore = m_dir.filePath(QStringLiteral("bare"));
    QVERIFY2(startOnFreePort(bare, bareStore + QStringLiteral(".conf"), barePort,
                 [&](quint16 port) {
                     return brokerConf(
                         bareStore, port, "SLAVE", p.masterPort, slaveTls(false) + "brokerId=2\n");
                 }),
        qPrintable(bare.error()));
    // The master refuses it at the handshake (the slave may only see the connection closed:
    // with TLS 1.3 its side of the handshake ends before the master checks the certificate).
    // It retries every second: refused twice, it still has nothing.
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().count("TLS handshake failed") >= 3, 15000);
    QCOMPARE(runtimeLong(m_plainClient, barePort, "commitLogMaxOffset"), 0);
    QCOMPARE(bare.stop(), 0);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaTls::tlsSlaveAgainstPlainHaPort()
{
    Pair p;
    QVERIFY2(startMaster(p), qPrintable(p.master.error()));
    QVERIFY2(startSlave(p, slaveTls(false)), qPrintable(p.slave.error()));
    QTRY_VERIFY_WITH_TIMEOUT(
        p.master.output().contains("starts a TLS handshake but tls.server.mode is disabled"),
        10000);
    QCOMPARE(runtimeLong(m_plainClient, p.masterPort, "haConnectionCount"), 0);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_HaTls)
#include "tst_hatls.moc"
