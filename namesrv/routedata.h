#pragma once

// Route data the name server keeps and sends (protocol.md §3.1–§3.7), as plain value types, with
// their JSON/binary bodies. Names (topics, brokers, clusters, addresses) are UTF-8 bytes.
//
// Bodies written here are compact standard JSON with quoted keys and bean fields in alphabetical
// order (what fastjson's SortField gives), which every RocketMQ client accepts (§3.9). Bodies are
// read with a tolerant reader; the compressed REGISTER_BROKER body is a zlib stream (§3.1).
//
// These are local to the name server until clientlib/protocol/bodies/ has them.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace qrocket::namesrv {

/// RocketMQ PermName bits.
inline constexpr int kPermPriority = 0x8;
inline constexpr int kPermRead = 0x4;
inline constexpr int kPermWrite = 0x2;
inline constexpr int kPermInherit = 0x1;
/// TopicSysFlag bits.
inline constexpr int kTopicSysFlagUnit = 0x1;
inline constexpr int kTopicSysFlagUnitSub = 0x2;
/// MixAll.MASTER_ID
inline constexpr std::int64_t kMasterId = 0;

struct DataVersion
{
    std::int64_t timestamp = 0;
    std::int64_t counter = 0;

    bool operator==(const DataVersion &) const = default;
    /// `{"counter":N,"timestamp":T}`
    QByteArray toJson() const;
    static Result<DataVersion> fromJson(QByteArrayView json);
};

/// The parts of a broker's TopicConfig the name server uses.
struct TopicConfig
{
    QByteArray topicName;
    int readQueueNums = 16;
    int writeQueueNums = 16;
    int perm = kPermRead | kPermWrite;
    int topicSysFlag = 0;
    bool order = false;
    QByteArray topicFilterType = QByteArrayLiteral("SINGLE_TAG");
};

struct QueueData
{
    QByteArray brokerName;
    int readQueueNums = 0;
    int writeQueueNums = 0;
    int perm = 0;
    int topicSysFlag = 0;

    bool operator==(const QueueData &) const = default;
};

struct BrokerData
{
    QByteArray cluster;
    QByteArray brokerName;
    std::map<std::int64_t, QByteArray> brokerAddrs; // brokerId -> "ip:port"
};

struct TopicRouteData
{
    QByteArray orderTopicConf; // empty = absent
    QList<QueueData> queueDatas;
    QList<BrokerData> brokerDatas;
    std::map<QByteArray, QList<QByteArray>> filterServerTable; // broker addr -> filter servers

    QByteArray toJson() const;
    static Result<TopicRouteData> fromJson(QByteArrayView json);
};

/// RegisterBrokerBody: a TopicConfigSerializeWrapper plus the filter server list.
struct RegisterBrokerBody
{
    DataVersion dataVersion;
    std::map<QByteArray, TopicConfig> topicConfigTable;
    QList<QByteArray> filterServerList;

    /// The JSON body of version >= 37 brokers, or (`wrapperOnly`) the bare
    /// TopicConfigSerializeWrapper older brokers send.
    static Result<RegisterBrokerBody> fromJson(QByteArrayView json, bool wrapperOnly = false);
    /// The zlib body of `compressed=true` registrations; `maxInflated` caps the plaintext size.
    static Result<RegisterBrokerBody> fromCompressed(
        QByteArrayView body, qsizetype maxInflated = 64 * 1024 * 1024);
    QByteArray toJson() const;
    /// The compressed form (as RocketMQ brokers write it), for tests and tools.
    QByteArray toCompressed() const;
};

/// ClusterInfo body of GET_BROKER_CLUSTER_INFO.
QByteArray clusterInfoJson(const std::map<QByteArray, BrokerData> &brokerAddrTable,
    const std::map<QByteArray, std::set<QByteArray>> &clusterAddrTable);
/// TopicList body: `{"brokerAddr":"…","topicList":[…]}` (brokerAddr only when not empty).
QByteArray topicListJson(const QList<QByteArray> &topics, QByteArrayView brokerAddr = {});
/// KVTable body: `{"table":{k:v}}`.
QByteArray kvTableJson(const std::map<QByteArray, QByteArray> &table);

/// Append one QueueData / BrokerData object (the pieces of TopicRouteData::toJson()).
void appendQueueData(QByteArray &out, const QueueData &q);
void appendBrokerData(QByteArray &out, const BrokerData &b);

/// Appends `s` as a quoted JSON string (escaping `"`, `\` and control characters).
void appendJsonString(QByteArray &out, QByteArrayView s);

} // namespace qrocket::namesrv
