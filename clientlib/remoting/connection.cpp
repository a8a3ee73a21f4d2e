#include "clientlib/remoting/connection.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/channelimpl.h"
#include "clientlib/remoting/ioworker.h"
#include "clientlib/remoting/logging.h"
#include "clientlib/remoting/tlsconfig.h"

#include <QSocketNotifier>
#include <QTcpSocket>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace qrocket::remoting {

using protocol::DecodeStatus;
using protocol::RemotingCommand;

namespace {

std::uint64_t nextConnectionId()
{
    static std::atomic<std::uint64_t> counter {1};
    return counter.fetch_add(1, std::memory_order_relaxed);
}

constexpr qsizetype kKeepBufferBytes = 1024 * 1024; // larger idle read buffers are released
constexpr qsizetype kCompactOutBytes = 64 * 1024; // smallest sent prefix worth moving bytes for
// Free space offered to each read(): grows (doubling) while reads fill it; an emptied read buffer
// larger than this is released, so an idle connection holds at most this much.
constexpr qsizetype kReadChunk = 16 * 1024;
constexpr qsizetype kReadPerTurn = 1024 * 1024; // bytes read before decoding; then yield
// A partial frame this small never closes its connection over the server's input budget: a
// pipelining client's reads end inside a frame all the time, and a connection's read buffer
// holds this much anyway.
constexpr qint64 kBudgetExemptBytes = 64 * 1024;
// Unbuffered: read() and write() go straight to the kernel (no QIODevice ring buffers, no extra
// copies); what the kernel does not take at once is queued by QAbstractSocket and flushed on
// its write notifier.
constexpr QIODevice::OpenMode kSocketMode = QIODevice::ReadWrite | QIODevice::Unbuffered;

} // namespace

QByteArray formatPeerAddress(const QHostAddress &address, quint16 port)
{
    bool isV4 = false;
    const quint32 v4 = address.toIPv4Address(&isV4);
    QByteArray text;
    if (isV4)
        text = QHostAddress(v4).toString().toLatin1();
    else if (address.protocol() == QAbstractSocket::IPv6Protocol)
        text = '[' + address.toString().toLatin1() + ']';
    else
        text = address.toString().toLatin1();
    return text + ':' + QByteArray::number(port);
}

Connection::Connection(const ConnectionOptions &options, ConnectionHandler *handler,
    IoWorker *worker, QByteArray remoteAddress, ConnectionCounters *counters)
    : QObject(worker)
    , m_options(options)
    , m_handler(handler)
    , m_worker(worker)
    , m_id(nextConnectionId())
    , m_counters(counters)
    , m_remoteAddress(std::move(remoteAddress))
{
    m_channel = std::make_shared<ChannelImpl>(
        m_id, m_remoteAddress, this, thread(), std::max(options.maxInflightRequests, 0));
    m_lastActivity.start();
    m_worker->addConnection(this);
}

Connection::~Connection()
{
    if (m_counters && m_chargedInput != 0)
        m_counters->pendingInputBytes.fetch_sub(m_chargedInput, std::memory_order_relaxed);
    if (m_fd >= 0) {
        m_readNotifier->setEnabled(false);
        m_writeNotifier->setEnabled(false);
        ::close(m_fd);
    }
    m_channel->detach();
    m_worker->removeConnection(this);
}

ChannelPtr Connection::channel() const
{
    return m_channel;
}

void Connection::setUpSocket(QTcpSocket *socket)
{
    m_socket = socket;
    connect(m_socket, &QTcpSocket::readyRead, this, &Connection::onReadyRead);
    if (!m_server) // a server's writes are not activity (a peer reading a trickle)
        connect(m_socket, &QTcpSocket::bytesWritten, this, [this] { m_lastActivity.start(); });
    connect(m_socket, &QTcpSocket::disconnected, this, [this] {
        if (m_tls)
            onTlsError(QAbstractSocket::RemoteHostClosedError); // says whether it was handshaking
        else
            close(peerClosedReason());
    });
    connect(m_socket, &QTcpSocket::errorOccurred, this, &Connection::onErrorOccurred);
}

