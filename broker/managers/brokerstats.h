#pragma once

// BrokerStats: the counters behind GET_BROKER_RUNTIME_INFO that RocketMQ 4.9 keeps in
// StoreStatsService and BrokerStats:
// - get calls found / missed and the slowest one (getMessageEntireTimeMax), counted by the pull
//   processor around each store read;
// - a sample of the put, found, miss and transferred totals every second, 601 kept, from which
//   "putTps", "getFoundTps", "getMissTps", "getTotalTps" and "getTransferedTps" are given as
//   "<10 s> <60 s> <600 s>" rates (a window with too few samples is empty, as in RocketMQ);
// - msgPut/GetTotalTodayMorning and ...YesterdayMorning, recorded at each local midnight
//   (BrokerStats.record(); 0 until the first midnight after start);
// - the executors' queue sizes and capacities. QRocket runs QUERY_MESSAGE and VIEW_MESSAGE_BY_ID
//   on the pull executor and has no transaction executor: those queues print 0 with RocketMQ's
//   default capacities, and no executor records how long its head task has waited (0).
//
// Holds numbers only (the caller reads the store), so it is testable alone. Thread-safe.

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace qrocket::broker {

class BrokerStats
{
public:
    static constexpr int kMaxSamples = 600; // StoreStatsService.MAX_RECORDS_OF_SAMPLING

    /// One store read by a pull: FOUND or not, and how long it took.
    void onGetMessage(bool found, std::int64_t elapsedMillis);
    /// How many requests wait in the send and pull executors (set once, before use; unset: 0).
    using QueueSize = std::function<std::int64_t()>;
    void setQueueProbes(
        QueueSize send, std::int64_t sendCapacity, QueueSize pull, std::int64_t pullCapacity);
    /// Takes a sample (every second): the store's put and transferred message totals.
    void sample(std::int64_t nowMillis, std::int64_t putTotal, std::int64_t transferredTotal);
    /// The midnight record: today's morning totals become yesterday's.
    void recordMorning(std::int64_t putTotal, std::int64_t transferredTotal);

    std::int64_t getFoundTotal() const { return m_found.load(std::memory_order_relaxed); }
    std::int64_t getMissTotal() const { return m_miss.load(std::memory_order_relaxed); }

    /// The keys above with their RocketMQ text, for the runtime-info table.
    std::vector<std::pair<QByteArray, QByteArray>> runtimeInfo() const;

    /// Java's Double.toString for the values RocketMQ prints with String.valueOf(double).
    static QByteArray javaDouble(double value);

private:
    struct Snapshot
    {
        std::int64_t time = 0;
        std::int64_t put = 0;
        std::int64_t found = 0;
        std::int64_t miss = 0;
        std::int64_t transferred = 0;
    };
    /// "<10> <60> <600>" of the rate of `field`, or of found + miss when `total`.
    QByteArray rates(std::int64_t Snapshot::*field, bool total = false) const;

    QueueSize m_sendQueue;
    QueueSize m_pullQueue;
    std::int64_t m_sendCapacity = 10000; // RocketMQ's sendThreadPoolQueueCapacity
    std::int64_t m_pullCapacity = 100000; // pullThreadPoolQueueCapacity
    std::atomic<std::int64_t> m_found {0};
    std::atomic<std::int64_t> m_miss {0};
    std::atomic<std::int64_t> m_getTimeMax {0};
    mutable std::mutex m_mutex;
    std::deque<Snapshot> m_samples; // guarded by m_mutex
    std::int64_t m_putYesterdayMorning = 0; // guarded by m_mutex
    std::int64_t m_putTodayMorning = 0; // guarded by m_mutex
    std::int64_t m_getYesterdayMorning = 0; // guarded by m_mutex
    std::int64_t m_getTodayMorning = 0; // guarded by m_mutex
};

} // namespace qrocket::broker
