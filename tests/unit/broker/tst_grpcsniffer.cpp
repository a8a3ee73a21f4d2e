// The permissive gRPC port's sniffer (broker/grpc/grpcsniffer.h) in front of a small gRPC server
// (a generic service that answers every call and notes who called): a plain and a TLS client on
// the one port, each named by its real address (GrpcPeers); garbage after a plain or a TLS first
// byte is closed and leaves no relay; idle connections are capped (the oldest goes) and closed
// after the sniff timeout; clients are served meanwhile.

#include "broker/grpc/grpcpeers.h"
#include "broker/grpc/grpcsniffer.h"
#include "tests/testlib/testcerts.h"

#include <QFile>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <condition_variable>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <mutex>

using namespace qrocket;
using namespace qrocket::broker::v2;

namespace {

/// Answers every call OK and notes gRPC's name for the caller and what GrpcPeers makes of it.
class PeerService final : public grpc::CallbackGenericService
{
public:
    explicit PeerService(const GrpcPeers &peers) : m_peers(peers) { }

    grpc::ServerGenericBidiReactor *CreateReactor(grpc::GenericCallbackServerContext *ctx) override
    {
        {
            std::lock_guard lock(m_mutex);
            m_raw = ctx->peer();
            m_resolved = m_peers.resolve(ctx->peer());
        }
        struct Done final : grpc::ServerGenericBidiReactor
        {
            Done() { Finish(grpc::Status::OK); }
            void OnDone() override { delete this; }
        };
        return new Done;
    }
    std::pair<std::string, std::string> last() const
    {
        std::lock_guard lock(m_mutex);
        return {m_raw, m_resolved};
    }

private:
    const GrpcPeers &m_peers;
    mutable std::mutex m_mutex;
    std::string m_raw;
    std::string m_resolved;
};

std::string readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

/// One unary call over `channel`; its status (DEADLINE_EXCEEDED after 5 s).
grpc::Status call(const std::shared_ptr<grpc::Channel> &channel)
{
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Slice slice("ping", 4);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<grpc::Status> result;
    stub.UnaryCall(&context, "/qrocket.Test/Ping", grpc::StubOptions(), &request, &response,
        [&](grpc::Status st) {
            std::lock_guard lock(mutex);
            result = std::move(st);
            cv.notify_all();
        });
    std::unique_lock lock(mutex);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return result.has_value(); });
    return result.value_or(grpc::Status(grpc::StatusCode::UNKNOWN, "no answer"));
}

/// A channel of its own (no subchannel shared with another test's).
grpc::ChannelArguments ownArgs()
{
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return args;
}

} // namespace

class tst_GrpcSniffer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void plainAndTlsShareThePort();
    void garbageIsClosedWithoutLeaks();
    void idleConnectionsAreCappedAndTimedOut();
    void stopEndsRelays();

private:
    std::shared_ptr<grpc::Channel> plainChannel() const
    {
        return grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(m_sniffer->port()),
            grpc::InsecureChannelCredentials(), ownArgs());
    }
    std::shared_ptr<grpc::Channel> tlsChannel() const
    {
        grpc::SslCredentialsOptions options;
        options.pem_root_certs = readAll(m_certs.caCert);
        grpc::ChannelArguments args = ownArgs();
        args.SetSslTargetNameOverride("localhost");
        return grpc::CreateCustomChannel(
            "127.0.0.1:" + std::to_string(m_sniffer->port()), grpc::SslCredentials(options), args);
    }

    QTemporaryDir m_dir;
    testlib::TestCerts m_certs;
    GrpcPeers m_peers;
    std::unique_ptr<PeerService> m_service;
    std::unique_ptr<grpc::Server> m_server;
    std::unique_ptr<GrpcPortSniffer> m_sniffer;
    static constexpr int kMaxPending = 4;
    static constexpr int kSniffTimeoutMs = 1500;
};

