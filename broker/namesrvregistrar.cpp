#include "broker/namesrvregistrar.h"

#include "broker/common/brokercodes.h"
#include "broker/common/brokercontext.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/remoting/remotingclient.h"

#include <condition_variable>

namespace qrocket::broker {

using protocol::RemotingCommand;

NamesrvRegistrar::NamesrvRegistrar(BrokerContext &context)
    : m_ctx(context), m_client(std::make_unique<remoting::RemotingClient>([&context] {
        remoting::RemotingClientOptions o;
        o.threadName = QStringLiteral("qrocket-ns-io");
        if (context.config) {
            o.requestHook = context.config->innerRequestSigner();
            o.tls = context.config->tls; // tls.enable: TLS to the name servers
        }
        return o;
    }()))
{
    QObject::connect(
        m_client.get(), &remoting::RemotingClient::channelClosed, m_client.get(),
        [this](quint64, const QByteArray &address) { nameServerClosed(address); },
        Qt::DirectConnection);
}

NamesrvRegistrar::~NamesrvRegistrar()
{
    shutdown();
}

void NamesrvRegistrar::shutdown()
{
    if (m_client)
        m_client->shutdown();
}

void NamesrvRegistrar::setNameServers(const QByteArray &addressList)
{
    QList<QByteArray> list;
    for (const QByteArray &a : addressList.split(';')) {
        const QByteArray t = a.trimmed();
        if (!t.isEmpty())
            list.append(t);
    }
    std::lock_guard lock(m_mutex);
    m_nameServers = std::move(list);
}

QList<QByteArray> NamesrvRegistrar::nameServers() const
{
    std::lock_guard lock(m_mutex);
    return m_nameServers;
}

void NamesrvRegistrar::setBrokerAddresses(QByteArray brokerAddr, QByteArray haServerAddr)
{
    std::lock_guard lock(m_mutex);
    m_brokerAddr = std::move(brokerAddr);
    m_haServerAddr = std::move(haServerAddr);
}

QByteArray NamesrvRegistrar::masterAddr() const
{
    std::lock_guard lock(m_mutex);
    return m_masterAddr;
}

QByteArray NamesrvRegistrar::masterHaServerAddr() const
{
    std::lock_guard lock(m_mutex);
    return m_masterHaAddr;
}

std::map<QByteArray, TopicConfig> NamesrvRegistrar::registeredTable(
    const std::set<QByteArray> *only) const
{
    const int brokerPerm = m_ctx.config->brokerPermission;
    const bool restricted = !Perm::isWriteable(brokerPerm) || !Perm::isReadable(brokerPerm);
    std::map<QByteArray, TopicConfig> table;
    auto add = [&](TopicConfig t) {
        if (restricted) {
            // RocketMQ registers new TopicConfig(name, read, write, brokerPermission): filter
            // type, sysFlag and order back at their defaults.
            TopicConfig plain(t.topicName, t.readQueueNums, brokerPerm);
            plain.writeQueueNums = t.writeQueueNums;
            t = std::move(plain);
        }
        QByteArray name = t.topicName;
        table.insert_or_assign(std::move(name), std::move(t));
    };
    if (only) {
        for (const QByteArray &name : *only) {
            if (auto c = m_ctx.topics->find(name))
                add(std::move(*c));
        }
    } else {
        for (TopicConfig &t : m_ctx.topics->topics())
            add(std::move(t));
    }
    return table;
}

QByteArray NamesrvRegistrar::registerBody() const
{
    protocol::RegisterBrokerBody body;
    // The version first, then the table: the table is then at least as new as the version, so
    // a name server holding this version holds every change it counts.
    body.topicConfigSerializeWrapper.dataVersion = m_ctx.topics->dataVersion();
    body.topicConfigSerializeWrapper.topicConfigTable = registeredTable(nullptr);
    return body.toJson();
}

QByteArray NamesrvRegistrar::encodeBody(
    const std::set<QByteArray> *only, const DataVersion &version, bool *compressed) const
{
    protocol::RegisterBrokerBody body;
    // A full body: the version first, then the table (see registerBody()).
    body.topicConfigSerializeWrapper.dataVersion = only ? version : m_ctx.topics->dataVersion();
    body.topicConfigSerializeWrapper.topicConfigTable = registeredTable(only);
    *compressed = false;
    if (m_ctx.config->compressedRegister) {
        if (auto packed = body.encodeCompressed()) {
            *compressed = true;
            return std::move(packed).value();
        }
    }
    return body.toJson();
}

void NamesrvRegistrar::registerBrokerAll(bool forceRegister)
{
    for (const QByteArray &ns : nameServers()) {
        {
            std::lock_guard lock(m_mutex);
            Target &t = m_targets[ns];
            t.fullPending = true;
            t.forcePending = t.forcePending || forceRegister;
            t.suspended = false;
        }
        kick(ns);
    }
}

void NamesrvRegistrar::registerTopicsChanged(
    const QList<QByteArray> &topics, const DataVersion &version)
{
    if (topics.isEmpty())
        return;
    for (const QByteArray &ns : nameServers()) {
        {
            std::lock_guard lock(m_mutex);
            if (m_brokerAddr.isEmpty())
                return; // not started: the first full registration carries everything
            Target &t = m_targets[ns];
            if (!t.fullPending) {
                if (t.topics.empty() || version.counter > t.topicsVersion.counter)
                    t.topicsVersion = version;
                t.topics.insert(topics.cbegin(), topics.cend());
            }
        }
        kick(ns);
    }
}

void NamesrvRegistrar::kick(const QByteArray &ns)
{
    Kind kind = Kind::Incremental;
    std::set<QByteArray> topics;
    DataVersion version;
    bool newVersion = false;
    {
        std::lock_guard lock(m_mutex);
        Target &t = m_targets[ns];
        if (t.inFlight || t.suspended)
            return;
        if (t.fullPending || (!t.topics.empty() && !t.fullAcked)) {
            newVersion = t.recovering;
            kind = t.forcePending || newVersion ? Kind::Full : Kind::Query;
            t.fullPending = false;
            t.forcePending = false;
            t.recovering = false;
            t.topics.clear(); // the full table carries them
        } else if (!t.topics.empty()) {
            topics.swap(t.topics);
            version = t.topicsVersion;
        } else {
            return;
        }
        t.inFlight = true;
    }
    switch (kind) {
    case Kind::Query:
        queryThenRegister(ns);
        return;
    case Kind::Full:
        // After a failure the name server may hold a version whose changes it has not all got
        // (the registration that failed brought one): a new version makes it take the table.
        if (newVersion)
            m_ctx.topics->nextDataVersion();
        registerTo(ns, nullptr);
        return;
    case Kind::Incremental:
        registerTo(ns, &topics, version);
        return;
    }
}

void NamesrvRegistrar::finished(const QByteArray &ns, bool ok, bool fullTaken)
{
    {
        std::lock_guard lock(m_mutex);
        Target &t = m_targets[ns];
        t.inFlight = false;
        if (ok) {
            t.fullAcked = t.fullAcked || fullTaken;
        } else {
            // Nothing more until the next registerBrokerAll(), which is then a full one: no
            // retry storm against a name server that is down.
            t.suspended = true;
            t.fullPending = true;
            t.recovering = true;
            t.fullAcked = false;
            t.topics.clear();
        }
    }
    if (ok)
        kick(ns);
}

void NamesrvRegistrar::nameServerClosed(const QByteArray &ns)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_targets.find(ns);
    if (it != m_targets.end())
        it->second.fullAcked = false;
}

