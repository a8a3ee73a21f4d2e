#include "clientlib/client/consumer/pushconsumerimpl.h"

#include "clientlib/client/consumer/concurrentconsumeservice.h"
#include "clientlib/client/consumer/orderlyconsumeservice.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/systemtopics.h"

#include <algorithm>
#include <chrono>

namespace qrocket::client {

namespace MC = protocol::MessageConst;
using std::chrono::milliseconds;

namespace {

constexpr int kLockIntervalMs = 20000;

RebalanceSettings rebalanceSettingsOf(const PushConsumerOptions &o)
{
    return {o.group, o.messageModel, o.allocateStrategy, o.consumeFromWhere, o.consumeTimestamp};
}

} // namespace

PushConsumerImpl::PushConsumerImpl(PushConsumerOptions options)
    : RebalanceImpl(rebalanceSettingsOf(options)), m_options(std::move(options))
{
    m_retryTopic = protocol::topics::kRetryPrefix + m_options.group;
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
    putSubscription(std::move(sub));
    if (m_started) {
        (void)m_instance->refreshTopicRoute(topic);
        (void)m_instance->sendHeartbeatToAllBrokers(false);
        m_instance->rebalanceImmediately();
    }
    return Status();
}

void PushConsumerImpl::unsubscribe(const QByteArray &topic)
{
    removeSubscription(topic);
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

Status PushConsumerImpl::checkOptions() const
{
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
    if (m_options.popBatchNums < 1 || m_options.popBatchNums > 32)
        return bad("popBatchNums out of range [1, 32]");
    if (m_options.popInvisibleTime < 1000)
        return bad("popInvisibleTime below 1000 ms");
    if (m_options.popThresholdForQueue < 1 || m_options.popThresholdForQueue > 65535)
        return bad("popThresholdForQueue out of range [1, 65535]");
    if (m_options.client.resolvedNamesrvAddr().isEmpty())
        return bad("no name server address: set namesrvAddr or NAMESRV_ADDR");
    return Status();
}

Status PushConsumerImpl::checkSql92Subscriptions(
    const std::vector<protocol::SubscriptionData> &subs)
{
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
    return Status();
}

Status PushConsumerImpl::start()
{
    if (m_started)
        return Status();
    if (Status s = checkOptions(); !s)
        return s;
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
        putSubscription(retry);
    }
    if (Status s = startRebalance(m_instance, m_options.offsetStoreDir, m_startTimestamp); !s)
        return s;

    // SQL92 subscriptions: every broker of the topic must accept them before we start.
    const std::vector<protocol::SubscriptionData> subs = subscriptions();
    if (Status s = checkSql92Subscriptions(subs); !s)
        return s;

    m_consumePool = std::make_shared<WorkerPool>(
        "qrocket-consume", m_options.consumeThreadMin, m_options.consumeThreadMax);
    m_pullScheduler = std::make_unique<Scheduler>("qrocket-pull");
    m_retryProducer = std::make_unique<InnerProducer>(m_instance, config);
    if (orderly()) {
        m_consumeService = std::make_shared<OrderlyConsumeService>(*this, m_orderlyListener);
    } else if (!clientRebalance({})) {
        m_popConsumeService = std::make_shared<PopConsumeService>(*this, m_concurrentListener);
        m_consumeService = m_popConsumeService;
    } else {
        m_consumeService = std::make_shared<ConcurrentConsumeService>(*this, m_concurrentListener);
    }
    // Before the consumer is registered: no consume thread reads m_trace while it is set.
    if (m_options.enableMsgTrace) {
        TraceDispatcher::Options to;
        to.ownerGroup = m_options.group;
        to.consumer = true;
        to.traceTopic = m_options.customizedTraceTopic;
        to.client = config;
        auto trace = std::make_unique<TraceDispatcher>(std::move(to));
        if (Status s = trace->start(); !s)
            qCWarning(lcConsumer, "push consumer %s: message traces off: %s",
                m_options.group.constData(), qPrintable(s.toString()));
        else
            m_trace = std::move(trace);
    }
    if (Status s = m_instance->registerConsumer(m_options.group, weak_from_this()); !s) {
        if (m_trace)
            m_trace->shutdown();
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
                    self->lockAll(self->processQueues());
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
    dropPopQueues();
    m_offsets->persistAll(owned, true);
    if (lockedOrderly()) {
        std::vector<MessageQueue> queues(owned.begin(), owned.end());
        unlockAll(queues);
    }
    if (m_trace)
        m_trace->shutdown(); // its producer's lease goes before ours
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
    for (const auto &[mq, pq] : m_popQueues) {
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
    return buildConsumerData(protocol::ConsumeType::ConsumePassively);
}

std::vector<QByteArray> PushConsumerImpl::subscribedTopics() const
{
    return subscriptionTopics();
}

void PushConsumerImpl::updateTopicSubscribeInfo(
    const QByteArray &topic, const std::vector<MessageQueue> &queues)
{
    const bool changed = updateTopicQueues(topic, queues);
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

void PushConsumerImpl::doRebalance()
{
    if (!m_started || m_stopping)
        return;
    rebalance();
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
    const std::optional<protocol::SubscriptionData> sub = subscription(request.mq.topic);
    if (!sub)
        return; // unsubscribed meanwhile: the rebalance drops the queue
    const auto broker = m_pullApi->findBroker(request.mq, true);
    if (!broker) {
        executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
        return;
    }
    PullAPIWrapper::Request pull;
    pull.mq = request.mq;
    pull.offset = request.nextOffset;
    pull.maxMsgNums = m_options.pullBatchSize;
    if (clustering)
        pull.commitOffset = m_offsets->readOffset(request.mq, ReadOffsetType::Memory);
    pull.withExpression = m_options.postSubscriptionWhenPull && sub->expressionType == "TAG";
    pull.brokerSuspendMaxTimeMillis = m_options.brokerSuspendMaxTimeMillis;
    pull.timeoutMillis = m_options.consumerTimeoutMillisWhenSuspend;
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    const auto issued = std::chrono::steady_clock::now();
    m_pullApi->pullAsync(
        *broker, pull, *sub, [weak, request, issued](Result<PullResult> r) mutable {
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

void PushConsumerImpl::onPullError(PullRequest request, const Status &error)
{
    const int code = error.remoteCode();
    if (code == 24 || code == 25) {
        // SUBSCRIPTION_NOT_EXIST / NOT_LATEST: the broker has not processed our latest
        // heartbeat yet (a pull raced it): heartbeat again and pull again shortly.
        qCDebug(lcConsumer, "pull %s/%s/%d: %s", request.mq.topic.constData(),
            request.mq.brokerName.constData(), request.mq.queueId, qPrintable(error.message()));
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
            qPrintable(error.message()));
    }
    std::weak_ptr<ClientInstance> weakInstance = m_instance;
    const QByteArray topic = request.mq.topic;
    m_instance->scheduler().post([weakInstance, topic] {
        if (auto i = weakInstance.lock())
            (void)i->refreshTopicRoute(topic);
    });
    executePullLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
}

void PushConsumerImpl::onPullResult(PullRequest request, Result<PullResult> result)
{
    if (request.pq->dropped || m_stopping)
        return;
    if (!result) {
        onPullError(std::move(request), result.error());
        return;
    }
    PullResult &pull = *result;
    const protocol::SubscriptionData sub
        = subscription(request.mq.topic).value_or(protocol::SubscriptionData());
    m_pullApi->processPullResult(request.mq, pull, sub, true);
    switch (pull.status) {
    case PullStatus::Found: {
        request.nextOffset = pull.nextBeginOffset;
        std::vector<MessageExt> &msgs = pull.messages;
        stats(request.mq.topic).pulled += static_cast<std::int64_t>(msgs.size());
        qCDebug(lcConsumer, "pulled %zu messages of %s/%s/%d at %lld, next %lld", msgs.size(),
            request.mq.topic.constData(), request.mq.brokerName.constData(), request.mq.queueId,
            static_cast<long long>(msgs.empty() ? -1 : msgs.front().queueOffset()),
            static_cast<long long>(request.nextOffset));
        if (!msgs.empty()) {
            // A concurrent consumer's tasks carry the messages: the queue keeps offsets and sizes.
            const bool dispatch = request.pq->putMessages(msgs, orderly());
            m_consumeService->submitConsumeRequest(
                std::move(msgs), request.pq, request.mq, dispatch);
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
    protocol::ConsumerRunningInfo info;
    info.jstack = jstack;
    for (const auto &[mq, pq] : processQueues()) {
        const ProcessQueue::Info i = pq->info();
        protocol::ProcessQueueInfo &p = info.mqTable[mq];
        p.commitOffset = m_offsets->readOffset(mq, ReadOffsetType::Memory);
        p.cachedMsgMinOffset = i.cachedMsgMinOffset;
        p.cachedMsgMaxOffset = i.cachedMsgMaxOffset;
        p.cachedMsgCount = static_cast<int>(i.cachedMsgCount);
        p.cachedMsgSizeInMiB = static_cast<int>(i.cachedMsgSizeInMiB);
        p.transactionMsgCount = static_cast<int>(i.transactionMsgCount);
        p.locked = pq->locked.load();
        p.lastLockTimestamp = pq->lastLockTimestamp.load();
        p.dropped = pq->dropped.load();
        p.lastPullTimestamp = pq->lastPullTimestamp.load();
        p.lastConsumeTimestamp = pq->lastConsumeTimestamp.load();
    }
    auto &prop = info.properties;
    prop["PROP_CLIENT_VERSION"] = "V4_9_7";
    prop["PROP_CONSUMEORDERLY"] = orderly() ? "true" : "false";
    prop["PROP_CONSUMER_START_TIMESTAMP"] = QByteArray::number(m_startTimestamp);
    prop["PROP_CONSUME_TYPE"] = "CONSUME_PASSIVELY";
    prop["PROP_NAMESERVER_ADDR"] = m_instance->config().resolvedNamesrvAddr();
    prop["PROP_THREADPOOL_CORE_SIZE"] = QByteArray::number(m_options.consumeThreadMin);
    prop["allocateMessageQueueStrategy"] = allocateStrategyName(m_options.allocateStrategy);
    prop["awaitTerminationMillisWhenShutdown"]
        = QByteArray::number(m_options.awaitTerminationMillisWhenShutdown);
    prop["consumeConcurrentlyMaxSpan"] = QByteArray::number(m_options.consumeConcurrentlyMaxSpan);
    prop["consumeFromWhere"] = protocol::consumeFromWhereName(m_options.consumeFromWhere);
    prop["clientRebalance"] = m_options.clientRebalance ? "true" : "false";
    prop["popBatchNums"] = QByteArray::number(m_options.popBatchNums);
    prop["popInvisibleTime"] = QByteArray::number(m_options.popInvisibleTime);
    prop["popThresholdForQueue"] = QByteArray::number(m_options.popThresholdForQueue);
    prop["consumeMessageBatchMaxSize"] = QByteArray::number(m_options.consumeMessageBatchMaxSize);
    prop["consumeThreadMax"] = QByteArray::number(m_options.consumeThreadMax);
    prop["consumeThreadMin"] = QByteArray::number(m_options.consumeThreadMin);
    prop["consumeTimestamp"] = m_options.consumeTimestamp;
    prop["consumerGroup"] = m_options.group;
    prop["maxReconsumeTimes"] = QByteArray::number(maxReconsumeTimes());
    prop["messageModel"] = protocol::messageModelName(m_options.messageModel);
    prop["postSubscriptionWhenPull"] = m_options.postSubscriptionWhenPull ? "true" : "false";
    prop["pullBatchSize"] = QByteArray::number(m_options.pullBatchSize);
    prop["pullInterval"] = QByteArray::number(m_options.pullInterval);
    prop["pullThresholdForQueue"] = QByteArray::number(m_options.pullThresholdForQueue);
    prop["pullThresholdForTopic"] = "-1";
    prop["pullThresholdSizeForQueue"] = QByteArray::number(m_options.pullThresholdSizeForQueue);
    prop["pullThresholdSizeForTopic"] = "-1";
    prop["suspendCurrentQueueTimeMillis"]
        = QByteArray::number(m_options.suspendCurrentQueueTimeMillis);
    prop["unitMode"] = "false";
    info.subscriptionSet = subscriptions();
    const double seconds = std::max<double>(1.0, (currentTimeMillis() - m_startTimestamp) / 1000.0);
    for (const protocol::SubscriptionData &s : info.subscriptionSet) {
        TopicStats &st = stats(s.topic);
        const double ok = static_cast<double>(st.consumedOk.load());
        const double failed = static_cast<double>(st.consumedFailed.load());
        const double pulls = static_cast<double>(st.pulls.load());
        protocol::ConsumeStatus &c = info.statusTable[s.topic];
        c.pullRT = pulls > 0 ? static_cast<double>(st.pullRtTotalMs.load()) / pulls : 0.0;
        c.pullTPS = static_cast<double>(st.pulled.load()) / seconds;
        c.consumeRT = ok + failed > 0
            ? static_cast<double>(st.consumeRtTotalMs.load()) / (ok + failed)
            : 0.0;
        c.consumeOKTPS = ok / seconds;
        c.consumeFailedTPS = failed / seconds;
        c.consumeFailedMsgs = st.consumedFailed.load();
    }
    return info.toJson();
}

bool PushConsumerImpl::sendMessageBack(const MessageExt &msg, int delayLevel)
{
    const int timeout = m_instance->config().mqClientApiTimeout;
    const QByteArray brokerName = msg.brokerName();
    const QByteArray addr = m_instance->masterAddress(brokerName);
    if (!addr.isEmpty()) {
        const Status s = m_instance->api().consumerSendMessageBack(
            addr, msg, m_options.group, delayLevel, maxReconsumeTimes(), timeout);
        if (s)
            return true;
        qCDebug(lcConsumer, "send back %s to %s: %s; re-sending to %s", msg.msgId().constData(),
            addr.constData(), qPrintable(s.message()), m_retryTopic.constData());
    }
    // The broker could not take it back: send a copy to the retry topic ourselves.
    if (!m_retryProducer)
        return false;
    Message copy(m_retryTopic, msg.body());
    copy.properties() = msg.properties();
    copy.setFlag(msg.flag());
    const QByteArray origin = msg.property(MC::OriginMessageId);
    copy.setProperty(MC::OriginMessageId.toByteArray(), origin.isEmpty() ? msg.msgId() : origin);
    if (copy.property(MC::RetryTopic).isEmpty())
        copy.setProperty(MC::RetryTopic.toByteArray(), msg.topic());
    copy.setProperty(MC::ReconsumeTime.toByteArray(), QByteArray::number(msg.reconsumeTimes() + 1));
    copy.setProperty(MC::MaxReconsumeTimes.toByteArray(), QByteArray::number(maxReconsumeTimes()));
    copy.removeProperty(MC::TransactionPrepared);
    copy.setDelayTimeLevel(3 + msg.reconsumeTimes());
    auto sent = m_retryProducer->send(copy);
    if (!sent)
        qCWarning(lcConsumer, "%s: message %s could neither be sent back nor re-sent to %s: %s",
            m_options.group.constData(), msg.msgId().constData(), m_retryTopic.constData(),
            qPrintable(sent.error().message()));
    return sent.has_value();
}

QByteArray PushConsumerImpl::consumeMessageDirectly(
    const MessageExt &msg, const QByteArray &brokerName)
{
    (void)brokerName;
    return m_consumeService->consumeMessageDirectly(msg);
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
