#include "broker/pop/popprocessor.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/filter/sqlfiltercache.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/pop/popservice.h"
#include "broker/pop/requestmodemanager.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/systemtopics.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <algorithm>
#include <map>
#include <tuple>

namespace qrocket::broker::pop {

namespace popcode = protocol::popcode;
using protocol::RemotingCommand;

namespace {

constexpr std::int64_t kMaxPollMillis = 3600 * 1000;
constexpr std::int64_t kMaxInvisibleMillis = 7LL * 24 * 3600 * 1000;

QByteArray utf8(const QString &s)
{
    return s.toUtf8();
}

RemotingCommand decodeError(const RemotingCommand &request, const Status &st)
{
    return makeReply(request, toInt(ResponseCode::SystemError), utf8(st.message()));
}

RemotingCommand topicNotExist(const RemotingCommand &request, const QByteArray &topic)
{
    return makeReply(request, toInt(ResponseCode::TopicNotExist),
        "topic[" + topic + "] not exist, apply first please!");
}

/// RocketMQ's "queueId[..] is illegal" answer; `consumer` is appended when not null.
RemotingCommand illegalQueue(const RemotingCommand &request, int code, int queueId,
    const QByteArray &topic, int readQueueNums, const QByteArray *consumer = nullptr)
{
    QByteArray remark = "queueId[" + QByteArray::number(queueId) + "] is illegal, topic:[" + topic
        + "] topicConfig.readQueueNums:[" + QByteArray::number(readQueueNums) + "]";
    if (consumer)
        remark += " consumer:[" + *consumer + "]";
    return makeReply(request, code, remark);
}

/// Ack and change-invisible-time name an offset that must still be in the queue.
std::optional<RemotingCommand> offsetOutOfQueue(const RemotingCommand &request,
    storage::MessageStore &store, const QByteArray &realTopic, int queueId, std::int64_t offset)
{
    const std::int64_t minOffset = store.minOffsetInQueue(realTopic, queueId);
    const std::int64_t maxOffset = store.maxOffsetInQueue(realTopic, queueId);
    if (offset >= minOffset && offset < maxOffset)
        return std::nullopt;
    return makeReply(request, toInt(ResponseCode::NoMessage),
        "offset is illegal, key:" + realTopic + "@" + QByteArray::number(queueId)
            + ", commit:" + QByteArray::number(offset) + ", store:" + QByteArray::number(minOffset)
            + "~" + QByteArray::number(maxOffset));
}

/// AllocateMessageQueueAveragely / AllocateMessageQueueAveragelyByCircle ("AVG",
/// "AVG_BY_CIRCLE"); nullopt for another strategy name.
std::optional<std::vector<protocol::MessageQueue>> allocate(const QByteArray &strategy,
    const QByteArray &clientId, const std::vector<protocol::MessageQueue> &all,
    const std::vector<QByteArray> &cids)
{
    std::vector<protocol::MessageQueue> out;
    const auto it = std::find(cids.begin(), cids.end(), clientId);
    if (it == cids.end() || all.empty())
        return strategy == "AVG" || strategy == "AVG_BY_CIRCLE" ? std::optional(out) : std::nullopt;
    const auto index = static_cast<std::size_t>(it - cids.begin());
    if (strategy == "AVG") {
        const std::size_t n = all.size();
        const std::size_t c = cids.size();
        const std::size_t mod = n % c;
        const std::size_t average = n <= c ? 1 : (mod > 0 && index < mod ? n / c + 1 : n / c);
        const std::size_t start = mod > 0 && index < mod ? index * average : index * average + mod;
        const std::size_t range = start < n ? std::min(average, n - start) : 0;
        for (std::size_t i = 0; i < range; ++i)
            out.push_back(all[(start + i) % n]);
        return out;
    }
    if (strategy == "AVG_BY_CIRCLE") {
        for (std::size_t i = index; i < all.size(); i += cids.size())
            out.push_back(all[i]);
        return out;
    }
    return std::nullopt;
}

} // namespace

PopProcessor::PopProcessor(BrokerContext &ctx, PopService &service, RequestModeManager &modes,
    remoting::ExecutorPtr executor)
    : m_ctx(ctx), m_service(service), m_modes(modes), m_executor(std::move(executor))
{ }

std::vector<int> PopProcessor::requestCodes()
{
    return {popcode::PopMessage, popcode::AckMessage, popcode::BatchAckMessage,
        popcode::PeekMessage, popcode::ChangeMessageInvisibleTime, popcode::Notification,
        popcode::PollingInfo, popcode::PopRollback, popcode::QueryAssignment,
        popcode::SetMessageRequestMode, popcode::GetAllMessageRequestMode, popcode::GetTopicConfig,
        popcode::GetSubscriptionGroupConfig, protocol::extensioncode::kGetPopStats};
}

void PopProcessor::attach()
{
    std::weak_ptr<PopProcessor> weak = weak_from_this();
    m_service.setHoldWakeup([weak](std::shared_ptr<HeldPop> pop, bool timedOut) {
        if (auto self = weak.lock())
            self->wakeup(std::move(pop), timedOut);
    });
}

void PopProcessor::wakeup(std::shared_ptr<HeldPop> pop, bool timedOut)
{
    auto self = shared_from_this();
    auto task = [self, pop, timedOut] {
        if (pop->channel && !pop->channel->isActive())
            return;
        const bool notification = pop->request.code == popcode::Notification;
        if (auto response = self->popMessage(
                pop->channel, pop->request, pop->respond, !timedOut, pop->deadline, notification))
            pop->respond(std::move(*response));
    };
    if (!m_executor || !m_executor->tryExecute(task))
        pop->respond(makeReply(pop->request, toInt(ResponseCode::SystemBusy),
            "[OVERLOAD]system busy, start flow control for a while"));
}

void PopProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    std::optional<RemotingCommand> response;
    switch (request.code) {
    case popcode::PopMessage:
        response = popMessage(channel, request, respond, true, std::nullopt, false);
        break;
    case popcode::Notification:
        response = popMessage(channel, request, respond, true, std::nullopt, true);
        break;
    case popcode::AckMessage:
        response = ackMessage(request);
        break;
    case popcode::BatchAckMessage:
        response = batchAckMessage(request);
        break;
    case popcode::ChangeMessageInvisibleTime:
        response = changeInvisibleTime(request);
        break;
    case popcode::PeekMessage:
        response = peekMessage(request);
        break;
    case popcode::PollingInfo:
        response = pollingInfo(request);
        break;
    case popcode::PopRollback:
        // RocketMQ moves POP state from its RocksDB store back to the file store; QRocket keeps
        // one store, so there is nothing to move.
        response = makeReply(request, toInt(ResponseCode::Success));
        break;
    case popcode::QueryAssignment:
        response = queryAssignment(request);
        break;
    case popcode::SetMessageRequestMode:
        response = setRequestMode(request);
        break;
    case popcode::GetAllMessageRequestMode: {
        RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
        r.body = m_modes.toJson();
        response = std::move(r);
        break;
    }
    case popcode::GetTopicConfig:
        response = getTopicConfig(request);
        break;
    case popcode::GetSubscriptionGroupConfig:
        response = getGroupConfig(request);
        break;
    case protocol::extensioncode::kGetPopStats:
        response = popStats(request);
        break;
    default:
        response = makeReply(request, toInt(ResponseCode::RequestCodeNotSupported),
            "request type " + QByteArray::number(request.code) + " not supported");
    }
    if (response)
        respond(std::move(*response));
}

