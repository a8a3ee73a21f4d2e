// ClientInstance's route cache (clientinstance.h): topic routes and publish infos from the name
// server, the broker address table, and the periodic refresh and clean-up of both.

#include "clientlib/client/clientinstanceprivate.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/responsecode.h"

#include <algorithm>
#include <set>

namespace qrocket::client {

using protocol::ResponseCode;
using protocol::toInt;

namespace {

constexpr QByteArrayView kDefaultTopic = "TBW102";

} // namespace

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

std::shared_ptr<const TopicPublishInfo> ClientInstance::cachedPublishInfo(
    const QByteArray &topic) const
{
    std::lock_guard lock(d->mutex);
    const auto it = d->routes.constFind(topic);
    if (it != d->routes.cend() && it->publish && it->publish->ok())
        return it->publish;
    return nullptr;
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

} // namespace qrocket::client
