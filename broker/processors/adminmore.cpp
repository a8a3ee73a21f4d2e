// AdminProcessor, part: 303, 314, 317, 321, 328 and 223 as RocketMQ 4.9's AdminBrokerProcessor and
// Broker2Client answer them (request fields and bodies: see adminprocessor.h and protocol.md §4.9).

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/json.h"
#include "storage/core/consumequeue.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QtEndian>

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;
using protocol::RemotingCommand;

namespace {

/// UtilAll.YYYY_MM_DD_HH_MM_SS_SSS in the broker's local time.
QByteArray formatTimestamp(std::int64_t ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms)
        .toString(QStringLiteral("yyyy-MM-dd#HH:mm:ss:zzz"))
        .toUtf8();
}

/// A mandatory numeric header field, or nullopt (the remark in `error`).
std::optional<std::int64_t> longField(
    const RemotingCommand &request, const char *name, QByteArray *error)
{
    const QByteArray *raw = request.ext(QByteArrayView(name));
    if (!raw) {
        *error = missingFieldRemark(name);
        return std::nullopt;
    }
    const auto v = protocol::parseJavaLong(*raw);
    if (!v)
        *error = QByteArrayLiteral("the custom field <") + name
            + QByteArrayLiteral("> is not a number: ") + *raw;
    return v;
}

/// The first missing mandatory string field's remark, or empty.
QByteArray missingOf(const RemotingCommand &request, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        if (!request.ext(QByteArrayView(name)))
            return missingFieldRemark(name);
    }
    return {};
}

/// RocketMQ's findSubscriptionDataCount(group) > 0 && findSubscriptionData(group, topic) == null:
/// an online group that does not subscribe the topic.
bool onlineWithoutSubscription(
    const ConsumerManager *consumers, QByteArrayView group, QByteArrayView topic)
{
    if (!consumers)
        return false;
    const std::optional<ConsumerGroupInfo> info = consumers->groupInfo(group);
    return info && !info->subscriptions.empty() && !consumers->findSubscription(group, topic);
}

} // namespace

RemotingCommand AdminProcessor::consumeTimeSpan(const RemotingCommand &request)
{
    if (QByteArray missing = missingOf(request, {"topic", "group"}); !missing.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missing);
    const QByteArray topic = request.extString("topic").toByteArray();
    const QByteArray group = request.extString("group").toByteArray();
    const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
    if (!config)
        return makeResponse(request, toInt(ResponseCode::TopicNotExist),
            QByteArrayLiteral("topic[") + topic + QByteArrayLiteral("] not exist"));

    const storage::MessageStore &store = *m_ctx.store;
    const QByteArray brokerName = m_ctx.config->brokerName.toUtf8();
    JsonWriter w;
    w.beginObject().key("consumeTimeSpanSet").beginArray();
    for (int i = 0; i < config->writeQueueNums; ++i) {
        const std::int64_t minTime = store.earliestMessageTime(topic, i);
        const std::int64_t maxOffset = store.maxOffsetInQueue(topic, i);
        const std::int64_t maxTime = store.messageStoreTimestamp(topic, i, maxOffset - 1);
        const std::int64_t consumerOffset = m_ctx.consumerOffsets->query(group, topic, i);
        const std::int64_t consumeTime = consumerOffset > 0
            ? store.messageStoreTimestamp(topic, i, consumerOffset - 1)
            : minTime;
        std::int64_t delayTime = 0;
        if (consumerOffset < maxOffset)
            delayTime = QDateTime::currentMSecsSinceEpoch()
                - store.messageStoreTimestamp(topic, i, consumerOffset);
        // QueueTimeSpan's getters in fastjson's (alphabetical) order.
        w.beginObject();
        w.key("consumeTimeStamp").value(consumeTime);
        w.key("consumeTimeStampStr").value(formatTimestamp(consumeTime));
        w.key("delayTime").value(delayTime);
        w.key("maxTimeStamp").value(maxTime);
        w.key("maxTimeStampStr").value(formatTimestamp(maxTime));
        w.key("messageQueue").beginObject();
        w.key("brokerName").value(brokerName);
        w.key("queueId").value(i);
        w.key("topic").value(topic);
        w.endObject();
        w.key("minTimeStamp").value(minTime);
        w.key("minTimeStampStr").value(formatTimestamp(minTime));
        w.endObject();
    }
    w.endArray().endObject();
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = w.take();
    return response;
}

RemotingCommand AdminProcessor::cloneGroupOffset(const RemotingCommand &request)
{
    if (QByteArray missing = missingOf(request, {"srcGroup", "destGroup"}); !missing.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missing);
    const QByteArray srcGroup = request.extString("srcGroup").toByteArray();
    const QByteArray destGroup = request.extString("destGroup").toByteArray();
    const QByteArray topic = request.extString("topic").trimmed().toByteArray();
    const bool offline = protocol::parseJavaBoolean(request.extString("offline"));

    QList<QByteArray> topics;
    if (topic.isEmpty())
        topics = m_ctx.consumerOffsets->topicsOfGroup(srcGroup);
    else
        topics.append(topic);
    for (const QByteArray &t : std::as_const(topics)) {
        if (!m_ctx.topics->contains(t)) {
            qCWarning(lcBrokerOffset) << "[cloneGroupOffset], topic config not exist," << t;
            continue;
        }
        if (!offline && onlineWithoutSubscription(m_ctx.consumers, srcGroup, t)) {
            qCWarning(lcBrokerOffset) << "[cloneGroupOffset], the consumer group" << srcGroup
                                      << "topic" << t << "not exist";
            continue;
        }
        m_ctx.consumerOffsets->cloneOffsets(srcGroup, destGroup, t);
    }
    return makeResponse(request, toInt(ResponseCode::Success));
}

