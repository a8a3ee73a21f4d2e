#pragma once

// SendDedupTable: the broker's memory of which UNIQ_KEYs it stored for which topic within the
// dedup window (sendDedupEnable, issue 28 "exactly-once sends"). A send whose (topic, UNIQ_KEY)
// is here is answered with the first attempt's placement (msgId host + commit-log offset, queue
// id, queue offset) and stores nothing.
//
// Shape: kShards shards chosen by hash(topic, key), each with its own mutex, so two sends of
// different keys almost never wait for each other and no lock covers every send. Within a
// shard, per topic: an open-addressing table of 48-byte slots (the key's 128-bit digest and its
// placement: a lookup probes one array, linear probing, deletion by backward shift, load at
// most 3/4) and the stored keys' slots in the order they were stored (FIFO) for expiry and the
// cap. A send hashes its key and topic once: claim() hands finish() a Ticket.
//
// Keys are compared by a 128-bit digest (two independent 64-bit hashes of the UNIQ_KEY), not
// byte for byte: the window's memory, and so the cache misses a send pays, is what the table
// costs on the send path. Two different keys of one topic share a digest with a probability
// of about n / 2^128 per send (n keys held): below 1e-30 for a window of millions of keys.
//
// Life of a key:
//   claim() absent            -> Pending, the caller owns it and must call finish() exactly once
//   claim() while Pending     -> the caller's waiter is queued (or, without a waiter, nothing)
//   finish(result)            -> Stored; queued waiters get the result (outside the lock)
//   finish(nullopt)           -> removed (the put stored nothing); waiters get nullopt
//   Stored, older than window -> removed (lazily, or by expire()); counted as evictedByWindow
//   Stored, over the cap      -> the oldest of that topic in that shard removed; evictedByCap
// A Pending key is never evicted. record() (rebuilding from the commit log at start) inserts a
// Stored key unless the key is already there: the first record of a key wins.
//
// The cap: maxKeysPerTopic is divided evenly among the shards (each shard keeps at most
// ceil(cap / shards) stored keys per topic), so a topic never holds more than
// cap + shards - 1 keys; the hash spreads keys evenly, so it holds close to cap when full.
//
// Thread-safety: every method may be called from any thread. Waiters run on the thread that
// calls finish(), after its shard lock is released.

#include "clientlib/protocol/messagecodec.h"

