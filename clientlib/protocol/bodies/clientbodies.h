#pragma once

// JSON bodies exchanged with clients (protocol.md §4.3, §4.4, §4.7): HeartbeatData, ConsumerIdList,
// MessageQueue and the LOCK/UNLOCK_BATCH_MQ bodies. Same reading/writing rules as
// routebodies.h.
//
//   HeartbeatData  {"clientID":"ip@pid#nanos","consumerDataSet":[ConsumerData],
//                   "producerDataSet":[{"groupName":"P"}]}
//   ConsumerData {"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY",
//                   "groupName":"G","messageModel":"CLUSTERING","subscriptionDataSet":[..],
//                   "unitMode":false}
//   SubscriptionData {"classFilterMode":false,"codeSet":[2598919],"expressionType":"TAG",
//                   "subString":"TagA","subVersion":1700000000000,"tagsSet":["TagA"],"topic":"T"}
//   ConsumerIdList {"consumerIdList":["id1","id2"]}
//   MessageQueue   {"brokerName":"b","queueId":0,"topic":"T"}
//
// HeartbeatData is read in every client form seen on the wire (tests/data/vectors/frames.jsonl):
//   Java/Go:  enums as names ("CONSUME_PASSIVELY"), subVersion as a number, tagsSet/codeSet given.
//   cpp:      enums as ordinals (consumeType 1), subVersion as a string, no tagsSet/codeSet/
//             classFilterMode/unitMode, no producerDataSet, a trailing newline.
//   ali-ons:  Java's names in JSON.stringify order.
// Missing tagsSet/codeSet are rebuilt from subString ("TagA || TagB"), as FilterAPI would. The
// broker reads heartbeats with it; clients and tests write them.

#include "clientlib/protocol/bodies/routebodies.h"

#include <optional>
#include <tuple>

namespace qrocket::protocol {

enum class ConsumeType : std::uint8_t { ConsumeActively = 0, ConsumePassively = 1 };
enum class MessageModel : std::uint8_t { Broadcasting = 0, Clustering = 1 };
enum class ConsumeFromWhere : std::uint8_t {
    ConsumeFromLastOffset = 0,
    ConsumeFromLastOffsetAndFromMinWhenBootFirst = 1,
    ConsumeFromMinOffset = 2,
    ConsumeFromMaxOffset = 3,
    ConsumeFromFirstOffset = 4,
    ConsumeFromTimestamp = 5,
};
const char *consumeTypeName(ConsumeType v);
const char *messageModelName(MessageModel v);
const char *consumeFromWhereName(ConsumeFromWhere v);

struct SubscriptionData
{
    static constexpr const char *kSubAll = "*";

    QByteArray topic;
    QByteArray subString = QByteArrayLiteral("*");
    std::vector<QByteArray> tagsSet;
    std::vector<std::int32_t> codeSet;
    std::int64_t subVersion = 0;
    QByteArray expressionType = QByteArrayLiteral("TAG");
    bool classFilterMode = false;

    bool isSubAll() const { return subString.isEmpty() || subString == kSubAll; }
    /// Rebuilds tagsSet and codeSet (Java String.hashCode) from a TAG subString.
    void buildTags();

    friend bool operator==(const SubscriptionData &, const SubscriptionData &) = default;
    void write(JsonWriter &w) const;
    QByteArray toJson() const;
    /// InvalidArgument when it is not an object or has no topic.
    static Result<SubscriptionData> fromJsonValue(const JsonValue &v);
};

struct ConsumerData
{
    QByteArray groupName;
    ConsumeType consumeType = ConsumeType::ConsumePassively;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::ConsumeFromLastOffset;
    std::vector<SubscriptionData> subscriptionDataSet;
    bool unitMode = false;

    friend bool operator==(const ConsumerData &, const ConsumerData &) = default;
    void write(JsonWriter &w) const;
    /// InvalidArgument when it is not an object, has no groupName or an unknown enum value.
    static Result<ConsumerData> fromJsonValue(const JsonValue &v);
};

struct ProducerData
{
    QByteArray groupName;

    friend bool operator==(const ProducerData &, const ProducerData &) = default;
};

struct HeartbeatData
{
    QByteArray clientID;
    std::vector<ProducerData> producerDataSet;
    std::vector<ConsumerData> consumerDataSet;

    friend bool operator==(const HeartbeatData &, const HeartbeatData &) = default;
    QByteArray toJson() const;
    /// InvalidArgument for bad JSON, a missing clientID, consumer or producer group name or
    /// subscription topic, or an unknown enum value.
    static Result<HeartbeatData> fromJson(QByteArrayView json);
};

struct ConsumerIdList
{
    std::vector<QByteArray> consumerIdList;

    friend bool operator==(const ConsumerIdList &, const ConsumerIdList &) = default;
    QByteArray toJson() const;
    static Result<ConsumerIdList> fromJson(QByteArrayView json);
};

struct MessageQueue
{
    QByteArray topic;
    QByteArray brokerName;
    std::int32_t queueId = 0;

    friend bool operator==(const MessageQueue &, const MessageQueue &) = default;
    /// Java MessageQueue.compareTo order: topic, broker name, queue id.
    friend bool operator<(const MessageQueue &a, const MessageQueue &b)
    {
        return std::tie(a.topic, a.brokerName, a.queueId)
            < std::tie(b.topic, b.brokerName, b.queueId);
    }
    void write(JsonWriter &w) const;
    /// Compact JSON, also usable as a fastjson map key via JsonWriter::rawKey (§3.9).
    QByteArray toJson() const;
    static Result<MessageQueue> fromJsonValue(const JsonValue &v);
};

/// CHECK_CLIENT_CONFIG (46) request body: before it starts, a consumer with a SQL92 subscription
/// asks each broker whether it takes it.
struct CheckClientRequestBody
{
    QByteArray clientId;
    QByteArray group;
    std::optional<SubscriptionData> subscriptionData;

    friend bool operator==(const CheckClientRequestBody &, const CheckClientRequestBody &)
        = default;
    QByteArray toJson() const;
    /// InvalidArgument for bad JSON or a subscriptionData that SubscriptionData refuses.
    static Result<CheckClientRequestBody> fromJson(QByteArrayView json);
};

/// LOCK_BATCH_MQ / UNLOCK_BATCH_MQ request body.
struct LockBatchRequestBody
{
    QByteArray consumerGroup;
    QByteArray clientId;
    std::vector<MessageQueue> mqSet;

    friend bool operator==(const LockBatchRequestBody &, const LockBatchRequestBody &) = default;
    QByteArray toJson() const;
    static Result<LockBatchRequestBody> fromJson(QByteArrayView json);
};

/// LOCK_BATCH_MQ response body.
struct LockBatchResponseBody
{
    std::vector<MessageQueue> lockOKMQSet;

    friend bool operator==(const LockBatchResponseBody &, const LockBatchResponseBody &) = default;
    QByteArray toJson() const;
    static Result<LockBatchResponseBody> fromJson(QByteArrayView json);
};

} // namespace qrocket::protocol