bool Connection::adoptDescriptor(qintptr descriptor, TlsServerContext *tls)
{
    m_server = true;
    const int fd = static_cast<int>(descriptor);
    sockaddr_storage peer {};
    socklen_t peerLen = sizeof peer;
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0
        || ::getpeername(fd, reinterpret_cast<sockaddr *>(&peer), &peerLen) < 0) {
        const QString why = qt_error_string(errno);
        qCWarning(lcRemoting, "cannot adopt accepted socket: %s", qPrintable(why));
        ::close(fd);
        close(QStringLiteral("cannot adopt the accepted socket: ") + why);
        return false;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    m_fd = fd;
    const QHostAddress address(reinterpret_cast<const sockaddr *>(&peer));
    const quint16 port = peer.ss_family == AF_INET6
        ? ntohs(reinterpret_cast<const sockaddr_in6 *>(&peer)->sin6_port)
        : ntohs(reinterpret_cast<const sockaddr_in *>(&peer)->sin_port);
    m_remoteAddress = formatPeerAddress(address, port);
    m_channel->setRemoteAddress(m_remoteAddress);
    m_connected = true;
    m_readNotifier = new QSocketNotifier(fd, QSocketNotifier::Read, this);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &Connection::onReadyRead);
    m_writeNotifier = new QSocketNotifier(fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &Connection::onWritable);
    m_lastActivity.start();
    if (tls && tls->mode() != TlsMode::Disabled) {
        m_tlsContext = tls;
        m_sniffing = true; // the first readable byte decides: onReadyRead() -> sniffTls()
    }
    qCDebug(lcRemoting, "connection %llu from %s", static_cast<unsigned long long>(m_id),
        m_remoteAddress.constData());
    return true;
}

void Connection::connectToHost(const QString &host, quint16 port, const QSslConfiguration *tls)
{
    m_connectStarted.start();
    if (tls) {
        connectEncrypted(host, port, *tls);
        return;
    }
    setUpSocket(new QTcpSocket(this));
    connect(m_socket, &QTcpSocket::connected, this, &Connection::onConnected);
    m_socket->connectToHost(host, port, kSocketMode);
}

void Connection::onConnected()
{
    m_connected = true;
    m_lastActivity.start();
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    qCDebug(lcRemotingClient, "connected to %s (%s)", m_remoteAddress.constData(),
        formatPeerAddress(m_socket->peerAddress(), m_socket->peerPort()).constData());
    if (!m_preconnect.isEmpty()) {
        const QByteArray queued = std::exchange(m_preconnect, QByteArray());
        writeBytes(queued);
    }
}

void Connection::onErrorOccurred(QAbstractSocket::SocketError error)
{
    if (m_tls) {
        onTlsError(error);
        return;
    }
    if (error == QAbstractSocket::RemoteHostClosedError) {
        close(peerClosedReason());
        return;
    }
    close(m_socket->errorString());
}

qint64 Connection::unsentBytes() const
{
    const qint64 transport
        = m_socket ? m_socket->bytesToWrite() : m_out.size() - m_outPos + outQueueBytes();
    return transport + m_preconnect.size() + m_corked.size();
}

