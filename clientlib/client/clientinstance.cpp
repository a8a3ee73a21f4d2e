#include "clientlib/client/clientinstance.h"

#include "clientlib/client/logging.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"

#include <QHostAddress>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <set>
#include <thread>

namespace qrocket::client {

using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;

namespace {

constexpr QByteArrayView kDefaultTopic = "TBW102";

/// A remoting::Executor over a WorkerPool (broker->client requests leave the I/O thread).
class PoolExecutor final : public remoting::Executor
{
public:
    explicit PoolExecutor(std::weak_ptr<WorkerPool> pool) : m_pool(std::move(pool)) { }
    bool tryExecute(std::function<void()> task) override
    {
        const auto pool = m_pool.lock();
        return pool && pool->execute(std::move(task));
    }

private:
    std::weak_ptr<WorkerPool> m_pool;
};

class FunctionProcessor final : public remoting::RequestProcessor
{
public:
    using Fn
        = std::function<void(const remoting::ChannelPtr &, RemotingCommand, remoting::Responder)>;
    explicit FunctionProcessor(Fn fn) : m_fn(std::move(fn)) { }
    void processRequest(const remoting::ChannelPtr &channel, RemotingCommand request,
        remoting::Responder respond) override
    {
        m_fn(channel, std::move(request), std::move(respond));
    }

private:
    Fn m_fn;
};

RemotingCommand reply(const RemotingCommand &request, int code, QByteArray remark = {})
{
    return RemotingCommand::createResponse(request, code, std::move(remark));
}

struct Registry
{
    std::mutex mutex;
    std::map<QByteArray, std::weak_ptr<ClientInstance>> instances; // the leased ones
};

Registry &registry()
{
    static Registry r;
    return r;
}

} // namespace

struct ClientInstance::Private
{
    struct RouteEntry
    {
        protocol::TopicRouteData route;
        std::shared_ptr<const TopicPublishInfo> publish;
        std::vector<MessageQueue> subscribe;
    };
    struct PendingReply
    {
        ReplyCallback callback;
        Scheduler::TaskId timer = 0;
    };

