#pragma once

// Typed results of the admin requests (protocol.md §3, §4.9, extensioncode.h) and the parsers
// that read them from response bodies, as RocketMQ 4.9's fastjson writes them (maps keyed by a
// MessageQueue object, integer keys, enums by name or ordinal, numbers as strings) and as
// QRocket's broker and name server write them (standard JSON). The parsers read with the tolerant
// reader of json.h: unknown keys are ignored, a missing field keeps its default, and a body that
// is not JSON or has a field of the wrong shape is an InvalidArgument naming the body and the
// field (never a crash, never a partial value).
//
//   TopicStatsTable     {"offsetTable":{MQ:{"lastUpdateTimestamp":t,"maxOffset":M,"minOffset":m}}}
//   ConsumeStats        {"consumeTps":1.5,"offsetTable":{MQ:{"brokerOffset":M,"consumerOffset":C,
//                        "lastTimestamp":t}}}
//   ResetOffsetBody     {"offsetTable":{MQ:offset}}
//   GroupList           {"groupList":["G"]}
//   ConsumerConnection  {"connectionSet":[Connection],"consumeFromWhere":"..","consumeType":"..",
//                        "messageModel":"..","subscriptionTable":{"T":SubscriptionData}}
//   ProducerConnection  {"connectionSet":[{"clientAddr":..,"clientId":..,"language":..,
//                        "version":..}]}
//   SubscriptionGroupWrapper {"dataVersion":{..},"subscriptionGroupTable":{"G":{..}}}
//   ConsumerRunningInfo {"jstack":..,"mqTable":{MQ:ProcessQueueInfo},"properties":{..},
//                        "statusTable":{"T":ConsumeStatus},"subscriptionSet":[SubscriptionData]}
//   BrokerStatsData     {"statsDay":{"avgpt":..,"sum":..,"tps":..},"statsHour":..,"statsMinute":..}
//   BrokerLiveness, StoreFiles: QRocket's extension bodies (extensioncode.h).
//
// Plain value types: copy them, move them, use them from any thread.

#include "clientlib/common/result.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <map>
#include <vector>

namespace qrocket::client::admin {

using protocol::MessageQueue;

/// GET_TOPIC_STATS_INFO: one queue's offsets.
struct TopicOffset
{
    std::int64_t minOffset = 0;
    std::int64_t maxOffset = 0;
    /// Store time of the last message (0 when the queue is empty).
    std::int64_t lastUpdateTimestamp = 0;

    friend bool operator==(const TopicOffset &, const TopicOffset &) = default;
};

struct TopicStatsTable
{
    std::map<MessageQueue, TopicOffset> offsetTable;

    friend bool operator==(const TopicStatsTable &, const TopicStatsTable &) = default;
    static Result<TopicStatsTable> fromJson(QByteArrayView json);
};

/// GET_CONSUME_STATS: one queue's progress.
struct OffsetWrapper
{
    std::int64_t brokerOffset = 0;
    std::int64_t consumerOffset = 0;
    /// Store time of the last consumed message (0 when none).
    std::int64_t lastTimestamp = 0;

    /// brokerOffset - consumerOffset, never negative.
    std::int64_t lag() const
    {
        return brokerOffset > consumerOffset ? brokerOffset - consumerOffset : 0;
    }
    friend bool operator==(const OffsetWrapper &, const OffsetWrapper &) = default;
};

struct ConsumeStats
{
    std::map<MessageQueue, OffsetWrapper> offsetTable;
    double consumeTps = 0;

    std::int64_t totalBrokerOffset() const;
    std::int64_t totalConsumerOffset() const;
    /// The summed lag of every queue (RocketMQ's computeTotalDiff).
    std::int64_t totalLag() const;
    friend bool operator==(const ConsumeStats &, const ConsumeStats &) = default;
    static Result<ConsumeStats> fromJson(QByteArrayView json);
    static Result<ConsumeStats> fromJsonValue(const protocol::JsonValue &v);
};

/// GET_BROKER_CONSUME_STATS: every group's ConsumeStats on one broker, one entry per
/// (group, topic) as the broker lists them.
///   {"brokerAddr":"..","consumeStatsList":[{"G":[ConsumeStats,...]},...],"totalDiff":N}
struct ConsumeStatsList
{
    QByteArray brokerAddr;
    std::vector<std::pair<QByteArray, std::vector<ConsumeStats>>> groups;
    std::int64_t totalDiff = 0;

    friend bool operator==(const ConsumeStatsList &, const ConsumeStatsList &) = default;
    static Result<ConsumeStatsList> fromJson(QByteArrayView json);
};

/// INVOKE_BROKER_TO_RESET_OFFSET response / RESET_CONSUMER_CLIENT_OFFSET body.
struct ResetOffsetBody
{
    std::map<MessageQueue, std::int64_t> offsetTable;

    friend bool operator==(const ResetOffsetBody &, const ResetOffsetBody &) = default;
    static Result<ResetOffsetBody> fromJson(QByteArrayView json);
};

/// QUERY_TOPIC_CONSUME_BY_WHO.
struct GroupList
{
    std::vector<QByteArray> groupList;

