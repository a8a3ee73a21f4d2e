#include "broker/processors/extrasregistry.h"

#include "broker/common/brokercontext.h"
#include "broker/managers/rebalancelockmanager.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/processors/lockprocessor.h"
#include "broker/processors/queryprocessor.h"
#include "broker/processors/replymessageprocessor.h"
#include "broker/processors/sendbackprocessor.h"
#include "clientlib/remoting/remotingserver.h"

#include <memory>

namespace qrocket::broker {

void registerExtraProcessors(remoting::RemotingServer &server, BrokerContext &ctx,
    remoting::ExecutorPtr adminExecutor, remoting::ExecutorPtr messageExecutor)
{
    auto admin = std::make_shared<AdminProcessor>(ctx);
    for (int code : AdminProcessor::requestCodes())
        server.registerProcessor(code, admin, adminExecutor);
    if (!ctx.rebalanceLocks) {
        // RocketMQ's system property rocketmq.broker.rebalance.lockMaxLiveTime, as an environment
        // variable (ms; unset or invalid = 60 s).
        bool ok = false;
        const int maxLive
            = qEnvironmentVariableIntValue("QROCKET_REBALANCE_LOCK_MAX_LIVE_TIME", &ok);
        ctx.rebalanceLocks = std::make_shared<RebalanceLockManager>(
            ok && maxLive > 0 ? maxLive : RebalanceLockManager::kDefaultLockMaxLiveTimeMs);
    }
    auto locks = std::make_shared<LockProcessor>(*ctx.rebalanceLocks);
    server.registerProcessor(LockProcessor::kLockBatchMq, locks, adminExecutor);
    server.registerProcessor(LockProcessor::kUnlockBatchMq, locks, adminExecutor);
    auto reply = std::make_shared<ReplyMessageProcessor>(ctx);
    server.registerProcessor(toInt(RequestCode::SendReplyMessage), reply, adminExecutor);
    server.registerProcessor(toInt(RequestCode::SendReplyMessageV2), reply, adminExecutor);
    if (messageExecutor) {
        server.registerProcessor(toInt(RequestCode::ConsumerSendMsgBack),
            std::make_shared<SendBackProcessor>(ctx), messageExecutor);
        auto query = std::make_shared<QueryProcessor>(ctx);
        server.registerProcessor(toInt(RequestCode::QueryMessage), query, messageExecutor);
        server.registerProcessor(toInt(RequestCode::ViewMessageById), query, messageExecutor);
    }
}

} // namespace qrocket::broker
