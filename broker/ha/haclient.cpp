#include "broker/ha/haclient.h"

#include "broker/common/logging.h"
#include "broker/ha/haprotocol.h"
#include "clientlib/remoting/tlsconfig.h"
#include "storage/messagestore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QSslSocket>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qrocket::broker::ha {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
constexpr int kConnectTimeoutMs = 3000;
constexpr int kPollSliceMs = 100;
/// A record larger than this is not one (maxMessageSize is at most 64 MiB).
constexpr std::int64_t kMaxRecord = 64LL * 1024 * 1024 + 64 * 1024;
/// The start of the largest record (4 MiB body + room) plus the largest transfer after it.
constexpr std::int64_t kMaxCarry = 4 * 1024 * 1024 + 64 * 1024 + kSlaveReadBufferSize;
/// What a TLS socket reads ahead of the slave's read buffer.
constexpr qint64 kTlsReadAheadBytes = 1024 * 1024;
/// Unsent report bytes a TLS socket may hold (a master that reads nothing).
constexpr qint64 kTlsMaxUnsentBytes = 64 * 1024;
} // namespace

// The session's byte stream: a plain descriptor or a TLS socket.
class HALink
{
public:
    virtual ~HALink() = default;
    /// 1 readable (or closed), 0 nothing within `ms`, -1 error.
    virtual int waitReadable(int ms) = 0;
    /// > 0 bytes read, 0 the peer closed, -1 nothing now, -2 error (errorText()).
    virtual qint64 read(char *data, qint64 max) = 0;
    virtual Status write(
        const char *data, qint64 size, int timeoutMs, const std::atomic<bool> &abort)
        = 0;
    virtual QString errorText() const = 0;
};

namespace {

class PlainLink final : public HALink
{
public:
    explicit PlainLink(int fd) : m_fd(fd) { }
    int waitReadable(int ms) override { return ha::waitReadable(m_fd, ms); }
    qint64 read(char *data, qint64 max) override
    {
        const ssize_t n = ::recv(m_fd, data, static_cast<size_t>(max), 0);
        if (n >= 0)
            return n;
        m_errno = errno;
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
    }
    Status write(
        const char *data, qint64 size, int timeoutMs, const std::atomic<bool> &abort) override
    {
        iovec iov {const_cast<char *>(data), static_cast<size_t>(size)};
        return sendAll(m_fd, &iov, 1, timeoutMs, abort);
    }
    QString errorText() const override { return QString::fromLocal8Bit(::strerror(m_errno)); }

private:
    const int m_fd;
    int m_errno = 0;
};

class TlsLink final : public HALink
{
public:
    explicit TlsLink(QSslSocket &socket) : m_socket(socket) { }
    int waitReadable(int ms) override
    {
        // No event loop runs here: deliver what the socket posted to itself (its queued
        // read-buffer and write-buffer flushes), so nothing piles up in the thread's queue.
        QCoreApplication::sendPostedEvents();
        if (m_socket.bytesAvailable() > 0 || m_socket.state() != QAbstractSocket::ConnectedState)
            return 1;
        // Also sends what write() left buffered. False on a timeout and on a close.
        m_socket.waitForReadyRead(ms);
        return m_socket.bytesAvailable() > 0 || m_socket.state() != QAbstractSocket::ConnectedState
            ? 1
            : 0;
    }
    qint64 read(char *data, qint64 max) override
    {
        const qint64 n = m_socket.read(data, max);
        if (n > 0)
            return n;
        if (n < 0)
            return -2;
        return m_socket.state() == QAbstractSocket::ConnectedState ? -1 : 0;
    }
    Status write(const char *data, qint64 size, int, const std::atomic<bool> &) override
    {
        if (m_socket.state() != QAbstractSocket::ConnectedState
            || m_socket.write(data, size) != size)
            return Status::ioError(m_socket.errorString());
        m_socket.flush();
        if (m_socket.encryptedBytesToWrite() + m_socket.bytesToWrite() > kTlsMaxUnsentBytes)
            return Status::timeout(QStringLiteral("the master reads nothing"));
        return {};
    }
    QString errorText() const override { return m_socket.errorString(); }

private:
    QSslSocket &m_socket;
};

/// The host of "host:port" / "[v6]:port", for the certificate's name check.
QString hostOf(const QByteArray &hostPort)
{
    QByteArray host = hostPort.left(hostPort.lastIndexOf(':'));
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    return QString::fromUtf8(host);
}

} // namespace

