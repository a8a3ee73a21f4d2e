#include "broker/processors/extrasregistry.h"

#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/processors/queryprocessor.h"
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
    if (messageExecutor) {
        server.registerProcessor(reqcode::kConsumerSendMsgBack,
            std::make_shared<SendBackProcessor>(ctx), messageExecutor);
        auto query = std::make_shared<QueryProcessor>(ctx);
        server.registerProcessor(reqcode::kQueryMessage, query, messageExecutor);
        server.registerProcessor(reqcode::kViewMessageById, query, messageExecutor);
    }
}

} // namespace qrocket::broker
