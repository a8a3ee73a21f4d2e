#pragma once

// ConsumerManageProcessor: consumer offsets and queue offsets (protocol.md §4.4):
// QUERY_CONSUMER_OFFSET (14), UPDATE_CONSUMER_OFFSET (15), SEARCH_OFFSET_BY_TIMESTAMP (29),
// GET_MAX_OFFSET (30), GET_MIN_OFFSET (31), GET_EARLIEST_MSG_STORETIME (32).
//
// Threads: cheap (memory and mapped consume queues only): registered inline or on any executor.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;

class ConsumerManageProcessor final : public remoting::RequestProcessor
{
public:
    explicit ConsumerManageProcessor(BrokerContext &context) : m_ctx(context) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

private:
    remoting::RemotingCommand process(const remoting::RemotingCommand &request);
    remoting::RemotingCommand queryConsumerOffset(const remoting::RemotingCommand &request);
    /// RocketMQ's checkInDiskByConsumeOffset(topic, queueId, 0).
    bool firstMessageInDisk(QByteArrayView topic, int queueId) const;

    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
