#pragma once

// Raw POP frames for the POP system tests (tst_pop, tst_popcrash): POP_MESSAGE, ACK_MESSAGE,
// CHANGE_MESSAGE_INVISIBLETIME and BATCH_ACK_MESSAGE built from the protocol's typed headers,
// and each popped message with the receipt handle a RocketMQ 5 client would build from the
// response (its POP_CK property, else startOffsetInfo + the record's queue offset).

#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/messageproperties.h"
#include "tests/system/broker/brokertestutil.h"

#include <QDateTime>

#include <map>

namespace qrocket::brokertest {

struct PoppedMessage
{
    QByteArray topic; // as delivered
    int queueId = 0;
    std::int64_t queueOffset = 0;
    int reconsumeTimes = 0;
    QByteArray body;
    QByteArray properties;
    QByteArray handle; // the receipt handle (extraInfo)
};

struct PopAnswer
{
    int code = -1;
    QByteArray remark;
    protocol::PopMessageResponseHeader header;
    std::vector<PoppedMessage> messages;
};

inline RemotingCommand popRequest(const QByteArray &group, const QByteArray &topic, int queueId,
    int max, std::int64_t invisibleMs, std::int64_t pollMs, bool order = false,
    const QByteArray &tagExpression = {}, int initMode = protocol::ConsumeInitMode::Min)
{
    protocol::PopMessageRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic;
    h.queueId = queueId;
    h.maxMsgNums = max;
    h.invisibleTime = invisibleMs;
    h.pollTime = pollMs;
    h.bornTime = QDateTime::currentMSecsSinceEpoch();
    h.initMode = initMode;
    if (!tagExpression.isEmpty()) {
        h.expType = "TAG";
        h.exp = tagExpression;
    }
    if (order)
        h.order = true;
    RemotingCommand r = RemotingCommand::createRequest(200050);
    h.encode(r);
    return r;
}

/// Decodes a POP_MESSAGE answer, building each message's handle as the Java client does.
inline PopAnswer popAnswer(const RemotingCommand &r, const QByteArray &brokerName)
{
    PopAnswer a;
    a.code = r.code;
    a.remark = r.remark;
    if (r.code != 0)
        return a;
    auto h = protocol::PopMessageResponseHeader::decode(r);
    if (!h)
        return a;
    a.header = *h;
    std::map<std::pair<char, int>, std::int64_t> starts;
    if (auto infos = protocol::parseStartOffsetInfo(h->startOffsetInfo))
        for (const protocol::QueueOffsetInfo &i : *infos)
            starts[{i.retry, i.queueId}] = i.value;
    for (const protocol::MessageRecordView &v : records(r.body)) {
        PoppedMessage m;
        m.topic = v.topic.toByteArray();
        m.queueId = v.queueId;
        m.queueOffset = v.queueOffset;
        m.reconsumeTimes = v.reconsumeTimes;
        m.body = v.body.toByteArray();
        m.properties = v.properties.toByteArray();
        const QByteArrayView ck = protocol::findProperty(v.properties, "POP_CK");
        if (!ck.isEmpty()) {
            m.handle = ck.toByteArray();
        } else {
            protocol::ExtraInfo e;
            e.ckQueueOffset = starts[{'0', v.queueId}];
            e.popTime = h->popTime;
            e.invisibleTime = h->invisibleTime;
            e.reviveQid = h->reviveQid;
            e.retry = '0';
            e.brokerName = brokerName;
            e.queueId = v.queueId;
            e.queueOffset = v.queueOffset;
            m.handle = e.toString();
        }
        a.messages.push_back(std::move(m));
    }
    return a;
}

/// ACK_MESSAGE for a popped message: the header's queueId and offset are the handle's (the
/// retry queue's for a retry message), the topic the one it was popped from.
inline RemotingCommand ackRequest(
    const QByteArray &group, const QByteArray &topic, const PoppedMessage &m)
{
    const auto e = protocol::ExtraInfo::parse(m.handle);
    protocol::AckMessageRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic;
    h.queueId = e ? e->queueId : m.queueId;
    h.extraInfo = m.handle;
    h.offset = e && e->queueOffset >= 0 ? e->queueOffset : m.queueOffset;
    RemotingCommand r = RemotingCommand::createRequest(200051);
    h.encode(r);
    return r;
}

inline RemotingCommand changeInvisibleRequest(const QByteArray &group, const QByteArray &topic,
    const PoppedMessage &m, std::int64_t invisibleMs)
{
    const auto e = protocol::ExtraInfo::parse(m.handle);
    protocol::ChangeInvisibleTimeRequestHeader h;
    h.consumerGroup = group;
    h.topic = topic;
    h.queueId = e ? e->queueId : m.queueId;
    h.extraInfo = m.handle;
    h.offset = e && e->queueOffset >= 0 ? e->queueOffset : m.queueOffset;
    h.invisibleTime = invisibleMs;
    RemotingCommand r = RemotingCommand::createRequest(200053);
    h.encode(r);
    return r;
}

/// The handle a CHANGE_MESSAGE_INVISIBLETIME answer gives `m` (as the Java client builds it).
inline QByteArray changedHandle(const RemotingCommand &answer, const PoppedMessage &m)
{
    auto h = protocol::ChangeInvisibleTimeResponseHeader::decode(answer);
    auto e = protocol::ExtraInfo::parse(m.handle);
    if (!h || !e)
        return {};
    e->ckQueueOffset = e->queueOffset;
    e->popTime = h->popTime;
    e->invisibleTime = h->invisibleTime;
    e->reviveQid = h->reviveQid;
    return e->toString();
}

} // namespace qrocket::brokertest
