#pragma once

// ScheduleMessageService: delivers delayed messages (protocol.md §8.3), RocketMQ's
// ScheduleMessageService.
//
// - transform(): called by the send path for every single (non-batch) message; parks a message
//   with DELAY > 0 in SCHEDULE_TOPIC_XXXX (see scheduletransform.h).
// - installTagsCodeResolver(): must be called on the MessageStore before store.open(), so that
//   SCHEDULE_TOPIC_XXXX consume-queue units carry the delivery time (also when recovery rebuilds
//   them).
// - start()/stop(): one service thread runs one logical timer per level. A level's run reads its
//   consume queue from the offset kept in DelayOffsetManager (delayOffset.json); each due unit is
//   re-put to its real topic/queue and the offset advanced; a head that is not due yet, an empty
//   or missing queue ⇒ next run in 100 ms (or sooner when due sooner); a failed put ⇒ retry the
//   same unit in 10 s. Offsets are persisted every flushDelayOffsetInterval and at stop(). Only a
//   master delivers: start() does nothing on a slave.
//
// Ownership: the controller owns the service and the BrokerContext members it uses (config,
// store, delayOffsets), which must outlive it. Thread-safety: transform(), tagsCode and the
// accessors may be called from any thread; start()/stop() from the owning thread.

#include "broker/schedule/scheduletransform.h"
#include "storage/core/servicethread.h"

#include <QByteArray>

#include <atomic>
#include <functional>
#include <vector>

namespace qrocket::storage {
class MessageStore;
}

namespace qrocket::broker {

struct BrokerContext;

class ScheduleMessageService
{
public:
    static constexpr std::int64_t kFirstDelayMillis = 100;
    static constexpr std::int64_t kDelayForAWhileMillis = 100;
    static constexpr std::int64_t kDelayForAPeriodMillis = 10000;
    /// Re-puts per level run; a larger backlog continues in the next run 1 ms later.
    static constexpr int kMaxDeliveriesPerRun = 1000;

    using Clock = std::function<std::int64_t()>; // ms since the epoch

    /// Levels come from ctx.config (delayLevelMillis(), else messageDelayLevel parsed here;
    /// RocketMQ's default when neither parses).
    explicit ScheduleMessageService(BrokerContext &ctx, Clock clock = {});
    ~ScheduleMessageService();
    ScheduleMessageService(const ScheduleMessageService &) = delete;
    ScheduleMessageService &operator=(const ScheduleMessageService &) = delete;

    const schedule::DelayLevels &levels() const { return m_levels; }
    int maxLevel() const { return static_cast<int>(m_levels.size()); }

    /// Send path: parks a DELAY message; returns the level applied or 0 (unchanged).
    int transform(storage::MessageExtBrokerInner &msg) const;
    /// The tagsCode derivation for every record (delivery time for SCHEDULE_TOPIC_XXXX).
    std::function<std::int64_t(const protocol::MessageRecordView &)> tagsCodeResolver() const;
    /// store.setTagsCodeResolver(tagsCodeResolver()); call before store.open().
    void installTagsCodeResolver(storage::MessageStore &store) const;

    /// Starts the delivery thread (master only). Idempotent.
    void start();
    /// Stops the thread and persists the offsets. Idempotent.
    void stop();
    /// From the owning thread, like start()/stop().
    bool isRunning() const;

    /// One run of a level's timer now: delivers every due unit, advances the offset. Returns the
    /// ms until the level should run again. Used by the thread and by tests. A put that fails
    /// for a reason that may pass (disk full, page cache busy) is retried in 10 s; one that can
    /// never succeed (the store calls the message illegal: a topic name too long, properties too
    /// large) is skipped with a warning naming its commit-log offset and counted, so that one
    /// record cannot hold up its delay level for every other message.
    std::int64_t deliverLevel(int level);

    /// For GET_BROKER_RUNTIME_INFO: "scheduleMessageOffset_<level>" -> "<offset>,<maxOffset>"
    /// for each level whose queue exists, and "scheduleMessageUndeliverable" (records skipped).
    std::vector<std::pair<QByteArray, QByteArray>> runtimeInfo() const;
    std::uint64_t undeliverable() const { return m_undeliverable.load(std::memory_order_relaxed); }

private:
    void run();
    std::int64_t now() const { return m_clock(); }
    /// This broker's store host (ctx.storeHostAddress, else ctx.storeHost), else `fallback`.
    protocol::HostAddress storeHostOr(const protocol::HostAddress &fallback) const;

    BrokerContext &m_ctx;
    Clock m_clock;
    schedule::DelayLevels m_levels;
    std::atomic<std::uint64_t> m_undeliverable {0};

    storage::ServiceThread m_service;
};

} // namespace qrocket::broker
