#include "clientlib/client/admin/adminops.h"

#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/headers/queryheaders.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/popcodes.h"

#include <algorithm>
#include <set>

namespace qrocket::client::adminimpl {

namespace {

/// A request without header fields to one broker, answered with T's JSON body.
template<typename T>
Result<T> brokerBody(Call &call, const QByteArray &addr, RequestCode code, const char *name)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    auto r = invokeBroker(call, {{}, addr}, call.api().request(toInt(code)));
    if (!r)
        return r.error();
    auto body = T::fromJson(r->body);
    if (!body)
        return corrupt(name, body.error());
    return body;
}

} // namespace

// -- the calls -------------------------------------------------------------------------------

Result<protocol::ClusterInfo> doClusterInfo(Call &call)
{
    return clusterInfoOf(call);
}

Result<admin::BrokerRuntimeInfo> doBrokerRuntimeInfo(Call &call, const QByteArray &addr)
{
    return brokerBody<admin::BrokerRuntimeInfo>(
        call, addr, RequestCode::GetBrokerRuntimeInfo, "GET_BROKER_RUNTIME_INFO");
}

Result<admin::HARuntimeInfo> doBrokerHaStatus(Call &call, const QByteArray &addr)
{
    return brokerBody<admin::HARuntimeInfo>(
        call, addr, RequestCode::GetBrokerHaStatus, "GET_BROKER_HA_STATUS");
}

Result<admin::EpochEntryCache> doBrokerEpochCache(Call &call, const QByteArray &addr)
{
    return brokerBody<admin::EpochEntryCache>(
        call, addr, RequestCode::GetBrokerEpochCache, "GET_BROKER_EPOCH_CACHE");
}

Result<ClusterOverview> doClusterOverview(Call &call, bool withRuntimeInfo)
{
    auto info = clusterInfoOf(call);
    if (!info)
        return info.error();
    ClusterOverview out;
    out.info = *info;
    for (const auto &[cluster, names] : info->clusterAddrTable) {
        for (const QByteArray &name : names) {
            const auto b = info->brokerAddrTable.find(name);
            if (b == info->brokerAddrTable.end())
                continue;
            for (const auto &[id, addr] : b->second.brokerAddrs) {
                BrokerNode node;
                node.cluster = cluster;
                node.brokerName = name;
                node.brokerId = id;
                node.address = addr;
                out.nodes.push_back(std::move(node));
            }
        }
    }
    std::sort(out.nodes.begin(), out.nodes.end(), [](const BrokerNode &a, const BrokerNode &b) {
        return std::tie(a.cluster, a.brokerName, a.brokerId)
            < std::tie(b.cluster, b.brokerName, b.brokerId);
    });
    if (!withRuntimeInfo || out.nodes.empty())
        return out;
    std::vector<Request> requests;
    for (const BrokerNode &n : out.nodes)
        requests.push_back({{n.brokerName, n.address},
            call.api().request(toInt(RequestCode::GetBrokerRuntimeInfo))});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    for (std::size_t i = 0; i < out.nodes.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r) {
            out.nodes[i].runtimeStatus = r.error();
            continue;
        }
        auto kv = admin::BrokerRuntimeInfo::fromJson(r->body);
        if (kv)
            out.nodes[i].runtimeInfo = std::move(kv).value();
        else
            out.nodes[i].runtimeStatus = corrupt("GET_BROKER_RUNTIME_INFO", kv.error());
    }
    return out;
}

