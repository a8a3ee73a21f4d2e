#pragma once

// The hook BrokerController::initialize() calls when this header exists: registers the
// broker-extras admin processors (broker/processors/extrasregistry.h) on both servers, on the
// admin pool. Send-back and query/view are registered by the controller itself.

#include "broker/brokercontroller.h"
#include "broker/processors/extrasregistry.h"
#include "clientlib/remoting/remotingserver.h"

namespace qrocket::broker {

inline void installBrokerExtras(BrokerController &controller)
{
    for (remoting::RemotingServer *server :
        {controller.remotingServer(), controller.fastRemotingServer()}) {
        if (server)
            registerExtraProcessors(*server, controller.context(), controller.adminExecutor());
    }
}

} // namespace qrocket::broker
