#include "clientlib/client/consumer/concurrentconsumeservice.h"

#include "clientlib/client/consumer/pushconsumerimpl.h"
#include "clientlib/client/logging.h"

#include <chrono>
#include <iterator>

namespace qrocket::client {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int kConsumeLaterDelayMs = 5000;
} // namespace

ConcurrentConsumeService::ConcurrentConsumeService(
    PushConsumerImpl &consumer, ConcurrentListener listener)
    : ConsumeService(consumer), m_listener(std::move(listener))
{ }

void ConcurrentConsumeService::submitConsumeRequest(std::vector<MessageExt> &&msgs,
    const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, bool dispatch)
{
    (void)dispatch; // every batch goes to the pool at once
    const std::size_t batch
        = static_cast<std::size_t>(m_consumer.m_options.consumeMessageBatchMaxSize);
    std::weak_ptr<PushConsumerImpl> weak = m_consumer.weak_from_this();
    auto self = std::static_pointer_cast<ConcurrentConsumeService>(shared_from_this());
    // The whole pulled batch in one hand-over: one lock of the pool instead of one per part,
    // which twenty consume threads otherwise fight over.
    std::vector<std::function<void()>> tasks;
    tasks.reserve((msgs.size() + batch - 1) / batch);
    for (std::size_t i = 0; i < msgs.size(); i += batch) {
        std::vector<MessageExt> part(
            std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
            std::make_move_iterator(
                msgs.begin() + static_cast<std::ptrdiff_t>(std::min(msgs.size(), i + batch))));
        tasks.emplace_back([weak, self, part = std::move(part), pq, mq]() mutable {
            if (auto consumer = weak.lock())
                self->consume(std::move(part), pq, mq);
        });
    }
    // false: shutting down; what is buffered stays unconsumed and uncommitted.
    m_consumer.m_consumePool->executeAll(std::move(tasks));
}

void ConcurrentConsumeService::consume(
    std::vector<MessageExt> msgs, std::shared_ptr<ProcessQueue> pq, MessageQueue mq)
{
    if (pq->dropped)
        return;
    const PushConsumerOptions &options = m_consumer.m_options;
    // The listener's view: in place when that can be undone exactly (the usual case: no copy
    // of every message), else a prepared copy; `msgs` as pulled is what a failure sends back.
    std::vector<MessageExt> copy;
    const bool inPlace = prepareInPlace(msgs);
    if (!inPlace) {
        copy = msgs;
        prepareForListener(copy);
    }
    const std::vector<MessageExt> &forListener = inPlace ? msgs : copy;
    ConsumeConcurrentlyContext ctx;
    ctx.messageQueue = mq;
    ConsumeConcurrentlyStatus status = ConsumeConcurrentlyStatus::ReconsumeLater;
    const QByteArray traceId = traceBefore(forListener);
    const auto t0 = Clock::now();
    const bool returned = runListener(
        [&] { status = m_listener(forListener, ctx); }, "listener", "reconsume later");
    const auto rt = std::chrono::duration_cast<milliseconds>(Clock::now() - t0).count();
    if (!traceId.isEmpty()) {
        const bool ok = status == ConsumeConcurrentlyStatus::ConsumeSuccess;
        traceAfter(forListener, traceId, rt, ok, !returned ? 2 : ok ? 0 : 4);
    }
    pq->lastConsumeTimestamp = currentTimeMillis();
    PushConsumerImpl::TopicStats &st = m_consumer.stats(mq.topic);
    st.consumeRtTotalMs += rt;
    if (pq->dropped)
        return; // the queue moved elsewhere: its new owner consumes these again
    const int size = static_cast<int>(msgs.size());
    int ackIndex = status == ConsumeConcurrentlyStatus::ConsumeSuccess
        ? std::min(ctx.ackIndex, size - 1)
        : -1;
    if (inPlace) {
        for (int i = ackIndex + 1; i < size; ++i)
            undoPrepareInPlace(msgs[static_cast<std::size_t>(i)]);
    }
    st.consumedOk += ackIndex + 1;
    st.consumedFailed += size - ackIndex - 1;
    std::vector<MessageExt> retryLocally;
    std::vector<std::int64_t> done; // queue offsets: no copy of the messages
    done.reserve(msgs.size());
    for (int i = 0; i < size; ++i) {
        if (i <= ackIndex) {
            done.push_back(msgs[static_cast<std::size_t>(i)].queueOffset());
            continue;
        }
        MessageExt &m = msgs[static_cast<std::size_t>(i)];
        if (options.messageModel == MessageModel::Broadcasting) {
            qCWarning(lcConsumer, "%s: broadcasting consumption failed, message %s dropped",
                options.group.constData(), m.msgId().constData());
            done.push_back(m.queueOffset());
        } else if (m_consumer.sendMessageBack(m, ctx.delayLevelWhenNextConsume)) {
            done.push_back(m.queueOffset());
        } else {
            m.setReconsumeTimes(m.reconsumeTimes() + 1);
            retryLocally.push_back(m);
        }
    }
    const std::int64_t offset = pq->removeMessages(done);
    if (offset >= 0 && !pq->dropped)
        m_consumer.m_offsets->updateOffset(mq, offset, true);
    if (!retryLocally.empty() && m_consumer.m_pullScheduler) {
        std::weak_ptr<PushConsumerImpl> weak = m_consumer.weak_from_this();
        auto self = std::static_pointer_cast<ConcurrentConsumeService>(shared_from_this());
        m_consumer.m_pullScheduler->schedule(
            milliseconds(kConsumeLaterDelayMs), [weak, self, retryLocally, pq, mq] {
                auto consumer = weak.lock();
                if (!consumer || consumer->m_stopping)
                    return;
                consumer->m_consumePool->execute([weak, self, retryLocally, pq, mq]() mutable {
                    if (auto c = weak.lock())
                        self->consume(std::move(retryLocally), pq, mq);
                });
            });
    }
}

bool ConcurrentConsumeService::consumeDirectly(
    const std::vector<MessageExt> &msgs, const MessageQueue &mq)
{
    ConsumeConcurrentlyContext ctx;
    ctx.messageQueue = mq;
    return m_listener(msgs, ctx) == ConsumeConcurrentlyStatus::ConsumeSuccess;
}

} // namespace qrocket::client