RemotingCommand AdminProcessor::brokerConsumeStats(const RemotingCommand &request)
{
    if (QByteArray missing = missingOf(request, {"isOrder"}); !missing.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missing);
    const bool isOrder = protocol::parseJavaBoolean(request.extString("isOrder"));
    const QByteArray brokerName = m_ctx.config->brokerName.toUtf8();

    std::vector<protocol::SubscriptionGroupConfig> groups = m_ctx.subscriptionGroups->groups();
    std::sort(groups.begin(), groups.end(),
        [](const auto &a, const auto &b) { return a.groupName < b.groupName; });
    std::int64_t totalDiff = 0;
    JsonWriter w;
    w.beginObject().key("brokerAddr").value(m_ctx.config->brokerAddr());
    w.key("consumeStatsList").beginArray();
    for (const protocol::SubscriptionGroupConfig &g : groups) {
        const QByteArray &group = g.groupName;
        w.beginObject().key(group).beginArray();
        QList<QByteArray> topics = m_ctx.consumerOffsets->topicsOfGroup(group);
        std::sort(topics.begin(), topics.end());
        for (const QByteArray &topic : std::as_const(topics)) {
            const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
            if (!config)
                continue;
            if (isOrder && !config->order)
                continue;
            if (onlineWithoutSubscription(m_ctx.consumers, group, topic))
                continue;
            protocol::ConsumeStats stats;
            for (int i = 0; i < config->writeQueueNums; ++i) {
                const protocol::OffsetWrapper o = consumeOffset(group, topic, i);
                totalDiff += o.brokerOffset - o.consumerOffset;
                stats.offsetTable[{topic, brokerName, i}] = o;
            }
            if (m_ctx.statsManager)
                stats.consumeTps = m_ctx.statsManager->groupGetTps(group, topic);
            stats.write(w);
        }
        w.endArray().endObject();
    }
    w.endArray();
    w.key("totalDiff").value(totalDiff);
    w.endObject();
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = w.take();
    return response;
}

RemotingCommand AdminProcessor::queryConsumeQueue(const RemotingCommand &request)
{
    if (QByteArray missing = missingOf(request, {"topic"}); !missing.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missing);
    QByteArray error;
    const auto queueId = longField(request, "queueId", &error);
    const auto index = queueId ? longField(request, "index", &error) : std::nullopt;
    const auto count = index ? longField(request, "count", &error) : std::nullopt;
    if (!count)
        return makeResponse(request, toInt(ResponseCode::SystemError), error);
    const QByteArray topic = request.extString("topic").toByteArray();
    const QByteArray *group = request.ext(QByteArrayView("consumerGroup"));

    const storage::ConsumeQueue *cq
        = m_ctx.store->findConsumeQueue(topic, static_cast<int>(*queueId));
    if (!cq)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArray::number(*queueId) + '@' + topic + QByteArrayLiteral(" is not exist!"));

    // QueryConsumeQueueResponseBody's getters in fastjson's order; null members left out.
    const std::optional<SubscriptionData> sub = group && m_ctx.consumers
        ? m_ctx.consumers->findSubscription(*group, topic)
        : std::nullopt;
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    JsonWriter w;
    w.beginObject();
    if (group) {
        // No ConsumerFilterData for tag subscriptions: fastjson prints null.
        w.key("filterData")
            .value(sub ? QByteArrayLiteral("null") : *group + '@' + topic + " is not online!");
    }
    w.key("maxQueueIndex").value(cq->maxOffsetInQueue());
    w.key("minQueueIndex").value(cq->minOffsetInQueue());
    const storage::ConsumeQueue::IndexBuffer buffer = cq->indexBuffer(*index);
    if (buffer.bytes.isEmpty()) {
        response.remark = QByteArrayLiteral("Index ") + QByteArray::number(*index)
            + QByteArrayLiteral(" of ") + QByteArray::number(*queueId) + '@' + topic
            + QByteArrayLiteral(" is not exist!");
    } else {
        w.key("queueData").beginArray();
        const qsizetype limit = std::min<qsizetype>(buffer.bytes.size(),
            static_cast<qsizetype>(std::max<std::int64_t>(*count, 0))
                * storage::ConsumeQueue::kUnitSize);
        for (qsizetype at = 0; at + storage::ConsumeQueue::kUnitSize <= limit;
             at += storage::ConsumeQueue::kUnitSize) {
            const storage::ConsumeQueue::Unit u
                = storage::ConsumeQueue::decodeUnit(buffer.bytes.constData() + at);
            w.beginObject();
            w.key("eval").value(false);
            w.key("physicOffset").value(u.commitLogOffset);
            w.key("physicSize").value(u.size);
            w.key("tagsCode").value(u.tagsCode);
            w.endObject();
        }
        w.endArray();
    }
    if (sub) {
        w.key("subscriptionData");
        sub->write(w);
    }
    w.endObject();
    response.body = w.take();
    return response;
}