Result<admin::BrokerLiveness> doBrokerLiveness(Call &call, const QByteArray &given)
{
    const QByteArray addr
        = given.isEmpty() ? call.instance().remoting().currentNameServer() : given;
    if (addr.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("no name server address (set namesrvAddr or NAMESRV_ADDR)"));
    // A Java name server does not answer requests it does not know: the cluster-info probe
    // beside it tells "silent because stock" from "down".
    std::vector<Request> requests;
    requests.push_back(
        {{{}, addr}, call.api().request(protocol::extensioncode::kGetBrokerLiveness)});
    requests.push_back({{{}, addr}, call.api().request(toInt(RequestCode::GetBrokerClusterInfo))});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, std::move(requests));
    const QString notSupported = QStringLiteral(
        "%1: broker liveness is not supported by this name server (a QRocket extension; a stock "
        "RocketMQ name server does not have it)")
                                     .arg(QString::fromUtf8(addr));
    Result<RemotingCommand> &live = answers[0];
    if (!live) {
        if (live.error().code() == Status::Code::Timeout && answers[1].has_value())
            return Status::notSupported(notSupported);
        return atPeer(live.error(), {}, addr);
    }
    if (live->code == toInt(ResponseCode::RequestCodeNotSupported))
        return Status::notSupported(notSupported);
    auto ok = expect(std::move(live), {{}, addr});
    if (!ok)
        return ok.error();
    auto body = admin::BrokerLiveness::fromJson(ok->body);
    if (!body)
        return corrupt("broker liveness", body.error());
    return body;
}

Result<admin::BrokerRuntimeInfo> doNamesrvRuntimeInfo(Call &call, const QByteArray &given)
{
    const QByteArray addr
        = given.isEmpty() ? call.instance().remoting().currentNameServer() : given;
    if (addr.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("no name server address (set namesrvAddr or NAMESRV_ADDR)"));
    std::vector<Request> requests;
    requests.push_back(
        {{{}, addr}, call.api().request(protocol::extensioncode::kGetNamesrvRuntimeInfo)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, std::move(requests));
    Result<RemotingCommand> &r = answers[0];
    if (!r)
        return atPeer(r.error(), {}, addr);
    if (r->code == toInt(ResponseCode::RequestCodeNotSupported))
        return Status::notSupported(
            QStringLiteral("%1: runtime info is not supported by this name server (a QRocket "
                           "extension; a stock RocketMQ name server does not have it)")
                .arg(QString::fromUtf8(addr)));
    auto ok = expect(std::move(r), {{}, addr});
    if (!ok)
        return ok.error();
    auto body = admin::BrokerRuntimeInfo::fromJson(ok->body);
    if (!body)
        return corrupt("name server runtime info", body.error());
    return body;
}

Result<admin::BrokerStatsData> doBrokerStatsData(
    Call &call, const QByteArray &addr, const QByteArray &name, const QByteArray &key)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    RemotingCommand cmd = call.api().request(toInt(RequestCode::ViewBrokerStatsData));
    cmd.setExt(QByteArrayLiteral("statsName"), name);
    cmd.setExt(QByteArrayLiteral("statsKey"), key);
    auto r = invokeBroker(call, {{}, addr}, std::move(cmd));
    if (!r)
        return r.error();
    auto body = admin::BrokerStatsData::fromJson(r->body);
    if (!body)
        return corrupt("VIEW_BROKER_STATS_DATA", body.error());
    return body;
}

Result<std::vector<QByteArray>> topicListBody(Result<RemotingCommand> r, const char *what)
{
    if (!r)
        return r.error();
    auto list = protocol::TopicList::fromJson(r->body);
    if (!list)
        return corrupt(what, list.error());
    return std::move(list->topicList);
}

Result<std::vector<QByteArray>> doTopicList(Call &call)
{
    return topicListBody(invokeNameServer(call,
                             call.api().request(toInt(RequestCode::GetAllTopicListFromNameServer))),
        "GET_ALL_TOPIC_LIST_FROM_NAMESERVER");
}

Result<std::vector<QByteArray>> doTopicListByCluster(Call &call, const QByteArray &cluster)
{
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    protocol::GetTopicsByClusterRequestHeader h;
    h.cluster = cluster;
    return topicListBody(
        invokeNameServer(call, call.api().request(toInt(RequestCode::GetTopicsByCluster), h)),
        "GET_TOPICS_BY_CLUSTER");
}