static RemotingCommand brokerRequest(
    int code, const BrokerConfig &config, const QByteArray &brokerAddr)
{
    RemotingCommand request = RemotingCommand::createRequest(code);
    request.setExt("brokerId", config.brokerId);
    request.setExt("clusterName", config.brokerClusterName.toUtf8());
    request.setExt("brokerAddr", brokerAddr);
    request.setExt("brokerName", config.brokerName.toUtf8());
    return request;
}

void NamesrvRegistrar::queryRoute(const QByteArray &topic, int timeoutMs, RouteCallback done)
{
    queryRouteFrom(nameServers(), 0, topic, timeoutMs, std::move(done));
}

void NamesrvRegistrar::queryRouteFrom(
    QList<QByteArray> servers, qsizetype index, QByteArray topic, int timeoutMs, RouteCallback done)
{
    if (index >= servers.size()) {
        done(std::nullopt);
        return;
    }
    RemotingCommand request
        = RemotingCommand::createRequest(toInt(RequestCode::GetRouteInfoByTopic));
    request.setExt("topic", topic);
    const QByteArray ns = servers[index];
    m_client->invokeAsync(ns, std::move(request), timeoutMs,
        [this, servers = std::move(servers), index, topic, timeoutMs, done = std::move(done)](
            Result<RemotingCommand> r) mutable {
            if (!r) { // unreachable or timed out: the next name server
                queryRouteFrom(
                    std::move(servers), index + 1, std::move(topic), timeoutMs, std::move(done));
                return;
            }
            if (r->code != 0) {
                done(std::nullopt);
                return;
            }
            Result<protocol::TopicRouteData> route = protocol::TopicRouteData::fromJson(r->body);
            done(route ? std::optional(std::move(route).value()) : std::nullopt);
        });
}

