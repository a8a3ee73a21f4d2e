#include "clientlib/client/consumer/pushconsumerimpl.h"

#include "clientlib/client/logging.h"
#include "clientlib/client/producerimpl.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/requestcode.h"

#include <QDateTime>

#include <algorithm>
#include <chrono>

namespace qrocket::client {

namespace MC = protocol::MessageConst;
using std::chrono::milliseconds;

namespace {

constexpr int kLockIntervalMs = 20000;

bool isRetryTopic(const QByteArray &topic)
{
    return topic.startsWith("%RETRY%");
}

} // namespace

PushConsumerImpl::PushConsumerImpl(PushConsumerOptions options) : m_options(std::move(options))
{
    m_retryTopic = "%RETRY%" + m_options.group;
}

PushConsumerImpl::~PushConsumerImpl()
{
    shutdown();
}

QByteArray PushConsumerImpl::clientId() const
{
    return m_instance ? m_instance->clientId() : m_options.client.buildClientId();
}

int PushConsumerImpl::maxReconsumeTimes() const
{
    if (m_options.maxReconsumeTimes >= 0)
        return m_options.maxReconsumeTimes;
    return orderly() ? INT_MAX : 16;
}

std::int64_t PushConsumerImpl::consumeTimestampMillis() const
{
    if (m_options.consumeTimestamp.isEmpty())
        return m_startTimestamp - 30 * 60 * 1000;
    const QDateTime t = QDateTime::fromString(
        QString::fromLatin1(m_options.consumeTimestamp), QStringLiteral("yyyyMMddHHmmss"));
    return t.isValid() ? t.toMSecsSinceEpoch() : m_startTimestamp - 30 * 60 * 1000;
}

// -- configuration ----------------------------------------------------------------------------

Status PushConsumerImpl::subscribe(const QByteArray &topic, const MessageSelector &selector)
{
    if (Status s = checkTopic(topic); !s)
        return s;
    protocol::SubscriptionData sub;
    sub.topic = topic;
    sub.subVersion = currentTimeMillis();
    if (selector.type == "SQL92") {
        if (selector.expression.trimmed().isEmpty())
            return Status::invalidArgument(QStringLiteral("the SQL92 expression is empty"));
        sub.expressionType = "SQL92";
        sub.subString = selector.expression;
    } else if (selector.type == "TAG") {
        sub.subString = selector.expression.trimmed().isEmpty() ? QByteArray("*")
                                                                : selector.expression.trimmed();
        sub.buildTags();
    } else {
        return Status::invalidArgument(QStringLiteral("unknown expression type %1 (TAG or SQL92)")
                                           .arg(QString::fromUtf8(selector.type)));
    }
    {
        std::lock_guard lock(m_mutex);
        m_subscriptions[topic] = std::move(sub);
    }
    if (m_started) {
        (void)m_instance->refreshTopicRoute(topic);
        (void)m_instance->sendHeartbeatToAllBrokers(false);
        m_instance->rebalanceImmediately();
    }
    return Status();
}

void PushConsumerImpl::unsubscribe(const QByteArray &topic)
{
    std::lock_guard lock(m_mutex);
    m_subscriptions.erase(topic);
}

void PushConsumerImpl::setListener(ConcurrentListener listener)
{
    m_concurrentListener = std::move(listener);
    m_orderlyListener = nullptr;
}

void PushConsumerImpl::setListener(OrderlyListener listener)
{
    m_orderlyListener = std::move(listener);
    m_concurrentListener = nullptr;
}

Status PushConsumerImpl::start()
{
    if (m_started)
        return Status();
    const auto bad
        = [](const char *text) { return Status::invalidArgument(QString::fromLatin1(text)); };
    if (m_options.group.isEmpty())
        return bad("consumerGroup is empty");
    if (m_options.group == "DEFAULT_CONSUMER")
        return bad("consumerGroup can not equal DEFAULT_CONSUMER, please specify another one.");
    if (Status s = checkTopic(m_options.group); !s)
        return bad("consumerGroup contains illegal characters (allowed: [%|a-zA-Z0-9_-])");
    if (!m_concurrentListener && !m_orderlyListener)
        return bad("messageListener is null: register a listener before start()");
    if (m_options.consumeThreadMin < 1 || m_options.consumeThreadMin > 1000
        || m_options.consumeThreadMax < m_options.consumeThreadMin
        || m_options.consumeThreadMax > 1000)
        return bad("consumeThreadMin/Max out of range [1, 1000] or min > max");
    if (m_options.pullThresholdForQueue < 1 || m_options.pullThresholdForQueue > 65535)
        return bad("pullThresholdForQueue out of range [1, 65535]");
    if (m_options.pullThresholdSizeForQueue < 1 || m_options.pullThresholdSizeForQueue > 1024)
        return bad("pullThresholdSizeForQueue out of range [1, 1024]");
    if (m_options.pullBatchSize < 1 || m_options.pullBatchSize > 1024)
        return bad("pullBatchSize out of range [1, 1024]");
    if (m_options.consumeMessageBatchMaxSize < 1 || m_options.consumeMessageBatchMaxSize > 1024)
        return bad("consumeMessageBatchMaxSize out of range [1, 1024]");
    if (m_options.consumeConcurrentlyMaxSpan < 1 || m_options.consumeConcurrentlyMaxSpan > 65535)
        return bad("consumeConcurrentlyMaxSpan out of range [1, 65535]");
    if (m_options.client.resolvedNamesrvAddr().isEmpty())
        return bad("no name server address: set namesrvAddr or NAMESRV_ADDR");

    const bool clustering = m_options.messageModel == MessageModel::Clustering;
    ClientConfig config = m_options.client;
    config.instanceNameToPid = clustering;
    m_startTimestamp = currentTimeMillis();
    m_lease = ClientInstance::acquire(config);
    m_instance = m_lease.instance();
    if (clustering) {
        protocol::SubscriptionData retry;
        retry.topic = m_retryTopic;
        retry.subVersion = currentTimeMillis();
        std::lock_guard lock(m_mutex);
        m_subscriptions[m_retryTopic] = retry;
        m_offsets = std::make_unique<RemoteBrokerOffsetStore>(m_instance, m_options.group);
    } else {
        m_offsets = std::make_unique<LocalFileOffsetStore>(
            m_options.offsetStoreDir, m_instance->clientId(), m_options.group);
    }
    if (Status s = m_offsets->load(); !s)
        return s;

    // SQL92 subscriptions: every broker of the topic must accept them before we start.
    std::vector<protocol::SubscriptionData> subs;
    {
        std::lock_guard lock(m_mutex);
        for (const auto &[topic, sub] : m_subscriptions)
            subs.push_back(sub);
    }
    for (const protocol::SubscriptionData &sub : subs) {
        if (sub.expressionType == "TAG")
            continue;
        auto route = m_instance->refreshTopicRoute(sub.topic);
        if (!route)
            return route.error();
        for (const protocol::BrokerData &b : route->brokerDatas) {
            const QByteArray addr = b.masterAddr();
            if (addr.isEmpty())
                continue;
            if (Status s = m_instance->api().checkClientInBroker(addr, m_options.group,
                    m_instance->clientId(), sub, m_instance->config().mqClientApiTimeout);
                !s)
                return Status(s.code() == Status::Code::RemoteError ? Status::Code::InvalidArgument
                                                                    : s.code(),
                    QStringLiteral("check client in broker %1 (%2) for %3: %4")
                        .arg(QString::fromUtf8(b.brokerName), QString::fromUtf8(addr),
                            QString::fromUtf8(sub.topic), s.message()));
        }
    }

    m_consumePool = std::make_shared<WorkerPool>(
        "qrocket-consume", m_options.consumeThreadMin, m_options.consumeThreadMax);
    m_pullScheduler = std::make_unique<Scheduler>("qrocket-pull");
    ProducerOptions retryOptions;
    retryOptions.group = "CLIENT_INNER_PRODUCER";
    retryOptions.client = config;
    m_retryProducer = std::make_shared<ProducerImpl>(retryOptions);
    m_retryProducer->startInner(m_instance);
    if (Status s = m_instance->registerConsumer(m_options.group, weak_from_this()); !s) {
        m_pullScheduler->shutdown();
        m_consumePool->shutdown();
        return s;
    }
    m_stopping = false;
    m_started = true;
    for (const protocol::SubscriptionData &sub : subs)
        (void)m_instance->refreshTopicRoute(sub.topic);
    (void)m_instance->sendHeartbeatToAllBrokers(true);
    if (orderly() && clustering) {
        std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
        m_pullScheduler->scheduleWithFixedDelay(
            milliseconds(1000), milliseconds(kLockIntervalMs), [weak] {
                if (auto self = weak.lock())
                    self->lockAll();
            });
    }
    m_instance->rebalanceImmediately();
    qCInfo(lcConsumer, "push consumer %s started (%s, %s, client %s)", m_options.group.constData(),
        protocol::messageModelName(m_options.messageModel), orderly() ? "orderly" : "concurrently",
        m_instance->clientId().constData());
    return Status();
}

void PushConsumerImpl::shutdown()
{
    if (!m_started.exchange(false))
        return;
    m_stopping = true;
    m_pullScheduler->shutdown(milliseconds(1000));
    m_consumePool->shutdown(milliseconds(m_options.awaitTerminationMillisWhenShutdown));
    std::set<MessageQueue> owned;
    {
        std::lock_guard lock(m_mutex);
        for (auto &[mq, pq] : m_processQueues) {
            pq->dropped = true;
            owned.insert(mq);
        }
    }
    m_offsets->persistAll(owned, true);
    if (orderly() && m_options.messageModel == MessageModel::Clustering)
        unlockAll();
    m_instance->unregisterConsumer(m_options.group);
    m_retryProducer->shutdown();
    m_lease.reset(); // the last user's shutdown stops the client instance here
    qCInfo(lcConsumer, "push consumer %s shut down", m_options.group.constData());
}

std::vector<MessageQueue> PushConsumerImpl::assignedQueues() const
{
    std::vector<MessageQueue> out;
    std::lock_guard lock(m_mutex);
    for (const auto &[mq, pq] : m_processQueues) {
        if (!pq->dropped)
            out.push_back(mq);
    }
    return out;
}

std::map<MessageQueue, std::int64_t> PushConsumerImpl::committedOffsets(
    const QByteArray &topic) const
{
    return m_offsets ? m_offsets->offsets(topic) : std::map<MessageQueue, std::int64_t>();
}

// -- ConsumerInner ----------------------------------------------------------------------------

protocol::ConsumerData PushConsumerImpl::consumerData() const
{
    protocol::ConsumerData data;
    data.groupName = m_options.group;
    data.consumeType = protocol::ConsumeType::ConsumePassively;
    data.messageModel = m_options.messageModel;
    data.consumeFromWhere = m_options.consumeFromWhere;
    std::lock_guard lock(m_mutex);
    for (const auto &[topic, sub] : m_subscriptions)
        data.subscriptionDataSet.push_back(sub);
    return data;
}

std::vector<QByteArray> PushConsumerImpl::subscribedTopics() const
{
    std::vector<QByteArray> out;
    std::lock_guard lock(m_mutex);
    for (const auto &[topic, sub] : m_subscriptions)
        out.push_back(topic);
    return out;
}

void PushConsumerImpl::updateTopicSubscribeInfo(
    const QByteArray &topic, const std::vector<MessageQueue> &queues)
{
    bool changed = false;
    {
        std::lock_guard lock(m_mutex);
        if (!m_subscriptions.count(topic))
            return;
        auto &known = m_topicQueues[topic];
        changed = known != queues;
        known = queues;
    }
    // Java waits for the next 20 s rebalance; a queue that appears (a new broker, the retry
    // topic's first route) is taken at once here.
    if (changed && m_started && m_instance)
        m_instance->rebalanceImmediately();
}

void PushConsumerImpl::persistConsumerOffset()
{
    if (!m_started)
        return;
    std::set<MessageQueue> owned;
    {
        std::lock_guard lock(m_mutex);
        for (const auto &[mq, pq] : m_processQueues)
            owned.insert(mq);
    }
    m_offsets->persistAll(owned, false);
}

// -- rebalance --------------------------------------------------------------------------------

void PushConsumerImpl::doRebalance()
{
    if (!m_started || m_stopping)
        return;
    std::lock_guard serial(m_rebalanceMutex);
    const std::vector<QByteArray> topics = subscribedTopics();
    for (const QByteArray &topic : topics)
        rebalanceTopic(topic);
    // Queues of topics no longer subscribed.
    std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> stale;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_processQueues.begin(); it != m_processQueues.end();) {
            if (!m_subscriptions.count(it->first.topic)) {
                stale.emplace_back(it->first, it->second);
                it = m_processQueues.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (auto &[mq, pq] : stale) {
        pq->dropped = true;
        removeUnnecessaryQueue(mq, pq);
    }
}

void PushConsumerImpl::rebalanceTopic(const QByteArray &topic)
{
    std::vector<MessageQueue> all;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_topicQueues.find(topic);
        if (it != m_topicQueues.end())
            all = it->second;
    }
    qCDebug(lcConsumer, "rebalance %s/%s: %zu queues known", m_options.group.constData(),
        topic.constData(), all.size());
    if (all.empty()) {
        auto queues = m_instance->subscribeQueues(topic);
        if (!queues) {
            qCDebug(lcConsumer, "rebalance %s/%s: no route: %s", m_options.group.constData(),
                topic.constData(), qPrintable(queues.error().message()));
            if (!isRetryTopic(topic))
                qCWarning(lcConsumer, "rebalance %s: no route for topic %s: %s",
                    m_options.group.constData(), topic.constData(),
                    qPrintable(queues.error().message()));
            return;
        }
        all = std::move(queues).value();
        std::lock_guard lock(m_mutex);
        m_topicQueues[topic] = all;
    }
    if (m_options.messageModel == MessageModel::Broadcasting) {
        updateProcessQueueTable(topic, all);
        return;
    }
    auto ids = m_instance->consumerIdList(topic, m_options.group);
    if (!ids || ids->empty()) {
        qCWarning(lcConsumer, "rebalance %s/%s: no consumer list: %s", m_options.group.constData(),
            topic.constData(), ids ? "empty" : qPrintable(ids.error().message()));
        return;
    }
    std::vector<QByteArray> cids = std::move(ids).value();
    std::sort(cids.begin(), cids.end());
    std::sort(all.begin(), all.end());
    const auto mine
        = allocateMessageQueues(m_options.allocateStrategy, m_instance->clientId(), all, cids);
    if (updateProcessQueueTable(topic, mine))
        qCInfo(lcConsumer, "rebalance %s/%s: %zu of %zu queues for %s among %zu consumers",
            m_options.group.constData(), topic.constData(), mine.size(), all.size(),
            m_instance->clientId().constData(), cids.size());
}

bool PushConsumerImpl::updateProcessQueueTable(
    const QByteArray &topic, const std::vector<MessageQueue> &assigned)
{
    const std::set<MessageQueue> wanted(assigned.begin(), assigned.end());
    const std::int64_t now = currentTimeMillis();
    bool changed = false;
    std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> removed;
    std::vector<MessageQueue> toAdd;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_processQueues.begin(); it != m_processQueues.end();) {
            if (it->first.topic == topic
                && (!wanted.count(it->first) || it->second->isPullExpired(now))) {
                removed.emplace_back(it->first, it->second);
                it = m_processQueues.erase(it);
            } else {
                ++it;
            }
        }
        for (const MessageQueue &mq : wanted) {
            if (!m_processQueues.count(mq))
                toAdd.push_back(mq);
        }
    }
    for (auto &[mq, pq] : removed) {
        qCDebug(lcConsumer, "rebalance %s: %s/%s/%d given up", m_options.group.constData(),
            mq.topic.constData(), mq.brokerName.constData(), mq.queueId);
        pq->dropped = true;
        removeUnnecessaryQueue(mq, pq);
        changed = true;
    }
    const bool lockFirst = orderly() && m_options.messageModel == MessageModel::Clustering;
    bool lockMissed = false;
    for (const MessageQueue &mq : toAdd) {
        if (lockFirst && !lockQueue(mq)) {
            lockMissed = true;
            qCInfo(lcConsumer, "rebalance %s: %s/%s/%d is still locked by another consumer",
                m_options.group.constData(), mq.topic.constData(), mq.brokerName.constData(),
                mq.queueId);
            continue;
        }
        m_offsets->removeOffset(mq);
        const std::int64_t offset = computePullFromWhere(mq);
        if (offset < 0) {
            qCWarning(lcConsumer, "rebalance %s: no start offset for %s/%s/%d yet",
                m_options.group.constData(), mq.topic.constData(), mq.brokerName.constData(),
                mq.queueId);
            continue;
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
                continue; // added meanwhile (a reset): that one pulls
        }
        changed = true;
        PullRequest request;
        request.mq = mq;
        request.pq = pq;
        request.nextOffset = offset;
        request.previouslyLocked = lockFirst;
        executePullLater(std::move(request), 0);
    }
    if (lockMissed && m_pullScheduler) {
        // Its previous owner still holds the queue (it unlocks once its last message is
        // consumed): try again in a second rather than at the next 20 s rebalance.
        std::weak_ptr<ClientInstance> weak = m_instance;
        m_pullScheduler->schedule(milliseconds(1000), [weak] {
            if (auto instance = weak.lock())
                instance->rebalanceImmediately();
        });
    }
    return changed;
}

