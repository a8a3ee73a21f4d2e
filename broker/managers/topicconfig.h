#pragma once

// TopicConfig and DataVersion as RocketMQ 4.9 persists them (topics.json, protocol.md §7.6) and
// sends them (GET_ALL_TOPIC_CONFIG, REGISTER_BROKER). Plain value types with JSON helpers.
//
// TopicConfig JSON (fastjson getter order):
//   {"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"T",
//    "topicSysFlag":0,"writeQueueNums":4}
// DataVersion JSON: {"counter":14,"timestamp":1796013491638}
//
// TODO(protocol bodies): switch to clientlib/protocol/bodies/ once they land, if the shapes match.

#include "clientlib/common/result.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>

#include <cstdint>

namespace qrocket::broker {

/// PermName bits (protocol.md §8.2).
namespace perm {
inline constexpr int kPriority = 0x8;
inline constexpr int kRead = 0x4;
inline constexpr int kWrite = 0x2;
inline constexpr int kInherit = 0x1;
inline bool isReadable(int p)
{
    return p & kRead;
}
inline bool isWriteable(int p)
{
    return p & kWrite;
}
inline bool isInherited(int p)
{
    return p & kInherit;
}
} // namespace perm

enum class TopicFilterType : std::uint8_t { SingleTag, MultiTag };
const char *topicFilterTypeName(TopicFilterType t);
/// "SINGLE_TAG"/"MULTI_TAG" or ordinal 0/1; other text is SINGLE_TAG.
TopicFilterType parseTopicFilterType(const protocol::JsonValue &v);

struct TopicConfig
{
    QByteArray topicName;
    int readQueueNums = 16;
    int writeQueueNums = 16;
    int perm = perm::kRead | perm::kWrite;
    TopicFilterType topicFilterType = TopicFilterType::SingleTag;
    int topicSysFlag = 0;
    bool order = false;

    TopicConfig() = default;
    explicit TopicConfig(QByteArray name, int queueNums = 16, int p = perm::kRead | perm::kWrite)
        : topicName(std::move(name)), readQueueNums(queueNums), writeQueueNums(queueNums), perm(p)
    { }

    void writeJson(protocol::JsonWriter &w) const;
    QByteArray toJson() const;
    /// Missing fields keep their defaults; a missing or empty topicName is filled from
    /// `fallbackName` (the table key). Not an object ⇒ InvalidArgument.
    static Result<TopicConfig> fromJson(
        const protocol::JsonValue &v, QByteArrayView fallbackName = {});

    friend bool operator==(const TopicConfig &, const TopicConfig &) = default;
};

/// RocketMQ's DataVersion: bumped on every change so the name server can skip unchanged
/// registrations (QUERY_DATA_VERSION).
struct DataVersion
{
    std::int64_t timestamp = 0;
    std::int64_t counter = 0;

    static DataVersion now();
    /// timestamp = now, counter + 1.
    void next();

    void writeJson(protocol::JsonWriter &w) const;
    QByteArray toJson() const;
    static DataVersion fromJson(const protocol::JsonValue &v);

    friend bool operator==(const DataVersion &, const DataVersion &) = default;
};

} // namespace qrocket::broker