Result<std::vector<QByteArray>> doSystemTopicList(Call &call)
{
    auto r
        = invokeNameServer(call, call.api().request(toInt(RequestCode::GetSystemTopicListFromNs)));
    if (!r)
        return r.error();
    auto list = protocol::TopicList::fromJson(r->body);
    if (!list)
        return corrupt("GET_SYSTEM_TOPIC_LIST_FROM_NS", list.error());
    std::set<QByteArray> topics(list->topicList.begin(), list->topicList.end());
    if (!list->brokerAddr.isEmpty()) {
        auto b = invokeBroker(call, {{}, list->brokerAddr},
            call.api().request(toInt(RequestCode::GetSystemTopicListFromBroker)));
        if (!b)
            return b.error();
        auto fromBroker = protocol::TopicList::fromJson(b->body);
        if (!fromBroker)
            return corrupt("GET_SYSTEM_TOPIC_LIST_FROM_BROKER", fromBroker.error());
        topics.insert(fromBroker->topicList.begin(), fromBroker->topicList.end());
    }
    return std::vector<QByteArray>(topics.begin(), topics.end());
}

Result<admin::TopicStatsTable> doTopicStats(Call &call, const QByteArray &topic)
{
    auto peers = topicPeers(call, topic);
    if (!peers)
        return peers.error();
    protocol::GetTopicStatsInfoRequestHeader h;
    h.topic = topic;
    std::vector<Request> requests;
    for (const Peer &p : *peers)
        requests.push_back({p, call.api().request(toInt(RequestCode::GetTopicStatsInfo), h)});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    admin::TopicStatsTable out;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
        auto table = admin::TopicStatsTable::fromJson(r->body);
        if (!table)
            return atPeer(corrupt("GET_TOPIC_STATS_INFO", table.error()), requests[i].peer.name,
                requests[i].peer.address);
        out.offsetTable.merge(table->offsetTable);
    }
    return out;
}

Result<protocol::TopicConfigSerializeWrapper> doAllTopicConfig(Call &call, const QByteArray &addr)
{
    return brokerBody<protocol::TopicConfigSerializeWrapper>(
        call, addr, RequestCode::GetAllTopicConfig, "GET_ALL_TOPIC_CONFIG");
}

Result<protocol::TopicConfig> doTopicConfig(
    Call &call, const QByteArray &addr, const QByteArray &topic)
{
    if (Status s = requireName(topic, "topic"); !s)
        return s;
    auto all = doAllTopicConfig(call, addr);
    if (!all)
        return all.error();
    const auto it = all->topicConfigTable.find(topic);
    if (it == all->topicConfigTable.end())
        return Status::notFound(QStringLiteral("%1: no topic %2 on this broker")
                                    .arg(QString::fromUtf8(addr), QString::fromUtf8(topic)));
    return it->second;
}

RemotingCommand createTopicRequest(
    Call &call, const protocol::TopicConfig &c, const QByteArray &attributes)
{
    protocol::CreateTopicRequestHeader h;
    h.topic = c.topicName;
    h.defaultTopic = QByteArrayLiteral("TBW102");
    h.readQueueNums = c.readQueueNums;
    h.writeQueueNums = c.writeQueueNums;
    h.perm = c.perm;
    h.topicFilterType = protocol::topicFilterTypeName(c.topicFilterType);
    h.topicSysFlag = c.topicSysFlag;
    h.order = c.order;
    // Not c.attributes: those are the topic's state, this is a change to it. Without one the
    // field stays out (a 4.9 broker's request as before; a 5.x broker keeps the attributes).
    if (!attributes.isEmpty())
        h.attributes = attributes;
    return call.api().request(toInt(RequestCode::UpdateAndCreateTopic), h);
}

Status checkTopicConfig(const protocol::TopicConfig &c)
{
    if (Status s = requireName(c.topicName, "topic"); !s)
        return s;
    if (c.readQueueNums < 0 || c.writeQueueNums < 0)
        return Status::invalidArgument(QStringLiteral("negative queue count"));
    return {};
}

