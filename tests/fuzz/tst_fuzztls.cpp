// The TLS sniffing path of the remoting server under mutated input: a real TLS ClientHello
// (captured at test time from a QSslSocket), a plain frame and bare handshake-record headers,
// mutated with the bounded fuzzers' Mutator and sent over loopback to a permissive server, twenty
// connections at a time, each aborted after its bytes (hostile first bytes, truncated and
// corrupted handshakes, silent peers). Afterwards the server still serves a TLS and a plain
// client and holds no connection.

#include "mutator.h"
#include "tests/testlib/testcerts.h"
#include "tests/unit/remoting/remotingtestutil.h"

#include <QCoreApplication>
#include <QSslSocket>
#include <QTcpServer>
#include <QTemporaryDir>

#include <memory>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::remoting::test;

namespace {

constexpr const char *kTlsTokens[] = {"\x16\x03\x01", "\x16\x03\x03", "\x16", "\x15\x03\x03",
    "\x17\x03\x03", "\x80", "\xff\xff", "\x01\x02"};
constexpr int kBatch = 20;

} // namespace

class tst_FuzzTls final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    testlib::TestCerts m_certs;
    std::vector<QByteArray> m_seeds;
    int m_iterations = 0;
    quint32 m_seed = 0;

    /// The first bytes a QSslSocket sends: its ClientHello record.
    QByteArray captureClientHello()
    {
        QTcpServer listener;
        if (!listener.listen(QHostAddress::LocalHost))
            return {};
        QSslSocket client;
        client.setProxy(QNetworkProxy::NoProxy);
        client.setPeerVerifyMode(QSslSocket::VerifyNone);
        client.connectToHostEncrypted(QStringLiteral("127.0.0.1"), listener.serverPort());
        if (!client.waitForConnected(5000) || !listener.waitForNewConnection(5000))
            return {};
        std::unique_ptr<QTcpSocket> accepted(listener.nextPendingConnection());
        QByteArray hello;
        for (int i = 0; i < 100 && hello.size() < 5; ++i) { // bounded: 100 x 50 ms at most
            QCoreApplication::processEvents(); // the client writes its ClientHello
            client.flush();
            accepted->waitForReadyRead(50);
            hello += accepted->readAll();
        }
        return hello;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend (libssl3)");
        const QString error = testlib::generateTestCerts(m_dir.path(), m_certs);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // Sockets are dear: a sanitizer build's large QROCKET_FUZZ_ITERATIONS is capped.
        const auto budget = fuzz::FuzzBudget::fromEnvironment(600, 20261203);
        m_iterations = std::min(budget.iterations, 2000);
        m_seed = budget.seed;
        const QByteArray hello = captureClientHello();
        QVERIFY2(hello.size() > 5 && hello[0] == '\x16', hello.toHex().constData());
        m_seeds = {hello, protocol::encodeFrame(makeRequest(kEchoCode, "x")), QByteArray("\x16", 1),
            QByteArray("\x16\x03\x01\x00\x00", 5), hello.left(5), hello.left(hello.size() / 2)};
        qInfo("seed %u, %d mutants, ClientHello of %lld bytes", m_seed, m_iterations,
            static_cast<long long>(hello.size()));
    }

    void mutatedHandshakes()
    {
        RemotingServer::Options options = loopbackServerOptions();
        options.tls.configFile.clear();
        options.tls.serverMode = QStringLiteral("permissive");
        options.tls.serverCertPath = m_certs.serverCert;
        options.tls.serverKeyPath = m_certs.serverKey;
        options.connection.frameTimeout = std::chrono::milliseconds(300);
        options.connection.idleTimeout = std::chrono::milliseconds(600);
        RemotingServer server(options);
        server.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
        QVERIFY(server.start());

        fuzz::Mutator mutator(m_seed, kTlsTokens);
        for (int done = 0; done < m_iterations;) {
            std::vector<std::unique_ptr<QTcpSocket>> batch;
            for (int i = 0; i < kBatch && done < m_iterations; ++i, ++done) {
                auto socket = std::make_unique<QTcpSocket>();
                socket->setProxy(QNetworkProxy::NoProxy);
                socket->connectToHost(QHostAddress::LocalHost, server.serverPort());
                QVERIFY(socket->waitForConnected(5000));
                const QByteArray &seed = m_seeds[mutator.bounded(quint32(m_seeds.size()))];
                socket->write(mutator.mutate(seed, m_seeds));
                socket->flush();
                batch.push_back(std::move(socket));
            }
            // Give the server a moment with the batch (bounded), then drop every peer.
            batch.back()->waitForReadyRead(20);
            for (auto &socket : batch)
                socket->abort();
        }

        RemotingClient::Options tlsOptions;
        tlsOptions.tls.configFile.clear();
        tlsOptions.tls.enable = true;
        tlsOptions.tls.clientTrustCertPath = m_certs.caCert;
        RemotingClient tlsClient(tlsOptions);
        RemotingClient plainClient;
        for (RemotingClient *client : {&tlsClient, &plainClient}) {
            const auto r
                = client->invokeSync(addressOf(server), makeRequest(kEchoCode, "alive"), 5000);
            QVERIFY2(r, qPrintable(r.status().toString()));
            QCOMPARE(r->body, QByteArray("alive"));
        }
        tlsClient.shutdown();
        plainClient.shutdown();
        QTRY_COMPARE_WITH_TIMEOUT(server.connectionCount(), 0, 10000);
        const RemotingServerStats stats = server.stats();
        qInfo("TLS handshakes started %lld, failed %lld",
            static_cast<long long>(stats.tlsConnections),
            static_cast<long long>(stats.closedTlsFailed));
        QVERIFY(stats.tlsConnections > 0);
    }
};

QTEST_GUILESS_MAIN(tst_FuzzTls)
#include "tst_fuzztls.moc"
