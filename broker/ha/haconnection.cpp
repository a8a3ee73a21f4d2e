#include "broker/ha/haconnection.h"

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
/// The first byte of a TLS client (a handshake record). A plain slave's first byte is the high
/// byte of its big-endian offset: 0x00 for any commit log under 2^56 bytes.
constexpr unsigned char kTlsHandshakeRecord = 0x16;
/// What a TLS connection reads ahead of its reports (8 bytes each).
constexpr qint64 kTlsReadBufferBytes = 64 * 1024;
} // namespace

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

} // namespace qrocket::broker::ha
