#pragma once

// RemotingServer: the RocketMQ remoting server (RocketMQ's NettyRemotingServer).
//
//   RemotingServer server(RemotingServer::Options{.listenAddress = QHostAddress::LocalHost});
//   server.registerProcessor(RequestCode::SendMessage, sendProcessor, sendPool);
//   server.setDefaultProcessor(adminProcessor);
//   if (Status st = server.start(); !st) { ... }   // server.serverPort() when port 0
//   connect(&server, &RemotingServer::channelClosed, controller, &Controller::onChannelClosed);
//
// Threads: the listening socket lives on I/O thread 0; accepted descriptors are handed round
// robin to `ioThreads` I/O threads, each with its own event loop, where the QTcpSocket is created.
// Frames are decoded there and dispatched through the processor table (processortable.h for the
// reply rules); inline processors run on the I/O thread, others on their executor. A Responder or
// Channel may be used from any thread; writes always happen on the socket's own thread.
// Frames with the response flag complete the server's own invocations made with
// Channel::invokeAsync (e.g. GET_CONSUMER_RUNNING_INFO to a consumer).
//
// The owning thread (any thread; it needs no event loop) calls start()/stop() and the
// registration methods (registrations are thread-safe and may also happen while running).
// channelConnected/channelClosed are emitted on the I/O threads: connect them with a context
// object, and they arrive queued on that object's thread. Do not call stop() or destroy the server
// from an I/O thread or a processor.
//
// Limits (every port is reachable by an attacker): at most maxConnections connections in total
// and maxConnectionsPerAddress from one peer address; a connection over either is closed right
// after accept (no frame is read), counted, and logged (rate-limited) with the peer and the
// config key. maxConnections is lowered to what the open-file limit allows (RLIMIT_NOFILE minus
// a reserve for the store and outgoing connections) when that is less. The per-connection
// limits (idle, frame deadline, partial-frame budget, in-flight cap, unsent bytes) are
// connection.h's. stats() reads the counters from any thread.

#include "clientlib/common/status.h"
#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/processortable.h"
#include "clientlib/remoting/tlsconfig.h"

#include <QHash>
#include <QHostAddress>
#include <QObject>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace qrocket::remoting {

class IoThreadPool;
class TcpListener;

/// A server's connection options: ConnectionOptions' defaults plus the server-only in-flight cap.
/// 4096 requests awaiting answers per connection: more than a send pipeline needs to keep the
/// broker busy (qrocket-bench-broker, SYNC_FLUSH, 8192 sends in flight per connection: as fast
/// with the cap as without; a consumer holds one suspended pull per queue), far fewer than what
/// a peer could otherwise make the server hold (suspended pulls, queued requests).
inline ConnectionOptions serverConnectionOptions()
{
    ConnectionOptions options;
    options.maxInflightRequests = 4096;
    return options;
}

struct RemotingServerOptions
{
    QHostAddress listenAddress = QHostAddress::Any; // Any = dual stack
    quint16 port = 0; // 0 = any free port (tests)
    int ioThreads = 3;
    int listenBacklog = 1024;
    /// Frame limit, unsent-bytes cap, idle timeout (120 s), frame deadline (60 s) and in-flight
    /// cap of each connection.
    ConnectionOptions connection = serverConnectionOptions();
    /// Connections at once (serverMaxConnections); 0 = only the open-file limit.
    int maxConnections = 10000;
    /// Connections at once from one peer IP address (serverMaxConnectionsPerAddress): a client
    /// instance opens one per broker, so a host of many client processes (or a NAT address)
    /// stays far below this; 0 = unlimited.
    int maxConnectionsPerAddress = 1000;
    /// Bytes all connections may hold in partial frames together (serverMaxPendingInputBytes);
    /// a connection whose partial frame (over 64 KiB) takes the total past it is closed. 0 =
    /// unlimited.
    std::int64_t maxPendingInputBytes = 256 * 1024 * 1024;
    /// How often pending server->client invocations and idle connections are checked.
    std::chrono::milliseconds sweepInterval {100};
    /// How often a line sums up what the limits refused, closed and paused since the last one
    /// (only when something happened); zero disables.
    std::chrono::milliseconds limitsReportInterval {60'000};
    /// I/O threads are named "<threadName>-<n>" (a broker's main and fast servers differ here).
    QString threadName = QStringLiteral("qrocket-srv-io");
    /// tls.server.* (tlsconfig.h): with permissive or enforcing, start() loads the certificate
    /// and key (and tls.config.file) and fails when they do not load or Qt has no TLS backend.
    TlsSettings tls;
};

/// The limits' counters (RemotingServer::stats()).
struct RemotingServerStats
{
    int connections = 0;
    int connectionLimit = 0; // maxConnections after the open-file clamp
    std::int64_t refusedMaxConnections = 0;
    std::int64_t refusedMaxConnectionsPerAddress = 0;
    std::int64_t pendingInputBytes = 0;
    std::int64_t inflightPauses = 0;
    std::int64_t closedInputBudget = 0;
    std::int64_t closedFrameTimeout = 0;
    std::int64_t closedIdle = 0;
    std::int64_t closedUnsentCap = 0;
    std::int64_t tlsConnections = 0; // TLS handshakes started
    std::int64_t closedPlainRefused = 0; // plain clients refused by tls.server.mode=enforcing
    std::int64_t closedTlsFailed = 0; // TLS handshakes that failed or never finished
    std::int64_t tlsReloads = 0; // certificate files reloaded after they changed

