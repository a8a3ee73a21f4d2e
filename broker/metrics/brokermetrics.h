#pragma once

// BrokerMetrics: the broker's GET /metrics answer, built from the figures it already keeps
// (BrokerStatsManager, the consumer offsets, the store's offsets and disk measure, the remoting
// limits' counters, the ACL's refusals): nothing is counted for it on the send or pull path.
// Three vocabularies, so that existing dashboards work:
//
// - apache/rocketmq-exporter's (gauges, its label names): rocketmq_producer_tps,
//   rocketmq_producer_message_size, rocketmq_producer_offset, rocketmq_topic_retry_offset,
//   rocketmq_topic_dlq_offset, rocketmq_consumer_tps, rocketmq_consumer_message_size,
//   rocketmq_consumer_offset, rocketmq_group_diff / _retrydiff / _dlqdiff,
//   rocketmq_group_get_latency, rocketmq_group_get_latency_by_storetime, rocketmq_broker_tps,
//   rocketmq_broker_qps. Rates are the minute window of VIEW_BROKER_STATS_DATA.
// - RocketMQ 5's (RIP-46, labels cluster, node_type="broker", node_id=<brokerName> on each):
//   rocketmq_messages_in_total, rocketmq_throughput_in_total, rocketmq_messages_out_total,
//   rocketmq_throughput_out_total, rocketmq_consumer_lag_messages, rocketmq_consumer_lag_latency,
//   rocketmq_send_to_dlq_messages_total, rocketmq_storage_flush_behind_bytes,
//   rocketmq_storage_dispatch_behind_bytes, rocketmq_topic_number,
//   rocketmq_consumer_group_number, rocketmq_processor_watermark{processor}.
// - QRocket's own (qrocket_*): per-queue consumer lag, commit-log offsets, disk ratios,
//   connections, remoting-limit and ACL refusals, store totals, held pulls, POP in-flight and
//   checkpoint counts, HA slaves' lag; process_resident_memory_bytes.
//
// Lag is what GET_CONSUME_STATS (qrocket-admin consumerProgress) answers at the same moment:
// for each topic@group with committed offsets whose topic exists (an online group that no
// longer subscribes the topic is left out), each write queue's max offset minus the committed
// offset (both at least 0).
//
// Cardinality: per-topic series for at most metricsSeriesLimit topics and per-group series for
// at most that many topic@group pairs (the first by name), per-queue lag series for at most 16
// times that many queues (a pair's all or none); qrocket_metrics_series_dropped
// {kind="topic"|"group"|"queue"} says how many were left out.
//
// collect() runs on the metrics thread: every source is thread-safe and locked briefly.

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace qrocket::remoting {
class ThreadPoolExecutor;
}

namespace qrocket::broker {

struct BrokerContext;
namespace pop {
class PopService;
}

class BrokerMetrics
{
public:
    /// What the context does not hold: the request executors by RocketMQ 5's processor name
    /// ("send", "pull", ...) and the POP service. Each outlives the metrics server.
    struct Sources
    {
        std::vector<std::pair<QByteArray, const remoting::ThreadPoolExecutor *>> executors;
        const pop::PopService *pop = nullptr;
    };

    /// `now`: ms since the epoch (null: the system clock).
    BrokerMetrics(BrokerContext &ctx, int seriesLimit, Sources sources,
        std::function<std::int64_t()> now = {});
    QByteArray collect() const;

private:
    BrokerContext &m_ctx;
    const int m_seriesLimit;
    // Read once: the config's fields may change on other threads (UPDATE_BROKER_CONFIG).
    const QByteArray m_cluster;
    const QByteArray m_broker;
    const QByteArray m_brokerIp;
    const Sources m_sources;
    std::function<std::int64_t()> m_now;
};

} // namespace qrocket::broker