HAClient::HAClient(storage::MessageStore &store, const storage::MessageStoreConfig &config,
    AddressProvider masterAddress)
    : m_store(store)
    , m_heartbeatMs(config.haSendHeartbeatInterval)
    , m_housekeepingMs(config.haHousekeepingInterval)
    , m_masterAddress(std::move(masterAddress))
    , m_buffer(kSlaveReadBufferSize)
    , m_carry(kMaxCarry)
{ }

HAClient::~HAClient()
{
    stop();
}

void HAClient::setTls(const remoting::TlsSettings &settings)
{
    m_tlsConfig.reset();
    m_tlsStatus = {};
    if (!settings.enable)
        return;
    Result<QSslConfiguration> config = remoting::clientTlsConfiguration(settings);
    if (config)
        m_tlsConfig = *config;
    else
        m_tlsStatus = config.error();
}

void HAClient::start()
{
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
    ::pthread_setname_np(m_thread.native_handle(), "qr-ha-client");
}

void HAClient::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

QByteArray HAClient::masterAddress() const
{
    std::lock_guard lock(m_mutex);
    return m_currentMaster;
}

QByteArray HAClient::localAddress() const
{
    std::lock_guard lock(m_mutex);
    return m_connected.load() ? m_localAddress : QByteArray();
}

void HAClient::pause(int ms)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_stopping.load(); });
}

void HAClient::run()
{
    // TLS: QSslSocket needs an event dispatcher on this thread (its waitFor* functions run it).
    std::optional<QEventLoop> dispatcher;
    if (m_tlsConfig)
        dispatcher.emplace();
    const int retryMs = std::min(5000, m_heartbeatMs);
    QByteArray lastFailed; // the address whose connect failure was logged last
    while (!m_stopping.load()) {
        const QByteArray addr = m_masterAddress ? m_masterAddress() : QByteArray();
        if (addr.isEmpty()) {
            pause(std::min(1000, retryMs));
            continue;
        }
        {
            std::lock_guard lock(m_mutex);
            m_currentMaster = addr;
        }
        SessionEnd end = SessionEnd::Dropped;
        QString why;
        if (!connectAndServe(addr, end, why)) {
            if (lastFailed != addr)
                qCWarning(lcBrokerHa).noquote()
                    << "cannot connect to the master's HA address" << addr << ":" << why
                    << "- retrying every" << retryMs << "ms";
            lastFailed = addr;
            pause(retryMs);
            continue;
        }
        lastFailed.clear();
        if (end == SessionEnd::Stopped)
            break;
        pause(end == SessionEnd::Refused ? m_housekeepingMs : retryMs);
    }
}

