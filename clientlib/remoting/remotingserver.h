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

#include "clientlib/common/status.h"
#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/processortable.h"

#include <QHostAddress>
#include <QObject>

#include <atomic>
#include <chrono>
#include <memory>

namespace qrocket::remoting {

class IoThreadPool;
class TcpListener;

struct RemotingServerOptions
{
    QHostAddress listenAddress = QHostAddress::Any; // Any = dual stack
    quint16 port = 0; // 0 = any free port (tests)
    int ioThreads = 3;
    int listenBacklog = 1024;
    /// Frame limit, unsent-bytes cap and idle timeout (120 s) of each connection.
    ConnectionOptions connection;
    /// How often pending server->client invocations and idle connections are checked.
    std::chrono::milliseconds sweepInterval {100};
    /// I/O threads are named "<threadName>-<n>" (a broker's main and fast servers differ here).
    QString threadName = QStringLiteral("qrocket-srv-io");
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

    const Options m_options;
    ProcessorTable m_table;
    std::unique_ptr<IoThreadPool> m_pool;
    TcpListener *m_listener = nullptr; // lives on I/O thread 0
    quint16 m_port = 0;
    std::atomic<int> m_connectionCount {0};
};

} // namespace qrocket::remoting