Status doCreateTopic(Call &call, const QByteArray &addr, const protocol::TopicConfig &c,
    const QByteArray &attributes)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = checkTopicConfig(c); !s)
        return s;
    return invokeBroker(call, {{}, addr}, createTopicRequest(call, c, attributes)).status();
}

RemotingCommand putKvRequest(
    Call &call, const QByteArray &ns, const QByteArray &key, const QByteArray &value)
{
    protocol::PutKVConfigRequestHeader h;
    h.nameSpace = ns;
    h.key = key;
    h.value = value;
    return call.api().request(toInt(RequestCode::PutKvConfig), h);
}

RemotingCommand deleteKvRequest(Call &call, const QByteArray &ns, const QByteArray &key)
{
    protocol::DeleteKVConfigRequestHeader h;
    h.nameSpace = ns;
    h.key = key;
    return call.api().request(toInt(RequestCode::DeleteKvConfig), h);
}

Result<FanOutResult> doCreateTopicInCluster(Call &call, const QByteArray &cluster,
    const protocol::TopicConfig &c, const QByteArray &attributes)
{
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    if (Status s = checkTopicConfig(c); !s)
        return s;
    auto masters = clusterPeers(call, cluster, false);
    if (!masters)
        return masters.error();
    FanOutResult out = toAllBrokers(
        call, *masters, [&](const Peer &) { return createTopicRequest(call, c, attributes); });
    if (c.order) {
        QByteArray conf;
        for (const Peer &p : *masters) {
            if (!conf.isEmpty())
                conf += ';';
            conf += p.name + ':' + QByteArray::number(c.writeQueueNums);
        }
        auto servers = nameServerList(call, {});
        if (!servers)
            return servers.error();
        FanOutResult kv = toAllNameServers(call, *servers,
            [&] { return putKvRequest(call, kOrderTopicConfigNamespace, c.topicName, conf); });
        out.outcomes.insert(out.outcomes.end(), kv.outcomes.begin(), kv.outcomes.end());
    }
    return out;
}

Result<FanOutResult> doDeleteTopic(Call &call, const QByteArray &topic, const QByteArray &cluster)
{
    if (Status s = requireName(topic, "topic"); !s)
        return s;
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    auto masters = clusterPeers(call, cluster, false);
    if (!masters)
        return masters.error();
    protocol::DeleteTopicRequestHeader bh;
    bh.topic = topic;
    FanOutResult out = toAllBrokers(call, *masters, [&](const Peer &) {
        return call.api().request(toInt(RequestCode::DeleteTopicInBroker), bh);
    });
    auto servers = nameServerList(call, {});
    if (!servers)
        return servers.error();
    protocol::DeleteTopicFromNamesrvRequestHeader nh;
    nh.topic = topic;
    nh.clusterName = cluster;
    FanOutResult ns = toAllNameServers(call, *servers,
        [&] { return call.api().request(toInt(RequestCode::DeleteTopicInNamesrv), nh); });
    out.outcomes.insert(out.outcomes.end(), ns.outcomes.begin(), ns.outcomes.end());
    // The order-topic entry: absent for most topics, so its outcome is not reported.
    (void)toAllNameServers(
        call, *servers, [&] { return deleteKvRequest(call, kOrderTopicConfigNamespace, topic); });
    return out;
}

RemotingCommand groupRequest(Call &call, const admin::SubscriptionGroupConfig &c)
{
    RemotingCommand cmd = call.api().request(toInt(RequestCode::UpdateAndCreateSubscriptionGroup));
    cmd.body = c.toJson();
    return cmd;
}

RemotingCommand deleteGroupRequest(Call &call, const QByteArray &group, bool removeOffset)
{
    protocol::DeleteSubscriptionGroupRequestHeader h;
    h.groupName = group;
    h.removeOffset = removeOffset;
    return call.api().request(toInt(RequestCode::DeleteSubscriptionGroup), h);
}

Status doCreateGroup(Call &call, const QByteArray &addr, const admin::SubscriptionGroupConfig &c)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = requireName(c.groupName, "group"); !s)
        return s;
    return invokeBroker(call, {{}, addr}, groupRequest(call, c)).status();
}