bool HAClient::connectAndServe(const QByteArray &addr, SessionEnd &end, QString &why)
{
    if (!m_tlsStatus.isOk()) {
        why = QStringLiteral("tls.enable is set but the TLS settings do not load: %1")
                  .arg(m_tlsStatus.message());
        return false;
    }
    Result<SocketFd> fd = connectTcp(addr, kConnectTimeoutMs);
    if (!fd) {
        why = fd.error().message();
        return false;
    }
    {
        std::lock_guard lock(m_mutex);
        m_localAddress = localName(fd->get());
    }
    if (!m_tlsConfig) {
        qCInfo(lcBrokerHa).noquote() << "connected to master" << addr << "- commit log ends at"
                                     << m_store.commitLogMaxOffset();
        PlainLink link(fd->get());
        m_connected = true;
        end = session(link);
        m_connected = false;
        return true;
    }
    QSslSocket socket;
    socket.setSslConfiguration(*m_tlsConfig);
    socket.setPeerVerifyName(hostOf(addr));
    socket.setReadBufferSize(kTlsReadAheadBytes);
    const int descriptor = fd->release();
    if (!socket.setSocketDescriptor(descriptor, QAbstractSocket::ConnectedState)) {
        ::close(descriptor);
        why = QStringLiteral("cannot start TLS: %1").arg(socket.errorString());
        return false;
    }
    socket.startClientEncryption();
    const std::int64_t deadline = steadyMs() + kConnectTimeoutMs;
    while (!socket.isEncrypted()) {
        if (m_stopping.load()) {
            end = SessionEnd::Stopped;
            return true;
        }
        if (socket.state() != QAbstractSocket::ConnectedState || steadyMs() > deadline) {
            QStringList errors;
            for (const QSslError &e : socket.sslHandshakeErrors())
                errors.append(e.errorString());
            why = QStringLiteral("TLS handshake failed: %1")
                      .arg(!errors.isEmpty() ? errors.join(QStringLiteral("; "))
                              : socket.state() == QAbstractSocket::ConnectedState
                              ? QStringLiteral("not complete in %1 ms").arg(kConnectTimeoutMs)
                              : socket.errorString());
            socket.abort();
            return false;
        }
        socket.waitForEncrypted(kPollSliceMs);
    }
    qCInfo(lcBrokerHa).noquote() << "connected to master" << addr << "with TLS"
                                 << (socket.sessionProtocol() == QSsl::TlsV1_3 ? "1.3" : "1.2")
                                 << "- commit log ends at" << m_store.commitLogMaxOffset();
    TlsLink link(socket);
    m_connected = true;
    end = session(link);
    m_connected = false;
    socket.abort();
    return true;
}

bool HAClient::report(HALink &link)
{
    const std::int64_t offset = m_store.commitLogMaxOffset();
    char out[kReportSize];
    encodeReport(out, offset);
    if (Status st = link.write(out, kReportSize, m_housekeepingMs, m_stopping); !st) {
        qCWarning(lcBrokerHa).noquote() << "report to master failed:" << st.message();
        return false;
    }
    m_reported.store(offset, std::memory_order_release);
    m_lastReport = steadyMs();
    m_lastWriteWall.store(QDateTime::currentMSecsSinceEpoch());
    return true;
}

bool HAClient::appendWhole(std::int64_t offset, QByteArrayView bytes)
{
    QByteArrayView data = bytes;
    if (m_carrySize > 0) {
        // A record started in an earlier transfer: complete it in the carry buffer.
        if (m_carrySize + bytes.size() > static_cast<std::int64_t>(m_carry.size())) {
            qCWarning(lcBrokerHa) << "a record from the master exceeds" << m_carry.size()
                                  << "bytes: dropping the connection";
            return false;
        }
        std::memcpy(m_carry.data() + m_carrySize, bytes.data(), static_cast<size_t>(bytes.size()));
        m_carrySize += bytes.size();
        data = QByteArrayView(m_carry.data(), m_carrySize);
        offset = m_carryOffset;
    }
    // Where the whole records end (a BLANK record counts as its declared size).
    qsizetype whole = 0;
    while (data.size() - whole >= 8) {
        const std::int32_t size = readI32(data.data() + whole);
        if (size < 8 || size > kMaxRecord) {
            qCWarning(lcBrokerHa) << "the master's stream at" << offset + whole
                                  << "is not a commit-log record (size" << size
                                  << "): dropping the connection";
            return false;
        }
        if (data.size() - whole < size)
            break;
        whole += size;
    }
    if (whole > 0) {
        if (Status st = m_store.appendReplicated(offset, data.first(whole)); !st) {
            qCCritical(lcBrokerHa).noquote()
                << "cannot append replicated data at" << offset << ":" << st.message();
            return false;
        }
    }
    const qsizetype rest = data.size() - whole;
    if (rest > static_cast<qsizetype>(m_carry.size())) {
        qCWarning(lcBrokerHa) << "a record from the master exceeds" << m_carry.size()
                              << "bytes: dropping the connection";
        return false;
    }
    // memmove: the rest may be in the carry buffer already.
    std::memmove(m_carry.data(), data.data() + whole, static_cast<size_t>(rest));
    m_carrySize = rest;
    m_carryOffset = offset + whole;
    return true;
}

