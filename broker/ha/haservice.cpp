#include "broker/ha/haservice.h"

#include "broker/common/logging.h"
#include "broker/ha/haprotocol.h"
#include "clientlib/remoting/logging.h"
#include "clientlib/remoting/tlsconfig.h"
#include "storage/messagestore.h"
#include "storage/services/grouptransferservice.h"

#include <QEventLoop>
#include <QNetworkInterface>
#include <QSocketNotifier>
#include <QSslSocket>
#include <QTimer>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace qrocket::broker::ha {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
constexpr int kPollSliceMs = 100; // every wait is cut into slices this long (stop, close)
constexpr std::int64_t kWarnIntervalMs = 10000; // refusal warnings: at most one per reason
constexpr int kAcceptBurst = 256; // connections taken per wake-up before reaping again
/// The first byte of a TLS client (a handshake record). A plain slave's first byte is the high
/// byte of its big-endian offset: 0x00 for any commit log under 2^56 bytes.
constexpr unsigned char kTlsHandshakeRecord = 0x16;
/// What a TLS connection reads ahead of its reports (8 bytes each).
constexpr qint64 kTlsReadBufferBytes = 64 * 1024;

/// Closes a refused connection with a reset: a flood leaves no TIME_WAIT behind on the master.
void abortiveClose(SocketFd &fd)
{
    const linger l {1, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
    fd.reset();
}

/// The peer's address for the log; an IPv4-mapped one in IPv4 form.
QString peerText(const QHostAddress &peer)
{
    bool v4 = false;
    const quint32 ip = peer.toIPv4Address(&v4);
    return v4 ? QHostAddress(ip).toString() : peer.toString();
}
} // namespace

// One slave: the reader takes its reports, the writer streams to it. Either side ends the
// connection with close(), which shuts the socket down so that the other side wakes at once.
class HAConnection
{
public:
    HAConnection(HAService &service, SocketFd fd)
        : m_service(service), m_fd(std::move(fd)), m_peer(peerName(m_fd.get()))
    { }
    ~HAConnection() { join(); }
    HAConnection(const HAConnection &) = delete;
    HAConnection &operator=(const HAConnection &) = delete;

    /// Starts the reader and the writer; Unavailable when the system refuses a thread (the
    /// caller then closes the connection and joins the one that may have started).
    Status start()
    {
        // TLS in force (permissive or enforcing): one thread first, to sniff the first byte.
        const bool sniff = m_service.m_tls != nullptr;
        try {
            m_reader = std::thread([this, sniff] { sniff ? sniffLoop() : readLoop(); });
            ::pthread_setname_np(m_reader.native_handle(), sniff ? "qr-ha-conn" : "qr-ha-read");
            if (!sniff)
                startWriter();
        } catch (const std::system_error &e) {
            return Status::unavailable(
                QStringLiteral("cannot start a thread: %1").arg(QString::fromLocal8Bit(e.what())));
        }
        return {};
    }
    void close(const QString &why, bool warn)
    {
        if (m_closed.exchange(true))
            return;
        ::shutdown(m_fd.get(), SHUT_RDWR);
        if (warn)
            qCWarning(lcBrokerHa).noquote()
                << "HA connection from slave" << m_peer << "closed:" << why;
        else
            qCInfo(lcBrokerHa).noquote()
                << "HA connection from slave" << m_peer << "closed:" << why;
        m_service.connectionClosed();
        m_service.wakeAllWriters();
    }
    void join()
    {
        // The reader first: a sniffing reader may start the writer.
        if (m_reader.joinable())
            m_reader.join();
        if (m_writer.joinable())
            m_writer.join();
    }
    bool isClosed() const { return m_closed.load(std::memory_order_acquire); }
    HAService::SlaveState state() const
    {
        return {m_peer, m_ackOffset.load(std::memory_order_acquire), 0,
            m_sentOffset.load(std::memory_order_acquire)};
    }

private:
    bool stopping() const { return m_closed.load() || m_service.m_stopping.load(); }
    void startWriter()
    {
        m_writer = std::thread([this] { writeLoop(); });
        ::pthread_setname_np(m_writer.native_handle(), "qr-ha-write");
    }
    void readLoop();
    void writeLoop();
    /// TLS in force: waits for the first byte and serves a TLS, a plain or no connection.
    void sniffLoop();
    /// The whole of a TLS connection, on the calling thread (an event loop).
    void tlsSession();
    /// Where streaming starts, from the first report (stored as the sent offset).
    std::int64_t streamStart()
    {
        std::int64_t next = m_requestOffset.load();
        if (next == 0) {
            // A new slave starts at the beginning of the last commit-log file (RocketMQ).
            const std::int64_t end = m_service.m_store.commitLogMaxOffset();
            next = std::max<std::int64_t>(0, end - end % m_service.m_fileSize);
        }
        m_sentOffset.store(next, std::memory_order_release);
        return next;
    }
    /// One report: the first one decides where streaming starts; later ones acknowledge.
    bool onReport(std::int64_t offset);
    bool sendHeader(std::int64_t offset, const char *body, std::int32_t size);

