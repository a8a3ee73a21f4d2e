// AdminProcessor: topic requests (17, 215, 21, 305), protocol.md §4.9.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/topicattributes.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/protocol/json.h"
#include "storage/messagestore.h"

namespace qrocket::broker {

using protocol::RemotingCommand;

std::optional<RemotingCommand> AdminProcessor::prepareTopicUpdate(
    const RemotingCommand &request, TopicConfig &config)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    const std::optional<std::int32_t> readQueueNums = request.extInt("readQueueNums");
    const std::optional<std::int32_t> writeQueueNums = request.extInt("writeQueueNums");
    const std::optional<std::int32_t> permission = request.extInt("perm");
    for (const char *field : {"topic", "readQueueNums", "writeQueueNums", "perm"}) {
        if (request.extString(field).isEmpty())
            return makeResponse(
                request, toInt(ResponseCode::SystemError), missingFieldRemark(field));
    }
    if (!readQueueNums || !writeQueueNums || !permission)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("bad queue numbers or perm"));
    if (!m_ctx.config->isMaster())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("Can't modify topic or subscription group from slave broker, please "
                              "execute it from master broker."));
    if (Status s = topics::validateTopic(topic); !s)
        return makeResponse(request, toInt(ResponseCode::SystemError), utf8(s.message()));
    if (m_ctx.topics->isSystemTopic(topic))
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("The topic[") + topic
                + QByteArrayLiteral("] is conflict with system topic."));

    // RocketMQ 5's topic attributes ("+message.type=FIFO"): changes to the current ones; none
    // given keeps them (a RocketMQ 4.x tool's update does not drop them).
    const QByteArrayView attributes = request.extString("attributes");
    if (!m_ctx.config->enableMixedMessageType && setsMixedMessageType(attributes))
        return makeResponse(request, toInt(ResponseCode::InvalidParameter),
            QByteArrayLiteral("message.type MIXED is not allowed on this broker "
                              "(enableMixedMessageType=false)"));
    const std::optional<TopicConfig> current = m_ctx.topics->find(topic);
    Result<std::map<QByteArray, QByteArray>> altered = alterTopicAttributes(!current.has_value(),
        current ? current->attributes : std::map<QByteArray, QByteArray> {}, attributes);
    if (!altered)
        return makeResponse(
            request, toInt(ResponseCode::SystemError), utf8(altered.error().message()));

    config = TopicConfig(topic);
    config.attributes = std::move(*altered);
    config.readQueueNums = *readQueueNums;
    config.writeQueueNums = *writeQueueNums;
    config.perm = *permission;
    config.topicFilterType = request.extString("topicFilterType") == QByteArrayView("MULTI_TAG")
        ? TopicFilterType::MultiTag
        : TopicFilterType::SingleTag;
    config.topicSysFlag = request.extInt("topicSysFlag").value_or(0);
    return std::nullopt;
}

RemotingCommand AdminProcessor::topicUpdated(
    const RemotingCommand &request, const TopicConfig &config, const Status &stored)
{
    if (!stored)
        return makeResponse(request, toInt(ResponseCode::SystemError), utf8(stored.message()));
    // The topic manager's change listener registers the topic with the name servers.
    qCInfo(lcBrokerTopic).noquote()
        << "topic" << config.topicName << "created/updated by admin" << config.toJson();
    // RocketMQ answers SUCCESS with the default remark of an unset response.
    return makeResponse(
        request, toInt(ResponseCode::Success), QByteArrayLiteral("not set any response code"));
}

RemotingCommand AdminProcessor::updateAndCreateTopic(const RemotingCommand &request)
{
    TopicConfig config;
    if (auto refusal = prepareTopicUpdate(request, config))
        return std::move(*refusal);
    const Status stored = m_ctx.topics->updateTopicConfig(config);
    return topicUpdated(request, config, stored);
}

void AdminProcessor::updateAndCreateTopic(
    const RemotingCommand &request, remoting::Responder respond)
{
    TopicConfig config;
    if (auto refusal = prepareTopicUpdate(request, config)) {
        respond(std::move(*refusal));
        return;
    }
    // Answered once the change is durable, from the journal's sync thread when it has to wait:
    // the requests in flight meanwhile share one sync (a pipelined burst of creations costs a
    // few fdatasyncs, not one each).
    RemotingCommand head; // what the response takes from the request
    head.opaque = request.opaque;
    head.serializeType = request.serializeType;
    m_ctx.topics->updateTopicConfigAsync(
        config, [head = std::move(head), config, respond = std::move(respond)](Status stored) {
            respond(topicUpdated(head, config, stored));
        });
}

RemotingCommand AdminProcessor::deleteTopic(const RemotingCommand &request)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    if (topic.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark("topic"));
    // A name that is no topic ("../..") never reaches the store, whose consume-queue folders are
    // named after topics (the class of CVE-2019-17572).
    if (Status s = topics::validateTopic(topic); !s)
        return makeResponse(request, toInt(ResponseCode::SystemError), utf8(s.message()));
    if (!m_ctx.config->isMaster())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("Can't delete topic from slave broker"));
    if (m_ctx.topics->isSystemTopic(topic))
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("The topic[") + topic
                + QByteArrayLiteral("] is conflict with system topic."));
    // The topic's consume queues go too (a re-created topic starts at offset 0); its records
    // age out with the commit log and consumer offsets are kept, as RocketMQ does.
    const bool existed = m_ctx.topics->deleteTopicConfig(topic);
    const int queues = m_ctx.store ? m_ctx.store->deleteTopics({topic}) : 0;
    qCInfo(lcBrokerTopic).noquote()
        << "topic" << topic << (existed ? "deleted by admin" : "to delete did not exist") << "-"
        << queues << "consume queues deleted";
    if (m_ctx.registerBrokerAllNow)
        m_ctx.registerBrokerAllNow();
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::allTopicConfig(const RemotingCommand &request)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.topics->preparedBody();
    return response;
}

RemotingCommand AdminProcessor::systemTopicList(const RemotingCommand &request)
{
    QList<QByteArray> system;
    for (const QByteArray &topic : m_ctx.topics->topicNames()) {
        if (m_ctx.topics->isSystemTopic(topic))
            system.append(topic);
    }
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = protocol::TopicList {{system.begin(), system.end()}, {}}.toJson();
    return response;
}

} // namespace qrocket::broker