    mutable std::mutex mutex;
    bool started = false;
    std::map<QByteArray, std::weak_ptr<ProducerInner>> producers; // guarded by mutex
    std::map<QByteArray, std::weak_ptr<ConsumerInner>> consumers; // guarded by mutex
    QHash<QByteArray, RouteEntry> routes; // guarded by mutex
    std::map<QByteArray, std::map<std::int64_t, QByteArray>> brokers; // guarded by mutex
    std::map<QByteArray, PendingReply> replies; // guarded by mutex
    std::mutex nameServerMutex; // one route update at a time (Java's lockNamesrv)
    std::atomic<bool> rebalancePosted {false};
};

ClientInstance::Lease ClientInstance::acquire(const ClientConfig &config)
{
    // Keyed by the name servers too: an explicit instance name used for two clusters gives two
    // instances, never one that talks to the wrong cluster.
    const QByteArray id
        = config.buildClientId() + '|' + config.resolvedNamesrvAddr() + '|' + config.accessKey;
    Registry &r = registry();
    std::lock_guard lock(r.mutex);
    // An entry is alive: its leases hold it, and the last one erases it.
    if (const auto it = r.instances.find(id); it != r.instances.end()) {
        if (auto existing = it->second.lock()) {
            ++existing->m_leases;
            return Lease(std::move(existing));
        }
    }
    std::shared_ptr<ClientInstance> created(new ClientInstance(config));
    created->registerBrokerProcessors();
    created->m_registryKey = id;
    created->m_leases = 1;
    r.instances[id] = created;
    return Lease(std::move(created));
}

ClientInstance::Lease &ClientInstance::Lease::operator=(Lease &&other) noexcept
{
    if (this != &other) {
        reset();
        m_instance = std::move(other.m_instance);
    }
    return *this;
}

void ClientInstance::Lease::reset()
{
    if (auto instance = std::move(m_instance))
        instance->releaseLease();
}

void ClientInstance::releaseLease()
{
    {
        Registry &r = registry();
        std::lock_guard lock(r.mutex);
        if (--m_leases > 0)
            return;
        // Gone from the registry first: an acquire() from now on creates a new instance.
        r.instances.erase(m_registryKey);
    }
    shutdown();
}

ClientInstance::ClientInstance(const ClientConfig &config)
    : m_config(config), m_clientId(config.buildClientId()), d(std::make_unique<Private>())
{
    remoting::RemotingClientOptions options;
    options.threadName = QStringLiteral("qrocket-cli-io");
    if (!config.accessKey.isEmpty()) {
        options.requestHook =
            [ak = config.accessKey, sk = config.secretKey, token = config.securityToken](
                protocol::RemotingCommand &request) { protocol::aclSign(request, ak, sk, token); };
    }
    m_remoting = std::make_unique<remoting::RemotingClient>(options);
    m_remoting->setNameServerAddresses(config.resolvedNamesrvAddr());
    m_api = std::make_unique<ClientApi>(*m_remoting, config.language);
    m_scheduler = std::make_unique<Scheduler>("qrocket-timer");
    m_rebalancer = std::make_unique<Scheduler>("qrocket-rebal");
    m_callbackPool = std::make_shared<WorkerPool>("qrocket-cb", 2);
}

ClientInstance::~ClientInstance()
{
    shutdown();
    // Joined by shutdown() unless it ran on the I/O thread: then a helper thread does it (the
    // last holder may have been a callback there).
    if (m_remoting->isIoThread()) {
        std::thread([remoting = std::move(m_remoting)]() mutable {
            remoting->shutdown();
        }).detach();
    }
    qCDebug(lcClient, "client instance %s destroyed", m_clientId.constData());
}

void ClientInstance::shutdown()
{
    if (m_shutDown.exchange(true))
        return;
    m_scheduler->shutdown();
    m_rebalancer->shutdown();
    std::map<QByteArray, Private::PendingReply> replies;
    {
        std::lock_guard lock(d->mutex);
        replies.swap(d->replies);
    }
    for (auto &[id, pending] : replies)
        pending.callback(Status::unavailable(QStringLiteral("client shut down")));
    m_callbackPool->shutdown();
    // RemotingClient joins its I/O thread: never from that thread (see the destructor).
    if (!m_remoting->isIoThread())
        m_remoting->shutdown();
    qCDebug(lcClient, "client instance %s shut down", m_clientId.constData());
}

void ClientInstance::registerBrokerProcessors()
{
    auto executor = std::make_shared<PoolExecutor>(m_callbackPool);
    // Each processor holds the instance only while it runs (a weak pointer otherwise), so a
    // request that arrives during the destruction finds nothing to call.
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    auto add = [&](RequestCode code, FunctionProcessor::Fn fn) {
        auto guarded = [weak, fn = std::move(fn)](const remoting::ChannelPtr &channel,
                           RemotingCommand request, remoting::Responder respond) {
            if (auto self = weak.lock())
                fn(channel, std::move(request), std::move(respond));
        };
        m_remoting->registerProcessor(
            toInt(code), std::make_shared<FunctionProcessor>(std::move(guarded)), executor);
    };

    add(RequestCode::NotifyConsumerIdsChanged,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            qCInfo(lcClient, "broker says the consumers of %s changed: rebalancing",
                request.extString("consumerGroup").toByteArray().constData());
            rebalanceImmediately();
            if (!request.isOneway())
                respond(reply(request, toInt(ResponseCode::Success)));
        });