std::optional<RemotingCommand> PopProcessor::popMessage(const remoting::ChannelPtr &channel,
    const RemotingCommand &request, const remoting::Responder &respond, bool allowSuspend,
    Deadline deadline, bool notification)
{
    const BrokerConfig &config = *m_ctx.config;
    const QByteArray brokerIp = config.brokerIP1.toUtf8();
    PopRequest req;
    std::int64_t pollTime = 0;
    std::int64_t bornTime = 0;
    if (notification) {
        auto h = protocol::NotificationRequestHeader::decode(request);
        if (!h)
            return decodeError(request, h.error());
        req.group = h->consumerGroup;
        req.topic = h->topic;
        req.queueId = h->queueId;
        req.order = h->order.value_or(false);
        pollTime = h->pollTime;
        bornTime = h->bornTime;
    } else {
        auto h = protocol::PopMessageRequestHeader::decode(request);
        if (!h)
            return decodeError(request, h.error());
        req.group = h->consumerGroup;
        req.topic = h->topic;
        req.queueId = h->queueId;
        req.maxMsgNums = h->maxMsgNums;
        req.invisibleTime = h->invisibleTime;
        req.initMode = h->initMode;
        req.order = h->order.value_or(false);
        pollTime = h->pollTime;
        bornTime = h->bornTime;
        if (h->maxMsgNums > 32)
            return makeReply(request, toInt(ResponseCode::InvalidParameter),
                "the broker[" + brokerIp + "] pop message's num is greater than 32");
        if (h->invisibleTime < 0 || h->invisibleTime > kMaxInvisibleMillis)
            return makeReply(request, toInt(ResponseCode::InvalidParameter),
                "invisibleTime " + QByteArray::number(h->invisibleTime) + " is out of range [0, "
                    + QByteArray::number(kMaxInvisibleMillis) + "]");
        if (!filter::isTagType(h->expType)) {
            auto compiled = filter::subscriptionFilter(m_ctx.sqlFilters, h->expType, h->exp);
            if (!compiled || !config.enablePropertyFilter)
                return makeReply(request, toInt(ResponseCode::SubscriptionParseFailed),
                    "parse the consumer's subscription failed");
            req.filter = storage::MessageFilter::fromProperties(std::move(compiled).value());
        } else if (!h->exp.isEmpty()) {
            req.filter = storage::MessageFilter::fromTagExpression(h->exp);
        }
    }
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    // isTimeoutTooMuch: the client gave up on this request already.
    if (allowSuspend && !deadline && pollTime > 0 && now - bornTime - pollTime > 500)
        return makeReply(request, popcode::PollingTimeout,
            "the broker[" + brokerIp + "] pop message is timeout too much");
    if (!Perm::isReadable(config.brokerPermission))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the broker[" + brokerIp + "] pop message is forbidden");
    const auto topicConfig = m_ctx.topics->find(req.topic);
    if (!topicConfig)
        return topicNotExist(request, req.topic);
    if (!Perm::isReadable(topicConfig->perm))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the topic[" + req.topic + "] peeking message is forbidden");
    if (req.queueId >= topicConfig->readQueueNums || req.queueId < -1) {
        const QByteArray consumer = channel ? channel->remoteAddress() : QByteArray();
        return illegalQueue(request, toInt(ResponseCode::InvalidParameter), req.queueId, req.topic,
            topicConfig->readQueueNums, &consumer);
    }
    req.readQueueNums = topicConfig->readQueueNums;
    const auto groupConfig = m_ctx.subscriptionGroups->findOrCreate(req.group);
    if (!groupConfig)
        return makeReply(request, toInt(ResponseCode::SubscriptionGroupNotExist),
            "subscription group [" + req.group + "] does not exist, apply first please!");
    if (!groupConfig->consumeEnable)
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "subscription group no permission, " + req.group);

    int code = toInt(ResponseCode::Success);
    RemotingCommand response;
    if (notification) {
        if (m_service.hasAvailable(req)) {
            response = makeReply(request, code);
            protocol::NotificationResponseHeader {true, false}.encode(response);
            return response;
        }
    } else {
        PopResult result = m_service.pop(req);
        if (!result.error.isOk())
            return makeReply(
                request, toInt(ResponseCode::SystemError), utf8(result.error.message()));
        if (result.messageCount > 0) {
            response = makeReply(request, code, "FOUND");
            protocol::PopMessageResponseHeader h;
            h.popTime = result.popTime;
            h.invisibleTime = req.invisibleTime;
            h.reviveQid = result.reviveQid;
            h.restNum = result.restNum;
            h.startOffsetInfo = result.startOffsetInfo;
            h.msgOffsetInfo = result.msgOffsetInfo;
            if (req.order)
                h.orderCountInfo = result.orderCountInfo;
            h.encode(response);
            response.body = std::move(result.body);
            return response;
        }
    }

    // Nothing now: park until a message arrives or the poll time ends.
    const auto steadyNow = std::chrono::steady_clock::now();
    const auto until = deadline.value_or(steadyNow
        + std::chrono::milliseconds(std::clamp<std::int64_t>(pollTime, 0, kMaxPollMillis)));
    bool full = false;
    if (allowSuspend && pollTime > 0 && until > steadyNow) {
        auto held = std::make_shared<HeldPop>();
        held->channel = channel;
        held->request = request;
        held->respond = respond;
        held->topics = {req.topic};
        if (!req.order)
            held->topics.push_back(protocol::popRetryTopicV1(req.topic, req.group));
        held->deadline = until;
        if (m_service.hold().suspend(held)) {
            // A message that arrived between the read and the parking finds nobody parked:
            // look again now that it would wake us.
            if (m_service.hasAvailable(req))
                m_service.hold().wake(held);
            return std::nullopt;
        }
        full = true;
    }
    if (notification) {
        response = makeReply(request, toInt(ResponseCode::Success));
        protocol::NotificationResponseHeader {false, full}.encode(response);
        return response;
    }
    response = makeReply(
        request, full ? popcode::PollingFull : popcode::PollingTimeout, "NO_MESSAGE_IN_QUEUE");
    protocol::PopMessageResponseHeader h;
    h.popTime = QDateTime::currentMSecsSinceEpoch();
    h.invisibleTime = req.invisibleTime;
    h.reviveQid = req.order ? kOrderReviveQueue : 0;
    h.restNum = 0;
    h.startOffsetInfo = "";
    h.msgOffsetInfo = "";
    h.encode(response);
    return response;
}

