#pragma once

// Internal to the Admin (admin.cpp and the adminops*.cpp files): one call's deadline and client
// instance, and the request plumbing every admin call is made of (parallel fan-out, peers of a
// topic or a cluster, errors prefixed with their peer). Not installed, not part of the API.
//
// Threads: a Call is used by the one thread that runs the call; the helpers block that thread
// (never the remoting I/O thread: Call::check() refuses it).

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/clientinstance.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/protocol/systemtopics.h"

#include <chrono>
#include <mutex>

namespace qrocket::client {

struct Admin::Core
{
    explicit Core(AdminOptions o) : options(std::move(o)) { }

    const AdminOptions options;
    mutable std::mutex mutex;
    ClientInstance::Lease lease; // guarded by mutex
    std::shared_ptr<WorkerPool> pool; // guarded by mutex
    bool started = false; // guarded by mutex
};

} // namespace qrocket::client

namespace qrocket::client::adminimpl {

using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;
using Clock = std::chrono::steady_clock;

using protocol::topics::kRetryPrefix;
inline constexpr const char *kOrderTopicConfigNamespace = "ORDER_TOPIC_CONFIG";
inline constexpr const char *kToolsConsumerGroup = "TOOLS_CONSUMER";

// -- one call: its deadline and the instance it runs on --------------------------------------

class Call
{
public:
    Call(Admin::Core &core, int timeoutMs)
        : m_timeoutMs(timeoutMs < 0 ? core.options.timeoutMs : timeoutMs)
        , m_deadline(Clock::now() + std::chrono::milliseconds(std::max(m_timeoutMs, 1)))
    {
        std::lock_guard lock(core.mutex);
        m_instance = core.lease.instance();
    }

    /// Unavailable when the admin is not started; Internal on the remoting I/O thread.
    Status check() const
    {
        if (!m_instance)
            return Status::unavailable(QStringLiteral("the admin is not started (or shut down)"));
        if (m_instance->remoting().isIoThread())
            return Status::internal(
                QStringLiteral("blocking admin call on the remoting I/O thread refused"));
        return {};
    }
    ClientInstance &instance() { return *m_instance; }
    ClientApi &api() { return m_instance->api(); }
    /// Milliseconds left, at least 1.
    int remaining() const
    {
        const auto left
            = std::chrono::duration_cast<std::chrono::milliseconds>(m_deadline - Clock::now());
        return static_cast<int>(std::max<std::int64_t>(left.count(), 1));
    }
    bool expired() const { return Clock::now() >= m_deadline; }
    Clock::time_point deadline() const { return m_deadline; }
    Status timedOut(const QString &what) const
    {
        return Status::timeout(
            QStringLiteral("%1: no answer within the %2 ms timeout").arg(what).arg(m_timeoutMs));
    }
    QList<QByteArray> nameServers() const { return m_instance->remoting().nameServerAddresses(); }

private:
    int m_timeoutMs;
    Clock::time_point m_deadline;
    std::shared_ptr<ClientInstance> m_instance;
};

/// `s` with "<name> (<addr>): " in front of its message, code kept.
struct Peer
{
    QByteArray name;
    QByteArray address;
};

struct Request
{
    Peer peer;
    RemotingCommand command;
};

/// Sends every request at once and waits for all answers (each bounded by the call's deadline;
/// RemotingClient completes every invocation exactly once).
/// `s` with "<name> (<addr>): " in front of its message, its code kept.
Status atPeer(const Status &s, const QByteArray &name, const QByteArray &addr);

/// Corruption naming the request whose answer did not parse.
Status corrupt(const char *what, const Status &s);

/// Sends every request at once and waits for every answer, bounded by the call's deadline; one
/// result per request, in order.
std::vector<Result<RemotingCommand>> invokeAll(Call &call, std::vector<Request> requests);

/// The answer when SUCCESS (or one of `alsoOk`), else its error prefixed with the peer.
Result<RemotingCommand> expect(
    Result<RemotingCommand> r, const Peer &peer, std::initializer_list<int> alsoOk = {});

/// One blocking request to a broker, checked by expect().
Result<RemotingCommand> invokeBroker(
    Call &call, const Peer &peer, RemotingCommand cmd, std::initializer_list<int> alsoOk = {});

/// One blocking request to the name servers (with failover), checked like expect().
Result<RemotingCommand> invokeNameServer(
    Call &call, RemotingCommand cmd, std::initializer_list<int> alsoOk = {});

/// `given`, else every configured name server; InvalidArgument when there is none.
Result<std::vector<QByteArray>> nameServerList(Call &call, const std::vector<QByteArray> &given);

/// make() to every name server in parallel; one outcome each (with the response's `countField`).
FanOutResult toAllNameServers(Call &call, const std::vector<QByteArray> &servers,
    const std::function<RemotingCommand()> &make, const char *countField = nullptr);

/// make(peer) to every peer in parallel; one outcome each.
FanOutResult toAllBrokers(Call &call, const std::vector<Peer> &peers,
    const std::function<RemotingCommand(const Peer &)> &make);

/// InvalidArgument when `value` is blank.
Status requireName(const QByteArray &value, const char *what);

/// GET_ROUTEINFO_BY_TOPIC (TOPIC_NOT_EXIST is a remote error 17).
Result<protocol::TopicRouteData> routeOf(Call &call, const QByteArray &topic);

/// The address BrokerData.selectBrokerAddr() picks: the master, else the lowest id.
QByteArray selectAddress(const protocol::BrokerData &b);

/// The broker that serves `queue` (its master, else the lowest id); NotFound when none does.
Result<Peer> queuePeer(Call &call, const MessageQueue &queue);

/// One peer per broker of the route.
std::vector<Peer> routePeers(const protocol::TopicRouteData &route);

/// routePeers() of the topic; NotFound when no broker serves it.
Result<std::vector<Peer>> topicPeers(Call &call, const QByteArray &topic);

/// Appends the peers of `from` whose address `to` lacks.
void addUnique(std::vector<Peer> &to, const std::vector<Peer> &from);

/// GET_BROKER_CLUSTER_INFO.
Result<protocol::ClusterInfo> clusterInfoOf(Call &call);

/// The masters (or every address, `slavesToo`) of a cluster's brokers, of every cluster when
/// `cluster` is empty; NotFound for an unknown cluster.
Result<std::vector<Peer>> clusterPeers(Call &call, const QByteArray &cluster, bool slavesToo);

/// The brokers a BrokerTarget names.
Result<std::vector<Peer>> targetPeers(Call &call, const BrokerTarget &target);

/// The broker name of an address, when the instance's routes know it (else empty).
QByteArray brokerNameOf(Call &call, const QByteArray &addr);

} // namespace qrocket::client::adminimpl
