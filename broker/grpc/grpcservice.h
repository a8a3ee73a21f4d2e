#pragma once

// MessagingServiceImpl: the v2 MessagingService on gRPC's callback API. Unary RPCs in
// grpcservice.cpp, the streams (ReceiveMessage, Telemetry) in grpcstreams.cpp. Handlers run on
// gRPC's threads and never block them: each builds internal requests, dispatches them through
// the ProcessorTable on the client's GrpcChannel, and finishes its reactor from the completion
// (any thread).
//
// Served: QueryRoute and QueryAssignment (grpcroute.cpp: every broker of the route), Heartbeat,
// SendMessage, ReceiveMessage, AckMessage, ChangeInvisibleDuration, NotifyClientTermination,
// Telemetry (settings, orphaned-transaction checks), GetOffset, UpdateOffset, QueryOffset,
// ForwardMessageToDeadLetterQueue, RecallMessage, EndTransaction (grpctransaction.cpp). PullMessage
// answers gRPC's UNIMPLEMENTED.

#include "broker/grpc/grpcauth.h"
#include "broker/grpc/grpcchannel.h"
#include "broker/grpc/grpcconvert.h"
#include "broker/grpc/grpcpeers.h"
#include "broker/grpc/grpcserver.h"

#include <apache/rocketmq/v2/service.grpc.pb.h>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace qrocket::broker::v2 {

/// What a handler knows of its caller.
struct Caller
{
    GrpcChannelPtr channel;
    QByteArray clientId; // x-mq-client-id
    QByteArray peer; // "a.b.c.d:port"
    GrpcCredential credential; // aclEnable: its internal requests are signed with it
};

class MessagingServiceImpl final : public pb::MessagingService::CallbackService
{
public:
    MessagingServiceImpl(
        GrpcServerOptions options, const remoting::ProcessorTable &table, BrokerContext &ctx);

    void setPort(int port) { m_port = port; }
    GrpcClientRegistry &registry() { return m_registry; }

    grpc::ServerUnaryReactor *QueryRoute(grpc::CallbackServerContext *context,
        const pb::QueryRouteRequest *request, pb::QueryRouteResponse *response) override;
    grpc::ServerUnaryReactor *Heartbeat(grpc::CallbackServerContext *context,
        const pb::HeartbeatRequest *request, pb::HeartbeatResponse *response) override;
    grpc::ServerUnaryReactor *SendMessage(grpc::CallbackServerContext *context,
        const pb::SendMessageRequest *request, pb::SendMessageResponse *response) override;
    grpc::ServerUnaryReactor *QueryAssignment(grpc::CallbackServerContext *context,
        const pb::QueryAssignmentRequest *request, pb::QueryAssignmentResponse *response) override;
    grpc::ServerWriteReactor<pb::ReceiveMessageResponse> *ReceiveMessage(
        grpc::CallbackServerContext *context, const pb::ReceiveMessageRequest *request) override;
    grpc::ServerUnaryReactor *AckMessage(grpc::CallbackServerContext *context,
        const pb::AckMessageRequest *request, pb::AckMessageResponse *response) override;
    grpc::ServerUnaryReactor *ForwardMessageToDeadLetterQueue(grpc::CallbackServerContext *context,
        const pb::ForwardMessageToDeadLetterQueueRequest *request,
        pb::ForwardMessageToDeadLetterQueueResponse *response) override;
    grpc::ServerUnaryReactor *UpdateOffset(grpc::CallbackServerContext *context,
        const pb::UpdateOffsetRequest *request, pb::UpdateOffsetResponse *response) override;
    grpc::ServerUnaryReactor *GetOffset(grpc::CallbackServerContext *context,
        const pb::GetOffsetRequest *request, pb::GetOffsetResponse *response) override;
    grpc::ServerUnaryReactor *QueryOffset(grpc::CallbackServerContext *context,
        const pb::QueryOffsetRequest *request, pb::QueryOffsetResponse *response) override;
    grpc::ServerUnaryReactor *EndTransaction(grpc::CallbackServerContext *context,
        const pb::EndTransactionRequest *request, pb::EndTransactionResponse *response) override;
    grpc::ServerBidiReactor<pb::TelemetryCommand, pb::TelemetryCommand> *Telemetry(
        grpc::CallbackServerContext *context) override;
    grpc::ServerUnaryReactor *NotifyClientTermination(grpc::CallbackServerContext *context,
        const pb::NotifyClientTerminationRequest *request,
        pb::NotifyClientTerminationResponse *response) override;
    grpc::ServerUnaryReactor *ChangeInvisibleDuration(grpc::CallbackServerContext *context,
        const pb::ChangeInvisibleDurationRequest *request,
        pb::ChangeInvisibleDurationResponse *response) override;
    grpc::ServerUnaryReactor *RecallMessage(grpc::CallbackServerContext *context,
        const pb::RecallMessageRequest *request, pb::RecallMessageResponse *response) override;

