// RemotingServer's limits over loopback: connection caps (total, per address), thousands of
// sockets, the partial-frame budget, the idle and frame deadlines against a trickling peer, and
// the in-flight cap's back-pressure (every request still answered).

#include "clientlib/remoting/executor.h"
#include "remotingtestutil.h"

#include <QScopeGuard>
#include <QTimer>
#include <QtEndian>

#include <arpa/inet.h>
#include <fcntl.h>
#include <mutex>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::remoting::test;

namespace {

/// A blocking TCP socket connected to 127.0.0.1:`port`; -1 on failure.
int connectRaw(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Raises the soft open-file limit to `wanted` (at most the hard limit); the limit in force.
rlim_t raiseFileLimit(rlim_t wanted)
{
    rlimit files {};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0)
        return 0;
    if (files.rlim_cur < wanted) {
        files.rlim_cur = std::min(wanted, files.rlim_max);
        ::setrlimit(RLIMIT_NOFILE, &files);
        ::getrlimit(RLIMIT_NOFILE, &files);
    }
    return files.rlim_cur;
}

/// A frame prefix announcing a total length of `frameBytes` with a JSON header of `headerBytes`.
QByteArray framePrefix(qint32 frameBytes, qint32 headerBytes)
{
    QByteArray prefix(8, '\0');
    qToBigEndian<qint32>(frameBytes - 4, prefix.data());
    qToBigEndian<qint32>(headerBytes, prefix.data() + 4); // serialize type 0 (JSON)
    return prefix;
}

/// Keeps every Responder it gets until the test answers them.
class HoldingProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        std::lock_guard lock(m_mutex);
        m_held.emplace_back(request.opaque, std::move(respond));
        ++m_total;
    }
    int held() const
    {
        std::lock_guard lock(m_mutex);
        return static_cast<int>(m_held.size());
    }
    int total() const
    {
        std::lock_guard lock(m_mutex);
        return m_total;
    }
    /// Answers everything held, from the calling thread.
    int answerAll()
    {
        std::vector<std::pair<int, Responder>> held;
        {
            std::lock_guard lock(m_mutex);
            held.swap(m_held);
        }
        for (auto &[opaque, respond] : held) {
            RemotingCommand response;
            response.setExt(QByteArrayLiteral("answered"), QByteArray::number(opaque));
            respond(std::move(response));
        }
        return static_cast<int>(held.size());
    }

private:
    mutable std::mutex m_mutex;
    std::vector<std::pair<int, Responder>> m_held;
    int m_total = 0;
};

/// Collects the messages logged (from any thread) while it exists, then restores the handler.
class LogCapture
{
public:
    LogCapture()
    {
        s_instance = this;
        m_previous = qInstallMessageHandler(&LogCapture::handle);
    }
    ~LogCapture()
    {
        qInstallMessageHandler(m_previous);
        s_instance = nullptr;
    }
    bool contains(const QString &text) const
    {
        std::lock_guard lock(m_mutex);
        return std::any_of(m_lines.begin(), m_lines.end(),
            [&](const QString &line) { return line.contains(text); });
    }

private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &message)
    {
        LogCapture *self = s_instance;
        {
            std::lock_guard lock(self->m_mutex);
            self->m_lines.append(message);
        }
        self->m_previous(type, context, message);
    }

    static inline LogCapture *s_instance = nullptr;
    QtMessageHandler m_previous = nullptr;
    mutable std::mutex m_mutex;
    QStringList m_lines;
};

} // namespace

class tst_RemotingLimits : public QObject
{
    Q_OBJECT

private:
    static std::unique_ptr<RemotingServer> startServer(const RemotingServer::Options &options)
    {
        auto server = std::make_unique<RemotingServer>(options);
        server->registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
        const Status status = server->start();
        if (!status)
            qWarning("start failed: %s", qPrintable(status.toString()));
        return server;
    }

