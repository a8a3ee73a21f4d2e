#include "broker/metrics/brokermetrics.h"

#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/dedup/senddeduptable.h"
#include "broker/ha/haservice.h"
#include "broker/longpolling/pullrequestholdservice.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/pop/popservice.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/remoting/executor.h"
#include "clientlib/remoting/metricswriter.h"
#include "clientlib/remoting/remotingserver.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace qrocket::broker {

using remoting::MetricsWriter;
using remoting::MetricType;

namespace {

QByteArrayView boolText(bool b)
{
    return b ? QByteArrayView("true") : QByteArrayView("false");
}

/// "topic@group" split at the first '@' (neither name may contain one).
std::pair<QByteArray, QByteArray> splitPair(QByteArrayView key)
{
    const qsizetype at = key.indexOf('@');
    if (at < 0)
        return {key.toByteArray(), {}};
    return {key.first(at).toByteArray(), key.sliced(at + 1).toByteArray()};
}

/// Per-queue lag series per kept topic@group pair, on average (the budget is shared).
constexpr std::size_t kQueueSeriesPerPair = 16;

bool isSystemPair(QByteArrayView topic, QByteArrayView group)
{
    return topics::isSystemTopic(topic) || SubscriptionGroupManager::isSystemConsumerGroup(group);
}

/// One topic@group's lag, as GET_CONSUME_STATS computes it.
struct PairLag
{
    std::vector<std::int64_t> queueLag; // by queue id
    std::int64_t lag = 0;
    std::int64_t committedSum = 0;
    std::int64_t latencyMs = 0; // age of the oldest unconsumed message, 0 without lag
};

void declareFamilies(MetricsWriter &w)
{
    // apache/rocketmq-exporter
    w.declare("rocketmq_producer_tps", MetricType::Gauge, "TopicPutNums");
    w.declare("rocketmq_producer_message_size", MetricType::Gauge, "TopicPutMessageSize");
    w.declare("rocketmq_producer_offset", MetricType::Gauge, "TopicOffset");
    w.declare("rocketmq_topic_retry_offset", MetricType::Gauge, "TopicRetryOffset");
    w.declare("rocketmq_topic_dlq_offset", MetricType::Gauge, "TopicDLQOffset");
    w.declare("rocketmq_consumer_tps", MetricType::Gauge, "GroupGetNums");
    w.declare("rocketmq_consumer_message_size", MetricType::Gauge, "GroupGetMessageSize");
    w.declare("rocketmq_consumer_offset", MetricType::Gauge, "GroupOffset");
    w.declare("rocketmq_group_diff", MetricType::Gauge, "GroupDiff");
    w.declare("rocketmq_group_retrydiff", MetricType::Gauge, "GroupRetryDiff");
    w.declare("rocketmq_group_dlqdiff", MetricType::Gauge, "GroupDLQDiff");
    w.declare("rocketmq_group_get_latency", MetricType::Gauge, "GroupGetLatency");
    w.declare(
        "rocketmq_group_get_latency_by_storetime", MetricType::Gauge, "GroupGetLatencyByStoreTime");
    w.declare("rocketmq_broker_tps", MetricType::Gauge, "BrokerPutNums");
    w.declare("rocketmq_broker_qps", MetricType::Gauge, "BrokerGetNums");
    // RocketMQ 5 (RIP-46)
    w.declare("rocketmq_messages_in_total", MetricType::Counter, "Messages stored, by topic.");
    w.declare("rocketmq_throughput_in_total", MetricType::Counter,
        "Bytes stored in the commit log, by topic.");
    w.declare("rocketmq_messages_out_total", MetricType::Counter,
        "Messages pulled, by topic and consumer group.");
    w.declare("rocketmq_throughput_out_total", MetricType::Counter,
        "Bytes pulled, by topic and consumer group.");
    w.declare("rocketmq_consumer_lag_messages", MetricType::Gauge,
        "Messages not consumed yet: max offset minus committed offset, summed over queues.");
    w.declare("rocketmq_consumer_lag_latency", MetricType::Gauge,
        "Milliseconds since the oldest unconsumed message was stored.");
    w.declare("rocketmq_send_to_dlq_messages_total", MetricType::Counter,
        "Messages stored in the group's dead-letter topic.");
    w.declare("rocketmq_storage_flush_behind_bytes", MetricType::Gauge,
        "Commit-log bytes written but not flushed.");
    w.declare("rocketmq_storage_dispatch_behind_bytes", MetricType::Gauge,
        "Commit-log bytes not dispatched to consume queues yet.");
    w.declare("rocketmq_topic_number", MetricType::Gauge, "Topics on this broker.");
    w.declare(
        "rocketmq_consumer_group_number", MetricType::Gauge, "Subscription groups on this broker.");
    // QRocket
    w.declare("qrocket_consumer_queue_lag_messages", MetricType::Gauge,
        "Per queue: max offset minus committed offset (qrocket-admin consumerProgress).");
    w.declare("qrocket_commitlog_min_offset_bytes", MetricType::Gauge,
        "Smallest commit-log offset still on disk.");
    w.declare("qrocket_commitlog_max_offset_bytes", MetricType::Gauge,
        "Commit-log offset the next message is written at.");
    w.declare("qrocket_disk_used_ratio", MetricType::Gauge,
        "Used share of the partition (0-1), as the clean service last measured it.");
    w.declare("qrocket_disk_full", MetricType::Gauge,
        "1 while writes are refused for disk space, else 0.");
    w.declare("qrocket_store_put_messages_total", MetricType::Counter,
        "Messages appended to the commit log.");
    w.declare(
        "qrocket_store_put_bytes_total", MetricType::Counter, "Bytes appended to the commit log.");
    w.declare("qrocket_store_get_messages_total", MetricType::Counter, "Messages read by pulls.");
    w.declare("qrocket_pull_found_total", MetricType::Counter, "Store reads that found messages.");
    w.declare("qrocket_pull_miss_total", MetricType::Counter, "Store reads that found no message.");
    w.declare("qrocket_acl_refusals_total", MetricType::Counter, "Requests the ACL refused.");
    w.declare("qrocket_send_latency_seconds", MetricType::Histogram,
        "SEND puts from the store call to completion (flush or replica wait included), by result.");
    w.declare("rocketmq_processor_watermark", MetricType::Gauge,
        "Requests waiting in each processor's queue.");
    w.declare("qrocket_send_dedup_keys", MetricType::Gauge,
        "UNIQ_KEYs in the exactly-once send window (stored and being stored).");
    w.declare("qrocket_send_dedup_duplicates_total", MetricType::Counter,
        "Sends answered with an earlier attempt's placement, storing nothing.");
    w.declare("qrocket_send_dedup_evicted_total", MetricType::Counter,
        "Keys dropped from the send window: older than sendDedupWindowSeconds, or over "
        "sendDedupMaxKeysPerTopic.");
    w.declare("qrocket_held_pulls", MetricType::Gauge,
        "Pull requests held by long polling, waiting for messages.");
    w.declare("qrocket_pop_inflight_messages", MetricType::Gauge,
        "POP messages handed out and not acknowledged or revived yet (all groups).");
    w.declare("qrocket_pop_checkpoints", MetricType::Gauge,
        "POP checkpoints not settled durably yet (the revive backlog).");
    w.declare("qrocket_ha_connections", MetricType::Gauge, "Slaves connected to this master.");
    w.declare("qrocket_ha_slave_lag_bytes", MetricType::Gauge,
        "Commit-log bytes a slave has not acknowledged yet.");
    w.declare("qrocket_consumequeue_mapped_files", MetricType::Gauge,
        "Consume-queue files mapped now (at most maxMappedConsumeQueueFiles but for an instant).");
    w.declare("qrocket_consumequeue_mapped_files_limit", MetricType::Gauge,
        "maxMappedConsumeQueueFiles: consume-queue files kept mapped at most.");
    w.declare("qrocket_consumequeue_mapping_hits_total", MetricType::Counter,
        "Consume-queue file uses that found the file mapped.");
    w.declare("qrocket_consumequeue_mapping_misses_total", MetricType::Counter,
        "Consume-queue files mapped on use (first uses and re-mappings after an eviction).");
    w.declare("qrocket_consumequeue_mapping_evictions_total", MetricType::Counter,
        "Consume-queue mappings released to stay under maxMappedConsumeQueueFiles.");
    w.declare("qrocket_metrics_series_dropped", MetricType::Gauge,
        "Topics, topic@group pairs or per-queue lag series left out by metricsSeriesLimit.");
}

} // namespace

