#pragma once

// Connection: one TCP connection speaking RocketMQ remoting frames; the server and the client use
// the same class. Internal to the remoting module.
//
// Thread affinity: a Connection and its QTcpSocket live on one I/O thread (its parent IoWorker's)
// and every method must be called there; other threads go through its ChannelImpl.
//
// Reading: one buffer per connection; decodeFrame() is run over the unread tail after each read,
// so partial and pipelined frames need no per-frame objects. Consumed bytes are dropped once per
// read (the remainder is at most one partial frame).
// Frames with the response flag complete this connection's pending invocations by opaque; other
// frames go to the ConnectionHandler (the processor table).
// Closing (peer gone, invalid frame, idle, frame deadline, input budget, unsent-bytes cap, connect
// failure, close()): the channel is detached, the handler told, pending invocations fail with
// Unavailable, and the object deletes itself later.
//
// Server connections (adoptDescriptor) also enforce what one peer may hold (an attacker reaches
// every port): idle is "no complete frame for idleTimeout" (a trickle of bytes does not reset it),
// a frame that has begun must be complete within frameTimeout (slowloris), the bytes of partial
// frames are charged to the server-wide ConnectionCounters budget, and with maxInflightRequests
// set, reading stops while that many requests await their answers (ChannelImpl counts them; the
// last Responder to release one below half the cap resumes reading). Nothing is dropped: frames
// already read wait in the buffer. The per-frame cost is one relaxed atomic load.
//
// TLS (tlsconfig.h): a server connection adopted with a TlsServerContext not in disabled mode
// peeks at the first byte the peer sends (recv MSG_PEEK: nothing is consumed). 0x16, a TLS
// handshake record, hands the descriptor to a QSslSocket and starts server encryption (the
// handshake must finish within frameTimeout, as a frame must); anything else is served plain in
// permissive mode and closed in enforcing mode (logged rate-limited, counted). A peer that sends
// nothing meets the idle timeout. A client connection given a QSslConfiguration connects with
// TLS; a failed handshake closes it with the certificate errors in the reason, which its pending
// invocations carry in their Unavailable status.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QAbstractSocket>
#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QObject>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>

class QSocketNotifier;
class QSslConfiguration;
class QTcpSocket;

