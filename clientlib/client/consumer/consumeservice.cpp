// The consume half of PushConsumerImpl: listeners on the consume pool, the outcome of each
// (commit, send back, retry later), and the orderly per-queue loop.

#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"
#include "clientlib/client/producerimpl.h"
#include "clientlib/protocol/json.h"

#include <chrono>
#include <exception>

namespace qrocket::client {

namespace MC = protocol::MessageConst;
using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int kConsumeLaterDelayMs = 5000;
constexpr std::int64_t kMaxTimeConsumeContinuouslyMs = 60000;
} // namespace

void PushConsumerImpl::prepareForListener(std::vector<MessageExt> &msgs) const
{
    const QByteArray now = QByteArray::number(currentTimeMillis());
    for (MessageExt &m : msgs) {
        // A redelivery from %RETRY%<group> shows the topic it was first sent to.
        if (m.topic() == m_retryTopic) {
            const QByteArray original = m.property(MC::RetryTopic);
            if (!original.isEmpty())
                m.setTopic(original);
        }
        m.setProperty(MC::ConsumeStartTimestamp.toByteArray(), now);
    }
}

void PushConsumerImpl::dispatchConcurrently(const std::vector<MessageExt> &msgs,
    const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq)
{
    const std::size_t batch = static_cast<std::size_t>(m_options.consumeMessageBatchMaxSize);
    auto self = shared_from_this();
    for (std::size_t i = 0; i < msgs.size(); i += batch) {
        std::vector<MessageExt> part(msgs.begin() + static_cast<std::ptrdiff_t>(i),
            msgs.begin() + static_cast<std::ptrdiff_t>(std::min(msgs.size(), i + batch)));
        std::weak_ptr<PushConsumerImpl> weak = self;
        if (!m_consumePool->execute([weak, part = std::move(part), pq, mq]() mutable {
                if (auto s = weak.lock())
                    s->consumeConcurrently(std::move(part), pq, mq);
            }))
            return; // shutting down: what is buffered stays unconsumed and uncommitted
    }
}

void PushConsumerImpl::consumeConcurrently(
    std::vector<MessageExt> msgs, std::shared_ptr<ProcessQueue> pq, MessageQueue mq)
{
    if (pq->dropped)
        return;
    std::vector<MessageExt> forListener = msgs;
    prepareForListener(forListener);
    ConsumeConcurrentlyContext ctx;
    ctx.messageQueue = mq;
    ConsumeConcurrentlyStatus status = ConsumeConcurrentlyStatus::ReconsumeLater;
    const auto t0 = Clock::now();
    try {
        status = m_concurrentListener(forListener, ctx);
    } catch (const std::exception &e) {
        qCWarning(lcConsumer, "%s: the listener threw (%s): reconsume later",
            m_options.group.constData(), e.what());
    } catch (...) {
        qCWarning(
            lcConsumer, "%s: the listener threw: reconsume later", m_options.group.constData());
    }
    const auto rt = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
    pq->lastConsumeTimestamp = currentTimeMillis();
    TopicStats &st = stats(mq.topic);
    st.consumeRtTotalMs += rt;
    if (pq->dropped)
        return; // the queue moved elsewhere: its new owner consumes these again
    const int size = static_cast<int>(msgs.size());
    int ackIndex = status == ConsumeConcurrentlyStatus::ConsumeSuccess
        ? std::min(ctx.ackIndex, size - 1)
        : -1;
    st.consumedOk += ackIndex + 1;
    st.consumedFailed += size - ackIndex - 1;
    std::vector<MessageExt> retryLocally;
    std::vector<MessageExt> done;
    for (int i = 0; i < size; ++i) {
        if (i <= ackIndex) {
            done.push_back(msgs[static_cast<std::size_t>(i)]);
            continue;
        }
        MessageExt &m = msgs[static_cast<std::size_t>(i)];
        if (m_options.messageModel == MessageModel::Broadcasting) {
            qCWarning(lcConsumer, "%s: broadcasting consumption failed, message %s dropped",
                m_options.group.constData(), m.msgId().constData());
            done.push_back(m);
        } else if (sendMessageBack(m, ctx.delayLevelWhenNextConsume)) {
            done.push_back(m);
        } else {
            m.setReconsumeTimes(m.reconsumeTimes() + 1);
            retryLocally.push_back(m);
        }
    }
    const std::int64_t offset = pq->removeMessages(done);
    if (offset >= 0 && !pq->dropped)
        m_offsets->updateOffset(mq, offset, true);
    if (!retryLocally.empty() && m_pullScheduler) {
        std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
        m_pullScheduler->schedule(milliseconds(kConsumeLaterDelayMs), [weak, retryLocally, pq, mq] {
            auto self = weak.lock();
            if (!self || self->m_stopping)
                return;
            self->m_consumePool->execute([weak, retryLocally, pq, mq]() mutable {
                if (auto s = weak.lock())
                    s->consumeConcurrently(std::move(retryLocally), pq, mq);
            });
        });
    }
}

