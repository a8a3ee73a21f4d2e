#include "clientlib/client/consumer/rebalanceimpl.h"

#include "clientlib/client/consumer/allocate.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/logging.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/protocol/systemtopics.h"

#include <QDateTime>

#include <algorithm>

namespace qrocket::client {

using protocol::ResponseCode;

bool isRetryTopic(const QByteArray &topic)
{
    return topic.startsWith(protocol::topics::kRetryPrefix);
}

std::int64_t startOffset(protocol::ConsumeFromWhere where, const MessageQueue &mq,
    std::int64_t stored, std::int64_t timestampMillis,
    const std::function<std::int64_t()> &maxOffset,
    const std::function<std::int64_t(std::int64_t)> &searchOffset)
{
    if (stored >= 0)
        return stored;
    if (stored != -1)
        return -1;
    switch (where) {
    case protocol::ConsumeFromWhere::ConsumeFromFirstOffset:
        return 0;
    case protocol::ConsumeFromWhere::ConsumeFromTimestamp:
        return isRetryTopic(mq.topic) ? maxOffset() : searchOffset(timestampMillis);
    default: // LAST_OFFSET and its deprecated variants
        return isRetryTopic(mq.topic) ? 0 : maxOffset();
    }
}

RebalanceImpl::RebalanceImpl(RebalanceSettings settings) : m_settings(std::move(settings))
{ }

RebalanceImpl::~RebalanceImpl() = default;

Status RebalanceImpl::startRebalance(std::shared_ptr<ClientInstance> instance,
    const QString &offsetStoreDir, std::int64_t startMillis)
{
    m_client = std::move(instance);
    m_startMillis = startMillis;
    m_offsets
        = makeOffsetStore(m_settings.messageModel, m_client, m_settings.group, offsetStoreDir);
    m_pullApi = std::make_unique<PullAPIWrapper>(m_client, m_settings.group);
    return m_offsets->load();
}

// -- subscriptions ----------------------------------------------------------------------------

void RebalanceImpl::putSubscription(protocol::SubscriptionData sub)
{
    std::lock_guard lock(m_subscriptionMutex);
    const QByteArray topic = sub.topic;
    m_subscriptions[topic] = std::move(sub);
}

void RebalanceImpl::removeSubscription(const QByteArray &topic)
{
    std::lock_guard lock(m_subscriptionMutex);
    m_subscriptions.erase(topic);
}

void RebalanceImpl::clearSubscriptions()
{
    std::lock_guard lock(m_subscriptionMutex);
    m_subscriptions.clear();
}

std::optional<protocol::SubscriptionData> RebalanceImpl::subscription(const QByteArray &topic) const
{
    std::lock_guard lock(m_subscriptionMutex);
    const auto it = m_subscriptions.find(topic);
    if (it == m_subscriptions.end())
        return std::nullopt;
    return it->second;
}

std::vector<protocol::SubscriptionData> RebalanceImpl::subscriptions() const
{
    std::vector<protocol::SubscriptionData> out;
    std::lock_guard lock(m_subscriptionMutex);
    for (const auto &[topic, sub] : m_subscriptions)
        out.push_back(sub);
    return out;
}

std::vector<QByteArray> RebalanceImpl::subscriptionTopics() const
{
    std::vector<QByteArray> out;
    std::lock_guard lock(m_subscriptionMutex);
    for (const auto &[topic, sub] : m_subscriptions)
        out.push_back(topic);
    return out;
}

bool RebalanceImpl::hasSubscription(const QByteArray &topic) const
{
    std::lock_guard lock(m_subscriptionMutex);
    return m_subscriptions.count(topic) > 0;
}

bool RebalanceImpl::hasSubscriptions() const
{
    std::lock_guard lock(m_subscriptionMutex);
    return !m_subscriptions.empty();
}

protocol::ConsumerData RebalanceImpl::buildConsumerData(protocol::ConsumeType type) const
{
    protocol::ConsumerData data;
    data.groupName = m_settings.group;
    data.consumeType = type;
    data.messageModel = m_settings.messageModel;
    data.consumeFromWhere = m_settings.consumeFromWhere;
    data.subscriptionDataSet = subscriptions();
    return data;
}

bool RebalanceImpl::updateTopicQueues(
    const QByteArray &topic, const std::vector<MessageQueue> &queues)
{
    std::lock_guard lock(m_subscriptionMutex);
    if (!m_subscriptions.count(topic))
        return false;
    auto &known = m_topicQueues[topic];
    const bool changed = known != queues;
    known = queues;
    return changed;
}

// -- rebalance --------------------------------------------------------------------------------

void RebalanceImpl::rebalance()
{
    std::lock_guard serial(m_rebalanceMutex);
    for (const QByteArray &topic : subscriptionTopics())
        rebalanceTopic(topic);
    truncateQueuesNotOfSubscribedTopics();
}

void RebalanceImpl::rebalanceTopic(const QByteArray &topic)
{
    const QByteArray &group = m_settings.group;
    std::vector<MessageQueue> all;
    {
        std::lock_guard lock(m_subscriptionMutex);
        const auto it = m_topicQueues.find(topic);
        if (it != m_topicQueues.end())
            all = it->second;
    }
    qCDebug(lcConsumer, "rebalance %s/%s: %zu queues known", group.constData(), topic.constData(),
        all.size());
    if (all.empty()) {
        auto queues = m_client->subscribeQueues(topic);
        if (!queues) {
            qCDebug(lcConsumer, "rebalance %s/%s: no route: %s", group.constData(),
                topic.constData(), qPrintable(queues.error().message()));
            if (!isRetryTopic(topic))
                qCWarning(lcConsumer, "rebalance %s: no route for topic %s: %s", group.constData(),
                    topic.constData(), qPrintable(queues.error().message()));
            return;
        }
        all = std::move(queues).value();
        std::lock_guard lock(m_subscriptionMutex);
        m_topicQueues[topic] = all;
    }
    if (m_settings.messageModel == protocol::MessageModel::Broadcasting) {
        updateProcessQueueTable(topic, all);
        return;
    }
    if (!clientRebalance(topic)) {
        if (rebalanceByBroker(topic, all))
            return;
        updatePopQueueTable(topic, {});
    }
    auto ids = m_client->consumerIdList(topic, group);
    if (!ids || ids->empty()) {
        qCWarning(lcConsumer, "rebalance %s/%s: no consumer list: %s", group.constData(),
            topic.constData(), ids ? "empty" : qPrintable(ids.error().message()));
        return;
    }
    std::vector<QByteArray> cids = std::move(ids).value();
    std::sort(cids.begin(), cids.end());
    std::sort(all.begin(), all.end());
    const auto mine
        = allocateMessageQueues(m_settings.allocateStrategy, m_client->clientId(), all, cids);
    if (updateProcessQueueTable(topic, mine))
        qCInfo(lcConsumer, "rebalance %s/%s: %zu of %zu queues for %s among %zu consumers",
            group.constData(), topic.constData(), mine.size(), all.size(),
            m_client->clientId().constData(), cids.size());
}

bool RebalanceImpl::rebalanceByBroker(const QByteArray &topic, const std::vector<MessageQueue> &all)
{
    const QByteArray &group = m_settings.group;
    std::set<QByteArray> brokers;
    for (const MessageQueue &mq : all)
        brokers.insert(mq.brokerName);
    protocol::QueryAssignmentRequestBody body;
    body.topic = topic;
    body.consumerGroup = group;
    body.clientId = m_client->clientId();
    body.strategyName = allocateStrategyName(m_settings.allocateStrategy);
    body.messageModel = m_settings.messageModel;
    const int timeout = m_client->config().mqClientApiTimeout;
    // A RocketMQ 5 broker answers for every queue of the topic, a QRocket broker for its own:
    // the union of the answers is the assignment either way.
    std::set<MessageQueue> pulled;
    std::set<MessageQueue> popped;
    std::vector<MessageQueue> unassigned; // queues of brokers that do not assign (4.x)
    for (const QByteArray &broker : brokers) {
        const QByteArray addr = m_client->masterAddress(broker);
        auto answer = addr.isEmpty() ? Result<std::vector<protocol::MessageQueueAssignment>>(
                          Status::notFound(QStringLiteral("no master address")))
                                     : m_client->api().queryAssignment(addr, body, timeout);
        if (!answer
            && answer.error().remoteCode()
                == protocol::toInt(ResponseCode::RequestCodeNotSupported)) {
            for (const MessageQueue &mq : all)
                if (mq.brokerName == broker)
                    unassigned.push_back(mq);
            continue;
        }
        if (!answer) {
            // As RocketMQ: no answer, no change (the next rebalance asks again).
            qCWarning(lcConsumer, "rebalance %s/%s: QUERY_ASSIGNMENT at %s: %s", group.constData(),
                topic.constData(), broker.constData(), qPrintable(answer.error().message()));
            return true;
        }
        for (protocol::MessageQueueAssignment &a : *answer)
            (a.mode == "POP" ? popped : pulled).insert(std::move(a.messageQueue));
    }
    if (unassigned.size() == all.size())
        return false;
    if (!unassigned.empty()) {
        auto ids = m_client->consumerIdList(topic, group);
        if (!ids || ids->empty())
            return true;
        std::vector<QByteArray> cids = std::move(ids).value();
        std::sort(cids.begin(), cids.end());
        std::sort(unassigned.begin(), unassigned.end());
        for (MessageQueue &mq : allocateMessageQueues(
                 m_settings.allocateStrategy, m_client->clientId(), unassigned, cids))
            pulled.insert(std::move(mq));
    }
    if (!isRetryTopic(topic)) {
        // As RocketMQ 5: a group switched from POP to PULL also pulls the POP retry topic (its
        // revived messages), and stops when it pops again (the pop serves them).
        const QByteArray popRetry = protocol::popRetryTopicV1(topic, group);
        if (popped.empty() && !pulled.empty() && !hasSubscription(popRetry)) {
            protocol::SubscriptionData sub;
            sub.topic = popRetry;
            sub.subVersion = currentTimeMillis();
            sub.buildTags();
            putSubscription(std::move(sub));
        } else if (!popped.empty() && pulled.empty()) {
            removeSubscription(popRetry);
        }
    }
    const bool pullChanged
        = updateProcessQueueTable(topic, std::vector<MessageQueue>(pulled.begin(), pulled.end()));
    const bool popChanged = updatePopQueueTable(topic, popped);
    if (pullChanged || popChanged)
        qCInfo(lcConsumer, "rebalance %s/%s by the brokers: %zu queues pulled, %zu popped",
            group.constData(), topic.constData(), pulled.size(), popped.size());
    return true;
}

bool RebalanceImpl::updateProcessQueueTable(
    const QByteArray &topic, const std::vector<MessageQueue> &mine)
{
    const std::set<MessageQueue> wanted(mine.begin(), mine.end());
    const std::int64_t now = currentTimeMillis();
    QueueDiff diff = takeQueueDiff(topic, wanted, now);
    bool changed = false;
    for (auto &[mq, pq] : diff.removed) {
        qCDebug(lcConsumer, "rebalance %s: %s/%s/%d given up", m_settings.group.constData(),
            mq.topic.constData(), mq.brokerName.constData(), mq.queueId);
        pq->dropped = true;
        removeUnnecessaryMessageQueue(mq, pq);
        changed = true;
    }
    bool missed = false;
    for (const MessageQueue &mq : diff.added) {
        switch (addMessageQueue(mq, now)) {
        case Added::Yes:
            changed = true;
            break;
        case Added::LockMissed:
            missed = true;
            break;
        case Added::No:
            break;
        }
    }
    if (missed)
        lockMissed();
    return changed;
}

std::int64_t RebalanceImpl::consumeTimestampMillis() const
{
    const std::int64_t halfAnHourAgo = m_startMillis - 30 * 60 * 1000;
    if (m_settings.consumeTimestamp.isEmpty())
        return halfAnHourAgo;
    const QDateTime t = QDateTime::fromString(
        QString::fromLatin1(m_settings.consumeTimestamp), QStringLiteral("yyyyMMddHHmmss"));
    return t.isValid() ? t.toMSecsSinceEpoch() : halfAnHourAgo;
}

std::int64_t RebalanceImpl::computePullFromWhere(const MessageQueue &mq)
{
    const int timeout = m_client->config().mqClientApiTimeout;
    const auto maxOffset = [&]() -> std::int64_t {
        const QByteArray addr = m_client->masterAddress(mq.brokerName);
        if (addr.isEmpty())
            return -1;
        auto r = m_client->api().getMaxOffset(addr, mq.topic, mq.queueId, timeout);
        return r ? *r : -1;
    };
    const auto searchOffset = [&](std::int64_t timestamp) -> std::int64_t {
        const QByteArray addr = m_client->masterAddress(mq.brokerName);
        if (addr.isEmpty())
            return -1;
        auto r = m_client->api().searchOffset(addr, mq.topic, mq.queueId, timestamp, timeout);
        return r ? *r : -1;
    };
    return startOffset(m_settings.consumeFromWhere, mq,
        m_offsets->readOffset(mq, ReadOffsetType::Store), consumeTimestampMillis(), maxOffset,
        searchOffset);
}

// -- orderly locks ----------------------------------------------------------------------------

std::vector<std::pair<QByteArray, protocol::LockBatchRequestBody>> RebalanceImpl::lockBodies(
    const std::vector<MessageQueue> &queues) const
{
    std::map<QByteArray, std::vector<MessageQueue>> byBroker;
    for (const MessageQueue &mq : queues)
        byBroker[mq.brokerName].push_back(mq);
    std::vector<std::pair<QByteArray, protocol::LockBatchRequestBody>> out;
    for (auto &[broker, owned] : byBroker) {
        const QByteArray addr = m_client->masterAddress(broker);
        if (addr.isEmpty())
            continue;
        protocol::LockBatchRequestBody body;
        body.consumerGroup = m_settings.group;
        body.clientId = m_client->clientId();
        body.mqSet = std::move(owned);
        out.emplace_back(addr, std::move(body));
    }
    return out;
}

bool RebalanceImpl::lock(const MessageQueue &mq)
{
    const auto bodies = lockBodies({mq});
    if (bodies.empty())
        return false;
    auto locked = m_client->api().lockBatchMQ(bodies.front().first, bodies.front().second, 1000);
    return locked && locked->count(mq);
}

void RebalanceImpl::lockAll(
    const std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> &queues)
{
    const std::map<MessageQueue, std::shared_ptr<ProcessQueue>> owned(queues.begin(), queues.end());
    std::vector<MessageQueue> mqs;
    for (const auto &[mq, pq] : queues)
        mqs.push_back(mq);
    for (const auto &[addr, body] : lockBodies(mqs)) {
        auto locked = m_client->api().lockBatchMQ(addr, body, 1000);
        if (!locked)
            continue;
        const std::int64_t now = currentTimeMillis();
        for (const MessageQueue &mq : body.mqSet) {
            ProcessQueue &pq = *owned.at(mq);
            const bool ok = locked->count(mq) > 0;
            if (ok)
                pq.lastLockTimestamp = now;
            pq.locked = ok;
        }
    }
}

void RebalanceImpl::unlockAll(const std::vector<MessageQueue> &queues, bool oneway)
{
    for (const auto &[addr, body] : lockBodies(queues))
        m_client->api().unlockBatchMQ(addr, body, 1000, oneway);
}

} // namespace qrocket::client
