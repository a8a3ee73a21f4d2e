// The push consumer's POP mode (see "POP mode" in pushconsumer.h): the POP assignments the
// brokers give at each rebalance (RebalanceImpl::rebalanceByBroker), one long-polling pop loop
// per assignment on the pull thread, and the acks and back-offs of what the listener did.

#include "clientlib/client/consumer/popcalls.h"
#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"
#include "clientlib/protocol/popcodes.h"

#include <chrono>

namespace qrocket::client {

namespace popcode = protocol::popcode;
using std::chrono::milliseconds;

bool PushConsumerImpl::clientRebalance(const QByteArray &topic) const
{
    (void)topic;
    // As RocketMQ 5.3: orderly and broadcasting consumers always allocate for themselves.
    return m_options.clientRebalance || orderly()
        || m_options.messageModel == MessageModel::Broadcasting;
}

bool PushConsumerImpl::updatePopQueueTable(
    const QByteArray &topic, const std::set<MessageQueue> &wanted)
{
    const std::int64_t now = currentTimeMillis();
    std::vector<MessageQueue> added;
    std::vector<std::pair<MessageQueue, std::shared_ptr<PopProcessQueue>>> removed;
    std::vector<PopRequest> start;
    {
        std::lock_guard lock(m_mutex);
        // A loop whose pops stopped (answer lost) is dropped and started anew.
        removed = diffQueueTable(
            m_popQueues, topic, wanted,
            [now](const std::shared_ptr<PopProcessQueue> &pq) { return pq->isPopExpired(now); },
            added);
        for (const MessageQueue &mq : added) {
            auto pq = std::make_shared<PopProcessQueue>();
            pq->lastPopTimestamp = now;
            m_popQueues.emplace(mq, pq);
            start.push_back({mq, std::move(pq)});
        }
    }
    for (auto &[mq, pq] : removed)
        pq->dropped = true;
    for (PopRequest &r : start)
        executePopLater(std::move(r), 0);
    return !removed.empty() || !start.empty();
}

void PushConsumerImpl::dropPopQueues()
{
    std::lock_guard lock(m_mutex);
    for (auto &[mq, pq] : m_popQueues)
        pq->dropped = true;
    m_popQueues.clear();
}

void PushConsumerImpl::executePopLater(PopRequest request, int delayMs)
{
    if (m_stopping || !m_pullScheduler)
        return;
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    m_pullScheduler->schedule(
        milliseconds(delayMs), [weak, request = std::move(request)]() mutable {
            if (auto self = weak.lock())
                self->executePop(std::move(request));
        });
}

void PushConsumerImpl::executePop(PopRequest request)
{
    const std::shared_ptr<PopProcessQueue> &pq = request.pq;
    if (pq->dropped || m_stopping)
        return;
    pq->lastPopTimestamp = currentTimeMillis();
    if (m_paused) {
        executePopLater(std::move(request), 1000);
        return;
    }
    if (pq->waitAck.load() > m_options.popThresholdForQueue) {
        executePopLater(std::move(request), 50); // flow control: the listener is behind
        return;
    }
    const std::optional<protocol::SubscriptionData> sub = subscription(request.mq.topic);
    if (!sub)
        return; // unsubscribed meanwhile: the rebalance drops the assignment
    const QByteArray addr = m_instance->masterAddress(request.mq.brokerName);
    if (addr.isEmpty()) {
        onPopError(std::move(request),
            Status::notFound(QStringLiteral("no master address of %1")
                                 .arg(QString::fromUtf8(request.mq.brokerName))));
        return;
    }
    const bool fromFirst
        = m_options.consumeFromWhere == protocol::ConsumeFromWhere::ConsumeFromFirstOffset;
    const protocol::PopMessageRequestHeader h
        = pop::popHeader(m_options.group, *sub, request.mq.queueId, m_options.popBatchNums,
            m_options.popInvisibleTime, m_options.brokerSuspendMaxTimeMillis, fromFirst);
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    const auto issued = std::chrono::steady_clock::now();
    m_instance->api().invokeAsync(addr, m_instance->api().request(popcode::PopMessage, h),
        m_options.consumerTimeoutMillisWhenSuspend,
        [weak, request, issued](Result<RemotingCommand> r) mutable {
            // I/O thread: straight to the pull thread.
            auto self = weak.lock();
            if (!self || self->m_stopping)
                return;
            TopicStats &st = self->stats(request.mq.topic);
            ++st.pulls;
            st.pullRtTotalMs += std::chrono::duration_cast<milliseconds>(
                std::chrono::steady_clock::now() - issued)
                                    .count();
            self->m_pullScheduler->post(
                [weak, request = std::move(request), r = std::move(r)]() mutable {
                    if (auto s = weak.lock())
                        s->onPopResult(std::move(request), std::move(r));
                });
        });
}

void PushConsumerImpl::onPopResult(PopRequest request, Result<RemotingCommand> result)
{
    if (request.pq->dropped || m_stopping)
        return; // what it brought comes back after its invisible time
    if (!result) {
        onPopError(std::move(request), result.error());
        return;
    }
    auto msgs = pop::parsePopResponse(*result, request.mq.brokerName);
    if (!msgs) {
        onPopError(std::move(request), msgs.error());
        return;
    }
    qCDebug(lcConsumer, "popped %zu messages of %s/%s/%d", msgs->size(),
        request.mq.topic.constData(), request.mq.brokerName.constData(), request.mq.queueId);
    if (msgs->empty()) {
        executePopLater(std::move(request), 0); // the broker held the pop: ask again
        return;
    }
    const auto n = static_cast<std::int64_t>(msgs->size());
    stats(request.mq.topic).pulled += n;
    request.pq->waitAck += n;
    m_popConsumeService->submitPop(std::move(msgs).value(), request.pq, request.mq);
    executePopLater(std::move(request), m_options.pullInterval);
}

void PushConsumerImpl::onPopError(PopRequest request, const Status &error)
{
    static std::atomic<std::int64_t> lastWarn {0};
    const std::int64_t now = currentTimeMillis();
    if (now - lastWarn.load() > 5000) {
        lastWarn = now;
        qCWarning(lcConsumer, "pop %s/%s/%d for %s: %s", request.mq.topic.constData(),
            request.mq.brokerName.constData(), request.mq.queueId, m_options.group.constData(),
            qPrintable(error.message()));
    }
    const int code = error.remoteCode();
    if (code == 24 || code == 25) // SUBSCRIPTION_NOT_EXIST / NOT_LATEST: heartbeat first
        (void)m_instance->sendHeartbeatToAllBrokers(false);
    std::weak_ptr<ClientInstance> weakInstance = m_instance;
    const QByteArray topic = request.mq.topic;
    m_instance->scheduler().post([weakInstance, topic] {
        if (auto i = weakInstance.lock())
            (void)i->refreshTopicRoute(topic);
    });
    executePopLater(std::move(request), m_options.pullTimeDelayMillsWhenException);
}

void PushConsumerImpl::popAck(const MessageExt &msg)
{
    auto handle = pop::receiptOf(msg);
    if (!handle)
        return;
    const QByteArray addr = m_instance->masterAddress(handle->brokerName);
    if (addr.isEmpty())
        return; // comes back after its invisible time
    const QByteArray group = m_options.group;
    const QByteArray msgId = msg.msgId();
    m_instance->api().invokeAsync(addr,
        m_instance->api().request(popcode::AckMessage, pop::ackHeader(group, msg, *handle)),
        m_instance->config().mqClientApiTimeout, [group, msgId](Result<RemotingCommand> r) {
            const Status s = ClientApi::expectSuccess(std::move(r)).status();
            if (!s)
                qCInfo(lcConsumer, "%s: ack of %s: %s (it is delivered again)", group.constData(),
                    msgId.constData(), qPrintable(s.message()));
        });
}

void PushConsumerImpl::popLater(const MessageExt &msg, int invisibleMillis)
{
    auto handle = pop::receiptOf(msg);
    if (!handle)
        return;
    const QByteArray addr = m_instance->masterAddress(handle->brokerName);
    if (addr.isEmpty())
        return; // comes back after its invisible time anyway
    const QByteArray group = m_options.group;
    const QByteArray msgId = msg.msgId();
    m_instance->api().invokeAsync(addr,
        m_instance->api().request(popcode::ChangeMessageInvisibleTime,
            pop::changeInvisibleHeader(group, msg, *handle, invisibleMillis)),
        m_instance->config().mqClientApiTimeout, [group, msgId](Result<RemotingCommand> r) {
            const Status s = ClientApi::expectSuccess(std::move(r)).status();
            if (!s)
                qCInfo(lcConsumer, "%s: consume later of %s: %s", group.constData(),
                    msgId.constData(), qPrintable(s.message()));
        });
}

} // namespace qrocket::client
