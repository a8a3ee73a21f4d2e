#include "clientlib/client/admin/adminops.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/headers/queryheaders.h"
#include "clientlib/protocol/messageid.h"

#include <algorithm>
#include <set>

namespace qrocket::client::adminimpl {

Result<std::vector<Peer>> groupPeers(Call &call, const QByteArray &group)
{
    if (Status s = requireName(group, "group"); !s)
        return s;
    return topicPeers(call, kRetryPrefix + group);
}

Result<admin::ConsumerConnection> doConsumerConnection(Call &call, const QByteArray &group)
{
    auto peers = groupPeers(call, group);
    if (!peers)
        return peers.error();
    protocol::GetConsumerConnectionListRequestHeader h;
    h.consumerGroup = group;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back(
            {p, call.api().request(toInt(RequestCode::GetConsumerConnectionList), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    std::optional<admin::ConsumerConnection> merged;
    Status firstError;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r) {
            if (firstError)
                firstError = r.error();
            continue;
        }
        auto c = admin::ConsumerConnection::fromJson(r->body);
        if (!c) {
            if (firstError)
                firstError = atPeer(corrupt("GET_CONSUMER_CONNECTION_LIST", c.error()),
                    requests[i].peer.name, requests[i].peer.address);
            continue;
        }
        if (!merged) {
            merged = std::move(c).value();
            continue;
        }
        for (admin::Connection &conn : c->connectionSet) {
            if (std::none_of(merged->connectionSet.begin(), merged->connectionSet.end(),
                    [&](const admin::Connection &x) { return x.clientId == conn.clientId; }))
                merged->connectionSet.push_back(std::move(conn));
        }
        merged->subscriptionTable.merge(c->subscriptionTable);
    }
    if (!merged || merged->connectionSet.empty()) {
        if (!firstError)
            return firstError;
        return Status::remote(toInt(ResponseCode::ConsumerNotOnline),
            QStringLiteral("CONSUMER_NOT_ONLINE(206): the consumer group[%1] not online")
                .arg(QString::fromUtf8(group)));
    }
    std::sort(merged->connectionSet.begin(), merged->connectionSet.end(),
        [](const admin::Connection &a, const admin::Connection &b) {
            return a.clientId < b.clientId;
        });
    return std::move(*merged);
}

Result<admin::ConsumeStats> doConsumeStats(
    Call &call, const QByteArray &group, const QByteArray &topic)
{
    if (Status s = requireName(group, "group"); !s)
        return s;
    std::vector<Peer> peers;
    auto retry = topicPeers(call, kRetryPrefix + group);
    if (retry)
        peers = *retry;
    if (!topic.isEmpty()) {
        auto own = topicPeers(call, topic);
        if (!own)
            return own.error();
        addUnique(peers, *own);
    } else if (!retry) {
        return retry.error();
    }
    protocol::GetConsumeStatsRequestHeader h;
    h.consumerGroup = group;
    if (!topic.isEmpty())
        h.topic = topic;
    std::vector<Request> requests;
    for (const Peer &p : peers)
        requests.push_back({p, call.api().request(toInt(RequestCode::GetConsumeStats), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    admin::ConsumeStats out;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
        auto stats = admin::ConsumeStats::fromJson(r->body);
        if (!stats)
            return atPeer(corrupt("GET_CONSUME_STATS", stats.error()), requests[i].peer.name,
                requests[i].peer.address);
        out.offsetTable.merge(stats->offsetTable);
        out.consumeTps += stats->consumeTps;
    }
    if (out.offsetTable.empty())
        return Status::remote(toInt(ResponseCode::ConsumerNotOnline),
            QStringLiteral("CONSUMER_NOT_ONLINE(206): no consume stats for group %1 (it has "
                           "consumed nothing%2)")
                .arg(QString::fromUtf8(group),
                    topic.isEmpty() ? QString()
                                    : QStringLiteral(" of ") + QString::fromUtf8(topic)));
    return out;
}

Result<admin::ProducerConnection> doProducerConnection(
    Call &call, const QByteArray &group, const QByteArray &topic)
{
    if (Status s = requireName(group, "group"); !s)
        return s;
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    protocol::GetProducerConnectionListRequestHeader h;
    h.producerGroup = group;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back(
            {p, call.api().request(toInt(RequestCode::GetProducerConnectionList), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    admin::ProducerConnection out;
    Status firstError;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        auto c = r ? admin::ProducerConnection::fromJson(r->body)
                   : Result<admin::ProducerConnection>(r.error());
        if (!c) {
            if (firstError)
                firstError = c.error();
            continue;
        }
        for (admin::Connection &conn : c->connectionSet) {
            if (std::none_of(out.connectionSet.begin(), out.connectionSet.end(),
                    [&](const admin::Connection &x) { return x.clientId == conn.clientId; }))
                out.connectionSet.push_back(std::move(conn));
        }
    }
    if (out.connectionSet.empty())
        return firstError
            ? Status::notFound(
                QStringLiteral("no connection of producer group %1").arg(QString::fromUtf8(group)))
            : firstError;
    return out;
}

Result<admin::ConsumerRunningInfo> doConsumerRunningInfo(
    Call &call, const QByteArray &group, const QByteArray &clientId, bool jstack)
{
    if (Status s = requireName(clientId, "client id"); !s)
        return s;
    auto peers = groupPeers(call, group);
    if (!peers)
        return peers.error();
    protocol::GetConsumerRunningInfoRequestHeader h;
    h.consumerGroup = group;
    h.clientId = clientId;
    h.jstackEnable = jstack;
    Status last;
    for (const Peer &p : *peers) {
        if (call.expired())
            break;
        auto r = invokeBroker(
            call, p, call.api().request(toInt(RequestCode::GetConsumerRunningInfo), h));
        if (!r) {
            last = r.error();
            continue;
        }
        auto info = admin::ConsumerRunningInfo::fromJson(r->body);
        if (!info)
            return atPeer(corrupt("GET_CONSUMER_RUNNING_INFO", info.error()), p.name, p.address);
        return info;
    }
    return last ? call.timedOut(QStringLiteral("GET_CONSUMER_RUNNING_INFO")) : last;
}

Result<std::vector<QByteArray>> doTopicConsumedBy(Call &call, const QByteArray &topic)
{
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    protocol::QueryTopicConsumeByWhoRequestHeader h;
    h.topic = topic;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back({p, call.api().request(toInt(RequestCode::QueryTopicConsumeByWho), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    std::set<QByteArray> groups;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
        auto list = admin::GroupList::fromJson(r->body);
        if (!list)
            return atPeer(corrupt("QUERY_TOPIC_CONSUME_BY_WHO", list.error()),
                requests[i].peer.name, requests[i].peer.address);
        groups.insert(list->groupList.begin(), list->groupList.end());
    }
    return std::vector<QByteArray>(groups.begin(), groups.end());
}

Result<std::map<MessageQueue, std::int64_t>> doResetOffset(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force)
{
    if (Status s = requireName(group, "group"); !s)
        return s;
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    protocol::ResetOffsetRequestHeader h;
    h.topic = topic;
    h.group = group;
    h.timestamp = timestamp;
    h.isForce = force;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back(
            {p, call.api().request(toInt(RequestCode::InvokeBrokerToResetOffset), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    std::map<MessageQueue, std::int64_t> out;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
        if (r->body.isEmpty())
            continue;
        auto body = admin::ResetOffsetBody::fromJson(r->body);
        if (!body)
            return atPeer(corrupt("INVOKE_BROKER_TO_RESET_OFFSET", body.error()),
                requests[i].peer.name, requests[i].peer.address);
        out.merge(body->offsetTable);
    }
    return out;
}

Result<std::vector<ResetOffsetPreview>> doPreviewReset(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force)
{
    if (Status s = requireName(group, "group"); !s)
        return s;
    auto route = routeOf(call, topic);
    if (!route)
        return route.error();
    std::vector<ResetOffsetPreview> out;
    std::vector<Request> requests; // two per queue: the offset by time, the committed offset
    for (const protocol::QueueData &q : route->queueDatas) {
        const auto b = std::find_if(route->brokerDatas.begin(), route->brokerDatas.end(),
            [&](const protocol::BrokerData &d) { return d.brokerName == q.brokerName; });
        if (b == route->brokerDatas.end() || selectAddress(*b).isEmpty())
            continue;
        const Peer peer {q.brokerName, selectAddress(*b)};
        for (int i = 0; i < q.writeQueueNums; ++i) {
            ResetOffsetPreview p;
            p.queue = {topic, q.brokerName, i};
            out.push_back(p);
            if (timestamp == -1) {
                protocol::GetMaxOffsetRequestHeader mh;
                mh.topic = topic;
                mh.queueId = i;
                requests.push_back(
                    {peer, call.api().request(toInt(RequestCode::GetMaxOffset), mh)});
            } else {
                protocol::SearchOffsetRequestHeader sh;
                sh.topic = topic;
                sh.queueId = i;
                sh.timestamp = timestamp;
                requests.push_back(
                    {peer, call.api().request(toInt(RequestCode::SearchOffsetByTimestamp), sh)});
            }
            protocol::QueryConsumerOffsetRequestHeader ch;
            ch.consumerGroup = group;
            ch.topic = topic;
            ch.queueId = i;
            requests.push_back(
                {peer, call.api().request(toInt(RequestCode::QueryConsumerOffset), ch)});
        }
    }
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    for (std::size_t i = 0; i < out.size(); ++i) {
        auto byTime = expect(std::move(answers[2 * i]), requests[2 * i].peer);
        if (!byTime)
            return byTime.error();
        // GET_MAX_OFFSET and SEARCH_OFFSET_BY_TIMESTAMP both answer in `offset`.
        auto t = protocol::SearchOffsetResponseHeader::decode(*byTime);
        if (!t)
            return corrupt("SEARCH_OFFSET_BY_TIMESTAMP", t.error());
        auto committed = expect(std::move(answers[2 * i + 1]), requests[2 * i + 1].peer,
            {toInt(ResponseCode::QueryNotFound)});
        if (!committed)
            return committed.error();
        ResetOffsetPreview &p = out[i];
        p.timestampOffset = t->offset;
        if (committed->code == toInt(ResponseCode::Success)) {
            auto c = protocol::QueryConsumerOffsetResponseHeader::decode(*committed);
            if (!c)
                return corrupt("QUERY_CONSUMER_OFFSET", c.error());
            p.consumerOffset = c->offset;
        }
        p.targetOffset = (force || p.consumerOffset < 0 || p.timestampOffset < p.consumerOffset)
            ? p.timestampOffset
            : p.consumerOffset;
    }
    return out;
}

Result<std::map<MessageQueue, std::int64_t>> doResetOffline(Call &call, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force)
{
    auto preview = doPreviewReset(call, topic, group, timestamp, force);
    if (!preview)
        return preview.error();
    auto route = routeOf(call, topic);
    if (!route)
        return route.error();
    std::map<MessageQueue, std::int64_t> out;
    std::vector<Request> requests;
    for (const ResetOffsetPreview &p : *preview) {
        // Committed even when the target equals the offset the broker reports: for a group
        // without offsets the broker answers 0 (RocketMQ's rule for a queue still in memory),
        // and an empty queue skipped here would leave the group without an offset there, which
        // every later online reset refuses ("consumer group not exist").
        out[p.queue] = p.targetOffset;
        const auto b = std::find_if(route->brokerDatas.begin(), route->brokerDatas.end(),
            [&](const protocol::BrokerData &d) { return d.brokerName == p.queue.brokerName; });
        // Offsets are committed to the master only.
        if (b == route->brokerDatas.end() || b->masterAddr().isEmpty())
            return Status::unavailable(QStringLiteral("broker %1 has no master to commit to")
                                           .arg(QString::fromUtf8(p.queue.brokerName)));
        protocol::UpdateConsumerOffsetRequestHeader h;
        h.consumerGroup = group;
        h.topic = topic;
        h.queueId = p.queue.queueId;
        h.commitOffset = p.targetOffset;
        requests.push_back({{p.queue.brokerName, b->masterAddr()},
            call.api().request(toInt(RequestCode::UpdateConsumerOffset), h)});
    }
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
    }
    return out;
}

Result<MessageExt> doViewMessage(Call &call, const QByteArray &msgId)
{
    auto id = protocol::decodeOffsetMessageId(msgId.trimmed());
    if (!id)
        return Status::invalidArgument(QStringLiteral("not an offset msgId: %1 (%2)")
                                           .arg(QString::fromUtf8(msgId), id.error().message()));
    const QByteArray addr = id->storeHost.toString();
    protocol::ViewMessageRequestHeader h;
    h.offset = id->commitLogOffset;
    auto r = invokeBroker(
        call, {{}, addr}, call.api().request(toInt(RequestCode::ViewMessageById), h));
    if (!r)
        return r.error();
    auto messages = MessageExt::decodeAll(r->body, brokerNameOf(call, addr));
    if (!messages)
        return corrupt("VIEW_MESSAGE_BY_ID", messages.error());
    if (messages->empty())
        return Status::notFound(QStringLiteral("%1: no message at commit-log offset %2")
                                    .arg(QString::fromUtf8(addr))
                                    .arg(id->commitLogOffset));
    return std::move(messages->front());
}

Result<QueryMessageResult> queryMessages(Call &call, const QByteArray &topic, const QByteArray &key,
    int maxNum, std::int64_t begin, std::int64_t end, bool uniqueKey)
{
    if (Status s = requireName(key, "key"); !s)
        return s;
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    protocol::QueryMessageRequestHeader h;
    h.topic = topic;
    h.key = key;
    h.maxNum = maxNum;
    h.beginTimestamp = begin;
    h.endTimestamp = end;
    h.uniqueKeyQuery = uniqueKey;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back({p, call.api().request(toInt(RequestCode::QueryMessage), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    QueryMessageResult out;
    Status firstError;
    bool anyAnswer = false;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r
            = expect(std::move(answers[i]), requests[i].peer, {toInt(ResponseCode::QueryNotFound)});
        if (!r) {
            if (firstError)
                firstError = r.error();
            continue;
        }
        anyAnswer = true;
        if (r->code != toInt(ResponseCode::Success))
            continue;
        if (auto rh = protocol::QueryMessageResponseHeader::decode(*r))
            out.indexLastUpdateTimestamp
                = std::max(out.indexLastUpdateTimestamp, rh->indexLastUpdateTimestamp);
        auto messages = MessageExt::decodeAll(r->body, requests[i].peer.name);
        if (!messages)
            return atPeer(corrupt("QUERY_MESSAGE", messages.error()), requests[i].peer.name,
                requests[i].peer.address);
        for (MessageExt &m : *messages) {
            // The index is a hash: keep only real matches, as the Java client does.
            const bool match = uniqueKey ? m.uniqueKey() == key : m.keys().split(' ').contains(key);
            if (match && m.topic() == topic)
                out.messages.push_back(std::move(m));
        }
    }
    if (!anyAnswer)
        return firstError;
    std::sort(
        out.messages.begin(), out.messages.end(), [](const MessageExt &a, const MessageExt &b) {
            return a.storeTimestamp() < b.storeTimestamp();
        });
    return out;
}

Result<MessageExt> queryByUniqueKey(Call &call, const QByteArray &topic, const QByteArray &key)
{
    auto r = queryMessages(call, topic, key, 32, 0, std::numeric_limits<std::int64_t>::max(), true);
    if (!r)
        return r.error();
    if (r->messages.empty())
        return Status::notFound(QStringLiteral("no message %1 in topic %2")
                                    .arg(QString::fromUtf8(key), QString::fromUtf8(topic)));
    return std::move(r->messages.front());
}

Result<MessageExt> doMessageById(Call &call, const QByteArray &topic, const QByteArray &msgId)
{
    if (protocol::decodeOffsetMessageId(msgId.trimmed()).has_value()) {
        auto viewed = doViewMessage(call, msgId);
        if (viewed || call.expired())
            return viewed;
    }
    return queryByUniqueKey(call, topic, msgId.trimmed());
}

Result<MessageExt> doMessageAt(Call &call, const MessageQueue &queue, std::int64_t offset)
{
    auto pulled = doPullMessages(call, queue, offset, 1, QByteArrayLiteral("*"));
    if (!pulled)
        return pulled.error();
    for (MessageExt &m : pulled->messages) {
        if (m.queueOffset() == offset)
            return std::move(m);
    }
    return Status::notFound(
        QStringLiteral("no message at offset %1 of %2/%3/%4 (queue holds %5..%6)")
            .arg(offset)
            .arg(QString::fromUtf8(queue.topic), QString::fromUtf8(queue.brokerName))
            .arg(queue.queueId)
            .arg(pulled->minOffset)
            .arg(pulled->maxOffset));
}

} // namespace qrocket::client::adminimpl
