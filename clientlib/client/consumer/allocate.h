#pragma once

// How a clustering consumer group shares a topic's queues (RocketMQ's AllocateMessageQueue*):
// every member computes the same answer from the same sorted lists, so each queue has exactly one
// owner once all members saw the same membership.
//   Averagely          contiguous blocks, the first (queues % consumers) members one more;
//   AveragelyByCircle  queue i to member i % consumers;
//   ConsistentHash     a ring of MD5 hashes, 10 virtual nodes per member (few moves on change).
// Pure functions.

#include "clientlib/client/message.h"

#include <functional>
#include <vector>

namespace qrocket::client {

enum class AllocateStrategy : std::uint8_t { Averagely, AveragelyByCircle, ConsistentHash };
const char *allocateStrategyName(AllocateStrategy strategy);

/// The queues of `all` (sorted) that `currentId` owns among `consumerIds` (sorted); empty when
/// `currentId` is not a member.
std::vector<MessageQueue> allocateMessageQueues(AllocateStrategy strategy,
    const QByteArray &currentId, const std::vector<MessageQueue> &all,
    const std::vector<QByteArray> &consumerIds);

} // namespace qrocket::client
