#pragma once

// Registration of the broker-extras request processors on a RemotingServer. The controller calls
// it once per server (listenPort and the fast port) after its own processors:
//
//   registerExtraProcessors(*m_server, m_ctx, m_adminPool);
//
// - AdminProcessor: every admin code of protocol.md §4.9 (AdminProcessor::requestCodes(),
//   including 303/314/317/321/328/223 and the QRocket store-files extension) on `adminExecutor`.
// - LockProcessor: LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) on `adminExecutor`, over
//   ctx.rebalanceLocks (created on the first call when unset, so both servers share one lock
//   table; lock max live time from $QROCKET_REBALANCE_LOCK_MAX_LIVE_TIME ms, default 60 s).
// - ReplyMessageProcessor: SEND_REPLY_MESSAGE (324) / SEND_REPLY_MESSAGE_V2 (325) on
//   `adminExecutor` (the push to the requester and the store are asynchronous).
// - With `messageExecutor` given, also CONSUMER_SEND_MSG_BACK (36) and QUERY_MESSAGE (12) /
//   VIEW_MESSAGE_BY_ID (33) on it (the controller registers those itself on its send/pull pools,
//   so it passes none).
//
// The ScheduleMessageService is not a processor: the controller creates it with the context,
// installs its tagsCode resolver on the store before open(), sets ctx.schedule and starts/stops it
// (see broker/schedule/schedulemessageservice.h).
//
// `ctx` must outlive the server's processors.

#include "clientlib/remoting/executor.h"

namespace qrocket::remoting {
class RemotingServer;
}

namespace qrocket::broker {

struct BrokerContext;

void registerExtraProcessors(remoting::RemotingServer &server, BrokerContext &ctx,
    remoting::ExecutorPtr adminExecutor, remoting::ExecutorPtr messageExecutor = {});

} // namespace qrocket::broker