RemotingCommand PopProcessor::ackMessage(const RemotingCommand &request)
{
    auto h = protocol::AckMessageRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const auto topicConfig = m_ctx.topics->find(h->topic);
    if (!topicConfig)
        return topicNotExist(request, h->topic);
    const auto extra = protocol::ExtraInfo::parse(h->extraInfo);
    if (!extra)
        return makeReply(
            request, toInt(ResponseCode::MessageIllegal), "extraInfo is illegal: " + h->extraInfo);
    const QByteArray realTopic = *protocol::popRealTopic(h->topic, h->consumerGroup, extra->retry);
    if (extra->retry == '0' && (h->queueId < 0 || h->queueId >= topicConfig->readQueueNums)) {
        const QByteArray consumer;
        return illegalQueue(request, toInt(ResponseCode::MessageIllegal), h->queueId, h->topic,
            topicConfig->readQueueNums, &consumer);
    }
    if (auto refused = offsetOutOfQueue(request, *m_ctx.store, realTopic, h->queueId, h->offset))
        return std::move(*refused);
    switch (m_service.ack(h->consumerGroup, realTopic, h->queueId,
        CheckPointKey {extra->ckQueueOffset, extra->popTime}, {h->offset})) {
    case SettleStatus::Ok:
        return makeReply(request, toInt(ResponseCode::Success));
    case SettleStatus::NotInFlight:
        return makeReply(request, toInt(ResponseCode::NoMessage),
            "the message is no longer in flight: its invisible time ended and it was revived");
    case SettleStatus::WriteFailed:
        break;
    }
    return makeReply(request, toInt(ResponseCode::SystemError), "cannot write the ack");
}

