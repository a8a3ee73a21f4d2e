#pragma once

// QRocket extension request codes: requests RocketMQ does not have, served by QRocket daemons.
//
// Range: 9000-9999, reserved for QRocket. RocketMQ 4.x request codes end below 400 and 5.x below
// 1100 (controller/proxy codes 1001-1010-ish, static-topic codes 513-523, ...), so the range cannot
// collide with a stock peer. A stock RocketMQ server answers these with 3
// REQUEST_CODE_NOT_SUPPORTED (or, for a Java name server, nothing), so callers must treat "not
// supported" or a timeout as "no QRocket extension here".
//
//   9000-9099  name server
//   9100-9199  broker
//   9200-9999  unassigned
//
// Bodies are compact standard JSON; extFields values are strings, as for every RocketMQ header.

namespace qrocket::protocol::extensioncode {

inline constexpr int kFirst = 9000;
inline constexpr int kLast = 9999;

/// Name server: each live broker's last registration time and age.
/// Request: no ext fields, no body.
/// Response: 0 SUCCESS, body
///   {"brokerChannelExpiredTime":120000,"brokers":[{"ageMillis":1234,"brokerAddr":"ip:port",
///     "brokerId":0,"brokerName":"broker-a","clusterName":"DefaultCluster",
///     "dataVersion":{"counter":3,"timestamp":1700000000000},"haServerAddr":"ip:port",
///     "lastUpdateTimestamp":1700000001234}],"now":1700000002468}
/// `lastUpdateTimestamp` and `now` are the name server's wall clock (epoch ms); `ageMillis` is
/// measured on its monotonic clock, so it stays right when the wall clock jumps.
inline constexpr int kGetBrokerLiveness = 9001;

/// Name server: its runtime figures (RocketMQ's name server has no runtime info request; this is
/// GET_BROKER_RUNTIME_INFO's shape for it). Read-only.
/// Request: no ext fields, no body.
/// Response: 0 SUCCESS, body a KVTable {"table":{...}}, values strings:
///   bootTimestamp (epoch ms), runtime ("[ 0 days, 1 hours, 2 minutes, 3 seconds ]"),
///   processRssBytes, processPeakRssBytes (VmRSS / VmHWM; -1 when unknown), topicCount,
///   brokersLive, registrationsTotal (REGISTER_BROKER requests since start).
inline constexpr int kGetNamesrvRuntimeInfo = 9002;

/// Name server: why a broker is late or gone (explain, bodies/explainbodies.h). Read-only.
/// Request: ext field "brokerName"; no body. Response: 0 SUCCESS, body an ExplainBody
/// (question "broker"): each registered address's last registration age against
/// brokerChannelExpiredTime, each address removed since start (liveness scan, closed connection,
/// UNREGISTER_BROKER) with when and why, and the last refused registration's error.
inline constexpr int kExplainBroker = 9003;

/// Broker: the store's commit-log files with size, age, expiry and why each is kept (console).
/// Request: no ext fields, no body.
/// Response: 0 SUCCESS, body
///   {"commitLogMaxOffset":123,"commitLogMinOffset":0,"diskFull":false,"diskRatio":0.23,
///    "fileReservedTimeHours":72,"files":[{"ageMillis":5000,"expiresAt":1700259200000,
///    "lastModified":1700000000000,"path":"/store/commitlog/00000000000000000000",
///    "reasonKept":"not expired","size":1073741824}],"now":1700000005000,"refuseReason":""}
/// Times are the broker's wall clock (epoch ms); diskRatio is -1 when unknown.
inline constexpr int kGetStoreFiles = 9101;

/// Broker: the whole ACL 2.0 store (users with their passwords, and ACLs), for a slave to copy
/// its master's (SlaveSynchronize). Admin accounts and super users only, and only with
/// aclEnable=true (16 NO_PERMISSION otherwise): the passwords are what signatures are checked
/// with, so the slave signs this request with innerAccessKey/innerSecretKey.
/// Request: no ext fields, no body.
/// Response: 0 SUCCESS, body the broker's auth.json:
///   {"version":1,"users":[{"username":"alice","password":"...","userType":"Normal",
///    "userStatus":"enable","imported":false}],"acls":[<AclInfo>]}
inline constexpr int kGetAuthMetadata = 9102;

/// Broker: POP state per (group, topic): the group's PULL/POP mode, messages in flight
/// (invisible), open checkpoints and the revive backlog (in flight past their invisible time,
/// not revived yet), for `qrocket-admin popStats` and the console. Read-only.
/// Request: optional ext field "consumerGroup" (only that group); no body.
/// Response: 0 SUCCESS, body (PopStatsBody, clientlib/protocol/bodies/popbodies.h)
///   {"checkPoints":2,"groups":[{"checkPoints":2,"group":"G","inFlight":5,"mode":"POP",
///     "nextReviveAt":1700000060000,"reviveBacklog":0,"topic":"T"}],"inFlight":5,
///    "now":1700000000000,"reviveBacklog":0}
/// Every group with a mode set or POP state is listed (mode PULL when never set).
inline constexpr int kGetPopStats = 9103;

/// Broker explain requests (bodies/explainbodies.h): 0 SUCCESS with an ExplainBody, or 1 with a
/// remark for a missing field, 17 TOPIC_NOT_EXIST / 26 SUBSCRIPTION_GROUP_NOT_EXIST for unknown
/// names. Reads; kExplainSend is an admin code under ACL (it shows any account's rule).
/// kExplainGroup: ext "consumerGroup", optional "topic". Why the group does not consume: live
///   consumers, differing subscriptions, consumeEnable, queue locks, offsets, POP in flight;
///   each live member as a "member" finding (client id), which the client Admin then asks for
///   its running info (its own flow control: pullThresholdForQueue).
/// kExplainCleanup: no fields. Why each commit-log file is kept: fileReservedTime, deleteWhen,
///   readers, diskMaxUsedSpaceRatio.
/// kExplainSend: ext "topic", optional "accessKey". Why sends are refused: broker and topic
///   permissions, the ACL rule of the key, the flow-control marks and their current values.
inline constexpr int kExplainGroup = 9104;
inline constexpr int kExplainCleanup = 9105;
inline constexpr int kExplainSend = 9106;

inline constexpr bool isExtension(int code)
{
    return code >= kFirst && code <= kLast;
}

} // namespace qrocket::protocol::extensioncode