bool PushConsumerImpl::sendMessageBack(const MessageExt &msg, int delayLevel)
{
    const int timeout = m_instance->config().mqClientApiTimeout;
    const QByteArray brokerName = msg.brokerName();
    const QByteArray addr = m_instance->masterAddress(brokerName);
    if (!addr.isEmpty()) {
        const Status s = m_instance->api().consumerSendMessageBack(
            addr, msg, m_options.group, delayLevel, maxReconsumeTimes(), timeout);
        if (s)
            return true;
        qCDebug(lcConsumer, "send back %s to %s: %s; re-sending to %s", msg.msgId().constData(),
            addr.constData(), qPrintable(s.message()), m_retryTopic.constData());
    }
    // The broker could not take it back: send a copy to the retry topic ourselves.
    if (!m_retryProducer)
        return false;
    Message copy(m_retryTopic, msg.body());
    copy.properties() = msg.properties();
    copy.setFlag(msg.flag());
    const QByteArray origin = msg.property(MC::OriginMessageId);
    copy.setProperty(MC::OriginMessageId.toByteArray(), origin.isEmpty() ? msg.msgId() : origin);
    if (copy.property(MC::RetryTopic).isEmpty())
        copy.setProperty(MC::RetryTopic.toByteArray(), msg.topic());
    copy.setProperty(MC::ReconsumeTime.toByteArray(), QByteArray::number(msg.reconsumeTimes() + 1));
    copy.setProperty(MC::MaxReconsumeTimes.toByteArray(), QByteArray::number(maxReconsumeTimes()));
    copy.removeProperty(MC::TransactionPrepared);
    copy.setDelayTimeLevel(3 + msg.reconsumeTimes());
    auto prepared = m_retryProducer->prepare(copy);
    if (!prepared)
        return false;
    auto sent = m_retryProducer->sendPrepared(*prepared, std::nullopt, 1);
    if (!sent)
        qCWarning(lcConsumer, "%s: message %s could neither be sent back nor re-sent to %s: %s",
            m_options.group.constData(), msg.msgId().constData(), m_retryTopic.constData(),
            qPrintable(sent.error().message()));
    return sent.has_value();
}

void PushConsumerImpl::submitOrderlyLater(
    const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, int delayMs)
{
    if (m_stopping || !m_pullScheduler)
        return;
    std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
    auto submit = [weak, pq, mq] {
        auto self = weak.lock();
        if (!self || self->m_stopping)
            return;
        self->m_consumePool->execute([weak, pq, mq] {
            if (auto s = weak.lock())
                s->consumeOrderly(pq, mq);
        });
    };
    if (delayMs <= 0)
        submit();
    else
        m_pullScheduler->schedule(milliseconds(delayMs), submit);
}

