#pragma once

// AdminMoreProcessor: admin requests of RocketMQ 4.9's AdminBrokerProcessor that the console and
// mqadmin send beyond AdminProcessor's set (bodies in fastjson's shape, protocol.md §3.9):
//
//   303 QUERY_CONSUME_TIME_SPAN     topic, group -> QueryConsumeTimeSpanBody per write queue
//   314 CLONE_GROUP_OFFSET          srcGroup, destGroup, topic, offline -> offsets copied
//   317 GET_BROKER_CONSUME_STATS    isOrder -> ConsumeStatsList of every subscription group
//   321 QUERY_CONSUME_QUEUE         topic, queueId, index, count, consumerGroup ->
//                                   QueryConsumeQueueResponseBody (units from `index`)
//   328 GET_ALL_PRODUCER_INFO       -> ProducerTableInfo {"data":{group:[ProducerInfo]}}
//   223 INVOKE_BROKER_TO_GET_CONSUMER_STATUS  topic, group, clientAddr -> asks each consumer of
//                                   the group (or only clientAddr) with
//                                   GET_CONSUMER_STATUS_FROM_CLIENT (221) and answers
//                                   GetConsumerStatusBody {"consumerTable":{clientId:{MQ:offset}},
//                                   "messageQueueTable":{}}, without blocking a thread.
//
// A missing mandatory header field gets 1 with RocketMQ's decoder remark. Thread-safety: state is
// the BrokerContext (thread-safe members); runs on any executor thread.

#include "clientlib/remoting/requestprocessor.h"

#include <vector>

namespace qrocket::broker {

struct BrokerContext;

class AdminMoreProcessor final : public remoting::RequestProcessor
{
public:
    /// Broker2Client.callClient's timeout, for each consumer asked by 223.
    static constexpr int kClientTimeoutMillis = 10000;

    explicit AdminMoreProcessor(BrokerContext &ctx) : m_ctx(ctx) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    /// The request codes this processor serves.
    static const std::vector<int> &requestCodes();

private:
    using Command = remoting::RemotingCommand;

    Command handle(const Command &request);
    Command consumeTimeSpan(const Command &request);
    Command cloneGroupOffset(const Command &request);
    Command brokerConsumeStats(const Command &request);
    Command queryConsumeQueue(const Command &request);
    Command allProducerInfo(const Command &request);
    void consumerStatus(const Command &request, remoting::Responder respond);

    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
