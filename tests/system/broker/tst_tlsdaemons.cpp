// qrocket-namesrv and qrocket-broker as real processes with tls.server.mode=enforcing: the broker
// registers with the name server over TLS (tls.enable), a plain client is refused by both (no
// frame answered), a raw QSslSocket gets GET_BROKER_RUNTIME_INFO answered, and the client
// library (Producer, LitePullConsumer) sends and pulls a message over TLS. Certificates are made
// at test time (tests/testlib/testcerts.h).

#include "clientlib/client/litepullconsumer.h"
#include "clientlib/client/producer.h"
#include "clientlib/protocol/framecodec.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/testcerts.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QNetworkProxy>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

namespace {

constexpr int kGetBrokerRuntimeInfo = 28;
constexpr int kGetRouteInfoByTopic = 105;

/// Sends `request` on `socket` and reads one frame back within timeoutMs.
bool exchange(
    QTcpSocket &socket, const RemotingCommand &request, RemotingCommand &response, int timeoutMs)
{
    socket.write(protocol::encodeFrame(request));
    QByteArray in;
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        in.append(socket.readAll());
        const auto result = protocol::decodeFrame(in, response);
        if (result.status == protocol::DecodeStatus::Ok)
            return true;
        if (result.status == protocol::DecodeStatus::Invalid)
            return false;
        const qint64 left = timeoutMs - timer.elapsed();
        if (left <= 0 || !socket.waitForReadyRead(static_cast<int>(left)))
            return false;
    }
}

} // namespace

class tst_TlsDaemons final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void plainClientsAreRefused();
    void rawTlsFrameIsAnswered();
    void libraryClientSendsAndPullsOverTls();
    void consoleConnectsWithTls();

private:
    QByteArray serverTls() const;
    client::ClientConfig clientConfig() const;

    QTemporaryDir m_dir;
    TestCerts m_certs;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    quint16 m_namesrvPort = 0;
    quint16 m_brokerPort = 0;
};

QByteArray tst_TlsDaemons::serverTls() const
{
    return "tls.server.mode=enforcing\ntls.config.file=\ntls.server.certPath="
        + m_certs.serverCert.toUtf8() + "\ntls.server.keyPath=" + m_certs.serverKey.toUtf8() + "\n";
}

client::ClientConfig tst_TlsDaemons::clientConfig() const
{
    client::ClientConfig config;
    config.namesrvAddr = localAddr(m_namesrvPort);
    config.tls.enable = true;
    config.tls.configFile.clear();
    config.tls.clientTrustCertPath = m_certs.caCert;
    return config;
}

void tst_TlsDaemons::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend (libssl3)");
    const QString error = generateTestCerts(m_dir.path(), m_certs);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QString dir = m_dir.path();
    QVERIFY2(startOnFreePort(m_namesrv, QDir(dir).filePath(QStringLiteral("namesrv.conf")),
                 m_namesrvPort,
                 [&](quint16 port) {
                     return "listenPort=" + QByteArray::number(port) + "\nkvConfigPath="
                         + QDir(dir).filePath(QStringLiteral("kvConfig.json")).toUtf8() + "\n"
                         + serverTls();
                 }),
        qPrintable(m_namesrv.error()));
    QVERIFY2(
        startOnFreePort(m_broker, QDir(dir).filePath(QStringLiteral("broker.conf")), m_brokerPort,
            [&](quint16 port) {
                return "brokerName=broker-tls\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"
                       "listenPort="
                    + QByteArray::number(port) + "\nnamesrvAddr=" + localAddr(m_namesrvPort)
                    + "\nstorePathRootDir=" + QDir(dir).filePath(QStringLiteral("store")).toUtf8()
                    + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n"
                      "tls.enable=true\ntls.client.trustCertPath="
                    + m_certs.caCert.toUtf8() + "\n" + serverTls();
            }),
        qPrintable(m_broker.error()));
}

void tst_TlsDaemons::cleanupTestCase()
{
    for (DaemonProcess *daemon : {&m_broker, &m_namesrv}) {
        if (!daemon->isRunning())
            continue; // initTestCase failed and said why
        const QByteArray out = daemon->output();
        QCOMPARE(daemon->stop(), 0);
        for (const char *bad : {"AddressSanitizer", "runtime error:", "ThreadSanitizer"})
            QVERIFY2(!out.contains(bad), out.right(4000).constData());
    }
}

