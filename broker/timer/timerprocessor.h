#pragma once

// TimerProcessor: RECALL_MESSAGE (370), GET_TIMER_CHECK_POINT (60) and GET_TIMER_METRICS (61),
// RocketMQ 5.3's codes, headers and remarks.
//
// RECALL_MESSAGE: header {producerGroup?, topic, recallHandle}; answers a RecallMessageResponse
// header {msgId} and MSG_REGION. In RocketMQ's order: recallMessageEnable (else NO_PERMISSION),
// a slave (SLAVE_NOT_AVAILABLE), startAcceptSendRequestTimeStamp and write permission
// (SERVICE_NOT_AVAILABLE), the topic (TOPIC_NOT_EXIST), the handle (ILLEGAL_OPERATION: invalid,
// topic or broker not matching, a time already due or beyond timerMaxDelaySec), then a recall
// marker is put into the message's slot: SUCCESS, or ILLEGAL_OPERATION "timestamp invalid" when
// the slot started firing in between (the message is being or was delivered). As in RocketMQ, a
// well-formed handle for a message this broker never held answers SUCCESS (nothing to cancel).
//
// Runs on the admin executor (the recall waits for its put). Thread-safe.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;
class TimerMessageStore;

class TimerProcessor final : public remoting::RequestProcessor
{
public:
    TimerProcessor(BrokerContext &ctx, TimerMessageStore *timer) : m_ctx(ctx), m_timer(timer) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    remoting::RemotingCommand recall(
        const remoting::ChannelPtr &channel, const remoting::RemotingCommand &request);

private:
    BrokerContext &m_ctx;
    TimerMessageStore *m_timer; // null: timerWheelEnable=false or a slave
};

} // namespace qrocket::broker
