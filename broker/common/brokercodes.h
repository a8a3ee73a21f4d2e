#pragma once

// The protocol's request/response code enums brought into the broker's namespace, plus the small
// helpers every broker processor uses to build replies. Header-only; no state.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

#include <QByteArray>

#include <initializer_list>

namespace qrocket::broker {

using protocol::RequestCode;
using protocol::ResponseCode;
// Compare and switch with toInt(RequestCode::X) / toInt(ResponseCode::X) (found by ADL).

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