void tst_TlsDaemons::plainClientsAreRefused()
{
    for (const quint16 port : {m_namesrvPort, m_brokerPort}) {
        QTcpSocket plain;
        plain.setProxy(QNetworkProxy::NoProxy);
        plain.connectToHost(QHostAddress::LocalHost, port);
        QVERIFY(plain.waitForConnected(5000));
        RemotingCommand response;
        QVERIFY(!exchange(plain, request(kGetBrokerRuntimeInfo), response, 5000));
        QTRY_COMPARE_WITH_TIMEOUT(plain.state(), QAbstractSocket::UnconnectedState, 5000);
    }
    for (DaemonProcess *daemon : {&m_namesrv, &m_broker})
        QTRY_VERIFY_WITH_TIMEOUT(daemon->output().contains("tls.server.mode is enforcing"), 5000);
}

void tst_TlsDaemons::rawTlsFrameIsAnswered()
{
    QSslSocket socket;
    socket.setProxy(QNetworkProxy::NoProxy);
    QSslConfiguration config = socket.sslConfiguration();
    config.setCaCertificates(QSslCertificate::fromPath(m_certs.caCert));
    socket.setSslConfiguration(config);
    socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_brokerPort);
    QVERIFY2(socket.waitForEncrypted(10000), qPrintable(socket.errorString()));
    RemotingCommand response;
    QVERIFY(exchange(socket, request(kGetBrokerRuntimeInfo), response, 15000));
    QCOMPARE(response.code, 0);
    // The refusals of the plain test are counted in the runtime info.
    QVERIFY2(
        response.body.contains("\"remotingClosedPlainRefused\":\"1\""), response.body.constData());
    QVERIFY(response.body.contains("remotingTlsConnections"));

    // The name server answers over TLS too, with the broker's route: it registered over TLS.
    QSslSocket ns;
    ns.setProxy(QNetworkProxy::NoProxy);
    ns.setSslConfiguration(config);
    ns.connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_namesrvPort);
    QVERIFY2(ns.waitForEncrypted(10000), qPrintable(ns.errorString()));
    QTRY_VERIFY_WITH_TIMEOUT(
        exchange(ns, request(kGetRouteInfoByTopic, {{"topic", "broker-tls"}}), response, 5000)
            && response.code == 0 && response.body.contains("broker-tls"),
        15000);
}

void tst_TlsDaemons::libraryClientSendsAndPullsOverTls()
{
    client::ProducerOptions po;
    po.group = "tls-producer";
    po.client = clientConfig();
    client::Producer producer(po);
    QVERIFY(producer.start());
    Result<client::SendResult> sent = producer.sendSync(client::Message("TlsTopic", "over tls"));
    QVERIFY2(sent, qPrintable(sent.status().toString()));

    client::LitePullConsumerOptions co;
    co.group = "tls-consumer";
    co.client = clientConfig();
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    client::LitePullConsumer consumer(co);
    QVERIFY(consumer.subscribe("TlsTopic"));
    QVERIFY(consumer.start());
    std::vector<client::MessageExt> got;
    QElapsedTimer timer;
    timer.start();
    while (got.empty() && timer.elapsed() < 30000)
        got = consumer.poll(1000);
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got.front().body(), QByteArray("over tls"));
    consumer.shutdown();
    producer.shutdown();

    // The same producer without TLS gets nothing from the enforcing name server.
    client::ProducerOptions plain = po;
    plain.group = "plain-producer";
    plain.client.tls = remoting::TlsSettings();
    plain.client.mqClientApiTimeout = 2000;
    client::Producer refused(plain);
    QVERIFY(refused.start());
    QVERIFY(!refused.sendSync(client::Message("TlsTopic", "plain")));
    refused.shutdown();
}

void tst_TlsDaemons::consoleConnectsWithTls()
{
    const QString console = QDir(binDir()).filePath(QStringLiteral("qrocket-console"));
    if (!QFileInfo::exists(console))
        QSKIP("qrocket-console is not built (QROCKET_BUILD_CONSOLE=OFF)");
    // --screenshot exits 0 once the cluster view has its brokers, non-zero at its timeout.
    const QString png = m_dir.filePath(QStringLiteral("cluster.png"));
    const QString addr = QString::fromLatin1(localAddr(m_namesrvPort));
    const auto [code, out] = runProgram(console,
        {QStringLiteral("-n"), addr, QStringLiteral("--tls"), QStringLiteral("--tlsTrustCert"),
            m_certs.caCert, QStringLiteral("--screenshot"), png, QStringLiteral("--timeout"),
            QStringLiteral("30")},
        60000);
    QVERIFY2(code == 0, out.constData());
    QVERIFY(QFileInfo(png).size() > 0);
    const auto [plainCode, plainOut] = runProgram(console,
        {QStringLiteral("-n"), addr, QStringLiteral("--screenshot"),
            m_dir.filePath(QStringLiteral("plain.png")), QStringLiteral("--timeout"),
            QStringLiteral("3")},
        30000);
    QVERIFY2(plainCode != 0, plainOut.constData());
}

QTEST_GUILESS_MAIN(tst_TlsDaemons)
#include "tst_tlsdaemons.moc"
