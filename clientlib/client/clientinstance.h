#pragma once

// ClientInstance: what the producers, consumers and admin objects of one client id share
// (RocketMQ's MQClientInstance): one RemotingClient (one connection per broker address,
// name-server failover), the route cache, the broker address table, the heartbeat, and the
// answers to the requests brokers send to clients (protocol.md §4.10).
//
//   ClientInstance::Lease lease = ClientInstance::acquire(config);   // shared per clientId
//   lease->registerProducer(group, producer);        // starts the timers on first use
//   lease.reset();                                   // the last lease shuts the instance down
//
// Routes: a topic is cached on first use and refreshed every pollNameServerInterval, and at once
// after a send or pull failure (refreshTopicRoute). Brokers that no cached route names any more
// are dropped and their connections closed. Heartbeats go to every master (and, when consumers
// are registered, every slave) every heartbeatBrokerInterval and at once when a consumer starts.
//
// Threads: the timers run on the instance's "qrocket-timer" thread; rebalances on
// "qrocket-rebal"; broker->client requests on a small pool ("qrocket-cb"); none on the remoting
// I/O thread. Every public method is thread-safe. Registered objects are held as weak_ptr: they
// own the instance (a Lease), not the other way round.
//
// Lifetime: the instance runs while a Lease on it exists. Dropping the last one shuts it down on
// the dropping thread before that returns (timers, pools and the I/O thread stopped and joined),
// so a program that shuts its producers and consumers down has no client thread left when it
// exits; the next acquire() of the same client id creates a new instance. Callbacks in flight may
// still hold the object (a shared_ptr) for a moment: it stays valid, but does nothing any more.
// If the last lease is dropped on one of the instance's own threads (a callback that shuts its
// producer down), the threads that cannot join themselves are left to finish on their own.

#include "clientlib/client/clientapi.h"
#include "clientlib/client/clientconfig.h"
#include "clientlib/client/topicpublishinfo.h"

#include <QByteArray>
#include <QHash>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace qrocket::client {

class Scheduler;
class WorkerPool;

/// What the instance needs of a producer.
class ProducerInner
{
public:
    virtual ~ProducerInner() = default;
    virtual QByteArray groupName() const = 0;
    /// CHECK_TRANSACTION_STATE from `brokerAddr` for a half message of this group (runs on the
    /// callback pool). Producers that are not transactional ignore it.
    virtual void checkTransactionState(const QByteArray &brokerAddr, MessageExt halfMessage,
        const protocol::CheckTransactionStateRequestHeader &header)
        = 0;
};

/// What the instance needs of a consumer.
class ConsumerInner
{
public:
    virtual ~ConsumerInner() = default;
    virtual QByteArray groupName() const = 0;
    /// The heartbeat's view of it (group, model, subscriptions).
    virtual protocol::ConsumerData consumerData() const = 0;
    virtual std::vector<QByteArray> subscribedTopics() const = 0;
    /// A subscribed topic's readable queues changed (or were first learnt).
    virtual void updateTopicSubscribeInfo(
        const QByteArray &topic, const std::vector<MessageQueue> &queues)
        = 0;
    virtual void doRebalance() = 0;
    virtual void persistConsumerOffset() = 0;
    /// RESET_CONSUMER_CLIENT_OFFSET: start again from these offsets.
    virtual void resetOffset(
        const QByteArray &topic, const std::map<MessageQueue, std::int64_t> &offsets)
        = 0;
    /// GET_CONSUMER_STATUS_FROM_CLIENT: the consumer's offsets of `topic`.
    virtual std::map<MessageQueue, std::int64_t> consumerOffsets(const QByteArray &topic) = 0;
    /// GET_CONSUMER_RUNNING_INFO body (ConsumerRunningInfo JSON).
    /// GET_CONSUMER_RUNNING_INFO's body; `jstack` goes in its "jstack" field (empty unless asked).
    virtual QByteArray runningInfoJson(const QByteArray &jstack) = 0;
    /// CONSUME_MESSAGE_DIRECTLY: consumes `msg` now; the ConsumeMessageDirectlyResult JSON.
    virtual QByteArray consumeMessageDirectly(const MessageExt &msg, const QByteArray &brokerName)
        = 0;
};

class ClientInstance : public std::enable_shared_from_this<ClientInstance>
{
    struct Private;

public:
    /// One user's hold on an instance (see Lifetime above). Move-only; reset() or destruction
    /// releases it.
    class Lease
    {
    public:
        Lease() = default;
        Lease(Lease &&other) noexcept : m_instance(std::move(other.m_instance)) { }
        Lease &operator=(Lease &&other) noexcept;
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;
        ~Lease() { reset(); }

        void reset();
        const std::shared_ptr<ClientInstance> &instance() const { return m_instance; }
        ClientInstance *operator->() const { return m_instance.get(); }
        explicit operator bool() const { return m_instance != nullptr; }

    private:
        friend class ClientInstance;
        explicit Lease(std::shared_ptr<ClientInstance> instance) : m_instance(std::move(instance))
        { }
        std::shared_ptr<ClientInstance> m_instance;
    };

    /// A lease on the instance of `config`'s client id, created (not started) if there is none
    /// or if the last one was shut down.
    static Lease acquire(const ClientConfig &config);
    ~ClientInstance();
    /// Stops the timers, the pools and the remoting client, and fails replies still awaited.
    /// Idempotent; the last Lease calls it. Afterwards requests fail with "client shut down".
    void shutdown();
    ClientInstance(const ClientInstance &) = delete;
    ClientInstance &operator=(const ClientInstance &) = delete;

