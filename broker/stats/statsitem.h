#pragma once

// StatsItem and StatsTable: the counters behind VIEW_BROKER_STATS_DATA, as RocketMQ 4.9's
// StatsItem / StatsItemSet keep them.
//
// A StatsItem is two running totals, `value` (messages, bytes or milliseconds) and `times` (how
// many calls added to it), plus three windows of samples of both: the minute window is sampled
// every 10 s and keeps 7 samples, the hour window every 10 min (7), the day window every hour
// (25). A window's first sample is preceded by a zero one dated one period earlier, so that the
// first figures cover the whole period. A window's snapshot is the change between its oldest
// and newest samples: sum = value change, tps = sum per second over the time between them,
// avgpt = sum / times change (0 when no call was counted).
//
// A StatsTable holds the items of N stats names that share one kind of key ("topic",
// "topic@group", ...), one array of N items per key. Items are created on first use and live as
// long as the table (RocketMQ 4.9 keeps them too unless autoDeleteUnusedStats is set).
//
// Thread-safety: add() is lock-free (relaxed atomics) and may run on any thread. sample() and
// snapshot() touch the windows and must not run concurrently with each other (the owner
// serialises them). A StatsTable's lookups are lock-free for the key the calling thread used
// last, and otherwise take its read lock for the lookup only; creating a key takes the write
// lock once.

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace qrocket::broker::stats {

/// The figures of one window (RocketMQ's StatsSnapshot / BrokerStatsItem).
struct StatsSnapshot
{
    std::int64_t sum = 0;
    double tps = 0;
    double avgpt = 0;
};

enum class Window : std::uint8_t { Minute, Hour, Day };
inline constexpr std::size_t kWindowCount = 3;
inline constexpr std::array<Window, kWindowCount> kWindows {
    Window::Minute, Window::Hour, Window::Day};
/// How often each window is sampled.
inline constexpr std::array<std::int64_t, kWindowCount> kWindowPeriodMillis {
    10 * 1000, 10 * 60 * 1000, 60 * 60 * 1000};
/// How many samples each window keeps.
inline constexpr std::array<int, kWindowCount> kWindowSamples {7, 7, 25};

class StatsItem
{
public:
    void add(std::int64_t value, std::int64_t times) noexcept
    {
        m_value.fetch_add(value, std::memory_order_relaxed);
        if (times != 0)
            m_times.fetch_add(times, std::memory_order_relaxed);
    }
    std::int64_t value() const noexcept { return m_value.load(std::memory_order_relaxed); }
    std::int64_t times() const noexcept { return m_times.load(std::memory_order_relaxed); }
    /// Whether anything was ever added (RocketMQ creates an item on its first add).
    bool used() const noexcept { return value() != 0 || times() != 0; }

    /// Appends a sample of the totals to window `w`, taken at `nowMillis`.
    void sample(Window w, std::int64_t nowMillis);
    StatsSnapshot snapshot(Window w) const;

private:
    struct CallSnapshot
    {
        std::int64_t timestamp = 0;
        std::int64_t times = 0;
        std::int64_t value = 0;
    };
    /// Oldest-first ring of one window's samples.
    struct Ring
    {
        int first = 0;
        int size = 0;
    };
    static constexpr std::array<int, kWindowCount> kOffsets {0, 7, 14};
    static constexpr int kSlots = 7 + 7 + 25;
    static_assert(kOffsets[2] + kWindowSamples[2] == kSlots);

    void push(Window w, const CallSnapshot &s);
    const CallSnapshot &at(Window w, int index) const;

    std::atomic<std::int64_t> m_value {0};
    std::atomic<std::int64_t> m_times {0};
    std::array<Ring, kWindowCount> m_rings {};
    std::array<CallSnapshot, kSlots> m_slots {};
};

/// std::string-keyed map looked up with a string_view (no key allocation).
struct StringViewHash
{
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept
    {
        return std::hash<std::string_view> {}(s);
    }
};

/// A new StatsTable id (1, 2, ...; never 0, never reused).
std::uint64_t nextStatsTableId();

template<std::size_t N>
class StatsTable
{
public:
    using Items = std::array<StatsItem, N>;

    /// The key's items, or null (read lock for the lookup only).
    Items *find(std::string_view key) const
    {
        std::shared_lock lock(m_mutex);
        const auto it = m_items.find(key);
        return it == m_items.end() ? nullptr : it->second.get();
    }
    /// The key's items, created when absent. The common case, the key this thread used last
    /// (a sender's topic), is lock-free; then find()'s read-locked lookup.
    Items &findOrCreate(std::string_view key)
    {
        LastUsed &last = t_lastUsed;
        if (last.table == m_id && last.length == key.size()
            && std::memcmp(last.key.data(), key.data(), key.size()) == 0)
            return *last.items;
        Items *items = find(key);
        if (!items) {
            std::unique_lock lock(m_mutex);
            auto &slot = m_items[std::string(key)];
            if (!slot)
                slot = std::make_unique<Items>();
            items = slot.get();
        }
        if (key.size() <= last.key.size()) {
            last.table = m_id;
            last.length = key.size();
            std::memcpy(last.key.data(), key.data(), key.size());
            last.items = items;
        }
        return *items;
    }
    /// fn(Items &) for every key, under the read lock.
    void forEach(const std::function<void(Items &)> &fn)
    {
        std::shared_lock lock(m_mutex);
        for (auto &[key, items] : m_items)
            fn(*items);
    }
    /// fn(key, items) for every key, under the read lock (the metrics endpoint's snapshot).
    void forEachKeyed(const std::function<void(const std::string &, const Items &)> &fn) const
    {
        std::shared_lock lock(m_mutex);
        for (const auto &[key, items] : m_items)
            fn(key, *items);
    }

private:
    /// A thread's last key of a table of this kind. Tables are told apart by an id that is never
    /// reused, so the entry of a table that is gone never matches (its items are not touched).
    struct LastUsed
    {
        std::uint64_t table = 0;
        Items *items = nullptr;
        std::size_t length = 0;
        std::array<char, 96> key;
    };
    static inline thread_local LastUsed t_lastUsed;

    const std::uint64_t m_id = nextStatsTableId();
    mutable std::shared_mutex m_mutex;
    std::unordered_map<std::string, std::unique_ptr<Items>, StringViewHash, std::equal_to<>>
        m_items; // entries are never removed: handed-out references stay valid
};

} // namespace qrocket::broker::stats
