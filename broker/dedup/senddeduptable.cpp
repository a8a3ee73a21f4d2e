#include "broker/dedup/senddeduptable.h"

#include <algorithm>
#include <bit>

namespace qrocket::broker {

namespace {

std::string_view view(QByteArrayView v)
{
    return {v.data(), static_cast<std::size_t>(v.size())};
}

/// FNV-1a over the bytes, then splitmix64's finalizer: independent of std::hash's murmur.
std::uint64_t secondHash(std::string_view key)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : key)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

/// Home slot of `hash` in a table of 2^bits slots (Fibonacci hashing: the high bits of the
/// product, independent of the bits that chose the shard).
std::size_t home(std::uint64_t hash, std::size_t mask)
{
    const int bits = std::popcount(mask);
    return bits == 0 ? 0 : static_cast<std::size_t>((hash * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

} // namespace

SendDedupTable::Digest SendDedupTable::digestOf(QByteArrayView key)
{
    const std::uint64_t a = std::hash<std::string_view> {}(view(key));
    return {a ? a : 1, secondHash(view(key))};
}

SendDedupTable::SendDedupTable(int shards)
{
    m_shards.reserve(static_cast<std::size_t>(std::max(1, shards)));
    for (int i = 0; i < std::max(1, shards); ++i)
        m_shards.push_back(std::make_unique<Shard>());
}

SendDedupTable::~SendDedupTable() = default;

SendDedupTable::Shard &SendDedupTable::shardOf(std::size_t topicHash, const Digest &key)
{
    const std::size_t h = key.a ^ (topicHash * 0x9e3779b97f4a7c15ull);
    return *m_shards[(h ^ (h >> 29)) % m_shards.size()];
}

SendDedupTable::TopicKeys &SendDedupTable::topicKeys(Shard &shard, const TopicRef &topic)
{
    auto it = shard.topics.find(topic);
    if (it == shard.topics.end())
        it = shard.topics.emplace(std::string(topic.name), TopicKeys {}).first;
    return it->second;
}

std::int64_t SendDedupTable::capPerShard(const Limits &limits) const
{
    if (limits.maxKeysPerTopic <= 0)
        return 0;
    const auto shards = static_cast<std::int64_t>(m_shards.size());
    return (limits.maxKeysPerTopic + shards - 1) / shards;
}

std::size_t SendDedupTable::find(const TopicKeys &keys, const Digest &key)
{
    if (keys.table.empty())
        return std::string_view::npos;
    const std::size_t mask = keys.table.size() - 1;
    for (std::size_t i = home(key.a, mask);; i = (i + 1) & mask) {
        const Slot &s = keys.table[i];
        if (s.key.a == 0)
            return std::string_view::npos;
        if (s.key == key)
            return i;
    }
}

void SendDedupTable::grow(TopicKeys &keys)
{
    std::vector<Slot> old = std::move(keys.table);
    keys.table.assign(std::max<std::size_t>(16, old.size() * 2), Slot {});
    const std::size_t mask = keys.table.size() - 1;
    for (Slot &s : old) {
        if (s.key.a == 0)
            continue;
        std::size_t i = home(s.key.a, mask);
        while (keys.table[i].key.a != 0)
            i = (i + 1) & mask;
        if (s.seq != kPending)
            keys.order[s.seq - keys.headSeq].slot = static_cast<std::uint32_t>(i);
        keys.table[i] = s;
    }
}

std::size_t SendDedupTable::insert(TopicKeys &keys, const Digest &key)
{
    if ((keys.used + 1) * 4 > keys.table.size() * 3)
        grow(keys);
    const std::size_t mask = keys.table.size() - 1;
    std::size_t i = home(key.a, mask);
    while (keys.table[i].key.a != 0)
        i = (i + 1) & mask;
    Slot &s = keys.table[i];
    s = Slot {};
    s.key = key;
    ++keys.used;
    return i;
}

void SendDedupTable::erase(TopicKeys &keys, std::size_t i)
{
    const std::size_t mask = keys.table.size() - 1;
    for (std::size_t j = (i + 1) & mask; keys.table[j].key.a != 0; j = (j + 1) & mask) {
        // Slot j may fill the hole at i when its home is not cyclically within (i, j].
        const std::size_t k = home(keys.table[j].key.a, mask);
        const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        keys.table[i] = keys.table[j];
        if (keys.table[i].seq != kPending)
            keys.order[keys.table[i].seq - keys.headSeq].slot = static_cast<std::uint32_t>(i);
        i = j;
    }
    keys.table[i].key = Digest {};
    --keys.used;
}

void SendDedupTable::place(Shard &shard, Slot &slot, const DedupPlacement &p)
{
    auto host = std::find(shard.hosts.begin(), shard.hosts.end(), p.storeHost);
    if (host == shard.hosts.end() && shard.hosts.size() < 0xFFFF)
        host = shard.hosts.insert(shard.hosts.end(), p.storeHost);
    slot.host = static_cast<std::uint16_t>(
        host == shard.hosts.end() ? 0 : host - shard.hosts.begin()); // (65535 store hosts: no)
    slot.commitLogOffset = p.commitLogOffset;
    slot.queueOffset = p.queueOffset;
    slot.queueId = p.queueId;
}

DedupPlacement SendDedupTable::placementOf(const Shard &shard, const Slot &slot)
{
    DedupPlacement p;
    p.storeHost = shard.hosts[slot.host];
    p.commitLogOffset = slot.commitLogOffset;
    p.queueOffset = slot.queueOffset;
    p.queueId = slot.queueId;
    return p;
}

void SendDedupTable::store(TopicKeys &keys, std::size_t i, std::int64_t storedAtMs)
{
    keys.table[i].seq = keys.headSeq + keys.order.size();
    keys.order.push_back(Order {storedAtMs, static_cast<std::uint32_t>(i)});
}

void SendDedupTable::trim(
    TopicKeys &keys, std::int64_t nowMs, const Limits &limits, bool overCapOnly)
{
    auto drop = [&](std::atomic<std::int64_t> &counter) {
        const std::size_t slot = keys.order.front().slot;
        keys.order.pop_front();
        ++keys.headSeq; // before erase(): it finds moved table' FIFO entries by seq - headSeq
        erase(keys, slot);
        m_keys.fetch_sub(1, std::memory_order_relaxed);
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
    std::int64_t nowMs, const Limits &limits, DedupPlacement *placement, Waiter *waiter,
    Ticket *ticket)
{
    if (!tracks(key))
        return Claim::Fresh;
    const Digest d = digestOf(key);
    const TopicRef t {view(topic), std::hash<std::string_view> {}(view(topic))};
    Shard &shard = shardOf(t.hash, d);
    std::lock_guard lock(shard.mutex);
    TopicKeys &keys = topicKeys(shard, t);
    trim(keys, nowMs, limits);
    const std::size_t i = find(keys, d);
    if (i == std::string_view::npos) {
        insert(keys, d);
        m_keys.fetch_add(1, std::memory_order_relaxed);
        if (ticket) {
            ticket->m_shard = &shard;
            ticket->m_keys = &keys; // stays: a topic with a pending key is never dropped
            ticket->m_digest = d;
        }
        return Claim::Fresh;
    }
    const Slot &s = keys.table[i];
    if (s.seq != kPending) {
        if (placement)
            *placement = placementOf(shard, s);
        m_duplicates.fetch_add(1, std::memory_order_relaxed);
        return Claim::Stored;
    }
    if (waiter)
        keys.waiters.emplace_back(d, std::move(*waiter));
    return Claim::Pending;
}

void SendDedupTable::finishLocked(Shard &shard, TopicKeys &keys, const Digest &key,
    const std::optional<DedupPlacement> &placement, std::int64_t storedAtMs, const Limits &limits)
{
    std::vector<Waiter> waiters;
    {
        std::lock_guard lock(shard.mutex);
        const std::size_t i = find(keys, key);
        if (i == std::string_view::npos || keys.table[i].seq != kPending)
            return;
        if (!keys.waiters.empty()) {
            auto mine = std::stable_partition(keys.waiters.begin(), keys.waiters.end(),
                [&](const auto &w) { return w.first != key; });
            for (auto it = mine; it != keys.waiters.end(); ++it)
                waiters.push_back(std::move(it->second));
            keys.waiters.erase(mine, keys.waiters.end());
        }
        if (placement) {
            place(shard, keys.table[i], *placement);
            store(keys, i, storedAtMs);
            trim(keys, storedAtMs, limits, true);
        } else {
            erase(keys, i);
            m_keys.fetch_sub(1, std::memory_order_relaxed);
        }
    }
    if (placement && !waiters.empty())
        m_duplicates.fetch_add(
            static_cast<std::int64_t>(waiters.size()), std::memory_order_relaxed);
    for (Waiter &w : waiters)
        w(placement);
}

void SendDedupTable::finish(const Ticket &ticket, const std::optional<DedupPlacement> &placement,
    std::int64_t storedAtMs, const Limits &limits)
{
    if (!ticket.valid())
        return;
    finishLocked(*ticket.m_shard, *ticket.m_keys, ticket.m_digest, placement, storedAtMs, limits);
}

void SendDedupTable::finish(QByteArrayView topic, QByteArrayView key,
    const std::optional<DedupPlacement> &placement, std::int64_t storedAtMs, const Limits &limits)
{
    if (!tracks(key))
        return;
    const Digest d = digestOf(key);
    const TopicRef t {view(topic), std::hash<std::string_view> {}(view(topic))};
    Shard &shard = shardOf(t.hash, d);
    TopicKeys *keys = nullptr;
    {
        std::lock_guard lock(shard.mutex);
        const auto it = shard.topics.find(t);
        if (it == shard.topics.end())
            return;
        keys = &it->second; // stays: it holds the pending key (unless finished twice)
    }
    finishLocked(shard, *keys, d, placement, storedAtMs, limits);
}

bool SendDedupTable::record(QByteArrayView topic, QByteArrayView key,
    const DedupPlacement &placement, std::int64_t storedAtMs, const Limits &limits)
{
    if (!tracks(key))
        return false;
    const Digest d = digestOf(key);
    const TopicRef t {view(topic), std::hash<std::string_view> {}(view(topic))};
    Shard &shard = shardOf(t.hash, d);
    std::lock_guard lock(shard.mutex);
    TopicKeys &keys = topicKeys(shard, t);
    if (find(keys, d) != std::string_view::npos)
        return false;
    const std::size_t i = insert(keys, d);
    place(shard, keys.table[i], placement);
    store(keys, i, storedAtMs);
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
            if (it->second.used == 0)
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
