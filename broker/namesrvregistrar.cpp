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
{ }

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

QByteArray NamesrvRegistrar::registerBody() const
{
    const int brokerPerm = m_ctx.config->brokerPermission;
    const bool restricted = !Perm::isWriteable(brokerPerm) || !Perm::isReadable(brokerPerm);
    protocol::RegisterBrokerBody body;
    body.topicConfigSerializeWrapper.dataVersion = m_ctx.topics->dataVersion();
    auto &table = body.topicConfigSerializeWrapper.topicConfigTable;
    for (TopicConfig &t : m_ctx.topics->topics()) {
        if (restricted) {
            // RocketMQ registers new TopicConfig(name, read, write, brokerPermission): filter
            // type, sysFlag and order back at their defaults.
            TopicConfig plain(t.topicName, t.readQueueNums, brokerPerm);
            plain.writeQueueNums = t.writeQueueNums;
            t = std::move(plain);
        }
        QByteArray name = t.topicName;
        table.insert_or_assign(std::move(name), std::move(t));
    }
    return body.toJson();
}

void NamesrvRegistrar::registerBrokerAll(bool forceRegister)
{
    const QList<QByteArray> servers = nameServers();
    if (servers.isEmpty())
        return;
    const QByteArray body = registerBody();
    const DataVersion version = m_ctx.topics->dataVersion();
    for (const QByteArray &ns : servers) {
        if (forceRegister)
            registerTo(ns, body);
        else
            queryThenRegister(ns, body, version);
    }
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

void NamesrvRegistrar::queryThenRegister(
    const QByteArray &ns, const QByteArray &body, const DataVersion &version)
{
    QByteArray brokerAddr;
    {
        std::lock_guard lock(m_mutex);
        brokerAddr = m_brokerAddr;
    }
    RemotingCommand request
        = brokerRequest(toInt(RequestCode::QueryDataVersion), *m_ctx.config, brokerAddr);
    request.body = version.toJson();
    const int timeout = m_ctx.config->registerBrokerTimeoutMills;
    m_client->invokeAsync(
        ns, std::move(request), timeout, [this, ns, body](Result<RemotingCommand> r) {
            // Unknown or failed: register; changed=false: the name server refreshed our entry.
            if (r && r->code == 0 && r->extBool("changed") == std::optional<bool>(false))
                return;
            registerTo(ns, body);
        });
}

void NamesrvRegistrar::registerTo(const QByteArray &ns, const QByteArray &body)
{
    QByteArray brokerAddr, haAddr;
    {
        std::lock_guard lock(m_mutex);
        brokerAddr = m_brokerAddr;
        haAddr = m_haServerAddr;
    }
    RemotingCommand request
        = brokerRequest(toInt(RequestCode::RegisterBroker), *m_ctx.config, brokerAddr);
    request.setExt("haServerAddr", haAddr);
    request.setExtBool("compressed", false);
    request.setExt("bodyCrc32", static_cast<std::int64_t>(crc32Masked(body)));
    request.body = body;
    const int timeout = m_ctx.config->registerBrokerTimeoutMills;
    m_client->invokeAsync(ns, std::move(request), timeout, [this, ns](Result<RemotingCommand> r) {
        std::lock_guard lock(m_mutex);
        const bool wasFailing = m_failing.contains(ns);
        if (r && r->code == 0) {
            m_registrations.fetch_add(1);
            if (const QByteArray *master = r->ext("masterAddr"))
                m_masterAddr = *master;
            if (const QByteArray *ha = r->ext("haServerAddr"))
                m_masterHaAddr = *ha;
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
            if (wasFailing)
                m_failing.removeAll(ns);
            if (wasFailing || m_registrations.load() == 1)
                qCInfo(lcBroker) << "registered with name server" << ns;
            return;
        }
        if (!wasFailing) {
            m_failing.append(ns);
            qCWarning(lcBroker).noquote()
                << "register to name server" << ns << "failed:"
                << (r ? QStringLiteral("code %1 %2").arg(r->code).arg(QString::fromUtf8(r->remark))
                      : r.error().message());
        }
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