qint64 Connection::readSome(char *data, qint64 size, QString &error)
{
    if (m_socket) {
        // Plain: unbuffered, straight from the kernel; TLS: from the socket's decrypted bytes.
        const qint64 got = m_socket->read(data, size);
        if (got < 0) {
            error = m_socket->error() == QAbstractSocket::RemoteHostClosedError
                ? peerClosedReason()
                : m_socket->errorString();
        }
        return got;
    }
    for (;;) {
        const ssize_t got = ::recv(m_fd, data, static_cast<std::size_t>(size), 0);
        if (got > 0)
            return got;
        if (got == 0) {
            error = QStringLiteral("peer closed the connection");
            return -1;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        error = qt_error_string(errno);
        return -1;
    }
}

qint64 Connection::sendNow(const char *data, qint64 size, QString &error)
{
    qint64 done = 0;
    while (done < size) {
        const ssize_t n = ::send(
            m_fd, data + done, static_cast<std::size_t>(size - done), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            done += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        error = qt_error_string(errno);
        return -1;
    }
    return done;
}

bool Connection::writeOut(const char *data, qint64 size, QString &error)
{
    if (m_socket) {
        // Unbuffered socket: straight to the kernel; a remainder is queued by QAbstractSocket.
        if (m_socket->write(data, size) == size)
            return true;
        error = m_socket->errorString();
        return false;
    }
    if (!m_outQueue.empty()) {
        appendOwnedSegment(data, size); // behind a shared body still waiting
        return true;
    }
    if (m_outPos < m_out.size()) {
        // The sent prefix goes once it is as large as what is left (each byte moves at most once
        // more than it is sent): a peer that keeps reading but never catches up would otherwise
        // grow the buffer with everything ever sent through it, while the unsent bytes stay
        // under the cap.
        const qsizetype unsent = m_out.size() - m_outPos;
        if (m_outPos >= kCompactOutBytes && m_outPos >= unsent) {
            std::memmove(
                m_out.data(), m_out.constData() + m_outPos, static_cast<std::size_t>(unsent));
            m_out.resize(unsent);
            m_outPos = 0;
        }
        m_out.append(data, size); // keep the order: behind what the kernel has not taken yet
        return true;
    }
    const qint64 done = sendNow(data, size, error);
    if (done < 0)
        return false;
    if (done < size) {
        m_out.resize(0);
        m_out.append(data + done, size - done);
        m_outPos = 0;
        m_writeNotifier->setEnabled(true);
    }
    return true;
}

void Connection::onWritable()
{
    if (m_closed)
        return;
    if (m_outPos < m_out.size()) {
        QString error;
        const qint64 n = sendNow(m_out.constData() + m_outPos, m_out.size() - m_outPos, error);
        if (n < 0) {
            close(QStringLiteral("write failed: ") + error);
            return;
        }
        m_outPos += n; // server side: writing is not activity (a peer reading a trickle)
        if (m_outPos < m_out.size())
            return; // the notifier stays enabled
    }
    m_outPos = 0;
    if (m_out.capacity() > kKeepBufferBytes)
        m_out = QByteArray();
    else
        m_out.resize(0);
    if (drainOutQueue())
        m_writeNotifier->setEnabled(false);
}

void Connection::overCap(qint64 wanted)
{
    if (m_counters)
        m_counters->closedUnsentCap.fetch_add(1, std::memory_order_relaxed);
    static LogRateLimiter limiter;
    if (limiter.allow()) {
        qCWarning(lcRemoting, "closing %s: %lld unsent bytes exceed the cap of %lld",
            m_remoteAddress.constData(), static_cast<long long>(wanted),
            static_cast<long long>(m_options.maxUnsentBytes));
    }
    close(QStringLiteral("unsent bytes over the cap"));
}

void Connection::sendCommand(const RemotingCommand &cmd)
{
    if (m_closed)
        return;
    if (cmd.body.size() >= kShareBodyBytes && writesDescriptor() && m_connected) {
        // A large body (a prepared whole-table answer) is not copied: the head, then the body
        // from its own buffer.
        m_scratch.resize(0);
        protocol::encodeFrameHead(cmd, m_scratch);
        writeBytes(m_scratch);
        writeSharedBody(cmd.body, m_scratch.size());
        return;
    }
    if (m_connected && (m_inProcessInput || m_ownerCorked)) {
        // Corked (answers to a read batch): encoded straight behind the frames already waiting
        // (encodeFrame grows the buffer geometrically), not into m_scratch and copied again.
        const qsizetype before = m_corked.size();
        protocol::encodeFrame(cmd, m_corked);
        const qint64 size = m_corked.size() - before;
        const qint64 queued = unsentBytes() - size;
        if (queued > 0 && queued + size > m_options.maxUnsentBytes) {
            m_corked.truncate(before);
            overCap(queued + size);
        }
        return;
    }
    // Encoded on its own first: encodeFrame() reserves exactly, so appending frame after frame
    // to one growing buffer would reallocate each time.
    m_scratch.resize(0);
    protocol::encodeFrame(cmd, m_scratch);
    writeBytes(m_scratch);
    if (m_scratch.capacity() > kKeepBufferBytes)
        m_scratch = QByteArray();
}

void Connection::writeBytes(QByteArrayView bytes)
{
    if (m_closed || bytes.isEmpty())
        return;
    const qint64 queued = unsentBytes();
    if (queued > 0 && queued + bytes.size() > m_options.maxUnsentBytes) {
        overCap(queued + bytes.size());
        return;
    }
    if (!m_connected) {
        m_preconnect.append(bytes);
        return;
    }
    if (m_inProcessInput || m_ownerCorked) {
        m_corked.append(bytes);
        return;
    }
    QString error;
    if (!writeOut(bytes.data(), bytes.size(), error)) {
        close(QStringLiteral("write failed: ") + error);
        return;
    }
    if (!m_server)
        m_lastActivity.start(); // a client's writes are activity; a server's are not
}

void Connection::uncork()
{
    m_ownerCorked = false;
    if (!m_inProcessInput)
        flushCorked();
}

void Connection::flushCorked()
{
    if (m_corked.isEmpty() || m_closed)
        return;
    QString error;
    const bool ok = writeOut(m_corked.constData(), m_corked.size(), error);
    if (m_corked.capacity() > kKeepBufferBytes)
        m_corked = QByteArray();
    else
        m_corked.resize(0);
    if (!ok)
        close(QStringLiteral("write failed: ") + error);
    else if (!m_server)
        m_lastActivity.start();
}

void Connection::invoke(RemotingCommand request, int timeoutMillis, InvokeCallback callback)
{
    invokeUntil(std::move(request),
        std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeoutMillis, 0)),
        std::move(callback));
}

