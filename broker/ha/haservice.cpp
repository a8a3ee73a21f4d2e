#include "broker/ha/haservice.h"

#include "broker/common/logging.h"
#include "broker/ha/haconnection.h"
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
#include <functional>
#include <limits>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace qrocket::broker::ha {

namespace {
constexpr int kAcceptBurst = 256; // connections taken per wake-up before reaping again
} // namespace

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
    std::vector<std::shared_ptr<HAConnection>> closing;
    {
        std::lock_guard lock(m_connectionsMutex);
        closing = m_connections;
    }
    // Closed outside the lock: closing counts the connection out, which in controller mode
    // recomputes the acknowledgements over m_connections (recomputePeerAcks()).
    for (auto &c : closing)
        c->close(QStringLiteral("master shutting down"), false);
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
    {
        // Under the lock: the store's count never goes back to an older value.
        std::lock_guard lock(m_countMutex);
        const int live = m_live.fetch_add(delta) + delta;
        if (storage::GroupTransferService *t = m_store.groupTransfer();
            t && !m_peerMode.load(std::memory_order_acquire))
            t->setSlaveConnections(live);
    }
    if (m_peerMode.load(std::memory_order_acquire))
        recomputePeerAcks();
}

void HAService::notifyTransferSome(std::int64_t offset)
{
    std::int64_t seen = m_push2SlaveMax.load();
    while (offset > seen && !m_push2SlaveMax.compare_exchange_weak(seen, offset)) { }
    if (m_peerMode.load(std::memory_order_acquire)) {
        recomputePeerAcks();
        return;
    }
    if (storage::GroupTransferService *t = m_store.groupTransfer())
        t->notifyTransferSome(offset);
}

void HAService::setAckPeers(std::vector<QByteArray> peers, int needed)
{
    {
        std::lock_guard lock(m_ackMutex);
        m_ackScratch.assign(peers.size(), -1);
        m_ackPeers = std::move(peers);
        m_ackNeeded = std::clamp<int>(needed, 0, int(m_ackPeers.size()));
        m_peerMode.store(true, std::memory_order_release);
    }
    recomputePeerAcks();
}

std::int64_t HAService::ackOffsetOf(const QByteArray &peer) const
{
    std::lock_guard lock(m_connectionsMutex);
    for (const auto &c : m_connections)
        if (!c->isClosed() && c->peer() == peer)
            return c->ackOffset();
    return -1;
}

void HAService::recomputePeerAcks()
{
    // One pass over a few connections per report (no allocation): each peer's acknowledged
    // offset, then the needed-th highest of them. Serialized, so the store never sees an older
    // computation after a newer one.
    std::lock_guard ackLock(m_ackMutex);
    storage::GroupTransferService *t = m_store.groupTransfer();
    if (!t)
        return;
    int connected = 0;
    {
        std::lock_guard lock(m_connectionsMutex);
        for (std::size_t i = 0; i < m_ackPeers.size(); ++i) {
            m_ackScratch[i] = -1;
            for (const auto &c : m_connections) {
                if (!c->isClosed() && c->peer() == m_ackPeers[i]) {
                    m_ackScratch[i] = std::max<std::int64_t>(0, c->ackOffset());
                    ++connected;
                    break;
                }
            }
        }
    }
    std::int64_t acked = std::numeric_limits<std::int64_t>::max();
    if (m_ackNeeded > 0) {
        std::nth_element(m_ackScratch.begin(), m_ackScratch.begin() + (m_ackNeeded - 1),
            m_ackScratch.end(), std::greater<> {});
        acked = std::max<std::int64_t>(0, m_ackScratch[std::size_t(m_ackNeeded - 1)]);
    }
    // Fewer of the replicas the acknowledgements wait for are connected than needed: no slave
    // to count (SYNC puts fail at once with SLAVE_NOT_AVAILABLE, as without a slave in plain
    // mode).
    t->setSlaveConnections(connected >= m_ackNeeded ? connected : 0);
    t->setAckedOffset(acked == std::numeric_limits<std::int64_t>::max() ? 0 : acked);
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
