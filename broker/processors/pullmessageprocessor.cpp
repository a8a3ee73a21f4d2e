#include "broker/processors/pullmessageprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/filter/sqlfiltercache.h"
#include "broker/longpolling/pullrequestholdservice.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/core/multidispatch.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>

namespace qrocket::broker {

using protocol::RemotingCommand;
using storage::GetMessageStatus;

namespace {

constexpr std::int64_t kMaxHoldMillis = 3600 * 1000;

/// The broker's answer for a store status (§4.2 table).
int responseCodeFor(GetMessageStatus status, std::int64_t requestedOffset)
{
    switch (status) {
    case GetMessageStatus::Found:
        return toInt(ResponseCode::Success);
    case GetMessageStatus::NoMatchedMessage:
    case GetMessageStatus::MessageWasRemoving:
        return toInt(ResponseCode::PullRetryImmediately);
    case GetMessageStatus::NoMatchedLogicQueue:
    case GetMessageStatus::NoMessageInQueue:
        return requestedOffset != 0 ? toInt(ResponseCode::PullOffsetMoved)
                                    : toInt(ResponseCode::PullNotFound);
    case GetMessageStatus::OffsetFoundNull:
    case GetMessageStatus::OffsetOverflowOne:
        return toInt(ResponseCode::PullNotFound);
    case GetMessageStatus::OffsetOverflowBadly:
    case GetMessageStatus::OffsetTooSmall:
        return toInt(ResponseCode::PullOffsetMoved);
    }
    return toInt(ResponseCode::SystemError);
}

storage::MessageFilter filterOf(const SubscriptionData &sub)
{
    if (sub.isSubAll() || sub.codeSet.empty()) // a heartbeat without codes: parse subString
        return storage::MessageFilter::fromTagExpression(sub.subString);
    storage::MessageFilter f;
    f.matchAll = false;
    f.codes.assign(sub.codeSet.begin(), sub.codeSet.end());
    return f;
}

/// filterSupportRetry: a pull from %RETRY%<group> evaluates each message against the group's
/// SQL92 selector of the message's original topic (RETRY_TOPIC), as RocketMQ's
/// ExpressionForRetryMessageFilter does. Messages with no such property, or whose topic the
/// group subscribes by tag, pass. Looks the subscription up per message: retry pulls are few.
class RetryTopicFilter final : public storage::PropertyFilter
{
public:
    RetryTopicFilter(
        QByteArray group, const ConsumerManager &consumers, filter::SqlFilterCache &cache)
        : m_group(std::move(group)), m_consumers(consumers), m_cache(cache)
    { }
    bool matches(QByteArrayView properties) const override
    {
        const QByteArrayView realTopic
            = protocol::findProperty(properties, protocol::MessageConst::RetryTopic);
        if (realTopic.isEmpty())
            return true;
        const auto sub = m_consumers.findSubscription(m_group, realTopic);
        if (!sub || filter::isTagType(sub->expressionType))
            return true;
        const auto compiled = m_cache.forSubscription(sub->expressionType, sub->subString);
        return !compiled || (*compiled)->matches(properties); // RocketMQ: no filter data, no filter
    }

private:
    const QByteArray m_group;
    const ConsumerManager &m_consumers;
    filter::SqlFilterCache &m_cache;
};

} // namespace

void PullMessageProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    if (auto response = process(channel, request, respond, true))
        respond(std::move(*response));
}

bool PullMessageProcessor::rejectRequest() const
{
    return refusesReads();
}

bool PullMessageProcessor::refusesReads() const
{
    const BrokerConfig &config = *m_ctx.config;
    return config.enableControllerMode && !config.isMaster() && !config.slaveReadEnable;
}

void PullMessageProcessor::executeWakeup(HeldPull &&pull)
{
    if (pull.channel && !pull.channel->isActive())
        return;
    if (auto response = process(pull.channel, pull.request, pull.respond, false))
        pull.respond(std::move(*response));
}

