#pragma once

// The broker's topic model is the protocol's (clientlib/protocol/bodies/routebodies.h): the same
// TopicConfig and DataVersion that topics.json persists (protocol.md §7.6), GET_ALL_TOPIC_CONFIG
// answers and REGISTER_BROKER carries to the name server, which reads them with the same types.
//
// TopicConfig JSON (fastjson getter order):
//   {"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"T",
//    "topicSysFlag":0,"writeQueueNums":4}
// DataVersion JSON: {"counter":14,"timestamp":1796013491638}

#include "clientlib/protocol/bodies/routebodies.h"

namespace qrocket::broker {

namespace Perm = protocol::Perm;
using protocol::DataVersion;
using protocol::TopicConfig;
using protocol::TopicFilterType;

} // namespace qrocket::broker
