// Producer (producer.h): the public sending API over ProducerImpl's send engine; the selectors.
// Transactions are in transactionproducer.cpp, request/reply in requestreply.cpp.

#include "clientlib/client/producer.h"

#include "clientlib/client/producerimpl.h"
#include "clientlib/common/hash.h"
#include "clientlib/common/tsanannotations.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/systemtopics.h"

#include <QPointer>
#include <QRandomGenerator>

#include <thread>

namespace qrocket::client {

// -- Producer ---------------------------------------------------------------------------------

Producer::Producer(ProducerOptions options)
    : m_impl(std::make_shared<ProducerImpl>(std::move(options)))
{ }

Producer::~Producer()
{
    m_impl->shutdown();
}

Status Producer::start()
{
    return m_impl->start();
}

void Producer::shutdown()
{
    m_impl->shutdown();
}

bool Producer::isStarted() const
{
    return m_impl->isStarted();
}

const ProducerOptions &Producer::options() const
{
    return m_impl->options();
}

QByteArray Producer::clientId() const
{
    return m_impl->clientId();
}

Result<SendResult> Producer::sendSync(Message msg)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
}

Result<SendResult> Producer::sendSync(Message msg, const MessageQueue &queue)
{
    if (queue.topic != msg.topic())
        return Status::invalidArgument(QStringLiteral("message's topic not equal mq's topic"));
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPrepared(*p, queue, 0);
}

Result<SendResult> Producer::sendSync(Message msg, const MessageQueueSelector &selector)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    auto info = m_impl->publishInfo(msg.topic(), false);
    if (!info)
        return info.error();
    const MessageQueue mq = selector((*info)->queues, msg);
    if (mq.topic.isEmpty())
        return Status::invalidArgument(QStringLiteral("select message queue return null."));
    return m_impl->sendPrepared(*p, mq, 0);
}

void Producer::sendAsync(Message msg, SendCallback callback)
{
    auto p = m_impl->prepare(msg);
    if (!p) {
        std::thread([callback = std::move(callback), e = p.error()] { callback(e); }).detach();
        return;
    }
    m_impl->sendPreparedAsync(std::move(p).value(), std::nullopt,
        m_impl->options().retryTimesWhenSendAsyncFailed, std::move(callback));
}

void Producer::sendAsync(Message msg, const MessageQueue &queue, SendCallback callback)
{
    auto p = m_impl->prepare(msg);
    if (!p) {
        std::thread([callback = std::move(callback), e = p.error()] { callback(e); }).detach();
        return;
    }
    m_impl->sendPreparedAsync(std::move(p).value(), queue, 0, std::move(callback));
}

void Producer::sendAsync(Message msg, QObject *context, SendCallback callback)
{
    QPointer<QObject> guard(context);
    sendAsync(std::move(msg), [guard, callback = std::move(callback)](Result<SendResult> r) {
        if (!guard)
            return;
        invokeOn(
            guard.data(), [callback, r = std::move(r)]() mutable { callback(std::move(r)); },
            Qt::QueuedConnection);
    });
}

Status Producer::sendOneway(Message msg)
{
    auto p = m_impl->prepare(msg);
    if (!p)
        return p.error();
    return m_impl->sendPreparedOneway(*p, std::nullopt);
}

Result<std::vector<SendResult>> Producer::sendBatch(std::vector<Message> messages)
{
    if (messages.empty())
        return Status::invalidArgument(QStringLiteral("the batch is empty"));
    const Message &first = messages.front();
    for (const Message &m : messages) {
        if (Status s = m_impl->validate(m); !s)
            return s;
        if (m.topic() != first.topic())
            return Status::invalidArgument(
                QStringLiteral("The topic of the messages in one batch should be the same"));
        if (m.delayTimeLevel() > 0)
            return Status::invalidArgument(
                QStringLiteral("TimeDelayLevel is not supported for batching"));
        if (m.topic().startsWith(protocol::topics::kRetryPrefix))
            return Status::invalidArgument(
                QStringLiteral("Retry Group is not supported for batching"));
        if (m.waitStoreMsgOK() != first.waitStoreMsgOK())
            return Status::invalidArgument(
                QStringLiteral("The waitStoreMsgOK of the messages in one batch should the same"));
    }
    // Split by encoded size (22 bytes of framing per message, protocol.md §5.7).
    std::vector<SendResult> results;
    std::size_t begin = 0;
    while (begin < messages.size()) {
        qint64 size = 0;
        std::size_t end = begin;
        while (end < messages.size()) {
            const qint64 one = protocol::kBatchItemOverhead + messages[end].body().size()
                + messages[end].properties().encode().size() + 64; // + UNIQ_KEY
            if (end > begin && size + one > m_impl->options().maxMessageSize)
                break;
            size += one;
            ++end;
        }
        auto p = m_impl->prepareBatch(messages, begin, end);
        if (!p)
            return p.error();
        auto r = m_impl->sendPrepared(*p, std::nullopt, m_impl->options().retryTimesWhenSendFailed);
        if (!r) {
            if (results.empty())
                return r.error();
            return Status(r.error().code(),
                QStringLiteral("batch request %1 failed after %2 were sent (%3 messages): %4")
                    .arg(results.size() + 1)
                    .arg(results.size())
                    .arg(begin)
                    .arg(r.error().message()));
        }
        results.push_back(std::move(r).value());
        begin = end;
    }
    return results;
}

Result<std::vector<MessageQueue>> Producer::fetchPublishMessageQueues(const QByteArray &topic)
{
    if (!m_impl->isStarted())
        return Status::unavailable(
            QStringLiteral("The producer service state not OK, not started or shut down"));
    auto info = m_impl->publishInfo(topic, false);
    if (!info)
        return info.error();
    return (*info)->queues;
}

namespace selectors {

MessageQueueSelector byHash(QByteArray key)
{
    return [key = std::move(key)](const std::vector<MessageQueue> &queues, const Message &) {
        if (queues.empty())
            return MessageQueue();
        const std::int64_t h = javaStringHash(key);
        const std::int64_t index = (h < 0 ? -h : h) % static_cast<std::int64_t>(queues.size());
        return queues[static_cast<std::size_t>(index)];
    };
}

MessageQueueSelector random()
{
    return [](const std::vector<MessageQueue> &queues, const Message &) {
        if (queues.empty())
            return MessageQueue();
        return queues[QRandomGenerator::global()->bounded(static_cast<quint32>(queues.size()))];
    };
}

} // namespace selectors

} // namespace qrocket::client