RemotingCommand PopProcessor::batchAckMessage(const RemotingCommand &request)
{
    auto body = protocol::BatchAckMessageRequestBody::fromJson(request.body);
    if (!body)
        return makeReply(request, toInt(ResponseCode::NoMessage), utf8(body.error().message()));
    bool failed = false;
    for (const protocol::BatchAck &a : body->acks) {
        if (a.retry.size() != 1)
            continue;
        const auto realTopic = protocol::popRealTopic(a.topic, a.consumerGroup, a.retry[0]);
        if (!realTopic || a.offsets.empty())
            continue;
        if (m_service.ack(a.consumerGroup, *realTopic, a.queueId,
                CheckPointKey {a.startOffset, a.popTime}, a.offsets)
            == SettleStatus::WriteFailed)
            failed = true;
    }
    if (failed)
        return makeReply(request, toInt(ResponseCode::SystemError), "cannot write the ack");
    return makeReply(request, toInt(ResponseCode::Success));
}

RemotingCommand PopProcessor::changeInvisibleTime(const RemotingCommand &request)
{
    auto h = protocol::ChangeInvisibleTimeRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const auto topicConfig = m_ctx.topics->find(h->topic);
    if (!topicConfig)
        return topicNotExist(request, h->topic);
    if (h->invisibleTime < 0 || h->invisibleTime > kMaxInvisibleMillis)
        return makeReply(request, toInt(ResponseCode::InvalidParameter),
            "invisibleTime " + QByteArray::number(h->invisibleTime) + " is out of range");
    const auto extra = protocol::ExtraInfo::parse(h->extraInfo);
    if (!extra)
        return makeReply(
            request, toInt(ResponseCode::MessageIllegal), "extraInfo is illegal: " + h->extraInfo);
    const QByteArray realTopic = *protocol::popRealTopic(h->topic, h->consumerGroup, extra->retry);
    if (auto refused = offsetOutOfQueue(request, *m_ctx.store, realTopic, h->queueId, h->offset))
        return std::move(*refused);
    ChangedHandle changed;
    switch (m_service.changeInvisibleTime(h->consumerGroup, realTopic, h->queueId,
        CheckPointKey {extra->ckQueueOffset, extra->popTime}, h->offset, h->invisibleTime,
        changed)) {
    case SettleStatus::Ok: {
        RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
        protocol::ChangeInvisibleTimeResponseHeader {
            changed.popTime, changed.invisibleTime, changed.reviveQid}
            .encode(r);
        return r;
    }
    case SettleStatus::NotInFlight:
        return makeReply(request, toInt(ResponseCode::NoMessage),
            "the message is not in flight (acked, or revived after its invisible time)");
    case SettleStatus::WriteFailed:
        break;
    }
    return makeReply(request, toInt(ResponseCode::SystemError), "cannot write the checkpoint");
}