std::optional<RemotingCommand> PullMessageProcessor::process(const remoting::ChannelPtr &channel,
    const RemotingCommand &request, const remoting::Responder &respond, bool allowSuspend)
{
    const auto begin = std::chrono::steady_clock::now(); // GROUP_GET_LATENCY counts from here
    const BrokerConfig &config = *m_ctx.config;
    if (QByteArray missing = missingExtField(request,
            {"consumerGroup", "topic", "queueId", "queueOffset", "maxMsgNums", "sysFlag",
                "commitOffset", "suspendTimeoutMillis", "subVersion"});
        !missing.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError), missing);
    const QByteArrayView group = request.extString("consumerGroup");
    const QByteArrayView topic = request.extString("topic");
    const int queueId = request.extInt("queueId").value_or(-1);
    const std::int64_t queueOffset = request.extLong("queueOffset").value_or(0);
    const int maxMsgNums = std::max(1, request.extInt("maxMsgNums").value_or(32));
    const int sysFlag = request.extInt("sysFlag").value_or(0);
    const std::int64_t commitOffset = request.extLong("commitOffset").value_or(-1);
    const std::int64_t suspendMillis = request.extLong("suspendTimeoutMillis").value_or(15000);
    const std::int64_t subVersion = request.extLong("subVersion").value_or(0);

    if (!Perm::isReadable(config.brokerPermission))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the broker[" + config.brokerIP1.toUtf8() + "] pulling message is forbidden");
    const auto groupConfig = m_ctx.subscriptionGroups->findOrCreate(group);
    if (!groupConfig)
        return makeReply(request, toInt(ResponseCode::SubscriptionGroupNotExist),
            "subscription group [" + group.toByteArray() + "] does not exist");
    if (!groupConfig->consumeEnable)
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "subscription group no permission, " + group.toByteArray());
    auto topicConfig = m_ctx.topics->find(topic);
    // A light queue (enableLmq, RocketMQ's LmqTopicConfigManager): no topic config, one queue,
    // readable and writable. Without enableLmq its name is an unknown topic like any other.
    if (!topicConfig && m_ctx.store->config().enableLmq && storage::isLmqName(topic))
        topicConfig = TopicConfig(topic.toByteArray(), 1);
    if (!topicConfig)
        return makeReply(request, toInt(ResponseCode::TopicNotExist),
            "topic[" + topic.toByteArray() + "] not exist, apply first please!");
    if (!Perm::isReadable(topicConfig->perm))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the topic[" + topic.toByteArray() + "] pulling message is forbidden");
    if (queueId < 0 || queueId >= topicConfig->readQueueNums)
        return makeReply(request, toInt(ResponseCode::SystemError),
            "queueId[" + QByteArray::number(queueId) + "] is illegal, topic:[" + topic.toByteArray()
                + "] topicConfig.readQueueNums:[" + QByteArray::number(topicConfig->readQueueNums)
                + "] consumer:[" + channel->remoteAddress() + "]");

    storage::MessageFilter filter;
    const bool hasSubscription = sysFlag & pullsysflag::kSubscription;
    std::optional<SubscriptionData> sub; // the heartbeat's, without the flag
    QByteArrayView expressionType; // of the subscription in force (in `request` or `sub`)
    if (hasSubscription) {
        expressionType = request.extString("expressionType");
        const QByteArrayView expression = request.extString("subscription");
        if (filter::isTagType(expressionType)) {
            filter = storage::MessageFilter::fromTagExpression(expression);
        } else {
            auto compiled
                = filter::subscriptionFilter(m_ctx.sqlFilters, expressionType, expression);
            if (!compiled)
                return makeReply(request, toInt(ResponseCode::SubscriptionParseFailed),
                    "parse the consumer's subscription failed: "
                        + compiled.error().message().toUtf8());
            filter = storage::MessageFilter::fromProperties(std::move(compiled).value());
        }
    } else {
        if (!groupConfig->consumeBroadcastEnable) {
            const auto info = m_ctx.consumers->groupInfo(group);
            if (info && info->messageModel == MessageModel::Broadcasting)
                return makeReply(request, toInt(ResponseCode::NoPermission),
                    "the consumer group[" + group.toByteArray()
                        + "] can not consume by broadcast way");
        }
        sub = m_ctx.consumers->findSubscription(group, topic);
        if (!sub)
            return makeReply(request, toInt(ResponseCode::SubscriptionNotExist),
                "the consumer's subscription not exist");
        if (sub->subVersion < subVersion)
            return makeReply(request, toInt(ResponseCode::SubscriptionNotLatest),
                "the consumer's subscription not latest");
        expressionType = sub->expressionType;
        if (filter::isTagType(expressionType)) {
            filter = filterOf(*sub);
        } else {
            // RocketMQ compiles a heartbeat's selector when it registers it and answers this
            // when there is none (it did not compile).
            auto compiled
                = filter::subscriptionFilter(m_ctx.sqlFilters, expressionType, sub->subString);
            if (!compiled)
                return makeReply(request, toInt(ResponseCode::FilterDataNotExist),
                    "The broker's consumer filter data is not exist!Your expression may be "
                    "wrong! "
                        + compiled.error().message().toUtf8());
            filter = storage::MessageFilter::fromProperties(std::move(compiled).value());
        }
    }
    if (!filter::isTagType(expressionType) && !config.enablePropertyFilter)
        return makeReply(request, toInt(ResponseCode::SystemError),
            filter::unsupportedFilterRemark(expressionType));
    if (config.filterSupportRetry && topics::isRetryTopic(topic) && m_ctx.sqlFilters
        && !filter.properties)
        filter.properties = std::make_shared<RetryTopicFilter>(
            group.toByteArray(), *m_ctx.consumers, *m_ctx.sqlFilters);

    const auto readStart = std::chrono::steady_clock::now();
    const storage::GetMessageResult result = m_ctx.store->getMessage(
        group, topic, queueId, queueOffset, maxMsgNums, filter.acceptsAll() ? nullptr : &filter);
    if (m_ctx.stats) // RocketMQ's StoreStatsService counts each read, found or missed
        m_ctx.stats->onGetMessage(result.status == GetMessageStatus::Found,
            std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::steady_clock::now() - readStart)
                .count());
    const int code = responseCodeFor(result.status, queueOffset);
    if (code == toInt(ResponseCode::PullNotFound) && allowSuspend
        && (sysFlag & pullsysflag::kSuspend) && m_ctx.pullHold) {
        HeldPull held;
        held.channel = channel;
        held.request = request;
        held.respond = respond;
        held.topic = topic.toByteArray();
        held.queueId = queueId;
        held.pullFromOffset = queueOffset;
        held.filter = std::move(filter);
        held.suspendedAt = std::chrono::steady_clock::now();
        const std::int64_t hold
            = config.longPollingEnable ? suspendMillis : config.shortPollingTimeMills;
        // Bounded whatever the client asked (a held pull must never outlive sane timeouts).
        held.deadline = held.suspendedAt
            + std::chrono::milliseconds(std::clamp<std::int64_t>(hold, 0, kMaxHoldMillis));
        // Commit the piggy-backed offset now: the replay does not commit.
        if ((sysFlag & pullsysflag::kCommitOffset) && config.isMaster())
            m_ctx.consumerOffsets->commit(group, topic, queueId, commitOffset);
        m_ctx.pullHold->suspend(std::move(held));
        return std::nullopt;
    }

    RemotingCommand response = makeReply(request, code, getMessageStatusName(result.status));
    std::int64_t suggest = 0; // the master, unless slave reads are enabled
    if (config.slaveReadEnable)
        suggest = result.suggestPullingFromSlave ? groupConfig->whichBrokerWhenConsumeSlowly
                                                 : groupConfig->brokerId;
    std::int64_t nextBeginOffset = result.nextBeginOffset;
    if (refusesReads()) {
        // Only when the role changed after rejectRequest() let the pull in (a parked pull woken
        // on a broker that became a follower): nothing is served, so nothing may be skipped.
        response.code = toInt(ResponseCode::PullRetryImmediately);
        nextBeginOffset = queueOffset;
    }
    // A plain-mode slave without slaveReadEnable serves what it has, as RocketMQ 4.9.7 does
    // (its status mapping overrides the slave's retry code): FOUND is SUCCESS with the exact
    // next offset, suggestWhichBrokerId the master (0). Every other status keeps the requested
    // offset here: the store corrects offsets on a slave only with offsetCheckInSlave.
    if (response.code == toInt(ResponseCode::PullOffsetMoved)) {
        // RocketMQ: a master (or a slave with offsetCheckInSlave) corrects the offset and posts
        // an OFFSET_MOVED_EVENT; any other slave asks for an immediate retry instead.
        if (config.isMaster() || m_ctx.store->config().offsetCheckInSlave) {
            postOffsetMovedEvent(group, topic, queueId, queueOffset, result.nextBeginOffset);
        } else {
            suggest = groupConfig->brokerId;
            response.code = toInt(ResponseCode::PullRetryImmediately);
        }
    }
    response.setExt("suggestWhichBrokerId", suggest);
    response.setExt("nextBeginOffset", nextBeginOffset);
    response.setExt("minOffset", result.minOffset);
    response.setExt("maxOffset", result.maxOffset);
    if (response.code == toInt(ResponseCode::Success)) {
        response.body = result.concatenated();
        if (m_ctx.statsManager)
            m_ctx.statsManager->onGet(group, topic, queueId, result.messageCount(),
                result.bufferTotalSize,
                std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - begin)
                    .count());
    }

    if (allowSuspend && (sysFlag & pullsysflag::kCommitOffset) && config.isMaster())
        m_ctx.consumerOffsets->commit(group, topic, queueId, commitOffset);
    return response;
}

