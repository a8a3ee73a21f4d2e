#pragma once

// ReplyMessageProcessor: SEND_REPLY_MESSAGE (324, V1 header names) and SEND_REPLY_MESSAGE_V2
// (325, one-letter keys), RocketMQ 4.9's request/reply (protocol.md §4.1 headers):
//
// 1. The checks of a send, SendMessageProcessor::msgCheck (the topic is auto-created like a
//    send's; <cluster>_REPLY_TOPIC exists from the start).
// 2. The reply is pushed to the requester: the producer channel of the client id in the
//    REPLY_TO_CLIENT property (registered by its heartbeat), as PUSH_REPLY_MESSAGE_TO_CLIENT
//    (326) with the send header's fields plus bornHost, storeHost ("/ip:port") and
//    storeTimestamp, the properties with PUSH_REPLY_TIME added, and the body. The push waits up
//    to kPushTimeoutMillis for the client's answer (Broker2Client.callClient), on no thread.
// 3. Unless storeReplyMessageEnable is false, the reply is then stored as sent (properties and
//    flag verbatim, sysFlag 0, no CLUSTER), whatever the push gave.
//
// The answer: SUCCESS with msgId "0", the queue id and offset 0 when the push succeeded, else
// SYSTEM_ERROR with RocketMQ's remark (no REPLY_TO_CLIENT, channel not found, client failed);
// a stored reply's msgId and queue offset replace those either way. MSG_REGION and TRACE_ON as
// a send's.
//
// Thread-safety: state is the BrokerContext (thread-safe members); runs on any executor thread.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;

class ReplyMessageProcessor final : public remoting::RequestProcessor
{
public:
    /// RocketMQ's Broker2Client.callClient timeout.
    static constexpr int kPushTimeoutMillis = 10000;

    explicit ReplyMessageProcessor(BrokerContext &ctx) : m_ctx(ctx) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

private:
    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