std::int64_t PushConsumerImpl::computePullFromWhere(const MessageQueue &mq)
{
    const std::int64_t last = m_offsets->readOffset(mq, ReadOffsetType::Store);
    if (last >= 0)
        return last;
    if (last != -1)
        return -1;
    const int timeout = m_instance->config().mqClientApiTimeout;
    auto maxOffset = [&]() -> std::int64_t {
        const QByteArray addr = m_instance->masterAddress(mq.brokerName);
        if (addr.isEmpty())
            return -1;
        auto r = m_instance->api().getMaxOffset(addr, mq.topic, mq.queueId, timeout);
        return r ? *r : -1;
    };
    switch (m_options.consumeFromWhere) {
    case ConsumeFromWhere::ConsumeFromFirstOffset:
        return 0;
    case ConsumeFromWhere::ConsumeFromTimestamp: {
        if (isRetryTopic(mq.topic))
            return maxOffset();
        const QByteArray addr = m_instance->masterAddress(mq.brokerName);
        if (addr.isEmpty())
            return -1;
        auto r = m_instance->api().searchOffset(
            addr, mq.topic, mq.queueId, consumeTimestampMillis(), timeout);
        return r ? *r : -1;
    }
    default: // LAST_OFFSET and its deprecated variants
        return isRetryTopic(mq.topic) ? 0 : maxOffset();
    }
}