void PullMessageProcessor::postOffsetMovedEvent(QByteArrayView group, QByteArrayView topic,
    int queueId, std::int64_t offsetRequest, std::int64_t offsetNew)
{
    // RocketMQ's OffsetMovedEvent JSON (fastjson: keys sorted) in a message to OFFSET_MOVED_EVENT
    // queue 0, tagged and keyed with the group, born and stored by this broker.
    protocol::JsonWriter w;
    w.beginObject();
    w.key("consumerGroup").value(group);
    w.key("messageQueue").beginObject();
    w.key("brokerName").value(QByteArrayView(m_ctx.config->brokerName.toUtf8()));
    w.key("queueId").value(queueId);
    w.key("topic").value(topic);
    w.endObject();
    w.key("offsetNew").value(offsetNew);
    w.key("offsetRequest").value(offsetRequest);
    w.endObject();

    protocol::MessageProperties props;
    props.set(QByteArrayLiteral("TAGS"), group.toByteArray());
    props.set(QByteArrayLiteral("DELAY"), QByteArrayLiteral("0"));
    props.set(QByteArrayLiteral("KEYS"), group.toByteArray());
    storage::MessageExtBrokerInner inner;
    inner.topic = QByteArray(topics::kOffsetMovedEvent);
    inner.queueId = 0;
    inner.bornTimestamp = QDateTime::currentMSecsSinceEpoch();
    inner.bornHost = m_ctx.storeHostAddress;
    inner.storeHost = m_ctx.storeHostAddress;
    inner.body = w.take();
    inner.properties = props.encode();
    inner.waitStoreMsgOk = false;
    m_ctx.store->putMessage(inner, [](const storage::PutMessageResult &r) {
        if (!r.isOk())
            qCWarning(lcBroker) << "OFFSET_MOVED_EVENT not stored:"
                                << storage::putMessageStatusName(r.status);
    });
}

} // namespace qrocket::broker
