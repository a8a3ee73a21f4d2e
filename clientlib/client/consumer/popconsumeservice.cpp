#include "clientlib/client/consumer/popconsumeservice.h"

#include "clientlib/client/consumer/popcalls.h"
#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"

#include <array>
#include <chrono>

namespace qrocket::client {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

int popBackoffMillis(int delayLevel)
{
    static constexpr std::array<int, 16> kSeconds {
        10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200};
    const auto level = static_cast<std::size_t>(std::max(0, delayLevel));
    return kSeconds[std::min(level, kSeconds.size() - 1)] * 1000;
}

PopConsumeService::PopConsumeService(PushConsumerImpl &consumer, ConcurrentListener listener)
    : ConcurrentConsumeService(consumer, std::move(listener))
{ }

void PopConsumeService::submitPop(
    std::vector<MessageExt> msgs, const std::shared_ptr<PopProcessQueue> &pq, MessageQueue mq)
{
    const std::size_t batch
        = static_cast<std::size_t>(m_consumer.m_options.consumeMessageBatchMaxSize);
    std::weak_ptr<PushConsumerImpl> weak = m_consumer.weak_from_this();
    auto self = std::static_pointer_cast<PopConsumeService>(shared_from_this());
    // One hand-over for the whole popped batch (WorkerPool::executeAll).
    std::vector<std::function<void()>> tasks;
    tasks.reserve((msgs.size() + batch - 1) / batch);
    for (std::size_t i = 0; i < msgs.size(); i += batch) {
        const std::size_t end = std::min(msgs.size(), i + batch);
        std::vector<MessageExt> part(
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(end)));
        tasks.emplace_back([weak, self, part = std::move(part), pq, mq]() mutable {
            if (auto consumer = weak.lock())
                self->consumePop(std::move(part), pq, mq);
        });
    }
    if (!m_consumer.m_consumePool->executeAll(std::move(tasks))) {
        // Shutting down: what was popped comes back after its invisible time.
        pq->waitAck -= static_cast<std::int64_t>(msgs.size());
    }
}

void PopConsumeService::consumePop(
    std::vector<MessageExt> msgs, std::shared_ptr<PopProcessQueue> pq, MessageQueue mq)
{
    const auto popped = static_cast<std::int64_t>(msgs.size());
    if (pq->dropped) {
        pq->waitAck -= popped;
        return; // no longer assigned: the broker hands them out again after the invisible time
    }
    const std::int64_t now = currentTimeMillis();
    std::vector<MessageExt> live;
    live.reserve(msgs.size());
    for (MessageExt &m : msgs) {
        auto handle = pop::receiptOf(m);
        if (handle && !pop::invisibleTimeOver(*handle, now))
            live.push_back(std::move(m));
    }
    if (live.size() != msgs.size())
        qCInfo(lcConsumer, "%s: %zu popped messages of %s skipped: their invisible time is over",
            m_consumer.m_options.group.constData(), msgs.size() - live.size(),
            mq.topic.constData());
    if (live.empty()) {
        pq->waitAck -= popped;
        return;
    }
    std::vector<MessageExt> forListener = live;
    prepareForListener(forListener);
    ConsumeConcurrentlyContext ctx;
    ctx.messageQueue = {mq.topic, mq.brokerName, live.front().queueId()};
    ConsumeConcurrentlyStatus status = ConsumeConcurrentlyStatus::ReconsumeLater;
    // Traced as the pull path (enableMsgTrace): SubBefore / SubAfter with the listener's result.
    const QByteArray traceId = traceBefore(forListener);
    const auto t0 = Clock::now();
    const bool returned = runListener(
        [&] { status = m_listener(forListener, ctx); }, "listener", "reconsume later");
    const auto rt = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
    if (!traceId.isEmpty()) {
        const bool ok = status == ConsumeConcurrentlyStatus::ConsumeSuccess;
        traceAfter(forListener, traceId, rt, ok, !returned ? 2 : ok ? 0 : 4);
    }
    PushConsumerImpl::TopicStats &st = m_consumer.stats(mq.topic);
    st.consumeRtTotalMs += rt;
    const int size = static_cast<int>(live.size());
    const int ackIndex = status == ConsumeConcurrentlyStatus::ConsumeSuccess
        ? std::min(ctx.ackIndex, size - 1)
        : -1;
    st.consumedOk += ackIndex + 1;
    st.consumedFailed += size - ackIndex - 1;
    for (int i = 0; i < size; ++i) {
        const MessageExt &m = live[static_cast<std::size_t>(i)];
        if (i <= ackIndex)
            m_consumer.popAck(m);
        else
            m_consumer.popLater(m,
                popBackoffMillis(ctx.delayLevelWhenNextConsume > 0 ? ctx.delayLevelWhenNextConsume
                                                                   : m.reconsumeTimes()));
    }
    pq->waitAck -= popped;
}

} // namespace qrocket::client