    RemotingServerStats &operator+=(const RemotingServerStats &o);
};

class RemotingServer final : public QObject, private ConnectionHandler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RemotingServer)

public:
    using Options = RemotingServerOptions;

    explicit RemotingServer(Options options = Options(), QObject *parent = nullptr);
    ~RemotingServer() override;

    /// Listens and starts the I/O threads. Fails with IoError (e.g. "... address is already in
    /// use") when the address cannot be bound. Calling it while running does nothing.
    Status start();
    /// Stops accepting, closes every connection (pending invocations fail with Unavailable),
    /// joins the I/O threads. start() may be called again afterwards. Idempotent.
    void stop();
    bool isRunning() const { return m_pool != nullptr; }
    /// The bound port (useful with port 0); 0 when not running.
    quint16 serverPort() const { return m_port; }
    int connectionCount() const { return m_connectionCount.load(); }
    const Options &options() const { return m_options; }
    /// Counters of the limits; any thread.
    RemotingServerStats stats() const;

    /// `executor` null = inline on the I/O thread (only for quick, non-blocking processors).
    void registerProcessor(
        int requestCode, RequestProcessorPtr processor, ExecutorPtr executor = {});
    /// Used for codes without their own registration (RocketMQ's default processor).
    void setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor = {});
    ProcessorTable &processorTable() { return m_table; }

Q_SIGNALS:
    /// A client connected. Emitted on its I/O thread.
    void channelConnected(quint64 channelId, const QByteArray &remoteAddress);
    /// A connection closed, for whatever reason (peer gone, idle, invalid frame, cap, stop()).
    /// Emitted on its I/O thread, once per connection.
    void channelClosed(quint64 channelId, const QByteArray &remoteAddress);

private:
    void handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request) override;
    void connectionClosed(Connection *connection) override;
    void acceptDescriptor(qintptr descriptor); // on I/O thread 0
    /// Counts a new connection from `host` against the caps; the refusing key, or null.
    const char *admit(const QByteArray &host);
    void release(const QByteArray &host);
    void reportLimits(quint16 port); // on I/O thread 0

    const Options m_options;
    ProcessorTable m_table;
    std::unique_ptr<IoThreadPool> m_pool;
    std::shared_ptr<TlsServerContext> m_tls; // made by the first start(), kept until destroyed
    std::atomic<const TlsServerContext *> m_tlsContext {nullptr}; // m_tls, for stats()
    TcpListener *m_listener = nullptr; // lives on I/O thread 0
    quint16 m_port = 0;
    std::atomic<int> m_connectionCount {0};
    ConnectionCounters m_counters;
    std::atomic<int> m_connectionLimit {0}; // set by start()
    std::atomic<std::int64_t> m_refusedTotal {0};
    std::atomic<std::int64_t> m_refusedPerAddress {0};
    std::mutex m_admitMutex; // per accepted and per closed connection, never per frame
    int m_admitted = 0; // guarded by m_admitMutex
    QHash<QByteArray, int> m_perAddress; // guarded by m_admitMutex
    RemotingServerStats m_reported; // I/O thread 0: the counters at the last report
};

} // namespace qrocket::remoting
