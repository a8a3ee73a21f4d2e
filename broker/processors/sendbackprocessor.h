#pragma once

// SendBackProcessor: CONSUMER_SEND_MSG_BACK (36), protocol.md §4.5 and §8.4. A consumer hands back
// a message it failed to consume; the broker re-stores a copy in %RETRY%<group> through the delay
// schedule (level delayLevel, or 3 + reconsumeTimes), or in %DLQ%<group> once reconsumeTimes
// reached the group's retryMaxTimes (or the header's maxReconsumeTimes from client version 121)
// or when delayLevel < 0.
//
// The new record keeps body, flag, sysflag, born timestamp/host and properties (RETRY_TOPIC set
// to the original topic if absent, ORIGIN_MESSAGE_ID kept or set to the original offset msgId,
// WAIT=false), with reconsumeTimes + 1. The reply (SUCCESS, or 1 with the store status name) is
// sent when the put completes.
//
// Thread-safety: stateless beyond the BrokerContext; runs on any executor thread.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;

class SendBackProcessor final : public remoting::RequestProcessor
{
public:
    explicit SendBackProcessor(BrokerContext &ctx) : m_ctx(ctx) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

private:
    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
