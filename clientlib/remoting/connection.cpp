#include "clientlib/remoting/connection.h"

#include "clientlib/remoting/channelimpl.h"
#include "clientlib/remoting/ioworker.h"
#include "clientlib/remoting/logging.h"

#include <QTcpSocket>

#include <atomic>
#include <exception>
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
    IoWorker *worker, QByteArray remoteAddress)
    : QObject(worker)
    , m_options(options)
    , m_handler(handler)
    , m_worker(worker)
    , m_id(nextConnectionId())
    , m_remoteAddress(std::move(remoteAddress))
    , m_socket(new QTcpSocket(this))
{
    m_channel = std::make_shared<ChannelImpl>(m_id, m_remoteAddress, this, thread());
    m_lastActivity.start();
    m_worker->addConnection(this);
}

Connection::~Connection()
{
    m_channel->detach();
    m_worker->removeConnection(this);
}

ChannelPtr Connection::channel() const
{
    return m_channel;
}

void Connection::setUpSocket()
{
    connect(m_socket, &QTcpSocket::readyRead, this, &Connection::onReadyRead);
    connect(m_socket, &QTcpSocket::bytesWritten, this, [this] { m_lastActivity.start(); });
    connect(m_socket, &QTcpSocket::disconnected, this,
        [this] { close(QStringLiteral("peer closed the connection")); });
    connect(m_socket, &QTcpSocket::errorOccurred, this, &Connection::onErrorOccurred);
}

bool Connection::adoptDescriptor(qintptr descriptor)
{
    if (!m_socket->setSocketDescriptor(descriptor)) {
        qCWarning(
            lcRemoting, "cannot adopt accepted socket: %s", qPrintable(m_socket->errorString()));
        ::close(static_cast<int>(descriptor));
        close(QStringLiteral("setSocketDescriptor failed"));
        return false;
    }
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_remoteAddress = formatPeerAddress(m_socket->peerAddress(), m_socket->peerPort());
    m_channel->setRemoteAddress(m_remoteAddress);
    m_connected = true;
    setUpSocket();
    m_lastActivity.start();
    qCDebug(lcRemoting, "connection %llu from %s", static_cast<unsigned long long>(m_id),
        m_remoteAddress.constData());
    // Bytes may have arrived before the notifier was set up.
    if (m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &Connection::onReadyRead, Qt::QueuedConnection);
    return true;
}

void Connection::connectToHost(const QString &host, quint16 port)
{
    setUpSocket();
    connect(m_socket, &QTcpSocket::connected, this, &Connection::onConnected);
    m_connectStarted.start();
    m_socket->connectToHost(host, port);
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
    if (error == QAbstractSocket::RemoteHostClosedError) {
        close(QStringLiteral("peer closed the connection"));
        return;
    }
    close(m_socket->errorString());
}

qint64 Connection::unsentBytes() const
{
    return m_socket->bytesToWrite() + m_preconnect.size() + m_corked.size();
}

void Connection::overCap(qint64 wanted)
{
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
    if (m_inProcessInput) {
        m_corked.append(bytes);
        return;
    }
    if (m_socket->write(bytes.data(), bytes.size()) != bytes.size()) {
        close(QStringLiteral("write failed: ") + m_socket->errorString());
        return;
    }
    // Hand the bytes to the kernel now rather than on Qt's queued flush one loop turn later.
    m_socket->flush();
}

void Connection::flushCorked()
{
    if (m_corked.isEmpty() || m_closed)
        return;
    const qint64 written = m_socket->write(m_corked.constData(), m_corked.size());
    const bool failed = written != m_corked.size();
    if (m_corked.capacity() > kKeepBufferBytes)
        m_corked = QByteArray();
    else
        m_corked.resize(0);
    if (failed)
        close(QStringLiteral("write failed: ") + m_socket->errorString());
    else
        m_socket->flush();
}

void Connection::invoke(RemotingCommand request, int timeoutMillis, InvokeCallback callback)
{
    if (m_closed) {
        completeInvocation(callback,
            Status::unavailable(
                QStringLiteral("connection to %1 closed").arg(QLatin1String(m_remoteAddress))));
        return;
    }
    request.opaque = nextOpaque();
    request.flag &= ~(RemotingCommand::kFlagResponse | RemotingCommand::kFlagOneway);
    const auto deadline
        = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(timeoutMillis, 0));
    m_pending.insert_or_assign(request.opaque, Pending {deadline, std::move(callback)});
    sendCommand(request);
}

void Connection::onReadyRead()
{
    if (m_closed || m_inProcessInput)
        return;
    m_lastActivity.start();
    const qint64 available = m_socket->bytesAvailable();
    if (available <= 0)
        return;
    if (m_inPos > 0) {
        m_in.remove(0, m_inPos);
        m_inPos = 0;
    }
    const qsizetype old = m_in.size();
    m_in.resize(old + available);
    const qint64 got = m_socket->read(m_in.data() + old, available);
    m_in.resize(old + std::max<qint64>(got, 0));
    processInput();
}

void Connection::processInput()
{
    if (m_inProcessInput)
        return; // a callback re-entered the event loop path; the outer loop continues
    m_inProcessInput = true;
    while (!m_closed && m_inPos < m_in.size()) {
        RemotingCommand cmd;
        const auto result
            = protocol::decodeFrame(QByteArrayView(m_in).sliced(m_inPos), cmd, m_options.limits);
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
        handleFrame(std::move(cmd));
    }
    if (m_inPos >= m_in.size()) {
        m_inPos = 0;
        if (m_in.capacity() > kKeepBufferBytes)
            m_in = QByteArray();
        else
            m_in.resize(0);
    }
    m_inProcessInput = false;
    flushCorked();
    if (!m_closed && m_socket->bytesAvailable() > 0)
        QMetaObject::invokeMethod(this, &Connection::onReadyRead, Qt::QueuedConnection);
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
    qCDebug(lcRemoting, "closing connection %llu to %s: %s", static_cast<unsigned long long>(m_id),
        m_remoteAddress.constData(), qPrintable(reason));
    m_channel->detach();
    m_socket->disconnect(this);
    m_socket->abort();
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
    if (m_options.idleTimeout.count() > 0
        && m_lastActivity.elapsed() > m_options.idleTimeout.count()) {
        qCInfo(lcRemoting, "closing idle connection to %s", m_remoteAddress.constData());
        close(QStringLiteral("idle timeout"));
    }
}

} // namespace qrocket::remoting
