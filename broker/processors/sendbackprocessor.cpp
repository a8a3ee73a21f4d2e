#include "broker/processors/sendbackprocessor.h"

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/processors/admincommon.h"
#include "broker/schedule/schedulemessageservice.h"
#include "broker/stats/brokerstatsmanager.h"
#include "broker/timer/timertransform.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QRandomGenerator>

namespace qrocket::broker {

namespace MessageConst = protocol::MessageConst;
using protocol::RemotingCommand;

namespace {

int randomQueue(int queueNums)
{
    return queueNums > 1 ? static_cast<int>(QRandomGenerator::global()->bounded(queueNums)) : 0;
}

} // namespace

void SendBackProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    const std::optional<std::int64_t> offset = request.extLong("offset");
    const QByteArray group = request.extString("group").toByteArray();
    const std::optional<std::int32_t> headerDelay = request.extInt("delayLevel");
    if (!offset || group.isEmpty() || !headerDelay) {
        const char *field = !offset ? "offset" : group.isEmpty() ? "group" : "delayLevel";
        respond(makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark(field)));
        return;
    }
    // Before anything is created or stored: a group whose retry topic no topic may be would
    // leave a delayed message that can never be delivered.
    if (Status st = topics::validateGroup(group); !st) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError), utf8(st.message())));
        return;
    }
    if (!m_ctx.store || !m_ctx.topics || !m_ctx.subscriptionGroups) {
        respond(makeResponse(
            request, toInt(ResponseCode::SystemError), QByteArrayLiteral("broker not ready")));
        return;
    }

    const std::optional<protocol::SubscriptionGroupConfig> groupConfig
        = m_ctx.subscriptionGroups->findOrCreate(group);
    if (!groupConfig) {
        respond(makeResponse(request, toInt(ResponseCode::SubscriptionGroupNotExist),
            QByteArrayLiteral("subscription group not exist, ") + group));
        return;
    }
    if (m_ctx.config && !Perm::isWriteable(m_ctx.config->brokerPermission)) {
        respond(makeResponse(request, toInt(ResponseCode::NoPermission),
            QByteArrayLiteral("the broker[") + m_ctx.config->brokerIP1.toUtf8()
                + QByteArrayLiteral("] sending message is forbidden")));
        return;
    }
    if (groupConfig->retryQueueNums <= 0) {
        respond(makeResponse(request, toInt(ResponseCode::Success)));
        return;
    }

    QByteArray newTopic = topics::retryTopic(group);
    int queueId = randomQueue(groupConfig->retryQueueNums);
    // A new retry or DLQ topic reaches the name servers through the topic manager's change
    // listener (an incremental registration).
    Result<TopicConfig> retryConfig
        = m_ctx.topics->createRetryTopic(group, groupConfig->retryQueueNums);
    if (!retryConfig) {
        respond(makeResponse(
            request, toInt(ResponseCode::SystemError), utf8(retryConfig.error().message())));
        return;
    }
    if (!Perm::isWriteable(retryConfig->perm)) {
        respond(makeResponse(request, toInt(ResponseCode::NoPermission),
            QByteArrayLiteral("the topic[") + newTopic
                + QByteArrayLiteral("] sending message is forbidden")));
        return;
    }

    const storage::SelectedRecord sel = m_ctx.store->lookMessageByOffset(*offset);
    protocol::MessageRecordView rec;
    if (!sel.isValid()
        || protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("look message by offset failed, ") + QByteArray::number(*offset)));
        return;
    }

    protocol::MessageProperties props = protocol::MessageProperties::parse(rec.properties);
    if (!props.contains(MessageConst::RetryTopic))
        props.set(MessageConst::RetryTopic.toByteArray(), rec.topic.toByteArray());
    props.set(MessageConst::WaitStoreMsgOk.toByteArray(), QByteArrayLiteral("false"));

    int delayLevel = *headerDelay;
    int maxReconsumeTimes = groupConfig->retryMaxTimes;
    if (request.version >= kVersionV3_4_9) {
        if (const std::optional<std::int32_t> m = request.extInt("maxReconsumeTimes"))
            maxReconsumeTimes = *m;
    }
    if (rec.reconsumeTimes >= maxReconsumeTimes || delayLevel < 0) {
        newTopic = topics::dlqTopic(group);
        queueId = 0;
        const Result<TopicConfig> dlq = m_ctx.topics->createDlqTopic(group);
        if (!dlq) {
            respond(makeResponse(
                request, toInt(ResponseCode::SystemError), utf8(dlq.error().message())));
            return;
        }
        if (!Perm::isWriteable(dlq->perm)) {
            respond(makeResponse(request, toInt(ResponseCode::NoPermission),
                QByteArrayLiteral("the topic[") + newTopic
                    + QByteArrayLiteral("] sending message is forbidden")));
            return;
        }
        props.remove(MessageConst::DelayTimeLevel);
    } else {
        if (delayLevel == 0)
            delayLevel = 3 + rec.reconsumeTimes;
        props.set(MessageConst::DelayTimeLevel.toByteArray(), QByteArray::number(delayLevel));
    }

    const QByteArray originMsgId = props.contains(MessageConst::OriginMessageId)
        ? props.value(MessageConst::OriginMessageId)
        : protocol::encodeOffsetMessageId(rec.storeHost, rec.physicalOffset);
    props.set(MessageConst::OriginMessageId.toByteArray(), originMsgId);

    storage::MessageExtBrokerInner inner;
    inner.topic = newTopic;
    inner.queueId = queueId;
    inner.flag = rec.flag;
    inner.sysFlag = rec.sysFlag;
    inner.bornTimestamp = rec.bornTimestamp;
    inner.bornHost = rec.bornHost;
    if (m_ctx.storeHostAddress.port != 0)
        inner.storeHost = m_ctx.storeHostAddress;
    else if (!protocol::HostAddress::parse(m_ctx.storeHost, inner.storeHost))
        inner.storeHost = rec.storeHost;
    inner.reconsumeTimes = rec.reconsumeTimes + 1;
    inner.body = rec.body.toByteArray();
    inner.properties = props.encode();
    inner.waitStoreMsgOk = false;
    if (m_ctx.schedule)
        m_ctx.schedule->transform(inner);
    // Timer properties: a delay level wins (they are dropped); a DLQ message follows the rules.
    if (auto refusal
        = timer::applyOnSend(m_ctx.store->config(), inner, QDateTime::currentMSecsSinceEpoch())) {
        respond(makeResponse(request, refusal->code, std::move(refusal->remark)));
        return;
    }

    qCDebug(lcBroker) << "send back from" << (channel ? channel->remoteAddress() : QByteArray())
                      << "offset" << *offset << "->" << inner.topic << inner.queueId
                      << "reconsumeTimes" << inner.reconsumeTimes;
    // RocketMQ counts a stored send-back under the message's first topic, and the schedule
    // topic's put when it went there.
    m_ctx.store->putMessage(inner,
        [request = std::move(request), respond = std::move(respond), ctx = &m_ctx, group,
            backTopic = props.value(MessageConst::RetryTopic),
            scheduled = inner.topic == topics::kSchedule](const storage::PutMessageResult &r) {
            if (r.isOk() && ctx->statsManager) {
                if (scheduled)
                    ctx->statsManager->onTopicPut(topics::kSchedule, 1, r.wroteBytes);
                ctx->statsManager->onSendBack(group, backTopic);
            }
            if (r.isOk())
                respond(makeResponse(request, toInt(ResponseCode::Success)));
            else
                respond(makeResponse(request, toInt(ResponseCode::SystemError),
                    QByteArray(storage::putMessageStatusName(r.status))));
        });
}

} // namespace qrocket::broker
