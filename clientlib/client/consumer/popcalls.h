#pragma once

// What the SimpleConsumer and the push consumer's POP mode share of RocketMQ 5's POP requests:
// POP_MESSAGE's header and answer (every message of the answer carries its receipt handle in
// the POP_CK property), and ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME built from a message's
// handle. Pure functions over protocol types; the callers send the requests.

#include "clientlib/client/clientapi.h"
#include "clientlib/client/message.h"
#include "clientlib/protocol/headers/popheaders.h"

#include <vector>

namespace qrocket::client::pop {

inline constexpr QByteArrayView kPopCk = "POP_CK";
inline constexpr std::int64_t kMaxInvisibleMillis = 7LL * 24 * 3600 * 1000;

/// POP_MESSAGE for `group` of `topic` (`queueId` -1: any queue of the broker) with `sub`'s
/// filter; `fromFirst`: a queue the group never consumed starts at its first message.
protocol::PopMessageRequestHeader popHeader(const QByteArray &group,
    const protocol::SubscriptionData &sub, int queueId, int maxMessages, int invisibleMillis,
    int pollMillis, bool fromFirst);

/// POP_MESSAGE's answer from `brokerName`: no messages for POLLING_TIMEOUT / PULL_NOT_FOUND,
/// the broker's error for another code, else the messages with their receipt handles.
Result<std::vector<MessageExt>> parsePopResponse(
    const protocol::RemotingCommand &response, const QByteArray &brokerName);

/// The receipt handle `message` carries; InvalidArgument when it has none (not popped).
Result<protocol::ExtraInfo> receiptOf(const MessageExt &message);
/// popTime + invisibleTime <= `nowMillis`: the broker may hand the message out again.
bool invisibleTimeOver(const protocol::ExtraInfo &handle, std::int64_t nowMillis);

protocol::AckMessageRequestHeader ackHeader(
    const QByteArray &group, const MessageExt &message, const protocol::ExtraInfo &handle);
protocol::ChangeInvisibleTimeRequestHeader changeInvisibleHeader(const QByteArray &group,
    const MessageExt &message, const protocol::ExtraInfo &handle, int invisibleMillis);
/// Gives `message` the handle of a successful CHANGE_MESSAGE_INVISIBLETIME `response` (the old
/// handle no longer acks it).
Status applyChangedHandle(
    const protocol::RemotingCommand &response, MessageExt &message, protocol::ExtraInfo handle);

} // namespace qrocket::client::pop
