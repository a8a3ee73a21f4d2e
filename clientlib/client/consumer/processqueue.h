#pragma once

// ProcessQueue: a consumer's local buffer of one message queue (RocketMQ's ProcessQueue): the
// messages pulled and not yet consumed, ordered by queue offset. It is what flow control reads
// (count, bytes, offset span) and what the committed offset comes from: removeMessage() answers
// the smallest offset still being processed, so a commit never passes a message a listener has
// not finished (at-least-once). Orderly consumption takes messages out in order (takeMessages)
// and commits them all at once (commit). Thread-safe (one mutex); dropped/locked are atomics.

#include "clientlib/client/message.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <vector>

namespace qrocket::client {

class ProcessQueue
{
public:
    static constexpr std::int64_t kLockMaxLiveMs
        = 30000; // rocketmq.client.rebalance.lockMaxLiveTime
    static constexpr std::int64_t kPullMaxIdleMs = 120000;

    /// Adds pulled messages; true when an orderly consumer should start a consume task (it was
    /// idle and now has messages). `keepMessages` false (a concurrent consumer, which hands the
    /// messages themselves to its tasks): only their offsets and sizes are kept, no copy of each
    /// message; takeMessages() then has nothing to give.
    bool putMessages(const std::vector<MessageExt> &msgs, bool keepMessages = true);
    /// Removes consumed messages, named by their queue offsets; the offset to commit (the first
    /// one left, or one past the highest seen when none is left), -1 when the queue was already
    /// empty.
    std::int64_t removeMessages(std::span<const std::int64_t> queueOffsets);
    std::int64_t removeMessages(const std::vector<MessageExt> &msgs);
    /// Highest minus lowest offset buffered (consumeConcurrentlyMaxSpan).
    std::int64_t maxSpan() const;
    std::int64_t messageCount() const;
    std::int64_t messageBytes() const;

    /// Orderly: up to `n` messages in offset order, moved to the consuming set.
    std::vector<MessageExt> takeMessages(int n);
    /// Orderly: the consuming set is done; the offset to commit (-1 when there was none).
    std::int64_t commit();
    /// Orderly: the consuming set goes back to be taken again.
    void makeMessagesToConsumeAgain(const std::vector<MessageExt> &msgs);
    /// Drops everything (a reset offset, a dropped queue).
    void clear();

    std::atomic<bool> dropped {false};
    std::atomic<bool> locked {false};
    std::atomic<std::int64_t> lastLockTimestamp {0};
    std::atomic<std::int64_t> lastPullTimestamp {0};
    std::atomic<std::int64_t> lastConsumeTimestamp {0};
    /// Held by an orderly consume task while it runs (rebalance waits on it before unlocking).
    std::timed_mutex consumeLock;

    bool isLockExpired(std::int64_t now) const
    {
        return now - lastLockTimestamp.load() > kLockMaxLiveMs;
    }
    bool isPullExpired(std::int64_t now) const
    {
        return now - lastPullTimestamp.load() > kPullMaxIdleMs;
    }

    struct Info
    {
        std::int64_t cachedMsgCount = 0;
        std::int64_t cachedMsgMinOffset = 0;
        std::int64_t cachedMsgMaxOffset = 0;
        std::int64_t cachedMsgSizeInMiB = 0;
        std::int64_t transactionMsgCount = 0; // consuming (orderly)
    };
    Info info() const;

private:
    struct Held
    {
        qsizetype bytes = 0; // body size
        MessageExt msg; // empty unless put with keepMessages
    };
    mutable std::mutex m_mutex;
    std::map<std::int64_t, Held> m_messages; // guarded by m_mutex
    std::map<std::int64_t, Held> m_consuming; // orderly, guarded by m_mutex
    std::int64_t m_bytes = 0; // guarded by m_mutex
    std::int64_t m_count = 0; // buffered + consuming, guarded by m_mutex
    std::int64_t m_maxOffset = -1; // highest offset ever put, guarded by m_mutex
    bool m_consumingOrderly = false; // an orderly task runs, guarded by m_mutex
};

} // namespace qrocket::client
