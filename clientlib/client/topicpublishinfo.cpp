#include "clientlib/client/topicpublishinfo.h"

#include "clientlib/client/threads.h"

#include <QRandomGenerator>

#include <algorithm>
#include <array>

namespace qrocket::client {

MessageQueue TopicPublishInfo::selectOneMessageQueue(const QByteArray &lastBrokerName) const
{
    const auto n = static_cast<std::uint32_t>(queues.size());
    if (n == 0)
        return {};
    if (!lastBrokerName.isEmpty()) {
        for (std::uint32_t i = 0; i < n; ++i) {
            const MessageQueue &mq = queues[sendWhichQueue.fetch_add(1) % n];
            if (mq.brokerName != lastBrokerName)
                return mq;
        }
    }
    return queues[sendWhichQueue.fetch_add(1) % n];
}

int TopicPublishInfo::writeQueueNumsOf(const QByteArray &brokerName) const
{
    for (const protocol::QueueData &q : route.queueDatas) {
        if (q.brokerName == brokerName)
            return q.writeQueueNums;
    }
    return -1;
}

std::shared_ptr<TopicPublishInfo> TopicPublishInfo::fromRoute(
    const QByteArray &topic, const protocol::TopicRouteData &route, int maxQueuesPerBroker)
{
    auto info = std::make_shared<TopicPublishInfo>();
    info->route = route;
    // Java's ThreadLocalIndex starts at a random value: the first queue does not take every
    // producer's first message.
    info->sendWhichQueue = QRandomGenerator::global()->generate();
    std::vector<protocol::QueueData> queueDatas = route.queueDatas;
    std::sort(queueDatas.begin(), queueDatas.end(),
        [](const auto &a, const auto &b) { return a.brokerName < b.brokerName; });
    for (const protocol::QueueData &q : queueDatas) {
        if (!Perm::isWritable(q.perm))
            continue;
        const auto broker = std::find_if(route.brokerDatas.begin(), route.brokerDatas.end(),
            [&](const protocol::BrokerData &b) { return b.brokerName == q.brokerName; });
        if (broker == route.brokerDatas.end() || broker->masterAddr().isEmpty())
            continue;
        int count = q.writeQueueNums;
        if (maxQueuesPerBroker > 0)
            count = std::min(count, maxQueuesPerBroker);
        for (int i = 0; i < count; ++i)
            info->queues.push_back({topic, q.brokerName, i});
    }
    info->orderTopic = !route.orderTopicConf.isEmpty();
    return info;
}

std::vector<MessageQueue> subscribeQueuesOf(
    const QByteArray &topic, const protocol::TopicRouteData &route)
{
    std::vector<MessageQueue> out;
    for (const protocol::QueueData &q : route.queueDatas) {
        if (!Perm::isReadable(q.perm))
            continue;
        for (int i = 0; i < q.readQueueNums; ++i)
            out.push_back({topic, q.brokerName, i});
    }
    std::sort(out.begin(), out.end());
    return out;
}

namespace {
constexpr std::array<std::int64_t, 7> kLatencyMax {50, 100, 550, 1000, 2000, 3000, 15000};
constexpr std::array<std::int64_t, 7> kNotAvailable {0, 0, 30000, 60000, 120000, 180000, 600000};
} // namespace

std::int64_t FaultTolerance::notAvailableDuration(std::int64_t latencyMs)
{
    for (std::size_t i = kLatencyMax.size(); i-- > 0;) {
        if (latencyMs >= kLatencyMax[i])
            return kNotAvailable[i];
    }
    return 0;
}

void FaultTolerance::update(const QByteArray &brokerName, std::int64_t latencyMs, bool isolation)
{
    const std::int64_t latency = isolation ? 3000 : latencyMs;
    const std::int64_t duration = notAvailableDuration(isolation ? 30000 : latencyMs);
    std::lock_guard lock(m_mutex);
    Item &item = m_items[brokerName];
    item.latency = latency;
    item.startTimestamp = currentTimeMillis() + duration;
}

bool FaultTolerance::isAvailable(const QByteArray &brokerName) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_items.constFind(brokerName);
    return it == m_items.cend() || currentTimeMillis() >= it->startTimestamp;
}

void FaultTolerance::remove(const QByteArray &brokerName)
{
    std::lock_guard lock(m_mutex);
    m_items.remove(brokerName);
}

MessageQueue FaultTolerance::select(
    const TopicPublishInfo &info, const QByteArray &lastBrokerName, bool enabled) const
{
    if (!enabled)
        return info.selectOneMessageQueue(lastBrokerName);
    const auto n = static_cast<std::uint32_t>(info.queues.size());
    if (n == 0)
        return {};
    // Round robin over the available brokers, the last one only if it is the only choice.
    const MessageQueue *fallback = nullptr;
    for (std::uint32_t i = 0; i < n; ++i) {
        const MessageQueue &mq = info.queues[info.sendWhichQueue.fetch_add(1) % n];
        if (!isAvailable(mq.brokerName))
            continue;
        if (mq.brokerName != lastBrokerName)
            return mq;
        if (!fallback)
            fallback = &mq;
    }
    if (fallback)
        return *fallback;
    // Everything is in a window: the broker that comes back first.
    QByteArray best;
    {
        std::lock_guard lock(m_mutex);
        std::int64_t soonest = 0;
        for (const MessageQueue &mq : info.queues) {
            const auto it = m_items.constFind(mq.brokerName);
            const std::int64_t start = it == m_items.cend() ? 0 : it->startTimestamp;
            if (best.isEmpty() || start < soonest) {
                best = mq.brokerName;
                soonest = start;
            }
        }
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        const MessageQueue &mq = info.queues[info.sendWhichQueue.fetch_add(1) % n];
        if (mq.brokerName == best)
            return mq;
    }
    return info.selectOneMessageQueue(lastBrokerName);
}

} // namespace qrocket::client
