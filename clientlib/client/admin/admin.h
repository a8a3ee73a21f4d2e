#pragma once

// Admin: RocketMQ's DefaultMQAdminExt, the API qrocket-admin, qrocket-console and tests are built
// on. It speaks only the public protocol (protocol.md §3, §4.8, §4.9) plus QRocket's extension
// requests (extensioncode.h), which degrade to a NotSupported Status against a stock RocketMQ.
//
//   client::AdminOptions options;
//   options.client.namesrvAddr = "127.0.0.1:9876";
//   client::Admin admin(options);
//   if (Status s = admin.start(); !s) { ... }
//   Result<protocol::ClusterInfo> info = admin.clusterInfo();             // blocking
//   admin.consumeStatsAsync("G", {}, [](Result<admin::ConsumeStats> r) { ... });  // pool thread
//
// Calls: every call has a blocking form and an asynchronous form (`...Async`, the callback last
// but for the timeout). Each takes a timeout in milliseconds (-1: AdminOptions::timeoutMs) that
// bounds the whole call, route lookups and every broker it asks included. A call that concerns
// several brokers or name servers asks them in parallel and waits for all of them, bounded by
// that timeout. Typed results only; no JSON in the API.
//
// Errors: an error response is Status::remote(code, "CODE_NAME(n): remark") (remoteCode() has
// the peer's code), prefixed with the broker or name server that answered it when a call asks
// several; transport failures are Timeout / Unavailable; a bad argument is InvalidArgument
// before anything is sent; a QRocket extension the peer does not have is NotSupported. A call
// that asks several brokers for one merged value (topic stats, consume stats, reset) fails with
// the first broker's error, as DefaultMQAdminExt does; calls that change several brokers
// (FanOutResult) report each broker's outcome instead.
//
// Ownership: the Admin shares a ClientInstance (clientinstance.h) per client id with producers
// and consumers of the same id; it registers no group, so brokers never see it as a client.
// When that id's instance talks to other name servers, an Admin with the default instance name
// gets an instance of its own ("<pid>#<nanos>#admin-<hash of namesrvAddr>"), and one with an
// explicit instance name fails to start (InvalidArgument), so that an Admin never silently
// administers another cluster than the one it was given.
// Threads: every method is thread-safe. Blocking forms block the calling thread (never call
// them on the remoting I/O thread or a GUI thread). Async callbacks run on the Admin's worker
// pool (AdminOptions::callbackThreads), never on an I/O thread; each runs exactly once: with the
// outcome, or, for a call still queued when shutdown() runs, with Unavailable on the thread that
// calls shutdown() (or at once, on the caller's thread, for a call made after it). A callback may
// call the Admin again (async forms) or shut it down. shutdown() is bounded (3 s for running
// calls); the destructor calls it.

#include "clientlib/client/admin/adminbodies.h"
#include "clientlib/client/clientconfig.h"
#include "clientlib/client/message.h"
#include "clientlib/client/sendresult.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/tracedata.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <vector>

namespace qrocket::client {

struct AdminOptions
{
    /// The admin's group name (DefaultMQAdminExt's adminExtGroup); informational.
    QByteArray group = QByteArrayLiteral("admin_ext_group");
    ClientConfig client;
    /// Default timeout of every call (DefaultMQAdminExt's timeoutMillis).
    int timeoutMs = 3000;
    /// Threads that run the async calls and their callbacks.
    int callbackThreads = 4;
};

/// One broker's (or name server's) outcome in a call that changes several.
struct BrokerOutcome
{
    QByteArray brokerName; // empty for a name server
    QByteArray address;
    Status status;
    /// WIPE/ADD_WRITE_PERM_OF_BROKER: the name server's wipeTopicCount / addTopicCount.
    int topicCount = 0;
};

struct FanOutResult
{
    std::vector<BrokerOutcome> outcomes;

    /// OK when every outcome is, else the first error (prefixed with its peer).
    Status status() const;
    bool isOk() const { return status().isOk(); }
};

/// Where a broker-side maintenance request goes: one broker (brokerAddr set), or every broker
/// (masters and slaves) of `cluster`, or of every cluster when both are empty.
struct BrokerTarget
{
    QByteArray cluster;
    QByteArray brokerAddr;
};

/// One broker address of the cluster, with its runtime info when asked for.
struct BrokerNode
{
    QByteArray cluster;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray address;
    /// GET_BROKER_RUNTIME_INFO (when requested and it answered).
    admin::BrokerRuntimeInfo runtimeInfo;
    /// Why runtimeInfo is empty (OK when it was not requested or it answered).
    Status runtimeStatus;
};

struct ClusterOverview
{
    protocol::ClusterInfo info;
    /// Every broker address, sorted by cluster, broker name, broker id.
    std::vector<BrokerNode> nodes;
};

/// Reset-offset dry run: one queue.
struct ResetOffsetPreview
{
    MessageQueue queue;
    /// The group's committed offset now (-1 when it has none).
    std::int64_t consumerOffset = -1;
    /// SEARCH_OFFSET_BY_TIMESTAMP for the timestamp (the max offset for -1).
    std::int64_t timestampOffset = 0;
    /// What INVOKE_BROKER_TO_RESET_OFFSET would set: timestampOffset when forced or when it is
    /// below consumerOffset, else consumerOffset (the broker's rule).
    std::int64_t targetOffset = 0;
};

struct QueryMessageResult
{
    std::vector<MessageExt> messages;
    /// The newest index update time among the brokers asked.
    std::int64_t indexLastUpdateTimestamp = 0;
};

/// One record of a message's trace (RocketMQ's TraceView): a decoded record and who wrote it.
struct MessageTraceView
{
    protocol::trace::TraceRecord record;
    /// The IP of the client that sent the trace message (its born host).
    QByteArray clientHost;
    /// "success" or "failed" (TraceView's status).
    QByteArray status() const { return record.success ? "success" : "failed"; }
};

class Admin
{
public:
    template<typename T>
    using Callback = std::function<void(Result<T>)>;
    using StatusCallback = std::function<void(Status)>;
    static constexpr int kDefaultTimeout = -1;