void tst_GrpcSniffer::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString error = testlib::generateTestCerts(m_dir.path(), m_certs);
    if (!error.isEmpty())
        QSKIP(qPrintable(QStringLiteral("no test certificates: ") + error));
    grpc::SslServerCredentialsOptions tls;
    tls.pem_key_cert_pairs.push_back({readAll(m_certs.serverKey), readAll(m_certs.serverCert)});
    m_service = std::make_unique<PeerService>(m_peers);
    grpc::ServerBuilder builder;
    int tlsPort = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(tls), &tlsPort);
    builder.RegisterCallbackGenericService(m_service.get());
    m_server = builder.BuildAndStart();
    QVERIFY(m_server);
    QVERIFY(tlsPort != 0);
    GrpcSnifferOptions options;
    options.bindHost = "127.0.0.1";
    options.maxPending = kMaxPending;
    options.sniffTimeoutMs = kSniffTimeoutMs;
    m_sniffer = std::make_unique<GrpcPortSniffer>(options, m_peers);
    const Status st = m_sniffer->listen();
    QVERIFY2(st.isOk(), qPrintable(st.message()));
    QVERIFY(m_sniffer->port() != 0);
    m_sniffer->start(m_server.get(), tlsPort);
}

void tst_GrpcSniffer::cleanupTestCase()
{
    if (m_sniffer)
        m_sniffer->stopAccepting();
    if (m_server) {
        m_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
        m_server->Wait();
    }
    if (m_sniffer)
        m_sniffer->stop();
}

void tst_GrpcSniffer::plainAndTlsShareThePort()
{
    const GrpcSnifferCounters &n = m_sniffer->counters();
    auto plain = plainChannel();
    grpc::Status st = call(plain);
    QVERIFY2(st.ok(), st.error_message().c_str());
    auto [raw, real] = m_service->last();
    // gRPC names a connection given by descriptor "fd:N"; the sniffer knows its address.
    QVERIFY2(raw.starts_with("fd:"), raw.c_str());
    QVERIFY2(real.starts_with("ipv4:127.0.0.1:"), real.c_str());
    QCOMPARE(n.plain.load(), 1u);

    auto tls = tlsChannel();
    st = call(tls);
    QVERIFY2(st.ok(), st.error_message().c_str());
    std::tie(raw, real) = m_service->last();
    // Relayed: gRPC sees the relay's loopback end, the sniffer the client's.
    QVERIFY2(raw.starts_with("ipv4:127.0.0.1:"), raw.c_str());
    QVERIFY2(real.starts_with("ipv4:127.0.0.1:") && real != raw, (raw + " " + real).c_str());
    QCOMPARE(n.tls.load(), 1u);
    QCOMPARE(n.relays.load(), 1);

    // Both go on being served, again and together.
    for (int i = 0; i < 3; ++i) {
        QVERIFY(call(plain).ok());
        QVERIFY(call(tls).ok());
    }
    QCOMPARE(n.plain.load(), 1u); // the same connections
    QCOMPARE(n.tls.load(), 1u);
    // A client that trusts another certificate does not get through (the TLS is real).
    grpc::SslCredentialsOptions rogue;
    rogue.pem_root_certs = readAll(m_certs.rogueCert);
    grpc::ChannelArguments args = ownArgs();
    args.SetSslTargetNameOverride("localhost");
    QVERIFY(!call(grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(m_sniffer->port()),
                      grpc::SslCredentials(rogue), args))
                 .ok());
}

