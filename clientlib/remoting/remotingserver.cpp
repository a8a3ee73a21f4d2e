#include "clientlib/remoting/remotingserver.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/ioworker.h"
#include "clientlib/remoting/logging.h"

#include <QTcpServer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qrocket::remoting {

/// QTcpServer that hands descriptors on instead of creating sockets on its own thread.
class TcpListener final : public QTcpServer
{
public:
    TcpListener(std::function<void(qintptr)> onIncoming, QObject *parent)
        : QTcpServer(parent), m_onIncoming(std::move(onIncoming))
    { }

protected:
    void incomingConnection(qintptr descriptor) override { m_onIncoming(descriptor); }

private:
    std::function<void(qintptr)> m_onIncoming;
};

namespace {

/// Descriptors kept for everything but accepted connections: the store's files, outgoing
/// connections, the other listeners.
constexpr int kReservedDescriptors = 256;

/// The peer host of "host:port" (as formatPeerAddress writes it): the per-address key.
QByteArray hostOf(const QByteArray &remoteAddress)
{
    const qsizetype colon = remoteAddress.lastIndexOf(':');
    return colon > 0 ? remoteAddress.left(colon) : remoteAddress;
}

/// The peer of an accepted descriptor as formatPeerAddress writes it; empty when unknown.
QByteArray peerOf(int fd)
{
    sockaddr_storage peer {};
    socklen_t peerLen = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerLen) < 0)
        return {};
    const QHostAddress address(reinterpret_cast<const sockaddr *>(&peer));
    const quint16 port = peer.ss_family == AF_INET6
        ? ntohs(reinterpret_cast<const sockaddr_in6 *>(&peer)->sin6_port)
        : ntohs(reinterpret_cast<const sockaddr_in *>(&peer)->sin_port);
    return formatPeerAddress(address, port);
}

} // namespace

RemotingServerStats &RemotingServerStats::operator+=(const RemotingServerStats &o)
{
    connections += o.connections;
    connectionLimit += o.connectionLimit;
    refusedMaxConnections += o.refusedMaxConnections;
    refusedMaxConnectionsPerAddress += o.refusedMaxConnectionsPerAddress;
    pendingInputBytes += o.pendingInputBytes;
    inflightPauses += o.inflightPauses;
    closedInputBudget += o.closedInputBudget;
    closedFrameTimeout += o.closedFrameTimeout;
    closedIdle += o.closedIdle;
    closedUnsentCap += o.closedUnsentCap;
    tlsConnections += o.tlsConnections;
    closedPlainRefused += o.closedPlainRefused;
    closedTlsFailed += o.closedTlsFailed;
    tlsReloads += o.tlsReloads;
    return *this;
}

RemotingServer::RemotingServer(Options options, QObject *parent)
    : QObject(parent), m_options(std::move(options))
{
    m_counters.maxPendingInputBytes = std::max<std::int64_t>(m_options.maxPendingInputBytes, 0);
}

RemotingServerStats RemotingServer::stats() const
{
    RemotingServerStats s;
    s.connections = m_connectionCount.load(std::memory_order_relaxed);
    s.connectionLimit = m_connectionLimit.load(std::memory_order_relaxed);
    s.refusedMaxConnections = m_refusedTotal.load(std::memory_order_relaxed);
    s.refusedMaxConnectionsPerAddress = m_refusedPerAddress.load(std::memory_order_relaxed);
    s.pendingInputBytes = m_counters.pendingInputBytes.load(std::memory_order_relaxed);
    s.inflightPauses = m_counters.inflightPauses.load(std::memory_order_relaxed);
    s.closedInputBudget = m_counters.closedInputBudget.load(std::memory_order_relaxed);
    s.closedFrameTimeout = m_counters.closedFrameTimeout.load(std::memory_order_relaxed);
    s.closedIdle = m_counters.closedIdle.load(std::memory_order_relaxed);
    s.closedUnsentCap = m_counters.closedUnsentCap.load(std::memory_order_relaxed);
    s.tlsConnections = m_counters.tlsConnections.load(std::memory_order_relaxed);
    s.closedPlainRefused = m_counters.closedPlainRefused.load(std::memory_order_relaxed);
    s.closedTlsFailed = m_counters.closedTlsFailed.load(std::memory_order_relaxed);
    if (const TlsServerContext *tls = m_tlsContext.load(std::memory_order_acquire))
        s.tlsReloads = tls->reloads();
    return s;
}

