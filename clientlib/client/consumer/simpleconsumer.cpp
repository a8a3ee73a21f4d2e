// SimpleConsumer (see simpleconsumer.h): POP_MESSAGE / ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME
// over the client instance's connections and routes. The consumer registers with the instance
// only so that its subscriptions are heartbeated and their routes refreshed; it never
// rebalances: the broker assigns.

#include "clientlib/client/simpleconsumer.h"

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/consumer/popcalls.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/bodies/runtimebodies.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/popcodes.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace qrocket::client {

namespace popcode = protocol::popcode;

namespace {

using pop::kMaxInvisibleMillis;
using pop::kPopCk;

/// A user's callback run exactly once: by operator(), or, when the task that would have run it
/// is dropped (the callback pool shut down), by the destructor with an Unavailable error.
template<typename R>
class OnceCallback
{
public:
    explicit OnceCallback(std::function<void(R)> f) : m_f(std::move(f)) { }
    ~OnceCallback()
    {
        if (m_f)
            m_f(R(Status::unavailable(
                QStringLiteral("the simple consumer shut down before the answer was delivered"))));
    }
    OnceCallback(const OnceCallback &) = delete;
    OnceCallback &operator=(const OnceCallback &) = delete;

    void operator()(R r)
    {
        auto f = std::move(m_f);
        m_f = nullptr;
        if (f)
            f(std::move(r));
    }

private:
    std::function<void(R)> m_f;
};

/// The largest distance from a pop's start offset that BATCH_ACK's bit set carries (the
/// broker's limit); a message further on is acked alone.
constexpr std::int64_t kMaxBatchAckBit = 4096;

} // namespace

class SimpleConsumerImpl final : public ConsumerInner,
                                 public std::enable_shared_from_this<SimpleConsumerImpl>
{
public:
    explicit SimpleConsumerImpl(SimpleConsumerOptions options) : m_options(std::move(options)) { }
    ~SimpleConsumerImpl() override { shutdown(); }

    struct Target
    {
        QByteArray topic;
        QByteArray brokerName;
    };

    const SimpleConsumerOptions m_options;
    ClientInstance::Lease m_lease;
    std::shared_ptr<ClientInstance> m_instance; // m_lease's
    std::atomic<bool> m_started {false};
    std::int64_t m_startTimestamp = 0;

    mutable std::mutex m_mutex;
    std::map<QByteArray, protocol::SubscriptionData> m_subscriptions; // guarded by m_mutex
    /// The master brokers (names) of each subscribed topic's readable queues, guarded.
    std::map<QByteArray, std::vector<QByteArray>> m_brokers;
    std::size_t m_next = 0; // the round robin over (topic, broker), guarded by m_mutex
    /// Runs the async calls' callbacks; a new one per start(), guarded by m_mutex.
    std::shared_ptr<WorkerPool> m_callbacks;

    int apiTimeout() const { return std::max(1, m_options.client.mqClientApiTimeout); }

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
        if (m_started) {
            // As RocketMQ 5's SDKs: a topic without a route is refused at once.
            auto queues = m_instance->subscribeQueues(topic);
            if (!queues)
                return queues.error();
            {
                std::lock_guard lock(m_mutex);
                m_subscriptions[topic] = std::move(sub);
            }
            setBrokers(topic, *queues);
            (void)m_instance->sendHeartbeatToAllBrokers(false);
            return Status();
        }
        std::lock_guard lock(m_mutex);
        m_subscriptions[topic] = std::move(sub);
        return Status();
    }

    void unsubscribe(const QByteArray &topic)
    {
        std::lock_guard lock(m_mutex);
        m_subscriptions.erase(topic);
        m_brokers.erase(topic);
    }

    Status start()
    {
        if (m_started)
            return Status();
        if (m_options.group.isEmpty() || m_options.group == "DEFAULT_CONSUMER")
            return Status::invalidArgument(
                QStringLiteral("consumerGroup is empty or DEFAULT_CONSUMER"));
        if (Status s = checkTopic(m_options.group); !s)
            return Status::invalidArgument(QStringLiteral("consumerGroup: ") + s.message());
        if (m_options.awaitDurationMillis < 0)
            return Status::invalidArgument(QStringLiteral("awaitDurationMillis is negative"));
        if (m_options.client.resolvedNamesrvAddr().isEmpty())
            return Status::invalidArgument(
                QStringLiteral("no name server address: set namesrvAddr or NAMESRV_ADDR"));
        m_startTimestamp = currentTimeMillis();
        m_lease = ClientInstance::acquire(m_options.client);
        m_instance = m_lease.instance();
        if (Status s = m_instance->registerConsumer(m_options.group, weak_from_this()); !s) {
            m_instance.reset();
            m_lease.reset();
            return s;
        }
        // As RocketMQ 5's SDKs: every subscribed topic needs a route to start.
        for (const QByteArray &t : subscribedTopics()) {
            if (Status s = refreshBrokers(t); !s) {
                m_instance->unregisterConsumer(m_options.group);
                m_instance.reset();
                m_lease.reset();
                return s;
            }
        }
        {
            std::lock_guard lock(m_mutex);
            m_callbacks = std::make_shared<WorkerPool>(
                "qrocket-simple", std::max(1, m_options.callbackThreads));
        }
        m_started = true;
        (void)m_instance->sendHeartbeatToAllBrokers(true);
        return Status();
    }

    void shutdown()
    {
        if (!m_started.exchange(false))
            return;
        m_instance->unregisterConsumer(m_options.group);
        std::shared_ptr<WorkerPool> callbacks;
        {
            std::lock_guard lock(m_mutex);
            callbacks = m_callbacks;
        }
        // Queued callbacks are dropped: each then runs with Unavailable (OnceCallback).
        if (callbacks)
            callbacks->shutdown();
        m_lease.reset(); // the last user's shutdown stops the client instance here
    }

    /// Runs `callback(result)` on the callback pool; when the pool is shut down the callback
    /// runs with Unavailable instead (when the last reference to it goes).
    template<typename R>
    void deliver(const std::shared_ptr<OnceCallback<R>> &callback, R result)
    {
        std::shared_ptr<WorkerPool> pool;
        {
            std::lock_guard lock(m_mutex);
            pool = m_callbacks;
        }
        if (!pool) { // never started: the caller's own thread answers
            (*callback)(std::move(result));
            return;
        }
        auto boxed = std::make_shared<R>(std::move(result));
        (void)pool->execute([callback, boxed] { (*callback)(std::move(*boxed)); });
    }

    /// The brokers of `topic` from the instance's cached route (fetched when absent).
    Status refreshBrokers(const QByteArray &topic)
    {
        auto queues = m_instance->subscribeQueues(topic);
        if (!queues)
            return queues.error();
        setBrokers(topic, *queues);
        return Status();
    }

    void setBrokers(const QByteArray &topic, const std::vector<MessageQueue> &queues)
    {
        std::vector<QByteArray> names;
        for (const MessageQueue &mq : queues) {
            if (std::find(names.begin(), names.end(), mq.brokerName) == names.end())
                names.push_back(mq.brokerName);
        }
        std::sort(names.begin(), names.end());
        std::lock_guard lock(m_mutex);
        if (m_subscriptions.count(topic))
            m_brokers[topic] = std::move(names);
    }

    /// The next (topic, broker) of the round robin, with that topic's subscription.
    Result<std::pair<Target, protocol::SubscriptionData>> nextTarget()
    {
        std::vector<QByteArray> missing;
        {
            std::lock_guard lock(m_mutex);
            if (m_subscriptions.empty())
                return Status::invalidArgument(QStringLiteral("nothing subscribed"));
            for (const auto &[topic, sub] : m_subscriptions) {
                auto it = m_brokers.find(topic);
                if (it == m_brokers.end() || it->second.empty())
                    missing.push_back(topic);
            }
        }
        Status lastError;
        for (const QByteArray &topic : missing) {
            if (Status s = refreshBrokers(topic); !s)
                lastError = s;
        }
        std::lock_guard lock(m_mutex);
        std::size_t total = 0;
        for (const auto &[topic, sub] : m_subscriptions) {
            auto it = m_brokers.find(topic);
            if (it != m_brokers.end())
                total += it->second.size();
        }
        if (total == 0)
            return lastError
                ? Status::notFound(QStringLiteral("no broker serves the subscribed topics"))
                : lastError;
        std::size_t index = m_next++ % total;
        for (const auto &[topic, sub] : m_subscriptions) {
            auto it = m_brokers.find(topic);
            if (it == m_brokers.end())
                continue;
            if (index < it->second.size())
                return std::make_pair(Target {topic, it->second[index]}, sub);
            index -= it->second.size();
        }
        return Status::internal(QStringLiteral("round robin out of range"));
    }

    /// The master of `brokerName`, refreshing `topic`'s route once when it is not known.
    Result<QByteArray> masterOf(const QByteArray &brokerName, const QByteArray &topic)
    {
        QByteArray addr = m_instance->masterAddress(brokerName);
        if (addr.isEmpty()) {
            (void)m_instance->refreshTopicRoute(topic);
            addr = m_instance->masterAddress(brokerName);
        }
        if (addr.isEmpty())
            return Status::notFound(QStringLiteral("no master address for broker %1")
                                        .arg(QString::fromUtf8(brokerName)));
        return addr;
    }

    Status checkStarted() const
    {
        if (!m_started)
            return Status::invalidArgument(QStringLiteral("the simple consumer is not started"));
        return Status();
    }

    /// One POP_MESSAGE to send: where, what, and the topic to refresh when it fails.
    struct PopCall
    {
        QByteArray addr;
        Target where;
        protocol::RemotingCommand request;
    };

    Result<PopCall> preparePop(int maxMessages, int invisibleMillis)
    {
        if (Status s = checkStarted(); !s)
            return s;
        if (maxMessages < 1 || maxMessages > SimpleConsumer::kMaxReceive)
            return Status::invalidArgument(QStringLiteral("maxMessages must be in 1..32"));
        if (invisibleMillis < 1 || invisibleMillis > kMaxInvisibleMillis)
            return Status::invalidArgument(
                QStringLiteral("invisibleDuration must be in 1 ms .. 7 days"));
        auto target = nextTarget();
        if (!target)
            return target.error();
        const auto &[where, sub] = *target;
        auto addr = masterOf(where.brokerName, where.topic);
        if (!addr)
            return addr.error();
        const protocol::PopMessageRequestHeader h
            = pop::popHeader(m_options.group, sub, -1, maxMessages, invisibleMillis,
                m_options.awaitDurationMillis, m_options.consumeFromFirst);
        return PopCall {*addr, where, m_instance->api().request(popcode::PopMessage, h)};
    }

    int popTimeout() const { return m_options.awaitDurationMillis + apiTimeout(); }

    Result<std::vector<MessageExt>> receive(int maxMessages, int invisibleMillis)
    {
        auto call = preparePop(maxMessages, invisibleMillis);
        if (!call)
            return call.error();
        auto r = m_instance->api().invokeSync(call->addr, std::move(call->request), popTimeout());
        if (!r) {
            (void)m_instance->refreshTopicRoute(call->where.topic); // a broker gone: learn it
            return r.error();
        }
        return pop::parsePopResponse(*r, call->where.brokerName);
    }

    void receiveAsync(
        int maxMessages, int invisibleMillis, SimpleConsumer::ReceiveCallback callback)
    {
        using R = Result<std::vector<MessageExt>>;
        auto once = std::make_shared<OnceCallback<R>>(std::move(callback));
        auto call = preparePop(maxMessages, invisibleMillis);
        if (!call) {
            deliver(once, R(call.error()));
            return;
        }
        std::weak_ptr<SimpleConsumerImpl> weak = weak_from_this();
        const QByteArray brokerName = call->where.brokerName;
        const QByteArray topic = call->where.topic;
        m_instance->api().invokeAsync(call->addr, std::move(call->request), popTimeout(),
            [weak, once, brokerName, topic](Result<protocol::RemotingCommand> r) {
                auto self = weak.lock();
                if (!self)
                    return; // once's destructor answers Unavailable
                if (!r) {
                    std::weak_ptr<ClientInstance> instance = self->m_instance;
                    self->m_instance->scheduler().post([instance, topic] {
                        if (auto i = instance.lock())
                            (void)i->refreshTopicRoute(topic);
                    });
                    self->deliver(once, R(r.error()));
                    return;
                }
                self->deliver(once, pop::parsePopResponse(*r, brokerName));
            });
    }

    /// ACK_MESSAGE for `message`: its master's address and the request.
    Result<std::pair<QByteArray, protocol::RemotingCommand>> prepareAck(const MessageExt &message)
    {
        if (Status s = checkStarted(); !s)
            return s;
        auto e = pop::receiptOf(message);
        if (!e)
            return e.error();
        auto addr = masterOf(e->brokerName, message.topic());
        if (!addr)
            return addr.error();
        const auto h = pop::ackHeader(m_options.group, message, *e);
        return std::make_pair(*addr, m_instance->api().request(popcode::AckMessage, h));
    }

    Status ack(const MessageExt &message)
    {
        auto call = prepareAck(message);
        if (!call)
            return call.error();
        return ClientApi::expectSuccess(
            m_instance->api().invokeSync(call->first, std::move(call->second), apiTimeout()))
            .status();
    }

    void ackAsync(const MessageExt &message, SimpleConsumer::StatusCallback callback)
    {
        auto once = std::make_shared<OnceCallback<Status>>(std::move(callback));
        auto call = prepareAck(message);
        if (!call) {
            deliver(once, call.error());
            return;
        }
        std::weak_ptr<SimpleConsumerImpl> weak = weak_from_this();
        m_instance->api().invokeAsync(call->first, std::move(call->second), apiTimeout(),
            [weak, once](Result<protocol::RemotingCommand> r) {
                if (auto self = weak.lock())
                    self->deliver(once, ClientApi::expectSuccess(std::move(r)).status());
            });
    }

    Status ack(const std::vector<MessageExt> &messages)
    {
        if (Status s = checkStarted(); !s)
            return s;
        // brokerName -> (one pop of one queue) -> its acked offsets.
        using PopKey = std::tuple<QByteArray, char, std::int32_t, std::int64_t, std::int64_t,
            std::int64_t, std::int32_t>; // topic, retry, queue, start, popTime, invisible, rq
        std::map<QByteArray, std::map<PopKey, std::vector<std::int64_t>>> byBroker;
        std::vector<const MessageExt *> alone;
        for (const MessageExt &m : messages) {
            auto e = pop::receiptOf(m);
            if (!e)
                return e.error();
            const std::int64_t offset = e->queueOffset >= 0 ? e->queueOffset : m.queueOffset();
            if (offset < e->ckQueueOffset || offset - e->ckQueueOffset >= kMaxBatchAckBit) {
                alone.push_back(&m);
                continue;
            }
            byBroker[e->brokerName][PopKey {m.topic(), e->retry, e->queueId, e->ckQueueOffset,
                                        e->popTime, e->invisibleTime, e->reviveQid}]
                .push_back(offset);
        }
        Status first;
        auto keep = [&first](Status s) {
            if (!s && first)
                first = std::move(s);
        };
        for (auto &[brokerName, pops] : byBroker) {
            protocol::BatchAckMessageRequestBody body;
            body.brokerName = brokerName;
            QByteArray anyTopic;
            for (auto &[key, offsets] : pops) {
                protocol::BatchAck a;
                a.consumerGroup = m_options.group;
                std::tie(a.topic, std::ignore, a.queueId, a.startOffset, a.popTime, a.invisibleTime,
                    a.reviveQueueId)
                    = key;
                a.retry = QByteArray(1, std::get<1>(key));
                a.offsets = std::move(offsets);
                anyTopic = a.topic;
                body.acks.push_back(std::move(a));
            }
            auto addr = masterOf(brokerName, anyTopic);
            if (!addr) {
                keep(addr.error());
                continue;
            }
            protocol::RemotingCommand request = m_instance->api().request(popcode::BatchAckMessage);
            request.body = body.toJson();
            keep(ClientApi::expectSuccess(
                m_instance->api().invokeSync(*addr, std::move(request), apiTimeout()))
                     .status());
        }
        for (const MessageExt *m : alone)
            keep(ack(*m));
        return first;
    }

    Status changeInvisibleDuration(MessageExt &message, int invisibleMillis)
    {
        if (Status s = checkStarted(); !s)
            return s;
        if (invisibleMillis < 1 || invisibleMillis > kMaxInvisibleMillis)
            return Status::invalidArgument(
                QStringLiteral("invisibleDuration must be in 1 ms .. 7 days"));
        auto e = pop::receiptOf(message);
        if (!e)
            return e.error();
        auto addr = masterOf(e->brokerName, message.topic());
        if (!addr)
            return addr.error();
        const auto h = pop::changeInvisibleHeader(m_options.group, message, *e, invisibleMillis);
        auto r = ClientApi::expectSuccess(m_instance->api().invokeSync(*addr,
            m_instance->api().request(popcode::ChangeMessageInvisibleTime, h), apiTimeout()));
        if (!r)
            return r.error();
        return pop::applyChangedHandle(*r, message, *e);
    }

    // -- ConsumerInner --------------------------------------------------------------------------
    QByteArray groupName() const override { return m_options.group; }
    protocol::ConsumerData consumerData() const override
    {
        protocol::ConsumerData data;
        data.groupName = m_options.group;
        data.consumeType = protocol::ConsumeType::ConsumeActively;
        data.messageModel = MessageModel::Clustering;
        data.consumeFromWhere = m_options.consumeFromFirst
            ? protocol::ConsumeFromWhere::ConsumeFromFirstOffset
            : protocol::ConsumeFromWhere::ConsumeFromLastOffset;
        std::lock_guard lock(m_mutex);
        for (const auto &[topic, sub] : m_subscriptions)
            data.subscriptionDataSet.push_back(sub);
        return data;
    }
    std::vector<QByteArray> subscribedTopics() const override
    {
        std::vector<QByteArray> out;
        std::lock_guard lock(m_mutex);
        for (const auto &[topic, sub] : m_subscriptions)
            out.push_back(topic);
        return out;
    }
    void updateTopicSubscribeInfo(
        const QByteArray &topic, const std::vector<MessageQueue> &queues) override
    {
        setBrokers(topic, queues);
    }
    void doRebalance() override { } // the broker assigns
    void persistConsumerOffset() override { } // the broker keeps POP offsets
    void resetOffset(const QByteArray &, const std::map<MessageQueue, std::int64_t> &) override { }
    std::map<MessageQueue, std::int64_t> consumerOffsets(const QByteArray &) override { return {}; }
    QByteArray runningInfoJson(const QByteArray &jstack) override
    {
        protocol::ConsumerRunningInfo info;
        info.jstack = jstack;
        info.properties = {{"PROP_CLIENT_VERSION", "V4_9_7"}, {"PROP_CONSUME_TYPE", "CONSUME_POP"},
            {"PROP_CONSUMER_START_TIMESTAMP", QByteArray::number(m_startTimestamp)},
            {"consumerGroup", m_options.group}, {"messageModel", "CLUSTERING"}};
        std::lock_guard lock(m_mutex);
        for (const auto &[topic, sub] : m_subscriptions)
            info.subscriptionSet.push_back(sub);
        return info.toJson();
    }
    QByteArray consumeMessageDirectly(const MessageExt &, const QByteArray &) override
    {
        return QByteArrayLiteral(
            "{\"autoCommit\":true,\"consumeResult\":\"CR_THROW_EXCEPTION\",\"order\":false,"
            "\"remark\":\"a simple consumer has no listener\",\"spentTimeMills\":0}");
    }
};

