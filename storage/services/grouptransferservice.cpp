#include "storage/services/grouptransferservice.h"

#include "storage/logging.h"

#include <chrono>
#include <pthread.h>

namespace qrocket::storage {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

GroupTransferService::GroupTransferService(int timeoutMs, std::int64_t fallBehindMax)
    : m_timeoutMs(timeoutMs), m_fallBehindMax(fallBehindMax)
{ }

GroupTransferService::~GroupTransferService()
{
    stop();
}

void GroupTransferService::start()
{
    std::lock_guard lock(m_mutex);
    if (m_started)
        return;
    m_started = true;
    m_thread = std::thread([this] { run(); });
    ::pthread_setname_np(m_thread.native_handle(), "qr-hatransfer");
}

void GroupTransferService::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopped)
            return;
        m_stopped = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    // The thread is gone: whatever is left completes here, once.
    {
        std::lock_guard lock(m_mutex);
        for (auto &r : m_requests)
            m_working.push_back(std::move(r));
        m_requests.clear();
    }
    completeWorking(true);
}

QString GroupTransferService::timeoutRemark(std::int64_t nextOffset) const
{
    return QStringLiteral("no slave acknowledged the message within %1 ms (slaves acknowledged up "
                          "to %2, needed %3)")
        .arg(m_timeoutMs)
        .arg(ackedOffset())
        .arg(nextOffset);
}

void GroupTransferService::submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            m_requests.push_back(
                {nextOffset, steadyMs() + m_timeoutMs, std::move(result), std::move(cb)});
            if (m_idle.load(std::memory_order_relaxed))
                m_cv.notify_all();
            return;
        }
    }
    if (ackedOffset() < nextOffset) {
        result.status = PutMessageStatus::FlushSlaveTimeout;
        result.remark = QStringLiteral("store shut down before a slave had the message");
    }
    if (cb)
        cb(result);
}

bool GroupTransferService::waitTransferred(std::int64_t nextOffset, QString *whyNot)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(m_timeoutMs);
    std::unique_lock lock(m_mutex);
    // notifyTransferSome() notifies under the lock while a waiter is registered.
    m_blockedWaiters.fetch_add(1);
    const bool ok
        = m_cv.wait_until(lock, deadline, [&] { return ackedOffset() >= nextOffset || m_stopped; });
    m_blockedWaiters.fetch_sub(1);
    if (ok && ackedOffset() >= nextOffset)
        return true;
    if (whyNot)
        *whyNot = m_stopped ? QStringLiteral("store shut down before a slave had the message")
                            : timeoutRemark(nextOffset);
    return false;
}

void GroupTransferService::notifyTransferSome(std::int64_t offset)
{
    std::int64_t seen = m_acked.load(std::memory_order_relaxed);
    while (offset > seen) {
        if (m_acked.compare_exchange_weak(seen, offset, std::memory_order_acq_rel)) {
            // seq_cst pair with the waiters: they set m_waiting before checking the offset.
            if (m_waiting.load() || m_blockedWaiters.load() > 0) {
                std::lock_guard lock(m_mutex);
                m_cv.notify_all();
            }
            return;
        }
    }
}

void GroupTransferService::setSlaveConnections(int connections)
{
    m_connections.store(connections, std::memory_order_release);
}

std::int64_t GroupTransferService::pendingRequests() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<std::int64_t>(m_requests.size() + m_working.size());
}

void GroupTransferService::completeWorking(bool expireAll)
{
    const std::int64_t acked = ackedOffset();
    const std::int64_t now = steadyMs();
    size_t kept = 0;
    for (size_t i = 0; i < m_working.size(); ++i) {
        Request &r = m_working[i];
        if (acked >= r.nextOffset) {
            if (r.cb)
                r.cb(r.result);
        } else if (expireAll || now >= r.deadline) {
            r.result.status = PutMessageStatus::FlushSlaveTimeout;
            r.result.remark = expireAll && m_stopped
                ? QStringLiteral("store shut down before a slave had the message")
                : timeoutRemark(r.nextOffset);
            if (r.cb)
                r.cb(r.result);
        } else {
            if (kept != i)
                m_working[kept] = std::move(r);
            ++kept;
        }
    }
    m_working.erase(m_working.begin() + static_cast<std::ptrdiff_t>(kept), m_working.end());
}

void GroupTransferService::run()
{
    // Requests complete in offset order mostly, so each pass is one look at the oldest; the
    // thread sleeps until an acknowledgement moves the offset, a request arrives with none
    // pending, or the oldest deadline (checked at least every 10 ms) passes.
    constexpr auto kCheck = std::chrono::milliseconds(10);
    constexpr auto kIdle = std::chrono::milliseconds(1000);
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            for (auto &r : m_requests)
                m_working.push_back(std::move(r));
            m_requests.clear();
            if (m_stopped)
                return;
            if (m_working.empty() || ackedOffset() < m_working.front().nextOffset) {
                const bool idle = m_working.empty();
                m_idle.store(idle);
                m_waiting.store(true);
                const std::int64_t acked = ackedOffset();
                m_cv.wait_for(lock, idle ? kIdle : kCheck, [&] {
                    return m_stopped || ackedOffset() != acked || (idle && !m_requests.empty());
                });
                m_waiting.store(false);
                m_idle.store(false);
                for (auto &r : m_requests)
                    m_working.push_back(std::move(r));
                m_requests.clear();
                if (m_stopped)
                    return;
            }
        }
        completeWorking(false);
    }
}

} // namespace qrocket::storage