    static bool echoWorks(RemotingClient &client, const RemotingServer &server)
    {
        auto result = client.invokeSync(addressOf(server), makeRequest(kEchoCode, "ping"), 3000);
        return result.has_value() && result->code == 0 && result->body == "ping";
    }

private Q_SLOTS:
    void refusesConnectionsOverTheTotalCap()
    {
        LogCapture log;
        RemotingServer::Options options = loopbackServerOptions();
        options.maxConnections = 3;
        options.limitsReportInterval = std::chrono::milliseconds(100);
        auto server = startServer(options);
        QVERIFY(server->isRunning());
        std::vector<std::unique_ptr<RawPeer>> peers;
        for (int i = 0; i < 3; ++i) {
            peers.push_back(std::make_unique<RawPeer>());
            QVERIFY(peers.back()->connectTo(server->serverPort()));
        }
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 3, 5000);
        RawPeer over;
        QVERIFY(over.connectTo(server->serverPort())); // the kernel accepts; the server closes
        over.send(makeRequest(kEchoCode, "never read"));
        QTRY_VERIFY_WITH_TIMEOUT(!over.isConnected(), 5000);
        RemotingCommand reply;
        QVERIFY(!over.readFrame(reply, 100)); // no frame processed
        QCOMPARE(server->stats().refusedMaxConnections, 1);
        QCOMPARE(server->stats().refusedMaxConnectionsPerAddress, 0);
        // Logged at once (rate-limited) with the peer and the key, then summed up.
        QVERIFY(log.contains(QStringLiteral("refused connection from 127.0.0.1:")));
        QVERIFY(log.contains(QStringLiteral("serverMaxConnections (3) reached")));
        QTRY_VERIFY_WITH_TIMEOUT(
            log.contains(QStringLiteral("refused 1 at serverMaxConnections (3)")), 5000);
        QCOMPARE(server->connectionCount(), 3);
        for (auto &peer : peers)
            QVERIFY(peer->isConnected());

