#pragma once

// BrokerStatsManager: the per-topic and per-group counters that RocketMQ 4.9's
// BrokerStatsManager keeps and VIEW_BROKER_STATS_DATA (mqadmin statsAll, brokerStatus tools)
// reads, by stats name and key:
//
//   TOPIC_PUT_NUMS, TOPIC_PUT_SIZE   topic        each stored send: messages / bytes, 1 call
//   GROUP_GET_NUMS, GROUP_GET_SIZE   topic@group  each pull that found messages
//   GROUP_GET_LATENCY     queueId@topic@group     that pull's ms from request to answer (4.9's
//                                                 default enableDetailStat keys it by queue)
//   SNDBCK_PUT_NUMS                  topic@group  each stored consumer send-back (the topic is
//                                                 the message's original one)
//   (a delayed message delivered counts as a get of SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER and a
//   put of its real topic)
//   BROKER_PUT_NUMS, BROKER_GET_NUMS clusterName  messages stored / pulled (no call count)
//
// Sampling: tick() takes the samples that are due by the clock (minute window every 10 s, hour
// every 10 min, day every hour, the first of each at the first tick). The broker calls it every
// second; tests inject a clock and call tick() themselves.
//
// Thread-safety: the on*() counters run on any thread and never allocate for a key seen before:
// relaxed atomic adds after a lock-free check of the key the thread used last (a send thread's
// topic), or else a read-locked hash lookup. tick(), setClock() and statsData() are serialised
// by one mutex, which the counters never take.

#include "broker/stats/latencyhistogram.h"
#include "broker/stats/statsitem.h"

#include <QByteArray>
#include <QByteArrayView>

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace qrocket::broker {

class BrokerStatsManager
{
public:
    /// Milliseconds since the epoch.
    using Clock = std::function<std::int64_t()>;
    /// Minute, hour and day figures of one item (BrokerStatsData).
    using StatsData = std::array<stats::StatsSnapshot, stats::kWindowCount>;

    /// `clusterName`: the key of BROKER_PUT_NUMS / BROKER_GET_NUMS. No clock: the system clock.
    explicit BrokerStatsManager(QByteArray clusterName, Clock clock = {});
    BrokerStatsManager(const BrokerStatsManager &) = delete;
    BrokerStatsManager &operator=(const BrokerStatsManager &) = delete;

    /// A stored send of `msgNum` messages, `bytes` in the commit log: TOPIC_PUT_NUMS (msgNum, 1
    /// call), TOPIC_PUT_SIZE (bytes, 1 call) and BROKER_PUT_NUMS (msgNum).
    void onPut(QByteArrayView topic, int msgNum, std::int64_t bytes);
    /// TOPIC_PUT_NUMS and TOPIC_PUT_SIZE only (a send-back stored in SCHEDULE_TOPIC_XXXX).
    void onTopicPut(QByteArrayView topic, int msgNum, std::int64_t bytes);
    /// A pull answered with `msgCount` messages of `bytes` after `latencyMillis`:
    /// GROUP_GET_NUMS, GROUP_GET_SIZE, BROKER_GET_NUMS and GROUP_GET_LATENCY.
    void onGet(QByteArrayView group, QByteArrayView topic, int queueId, int msgCount,
        std::int64_t bytes, std::int64_t latencyMillis);
    /// A stored consumer send-back of a message of `topic`: SNDBCK_PUT_NUMS.
    void onSendBack(QByteArrayView group, QByteArrayView topic);
    /// A delayed message re-put to its `topic` when its time came (4.9's default
    /// enableScheduleMessageStats): GROUP_GET_NUMS/SIZE of SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER,
    /// then onPut(topic).
    void onScheduleDelivered(QByteArrayView topic, int msgNum, std::int64_t bytes);

    /// Put results the send latency is kept for (storage::PutMessageStatus's values).
    static constexpr std::size_t kPutResults = 10;
    using PutLatency = stats::LatencyHistogram<kPutResults>;
    /// One SEND's put, from the store call to its completion (the append, and the flush or
    /// replica wait when the sender waits for them), by PutMessageStatus: two relaxed atomic
    /// adds, no lock, no allocation.
    void onPutLatency(std::size_t putStatus, std::int64_t micros) noexcept
    {
        m_putLatency.record(putStatus, micros);
    }
    PutLatency::Snapshot putLatency(std::size_t putStatus) const
    {
        return m_putLatency.snapshot(putStatus);
    }

    /// Samples every window whose time has come.
    void tick();
    /// Replaces the clock (null: the system clock); the next tick() samples every window.
    void setClock(Clock clock);

    /// VIEW_BROKER_STATS_DATA: the item's figures, or nullopt when no such item exists.
    std::optional<StatsData> statsData(QByteArrayView statsName, QByteArrayView statsKey) const;
    /// GROUP_GET_NUMS of topic@group over the minute window, per second (RocketMQ's
    /// tpsGroupGetNums, the consumeTps of GET_CONSUME_STATS); 0 when the group never got any.
    double groupGetTps(QByteArrayView group, QByteArrayView topic) const;

    /// One key's running totals (since start) and minute-window rates, for GET /metrics.
    struct KeyFigures
    {
        std::string key; // topic, topic@group or queueId@topic@group
        std::int64_t nums = 0; // messages (put or got)
        std::int64_t size = 0; // bytes
        std::int64_t sendBack = 0; // SNDBCK_PUT_NUMS (groups only)
        double numsTps = 0; // minute window, per second
        double sizeTps = 0;
        double avgLatency = 0; // GROUP_GET_LATENCY's minute avgpt, ms (latency keys only)
    };
    struct Figures
    {
        std::vector<KeyFigures> topics; // TOPIC_PUT_NUMS / _SIZE, by topic
        std::vector<KeyFigures> groups; // GROUP_GET_NUMS / _SIZE, SNDBCK_PUT_NUMS, by topic@group
        std::vector<KeyFigures> latency; // GROUP_GET_LATENCY, by queueId@topic@group
        std::int64_t brokerPut = 0;
        std::int64_t brokerGet = 0;
        double brokerPutTps = 0; // BROKER_PUT_NUMS / BROKER_GET_NUMS minute window
        double brokerGetTps = 0;
    };
    /// A snapshot of every item (read locks, then the sample mutex for the rates); the counters
    /// go on meanwhile.
    Figures figures() const;

private:
    using Key = std::string_view;
    enum TopicItem { TopicPutNums, TopicPutSize, TopicItemCount };
    enum GroupItem { GroupGetNums, GroupGetSize, SendBackPutNums, GroupItemCount };

    void sampleAll(stats::Window w, std::int64_t nowMillis);

    const QByteArray m_clusterName;
    stats::StatsTable<TopicItemCount> m_topics; // key: topic
    stats::StatsTable<GroupItemCount> m_groups; // key: topic@group
    stats::StatsTable<1> m_latency; // key: queueId@topic@group
    stats::StatsItem m_brokerPut; // key: m_clusterName
    stats::StatsItem m_brokerGet; // key: m_clusterName
    PutLatency m_putLatency;

    mutable std::mutex m_sampleMutex; // guards the items' windows, m_clock, m_due
    Clock m_clock;
    std::array<std::int64_t, stats::kWindowCount> m_due {}; // next sample time per window
};

} // namespace qrocket::broker