    HAService &m_service;
    SocketFd m_fd;
    const QByteArray m_peer;
    std::atomic<bool> m_closed {false};
    std::atomic<std::int64_t> m_requestOffset {-1}; // the first report
    std::atomic<std::int64_t> m_ackOffset {-1};
    std::atomic<std::int64_t> m_sentOffset {-1};
    std::thread m_reader;
    std::thread m_writer;
    QSslSocket *m_tlsSocket = nullptr; // set on the TLS thread while its session runs
};

bool HAConnection::onReport(std::int64_t offset)
{
    const std::int64_t masterEnd = m_service.m_store.commitLogMaxOffset();
    if (offset < 0) {
        close(QStringLiteral("reported a negative commit-log offset %1 (not an HA slave?)")
                  .arg(offset),
            true);
        return false;
    }
    if (m_requestOffset.load() < 0) {
        if (offset > masterEnd) {
            qCCritical(lcBrokerHa).noquote()
                << "REFUSING slave" << m_peer << ": its commit log ends at" << offset
                << "beyond this master's end" << masterEnd
                << "- the master lost data, or the slave followed another master. Nothing is "
                   "truncated or merged; repair one side by hand";
            // Tell the slave where this master ends (a heartbeat header), then drop it.
            if (sendHeader(masterEnd, nullptr, 0) && m_tlsSocket)
                m_tlsSocket->flush();
            close(QStringLiteral("slave ahead of master (refused)"), true);
            return false;
        }
        m_requestOffset.store(offset);
        qCInfo(lcBrokerHa, "slave %s follows from commit-log offset %lld (master ends at %lld)",
            m_peer.constData(), static_cast<long long>(offset), static_cast<long long>(masterEnd));
        m_service.wakeAllWriters();
    } else if (offset > masterEnd) {
        close(QStringLiteral("acknowledged offset %1 beyond the commit-log end %2")
                  .arg(offset)
                  .arg(masterEnd),
            true);
        return false;
    }
    m_ackOffset.store(offset, std::memory_order_release);
    m_service.notifyTransferSome(offset);
    return true;
}

void HAConnection::readLoop()
{
    char buf[1024];
    std::int64_t have = 0;
    std::int64_t lastRead = steadyMs();
    const int housekeeping = m_service.m_housekeepingMs;
    bool firstByte = true;
    while (!stopping()) {
        const int rc = waitReadable(m_fd.get(), kPollSliceMs);
        if (rc < 0) {
            close(QStringLiteral("poll failed: %1").arg(QString::fromLocal8Bit(::strerror(errno))),
                true);
            return;
        }
        if (rc > 0) {
            const ssize_t n
                = ::recv(m_fd.get(), buf + have, sizeof buf - static_cast<size_t>(have), 0);
            if (n == 0) {
                close(QStringLiteral("the slave closed it"), false);
                return;
            }
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                close(QStringLiteral("read failed: %1")
                          .arg(QString::fromLocal8Bit(::strerror(errno))),
                    true);
                return;
            }
            if (n > 0) {
                if (firstByte && static_cast<unsigned char>(buf[0]) == kTlsHandshakeRecord) {
                    // Plain only (disabled mode; sniffing sends TLS peers elsewhere).
                    close(QStringLiteral("the slave starts a TLS handshake but tls.server.mode "
                                         "is disabled on this master (set it to permissive or "
                                         "enforcing, or tls.enable=false on the slave)"),
                        true);
                    return;
                }
                firstByte = false;
                have += n;
                std::int64_t consumed = 0;
                const std::int64_t offset = latestReport(buf, have, consumed);
                if (consumed > 0) {
                    lastRead = steadyMs();
                    std::memmove(buf, buf + consumed, static_cast<size_t>(have - consumed));
                    have -= consumed;
                    if (!onReport(offset))
                        return;
                }
            }
        }
        // Only whole reports count as traffic: half a report then silence is dropped too.
        if (steadyMs() - lastRead > housekeeping) {
            close(QStringLiteral("no report for %1 ms (haHousekeepingInterval)").arg(housekeeping),
                true);
            return;
        }
    }
}

