#pragma once

// What a producer needs of a topic's route (RocketMQ's TopicPublishInfo) and how it picks a queue:
// round robin over the writable queues of the masters, with latency fault avoidance
// (RocketMQ's MQFaultStrategy / LatencyFaultTolerance):
//
//   send latency (ms)      >= 50  100  550  1000  2000  3000  15000
//   not available for (ms)     0    0   30000 60000 120000 180000 600000
//
// A failed send (no answer, connection refused) counts as 3000 ms. A broker inside its window is
// skipped while another one is available; when none is, the one whose window ends first is used.
// Immutable once built (TopicPublishInfo), or guarded by its own mutex (FaultTolerance).

#include "clientlib/client/message.h"
#include "clientlib/protocol/bodies/routebodies.h"

#include <QByteArray>
#include <QHash>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace qrocket::client {

/// PermName: 4 read, 2 write, 1 inherit.
namespace Perm {
inline constexpr int Read = 4;
inline constexpr int Write = 2;
inline constexpr int Inherit = 1;
inline bool isReadable(int perm)
{
    return perm & Read;
}
inline bool isWritable(int perm)
{
    return perm & Write;
}
} // namespace Perm

struct TopicPublishInfo
{
    bool orderTopic = false;
    /// Built from the default topic's (TBW102) route: sends ask the broker to create the topic.
    bool fromDefaultTopic = false;
    std::vector<MessageQueue> queues; // writable queues of masters, sorted by broker name
    protocol::TopicRouteData route;

    bool ok() const { return !queues.empty(); }
    /// The queue after the round-robin counter, skipping `lastBrokerName` when another broker
    /// has queues (the retry of a failed send goes elsewhere).
    MessageQueue selectOneMessageQueue(const QByteArray &lastBrokerName) const;
    int writeQueueNumsOf(const QByteArray &brokerName) const;

    /// The producer's view of `route` for `topic`; `maxQueuesPerBroker` > 0 caps each broker's
    /// queue count (auto-create through TBW102 asks for defaultTopicQueueNums).
    static std::shared_ptr<TopicPublishInfo> fromRoute(
        const QByteArray &topic, const protocol::TopicRouteData &route, int maxQueuesPerBroker = 0);

    mutable std::atomic<std::uint32_t> sendWhichQueue {0};
};

/// The readable queues of a route (consumers' view), sorted.
std::vector<MessageQueue> subscribeQueuesOf(
    const QByteArray &topic, const protocol::TopicRouteData &route);

class FaultTolerance
{
public:
    /// Remembers how a send to `brokerName` went. `isolation`: it failed outright.
    void update(const QByteArray &brokerName, std::int64_t latencyMs, bool isolation);
    bool isAvailable(const QByteArray &brokerName) const;
    void remove(const QByteArray &brokerName);
    /// Not-available duration for a latency (the table above).
    static std::int64_t notAvailableDuration(std::int64_t latencyMs);

    /// Picks a queue of `info` as above; `enabled` false: round robin only (skipping the last
    /// broker), as the Java client's default.
    MessageQueue select(
        const TopicPublishInfo &info, const QByteArray &lastBrokerName, bool enabled) const;

private:
    struct Item
    {
        std::int64_t latency = 0;
        std::int64_t startTimestamp = 0; // available again from then (ms since epoch)
    };
    mutable std::mutex m_mutex;
    QHash<QByteArray, Item> m_items; // guarded by m_mutex
};

} // namespace qrocket::client