    add(RequestCode::CheckTransactionState,
        [this](const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder) {
            auto header = protocol::CheckTransactionStateRequestHeader::decode(request);
            auto msgs = MessageExt::decodeAll(request.body, QByteArray());
            if (!header || !msgs || msgs->size() != 1) {
                qCWarning(lcClient, "CHECK_TRANSACTION_STATE from %s: bad request",
                    channel->remoteAddress().constData());
                return;
            }
            MessageExt msg = std::move(msgs->front());
            const QByteArray group = msg.property(protocol::MessageConst::ProducerGroup);
            std::shared_ptr<ProducerInner> producer;
            {
                std::lock_guard lock(d->mutex);
                const auto it = d->producers.find(group);
                if (it != d->producers.end())
                    producer = it->second.lock();
            }
            if (!producer) {
                qCWarning(lcClient, "CHECK_TRANSACTION_STATE for group %s: no such producer here",
                    group.constData());
                return;
            }
            producer->checkTransactionState(channel->remoteAddress(), std::move(msg), *header);
        });

    add(RequestCode::ResetConsumerClientOffset,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::ResetOffsetRequestHeader::decode(request);
            std::map<MessageQueue, std::int64_t> offsets;
            if (header) {
                auto body = protocol::parseJson(request.body);
                if (body) {
                    for (const auto &[key, value] : (*body)["offsetTable"].members()) {
                        auto mq = protocol::MessageQueue::fromJsonValue(key);
                        if (mq)
                            offsets[*mq] = value.toInteger();
                    }
                }
                if (auto c = consumer(header->group))
                    c->resetOffset(header->topic, offsets);
            }
            if (!request.isOneway())
                respond(reply(request,
                    header ? toInt(ResponseCode::Success) : toInt(ResponseCode::SystemError)));
        });

    add(RequestCode::GetConsumerStatusFromClient,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::GetConsumerStatusRequestHeader::decode(request);
            if (!header) {
                respond(reply(
                    request, toInt(ResponseCode::SystemError), header.error().message().toUtf8()));
                return;
            }
            protocol::JsonWriter w;
            w.beginObject().key("consumerTable").beginObject().endObject();
            w.key("messageQueueTable").beginObject();
            if (auto c = consumer(header->group)) {
                for (const auto &[mq, offset] : c->consumerOffsets(header->topic))
                    w.rawKey(mq.toJson()).value(offset);
            }
            w.endObject().endObject();
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            r.body = w.take();
            respond(std::move(r));
        });

    add(RequestCode::GetConsumerRunningInfo,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::GetConsumerRunningInfoRequestHeader::decode(request);
            auto c = header ? consumer(header->consumerGroup) : nullptr;
            if (!c) {
                respond(reply(request, toInt(ResponseCode::SystemError),
                    "The Consumer Group <" + (header ? header->consumerGroup : QByteArray())
                        + "> not exist in this consumer"));
                return;
            }
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            // jstackEnable (mqadmin consumerStatus -s): the process's threads, as a Java client
            // answers with its thread dump.
            r.body = c->runningInfoJson(header->jstackEnable ? threadDump() : QByteArray());
            respond(std::move(r));
        });

    add(RequestCode::ConsumeMessageDirectly,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            auto header = protocol::ConsumeMessageDirectlyResultRequestHeader::decode(request);
            auto msgs
                = MessageExt::decodeAll(request.body, header ? header->brokerName : QByteArray());
            auto c = header ? consumer(header->consumerGroup) : nullptr;
            if (!c || !msgs || msgs->size() != 1) {
                respond(reply(request, toInt(ResponseCode::SystemError),
                    c ? QByteArray("bad message body")
                      : "The Consumer Group <" + (header ? header->consumerGroup : QByteArray())
                            + "> not exist in this consumer"));
                return;
            }
            RemotingCommand r = reply(request, toInt(ResponseCode::Success));
            r.body = c->consumeMessageDirectly(msgs->front(), header->brokerName);
            respond(std::move(r));
        });

    add(RequestCode::PushReplyMessageToClient,
        [this](const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) {
            protocol::MessageRecordView view;
            view.topic = request.extString("topic");
            view.queueId = request.extInt("queueId").value_or(0);
            view.flag = request.extInt("flag").value_or(0);
            view.sysFlag = request.extInt("sysFlag").value_or(0);
            view.bornTimestamp = request.extLong("bornTimestamp").value_or(0);
            view.storeTimestamp = request.extLong("storeTimestamp").value_or(0);
            view.reconsumeTimes = request.extInt("reconsumeTimes").value_or(0);
            view.properties = request.extString("properties");
            view.body = request.body;
            auto msg = MessageExt::fromRecord(view, QByteArray());
            QByteArray correlation;
            if (msg)
                correlation = msg->property(protocol::MessageConst::CorrelationId);
            Private::PendingReply pending;
            {
                std::lock_guard lock(d->mutex);
                const auto it = d->replies.find(correlation);
                if (it != d->replies.end()) {
                    pending = std::move(it->second);
                    d->replies.erase(it);
                }
            }
            if (pending.callback) {
                m_scheduler->cancel(pending.timer);
                pending.callback(std::move(msg));
            } else {
                qCDebug(lcClient, "reply %s: nobody waits for it (timed out?)",
                    correlation.constData());
            }
            if (!request.isOneway())
                respond(reply(request, toInt(ResponseCode::Success)));
        });
}