Result<FanOutResult> doCreateGroupInCluster(
    Call &call, const QByteArray &cluster, const admin::SubscriptionGroupConfig &c)
{
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    if (Status s = requireName(c.groupName, "group"); !s)
        return s;
    auto masters = clusterPeers(call, cluster, false);
    if (!masters)
        return masters.error();
    return toAllBrokers(call, *masters, [&](const Peer &) { return groupRequest(call, c); });
}

Status doDeleteGroup(Call &call, const QByteArray &addr, const QByteArray &group, bool removeOffset)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = requireName(group, "group"); !s)
        return s;
    return invokeBroker(call, {{}, addr}, deleteGroupRequest(call, group, removeOffset)).status();
}

Result<FanOutResult> doDeleteGroupInCluster(
    Call &call, const QByteArray &cluster, const QByteArray &group, bool removeOffset)
{
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    if (Status s = requireName(group, "group"); !s)
        return s;
    auto masters = clusterPeers(call, cluster, false);
    if (!masters)
        return masters.error();
    return toAllBrokers(call, *masters,
        [&](const Peer &) { return deleteGroupRequest(call, group, removeOffset); });
}

Result<admin::SubscriptionGroupWrapper> doAllGroups(Call &call, const QByteArray &addr)
{
    return brokerBody<admin::SubscriptionGroupWrapper>(
        call, addr, RequestCode::GetAllSubscriptionGroupConfig, "GET_ALL_SUBSCRIPTIONGROUP_CONFIG");
}

namespace {

Status checkRequestMode(const protocol::SetMessageRequestModeRequestBody &m)
{
    if (Status s = requireName(m.topic, "topic"); !s)
        return s;
    if (Status s = requireName(m.consumerGroup, "group"); !s)
        return s;
    if (m.mode != "PULL" && m.mode != "POP")
        return Status::invalidArgument(
            QStringLiteral("mode must be PULL or POP, not %1").arg(QString::fromUtf8(m.mode)));
    if (m.popShareQueueNum < 0)
        return Status::invalidArgument(QStringLiteral("popShareQueueNum is negative"));
    return {};
}

} // namespace

RemotingCommand requestModeRequest(Call &call, const protocol::SetMessageRequestModeRequestBody &m)
{
    RemotingCommand cmd = call.api().request(protocol::popcode::SetMessageRequestMode);
    cmd.body = m.toJson();
    return cmd;
}

Status doSetRequestMode(
    Call &call, const QByteArray &addr, const protocol::SetMessageRequestModeRequestBody &m)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    if (Status s = checkRequestMode(m); !s)
        return s;
    return invokeBroker(call, {{}, addr}, requestModeRequest(call, m)).status();
}

Result<FanOutResult> doSetRequestModeInCluster(
    Call &call, const QByteArray &cluster, const protocol::SetMessageRequestModeRequestBody &m)
{
    if (Status s = requireName(cluster, "cluster"); !s)
        return s;
    if (Status s = checkRequestMode(m); !s)
        return s;
    auto masters = clusterPeers(call, cluster, false);
    if (!masters)
        return masters.error();
    return toAllBrokers(call, *masters, [&](const Peer &) { return requestModeRequest(call, m); });
}

Result<protocol::MessageRequestModeTable> doAllRequestModes(Call &call, const QByteArray &addr)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    auto r = invokeBroker(
        call, {{}, addr}, call.api().request(protocol::popcode::GetAllMessageRequestMode));
    if (!r)
        return r.error();
    auto table = protocol::MessageRequestModeTable::fromJson(r->body);
    if (!table)
        return corrupt("GET_ALL_MESSAGE_REQUEST_MODE", table.error());
    return table;
}

