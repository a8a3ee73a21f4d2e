// ProducerSignals and ConsumerSignals (qtsignals.h). A pool thread posts to the object under
// its Target's mutex, which the destructor takes to clear the pointer: the object cannot die
// between the check and the post, and Qt drops events posted to an object destroyed later.

#include "clientlib/client/qtsignals.h"

#include "clientlib/client/producer.h"
#include "clientlib/common/tsanannotations.h"

#include <QMetaObject>

namespace qrocket::client {

ProducerSignals::ProducerSignals(Producer &producer, QObject *parent)
    : QObject(parent), m_producer(producer), m_target(std::make_shared<Target>())
{
    m_target->object = this;
}

ProducerSignals::~ProducerSignals()
{
    std::lock_guard lock(m_target->mutex);
    m_target->object = nullptr;
}

void ProducerSignals::deliver(quint64 token, const Result<SendResult> &result)
{
    if (result)
        Q_EMIT sent(token, result.value());
    else
        Q_EMIT sendFailed(token, result.error().toString(), result.error().remoteCode());
}

quint64 ProducerSignals::send(Message msg)
{
    const quint64 token = m_nextToken.fetch_add(1, std::memory_order_relaxed);
    // This overload runs the callback on this object's thread, and not at all once it is gone.
    m_producer.sendAsync(
        std::move(msg), this, [this, token](Result<SendResult> result) { deliver(token, result); });
    return token;
}

quint64 ProducerSignals::send(Message msg, const MessageQueue &queue)
{
    const quint64 token = m_nextToken.fetch_add(1, std::memory_order_relaxed);
    m_producer.sendAsync(
        std::move(msg), queue, [target = m_target, token](Result<SendResult> result) {
            std::lock_guard lock(target->mutex);
            if (ProducerSignals *self = target->object) {
                invokeOn(
                    self, [self, token, result] { self->deliver(token, result); },
                    Qt::QueuedConnection);
            }
        });
    return token;
}

ConsumerSignals::ConsumerSignals(PushConsumer &consumer, QObject *parent)
    : QObject(parent), m_target(std::make_shared<Target>())
{
    m_target->object = this;
    consumer.registerMessageListener([target = m_target](const std::vector<MessageExt> &msgs,
                                         ConsumeConcurrentlyContext &) {
        std::lock_guard lock(target->mutex);
        if (ConsumerSignals *self = target->object) {
            invokeOn(
                self, [self, msgs] { Q_EMIT self->messagesReceived(msgs); }, Qt::QueuedConnection);
        }
        return ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
}

ConsumerSignals::~ConsumerSignals()
{
    std::lock_guard lock(m_target->mutex);
    m_target->object = nullptr;
}

} // namespace qrocket::client
