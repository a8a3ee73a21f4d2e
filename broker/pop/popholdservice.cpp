#include "broker/pop/popholdservice.h"

#include <algorithm>

namespace qrocket::broker::pop {

PopHoldService::PopHoldService(Wakeup wakeup, int maxHeld)
    : m_wakeup(std::move(wakeup)), m_maxHeld(std::max(1, maxHeld))
{ }

PopHoldService::~PopHoldService()
{
    shutdown();
}

void PopHoldService::start()
{
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable() || m_stopping)
        return;
    m_thread = std::thread([this] { run(); });
}

void PopHoldService::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_table.clear();
        m_held.store(0);
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

bool PopHoldService::suspend(const HeldPopPtr &pop)
{
    bool earliest = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping || m_held.load() >= m_maxHeld)
            return false;
        for (const QByteArray &topic : pop->topics)
            m_table[topic].push_back(pop);
        m_held.fetch_add(1);
        earliest = pop->deadline < m_nextWake;
        if (earliest)
            m_nextWake = pop->deadline;
    }
    if (earliest)
        m_cv.notify_all();
    return true;
}

void PopHoldService::removeLocked(const HeldPopPtr &pop)
{
    for (const QByteArray &topic : pop->topics) {
        const auto it = m_table.find(topic);
        if (it == m_table.end())
            continue;
        std::erase(it->second, pop);
        if (it->second.empty())
            m_table.erase(it);
    }
    m_held.fetch_sub(1);
}

void PopHoldService::wake(const HeldPopPtr &pop)
{
    if (pop->taken.exchange(true))
        return;
    {
        std::lock_guard lock(m_mutex);
        removeLocked(pop);
    }
    m_wakeup(pop, false);
}

void PopHoldService::notifyArrival(QByteArrayView topic)
{
    if (m_held.load(std::memory_order_relaxed) == 0)
        return;
    std::vector<HeldPopPtr> woken;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_table.find(topic.toByteArray());
        if (it == m_table.end())
            return;
        const std::vector<HeldPopPtr> parked = it->second;
        for (const HeldPopPtr &pop : parked) {
            if (pop->taken.exchange(true))
                continue;
            removeLocked(pop);
            woken.push_back(pop);
        }
    }
    for (HeldPopPtr &pop : woken)
        m_wakeup(std::move(pop), false);
}

int PopHoldService::heldCount(QByteArrayView topic) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_table.find(topic.toByteArray());
    return it == m_table.end() ? 0 : static_cast<int>(it->second.size());
}

void PopHoldService::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        const auto now = std::chrono::steady_clock::now();
        auto next = now + std::chrono::hours(1);
        std::vector<HeldPopPtr> expired;
        for (const auto &[topic, parked] : m_table) {
            for (const HeldPopPtr &pop : parked) {
                if (pop->deadline <= now)
                    expired.push_back(pop);
                else
                    next = std::min(next, pop->deadline);
            }
        }
        if (!expired.empty()) {
            std::vector<HeldPopPtr> mine;
            for (const HeldPopPtr &pop : expired) {
                if (pop->taken.exchange(true))
                    continue; // parked under two topics: listed twice, or woken meanwhile
                removeLocked(pop);
                mine.push_back(pop);
            }
            lock.unlock();
            for (HeldPopPtr &pop : mine)
                m_wakeup(std::move(pop), true);
            lock.lock();
            continue;
        }
        m_nextWake = next;
        m_cv.wait_until(lock, next);
    }
}

} // namespace qrocket::broker::pop
