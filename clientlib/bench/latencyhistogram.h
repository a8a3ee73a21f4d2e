#pragma once

// Latency histograms for qrocket-bench: fixed log-linear buckets of microseconds (exact below
// 32 µs, then 16 buckets per power of two: every bucket is within 1/16 of its value), so
// recording is one relaxed atomic increment and percentiles need no sorting or allocation.
//
//   LatencyRecorder rec;                    // one per sending thread (any number of writers)
//   rec.record(micros);
//   HistogramSnapshot now = rec.snapshot(); // cumulative counts
//   HistogramSnapshot interval = now - before;
//   interval.percentile(0.99)               // µs, the bucket's midpoint

#include <array>
#include <atomic>
#include <cstdint>

namespace qrocket::bench {

inline constexpr int kLatencyBuckets = 36 * 16; // up to 2^36 µs (19 h); larger values clamp

int latencyBucket(std::uint64_t micros);
/// The smallest value a bucket holds and the next bucket's smallest value.
std::uint64_t latencyBucketLow(int bucket);
std::uint64_t latencyBucketHigh(int bucket);

struct HistogramSnapshot
{
    std::array<std::uint64_t, kLatencyBuckets> counts {};
    std::uint64_t count = 0;
    std::uint64_t sumMicros = 0;
    std::uint64_t maxMicros = 0; // cumulative in a recorder's snapshot; see operator-

    /// The value below which `q` (0..1) of the samples fall (a bucket's midpoint, at most
    /// maxMicros), 0 when empty.
    double percentile(double q) const;
    double meanMicros() const { return count ? double(sumMicros) / double(count) : 0.0; }
    /// The largest value in the snapshot's samples, from the highest non-empty bucket
    /// (an interval's exact maximum is not known from counts alone; the bucket's upper bound).
    std::uint64_t maxFromBuckets() const;

    HistogramSnapshot &operator+=(const HistogramSnapshot &other);
    /// The samples recorded between `earlier` and this snapshot (maxMicros: from the buckets).
    HistogramSnapshot operator-(const HistogramSnapshot &earlier) const;
};

class LatencyRecorder
{
public:
    void record(std::uint64_t micros)
    {
        m_counts[std::size_t(latencyBucket(micros))].fetch_add(1, std::memory_order_relaxed);
        m_sum.fetch_add(micros, std::memory_order_relaxed);
        std::uint64_t max = m_max.load(std::memory_order_relaxed);
        while (micros > max
            && !m_max.compare_exchange_weak(max, micros, std::memory_order_relaxed)) { }
    }
    /// Cumulative counts since construction (a consistent-enough view for reporting: counts
    /// recorded during the copy land in this snapshot or the next).
    HistogramSnapshot snapshot() const;

private:
    std::array<std::atomic<std::uint64_t>, kLatencyBuckets> m_counts {};
    std::atomic<std::uint64_t> m_sum {0};
    std::atomic<std::uint64_t> m_max {0};
};

} // namespace qrocket::bench
