#pragma once

// The request-code -> processor contract shared by RemotingServer (inbound requests from clients)
// and RemotingClient (requests the server pushes back over a client's connection, e.g.
// NOTIFY_CONSUMER_IDS_CHANGED). RocketMQ's NettyRequestProcessor: processRequest + rejectRequest.

#include "clientlib/common/result.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace qrocket::remoting {

using protocol::RemotingCommand;

/// Completion of an invocation: the response, or Timeout / Unavailable (connection lost) / IoError.
using InvokeCallback = std::function<void(Result<RemotingCommand>)>;

/// One connection as processors see it. Thread-safe: every method may be called from any thread
/// (work is posted to the connection's I/O thread). Holding a Channel does not keep the socket
/// open; after the peer disconnects isActive() is false and sends are dropped.
class Channel
{
public:
    virtual ~Channel() = default;

    /// Unique for the process lifetime (never reused).
    virtual std::uint64_t id() const = 0;
    /// Peer as "a.b.c.d:port" (IPv4-mapped IPv6 peers reported as IPv4) or "[v6]:port".
    virtual QByteArray remoteAddress() const = 0;
    /// The peer as a record's host field (bornHost); false when remoteAddress() does not parse.
    /// Parsed once per address by the server's channels, not once per message.
    virtual bool remoteHost(protocol::HostAddress &out) const
    {
        return protocol::HostAddress::parse(remoteAddress(), out);
    }
    virtual bool isActive() const = 0;
    virtual void close() = 0;

    /// Sends a frame as is (a response, or a oneway request).
    virtual void send(RemotingCommand cmd) = 0;
    /// Sends `frame`, one or more complete frames already encoded, as send() would send their
    /// commands (dropped once the channel is closed). False when this channel takes commands
    /// only (nothing sent: use send()). The server's channels take bytes.
    virtual bool sendEncoded(QByteArrayView frame)
    {
        static_cast<void>(frame);
        return false;
    }
    /// Sends a request with a fresh opaque and completes `callback` exactly once with the response,
    /// Timeout, or Unavailable (connection closed before the answer). The callback runs on the
    /// connection's I/O thread, or at once on the calling thread when the channel is already
    /// closed; it must not block.
    virtual void invokeAsync(RemotingCommand request, int timeoutMillis, InvokeCallback callback)
        = 0;
    /// Marks the request oneway, gives it a fresh opaque and sends it.
    virtual void invokeOneway(RemotingCommand request) = 0;
    /// Remoting internal, called by Responder: a request that arrived on this channel was
    /// answered, or its Responder was destroyed unanswered (a server's in-flight cap counts
    /// them). Processors never call it.
    virtual void releaseRequest() { }
};
using ChannelPtr = std::shared_ptr<Channel>;

