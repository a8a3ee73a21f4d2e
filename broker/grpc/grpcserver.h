#pragma once

// GrpcServer: the broker's RocketMQ 5 gRPC endpoint (apache.rocketmq.v2.MessagingService on
// grpcServerPort), with gRPC's own threads. Every RPC is served by building the broker's
// internal remoting requests and dispatching them through the remoting server's
// ProcessorTable (grpcchannel.h), so ACL, executors, POP, timers, send checks, offsets and retry
// topics are the remoting clients' own. The controller owns it:
//
//   GrpcServer grpc(options, server->processorTable(), context);
//   if (Status st = grpc.start(); !st) ...     // binds options.port (0: a free port)
//   grpc.port();                               // the bound port
//   grpc.stop();                               // cancels streams, waits for handlers
//
// With aclEnable every RPC is authenticated and its requests authorized (grpcauth.h,
// grpcguarded.h); tls.server.mode=enforcing makes the port TLS only, permissive serves plain and
// TLS clients on it (grpctls.h, grpcsniffer.h).
//
// SO_REUSEPORT is off: two brokers on one host never share a port silently.

#include "clientlib/common/status.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/remoting/tlssettings.h"

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace qrocket::remoting {
class ProcessorTable;
}

namespace qrocket::broker {
struct BrokerContext;
}

namespace qrocket::broker::v2 {

struct GrpcServerOptions
{
    QByteArray bindHost = QByteArrayLiteral("0.0.0.0");
    int port = 8081; // 0: a free port (tests)
    /// The host clients are told to connect to (routes, assignments): brokerIP1.
    QByteArray advertisedHost;
    QByteArray brokerName;
    /// The largest body accepted (the store's maxMessageSize); 0: unchecked.
    int maxBodySize = 4 * 1024 * 1024;
    /// How long an internal request may wait for its processor (POP adds its polling time).
    int requestTimeoutMs = 20000;
    /// The consumer retry back-off pushed to clients (the broker's delay levels, ms).
    std::vector<std::int64_t> retryDelaysMs;
    /// How far a signed call's x-mq-date-time may be from the broker's clock, in seconds
    /// (grpcAuthMaxClockSkewSeconds, grpcauth.h); 0: not checked.
    int authMaxClockSkewSeconds = 900;
    /// The broker's tls.server.* (grpctls.h: enforcing makes the port TLS only, permissive
    /// takes both).
    remoting::TlsSettings tls;
    /// The topic's route from the name servers (every broker, with the gRPC ports they
    /// registered); QueryRoute and QueryAssignment answer from it, and from this broker's own
    /// topic config when it gives nullopt or is not set. Calls `done` exactly once, any thread.
    using RouteDone = std::function<void(std::optional<protocol::TopicRouteData>)>;
    std::function<void(const QByteArray &topic, RouteDone done)> routeLookup;
};

class MessagingServiceImpl;

class GrpcServer
{
public:
    GrpcServer(
        GrpcServerOptions options, const remoting::ProcessorTable &table, BrokerContext &context);
    ~GrpcServer();
    GrpcServer(const GrpcServer &) = delete;
    GrpcServer &operator=(const GrpcServer &) = delete;

    Status start();
    void stop();
    /// The bound port once started, else 0.
    quint16 port() const { return m_port; }
    /// Whether the port serves TLS clients (tls.server.mode=enforcing or permissive).
    bool tls() const { return m_tls; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    quint16 m_port = 0;
    bool m_tls = false;
};

} // namespace qrocket::broker::v2
