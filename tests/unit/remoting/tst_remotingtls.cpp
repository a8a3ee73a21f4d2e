// TLS on the remoting server and client (tls.server.mode, first-byte sniffing, client and server
// certificates, reloads), over loopback with certificates made at test time (testcerts.h).

#include "remotingtestutil.h"
#include "tests/testlib/testcerts.h"

#include <QFile>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QThread>

#include <memory>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::remoting::test;

namespace {

/// Reads one frame from `socket` within timeoutMs (false: closed, invalid or nothing).
bool readFrame(QTcpSocket &socket, QByteArray &buffer, RemotingCommand &out, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    for (;;) {
        buffer.append(socket.readAll());
        const auto result = protocol::decodeFrame(buffer, out);
        if (result.status == protocol::DecodeStatus::Ok) {
            buffer.remove(0, result.consumed);
            return true;
        }
        if (result.status == protocol::DecodeStatus::Invalid)
            return false;
        const qint64 left = timeoutMs - timer.elapsed();
        if (left <= 0 || !socket.waitForReadyRead(static_cast<int>(left)))
            return false;
    }
}

/// True when the server closed `socket` within timeoutMs without answering a frame (a TLS alert
/// may come first).
bool closedWithoutAnswer(QTcpSocket &socket, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    QByteArray received;
    while (socket.state() == QAbstractSocket::ConnectedState && timer.elapsed() < timeoutMs) {
        socket.waitForReadyRead(50);
        received += socket.readAll();
    }
    received += socket.readAll();
    RemotingCommand frame;
    return socket.state() != QAbstractSocket::ConnectedState
        && protocol::decodeFrame(received, frame).status != protocol::DecodeStatus::Ok;
}

/// Holds every request's Responder until answerAll().
class HoldingProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand, Responder respond) override
    {
        std::lock_guard lock(m_mutex);
        m_held.push_back(std::move(respond));
        m_maxHeld = std::max(m_maxHeld, static_cast<int>(m_held.size()));
    }
    int maxHeld() const
    {
        std::lock_guard lock(m_mutex);
        return m_maxHeld;
    }
    void answerAll()
    {
        std::vector<Responder> held;
        {
            std::lock_guard lock(m_mutex);
            held.swap(m_held);
        }
        for (Responder &respond : held)
            respond(RemotingCommand());
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Responder> m_held;
    int m_maxHeld = 0;
};

} // namespace

