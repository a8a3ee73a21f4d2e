#pragma once

// HeartbeatData, the HEART_BEAT (34) body (protocol.md §4.3), read from every client form seen on
// the wire (shared/vectors/frames.jsonl):
//   Java/Go:  enums as names ("CONSUME_PASSIVELY"), subVersion as a number, tagsSet/codeSet given.
//   cpp:      enums as ordinals (consumeType 1), subVersion as a string, no tagsSet/codeSet/
//             classFilterMode/unitMode, no producerDataSet, a trailing newline.
//   ali-ons:  Java's names in JSON.stringify order.
// Missing tagsSet/codeSet are rebuilt from subString ("TagA || TagB"), as FilterAPI would.
// Plain value types; SubscriptionData also writes RocketMQ's JSON (ConsumerConnection bodies).

#include "clientlib/common/result.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>
#include <QList>

#include <cstdint>
#include <vector>

namespace qrocket::broker {

enum class ConsumeType : std::uint8_t { ConsumeActively = 0, ConsumePassively = 1 };
enum class MessageModel : std::uint8_t { Broadcasting = 0, Clustering = 1 };
enum class ConsumeFromWhere : std::uint8_t {
    LastOffset = 0,
    LastOffsetAndFromMinWhenBootFirst = 1,
    MinOffset = 2,
    MaxOffset = 3,
    FirstOffset = 4,
    Timestamp = 5,
};
const char *consumeTypeName(ConsumeType v); // "CONSUME_PASSIVELY"
const char *messageModelName(MessageModel v); // "CLUSTERING"
const char *consumeFromWhereName(ConsumeFromWhere v); // "CONSUME_FROM_LAST_OFFSET"

struct SubscriptionData
{
    static constexpr const char *kSubAll = "*";

    QByteArray topic;
    QByteArray subString = kSubAll;
    QByteArray expressionType = "TAG";
    bool classFilterMode = false;
    QList<QByteArray> tagsSet;
    QList<std::int32_t> codeSet;
    std::int64_t subVersion = 0;

    bool isSubAll() const { return subString.isEmpty() || subString == kSubAll; }
    /// Rebuilds tagsSet and codeSet (Java String.hashCode) from a TAG subString.
    void buildTags();

    void writeJson(protocol::JsonWriter &w) const;
    QByteArray toJson() const;
    static Result<SubscriptionData> fromJson(const protocol::JsonValue &v);

    friend bool operator==(const SubscriptionData &, const SubscriptionData &) = default;
};

struct ConsumerData
{
    QByteArray groupName;
    ConsumeType consumeType = ConsumeType::ConsumePassively;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::LastOffset;
    std::vector<SubscriptionData> subscriptionDataSet;
    bool unitMode = false;
};

struct ProducerData
{
    QByteArray groupName;
};

struct HeartbeatData
{
    QByteArray clientID;
    std::vector<ConsumerData> consumerDataSet;
    std::vector<ProducerData> producerDataSet;

    /// InvalidArgument for bad JSON, a missing clientID or group name, or an unknown enum value.
    static Result<HeartbeatData> fromJson(QByteArrayView json);
};

} // namespace qrocket::broker