namespace qrocket::remoting {

class ChannelImpl;
class Connection;
class IoWorker;
class TlsServerContext;

struct ConnectionOptions
{
    protocol::FrameLimits limits;
    /// Bytes queued for the peer but not yet taken by the kernel; a connection exceeding it is
    /// closed (the peer does not read). A single frame larger than the cap still goes out when
    /// nothing else is queued.
    qint64 maxUnsentBytes = 64 * 1024 * 1024;
    /// Client connections: no read and no write for this long closes the connection. Server
    /// connections: no complete frame received for this long (bytes that do not finish a frame
    /// do not count). Zero disables.
    std::chrono::milliseconds idleTimeout {120'000};
    /// Server connections: a frame whose first bytes arrived must be complete within this, or the
    /// connection is closed (a peer trickling bytes would keep its buffer forever). The time a
    /// connection is paused by the in-flight cap does not count. Zero disables.
    std::chrono::milliseconds frameTimeout {60'000};
    /// Server connections: requests (not oneway) dispatched and not yet answered, at most; at the
    /// cap the connection stops reading until half of them are answered. Zero = no cap (clients).
    int maxInflightRequests = 0;
    /// Client connections only: connecting longer than this fails the connection.
    std::chrono::milliseconds connectTimeout {3'000};
};

/// What a server's connections share: the budget for bytes held in partial frames and the
/// counters of the limits (remotingserver.h reports them). Owned by the server, outliving its
/// connections; updated by every I/O thread, hence atomics (relaxed: they are statistics and a
/// budget that may overshoot by one read).
struct ConnectionCounters
{
    /// Bytes of partial frames all connections may hold together; 0 = unlimited. Set before the
    /// first connection.
    std::int64_t maxPendingInputBytes = 0;
    std::atomic<std::int64_t> pendingInputBytes {0};
    std::atomic<std::int64_t> inflightPauses {0};
    std::atomic<std::int64_t> closedInputBudget {0};
    std::atomic<std::int64_t> closedFrameTimeout {0};
    std::atomic<std::int64_t> closedIdle {0};
    std::atomic<std::int64_t> closedUnsentCap {0};
    std::atomic<std::int64_t> tlsConnections {0}; // handshakes started
    std::atomic<std::int64_t> closedPlainRefused {0}; // plain clients of an enforcing server
    std::atomic<std::int64_t> closedTlsFailed {0}; // handshakes that failed
};

/// Receives what a Connection cannot handle itself. Called on the connection's I/O thread.
class ConnectionHandler
{
public:
    virtual ~ConnectionHandler() = default;
    /// A request (no response flag) arrived.
    virtual void handleRequest(const ChannelPtr &channel, protocol::RemotingCommand request) = 0;
    /// The connection is closing; called once, before its pending invocations fail.
    virtual void connectionClosed(Connection *connection) = 0;
};

/// "a.b.c.d:port" (IPv4-mapped IPv6 reported as IPv4) or "[v6]:port".
QByteArray formatPeerAddress(const QHostAddress &address, quint16 port);

class Connection final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Connection)

public:
    /// Created on `worker`'s thread, as its child. `counters`: a server's shared budget and
    /// counters (null for client connections).
    Connection(const ConnectionOptions &options, ConnectionHandler *handler, IoWorker *worker,
        QByteArray remoteAddress = {}, ConnectionCounters *counters = nullptr);
    ~Connection() override;

    /// Server side: takes over an accepted descriptor (closed on failure). `tls` (owned by the
    /// server, outliving the connection): sniff for a TLS handshake unless it is disabled.
    bool adoptDescriptor(qintptr descriptor, TlsServerContext *tls = nullptr);
    /// Client side: starts connecting (with TLS when `tls` is given); frames sent before the
    /// connection is up are queued.
    void connectToHost(const QString &host, quint16 port, const QSslConfiguration *tls = nullptr);
    /// The connection speaks TLS (set once the handshake started).
    bool isEncrypted() const { return m_tls; }

    std::uint64_t id() const { return m_id; }
    QByteArray remoteAddress() const { return m_remoteAddress; }
    ChannelPtr channel() const;
    bool isClosed() const { return m_closed; }

    void sendCommand(const protocol::RemotingCommand &cmd);
    void writeBytes(QByteArrayView bytes);
    /// A body of at least this size is not copied into the output: sendCommand() writes the
    /// frame's head, then the body through writeSharedBody().
    static constexpr qsizetype kShareBodyBytes = 1024 * 1024;
    /// Sends `body` right behind the frame head just written (`headBytes` of it, still queued
    /// maybe). A plain server connection keeps a reference to the body instead of a copy, and
    /// counts its bytes against maxUnsentBytes once however many of its queued answers hold the
    /// same buffer (a prepared whole-table body shared between requests: what it costs is one
    /// copy). Other connections copy it, as writeBytes() does.
    void writeSharedBody(const QByteArray &body, qint64 headBytes);
    /// Sends `request` with a fresh opaque and completes `callback` on this thread with the
    /// response, Timeout (after timeoutMillis) or Unavailable (connection closed).
    void invoke(protocol::RemotingCommand request, int timeoutMillis, InvokeCallback callback);
    /// invoke() with an absolute deadline (saves reading the clock again).
    void invokeUntil(protocol::RemotingCommand request,
        std::chrono::steady_clock::time_point deadline, InvokeCallback callback);
    void close(const QString &reason);

    /// Called periodically by the IoWorker: expires pending invocations, checks idle and connect
    /// timeouts.
    void housekeep(std::chrono::steady_clock::time_point now);

    std::size_t pendingCount() const { return m_pending.size(); }

    /// Frames written from now on wait in one buffer until uncork() writes them with one
    /// syscall: requests queued by other threads go out together (one loopback write costs
    /// about as much as the frame it carries), and the peer reads them together too.
    void cork() { m_ownerCorked = true; }
    void uncork();
    bool isCorked() const { return m_ownerCorked; }

    /// Reading stopped by the in-flight cap (server connections).
    bool isReadPaused() const { return m_readPaused; }
    /// Posted by the ChannelImpl when enough paused requests were answered: reads again.
    void resumeReading();

private:
    struct Pending
    {
        std::chrono::steady_clock::time_point deadline;
        InvokeCallback callback;
    };

    void onReadyRead();
    void onConnected();
    void onErrorOccurred(QAbstractSocket::SocketError error);
    void processInput();
    void handleFrame(protocol::RemotingCommand cmd);
    qint64 unsentBytes() const;
    /// A plain server connection: it writes its descriptor itself (and can queue shared bodies).
    bool writesDescriptor() const { return m_server && !m_socket && m_fd >= 0; }
    // The queue behind m_out (connectionout.cpp): segments that are either owned bytes or a
    // reference to a shared body, sent in order once m_out is empty.
    void appendOwnedSegment(const char *data, qint64 size);
    void pushSharedSegment(const QByteArray &body);
    void popOutSegment();
    /// Sends queued segments until the kernel refuses: true when the queue is empty.
    bool drainOutQueue();
    void clearOutQueue();
    qint64 outQueueBytes() const;
    void overCap(qint64 wanted);
    void flushCorked();
    /// At the in-flight cap: stops reading unless the requests drained meanwhile (true = paused).
    bool pauseReading();
    /// Charges the partial frame held to the server's budget; false when it closed the connection.
    bool chargePendingInput();
    void setUpSocket(QTcpSocket *socket);
    // TLS (connectiontls.cpp).
    void sniffTls();
    void startServerTls();
    void connectEncrypted(const QString &host, quint16 port, const QSslConfiguration &config);
    void onTlsError(QAbstractSocket::SocketError error);
    bool tlsHandshaking() const;
    /// "peer closed the connection", with a hint at TLS when a plain client got no byte.
    QString peerClosedReason() const;
    void closeTlsHandshakeTimeout();
    void onWritable();
    /// Transport reads: > 0 bytes read, 0 nothing now, -1 end of stream or error (`error` says).
    qint64 readSome(char *data, qint64 size, QString &error);
    /// Transport writes: all of it is taken (sent or queued in order) or false on error.
    bool writeOut(const char *data, qint64 size, QString &error);
    /// Plain descriptor: sends what the kernel takes now (the socket never blocks); the bytes
    /// sent, fewer than `size` when its buffer is full, or -1 with the reason in `error`.
    qint64 sendNow(const char *data, qint64 size, QString &error);

    const ConnectionOptions m_options;
    ConnectionHandler *const m_handler;
    IoWorker *const m_worker;
    const std::uint64_t m_id;
    ConnectionCounters *const m_counters; // server connections only
    QByteArray m_remoteAddress;
    // Transport: client connections use an unbuffered QTcpSocket (host lookup, connect); server
    // connections read and write their accepted descriptor directly (one read notifier, a write
    // notifier only while the kernel refuses bytes).
    // TLS connections (both sides) use a buffered QSslSocket.
    QTcpSocket *m_socket = nullptr;
    int m_fd = -1;
    TlsServerContext *m_tlsContext = nullptr; // server: the server's, while sniffing
    bool m_server = false;
    bool m_sniffing = false; // server: the first byte decides between TLS and plain
    bool m_tls = false;
    bool m_receivedAny = false; // a byte arrived (a plain client closed before any: TLS hint)
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    QByteArray m_out; // server side: bytes the kernel has not taken yet, from m_outPos
    qsizetype m_outPos = 0;
    struct OutSegment
    {
        QByteArray bytes;
        bool shared = false;
    };
    std::deque<OutSegment> m_outQueue; // server side, behind m_out: see appendOwnedSegment()
    qsizetype m_outQueuePos = 0; // bytes of the front segment sent
    qint64 m_outQueueOwned = 0; // unsent bytes of the owned segments
    qint64 m_outQueueShared = 0; // bytes of the distinct shared bodies queued, each once
    std::map<std::pair<const char *, qsizetype>, int> m_sharedBodies; // body -> segments
    std::shared_ptr<ChannelImpl> m_channel;
    bool m_connected = false;
    bool m_closed = false;
    bool m_inProcessInput = false;
    bool m_ownerCorked = false; // cork() .. uncork()
    bool m_readPending = false; // more may be readable: onReadyRead() again after decoding
    bool m_readPaused = false; // in-flight cap reached: the read notifier is off
    qint64 m_chargedInput = 0; // bytes charged to m_counters->pendingInputBytes

    QByteArray m_in; // received bytes; [m_inPos, size) not yet decoded
    qsizetype m_inPos = 0;
    QByteArray m_preconnect; // frames queued before the connection came up (client side)
    QByteArray m_scratch; // encode buffer, reused
    QByteArray m_corked; // frames produced while a read batch is processed; written after it
    QElapsedTimer m_lastActivity; // server: last complete frame; client: last read or write
    QElapsedTimer m_frameStarted; // server: a partial frame is held since (invalid: none)
    QElapsedTimer m_connectStarted;
    std::unordered_map<int, Pending> m_pending; // opaque -> invocation awaiting its response
};

} // namespace qrocket::remoting
