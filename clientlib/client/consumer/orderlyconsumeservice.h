#pragma once

// OrderlyConsumeService: an orderly listener's consume service (RocketMQ's
// ConsumeMessageOrderlyService): one task at a time per queue takes the queue's next messages in
// offset order, only while this member holds the queue's lock on the broker (clustering); a
// failed batch is consumed again after suspendCurrentQueueTimeMillis (up to maxReconsumeTimes,
// then the DLQ). A task hands the queue on after 60 s so that other queues get their turn.

#include "clientlib/client/consumer/consumeservice.h"
#include "clientlib/client/pushconsumer.h"

#include <map>
#include <mutex>

namespace qrocket::client {

class OrderlyConsumeService final : public ConsumeService
{
public:
    OrderlyConsumeService(PushConsumerImpl &consumer, OrderlyListener listener);

    void submitConsumeRequest(std::vector<MessageExt> &&msgs,
        const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, bool dispatch) override;

protected:
    bool consumeDirectly(const std::vector<MessageExt> &msgs, const MessageQueue &mq) override;
    bool orderly() const override { return true; }

private:
    void submitLater(const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, int delayMs);
    void consume(std::shared_ptr<ProcessQueue> pq, MessageQueue mq);

    const OrderlyListener m_listener;
    std::mutex m_mutex;
    std::map<MessageQueue, std::shared_ptr<std::mutex>> m_queueLocks; // guarded by m_mutex
};

} // namespace qrocket::client
