#pragma once

// RemotingClient: the RocketMQ remoting client (RocketMQ's NettyRemotingClient).
//
//   RemotingClient client;
//   client.setNameServerAddresses("10.0.0.1:9876;10.0.0.2:9876");
//   client.invokeNameServer(request, 3000, [](Result<RemotingCommand> r) { ... });
//   client.invokeAsync("10.0.0.5:10911", request, 3000, callback);
//   client.registerProcessor(RequestCode::NotifyConsumerIdsChanged, notifyProcessor);
//
// Connections: one per "host:port" address, created on first use, reused, and created again after
// a failure (no background reconnect: the next invocation reconnects). Requests queued while
// connecting go out once connected; a connect that fails or exceeds connectTimeout completes
// every invocation on it with Unavailable.
//
// Threads: the client owns one I/O thread that owns all its sockets. Every public method is
// thread-safe and may be called from any thread, except invokeSync/invokeNameServerSync, which
// block and refuse (returning an Internal error) when called on the client's I/O thread, i.e. from
// a callback or a processor. Never call them on a GUI thread or on a RemotingServer I/O thread
// (an inline processor) either: that would stall every connection of the thread. Callbacks run
// on the I/O thread (or on the calling thread when the client is already shut down): keep them
// short and post anything heavy elsewhere (QMetaObject::invokeMethod(context, ...)). Requests the
// server sends over a connection (NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO...) go to
// the processor table with the same reply rules as the server (processortable.h).
//
// Every invocation completes exactly once: with the response (whatever its code), or Timeout,
// Unavailable (connection failed or lost, client shut down) or InvalidArgument (bad address).

#include "clientlib/common/result.h"
#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/processortable.h"
#include "clientlib/remoting/tlsconfig.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QThread;

namespace qrocket::remoting {

class IoThreadPool;
class IoWorker;

struct RemotingClientOptions
{
    /// Frame limit, unsent-bytes cap, idle timeout and connect timeout of each connection.
    ConnectionOptions connection;
    /// How often pending invocations are checked for their timeout.
    std::chrono::milliseconds sweepInterval {100};
    /// Start from a random name server (spreads load); false = start with the first.
    bool randomNameServerStart = true;
    QString threadName = QStringLiteral("qrocket-cli-io");
    /// Sees every request this client sends (invokeAsync/Sync/Oneway, invokeNameServer; never a
    /// response), on the calling thread, before it is queued: where ACL credentials sign
    /// (protocol::aclSign). Must be thread-safe.
    std::function<void(RemotingCommand &)> requestHook;
    /// tls.enable and tls.client.* (tlsconfig.h): every connection uses TLS when enabled. When
    /// the files do not load, every invocation fails with the reason (tlsStatus()); a failed
    /// handshake (e.g. an untrusted certificate) fails the invocations on that connection with
    /// Unavailable naming the certificate errors.
    TlsSettings tls;
};

class RemotingClient final : public QObject, private ConnectionHandler
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RemotingClient)

public:
    using Options = RemotingClientOptions;

    explicit RemotingClient(Options options = Options(), QObject *parent = nullptr);
    /// Calls shutdown().
    ~RemotingClient() override;

    /// Closes every connection (pending invocations complete with Unavailable) and joins the I/O
    /// thread; later invocations complete with Unavailable at once. Not from the I/O thread.
    void shutdown();

    void invokeAsync(const QByteArray &address, RemotingCommand request, int timeoutMillis,
        InvokeCallback callback);
    /// Blocks the calling thread until the response or the timeout. Not on the I/O thread.
    Result<RemotingCommand> invokeSync(
        const QByteArray &address, RemotingCommand request, int timeoutMillis);
    /// Fire and forget: marks the request oneway and sends it (once connected). Dropped if the
    /// connection cannot be made.
    void invokeOneway(const QByteArray &address, RemotingCommand request);

    /// "host:port;host:port" (RocketMQ's namesrvAddr). Replaces the list.
    void setNameServerAddresses(const QByteArray &addressList);
    QList<QByteArray> nameServerAddresses() const;
    /// The name server the next invokeNameServer starts with (empty when none configured).
    QByteArray currentNameServer() const;
    /// invokeAsync to the current name server; when it is unreachable (Unavailable), tries the
    /// next address in the list, each at most once, within the same overall timeout, and makes the
    /// first one that works the current one.
    void invokeNameServer(RemotingCommand request, int timeoutMillis, InvokeCallback callback);
    Result<RemotingCommand> invokeNameServerSync(RemotingCommand request, int timeoutMillis);

    void registerProcessor(
        int requestCode, RequestProcessorPtr processor, ExecutorPtr executor = {});
    void setDefaultProcessor(RequestProcessorPtr processor, ExecutorPtr executor = {});

    /// Closes the connection to `address` if open (pending invocations: Unavailable).
    void closeConnection(const QByteArray &address);
    /// True on the client's I/O thread (where callbacks run).
    bool isIoThread() const;
    /// Whether the TLS settings loaded (always OK without tls.enable).
    Status tlsStatus() const { return m_tlsStatus; }

Q_SIGNALS:
    /// A connection closed. Emitted on the I/O thread.
    void channelClosed(quint64 channelId, const QByteArray &remoteAddress);

private:
    struct NameServerCall;
    using Clock = std::chrono::steady_clock;
    /// An invocation queued by a thread other than the I/O thread.
    struct Submission
    {
        QByteArray address;
        RemotingCommand request;
        Clock::time_point deadline;
        InvokeCallback callback;
    };

    void handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request) override;
    void connectionClosed(Connection *connection) override;
    /// I/O thread: the live connection to `address`, created if needed; null for a bad address.
    Connection *connectionFor(const QByteArray &address);
    /// Runs `task` on the I/O thread (directly when already there). False when shut down.
    template<typename Task>
    bool runOnIoThread(Task &&task);
    void attemptNameServer(std::shared_ptr<NameServerCall> call);
    /// I/O thread: sends `request` on the connection to `address` (created if needed).
    void startInvoke(const QByteArray &address, RemotingCommand request, Clock::time_point deadline,
        InvokeCallback callback);
    /// I/O thread: starts every queued Submission.
    void drainSubmitted();
    Result<RemotingCommand> waitFor(
        const std::function<void(InvokeCallback)> &start, int timeoutMillis);

    const Options m_options;
    std::optional<QSslConfiguration> m_tlsConfig; // set when tls.enable and the files loaded
    Status m_tlsStatus;
    ProcessorTable m_table;
    std::unique_ptr<IoThreadPool> m_pool;
    IoWorker *m_worker = nullptr;
    QThread *m_ioThread = nullptr;
    std::atomic<bool> m_shutdown {false};
    mutable std::mutex m_poolMutex; // guards posting against shutdown
    std::vector<Submission> m_submitted; // guarded by m_poolMutex
    bool m_drainPosted = false; // guarded by m_poolMutex
    // I/O thread: while drainSubmitted() runs, the connections it corked (uncorked at its end).
    std::vector<Connection *> *m_corking = nullptr;
    QHash<QByteArray, Connection *> m_connections; // I/O thread only
    // The last connection looked up (I/O thread only): most calls go to the same address, and
    // this skips hashing it.
    QByteArray m_lastAddress;
    Connection *m_lastConnection = nullptr;

    mutable std::mutex m_nameServerMutex;
    QList<QByteArray> m_nameServers; // guarded by m_nameServerMutex
    int m_nameServerIndex = 0; // guarded by m_nameServerMutex
};

} // namespace qrocket::remoting
