// The push consumer's side of the rebalance (RocketMQ's RebalancePushImpl): what winning or
// losing a queue means for PushConsumerImpl (see rebalanceimpl.h for the shared part).

#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"

#include <chrono>

namespace qrocket::client {

using std::chrono::milliseconds;

std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>>
PushConsumerImpl::processQueues() const
{
    std::lock_guard lock(m_mutex);
    return {m_processQueues.begin(), m_processQueues.end()};
}

RebalanceImpl::QueueDiff PushConsumerImpl::takeQueueDiff(
    const QByteArray &topic, const std::set<MessageQueue> &wanted, std::int64_t now)
{
    QueueDiff diff;
    std::lock_guard lock(m_mutex);
    // A queue whose pulls stopped (pull thread stuck, answer lost) is dropped and taken anew.
    diff.removed = diffQueueTable(
        m_processQueues, topic, wanted,
        [now](const std::shared_ptr<ProcessQueue> &pq) { return pq->isPullExpired(now); },
        diff.added);
    return diff;
}

void PushConsumerImpl::truncateQueuesNotOfSubscribedTopics()
{
    std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> stale;
    const std::vector<QByteArray> topics = subscriptionTopics();
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_popQueues.begin(); it != m_popQueues.end();) {
            if (std::find(topics.begin(), topics.end(), it->first.topic) == topics.end()) {
                it->second->dropped = true;
                it = m_popQueues.erase(it);
            } else {
                ++it;
            }
        }
        for (auto it = m_processQueues.begin(); it != m_processQueues.end();) {
            if (std::find(topics.begin(), topics.end(), it->first.topic) == topics.end()) {
                stale.emplace_back(it->first, it->second);
                it = m_processQueues.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto &[mq, pq] : stale) {
        pq->dropped = true;
        removeUnnecessaryMessageQueue(mq, pq);
    }
}

RebalanceImpl::Added PushConsumerImpl::addMessageQueue(const MessageQueue &mq, std::int64_t now)
{
    const bool lockFirst = lockedOrderly();
    if (lockFirst && !lock(mq)) {
        qCInfo(lcConsumer, "rebalance %s: %s/%s/%d is still locked by another consumer",
            m_options.group.constData(), mq.topic.constData(), mq.brokerName.constData(),
            mq.queueId);
        return Added::LockMissed;
    }
    m_offsets->removeOffset(mq);
    const std::int64_t offset = computePullFromWhere(mq);
    if (offset < 0) {
        qCWarning(lcConsumer, "rebalance %s: no start offset for %s/%s/%d yet",
            m_options.group.constData(), mq.topic.constData(), mq.brokerName.constData(),
            mq.queueId);
        return Added::No;
    }
    auto pq = std::make_shared<ProcessQueue>();
    pq->lastPullTimestamp = now;
    if (lockFirst) {
        pq->locked = true;
        pq->lastLockTimestamp = now;
    }
    {
        std::lock_guard lock(m_mutex);
        if (!m_processQueues.emplace(mq, pq).second)
            return Added::No; // added meanwhile (a reset): that one pulls
    }
    PullRequest request;
    request.mq = mq;
    request.pq = pq;
    request.nextOffset = offset;
    request.previouslyLocked = lockFirst;
    executePullLater(std::move(request), 0);
    return Added::Yes;
}

void PushConsumerImpl::lockMissed()
{
    if (!m_pullScheduler)
        return;
    // Its previous owner still holds the queue (it unlocks once its last message is consumed):
    // try again in a second rather than at the next 20 s rebalance.
    std::weak_ptr<ClientInstance> weak = m_instance;
    m_pullScheduler->schedule(milliseconds(1000), [weak] {
        if (auto instance = weak.lock())
            instance->rebalanceImmediately();
    });
}

void PushConsumerImpl::removeUnnecessaryMessageQueue(
    const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &pq)
{
    m_offsets->persist(mq, false);
    m_offsets->removeOffset(mq);
    if (!lockedOrderly())
        return;
    // Unlock only once a running orderly task for the queue is done, so the next owner never
    // consumes beside it (per-key order across a rebalance).
    unlockWhenIdle(mq, pq, 0);
}

void PushConsumerImpl::unlockWhenIdle(
    MessageQueue mq, std::shared_ptr<ProcessQueue> pq, int attempt)
{
    if (!pq->consumeLock.try_lock()) {
        if (attempt >= 600 || !m_pullScheduler)
            return; // the broker's lock expires by itself
        std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
        m_pullScheduler->schedule(milliseconds(100), [weak, mq, pq, attempt] {
            if (auto self = weak.lock())
                self->unlockWhenIdle(mq, pq, attempt + 1);
        });
        return;
    }
    pq->consumeLock.unlock();
    unlockAll({mq}, true);
}

} // namespace qrocket::client
