#pragma once

// How a clustering consumer group shares a topic's queues (RocketMQ's AllocateMessageQueue*; the
// strategies are described in allocatestrategy.h): every member computes the same answer from the
// same sorted lists, so each queue has exactly one owner once all members saw the same membership.
// Pure functions.

#include "clientlib/client/allocatestrategy.h"
#include "clientlib/client/message.h"

#include <functional>
#include <vector>

namespace qrocket::client {

/// The queues of `all` (sorted) that `currentId` owns among `consumerIds` (sorted); empty when
/// `currentId` is not a member.
std::vector<MessageQueue> allocateMessageQueues(AllocateStrategy strategy,
    const QByteArray &currentId, const std::vector<MessageQueue> &all,
    const std::vector<QByteArray> &consumerIds);

} // namespace qrocket::client