void PushConsumerImpl::removeUnnecessaryQueue(
    const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &pq)
{
    m_offsets->persist(mq, false);
    m_offsets->removeOffset(mq);
    if (!orderly() || m_options.messageModel != MessageModel::Clustering)
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
    const QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty())
        return;
    protocol::LockBatchRequestBody body;
    body.consumerGroup = m_options.group;
    body.clientId = m_instance->clientId();
    body.mqSet = {mq};
    m_instance->api().unlockBatchMQ(addr, body, 1000, true);
}

bool PushConsumerImpl::lockQueue(const MessageQueue &mq)
{
    const QByteArray addr = m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty())
        return false;
    protocol::LockBatchRequestBody body;
    body.consumerGroup = m_options.group;
    body.clientId = m_instance->clientId();
    body.mqSet = {mq};
    auto locked = m_instance->api().lockBatchMQ(addr, body, 1000);
    return locked && locked->count(mq);
}

void PushConsumerImpl::lockAll()
{
    std::map<QByteArray, std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>>>
        byBroker;
    {
        std::lock_guard lock(m_mutex);
        for (const auto &[mq, pq] : m_processQueues)
            byBroker[mq.brokerName].emplace_back(mq, pq);
    }
    for (const auto &[broker, queues] : byBroker) {
        const QByteArray addr = m_instance->masterAddress(broker);
        if (addr.isEmpty())
            continue;
        protocol::LockBatchRequestBody body;
        body.consumerGroup = m_options.group;
        body.clientId = m_instance->clientId();
        for (const auto &[mq, pq] : queues)
            body.mqSet.push_back(mq);
        auto locked = m_instance->api().lockBatchMQ(addr, body, 1000);
        if (!locked)
            continue;
        const std::int64_t now = currentTimeMillis();
        for (const auto &[mq, pq] : queues) {
            const bool ok = locked->count(mq) > 0;
            if (ok)
                pq->lastLockTimestamp = now;
            pq->locked = ok;
        }
    }
}