RemotingCommand PopProcessor::peekMessage(const RemotingCommand &request)
{
    auto h = protocol::PeekMessageRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const QByteArray brokerIp = m_ctx.config->brokerIP1.toUtf8();
    if (!Perm::isReadable(m_ctx.config->brokerPermission))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the broker[" + brokerIp + "] peeking message is forbidden");
    const auto topicConfig = m_ctx.topics->find(h->topic);
    if (!topicConfig)
        return topicNotExist(request, h->topic);
    if (!Perm::isReadable(topicConfig->perm))
        return makeReply(request, toInt(ResponseCode::NoPermission),
            "the topic[" + h->topic + "] peeking message is forbidden");
    if (h->queueId >= topicConfig->readQueueNums || h->queueId < -1)
        return illegalQueue(request, toInt(ResponseCode::SystemError), h->queueId, h->topic,
            topicConfig->readQueueNums);
    const int max = std::clamp(h->maxMsgNums, 1, 32);
    QByteArray body;
    int count = 0;
    std::int64_t rest = 0;
    const int first = h->queueId >= 0 ? h->queueId : 0;
    const int last = h->queueId >= 0 ? h->queueId : topicConfig->readQueueNums - 1;
    for (int q = first; q <= last && count < max; ++q) {
        std::int64_t offset = m_ctx.consumerOffsets->query(h->consumerGroup, h->topic, q);
        if (offset < 0)
            offset = m_ctx.store->minOffsetInQueue(h->topic, q);
        const storage::GetMessageResult r
            = m_ctx.store->getMessage(h->consumerGroup, h->topic, q, offset, max - count);
        for (QByteArrayView m : r.messages)
            body.append(m);
        count += r.messageCount();
        rest += std::max<std::int64_t>(0, r.maxOffset - r.nextBeginOffset);
    }
    RemotingCommand response = makeReply(request,
        count > 0 ? toInt(ResponseCode::Success) : toInt(ResponseCode::PullNotFound),
        count > 0 ? "FOUND" : "NO_MESSAGE_IN_QUEUE");
    protocol::PopMessageResponseHeader ph;
    ph.popTime = QDateTime::currentMSecsSinceEpoch();
    ph.restNum = rest;
    ph.encode(response);
    response.body = std::move(body);
    return response;
}

