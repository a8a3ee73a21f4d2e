// LitePullConsumer and its implementation (see litepullconsumer.h): per owned queue a pull loop
// on the consumer's pull thread fills one bounded buffer that poll() drains.

#include "clientlib/client/litepullconsumer.h"

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/consumer/pullapiwrapper.h"
#include "clientlib/client/consumer/rebalanceimpl.h"
#include "clientlib/client/logging.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/bodies/runtimebodies.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <set>

namespace qrocket::client {

using std::chrono::milliseconds;

// The lite-pull consumer's side of the rebalance (RocketMQ's RebalanceLitePullImpl) is the
// RebalanceImpl hooks below: a queue won gets a QueueState and a pull loop, a queue lost commits
// what poll() handed out of it.
class LitePullConsumerImpl final : public ConsumerInner,
                                   public RebalanceImpl,
                                   public std::enable_shared_from_this<LitePullConsumerImpl>
{
public:
    explicit LitePullConsumerImpl(LitePullConsumerOptions options)
        : RebalanceImpl({options.group, options.messageModel, options.allocateStrategy,
            options.consumeFromWhere, options.consumeTimestamp})
        , m_options(std::move(options))
    { }
    ~LitePullConsumerImpl() override { shutdown(); }

    struct QueueState
    {
        std::shared_ptr<ProcessQueue> pq = std::make_shared<ProcessQueue>();
        std::int64_t pullOffset = -1; // next offset to pull; -1 = not computed yet
        std::int64_t consumeOffset = -1; // next offset to hand out (what a commit stores)
        std::uint64_t generation = 0; // bumped by seek: older pulls are discarded
        bool paused = false;
    };
    struct Batch
    {
        MessageQueue mq;
        std::uint64_t generation = 0;
        std::shared_ptr<ProcessQueue> pq;
        std::vector<MessageExt> msgs;
    };

    using RebalanceImpl::m_offsets; // the handle's committed() reads it
    const LitePullConsumerOptions m_options;
    ClientInstance::Lease m_lease;
    std::shared_ptr<ClientInstance> m_instance; // m_lease's
    std::unique_ptr<Scheduler> m_pullScheduler;
    std::atomic<bool> m_started {false};
    std::atomic<bool> m_stopping {false};
    bool m_assigned = false; // assign() mode
    std::int64_t m_startTimestamp = 0;
    std::int64_t m_lastCommit = 0;

    mutable std::mutex m_mutex;
    std::condition_variable m_arrived;
    std::map<MessageQueue, QueueState> m_queues; // guarded by m_mutex
    std::deque<Batch> m_buffer; // guarded by m_mutex
    std::size_t m_buffered = 0; // messages in m_buffer, guarded by m_mutex

    Status subscribe(const QByteArray &topic, const MessageSelector &selector)
    {
        if (Status s = checkTopic(topic); !s)
            return s;
        protocol::SubscriptionData sub;
        sub.topic = topic;
        sub.subVersion = currentTimeMillis();
        sub.expressionType = selector.type;
        sub.subString = selector.expression.trimmed().isEmpty() ? QByteArray("*")
                                                                : selector.expression.trimmed();
        if (sub.expressionType == "TAG")
            sub.buildTags();
        else if (sub.expressionType != "SQL92")
            return Status::invalidArgument(
                QStringLiteral("unknown expression type (TAG or SQL92)"));
        {
            std::lock_guard lock(m_mutex);
            if (m_assigned)
                return Status::invalidArgument(
                    QStringLiteral("subscribe after assign: use one or the other"));
            putSubscription(std::move(sub));
        }
        if (m_started) {
            (void)m_instance->refreshTopicRoute(topic);
            (void)m_instance->sendHeartbeatToAllBrokers(false);
            m_instance->rebalanceImmediately();
        }
        return Status();
    }

    Status assign(const std::vector<MessageQueue> &queues)
    {
        std::lock_guard lock(m_mutex);
        if (hasSubscriptions() && !m_assigned)
            return Status::invalidArgument(
                QStringLiteral("assign after subscribe: use one or the other"));
        m_assigned = true;
        clearSubscriptions();
        for (const MessageQueue &mq : queues) {
            protocol::SubscriptionData sub;
            sub.topic = mq.topic;
            sub.subVersion = currentTimeMillis();
            putSubscription(std::move(sub));
        }
        const std::set<MessageQueue> wanted(queues.begin(), queues.end());
        for (auto it = m_queues.begin(); it != m_queues.end();) {
            if (!wanted.count(it->first)) {
                it->second.pq->dropped = true;
                it = m_queues.erase(it);
            } else {
                ++it;
            }
        }
        std::vector<MessageQueue> added;
        for (const MessageQueue &mq : wanted) {
            if (m_queues.emplace(mq, QueueState()).second)
                added.push_back(mq);
        }
        if (m_started) {
            for (const MessageQueue &mq : added)
                schedulePull(mq, 0);
        }
        return Status();
    }

    Status start()
    {
        if (m_started)
            return Status();
        if (m_options.group.isEmpty() || m_options.group == "DEFAULT_CONSUMER")
            return Status::invalidArgument(
                QStringLiteral("consumerGroup is empty or DEFAULT_CONSUMER"));
        if (m_options.pullBatchSize < 1 || m_options.pollBatchSize < 1)
            return Status::invalidArgument(
                QStringLiteral("pullBatchSize and pollBatchSize must be positive"));
        if (m_options.client.resolvedNamesrvAddr().isEmpty())
            return Status::invalidArgument(
                QStringLiteral("no name server address: set namesrvAddr or NAMESRV_ADDR"));
        ClientConfig config = m_options.client;
        const bool clustering = m_options.messageModel == MessageModel::Clustering;
        config.instanceNameToPid = clustering;
        m_startTimestamp = currentTimeMillis();
        m_lastCommit = m_startTimestamp;
        m_lease = ClientInstance::acquire(config);
        m_instance = m_lease.instance();
        if (Status s = startRebalance(m_instance, m_options.offsetStoreDir, m_startTimestamp); !s)
            return s;
        m_pullScheduler = std::make_unique<Scheduler>("qrocket-lpull");
        if (Status s = m_instance->registerConsumer(m_options.group, weak_from_this()); !s) {
            m_pullScheduler->shutdown();
            return s;
        }
        m_stopping = false;
        m_started = true;
        for (const QByteArray &t : subscribedTopics())
            (void)m_instance->refreshTopicRoute(t);
        (void)m_instance->sendHeartbeatToAllBrokers(true);
        if (m_assigned) {
            // assign() mode: the queues are ours from the start. (Subscribe mode: the
            // rebalance adds them and starts their pulls, once each.)
            std::vector<MessageQueue> assigned;
            {
                std::lock_guard lock(m_mutex);
                for (const auto &[mq, st] : m_queues)
                    assigned.push_back(mq);
            }
            for (const MessageQueue &mq : assigned)
                schedulePull(mq, 0);
        } else {
            m_instance->rebalanceImmediately();
        }
        return Status();
    }

    void shutdown()
    {
        if (!m_started.exchange(false))
            return;
        m_stopping = true;
        m_pullScheduler->shutdown(milliseconds(1000));
        if (m_options.autoCommit)
            (void)commit(true);
        m_instance->unregisterConsumer(m_options.group);
        m_lease.reset(); // the last user's shutdown stops the client instance here
        {
            std::lock_guard lock(m_mutex);
            m_buffer.clear();
            m_buffered = 0;
        }
        m_arrived.notify_all();
    }

    // -- offsets ----------------------------------------------------------------------------
    Status commit(bool wait)
    {
        std::set<MessageQueue> owned;
        {
            std::lock_guard lock(m_mutex);
            for (const auto &[mq, st] : m_queues) {
                if (st.consumeOffset >= 0) {
                    m_offsets->updateOffset(mq, st.consumeOffset, false);
                    owned.insert(mq);
                }
            }
        }
        m_lastCommit = currentTimeMillis();
        if (!owned.empty())
            m_offsets->persistAll(owned, wait);
        return Status();
    }

    // -- pulling ----------------------------------------------------------------------------
    void schedulePull(const MessageQueue &mq, int delayMs)
    {
        if (m_stopping || !m_pullScheduler)
            return;
        std::weak_ptr<LitePullConsumerImpl> weak = weak_from_this();
        m_pullScheduler->schedule(milliseconds(delayMs), [weak, mq] {
            if (auto self = weak.lock())
                self->pullOnce(mq);
        });
    }

    void pullOnce(const MessageQueue &mq)
    {
        if (m_stopping)
            return;
        std::int64_t offset = -1;
        std::uint64_t generation = 0;
        std::shared_ptr<ProcessQueue> pq;
        bool needStart = false;
        {
            std::lock_guard lock(m_mutex);
            auto it = m_queues.find(mq);
            if (it == m_queues.end())
                return; // no longer ours
            QueueState &st = it->second;
            if (st.paused || st.pq->messageCount() > m_options.pullThresholdForQueue
                || m_buffered > static_cast<std::size_t>(m_options.pullThresholdForAll)) {
                // Flow control, or paused: look again shortly.
                offset = -2;
            } else {
                needStart = st.pullOffset < 0;
                offset = st.pullOffset;
                generation = st.generation;
                pq = st.pq;
            }
        }
        if (offset == -2) {
            schedulePull(mq, 50);
            return;
        }
        if (needStart) {
            offset = computePullFromWhere(mq);
            if (offset < 0) {
                schedulePull(mq, m_options.pullTimeDelayMillsWhenException);
                return;
            }
            std::lock_guard lock(m_mutex);
            auto it = m_queues.find(mq);
            if (it == m_queues.end() || it->second.generation != generation)
                return;
            it->second.pullOffset = offset;
            if (it->second.consumeOffset < 0)
                it->second.consumeOffset = offset;
        }
        protocol::SubscriptionData sub
            = subscription(mq.topic).value_or(protocol::SubscriptionData());
        sub.topic = mq.topic;
        const auto broker = m_pullApi->findBroker(mq, false);
        if (!broker) {
            schedulePull(mq, m_options.pullTimeDelayMillsWhenException);
            return;
        }
        // Lite pull: the subscription travels with the request (no heartbeat lookup needed for
        // assign() mode), commits are explicit.
        PullAPIWrapper::Request pull;
        pull.mq = mq;
        pull.offset = offset;
        pull.maxMsgNums = m_options.pullBatchSize;
        pull.withExpression = true;
        pull.litePull = true;
        pull.brokerSuspendMaxTimeMillis = m_options.brokerSuspendMaxTimeMillis;
        pull.timeoutMillis = m_options.consumerTimeoutMillisWhenSuspend;
        std::weak_ptr<LitePullConsumerImpl> weak = weak_from_this();
        m_pullApi->pullAsync(
            *broker, pull, sub, [weak, mq, generation, pq, sub](Result<PullResult> r) mutable {
                auto self = weak.lock();
                if (!self || self->m_stopping)
                    return;
                self->m_pullScheduler->post(
                    [weak, mq, generation, pq, sub, r = std::move(r)]() mutable {
                        if (auto s = weak.lock())
                            s->onPulled(mq, generation, pq, sub, std::move(r));
                    });
            });
    }

    void onPulled(const MessageQueue &mq, std::uint64_t generation,
        const std::shared_ptr<ProcessQueue> &pq, const protocol::SubscriptionData &sub,
        Result<PullResult> r)
    {
        if (!r) {
            qCDebug(lcConsumer, "lite pull %s/%s/%d: %s", mq.topic.constData(),
                mq.brokerName.constData(), mq.queueId, qPrintable(r.error().message()));
            schedulePull(mq, m_options.pullTimeDelayMillsWhenException);
            return;
        }
        m_pullApi->processPullResult(mq, *r, sub, false);
        std::vector<MessageExt> msgs;
        if (r->status == PullStatus::Found)
            msgs = std::move(r->messages);
        {
            std::lock_guard lock(m_mutex);
            auto it = m_queues.find(mq);
            if (it == m_queues.end() || it->second.generation != generation || it->second.pq != pq)
                return; // sought or given up meanwhile: this answer is stale
            QueueState &st = it->second;
            st.pullOffset = r->nextBeginOffset;
            if (r->status == PullStatus::OffsetIllegal)
                st.consumeOffset = r->nextBeginOffset;
            if (!msgs.empty()) {
                pq->putMessages(msgs);
                m_buffered += msgs.size();
                m_buffer.push_back({mq, generation, pq, std::move(msgs)});
                m_arrived.notify_all();
            }
        }
        schedulePull(mq, 0);
    }

    std::vector<MessageExt> poll(int timeoutMillis)
    {
        std::vector<MessageExt> out;
        if (!m_started)
            return out;
        if (m_options.autoCommit
            && currentTimeMillis() - m_lastCommit >= m_options.autoCommitIntervalMillis)
            (void)commit(false);
        std::unique_lock lock(m_mutex);
        const auto deadline
            = std::chrono::steady_clock::now() + milliseconds(std::max(0, timeoutMillis));
        for (;;) {
            while (!m_buffer.empty() && static_cast<int>(out.size()) < m_options.pollBatchSize) {
                Batch &b = m_buffer.front();
                auto it = m_queues.find(b.mq);
                const bool live = it != m_queues.end() && it->second.generation == b.generation
                    && it->second.pq == b.pq && !b.pq->dropped;
                if (!live) {
                    m_buffered -= b.msgs.size();
                    m_buffer.pop_front();
                    continue;
                }
                const std::size_t take = std::min<std::size_t>(
                    b.msgs.size(), static_cast<std::size_t>(m_options.pollBatchSize) - out.size());
                std::vector<MessageExt> part(
                    b.msgs.begin(), b.msgs.begin() + static_cast<std::ptrdiff_t>(take));
                b.msgs.erase(b.msgs.begin(), b.msgs.begin() + static_cast<std::ptrdiff_t>(take));
                m_buffered -= take;
                b.pq->removeMessages(part);
                it->second.consumeOffset = part.back().queueOffset() + 1;
                for (MessageExt &m : part)
                    out.push_back(std::move(m));
                if (b.msgs.empty())
                    m_buffer.pop_front();
            }
            if (!out.empty() || !m_started)
                return out;
            if (m_arrived.wait_until(lock, deadline) == std::cv_status::timeout && m_buffer.empty())
                return out;
        }
    }

    Status seek(const MessageQueue &mq, std::int64_t offset)
    {
        const QByteArray addr
            = m_instance ? m_instance->masterAddress(mq.brokerName) : QByteArray();
        if (!addr.isEmpty()) {
            const int timeout = m_instance->config().mqClientApiTimeout;
            auto min = m_instance->api().getMinOffset(addr, mq.topic, mq.queueId, timeout);
            auto max = m_instance->api().getMaxOffset(addr, mq.topic, mq.queueId, timeout);
            if (min && max && (offset < *min || offset > *max))
                return Status::invalidArgument(QStringLiteral("seek offset %1 is outside [%2, %3]")
                                                   .arg(offset)
                                                   .arg(*min)
                                                   .arg(*max));
        }
        {
            std::lock_guard lock(m_mutex);
            auto it = m_queues.find(mq);
            if (it == m_queues.end())
                return Status::invalidArgument(
                    QStringLiteral("the message queue is not in the assigned list"));
            QueueState &st = it->second;
            st.pq->dropped = true;
            st.pq = std::make_shared<ProcessQueue>();
            ++st.generation;
            st.pullOffset = offset;
            st.consumeOffset = offset;
        }
        schedulePull(mq, 0);
        return Status();
    }

    Result<std::int64_t> edge(const MessageQueue &mq, bool begin)
    {
        const QByteArray addr = m_instance->masterAddress(mq.brokerName);
        if (addr.isEmpty())
            return Status::notFound(
                QStringLiteral("broker %1 not found").arg(QString::fromUtf8(mq.brokerName)));
        const int timeout = m_instance->config().mqClientApiTimeout;
        return begin ? m_instance->api().getMinOffset(addr, mq.topic, mq.queueId, timeout)
                     : m_instance->api().getMaxOffset(addr, mq.topic, mq.queueId, timeout);
    }

    // -- ConsumerInner ------------------------------------------------------------------------
    QByteArray groupName() const override { return m_options.group; }
    protocol::ConsumerData consumerData() const override
    {
        return buildConsumerData(protocol::ConsumeType::ConsumeActively);
    }
    std::vector<QByteArray> subscribedTopics() const override { return subscriptionTopics(); }
    void updateTopicSubscribeInfo(
        const QByteArray &topic, const std::vector<MessageQueue> &queues) override
    {
        if (updateTopicQueues(topic, queues) && !m_assigned && m_started)
            m_instance->rebalanceImmediately();
    }
    void doRebalance() override
    {
        if (!m_started || m_stopping || m_assigned)
            return;
        rebalance();
    }

    // -- RebalanceImpl hooks (rebalance thread) -----------------------------------------------
    QueueDiff takeQueueDiff(
        const QByteArray &topic, const std::set<MessageQueue> &wanted, std::int64_t) override
    {
        QueueDiff diff;
        std::lock_guard lock(m_mutex);
        auto removed = diffQueueTable(
            m_queues, topic, wanted, [](const QueueState &) { return false; }, diff.added);
        for (auto &[mq, st] : removed) {
            st.pq->dropped = true;
            if (st.consumeOffset >= 0)
                m_offsets->updateOffset(mq, st.consumeOffset, false);
            diff.removed.emplace_back(mq, st.pq);
        }
        for (const MessageQueue &mq : diff.added)
            m_queues.emplace(mq, QueueState());
        return diff;
    }
    void removeUnnecessaryMessageQueue(
        const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &) override
    {
        m_offsets->persist(mq, true);
        m_offsets->removeOffset(mq);
    }
    Added addMessageQueue(const MessageQueue &mq, std::int64_t) override
    {
        m_offsets->removeOffset(mq);
        schedulePull(mq, 0);
        return Added::Yes;
    }
    void persistConsumerOffset() override
    {
        // Only what the application committed (commitSync / auto commit) goes to the broker.
        if (!m_started)
            return;
        std::set<MessageQueue> owned;
        for (const MessageQueue &mq : assignment())
            owned.insert(mq);
        m_offsets->persistAll(owned, false);
    }
    void resetOffset(
        const QByteArray &topic, const std::map<MessageQueue, std::int64_t> &offsets) override
    {
        for (const auto &[mq, off] : offsets) {
            if (mq.topic == topic)
                (void)seek(mq, off);
        }
    }
    std::map<MessageQueue, std::int64_t> consumerOffsets(const QByteArray &topic) override
    {
        return m_offsets ? m_offsets->offsets(topic) : std::map<MessageQueue, std::int64_t>();
    }
    QByteArray runningInfoJson(const QByteArray &jstack) override
    {
        protocol::ConsumerRunningInfo info;
        info.jstack = jstack;
        info.properties
            = {{"PROP_CLIENT_VERSION", "V4_9_7"}, {"PROP_CONSUME_TYPE", "CONSUME_ACTIVELY"},
                {"PROP_CONSUMER_START_TIMESTAMP", QByteArray::number(m_startTimestamp)},
                {"consumerGroup", m_options.group},
                {"messageModel", protocol::messageModelName(m_options.messageModel)}};
        info.subscriptionSet = subscriptions();
        return info.toJson();
    }
    QByteArray consumeMessageDirectly(const MessageExt &, const QByteArray &) override
    {
        return QByteArrayLiteral(
            "{\"autoCommit\":true,\"consumeResult\":\"CR_THROW_EXCEPTION\",\"order\":false,"
            "\"remark\":\"a lite pull consumer has no listener\",\"spentTimeMills\":0}");
    }

    std::vector<MessageQueue> assignment() const
    {
        std::vector<MessageQueue> out;
        std::lock_guard lock(m_mutex);
        for (const auto &[mq, st] : m_queues)
            out.push_back(mq);
        return out;
    }
};

// -- handle -----------------------------------------------------------------------------------

LitePullConsumer::LitePullConsumer(LitePullConsumerOptions options)
    : m_impl(std::make_shared<LitePullConsumerImpl>(std::move(options)))
{ }

LitePullConsumer::~LitePullConsumer()
{
    m_impl->shutdown();
}

Status LitePullConsumer::subscribe(const QByteArray &topic, const QByteArray &tagExpression)
{
    return m_impl->subscribe(topic, MessageSelector::byTag(tagExpression));
}

Status LitePullConsumer::subscribe(const QByteArray &topic, const MessageSelector &selector)
{
    return m_impl->subscribe(topic, selector);
}

void LitePullConsumer::unsubscribe(const QByteArray &topic)
{
    m_impl->removeSubscription(topic);
}

Status LitePullConsumer::assign(const std::vector<MessageQueue> &queues)
{
    return m_impl->assign(queues);
}

Status LitePullConsumer::start()
{
    return m_impl->start();
}

void LitePullConsumer::shutdown()
{
    m_impl->shutdown();
}

bool LitePullConsumer::isStarted() const
{
    return m_impl->m_started.load();
}

std::vector<MessageExt> LitePullConsumer::poll(int timeoutMillis)
{
    return m_impl->poll(timeoutMillis);
}

Status LitePullConsumer::seek(const MessageQueue &mq, std::int64_t offset)
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    return m_impl->seek(mq, offset);
}