void PushConsumerImpl::unlockAll()
{
    std::map<QByteArray, std::vector<MessageQueue>> byBroker;
    {
        std::lock_guard lock(m_mutex);
        for (const auto &[mq, pq] : m_processQueues)
            byBroker[mq.brokerName].push_back(mq);
    }
    for (const auto &[broker, queues] : byBroker) {
        const QByteArray addr = m_instance->masterAddress(broker);
        if (addr.isEmpty())
            continue;
        protocol::LockBatchRequestBody body;
        body.consumerGroup = m_options.group;
        body.clientId = m_instance->clientId();
        body.mqSet = queues;
        m_instance->api().unlockBatchMQ(addr, body, 1000, false);
    }
}

// -- pulling ----------------------------------------------------------------------------------

void PushConsumerImpl::executePullLater(PullRequest request, int delayMs)
{
    if (m_stopping || !m_pullScheduler)
        return;
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    m_pullScheduler->schedule(
        milliseconds(delayMs), [weak, request = std::move(request)]() mutable {
            if (auto self = weak.lock())
                self->executePull(std::move(request));
        });
}

std::int64_t PushConsumerImpl::pullFromWhichNode(const MessageQueue &mq) const
{
    std::lock_guard lock(m_mutex);
    const auto it = m_pullFromWhichNode.find(mq);
    return it == m_pullFromWhichNode.end() ? 0 : it->second;
}

