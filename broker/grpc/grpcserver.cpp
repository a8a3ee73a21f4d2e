#include "broker/grpc/grpcserver.h"

#include "broker/common/logging.h"
#include "broker/grpc/grpcguarded.h"
#include "broker/grpc/grpcservice.h"
#include "broker/grpc/grpcsniffer.h"
#include "broker/grpc/grpctls.h"

#include <chrono>
#include <condition_variable>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <mutex>
#include <thread>

namespace qrocket::broker::v2 {

struct GrpcServer::Impl
{
    Impl(GrpcServerOptions options, const remoting::ProcessorTable &table, BrokerContext &ctx)
        : service(std::move(options), table, ctx)
    {
        if (service.auth().enabled())
            guarded = std::make_unique<GuardedMessagingService>(service, service.auth());
    }

    MessagingServiceImpl service;
    std::unique_ptr<GuardedMessagingService> guarded; // aclEnable
    std::unique_ptr<grpc::Server> server;
    // tls.server.mode=permissive: the port itself, sniffed (grpcsniffer.h).
    std::unique_ptr<GrpcPortSniffer> sniffer;
    // Completes internal requests whose processor never answered (GrpcChannel::expire).
    std::thread housekeeping;
    std::mutex mutex;
    std::condition_variable wake;
    bool draining = false; // guarded by mutex: the server is shutting down
    bool stopping = false; // guarded by mutex: the housekeeping thread ends
};

GrpcServer::GrpcServer(
    GrpcServerOptions options, const remoting::ProcessorTable &table, BrokerContext &context)
    : m_impl(std::make_unique<Impl>(std::move(options), table, context))
{ }

GrpcServer::~GrpcServer()
{
    stop();
}

Status GrpcServer::start()
{
    if (m_impl->server)
        return Status::ok();
    const GrpcServerOptions &o = m_impl->service.options();
    if (o.port < 0 || o.port > 65535)
        return Status::invalidArgument(
            QStringLiteral("grpcServerPort: %1 is not a port").arg(o.port));
    Result<GrpcTlsSetup> tls = grpcServerCredentials(o.tls);
    if (!tls)
        return tls.error();
    const bool permissive = tls->mode == remoting::TlsMode::Permissive;
    grpc::ServerBuilder builder;
    int bound = 0;
    std::string address = toStd(o.bindHost) + ':' + std::to_string(o.port);
    if (permissive) {
        // The broker listens on the port; gRPC's TLS listener is internal (loopback).
        GrpcSnifferOptions so;
        so.bindHost = o.bindHost;
        so.port = o.port;
        m_impl->sniffer = std::make_unique<GrpcPortSniffer>(so, m_impl->service.peers());
        if (Status st = m_impl->sniffer->listen(); !st) {
            m_impl->sniffer.reset();
            return st;
        }
        address = "127.0.0.1:0";
    }
    builder.AddListeningPort(address, tls->credentials, &bound);
    // Two brokers on one host must not share a port (gRPC turns SO_REUSEPORT on by default).
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.SetMaxReceiveMessageSize(std::max(o.maxBodySize, 4 * 1024 * 1024) + 1024 * 1024);
    if (m_impl->guarded)
        builder.RegisterService(m_impl->guarded.get());
    else
        builder.RegisterService(&m_impl->service);
    m_impl->server = builder.BuildAndStart();
    if (!m_impl->server || bound == 0) {
        m_impl->server.reset();
        m_impl->sniffer.reset();
        return Status::ioError(QStringLiteral("gRPC server: cannot listen on %1")
                                   .arg(QString::fromStdString(address)));
    }
    const int tlsPort = bound;
    if (permissive) {
        bound = m_impl->sniffer->port();
        m_impl->sniffer->start(m_impl->server.get(), tlsPort);
    }
    m_port = static_cast<quint16>(bound);
    m_tls = tls->mode != remoting::TlsMode::Disabled;
    m_impl->service.setPort(bound);
    m_impl->stopping = false;
    m_impl->draining = false;
    m_impl->housekeeping = std::thread([impl = m_impl.get()] {
        std::unique_lock lock(impl->mutex);
        while (!impl->stopping) {
            impl->wake.wait_for(lock, std::chrono::milliseconds(impl->draining ? 50 : 500));
            // While the server shuts down every waiting call is completed at once: gRPC's
            // Shutdown() waits for each handler to finish.
            const auto now = impl->draining ? std::chrono::steady_clock::time_point::max()
                                            : std::chrono::steady_clock::now();
            lock.unlock();
            impl->service.registry().expireAll(now);
            lock.lock();
        }
    });
    qCInfo(lcBroker, "gRPC (RocketMQ 5 MessagingService) listening on %s:%d%s%s",
        o.bindHost.constData(), bound,
        permissive  ? " (plain and TLS: permissive)"
            : m_tls ? " (TLS)"
                    : "",
        m_impl->guarded ? " (ACL: authenticated)" : "");
    return Status::ok();
}

void GrpcServer::stop()
{
    if (!m_impl->server)
        return;
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->draining = true;
    }
    m_impl->wake.notify_all();
    // No new connection reaches the server from here on (permissive); relays end with it.
    if (m_impl->sniffer)
        m_impl->sniffer->stopAccepting();
    // Streams still open (long polls, Telemetry) are cancelled after a short grace period.
    m_impl->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    m_impl->server->Wait();
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->stopping = true;
    }
    m_impl->wake.notify_all();
    if (m_impl->housekeeping.joinable())
        m_impl->housekeeping.join();
    if (m_impl->sniffer)
        m_impl->sniffer->stop();
    m_impl->sniffer.reset();
    m_impl->server.reset();
    m_port = 0;
}

} // namespace qrocket::broker::v2