Status LitePullConsumer::seekToBegin(const MessageQueue &mq)
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    auto min = m_impl->edge(mq, true);
    if (!min)
        return min.error();
    return m_impl->seek(mq, *min);
}

Status LitePullConsumer::seekToEnd(const MessageQueue &mq)
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    auto max = m_impl->edge(mq, false);
    if (!max)
        return max.error();
    return m_impl->seek(mq, *max);
}

Result<std::int64_t> LitePullConsumer::offsetForTimestamp(
    const MessageQueue &mq, std::int64_t timestamp)
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    const QByteArray addr = m_impl->m_instance->masterAddress(mq.brokerName);
    if (addr.isEmpty())
        return Status::notFound(
            QStringLiteral("broker %1 not found").arg(QString::fromUtf8(mq.brokerName)));
    return m_impl->m_instance->api().searchOffset(
        addr, mq.topic, mq.queueId, timestamp, m_impl->m_instance->config().mqClientApiTimeout);
}

Result<std::int64_t> LitePullConsumer::committed(const MessageQueue &mq)
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    const std::int64_t off = m_impl->m_offsets->readOffset(mq, ReadOffsetType::Store);
    if (off == -2)
        return Status::unavailable(QStringLiteral("the offset store could not be asked"));
    return off;
}

Status LitePullConsumer::commitSync()
{
    if (!m_impl->m_started)
        return Status::unavailable(QStringLiteral("the consumer is not started"));
    return m_impl->commit(true);
}

