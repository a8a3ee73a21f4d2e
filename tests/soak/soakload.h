#pragma once

// The soak's load: a ledger of every send (acknowledged or not) and every delivery, keyed by a
// unique key each message carries at the start of its body ("K<producer>:<seq>;"); producers
// that send at a fixed rate (async, a bounded number in flight) and record each acknowledgement
// with the replica that gave it (from the offset msgId's store host) and its latency; the
// figures of the current minute; the RTO watch (the first acknowledgement by another replica
// after the master was killed).

#include "clientlib/bench/latencyhistogram.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::soak {

inline constexpr int kMaxReplicas = 3;
inline const QByteArray kTopic = QByteArrayLiteral("SoakTopic");
inline const QByteArray kGroup = QByteArrayLiteral("SoakConsumers");

std::int64_t steadyMs();

/// Every key ever sent: acknowledged or not, and how often it was delivered. Thread-safe.
class Ledger
{
public:
    /// A new producer id (keys are per producer, seq from 0).
    int newProducer();
    void acked(int producer, std::uint32_t seq);
    /// A delivered message's body; false when it carries no key of this run.
    bool received(const QByteArray &body);

    struct Totals
    {
        std::int64_t acked = 0;
        std::int64_t lost = 0; // acknowledged, never delivered
        std::int64_t duplicates = 0; // deliveries beyond the first
        std::int64_t unackedDelivered = 0; // delivered although the send was not acknowledged
        std::int64_t deliveries = 0;
        std::int64_t foreign = 0; // deliveries without a key of this run
    };
    Totals totals() const;
    /// Up to `n` acknowledged keys never delivered, as "K<p>:<seq>".
    QList<QByteArray> someLost(int n) const;
    std::int64_t deliveries() const { return m_deliveries.load(); }

private:
    // Per producer and seq: bit 15 acknowledged, bits 0..14 deliveries (saturating).
    mutable std::mutex m_mutex;
    std::vector<std::vector<std::uint16_t>> m_keys;
    std::atomic<std::int64_t> m_deliveries {0};
    std::atomic<std::int64_t> m_foreign {0};
};

/// Shared by all producers: per-replica latencies, counts and the RTO watch.
struct SendStats
{
    /// The replica index of a store-host port (the cluster's ports; set on the main thread).
    std::array<std::atomic<int>, kMaxReplicas> ports {};
    std::array<bench::LatencyRecorder, kMaxReplicas> latency;
    bench::LatencyRecorder allLatency;
    std::atomic<std::int64_t> ok {0};
    std::atomic<std::int64_t> failed {0};
    std::atomic<std::int64_t> throttled {0}; // ticks skipped: in-flight cap reached
    // RTO watch: after the master `watchKilled` died at `watchSinceMs`, the first
    // acknowledgement by another replica.
    std::atomic<int> watchKilled {-1};
    std::atomic<std::int64_t> watchSinceMs {0};
    std::atomic<std::int64_t> firstAckAfterMs {0};
    std::mutex errorMutex;
    QString lastError;

    int replicaOfPort(int port) const;
};

/// A producer (QRocket's client) that sends async at `rate` messages/s (0: as fast as the
/// in-flight cap allows) from a pacing thread until stop().
class LoadProducer
{
public:
    LoadProducer(QByteArray namesrv, QByteArray name, Ledger &ledger, SendStats &stats, double rate,
        int bodySize, int maxInFlight);
    ~LoadProducer();
    LoadProducer(const LoadProducer &) = delete;
    LoadProducer &operator=(const LoadProducer &) = delete;

    /// Starts the client and, with `pacing`, the sending thread.
    Status start(bool pacing = true);
    /// Stops sending, waits (bounded) for the sends in flight, shuts the producer down.
    void stop();
    /// One sync send (a warm-up: creates the topic); the error text when it failed.
    QString sendOneSync();
    std::int64_t sent() const { return m_seq.load(); }

private:
    void pace();
    void sendOne();

    QByteArray m_name;
    Ledger &m_ledger;
    SendStats &m_stats;
    const double m_rate;
    const int m_bodySize;
    const int m_maxInFlight;
    const int m_id;
    std::unique_ptr<client::Producer> m_producer;
    std::atomic<bool> m_stop {false};
    std::atomic<int> m_inFlight {0};
    std::atomic<std::uint32_t> m_seq {0};
    std::thread m_thread;
};

/// A push consumer of the soak group (clustering) that records every delivery in the ledger.
std::unique_ptr<client::PushConsumer> startConsumer(
    const QByteArray &namesrv, const QByteArray &instance, Ledger &ledger, QString *error);

} // namespace qrocket::soak