RemotingCommand PopProcessor::pollingInfo(const RemotingCommand &request)
{
    auto h = protocol::PollingInfoRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const auto topicConfig = m_ctx.topics->find(h->topic);
    if (!topicConfig)
        return topicNotExist(request, h->topic);
    if (h->queueId >= topicConfig->readQueueNums || h->queueId < -1)
        return illegalQueue(request, toInt(ResponseCode::SystemError), h->queueId, h->topic,
            topicConfig->readQueueNums);
    RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
    protocol::PollingInfoResponseHeader {m_service.hold().heldCount(h->topic)}.encode(r);
    return r;
}

RemotingCommand PopProcessor::setRequestMode(const RemotingCommand &request)
{
    auto body = protocol::SetMessageRequestModeRequestBody::fromJson(request.body);
    if (!body)
        return makeReply(request, toInt(ResponseCode::SystemError), utf8(body.error().message()));
    if (topics::isRetryTopic(body->topic))
        return makeReply(
            request, toInt(ResponseCode::NoPermission), "retry topic is not allowed to set mode");
    if (body->topic.isEmpty() || body->consumerGroup.isEmpty())
        return makeReply(request, toInt(ResponseCode::SystemError), "topic and group required");
    if (Status st = m_modes.set(*body); !st)
        return makeReply(request, toInt(ResponseCode::SystemError), utf8(st.message()));
    return makeReply(request, toInt(ResponseCode::Success));
}

RemotingCommand PopProcessor::queryAssignment(const RemotingCommand &request)
{
    auto body = protocol::QueryAssignmentRequestBody::fromJson(request.body);
    if (!body)
        return makeReply(request, toInt(ResponseCode::SystemError), utf8(body.error().message()));
    protocol::SetMessageRequestModeRequestBody mode;
    if (auto found = m_modes.find(body->topic, body->consumerGroup)) {
        mode = *found;
    } else {
        mode.topic = body->topic;
        mode.consumerGroup = body->consumerGroup;
        mode.mode = "PULL"; // defaultMessageRequestMode; retry topics always pull
    }
    RemotingCommand response = makeReply(request, toInt(ResponseCode::Success));
    const auto topicConfig = m_ctx.topics->find(body->topic);
    if (!topicConfig) {
        response.body = "{}";
        return response;
    }
    // This broker's queues of the topic (QRocket's broker knows no other broker's route).
    std::vector<protocol::MessageQueue> all;
    const QByteArray brokerName = m_ctx.config->brokerName.toUtf8();
    for (int q = 0; q < topicConfig->readQueueNums; ++q)
        all.push_back({body->topic, brokerName, q});
    std::optional<std::vector<protocol::MessageQueue>> assigned;
    if (body->messageModel == protocol::MessageModel::Broadcasting) {
        assigned = all;
    } else {
        std::vector<QByteArray> cids;
        if (const auto info = m_ctx.consumers->groupInfo(body->consumerGroup))
            for (const ClientChannelInfo &c : info->channels)
                cids.push_back(c.clientId);
        std::sort(cids.begin(), cids.end());
        cids.erase(std::unique(cids.begin(), cids.end()), cids.end());
        if (!cids.empty()) {
            if (mode.mode == "POP"
                && (mode.popShareQueueNum <= 0
                    || mode.popShareQueueNum >= static_cast<int>(cids.size()) - 1)) {
                assigned.emplace(); // every client pops every queue
                for (const protocol::MessageQueue &mq : all)
                    assigned->push_back({mq.topic, mq.brokerName, -1});
            } else if (mode.mode == "POP" && cids.size() <= all.size()) {
                assigned = allocate(body->strategyName, body->clientId, all, cids);
                const auto it = std::find(cids.begin(), cids.end(), body->clientId);
                if (assigned && it != cids.end()) {
                    auto index = static_cast<std::size_t>(it - cids.begin());
                    for (int i = 1; i <= mode.popShareQueueNum; ++i) {
                        index = (index + 1) % cids.size();
                        if (auto more = allocate(body->strategyName, cids[index], all, cids))
                            assigned->insert(assigned->end(), more->begin(), more->end());
                    }
                }
            } else {
                assigned = allocate(body->strategyName, body->clientId, all, cids);
            }
        }
    }
    if (!assigned) {
        response.body = "{}";
        return response;
    }
    std::sort(assigned->begin(), assigned->end());
    assigned->erase(std::unique(assigned->begin(), assigned->end()), assigned->end());
    protocol::QueryAssignmentResponseBody out;
    for (protocol::MessageQueue &mq : *assigned)
        out.messageQueueAssignments.push_back({std::move(mq), mode.mode});
    response.body = out.toJson();
    return response;
}

