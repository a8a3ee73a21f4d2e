#pragma once

// ConcurrentConsumeService: a concurrent listener's consume service (RocketMQ's
// ConsumeMessageConcurrentlyService): batches of consumeMessageBatchMaxSize on the consume pool,
// any thread, any order; what the listener does not acknowledge goes back to the broker (or, when
// that fails, is consumed again here after 5 s); the offset committed is the lowest message still
// in the process queue.

#include "clientlib/client/consumer/consumeservice.h"
#include "clientlib/client/pushconsumer.h"

namespace qrocket::client {

class ConcurrentConsumeService : public ConsumeService
{
public:
    ConcurrentConsumeService(PushConsumerImpl &consumer, ConcurrentListener listener);

    void submitConsumeRequest(std::vector<MessageExt> &&msgs,
        const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, bool dispatch) override;

protected:
    bool consumeDirectly(const std::vector<MessageExt> &msgs, const MessageQueue &mq) override;
    bool orderly() const override { return false; }

    const ConcurrentListener m_listener;

private:
    void consume(std::vector<MessageExt> msgs, std::shared_ptr<ProcessQueue> pq, MessageQueue mq);
};

} // namespace qrocket::client
