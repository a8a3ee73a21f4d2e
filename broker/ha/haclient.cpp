#include "broker/ha/haclient.h"

#include "broker/common/logging.h"
#include "broker/ha/haprotocol.h"
#include "storage/messagestore.h"

#include <QDateTime>

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
constexpr int kConnectTimeoutMs = 3000;
constexpr int kPollSliceMs = 100;
/// A record larger than this is not one (maxMessageSize is at most 64 MiB).
constexpr std::int64_t kMaxRecord = 64LL * 1024 * 1024 + 64 * 1024;
/// The start of the largest record (4 MiB body + room) plus the largest transfer after it.
constexpr std::int64_t kMaxCarry = 4 * 1024 * 1024 + 64 * 1024 + kSlaveReadBufferSize;
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

void HAClient::pause(int ms)
{
    std::unique_lock lock(m_mutex);
    m_cv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return m_stopping.load(); });
}

void HAClient::run()
{
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
        Result<SocketFd> fd = connectTcp(addr, kConnectTimeoutMs);
        if (!fd) {
            if (lastFailed != addr)
                qCWarning(lcBrokerHa).noquote()
                    << "cannot connect to the master's HA address" << addr << ":"
                    << fd.error().message() << "- retrying every" << retryMs << "ms";
            lastFailed = addr;
            pause(retryMs);
            continue;
        }
        lastFailed.clear();
        qCInfo(lcBrokerHa).noquote() << "connected to master" << addr << "- commit log ends at"
                                     << m_store.commitLogMaxOffset();
        m_connected = true;
        const SessionEnd end = session(fd->get());
        m_connected = false;
        fd->reset();
        if (end == SessionEnd::Stopped)
            break;
        pause(end == SessionEnd::Refused ? m_housekeepingMs : retryMs);
    }
}

bool HAClient::report(int fd)
{
    const std::int64_t offset = m_store.commitLogMaxOffset();
    char out[kReportSize];
    encodeReport(out, offset);
    iovec iov {out, kReportSize};
    if (Status st = sendAll(fd, &iov, 1, m_housekeepingMs, m_stopping); !st) {
        qCWarning(lcBrokerHa).noquote() << "report to master failed:" << st.message();
        return false;
    }
    m_reported.store(offset, std::memory_order_release);
    m_lastReport = steadyMs();
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

HAClient::SessionEnd HAClient::session(int fd)
{
    m_have = 0;
    m_carrySize = 0; // the master starts again at this slave's end
    if (!report(fd))
        return m_stopping.load() ? SessionEnd::Stopped : SessionEnd::Dropped;
    std::int64_t lastRead = steadyMs();
    while (!m_stopping.load()) {
        const int rc = waitReadable(fd, kPollSliceMs);
        if (rc < 0)
            return SessionEnd::Dropped;
        if (rc > 0) {
            const auto room = static_cast<size_t>(kSlaveReadBufferSize - m_have);
            const ssize_t n = ::recv(fd, m_buffer.data() + m_have, room, 0);
            if (n == 0) {
                qCWarning(lcBrokerHa).noquote() << "the master closed the HA connection";
                return SessionEnd::Dropped;
            }
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                qCWarning(lcBrokerHa).noquote()
                    << "HA read failed:" << QString::fromLocal8Bit(::strerror(errno));
                return SessionEnd::Dropped;
            }
            if (n > 0) {
                m_have += n;
                lastRead = steadyMs();
                m_lastReadWall.store(QDateTime::currentMSecsSinceEpoch());
                SessionEnd end = SessionEnd::Dropped;
                if (!dispatch(fd, end))
                    return end;
            }
        }
        if (steadyMs() - m_lastReport >= m_heartbeatMs && !report(fd))
            return SessionEnd::Dropped;
        if (steadyMs() - lastRead > m_housekeepingMs) {
            qCWarning(lcBrokerHa).noquote() << "nothing from the master for" << m_housekeepingMs
                                            << "ms (haHousekeepingInterval): reconnecting";
            return SessionEnd::Dropped;
        }
    }
    return SessionEnd::Stopped;
}

bool HAClient::dispatch(int fd, SessionEnd &end)
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
    if (appended && !report(fd))
        return false;
    return true;
}

} // namespace qrocket::broker::ha
