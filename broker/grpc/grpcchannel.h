#pragma once

// How the gRPC service reaches the broker's request processors: each gRPC client (its
// x-mq-client-id) is a remoting::Channel of its own, and an RPC becomes one or more internal
// RemotingCommand requests dispatched through the same ProcessorTable the remoting ports use (as
// RocketMQ 5's proxy does in local mode). The ACL guard, the executors (send, pull, client
// pools), inline processors, long polling, the consumer and producer managers' client records:
// all shared with remoting clients, with no second send or consume path.
//
// A processor answers through the request's Responder, which calls Channel::send() with the
// response (any thread, possibly at once on the calling thread for an inline processor); the
// channel hands it to the callback registered for that opaque. A request not answered within
// its timeout (a Responder dropped unanswered, a broker shutting down) is completed by
// expire() with kTimeoutCode, so no RPC waits for ever.
//
// Thread-safe.

#include "clientlib/remoting/processortable.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace qrocket::broker::v2 {

using protocol::RemotingCommand;

/// The code a call completes with when its processor did not answer in time.
inline constexpr int kTimeoutCode = -1;

/// Where requests the broker pushes to a gRPC client go: the client's open Telemetry stream.
class ClientStream
{
public:
    virtual ~ClientStream() = default;
    /// Queues `request` for the client; false when it is not carried (the stream has ended,
    /// its outbound queue is full, or the request has no gRPC form).
    virtual bool push(const RemotingCommand &request) = 0;
};

class GrpcChannel final : public remoting::Channel
{
public:
    using Done = std::function<void(RemotingCommand)>;

    GrpcChannel(QByteArray clientId, QByteArray remoteAddress);

    std::uint64_t id() const override { return m_id; }
    QByteArray remoteAddress() const override { return m_remoteAddress; }
    bool isActive() const override { return m_active.load(std::memory_order_acquire); }
    void close() override;
    /// A processor's response: completes the call waiting for its opaque (others are dropped:
    /// requests the broker pushes to clients have no gRPC form yet).
    void send(RemotingCommand cmd) override;
    /// Broker-to-client requests that expect an answer have no gRPC form: answered at once as
    /// Unavailable.
    void invokeAsync(
        RemotingCommand request, int timeoutMillis, remoting::InvokeCallback callback) override;
    /// A oneway request (CHECK_TRANSACTION_STATE) goes to the client's open Telemetry stream;
    /// dropped when there is none (the broker's check tries again at its next pass).
    void invokeOneway(RemotingCommand request) override;
    /// The client's Telemetry stream (the newest one opened; it expires when the stream ends).
    void attachStream(std::weak_ptr<ClientStream> stream);
    std::weak_ptr<ClientStream> stream() const;

    const QByteArray &clientId() const { return m_clientId; }

    /// Dispatches `request` through `table` as if it had arrived on this channel; `done` runs
    /// exactly once with the response (or kTimeoutCode after `timeoutMs`), on any thread.
    static void call(const std::shared_ptr<GrpcChannel> &self,
        const remoting::ProcessorTable &table, RemotingCommand request, int timeoutMs, Done done);
    /// Completes the calls whose deadline has passed (the server's housekeeping thread).
    void expire(std::chrono::steady_clock::time_point now);
    /// Calls still waiting (tests, shutdown).
    std::size_t pendingCalls() const;

private:
    struct Pending
    {
        Done done;
        std::chrono::steady_clock::time_point deadline;
    };
    Done take(int opaque);

    const std::uint64_t m_id;
    const QByteArray m_clientId;
    const QByteArray m_remoteAddress;
    std::atomic<bool> m_active {true};
    std::atomic<int> m_nextOpaque {1};
    mutable std::mutex m_mutex;
    std::unordered_map<int, Pending> m_pending; // guarded by m_mutex
    std::weak_ptr<ClientStream> m_stream; // guarded by m_mutex
};
using GrpcChannelPtr = std::shared_ptr<GrpcChannel>;

/// The channels of the connected gRPC clients, by client id. A client that makes no call for
/// `idleTimeout` (and has none waiting) is forgotten: gRPC has no connection per client to
/// close, so this is how a client that vanished without NotifyClientTermination goes (its
/// consumer and producer records expire in the managers as a silent remoting client's do).
/// Thread-safe.
class GrpcClientRegistry
{
public:
    explicit GrpcClientRegistry(std::chrono::milliseconds idleTimeout = std::chrono::minutes(2))
        : m_idleTimeout(idleTimeout)
    { }

    /// The live channel of `clientId` (created on first use, replaced once closed); an empty
    /// id gets a channel of its own each time (one request's).
    GrpcChannelPtr channelFor(const QByteArray &clientId, const QByteArray &peer);
    /// Removes and closes the client's channel; null when there was none.
    GrpcChannelPtr remove(const QByteArray &clientId);
    /// Completes overdue calls and forgets idle clients.
    void expireAll(std::chrono::steady_clock::time_point now);
    std::size_t size() const;

private:
    struct Entry
    {
        GrpcChannelPtr channel;
        std::chrono::steady_clock::time_point lastUsed;
    };
    const std::chrono::milliseconds m_idleTimeout;
    mutable std::mutex m_mutex;
    std::map<QByteArray, Entry> m_channels; // guarded by m_mutex
    std::vector<std::weak_ptr<GrpcChannel>> m_anonymous; // guarded by m_mutex
};

} // namespace qrocket::broker::v2