RemotingCommand PopProcessor::getTopicConfig(const RemotingCommand &request)
{
    auto h = protocol::GetTopicConfigRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const auto topicConfig = m_ctx.topics->find(h->topic);
    if (!topicConfig)
        return makeReply(request, toInt(ResponseCode::TopicNotExist),
            "No topic in this broker. topic: " + h->topic);
    RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
    r.body = topicConfig->toJson();
    return r;
}

RemotingCommand PopProcessor::getGroupConfig(const RemotingCommand &request)
{
    auto h = protocol::GetSubscriptionGroupConfigRequestHeader::decode(request);
    if (!h)
        return decodeError(request, h.error());
    const auto group = m_ctx.subscriptionGroups->findOrCreate(h->group);
    if (!group)
        return makeReply(
            request, toInt(ResponseCode::SubscriptionGroupNotExist), "No group in this broker");
    RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
    r.body = group->toJson();
    return r;
}

RemotingCommand PopProcessor::popStats(const RemotingCommand &request)
{
    const QByteArray group = request.extString("consumerGroup").toByteArray();
    protocol::PopStatsBody stats = m_service.stats(group);
    std::map<std::pair<QByteArray, QByteArray>, std::size_t> index; // (group, topic) -> entry
    for (std::size_t i = 0; i < stats.groups.size(); ++i)
        index[{stats.groups[i].group, stats.groups[i].topic}] = i;
    const protocol::MessageRequestModeTable modes = m_modes.table();
    const auto modeOf = [&](const QByteArray &g, const QByteArray &topic) -> QByteArray {
        const auto t = modes.modes.find(topic);
        if (t == modes.modes.end())
            return "PULL";
        const auto m = t->second.find(g);
        return m == t->second.end() ? QByteArray("PULL") : m->second.mode;
    };
    for (protocol::PopGroupStats &g : stats.groups) {
        // A POP retry topic's messages belong to the (topic, group) they were popped for.
        const QByteArray prefix = protocol::topics::kRetryPrefix + g.group + '_';
        g.mode = modeOf(g.group, g.topic.startsWith(prefix) ? g.topic.mid(prefix.size()) : g.topic);
    }
    for (const auto &[topic, groups] : modes.modes) {
        for (const auto &[g, mode] : groups) {
            if ((!group.isEmpty() && g != group) || index.count({g, topic}))
                continue;
            protocol::PopGroupStats entry;
            entry.group = g;
            entry.topic = topic;
            entry.mode = mode.mode;
            stats.groups.push_back(std::move(entry));
        }
    }
    std::sort(stats.groups.begin(), stats.groups.end(),
        [](const protocol::PopGroupStats &a, const protocol::PopGroupStats &b) {
            return std::tie(a.group, a.topic) < std::tie(b.group, b.topic);
        });
    RemotingCommand r = makeReply(request, toInt(ResponseCode::Success));
    r.body = stats.toJson();
    return r;
}

} // namespace qrocket::broker::pop