void PushConsumerImpl::executePull(PullRequest request)
{
    const std::shared_ptr<ProcessQueue> &pq = request.pq;
    if (pq->dropped || m_stopping)
        return;
    pq->lastPullTimestamp = currentTimeMillis();
    if (m_paused) {
        executePullLater(std::move(request), 1000);
        return;
    }
    if (pq->messageCount() > m_options.pullThresholdForQueue
        || pq->messageBytes()
            > static_cast<std::int64_t>(m_options.pullThresholdSizeForQueue) * 1024 * 1024) {
        executePullLater(std::move(request), 50);
        return;
    }
    const bool clustering = m_options.messageModel == MessageModel::Clustering;
    if (!orderly()) {
        if (pq->maxSpan() > m_options.consumeConcurrentlyMaxSpan) {
            executePullLater(std::move(request), 50);
            return;
        }
    } else if (clustering) {
        if (!pq->locked) {
            executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
            return;
        }
        if (!request.previouslyLocked) {
            const std::int64_t offset = computePullFromWhere(request.mq);
            if (offset < 0) {
                executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
                return;
            }
            request.nextOffset = offset;
            request.previouslyLocked = true;
        }
    }
    protocol::SubscriptionData sub;
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_subscriptions.find(request.mq.topic);
        if (it == m_subscriptions.end()) {
            // Unsubscribed meanwhile: the rebalance drops the queue.
            return;
        }
        sub = it->second;
    }
    auto broker
        = m_instance->brokerAddress(request.mq.brokerName, pullFromWhichNode(request.mq), false);
    if (!broker) {
        (void)m_instance->refreshTopicRoute(request.mq.topic);
        broker = m_instance->brokerAddress(
            request.mq.brokerName, pullFromWhichNode(request.mq), false);
    }
    if (!broker) {
        executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
        return;
    }
    std::int64_t commitOffset = 0;
    if (clustering)
        commitOffset = m_offsets->readOffset(request.mq, ReadOffsetType::Memory);
    int sysFlag = protocol::PullSysFlag::Suspend;
    if (commitOffset > 0 && !broker->slave)
        sysFlag |= protocol::PullSysFlag::CommitOffset;
    const bool postSubscription = m_options.postSubscriptionWhenPull && sub.expressionType == "TAG";
    if (postSubscription)
        sysFlag |= protocol::PullSysFlag::Subscription;
    protocol::PullMessageRequestHeader h;
    h.consumerGroup = m_options.group;
    h.topic = request.mq.topic;
    h.queueId = request.mq.queueId;
    h.queueOffset = request.nextOffset;
    h.maxMsgNums = m_options.pullBatchSize;
    h.sysFlag = sysFlag;
    h.commitOffset = commitOffset > 0 ? commitOffset : 0;
    h.suspendTimeoutMillis = m_options.brokerSuspendMaxTimeMillis;
    if (postSubscription)
        h.subscription = sub.subString;
    h.subVersion = sub.subVersion;
    h.expressionType = sub.expressionType;
    h.brokerName = request.mq.brokerName;
    qCDebug(lcConsumer, "pulling %s/%s/%d at %lld from %s", request.mq.topic.constData(),
        request.mq.brokerName.constData(), request.mq.queueId,
        static_cast<long long>(request.nextOffset), broker->address.constData());
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    const auto issued = std::chrono::steady_clock::now();
    m_instance->api().pullMessageAsync(broker->address, request.mq.brokerName, h,
        m_options.consumerTimeoutMillisWhenSuspend,
        [weak, request, issued](Result<PullResult> r) mutable {
            // I/O thread: straight to the pull thread.
            qCDebug(lcConsumer, "pull answer %s/%d at %lld: %s", request.mq.topic.constData(),
                request.mq.queueId, static_cast<long long>(request.nextOffset),
                r ? pullStatusName(r->status) : qPrintable(r.error().message()));
            auto self = weak.lock();
            if (!self || self->m_stopping)
                return;
            TopicStats &st = self->stats(request.mq.topic);
            ++st.pulls;
            st.pullRtTotalMs += std::chrono::duration_cast<milliseconds>(
                std::chrono::steady_clock::now() - issued)
                                    .count();
            self->m_pullScheduler->post(
                [weak, request = std::move(request), r = std::move(r)]() mutable {
                    if (auto s = weak.lock())
                        s->onPullResult(std::move(request), std::move(r));
                });
        });
}

