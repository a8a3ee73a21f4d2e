#pragma once

// QueryProcessor: QUERY_MESSAGE (12) and VIEW_MESSAGE_BY_ID (33), protocol.md §4.8.
//
// QUERY_MESSAGE: ext topic, key, maxNum, beginTimestamp, endTimestamp (and _UNIQUE_KEY_QUERY
// "true" when key is a UNIQ_KEY: then maxNum = defaultQueryMaxNum). Looks the index up; the
// response always carries ext indexLastUpdateTimestamp / indexLastUpdatePhyoffset; body = the
// matching stored records concatenated; none ⇒ 22 QUERY_NOT_FOUND.
// VIEW_MESSAGE_BY_ID: ext offset (commit-log offset); body = that stored record; missing ⇒ 1.
//
// Thread-safety: stateless beyond the BrokerContext; runs on any executor thread.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;

class QueryProcessor final : public remoting::RequestProcessor
{
public:
    static constexpr int kDefaultQueryMaxNum = 32;

    explicit QueryProcessor(BrokerContext &ctx) : m_ctx(ctx) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    remoting::RemotingCommand queryMessage(const remoting::RemotingCommand &request) const;
    remoting::RemotingCommand viewMessageById(const remoting::RemotingCommand &request) const;

private:
    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
