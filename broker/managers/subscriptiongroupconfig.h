#pragma once

// A consumer group's settings: the wire and file struct is protocol::SubscriptionGroupConfig
// (clientlib/protocol/bodies/adminbodies.h: its writer in fastjson's order and its tolerant
// reader); the broker's managers name it here.

#include "clientlib/protocol/bodies/adminbodies.h"

namespace qrocket::broker {

using protocol::SubscriptionGroupConfig;

} // namespace qrocket::broker