void Connection::invokeUntil(RemotingCommand request,
    std::chrono::steady_clock::time_point deadline, InvokeCallback callback)
{
    if (m_closed) {
        completeInvocation(callback,
            Status::unavailable(
                QStringLiteral("connection to %1 closed").arg(QLatin1String(m_remoteAddress))));
        return;
    }
    request.opaque = nextOpaque();
    request.flag &= ~(RemotingCommand::kFlagResponse | RemotingCommand::kFlagOneway);
    m_pending.insert_or_assign(request.opaque, Pending {deadline, std::move(callback)});
    sendCommand(request);
}

void Connection::onReadyRead()
{
    if (m_closed || m_readPaused)
        return;
    if (m_sniffing) {
        sniffTls();
        return;
    }
    if (m_inProcessInput) {
        m_readPending = true; // processInput() reads again when it is done
        return;
    }
    m_readPending = false;
    if (m_inPos > 0) {
        // Move the undecoded tail to the front. Not QByteArray::remove(0, n): that only advances
        // the data pointer, and capacity() still counts the bytes before it, so the room below
        // would be overstated and every resize() would reallocate and double the buffer (a
        // client under sustained load with partial frames ran out of address space that way).
        const qsizetype rest = m_in.size() - m_inPos;
        if (m_in.isDetached()) {
            char *data = m_in.data();
            std::memmove(data, data + m_inPos, std::size_t(rest));
            m_in.truncate(rest);
        } else {
            m_in = QByteArray(m_in.constData() + m_inPos, rest); // a body still shares it
        }
        m_inPos = 0;
    }
    // Read straight into the decode buffer, in large chunks, until the kernel has no more (or a
    // turn's worth arrived: then decode, answer, and come back).
    qsizetype readThisTurn = 0;
    for (;;) {
        const qsizetype old = m_in.size();
        if (m_in.capacity() - old < kReadChunk)
            m_in.reserve(std::max(old + kReadChunk, m_in.capacity() * 2));
        const qsizetype room = m_in.capacity() - old;
        m_in.resize(old + room);
        QString error;
        const qint64 got = readSome(m_in.data() + old, room, error);
        m_in.resize(old + std::max<qint64>(got, 0));
        if (got < 0) {
            // Reads report end of stream and errors here, not by signal.
            processInput(); // frames that arrived before the end are still dispatched
            close(error);
            return;
        }
        readThisTurn += got;
        m_receivedAny = m_receivedAny || got > 0;
        if (got < room)
            break;
        if (readThisTurn >= kReadPerTurn) {
            m_readPending = true;
            break;
        }
    }
    if (readThisTurn > 0 && !m_server)
        m_lastActivity.start(); // a server's idle clock runs until a frame is complete
    processInput();
}

