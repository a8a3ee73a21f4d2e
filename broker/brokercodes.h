#pragma once

// Request and response codes the broker serves and answers (protocol.md §2), plus the small
// helpers every broker processor uses to build replies. Header-only; no state.

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>

#include <initializer_list>

namespace qrocket::broker {

namespace requestcode {
inline constexpr int kSendMessage = 10;
inline constexpr int kPullMessage = 11;
inline constexpr int kQueryMessage = 12;
inline constexpr int kQueryConsumerOffset = 14;
inline constexpr int kUpdateConsumerOffset = 15;
inline constexpr int kSearchOffsetByTimestamp = 29;
inline constexpr int kGetMaxOffset = 30;
inline constexpr int kGetMinOffset = 31;
inline constexpr int kGetEarliestMsgStoreTime = 32;
inline constexpr int kViewMessageById = 33;
inline constexpr int kHeartBeat = 34;
inline constexpr int kUnregisterClient = 35;
inline constexpr int kConsumerSendMsgBack = 36;
inline constexpr int kEndTransaction = 37;
inline constexpr int kGetConsumerListByGroup = 38;
inline constexpr int kNotifyConsumerIdsChanged = 40;
inline constexpr int kRegisterBroker = 103;
inline constexpr int kUnregisterBroker = 104;
inline constexpr int kSendMessageV2 = 310;
inline constexpr int kSendBatchMessage = 320;
inline constexpr int kQueryDataVersion = 322;
} // namespace requestcode

namespace responsecode {
inline constexpr int kSuccess = 0;
inline constexpr int kSystemError = 1;
inline constexpr int kSystemBusy = 2;
inline constexpr int kFlushDiskTimeout = 10;
inline constexpr int kSlaveNotAvailable = 11;
inline constexpr int kFlushSlaveTimeout = 12;
inline constexpr int kMessageIllegal = 13;
inline constexpr int kServiceNotAvailable = 14;
inline constexpr int kNoPermission = 16;
inline constexpr int kTopicNotExist = 17;
inline constexpr int kPullNotFound = 19;
inline constexpr int kPullRetryImmediately = 20;
inline constexpr int kPullOffsetMoved = 21;
inline constexpr int kQueryNotFound = 22;
inline constexpr int kSubscriptionParseFailed = 23;
inline constexpr int kSubscriptionNotExist = 24;
inline constexpr int kSubscriptionNotLatest = 25;
inline constexpr int kSubscriptionGroupNotExist = 26;
} // namespace responsecode

/// RocketMQ's MQVersion ordinal of V3_4_9: from this request version on, SEND_MESSAGE's
/// maxReconsumeTimes (`l`) and CONSUMER_SEND_MSG_BACK's maxReconsumeTimes are honoured.
inline constexpr int kVersionMaxReconsumeTimes = 121;

inline protocol::RemotingCommand makeReply(
    const protocol::RemotingCommand &request, int code, QByteArray remark = {})
{
    return protocol::RemotingCommand::createResponse(request, code, std::move(remark));
}

/// The first required ext field that is absent, worded as RocketMQ's header decoder words it;
/// empty when all are present.
inline QByteArray missingExtField(
    const protocol::RemotingCommand &request, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        if (!request.hasExt(QByteArrayView(name)))
            return QByteArrayLiteral("the custom field <") + name + QByteArrayLiteral("> is null");
    }
    return {};
}

} // namespace qrocket::broker