bool HAConnection::sendHeader(std::int64_t offset, const char *body, std::int32_t size)
{
    char header[kHeaderSize];
    encodeHeader(header, offset, size);
    if (m_tlsSocket) { // TLS thread: buffered in the socket, written by its event loop
        if (m_tlsSocket->write(header, kHeaderSize) != kHeaderSize
            || (size > 0 && m_tlsSocket->write(body, size) != size)) {
            close(QStringLiteral("write failed: %1").arg(m_tlsSocket->errorString()), true);
            return false;
        }
        return true;
    }
    iovec iov[2] = {{header, kHeaderSize}, {const_cast<char *>(body), static_cast<size_t>(size)}};
    const Status st
        = sendAll(m_fd.get(), iov, size > 0 ? 2 : 1, m_service.m_housekeepingMs, m_closed);
    if (!st) {
        close(QStringLiteral("write failed: %1").arg(st.message()), !m_closed.load());
        return false;
    }
    return true;
}

void HAConnection::writeLoop()
{
    HAService &svc = m_service;
    while (!stopping() && m_requestOffset.load() < 0)
        svc.waitForData(kPollSliceMs, m_closed, -1);
    if (stopping())
        return;
    std::int64_t next = streamStart();
    std::int64_t lastWrite = 0; // a heartbeat first: the slave checks the offset at once
    bool warnedGap = false;
    while (!stopping()) {
        if (steadyMs() - lastWrite > svc.m_heartbeatMs) {
            if (!sendHeader(next, nullptr, 0))
                return;
            lastWrite = steadyMs();
        }
        const storage::SelectedRecord data = svc.m_store.commitLogData(next);
        if (data.isValid()) {
            const auto size = static_cast<std::int32_t>(
                std::min<qsizetype>(data.bytes.size(), svc.m_batchSize));
            if (!sendHeader(next, data.bytes.data(), size))
                return;
            lastWrite = steadyMs();
            next += size;
            m_sentOffset.store(next, std::memory_order_release);
            continue;
        }
        if (!warnedGap && next < svc.m_store.commitLogMinOffset()) {
            warnedGap = true;
            qCWarning(lcBrokerHa).noquote()
                << "slave" << m_peer << "needs commit-log offset" << next
                << "which this master already deleted (min offset"
                << svc.m_store.commitLogMinOffset() << "): it cannot catch up";
        }
        svc.waitForData(std::min(kPollSliceMs, svc.m_heartbeatMs), m_closed, next);
    }
}