void NamesrvRegistrar::queryThenRegister(const QByteArray &ns)
{
    QByteArray brokerAddr;
    {
        std::lock_guard lock(m_mutex);
        brokerAddr = m_brokerAddr;
    }
    RemotingCommand request
        = brokerRequest(toInt(RequestCode::QueryDataVersion), *m_ctx.config, brokerAddr);
    request.body = m_ctx.topics->dataVersion().toJson();
    const int timeout = m_ctx.config->registerBrokerTimeoutMills;
    m_client->invokeAsync(ns, std::move(request), timeout, [this, ns](Result<RemotingCommand> r) {
        // changed=false: the name server holds this version (and refreshed our entry).
        if (r && r->code == 0 && r->extBool("changed") == std::optional<bool>(false)) {
            m_skipped.fetch_add(1);
            finished(ns, true, true);
            return;
        }
        registerTo(ns, nullptr); // unknown, failed or changed: register in full
    });
}

void NamesrvRegistrar::registerTo(
    const QByteArray &ns, const std::set<QByteArray> *topics, const DataVersion &version)
{
    QByteArray brokerAddr, haAddr;
    {
        std::lock_guard lock(m_mutex);
        brokerAddr = m_brokerAddr;
        haAddr = m_haServerAddr;
    }
    const bool full = topics == nullptr;
    bool compressed = false;
    RemotingCommand request
        = brokerRequest(toInt(RequestCode::RegisterBroker), *m_ctx.config, brokerAddr);
    request.body = encodeBody(topics, version, &compressed);
    request.setExt("haServerAddr", haAddr);
    request.setExtBool("compressed", compressed);
    if (const int grpcPort = m_grpcPort.load(); grpcPort > 0)
        request.setExt("grpcPort", static_cast<std::int64_t>(grpcPort));
    if (!full) // QRocket's name server then keeps the topics missing from the body
        request.setExtBool("incremental", true);
    request.setExt("bodyCrc32", static_cast<std::int64_t>(crc32Masked(request.body)));
    (full ? m_fullSent : m_incrementalSent).fetch_add(1);
    m_bodyBytes.fetch_add(request.body.size());
    const int timeout = m_ctx.config->registerBrokerTimeoutMills;
    m_client->invokeAsync(
        ns, std::move(request), timeout, [this, ns, full](Result<RemotingCommand> r) {
            const bool ok = r && r->code == 0;
            bool wasFailing = false;
            {
                std::lock_guard lock(m_mutex);
                wasFailing = m_failing.contains(ns);
                if (ok) {
                    if (const QByteArray *master = r->ext("masterAddr"))
                        m_masterAddr = *master;
                    if (const QByteArray *ha = r->ext("haServerAddr"))
                        m_masterHaAddr = *ha;
                    if (wasFailing)
                        m_failing.removeAll(ns);
                } else if (!wasFailing) {
                    m_failing.append(ns);
                }
            }
            if (ok) {
                m_registrations.fetch_add(1);
                // The name server's ORDER_TOPIC_CONFIG table (no body while that namespace is
                // empty): RocketMQ marks exactly those topics as order topics.
                if (!r->body.isEmpty()) {
                    if (auto table = protocol::KVTable::fromJson(r->body)) {
                        QList<QByteArray> orderTopics;
                        for (const auto &entry : table->table)
                            orderTopics.append(entry.first);
                        m_ctx.topics->updateOrderTopics(orderTopics);
                    }
                }
                if (wasFailing || m_registrations.load() == 1)
                    qCInfo(lcBroker) << "registered with name server" << ns;
            } else if (!wasFailing) {
                qCWarning(lcBroker).noquote() << "register to name server" << ns << "failed:"
                                              << (r ? QStringLiteral("code %1 %2")
                                                             .arg(r->code)
                                                             .arg(QString::fromUtf8(r->remark))
                                                    : r.error().message());
            }
            finished(ns, ok, full);
        });
}

void NamesrvRegistrar::unregisterBrokerAll(int timeoutMs)
{
    const QList<QByteArray> servers = nameServers();
    if (servers.isEmpty())
        return;
    QByteArray brokerAddr;
    {
        std::lock_guard lock(m_mutex);
        brokerAddr = m_brokerAddr;
    }
    struct Latch
    {
        std::mutex mutex;
        std::condition_variable cv;
        int pending = 0;
    };
    auto latch = std::make_shared<Latch>();
    latch->pending = static_cast<int>(servers.size());
    for (const QByteArray &ns : servers) {
        RemotingCommand request
            = brokerRequest(toInt(RequestCode::UnregisterBroker), *m_ctx.config, brokerAddr);
        m_client->invokeAsync(
            ns, std::move(request), timeoutMs, [latch, ns](Result<RemotingCommand> r) {
                if (r && r->code == 0)
                    qCInfo(lcBroker) << "unregistered from name server" << ns;
                else
                    qCWarning(lcBroker) << "unregister from name server" << ns << "failed";
                std::lock_guard lock(latch->mutex);
                if (--latch->pending == 0)
                    latch->cv.notify_all();
            });
    }
    std::unique_lock lock(latch->mutex);
    latch->cv.wait_for(
        lock, std::chrono::milliseconds(timeoutMs + 500), [&latch] { return latch->pending == 0; });
}

} // namespace qrocket::broker
