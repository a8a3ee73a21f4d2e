// Internal to the Admin: the calls qrocket-admin needs beyond the console's (mqadmin's
// brokerConsumeStats, cloneGroupOffset, reading queues by offset or time for printMsg,
// printMsgByQueue and consumeMessage, and a message's trace for queryMsgTraceById).

#include "clientlib/client/admin/adminops.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/systemtopics.h"
#include "clientlib/protocol/tracedata.h"

#include <algorithm>

namespace qrocket::client::adminimpl {

namespace {

QByteArray javaBool(bool v)
{
    return v ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
}

} // namespace

Result<admin::ConsumeStatsList> doBrokerConsumeStats(
    Call &call, const QByteArray &addr, bool isOrder)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    // GetConsumeStatsInBrokerHeader: one field, isOrder.
    RemotingCommand cmd = call.api().request(toInt(RequestCode::GetBrokerConsumeStats));
    cmd.extFields.emplace_back(QByteArrayLiteral("isOrder"), javaBool(isOrder));
    auto r = invokeBroker(call, {brokerNameOf(call, addr), addr}, std::move(cmd));
    if (!r)
        return r.error();
    auto body = admin::ConsumeStatsList::fromJson(r->body);
    if (!body)
        return atPeer(corrupt("GET_BROKER_CONSUME_STATS", body.error()), {}, addr);
    return body;
}

Result<FanOutResult> doCloneGroupOffset(Call &call, const QByteArray &srcGroup,
    const QByteArray &destGroup, const QByteArray &topic, bool offline)
{
    for (const auto &[value, what] : {std::pair {&srcGroup, "source group"},
             std::pair {&destGroup, "destination group"}, std::pair {&topic, "topic"}}) {
        if (Status s = requireName(*value, what); !s)
            return s;
    }
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    // CloneGroupOffsetRequestHeader: srcGroup, destGroup, topic, offline.
    return toAllBrokers(call, *peers, [&](const Peer &) {
        RemotingCommand cmd = call.api().request(toInt(RequestCode::CloneGroupOffset));
        cmd.extFields.emplace_back(QByteArrayLiteral("srcGroup"), srcGroup);
        cmd.extFields.emplace_back(QByteArrayLiteral("destGroup"), destGroup);
        cmd.extFields.emplace_back(QByteArrayLiteral("topic"), topic);
        cmd.extFields.emplace_back(QByteArrayLiteral("offline"), javaBool(offline));
        return cmd;
    });
}

Result<std::int64_t> doSearchOffset(Call &call, const MessageQueue &queue, std::int64_t timestamp)
{
    auto peer = queuePeer(call, queue);
    if (!peer)
        return peer.error();
    protocol::SearchOffsetRequestHeader h;
    h.topic = queue.topic;
    h.queueId = queue.queueId;
    h.timestamp = timestamp;
    RemotingCommand cmd = call.api().request(toInt(RequestCode::SearchOffsetByTimestamp), h);
    ClientApi::setBrokerName(cmd, queue.brokerName);
    auto r = invokeBroker(call, *peer, std::move(cmd));
    if (!r)
        return r.error();
    auto offset = protocol::SearchOffsetResponseHeader::decode(*r);
    if (!offset)
        return atPeer(
            corrupt("SEARCH_OFFSET_BY_TIMESTAMP", offset.error()), peer->name, peer->address);
    return offset->offset;
}

Result<PullResult> doPullMessages(Call &call, const MessageQueue &queue, std::int64_t offset,
    int maxNums, const QByteArray &subExpression)
{
    if (maxNums <= 0 || maxNums > 1024)
        return Status::invalidArgument(QStringLiteral("maxNums must be 1..1024"));
    auto peer = queuePeer(call, queue);
    if (!peer)
        return peer.error();
    protocol::PullMessageRequestHeader h;
    h.consumerGroup = kToolsConsumerGroup;
    h.topic = queue.topic;
    h.queueId = queue.queueId;
    h.queueOffset = offset;
    h.maxMsgNums = maxNums;
    h.sysFlag = protocol::PullSysFlag::Subscription;
    h.commitOffset = 0;
    h.suspendTimeoutMillis = 0;
    h.subscription = subExpression.isEmpty() ? QByteArrayLiteral("*") : subExpression;
    h.subVersion = 0;
    h.expressionType = QByteArrayLiteral("TAG");
    auto r = call.api().invokeSync(
        peer->address, call.api().request(toInt(RequestCode::PullMessage), h), call.remaining());
    auto pulled = ClientApi::parsePullResponse(std::move(r), queue.brokerName);
    if (!pulled)
        return atPeer(pulled.error(), peer->name, peer->address);
    // The broker filters by tag hash only; drop the messages whose tag does not match.
    if (h.subscription != "*") {
        const QList<QByteArray> tags = h.subscription.split('|');
        std::vector<MessageExt> kept;
        for (MessageExt &m : pulled->messages) {
            const QByteArray tag = m.tags();
            if (std::any_of(tags.begin(), tags.end(),
                    [&](const QByteArray &t) { return t.trimmed() == tag && !tag.isEmpty(); }))
                kept.push_back(std::move(m));
        }
        pulled->messages = std::move(kept);
    }
    return pulled;
}

Result<std::vector<MessageTraceView>> doQueryMessageTrace(
    Call &call, const QByteArray &msgId, const QByteArray &traceTopic)
{
    if (Status s = requireName(msgId, "msgId"); !s)
        return s;
    const QByteArray topic
        = traceTopic.isEmpty() ? QByteArray(protocol::topics::kTrace) : traceTopic;
    auto found = queryMessages(call, topic, msgId, 64, 0, currentTimeMillis(), false);
    if (!found)
        return found.error();
    std::vector<MessageTraceView> out;
    for (const MessageExt &m : found->messages) {
        const QByteArray host = m.bornHost().toString();
        const qsizetype colon = host.lastIndexOf(':');
        QByteArray ip = colon > 0 ? host.left(colon) : host;
        if (ip.startsWith('[') && ip.endsWith(']'))
            ip = ip.mid(1, ip.size() - 2);
        for (protocol::trace::TraceRecord &r : protocol::trace::decodeRecords(m.body())) {
            if (r.msgId == msgId)
                out.push_back({std::move(r), ip});
        }
    }
    std::stable_sort(
        out.begin(), out.end(), [](const MessageTraceView &a, const MessageTraceView &b) {
            return a.record.timestamp < b.record.timestamp;
        });
    return out;
}

} // namespace qrocket::client::adminimpl
