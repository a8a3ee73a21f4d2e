#pragma once

// PullMessageProcessor: PULL_MESSAGE (11), protocol.md §4.2, with every check and status mapping
// in RocketMQ 4.9's order. A pull that finds nothing and carries the SUSPEND flag is parked in
// the PullRequestHoldService (BrokerContext::pullHold) and re-executed, with suspension
// forbidden, when a message arrives for its queue or its hold time ends.
//
// Threads: runs on the pull executor; executeWakeup() is called (posted) by the hold service.

#include "clientlib/remoting/requestprocessor.h"

#include <QByteArrayView>

#include <cstdint>
#include <optional>

namespace qrocket::broker {

struct BrokerContext;
struct HeldPull;

namespace pullsysflag {
inline constexpr int kCommitOffset = 0x1;
inline constexpr int kSuspend = 0x2;
inline constexpr int kSubscription = 0x4;
inline constexpr int kClassFilter = 0x8;
} // namespace pullsysflag

class PullMessageProcessor final : public remoting::RequestProcessor
{
public:
    explicit PullMessageProcessor(BrokerContext &context) : m_ctx(context) { }

    void processRequest(const remoting::ChannelPtr &channel, remoting::RemotingCommand request,
        remoting::Responder respond) override;
    /// In controller mode a follower without slaveReadEnable refuses pulls (SYSTEM_BUSY,
    /// "[REJECTREQUEST]...", RocketMQ 5's rule): the client retries later and refreshes its
    /// route, which names the elected master. A client with a stale route after a master switch
    /// (the killed master back as a follower at the same address) must not read there.
    /// In plain master/slave mode the slave serves pulls whatever slaveReadEnable says, as
    /// RocketMQ 4.9.7 does (measured: broker/ha/INTEROP.md), suggesting the master for the next.
    bool rejectRequest() const override;
    /// Re-executes a parked pull without allowing it to be parked again.
    void executeWakeup(HeldPull &&pull);

private:
    /// Controller mode, a follower, no slaveReadEnable: no pull is served (rejectRequest()).
    bool refusesReads() const;
    /// The response, or nullopt when the request was parked (it is answered later).
    std::optional<remoting::RemotingCommand> process(const remoting::ChannelPtr &channel,
        const remoting::RemotingCommand &request, const remoting::Responder &respond,
        bool allowSuspend);
    /// Stores RocketMQ's OffsetMovedEvent for a pull whose offset was corrected.
    void postOffsetMovedEvent(QByteArrayView group, QByteArrayView topic, int queueId,
        std::int64_t offsetRequest, std::int64_t offsetNew);

    BrokerContext &m_ctx;
};

} // namespace qrocket::broker