    /// A broker of a route that clients reach over gRPC.
    struct GrpcBroker
    {
        std::int64_t id = 0;
        QByteArray host;
        int port = 0;
    };
    /// A topic's route and, per broker name, its brokers with a gRPC endpoint (by id).
    struct RouteView
    {
        protocol::TopicRouteData route;
        std::map<QByteArray, std::map<std::int64_t, GrpcBroker>> brokers;
        /// The topic's message.type on this broker (nullopt: none, or not here): what its
        /// queues accept.
        std::optional<TopicMessageType> messageType;
    };

    // --- shared by the handlers ------------------------------------------------------------
    Caller callerOf(const grpc::CallbackServerContext *context);
    /// Dispatches `request` on the caller's channel; `done` gets the response (any thread).
    void invoke(
        const Caller &caller, RemotingCommand request, int timeoutMs, GrpcChannel::Done done);
    const GrpcServerOptions &options() const { return m_options; }
    /// Access control (grpcauth.h); enabled() with aclEnable.
    const GrpcAuth &auth() const { return m_auth; }
    /// The real addresses of the callers the permissive port's sniffer handed over.
    GrpcPeers &peers() { return m_peers; }
    BrokerContext &context() { return m_ctx; }
    /// This broker as routes name it (its gRPC endpoint).
    void fillBroker(pb::Broker *broker) const;
    /// The settings a client reported through Telemetry (nullopt: none yet).
    std::optional<pb::Settings> settingsOf(const QByteArray &clientId) const;
    /// Stores `reported` and returns the settings the broker answers with.
    pb::Settings applySettings(const QByteArray &clientId, const pb::Settings &reported);
    bool topicExists(const QByteArray &topic) const;
    /// RocketMQ 5's FIFO group: its subscription group has consumeMessageOrderly (as the proxy
    /// reads SubscriptionGroupConfig for QueryAssignment, the Telemetry settings and its pops).
    bool fifoGroup(const QByteArray &group) const;
    /// HEART_BEAT with a producer record per topic of `settings`' publishing (nothing else).
    void registerPublisher(const Caller &caller, const pb::Settings &settings);
    /// Makes a popped message visible again soon (its stream's client went away).
    void nack(const Caller &caller, const QByteArray &group, const QByteArray &topic,
        const std::string &handle);

private:
    /// QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET, GET_MIN/MAX_OFFSET or
    /// SEARCH_OFFSET_BY_TIMESTAMP for one queue.
    struct OffsetQuery
    {
        int code = 0;
        QByteArray topic;
        int queueId = 0;
        QByteArray group;
        bool needsGroup = false;
        std::vector<std::pair<QByteArray, QByteArray>> extra;
    };
    /// Runs `q`, sets `status` (and calls `setOffset` with the answer's offset) and finishes.
    grpc::ServerUnaryReactor *offsetCall(grpc::CallbackServerContext *context, pb::Status *status,
        OffsetQuery q, std::function<void(std::int64_t)> setOffset);

    /// The name servers' route when it names a gRPC endpoint, else this broker's own queues
    /// (nullopt: the topic is on neither).
    std::optional<RouteView> routeView(const QByteArray &topic,
        const std::optional<protocol::TopicRouteData> &fromNameServer) const;
    using RouteViewPtr = std::shared_ptr<const RouteView>;
    /// Calls `done` with the topic's route view (nullptr: the topic is nowhere): from the cache
    /// when it is younger than kRouteCacheMs, else looked up (options' routeLookup) and cached.
    void withRoute(const QByteArray &topic, std::function<void(RouteViewPtr)> done);
    /// RocketMQ 5.3's proxy caches routes and refreshes them every 20 s; a second here, so a
    /// broker or topic that appears is listed at once while a burst of QueryRoute and
    /// QueryAssignment calls (every SDK start, the gRPC bench's floor) costs one lookup.
    static constexpr std::int64_t kRouteCacheMs = 1000;
    static constexpr std::size_t kRouteCacheMax = 20000; // the proxy's topicRouteServiceCacheMaxNum
    struct CachedRoute
    {
        RouteViewPtr view;
        std::int64_t atMs = 0;
    };

    GrpcServerOptions m_options;
    const remoting::ProcessorTable &m_table;
    BrokerContext &m_ctx;
    GrpcClientRegistry m_registry;
    GrpcPeers m_peers;
    GrpcAuth m_auth;
    std::atomic<int> m_port {0};
    std::atomic<std::uint32_t> m_roundRobin {0};
    mutable std::mutex m_settingsMutex;
    std::map<QByteArray, pb::Settings> m_settings; // guarded by m_settingsMutex
    std::mutex m_routeMutex;
    std::map<QByteArray, CachedRoute> m_routes; // guarded by m_routeMutex
};

} // namespace qrocket::broker::v2
