#pragma once

// qrocket-bench-broker --dedup-table: the exactly-once send window (broker/dedup/senddeduptable.h)
// alone, as the send path drives it: per send one claim() of a fresh UNIQ_KEY (32 hex digits, as
// clients make them) and one finish() through the claim's ticket, with the table full (the cap
// reached, so every send also evicts the oldest key) or not; and the claim of a duplicate. On 1
// and `threads` threads at once (the broker's I/O threads), one topic. Prints ns per send.

#include "broker/dedup/senddeduptable.h"

#include <QByteArrayView>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

namespace qrocket::bench {

inline void runDedupTableBench(std::int64_t cap, int threads, std::int64_t sendsPerThread)
{
    using broker::DedupPlacement;
    using broker::SendDedupTable;
    using Clock = std::chrono::steady_clock;
    const SendDedupTable::Limits limits {120000, cap};
    auto key = [](std::uint64_t v, char *out) {
        for (int d = 31; d >= 0; --d, v >>= 4)
            out[d] = "0123456789ABCDEF"[v & 15];
        return QByteArrayView(out, 32);
    };
    for (int n : {1, threads}) {
        SendDedupTable table;
        std::atomic<std::uint64_t> next {1};
        auto fresh = [&] {
            char buf[32];
            DedupPlacement p;
            for (std::int64_t i = 0; i < sendsPerThread; ++i) {
                const std::uint64_t k = next.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B1u;
                SendDedupTable::Ticket ticket;
                table.claim("BenchTopic", key(k, buf), 1000, limits, &p, nullptr, &ticket);
                p.commitLogOffset = static_cast<std::int64_t>(i);
                table.finish(ticket, p, 1000, limits);
            }
        };
        const auto t0 = Clock::now();
        std::vector<std::thread> pool;
        for (int t = 0; t < n; ++t)
            pool.emplace_back(fresh);
        for (auto &t : pool)
            t.join();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
        const auto s = table.stats();
        std::printf("dedup-table %d thread(s): %.0f ns per fresh send (claim + finish, %lld keys "
                    "held, %lld evicted by the cap), %.2f M sends/s\n",
            n, ns * n / double(sendsPerThread * n), static_cast<long long>(s.keys),
            static_cast<long long>(s.evictedByCap), double(sendsPerThread * n) / ns * 1e3);
        // Duplicates: claims of keys the table holds (the newest ones, not evicted).
        const std::uint64_t last = next.load();
        const std::int64_t dups = std::min<std::int64_t>(sendsPerThread, s.keys / 2);
        const auto t1 = Clock::now();
        char buf[32];
        DedupPlacement p;
        int stored = 0;
        for (std::int64_t i = 0; i < dups; ++i)
            stored += table.claim("BenchTopic",
                          key((last - 1 - std::uint64_t(i)) * 0x9E3779B1u, buf), 1000, limits, &p)
                == SendDedupTable::Claim::Stored;
        const double dns = std::chrono::duration<double, std::nano>(Clock::now() - t1).count();
        std::printf("dedup-table %d thread(s): %.0f ns per duplicate claim (%d of %lld found)\n", n,
            dns / double(std::max<std::int64_t>(1, dups)), stored, static_cast<long long>(dups));
    }
}

} // namespace qrocket::bench
