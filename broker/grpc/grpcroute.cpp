// QueryRoute and QueryAssignment (issue 27): the topic's queues on every broker, each with the
// gRPC endpoint of the broker that holds it, laid out as RocketMQ 5.3's proxy does in its local
// mode (RouteActivity over the name server's TopicRouteData, the broker's host with its gRPC
// port). The route comes from the name servers, where each QRocket broker registered its gRPC
// port; when none answers with a route that names a gRPC endpoint, this broker's own topic
// config is the answer (its queues only).

#include "broker/common/brokercontext.h"
#include "broker/config/topicconfig.h"
#include "broker/grpc/grpcservice.h"
#include "broker/managers/topicconfigmanager.h"

#include <QDateTime>
#include <QHostAddress>

#include <algorithm>
#include <map>
#include <memory>

namespace qrocket::broker::v2 {

namespace {

using protocol::BrokerData;
using protocol::QueueData;
using protocol::TopicRouteData;

using GrpcBroker = MessagingServiceImpl::GrpcBroker;
using GrpcBrokers = std::map<QByteArray, std::map<std::int64_t, GrpcBroker>>;

void fillEndpoint(pb::Broker *broker, const QByteArray &name, const GrpcBroker &b)
{
    broker->set_name(toStd(name));
    broker->set_id(static_cast<std::int32_t>(b.id));
    pb::Endpoints *e = broker->mutable_endpoints();
    QHostAddress host;
    const bool ip = host.setAddress(QString::fromLatin1(b.host));
    e->set_scheme(!ip                                          ? pb::DOMAIN_NAME
            : host.protocol() == QAbstractSocket::IPv6Protocol ? pb::IPv6
                                                               : pb::IPv4);
    pb::Address *a = e->add_addresses();
    a->set_host(toStd(b.host));
    a->set_port(b.port);
}

/// "1.2.3.4:10911" / "[::1]:10911" -> the host.
QByteArray hostOf(const QByteArray &addr)
{
    const qsizetype colon = addr.lastIndexOf(':');
    QByteArray host = colon < 0 ? addr : addr.left(colon);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    return host;
}

/// The route's brokers that registered a gRPC port.
GrpcBrokers grpcBrokersOf(const TopicRouteData &route)
{
    GrpcBrokers out;
    for (const BrokerData &bd : route.brokerDatas) {
        for (const auto &[id, port] : bd.grpcPorts) {
            const auto addr = bd.brokerAddrs.find(id);
            if (addr == bd.brokerAddrs.end() || port <= 0)
                continue;
            out[bd.brokerName][id] = GrpcBroker {id, hostOf(addr->second), port};
        }
    }
    return out;
}

pb::Permission permissionOf(int perm)
{
    const bool r = Perm::isReadable(perm);
    const bool w = Perm::isWriteable(perm);
    return r && w ? pb::READ_WRITE : r ? pb::READ : w ? pb::WRITE : pb::NONE;
}

/// The types a queue accepts, from its topic's message.type as RocketMQ 5.3's RouteActivity
/// lists them (the SDKs' producers check a message against them before sending): MIXED, and a
/// topic without the attribute (QRocket), every type.
void acceptTypes(pb::MessageQueue *q, std::optional<TopicMessageType> declared)
{
    switch (declared.value_or(TopicMessageType::Mixed)) {
    case TopicMessageType::Mixed:
        for (const pb::MessageType t : {pb::NORMAL, pb::FIFO, pb::DELAY, pb::TRANSACTION})
            q->add_accept_message_types(t);
        return;
    case TopicMessageType::Normal:
        q->add_accept_message_types(pb::NORMAL);
        return;
    case TopicMessageType::Fifo:
        q->add_accept_message_types(pb::FIFO);
        return;
    case TopicMessageType::Delay:
        q->add_accept_message_types(pb::DELAY);
        return;
    case TopicMessageType::Transaction:
        q->add_accept_message_types(pb::TRANSACTION);
        return;
    case TopicMessageType::Unspecified:
        q->add_accept_message_types(pb::MESSAGE_TYPE_UNSPECIFIED);
        return;
    }
}

/// RocketMQ 5.3 RouteActivity.genMessageQueueFromQueueData: read-only queues first, then
/// write-only, then read-write (ids counted from 0 across the three); a queue data neither
/// readable nor writable gives max(1, read, write) NONE queues.
void addQueues(const QueueData &qd, const pb::Resource &topic, const QByteArray &brokerName,
    const GrpcBroker &broker, std::optional<TopicMessageType> declared,
    pb::QueryRouteResponse *response)
{
    const bool readable = Perm::isReadable(qd.perm);
    const bool writable = Perm::isWriteable(qd.perm);
    int r = 0, w = 0, rw = 0, n = 0;
    if (readable && writable) {
        rw = std::min(qd.writeQueueNums, qd.readQueueNums);
        r = qd.readQueueNums - rw;
        w = qd.writeQueueNums - rw;
    } else if (writable) {
        w = qd.writeQueueNums;
    } else if (readable) {
        r = qd.readQueueNums;
    } else {
        n = std::max({1, qd.writeQueueNums, qd.readQueueNums});
    }
    int id = 0;
    auto add = [&](int count, pb::Permission perm) {
        for (int i = 0; i < count; ++i) {
            pb::MessageQueue *q = response->add_message_queues();
            *q->mutable_topic() = topic;
            q->set_id(id++);
            q->set_permission(perm);
            fillEndpoint(q->mutable_broker(), brokerName, broker);
            acceptTypes(q, declared);
        }
    };
    add(r, pb::READ);
    add(w, pb::WRITE);
    add(rw, pb::READ_WRITE);
    add(n, pb::NONE);
}

template<class Response>
void finish(grpc::ServerUnaryReactor *reactor, Response *response, pb::Code code, std::string text)
{
    setStatus(response->mutable_status(), code, std::move(text));
    reactor->Finish(grpc::Status::OK);
}

} // namespace

void MessagingServiceImpl::fillBroker(pb::Broker *broker) const
{
    fillEndpoint(broker, m_options.brokerName, GrpcBroker {0, m_options.advertisedHost, m_port});
}

std::optional<MessagingServiceImpl::RouteView> MessagingServiceImpl::routeView(
    const QByteArray &topic, const std::optional<TopicRouteData> &fromNameServer) const
{
    // The topic's message.type as this broker has it (the proxy asks its local broker too).
    const std::optional<TopicConfig> config = m_ctx.topics->find(topic);
    const std::optional<TopicMessageType> declared
        = config ? declaredMessageType(config->attributes) : std::nullopt;
    if (fromNameServer) {
        RouteView view {*fromNameServer, grpcBrokersOf(*fromNameServer), declared};
        if (!view.brokers.empty())
            return view;
    }
    // This broker alone (no name server, or none that knows a gRPC endpoint of the topic).
    if (!config)
        return std::nullopt;
    RouteView view;
    view.messageType = declared;
    view.route.queueDatas.push_back(QueueData {m_options.brokerName, config->readQueueNums,
        config->writeQueueNums, config->perm, config->topicSysFlag});
    view.brokers[m_options.brokerName][0] = GrpcBroker {0, m_options.advertisedHost, m_port.load()};
    return view;
}

void MessagingServiceImpl::withRoute(
    const QByteArray &topic, std::function<void(RouteViewPtr)> done)
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    std::optional<RouteViewPtr> cached;
    {
        std::lock_guard lock(m_routeMutex);
        const auto it = m_routes.find(topic);
        if (it != m_routes.end() && now - it->second.atMs >= 0
            && now - it->second.atMs < kRouteCacheMs)
            cached = it->second.view;
    }
    if (cached) {
        done(std::move(*cached));
        return;
    }
    auto store = [this, topic, now, done = std::move(done)](
                     const std::optional<TopicRouteData> &route) {
        std::optional<RouteView> view = routeView(topic, route);
        RouteViewPtr ptr = view ? std::make_shared<const RouteView>(std::move(*view)) : nullptr;
        {
            std::lock_guard lock(m_routeMutex);
            if (m_routes.size() >= kRouteCacheMax)
                std::erase_if(m_routes,
                    [now](const auto &e) { return now - e.second.atMs >= kRouteCacheMs; });
            if (m_routes.size() < kRouteCacheMax)
                m_routes.insert_or_assign(topic, CachedRoute {ptr, now});
        }
        done(std::move(ptr));
    };
    if (!m_options.routeLookup) {
        store(std::nullopt);
        return;
    }
    m_options.routeLookup(
        topic, [store = std::move(store)](std::optional<TopicRouteData> route) { store(route); });
}

