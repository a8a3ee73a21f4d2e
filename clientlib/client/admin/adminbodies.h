#pragma once

// The admin API's typed results are the protocol's body structs (clientlib/protocol/bodies/
// adminbodies.h, runtimebodies.h and habodies.h: one struct per wire body, with its writer and its
// tolerant reader); this header names them in client::admin, where the Admin API and its callers
// use them.

#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/protocol/bodies/habodies.h"
#include "clientlib/protocol/bodies/runtimebodies.h"

namespace qrocket::client::admin {

using protocol::BrokerLiveness;
using protocol::BrokerLivenessEntry;
using protocol::BrokerRuntimeInfo;
using protocol::BrokerStatsData;
using protocol::BrokerStatsItem;
using protocol::ConfigProperties;
using protocol::Connection;
using protocol::ConsumerConnection;
using protocol::ConsumerRunningInfo;
using protocol::ConsumeStats;
using protocol::ConsumeStatsList;
using protocol::ConsumeStatus;
using protocol::EpochEntryCache;
using protocol::EpochEntryInfo;
using protocol::GroupList;
using protocol::HAClientRuntimeInfo;
using protocol::HAConnectionRuntimeInfo;
using protocol::HARuntimeInfo;
using protocol::MessageQueue;
using protocol::messageQueueKey;
using protocol::OffsetWrapper;
using protocol::ProcessQueueInfo;
using protocol::ProducerConnection;
using protocol::ResetOffsetBody;
using protocol::StoreFile;
using protocol::StoreFiles;
using protocol::SubscriptionGroupConfig;
using protocol::SubscriptionGroupWrapper;
using protocol::TopicOffset;
using protocol::TopicStatsTable;

} // namespace qrocket::client::admin
