#pragma once

// LockProcessor: LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42), protocol.md §4.7, for orderly
// consumers (Java, C++ and Go RocketMQ clients lock each queue about every 20 s, the C++ client
// every second).
//
// Both bodies are LockBatchRequestBody JSON {"clientId","consumerGroup","mqSet":[MessageQueue]}
// (a trailing newline, as the C++ client sends, is accepted). LOCK answers SUCCESS with
// {"lockOKMQSet":[...]} = the requested queues the client now holds (RebalanceLockManager
// semantics); UNLOCK releases the client's own locks and answers SUCCESS without a body (nothing
// when the request is oneway). A missing or malformed body, or an empty clientId or
// consumerGroup, gets 1 SYSTEM_ERROR with a remark.
//
// Thread-safety: the state is the RebalanceLockManager (thread-safe); runs on any executor thread.
// `locks` must outlive the processor.

#include "clientlib/remoting/requestprocessor.h"

namespace qrocket::broker {

class RebalanceLockManager;

class LockProcessor final : public remoting::RequestProcessor
{
public:
    static constexpr int kLockBatchMq = 41;
    static constexpr int kUnlockBatchMq = 42;

    explicit LockProcessor(RebalanceLockManager &locks) : m_locks(locks) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;

    /// The response to a 41 or 42 request.
    remoting::RemotingCommand handle(const remoting::RemotingCommand &request);

private:
    RebalanceLockManager &m_locks;
};

} // namespace qrocket::broker