    const QByteArray &clientId() const { return m_clientId; }
    const ClientConfig &config() const { return m_config; }
    ClientApi &api() { return *m_api; }
    remoting::RemotingClient &remoting() { return *m_remoting; }
    /// The timer thread (for the registered objects' own periodic work).
    Scheduler &scheduler() { return *m_scheduler; }

    /// InvalidArgument when the group is empty or already registered on this instance. Starts
    /// the timers on first registration.
    Status registerProducer(const QByteArray &group, std::weak_ptr<ProducerInner> producer);
    void unregisterProducer(const QByteArray &group);
    Status registerConsumer(const QByteArray &group, std::weak_ptr<ConsumerInner> consumer);
    void unregisterConsumer(const QByteArray &group);
    /// Starts the timers (idempotent); admin objects call it without registering.
    void start();

    // -- routes ----------------------------------------------------------------------------
    /// The cached publish info of `topic`, fetched from the name server when absent or
    /// `refresh`. When the name server does not know the topic and `defaultTopicQueueNums` > 0,
    /// the info is built from TBW102's route (the broker then creates the topic on first send)
    /// with fromDefaultTopic set. Errors: the name server's (TOPIC_NOT_EXIST included) or the
    /// transport's.
    Result<std::shared_ptr<const TopicPublishInfo>> publishInfo(
        const QByteArray &topic, bool refresh = false, int defaultTopicQueueNums = 0);
    /// The cached publish info of `topic` when it has queues, else null; never blocks on the
    /// name server (the async send's fast start).
    std::shared_ptr<const TopicPublishInfo> cachedPublishInfo(const QByteArray &topic) const;
    /// The route of `topic` from the name server now, and the cache updated with it.
    Result<protocol::TopicRouteData> refreshTopicRoute(const QByteArray &topic);
    /// The readable queues of `topic` (cached; fetched when absent).
    Result<std::vector<MessageQueue>> subscribeQueues(const QByteArray &topic);
    /// The master's address of `brokerName`, or a null QByteArray when unknown.
    QByteArray masterAddress(const QByteArray &brokerName) const;
    struct BrokerAddress
    {
        QByteArray address;
        bool slave = false;
    };
    /// The address of broker `brokerName` with id `brokerId`; unless `onlyThisBroker`, any
    /// other id of that broker when that one is not known (master first).
    std::optional<BrokerAddress> brokerAddress(
        const QByteArray &brokerName, std::int64_t brokerId, bool onlyThisBroker) const;
    /// Every broker address serving `topic` (for group-wide queries): each broker's master
    /// first, then its slaves, in the route's order; empty when none is known.
    std::vector<QByteArray> brokerAddressesOf(const QByteArray &topic);
    /// Every broker (name -> id -> address) of the cached routes.
    std::map<QByteArray, std::map<std::int64_t, QByteArray>> brokerAddressTable() const;

    // -- consumers -------------------------------------------------------------------------
    /// GET_CONSUMER_LIST_BY_GROUP at the brokers of `topic` (brokerAddressesOf), in turn until
    /// one names a member: the first error or empty answer does not end it.
    Result<std::vector<QByteArray>> consumerIdList(
        const QByteArray &topic, const QByteArray &group);
    /// Heartbeats to every broker now; with `wait`, returns once all answered (bounded by the
    /// API timeout) with the first error, if any.
    Status sendHeartbeatToAllBrokers(bool wait);
    /// Runs every consumer's rebalance soon, on the rebalance thread.
    void rebalanceImmediately();

    // -- request/reply ---------------------------------------------------------------------
    using ReplyCallback = std::function<void(Result<MessageExt>)>;
    /// Waits for the reply whose CORRELATION_ID is `correlationId` (PUSH_REPLY_MESSAGE_TO_CLIENT)
    /// for at most `timeoutMs`; the callback runs on the callback pool, exactly once.
    void expectReply(const QByteArray &correlationId, int timeoutMs, ReplyCallback callback);
    void cancelReply(const QByteArray &correlationId);

private:
    explicit ClientInstance(const ClientConfig &config);
    /// The one place that sees every request the instance sends (installed as its
    /// RemotingClientOptions::requestHook): every client request leaves through api(), whose
    /// invokeSync / invokeAsync / invokeOneway / invokeNameServerSync end in this instance's
    /// RemotingClient, which runs the hook on each (name-server failover attempts included) —
    /// producer sends, pulls, offsets, locks, heartbeats, unregistrations, transaction ends and
    /// every Admin call (Admin uses its instance's api()). Null when it has nothing to do.
    static std::function<void(RemotingCommand &)> outgoingRequestHook(const ClientConfig &config);
    void registerBrokerProcessors(); // brokerrequests.cpp
    void updateRoutesFromNameServer(); // routecache.cpp, as cleanOfflineBrokers and storeRoute
    void persistAllConsumerOffsets();
    void cleanOfflineBrokers();
    void storeRoute(const QByteArray &topic, const protocol::TopicRouteData &route);
    std::vector<std::shared_ptr<ConsumerInner>> consumers() const;
    std::shared_ptr<ConsumerInner> consumer(const QByteArray &group) const;
    std::vector<std::shared_ptr<ProducerInner>> producers() const;
    protocol::HeartbeatData heartbeatData() const;

    void releaseLease();

    const ClientConfig m_config;
    const QByteArray m_clientId;
    QByteArray m_registryKey;
    int m_leases = 0; // guarded by the registry's mutex
    std::atomic<bool> m_shutDown {false};
    std::unique_ptr<remoting::RemotingClient> m_remoting;
    std::unique_ptr<ClientApi> m_api;
    std::unique_ptr<Scheduler> m_scheduler;
    std::unique_ptr<Scheduler> m_rebalancer;
    std::shared_ptr<WorkerPool> m_callbackPool;
    std::unique_ptr<Private> d;
};

} // namespace qrocket::client
