// AdminProcessor: subscription groups, offsets tables and the broker config (200, 207, 201, 43,
// 45, 26, 25), protocol.md §4.4, §4.9.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/config/brokerconfiguration.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/common/properties.h"
#include "storage/messagestore.h"

#include <algorithm>

namespace qrocket::broker {

using protocol::RemotingCommand;

void AdminProcessor::updateSubscriptionGroup(
    const RemotingCommand &request, remoting::Responder respond)
{
    Result<protocol::SubscriptionGroupConfig> config
        = protocol::SubscriptionGroupConfig::fromJson(request.body);
    if (!config.has_value() || !m_ctx.config->isMaster()) {
        respond(updateSubscriptionGroup(request)); // the refusal
        return;
    }
    // Answered once the change is durable, as a topic creation (see updateAndCreateTopic()).
    RemotingCommand head; // what the response takes from the request
    head.opaque = request.opaque;
    head.serializeType = request.serializeType;
    const QByteArray name = config.value().groupName;
    m_ctx.subscriptionGroups->updateAsync(std::move(config.value()),
        [head = std::move(head), name, respond = std::move(respond)](Status stored) {
            if (!stored) {
                respond(
                    makeResponse(head, toInt(ResponseCode::SystemError), utf8(stored.message())));
                return;
            }
            qCInfo(lcBroker).noquote()
                << "subscription group" << name << "created/updated by admin";
            respond(makeResponse(head, toInt(ResponseCode::Success)));
        });
}

RemotingCommand AdminProcessor::updateSubscriptionGroup(const RemotingCommand &request)
{
    Result<protocol::SubscriptionGroupConfig> config
        = protocol::SubscriptionGroupConfig::fromJson(request.body);
    if (!config.has_value())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), utf8(config.error().message()));
    if (!m_ctx.config->isMaster())
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("Can't modify topic or subscription group from slave broker"));
    const QByteArray name = config.value().groupName;
    if (Status s = m_ctx.subscriptionGroups->update(std::move(config.value())); !s)
        return makeResponse(request, toInt(ResponseCode::SystemError), utf8(s.message()));
    qCInfo(lcBroker).noquote() << "subscription group" << name << "created/updated by admin";
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::deleteSubscriptionGroup(const RemotingCommand &request)
{
    const QByteArray group = request.extString("groupName").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("groupName"));
    m_ctx.subscriptionGroups->remove(group);
    if (request.extBool("removeOffset").value_or(false))
        m_ctx.consumerOffsets->removeGroup(group);
    qCInfo(lcBroker).noquote() << "subscription group" << group << "deleted by admin";
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::allSubscriptionGroups(const RemotingCommand &request)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.subscriptionGroups->preparedBody();
    return response;
}

RemotingCommand AdminProcessor::allConsumerOffsets(const RemotingCommand &request)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.consumerOffsets->encode();
    return response;
}

RemotingCommand AdminProcessor::allDelayOffsets(const RemotingCommand &request)
{
    if (!m_ctx.delayOffsets)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("No delay offset in this broker"));
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = m_ctx.delayOffsets->encode();
    return response;
}

RemotingCommand AdminProcessor::brokerConfig(const RemotingCommand &request)
{
    // RocketMQ's Configuration.getAllConfigsFormatString() and its DataVersion.
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.setExt(QByteArrayLiteral("version"), m_ctx.configuration->dataVersion().toJson());
    response.body = m_ctx.configuration->text();
    return response;
}

RemotingCommand AdminProcessor::updateBrokerConfig(const RemotingCommand &request)
{
    // RocketMQ answers SUCCESS at once without a body; any text parses (as Java's
    // Properties.load), and even an empty table bumps the version and rewrites the file.
    if (request.body.isEmpty())
        return makeResponse(request, toInt(ResponseCode::Success));
    const Properties props = parseProperties(request.body);
    Result<BrokerConfiguration::Update> updated = m_ctx.configuration->update(props);
    if (!updated) {
        const bool blackListed = updated.error().code() == Status::Code::NotSupported;
        qCWarning(lcBrokerConfig).noquote()
            << "broker config update refused:" << updated.error().message();
        return makeResponse(request,
            toInt(blackListed ? ResponseCode::NoPermission : ResponseCode::SystemError),
            utf8(updated.error().message()));
    }
    const BrokerConfiguration::Update &u = updated.value();
    qCInfo(lcBrokerConfig).noquote()
        << "broker config updated by admin:" << QString::fromUtf8(request.body).trimmed()
        << "applied now:" << u.appliedNow.join(QLatin1Char(','))
        << "at next start:" << u.atNextStart.join(QLatin1Char(','))
        << "unknown, ignored:" << u.ignored.join(QLatin1Char(','));
    const bool permission = std::any_of(props.cbegin(), props.cend(),
        [](const PropertyEntry &e) { return e.key == QLatin1String("brokerPermission"); });
    if (permission) {
        // As RocketMQ: a new topic-config DataVersion and a forced registration, so the routes
        // carry the new permission at once.
        m_ctx.topics->nextDataVersion();
        if (m_ctx.registerBrokerAllNow)
            m_ctx.registerBrokerAllNow();
    }
    return makeResponse(request, toInt(ResponseCode::Success));
}

} // namespace qrocket::broker
