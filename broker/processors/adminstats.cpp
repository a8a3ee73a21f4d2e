// AdminProcessor, part: 315 VIEW_BROKER_STATS_DATA and 316 CLEAN_UNUSED_TOPIC as RocketMQ 4.9's
// AdminBrokerProcessor answers them.

#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "storage/core/consumequeue.h"
#include "storage/messagestore.h"

#include <QSet>

namespace qrocket::broker {

using protocol::RemotingCommand;

namespace {

/// RocketMQ's Light Message Queue topics (MixAll.isLmq), which cleanUnusedTopic leaves alone.
constexpr QByteArrayView kLmqPrefix("%LMQ%");

} // namespace

RemotingCommand AdminProcessor::viewBrokerStatsData(const RemotingCommand &request)
{
    for (const char *field : {"statsName", "statsKey"}) {
        if (!request.ext(QByteArrayView(field)))
            return makeResponse(
                request, toInt(ResponseCode::SystemError), missingFieldRemark(field));
    }
    const QByteArrayView name = request.extString("statsName");
    const QByteArrayView key = request.extString("statsKey");
    const std::optional<BrokerStatsManager::StatsData> data
        = m_ctx.statsManager ? m_ctx.statsManager->statsData(name, key) : std::nullopt;
    if (!data)
        return makeResponse(request, toInt(ResponseCode::SystemError),
            "The stats <" + name.toByteArray() + "> <" + key.toByteArray() + "> not exist");

    auto item = [&](stats::Window window) {
        const stats::StatsSnapshot &s = (*data)[static_cast<std::size_t>(window)];
        return protocol::BrokerStatsItem {s.sum, s.tps, s.avgpt};
    };
    const protocol::BrokerStatsData body {
        item(stats::Window::Minute), item(stats::Window::Hour), item(stats::Window::Day)};
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body.toJson();
    return response;
}

RemotingCommand AdminProcessor::cleanUnusedTopic(const RemotingCommand &request)
{
    // DefaultMessageStore.cleanUnusedTopic: the consume queues of every topic that is not in the
    // topic config table go, except the schedule topic, the transaction op topic and LMQ
    // topics. The store's topics are read before the table: a topic created meanwhile has its
    // config before its first consume queue, so it is never taken for unused.
    QSet<QByteArray> stored;
    for (const storage::ConsumeQueue *cq : m_ctx.store->consumeQueues())
        stored.insert(cq->topic());
    const QList<QByteArray> configured = m_ctx.topics->topicNames();
    for (const QByteArray &topic : configured)
        stored.remove(topic);
    QList<QByteArray> unused;
    for (const QByteArray &topic : std::as_const(stored)) {
        if (topic != topics::kSchedule && topic != topics::kTransOpHalf
            && !topic.startsWith(kLmqPrefix))
            unused.append(topic);
    }
    const int queues = unused.isEmpty() ? 0 : m_ctx.store->deleteTopics(unused);
    qCInfo(lcBrokerTopic).noquote() << "cleanUnusedTopic:" << unused.size() << "topics," << queues
                                    << "consume queues deleted" << unused;
    return makeResponse(request, toInt(ResponseCode::Success));
}

} // namespace qrocket::broker
