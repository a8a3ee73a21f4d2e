#include "broker/processors/clientmanageprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/filter/sqlfiltercache.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "clientlib/protocol/json.h"

#include <QDateTime>

namespace qrocket::broker {

using protocol::RemotingCommand;

void notifyConsumerIdsChanged(BrokerContext &ctx, QByteArrayView group)
{
    if (!ctx.config->notifyConsumerIdsChangedEnable)
        return;
    if (const auto config = ctx.subscriptionGroups->find(group);
        config && !config->notifyConsumerIdsChangedEnable)
        return;
    const auto channels = ctx.consumers->channels(group);
    for (const remoting::ChannelPtr &channel : channels) {
        if (!channel || !channel->isActive())
            continue;
        RemotingCommand notify
            = RemotingCommand::createRequest(toInt(RequestCode::NotifyConsumerIdsChanged));
        notify.setExt("consumerGroup", group.toByteArray());
        channel->invokeOneway(std::move(notify));
    }
    qCDebug(lcBrokerClient) << "notified" << channels.size() << "consumers of" << group;
}

void ClientManageProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    switch (request.code) {
    case toInt(RequestCode::HeartBeat):
        respond(heartbeat(channel, request));
        break;
    case toInt(RequestCode::UnregisterClient):
        respond(unregisterClient(channel, request));
        break;
    case toInt(RequestCode::GetConsumerListByGroup):
        respond(consumerList(request));
        break;
    case toInt(RequestCode::CheckClientConfig):
        respond(checkClientConfig(request));
        break;
    default:
        respond(makeReply(
            request, 3, " request type " + QByteArray::number(request.code) + " not supported"));
    }
}

RemotingCommand ClientManageProcessor::heartbeat(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    auto data = HeartbeatData::fromJson(request.body);
    if (!data) {
        qCDebug(lcBrokerClient) << "bad heartbeat from" << channel->remoteAddress() << ":"
                                << data.error().message();
        return makeReply(
            request, toInt(ResponseCode::SystemError), data.error().message().toUtf8());
    }
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    ClientChannelInfo info;
    info.channel = channel;
    info.clientId = data->clientID;
    info.language = request.language;
    info.version = request.version;
    info.lastUpdateTimestamp = now;

    for (const ConsumerData &consumer : data->consumerDataSet) {
        // RocketMQ 5's group rule (at most 120 characters): the group's retry topic must be a
        // topic, or its retried messages could never be delivered.
        if (Status st = topics::validateGroup(consumer.groupName); !st)
            return makeReply(request, toInt(ResponseCode::SystemError), st.message().toUtf8());
    }
    for (const ConsumerData &consumer : data->consumerDataSet) {
        const auto groupConfig = m_ctx.subscriptionGroups->findOrCreate(consumer.groupName);
        if (groupConfig) {
            const int queueNums = groupConfig->retryQueueNums;
            if (queueNums > 0)
                m_ctx.topics->createRetryTopic(consumer.groupName, queueNums);
        }
        const ConsumerManager::RegisterResult r = m_ctx.consumers->registerConsumer(consumer, info);
        if (r.newChannel)
            qCInfo(lcBrokerClient) << "consumer" << data->clientID << "joined group"
                                   << consumer.groupName << "from" << channel->remoteAddress();
        if (r.changed())
            notifyConsumerIdsChanged(m_ctx, consumer.groupName);
    }
    for (const ProducerData &producer : data->producerDataSet) {
        if (m_ctx.producers->registerProducer(producer.groupName, info))
            qCDebug(lcBrokerClient)
                << "producer" << data->clientID << "joined group" << producer.groupName;
    }
    return makeReply(request, toInt(ResponseCode::Success));
}

RemotingCommand ClientManageProcessor::unregisterClient(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    if (QByteArray missing = missingExtField(request, {"clientID"}); !missing.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError), missing);
    const QByteArrayView clientId = request.extString("clientID");
    if (const QByteArrayView group = request.extString("producerGroup"); !group.isEmpty())
        m_ctx.producers->unregisterProducer(group, clientId, channel);
    if (const QByteArrayView group = request.extString("consumerGroup"); !group.isEmpty()) {
        const auto removal = m_ctx.consumers->unregisterConsumer(group, clientId, channel);
        if (removal) {
            qCInfo(lcBrokerClient) << "consumer" << clientId << "left group" << group;
            if (!removal->groupRemoved)
                notifyConsumerIdsChanged(m_ctx, group);
        }
    }
    return makeReply(request, toInt(ResponseCode::Success));
}

RemotingCommand ClientManageProcessor::checkClientConfig(const RemotingCommand &request)
{
    if (request.body.trimmed().isEmpty()) // nothing to check
        return makeReply(request, toInt(ResponseCode::Success));
    auto body = protocol::CheckClientRequestBody::fromJson(request.body);
    if (!body)
        return makeReply(
            request, toInt(ResponseCode::SystemError), body.error().message().toUtf8());
    if (!body->subscriptionData)
        return makeReply(request, toInt(ResponseCode::Success));
    const SubscriptionData &sub = *body->subscriptionData;
    if (filter::isTagType(sub.expressionType))
        return makeReply(request, toInt(ResponseCode::Success));
    if (!m_ctx.config->enablePropertyFilter)
        return makeReply(request, toInt(ResponseCode::SystemError),
            filter::unsupportedFilterRemark(sub.expressionType));
    if (auto compiled
        = filter::subscriptionFilter(m_ctx.sqlFilters, sub.expressionType, sub.subString);
        !compiled)
        return makeReply(request, toInt(ResponseCode::SubscriptionParseFailed),
            compiled.error().message().toUtf8());
    return makeReply(request, toInt(ResponseCode::Success));
}

RemotingCommand ClientManageProcessor::consumerList(const RemotingCommand &request)
{
    if (QByteArray missing = missingExtField(request, {"consumerGroup"}); !missing.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError), missing);
    const QByteArrayView group = request.extString("consumerGroup");
    const QList<QByteArray> ids = m_ctx.consumers->consumerIds(group);
    if (ids.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError),
            "no consumer for this group, " + group.toByteArray());
    protocol::JsonWriter w;
    w.beginObject().key("consumerIdList").beginArray();
    for (const QByteArray &id : ids)
        w.value(QByteArrayView(id));
    w.endArray().endObject();
    RemotingCommand response = makeReply(request, toInt(ResponseCode::Success));
    response.body = w.take();
    return response;
}

} // namespace qrocket::broker
