#pragma once

// Request codes of RocketMQ 4.9.x (RequestCode, protocol.md §2.2), complete, with their Java
// names for logs. Codes travel as plain ints in RemotingCommand::code; compare with
// `cmd.code == int(RequestCode::SendMessage)` or use `toInt()`.

#include <QByteArray>

namespace qrocket::protocol {

enum class RequestCode : int {
    SendMessage = 10,
    PullMessage = 11,
    QueryMessage = 12,
    QueryBrokerOffset = 13,
    QueryConsumerOffset = 14,
    UpdateConsumerOffset = 15,
    UpdateAndCreateTopic = 17,
    GetAllTopicConfig = 21,
    GetTopicConfigList = 22,
    GetTopicNameList = 23,
    UpdateBrokerConfig = 25,
    GetBrokerConfig = 26,
    TriggerDeleteFiles = 27,
    GetBrokerRuntimeInfo = 28,
    SearchOffsetByTimestamp = 29,
    GetMaxOffset = 30,
    GetMinOffset = 31,
    GetEarliestMsgStoreTime = 32,
    ViewMessageById = 33,
    HeartBeat = 34,
    UnregisterClient = 35,
    ConsumerSendMsgBack = 36,
    EndTransaction = 37,
    GetConsumerListByGroup = 38,
    CheckTransactionState = 39,
    NotifyConsumerIdsChanged = 40,
    LockBatchMq = 41,
    UnlockBatchMq = 42,
    GetAllConsumerOffset = 43,
    GetAllDelayOffset = 45,
    CheckClientConfig = 46,
    UpdateAndCreateAclConfig = 50,
    DeleteAclConfig = 51,
    GetBrokerClusterAclInfo = 52,
    UpdateGlobalWhiteAddrsConfig = 53,
    PutKvConfig = 100,
    GetKvConfig = 101,
    DeleteKvConfig = 102,
    RegisterBroker = 103,
    UnregisterBroker = 104,
    GetRouteInfoByTopic = 105,
    GetBrokerClusterInfo = 106,
    UpdateAndCreateSubscriptionGroup = 200,
    GetAllSubscriptionGroupConfig = 201,
    GetTopicStatsInfo = 202,
    GetConsumerConnectionList = 203,
    GetProducerConnectionList = 204,
    WipeWritePermOfBroker = 205,
    GetAllTopicListFromNameServer = 206,
    DeleteSubscriptionGroup = 207,
    GetConsumeStats = 208,
    SuspendConsumer = 209,
    ResumeConsumer = 210,
    ResetConsumerOffsetInConsumer = 211,
    ResetConsumerOffsetInBroker = 212,
    AdjustConsumerThreadPool = 213,
    WhoConsumeTheMessage = 214,
    DeleteTopicInBroker = 215,
    DeleteTopicInNamesrv = 216,
    GetKvConfigByValue = 217,
    GetKvListByNamespace = 219,
    ResetConsumerClientOffset = 220,
    GetConsumerStatusFromClient = 221,
    InvokeBrokerToResetOffset = 222,
    InvokeBrokerToGetConsumerStatus = 223,
    GetTopicsByCluster = 224,
    QueryTopicConsumeByWho = 300,
    RegisterFilterServer = 301,
    RegisterMessageFilterClass = 302,
    QueryConsumeTimeSpan = 303,
    GetSystemTopicListFromNs = 304,
    GetSystemTopicListFromBroker = 305,
    CleanExpiredConsumeQueue = 306,
    GetConsumerRunningInfo = 307,
    QueryCorrectionOffset = 308,
    ConsumeMessageDirectly = 309,
    SendMessageV2 = 310,
    GetUnitTopicList = 311,
    GetHasUnitSubTopicList = 312,
    GetHasUnitSubUnUnitTopicList = 313,
    CloneGroupOffset = 314,
    ViewBrokerStatsData = 315,
    CleanUnusedTopic = 316,
    GetBrokerConsumeStats = 317,
    UpdateNamesrvConfig = 318,
    GetNamesrvConfig = 319,
    SendBatchMessage = 320,
    QueryConsumeQueue = 321,
    QueryDataVersion = 322,
    ResumeCheckHalfMessage = 323,
    SendReplyMessage = 324,
    SendReplyMessageV2 = 325,
    PushReplyMessageToClient = 326,
    AddWritePermOfBroker = 327,
    GetAllProducerInfo = 328,
    DeleteExpiredCommitLog = 329,
    // RocketMQ 5's replication status (clientlib/protocol/bodies/habodies.h): no header.
    GetBrokerHaStatus = 907,
    GetBrokerEpochCache = 1007,
    // RocketMQ 5's ACL 2.0 user and ACL requests (protocol.md §9; clientlib/protocol/bodies/
    // authbodies.h has their headers and bodies).
    AuthCreateUser = 3001,
    AuthUpdateUser = 3002,
    AuthDeleteUser = 3003,
    AuthGetUser = 3004,
    AuthListUser = 3005,
    AuthCreateAcl = 3006,
    AuthUpdateAcl = 3007,
    AuthDeleteAcl = 3008,
    AuthGetAcl = 3009,
    AuthListAcl = 3010,
};

constexpr int toInt(RequestCode c)
{
    return static_cast<int>(c);
}

/// The Java constant name ("SEND_MESSAGE"), or nullptr for an unknown code.
const char *requestCodeName(int code);
/// "SEND_MESSAGE(10)" or "UNKNOWN(999)", for logs.
QByteArray requestCodeLabel(int code);

} // namespace qrocket::protocol
