#pragma once

// JSON bodies of the name-server and topic-config requests (protocol.md §3, §4.9, §7.6), as plain
// value types. Names (topics, brokers, clusters, addresses) are UTF-8 bytes.
//
// Writing: compact standard JSON, quoted keys, bean fields in alphabetical order (fastjson's
// SortField), which every RocketMQ client reads (§3.9). Reading: the tolerant reader of json.h
// (unquoted integer keys, any key order, numbers as strings, enums as names or ordinals); unknown
// keys are ignored; a missing field keeps its default; a wrong shape is an error naming the field.
//
//   DataVersion                 {"counter":12,"timestamp":1700000000000}
//   TopicConfig {"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG",
//                                "topicName":"T","topicSysFlag":0,"writeQueueNums":4}
//   TopicConfigSerializeWrapper {"dataVersion":{..},"topicConfigTable":{"T":{TopicConfig}}}
//   RegisterBrokerBody          {"filterServerList":[],"topicConfigSerializeWrapper":{..}}
//   QueueData {"brokerName":"b","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}
//   BrokerData                  {"brokerAddrs":{"0":"ip:port"},"brokerName":"b","cluster":"c"}
//                               (+ "grpcPorts":{"0":8081} from QRocket's name server)
//   TopicRouteData              {"brokerDatas":[..],"filterServerTable":{},"orderTopicConf":"..",
//                                "queueDatas":[..]}
//   ClusterInfo {"brokerAddrTable":{"b":{BrokerData}},"clusterAddrTable":{"c":["b"]}} TopicList
//   {"brokerAddr":"..","topicList":["T1"]} KVTable                     {"table":{"k":"v"}}

#include "clientlib/common/result.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace qrocket::protocol {

/// RocketMQ PermName bits (protocol.md §8.2).
namespace Perm {
inline constexpr int Priority = 0x8;
inline constexpr int Read = 0x4;
inline constexpr int Write = 0x2;
inline constexpr int Inherit = 0x1;
inline bool isReadable(int p)
{
    return p & Read;
}
inline bool isWriteable(int p)
{
    return p & Write;
}
inline bool isInherited(int p)
{
    return p & Inherit;
}
} // namespace Perm

/// MixAll.MASTER_ID
inline constexpr std::int64_t kMasterBrokerId = 0;

/// RocketMQ's DataVersion: bumped on every change so the name server can skip unchanged
/// registrations (QUERY_DATA_VERSION).
struct DataVersion
{
    std::int64_t counter = 0;
    std::int64_t timestamp = 0;

    /// counter 0, timestamp now.
    static DataVersion now();
    /// timestamp = now, counter + 1.
    void next();

    friend bool operator==(const DataVersion &, const DataVersion &) = default;
    void write(JsonWriter &w) const;
    QByteArray toJson() const;
    static Result<DataVersion> fromJson(QByteArrayView json);
    static Result<DataVersion> fromJsonValue(const JsonValue &v);
};

enum class TopicFilterType : std::uint8_t { SingleTag, MultiTag };
const char *topicFilterTypeName(TopicFilterType t); // "SINGLE_TAG" / "MULTI_TAG"
/// "MULTI_TAG" or ordinal 1 is MULTI_TAG; anything else SINGLE_TAG.
TopicFilterType parseTopicFilterType(const JsonValue &v);

struct TopicConfig
{
    QByteArray topicName;
    int readQueueNums = 16;
    int writeQueueNums = 16;
    int perm = Perm::Read | Perm::Write;
    TopicFilterType topicFilterType = TopicFilterType::SingleTag;
    int topicSysFlag = 0;
    bool order = false;
    /// RocketMQ 5's topic attributes ("message.type" -> "FIFO"; broker/managers/topicattributes.h).
    /// JSON: "attributes", an object of strings, written (first, in fastjson's order) only when
    /// there are some, so a topic without them is the bytes RocketMQ 4.9 writes.
    std::map<QByteArray, QByteArray> attributes;

    TopicConfig() = default;
    explicit TopicConfig(QByteArray name, int queueNums = 16, int p = Perm::Read | Perm::Write)
        : topicName(std::move(name)), readQueueNums(queueNums), writeQueueNums(queueNums), perm(p)
    { }

    friend bool operator==(const TopicConfig &, const TopicConfig &) = default;
    void write(JsonWriter &w) const;
    QByteArray toJson() const;
    /// Missing fields keep their defaults; a missing or empty topicName is filled from
    /// `fallbackName` (the table key of topics.json). Not an object, or a negative queue count
    /// ⇒ InvalidArgument.
    static Result<TopicConfig> fromJsonValue(const JsonValue &v, QByteArrayView fallbackName = {});
    /// Java TopicConfig.encode(): "name readQ writeQ perm filterType" (sysFlag and order lost;
    /// attributes too: the name server has no use for them). decodeText() also takes RocketMQ 5's
    /// form, which appends the attributes' JSON as a sixth token ("{}" when there are none).
    QByteArray encodeText() const;
    static Result<TopicConfig> decodeText(QByteArrayView text);
};

