#include "broker/ha/haservice.h"

#include "broker/ha/haprotocol.h"
#include "broker/logging.h"
#include "storage/messagestore.h"
#include "storage/services/grouptransferservice.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <pthread.h>
#include <sys/socket.h>

namespace qrocket::broker::ha {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
constexpr int kPollSliceMs = 100; // every wait is cut into slices this long (stop, close)
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

    void start()
    {
        m_reader = std::thread([this] { readLoop(); });
        m_writer = std::thread([this] { writeLoop(); });
        ::pthread_setname_np(m_reader.native_handle(), "qr-ha-read");
        ::pthread_setname_np(m_writer.native_handle(), "qr-ha-write");
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
    void readLoop();
    void writeLoop();
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
            sendHeader(masterEnd, nullptr, 0);
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
    std::int64_t next = m_requestOffset.load();
    if (next == 0) {
        // A new slave starts at the beginning of the last commit-log file (RocketMQ).
        const std::int64_t end = svc.m_store.commitLogMaxOffset();
        next = std::max<std::int64_t>(0, end - end % svc.m_fileSize);
    }
    m_sentOffset.store(next, std::memory_order_release);
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

HAService::HAService(storage::MessageStore &store, const storage::MessageStoreConfig &config)
    : m_store(store)
    , m_heartbeatMs(config.haSendHeartbeatInterval)
    , m_housekeepingMs(config.haHousekeepingInterval)
    , m_batchSize(config.haTransferBatchSize)
    , m_fileSize(config.mappedFileSizeCommitLog)
{ }

HAService::~HAService()
{
    stop();
}

Status HAService::start(quint16 port)
{
    Result<SocketFd> fd = listenTcp(port);
    if (!fd)
        return Status::ioError(
            QStringLiteral("HA port %1: %2").arg(port).arg(fd.error().message()));
    m_listen = std::move(*fd);
    m_port = localPort(m_listen.get());
    m_stopping = false;
    m_acceptThread = std::thread([this] { acceptLoop(); });
    ::pthread_setname_np(m_acceptThread.native_handle(), "qr-ha-accept");
    qCInfo(lcBrokerHa) << "HA server listening on port" << m_port;
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
    m_listen.reset();
}

void HAService::acceptLoop()
{
    while (!m_stopping.load()) {
        reap(false);
        if (waitReadable(m_listen.get(), kPollSliceMs) <= 0)
            continue;
        const int fd = ::accept4(m_listen.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0)
            continue; // EAGAIN, or a connection reset before it was accepted
        prepareAccepted(fd);
        auto c = std::make_shared<HAConnection>(*this, SocketFd(fd));
        qCInfo(lcBrokerHa).noquote() << "slave connected from" << c->state().address;
        {
            std::lock_guard lock(m_connectionsMutex);
            m_connections.push_back(c);
        }
        // Counted on accept, as RocketMQ does: SYNC_MASTER puts wait for it from now on.
        countConnection(+1);
        c->start();
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
    // the writer registered as a sleeper.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (m_sleepers.load(std::memory_order_relaxed) == 0)
        return;
    wakeAllWriters();
}

void HAService::wakeAllWriters()
{
    {
        std::lock_guard lock(m_wakeMutex);
        ++m_wakeGeneration;
    }
    m_wakeCv.notify_all();
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