    explicit Admin(AdminOptions options = {});
    /// shutdown().
    ~Admin();
    Admin(const Admin &) = delete;
    Admin &operator=(const Admin &) = delete;

    /// Acquires the client instance and starts the worker pool. InvalidArgument for a bad option;
    /// OK when already started.
    Status start();
    /// Queued async calls complete with Unavailable; running ones get up to 3 s. Idempotent.
    void shutdown();
    bool isStarted() const;
    const AdminOptions &options() const;
    QByteArray clientId() const;

    // -- cluster ---------------------------------------------------------------------------
    /// GET_BROKER_CLUSTER_INFO.
    Result<protocol::ClusterInfo> clusterInfo(int timeoutMs = kDefaultTimeout);
    void clusterInfoAsync(
        Callback<protocol::ClusterInfo> callback, int timeoutMs = kDefaultTimeout);
    /// Cluster info flattened to broker addresses, with each one's runtime info (asked in
    /// parallel) when `withRuntimeInfo`.
    Result<ClusterOverview> clusterOverview(bool withRuntimeInfo, int timeoutMs = kDefaultTimeout);
    void clusterOverviewAsync(
        bool withRuntimeInfo, Callback<ClusterOverview> callback, int timeoutMs = kDefaultTimeout);
    /// GET_BROKER_RUNTIME_INFO.
    Result<admin::BrokerRuntimeInfo> brokerRuntimeInfo(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void brokerRuntimeInfoAsync(const QByteArray &brokerAddr,
        Callback<admin::BrokerRuntimeInfo> callback, int timeoutMs = kDefaultTimeout);
    /// GET_BROKER_HA_STATUS (RocketMQ 5, mqadmin haStatus): a master's slaves, or a slave's
    /// replication client.
    Result<admin::HARuntimeInfo> brokerHaStatus(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void brokerHaStatusAsync(const QByteArray &brokerAddr, Callback<admin::HARuntimeInfo> callback,
        int timeoutMs = kDefaultTimeout);
    /// GET_BROKER_EPOCH_CACHE (RocketMQ 5, mqadmin getBrokerEpoch): a broker's epoch history
    /// (empty on a QRocket broker outside controller mode; RocketMQ 5 answers SYSTEM_ERROR).
    Result<admin::EpochEntryCache> brokerEpochCache(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void brokerEpochCacheAsync(const QByteArray &brokerAddr,
        Callback<admin::EpochEntryCache> callback, int timeoutMs = kDefaultTimeout);
    /// QRocket extension: the brokers a name server (`namesrvAddr`, or the current one) holds
    /// live, with their age. NotSupported from a stock RocketMQ name server: it answers
    /// REQUEST_CODE_NOT_SUPPORTED, or (Java's) nothing at all, which is told from "down" by a
    /// GET_BROKER_CLUSTER_INFO sent beside it; that case takes the whole timeout.
    Result<admin::BrokerLiveness> brokerLiveness(
        const QByteArray &namesrvAddr = {}, int timeoutMs = kDefaultTimeout);
    void brokerLivenessAsync(const QByteArray &namesrvAddr,
        Callback<admin::BrokerLiveness> callback, int timeoutMs = kDefaultTimeout);
    /// QRocket extension 9002: a name server's runtime table (its RSS, topics, live brokers,
    /// registrations). NotSupported from a stock RocketMQ name server.
    Result<admin::BrokerRuntimeInfo> namesrvRuntimeInfo(
        const QByteArray &namesrvAddr = {}, int timeoutMs = kDefaultTimeout);
    void namesrvRuntimeInfoAsync(const QByteArray &namesrvAddr,
        Callback<admin::BrokerRuntimeInfo> callback, int timeoutMs = kDefaultTimeout);
    /// VIEW_BROKER_STATS_DATA (e.g. "TOPIC_PUT_NUMS", topic).
    Result<admin::BrokerStatsData> brokerStatsData(const QByteArray &brokerAddr,
        const QByteArray &statsName, const QByteArray &statsKey, int timeoutMs = kDefaultTimeout);
    void brokerStatsDataAsync(const QByteArray &brokerAddr, const QByteArray &statsName,
        const QByteArray &statsKey, Callback<admin::BrokerStatsData> callback,
        int timeoutMs = kDefaultTimeout);

    // -- topics ----------------------------------------------------------------------------
    /// GET_ALL_TOPIC_LIST_FROM_NAMESERVER.
    Result<std::vector<QByteArray>> topicList(int timeoutMs = kDefaultTimeout);
    void topicListAsync(
        Callback<std::vector<QByteArray>> callback, int timeoutMs = kDefaultTimeout);
    /// GET_TOPICS_BY_CLUSTER.
    Result<std::vector<QByteArray>> topicListByCluster(
        const QByteArray &cluster, int timeoutMs = kDefaultTimeout);
    void topicListByClusterAsync(const QByteArray &cluster,
        Callback<std::vector<QByteArray>> callback, int timeoutMs = kDefaultTimeout);
    /// GET_SYSTEM_TOPIC_LIST_FROM_NS (cluster and broker names), merged with
    /// GET_SYSTEM_TOPIC_LIST_FROM_BROKER of the broker it names, sorted.
    Result<std::vector<QByteArray>> systemTopicList(int timeoutMs = kDefaultTimeout);
    void systemTopicListAsync(
        Callback<std::vector<QByteArray>> callback, int timeoutMs = kDefaultTimeout);
    /// GET_ROUTEINFO_BY_TOPIC; TOPIC_NOT_EXIST is an error with remoteCode() 17.
    Result<protocol::TopicRouteData> topicRoute(
        const QByteArray &topic, int timeoutMs = kDefaultTimeout);
    void topicRouteAsync(const QByteArray &topic, Callback<protocol::TopicRouteData> callback,
        int timeoutMs = kDefaultTimeout);
    /// GET_TOPIC_STATS_INFO from every broker of the topic's route (master, else a slave),
    /// merged.
    Result<admin::TopicStatsTable> topicStats(
        const QByteArray &topic, int timeoutMs = kDefaultTimeout);
    void topicStatsAsync(const QByteArray &topic, Callback<admin::TopicStatsTable> callback,
        int timeoutMs = kDefaultTimeout);
    /// GET_ALL_TOPIC_CONFIG of a broker.
    Result<protocol::TopicConfigSerializeWrapper> allTopicConfig(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void allTopicConfigAsync(const QByteArray &brokerAddr,
        Callback<protocol::TopicConfigSerializeWrapper> callback, int timeoutMs = kDefaultTimeout);
    /// One topic's config on a broker; NotFound when the broker has none.
    Result<protocol::TopicConfig> topicConfig(
        const QByteArray &brokerAddr, const QByteArray &topic, int timeoutMs = kDefaultTimeout);
    void topicConfigAsync(const QByteArray &brokerAddr, const QByteArray &topic,
        Callback<protocol::TopicConfig> callback, int timeoutMs = kDefaultTimeout);
    /// UPDATE_AND_CREATE_TOPIC on one broker (the broker re-registers the topic at once).
    Status createOrUpdateTopic(const QByteArray &brokerAddr, const protocol::TopicConfig &config,
        int timeoutMs = kDefaultTimeout);
    void createOrUpdateTopicAsync(const QByteArray &brokerAddr, const protocol::TopicConfig &config,
        StatusCallback callback, int timeoutMs = kDefaultTimeout);
    /// UPDATE_AND_CREATE_TOPIC on every master of `cluster`; for an order topic also the name
    /// servers' ORDER_TOPIC_CONFIG entry ("brokerName:writeQueueNums;...") as mqadmin does.
    /// NotFound when the cluster is unknown.
    Result<FanOutResult> createOrUpdateTopicInCluster(const QByteArray &cluster,
        const protocol::TopicConfig &config, int timeoutMs = kDefaultTimeout);
    void createOrUpdateTopicInClusterAsync(const QByteArray &cluster,
        const protocol::TopicConfig &config, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// The two above with RocketMQ 5's topic attribute changes, `attributes` in mqadmin 5's
    /// notation: "+key=value" sets, "-key" removes, comma-separated ("+message.type=FIFO").
    /// Sent as the request's "attributes" field when not empty; the broker applies them to the
    /// topic's current attributes (config.attributes is not sent) and refuses an unknown key or
    /// value with its reason (Status::message). A 4.9 broker ignores the field.
    Status createOrUpdateTopic(const QByteArray &brokerAddr, const protocol::TopicConfig &config,
        const QByteArray &attributes, int timeoutMs = kDefaultTimeout);
    void createOrUpdateTopicAsync(const QByteArray &brokerAddr, const protocol::TopicConfig &config,
        const QByteArray &attributes, StatusCallback callback, int timeoutMs = kDefaultTimeout);
    Result<FanOutResult> createOrUpdateTopicInCluster(const QByteArray &cluster,
        const protocol::TopicConfig &config, const QByteArray &attributes,
        int timeoutMs = kDefaultTimeout);
    void createOrUpdateTopicInClusterAsync(const QByteArray &cluster,
        const protocol::TopicConfig &config, const QByteArray &attributes,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// DELETE_TOPIC_IN_BROKER on every master of `cluster`, then DELETE_TOPIC_IN_NAMESRV on every
    /// name server (and its ORDER_TOPIC_CONFIG entry, as mqadmin does). The name servers are
    /// asked only after every broker answered, so a broker's re-registration cannot bring the
    /// route back.
    Result<FanOutResult> deleteTopic(
        const QByteArray &topic, const QByteArray &cluster, int timeoutMs = kDefaultTimeout);
    void deleteTopicAsync(const QByteArray &topic, const QByteArray &cluster,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);

    // -- subscription groups ---------------------------------------------------------------
    /// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP on one broker.
    Status createOrUpdateSubscriptionGroup(const QByteArray &brokerAddr,
        const admin::SubscriptionGroupConfig &config, int timeoutMs = kDefaultTimeout);
    void createOrUpdateSubscriptionGroupAsync(const QByteArray &brokerAddr,
        const admin::SubscriptionGroupConfig &config, StatusCallback callback,
        int timeoutMs = kDefaultTimeout);
    /// ... on every master of `cluster`.
    Result<FanOutResult> createOrUpdateSubscriptionGroupInCluster(const QByteArray &cluster,
        const admin::SubscriptionGroupConfig &config, int timeoutMs = kDefaultTimeout);
    void createOrUpdateSubscriptionGroupInClusterAsync(const QByteArray &cluster,
        const admin::SubscriptionGroupConfig &config, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// DELETE_SUBSCRIPTIONGROUP on one broker (and its offsets when `removeOffset`).
    Status deleteSubscriptionGroup(const QByteArray &brokerAddr, const QByteArray &group,
        bool removeOffset = false, int timeoutMs = kDefaultTimeout);
    void deleteSubscriptionGroupAsync(const QByteArray &brokerAddr, const QByteArray &group,
        bool removeOffset, StatusCallback callback, int timeoutMs = kDefaultTimeout);
    /// ... on every master of `cluster`.
    Result<FanOutResult> deleteSubscriptionGroupInCluster(const QByteArray &cluster,
        const QByteArray &group, bool removeOffset = false, int timeoutMs = kDefaultTimeout);
    void deleteSubscriptionGroupInClusterAsync(const QByteArray &cluster, const QByteArray &group,
        bool removeOffset, Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// GET_ALL_SUBSCRIPTIONGROUP_CONFIG of a broker.
    Result<admin::SubscriptionGroupWrapper> allSubscriptionGroups(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void allSubscriptionGroupsAsync(const QByteArray &brokerAddr,
        Callback<admin::SubscriptionGroupWrapper> callback, int timeoutMs = kDefaultTimeout);

    // -- POP / PULL request mode (RocketMQ 5) ----------------------------------------------
    /// SET_MESSAGE_REQUEST_MODE (401) on one broker: how `mode.consumerGroup` consumes
    /// `mode.topic` there ("PULL" or "POP", popShareQueueNum). InvalidArgument for another mode.
    Status setMessageRequestMode(const QByteArray &brokerAddr,
        const protocol::SetMessageRequestModeRequestBody &mode, int timeoutMs = kDefaultTimeout);
    void setMessageRequestModeAsync(const QByteArray &brokerAddr,
        const protocol::SetMessageRequestModeRequestBody &mode, StatusCallback callback,
        int timeoutMs = kDefaultTimeout);
    /// ... on every master of `cluster`.
    Result<FanOutResult> setMessageRequestModeInCluster(const QByteArray &cluster,
        const protocol::SetMessageRequestModeRequestBody &mode, int timeoutMs = kDefaultTimeout);
    void setMessageRequestModeInClusterAsync(const QByteArray &cluster,
        const protocol::SetMessageRequestModeRequestBody &mode, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// GET_ALL_MESSAGE_REQUEST_MODE (402) of a broker: topic -> group -> mode.
    Result<protocol::MessageRequestModeTable> allMessageRequestModes(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void allMessageRequestModesAsync(const QByteArray &brokerAddr,
        Callback<protocol::MessageRequestModeTable> callback, int timeoutMs = kDefaultTimeout);

    // -- consumers and producers -----------------------------------------------------------
    /// GET_CONSUMER_CONNECTION_LIST from every broker of the group's %RETRY% topic, merged (one
    /// connection per client id). CONSUMER_NOT_ONLINE (206) when no broker knows a connection;
    /// TOPIC_NOT_EXIST (17) for a group that never had a consumer (no %RETRY% route).
    Result<admin::ConsumerConnection> consumerConnection(
        const QByteArray &group, int timeoutMs = kDefaultTimeout);
    void consumerConnectionAsync(const QByteArray &group,
        Callback<admin::ConsumerConnection> callback, int timeoutMs = kDefaultTimeout);
    /// GET_CONSUME_STATS from every broker of the group's %RETRY% topic (and of `topic`, when
    /// given), offset tables merged and consumeTps summed. CONSUMER_NOT_ONLINE when the merged
    /// table is empty, as DefaultMQAdminExt says; without `topic`, TOPIC_NOT_EXIST for a group
    /// that has no %RETRY% route.
    Result<admin::ConsumeStats> consumeStats(
        const QByteArray &group, const QByteArray &topic = {}, int timeoutMs = kDefaultTimeout);
    void consumeStatsAsync(const QByteArray &group, const QByteArray &topic,
        Callback<admin::ConsumeStats> callback, int timeoutMs = kDefaultTimeout);
    /// GET_PRODUCER_CONNECTION_LIST from every broker of `topic`, merged.
    Result<admin::ProducerConnection> producerConnection(
        const QByteArray &group, const QByteArray &topic, int timeoutMs = kDefaultTimeout);
    void producerConnectionAsync(const QByteArray &group, const QByteArray &topic,
        Callback<admin::ProducerConnection> callback, int timeoutMs = kDefaultTimeout);
    /// GET_CONSUMER_RUNNING_INFO, forwarded by a broker of the group's %RETRY% topic to the
    /// consumer `clientId` (the first broker that reaches it answers).
    Result<admin::ConsumerRunningInfo> consumerRunningInfo(const QByteArray &group,
        const QByteArray &clientId, bool jstack = false, int timeoutMs = kDefaultTimeout);
    void consumerRunningInfoAsync(const QByteArray &group, const QByteArray &clientId, bool jstack,
        Callback<admin::ConsumerRunningInfo> callback, int timeoutMs = kDefaultTimeout);
    /// QUERY_TOPIC_CONSUME_BY_WHO on every broker of `topic`, merged and sorted.
    Result<std::vector<QByteArray>> topicConsumedBy(
        const QByteArray &topic, int timeoutMs = kDefaultTimeout);
    void topicConsumedByAsync(const QByteArray &topic, Callback<std::vector<QByteArray>> callback,
        int timeoutMs = kDefaultTimeout);
    /// INVOKE_BROKER_TO_RESET_OFFSET on every broker of `topic` (timestamp in epoch ms; -1 =
    /// the end of each queue): the offsets set, per queue. CONSUMER_NOT_ONLINE (206) from a
    /// broker when the group has no online consumer (the broker then changes nothing).
    Result<std::map<MessageQueue, std::int64_t>> resetOffsetByTime(const QByteArray &topic,
        const QByteArray &group, std::int64_t timestamp, bool force = true,
        int timeoutMs = kDefaultTimeout);
    void resetOffsetByTimeAsync(const QByteArray &topic, const QByteArray &group,
        std::int64_t timestamp, bool force, Callback<std::map<MessageQueue, std::int64_t>> callback,
        int timeoutMs = kDefaultTimeout);
    /// Dry run of resetOffsetByTime: per write queue of `topic`, the committed offset
    /// (QUERY_CONSUMER_OFFSET), SEARCH_OFFSET_BY_TIMESTAMP's answer and the offset the reset
    /// would set. Changes nothing.
    Result<std::vector<ResetOffsetPreview>> previewResetOffset(const QByteArray &topic,
        const QByteArray &group, std::int64_t timestamp, bool force = true,
        int timeoutMs = kDefaultTimeout);
    void previewResetOffsetAsync(const QByteArray &topic, const QByteArray &group,
        std::int64_t timestamp, bool force, Callback<std::vector<ResetOffsetPreview>> callback,
        int timeoutMs = kDefaultTimeout);
    /// The reset for a group with no consumer online (where resetOffsetByTime gets
    /// CONSUMER_NOT_ONLINE; mqadmin's resetOffsetByTime then falls back to this): the
    /// previewResetOffset targets committed with UPDATE_CONSUMER_OFFSET on each queue whose
    /// offset changes. The offsets set, per queue. Consumers that are online keep their own
    /// offsets in memory and overwrite these at their next commit: use resetOffsetByTime then.
    Result<std::map<MessageQueue, std::int64_t>> resetOffsetByTimeOffline(const QByteArray &topic,
        const QByteArray &group, std::int64_t timestamp, bool force = true,
        int timeoutMs = kDefaultTimeout);
    void resetOffsetByTimeOfflineAsync(const QByteArray &topic, const QByteArray &group,
        std::int64_t timestamp, bool force, Callback<std::map<MessageQueue, std::int64_t>> callback,
        int timeoutMs = kDefaultTimeout);

    // -- messages --------------------------------------------------------------------------
    /// VIEW_MESSAGE_BY_ID at the store host named by an offset msgId (32 or 56 hex digits).
    Result<MessageExt> viewMessage(const QByteArray &offsetMsgId, int timeoutMs = kDefaultTimeout);
    void viewMessageAsync(const QByteArray &offsetMsgId, Callback<MessageExt> callback,
        int timeoutMs = kDefaultTimeout);
    /// The message a user's msgId names, as DefaultMQAdminExt.viewMessage(topic, msgId): an
    /// offset msgId is viewed at its store host; anything else (or an offset id no broker
    /// has) is looked up as a UNIQ_KEY in `topic`.
    Result<MessageExt> messageById(
        const QByteArray &topic, const QByteArray &msgId, int timeoutMs = kDefaultTimeout);
    void messageByIdAsync(const QByteArray &topic, const QByteArray &msgId,
        Callback<MessageExt> callback, int timeoutMs = kDefaultTimeout);
    /// QUERY_MESSAGE by key (the KEYS property) on every broker of `topic`, within
    /// [beginTimestamp, endTimestamp] store time; at most `maxNum` per broker. No match is an
    /// empty result, not an error.
    Result<QueryMessageResult> queryMessageByKey(const QByteArray &topic, const QByteArray &key,
        int maxNum = 64, std::int64_t beginTimestamp = 0,
        std::int64_t endTimestamp = std::numeric_limits<std::int64_t>::max(),
        int timeoutMs = kDefaultTimeout);
    void queryMessageByKeyAsync(const QByteArray &topic, const QByteArray &key, int maxNum,
        std::int64_t beginTimestamp, std::int64_t endTimestamp,
        Callback<QueryMessageResult> callback, int timeoutMs = kDefaultTimeout);
    /// QUERY_MESSAGE by UNIQ_KEY (the msgId users see) on every broker of `topic`: the
    /// earliest stored copy. NotFound when no broker has it.
    Result<MessageExt> queryMessageByUniqueKey(
        const QByteArray &topic, const QByteArray &uniqueKey, int timeoutMs = kDefaultTimeout);
    void queryMessageByUniqueKeyAsync(const QByteArray &topic, const QByteArray &uniqueKey,
        Callback<MessageExt> callback, int timeoutMs = kDefaultTimeout);
    /// The message at `offset` of `queue` (PULL_MESSAGE of one message as TOOLS_CONSUMER, no
    /// offset committed). NotFound when the queue has no message there.
    Result<MessageExt> messageAt(
        const MessageQueue &queue, std::int64_t offset, int timeoutMs = kDefaultTimeout);
    void messageAtAsync(const MessageQueue &queue, std::int64_t offset,
        Callback<MessageExt> callback, int timeoutMs = kDefaultTimeout);
    /// A message's trace (mqadmin queryMsgTraceById): QUERY_MESSAGE by `msgId` as a key (64 per
    /// broker) on `traceTopic` (RMQ_SYS_TRACE_TOPIC when empty), then every record of the trace
    /// messages found whose msgId is `msgId` (clientlib/protocol/tracedata.h), oldest first. No
    /// trace is an empty list, not an error.
    Result<std::vector<MessageTraceView>> queryMessageTrace(const QByteArray &msgId,
        const QByteArray &traceTopic = {}, int timeoutMs = kDefaultTimeout);
    void queryMessageTraceAsync(const QByteArray &msgId, const QByteArray &traceTopic,
        Callback<std::vector<MessageTraceView>> callback, int timeoutMs = kDefaultTimeout);

    // -- configuration ---------------------------------------------------------------------
    /// GET_BROKER_CONFIG: the broker's settings and their DataVersion.
    Result<admin::ConfigProperties> brokerConfig(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void brokerConfigAsync(const QByteArray &brokerAddr, Callback<admin::ConfigProperties> callback,
        int timeoutMs = kDefaultTimeout);
    /// UPDATE_BROKER_CONFIG with `entries` on the target's brokers.
    Result<FanOutResult> updateBrokerConfig(const BrokerTarget &target,
        const std::vector<std::pair<QString, QString>> &entries, int timeoutMs = kDefaultTimeout);
    void updateBrokerConfigAsync(const BrokerTarget &target,
        const std::vector<std::pair<QString, QString>> &entries, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// GET_NAMESRV_CONFIG of each name server (`namesrvAddrs`, or every configured one).
    Result<std::map<QByteArray, admin::ConfigProperties>> nameServerConfig(
        const std::vector<QByteArray> &namesrvAddrs = {}, int timeoutMs = kDefaultTimeout);
    void nameServerConfigAsync(const std::vector<QByteArray> &namesrvAddrs,
        Callback<std::map<QByteArray, admin::ConfigProperties>> callback,
        int timeoutMs = kDefaultTimeout);
    /// UPDATE_NAMESRV_CONFIG on each name server.
    Result<FanOutResult> updateNameServerConfig(
        const std::vector<std::pair<QString, QString>> &entries,
        const std::vector<QByteArray> &namesrvAddrs = {}, int timeoutMs = kDefaultTimeout);
    void updateNameServerConfigAsync(const std::vector<std::pair<QString, QString>> &entries,
        const std::vector<QByteArray> &namesrvAddrs, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// PUT_KV_CONFIG on every name server (an error when any fails).
    Status putKvConfig(const QByteArray &nameSpace, const QByteArray &key, const QByteArray &value,
        int timeoutMs = kDefaultTimeout);
    void putKvConfigAsync(const QByteArray &nameSpace, const QByteArray &key,
        const QByteArray &value, StatusCallback callback, int timeoutMs = kDefaultTimeout);
    /// GET_KV_CONFIG from a name server; NotFound for QUERY_NOT_FOUND.
    Result<QByteArray> kvConfig(
        const QByteArray &nameSpace, const QByteArray &key, int timeoutMs = kDefaultTimeout);
    void kvConfigAsync(const QByteArray &nameSpace, const QByteArray &key,
        Callback<QByteArray> callback, int timeoutMs = kDefaultTimeout);
    /// DELETE_KV_CONFIG on every name server.
    Status deleteKvConfig(
        const QByteArray &nameSpace, const QByteArray &key, int timeoutMs = kDefaultTimeout);
    void deleteKvConfigAsync(const QByteArray &nameSpace, const QByteArray &key,
        StatusCallback callback, int timeoutMs = kDefaultTimeout);
    /// GET_KVLIST_BY_NAMESPACE; an empty table for QUERY_NOT_FOUND.
    Result<std::map<QByteArray, QByteArray>> kvList(
        const QByteArray &nameSpace, int timeoutMs = kDefaultTimeout);
    void kvListAsync(const QByteArray &nameSpace,
        Callback<std::map<QByteArray, QByteArray>> callback, int timeoutMs = kDefaultTimeout);

    // -- broker maintenance ----------------------------------------------------------------
    /// WIPE_WRITE_PERM_OF_BROKER on every name server (or `namesrvAddrs`): topicCount per name
    /// server.
    Result<FanOutResult> wipeWritePerm(const QByteArray &brokerName,
        const std::vector<QByteArray> &namesrvAddrs = {}, int timeoutMs = kDefaultTimeout);
    void wipeWritePermAsync(const QByteArray &brokerName,
        const std::vector<QByteArray> &namesrvAddrs, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// ADD_WRITE_PERM_OF_BROKER on every name server (or `namesrvAddrs`).
    Result<FanOutResult> addWritePerm(const QByteArray &brokerName,
        const std::vector<QByteArray> &namesrvAddrs = {}, int timeoutMs = kDefaultTimeout);
    void addWritePermAsync(const QByteArray &brokerName,
        const std::vector<QByteArray> &namesrvAddrs, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// DELETE_EXPIRED_COMMITLOG on the target's brokers.
    Result<FanOutResult> deleteExpiredCommitLog(
        const BrokerTarget &target, int timeoutMs = kDefaultTimeout);
    void deleteExpiredCommitLogAsync(const BrokerTarget &target, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// CLEAN_EXPIRED_CONSUMEQUEUE on the target's brokers.
    Result<FanOutResult> cleanExpiredConsumeQueue(
        const BrokerTarget &target, int timeoutMs = kDefaultTimeout);
    void cleanExpiredConsumeQueueAsync(const BrokerTarget &target, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// CLEAN_UNUSED_TOPIC on the target's brokers.
    Result<FanOutResult> cleanUnusedTopic(
        const BrokerTarget &target, int timeoutMs = kDefaultTimeout);
    void cleanUnusedTopicAsync(const BrokerTarget &target, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// QRocket extension: a broker's commit-log files (the console's cleanup view).
    /// NotSupported from a stock RocketMQ broker.
    Result<admin::StoreFiles> storeFiles(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void storeFilesAsync(const QByteArray &brokerAddr, Callback<admin::StoreFiles> callback,
        int timeoutMs = kDefaultTimeout);
    /// QRocket extension: one broker's POP state per (group, topic) — mode, messages in flight,
    /// revive backlog — of `group` (every group when empty). NotSupported from a stock broker.
    Result<protocol::PopStatsBody> popStats(const QByteArray &brokerAddr,
        const QByteArray &group = {}, int timeoutMs = kDefaultTimeout);
    void popStatsAsync(const QByteArray &brokerAddr, const QByteArray &group,
        Callback<protocol::PopStatsBody> callback, int timeoutMs = kDefaultTimeout);
    /// QRocket explain extensions (protocol/bodies/explainbodies.h): findings naming the setting
    /// or client that decides. NotSupported from a stock RocketMQ daemon. Why `group` does not
    /// consume on one broker (`topic` empty: every topic it subscribes or has offsets on):
    Result<protocol::ExplainBody> explainGroup(const QByteArray &brokerAddr,
        const QByteArray &group, const QByteArray &topic = {}, int timeoutMs = kDefaultTimeout);
    void explainGroupAsync(const QByteArray &brokerAddr, const QByteArray &group,
        const QByteArray &topic, Callback<protocol::ExplainBody> callback,
        int timeoutMs = kDefaultTimeout);
    /// Why each commit-log file of one broker is kept.
    Result<protocol::ExplainBody> explainCleanup(
        const QByteArray &brokerAddr, int timeoutMs = kDefaultTimeout);
    void explainCleanupAsync(const QByteArray &brokerAddr, Callback<protocol::ExplainBody> callback,
        int timeoutMs = kDefaultTimeout);
    /// Why sends of `topic` to one broker may be refused; `accessKey`: also the ACL rule deciding
    /// for that account (an admin request under ACL); `sourceIp`: the producer's address an ACL
    /// 2.0 user's policies are decided for (empty: only entries for every address match).
    Result<protocol::ExplainBody> explainSend(const QByteArray &brokerAddr, const QByteArray &topic,
        const QByteArray &accessKey = {}, const QByteArray &sourceIp = {},
        int timeoutMs = kDefaultTimeout);
    void explainSendAsync(const QByteArray &brokerAddr, const QByteArray &topic,
        const QByteArray &accessKey, const QByteArray &sourceIp,
        Callback<protocol::ExplainBody> callback, int timeoutMs = kDefaultTimeout);
    /// Why `brokerName` is late or gone at a name server (`namesrvAddr` empty: the current one).
    Result<protocol::ExplainBody> explainBroker(const QByteArray &namesrvAddr,
        const QByteArray &brokerName, int timeoutMs = kDefaultTimeout);
    void explainBrokerAsync(const QByteArray &namesrvAddr, const QByteArray &brokerName,
        Callback<protocol::ExplainBody> callback, int timeoutMs = kDefaultTimeout);

    // -- tools (mqadmin's commands beyond the above) -----------------------------------------
    /// GET_BROKER_CONSUME_STATS: every group's consume stats on one broker (only the groups of
    /// order topics when `isOrder`), as mqadmin brokerConsumeStats shows them.
    Result<admin::ConsumeStatsList> brokerConsumeStats(
        const QByteArray &brokerAddr, bool isOrder = false, int timeoutMs = kDefaultTimeout);
    void brokerConsumeStatsAsync(const QByteArray &brokerAddr, bool isOrder,
        Callback<admin::ConsumeStatsList> callback, int timeoutMs = kDefaultTimeout);
    /// CLONE_GROUP_OFFSET on every broker of `topic` (master, else a slave): `destGroup` gets
    /// `srcGroup`'s committed offsets of the topic. `offline`: also when `srcGroup` has online
    /// consumers that do not subscribe to the topic (the broker skips those topics otherwise).
    Result<FanOutResult> cloneGroupOffset(const QByteArray &srcGroup, const QByteArray &destGroup,
        const QByteArray &topic, bool offline = false, int timeoutMs = kDefaultTimeout);
    void cloneGroupOffsetAsync(const QByteArray &srcGroup, const QByteArray &destGroup,
        const QByteArray &topic, bool offline, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// SEARCH_OFFSET_BY_TIMESTAMP: the first offset of `queue` stored at or after `timestamp`
    /// (epoch ms; the max offset when none is).
    Result<std::int64_t> searchOffset(
        const MessageQueue &queue, std::int64_t timestamp, int timeoutMs = kDefaultTimeout);
    void searchOffsetAsync(const MessageQueue &queue, std::int64_t timestamp,
        Callback<std::int64_t> callback, int timeoutMs = kDefaultTimeout);
    /// PULL_MESSAGE of up to `maxNums` (1..1024) messages of `queue` from `offset`, as
    /// TOOLS_CONSUMER with no offset committed; `subExpression` filters by tag ("*": all,
    /// "A || B"). The result's status says FOUND / NO_NEW_MSG / NO_MATCHED_MSG /
    /// OFFSET_ILLEGAL and nextBeginOffset where to go on.
    Result<PullResult> pullMessages(const MessageQueue &queue, std::int64_t offset, int maxNums,
        const QByteArray &subExpression = QByteArrayLiteral("*"), int timeoutMs = kDefaultTimeout);
    void pullMessagesAsync(const MessageQueue &queue, std::int64_t offset, int maxNums,
        const QByteArray &subExpression, Callback<PullResult> callback,
        int timeoutMs = kDefaultTimeout);

    // -- ACL 2.0 users and ACLs (RocketMQ 5's AUTH_* requests 3001-3010) ----------------------
    // Changes go to the target's brokers (masters and slaves, as mqadmin -c does: each broker
    // keeps its own store); reads ask one broker. A QRocket broker never answers a password.
    /// AUTH_CREATE_USER: `user.username` and `user.password` are required; userType "Super" or
    /// "Normal" (default), userStatus "enable" (default) or "disable".
    Result<FanOutResult> createUser(const BrokerTarget &target, const protocol::UserInfo &user,
        int timeoutMs = kDefaultTimeout);
    void createUserAsync(const BrokerTarget &target, const protocol::UserInfo &user,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_UPDATE_USER: the members given replace the user's (a blank password keeps it).
    Result<FanOutResult> updateUser(const BrokerTarget &target, const protocol::UserInfo &user,
        int timeoutMs = kDefaultTimeout);
    void updateUserAsync(const BrokerTarget &target, const protocol::UserInfo &user,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_DELETE_USER (its ACL goes too).
    Result<FanOutResult> deleteUser(
        const BrokerTarget &target, const QByteArray &username, int timeoutMs = kDefaultTimeout);
    void deleteUserAsync(const BrokerTarget &target, const QByteArray &username,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_GET_USER: the user, or none.
    Result<std::vector<protocol::UserInfo>> user(
        const QByteArray &brokerAddr, const QByteArray &username, int timeoutMs = kDefaultTimeout);
    void userAsync(const QByteArray &brokerAddr, const QByteArray &username,
        Callback<std::vector<protocol::UserInfo>> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_LIST_USER: the users whose name contains `filter` (all when empty).
    Result<std::vector<protocol::UserInfo>> listUsers(const QByteArray &brokerAddr,
        const QByteArray &filter = {}, int timeoutMs = kDefaultTimeout);
    void listUsersAsync(const QByteArray &brokerAddr, const QByteArray &filter,
        Callback<std::vector<protocol::UserInfo>> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_CREATE_ACL / AUTH_UPDATE_ACL: the policies merge into `acl.subject`'s ACL.
    Result<FanOutResult> createAcl(
        const BrokerTarget &target, const protocol::AclInfo &acl, int timeoutMs = kDefaultTimeout);
    void createAclAsync(const BrokerTarget &target, const protocol::AclInfo &acl,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    Result<FanOutResult> updateAcl(
        const BrokerTarget &target, const protocol::AclInfo &acl, int timeoutMs = kDefaultTimeout);
    void updateAclAsync(const BrokerTarget &target, const protocol::AclInfo &acl,
        Callback<FanOutResult> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_DELETE_ACL: the subject's whole ACL, or the entry of `resource` (of `policyType`,
    /// Custom when empty).
    Result<FanOutResult> deleteAcl(const BrokerTarget &target, const QByteArray &subject,
        const QByteArray &resource = {}, const QByteArray &policyType = {},
        int timeoutMs = kDefaultTimeout);
    void deleteAclAsync(const BrokerTarget &target, const QByteArray &subject,
        const QByteArray &resource, const QByteArray &policyType, Callback<FanOutResult> callback,
        int timeoutMs = kDefaultTimeout);
    /// AUTH_GET_ACL: the subject's ACL, or none.
    Result<std::vector<protocol::AclInfo>> acl(
        const QByteArray &brokerAddr, const QByteArray &subject, int timeoutMs = kDefaultTimeout);
    void aclAsync(const QByteArray &brokerAddr, const QByteArray &subject,
        Callback<std::vector<protocol::AclInfo>> callback, int timeoutMs = kDefaultTimeout);
    /// AUTH_LIST_ACL: the ACLs whose subject contains `subjectFilter`, with their entries whose
    /// resource contains `resourceFilter` (empty filters: everything).
    Result<std::vector<protocol::AclInfo>> listAcls(const QByteArray &brokerAddr,
        const QByteArray &subjectFilter = {}, const QByteArray &resourceFilter = {},
        int timeoutMs = kDefaultTimeout);
    void listAclsAsync(const QByteArray &brokerAddr, const QByteArray &subjectFilter,
        const QByteArray &resourceFilter, Callback<std::vector<protocol::AclInfo>> callback,
        int timeoutMs = kDefaultTimeout);

    /// Implementation detail (shared with the pool's tasks, so an async call outlives the
    /// Admin safely).
    struct Core;

private:
    std::shared_ptr<Core> d;
};

} // namespace qrocket::client
