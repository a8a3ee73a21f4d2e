#pragma once

// AllocateStrategy: how a clustering consumer group shares a topic's queues (RocketMQ's
// AllocateMessageQueue* strategies; consumer/allocate.h has the allocation itself).
//   Averagely          contiguous blocks, the first (queues % consumers) members one more;
//   AveragelyByCircle  queue i to member i % consumers;
//   ConsistentHash     a ring of MD5 hashes, 10 virtual nodes per member (few moves on change).

#include <cstdint>

namespace qrocket::client {

enum class AllocateStrategy : std::uint8_t { Averagely, AveragelyByCircle, ConsistentHash };
/// RocketMQ's name of the strategy ("AVG", "AVG_BY_CIRCLE", "CONSISTENT_HASH").
const char *allocateStrategyName(AllocateStrategy strategy);

} // namespace qrocket::client