void PushConsumerImpl::onPullResult(PullRequest request, Result<PullResult> result)
{
    if (request.pq->dropped || m_stopping)
        return;
    if (!result) {
        const int code = result.error().remoteCode();
        if (code == 24 || code == 25) {
            // SUBSCRIPTION_NOT_EXIST / NOT_LATEST: the broker has not processed our latest
            // heartbeat yet (a pull raced it): heartbeat again and pull again shortly.
            qCDebug(lcConsumer, "pull %s/%s/%d: %s", request.mq.topic.constData(),
                request.mq.brokerName.constData(), request.mq.queueId,
                qPrintable(result.error().message()));
            (void)m_instance->sendHeartbeatToAllBrokers(false);
            executePullLater(std::move(request), 200);
            return;
        }
        static std::atomic<std::int64_t> lastWarn {0};
        const std::int64_t now = currentTimeMillis();
        if (now - lastWarn.load() > 5000) {
            lastWarn = now;
            qCWarning(lcConsumer, "pull %s/%s/%d for %s: %s", request.mq.topic.constData(),
                request.mq.brokerName.constData(), request.mq.queueId, m_options.group.constData(),
                qPrintable(result.error().message()));
        }
        std::weak_ptr<ClientInstance> weakInstance = m_instance;
        const QByteArray topic = request.mq.topic;
        m_instance->scheduler().post([weakInstance, topic] {
            if (auto i = weakInstance.lock())
                (void)i->refreshTopicRoute(topic);
        });
        executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
        return;
    }
    PullResult &pull = *result;
    {
        std::lock_guard lock(m_mutex);
        m_pullFromWhichNode[request.mq] = pull.suggestWhichBrokerId;
    }
    switch (pull.status) {
    case PullStatus::Found: {
        request.nextOffset = pull.nextBeginOffset;
        std::vector<MessageExt> msgs;
        protocol::SubscriptionData sub;
        {
            std::lock_guard lock(m_mutex);
            const auto it = m_subscriptions.find(request.mq.topic);
            if (it != m_subscriptions.end())
                sub = it->second;
        }
        const bool filterTags
            = sub.expressionType == "TAG" && !sub.tagsSet.empty() && !sub.classFilterMode;
        msgs.reserve(pull.messages.size());
        for (MessageExt &m : pull.messages) {
            if (filterTags
                && std::find(sub.tagsSet.begin(), sub.tagsSet.end(), m.tags()) == sub.tagsSet.end())
                continue;
            m.setProperty(MC::MinOffset.toByteArray(), QByteArray::number(pull.minOffset));
            m.setProperty(MC::MaxOffset.toByteArray(), QByteArray::number(pull.maxOffset));
            msgs.push_back(std::move(m));
        }
        stats(request.mq.topic).pulled += static_cast<std::int64_t>(msgs.size());
        qCDebug(lcConsumer, "pulled %zu messages of %s/%s/%d at %lld, next %lld", msgs.size(),
            request.mq.topic.constData(), request.mq.brokerName.constData(), request.mq.queueId,
            static_cast<long long>(msgs.empty() ? -1 : msgs.front().queueOffset()),
            static_cast<long long>(request.nextOffset));
        if (!msgs.empty()) {
            const bool dispatch = request.pq->putMessages(msgs);
            if (orderly()) {
                if (dispatch)
                    submitOrderlyLater(request.pq, request.mq, 0);
            } else {
                dispatchConcurrently(msgs, request.pq, request.mq);
            }
        }
        executePullLater(std::move(request), m_options.pullInterval);
        return;
    }
    case PullStatus::NoNewMsg:
    case PullStatus::NoMatchedMsg:
        qCDebug(lcConsumer, "pull %s/%s/%d at %lld: %s, next %lld", request.mq.topic.constData(),
            request.mq.brokerName.constData(), request.mq.queueId,
            static_cast<long long>(request.nextOffset), pullStatusName(pull.status),
            static_cast<long long>(pull.nextBeginOffset));
        request.nextOffset = pull.nextBeginOffset;
        if (request.pq->messageCount() == 0)
            m_offsets->updateOffset(request.mq, request.nextOffset, true);
        executePullLater(std::move(request), 0);
        return;
    case PullStatus::OffsetIllegal: {
        qCWarning(lcConsumer, "pull %s/%s/%d for %s: offset %lld illegal, next %lld",
            request.mq.topic.constData(), request.mq.brokerName.constData(), request.mq.queueId,
            m_options.group.constData(), static_cast<long long>(request.nextOffset),
            static_cast<long long>(pull.nextBeginOffset));
        request.pq->dropped = true;
        m_offsets->updateOffset(request.mq, pull.nextBeginOffset, false);
        m_offsets->persist(request.mq, false);
        {
            std::lock_guard lock(m_mutex);
            const auto it = m_processQueues.find(request.mq);
            if (it != m_processQueues.end() && it->second == request.pq)
                m_processQueues.erase(it);
        }
        m_instance->rebalanceImmediately();
        return;
    }
    }
}