Status ClientInstance::registerProducer(
    const QByteArray &group, std::weak_ptr<ProducerInner> producer)
{
    if (group.isEmpty())
        return Status::invalidArgument(QStringLiteral("producer group name is empty"));
    {
        std::lock_guard lock(d->mutex);
        auto &slot = d->producers[group];
        if (!slot.expired())
            return Status::invalidArgument(
                QStringLiteral(
                    "the producer group '%1' has been created before in this client (%2): "
                    "specify another name")
                    .arg(QString::fromUtf8(group), QString::fromUtf8(m_clientId)));
        slot = std::move(producer);
    }
    start();
    return Status();
}

void ClientInstance::unregisterProducer(const QByteArray &group)
{
    {
        std::lock_guard lock(d->mutex);
        d->producers.erase(group);
    }
    for (const auto &[name, ids] : brokerAddressTable()) {
        for (const auto &[id, addr] : ids)
            (void)m_api->unregisterClient(
                addr, m_clientId, group, QByteArray(), m_config.mqClientApiTimeout);
    }
}

Status ClientInstance::registerConsumer(
    const QByteArray &group, std::weak_ptr<ConsumerInner> consumer)
{
    if (group.isEmpty())
        return Status::invalidArgument(QStringLiteral("consumer group name is empty"));
    {
        std::lock_guard lock(d->mutex);
        auto &slot = d->consumers[group];
        if (!slot.expired())
            return Status::invalidArgument(
                QStringLiteral(
                    "the consumer group '%1' has been created before in this client (%2): "
                    "specify another name")
                    .arg(QString::fromUtf8(group), QString::fromUtf8(m_clientId)));
        slot = std::move(consumer);
    }
    start();
    return Status();
}

void ClientInstance::unregisterConsumer(const QByteArray &group)
{
    {
        std::lock_guard lock(d->mutex);
        d->consumers.erase(group);
    }
    for (const auto &[name, ids] : brokerAddressTable()) {
        for (const auto &[id, addr] : ids)
            (void)m_api->unregisterClient(
                addr, m_clientId, QByteArray(), group, m_config.mqClientApiTimeout);
    }
}

void ClientInstance::start()
{
    {
        std::lock_guard lock(d->mutex);
        if (d->started)
            return;
        d->started = true;
    }
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    auto every = [&](int initialMs, int periodMs, void (ClientInstance::*fn)()) {
        m_scheduler->scheduleWithFixedDelay(std::chrono::milliseconds(initialMs),
            std::chrono::milliseconds(std::max(periodMs, 100)), [weak, fn] {
                if (auto self = weak.lock())
                    ((*self).*fn)();
            });
    };
    every(10, m_config.pollNameServerInterval, &ClientInstance::updateRoutesFromNameServer);
    every(1000, m_config.heartbeatBrokerInterval, &ClientInstance::cleanOfflineBrokers);
    every(
        10000, m_config.persistConsumerOffsetInterval, &ClientInstance::persistAllConsumerOffsets);
    m_scheduler->scheduleWithFixedDelay(std::chrono::milliseconds(1000),
        std::chrono::milliseconds(std::max(m_config.heartbeatBrokerInterval, 100)), [weak] {
            if (auto self = weak.lock())
                (void)self->sendHeartbeatToAllBrokers(false);
        });
    m_rebalancer->scheduleWithFixedDelay(
        std::chrono::milliseconds(20000), std::chrono::milliseconds(20000), [weak] {
            if (auto self = weak.lock()) {
                for (const auto &c : self->consumers())
                    c->doRebalance();
            }
        });
    qCInfo(lcClient, "client instance %s started, name servers %s", m_clientId.constData(),
        m_config.resolvedNamesrvAddr().constData());
}