struct TopicConfigSerializeWrapper
{
    DataVersion dataVersion;
    std::map<QByteArray, TopicConfig> topicConfigTable;

    friend bool operator==(const TopicConfigSerializeWrapper &, const TopicConfigSerializeWrapper &)
        = default;
    void write(JsonWriter &w) const;
    QByteArray toJson() const;
    static Result<TopicConfigSerializeWrapper> fromJson(QByteArrayView json);
    static Result<TopicConfigSerializeWrapper> fromJsonValue(const JsonValue &v);
};

/// REGISTER_BROKER body (§3.1): JSON, or with `compressed=true` a zlib stream of length-prefixed
/// parts (DataVersion JSON, topic count, TopicConfig texts, filter-server JSON array).
struct RegisterBrokerBody
{
    TopicConfigSerializeWrapper topicConfigSerializeWrapper;
    std::vector<QByteArray> filterServerList;

    friend bool operator==(const RegisterBrokerBody &, const RegisterBrokerBody &) = default;
    QByteArray toJson() const;
    static Result<RegisterBrokerBody> fromJson(QByteArrayView json);
    Result<QByteArray> encodeCompressed() const;
    /// `maxInflated` bounds the plaintext size of a hostile body.
    static Result<RegisterBrokerBody> decodeCompressed(
        QByteArrayView body, qsizetype maxInflated = 64 * 1024 * 1024);
    /// Picks the form from the request's `compressed` header field.
    static Result<RegisterBrokerBody> decode(QByteArrayView body, bool compressed);
};

struct QueueData
{
    QByteArray brokerName;
    int readQueueNums = 0;
    int writeQueueNums = 0;
    int perm = 0;
    int topicSysFlag = 0; // read from "topicSynFlag" too (<= 4.8)

    friend bool operator==(const QueueData &, const QueueData &) = default;
    void write(JsonWriter &w) const;
    static Result<QueueData> fromJsonValue(const JsonValue &v);
};

struct BrokerData
{
    QByteArray cluster;
    QByteArray brokerName;
    std::map<std::int64_t, QByteArray> brokerAddrs; // brokerId -> "ip:port"
    /// QRocket's extension: brokerId -> the gRPC port (RocketMQ 5's MessagingService) of the
    /// broker at that id's address, as it registered it. Written as "grpcPorts":{"0":8081} after
    /// the bean fields and only when not empty; RocketMQ's clients skip the unknown field
    /// (fastjson's IgnoreNotMatch, JSON.parse, jsoncpp readers by name).
    std::map<std::int64_t, int> grpcPorts;

    friend bool operator==(const BrokerData &, const BrokerData &) = default;
    void write(JsonWriter &w) const;
    static Result<BrokerData> fromJsonValue(const JsonValue &v);
    /// The master's address (id 0), or a null QByteArray.
    QByteArray masterAddr() const;
};

struct TopicRouteData
{
    QByteArray orderTopicConf; // null = absent
    std::vector<QueueData> queueDatas;
    std::vector<BrokerData> brokerDatas;
    std::map<QByteArray, std::vector<QByteArray>> filterServerTable;

    friend bool operator==(const TopicRouteData &, const TopicRouteData &) = default;
    QByteArray toJson() const;
    static Result<TopicRouteData> fromJson(QByteArrayView json);
};

struct ClusterInfo
{
    std::map<QByteArray, BrokerData> brokerAddrTable; // brokerName -> data
    std::map<QByteArray, std::vector<QByteArray>> clusterAddrTable; // cluster -> brokerNames

    friend bool operator==(const ClusterInfo &, const ClusterInfo &) = default;
    QByteArray toJson() const;
    static Result<ClusterInfo> fromJson(QByteArrayView json);
};

struct TopicList
{
    std::vector<QByteArray> topicList;
    QByteArray brokerAddr; // null = absent

    friend bool operator==(const TopicList &, const TopicList &) = default;
    QByteArray toJson() const;
    static Result<TopicList> fromJson(QByteArrayView json);
};

struct KVTable
{
    std::map<QByteArray, QByteArray> table;

    friend bool operator==(const KVTable &, const KVTable &) = default;
    QByteArray toJson() const;
    /// The same body with the entries in the given order (a broker's runtime table, written in
    /// the order it is gathered).
    static QByteArray toJson(const std::vector<std::pair<QByteArray, QByteArray>> &entries);
    static Result<KVTable> fromJson(QByteArrayView json);
};

namespace bodyjson {
/// Shared helpers for body readers: parse + "must be an object" with the body's name in errors.
Result<JsonValue> parseObject(QByteArrayView json, const char *what);
Status wrongType(const char *what, const char *field, const char *expected);
/// Array of strings (scalars converted to text); error when not an array.
Result<std::vector<QByteArray>> stringList(const JsonValue &v, const char *what, const char *field);
} // namespace bodyjson

} // namespace qrocket::protocol
