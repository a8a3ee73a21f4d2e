#include "storage/services/offsetwaiters.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <limits>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qrocket::storage {

std::int64_t steadyNowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

bool OffsetWaiters::submit(
    std::int64_t nextOffset, PutMessageResult &result, PutCallback &cb, bool *wasEmpty)
{
    std::lock_guard lock(m_mutex);
    if (m_closed)
        return false;
    if (wasEmpty)
        *wasEmpty = m_queued.empty();
    m_queued.push_back({nextOffset, steadyNowMs() + m_timeoutMs, std::move(result), std::move(cb)});
    return true;
}

bool OffsetWaiters::close()
{
    std::lock_guard lock(m_mutex);
    const bool was = m_closed;
    m_closed = true;
    return !was;
}

bool OffsetWaiters::isClosed() const
{
    std::lock_guard lock(m_mutex);
    return m_closed;
}

std::int64_t OffsetWaiters::queued() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<std::int64_t>(m_queued.size());
}

std::int64_t OffsetWaiters::pending() const
{
    return queued() + m_workingCount.load(std::memory_order_relaxed);
}

void OffsetWaiters::take()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_working.empty()) {
            m_working.swap(m_queued);
        } else {
            for (auto &r : m_queued)
                m_working.push_back(std::move(r));
            m_queued.clear();
        }
    }
    m_workingCount.store(static_cast<std::int64_t>(m_working.size()), std::memory_order_relaxed);
}

std::int64_t OffsetWaiters::oldestWaiting() const
{
    return m_working.empty() ? std::numeric_limits<std::int64_t>::max()
                             : m_working.front().nextOffset;
}

void OffsetWaiters::publish()
{
    // seq_cst pair with block(): a caller that registered before this sees the new generation
    // (its futex wait returns at once) or is woken here.
    m_generation.fetch_add(1);
    if (m_sleepers.load() > 0)
        ::syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&m_generation), FUTEX_WAKE_PRIVATE,
            INT_MAX, nullptr, nullptr, 0);
}

void OffsetWaiters::shutDown()
{
    m_shutDown.store(true);
    publish();
}

void OffsetWaiters::sleepWhile(std::uint32_t generation, std::int64_t deadlineMs)
{
    const std::int64_t left = std::max<std::int64_t>(0, deadlineMs - steadyNowMs());
    timespec ts {static_cast<time_t>(left / 1000), static_cast<long>(left % 1000) * 1000000};
    static_assert(sizeof(m_generation) == sizeof(std::uint32_t));
    ::syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&m_generation), FUTEX_WAIT_PRIVATE,
        generation, &ts, nullptr, 0);
}

} // namespace qrocket::storage