RemotingServer::~RemotingServer()
{
    stop();
}

void RemotingServer::registerProcessor(
    int requestCode, RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.registerProcessor(requestCode, std::move(processor), std::move(executor));
}

void RemotingServer::setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor)
{
    m_table.setDefaultProcessor(std::move(processor), std::move(executor));
}

Status RemotingServer::start()
{
    if (m_pool)
        return Status::ok();
    if (!m_tls) { // once: the settings never change, and stats() may read it at any time
        auto tls = TlsServerContext::create(m_options.tls);
        if (!tls) {
            qCCritical(lcRemotingServer, "cannot start TLS: %s", qPrintable(tls.error().message()));
            return Status(tls.error().code(), QStringLiteral("TLS: ") + tls.error().message());
        }
        m_tls = *tls;
        m_tlsContext.store(m_tls.get(), std::memory_order_release);
    }
    // Accepting past the open-file limit fails accept() for every port of the process, the
    // store's files included: the cap stays below it.
    int limit = m_options.maxConnections > 0 ? m_options.maxConnections : INT_MAX;
    rlimit files {};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY) {
        const auto allowed = static_cast<std::int64_t>(files.rlim_cur) - kReservedDescriptors;
        const int clamped = static_cast<int>(std::clamp<std::int64_t>(allowed, 16, INT_MAX));
        if (clamped < limit) {
            qCWarning(lcRemotingServer,
                "serverMaxConnections %d lowered to %d: the open-file limit is %lld", limit,
                clamped, static_cast<long long>(files.rlim_cur));
            limit = clamped;
        }
    }
    m_connectionLimit.store(limit, std::memory_order_relaxed);
    m_pool = std::make_unique<IoThreadPool>(
        m_options.threadName, m_options.ioThreads, m_options.sweepInterval);
    IoWorker *acceptWorker = m_pool->worker(0);
    Status status;
    quint16 port = 0;
    invokeOn(
        acceptWorker,
        [this, acceptWorker, &status, &port] {
            auto *listener = new TcpListener(
                [this](qintptr descriptor) { acceptDescriptor(descriptor); }, acceptWorker);
            listener->setListenBacklogSize(m_options.listenBacklog);
            if (!listener->listen(m_options.listenAddress, m_options.port)) {
                status = Status::ioError(QStringLiteral("cannot listen on %1:%2: %3")
                                             .arg(m_options.listenAddress.toString())
                                             .arg(m_options.port)
                                             .arg(listener->errorString()));
                delete listener;
                return;
            }
            m_listener = listener;
            port = listener->serverPort();
            if (m_options.limitsReportInterval.count() > 0) {
                auto *report = new QTimer(listener); // goes with the listener in stop()
                report->setInterval(m_options.limitsReportInterval);
                connect(report, &QTimer::timeout, listener,
                    [this, port = listener->serverPort()] { reportLimits(port); });
                report->start();
            }
        },
        Qt::BlockingQueuedConnection);
    if (!status) {
        qCWarning(lcRemotingServer, "%s", qPrintable(status.message()));
        m_pool->stop();
        m_pool.reset();
        return status;
    }
    m_port = port;
    qCInfo(lcRemotingServer, "listening on %s:%u with %d I/O threads",
        qPrintable(m_options.listenAddress.toString()), unsigned(m_port), m_pool->size());
    return Status::ok();
}

void RemotingServer::stop()
{
    if (!m_pool)
        return;
    if (m_pool->isIoThread()) {
        qCCritical(lcRemotingServer, "RemotingServer::stop() called on an I/O thread; ignored");
        return;
    }
    invokeOn(
        m_pool->worker(0),
        [this] {
            delete m_listener;
            m_listener = nullptr;
        },
        Qt::BlockingQueuedConnection);
    m_pool->stop();
    m_pool.reset();
    {
        // Accepted descriptors whose hand-off was dropped by the stopping threads never closed.
        std::lock_guard lock(m_admitMutex);
        m_admitted = 0;
        m_perAddress.clear();
    }
    qCInfo(lcRemotingServer, "stopped listening on port %u", unsigned(m_port));
    m_port = 0;
}

