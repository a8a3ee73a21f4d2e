#include "clientlib/client/innerproducer.h"

#include "clientlib/client/producerimpl.h"

namespace qrocket::client {

InnerProducer::InnerProducer(std::shared_ptr<ClientInstance> instance, const ClientConfig &config)
{
    ProducerOptions options;
    options.group = "CLIENT_INNER_PRODUCER";
    options.client = config;
    m_impl = std::make_shared<ProducerImpl>(options);
    m_impl->startInner(std::move(instance));
}

InnerProducer::~InnerProducer()
{
    m_impl->shutdown();
}

Result<SendResult> InnerProducer::send(const Message &msg)
{
    auto prepared = m_impl->prepare(msg);
    if (!prepared)
        return prepared.error();
    return m_impl->sendPrepared(*prepared, std::nullopt, 1);
}

void InnerProducer::shutdown()
{
    m_impl->shutdown();
}

} // namespace qrocket::client