SimpleConsumer::SimpleConsumer(SimpleConsumerOptions options)
    : m_impl(std::make_shared<SimpleConsumerImpl>(std::move(options)))
{ }

SimpleConsumer::~SimpleConsumer()
{
    m_impl->shutdown();
}

Status SimpleConsumer::subscribe(const QByteArray &topic, const MessageSelector &selector)
{
    return m_impl->subscribe(topic, selector);
}

void SimpleConsumer::unsubscribe(const QByteArray &topic)
{
    m_impl->unsubscribe(topic);
}

Status SimpleConsumer::start()
{
    return m_impl->start();
}

void SimpleConsumer::shutdown()
{
    m_impl->shutdown();
}

bool SimpleConsumer::isStarted() const
{
    return m_impl->m_started;
}

Result<std::vector<MessageExt>> SimpleConsumer::receive(
    int maxMessages, int invisibleDurationMillis)
{
    return m_impl->receive(maxMessages, invisibleDurationMillis);
}

Status SimpleConsumer::ack(const MessageExt &message)
{
    return m_impl->ack(message);
}

Status SimpleConsumer::changeInvisibleDuration(MessageExt &message, int invisibleDurationMillis)
{
    return m_impl->changeInvisibleDuration(message, invisibleDurationMillis);
}

Status SimpleConsumer::ack(const std::vector<MessageExt> &messages)
{
    return m_impl->ack(messages);
}

void SimpleConsumer::receiveAsync(
    int maxMessages, int invisibleDurationMillis, ReceiveCallback callback)
{
    m_impl->receiveAsync(maxMessages, invisibleDurationMillis, std::move(callback));
}

void SimpleConsumer::ackAsync(const MessageExt &message, StatusCallback callback)
{
    m_impl->ackAsync(message, std::move(callback));
}

QByteArray SimpleConsumer::receiptHandle(const MessageExt &message)
{
    return message.property(kPopCk);
}

QByteArray SimpleConsumer::clientId() const
{
    return m_impl->m_instance ? m_impl->m_instance->clientId() : QByteArray();
}

} // namespace qrocket::client