Result<admin::ConfigProperties> doBrokerConfig(Call &call, const QByteArray &addr)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    auto r
        = invokeBroker(call, {{}, addr}, call.api().request(toInt(RequestCode::GetBrokerConfig)));
    if (!r)
        return r.error();
    admin::ConfigProperties p = admin::ConfigProperties::fromText(r->body);
    if (const QByteArray *version = r->ext("version"); version && !version->isEmpty()) {
        auto v = protocol::DataVersion::fromJson(*version);
        if (v)
            p.version = *v;
    }
    return p;
}

Result<FanOutResult> doUpdateBrokerConfig(
    Call &call, const BrokerTarget &target, const std::vector<std::pair<QString, QString>> &entries)
{
    if (entries.empty())
        return Status::invalidArgument(QStringLiteral("no broker config entry to update"));
    auto peers = targetPeers(call, target);
    if (!peers)
        return peers.error();
    const QByteArray body = admin::ConfigProperties::toText(entries);
    return toAllBrokers(call, *peers, [&](const Peer &) {
        RemotingCommand cmd = call.api().request(toInt(RequestCode::UpdateBrokerConfig));
        cmd.body = body;
        return cmd;
    });
}

Result<std::map<QByteArray, admin::ConfigProperties>> doNameServerConfig(
    Call &call, const std::vector<QByteArray> &given)
{
    auto servers = nameServerList(call, given);
    if (!servers)
        return servers.error();
    std::vector<Request> requests;
    for (const QByteArray &a : *servers)
        requests.push_back({{{}, a}, call.api().request(toInt(RequestCode::GetNamesrvConfig))});
    std::vector<Result<RemotingCommand>> answers = invokeAll(call, requests);
    std::map<QByteArray, admin::ConfigProperties> out;
    for (std::size_t i = 0; i < answers.size(); ++i) {
        auto r = expect(std::move(answers[i]), requests[i].peer);
        if (!r)
            return r.error();
        out[(*servers)[i]] = admin::ConfigProperties::fromText(r->body);
    }
    return out;
}

Result<FanOutResult> doUpdateNameServerConfig(Call &call,
    const std::vector<std::pair<QString, QString>> &entries, const std::vector<QByteArray> &given)
{
    if (entries.empty())
        return Status::invalidArgument(QStringLiteral("no name server config entry to update"));
    auto servers = nameServerList(call, given);
    if (!servers)
        return servers.error();
    const QByteArray body = admin::ConfigProperties::toText(entries);
    return toAllNameServers(call, *servers, [&] {
        RemotingCommand cmd = call.api().request(toInt(RequestCode::UpdateNamesrvConfig));
        cmd.body = body;
        return cmd;
    });
}

Status doPutKv(Call &call, const QByteArray &ns, const QByteArray &key, const QByteArray &value)
{
    if (Status s = requireName(ns, "namespace"); !s)
        return s;
    if (Status s = requireName(key, "key"); !s)
        return s;
    auto servers = nameServerList(call, {});
    if (!servers)
        return servers.error();
    return toAllNameServers(call, *servers, [&] {
        return putKvRequest(call, ns, key, value);
    }).status();
}

Result<QByteArray> doKv(Call &call, const QByteArray &ns, const QByteArray &key)
{
    if (Status s = requireName(ns, "namespace"); !s)
        return s;
    if (Status s = requireName(key, "key"); !s)
        return s;
    protocol::GetKVConfigRequestHeader h;
    h.nameSpace = ns;
    h.key = key;
    auto r = invokeNameServer(call, call.api().request(toInt(RequestCode::GetKvConfig), h),
        {toInt(ResponseCode::QueryNotFound)});
    if (!r)
        return r.error();
    if (r->code == toInt(ResponseCode::QueryNotFound))
        return Status::notFound(QStringLiteral("no KV config %1 in namespace %2")
                                    .arg(QString::fromUtf8(key), QString::fromUtf8(ns)));
    auto v = protocol::GetKVConfigResponseHeader::decode(*r);
    if (!v)
        return corrupt("GET_KV_CONFIG", v.error());
    return v->value;
}

