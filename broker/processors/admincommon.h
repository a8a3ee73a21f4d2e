#pragma once

// The protocol's request/response code enums for the broker-extras processors (send-back,
// query/view, admin), and small helpers shared by them.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

#include <QByteArray>
#include <QString>

namespace qrocket::broker {

using protocol::RequestCode;
using protocol::ResponseCode;

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