// -- routes ---------------------------------------------------------------------------------

void ClientInstance::storeRoute(const QByteArray &topic, const protocol::TopicRouteData &route)
{
    auto publish = TopicPublishInfo::fromRoute(topic, route);
    auto subscribe = subscribeQueuesOf(topic, route);
    bool changed = false;
    bool newBroker = false;
    {
        std::lock_guard lock(d->mutex);
        Private::RouteEntry &e = d->routes[topic];
        changed = !(e.route == route) || !e.publish;
        if (e.publish) // the round robin goes on where it was, across refreshes
            publish->sendWhichQueue = e.publish->sendWhichQueue.load();
        e.route = route;
        e.publish = std::move(publish);
        e.subscribe = subscribe;
        for (const protocol::BrokerData &b : route.brokerDatas) {
            auto &known = d->brokers[b.brokerName];
            newBroker = newBroker || known != b.brokerAddrs;
            known = b.brokerAddrs;
        }
    }
    if (newBroker) {
        // A broker we have not told about our producers and consumers yet (transaction checks
        // and replies need the producer channel, pulls the consumer group): tell it now.
        std::weak_ptr<ClientInstance> weak = weak_from_this();
        m_scheduler->post([weak] {
            if (auto self = weak.lock())
                (void)self->sendHeartbeatToAllBrokers(false);
        });
    }
    for (const auto &c : consumers()) {
        const auto topics = c->subscribedTopics();
        if (std::find(topics.begin(), topics.end(), topic) != topics.end())
            c->updateTopicSubscribeInfo(topic, subscribe);
    }
    if (changed)
        qCDebug(lcClient, "route of %s: %zu brokers, %zu queues", topic.constData(),
            route.brokerDatas.size(), route.queueDatas.size());
}

Result<protocol::TopicRouteData> ClientInstance::refreshTopicRoute(const QByteArray &topic)
{
    std::lock_guard serial(d->nameServerMutex);
    auto route = m_api->getTopicRoute(topic, m_config.mqClientApiTimeout);
    if (!route)
        return route.error();
    storeRoute(topic, *route);
    return route;
}

Result<std::shared_ptr<const TopicPublishInfo>> ClientInstance::publishInfo(
    const QByteArray &topic, bool refresh, int defaultTopicQueueNums)
{
    if (!refresh) {
        std::lock_guard lock(d->mutex);
        const auto it = d->routes.constFind(topic);
        if (it != d->routes.cend() && it->publish && it->publish->ok())
            return it->publish;
    }
    auto route = refreshTopicRoute(topic);
    if (route) {
        std::lock_guard lock(d->mutex);
        const auto it = d->routes.constFind(topic);
        if (it != d->routes.cend() && it->publish && it->publish->ok())
            return it->publish;
    }
    const bool notExist
        = !route && route.error().remoteCode() == toInt(ResponseCode::TopicNotExist);
    if (defaultTopicQueueNums <= 0 || (!route && !notExist))
        return route ? Status::notFound(
                   QStringLiteral("topic %1 has no writable queue").arg(QString::fromUtf8(topic)))
                     : route.error();
    // Unknown topic: send through TBW102's brokers, which create it (autoCreateTopicEnable).
    auto defaults = m_api->getTopicRoute(kDefaultTopic.toByteArray(), m_config.mqClientApiTimeout);
    if (!defaults)
        return Status::notFound(
            QStringLiteral("No route info of this topic: %1 (and no %2 route to create it: %3)")
                .arg(
                    QString::fromUtf8(topic), QLatin1String("TBW102"), defaults.error().message()));
    {
        std::lock_guard lock(d->mutex);
        for (const protocol::BrokerData &b : defaults->brokerDatas)
            d->brokers[b.brokerName] = b.brokerAddrs;
    }
    auto info = TopicPublishInfo::fromRoute(topic, *defaults, defaultTopicQueueNums);
    info->fromDefaultTopic = true;
    if (!info->ok())
        return Status::notFound(
            QStringLiteral("No route info of this topic: %1").arg(QString::fromUtf8(topic)));
    return std::shared_ptr<const TopicPublishInfo>(std::move(info));
}