RemotingCommand AdminProcessor::allProducerInfo(const RemotingCommand &request)
{
    // ProducerTableInfo {"data":{group:[ProducerInfo]}}; ProducerInfo's getters in order.
    JsonWriter w;
    w.beginObject().key("data").beginObject();
    if (m_ctx.producers) {
        QList<QByteArray> groups = m_ctx.producers->groups();
        std::sort(groups.begin(), groups.end());
        for (const QByteArray &group : std::as_const(groups)) {
            w.key(group).beginArray();
            for (const ClientChannelInfo &c : m_ctx.producers->connections(group)) {
                w.beginObject();
                w.key("clientId").value(c.clientId);
                w.key("language").value(protocol::languageName(c.language));
                w.key("lastUpdateTimestamp").value(c.lastUpdateTimestamp);
                w.key("remoteIP").value(c.channel ? c.channel->remoteAddress() : QByteArray());
                w.key("version").value(c.version);
                w.endObject();
            }
            w.endArray();
        }
    }
    w.endObject().endObject();
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = w.take();
    return response;
}

void AdminProcessor::consumerStatus(const RemotingCommand &request, remoting::Responder respond)
{
    if (QByteArray missing = missingOf(request, {"topic", "group"}); !missing.isEmpty()) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError), missing));
        return;
    }
    const QByteArray topic = request.extString("topic").toByteArray();
    const QByteArray group = request.extString("group").toByteArray();
    const QByteArray origin = request.extString("clientAddr").trimmed().toByteArray();
    const std::optional<ConsumerGroupInfo> info
        = m_ctx.consumers ? m_ctx.consumers->groupInfo(group) : std::nullopt;
    if (!info || info->channels.empty()) {
        respond(makeResponse(request, toInt(ResponseCode::SystemError),
            QByteArrayLiteral("No Any Consumer online in the consumer group: [") + group + ']'));
        return;
    }
    std::vector<ClientChannelInfo> targets;
    for (const ClientChannelInfo &c : info->channels) {
        if (origin.isEmpty() || origin == c.clientId)
            targets.push_back(c);
    }

    // Every asked client answers (or fails, or times out) once; the last one answers the admin.
    struct Collect
    {
        std::mutex mutex;
        std::size_t pending = 0;
        std::vector<std::pair<QByteArray, JsonValue>> tables; // clientId -> messageQueueTable
        RemotingCommand request;
        remoting::Responder respond;
    };
    auto collect = std::make_shared<Collect>();
    collect->pending = targets.size();
    collect->request = request;
    collect->respond = std::move(respond);
    auto finish = [](const std::shared_ptr<Collect> &c) {
        std::sort(c->tables.begin(), c->tables.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
        JsonWriter w;
        w.beginObject().key("consumerTable").beginObject();
        for (const auto &[clientId, table] : c->tables) {
            w.key(clientId);
            w.value(table);
        }
        w.endObject();
        w.key("messageQueueTable").beginObject().endObject();
        w.endObject();
        RemotingCommand response = makeResponse(c->request, toInt(ResponseCode::Success));
        response.body = w.take();
        c->respond(std::move(response));
    };
    if (targets.empty()) {
        finish(collect);
        return;
    }
    for (const ClientChannelInfo &target : targets) {
        RemotingCommand ask
            = RemotingCommand::createRequest(toInt(RequestCode::GetConsumerStatusFromClient));
        ask.setExt(QByteArrayLiteral("topic"), topic);
        ask.setExt(QByteArrayLiteral("group"), group);
        const QByteArray clientId = target.clientId;
        auto done = [collect, finish, clientId](Result<RemotingCommand> result) {
            std::optional<JsonValue> table;
            if (result.has_value() && result.value().code == toInt(ResponseCode::Success)
                && !result.value().body.isEmpty()) {
                if (auto body = protocol::parseJson(result.value().body); body.has_value())
                    table = body.value()["messageQueueTable"];
            } else if (!result.has_value()) {
                qCWarning(lcBrokerClient)
                    << "getConsumeStatus from" << clientId << "failed:" << result.error().message();
            }
            bool last = false;
            {
                std::lock_guard lock(collect->mutex);
                if (table)
                    collect->tables.emplace_back(clientId, std::move(*table));
                last = --collect->pending == 0;
            }
            if (last)
                finish(collect);
        };
        if (!target.channel || !target.channel->isActive()) {
            done(Result<RemotingCommand>(Status::unavailable(
                QStringLiteral("channel of %1 closed").arg(QString::fromUtf8(clientId)))));
            continue;
        }
        target.channel->invokeAsync(std::move(ask), kForwardTimeoutMillis, std::move(done));
    }
}

} // namespace qrocket::broker