void HAConnection::sniffLoop()
{
    HAService &svc = m_service;
    const std::int64_t deadline = steadyMs() + svc.m_housekeepingMs;
    unsigned char first = 0;
    for (;;) {
        if (stopping())
            return;
        const int rc = waitReadable(m_fd.get(), kPollSliceMs);
        if (rc < 0) {
            close(QStringLiteral("poll failed: %1").arg(QString::fromLocal8Bit(::strerror(errno))),
                true);
            return;
        }
        if (rc > 0) {
            const ssize_t n = ::recv(m_fd.get(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
            if (n == 1)
                break;
            if (n == 0) {
                close(QStringLiteral("the slave closed it before sending anything"), false);
                return;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                close(QStringLiteral("read failed: %1")
                          .arg(QString::fromLocal8Bit(::strerror(errno))),
                    true);
                return;
            }
        }
        if (steadyMs() > deadline) {
            close(QStringLiteral("nothing sent for %1 ms (haHousekeepingInterval)")
                      .arg(svc.m_housekeepingMs),
                true);
            return;
        }
    }
    if (first == kTlsHandshakeRecord) {
        tlsSession();
        return;
    }
    if (svc.m_tls->mode() == remoting::TlsMode::Enforcing) {
        svc.m_refusedPlain.fetch_add(1);
        static remoting::LogRateLimiter limiter(1, kWarnIntervalMs);
        const bool warn = limiter.allow();
        close(QStringLiteral("plain connection refused (first byte 0x%1): tls.server.mode is "
                             "enforcing; the slave needs tls.enable=true")
                  .arg(unsigned(first), 2, 16, QLatin1Char('0')),
            warn);
        return;
    }
    // Permissive: a plain slave, served as without TLS.
    try {
        startWriter();
    } catch (const std::system_error &e) {
        svc.m_refusedByLimit.fetch_add(1);
        close(QStringLiteral("refused: cannot start a thread: %1")
                  .arg(QString::fromLocal8Bit(e.what())),
            true);
        return;
    }
    readLoop();
}

void HAConnection::tlsSession()
{
    HAService &svc = m_service;
    // Gives this thread an event dispatcher for the socket's notifiers; run below.
    QEventLoop loop;
    const int wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    // The socket gets its own descriptor: close() shuts m_fd down from any thread, and each
    // owner closes its own.
    const int fd = ::fcntl(m_fd.get(), F_DUPFD_CLOEXEC, 0);
    if (wakeFd < 0 || fd < 0) {
        const QString why = QString::fromLocal8Bit(::strerror(errno));
        if (wakeFd >= 0)
            ::close(wakeFd);
        if (fd >= 0)
            ::close(fd);
        close(QStringLiteral("cannot start TLS: %1").arg(why), true);
        return;
    }
    QSslSocket socket;
    socket.setSslConfiguration(svc.m_tls->configuration());
    socket.setReadBufferSize(kTlsReadBufferBytes);
    if (!socket.setSocketDescriptor(fd, QAbstractSocket::ConnectedState, QIODevice::ReadWrite)) {
        ::close(fd);
        ::close(wakeFd);
        close(QStringLiteral("cannot start TLS: %1").arg(socket.errorString()), true);
        return;
    }
    svc.m_tlsConnections.fetch_add(1);
    m_tlsSocket = &socket;
    QSocketNotifier wakeNotifier(wakeFd, QSocketNotifier::Read);
    svc.addWakeFd(wakeFd);

    // What the socket may hold unsent before the log is read further: a few transfers.
    const qint64 outputCap = std::max<qint64>(256 * 1024, 4LL * svc.m_batchSize);
    const std::int64_t started = steadyMs();
    std::int64_t lastRead = started; // whole reports, as in readLoop()
    std::int64_t lastWrite = 0;
    std::int64_t lastDrain = started; // the socket last had nothing unsent, or took some
    std::int64_t next = -1;
    bool sleeping = false; // registered as an idle writer (m_sleepers)
    bool warnedGap = false;
    char buf[1024];
    std::int64_t have = 0;

    auto finish = [&](const QString &why, bool warn) {
        close(why, warn);
        loop.quit();
    };
    auto unsleep = [&] {
        if (sleeping) {
            sleeping = false;
            svc.m_sleepers.fetch_sub(1);
        }
    };
    auto unsent = [&] { return socket.bytesToWrite() + socket.encryptedBytesToWrite(); };
    auto pump = [&] {
        if (m_closed.load() || !socket.isEncrypted() || m_requestOffset.load() < 0)
            return;
        if (next < 0)
            next = streamStart();
        bool wrote = false;
        if (steadyMs() - lastWrite > svc.m_heartbeatMs) {
            if (!sendHeader(next, nullptr, 0)) {
                loop.quit();
                return;
            }
            lastWrite = steadyMs();
            wrote = true;
        }
        while (unsent() < outputCap) {
            const storage::SelectedRecord data = svc.m_store.commitLogData(next);
            if (!data.isValid()) {
                if (!warnedGap && next < svc.m_store.commitLogMinOffset()) {
                    warnedGap = true;
                    qCWarning(lcBrokerHa).noquote()
                        << "slave" << m_peer << "needs commit-log offset" << next
                        << "which this master already deleted (min offset"
                        << svc.m_store.commitLogMinOffset() << "): it cannot catch up";
                }
                if (sleeping)
                    break;
                // Idle: registered first, then looked at again (pairs with wakeup()).
                sleeping = true;
                svc.m_sleepers.fetch_add(1, std::memory_order_seq_cst);
                continue;
            }
            unsleep();
            const auto size = static_cast<std::int32_t>(
                std::min<qsizetype>(data.bytes.size(), svc.m_batchSize));
            if (!sendHeader(next, data.bytes.data(), size)) {
                loop.quit();
                return;
            }
            lastWrite = steadyMs();
            wrote = true;
            next += size;
            m_sentOffset.store(next, std::memory_order_release);
        }
        if (wrote)
            socket.flush();
    };

    QObject::connect(&socket, &QSslSocket::readyRead, &socket, [&] {
        while (!m_closed.load()) {
            const qint64 n = socket.read(buf + have, static_cast<qint64>(sizeof buf) - have);
            if (n <= 0)
                break;
            have += n;
            std::int64_t consumed = 0;
            const std::int64_t offset = latestReport(buf, have, consumed);
            if (consumed > 0) {
                lastRead = steadyMs();
                std::memmove(buf, buf + consumed, static_cast<size_t>(have - consumed));
                have -= consumed;
                if (!onReport(offset)) {
                    loop.quit();
                    return;
                }
            }
        }
        pump();
    });
    auto drained = [&] {
        lastDrain = steadyMs();
        pump();
    };
    QObject::connect(&socket, &QSslSocket::encryptedBytesWritten, &socket, drained);
    QObject::connect(&socket, &QSslSocket::encrypted, &socket, [&] {
        qCInfo(lcBrokerHa).noquote() << "HA connection from slave" << m_peer << "encrypted with TLS"
                                     << (socket.sessionProtocol() == QSsl::TlsV1_3 ? "1.3" : "1.2");
        pump();
    });
    QObject::connect(
        &socket, &QAbstractSocket::errorOccurred, &socket, [&](QAbstractSocket::SocketError error) {
            if (m_closed.load()) {
                loop.quit();
                return;
            }
            if (error == QAbstractSocket::RemoteHostClosedError) {
                finish(QStringLiteral("the slave closed it"), false);
                return;
            }
            QString why = socket.errorString();
            if (!socket.isEncrypted()) {
                QStringList errors;
                for (const QSslError &e : socket.sslHandshakeErrors())
                    errors.append(e.errorString());
                why = QStringLiteral("TLS handshake failed: ")
                    + (errors.isEmpty() ? why : errors.join(QStringLiteral("; ")));
            }
            finish(why, true);
        });
    QObject::connect(&socket, &QAbstractSocket::disconnected, &socket,
        [&] { finish(QStringLiteral("the slave closed it"), false); });
    QObject::connect(&wakeNotifier, &QSocketNotifier::activated, &socket, [&] {
        std::uint64_t count = 0;
        [[maybe_unused]] const ssize_t n = ::read(wakeFd, &count, sizeof count);
        unsleep();
        pump();
    });
    QTimer tick;
    tick.setInterval(kPollSliceMs);
    QObject::connect(&tick, &QTimer::timeout, &socket, [&] {
        if (stopping()) {
            loop.quit();
            return;
        }
        const std::int64_t now = steadyMs();
        const int housekeeping = svc.m_housekeepingMs;
        if (!socket.isEncrypted()) {
            if (now - started > housekeeping)
                finish(
                    QStringLiteral("TLS handshake not complete in %1 ms (haHousekeepingInterval)")
                        .arg(housekeeping),
                    true);
            return;
        }
        if (now - lastRead > housekeeping) {
            finish(QStringLiteral("no report for %1 ms (haHousekeepingInterval)").arg(housekeeping),
                true);
            return;
        }
        if (unsent() == 0)
            lastDrain = now;
        else if (now - lastDrain > housekeeping) {
            finish(QStringLiteral("write failed: peer took nothing for %1 ms").arg(housekeeping),
                true);
            return;
        }
        pump();
    });
    tick.start();
    socket.startServerEncryption();
    if (!m_closed.load())
        loop.exec();

    tick.stop();
    unsleep();
    svc.removeWakeFd(wakeFd);
    wakeNotifier.setEnabled(false);
    m_tlsSocket = nullptr;
    if (!m_closed.load())
        close(QStringLiteral("master shutting down"), false);
    socket.abort();
    ::close(wakeFd);
}

HAService::HAService(storage::MessageStore &store, const storage::MessageStoreConfig &config,
    const QStringList &ownAddresses)
    : m_store(store)
    , m_heartbeatMs(config.haSendHeartbeatInterval)
    , m_housekeepingMs(config.haHousekeepingInterval)
    , m_batchSize(config.haTransferBatchSize)
    , m_fileSize(config.mappedFileSizeCommitLog)
    , m_maxConnections(std::max(1, config.haMaxConnections))
{
    if (auto patterns = AddressPattern::parseList(config.haAllowedAddresses); !patterns) {
        m_allowedError = Status::invalidArgument(
            QStringLiteral("haAllowedAddresses: %1").arg(patterns.error().message()));
    } else if (!patterns->empty()) {
        m_allowed = std::move(patterns).value();
        m_allowedText = config.haAllowedAddresses.trimmed();
    }
    if (m_allowed.empty() && m_allowedError.isOk()) {
        // Not set: the loopback addresses and this broker's own (a same-host slave).
        QStringList text {QStringLiteral("127.*"), QStringLiteral("::1")};
        for (const QString &own : ownAddresses) {
            const QHostAddress a(own);
            if (a.isNull() || a == QHostAddress::AnyIPv4 || a == QHostAddress::AnyIPv6
                || a.isLoopback() || text.contains(own.trimmed()))
                continue;
            text.append(own.trimmed());
        }
        for (const QString &t : std::as_const(text))
            if (auto p = AddressPattern::parse(t))
                m_allowed.push_back(std::move(p).value());
        m_allowedText = text.join(u',')
            + QStringLiteral(" - the default when not set: loopback and brokerIP1/brokerIP2");
    }
}

HAService::~HAService()
{
    stop();
}

Status HAService::start(quint16 port, const QString &address)
{
    if (!m_allowedError.isOk())
        return m_allowedError;
    if (!m_tls) {
        Result<remoting::TlsMode> mode = m_tlsSettings.mode();
        if (!mode)
            return mode.error();
        if (*mode != remoting::TlsMode::Disabled) {
            auto context = remoting::TlsServerContext::create(m_tlsSettings);
            if (!context)
                return Status::invalidArgument(
                    QStringLiteral("HA port: %1").arg(context.error().message()));
            m_tls = std::move(context).value();
        }
    }
    // Which addresses to bind (see the file comment); empty: every address, dual stack.
    QList<QHostAddress> bind;
    const QHostAddress wanted(address);
    if (!wanted.isNull() && wanted != QHostAddress::AnyIPv4 && wanted != QHostAddress::AnyIPv6
        && wanted != QHostAddress::Any) {
        if (wanted.isLoopback()) {
            bind = {wanted,
                wanted.protocol() == QAbstractSocket::IPv4Protocol ? QHostAddress::LocalHostIPv6
                                                                   : QHostAddress::LocalHost};
        } else if (QNetworkInterface::allAddresses().contains(wanted)) {
            bind = {wanted};
        } else {
            qCWarning(lcBrokerHa).noquote()
                << "HA address" << address
                << "is not an address of this host (NAT or container?): listening on every "
                   "address; haAllowedAddresses still decides who may connect";
        }
    }
    std::vector<SocketFd> sockets;
    QStringList where;
    quint16 at = port;
    for (const QHostAddress &a : std::as_const(bind)) {
        Result<SocketFd> fd = listenTcp(at, a.toString().toLatin1());
        if (!fd && sockets.empty())
            return Status::ioError(QStringLiteral("HA port %1 on %2: %3")
                                       .arg(port)
                                       .arg(a.toString(), fd.error().message()));
        if (!fd) { // the second loopback (no IPv6 on this host): the first one is enough
            qCInfo(lcBrokerHa).noquote()
                << "HA port not on" << a.toString() << "as well:" << fd.error().message();
            continue;
        }
        at = localPort(fd->get()); // port 0: the second socket takes the port of the first
        sockets.push_back(std::move(*fd));
        where.append(a.protocol() == QAbstractSocket::IPv6Protocol ? u'[' + a.toString() + u']'
                                                                   : a.toString());
    }
    if (sockets.empty()) {
        Result<SocketFd> fd = listenTcp(port);
        if (!fd)
            return Status::ioError(
                QStringLiteral("HA port %1: %2").arg(port).arg(fd.error().message()));
        sockets.push_back(std::move(*fd));
        where.append(QStringLiteral("every address"));
    }
    m_listen = std::move(sockets);
    m_port = localPort(m_listen.front().get());
    m_stopping = false;
    try {
        m_acceptThread = std::thread([this] { acceptLoop(); });
    } catch (const std::system_error &e) {
        m_listen.clear();
        return Status::ioError(QStringLiteral("HA port %1: cannot start the accept thread: %2")
                                   .arg(m_port)
                                   .arg(QString::fromLocal8Bit(e.what())));
    }
    ::pthread_setname_np(m_acceptThread.native_handle(), "qr-ha-accept");
    qCInfo(lcBrokerHa).noquote() << "HA server listening on port" << m_port << "of"
                                 << where.join(QStringLiteral(", ")) << "for" << m_allowedText
                                 << "- at most" << m_maxConnections << "connections, TLS"
                                 << (m_tls ? remoting::tlsModeName(m_tls->mode()) : "disabled");
    return {};
}

void HAService::drain(int timeoutMs)
{
    const std::int64_t end = m_store.commitLogMaxOffset();
    const std::int64_t deadline = steadyMs() + timeoutMs;
    auto behind = [&] {
        std::lock_guard lock(m_connectionsMutex);
        int n = 0;
        for (const auto &c : m_connections)
            if (!c->isClosed() && c->state().ackOffset >= 0 && c->state().ackOffset < end)
                ++n;
        return n;
    };
    int left = behind();
    if (left == 0)
        return;
    while (left > 0 && steadyMs() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        left = behind();
    }
    if (left == 0)
        qCInfo(lcBrokerHa) << "every connected slave has the commit log up to" << end;
    else
        qCWarning(lcBrokerHa) << left << "slave(s) still behind commit-log offset" << end << "after"
                              << timeoutMs << "ms: stopping anyway";
}

void HAService::stop()
{
    if (!m_acceptThread.joinable() || m_stopping.load())
        return;
    // A clean stop hands the slaves what they lack first (no new puts arrive by now).
    drain(std::min(5000, m_housekeepingMs));
    if (m_stopping.exchange(true))
        return;
    wakeAllWriters();
    m_acceptThread.join();
    {
        std::lock_guard lock(m_connectionsMutex);
        for (auto &c : m_connections)
            c->close(QStringLiteral("master shutting down"), false);
    }
    reap(true);
    m_listen.clear();
}

namespace {
/// True when a throttled warning is due now; `skipped` tells how many were held back before it.
bool warningDue(std::int64_t &lastMs, std::int64_t &skippedCount, std::int64_t &skipped)
{
    const std::int64_t now = steadyMs();
    if (lastMs >= 0 && now - lastMs < kWarnIntervalMs) {
        ++skippedCount;
        return false;
    }
    lastMs = now;
    skipped = std::exchange(skippedCount, 0);
    return true;
}
QString heldBack(std::int64_t skipped)
{
    return skipped > 0 ? QStringLiteral(" (%1 more since the last warning)").arg(skipped)
                       : QString();
}
} // namespace

void HAService::acceptLoop()
{
    std::vector<pollfd> fds;
    for (const SocketFd &l : m_listen)
        fds.push_back({l.get(), POLLIN, 0});
    while (!m_stopping.load()) {
        reap(false);
        for (pollfd &p : fds)
            p.revents = 0;
        if (::poll(fds.data(), fds.size(), kPollSliceMs) <= 0)
            continue;
        for (const pollfd &p : fds)
            if (p.revents != 0)
                acceptPending(p.fd);
    }
}

void HAService::acceptPending(int listenFd)
{
    for (int i = 0; i < kAcceptBurst && !m_stopping.load(); ++i) {
        sockaddr_storage addr {};
        socklen_t len = sizeof addr;
        SocketFd fd(::accept4(
            listenFd, reinterpret_cast<sockaddr *>(&addr), &len, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (fd.isValid()) {
            admit(std::move(fd), QHostAddress(reinterpret_cast<const sockaddr *>(&addr)));
            continue;
        }
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
            // Out of descriptors or memory: the pending connection stays queued; retry later.
            std::int64_t skipped = 0;
            if (warningDue(m_acceptWarning.lastMs, m_acceptWarning.skipped, skipped))
                qCWarning(lcBrokerHa).noquote()
                    << "HA port: accept failed:" << QString::fromLocal8Bit(::strerror(errno))
                    << heldBack(skipped);
            std::this_thread::sleep_for(std::chrono::milliseconds(kPollSliceMs));
        }
        return; // EAGAIN: nothing more waiting, or a connection reset before it was accepted
    }
}

void HAService::admit(SocketFd fd, const QHostAddress &peer)
{
    std::int64_t skipped = 0;
    if (!AddressPattern::matchesAny(m_allowed, peer)) {
        m_refusedByAddress.fetch_add(1);
        abortiveClose(fd);
        if (warningDue(m_addressWarning.lastMs, m_addressWarning.skipped, skipped))
            qCWarning(lcBrokerHa).noquote()
                << QStringLiteral("HA connection from %1 refused: not in haAllowedAddresses (%2); "
                                  "set haAllowedAddresses in the broker's config file to let it "
                                  "replicate%3")
                       .arg(peerText(peer), m_allowedText, heldBack(skipped));
        return;
    }
    std::size_t open = 0;
    {
        std::lock_guard lock(m_connectionsMutex);
        open = m_connections.size(); // closing ones too: their threads still run
    }
    if (open >= static_cast<std::size_t>(m_maxConnections)) {
        m_refusedByLimit.fetch_add(1);
        abortiveClose(fd);
        if (warningDue(m_limitWarning.lastMs, m_limitWarning.skipped, skipped))
            qCWarning(lcBrokerHa).noquote()
                << QStringLiteral("HA connection from %1 refused: %2 HA connections are open "
                                  "(haMaxConnections)%3")
                       .arg(peerText(peer))
                       .arg(m_maxConnections)
                       .arg(heldBack(skipped));
        return;
    }
    prepareAccepted(fd.get());
    auto c = std::make_shared<HAConnection>(*this, std::move(fd));
    qCInfo(lcBrokerHa).noquote() << "slave connected from" << c->state().address;
    {
        std::lock_guard lock(m_connectionsMutex);
        m_connections.push_back(c);
    }
    // Counted on accept, as RocketMQ does: SYNC_MASTER puts wait for it from now on.
    countConnection(+1);
    if (Status st = c->start(); !st) {
        m_refusedByLimit.fetch_add(1);
        c->close(QStringLiteral("refused: %1").arg(st.message()), true); // uncounts it
        // reap() joins whichever of its threads started.
    }
}

void HAService::reap(bool all)
{
    std::vector<std::shared_ptr<HAConnection>> done;
    {
        std::lock_guard lock(m_connectionsMutex);
        for (auto it = m_connections.begin(); it != m_connections.end();) {
            if (all || (*it)->isClosed()) {
                done.push_back(std::move(*it));
                it = m_connections.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto &c : done)
        c->join(); // closed: both threads return within one poll slice
}

void HAService::connectionClosed()
{
    countConnection(-1);
}

void HAService::countConnection(int delta)
{
    // Under the lock: the store's count never goes back to an older value.
    std::lock_guard lock(m_countMutex);
    const int live = m_live.fetch_add(delta) + delta;
    if (storage::GroupTransferService *t = m_store.groupTransfer())
        t->setSlaveConnections(live);
}

void HAService::notifyTransferSome(std::int64_t offset)
{
    std::int64_t seen = m_push2SlaveMax.load();
    while (offset > seen && !m_push2SlaveMax.compare_exchange_weak(seen, offset)) { }
    if (storage::GroupTransferService *t = m_store.groupTransfer())
        t->notifyTransferSome(offset);
}

void HAService::wakeup()
{
    // Pairs with waitForData(): either the writer's re-check sees the new bytes, or this sees
    // the writer registered as a sleeper. A seq_cst read-modify-write rather than a fence: the
    // same full barrier on x86 (lock xadd vs mfence), and one that ThreadSanitizer models (GCC
    // refuses atomic_thread_fence under -fsanitize=thread with -Werror). The line stays in this
    // core's cache while no writer is asleep, which is when appends come fast.
    if (m_sleepers.fetch_add(0, std::memory_order_seq_cst) == 0)
        return;
    wakeAllWriters();
}

void HAService::wakeAllWriters()
{
    {
        std::lock_guard lock(m_wakeMutex);
        ++m_wakeGeneration;
        const std::uint64_t one = 1;
        for (int fd : m_wakeFds)
            [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof one);
    }
    m_wakeCv.notify_all();
}

void HAService::addWakeFd(int fd)
{
    std::lock_guard lock(m_wakeMutex);
    m_wakeFds.push_back(fd);
}

void HAService::removeWakeFd(int fd)
{
    std::lock_guard lock(m_wakeMutex);
    std::erase(m_wakeFds, fd);
}

void HAService::waitForData(int timeoutMs, const std::atomic<bool> &closed, std::int64_t next)
{
    std::unique_lock lock(m_wakeMutex);
    const std::uint64_t seen = m_wakeGeneration;
    m_sleepers.fetch_add(1); // seq_cst: before the re-check below (see wakeup())
    lock.unlock();
    if (next < 0 || !m_store.commitLogData(next).isValid()) {
        lock.lock();
        m_wakeCv.wait_for(lock, std::chrono::milliseconds(timeoutMs),
            [&] { return m_wakeGeneration != seen || closed.load() || m_stopping.load(); });
    }
    m_sleepers.fetch_sub(1);
}

std::vector<HAService::SlaveState> HAService::slaves() const
{
    const std::int64_t end = m_store.commitLogMaxOffset();
    std::vector<SlaveState> out;
    std::lock_guard lock(m_connectionsMutex);
    for (const auto &c : m_connections) {
        if (c->isClosed())
            continue;
        SlaveState s = c->state();
        s.lag = s.ackOffset < 0 ? end : std::max<std::int64_t>(0, end - s.ackOffset);
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace qrocket::broker::ha