#include <QByteArrayView>

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qrocket::broker {

/// Where the first stored attempt of a message went: what a duplicate's reply repeats.
struct DedupPlacement
{
    protocol::HostAddress storeHost; // msgId = offset message id of (storeHost, commitLogOffset)
    std::int64_t commitLogOffset = 0;
    std::int32_t queueId = 0;
    std::int64_t queueOffset = 0;
};

class SendDedupTable
{
public:
    struct Limits
    {
        std::int64_t windowMs = 0;
        std::int64_t maxKeysPerTopic = 0; // <= 0: no cap
    };
    enum class Claim : std::uint8_t {
        Fresh, // the caller owns the key: store the message, then finish()
        Stored, // a duplicate: *placement holds the first attempt's placement
        Pending, // another attempt is being stored now; the waiter (if any) was queued
    };
    using Waiter = std::function<void(const std::optional<DedupPlacement> &)>;
    struct Stats
    {
        std::int64_t keys = 0; // stored and pending keys now
        std::int64_t duplicates = 0; // claims answered Stored, and waiters given a placement
        std::int64_t evictedByWindow = 0;
        std::int64_t evictedByCap = 0;
    };

    static constexpr int kDefaultShards = 64;
    /// Whether `key` is tracked at all (not empty): claim() answers Fresh for an empty key and
    /// finish() and record() ignore it.
    static bool tracks(QByteArrayView key) { return !key.isEmpty(); }
    /// A key's 128-bit digest (a, never 0, chooses the slot; b confirms).
    struct Digest
    {
        std::uint64_t a = 0;
        std::uint64_t b = 0;
        friend bool operator==(const Digest &, const Digest &) = default;
    };
    static Digest digestOf(QByteArrayView key);

private:
    struct Shard;
    struct TopicKeys;

public:
    /// What a Fresh claim() hands to finish(): where the key lives (its shard and topic, which
    /// stay while the key is pending) and the key itself, so that finish() hashes nothing,
    /// looks up no topic and allocates nothing.
    class Ticket
    {
    public:
        bool valid() const { return m_keys != nullptr; }

    private:
        friend class SendDedupTable;
        Shard *m_shard = nullptr;
        TopicKeys *m_keys = nullptr;
        Digest m_digest;
    };

    explicit SendDedupTable(int shards = kDefaultShards);
    ~SendDedupTable();
    SendDedupTable(const SendDedupTable &) = delete;
    SendDedupTable &operator=(const SendDedupTable &) = delete;

    /// `nowMs`: ms since the epoch (the window's clock). With `waiter` null a Pending key is
    /// only reported (nothing allocated on the common path); call again with a waiter to queue
    /// it: the answer may then be Fresh or Stored as well (the other attempt ended meanwhile),
    /// and *waiter is moved from only when Pending is answered.
    /// A Fresh answer fills `ticket` (when given) for finish(const Ticket &, ...).
    Claim claim(QByteArrayView topic, QByteArrayView key, std::int64_t nowMs, const Limits &limits,
        DedupPlacement *placement, Waiter *waiter = nullptr, Ticket *ticket = nullptr);
    /// Ends a claim() that answered Fresh: `placement` when the put stored the message (also
    /// with FLUSH_DISK_TIMEOUT and the like: it is in the commit log), else nullopt.
    /// `storedAtMs`: when it was stored (the window starts there).
    void finish(QByteArrayView topic, QByteArrayView key,
        const std::optional<DedupPlacement> &placement, std::int64_t storedAtMs,
        const Limits &limits);
    /// The same, for the claim that filled `ticket` (a ticket that is not valid(): nothing).
    void finish(const Ticket &ticket, const std::optional<DedupPlacement> &placement,
        std::int64_t storedAtMs, const Limits &limits);
    /// Rebuild at start: a key stored at `storedAtMs`, unless already known. True if inserted.
    bool record(QByteArrayView topic, QByteArrayView key, const DedupPlacement &placement,
        std::int64_t storedAtMs, const Limits &limits);
    /// Drops every stored key older than the window (a timer calls it; claims and finishes
    /// also expire the topic they touch).
    void expire(std::int64_t nowMs, const Limits &limits);

    Stats stats() const;
    int shardCount() const { return static_cast<int>(m_shards.size()); }

private:
    static constexpr std::uint64_t kPending = ~std::uint64_t(0);
    struct Slot
    {
        Digest key; // key.a == 0: empty
        std::uint64_t seq = kPending; // the key's place in the FIFO once stored
        std::int64_t commitLogOffset = 0;
        std::int64_t queueOffset = 0;
        std::int32_t queueId = 0;
        std::uint16_t host = 0; // index into Shard::hosts
    };
    struct Order
    {
        std::int64_t storedAtMs = 0;
        std::uint32_t slot = 0;
    };
    /// A topic name with its hash computed once per call.
    struct TopicRef
    {
        std::string_view name;
        std::size_t hash = 0;
        friend bool operator==(const TopicRef &a, const std::string &b) { return a.name == b; }
    };
    struct Hash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept
        {
            return std::hash<std::string_view> {}(s);
        }
        std::size_t operator()(const TopicRef &t) const noexcept { return t.hash; }
    };
    struct TopicKeys
    {
        std::vector<Slot> table; // a power of two, or empty
        std::size_t used = 0;
        std::deque<Order> order; // stored keys, oldest first: order[i] has seq headSeq + i
        std::uint64_t headSeq = 0;
        std::vector<std::pair<Digest, Waiter>> waiters; // of pending keys (rare)
    };
    struct Shard
    {
        std::mutex mutex;
        std::unordered_map<std::string, TopicKeys, Hash, std::equal_to<>> topics;
        std::vector<protocol::HostAddress> hosts; // store hosts of placements (one or two)
    };

    static std::size_t find(const TopicKeys &keys, const Digest &key);
    static std::size_t insert(TopicKeys &keys, const Digest &key);
    /// Empties slot `i`, shifting the probe chain back (FIFO entries follow their slots).
    static void erase(TopicKeys &keys, std::size_t i);
    static void grow(TopicKeys &keys);
    static void place(Shard &shard, Slot &slot, const DedupPlacement &p);
    static DedupPlacement placementOf(const Shard &shard, const Slot &slot);
    /// Marks slot `i` stored at `storedAtMs` (appends it to the FIFO).
    static void store(TopicKeys &keys, std::size_t i, std::int64_t storedAtMs);
    Shard &shardOf(std::size_t topicHash, const Digest &key);
    static TopicKeys &topicKeys(Shard &shard, const TopicRef &topic);
    void finishLocked(Shard &shard, TopicKeys &keys, const Digest &key,
        const std::optional<DedupPlacement> &placement, std::int64_t storedAtMs,
        const Limits &limits);
    /// Expiry and cap on one topic of a locked shard.
    void trim(TopicKeys &keys, std::int64_t nowMs, const Limits &limits, bool overCapOnly = false);
    std::int64_t capPerShard(const Limits &limits) const;

    std::vector<std::unique_ptr<Shard>> m_shards;
    std::atomic<std::int64_t> m_keys {0};
    std::atomic<std::int64_t> m_duplicates {0};
    std::atomic<std::int64_t> m_evictedByWindow {0};
    std::atomic<std::int64_t> m_evictedByCap {0};
};

} // namespace qrocket::broker
