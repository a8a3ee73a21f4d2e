#include "broker/processors/adminprocessor.h"

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/processors/admincommon.h"
#include "clientlib/protocol/extensioncode.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <algorithm>
#include <exception>

namespace qrocket::broker {

using protocol::RemotingCommand;

AdminProcessor::AdminProcessor(BrokerContext &ctx)
    : m_ctx(ctx), m_bootTimestamp(QDateTime::currentMSecsSinceEpoch())
{ }

const std::vector<int> &AdminProcessor::requestCodes()
{
    static const std::vector<int> codes {
        toInt(RequestCode::UpdateAndCreateTopic),
        toInt(RequestCode::DeleteTopicInBroker),
        toInt(RequestCode::GetAllTopicConfig),
        toInt(RequestCode::GetSystemTopicListFromBroker),
        toInt(RequestCode::GetBrokerRuntimeInfo),
        toInt(RequestCode::GetTopicStatsInfo),
        toInt(RequestCode::DeleteExpiredCommitLog),
        toInt(RequestCode::CleanExpiredConsumeQueue),
        toInt(RequestCode::GetConsumeStats),
        toInt(RequestCode::GetConsumerConnectionList),
        toInt(RequestCode::GetProducerConnectionList),
        toInt(RequestCode::QueryTopicConsumeByWho),
        toInt(RequestCode::InvokeBrokerToResetOffset),
        toInt(RequestCode::UpdateAndCreateSubscriptionGroup),
        toInt(RequestCode::DeleteSubscriptionGroup),
        toInt(RequestCode::GetAllSubscriptionGroupConfig),
        toInt(RequestCode::GetAllConsumerOffset),
        toInt(RequestCode::GetAllDelayOffset),
        toInt(RequestCode::GetBrokerConfig),
        toInt(RequestCode::UpdateBrokerConfig),
        toInt(RequestCode::GetConsumerRunningInfo),
        toInt(RequestCode::ConsumeMessageDirectly),
        protocol::extensioncode::kGetStoreFiles,
        protocol::extensioncode::kExplainGroup,
        protocol::extensioncode::kExplainCleanup,
        protocol::extensioncode::kExplainSend,
        toInt(RequestCode::QueryConsumeTimeSpan),
        toInt(RequestCode::CloneGroupOffset),
        toInt(RequestCode::GetBrokerConsumeStats),
        toInt(RequestCode::QueryConsumeQueue),
        toInt(RequestCode::GetAllProducerInfo),
        toInt(RequestCode::InvokeBrokerToGetConsumerStatus),
        toInt(RequestCode::ViewBrokerStatsData),
        toInt(RequestCode::CleanUnusedTopic),
        toInt(RequestCode::GetBrokerHaStatus),
        toInt(RequestCode::GetBrokerEpochCache),
    };
    return codes;
}

void AdminProcessor::processRequest(
    const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond)
{
    if (request.code == toInt(RequestCode::GetConsumerRunningInfo)
        || request.code == toInt(RequestCode::ConsumeMessageDirectly)) {
        forwardToConsumer(request, std::move(respond));
        return;
    }
    if (request.code == toInt(RequestCode::InvokeBrokerToGetConsumerStatus)) {
        consumerStatus(request, std::move(respond));
        return;
    }
    // Topic and subscription group changes: answered once durable, by the config journal's
    // group commit (see ConfigManager::commitChangeAsync()), not on this thread.
    const bool ready = m_ctx.config && m_ctx.store && m_ctx.topics && m_ctx.subscriptionGroups
        && m_ctx.consumerOffsets;
    if (ready && request.code == toInt(RequestCode::UpdateAndCreateTopic)) {
        updateAndCreateTopic(request, std::move(respond));
        return;
    }
    if (ready && request.code == toInt(RequestCode::UpdateAndCreateSubscriptionGroup)) {
        updateSubscriptionGroup(request, std::move(respond));
        return;
    }
    RemotingCommand response;
    try {
        response = handle(request);
    } catch (const std::exception &e) {
        response = makeResponse(request, toInt(ResponseCode::SystemError), QByteArray(e.what()));
    }
    if (!request.isOneway())
        respond(std::move(response));
}

RemotingCommand AdminProcessor::handle(const RemotingCommand &request)
{
    if (!m_ctx.config || !m_ctx.store || !m_ctx.topics || !m_ctx.subscriptionGroups
        || !m_ctx.consumerOffsets)
        return makeResponse(
            request, toInt(ResponseCode::SystemError), QByteArrayLiteral("broker not ready"));
    switch (request.code) {
    case toInt(RequestCode::UpdateAndCreateTopic):
        return updateAndCreateTopic(request);
    case toInt(RequestCode::QueryConsumeTimeSpan):
        return consumeTimeSpan(request);
    case toInt(RequestCode::CloneGroupOffset):
        return cloneGroupOffset(request);
    case toInt(RequestCode::GetBrokerConsumeStats):
        return brokerConsumeStats(request);
    case toInt(RequestCode::QueryConsumeQueue):
        return queryConsumeQueue(request);
    case toInt(RequestCode::GetAllProducerInfo):
        return allProducerInfo(request);
    case toInt(RequestCode::ViewBrokerStatsData):
        return viewBrokerStatsData(request);
    case toInt(RequestCode::CleanUnusedTopic):
        return cleanUnusedTopic(request);
    case toInt(RequestCode::DeleteTopicInBroker):
        return deleteTopic(request);
    case toInt(RequestCode::GetAllTopicConfig):
        return allTopicConfig(request);
    case toInt(RequestCode::GetSystemTopicListFromBroker):
        return systemTopicList(request);
    case toInt(RequestCode::GetBrokerRuntimeInfo):
        return brokerRuntimeInfo(request);
    case toInt(RequestCode::GetBrokerHaStatus):
        return haStatus(request);
    case toInt(RequestCode::GetBrokerEpochCache):
        return epochCache(request);
    case toInt(RequestCode::GetTopicStatsInfo):
        return topicStatsInfo(request);
    case toInt(RequestCode::DeleteExpiredCommitLog):
    case toInt(RequestCode::CleanExpiredConsumeQueue):
        return deleteExpiredFiles(request);
    case protocol::extensioncode::kGetStoreFiles:
        return storeFiles(request);
    case protocol::extensioncode::kExplainGroup:
        return explainGroup(request);
    case protocol::extensioncode::kExplainCleanup:
        return explainCleanup(request);
    case protocol::extensioncode::kExplainSend:
        return explainSend(request);
    case toInt(RequestCode::GetConsumeStats):
        return consumeStats(request);
    case toInt(RequestCode::GetConsumerConnectionList):
        return consumerConnectionList(request);
    case toInt(RequestCode::GetProducerConnectionList):
        return producerConnectionList(request);
    case toInt(RequestCode::QueryTopicConsumeByWho):
        return topicConsumeByWho(request);
    case toInt(RequestCode::InvokeBrokerToResetOffset):
        return resetOffset(request);
    case toInt(RequestCode::UpdateAndCreateSubscriptionGroup):
        return updateSubscriptionGroup(request);
    case toInt(RequestCode::DeleteSubscriptionGroup):
        return deleteSubscriptionGroup(request);
    case toInt(RequestCode::GetAllSubscriptionGroupConfig):
        return allSubscriptionGroups(request);
    case toInt(RequestCode::GetAllConsumerOffset):
        return allConsumerOffsets(request);
    case toInt(RequestCode::GetAllDelayOffset):
        return allDelayOffsets(request);
    case toInt(RequestCode::GetBrokerConfig):
        return brokerConfig(request);
    case toInt(RequestCode::UpdateBrokerConfig):
        return updateBrokerConfig(request);
    default:
        return makeResponse(request, toInt(ResponseCode::RequestCodeNotSupported),
            QByteArrayLiteral(" request type ") + QByteArray::number(request.code)
                + QByteArrayLiteral(" not supported"));
    }
}

QByteArray AdminProcessor::brokerName() const
{
    return m_ctx.config ? m_ctx.config->brokerName.toUtf8() : QByteArray();
}

protocol::OffsetWrapper AdminProcessor::consumeOffset(
    const QByteArray &group, const QByteArray &topic, int queueId)
{
    protocol::OffsetWrapper o;
    o.brokerOffset = std::max<std::int64_t>(m_ctx.store->maxOffsetInQueue(topic, queueId), 0);
    o.consumerOffset
        = std::max<std::int64_t>(m_ctx.consumerOffsets->query(group, topic, queueId), 0);
    if (o.consumerOffset > 0)
        o.lastTimestamp = std::max<std::int64_t>(
            m_ctx.store->messageStoreTimestamp(topic, queueId, o.consumerOffset - 1), 0);
    return o;
}

} // namespace qrocket::broker