class tst_RemotingTls final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    testlib::TestCerts m_certs;

    TlsSettings serverTls(const QString &mode) const
    {
        TlsSettings tls;
        tls.configFile.clear(); // hermetic: never /etc/rocketmq/tls.properties
        tls.serverMode = mode;
        tls.serverCertPath = m_certs.serverCert;
        tls.serverKeyPath = m_certs.serverKey;
        return tls;
    }
    TlsSettings clientTls() const
    {
        TlsSettings tls;
        tls.configFile.clear();
        tls.enable = true;
        tls.clientTrustCertPath = m_certs.caCert;
        return tls;
    }
    std::unique_ptr<RemotingServer> startServer(const TlsSettings &tls,
        std::chrono::milliseconds idle = std::chrono::milliseconds(120'000),
        std::chrono::milliseconds frame = std::chrono::milliseconds(60'000))
    {
        RemotingServer::Options options = loopbackServerOptions();
        options.tls = tls;
        options.connection.idleTimeout = idle;
        options.connection.frameTimeout = frame;
        auto server = std::make_unique<RemotingServer>(options);
        server->registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
        if (Status st = server->start(); !st) {
            qWarning("start: %s", qPrintable(st.toString()));
            return nullptr;
        }
        return server;
    }
    static Result<RemotingCommand> echo(RemotingClient &client, const RemotingServer &server)
    {
        return client.invokeSync(addressOf(server), makeRequest(kEchoCode, "ping"), 5000);
    }
    static std::unique_ptr<RemotingClient> makeClient(const TlsSettings &tls)
    {
        RemotingClient::Options options;
        options.tls = tls;
        return std::make_unique<RemotingClient>(options);
    }
    std::unique_ptr<QSslSocket> rawTlsSocket(quint16 port) const
    {
        auto socket = std::make_unique<QSslSocket>();
        socket->setProxy(QNetworkProxy::NoProxy);
        QSslConfiguration config = socket->sslConfiguration();
        config.setCaCertificates(QSslCertificate::fromPath(m_certs.caCert));
        socket->setSslConfiguration(config);
        socket->connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
        return socket;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QSslSocket::supportsSsl(), "Qt has no TLS backend (libssl3)");
        const QString error = testlib::generateTestCerts(m_dir.path(), m_certs);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void enforcingRefusesPlainClients()
    {
        auto server = startServer(serverTls(QStringLiteral("enforcing")));
        QVERIFY(server);
        RawPeer plain;
        QVERIFY(plain.connectTo(server->serverPort()));
        plain.send(makeRequest(kEchoCode, "plain"));
        QVERIFY(closedWithoutAnswer(plain.socket(), 5000));
        QTRY_COMPARE_WITH_TIMEOUT(server->stats().closedPlainRefused, 1, 5000);
        // The library's plain client gets Unavailable, the TLS one is served by the same server.
        auto plainClient = makeClient(TlsSettings());
        const auto refused = echo(*plainClient, *server);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), Status::Code::Unavailable);
        QVERIFY2(refused.error().message().contains(QLatin1String("tls.server.mode=enforcing")),
            qPrintable(refused.error().message())); // the hint
        auto tlsClient = makeClient(clientTls());
        const auto answered = echo(*tlsClient, *server);
        QVERIFY2(answered, qPrintable(answered.status().toString()));
        QCOMPARE(answered->body, QByteArray("ping"));
        QCOMPARE(server->stats().tlsConnections, 1);
    }

    void enforcingServesRawTlsFrames()
    {
        auto server = startServer(serverTls(QStringLiteral("enforcing")));
        QVERIFY(server);
        auto socket = rawTlsSocket(server->serverPort());
        QVERIFY2(socket->waitForEncrypted(5000), qPrintable(socket->errorString()));
        RemotingCommand request = makeRequest(kEchoCode, "raw");
        request.setExt(QByteArrayLiteral("seq"), QByteArrayLiteral("7"));
        socket->write(protocol::encodeFrame(request));
        QByteArray buffer;
        RemotingCommand response;
        QVERIFY(readFrame(*socket, buffer, response, 5000));
        QVERIFY(response.isResponse());
        QCOMPARE(response.body, QByteArray("raw"));
        QCOMPARE(*response.ext("seq"), QByteArray("7"));
    }

    void permissiveServesBoth()
    {
        auto server = startServer(serverTls(QStringLiteral("permissive")));
        QVERIFY(server);
        auto plainClient = makeClient(TlsSettings());
        auto tlsClient = makeClient(clientTls());
        for (int i = 0; i < 3; ++i) {
            const auto plain = echo(*plainClient, *server);
            QVERIFY2(plain, qPrintable(plain.status().toString()));
            const auto tls = echo(*tlsClient, *server);
            QVERIFY2(tls, qPrintable(tls.status().toString()));
        }
        QCOMPARE(server->stats().tlsConnections, 1);
        QCOMPARE(server->stats().connections, 2);
    }

    void disabledNeverStartsTls()
    {
        auto server = startServer(serverTls(QStringLiteral("disabled")));
        QVERIFY(server);
        auto tlsClient = makeClient(clientTls());
        const auto refused = echo(*tlsClient, *server);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), Status::Code::Unavailable);
        auto plainClient = makeClient(TlsSettings());
        QVERIFY(echo(*plainClient, *server));
        QCOMPARE(server->stats().tlsConnections, 0);
    }

    void requiredClientCertificate()
    {
        TlsSettings tls = serverTls(QStringLiteral("enforcing"));
        tls.serverNeedClientAuth = QStringLiteral("require");
        tls.serverTrustCertPath = m_certs.caCert;
        auto server = startServer(tls);
        QVERIFY(server);
        auto anonymous = makeClient(clientTls());
        const auto refused = echo(*anonymous, *server);
        QVERIFY(!refused);
        QTRY_VERIFY_WITH_TIMEOUT(server->stats().closedTlsFailed >= 1, 5000);
        TlsSettings withCert = clientTls();
        withCert.clientCertPath = m_certs.clientCert;
        withCert.clientKeyPath = m_certs.clientKey;
        auto identified = makeClient(withCert);
        const auto answered = echo(*identified, *server);
        QVERIFY2(answered, qPrintable(answered.status().toString()));
        // A certificate from another CA is refused as well.
        TlsSettings rogue = clientTls();
        rogue.clientCertPath = m_certs.rogueCert;
        rogue.clientKeyPath = m_certs.rogueKey;
        auto impostor = makeClient(rogue);
        QVERIFY(!echo(*impostor, *server));
    }

    void untrustedServerCertificateIsReported()
    {
        TlsSettings tls = serverTls(QStringLiteral("enforcing"));
        tls.serverCertPath = m_certs.rogueCert;
        tls.serverKeyPath = m_certs.rogueKey;
        auto server = startServer(tls);
        QVERIFY(server);
        auto client = makeClient(clientTls());
        const auto refused = echo(*client, *server);
        QVERIFY(!refused);
        QCOMPARE(refused.error().code(), Status::Code::Unavailable);
        QVERIFY2(refused.error().message().contains(QLatin1String("TLS handshake failed"))
                && refused.error().message().contains(QLatin1String("self-signed")),
            qPrintable(refused.error().message()));
        // tls.client.authServer=false: no verification (RocketMQ's default), served.
        TlsSettings insecure = clientTls();
        insecure.clientAuthServer = false;
        auto trusting = makeClient(insecure);
        QVERIFY(echo(*trusting, *server));
    }

    void hostileFirstBytesCloseCleanly()
    {
        auto server = startServer(serverTls(QStringLiteral("permissive")),
            std::chrono::milliseconds(800), std::chrono::milliseconds(400));
        QVERIFY(server);
        auto client = makeClient(clientTls());
        QVERIFY(echo(*client, *server));
        // 0x16 then garbage: a handshake that fails.
        RawPeer garbage;
        QVERIFY(garbage.connectTo(server->serverPort()));
        garbage.write(QByteArray("\x16\x03\x01\x00\x05hello", 10) + QByteArray(64, '\xee'));
        // A truncated handshake: a record header that promises more than ever comes.
        RawPeer truncated;
        QVERIFY(truncated.connectTo(server->serverPort()));
        truncated.write(QByteArray("\x16\x03\x01\x02\x00\x01\x00", 7));
        // Connects and sends nothing.
        RawPeer silent;
        QVERIFY(silent.connectTo(server->serverPort()));
        // A plain frame start no frame can have (length over the 16 MiB limit).
        RawPeer oversized;
        QVERIFY(oversized.connectTo(server->serverPort()));
        oversized.write(QByteArray("\xff\xff\xff\xff\x00\x00\x00\x10", 8));
        for (RawPeer *peer : {&garbage, &truncated, &silent, &oversized})
            QVERIFY(closedWithoutAnswer(peer->socket(), 5000));
        QVERIFY(server->stats().closedTlsFailed >= 2);
        // The TLS client was idle meanwhile (its connection closed too); it reconnects and is
        // served.
        QTRY_VERIFY_WITH_TIMEOUT(echo(*client, *server).has_value(), 10000);
    }

    void inflightCapPausesTlsConnections()
    {
        // The in-flight cap stops reading a TLS connection as it does a plain one (the TLS
        // socket's read buffer is bounded), and every request is answered once resumed.
        constexpr int kCap = 8;
        constexpr int kRequests = 300;
        RemotingServer::Options options = loopbackServerOptions();
        options.tls = serverTls(QStringLiteral("enforcing"));
        options.connection.maxInflightRequests = kCap;
        RemotingServer server(options);
        auto holder = std::make_shared<HoldingProcessor>();
        server.registerProcessor(kCountCode, holder);
        QVERIFY(server.start());
        auto client = makeClient(clientTls());
        ResultSink sink;
        for (int i = 0; i < kRequests; ++i)
            client->invokeAsync(addressOf(server), makeRequest(kCountCode), 20000, sink.callback());
        QTRY_VERIFY_WITH_TIMEOUT(server.stats().inflightPauses >= 1, 10000);
        // Answers what is held on each try until every request has its answer (bounded).
        QTRY_VERIFY_WITH_TIMEOUT((holder->answerAll(), sink.count() == kRequests), 20000);
        QCOMPARE(sink.count(), kRequests);
        for (int i = 0; i < kRequests; ++i)
            QVERIFY(sink.at(i));
        QVERIFY2(holder->maxHeld() <= kCap, qPrintable(QString::number(holder->maxHeld())));
    }

    void startFailsClearly_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("password");
        QTest::addColumn<QString>("expected");
        QTest::newRow("unknown mode") << "strict"
                                      << "server"
                                      << "server"
                                      << ""
                                      << "tls.server.mode";
        QTest::newRow("no certificate") << "enforcing"
                                        << ""
                                        << ""
                                        << ""
                                        << "tls.server.certPath";
        QTest::newRow("missing file") << "permissive"
                                      << "/nonexistent.pem"
                                      << "server"
                                      << ""
                                      << "/nonexistent.pem";
        QTest::newRow("key is a certificate") << "enforcing"
                                              << "server"
                                              << "ca"
                                              << ""
                                              << "tls.server.keyPath";
        QTest::newRow("encrypted key, no password") << "enforcing"
                                                    << "server"
                                                    << "encrypted"
                                                    << ""
                                                    << "no password set";
        QTest::newRow("encrypted key, wrong password") << "enforcing"
                                                       << "server"
                                                       << "encrypted"
                                                       << "wrong"
                                                       << "password is wrong";
    }
    void startFailsClearly()
    {
        QFETCH(QString, mode);
        QFETCH(QString, cert);
        QFETCH(QString, key);
        QFETCH(QString, password);
        QFETCH(QString, expected);
        const auto path = [this](const QString &name) {
            if (name == QLatin1String("server"))
                return m_certs.serverCert;
            if (name == QLatin1String("ca"))
                return m_certs.caCert;
            if (name == QLatin1String("encrypted"))
                return m_certs.serverKeyEncrypted;
            return name;
        };
        TlsSettings tls = serverTls(mode);
        tls.serverCertPath = path(cert);
        tls.serverKeyPath = key == QLatin1String("server") ? m_certs.serverKey : path(key);
        tls.serverKeyPassword = password;
        RemotingServer::Options options = loopbackServerOptions();
        options.tls = tls;
        RemotingServer server(options);
        const Status st = server.start();
        QVERIFY(!st);
        QVERIFY2(st.message().contains(expected), qPrintable(st.message()));
        QVERIFY(!server.isRunning());
    }

    void encryptedKeyAndConfigFile()
    {
        // Paths and password from a tls.properties (tls.config.file), the mode from the -c keys.
        const QString file = m_dir.filePath(QStringLiteral("tls.properties"));
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QStringLiteral("tls.server.certPath=%1\ntls.server.keyPath=%2\n"
                                   "tls.server.keyPassword=%3\ntls.server.mode=disabled\n")
                        .arg(m_certs.serverCert, m_certs.serverKeyEncrypted,
                            QLatin1String(testlib::TestCerts::kKeyPassword))
                        .toUtf8());
        }
        TlsSettings tls;
        tls.serverMode = QStringLiteral("enforcing");
        tls.configFile = file;
        auto server = startServer(tls);
        QVERIFY(server); // the file's tls.server.mode is ignored, as RocketMQ ignores it
        auto client = makeClient(clientTls());
        QVERIFY(echo(*client, *server));
        RawPeer plain;
        QVERIFY(plain.connectTo(server->serverPort()));
        plain.send(makeRequest(kEchoCode));
        QVERIFY(closedWithoutAnswer(plain.socket(), 5000));
    }

    void badClientSettingsFailEveryInvocation()
    {
        auto server = startServer(serverTls(QStringLiteral("enforcing")));
        QVERIFY(server);
        TlsSettings tls = clientTls();
        tls.clientTrustCertPath = QStringLiteral("/nonexistent/ca.pem");
        auto client = makeClient(tls);
        QVERIFY(!client->tlsStatus());
        const auto failed = echo(*client, *server);
        QVERIFY(!failed);
        QVERIFY2(failed.error().message().contains(QLatin1String("tls.client.trustCertPath")),
            qPrintable(failed.error().message()));
    }

    void certificatesReloadWhenFilesChange()
    {
        // Starts with the rogue certificate, then the files are replaced by the CA-signed ones.
        const QString cert = m_dir.filePath(QStringLiteral("live.pem"));
        const QString key = m_dir.filePath(QStringLiteral("live.key"));
        QFile::remove(cert);
        QFile::remove(key);
        QVERIFY(QFile::copy(m_certs.rogueCert, cert));
        QVERIFY(QFile::copy(m_certs.rogueKey, key));
        TlsSettings tls = serverTls(QStringLiteral("enforcing"));
        tls.serverCertPath = cert;
        tls.serverKeyPath = key;
        auto server = startServer(tls);
        QVERIFY(server);
        {
            auto client = makeClient(clientTls());
            QVERIFY(!echo(*client, *server));
        }
        QVERIFY(QFile::remove(cert) && QFile::copy(m_certs.serverCert, cert));
        QVERIFY(QFile::remove(key) && QFile::copy(m_certs.serverKey, key));
        // Checked at most once a second, on a new connection.
        QTRY_VERIFY_WITH_TIMEOUT(makeClient(clientTls())
                                     ->invokeSync(addressOf(*server), makeRequest(kEchoCode), 3000)
                                     .has_value(),
            10000);
        QCOMPARE(server->stats().tlsReloads, 1);
    }
};

QTEST_GUILESS_MAIN(tst_RemotingTls)
#include "tst_remotingtls.moc"
