#include "broker/longpolling/pullrequestholdservice.h"

#include "broker/common/logging.h"

#include <algorithm>

namespace qrocket::broker {

using Clock = std::chrono::steady_clock;

namespace {
constexpr auto kIdleWait = std::chrono::seconds(5);
} // namespace

PullRequestHoldService::PullRequestHoldService(Wakeup wakeup, MaxOffset maxOffset)
    : m_wakeup(std::move(wakeup)), m_maxOffset(std::move(maxOffset))
{ }

PullRequestHoldService::~PullRequestHoldService()
{
    shutdown();
}

void PullRequestHoldService::start()
{
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_nextDeadline = Clock::now() + kIdleWait;
    m_thread = std::thread([this] { run(); });
}

void PullRequestHoldService::shutdown()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_cv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    std::unordered_map<QByteArray, std::vector<HeldPull>> dropped;
    {
        std::lock_guard lock(m_mutex);
        dropped.swap(m_table);
        m_held = 0;
    }
}

QByteArray PullRequestHoldService::key(QByteArrayView topic, int queueId)
{
    QByteArray k;
    k.reserve(topic.size() + 12);
    k.append(topic).append('@').append(QByteArray::number(queueId));
    return k;
}

void PullRequestHoldService::suspend(HeldPull pull)
{
    const QByteArray k = key(pull.topic, pull.queueId);
    const QByteArray topic = pull.topic;
    const int queueId = pull.queueId;
    const std::int64_t from = pull.pullFromOffset;
    bool earlier = false;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        earlier = pull.deadline < m_nextDeadline;
        if (earlier)
            m_nextDeadline = pull.deadline;
        m_table[k].push_back(std::move(pull));
        m_held.fetch_add(1, std::memory_order_relaxed);
    }
    if (earlier)
        m_cv.notify_all();
    // A message may have been dispatched between the pull's read and its parking: its arrival
    // notification found nothing to wake, so look at the queue once more now that it is parked.
    if (m_maxOffset && m_maxOffset(topic, queueId) > from) {
        std::vector<HeldPull> ready;
        {
            std::lock_guard lock(m_mutex);
            ready = takeLocked(k, [from](const HeldPull &p) { return p.pullFromOffset <= from; });
        }
        for (HeldPull &p : ready)
            m_wakeup(std::move(p));
    }
}

std::vector<HeldPull> PullRequestHoldService::takeLocked(
    const QByteArray &k, const std::function<bool(const HeldPull &)> &pred)
{
    std::vector<HeldPull> out;
    auto it = m_table.find(k);
    if (it == m_table.end())
        return out;
    std::vector<HeldPull> &list = it->second;
    auto keep = std::stable_partition(
        list.begin(), list.end(), [&pred](const HeldPull &p) { return !pred(p); });
    for (auto i = keep; i != list.end(); ++i)
        out.push_back(std::move(*i));
    list.erase(keep, list.end());
    if (list.empty())
        m_table.erase(it);
    m_held.fetch_sub(static_cast<int>(out.size()), std::memory_order_relaxed);
    return out;
}

void PullRequestHoldService::notifyMessageArriving(QByteArrayView topic, int queueId,
    std::int64_t queueOffset, std::int64_t tagsCode, QByteArrayView properties)
{
    if (m_held.load(std::memory_order_relaxed) == 0)
        return;
    const QByteArray k = key(topic, queueId);
    std::vector<HeldPull> ready;
    {
        std::lock_guard lock(m_mutex);
        ready = takeLocked(k, [queueOffset, tagsCode, properties](const HeldPull &p) {
            return queueOffset >= p.pullFromOffset && p.filter.matches(tagsCode, properties);
        });
    }
    for (HeldPull &p : ready)
        m_wakeup(std::move(p));
}

void PullRequestHoldService::run()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        m_cv.wait_until(
            lock, m_nextDeadline, [this] { return m_stopping || Clock::now() >= m_nextDeadline; });
        if (m_stopping)
            break;
        const auto now = Clock::now();
        std::vector<HeldPull> expired;
        auto next = now + kIdleWait;
        for (auto it = m_table.begin(); it != m_table.end();) {
            std::vector<HeldPull> &list = it->second;
            auto keep = std::stable_partition(
                list.begin(), list.end(), [now](const HeldPull &p) { return p.deadline > now; });
            for (auto i = list.begin(); i != keep; ++i)
                next = std::min(next, i->deadline);
            for (auto i = keep; i != list.end(); ++i)
                expired.push_back(std::move(*i));
            list.erase(keep, list.end());
            it = list.empty() ? m_table.erase(it) : std::next(it);
        }
        m_held.fetch_sub(static_cast<int>(expired.size()), std::memory_order_relaxed);
        m_nextDeadline = next;
        if (expired.empty())
            continue;
        lock.unlock();
        for (HeldPull &p : expired)
            m_wakeup(std::move(p));
        lock.lock();
    }
}

} // namespace qrocket::broker