Result<std::vector<MessageQueue>> ClientInstance::subscribeQueues(const QByteArray &topic)
{
    {
        std::lock_guard lock(d->mutex);
        const auto it = d->routes.constFind(topic);
        if (it != d->routes.cend() && it->publish)
            return it->subscribe;
    }
    auto route = refreshTopicRoute(topic);
    if (!route)
        return route.error();
    return subscribeQueuesOf(topic, *route);
}

QByteArray ClientInstance::masterAddress(const QByteArray &brokerName) const
{
    std::lock_guard lock(d->mutex);
    const auto it = d->brokers.find(brokerName);
    if (it == d->brokers.end())
        return QByteArray();
    const auto master = it->second.find(0);
    return master == it->second.end() ? QByteArray() : master->second;
}

std::optional<ClientInstance::BrokerAddress> ClientInstance::brokerAddress(
    const QByteArray &brokerName, std::int64_t brokerId, bool onlyThisBroker) const
{
    std::lock_guard lock(d->mutex);
    const auto it = d->brokers.find(brokerName);
    if (it == d->brokers.end() || it->second.empty())
        return std::nullopt;
    const auto exact = it->second.find(brokerId);
    if (exact != it->second.end())
        return BrokerAddress {exact->second, brokerId != 0};
    if (onlyThisBroker)
        return std::nullopt;
    const auto first = it->second.begin(); // the master when there is one (id 0 sorts first)
    return BrokerAddress {first->second, first->first != 0};
}

std::vector<QByteArray> ClientInstance::brokerAddressesOf(const QByteArray &topic)
{
    std::vector<QByteArray> names;
    {
        std::lock_guard lock(d->mutex);
        const auto it = d->routes.constFind(topic);
        if (it != d->routes.cend()) {
            for (const protocol::BrokerData &b : it->route.brokerDatas)
                names.push_back(b.brokerName);
        }
    }
    if (names.empty()) {
        auto route = refreshTopicRoute(topic);
        if (!route)
            return {};
        for (const protocol::BrokerData &b : route->brokerDatas)
            names.push_back(b.brokerName);
    }
    std::vector<QByteArray> addresses;
    std::lock_guard lock(d->mutex);
    for (const QByteArray &name : names) {
        const auto it = d->brokers.find(name);
        if (it == d->brokers.end())
            continue;
        for (const auto &[id, address] : it->second) // ordered: the master (0) first
            addresses.push_back(address);
    }
    return addresses;
}

std::map<QByteArray, std::map<std::int64_t, QByteArray>> ClientInstance::brokerAddressTable() const
{
    std::lock_guard lock(d->mutex);
    return d->brokers;
}

void ClientInstance::updateRoutesFromNameServer()
{
    std::set<QByteArray> topics;
    {
        std::lock_guard lock(d->mutex);
        for (auto it = d->routes.cbegin(); it != d->routes.cend(); ++it)
            topics.insert(it.key());
    }
    for (const auto &c : consumers()) {
        for (const QByteArray &t : c->subscribedTopics())
            topics.insert(t);
    }
    for (const QByteArray &topic : topics) {
        auto r = refreshTopicRoute(topic);
        if (!r && r.error().remoteCode() != toInt(ResponseCode::TopicNotExist))
            qCDebug(
                lcClient, "route of %s: %s", topic.constData(), qPrintable(r.error().message()));
    }
}

