#pragma once

// Qt signals over the client's callback API, for Qt applications that would rather connect()
// than pass lambdas: each object delivers on the thread it lives in (usually the GUI thread).
//
//   client::Producer producer(options);
//   producer.start();
//   client::ProducerSignals notifier(producer);
//   connect(&notifier, &client::ProducerSignals::sent, this, [](quint64 token, const SendResult &r)
//   {...}); connect(&notifier, &client::ProducerSignals::sendFailed, this, [](quint64, const
//   QString &e, int) {...}); const quint64 token = notifier.send(client::Message("Orders", body));
//
//   client::PushConsumer consumer(consumerOptions);
//   consumer.subscribe("Orders");
//   client::ConsumerSignals messages(consumer);  // registers the consumer's listener
//   connect(&messages, &client::ConsumerSignals::messagesReceived, this, &View::show);
//   consumer.start();
//
// Delivery: ProducerSignals emits exactly one of sent/sendFailed per send(), unless the object
// is destroyed first (then neither). ConsumerSignals acknowledges a batch to the broker once it
// is queued to the object's thread, not when the slot has run: a crash between the two loses
// that batch for this group. It is meant for views, monitors and tools; processing that must be
// at-least-once belongs in PushConsumer::registerMessageListener, which acknowledges on return.
// Both objects must be destroyed before the producer or consumer they wrap; destroying one stops
// its deliveries at once (batches the consumer hands over afterwards are still acknowledged).

#include "clientlib/client/pushconsumer.h"
#include "clientlib/client/sendresult.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

namespace qrocket::client {

class Producer;

class ProducerSignals final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProducerSignals)

public:
    explicit ProducerSignals(Producer &producer, QObject *parent = nullptr);
    ~ProducerSignals() override;

    /// An asynchronous send; its outcome arrives as sent() or sendFailed() with the returned token.
    quint64 send(Message msg);
    /// Same, to a queue of the caller's choice.
    quint64 send(Message msg, const MessageQueue &queue);

Q_SIGNALS:
    void sent(quint64 token, const qrocket::client::SendResult &result);
    /// `error` is Status::toString(); `remoteCode` the broker's response code, or -1.
    void sendFailed(quint64 token, const QString &error, int remoteCode);

private:
    /// What a pool thread may post to: the object while it lives (cleared by the destructor).
    struct Target
    {
        std::mutex mutex;
        ProducerSignals *object = nullptr;
    };
    void deliver(quint64 token, const Result<SendResult> &result);
    Producer &m_producer;
    std::shared_ptr<Target> m_target;
    std::atomic<quint64> m_nextToken {1};
};

class ConsumerSignals final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConsumerSignals)

public:
    /// Registers a concurrent listener on `consumer` (call before consumer.start()).
    explicit ConsumerSignals(PushConsumer &consumer, QObject *parent = nullptr);
    ~ConsumerSignals() override;

Q_SIGNALS:
    void messagesReceived(const std::vector<qrocket::client::MessageExt> &messages);

private:
    struct Target
    {
        std::mutex mutex;
        ConsumerSignals *object = nullptr; // cleared by the destructor
    };
    std::shared_ptr<Target> m_target;
};

} // namespace qrocket::client
