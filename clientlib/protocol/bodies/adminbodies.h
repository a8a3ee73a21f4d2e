#pragma once

// The admin requests' JSON bodies (protocol.md §3, §4.9), one struct each, with the writer the
// broker answers with and the tolerant reader the client and the tools parse them with.
//
// Writers write as RocketMQ 4.9's fastjson does, since Java admin tools read our broker: keys in
// alphabetical (getter) order, enums by name, and maps keyed by a MessageQueue written with the
// key as a JSON object (§3.9.3). Readers accept that and what other peers write (integer keys,
// enums by name or ordinal, numbers as strings, a MessageQueue key quoted as a string) with the
// tolerant reader of json.h: unknown keys are ignored, a missing field keeps its default, and a
// body that is not JSON or has a field of the wrong shape is an InvalidArgument naming the body
// and the field (never a crash, never a partial value).
//
//   TopicStatsTable     {"offsetTable":{MQ:{"lastUpdateTimestamp":t,"maxOffset":M,"minOffset":m}}}
//   ConsumeStats        {"consumeTps":1.5,"offsetTable":{MQ:{"brokerOffset":M,"consumerOffset":C,
//                        "lastTimestamp":t}}}
//   ConsumeStatsList    {"brokerAddr":"..","consumeStatsList":[{"G":[ConsumeStats]}],"totalDiff":N}
//   ResetOffsetBody     {"offsetTable":{MQ:offset}}
//   GroupList           {"groupList":["G"]}
//   ConsumerConnection  {"connectionSet":[Connection],"consumeFromWhere":"..","consumeType":"..",
//                        "messageModel":"..","subscriptionTable":{"T":SubscriptionData}}
//   ProducerConnection  {"connectionSet":[{"clientAddr":..,"clientId":..,"language":..,
//                        "version":..}]}
//   SubscriptionGroupConfig {"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,
//                        "consumeFromMinEnable":true,"groupName":"G",
//                        "notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,
//                        "retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}
//   SubscriptionGroupWrapper {"dataVersion":{..},"subscriptionGroupTable":{"G":{..}}}
//
// The consumers' and the broker's runtime reports are in runtimebodies.h. Plain value types:
// copy them, move them, use them from any thread.

#include "clientlib/common/result.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <map>
#include <vector>

namespace qrocket::protocol {

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
    QByteArray toJson() const;
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
    void write(JsonWriter &w) const;
    QByteArray toJson() const;
    static Result<ConsumeStats> fromJson(QByteArrayView json);
    static Result<ConsumeStats> fromJsonValue(const JsonValue &v);
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
    QByteArray toJson() const;
    static Result<ConsumeStatsList> fromJson(QByteArrayView json);
};

/// INVOKE_BROKER_TO_RESET_OFFSET response / RESET_CONSUMER_CLIENT_OFFSET body.
struct ResetOffsetBody
{
    std::map<MessageQueue, std::int64_t> offsetTable;

    friend bool operator==(const ResetOffsetBody &, const ResetOffsetBody &) = default;
    QByteArray toJson() const;
    static Result<ResetOffsetBody> fromJson(QByteArrayView json);
};

/// QUERY_TOPIC_CONSUME_BY_WHO.
struct GroupList
{
    std::vector<QByteArray> groupList;

    friend bool operator==(const GroupList &, const GroupList &) = default;
    QByteArray toJson() const;
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
    void write(JsonWriter &w) const;
    static Result<Connection> fromJsonValue(const JsonValue &v);
};

struct ConsumerConnection
{
    std::vector<Connection> connectionSet;
    /// topic -> subscription.
    std::map<QByteArray, SubscriptionData> subscriptionTable;
    ConsumeType consumeType = ConsumeType::ConsumePassively;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::ConsumeFromLastOffset;

    friend bool operator==(const ConsumerConnection &, const ConsumerConnection &) = default;
    QByteArray toJson() const;
    static Result<ConsumerConnection> fromJson(QByteArrayView json);
};

struct ProducerConnection
{
    std::vector<Connection> connectionSet;

    friend bool operator==(const ProducerConnection &, const ProducerConnection &) = default;
    QByteArray toJson() const;
    static Result<ProducerConnection> fromJson(QByteArrayView json);
};

/// A consumer group's settings on a broker (RocketMQ 4.9's SubscriptionGroupConfig), as the
/// broker persists it in subscriptionGroup.json and receives it in
/// UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (§7.6); the defaults are RocketMQ's.
struct SubscriptionGroupConfig
{
    QByteArray groupName;
    bool consumeEnable = true;
    bool consumeFromMinEnable = true;
    bool consumeBroadcastEnable = true;
    /// RocketMQ 5's FIFO group (SubscriptionGroupConfig.consumeMessageOrderly): POP consumers
    /// of it (the gRPC SDKs) receive each queue's messages in order, the next one only after
    /// the previous was acknowledged. Written to JSON only when true, so a group without it is
    /// byte for byte what RocketMQ 4.9 writes.
    bool consumeMessageOrderly = false;
    int retryQueueNums = 1;
    int retryMaxTimes = 16;
    std::int64_t brokerId = 0;
    std::int64_t whichBrokerWhenConsumeSlowly = 1;
    bool notifyConsumerIdsChangedEnable = true;

    SubscriptionGroupConfig() = default;
    explicit SubscriptionGroupConfig(QByteArray name) : groupName(std::move(name)) { }
    friend bool operator==(const SubscriptionGroupConfig &, const SubscriptionGroupConfig &)
        = default;
    void write(JsonWriter &w) const;
    /// The UPDATE_AND_CREATE_SUBSCRIPTIONGROUP body.
    QByteArray toJson() const;
    /// Missing fields keep their defaults; a missing or empty groupName is `fallbackName`.
    static Result<SubscriptionGroupConfig> fromJsonValue(
        const JsonValue &v, QByteArrayView fallbackName = {});
    static Result<SubscriptionGroupConfig> fromJson(QByteArrayView json);
};

/// GET_ALL_SUBSCRIPTIONGROUP_CONFIG.
struct SubscriptionGroupWrapper
{
    std::map<QByteArray, SubscriptionGroupConfig> subscriptionGroupTable;
    DataVersion dataVersion;

    friend bool operator==(const SubscriptionGroupWrapper &, const SubscriptionGroupWrapper &)
        = default;
    QByteArray toJson() const;
    static Result<SubscriptionGroupWrapper> fromJson(QByteArrayView json);
};

/// A map key that is a MessageQueue: a JSON object (fastjson), or a string holding one.
Result<MessageQueue> messageQueueKey(const JsonValue &key, const char *what);

} // namespace qrocket::protocol