        // One leaves: a new connection is served again.
        peers.pop_back();
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 2, 5000);
        RemotingClient client;
        QVERIFY(echoWorks(client, *server));
    }

    void refusesConnectionsOverThePerAddressCap()
    {
        RemotingServer::Options options = loopbackServerOptions();
        options.maxConnectionsPerAddress = 2;
        auto server = startServer(options);
        RawPeer a;
        RawPeer b;
        QVERIFY(a.connectTo(server->serverPort()));
        QVERIFY(b.connectTo(server->serverPort()));
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 2, 5000);
        RawPeer third;
        QVERIFY(third.connectTo(server->serverPort()));
        QTRY_VERIFY_WITH_TIMEOUT(!third.isConnected(), 5000);
        QCOMPARE(server->stats().refusedMaxConnectionsPerAddress, 1);
        QCOMPARE(server->stats().refusedMaxConnections, 0);

        // Another peer address is not affected (127.0.0.2 reaches 127.0.0.1 over lo).
        RawPeer other;
        QVERIFY(other.connectFrom(QHostAddress(QStringLiteral("127.0.0.2")), server->serverPort()));
        other.send(makeRequest(kEchoCode, "from .2"));
        RemotingCommand reply;
        QVERIFY(other.readFrame(reply, 5000));
        QCOMPARE(reply.body, QByteArray("from .2"));
        QCOMPARE(server->connectionCount(), 3);
        QVERIFY(a.isConnected());
        QVERIFY(b.isConnected());

        // A slot freed by 127.0.0.1 is usable by it again.
        a.socket().abort();
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 2, 5000);
        RawPeer again;
        QVERIFY(again.connectTo(server->serverPort()));
        again.send(makeRequest(kEchoCode, "again"));
        QVERIFY(again.readFrame(reply, 5000));
        QCOMPARE(reply.body, QByteArray("again"));
    }

    void thousandsOfConnectionsKeepServing()
    {
        constexpr int kSockets = 3000;
        constexpr int kCap = 2500;
        // Both ends of every connection live in this process.
        if (raiseFileLimit(2 * kSockets + 600) < rlim_t(2 * kSockets + 300))
            QSKIP("the open-file limit is too low for 3000 loopback connections");
        RemotingServer::Options options = loopbackServerOptions();
        options.maxConnections = kCap;
        options.maxConnectionsPerAddress = 0;
        auto server = startServer(options);
        std::vector<int> fds;
        auto closeAll = qScopeGuard([&fds] {
            for (const int fd : fds)
                ::close(fd);
        });
        for (int i = 0; i < kSockets; ++i) {
            const int fd = connectRaw(server->serverPort());
            QVERIFY2(fd >= 0, qPrintable(QStringLiteral("connect %1 failed").arg(i)));
            fds.push_back(fd);
        }
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), kCap, 30000);
        QTRY_COMPARE_WITH_TIMEOUT(
            server->stats().refusedMaxConnections, std::int64_t(kSockets - kCap), 30000);
        QCOMPARE(server->connectionCount(), kCap);

        // Some accepted sockets send a request: they are served.
        RemotingCommand request = makeRequest(kEchoCode, "raw");
        const QByteArray frame = protocol::encodeFrame(request);
        int answered = 0;
        for (int i = 0; i < 20; ++i) {
            const int fd = fds[std::size_t(i)];
            if (::send(fd, frame.constData(), size_t(frame.size()), MSG_NOSIGNAL) != frame.size())
                continue; // refused ones may be reset already
            timeval timeout {5, 0};
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
            char buf[4];
            if (::recv(fd, buf, sizeof buf, MSG_WAITALL) == 4)
                ++answered;
        }
        QVERIFY2(answered >= 15, qPrintable(QString::number(answered)));

        // Room again once some leave: a well-behaved client is served.
        for (int i = 0; i < 50; ++i) // accepted ones (the last ones were refused)
            ::close(fds[std::size_t(i)]);
        fds.erase(fds.begin(), fds.begin() + 50);
        RemotingClient client;
        QTRY_VERIFY_WITH_TIMEOUT(echoWorks(client, *server), 20000);
    }

    void partialFramesStayWithinTheInputBudget()
    {
        // 48 peers each announce a 12 MiB frame and send 3 MiB of it: 144 MiB the server would
        // buffer without a budget. With a 24 MiB budget the connections that push the total
        // over it are closed and the rest of the server works.
        constexpr int kPeers = 48;
        constexpr qint64 kSentBytes = 3 * 1024 * 1024;
        constexpr std::int64_t kBudget = 24 * 1024 * 1024;
        RemotingServer::Options options = loopbackServerOptions();
        options.maxPendingInputBytes = kBudget;
        auto server = startServer(options);
        const qint64 rssBefore = procStatusKiB("VmRSS");
        std::vector<int> fds;
        auto closeAll = qScopeGuard([&fds] {
            for (const int fd : fds)
                ::close(fd);
        });
        std::vector<qint64> sent(kPeers, 0);
        const QByteArray prefix = framePrefix(12 * 1024 * 1024, 1024);
        const QByteArray chunk(256 * 1024, 'p');
        for (int i = 0; i < kPeers; ++i) {
            const int fd = connectRaw(server->serverPort());
            QVERIFY(fd >= 0);
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
            QCOMPARE(::send(fd, prefix.constData(), size_t(prefix.size()), MSG_NOSIGNAL),
                ssize_t(prefix.size()));
            fds.push_back(fd);
        }
        std::int64_t maxPending = 0;
        QElapsedTimer timer;
        timer.start();
        bool progress = true;
        while (progress && timer.elapsed() < 30000) {
            progress = false;
            for (int i = 0; i < kPeers; ++i) {
                if (sent[std::size_t(i)] < 0 || sent[std::size_t(i)] >= kSentBytes)
                    continue;
                const ssize_t n = ::send(fds[std::size_t(i)], chunk.constData(),
                    size_t(chunk.size()), MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n > 0) {
                    sent[std::size_t(i)] += n;
                    progress = true;
                } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    sent[std::size_t(i)] = -1; // closed by the server
                } else {
                    progress = true; // the server has not read yet
                }
            }
            maxPending = std::max(maxPending, server->stats().pendingInputBytes);
            QTest::qWait(1);
        }
        QTRY_VERIFY_WITH_TIMEOUT(server->stats().closedInputBudget > 0, 10000);
        // Let the server read whatever the kernel still holds.
        QTest::qWait(200);
        maxPending = std::max(maxPending, server->stats().pendingInputBytes);
        const RemotingServerStats stats = server->stats();
        const qint64 grownMiB = (procStatusKiB("VmRSS") - rssBefore) / 1024;
        qInfo("closed %lld of %d; partial-frame bytes at most %lld KiB (budget %lld KiB); VmRSS "
              "grew by %lld MiB",
            static_cast<long long>(stats.closedInputBudget), kPeers,
            static_cast<long long>(maxPending / 1024), static_cast<long long>(kBudget / 1024),
            static_cast<long long>(grownMiB));
        // Over the budget by at most one read turn (1 MiB) per I/O thread.
        QVERIFY2(maxPending <= kBudget + 4 * 1024 * 1024, qPrintable(QString::number(maxPending)));
        QVERIFY(stats.pendingInputBytes <= kBudget + 4 * 1024 * 1024);
