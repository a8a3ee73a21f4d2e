#include "clientlib/client/consumer/orderlyconsumeservice.h"

#include "clientlib/client/consumer/pushconsumerimpl.h"

#include <algorithm>
#include <chrono>

namespace qrocket::client {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {
constexpr std::int64_t kMaxTimeConsumeContinuouslyMs = 60000;
} // namespace

OrderlyConsumeService::OrderlyConsumeService(PushConsumerImpl &consumer, OrderlyListener listener)
    : ConsumeService(consumer), m_listener(std::move(listener))
{ }

void OrderlyConsumeService::submitConsumeRequest(std::vector<MessageExt> &&msgs,
    const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, bool dispatch)
{
    (void)msgs; // the task takes them from the process queue, in offset order
    if (dispatch)
        submitLater(pq, mq, 0);
}

void OrderlyConsumeService::submitLater(
    const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, int delayMs)
{
    if (m_consumer.m_stopping || !m_consumer.m_pullScheduler)
        return;
    std::weak_ptr<PushConsumerImpl> weak = m_consumer.weak_from_this();
    auto self = std::static_pointer_cast<OrderlyConsumeService>(shared_from_this());
    auto submit = [weak, self, pq, mq] {
        auto consumer = weak.lock();
        if (!consumer || consumer->m_stopping)
            return;
        consumer->m_consumePool->execute([weak, self, pq, mq] {
            if (auto c = weak.lock())
                self->consume(pq, mq);
        });
    };
    if (delayMs <= 0)
        submit();
    else
        m_consumer.m_pullScheduler->schedule(milliseconds(delayMs), submit);
}

void OrderlyConsumeService::consume(std::shared_ptr<ProcessQueue> pq, MessageQueue mq)
{
    if (pq->dropped)
        return;
    std::shared_ptr<std::mutex> queueLock;
    {
        std::lock_guard lock(m_mutex);
        auto &slot = m_queueLocks[mq];
        if (!slot)
            slot = std::make_shared<std::mutex>();
        queueLock = slot;
    }
    std::lock_guard serial(*queueLock);
    const PushConsumerOptions &options = m_consumer.m_options;
    const bool clustering = options.messageModel == MessageModel::Clustering;
    const auto begin = Clock::now();
    for (;;) {
        if (pq->dropped || m_consumer.m_stopping)
            return;
        if (clustering && (!pq->locked || pq->isLockExpired(currentTimeMillis()))) {
            // Lost (or not yet renewed) the broker's lock: try again shortly.
            std::weak_ptr<PushConsumerImpl> weak = m_consumer.weak_from_this();
            auto self = std::static_pointer_cast<OrderlyConsumeService>(shared_from_this());
            if (m_consumer.m_pullScheduler)
                m_consumer.m_pullScheduler->schedule(milliseconds(100), [weak, self, pq, mq] {
                    auto consumer = weak.lock();
                    if (!consumer || pq->dropped)
                        return;
                    if (consumer->lock(mq)) {
                        pq->locked = true;
                        pq->lastLockTimestamp = currentTimeMillis();
                        self->submitLater(pq, mq, 10);
                    } else {
                        self->submitLater(pq, mq, 3000);
                    }
                });
            return;
        }
        if (std::chrono::duration_cast<milliseconds>(Clock::now() - begin).count()
            > kMaxTimeConsumeContinuouslyMs) {
            submitLater(pq, mq, 10);
            return;
        }
        std::unique_lock consuming(pq->consumeLock);
        std::vector<MessageExt> msgs = pq->takeMessages(options.consumeMessageBatchMaxSize);
        if (msgs.empty())
            return; // takeMessages marked the queue idle: the next pull dispatches again
        std::vector<MessageExt> forListener = msgs;
        prepareForListener(forListener);
        ConsumeOrderlyContext ctx;
        ctx.messageQueue = mq;
        ConsumeOrderlyStatus status = ConsumeOrderlyStatus::SuspendCurrentQueueAMoment;
        const QByteArray traceId = traceBefore(forListener);
        const auto t0 = Clock::now();
        const bool returned = runListener([&] { status = m_listener(forListener, ctx); },
            "orderly listener", "suspending the queue");
        const auto rt = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
        if (!traceId.isEmpty()) {
            const bool ok = status == ConsumeOrderlyStatus::Success;
            traceAfter(forListener, traceId, rt, ok, !returned ? 2 : ok ? 0 : 4);
        }
        PushConsumerImpl::TopicStats &st = m_consumer.stats(mq.topic);
        st.consumeRtTotalMs += rt;
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
                if (m.reconsumeTimes() >= m_consumer.maxReconsumeTimes()
                    && m_consumer.sendMessageBack(m, -1))
                    continue;
                suspend = true;
                m.setReconsumeTimes(m.reconsumeTimes() + 1);
            }
            if (suspend) {
                pq->makeMessagesToConsumeAgain(msgs);
                const std::int64_t wait = ctx.suspendCurrentQueueTimeMillis >= 0
                    ? ctx.suspendCurrentQueueTimeMillis
                    : options.suspendCurrentQueueTimeMillis;
                consuming.unlock();
                submitLater(pq, mq, static_cast<int>(std::clamp<std::int64_t>(wait, 10, 30000)));
                keepGoing = false;
            } else {
                commitOffset = pq->commit();
            }
        }
        if (commitOffset >= 0 && !pq->dropped)
            m_consumer.m_offsets->updateOffset(mq, commitOffset, false);
        if (!keepGoing)
            return;
    }
}

bool OrderlyConsumeService::consumeDirectly(
    const std::vector<MessageExt> &msgs, const MessageQueue &mq)
{
    ConsumeOrderlyContext ctx;
    ctx.messageQueue = mq;
    return m_listener(msgs, ctx) == ConsumeOrderlyStatus::Success;
}

} // namespace qrocket::client