void Connection::processInput()
{
    if (m_inProcessInput)
        return; // a callback re-entered the event loop path; the outer loop continues
    m_inProcessInput = true;
    bool framed = false;
    while (!m_closed && m_inPos < m_in.size()) {
        RemotingCommand cmd;
        // A server's request bodies share the receive buffer: a send's body goes from here to
        // the commit log without a copy of its own (ProcessorTable copies the bodies it queues).
        // A client's responses (pulled messages an application may keep) are copied.
        const auto result = m_server
            ? protocol::decodeFrameSharingBody(m_in, m_inPos, cmd, m_options.limits)
            : protocol::decodeFrame(QByteArrayView(m_in).sliced(m_inPos), cmd, m_options.limits);
        if (result.status == DecodeStatus::NeedMore)
            break;
        if (result.status == DecodeStatus::Invalid) {
            static LogRateLimiter limiter;
            if (limiter.allow()) {
                qCWarning(lcRemoting, "invalid frame from %s, closing: %s",
                    m_remoteAddress.constData(), qPrintable(result.error));
            }
            close(QStringLiteral("invalid frame: ") + result.error);
            break;
        }
        m_inPos += result.consumed;
        framed = true;
        handleFrame(std::move(cmd));
        // At the in-flight cap the rest stays in the buffer until answers drain.
        if (m_channel->inflightAtCap() && !m_closed && pauseReading())
            break;
    }
    if (m_inPos >= m_in.size()) {
        m_inPos = 0;
        if (m_in.capacity() > kReadChunk || !m_in.isDetached())
            m_in = QByteArray(); // too large to keep idle, or a body still holds it
        else
            m_in.resize(0);
    }
    if (m_server && !m_closed) {
        // Server side: a complete frame is activity; a frame begun starts the frame clock.
        if (framed)
            m_lastActivity.start();
        if (m_inPos >= m_in.size())
            m_frameStarted.invalidate();
        else if (framed || !m_frameStarted.isValid())
            m_frameStarted.start();
        if (m_counters)
            chargePendingInput();
    }
    m_inProcessInput = false;
    if (!m_ownerCorked)
        flushCorked();
    if (!m_closed && m_readPending && !m_readPaused)
        invokeOn(this, [this] { onReadyRead(); });
}

bool Connection::pauseReading()
{
    if (!m_server || m_readPaused || !m_channel->markReadPaused())
        return m_readPaused;
    m_readPaused = true;
    if (m_readNotifier) // TLS: the socket stops at its read buffer size while nothing is read
        m_readNotifier->setEnabled(false);
    if (m_counters)
        m_counters->inflightPauses.fetch_add(1, std::memory_order_relaxed);
    qCDebug(lcRemoting, "connection %s: %d requests in flight, reading paused",
        m_remoteAddress.constData(), m_channel->inflight());
    return true;
}

void Connection::resumeReading()
{
    if (m_closed || !m_readPaused)
        return;
    m_readPaused = false;
    if (m_readNotifier)
        m_readNotifier->setEnabled(true);
    // The pause was the server's doing: the peer's clocks start again.
    m_lastActivity.start();
    if (m_frameStarted.isValid())
        m_frameStarted.start();
    onReadyRead(); // decodes what waited in the buffer, then reads on
}

bool Connection::chargePendingInput()
{
    const qint64 held = m_in.size() - m_inPos;
    const qint64 delta = held - m_chargedInput;
    if (delta == 0)
        return true;
    m_chargedInput = held;
    const std::int64_t total
        = m_counters->pendingInputBytes.fetch_add(delta, std::memory_order_relaxed) + delta;
    const std::int64_t budget = m_counters->maxPendingInputBytes;
    if (delta < 0 || budget <= 0 || total <= budget || held <= kBudgetExemptBytes || m_readPaused)
        return true;
    m_counters->closedInputBudget.fetch_add(1, std::memory_order_relaxed);
    static LogRateLimiter limiter;
    if (limiter.allow()) {
        qCWarning(lcRemoting,
            "closing %s: its partial frame of %lld bytes takes the server's partial-frame bytes "
            "to %lld, over serverMaxPendingInputBytes (%lld)",
            m_remoteAddress.constData(), static_cast<long long>(held),
            static_cast<long long>(total), static_cast<long long>(budget));
    }
    close(QStringLiteral("partial frames over the server's input budget"));
    return false;
}

