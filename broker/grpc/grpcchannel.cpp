#include "broker/grpc/grpcchannel.h"

#include <utility>
#include <vector>

namespace qrocket::broker::v2 {

namespace {

std::uint64_t nextChannelId()
{
    // Above the remoting connections' ids (a counter from 1), so the managers' tables, which
    // key clients by channel id, never confuse the two.
    static std::atomic<std::uint64_t> counter {1};
    return (std::uint64_t {1} << 62) + counter.fetch_add(1, std::memory_order_relaxed);
}

RemotingCommand failure(int code, QByteArray remark)
{
    RemotingCommand r;
    r.code = code;
    r.remark = std::move(remark);
    r.markResponse();
    return r;
}

} // namespace

GrpcChannel::GrpcChannel(QByteArray clientId, QByteArray remoteAddress)
    : m_id(nextChannelId())
    , m_clientId(std::move(clientId))
    , m_remoteAddress(std::move(remoteAddress))
{ }

void GrpcChannel::close()
{
    m_active.store(false, std::memory_order_release);
}

GrpcChannel::Done GrpcChannel::take(int opaque)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_pending.find(opaque);
    if (it == m_pending.end())
        return {};
    Done done = std::move(it->second.done);
    m_pending.erase(it);
    return done;
}

void GrpcChannel::send(RemotingCommand cmd)
{
    if (!cmd.isResponse())
        return;
    if (Done done = take(cmd.opaque))
        done(std::move(cmd));
}

void GrpcChannel::invokeAsync(RemotingCommand, int, remoting::InvokeCallback callback)
{
    if (callback)
        callback(Status::unavailable(QStringLiteral("gRPC client channel: no server requests")));
}

void GrpcChannel::invokeOneway(RemotingCommand request)
{
    if (const std::shared_ptr<ClientStream> s = stream().lock())
        s->push(request);
}

void GrpcChannel::attachStream(std::weak_ptr<ClientStream> stream)
{
    std::lock_guard lock(m_mutex);
    m_stream = std::move(stream);
}

std::weak_ptr<ClientStream> GrpcChannel::stream() const
{
    std::lock_guard lock(m_mutex);
    return m_stream;
}

void GrpcChannel::call(const std::shared_ptr<GrpcChannel> &self,
    const remoting::ProcessorTable &table, RemotingCommand request, int timeoutMs, Done done)
{
    const int opaque = self->m_nextOpaque.fetch_add(1, std::memory_order_relaxed) & 0x7fffffff;
    request.opaque = opaque;
    request.flag &= ~RemotingCommand::kFlagOneway;
    {
        std::lock_guard lock(self->m_mutex);
        self->m_pending[opaque] = Pending {std::move(done),
            std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs)};
    }
    table.dispatch(self, std::move(request));
}

void GrpcChannel::expire(std::chrono::steady_clock::time_point now)
{
    std::vector<Done> overdue;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_pending.begin(); it != m_pending.end();) {
            if (it->second.deadline <= now) {
                overdue.push_back(std::move(it->second.done));
                it = m_pending.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (Done &d : overdue)
        d(failure(kTimeoutCode, QByteArrayLiteral("the broker did not answer in time")));
}

std::size_t GrpcChannel::pendingCalls() const
{
    std::lock_guard lock(m_mutex);
    return m_pending.size();
}

GrpcChannelPtr GrpcClientRegistry::channelFor(const QByteArray &clientId, const QByteArray &peer)
{
    std::lock_guard lock(m_mutex);
    if (clientId.isEmpty()) {
        auto ch = std::make_shared<GrpcChannel>(QByteArray(), peer);
        std::erase_if(m_anonymous, [](const std::weak_ptr<GrpcChannel> &w) { return w.expired(); });
        m_anonymous.push_back(ch);
        return ch;
    }
    Entry &slot = m_channels[clientId];
    if (!slot.channel || !slot.channel->isActive()) {
        auto fresh = std::make_shared<GrpcChannel>(clientId, peer);
        if (slot.channel) // the client's open Telemetry stream stays its stream
            fresh->attachStream(slot.channel->stream());
        slot.channel = std::move(fresh);
    }
    slot.lastUsed = std::chrono::steady_clock::now();
    return slot.channel;
}

GrpcChannelPtr GrpcClientRegistry::remove(const QByteArray &clientId)
{
    std::lock_guard lock(m_mutex);
    const auto it = m_channels.find(clientId);
    if (it == m_channels.end())
        return {};
    GrpcChannelPtr ch = std::move(it->second.channel);
    m_channels.erase(it);
    ch->close();
    return ch;
}

void GrpcClientRegistry::expireAll(std::chrono::steady_clock::time_point now)
{
    std::vector<GrpcChannelPtr> all;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_channels.begin(); it != m_channels.end();) {
            all.push_back(it->second.channel);
            const bool idle = now == std::chrono::steady_clock::time_point::max()
                || now - it->second.lastUsed > m_idleTimeout;
            if (idle && it->second.channel->pendingCalls() == 0) {
                it->second.channel->close();
                it = m_channels.erase(it);
            } else {
                ++it;
            }
        }
        for (const auto &w : m_anonymous)
            if (auto ch = w.lock())
                all.push_back(std::move(ch));
    }
    for (const GrpcChannelPtr &ch : all)
        ch->expire(now);
}

std::size_t GrpcClientRegistry::size() const
{
    std::lock_guard lock(m_mutex);
    return m_channels.size();
}

} // namespace qrocket::broker::v2
