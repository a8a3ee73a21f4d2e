#include "broker/timer/timerprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/timer/timermessagestore.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <charconv>

namespace qrocket::broker {

using protocol::RemotingCommand;
namespace mc = protocol::MessageConst;

namespace {

RemotingCommand withRegion(RemotingCommand r, const BrokerContext &ctx)
{
    r.extFields.emplace_back(QByteArrayLiteral("MSG_REGION"), ctx.config->regionId.toUtf8());
    return r;
}

} // namespace

void TimerProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    if (request.code == timer::kRecallMessage) {
        respond(recall(channel, request));
        return;
    }
    if (!m_timer) {
        respond(makeReply(request, toInt(ResponseCode::SystemError),
            request.code == timer::kGetTimerCheckPoint ? "The checkpoint is null"
                                                       : "The timer message store is null"));
        return;
    }
    RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
    r.body = request.code == timer::kGetTimerCheckPoint ? m_timer->checkpointBody()
                                                        : m_timer->metricsJson();
    respond(std::move(r));
}

RemotingCommand TimerProcessor::recall(
    const remoting::ChannelPtr &channel, const RemotingCommand &request)
{
    const BrokerConfig &config = *m_ctx.config;
    auto fail = [&](ResponseCode code, QByteArray remark) {
        return withRegion(makeReply(request, toInt(code), std::move(remark)), m_ctx);
    };
    auto illegal = [&](QByteArray remark) {
        return withRegion(makeReply(request, timer::kIllegalOperation, std::move(remark)), m_ctx);
    };
    if (QByteArray missing = missingExtField(request, {"topic", "recallHandle"});
        !missing.isEmpty())
        return fail(ResponseCode::SystemError, missing);
    if (!config.recallMessageEnable)
        return fail(ResponseCode::NoPermission, "recall failed, operation is forbidden");
    if (!config.isMaster() || config.brokerRole == QLatin1String("SLAVE") || !m_timer)
        return fail(ResponseCode::SlaveNotAvailable, "recall failed, broker service not available");
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    if (now < config.startAcceptSendRequestTimeStamp)
        return fail(
            ResponseCode::ServiceNotAvailable, "recall failed, broker service not available");
    if (!Perm::isWriteable(config.brokerPermission) && !config.allowRecallWhenBrokerNotWriteable)
        return fail(
            ResponseCode::ServiceNotAvailable, "recall failed, broker service not available");
    const QByteArray topic = *request.ext("topic");
    if (!m_ctx.topics->find(topic))
        return fail(
            ResponseCode::TopicNotExist, "recall failed, the topic[" + topic + "] not exist");
    const auto handle = timer::decodeRecallHandle(*request.ext("recallHandle"));
    if (!handle)
        return illegal("recall handle is invalid");
    if (handle->topic != topic)
        return illegal("recall failed, topic not match");
    if (handle->brokerName != config.brokerName.toUtf8())
        return illegal("recall failed, broker service not available");
    std::int64_t ts = -1;
    {
        const QByteArray &t = handle->timestamp;
        const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), ts);
        if (ec != std::errc() || ptr != t.data() + t.size())
            ts = -1;
    }
    const std::int64_t left = ts - now;
    const timer::TimerRules &rules = m_timer->rules();
    if (left <= 0 || left >= rules.maxDelayMs)
        return illegal("recall failed, timestamp invalid");

    storage::MessageExtBrokerInner marker;
    marker.topic = topic;
    marker.queueId = 0;
    marker.body = QByteArrayLiteral("0");
    protocol::MessageProperties props;
    props.set(mc::Tags.toByteArray(), QByteArrayLiteral("_RECALL_TAG_"));
    props.set(timer::prop::DelUniqKey.toByteArray(), timer::deleteKey(topic, handle->uniqKey));
    props.set(mc::UniqClientMessageIdKeyIdx.toByteArray(), handle->uniqKey);
    props.set(timer::prop::DeliverMs.toByteArray(), handle->timestamp);
    if (const QByteArray *group = request.ext("producerGroup"); group && !group->isEmpty())
        props.set(mc::ProducerGroup.toByteArray(), *group);
    marker.properties = props.encode();
    marker.bornTimestamp = now;
    channel->remoteHost(marker.bornHost);
    marker.storeHost = m_ctx.storeHostAddress;
    marker.waitStoreMsgOk = true;
    std::int64_t slot = 0;
    if (timer::applyTimer(marker, now, rules, &slot) != timer::TimerOutcome::Parked)
        return illegal("recall failed, timestamp invalid");
    storage::PutMessageResult put;
    switch (m_timer->recall(marker, slot, &put)) {
    case TimerMessageStore::RecallResult::AlreadyDue:
        return illegal("recall failed, timestamp invalid");
    case TimerMessageStore::RecallResult::PutFailed:
        return fail(ResponseCode::SystemError, "recall failed, execute error");
    case TimerMessageStore::RecallResult::Ok:
        break;
    }
    RemotingCommand ok = withRegion(makeReply(request, toInt(ResponseCode::Success)), m_ctx);
    ok.extFields.emplace_back(QByteArrayLiteral("msgId"), handle->uniqKey);
    return ok;
}

} // namespace qrocket::broker
