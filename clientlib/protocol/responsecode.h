#pragma once

// Response codes of RocketMQ 4.9.x (RemotingSysResponseCode + ResponseCode, protocol.md §2.1),
// with their Java names for logs.

#include <QByteArray>

namespace qrocket::protocol {

enum class ResponseCode : int {
    Success = 0,
    SystemError = 1,
    SystemBusy = 2,
    RequestCodeNotSupported = 3,
    TransactionFailed = 4,
    FlushDiskTimeout = 10,
    SlaveNotAvailable = 11,
    FlushSlaveTimeout = 12,
    MessageIllegal = 13,
    ServiceNotAvailable = 14,
    VersionNotSupported = 15,
    NoPermission = 16,
    TopicNotExist = 17,
    TopicExistAlready = 18,
    PullNotFound = 19,
    PullRetryImmediately = 20,
    PullOffsetMoved = 21,
    QueryNotFound = 22,
    SubscriptionParseFailed = 23,
    SubscriptionNotExist = 24,
    SubscriptionNotLatest = 25,
    SubscriptionGroupNotExist = 26,
    FilterDataNotExist = 27,
    FilterDataNotLatest = 28,
    InvalidParameter = 29, // RocketMQ 5
    TransactionShouldCommit = 200,
    TransactionShouldRollback = 201,
    TransactionStateUnknow = 202,
    TransactionStateGroupWrong = 203,
    NoBuyerId = 204,
    NotInCurrentUnit = 205,
    ConsumerNotOnline = 206,
    ConsumeMsgTimeout = 207,
    NoMessage = 208,
    UpdateAndCreateAclConfigFailed = 209,
    DeleteAclConfigFailed = 210,
    UpdateGlobalWhiteAddrsConfigFailed = 211,
    FlowControl = 215,
};

constexpr int toInt(ResponseCode c)
{
    return static_cast<int>(c);
}

/// The Java constant name ("TOPIC_NOT_EXIST"), or nullptr for an unknown code.
const char *responseCodeName(int code);
/// "TOPIC_NOT_EXIST(17)" or "UNKNOWN(999)", for logs.
QByteArray responseCodeLabel(int code);

} // namespace qrocket::protocol