void Connection::handleFrame(RemotingCommand cmd)
{
    if (cmd.isResponse()) {
        const auto it = m_pending.find(cmd.opaque);
        if (it == m_pending.end()) {
            qCDebug(lcRemoting, "response from %s for unknown opaque %d (timed out?)",
                m_remoteAddress.constData(), cmd.opaque);
            return;
        }
        InvokeCallback callback = std::move(it->second.callback);
        m_pending.erase(it);
        completeInvocation(callback, std::move(cmd));
        return;
    }
    if (!cmd.isOneway())
        m_channel->acquireRequest(); // released by the request's Responder (requestprocessor.h)
    try {
        m_handler->handleRequest(m_channel, std::move(cmd));
    } catch (const std::exception &e) {
        qCWarning(
            lcRemoting, "request handling for %s threw: %s", m_remoteAddress.constData(), e.what());
    } catch (...) {
        qCWarning(lcRemoting, "request handling for %s threw", m_remoteAddress.constData());
    }
}

void Connection::close(const QString &reason)
{
    if (m_closed)
        return;
    m_closed = true;
    if (m_counters && m_chargedInput != 0) {
        m_counters->pendingInputBytes.fetch_sub(m_chargedInput, std::memory_order_relaxed);
        m_chargedInput = 0;
    }
    qCDebug(lcRemoting, "closing connection %llu to %s: %s", static_cast<unsigned long long>(m_id),
        m_remoteAddress.constData(), qPrintable(reason));
    m_channel->detach();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
    if (m_fd >= 0) {
        // Disabled, not deleted: close() may run inside their activated() signal. They go with
        // this object.
        m_readNotifier->setEnabled(false);
        m_writeNotifier->setEnabled(false);
        ::close(m_fd);
        m_fd = -1;
    }
    clearOutQueue();
    m_worker->removeConnection(this);
    m_handler->connectionClosed(this);
    auto pending = std::exchange(m_pending, {});
    const Status status = Status::unavailable(
        QStringLiteral("connection to %1 closed: %2").arg(QLatin1String(m_remoteAddress), reason));
    for (auto &entry : pending)
        completeInvocation(entry.second.callback, status);
    deleteLater();
}

void Connection::housekeep(std::chrono::steady_clock::time_point now)
{
    if (m_closed)
        return;
    if (!m_pending.empty()) {
        std::vector<InvokeCallback> expired;
        for (auto it = m_pending.begin(); it != m_pending.end();) {
            if (it->second.deadline <= now) {
                expired.push_back(std::move(it->second.callback));
                it = m_pending.erase(it);
            } else {
                ++it;
            }
        }
        for (auto &callback : expired) {
            completeInvocation(callback,
                Status::timeout(QStringLiteral("no response from %1 in time")
                                    .arg(QLatin1String(m_remoteAddress))));
        }
    }
    if (m_closed)
        return;
    if (!m_connected) {
        if (m_connectStarted.isValid()
            && m_connectStarted.elapsed() > m_options.connectTimeout.count()) {
            close(QStringLiteral("connect timeout"));
        }
        return;
    }
    if (m_readPaused)
        return; // waiting for the server's own answers: not the peer's idleness
    if (m_options.idleTimeout.count() > 0
        && m_lastActivity.elapsed() > m_options.idleTimeout.count()) {
        qCInfo(lcRemoting, "closing idle connection to %s", m_remoteAddress.constData());
        if (m_counters)
            m_counters->closedIdle.fetch_add(1, std::memory_order_relaxed);
        close(QStringLiteral("idle timeout"));
        return;
    }
    if (m_server && m_options.frameTimeout.count() > 0 && m_frameStarted.isValid()
        && m_frameStarted.elapsed() > m_options.frameTimeout.count()) {
        if (tlsHandshaking()) {
            closeTlsHandshakeTimeout();
            return;
        }
        if (m_counters)
            m_counters->closedFrameTimeout.fetch_add(1, std::memory_order_relaxed);
        static LogRateLimiter limiter;
        if (limiter.allow()) {
            qCWarning(lcRemoting,
                "closing %s: a frame begun %lld ms ago is still incomplete (%lld "
                "bytes held; frame timeout %lld ms)",
                m_remoteAddress.constData(), static_cast<long long>(m_frameStarted.elapsed()),
                static_cast<long long>(m_in.size() - m_inPos),
                static_cast<long long>(m_options.frameTimeout.count()));
        }
        close(QStringLiteral("frame not complete in time"));
    }
}

} // namespace qrocket::remoting