grpc::ServerUnaryReactor *MessagingServiceImpl::QueryRoute(grpc::CallbackServerContext *context,
    const pb::QueryRouteRequest *request, pb::QueryRouteResponse *response)
{
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    const QByteArray topic = fromStd(request->topic().name());
    if (topic.isEmpty()) {
        finish(reactor, response, pb::ILLEGAL_TOPIC, "topic name cannot be empty");
        return reactor;
    }
    withRoute(topic, [reactor, request, response](RouteViewPtr view) {
        if (!view) {
            finish(reactor, response, pb::TOPIC_NOT_FOUND,
                "topic not found: " + request->topic().name());
            return;
        }
        for (const QueueData &qd : view->route.queueDatas) {
            const auto brokers = view->brokers.find(qd.brokerName);
            if (brokers == view->brokers.end())
                continue; // no gRPC endpoint known for it
            for (const auto &[id, broker] : brokers->second)
                addQueues(qd, request->topic(), qd.brokerName, broker, view->messageType, response);
        }
        finish(reactor, response, pb::OK, "OK");
    });
    return reactor;
}

grpc::ServerUnaryReactor *MessagingServiceImpl::QueryAssignment(
    grpc::CallbackServerContext *context, const pb::QueryAssignmentRequest *request,
    pb::QueryAssignmentResponse *response)
{
    grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
    if (request->group().name().empty()) {
        finish(reactor, response, pb::ILLEGAL_CONSUMER_GROUP, "group name cannot be empty");
        return reactor;
    }
    const bool fifo = fifoGroup(fromStd(request->group().name()));
    withRoute(
        fromStd(request->topic().name()), [reactor, request, response, fifo](RouteViewPtr view) {
            if (!view) {
                finish(reactor, response, pb::TOPIC_NOT_FOUND,
                    "topic not found: " + request->topic().name());
                return;
            }
            // POP: one assignment per readable broker (its master), queue -1 (every queue of it);
            // for a FIFO group (consumeMessageOrderly) one per readable queue, as RocketMQ 5.3's
            // proxy answers (its receives still pop the whole broker, in order).
            for (const QueueData &qd : view->route.queueDatas) {
                if (!Perm::isReadable(qd.perm) || qd.readQueueNums <= 0)
                    continue;
                const auto brokers = view->brokers.find(qd.brokerName);
                if (brokers == view->brokers.end())
                    continue;
                const auto master = brokers->second.find(protocol::kMasterBrokerId);
                if (master == brokers->second.end())
                    continue;
                for (int id = fifo ? 0 : -1; id < (fifo ? qd.readQueueNums : 0); ++id) {
                    pb::MessageQueue *q = response->add_assignments()->mutable_message_queue();
                    *q->mutable_topic() = request->topic();
                    q->set_id(id);
                    q->set_permission(permissionOf(qd.perm));
                    fillEndpoint(q->mutable_broker(), qd.brokerName, master->second);
                    acceptTypes(q, view->messageType);
                }
            }
            if (response->assignments_size() == 0)
                finish(reactor, response, pb::FORBIDDEN, "no readable queue");
            else
                finish(reactor, response, pb::OK, "OK");
        });
    return reactor;
}

} // namespace qrocket::broker::v2