const char *RemotingServer::admit(const QByteArray &host)
{
    std::lock_guard lock(m_admitMutex);
    if (m_admitted >= m_connectionLimit.load(std::memory_order_relaxed))
        return "serverMaxConnections";
    int &fromHost = m_perAddress[host];
    if (m_options.maxConnectionsPerAddress > 0 && fromHost >= m_options.maxConnectionsPerAddress)
        return "serverMaxConnectionsPerAddress"; // fromHost > 0: the entry stays anyway
    ++fromHost;
    ++m_admitted;
    return nullptr;
}

void RemotingServer::release(const QByteArray &host)
{
    std::lock_guard lock(m_admitMutex);
    const auto it = m_perAddress.find(host);
    if (it == m_perAddress.end())
        return; // admitted before a stop() cleared the table
    --m_admitted;
    if (--it.value() <= 0)
        m_perAddress.erase(it);
}

void RemotingServer::reportLimits(quint16 port)
{
    const RemotingServerStats now = stats();
    const RemotingServerStats &was = m_reported;
    const auto since = [](std::int64_t a, std::int64_t b) { return static_cast<long long>(a - b); };
    if (now.refusedMaxConnections == was.refusedMaxConnections
        && now.refusedMaxConnectionsPerAddress == was.refusedMaxConnectionsPerAddress
        && now.closedInputBudget == was.closedInputBudget
        && now.closedFrameTimeout == was.closedFrameTimeout && now.closedIdle == was.closedIdle
        && now.closedUnsentCap == was.closedUnsentCap && now.inflightPauses == was.inflightPauses)
        return;
    qCInfo(lcRemotingServer,
        "port %u limits since the last report: refused %lld at serverMaxConnections (%d), %lld "
        "at serverMaxConnectionsPerAddress; closed %lld over serverMaxPendingInputBytes, %lld "
        "at the frame deadline, %lld idle, %lld over the unsent-bytes cap; %lld in-flight "
        "pauses; now %d connections, %lld bytes in partial frames",
        unsigned(port), since(now.refusedMaxConnections, was.refusedMaxConnections),
        now.connectionLimit,
        since(now.refusedMaxConnectionsPerAddress, was.refusedMaxConnectionsPerAddress),
        since(now.closedInputBudget, was.closedInputBudget),
        since(now.closedFrameTimeout, was.closedFrameTimeout),
        since(now.closedIdle, was.closedIdle), since(now.closedUnsentCap, was.closedUnsentCap),
        since(now.inflightPauses, was.inflightPauses), now.connections,
        static_cast<long long>(now.pendingInputBytes));
    m_reported = now;
}

void RemotingServer::acceptDescriptor(qintptr descriptor)
{
    const QByteArray peer = peerOf(static_cast<int>(descriptor));
    const QByteArray host = hostOf(peer);
    if (const char *key = admit(host)) {
        // Logged and counted before the close, so whoever sees the close sees both; closed
        // before any byte is read: a peer over a limit costs one accept and one close.
        const bool total = std::strcmp(key, "serverMaxConnections") == 0;
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemotingServer, "refused connection from %s: %s (%d) reached",
                peer.isEmpty() ? "an unknown peer" : peer.constData(), key,
                total ? m_connectionLimit.load(std::memory_order_relaxed)
                      : m_options.maxConnectionsPerAddress);
        }
        (total ? m_refusedTotal : m_refusedPerAddress).fetch_add(1, std::memory_order_relaxed);
        ::close(static_cast<int>(descriptor));
        return;
    }
    IoWorker *worker = m_pool->next();
    auto adopt = [this, worker, descriptor, host] {
        auto *connection = new Connection(m_options.connection, this, worker, {}, &m_counters);
        if (!connection->adoptDescriptor(descriptor, m_tls.get())) { // disabled: no sniffing
            release(host);
            return;
        }
        m_connectionCount.fetch_add(1);
        Q_EMIT channelConnected(connection->id(), connection->remoteAddress());
    };
    if (worker->thread() == QThread::currentThread())
        adopt();
    else
        invokeOn(worker, adopt, Qt::QueuedConnection);
}

void RemotingServer::handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request)
{
    m_table.dispatch(channel, std::move(request));
}

void RemotingServer::connectionClosed(Connection *connection)
{
    if (connection->remoteAddress().isEmpty())
        return; // never adopted
    release(hostOf(connection->remoteAddress()));
    m_connectionCount.fetch_sub(1);
    Q_EMIT channelClosed(connection->id(), connection->remoteAddress());
}

} // namespace qrocket::remoting