void tst_GrpcSniffer::garbageIsClosedWithoutLeaks()
{
    const GrpcSnifferCounters &n = m_sniffer->counters();
    // The previous case's channels are gone: so are their relays.
    QTRY_COMPARE_WITH_TIMEOUT(n.relays.load(), 0, 10000);
    // Plain garbage goes to gRPC, which closes it (no HTTP/2 preface); 0x16 and garbage goes to
    // the TLS listener, whose handshake fails: the relay ends with it.
    const QByteArray plainGarbage("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    const QByteArray tlsGarbage = QByteArray(1, '\x16') + QByteArray(600, '\x7f');
    for (const QByteArray &bytes : {plainGarbage, tlsGarbage}) {
        QTcpSocket s;
        s.connectToHost(QStringLiteral("127.0.0.1"), m_sniffer->port());
        QVERIFY(s.waitForConnected(5000));
        s.write(bytes);
        QVERIFY(s.waitForBytesWritten(5000));
        // Closed by the far end in bounded time (whatever it answered before).
        QElapsedTimer t;
        t.start();
        while (s.state() == QAbstractSocket::ConnectedState && t.elapsed() < 10000)
            s.waitForReadyRead(200) ? void(s.readAll()) : void();
        QCOMPARE(s.state(), QAbstractSocket::UnconnectedState);
    }
    QTRY_COMPARE_WITH_TIMEOUT(n.relays.load(), 0, 5000);
    QCOMPARE(n.pending.load(), 0);
    // The port serves on.
    QVERIFY(call(plainChannel()).ok());
    QVERIFY(call(tlsChannel()).ok());
}

void tst_GrpcSniffer::idleConnectionsAreCappedAndTimedOut()
{
    const GrpcSnifferCounters &n = m_sniffer->counters();
    const std::uint64_t evictedBefore = n.evicted.load();
    const std::uint64_t timedOutBefore = n.timedOut.load();
    // Twice the cap of silent connections: the oldest are closed as new ones come.
    std::vector<std::unique_ptr<QTcpSocket>> idle;
    for (int i = 0; i < 2 * kMaxPending; ++i) {
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QStringLiteral("127.0.0.1"), m_sniffer->port());
        QVERIFY(s->waitForConnected(5000));
        idle.push_back(std::move(s));
    }
    QTRY_COMPARE_WITH_TIMEOUT(n.accepted.load() >= std::uint64_t(2 * kMaxPending), true, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(n.evicted.load() - evictedBefore, std::uint64_t(kMaxPending), 5000);
    QVERIFY(n.pending.load() <= kMaxPending);
    // The evicted ones are the first ones: closed under them.
    for (int i = 0; i < kMaxPending; ++i) {
        QTcpSocket &s = *idle[std::size_t(i)];
        if (s.state() == QAbstractSocket::ConnectedState)
            s.waitForDisconnected(5000);
        QCOMPARE(s.state(), QAbstractSocket::UnconnectedState);
    }
    // Clients get in meanwhile (the newest idle one makes room for each).
    QVERIFY(call(plainChannel()).ok());
    QVERIFY(call(tlsChannel()).ok());
    // The rest are closed when their sniff timeout passes, and nothing is left pending.
    QTRY_COMPARE_WITH_TIMEOUT(n.pending.load(), 0, kSniffTimeoutMs + 5000);
    QVERIFY(n.timedOut.load() - timedOutBefore >= 1);
    for (auto &s : idle) {
        if (s->state() == QAbstractSocket::ConnectedState)
            s->waitForDisconnected(5000);
        QCOMPARE(s->state(), QAbstractSocket::UnconnectedState);
    }
}

void tst_GrpcSniffer::stopEndsRelays()
{
    auto tls = tlsChannel();
    QVERIFY(call(tls).ok());
    QVERIFY(m_sniffer->counters().relays.load() >= 1);
    cleanupTestCase();
    QCOMPARE(m_sniffer->counters().relays.load(), 0);
    QCOMPARE(m_sniffer->counters().pending.load(), 0);
    // The port is closed: a new client fails.
    QVERIFY(!call(plainChannel()).ok());
    m_sniffer.reset();
    m_server.reset();
}

QTEST_GUILESS_MAIN(tst_GrpcSniffer)
#include "tst_grpcsniffer.moc"
