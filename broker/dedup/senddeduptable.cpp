#include "broker/dedup/senddeduptable.h"

#include <algorithm>

namespace qrocket::broker {

namespace {

std::string_view view(QByteArrayView v)
{
    return {v.data(), static_cast<std::size_t>(v.size())};
}

} // namespace

SendDedupTable::SendDedupTable(int shards)
{
    m_shards.reserve(static_cast<std::size_t>(std::max(1, shards)));
    for (int i = 0; i < std::max(1, shards); ++i)
        m_shards.push_back(std::make_unique<Shard>());
}

SendDedupTable::~SendDedupTable() = default;

SendDedupTable::Shard &SendDedupTable::shardOf(QByteArrayView topic, QByteArrayView key)
{
    // The key (a UNIQ_KEY: IP, pid, time, counter) already varies in its last bytes; mixing the
    // topic in keeps one topic's keys from clustering when producers reuse keys across topics.
    const std::size_t h = std::hash<std::string_view> {}(view(key))
        ^ (std::hash<std::string_view> {}(view(topic)) * 0x9e3779b97f4a7c15ull);
    return *m_shards[(h ^ (h >> 29)) % m_shards.size()];
}

std::int64_t SendDedupTable::capPerShard(const Limits &limits) const
{
    if (limits.maxKeysPerTopic <= 0)
        return 0;
    const auto shards = static_cast<std::int64_t>(m_shards.size());
    return (limits.maxKeysPerTopic + shards - 1) / shards;
}

void SendDedupTable::trim(
    TopicKeys &keys, std::int64_t nowMs, const Limits &limits, bool overCapOnly)
{
    auto drop = [&](std::atomic<std::int64_t> &counter) {
        const auto it = keys.entries.find(keys.order.front().key);
        keys.order.pop_front(); // before the erase: its key views the node's
        if (it != keys.entries.end()) {
            keys.entries.erase(it);
            m_keys.fetch_sub(1, std::memory_order_relaxed);
        }
        counter.fetch_add(1, std::memory_order_relaxed);
    };
    if (!overCapOnly && limits.windowMs > 0) {
        const std::int64_t oldest = nowMs - limits.windowMs;
        while (!keys.order.empty() && keys.order.front().storedAtMs < oldest)
            drop(m_evictedByWindow);
    }
    if (const std::int64_t cap = capPerShard(limits); cap > 0) {
        while (static_cast<std::int64_t>(keys.order.size()) > cap)
            drop(m_evictedByCap);
    }
}

SendDedupTable::Claim SendDedupTable::claim(QByteArrayView topic, QByteArrayView key,
    std::int64_t nowMs, const Limits &limits, DedupPlacement *placement, Waiter *waiter)
{
    Shard &shard = shardOf(topic, key);
    std::lock_guard lock(shard.mutex);
    auto topicIt = shard.topics.find(view(topic));
    if (topicIt == shard.topics.end())
        topicIt = shard.topics.emplace(std::string(view(topic)), TopicKeys {}).first;
    TopicKeys &keys = topicIt->second;
    trim(keys, nowMs, limits);
    const auto it = keys.entries.find(view(key));
    if (it == keys.entries.end()) {
        keys.entries.emplace(std::string(view(key)), Entry {});
        m_keys.fetch_add(1, std::memory_order_relaxed);
        return Claim::Fresh;
    }
    if (!it->second.pending) {
        if (placement)
            *placement = it->second.placement;
        m_duplicates.fetch_add(1, std::memory_order_relaxed);
        return Claim::Stored;
    }
    if (waiter)
        it->second.waiters.push_back(std::move(*waiter));
    return Claim::Pending;
}

void SendDedupTable::finish(QByteArrayView topic, QByteArrayView key,
    const std::optional<DedupPlacement> &placement, std::int64_t storedAtMs, const Limits &limits)
{
    std::vector<Waiter> waiters;
    {
        Shard &shard = shardOf(topic, key);
        std::lock_guard lock(shard.mutex);
        const auto topicIt = shard.topics.find(view(topic));
        if (topicIt == shard.topics.end())
            return;
        TopicKeys &keys = topicIt->second;
        const auto it = keys.entries.find(view(key));
        if (it == keys.entries.end() || !it->second.pending)
            return;
        waiters.swap(it->second.waiters);
        if (placement) {
            it->second.pending = false;
            it->second.placement = *placement;
            keys.order.push_back(Order {storedAtMs, it->first});
            trim(keys, storedAtMs, limits, true);
        } else {
            keys.entries.erase(it);
            m_keys.fetch_sub(1, std::memory_order_relaxed);
        }
    }
    if (placement && !waiters.empty())
        m_duplicates.fetch_add(
            static_cast<std::int64_t>(waiters.size()), std::memory_order_relaxed);
    for (Waiter &w : waiters)
        w(placement);
}

bool SendDedupTable::record(QByteArrayView topic, QByteArrayView key,
    const DedupPlacement &placement, std::int64_t storedAtMs, const Limits &limits)
{
    Shard &shard = shardOf(topic, key);
    std::lock_guard lock(shard.mutex);
    auto topicIt = shard.topics.find(view(topic));
    if (topicIt == shard.topics.end())
        topicIt = shard.topics.emplace(std::string(view(topic)), TopicKeys {}).first;
    TopicKeys &keys = topicIt->second;
    const auto [it, inserted] = keys.entries.try_emplace(std::string(view(key)));
    if (!inserted)
        return false;
    it->second.pending = false;
    it->second.placement = placement;
    keys.order.push_back(Order {storedAtMs, it->first});
    m_keys.fetch_add(1, std::memory_order_relaxed);
    trim(keys, storedAtMs, limits, true);
    return true;
}

void SendDedupTable::expire(std::int64_t nowMs, const Limits &limits)
{
    for (const auto &shard : m_shards) {
        std::lock_guard lock(shard->mutex);
        for (auto it = shard->topics.begin(); it != shard->topics.end();) {
            trim(it->second, nowMs, limits);
            if (it->second.entries.empty())
                it = shard->topics.erase(it); // a deleted or idle topic leaves nothing behind
            else
                ++it;
        }
    }
}

SendDedupTable::Stats SendDedupTable::stats() const
{
    Stats s;
    s.keys = m_keys.load(std::memory_order_relaxed);
    s.duplicates = m_duplicates.load(std::memory_order_relaxed);
    s.evictedByWindow = m_evictedByWindow.load(std::memory_order_relaxed);
    s.evictedByCap = m_evictedByCap.load(std::memory_order_relaxed);
    return s;
}

} // namespace qrocket::broker