#if defined(__SANITIZE_ADDRESS__)
        constexpr qint64 kLimitMiB = 400; // freed buffers wait in ASan's quarantine
#elif defined(__SANITIZE_THREAD__)
        constexpr qint64 kLimitMiB = 400; // TSan's shadow memory
#else
        constexpr qint64 kLimitMiB = 100;
#endif
        QVERIFY2(
            grownMiB < kLimitMiB, qPrintable(QStringLiteral("VmRSS grew by %1 MiB").arg(grownMiB)));
        RemotingClient client;
        QVERIFY(echoWorks(client, *server));

        // The budget comes back when the partial frames go.
        for (const int fd : fds)
            ::close(fd);
        fds.clear();
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(server->stats().pendingInputBytes, std::int64_t(0), 5000);
    }

    void tricklingPeerIsClosed_data()
    {
        QTest::addColumn<int>("idleMs");
        QTest::addColumn<int>("frameMs");
        QTest::addColumn<bool>("byFrameTimeout");
        // A byte every 50 ms: under the old idle rule (any byte is activity) never closed.
        QTest::newRow("frame deadline") << 0 << 400 << true;
        QTest::newRow("idle, no complete frame") << 400 << 0 << false;
    }

    void tricklingPeerIsClosed()
    {
        QFETCH(int, idleMs);
        QFETCH(int, frameMs);
        QFETCH(bool, byFrameTimeout);
        RemotingServer::Options options = loopbackServerOptions();
        options.connection.idleTimeout = std::chrono::milliseconds(idleMs);
        options.connection.frameTimeout = std::chrono::milliseconds(frameMs);
        auto server = startServer(options);
        RawPeer peer;
        QVERIFY(peer.connectTo(server->serverPort()));
        const QByteArray frame
            = protocol::encodeFrame(makeRequest(kEchoCode, QByteArray(4096, 't')));
        qsizetype next = 0;
        QTimer trickle;
        trickle.setInterval(50);
        connect(&trickle, &QTimer::timeout, this, [&] {
            if (next < frame.size() && peer.isConnected())
                peer.write(frame.mid(next++, 1));
        });
        trickle.start();
        QElapsedTimer timer;
        timer.start();
        QTRY_VERIFY_WITH_TIMEOUT(!peer.isConnected(), 5000);
        QVERIFY2(timer.elapsed() >= 300, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(next > 5); // it did trickle
        const RemotingServerStats stats = server->stats();
        QCOMPARE(stats.closedFrameTimeout, std::int64_t(byFrameTimeout ? 1 : 0));
        QCOMPARE(stats.closedIdle, std::int64_t(byFrameTimeout ? 0 : 1));
        QTRY_COMPARE_WITH_TIMEOUT(server->stats().pendingInputBytes, std::int64_t(0), 3000);
    }

    void completeFramesKeepAConnectionAlive()
    {
        // Idle is "no complete frame": a peer sending a request now and then stays.
        RemotingServer::Options options = loopbackServerOptions();
        options.connection.idleTimeout = std::chrono::milliseconds(400);
        options.connection.frameTimeout = std::chrono::milliseconds(400);
        auto server = startServer(options);
        RawPeer peer;
        QVERIFY(peer.connectTo(server->serverPort()));
        for (int i = 0; i < 8; ++i) {
            peer.send(makeRequest(kEchoCode, "tick"));
            RemotingCommand reply;
            QVERIFY(peer.readFrame(reply, 3000));
            QTest::qWait(150);
        }
        QVERIFY(peer.isConnected());
        QCOMPARE(server->stats().closedIdle, 0);
    }

    void inflightCapPausesReadingAndAnswersAll()
    {
        constexpr int kCap = 8;
        constexpr int kRequests = 200;
        RemotingServer::Options options = loopbackServerOptions();
        options.connection.maxInflightRequests = kCap;
        auto server = startServer(options);
        auto holder = std::make_shared<HoldingProcessor>();
        server->registerProcessor(kCountCode, holder);
        RawPeer peer;
        QVERIFY(peer.connectTo(server->serverPort()));
        QByteArray frames;
        for (int i = 0; i < kRequests; ++i) {
            RemotingCommand request = makeRequest(kCountCode);
            request.opaque = 100000 + i;
            protocol::encodeFrame(request, frames);
        }
        peer.write(frames); // all pipelined at once
        QTRY_COMPARE_WITH_TIMEOUT(holder->held(), kCap, 5000);
        QTest::qWait(200); // reading is paused: no more arrive at the processor
        QCOMPARE(holder->total(), kCap);
        QVERIFY(server->stats().inflightPauses >= 1);

        // Answering from another thread drains them, reading resumes, each request answered once.
        QSet<int> answered;
        QElapsedTimer timer;
        timer.start();
        while (answered.size() < kRequests && timer.elapsed() < 20000) {
            holder->answerAll();
            RemotingCommand reply;
            while (peer.readFrame(reply, 20)) {
                QVERIFY(reply.isResponse());
                QVERIFY(!answered.contains(reply.opaque));
                answered.insert(reply.opaque);
            }
            QVERIFY(holder->held() <= kCap);
        }
        QCOMPARE(answered.size(), kRequests);
        QCOMPARE(holder->total(), kRequests);
        QVERIFY(server->stats().inflightPauses > 1);
        QVERIFY(peer.isConnected());
    }

    void unansweredRespondersReleaseTheirSlot()
    {
        // A processor that drops its Responder (answers nothing) must not leave the
        // connection paused forever.
        RemotingServer::Options options = loopbackServerOptions();
        options.connection.maxInflightRequests = 4;
        auto server = startServer(options);
        auto silent = std::make_shared<SilentProcessor>();
        auto pool = std::make_shared<ThreadPoolExecutor>(QByteArrayLiteral("tst-pool"), 1, 100);
        server->registerProcessor(kSilentCode, silent, pool);
        RawPeer peer;
        QVERIFY(peer.connectTo(server->serverPort()));
        QByteArray frames;
        for (int i = 0; i < 20; ++i)
            protocol::encodeFrame(makeRequest(kSilentCode), frames);
        RemotingCommand echo = makeRequest(kEchoCode, "after");
        echo.opaque = 424242;
        protocol::encodeFrame(echo, frames);
        peer.write(frames);
        RemotingCommand reply;
        QVERIFY(peer.readFrame(reply, 5000));
        QCOMPARE(reply.opaque, 424242);
        QCOMPARE(reply.body, QByteArray("after"));
        // The echo runs inline on the I/O thread as soon as its frame is read; the last silent
        // requests may still be queued on the pool then (they freed their slots, which is what
        // let the echo's frame be read), so their calls are awaited, bounded.
        QTRY_COMPARE_WITH_TIMEOUT(silent->calls.load(), 20, 5000);
    }

    void defaultsAreSane()
    {
        const RemotingServer::Options options;
        QCOMPARE(options.maxConnections, 10000);
        QCOMPARE(options.maxConnectionsPerAddress, 1000);
        QCOMPARE(options.maxPendingInputBytes, std::int64_t(256) * 1024 * 1024);
        QCOMPARE(options.connection.maxInflightRequests, 4096);
        QCOMPARE(options.connection.idleTimeout, std::chrono::milliseconds(120'000));
        QCOMPARE(options.connection.frameTimeout, std::chrono::milliseconds(60'000));
        // A client's connections are not limited by the server-side cap.
        QCOMPARE(ConnectionOptions().maxInflightRequests, 0);
    }
};

QTEST_GUILESS_MAIN(tst_RemotingLimits)
#include "tst_remotinglimits.moc"
