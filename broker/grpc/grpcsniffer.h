#pragma once

// GrpcPortSniffer: the gRPC port in tls.server.mode=permissive, where plain and TLS clients share
// it as they share the remoting ports. grpc++ 1.51 binds a port as either plain or TLS, and its
// grpc_server_add_channel_from_fd() refuses any but insecure credentials ("Failed to create
// channel due to invalid creds"), so the broker owns the listening socket:
//
//   - each accepted connection waits (at most sniffTimeoutMs) for its first byte, as the
//     remoting server sniffs it (connectiontls.cpp);
//   - 0x16 (a TLS handshake record): the connection is relayed, byte for byte, to gRPC's own TLS
//     listener on 127.0.0.1 (an ephemeral port), where the handshake and HTTP/2 happen;
//   - anything else: the descriptor goes to the server as a plain channel
//     (grpc::AddInsecureChannelFromFd): no relay, no copy;
//   - at most maxPending connections wait for their first byte: one more closes the one that
//     has waited longest, so a flood of idle connections costs a bounded number of descriptors.
//
// gRPC names such callers "fd:N" and "ipv4:127.0.0.1:port": GrpcPeers (grpcpeers.h) maps those
// to the client's real address for the handlers and the ACL.
//
// One thread (epoll) accepts, sniffs and relays.

#include "broker/grpc/grpcpeers.h"
#include "clientlib/common/status.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <memory>

namespace grpc {
class Server;
}

namespace qrocket::broker::v2 {

struct GrpcSnifferOptions
{
    QByteArray bindHost = QByteArrayLiteral("0.0.0.0");
    int port = 0; // 0: a free port
    /// How long a connection may stay silent before its first byte (then it is closed).
    int sniffTimeoutMs = 10000;
    /// How many connections may wait for their first byte at once.
    int maxPending = 256;
};

/// What the sniffer has done (tests, logs).
struct GrpcSnifferCounters
{
    std::atomic<std::uint64_t> accepted {0};
    std::atomic<std::uint64_t> plain {0}; // handed to gRPC as plain channels
    std::atomic<std::uint64_t> tls {0}; // relayed to the TLS listener
    std::atomic<std::uint64_t> timedOut {0}; // silent for sniffTimeoutMs
    std::atomic<std::uint64_t> evicted {0}; // closed for a newer one (maxPending)
    std::atomic<std::uint64_t> closedEarly {0}; // closed or failed before a byte
    std::atomic<int> pending {0}; // waiting for their first byte now
    std::atomic<int> relays {0}; // TLS relays open now
};

class GrpcPortSniffer
{
public:
    GrpcPortSniffer(GrpcSnifferOptions options, GrpcPeers &peers);
    ~GrpcPortSniffer();
    GrpcPortSniffer(const GrpcPortSniffer &) = delete;
    GrpcPortSniffer &operator=(const GrpcPortSniffer &) = delete;

    /// Binds and listens (no connection is accepted before start()).
    Status listen();
    quint16 port() const { return m_port; }
    /// Accepts from now on: plain connections go to `server`, TLS ones to 127.0.0.1:`tlsPort`.
    void start(grpc::Server *server, int tlsPort);
    /// Closes the listening socket and the connections still waiting for their first byte; no
    /// connection is handed to the server once it returns (relays go on: the server's
    /// shutdown ends them).
    void stopAccepting();
    /// Ends the thread and closes every relay.
    void stop();

    const GrpcSnifferCounters &counters() const { return m_counters; }

private:
    struct Loop;
    GrpcSnifferOptions m_options;
    GrpcPeers &m_peers;
    GrpcSnifferCounters m_counters;
    std::unique_ptr<Loop> m_loop;
    int m_listenFd = -1;
    quint16 m_port = 0;
};

} // namespace qrocket::broker::v2
