#include "broker/stats/statsitem.h"

#include "broker/stats/latencyhistogram.h"

namespace qrocket::broker::stats {

namespace {

std::size_t indexOf(Window w)
{
    return static_cast<std::size_t>(w);
}

} // namespace

std::size_t latencyShardOfThisThread()
{
    // Threads take the shards in turn on their first record.
    static std::atomic<std::size_t> next {0};
    thread_local const std::size_t shard
        = next.fetch_add(1, std::memory_order_relaxed) % LatencyHistogram<1>::kShards;
    return shard;
}

std::uint64_t nextStatsTableId()
{
    static std::atomic<std::uint64_t> next {0};
    return next.fetch_add(1, std::memory_order_relaxed) + 1;
}

void StatsItem::push(Window w, const CallSnapshot &s)
{
    const std::size_t i = indexOf(w);
    Ring &ring = m_rings[i];
    const int capacity = kWindowSamples[i];
    if (ring.size == capacity) { // full: the oldest goes
        ring.first = (ring.first + 1) % capacity;
        --ring.size;
    }
    m_slots[kOffsets[i] + (ring.first + ring.size) % capacity] = s;
    ++ring.size;
}

const StatsItem::CallSnapshot &StatsItem::at(Window w, int index) const
{
    const std::size_t i = indexOf(w);
    return m_slots[kOffsets[i] + (m_rings[i].first + index) % kWindowSamples[i]];
}

void StatsItem::sample(Window w, std::int64_t nowMillis)
{
    if (m_rings[indexOf(w)].size == 0)
        push(w, CallSnapshot {nowMillis - kWindowPeriodMillis[indexOf(w)], 0, 0});
    push(w, CallSnapshot {nowMillis, times(), value()});
}

StatsSnapshot StatsItem::snapshot(Window w) const
{
    StatsSnapshot out;
    const int size = m_rings[indexOf(w)].size;
    if (size == 0)
        return out;
    const CallSnapshot &first = at(w, 0);
    const CallSnapshot &last = at(w, size - 1);
    out.sum = last.value - first.value;
    const std::int64_t millis = last.timestamp - first.timestamp;
    // Java divides by the (never zero in practice) span; a zero span gives 0 here, not NaN.
    out.tps = millis != 0 ? static_cast<double>(out.sum) * 1000.0 / static_cast<double>(millis) : 0;
    const std::int64_t calls = last.times - first.times;
    if (calls > 0)
        out.avgpt = static_cast<double>(out.sum) / static_cast<double>(calls);
    return out;
}

} // namespace qrocket::broker::stats
