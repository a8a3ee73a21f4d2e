#pragma once

// PopConsumeService: a concurrent listener's consume service when the brokers assign some queues
// in POP mode (RocketMQ 5's ConsumeMessagePopConcurrentlyService beside the concurrent one): what
// a pull found goes the concurrent way (ConcurrentConsumeService); what a pop found is consumed
// in batches of consumeMessageBatchMaxSize on the consume pool and then acked (up to the
// listener's ackIndex) or made invisible for the next back-off step (the rest). A batch whose
// invisible time is over before it runs is skipped: the broker hands it out again anyway.

#include "clientlib/client/consumer/concurrentconsumeservice.h"

#include <atomic>

namespace qrocket::client {

/// One POP assignment's state (RocketMQ's PopProcessQueue): popped messages not yet settled.
struct PopProcessQueue
{
    std::atomic<bool> dropped {false};
    std::atomic<std::int64_t> waitAck {0};
    std::atomic<std::int64_t> lastPopTimestamp {0};

    bool isPopExpired(std::int64_t now) const
    {
        return now - lastPopTimestamp.load() > ProcessQueue::kPullMaxIdleMs;
    }
};

/// RocketMQ 5's POP back-off of a message the listener wants later, by level (its reconsume
/// count when the listener left delayLevelWhenNextConsume at 0): 10 s, 30 s, 1 min ... 2 h.
int popBackoffMillis(int delayLevel);

class PopConsumeService final : public ConcurrentConsumeService
{
public:
    PopConsumeService(PushConsumerImpl &consumer, ConcurrentListener listener);

    /// What a pop of `mq` found (already counted in `pq->waitAck`) to the listener.
    void submitPop(
        std::vector<MessageExt> msgs, const std::shared_ptr<PopProcessQueue> &pq, MessageQueue mq);

private:
    void consumePop(
        std::vector<MessageExt> msgs, std::shared_ptr<PopProcessQueue> pq, MessageQueue mq);
};

} // namespace qrocket::client
