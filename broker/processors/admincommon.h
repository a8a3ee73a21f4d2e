#pragma once

// Request and response codes the broker-extras processors serve or answer with (protocol.md §2),
// and small helpers shared by them (send-back, query/view, admin).
//
// TODO(protocol): switch to clientlib/protocol's request/response code headers once they land.

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QString>

namespace qrocket::broker {

namespace reqcode {
inline constexpr int kQueryMessage = 12;
inline constexpr int kUpdateAndCreateTopic = 17;
inline constexpr int kGetAllTopicConfig = 21;
inline constexpr int kUpdateBrokerConfig = 25;
inline constexpr int kGetBrokerConfig = 26;
inline constexpr int kGetBrokerRuntimeInfo = 28;
inline constexpr int kViewMessageById = 33;
inline constexpr int kConsumerSendMsgBack = 36;
inline constexpr int kGetAllConsumerOffset = 43;
inline constexpr int kGetAllDelayOffset = 45;
inline constexpr int kUpdateAndCreateSubscriptionGroup = 200;
inline constexpr int kGetAllSubscriptionGroupConfig = 201;
inline constexpr int kGetTopicStatsInfo = 202;
inline constexpr int kGetConsumerConnectionList = 203;
inline constexpr int kGetProducerConnectionList = 204;
inline constexpr int kDeleteSubscriptionGroup = 207;
inline constexpr int kGetConsumeStats = 208;
inline constexpr int kDeleteTopicInBroker = 215;
inline constexpr int kResetConsumerClientOffset = 220;
inline constexpr int kInvokeBrokerToResetOffset = 222;
inline constexpr int kQueryTopicConsumeByWho = 300;
inline constexpr int kGetSystemTopicListFromBroker = 305;
inline constexpr int kCleanExpiredConsumeQueue = 306;
inline constexpr int kGetConsumerRunningInfo = 307;
inline constexpr int kConsumeMessageDirectly = 309;
inline constexpr int kDeleteExpiredCommitLog = 329;
} // namespace reqcode

namespace respcode {
inline constexpr int kSuccess = 0;
inline constexpr int kSystemError = 1;
inline constexpr int kRequestCodeNotSupported = 3;
inline constexpr int kNoPermission = 16;
inline constexpr int kTopicNotExist = 17;
inline constexpr int kQueryNotFound = 22;
inline constexpr int kSubscriptionGroupNotExist = 26;
inline constexpr int kConsumerNotOnline = 206;
inline constexpr int kConsumeMsgTimeout = 207;
} // namespace respcode

/// MQVersion ordinal V3_4_9: from this client version on, CONSUMER_SEND_MSG_BACK's
/// maxReconsumeTimes header field is honoured.
inline constexpr int kVersionV3_4_9 = 121;

inline protocol::RemotingCommand makeResponse(
    const protocol::RemotingCommand &request, int code, QByteArray remark = {})
{
    return protocol::RemotingCommand::createResponse(request, code, std::move(remark));
}

inline QByteArray utf8(const QString &s)
{
    return s.toUtf8();
}

/// Remark for a missing or malformed mandatory header field (RocketMQ's header decode failure).
inline QByteArray missingFieldRemark(QByteArrayView field)
{
    return QByteArrayLiteral("the custom field <") + field.toByteArray()
        + QByteArrayLiteral("> is null");
}

} // namespace qrocket::broker
