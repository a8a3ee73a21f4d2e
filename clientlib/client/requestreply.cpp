// Request/reply (RocketMQ 4.6+): Producer::request() and createReplyMessage(). The reply comes
// back as PUSH_REPLY_MESSAGE_TO_CLIENT, which the client instance hands to the waiting request.

#include "clientlib/client/producerimpl.h"

#include <QUuid>

#include <chrono>
#include <future>

namespace qrocket::client {

namespace MC = protocol::MessageConst;
using Clock = std::chrono::steady_clock;

Result<MessageExt> Producer::request(Message msg, int timeoutMs)
{
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    const auto begin = Clock::now();
    const QByteArray correlation = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    msg.setProperty(MC::CorrelationId.toByteArray(), correlation);
    msg.setProperty(MC::ReplyToClient.toByteArray(), m_impl->clientId());
    msg.setProperty(MC::Ttl.toByteArray(), QByteArray::number(timeoutMs));
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    // The broker pushes the reply over this client's producer channel, which it learns from a
    // heartbeat: make sure the topic's brokers have had one.
    auto info = m_impl->publishInfo(msg.topic(), false);
    if (!info)
        return info.error();
    (void)m_impl->instance()->sendHeartbeatToAllBrokers(true);

    auto promise = std::make_shared<std::promise<Result<MessageExt>>>();
    auto future = promise->get_future();
    m_impl->instance()->expectReply(correlation, timeoutMs,
        [promise](Result<MessageExt> r) { promise->set_value(std::move(r)); });
    auto sent = m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
    if (!sent) {
        m_impl->instance()->cancelReply(correlation);
        return sent.error();
    }
    const auto left = std::chrono::milliseconds(timeoutMs) - (Clock::now() - begin);
    if (future.wait_for(left + std::chrono::milliseconds(200)) != std::future_status::ready) {
        m_impl->instance()->cancelReply(correlation);
        return Status::timeout(QStringLiteral("no reply within %1 ms").arg(timeoutMs));
    }
    return future.get();
}

Result<Message> Producer::createReplyMessage(const MessageExt &request, QByteArray body)
{
    const QByteArray cluster = request.property(MC::Cluster);
    const QByteArray correlation = request.property(MC::CorrelationId);
    const QByteArray replyTo = request.property(MC::ReplyToClient);
    if (cluster.isEmpty() || correlation.isEmpty() || replyTo.isEmpty())
        return Status::invalidArgument(
            QStringLiteral("create reply message fail: the request message has no CLUSTER, "
                           "CORRELATION_ID or REPLY_TO_CLIENT"));
    Message reply(cluster + "_REPLY_TOPIC", std::move(body));
    reply.setProperty(MC::CorrelationId.toByteArray(), correlation);
    reply.setProperty(MC::ReplyToClient.toByteArray(), replyTo);
    reply.setProperty(MC::Ttl.toByteArray(), request.property(MC::Ttl));
    reply.setProperty(MC::MessageType.toByteArray(), "reply");
    return reply;
}

} // namespace qrocket::client
