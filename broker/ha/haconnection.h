#pragma once

// HAConnection: one slave of the master's HAService (haservice.h). Plain slaves get a reader
// thread (their 8-byte reports) and a writer thread (the commit-log stream); with
// tls.server.mode permissive/enforcing one thread first sniffs the first byte and, for a TLS
// client, runs the whole session on an event loop owning a QSslSocket. Only haservice.cpp and
// haconnection.cpp include this header.

#include "broker/common/logging.h"
#include "broker/ha/haservice.h"
#include "broker/ha/hasocket.h"
#include "storage/messagestore.h"

#include <QHostAddress>
#include <QSslSocket>
#include <QString>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <sys/socket.h>
#include <thread>

namespace qrocket::broker::ha {

inline std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
inline constexpr int kPollSliceMs = 100; // every wait is cut into slices this long (stop, close)
inline constexpr std::int64_t kWarnIntervalMs = 10000; // refusal warnings: at most one per reason

/// Closes a refused connection with a reset: a flood leaves no TIME_WAIT behind on the master.
inline void abortiveClose(SocketFd &fd)
{
    const linger l {1, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &l, sizeof l);
    fd.reset();
}

/// The peer's address for the log; an IPv4-mapped one in IPv4 form.
inline QString peerText(const QHostAddress &peer)
{
    bool v4 = false;
    const quint32 ip = peer.toIPv4Address(&v4);
    return v4 ? QHostAddress(ip).toString() : peer.toString();
}

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
    const QByteArray &peer() const { return m_peer; }
    std::int64_t ackOffset() const { return m_ackOffset.load(std::memory_order_acquire); }
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
        if (next == 0 && m_service.newSlavesFromFirstByte()) {
            // Controller mode: a new replica copies the whole log (RocketMQ 5's default).
            next = std::max<std::int64_t>(0, m_service.m_store.commitLogMinOffset());
        } else if (next == 0) {
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

} // namespace qrocket::broker::ha