void LitePullConsumer::pause(const std::vector<MessageQueue> &queues)
{
    std::lock_guard lock(m_impl->m_mutex);
    for (const MessageQueue &mq : queues) {
        auto it = m_impl->m_queues.find(mq);
        if (it != m_impl->m_queues.end())
            it->second.paused = true;
    }
}

void LitePullConsumer::resume(const std::vector<MessageQueue> &queues)
{
    std::lock_guard lock(m_impl->m_mutex);
    for (const MessageQueue &mq : queues) {
        auto it = m_impl->m_queues.find(mq);
        if (it != m_impl->m_queues.end())
            it->second.paused = false;
    }
}

Result<std::vector<MessageQueue>> LitePullConsumer::fetchMessageQueues(const QByteArray &topic)
{
    if (!m_impl->m_instance) {
        ClientConfig config = m_impl->m_options.client;
        config.instanceNameToPid = m_impl->m_options.messageModel == MessageModel::Clustering;
        const ClientInstance::Lease lease = ClientInstance::acquire(config);
        return lease->subscribeQueues(topic);
    }
    return m_impl->m_instance->subscribeQueues(topic);
}

std::vector<MessageQueue> LitePullConsumer::assignment() const
{
    return m_impl->assignment();
}

QByteArray LitePullConsumer::clientId() const
{
    return m_impl->m_instance ? m_impl->m_instance->clientId()
                              : m_impl->m_options.client.buildClientId();
}

} // namespace qrocket::client