Status doDeleteKv(Call &call, const QByteArray &ns, const QByteArray &key)
{
    if (Status s = requireName(ns, "namespace"); !s)
        return s;
    if (Status s = requireName(key, "key"); !s)
        return s;
    auto servers = nameServerList(call, {});
    if (!servers)
        return servers.error();
    return toAllNameServers(call, *servers, [&] {
        return deleteKvRequest(call, ns, key);
    }).status();
}

Result<std::map<QByteArray, QByteArray>> doKvList(Call &call, const QByteArray &ns)
{
    if (Status s = requireName(ns, "namespace"); !s)
        return s;
    protocol::GetKVListByNamespaceRequestHeader h;
    h.nameSpace = ns;
    auto r = invokeNameServer(call, call.api().request(toInt(RequestCode::GetKvListByNamespace), h),
        {toInt(ResponseCode::QueryNotFound)});
    if (!r)
        return r.error();
    if (r->code == toInt(ResponseCode::QueryNotFound) || r->body.isEmpty())
        return std::map<QByteArray, QByteArray> {};
    auto kv = protocol::KVTable::fromJson(r->body);
    if (!kv)
        return corrupt("GET_KVLIST_BY_NAMESPACE", kv.error());
    return std::move(kv->table);
}

Result<FanOutResult> doWritePerm(
    Call &call, const QByteArray &brokerName, const std::vector<QByteArray> &given, bool add)
{
    if (Status s = requireName(brokerName, "broker name"); !s)
        return s;
    auto servers = nameServerList(call, given);
    if (!servers)
        return servers.error();
    if (add) {
        protocol::AddWritePermOfBrokerRequestHeader h;
        h.brokerName = brokerName;
        return toAllNameServers(
            call, *servers,
            [&] { return call.api().request(toInt(RequestCode::AddWritePermOfBroker), h); },
            "addTopicCount");
    }
    protocol::WipeWritePermOfBrokerRequestHeader h;
    h.brokerName = brokerName;
    return toAllNameServers(
        call, *servers,
        [&] { return call.api().request(toInt(RequestCode::WipeWritePermOfBroker), h); },
        "wipeTopicCount");
}

Result<FanOutResult> doMaintenance(Call &call, const BrokerTarget &target, int code)
{
    auto peers = targetPeers(call, target);
    if (!peers)
        return peers.error();
    return toAllBrokers(call, *peers, [&](const Peer &) { return call.api().request(code); });
}

Result<admin::StoreFiles> doStoreFiles(Call &call, const QByteArray &addr)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    auto r = call.api().invokeSync(
        addr, call.api().request(protocol::extensioncode::kGetStoreFiles), call.remaining());
    if (r && r->code == toInt(ResponseCode::RequestCodeNotSupported))
        return Status::notSupported(
            QStringLiteral("%1: store files are not supported by this broker (a QRocket extension; "
                           "a stock RocketMQ broker does not have it)")
                .arg(QString::fromUtf8(addr)));
    auto ok = expect(std::move(r), {{}, addr});
    if (!ok)
        return ok.error();
    auto body = admin::StoreFiles::fromJson(ok->body);
    if (!body)
        return corrupt("store files", body.error());
    return body;
}

Result<protocol::PopStatsBody> doPopStats(
    Call &call, const QByteArray &addr, const QByteArray &group)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    RemotingCommand cmd = call.api().request(protocol::extensioncode::kGetPopStats);
    if (!group.isEmpty())
        cmd.setExt("consumerGroup", group);
    auto r = call.api().invokeSync(addr, std::move(cmd), call.remaining());
    if (r && r->code == toInt(ResponseCode::RequestCodeNotSupported))
        return Status::notSupported(
            QStringLiteral("%1: POP stats are not supported by this broker (a QRocket extension; "
                           "a stock RocketMQ broker does not have it)")
                .arg(QString::fromUtf8(addr)));
    auto ok = expect(std::move(r), {{}, addr});
    if (!ok)
        return ok.error();
    auto body = protocol::PopStatsBody::fromJson(ok->body);
    if (!body)
        return corrupt("POP stats", body.error());
    return body;
}

} // namespace qrocket::client::adminimpl