    friend bool operator==(const GroupList &, const GroupList &) = default;
    static Result<GroupList> fromJson(QByteArrayView json);
};

/// A client connected to a broker.
struct Connection
{
    QByteArray clientId;
    /// "ip:port" as the broker sees it.
    QByteArray clientAddr;
    /// LanguageCode name ("JAVA", "CPP"...).
    QByteArray language;
    /// MQVersion ordinal.
    int version = 0;

    friend bool operator==(const Connection &, const Connection &) = default;
    static Result<Connection> fromJsonValue(const protocol::JsonValue &v);
};

struct ConsumerConnection
{
    std::vector<Connection> connectionSet;
    /// topic -> subscription.
    std::map<QByteArray, protocol::SubscriptionData> subscriptionTable;
    protocol::ConsumeType consumeType = protocol::ConsumeType::ConsumePassively;
    protocol::MessageModel messageModel = protocol::MessageModel::Clustering;
    protocol::ConsumeFromWhere consumeFromWhere = protocol::ConsumeFromWhere::ConsumeFromLastOffset;

    friend bool operator==(const ConsumerConnection &, const ConsumerConnection &) = default;
    static Result<ConsumerConnection> fromJson(QByteArrayView json);
};

struct ProducerConnection
{
    std::vector<Connection> connectionSet;

    friend bool operator==(const ProducerConnection &, const ProducerConnection &) = default;
    static Result<ProducerConnection> fromJson(QByteArrayView json);
};

/// A consumer group's settings on a broker (RocketMQ 4.9's SubscriptionGroupConfig).
struct SubscriptionGroupConfig
{
    QByteArray groupName;
    bool consumeEnable = true;
    bool consumeFromMinEnable = true;
    bool consumeBroadcastEnable = true;
    int retryQueueNums = 1;
    int retryMaxTimes = 16;
    std::int64_t brokerId = 0;
    std::int64_t whichBrokerWhenConsumeSlowly = 1;
    bool notifyConsumerIdsChangedEnable = true;

    SubscriptionGroupConfig() = default;
    explicit SubscriptionGroupConfig(QByteArray name) : groupName(std::move(name)) { }
    friend bool operator==(const SubscriptionGroupConfig &, const SubscriptionGroupConfig &)
        = default;
    /// The UPDATE_AND_CREATE_SUBSCRIPTIONGROUP body.
    QByteArray toJson() const;
    static Result<SubscriptionGroupConfig> fromJsonValue(
        const protocol::JsonValue &v, QByteArrayView fallbackName = {});
};

/// GET_ALL_SUBSCRIPTIONGROUP_CONFIG.
struct SubscriptionGroupWrapper
{
    std::map<QByteArray, SubscriptionGroupConfig> subscriptionGroupTable;
    protocol::DataVersion dataVersion;

    friend bool operator==(const SubscriptionGroupWrapper &, const SubscriptionGroupWrapper &)
        = default;
    static Result<SubscriptionGroupWrapper> fromJson(QByteArrayView json);
};

/// ConsumerRunningInfo.mqTable values: a consumer's view of one of its queues.
struct ProcessQueueInfo
{
    std::int64_t commitOffset = 0;
    std::int64_t cachedMsgMinOffset = 0;
    std::int64_t cachedMsgMaxOffset = 0;
    int cachedMsgCount = 0;
    int cachedMsgSizeInMiB = 0;
    std::int64_t transactionMsgMinOffset = 0;
    std::int64_t transactionMsgMaxOffset = 0;
    int transactionMsgCount = 0;
    bool locked = false;
    std::int64_t tryUnlockTimes = 0;
    std::int64_t lastLockTimestamp = 0;
    /// "droped" on the wire (sic).
    bool dropped = false;
    std::int64_t lastPullTimestamp = 0;
    std::int64_t lastConsumeTimestamp = 0;

    friend bool operator==(const ProcessQueueInfo &, const ProcessQueueInfo &) = default;
};

/// ConsumerRunningInfo.statusTable values: a consumer's rates for one topic.
struct ConsumeStatus
{
    double pullRT = 0;
    double pullTPS = 0;
    double consumeRT = 0;
    double consumeOKTPS = 0;
    double consumeFailedTPS = 0;
    std::int64_t consumeFailedMsgs = 0;

    friend bool operator==(const ConsumeStatus &, const ConsumeStatus &) = default;
};

/// GET_CONSUMER_RUNNING_INFO: what a consumer reports about itself.
struct ConsumerRunningInfo
{
    /// PROP_CONSUME_TYPE, PROP_CLIENT_VERSION, PROP_CONSUMER_START_TIMESTAMP, ... and the
    /// consumer's settings.
    std::map<QByteArray, QByteArray> properties;
    std::vector<protocol::SubscriptionData> subscriptionSet;
    std::map<MessageQueue, ProcessQueueInfo> mqTable;
    std::map<QByteArray, ConsumeStatus> statusTable;
    QByteArray jstack;

