#pragma once

// PopProcessor: RocketMQ 5's POP requests over remoting (README "POP consumption"):
// POP_MESSAGE (200050), ACK_MESSAGE (200051), BATCH_ACK_MESSAGE (200151), PEEK_MESSAGE (200052),
// CHANGE_MESSAGE_INVISIBLETIME (200053), NOTIFICATION (200054), POLLING_INFO (200055),
// POP_ROLLBACK (200056), QUERY_ASSIGNMENT (400), SET_MESSAGE_REQUEST_MODE (401),
// GET_ALL_MESSAGE_REQUEST_MODE (402), GET_TOPIC_CONFIG (351), GET_SUBSCRIPTIONGROUP_CONFIG (352).
// Checks, codes and remarks as rocketmq-all-5.3.3; the state is PopService's.
//
// A POP or NOTIFICATION with pollTime that finds nothing is parked in the PopService's hold
// service and re-executed (on `executor`) when a message arrives for its topic, or answered
// POLLING_TIMEOUT (NOTIFICATION: hasMsg=false) at its deadline.
//
// Threads: runs on the pull executor (registered there by the controller); thread-safe.

#include "clientlib/remoting/executor.h"
#include "clientlib/remoting/requestprocessor.h"

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace qrocket::broker {
struct BrokerContext;
}

namespace qrocket::broker::pop {

class PopService;
class RequestModeManager;
struct HeldPop;

class PopProcessor final : public remoting::RequestProcessor,
                           public std::enable_shared_from_this<PopProcessor>
{
public:
    PopProcessor(BrokerContext &ctx, PopService &service, RequestModeManager &modes,
        remoting::ExecutorPtr executor);

    static std::vector<int> requestCodes();

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;
    /// Installs the hold service's wake-up (re-executes parked pops on the executor).
    void attach();

private:
    using Deadline = std::optional<std::chrono::steady_clock::time_point>;
    /// nullopt: parked (answered later).
    std::optional<remoting::RemotingCommand> popMessage(const remoting::ChannelPtr &channel,
        const remoting::RemotingCommand &request, const remoting::Responder &respond,
        bool allowSuspend, Deadline deadline, bool notification);
    remoting::RemotingCommand ackMessage(const remoting::RemotingCommand &request);
    remoting::RemotingCommand batchAckMessage(const remoting::RemotingCommand &request);
    remoting::RemotingCommand changeInvisibleTime(const remoting::RemotingCommand &request);
    remoting::RemotingCommand peekMessage(const remoting::RemotingCommand &request);
    remoting::RemotingCommand pollingInfo(const remoting::RemotingCommand &request);
    remoting::RemotingCommand queryAssignment(const remoting::RemotingCommand &request);
    remoting::RemotingCommand setRequestMode(const remoting::RemotingCommand &request);
    remoting::RemotingCommand getTopicConfig(const remoting::RemotingCommand &request);
    remoting::RemotingCommand getGroupConfig(const remoting::RemotingCommand &request);
    remoting::RemotingCommand popStats(const remoting::RemotingCommand &request);
    void wakeup(std::shared_ptr<HeldPop> pop, bool timedOut);

    BrokerContext &m_ctx;
    PopService &m_service;
    RequestModeManager &m_modes;
    remoting::ExecutorPtr m_executor;
};

} // namespace qrocket::broker::pop
