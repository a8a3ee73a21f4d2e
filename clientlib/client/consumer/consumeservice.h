#pragma once

// ConsumeService: how a push consumer hands what it pulled to its listener (RocketMQ's
// ConsumeMessageService): ConcurrentConsumeService (concurrentconsumeservice.h) or
// OrderlyConsumeService (orderlyconsumeservice.h), picked by the listener at start. A service
// belongs to one PushConsumerImpl and works on its pools and offsets; the tasks it posts hold
// the service and a weak reference to the consumer, and run only while the consumer lives.

#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/message.h"

#include <functional>
#include <memory>
#include <vector>

namespace qrocket::client {

class PushConsumerImpl;

class ConsumeService : public std::enable_shared_from_this<ConsumeService>
{
public:
    explicit ConsumeService(PushConsumerImpl &consumer);
    virtual ~ConsumeService();
    ConsumeService(const ConsumeService &) = delete;
    ConsumeService &operator=(const ConsumeService &) = delete;

    /// What a pull found for `mq`, already put into `pq` (`dispatch`: putMessages found the
    /// queue idle), to the listener on the consume pool.
    virtual void submitConsumeRequest(std::vector<MessageExt> &&msgs,
        const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, bool dispatch)
        = 0;
    /// CONSUME_MESSAGE_DIRECTLY: `msg` to the listener now, on the calling thread; the answer's
    /// JSON body (ConsumeMessageDirectlyResult).
    QByteArray consumeMessageDirectly(const MessageExt &msg);

protected:
    /// The listener's verdict on `msgs` (true: consumed).
    virtual bool consumeDirectly(const std::vector<MessageExt> &msgs, const MessageQueue &mq) = 0;
    virtual bool orderly() const = 0;
    /// Runs `call` (the listener). A throw is logged ("<group>: the <listener> threw: <then>")
    /// and leaves whatever status the caller preset.
    /// Returns false when it threw.
    bool runListener(
        const std::function<void()> &call, const char *listener, const char *then) const;
    /// enableMsgTrace: the SubBefore records of `msgs` (as the listener sees them); the request
    /// id that pairs them with traceAfter's SubAfter records, empty when nothing was traced.
    QByteArray traceBefore(const std::vector<MessageExt> &msgs) const;
    /// The SubAfter records: `costMs` shared out over the messages, `returnType` Java's
    /// ConsumeReturnType (0 SUCCESS, 1 TIME_OUT, 2 EXCEPTION, 3 RETURNNULL, 4 FAILED).
    void traceAfter(const std::vector<MessageExt> &msgs, const QByteArray &requestId,
        std::int64_t costMs, bool success, int returnType) const;
    /// The copies the listener sees: a retried message under its original topic, and the
    /// consume start time.
    void prepareForListener(std::vector<MessageExt> &msgs) const;
    /// prepareForListener() on the messages themselves (no copy) when undoPrepareInPlace() can
    /// give them back exactly as pulled: none is a redelivery from the retry topic and none
    /// carries CONSUME_START_TIME yet (then the property is appended last and removing it restores
    /// the entries in order). False (nothing changed) otherwise: prepare a copy.
    bool prepareInPlace(std::vector<MessageExt> &msgs) const;
    /// Takes CONSUME_START_TIME off messages prepareInPlace() prepared.
    static void undoPrepareInPlace(MessageExt &msg);

    PushConsumerImpl &m_consumer;
};

} // namespace qrocket::client
