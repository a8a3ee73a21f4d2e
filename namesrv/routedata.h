#pragma once

// Route data of the name server: the body types of clientlib/protocol/bodies/routebodies.h, plus
// the fast writers the name server uses for its answers (protocol.md §3.4–§3.7). Output is
// compact standard JSON with quoted keys and bean fields in alphabetical order, byte-identical to
// the protocol types' toJson() (tests check it).

#include "clientlib/protocol/bodies/routebodies.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <cstdint>
#include <map>
#include <set>

namespace qrocket::namesrv {

using protocol::BrokerData;
using protocol::DataVersion;
using protocol::QueueData;
using protocol::RegisterBrokerBody;
using protocol::TopicConfig;
using protocol::TopicConfigSerializeWrapper;
using protocol::TopicRouteData;

/// RocketMQ PermName bits.
inline constexpr int kPermRead = protocol::Perm::Read;
inline constexpr int kPermWrite = protocol::Perm::Write;
/// TopicSysFlag bits.
inline constexpr int kTopicSysFlagUnit = 0x1;
inline constexpr int kTopicSysFlagUnitSub = 0x2;
/// MixAll.MASTER_ID
inline constexpr std::int64_t kMasterId = protocol::kMasterBrokerId;

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

} // namespace qrocket::namesrv
