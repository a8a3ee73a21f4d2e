#pragma once

// InnerProducer: the client's own producer (RocketMQ's CLIENT_INNER_PRODUCER) over an instance a
// consumer already holds, unregistered: what a push consumer re-sends a message to its retry topic
// with when the broker could not take it back. The consumers see only this; the producer's
// internals stay behind it.

#include "clientlib/client/clientconfig.h"
#include "clientlib/client/message.h"
#include "clientlib/client/sendresult.h"

#include <memory>

namespace qrocket::client {

class ClientInstance;
class ProducerImpl;

class InnerProducer
{
public:
    /// Started at once over `instance` (with `config`'s timeouts).
    InnerProducer(std::shared_ptr<ClientInstance> instance, const ClientConfig &config);
    ~InnerProducer();
    InnerProducer(const InnerProducer &) = delete;
    InnerProducer &operator=(const InnerProducer &) = delete;

    /// Sends `msg` synchronously, trying one more broker when the first attempt fails.
    Result<SendResult> send(const Message &msg);
    void shutdown();

private:
    std::shared_ptr<ProducerImpl> m_impl;
};

} // namespace qrocket::client
