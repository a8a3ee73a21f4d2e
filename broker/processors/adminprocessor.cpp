#include "broker/processors/adminprocessor.h"

#include "broker/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/logging.h"
#include "broker/processors/admincommon.h"
#include "clientlib/protocol/extensioncode.h"

#include <QDateTime>

#include <exception>

namespace qrocket::broker {

using protocol::RemotingCommand;

AdminProcessor::AdminProcessor(BrokerContext &ctx)
    : m_ctx(ctx), m_bootTimestamp(QDateTime::currentMSecsSinceEpoch())
{ }

const std::vector<int> &AdminProcessor::requestCodes()
{
    static const std::vector<int> codes {
        reqcode::kUpdateAndCreateTopic,
        reqcode::kDeleteTopicInBroker,
        reqcode::kGetAllTopicConfig,
        reqcode::kGetSystemTopicListFromBroker,
        reqcode::kGetBrokerRuntimeInfo,
        reqcode::kGetTopicStatsInfo,
        reqcode::kDeleteExpiredCommitLog,
        reqcode::kCleanExpiredConsumeQueue,
        reqcode::kGetConsumeStats,
        reqcode::kGetConsumerConnectionList,
        reqcode::kGetProducerConnectionList,
        reqcode::kQueryTopicConsumeByWho,
        reqcode::kInvokeBrokerToResetOffset,
        reqcode::kUpdateAndCreateSubscriptionGroup,
        reqcode::kDeleteSubscriptionGroup,
        reqcode::kGetAllSubscriptionGroupConfig,
        reqcode::kGetAllConsumerOffset,
        reqcode::kGetAllDelayOffset,
        reqcode::kGetBrokerConfig,
        reqcode::kUpdateBrokerConfig,
        reqcode::kGetConsumerRunningInfo,
        reqcode::kConsumeMessageDirectly,
        protocol::extensioncode::kGetStoreFiles,
    };
    return codes;
}

void AdminProcessor::processRequest(
    const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond)
{
    if (request.code == reqcode::kGetConsumerRunningInfo
        || request.code == reqcode::kConsumeMessageDirectly) {
        forwardToConsumer(request, std::move(respond));
        return;
    }
    RemotingCommand response;
    try {
        response = handle(request);
    } catch (const std::exception &e) {
        response = makeResponse(request, respcode::kSystemError, QByteArray(e.what()));
    }
    if (!request.isOneway())
        respond(std::move(response));
}

RemotingCommand AdminProcessor::handle(const RemotingCommand &request)
{
    if (!m_ctx.config || !m_ctx.store || !m_ctx.topics || !m_ctx.subscriptionGroups
        || !m_ctx.consumerOffsets)
        return makeResponse(request, respcode::kSystemError, QByteArrayLiteral("broker not ready"));
    switch (request.code) {
    case reqcode::kUpdateAndCreateTopic:
        return updateAndCreateTopic(request);
    case reqcode::kDeleteTopicInBroker:
        return deleteTopic(request);
    case reqcode::kGetAllTopicConfig:
        return allTopicConfig(request);
    case reqcode::kGetSystemTopicListFromBroker:
        return systemTopicList(request);
    case reqcode::kGetBrokerRuntimeInfo:
        return brokerRuntimeInfo(request);
    case reqcode::kGetTopicStatsInfo:
        return topicStatsInfo(request);
    case reqcode::kDeleteExpiredCommitLog:
    case reqcode::kCleanExpiredConsumeQueue:
        return deleteExpiredFiles(request);
    case protocol::extensioncode::kGetStoreFiles:
        return storeFiles(request);
    case reqcode::kGetConsumeStats:
        return consumeStats(request);
    case reqcode::kGetConsumerConnectionList:
        return consumerConnectionList(request);
    case reqcode::kGetProducerConnectionList:
        return producerConnectionList(request);
    case reqcode::kQueryTopicConsumeByWho:
        return topicConsumeByWho(request);
    case reqcode::kInvokeBrokerToResetOffset:
        return resetOffset(request);
    case reqcode::kUpdateAndCreateSubscriptionGroup:
        return updateSubscriptionGroup(request);
    case reqcode::kDeleteSubscriptionGroup:
        return deleteSubscriptionGroup(request);
    case reqcode::kGetAllSubscriptionGroupConfig:
        return allSubscriptionGroups(request);
    case reqcode::kGetAllConsumerOffset:
        return allConsumerOffsets(request);
    case reqcode::kGetAllDelayOffset:
        return allDelayOffsets(request);
    case reqcode::kGetBrokerConfig:
        return brokerConfig(request);
    case reqcode::kUpdateBrokerConfig:
        return updateBrokerConfig(request);
    default:
        return makeResponse(request, respcode::kRequestCodeNotSupported,
            QByteArrayLiteral(" request type ") + QByteArray::number(request.code)
                + QByteArrayLiteral(" not supported"));
    }
}

QByteArray AdminProcessor::brokerName() const
{
    return m_ctx.config ? m_ctx.config->brokerName.toUtf8() : QByteArray();
}

} // namespace qrocket::broker