BrokerMetrics::BrokerMetrics(
    BrokerContext &ctx, int seriesLimit, Sources sources, std::function<std::int64_t()> now)
    : m_ctx(ctx)
    , m_seriesLimit(seriesLimit)
    , m_cluster(ctx.config ? ctx.config->brokerClusterName.toUtf8() : QByteArray())
    , m_broker(ctx.config ? ctx.config->brokerName.toUtf8() : QByteArray())
    , m_brokerIp(ctx.config ? ctx.config->brokerIP1.toUtf8() : QByteArray())
    , m_sources(std::move(sources))
    , m_now(
          now ? std::move(now) : std::function<std::int64_t()>(&QDateTime::currentMSecsSinceEpoch))
{ }

QByteArray BrokerMetrics::collect() const
{
    MetricsWriter w;
    declareFamilies(w);
    const QByteArrayView cluster = m_cluster;
    const QByteArrayView broker = m_broker;
    const std::int64_t now = m_now();
    const std::size_t limit = static_cast<std::size_t>(std::max(0, m_seriesLimit));

    // Snapshots first, each under its owner's lock for the copy only.
    const BrokerStatsManager::Figures figures
        = m_ctx.statsManager ? m_ctx.statsManager->figures() : BrokerStatsManager::Figures {};
    std::map<QByteArray, TopicConfig> topicConfigs;
    if (m_ctx.topics)
        for (TopicConfig &c : m_ctx.topics->topics())
            topicConfigs.emplace(c.topicName, std::move(c));
    const QList<QByteArray> offsetKeys
        = m_ctx.consumerOffsets ? m_ctx.consumerOffsets->keys() : QList<QByteArray> {};

    // Per-topic series: the topics configured or counted, the first `limit` by name.
    std::set<QByteArray> topicNames;
    for (const auto &[name, config] : topicConfigs)
        topicNames.insert(name);
    std::unordered_map<std::string, const BrokerStatsManager::KeyFigures *> putByTopic;
    for (const BrokerStatsManager::KeyFigures &f : figures.topics) {
        putByTopic.emplace(f.key, &f);
        topicNames.insert(QByteArray::fromStdString(f.key));
    }
    std::size_t topicsDropped = 0;
    std::size_t kept = 0;
    for (const QByteArray &topic : topicNames) {
        if (kept++ >= limit) {
            ++topicsDropped;
            continue;
        }
        const auto config = topicConfigs.find(topic);
        if (config != topicConfigs.end()) {
            std::int64_t maxSum = 0;
            for (int q = 0; q < config->second.writeQueueNums; ++q)
                maxSum += std::max<std::int64_t>(
                    m_ctx.store ? m_ctx.store->maxOffsetInQueue(topic, q) : 0, 0);
            const double value = static_cast<double>(maxSum);
            if (topics::isRetryTopic(topic)) {
                w.add("rocketmq_topic_retry_offset",
                    {{"cluster", cluster}, {"broker", broker}, {"topic", topic}}, value);
            } else if (topics::isDlqTopic(topic)) {
                const QByteArrayView group
                    = QByteArrayView(topic).sliced(qstrlen(topics::kDlqPrefix));
                w.add("rocketmq_topic_dlq_offset",
                    {{"cluster", cluster}, {"broker", broker}, {"group", group}}, value);
                w.add("rocketmq_send_to_dlq_messages_total",
                    {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker},
                        {"consumer_group", group},
                        {"is_system",
                            boolText(SubscriptionGroupManager::isSystemConsumerGroup(group))}},
                    value);
            } else {
                w.add("rocketmq_producer_offset",
                    {{"cluster", cluster}, {"broker", broker}, {"topic", topic}}, value);
            }
        }
        const auto put = putByTopic.find(topic.toStdString());
        if (put == putByTopic.end())
            continue;
        const BrokerStatsManager::KeyFigures &f = *put->second;
        w.add("rocketmq_producer_tps", {{"cluster", cluster}, {"broker", broker}, {"topic", topic}},
            f.numsTps);
        w.add("rocketmq_producer_message_size",
            {{"cluster", cluster}, {"broker", broker}, {"topic", topic}}, f.sizeTps);
        const QByteArrayView messageType
            = config != topicConfigs.end() && config->second.order ? "fifo" : "normal";
        const QByteArrayView isSystem = boolText(topics::isSystemTopic(topic));
        w.add("rocketmq_messages_in_total",
            {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker}, {"topic", topic},
                {"message_type", messageType}, {"is_system", isSystem}},
            static_cast<double>(f.nums));
        w.add("rocketmq_throughput_in_total",
            {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker}, {"topic", topic},
                {"message_type", messageType}, {"is_system", isSystem}},
            static_cast<double>(f.size));
    }

    // Per topic@group series: pairs with committed offsets or counted pulls, the first `limit`.
    std::set<QByteArray> pairKeys(offsetKeys.cbegin(), offsetKeys.cend());
    std::unordered_map<std::string, const BrokerStatsManager::KeyFigures *> getByPair;
    for (const BrokerStatsManager::KeyFigures &f : figures.groups) {
        getByPair.emplace(f.key, &f);
        pairKeys.insert(QByteArray::fromStdString(f.key));
    }
    std::unordered_map<std::string, std::vector<const BrokerStatsManager::KeyFigures *>> latency;
    for (const BrokerStatsManager::KeyFigures &f : figures.latency) {
        const std::size_t at = f.key.find('@'); // queueId@topic@group
        if (at != std::string::npos)
            latency[f.key.substr(at + 1)].push_back(&f);
    }
    const std::set<QByteArray> offsetKeySet(offsetKeys.cbegin(), offsetKeys.cend());
    std::map<QByteArray, std::optional<ConsumerGroupInfo>> groupInfos;
    std::size_t pairsDropped = 0;
    // Per-queue series: a topic may have 1024 queues (BenchmarkTest), so they have a budget of
    // their own; a pair whose queues do not fit keeps its sums and loses its per-queue series.
    std::size_t queueBudget = limit * kQueueSeriesPerPair;
    std::size_t queuesDropped = 0;
    kept = 0;
    for (const QByteArray &key : pairKeys) {
        if (kept++ >= limit) {
            ++pairsDropped;
            continue;
        }
        const auto [topic, group] = splitPair(key);
        auto info = groupInfos.find(group);
        if (info == groupInfos.end())
            info = groupInfos
                       .emplace(group,
                           m_ctx.consumers ? m_ctx.consumers->groupInfo(group) : std::nullopt)
                       .first;
        const std::optional<ConsumerGroupInfo> &gi = info->second;
        const bool online = gi && !gi->channels.empty();
        const QByteArrayView isSystem = boolText(isSystemPair(topic, group));
        const QByteArrayView isRetry = boolText(topics::isRetryTopic(topic));
        // The exporter's labels of a topic@group series.
        const MetricsWriter::Label pairLabels[]
            = {{"cluster", cluster}, {"broker", broker}, {"topic", topic}, {"group", group}};

        const auto config = topicConfigs.find(topic);
        if (offsetKeySet.count(key) && config != topicConfigs.end()
            && !(online && !gi->subscriptions.count(topic))) {
            PairLag lag;
            const ConsumerOffsetManager::QueueOffsets committed
                = m_ctx.consumerOffsets->query(group, topic);
            for (int q = 0; q < config->second.writeQueueNums; ++q) {
                const std::int64_t max = std::max<std::int64_t>(
                    m_ctx.store ? m_ctx.store->maxOffsetInQueue(topic, q) : 0, 0);
                const auto c = committed.find(q);
                const std::int64_t consumer
                    = c == committed.end() ? 0 : std::max<std::int64_t>(c->second, 0);
                const std::int64_t diff = max - consumer;
                lag.queueLag.push_back(diff);
                lag.lag += diff;
                lag.committedSum += consumer;
                if (diff > 0 && m_ctx.store) {
                    const std::int64_t stored
                        = m_ctx.store->messageStoreTimestamp(topic, q, consumer);
                    if (stored > 0)
                        lag.latencyMs = std::max(lag.latencyMs, now - stored);
                }
            }
            const bool fits = lag.queueLag.size() <= queueBudget;
            if (fits)
                queueBudget -= lag.queueLag.size();
            else
                queuesDropped += lag.queueLag.size();
            for (std::size_t q = 0; fits && q < lag.queueLag.size(); ++q)
                w.add("qrocket_consumer_queue_lag_messages",
                    {{"group", group}, {"topic", topic}, {"queue", QByteArray::number(q)}},
                    static_cast<double>(lag.queueLag[q]));
            const QByteArray onlineCount
                = QByteArray::number(gi ? static_cast<qsizetype>(gi->channels.size()) : 0);
            // The exporter's msgModel: MessageModel's ordinal (BROADCASTING 0, CLUSTERING 1).
            const QByteArrayView model
                = gi && gi->messageModel == MessageModel::Broadcasting ? "0" : "1";
            const QByteArrayView diffFamily = topics::isRetryTopic(topic)
                ? "rocketmq_group_retrydiff"
                : topics::isDlqTopic(topic) ? "rocketmq_group_dlqdiff"
                                            : "rocketmq_group_diff";
            w.add(diffFamily,
                {{"group", group}, {"topic", topic}, {"countOfOnlineConsumers", onlineCount},
                    {"msgModel", model}},
                static_cast<double>(lag.lag));
            w.add("rocketmq_consumer_offset", pairLabels, static_cast<double>(lag.committedSum));
            w.add("rocketmq_group_get_latency_by_storetime", pairLabels,
                static_cast<double>(lag.latencyMs));
            const MetricsWriter::Label rip46[] = {{"cluster", cluster}, {"node_type", "broker"},
                {"node_id", broker}, {"consumer_group", group}, {"topic", topic},
                {"is_retry", isRetry}, {"is_system", isSystem}};
            w.add("rocketmq_consumer_lag_messages", rip46, static_cast<double>(lag.lag));
            w.add("rocketmq_consumer_lag_latency", rip46, static_cast<double>(lag.latencyMs));
        }

        if (const auto get = getByPair.find(key.toStdString()); get != getByPair.end()) {
            const BrokerStatsManager::KeyFigures &f = *get->second;
            w.add("rocketmq_consumer_tps", pairLabels, f.numsTps);
            w.add("rocketmq_consumer_message_size", pairLabels, f.sizeTps);
            const MetricsWriter::Label rip46[] = {{"cluster", cluster}, {"node_type", "broker"},
                {"node_id", broker}, {"topic", topic}, {"consumer_group", group},
                {"is_retry", isRetry}, {"is_system", isSystem}};
            w.add("rocketmq_messages_out_total", rip46, static_cast<double>(f.nums));
            w.add("rocketmq_throughput_out_total", rip46, static_cast<double>(f.size));
        }
        if (const auto l = latency.find(key.toStdString()); l != latency.end()) {
            for (const BrokerStatsManager::KeyFigures *f : l->second) {
                const QByteArray queueId
                    = QByteArray::fromStdString(f->key.substr(0, f->key.find('@')));
                w.add("rocketmq_group_get_latency",
                    {{"cluster", cluster}, {"broker", broker}, {"topic", topic}, {"group", group},
                        {"queueid", queueId}},
                    f->avgLatency);
            }
        }
    }

    // Broker-wide figures.
    w.add("rocketmq_broker_tps",
        {{"cluster", cluster}, {"brokerIP", m_brokerIp}, {"broker", broker}}, figures.brokerPutTps);
    w.add("rocketmq_broker_qps",
        {{"cluster", cluster}, {"brokerIP", m_brokerIp}, {"broker", broker}}, figures.brokerGetTps);
    w.add("rocketmq_topic_number",
        {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker}},
        static_cast<double>(topicConfigs.size()));
    if (m_ctx.subscriptionGroups)
        w.add("rocketmq_consumer_group_number",
            {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker}},
            static_cast<double>(m_ctx.subscriptionGroups->groups().size()));
    if (m_ctx.store) {
        const storage::StoreStats st = m_ctx.store->statsSnapshot();
        const MetricsWriter::Label storage[] = {{"cluster", cluster}, {"node_type", "broker"},
            {"node_id", broker}, {"storage_type", "local"}, {"storage_medium", "disk"}};
        w.add("rocketmq_storage_flush_behind_bytes", storage,
            static_cast<double>(st.flushBacklogBytes));
        w.add("rocketmq_storage_dispatch_behind_bytes", storage,
            static_cast<double>(st.dispatchBehindBytes));
        w.add("qrocket_commitlog_min_offset_bytes", {}, static_cast<double>(st.commitLogMinOffset));
        w.add("qrocket_commitlog_max_offset_bytes", {}, static_cast<double>(st.commitLogMaxOffset));
        if (st.diskRatio >= 0)
            w.add("qrocket_disk_used_ratio", {{"partition", "commitlog"}}, st.diskRatio);
        if (st.consumeQueueDiskRatio >= 0)
            w.add("qrocket_disk_used_ratio", {{"partition", "consumequeue"}},
                st.consumeQueueDiskRatio);
        w.add("qrocket_disk_full", {}, st.diskFull ? 1 : 0);
        w.add("qrocket_store_put_messages_total", {}, static_cast<double>(st.putMessageTotal));
        w.add("qrocket_store_put_bytes_total", {}, static_cast<double>(st.putBytesTotal));
        w.add("qrocket_store_get_messages_total", {}, static_cast<double>(st.getMessageTotal));
        const storage::MappingCache::Stats cq = m_ctx.store->consumeQueueMappings().stats();
        w.add("qrocket_consumequeue_mapped_files", {}, cq.mapped);
        w.add("qrocket_consumequeue_mapped_files_limit", {}, cq.capacity);
        w.add("qrocket_consumequeue_mapping_hits_total", {}, static_cast<double>(cq.hits));
        w.add("qrocket_consumequeue_mapping_misses_total", {}, static_cast<double>(cq.maps));
        w.add("qrocket_consumequeue_mapping_evictions_total", {}, static_cast<double>(cq.releases));
    }
    if (m_ctx.stats) {
        w.add("qrocket_pull_found_total", {}, static_cast<double>(m_ctx.stats->getFoundTotal()));
        w.add("qrocket_pull_miss_total", {}, static_cast<double>(m_ctx.stats->getMissTotal()));
    }
    if (m_ctx.remotingStats)
        remoting::writeRemotingServerMetrics(
            w, m_ctx.remotingStats(), "Open client connections (main and fast port).");
    if (m_ctx.acl)
        w.add("qrocket_acl_refusals_total", {}, static_cast<double>(m_ctx.acl->refusals()));
    if (m_ctx.statsManager) {
        std::array<double, stats::kLatencyBoundsMicros.size()> bounds {};
        for (std::size_t i = 0; i < bounds.size(); ++i)
            bounds[i] = static_cast<double>(stats::kLatencyBoundsMicros[i]) / 1e6;
        for (std::size_t status = 0; status < BrokerStatsManager::kPutResults; ++status) {
            const BrokerStatsManager::PutLatency::Snapshot h
                = m_ctx.statsManager->putLatency(status);
            if (h.count() == 0)
                continue;
            w.addHistogram("qrocket_send_latency_seconds",
                {{"result",
                    storage::putMessageStatusName(static_cast<storage::PutMessageStatus>(status))}},
                bounds, h.counts, static_cast<double>(h.sumMicros) / 1e6);
        }
    }
    for (const auto &[processor, executor] : m_sources.executors)
        w.add("rocketmq_processor_watermark",
            {{"cluster", cluster}, {"node_type", "broker"}, {"node_id", broker},
                {"processor", processor}},
            static_cast<double>(executor->queuedTasks()));
    if (m_ctx.sendDedup) {
        const SendDedupTable::Stats d = m_ctx.sendDedup->stats();
        w.add("qrocket_send_dedup_keys", {}, static_cast<double>(d.keys));
        w.add("qrocket_send_dedup_duplicates_total", {}, static_cast<double>(d.duplicates));
        w.add("qrocket_send_dedup_evicted_total", {{"reason", "window"}},
            static_cast<double>(d.evictedByWindow));
        w.add("qrocket_send_dedup_evicted_total", {{"reason", "cap"}},
            static_cast<double>(d.evictedByCap));
    }
    if (m_ctx.pullHold)
        w.add("qrocket_held_pulls", {}, m_ctx.pullHold->heldCount());
    if (m_sources.pop) {
        w.add("qrocket_pop_inflight_messages", {},
            static_cast<double>(m_sources.pop->inFlightCount()));
        w.add("qrocket_pop_checkpoints", {}, static_cast<double>(m_sources.pop->checkPointCount()));
    }
    if (m_ctx.haService) {
        w.add("qrocket_ha_connections", {}, m_ctx.haService->connectionCount());
        for (const ha::HAService::SlaveState &slave : m_ctx.haService->slaves())
            w.add("qrocket_ha_slave_lag_bytes", {{"slave", slave.address}},
                static_cast<double>(slave.lag));
    }
    w.add(
        "qrocket_metrics_series_dropped", {{"kind", "topic"}}, static_cast<double>(topicsDropped));
    w.add("qrocket_metrics_series_dropped", {{"kind", "group"}}, static_cast<double>(pairsDropped));
    w.add(
        "qrocket_metrics_series_dropped", {{"kind", "queue"}}, static_cast<double>(queuesDropped));
    remoting::writeProcessMetrics(w);
    return w.text();
}

} // namespace qrocket::broker
