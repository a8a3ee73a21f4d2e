#include "clientlib/client/admin/admincall.h"

#include <algorithm>
#include <condition_variable>

namespace qrocket::client::adminimpl {

Status atPeer(const Status &s, const QByteArray &name, const QByteArray &addr)
{
    if (s.isOk())
        return s;
    const QString who = name.isEmpty()
        ? QString::fromUtf8(addr)
        : QStringLiteral("%1 (%2)").arg(QString::fromUtf8(name), QString::fromUtf8(addr));
    const QString msg = who + QStringLiteral(": ") + s.message();
    if (s.code() == Status::Code::RemoteError)
        return Status::remote(s.remoteCode(), msg);
    return Status(s.code(), msg);
}

Status corrupt(const char *what, const Status &s)
{
    return Status::corruption(
        QStringLiteral("bad %1 answer: %2").arg(QLatin1String(what), s.message()));
}

/// A broker address and the broker it belongs to.
std::vector<Result<RemotingCommand>> invokeAll(Call &call, std::vector<Request> requests)
{
    struct Latch
    {
        std::mutex mutex;
        std::condition_variable done;
        std::size_t pending = 0;
        std::vector<std::optional<Result<RemotingCommand>>> results;
    };
    auto latch = std::make_shared<Latch>();
    latch->pending = requests.size();
    latch->results.resize(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        call.api().invokeAsync(requests[i].peer.address, std::move(requests[i].command),
            call.remaining(), [latch, i](Result<RemotingCommand> r) {
                std::lock_guard lock(latch->mutex);
                latch->results[i] = std::move(r);
                if (--latch->pending == 0)
                    latch->done.notify_all();
            });
    }
    std::vector<Result<RemotingCommand>> out;
    std::unique_lock lock(latch->mutex);
    // The remoting client times each invocation out itself; the grace only guards against a
    // completion that never comes.
    latch->done.wait_until(lock, call.deadline() + std::chrono::milliseconds(500),
        [&] { return latch->pending == 0; });
    out.reserve(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (latch->results[i])
            out.push_back(std::move(*latch->results[i]));
        else
            out.push_back(call.timedOut(QString::fromUtf8(requests[i].peer.address)));
    }
    return out;
}

/// The answer when SUCCESS (or one of `alsoOk`), else its error, prefixed with the peer.
Result<RemotingCommand> expect(
    Result<RemotingCommand> r, const Peer &peer, std::initializer_list<int> alsoOk)
{
    auto checked = ClientApi::expectSuccess(std::move(r), alsoOk);
    if (!checked)
        return atPeer(checked.error(), peer.name, peer.address);
    return checked;
}

Result<RemotingCommand> invokeBroker(
    Call &call, const Peer &peer, RemotingCommand cmd, std::initializer_list<int> alsoOk)
{
    return expect(
        call.api().invokeSync(peer.address, std::move(cmd), call.remaining()), peer, alsoOk);
}

Result<RemotingCommand> invokeNameServer(
    Call &call, RemotingCommand cmd, std::initializer_list<int> alsoOk)
{
    return ClientApi::expectSuccess(
        call.api().invokeNameServerSync(std::move(cmd), call.remaining()), alsoOk);
}

/// The name servers a call goes to: `given`, else every configured one.
Result<std::vector<QByteArray>> nameServerList(Call &call, const std::vector<QByteArray> &given)
{
    std::vector<QByteArray> out = given;
    if (out.empty()) {
        for (const QByteArray &a : call.nameServers())
            out.push_back(a);
    }
    if (out.empty())
        return Status::invalidArgument(
            QStringLiteral("no name server address (set namesrvAddr or NAMESRV_ADDR)"));
    return out;
}

/// Every name server gets `make()`; one outcome each.
FanOutResult toAllNameServers(Call &call, const std::vector<QByteArray> &servers,
    const std::function<RemotingCommand()> &make, const char *countField)
{
    std::vector<Request> requests;
    for (const QByteArray &addr : servers)
        requests.push_back({{QByteArray(), addr}, make()});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    FanOutResult out;
    for (std::size_t i = 0; i < servers.size(); ++i) {
        BrokerOutcome o;
        o.address = servers[i];
        auto r = expect(std::move(answers[i]), requests[i].peer);
        o.status = r.status();
        if (r && countField)
            o.topicCount = r->extInt(countField).value_or(0);
        out.outcomes.push_back(std::move(o));
    }
    return out;
}

/// Every peer gets `make(peer)`; one outcome each.
FanOutResult toAllBrokers(Call &call, const std::vector<Peer> &peers,
    const std::function<RemotingCommand(const Peer &)> &make)
{
    std::vector<Request> requests;
    for (const Peer &p : peers)
        requests.push_back({p, make(p)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    FanOutResult out;
    for (std::size_t i = 0; i < peers.size(); ++i)
        out.outcomes.push_back(
            {peers[i].name, peers[i].address, expect(std::move(answers[i]), peers[i]).status(), 0});
    return out;
}

// -- routes and clusters ---------------------------------------------------------------------

Status requireName(const QByteArray &value, const char *what)
{
    if (value.trimmed().isEmpty())
        return Status::invalidArgument(QStringLiteral("%1 is empty").arg(QLatin1String(what)));
    return {};
}

Result<protocol::TopicRouteData> routeOf(Call &call, const QByteArray &topic)
{
    if (Status s = requireName(topic, "topic"); !s)
        return s;
    return call.api().getTopicRoute(topic, call.remaining());
}

/// The broker RocketMQ's BrokerData.selectBrokerAddr() would ask: the master, else the lowest id.
QByteArray selectAddress(const protocol::BrokerData &b)
{
    const QByteArray master = b.masterAddr();
    if (!master.isEmpty())
        return master;
    return b.brokerAddrs.empty() ? QByteArray() : b.brokerAddrs.begin()->second;
}

Result<Peer> queuePeer(Call &call, const MessageQueue &queue)
{
    if (Status s = requireName(queue.topic, "topic"); !s)
        return s;
    if (Status s = requireName(queue.brokerName, "broker name"); !s)
        return s;
    auto route = routeOf(call, queue.topic);
    if (!route)
        return route.error();
    const auto b = std::find_if(route->brokerDatas.begin(), route->brokerDatas.end(),
        [&](const protocol::BrokerData &d) { return d.brokerName == queue.brokerName; });
    if (b == route->brokerDatas.end() || selectAddress(*b).isEmpty())
        return Status::notFound(
            QStringLiteral("broker %1 does not serve topic %2")
                .arg(QString::fromUtf8(queue.brokerName), QString::fromUtf8(queue.topic)));
    return Peer {queue.brokerName, selectAddress(*b)};
}

std::vector<Peer> routePeers(const protocol::TopicRouteData &route)
{
    std::vector<Peer> out;
    for (const protocol::BrokerData &b : route.brokerDatas) {
        const QByteArray addr = selectAddress(b);
        if (!addr.isEmpty())
            out.push_back({b.brokerName, addr});
    }
    return out;
}

Result<std::vector<Peer>> topicPeers(Call &call, const QByteArray &topic)
{
    auto route = routeOf(call, topic);
    if (!route)
        return route.error();
    std::vector<Peer> peers = routePeers(*route);
    if (peers.empty())
        return Status::notFound(
            QStringLiteral("no broker serves topic %1").arg(QString::fromUtf8(topic)));
    return peers;
}

void addUnique(std::vector<Peer> &to, const std::vector<Peer> &from)
{
    for (const Peer &p : from) {
        if (std::none_of(
                to.begin(), to.end(), [&](const Peer &q) { return q.address == p.address; }))
            to.push_back(p);
    }
}

Result<protocol::ClusterInfo> clusterInfoOf(Call &call)
{
    return call.api().getBrokerClusterInfo(call.remaining());
}

/// The masters (or, with `slavesToo`, every address) of `cluster`'s brokers; every cluster's
/// when `cluster` is empty. NotFound for an unknown cluster.
Result<std::vector<Peer>> clusterPeers(Call &call, const QByteArray &cluster, bool slavesToo)
{
    auto info = clusterInfoOf(call);
    if (!info)
        return info.error();
    std::vector<QByteArray> names;
    if (cluster.isEmpty()) {
        for (const auto &[name, data] : info->brokerAddrTable)
            names.push_back(name);
    } else {
        const auto it = info->clusterAddrTable.find(cluster);
        if (it == info->clusterAddrTable.end())
            return Status::notFound(QStringLiteral("cluster %1 not found on the name server")
                                        .arg(QString::fromUtf8(cluster)));
        names = it->second;
    }
    std::vector<Peer> out;
    for (const QByteArray &name : names) {
        const auto b = info->brokerAddrTable.find(name);
        if (b == info->brokerAddrTable.end())
            continue;
        for (const auto &[id, addr] : b->second.brokerAddrs) {
            if (slavesToo || id == protocol::kMasterBrokerId)
                out.push_back({name, addr});
        }
    }
    return out;
}

Result<std::vector<Peer>> targetPeers(Call &call, const BrokerTarget &target)
{
    if (!target.brokerAddr.isEmpty())
        return std::vector<Peer> {{QByteArray(), target.brokerAddr}};
    return clusterPeers(call, target.cluster, true);
}

/// The broker named by a store host, when the instance's routes know it.
QByteArray brokerNameOf(Call &call, const QByteArray &addr)
{
    for (const auto &[name, ids] : call.instance().brokerAddressTable()) {
        for (const auto &[id, a] : ids) {
            if (a == addr)
                return name;
        }
    }
    return {};
}

} // namespace qrocket::client::adminimpl
