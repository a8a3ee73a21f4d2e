// ClientInstance (clientinstance.h): the registry of instances, their lifecycle, the registered
// producers and consumers, the timers and the heartbeats, and the one hook on every outgoing
// request. The route cache is in routecache.cpp, the requests brokers send in brokerrequests.cpp.

#include "clientlib/client/clientinstance.h"

#include "clientlib/client/clientinstanceprivate.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/requestcode.h"

#include <algorithm>
#include <condition_variable>
#include <thread>

namespace qrocket::client {

using protocol::RequestCode;
using protocol::toInt;

namespace {

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

ClientInstance::Lease ClientInstance::acquire(const ClientConfig &config)
{
    // Keyed by the name servers too: an explicit instance name used for two clusters gives two
    // instances, never one that talks to the wrong cluster.
    const QByteArray id = config.buildClientId() + '|' + config.resolvedNamesrvAddr() + '|'
        + config.accessKey + '|' + config.tlsKey();
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
    options.requestHook = outgoingRequestHook(config);
    options.tls = config.tls;
    m_remoting = std::make_unique<remoting::RemotingClient>(options);
    m_remoting->setNameServerAddresses(config.resolvedNamesrvAddr());
    m_api = std::make_unique<ClientApi>(*m_remoting, config.language);
    m_scheduler = std::make_unique<Scheduler>("qrocket-timer");
    m_rebalancer = std::make_unique<Scheduler>("qrocket-rebal");
    m_callbackPool = std::make_shared<WorkerPool>("qrocket-cb", 2);
}

std::function<void(RemotingCommand &)> ClientInstance::outgoingRequestHook(
    const ClientConfig &config)
{
    // Today: ACL signing (RocketMQ's AclClientRPCHook) when the config has credentials.
    if (config.accessKey.isEmpty())
        return {};
    return [ak = config.accessKey, sk = config.secretKey, token = config.securityToken](
               RemotingCommand &request) { protocol::aclSign(request, ak, sk, token); };
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

} // namespace qrocket::client