/// Replies to one request. Call it exactly once, from any thread, at any later time (long polling
/// holds it); for oneway requests it must not be called. Destroying it unanswered answers nothing.
///
/// A value, not a std::function: the server's responder (a channel, the request's opaque and
/// serialize type) is 24 bytes, more than std::function keeps without a heap allocation, and
/// every request makes one. Any other callable (tests, adapters) is held as a std::function.
///
/// The responder the server makes for a request also holds the request's in-flight slot
/// (Channel::releaseRequest): released once, when it answers or when it is destroyed unanswered.
/// A move passes the slot on; a copy answers like the original but holds no slot.
class Responder
{
public:
    /// Answers nothing (the responder of a oneway request).
    Responder() = default;
    /// Answers on `channel` as a response to the request `opaque`, in `serializeType`.
    /// `holdsSlot`: release the channel's in-flight slot of the request (the server's own).
    Responder(ChannelPtr channel, int opaque, protocol::SerializeType serializeType,
        bool holdsSlot = false)
        : m_channel(std::move(channel))
        , m_opaque(opaque)
        , m_serializeType(serializeType)
        , m_holdsSlot(holdsSlot)
    { }
    Responder(const Responder &other)
        : m_channel(other.m_channel)
        , m_opaque(other.m_opaque)
        , m_serializeType(other.m_serializeType)
        , m_sink(other.m_sink)
    { }
    Responder(Responder &&other) noexcept
        : m_channel(std::move(other.m_channel))
        , m_opaque(other.m_opaque)
        , m_serializeType(other.m_serializeType)
        , m_holdsSlot(std::exchange(other.m_holdsSlot, false))
        , m_sink(std::move(other.m_sink))
    { }
    Responder &operator=(const Responder &other)
    {
        if (this != &other)
            *this = Responder(other);
        return *this;
    }
    Responder &operator=(Responder &&other) noexcept
    {
        if (this != &other) {
            releaseSlot();
            m_channel = std::move(other.m_channel);
            m_opaque = other.m_opaque;
            m_serializeType = other.m_serializeType;
            m_holdsSlot = std::exchange(other.m_holdsSlot, false);
            m_sink = std::move(other.m_sink);
        }
        return *this;
    }
    ~Responder() { releaseSlot(); }
    /// Hands the response to `sink` as is.
    template<class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>,
                 Responder> && std::is_invocable_v<F &, RemotingCommand>) Responder(F &&sink)
        : m_sink(std::forward<F>(sink))
    { }

    void operator()(RemotingCommand response) const;

    /// Answers with a response the caller encodes itself, for a hot path that would otherwise
    /// build a RemotingCommand only to encode it: `encode(opaque, out)` appends to `out` one
    /// complete frame with a JSON header answering the request `opaque` (flag RESPONSE). Only a
    /// server's responder on a channel that takes bytes, for a JSON-serialized request, can:
    /// elsewhere (a sink, a oneway request, a binary header) it answers nothing and returns
    /// false, and the caller answers with operator() instead.
    template<class Encode>
    bool answerEncoded(Encode &&encode) const
    {
        if (m_sink || !m_channel || m_serializeType != protocol::SerializeType::Json)
            return false;
        thread_local QByteArray frame; // reused: no allocation per answer
        frame.resize(0);
        encode(m_opaque, frame);
        if (!m_channel->sendEncoded(frame))
            return false;
        releaseSlot();
        return true;
    }

private:
    void releaseSlot() const
    {
        if (m_holdsSlot) {
            m_holdsSlot = false;
            m_channel->releaseRequest();
        }
    }

    ChannelPtr m_channel;
    int m_opaque = 0;
    protocol::SerializeType m_serializeType = protocol::SerializeType::Json;
    mutable bool m_holdsSlot = false; // released by the first answer, or by the destructor
    std::function<void(RemotingCommand)> m_sink;
};

class RequestProcessor
{
public:
    virtual ~RequestProcessor() = default;

    /// Runs on the executor the processor was registered with. Exceptions thrown here are caught
    /// by the server and answered with SYSTEM_ERROR (1) and the exception text.
    virtual void processRequest(
        const ChannelPtr &channel, RemotingCommand request, Responder respond)
        = 0;
    /// true = answer SYSTEM_BUSY (2) "[REJECTREQUEST]system busy, start flow control for a while"
    /// without calling processRequest (back-pressure, e.g. page cache busy).
    virtual bool rejectRequest() const { return false; }
    /// true = this request is cheap and cannot block (no disk, no lock held long), so it runs at
    /// once on the connection's I/O thread even though the processor was registered with an
    /// executor: no hand-off to a pool and back, which on a send costs more than the work itself.
    /// Called on the I/O thread before processRequest; must be fast and thread-safe. A request
    /// run inline has a body sharing the connection's receive buffer: keeping it (or a copy of
    /// the QByteArray) past processRequest keeps that buffer's memory, so copy what must stay.
    virtual bool runsInline(const RemotingCommand &) const { return false; }
};
using RequestProcessorPtr = std::shared_ptr<RequestProcessor>;

/// Checks every request of a server before its processor runs (RocketMQ's server-side
/// RPCHook.doBeforeRequest): access control. Runs on the thread the processor would run on (an
/// executor, or the I/O thread for inline processors); must be thread-safe and must not block.
class RequestGuard
{
public:
    virtual ~RequestGuard() = default;
    struct Refusal
    {
        int code = 1;
        QByteArray remark;
    };
    /// nullopt: the request goes to its processor; else it is answered with the refusal (a
    /// oneway request is dropped) and the processor never sees it.
    virtual std::optional<Refusal> check(
        const Channel &channel, const RemotingCommand &request) const = 0;
};
using RequestGuardPtr = std::shared_ptr<const RequestGuard>;

} // namespace qrocket::remoting