// -- reset / status / running info ------------------------------------------------------------

void PushConsumerImpl::resetOffset(
    const QByteArray &topic, const std::map<MessageQueue, std::int64_t> &offsets)
{
    qCInfo(lcConsumer, "reset offsets of %s/%s: %zu queues", m_options.group.constData(),
        topic.constData(), offsets.size());
    std::vector<std::shared_ptr<ProcessQueue>> dropped;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_processQueues.begin(); it != m_processQueues.end();) {
            if (it->first.topic == topic && offsets.count(it->first)) {
                dropped.push_back(it->second);
                it = m_processQueues.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (const auto &pq : dropped) {
        pq->dropped = true;
        pq->clear();
    }
    for (const auto &[mq, offset] : offsets) {
        m_offsets->updateOffset(mq, offset, false);
        m_offsets->persist(mq, true);
    }
    m_instance->rebalanceImmediately();
}

std::map<MessageQueue, std::int64_t> PushConsumerImpl::consumerOffsets(const QByteArray &topic)
{
    return committedOffsets(topic);
}

QByteArray PushConsumerImpl::runningInfoJson(const QByteArray &jstack)
{
    protocol::JsonWriter w;
    w.beginObject();
    w.key("jstack").value(jstack);
    w.key("mqTable").beginObject();
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> queues;
    std::vector<protocol::SubscriptionData> subs;
    {
        std::lock_guard lock(m_mutex);
        queues = m_processQueues;
        for (const auto &[t, s] : m_subscriptions)
            subs.push_back(s);
    }
    for (const auto &[mq, pq] : queues) {
        const ProcessQueue::Info i = pq->info();
        w.rawKey(mq.toJson()).beginObject();
        w.key("cachedMsgCount").value(i.cachedMsgCount);
        w.key("cachedMsgMaxOffset").value(i.cachedMsgMaxOffset);
        w.key("cachedMsgMinOffset").value(i.cachedMsgMinOffset);
        w.key("cachedMsgSizeInMiB").value(i.cachedMsgSizeInMiB);
        w.key("commitOffset").value(m_offsets->readOffset(mq, ReadOffsetType::Memory));
        w.key("droped").value(pq->dropped.load());
        w.key("lastConsumeTimestamp").value(pq->lastConsumeTimestamp.load());
        w.key("lastLockTimestamp").value(pq->lastLockTimestamp.load());
        w.key("lastPullTimestamp").value(pq->lastPullTimestamp.load());
        w.key("locked").value(pq->locked.load());
        w.key("transactionMsgCount").value(i.transactionMsgCount);
        w.key("transactionMsgMaxOffset").value(std::int64_t(0));
        w.key("transactionMsgMinOffset").value(std::int64_t(0));
        w.key("tryUnlockTimes").value(std::int64_t(0));
        w.endObject();
    }
    w.endObject();
    w.key("properties").beginObject();
    auto prop = [&](const char *k, const QByteArray &v) { w.key(k).value(v); };
    prop("PROP_CLIENT_VERSION", "V4_9_7");
    prop("PROP_CONSUMEORDERLY", orderly() ? "true" : "false");
    prop("PROP_CONSUMER_START_TIMESTAMP", QByteArray::number(m_startTimestamp));
    prop("PROP_CONSUME_TYPE", "CONSUME_PASSIVELY");
    prop("PROP_NAMESERVER_ADDR", m_instance->config().resolvedNamesrvAddr());
    prop("PROP_THREADPOOL_CORE_SIZE", QByteArray::number(m_options.consumeThreadMin));
    prop("allocateMessageQueueStrategy", allocateStrategyName(m_options.allocateStrategy));
    prop("awaitTerminationMillisWhenShutdown",
        QByteArray::number(m_options.awaitTerminationMillisWhenShutdown));
    prop("consumeConcurrentlyMaxSpan", QByteArray::number(m_options.consumeConcurrentlyMaxSpan));
    prop("consumeFromWhere", protocol::consumeFromWhereName(m_options.consumeFromWhere));
    prop("consumeMessageBatchMaxSize", QByteArray::number(m_options.consumeMessageBatchMaxSize));
    prop("consumeThreadMax", QByteArray::number(m_options.consumeThreadMax));
    prop("consumeThreadMin", QByteArray::number(m_options.consumeThreadMin));
    prop("consumeTimestamp", m_options.consumeTimestamp);
    prop("consumerGroup", m_options.group);
    prop("maxReconsumeTimes", QByteArray::number(maxReconsumeTimes()));
    prop("messageModel", protocol::messageModelName(m_options.messageModel));
    prop("pullBatchSize", QByteArray::number(m_options.pullBatchSize));
    prop("pullInterval", QByteArray::number(m_options.pullInterval));
    prop("pullThresholdForQueue", QByteArray::number(m_options.pullThresholdForQueue));
    prop("postSubscriptionWhenPull", m_options.postSubscriptionWhenPull ? "true" : "false");
    prop("pullThresholdForTopic", "-1");
    prop("pullThresholdSizeForQueue", QByteArray::number(m_options.pullThresholdSizeForQueue));
    prop("pullThresholdSizeForTopic", "-1");
    prop("suspendCurrentQueueTimeMillis",
        QByteArray::number(m_options.suspendCurrentQueueTimeMillis));
    prop("unitMode", "false");
    w.endObject();
    w.key("statusTable").beginObject();
    const double seconds = std::max<double>(1.0, (currentTimeMillis() - m_startTimestamp) / 1000.0);
    for (const protocol::SubscriptionData &s : subs) {
        TopicStats &st = stats(s.topic);
        const double ok = static_cast<double>(st.consumedOk.load());
        const double failed = static_cast<double>(st.consumedFailed.load());
        w.key(s.topic).beginObject();
        w.key("consumeFailedMsgs").value(st.consumedFailed.load());
        w.key("consumeFailedTPS").value(failed / seconds);
        w.key("consumeOKTPS").value(ok / seconds);
        w.key("consumeRT")
            .value(ok + failed > 0 ? static_cast<double>(st.consumeRtTotalMs.load()) / (ok + failed)
                                   : 0.0);
        const double pulls = static_cast<double>(st.pulls.load());
        w.key("pullRT").value(
            pulls > 0 ? static_cast<double>(st.pullRtTotalMs.load()) / pulls : 0.0);
        w.key("pullTPS").value(static_cast<double>(st.pulled.load()) / seconds);
        w.endObject();
    }
    w.endObject();
    w.key("subscriptionSet").beginArray();
    for (const protocol::SubscriptionData &s : subs)
        s.write(w);
    w.endArray();
    w.endObject();
    return w.take();
}

PushConsumerImpl::TopicStats &PushConsumerImpl::stats(const QByteArray &topic)
{
    std::lock_guard lock(m_mutex);
    auto &slot = m_stats[topic];
    if (!slot)
        slot = std::make_unique<TopicStats>();
    return *slot;
}

} // namespace qrocket::client