    /// properties["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY" (a push consumer).
    bool isPushConsumer() const;
    /// properties["PROP_CONSUMEORDERLY"] == "true".
    bool isOrderly() const;
    friend bool operator==(const ConsumerRunningInfo &, const ConsumerRunningInfo &) = default;
    static Result<ConsumerRunningInfo> fromJson(QByteArrayView json);
};

/// VIEW_BROKER_STATS_DATA.
struct BrokerStatsItem
{
    std::int64_t sum = 0;
    double tps = 0;
    double avgpt = 0;

    friend bool operator==(const BrokerStatsItem &, const BrokerStatsItem &) = default;
};

struct BrokerStatsData
{
    BrokerStatsItem statsMinute;
    BrokerStatsItem statsHour;
    BrokerStatsItem statsDay;

    friend bool operator==(const BrokerStatsData &, const BrokerStatsData &) = default;
    static Result<BrokerStatsData> fromJson(QByteArrayView json);
};

/// GET_BROKER_RUNTIME_INFO: the broker's KVTable, with typed reads of the keys tools show.
struct BrokerRuntimeInfo
{
    std::map<QByteArray, QByteArray> table;

    /// The value, or a null QByteArray.
    QByteArray value(QByteArrayView key) const;
    /// The value as a number ("0.23", "1292"; of a list such as "0.0 0.36 0.0", the first),
    /// or `fallback`.
    double number(QByteArrayView key, double fallback = 0) const;
    std::int64_t integer(QByteArrayView key, std::int64_t fallback = 0) const;
    /// "V4_9_7"
    QByteArray versionDesc() const { return value("brokerVersionDesc"); }
    friend bool operator==(const BrokerRuntimeInfo &, const BrokerRuntimeInfo &) = default;
    static Result<BrokerRuntimeInfo> fromJson(QByteArrayView json);
};

/// QRocket name server extension (kGetBrokerLiveness): one registered broker.
struct BrokerLivenessEntry
{
    QByteArray clusterName;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray brokerAddr;
    QByteArray haServerAddr;
    protocol::DataVersion dataVersion;
    /// The name server's wall clock at its last registration (epoch ms).
    std::int64_t lastUpdateTimestamp = 0;
    /// Milliseconds since that registration (monotonic on the name server).
    std::int64_t ageMillis = 0;

    friend bool operator==(const BrokerLivenessEntry &, const BrokerLivenessEntry &) = default;
};

struct BrokerLiveness
{
    std::vector<BrokerLivenessEntry> brokers;
    /// A broker silent for longer is dropped by the name server.
    std::int64_t brokerChannelExpiredTime = 0;
    /// The name server's wall clock when it answered.
    std::int64_t now = 0;

    friend bool operator==(const BrokerLiveness &, const BrokerLiveness &) = default;
    static Result<BrokerLiveness> fromJson(QByteArrayView json);
};

/// QRocket broker extension (kGetStoreFiles): one commit-log file.
struct StoreFile
{
    QByteArray path;
    std::int64_t size = 0;
    std::int64_t lastModified = 0;
    std::int64_t ageMillis = 0;
    /// When the clean service may delete it (epoch ms).
    std::int64_t expiresAt = 0;
    /// Why it is still there ("not expired", "in use", ...).
    QByteArray reasonKept;

    friend bool operator==(const StoreFile &, const StoreFile &) = default;
};

struct StoreFiles
{
    std::vector<StoreFile> files;
    std::int64_t commitLogMinOffset = 0;
    std::int64_t commitLogMaxOffset = 0;
    bool diskFull = false;
    /// Used fraction of the store's disk, -1 when unknown.
    double diskRatio = -1;
    int fileReservedTimeHours = 0;
    std::int64_t now = 0;
    /// Why the broker refuses writes (empty when it does not).
    QByteArray refuseReason;

    friend bool operator==(const StoreFiles &, const StoreFiles &) = default;
    static Result<StoreFiles> fromJson(QByteArrayView json);
};

/// GET_BROKER_CONFIG / GET_NAMESRV_CONFIG bodies: Java properties text, in the peer's order.
struct ConfigProperties
{
    std::vector<std::pair<QString, QString>> entries;
    /// GET_BROKER_CONFIG's `version` header (counter 0 when absent).
    protocol::DataVersion version;

    /// The value of `key` (the last one when repeated), or a null QString.
    QString value(QStringView key) const;
    bool contains(QStringView key) const;
    friend bool operator==(const ConfigProperties &, const ConfigProperties &) = default;
    static ConfigProperties fromText(QByteArrayView text);
    /// `key=value` lines, escaped as Java's Properties.store does (UPDATE_*_CONFIG bodies).
    static QByteArray toText(const std::vector<std::pair<QString, QString>> &entries);
};

/// A map key that is a MessageQueue: a JSON object (fastjson), or a string holding one.
Result<MessageQueue> messageQueueKey(const protocol::JsonValue &key, const char *what);

} // namespace qrocket::client::admin
