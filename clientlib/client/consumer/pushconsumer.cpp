#include "clientlib/client/pushconsumer.h"

#include "clientlib/client/consumer/pushconsumerimpl.h"

namespace qrocket::client {

PushConsumer::PushConsumer(PushConsumerOptions options)
    : m_impl(std::make_shared<PushConsumerImpl>(std::move(options)))
{ }

PushConsumer::~PushConsumer()
{
    m_impl->shutdown();
}

Status PushConsumer::subscribe(const QByteArray &topic, const QByteArray &tagExpression)
{
    return m_impl->subscribe(topic, MessageSelector::byTag(tagExpression));
}

Status PushConsumer::subscribe(const QByteArray &topic, const MessageSelector &selector)
{
    return m_impl->subscribe(topic, selector);
}

void PushConsumer::unsubscribe(const QByteArray &topic)
{
    m_impl->unsubscribe(topic);
}

void PushConsumer::registerMessageListener(ConcurrentListener listener)
{
    m_impl->setListener(std::move(listener));
}

void PushConsumer::registerMessageListener(OrderlyListener listener)
{
    m_impl->setListener(std::move(listener));
}

Status PushConsumer::start()
{
    return m_impl->start();
}

void PushConsumer::shutdown()
{
    m_impl->shutdown();
}

bool PushConsumer::isStarted() const
{
    return m_impl->isStarted();
}

void PushConsumer::suspend()
{
    m_impl->suspend();
}

void PushConsumer::resume()
{
    m_impl->resume();
}

const PushConsumerOptions &PushConsumer::options() const
{
    return m_impl->options();
}

QByteArray PushConsumer::clientId() const
{
    return m_impl->clientId();
}

std::vector<MessageQueue> PushConsumer::assignedQueues() const
{
    return m_impl->assignedQueues();
}

std::map<MessageQueue, std::int64_t> PushConsumer::committedOffsets(const QByteArray &topic) const
{
    return m_impl->committedOffsets(topic);
}

} // namespace qrocket::client
