#pragma once

// EndTransactionProcessor: END_TRANSACTION (37, protocol.md §4.6), RocketMQ 4.9's
// EndTransactionProcessor. Producers send it oneway (then nothing is answered); a two-way request
// gets RocketMQ's answer. On a slave: SLAVE_NOT_AVAILABLE (11). commitOrRollback 0 (unknown) or
// any value but 8/12: no action and no answer, as RocketMQ (its processor returns null). COMMIT
// and ROLLBACK go to TransactionalMessageService::endTransaction.
//
// Registered by the controller on its send executor (the commit waits for its two puts).

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

struct BrokerContext;
class TransactionalMessageService;

class EndTransactionProcessor final : public remoting::RequestProcessor
{
public:
    EndTransactionProcessor(BrokerContext &ctx, TransactionalMessageService &service)
        : m_ctx(ctx), m_service(service)
    { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

private:
    BrokerContext &m_ctx;
    TransactionalMessageService &m_service;
};

} // namespace qrocket::broker
