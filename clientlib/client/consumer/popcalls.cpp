#include "clientlib/client/consumer/popcalls.h"

#include "clientlib/client/threads.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/responsecode.h"

#include <algorithm>

namespace qrocket::client::pop {

namespace popcode = protocol::popcode;
using protocol::ResponseCode;
using protocol::toInt;

protocol::PopMessageRequestHeader popHeader(const QByteArray &group,
    const protocol::SubscriptionData &sub, int queueId, int maxMessages, int invisibleMillis,
    int pollMillis, bool fromFirst)
{
    protocol::PopMessageRequestHeader h;
    h.consumerGroup = group;
    h.topic = sub.topic;
    h.queueId = queueId;
    h.maxMsgNums = maxMessages;
    h.invisibleTime = invisibleMillis;
    h.pollTime = pollMillis;
    h.bornTime = currentTimeMillis();
    h.initMode = fromFirst ? protocol::ConsumeInitMode::Min : protocol::ConsumeInitMode::Max;
    h.expType = sub.expressionType;
    h.exp = sub.subString;
    return h;
}

Result<std::vector<MessageExt>> parsePopResponse(
    const protocol::RemotingCommand &response, const QByteArray &brokerName)
{
    if (response.code == popcode::PollingTimeout
        || response.code == toInt(ResponseCode::PullNotFound))
        return std::vector<MessageExt>();
    if (response.code != toInt(ResponseCode::Success))
        return ClientApi::responseStatus(response);
    auto h = protocol::PopMessageResponseHeader::decode(response);
    if (!h)
        return Status::corruption(
            QStringLiteral("bad POP_MESSAGE response: %1").arg(h.error().message()));
    auto messages = MessageExt::decodeAll(response.body, brokerName);
    if (!messages)
        return messages.error();
    if (messages->empty())
        return messages;
    auto starts = protocol::parseStartOffsetInfo(h->startOffsetInfo);
    if (!starts)
        return Status::corruption(QStringLiteral("bad POP_MESSAGE startOffsetInfo"));
    // A message of the topic itself gets its handle from the response header; a retry message
    // carries its own (POP_CK), as the broker built it.
    protocol::ExtraInfo e;
    e.popTime = h->popTime;
    e.invisibleTime = h->invisibleTime;
    e.reviveQid = h->reviveQid;
    e.retry = '0';
    e.brokerName = brokerName;
    for (MessageExt &m : *messages) {
        if (!m.property(kPopCk).isEmpty())
            continue;
        auto it
            = std::find_if(starts->begin(), starts->end(), [&](const protocol::QueueOffsetInfo &i) {
                  return i.retry == '0' && i.queueId == m.queueId();
              });
        if (it == starts->end())
            return Status::corruption(
                QStringLiteral("POP_MESSAGE response has no start offset of queue %1")
                    .arg(m.queueId()));
        e.ckQueueOffset = it->value;
        e.queueId = m.queueId();
        e.queueOffset = m.queueOffset();
        m.setProperty(kPopCk.toByteArray(), e.toString());
    }
    return messages;
}

Result<protocol::ExtraInfo> receiptOf(const MessageExt &message)
{
    auto e = protocol::ExtraInfo::parse(message.property(kPopCk));
    if (!e || e->queueOffset < 0)
        return Status::invalidArgument(
            QStringLiteral("the message has no receipt handle (not popped)"));
    return *e;
}

bool invisibleTimeOver(const protocol::ExtraInfo &handle, std::int64_t nowMillis)
{
    return handle.popTime <= 0 || handle.invisibleTime <= 0
        || nowMillis - handle.popTime >= handle.invisibleTime;
}

protocol::AckMessageRequestHeader ackHeader(
    const QByteArray &group, const MessageExt &message, const protocol::ExtraInfo &handle)
{
    protocol::AckMessageRequestHeader h;
    h.consumerGroup = group;
    h.topic = message.topic();
    h.queueId = handle.queueId;
    h.extraInfo = message.property(kPopCk);
    h.offset = handle.queueOffset;
    return h;
}

protocol::ChangeInvisibleTimeRequestHeader changeInvisibleHeader(const QByteArray &group,
    const MessageExt &message, const protocol::ExtraInfo &handle, int invisibleMillis)
{
    protocol::ChangeInvisibleTimeRequestHeader h;
    h.consumerGroup = group;
    h.topic = message.topic();
    h.queueId = handle.queueId;
    h.extraInfo = message.property(kPopCk);
    h.offset = handle.queueOffset;
    h.invisibleTime = invisibleMillis;
    return h;
}

Status applyChangedHandle(
    const protocol::RemotingCommand &response, MessageExt &message, protocol::ExtraInfo handle)
{
    auto answer = protocol::ChangeInvisibleTimeResponseHeader::decode(response);
    if (!answer)
        return Status::corruption(QStringLiteral("bad CHANGE_MESSAGE_INVISIBLETIME response: %1")
                                      .arg(answer.error().message()));
    // The new checkpoint holds this one message: it starts at the message's own offset.
    handle.ckQueueOffset = handle.queueOffset;
    handle.popTime = answer->popTime;
    handle.invisibleTime = answer->invisibleTime;
    handle.reviveQid = answer->reviveQid;
    message.setProperty(kPopCk.toByteArray(), handle.toString());
    return Status();
}

} // namespace qrocket::client::pop
