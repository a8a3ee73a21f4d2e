// AdminProcessor: consumer-side requests (208, 203, 204, 300, 222), protocol.md §4.9, §4.10.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/stats/brokerstatsmanager.h"
#include "storage/messagestore.h"

#include <algorithm>

namespace qrocket::broker {

using protocol::RemotingCommand;

namespace {

protocol::Connection connectionOf(const ClientChannelInfo &info)
{
    protocol::Connection c;
    c.clientId = info.clientId;
    c.clientAddr = info.channel ? info.channel->remoteAddress() : QByteArray();
    c.language = QByteArray(protocol::languageName(info.language));
    c.version = info.version;
    return c;
}

} // namespace

RemotingCommand AdminProcessor::consumeStats(const RemotingCommand &request)
{
    const QByteArray group = request.extString("consumerGroup").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("consumerGroup"));
    QList<QByteArray> topicList;
    if (const QByteArrayView topic = request.extString("topic"); !topic.isEmpty())
        topicList.append(topic.toByteArray());
    else
        topicList = m_ctx.consumerOffsets->topicsOfGroup(group);
    std::sort(topicList.begin(), topicList.end());

    const bool online = m_ctx.consumers && !m_ctx.consumers->consumerIds(group).isEmpty();
    protocol::ConsumeStats stats;
    for (const QByteArray &topic : topicList) {
        const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
        if (!config)
            continue;
        // An online group that no longer subscribes the topic: skipped, as RocketMQ does.
        if (online && !m_ctx.consumers->findSubscription(group, topic))
            continue;
        const QByteArray name = brokerName();
        for (int i = 0; i < config->writeQueueNums; ++i)
            stats.offsetTable[{topic, name, i}] = consumeOffset(group, topic, i);
        // The minute average of the messages the group pulled, as RocketMQ sums it per topic.
        if (m_ctx.statsManager)
            stats.consumeTps += m_ctx.statsManager->groupGetTps(group, topic);
    }
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = stats.toJson();
    return response;
}

RemotingCommand AdminProcessor::consumerConnectionList(const RemotingCommand &request)
{
    const QByteArray group = request.extString("consumerGroup").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("consumerGroup"));
    const std::optional<ConsumerGroupInfo> info
        = m_ctx.consumers ? m_ctx.consumers->groupInfo(group) : std::nullopt;
    if (!info || info->channels.empty())
        return makeResponse(request, toInt(ResponseCode::ConsumerNotOnline),
            QByteArrayLiteral("the consumer group[") + group + QByteArrayLiteral("] not online"));
    protocol::ConsumerConnection body;
    for (const ClientChannelInfo &c : info->channels)
        body.connectionSet.push_back(connectionOf(c));
    body.consumeFromWhere = info->consumeFromWhere;
    body.consumeType = info->consumeType;
    body.messageModel = info->messageModel;
    body.subscriptionTable = info->subscriptions;
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body.toJson();
    return response;
}

RemotingCommand AdminProcessor::producerConnectionList(const RemotingCommand &request)
{
    const QByteArray group = request.extString("producerGroup").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("producerGroup"));
    const std::vector<ClientChannelInfo> channels
        = m_ctx.producers ? m_ctx.producers->connections(group) : std::vector<ClientChannelInfo> {};
    if (channels.empty())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("the producer group[") + group + QByteArrayLiteral("] not exist"));
    protocol::ProducerConnection body;
    for (const ClientChannelInfo &c : channels)
        body.connectionSet.push_back(connectionOf(c));
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body.toJson();
    return response;
}

RemotingCommand AdminProcessor::topicConsumeByWho(const RemotingCommand &request)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    if (topic.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark("topic"));
    QList<QByteArray> groups
        = m_ctx.consumers ? m_ctx.consumers->groupsSubscribing(topic) : QList<QByteArray> {};
    for (const QByteArray &g : m_ctx.consumerOffsets->groupsOfTopic(topic)) {
        if (!groups.contains(g))
            groups.append(g);
    }
    std::sort(groups.begin(), groups.end());
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = protocol::GroupList {{groups.begin(), groups.end()}}.toJson();
    return response;
}

RemotingCommand AdminProcessor::resetOffset(const RemotingCommand &request)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    const QByteArray group = request.extString("group").toByteArray();
    const std::optional<std::int64_t> timestamp = request.extLong("timestamp");
    const bool isForce = request.extBool("isForce").value_or(false);
    if (topic.isEmpty() || group.isEmpty() || !timestamp)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            missingFieldRemark(topic.isEmpty() ? "topic"
                    : group.isEmpty()          ? "group"
                                               : "timestamp"));
    const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
    if (!config)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("[reset-offset] reset offset failed, no topic in this broker. topic=")
                + topic);

    protocol::ResetOffsetBody table;
    for (int i = 0; i < config->writeQueueNums; ++i) {
        const std::int64_t consumerOffset = m_ctx.consumerOffsets->query(group, topic, i);
        if (consumerOffset < 0)
            return makeResponse(request, toInt(ResponseCode::SystemError),
                QByteArrayLiteral("THe consumer group <") + group
                    + QByteArrayLiteral("> not exist"));
        const std::int64_t byTime = *timestamp == -1
            ? m_ctx.store->maxOffsetInQueue(topic, i)
            : m_ctx.store->offsetInQueueByTime(topic, i, *timestamp);
        const std::int64_t offset = (isForce || byTime < consumerOffset) ? byTime : consumerOffset;
        table.offsetTable[{topic, brokerName(), i}] = offset;
    }
    const QByteArray body = table.toJson();

    const std::vector<remoting::ChannelPtr> channels
        = m_ctx.consumers ? m_ctx.consumers->channels(group) : std::vector<remoting::ChannelPtr> {};
    if (channels.empty())
        return makeResponse(request, toInt(ResponseCode::ConsumerNotOnline),
            QByteArrayLiteral("Consumer not online, so can not reset offset, Group: ") + group
                + QByteArrayLiteral(" Topic: ") + topic + QByteArrayLiteral(" Timestamp: ")
                + QByteArray::number(*timestamp));
    for (const auto &[mq, offset] : table.offsetTable)
        m_ctx.consumerOffsets->commit(group, topic, mq.queueId, offset);
    for (const remoting::ChannelPtr &channel : channels) {
        RemotingCommand push
            = RemotingCommand::createRequest(toInt(RequestCode::ResetConsumerClientOffset));
        push.setExt(QByteArrayLiteral("topic"), topic);
        push.setExt(QByteArrayLiteral("group"), group);
        push.setExt(QByteArrayLiteral("timestamp"), *timestamp);
        push.setExtBool(QByteArrayLiteral("isForce"), isForce);
        push.body = body;
        channel->invokeOneway(std::move(push));
    }
    qCInfo(lcBrokerOffset).noquote() << "reset offsets of" << group << "on" << topic << "to time"
                                     << *timestamp << "pushed to" << channels.size() << "client(s)";
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body;
    return response;
}

} // namespace qrocket::broker