void ClientInstance::cleanOfflineBrokers()
{
    std::vector<QByteArray> gone;
    {
        std::lock_guard lock(d->mutex);
        std::set<QByteArray> live;
        for (auto it = d->routes.cbegin(); it != d->routes.cend(); ++it) {
            for (const protocol::BrokerData &b : it->route.brokerDatas) {
                for (const auto &[id, addr] : b.brokerAddrs)
                    live.insert(addr);
            }
        }
        for (auto b = d->brokers.begin(); b != d->brokers.end();) {
            for (auto a = b->second.begin(); a != b->second.end();) {
                if (!live.count(a->second)) {
                    gone.push_back(a->second);
                    a = b->second.erase(a);
                } else {
                    ++a;
                }
            }
            if (b->second.empty())
                b = d->brokers.erase(b);
            else
                ++b;
        }
    }
    for (const QByteArray &addr : gone) {
        qCInfo(lcClient, "broker %s left every route: connection closed", addr.constData());
        m_remoting->closeConnection(addr);
    }
}

// -- consumers ------------------------------------------------------------------------------

std::vector<std::shared_ptr<ConsumerInner>> ClientInstance::consumers() const
{
    std::vector<std::shared_ptr<ConsumerInner>> out;
    std::lock_guard lock(d->mutex);
    for (const auto &[group, weak] : d->consumers) {
        if (auto c = weak.lock())
            out.push_back(std::move(c));
    }
    return out;
}

std::shared_ptr<ConsumerInner> ClientInstance::consumer(const QByteArray &group) const
{
    std::lock_guard lock(d->mutex);
    const auto it = d->consumers.find(group);
    return it == d->consumers.end() ? nullptr : it->second.lock();
}

std::vector<std::shared_ptr<ProducerInner>> ClientInstance::producers() const
{
    std::vector<std::shared_ptr<ProducerInner>> out;
    std::lock_guard lock(d->mutex);
    for (const auto &[group, weak] : d->producers) {
        if (auto p = weak.lock())
            out.push_back(std::move(p));
    }
    return out;
}

void ClientInstance::persistAllConsumerOffsets()
{
    for (const auto &c : consumers())
        c->persistConsumerOffset();
}

Result<std::vector<QByteArray>> ClientInstance::consumerIdList(
    const QByteArray &topic, const QByteArray &group)
{
    // Any broker the group's members heartbeat to knows them all. Java asks one and skips the
    // rebalance when it fails; a master that just died (still in the cached route) or one that
    // just restarted (no heartbeats yet) then kept every queue where it was until the next 20 s
    // rebalance. The next broker (or the dead master's slave, which gets heartbeats too) answers.
    const std::vector<QByteArray> addresses = brokerAddressesOf(topic);
    if (addresses.empty())
        return Status::notFound(
            QStringLiteral("no broker serves topic %1").arg(QString::fromUtf8(topic)));
    Status last;
    for (const QByteArray &addr : addresses) {
        auto ids = m_api->getConsumerIdList(addr, group, m_config.mqClientApiTimeout);
        if (ids && !ids->empty())
            return ids;
        last = ids ? Status::notFound(QStringLiteral("%1 knows no member of group %2")
                                          .arg(QLatin1String(addr), QString::fromUtf8(group)))
                   : ids.error();
        qCDebug(lcClient, "consumer list of %s from %s: %s", group.constData(), addr.constData(),
            qPrintable(last.message()));
    }
    return last;
}

protocol::HeartbeatData ClientInstance::heartbeatData() const
{
    protocol::HeartbeatData data;
    data.clientID = m_clientId;
    for (const auto &p : producers())
        data.producerDataSet.push_back({p->groupName()});
    for (const auto &c : consumers())
        data.consumerDataSet.push_back(c->consumerData());
    return data;
}

