// Bucket arithmetic of latencyhistogram.h. Bucket b < 32 holds the value b; above, bucket
// (s + 1) * 16 + m holds [(16 + m) << s, (17 + m) << s) for shift s >= 1.

#include "clientlib/bench/latencyhistogram.h"

#include <algorithm>
#include <bit>

namespace qrocket::bench {

int latencyBucket(std::uint64_t micros)
{
    if (micros < 32)
        return int(micros);
    const int msb = 63 - std::countl_zero(micros);
    const int shift = msb - 4;
    const int bucket = (shift + 1) * 16 + int((micros >> shift) - 16);
    return std::min(bucket, kLatencyBuckets - 1);
}

std::uint64_t latencyBucketLow(int bucket)
{
    if (bucket < 32)
        return std::uint64_t(bucket);
    const int shift = bucket / 16 - 1;
    return std::uint64_t(16 + bucket % 16) << shift;
}

std::uint64_t latencyBucketHigh(int bucket)
{
    return bucket + 1 < kLatencyBuckets ? latencyBucketLow(bucket + 1)
                                        : latencyBucketLow(bucket) * 2;
}

double HistogramSnapshot::percentile(double q) const
{
    if (count == 0)
        return 0.0;
    const double wanted = std::clamp(q, 0.0, 1.0) * double(count);
    std::uint64_t seen = 0;
    for (int b = 0; b < kLatencyBuckets; ++b) {
        seen += counts[std::size_t(b)];
        if (counts[std::size_t(b)] != 0 && double(seen) >= wanted) {
            const double mid = b < 32
                ? double(b)
                : (double(latencyBucketLow(b)) + double(latencyBucketHigh(b))) / 2.0;
            // The midpoint of the top bucket can lie above the largest sample.
            return maxMicros > 0 ? std::min(mid, double(maxMicros)) : mid;
        }
    }
    return double(maxFromBuckets());
}

std::uint64_t HistogramSnapshot::maxFromBuckets() const
{
    for (int b = kLatencyBuckets - 1; b >= 0; --b) {
        if (counts[std::size_t(b)] != 0)
            return b < 32 ? std::uint64_t(b) : latencyBucketHigh(b) - 1;
    }
    return 0;
}

HistogramSnapshot &HistogramSnapshot::operator+=(const HistogramSnapshot &other)
{
    for (std::size_t b = 0; b < counts.size(); ++b)
        counts[b] += other.counts[b];
    count += other.count;
    sumMicros += other.sumMicros;
    maxMicros = std::max(maxMicros, other.maxMicros);
    return *this;
}

HistogramSnapshot HistogramSnapshot::operator-(const HistogramSnapshot &earlier) const
{
    HistogramSnapshot d;
    for (std::size_t b = 0; b < counts.size(); ++b)
        d.counts[b] = counts[b] - std::min(counts[b], earlier.counts[b]);
    d.count = count - std::min(count, earlier.count);
    d.sumMicros = sumMicros - std::min(sumMicros, earlier.sumMicros);
    d.maxMicros = std::min(d.maxFromBuckets(), maxMicros);
    return d;
}

HistogramSnapshot LatencyRecorder::snapshot() const
{
    HistogramSnapshot s;
    for (std::size_t b = 0; b < s.counts.size(); ++b) {
        s.counts[b] = m_counts[b].load(std::memory_order_relaxed);
        s.count += s.counts[b];
    }
    s.sumMicros = m_sum.load(std::memory_order_relaxed);
    s.maxMicros = m_max.load(std::memory_order_relaxed);
    return s;
}

} // namespace qrocket::bench