HAClient::SessionEnd HAClient::session(HALink &link)
{
    m_have = 0;
    m_carrySize = 0; // the master starts again at this slave's end
    if (!report(link))
        return m_stopping.load() ? SessionEnd::Stopped : SessionEnd::Dropped;
    std::int64_t lastRead = steadyMs();
    while (!m_stopping.load()) {
        const int rc = link.waitReadable(kPollSliceMs);
        if (rc < 0)
            return SessionEnd::Dropped;
        if (rc > 0) {
            const qint64 room = kSlaveReadBufferSize - m_have;
            const qint64 n = link.read(m_buffer.data() + m_have, room);
            if (n == 0) {
                qCWarning(lcBrokerHa).noquote() << "the master closed the HA connection";
                return SessionEnd::Dropped;
            }
            if (n == -2) {
                qCWarning(lcBrokerHa).noquote() << "HA read failed:" << link.errorText();
                return SessionEnd::Dropped;
            }
            if (n > 0) {
                m_have += n;
                lastRead = steadyMs();
                m_lastReadWall.store(QDateTime::currentMSecsSinceEpoch());
                SessionEnd end = SessionEnd::Dropped;
                if (!dispatch(link, end))
                    return end;
            }
        }
        if (steadyMs() - m_lastReport >= m_heartbeatMs && !report(link))
            return SessionEnd::Dropped;
        if (steadyMs() - lastRead > m_housekeepingMs) {
            qCWarning(lcBrokerHa).noquote() << "nothing from the master for" << m_housekeepingMs
                                            << "ms (haHousekeepingInterval): reconnecting";
            return SessionEnd::Dropped;
        }
    }
    return SessionEnd::Stopped;
}

bool HAClient::dispatch(HALink &link, SessionEnd &end)
{
    std::int64_t at = 0;
    bool appended = false;
    while (m_have - at >= kHeaderSize) {
        const TransferHeader h = decodeHeader(m_buffer.data() + at);
        if (h.bodySize < 0 || h.bodySize > kSlaveReadBufferSize - kHeaderSize) {
            qCWarning(lcBrokerHa).noquote()
                << "malformed transfer header from the master (body size" << h.bodySize
                << "): dropping the connection";
            return false;
        }
        if (m_have - at < kHeaderSize + h.bodySize)
            break;
        // Where the master's next transfer must start: this slave's end, or the end of a
        // record's start still waiting for the rest.
        const std::int64_t mine
            = m_carrySize > 0 ? m_carryOffset + m_carrySize : m_store.commitLogMaxOffset();
        // An empty commit log takes the master's start, as RocketMQ's slave does.
        if (mine != 0 && h.startPhyOffset != mine) {
            if (h.startPhyOffset < mine) {
                m_refused = true;
                qCCritical(lcBrokerHa).noquote()
                    << "REFUSING to follow master" << masterAddress() << ": its commit log ends at"
                    << h.startPhyOffset << "before this slave's end" << mine
                    << "- the master lost data, or this slave followed another master. This "
                       "slave's commit log is kept as it is (nothing truncated or merged); "
                       "repair one side by hand";
                end = SessionEnd::Refused;
            } else {
                qCWarning(lcBrokerHa).noquote()
                    << "master streams from" << h.startPhyOffset << "but this slave ends at" << mine
                    << ": dropping the connection";
            }
            return false;
        }
        m_refused = false;
        if (h.bodySize > 0) {
            const QByteArrayView body(m_buffer.data() + at + kHeaderSize, h.bodySize);
            if (!appendWhole(h.startPhyOffset, body))
                return false;
            appended = true;
        }
        at += kHeaderSize + h.bodySize;
    }
    if (at > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + at, static_cast<size_t>(m_have - at));
        m_have -= at;
    }
    if (appended && !report(link))
        return false;
    return true;
}

} // namespace qrocket::broker::ha