Status ClientInstance::sendHeartbeatToAllBrokers(bool wait)
{
    const protocol::HeartbeatData data = heartbeatData();
    if (data.producerDataSet.empty() && data.consumerDataSet.empty())
        return Status();
    const bool withSlaves = !data.consumerDataSet.empty();
    RemotingCommand base = m_api->request(toInt(RequestCode::HeartBeat));
    base.body = data.toJson();

    struct Join
    {
        std::mutex mutex;
        std::condition_variable done;
        int outstanding = 0;
        Status first;
    };
    auto join = std::make_shared<Join>();
    int sent = 0;
    for (const auto &[name, ids] : brokerAddressTable()) {
        for (const auto &[id, addr] : ids) {
            if (id != 0 && !withSlaves)
                continue;
            {
                std::lock_guard lock(join->mutex);
                ++join->outstanding;
            }
            ++sent;
            m_api->invokeAsync(addr, base, m_config.mqClientApiTimeout,
                [join, addr = addr](Result<RemotingCommand> r) {
                    const Status s = ClientApi::expectSuccess(std::move(r)).status();
                    if (!s.isOk())
                        qCDebug(lcClient, "heartbeat to %s: %s", addr.constData(),
                            qPrintable(s.message()));
                    std::lock_guard lock(join->mutex);
                    if (!s.isOk() && join->first.isOk())
                        join->first = s;
                    --join->outstanding;
                    join->done.notify_all();
                });
        }
    }
    if (!wait || sent == 0)
        return Status();
    std::unique_lock lock(join->mutex);
    join->done.wait_for(lock, std::chrono::milliseconds(m_config.mqClientApiTimeout + 500),
        [&] { return join->outstanding == 0; });
    return join->first;
}

void ClientInstance::rebalanceImmediately()
{
    if (d->rebalancePosted.exchange(true)) {
        qCDebug(lcClient, "rebalance already pending");
        return;
    }
    qCDebug(lcClient, "rebalance posted");
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    m_rebalancer->post([weak] {
        auto self = weak.lock();
        if (!self)
            return;
        self->d->rebalancePosted = false;
        for (const auto &c : self->consumers())
            c->doRebalance();
    });
}

// -- request/reply --------------------------------------------------------------------------

void ClientInstance::expectReply(
    const QByteArray &correlationId, int timeoutMs, ReplyCallback callback)
{
    std::weak_ptr<ClientInstance> weak = weak_from_this();
    std::unique_lock lock(d->mutex);
    if (m_shutDown.load()) { // shutdown() fails what it finds in d->replies under this mutex
        lock.unlock();
        callback(Status::unavailable(QStringLiteral("client shut down")));
        return;
    }
    Private::PendingReply &p = d->replies[correlationId];
    p.callback = std::move(callback);
    p.timer = m_scheduler->schedule(
        std::chrono::milliseconds(timeoutMs), [weak, correlationId, timeoutMs] {
            auto self = weak.lock();
            if (!self)
                return;
            ReplyCallback cb;
            {
                std::lock_guard l(self->d->mutex);
                const auto it = self->d->replies.find(correlationId);
                if (it == self->d->replies.end())
                    return;
                cb = std::move(it->second.callback);
                self->d->replies.erase(it);
            }
            cb(Status::timeout(QStringLiteral("no reply to request %1 within %2 ms")
                                   .arg(QString::fromUtf8(correlationId))
                                   .arg(timeoutMs)));
        });
}

void ClientInstance::cancelReply(const QByteArray &correlationId)
{
    Private::PendingReply p;
    {
        std::lock_guard lock(d->mutex);
        const auto it = d->replies.find(correlationId);
        if (it == d->replies.end())
            return;
        p = std::move(it->second);
        d->replies.erase(it);
    }
    m_scheduler->cancel(p.timer);
}

} // namespace qrocket::client
