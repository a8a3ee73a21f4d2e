#pragma once

// LatencyHistogram: fixed-bucket latency counts for N series (e.g. one per put result), cheap
// enough for the send path: record() is a bucket search over 14 bounds and two relaxed atomic
// adds, into one of kShards cache-line-aligned copies picked by the calling thread, so that I/O
// threads do not bounce one cache line between cores. snapshot() sums the shards (any thread);
// a snapshot taken while records run may miss the latest ones, never tears a count.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace qrocket::broker::stats {

/// Upper bounds of the buckets, microseconds (Prometheus's le: 0.0001 s ... 5 s); one more bucket
/// counts what is above the last.
inline constexpr std::array<std::int64_t, 14> kLatencyBoundsMicros {
    100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 5000000};

std::size_t latencyShardOfThisThread();

template<std::size_t N>
class LatencyHistogram
{
public:
    static constexpr std::size_t kBuckets = kLatencyBoundsMicros.size() + 1;
    static constexpr std::size_t kShards = 8;

    struct Snapshot
    {
        std::array<std::uint64_t, kBuckets> counts {}; // per bucket, not cumulative
        std::int64_t sumMicros = 0;
        std::uint64_t count() const
        {
            std::uint64_t n = 0;
            for (const std::uint64_t c : counts)
                n += c;
            return n;
        }
    };

    void record(std::size_t series, std::int64_t micros) noexcept
    {
        if (series >= N)
            return;
        std::size_t bucket = 0;
        while (bucket < kLatencyBoundsMicros.size() && micros > kLatencyBoundsMicros[bucket])
            ++bucket;
        Shard &shard = m_shards[latencyShardOfThisThread()];
        shard.counts[series][bucket].fetch_add(1, std::memory_order_relaxed);
        shard.sumMicros[series].fetch_add(micros, std::memory_order_relaxed);
    }

    Snapshot snapshot(std::size_t series) const
    {
        Snapshot out;
        if (series >= N)
            return out;
        for (const Shard &shard : m_shards) {
            for (std::size_t b = 0; b < kBuckets; ++b)
                out.counts[b] += shard.counts[series][b].load(std::memory_order_relaxed);
            out.sumMicros += shard.sumMicros[series].load(std::memory_order_relaxed);
        }
        return out;
    }

private:
    struct alignas(64) Shard
    {
        std::array<std::array<std::atomic<std::uint64_t>, kBuckets>, N> counts {};
        std::array<std::atomic<std::int64_t>, N> sumMicros {};
    };
    std::array<Shard, kShards> m_shards {};
};

} // namespace qrocket::broker::stats