void PushConsumerImpl::consumeOrderly(std::shared_ptr<ProcessQueue> pq, MessageQueue mq)
{
    if (pq->dropped)
        return;
    std::shared_ptr<std::mutex> queueLock;
    {
        std::lock_guard lock(m_mutex);
        auto &slot = m_orderlyLocks[mq];
        if (!slot)
            slot = std::make_shared<std::mutex>();
        queueLock = slot;
    }
    std::lock_guard serial(*queueLock);
    const bool clustering = m_options.messageModel == MessageModel::Clustering;
    const auto begin = Clock::now();
    for (;;) {
        if (pq->dropped || m_stopping)
            return;
        if (clustering && (!pq->locked || pq->isLockExpired(currentTimeMillis()))) {
            // Lost (or not yet renewed) the broker's lock: try again shortly.
            std::weak_ptr<PushConsumerImpl> weak = weak_from_this();
            if (m_pullScheduler)
                m_pullScheduler->schedule(milliseconds(100), [weak, pq, mq] {
                    auto self = weak.lock();
                    if (!self || pq->dropped)
                        return;
                    if (self->lockQueue(mq)) {
                        pq->locked = true;
                        pq->lastLockTimestamp = currentTimeMillis();
                        self->submitOrderlyLater(pq, mq, 10);
                    } else {
                        self->submitOrderlyLater(pq, mq, 3000);
                    }
                });
            return;
        }
        if (std::chrono::duration_cast<milliseconds>(Clock::now() - begin).count()
            > kMaxTimeConsumeContinuouslyMs) {
            submitOrderlyLater(pq, mq, 10);
            return;
        }
        std::unique_lock consuming(pq->consumeLock);
        std::vector<MessageExt> msgs = pq->takeMessages(m_options.consumeMessageBatchMaxSize);
        if (msgs.empty())
            return; // takeMessages marked the queue idle: the next pull dispatches again
        std::vector<MessageExt> forListener = msgs;
        prepareForListener(forListener);
        ConsumeOrderlyContext ctx;
        ctx.messageQueue = mq;
        ConsumeOrderlyStatus status = ConsumeOrderlyStatus::SuspendCurrentQueueAMoment;
        const auto t0 = Clock::now();
        try {
            status = m_orderlyListener(forListener, ctx);
        } catch (const std::exception &e) {
            qCWarning(lcConsumer, "%s: the orderly listener threw (%s): suspending the queue",
                m_options.group.constData(), e.what());
        } catch (...) {
            qCWarning(lcConsumer, "%s: the orderly listener threw: suspending the queue",
                m_options.group.constData());
        }
        TopicStats &st = stats(mq.topic);
        st.consumeRtTotalMs += std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
        pq->lastConsumeTimestamp = currentTimeMillis();
        if (pq->dropped)
            return;
        std::int64_t commitOffset = -1;
        bool keepGoing = true;
        if (status == ConsumeOrderlyStatus::Success) {
            st.consumedOk += static_cast<std::int64_t>(msgs.size());
            commitOffset = pq->commit();
        } else {
            st.consumedFailed += static_cast<std::int64_t>(msgs.size());
            // Messages over maxReconsumeTimes go to the DLQ; the others are tried again.
            bool suspend = false;
            for (MessageExt &m : msgs) {
                if (m.reconsumeTimes() >= maxReconsumeTimes() && sendMessageBack(m, -1))
                    continue;
                suspend = true;
                m.setReconsumeTimes(m.reconsumeTimes() + 1);
            }
            if (suspend) {
                pq->makeMessagesToConsumeAgain(msgs);
                const std::int64_t wait = ctx.suspendCurrentQueueTimeMillis >= 0
                    ? ctx.suspendCurrentQueueTimeMillis
                    : m_options.suspendCurrentQueueTimeMillis;
                consuming.unlock();
                submitOrderlyLater(
                    pq, mq, static_cast<int>(std::clamp<std::int64_t>(wait, 10, 30000)));
                keepGoing = false;
            } else {
                commitOffset = pq->commit();
            }
        }
        if (commitOffset >= 0 && !pq->dropped)
            m_offsets->updateOffset(mq, commitOffset, false);
        if (!keepGoing)
            return;
    }
}

QByteArray PushConsumerImpl::consumeMessageDirectly(
    const MessageExt &msg, const QByteArray &brokerName)
{
    (void)brokerName;
    std::vector<MessageExt> msgs {msg};
    prepareForListener(msgs);
    const auto t0 = Clock::now();
    QByteArray result = "CR_SUCCESS";
    QByteArray remark;
    try {
        if (orderly()) {
            ConsumeOrderlyContext ctx;
            ctx.messageQueue = msg.messageQueue();
            result = m_orderlyListener(msgs, ctx) == ConsumeOrderlyStatus::Success ? "CR_SUCCESS"
                                                                                   : "CR_LATER";
        } else {
            ConsumeConcurrentlyContext ctx;
            ctx.messageQueue = msg.messageQueue();
            result = m_concurrentListener(msgs, ctx) == ConsumeConcurrentlyStatus::ConsumeSuccess
                ? "CR_SUCCESS"
                : "CR_LATER";
        }
    } catch (const std::exception &e) {
        result = "CR_THROW_EXCEPTION";
        remark = e.what();
    }
    const auto spent = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
    protocol::JsonWriter w;
    w.beginObject();
    w.key("autoCommit").value(true);
    w.key("consumeResult").value(result);
    w.key("order").value(orderly());
    w.key("remark").value(remark);
    w.key("spentTimeMills").value(static_cast<std::int64_t>(spent));
    w.endObject();
    return w.take();
}

} // namespace qrocket::client
