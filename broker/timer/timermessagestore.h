#pragma once

// TimerMessageStore: holds timer messages (RIP-43) until due and delivers them to their real
// topic. A durable, crash-safe time wheel beside the message store (README "Timer messages").
//
// Data (all under <storePathRootDir>/timer, mmap'd, page cache not heap):
// - The parked messages themselves are rmq_sys_wheel_timer records in the commit log (so the HA
//   service replicates them like everything else); the store's consume queue of
//   rmq_sys_wheel_timer/0 indexes them with tagsCode = TIMER_OUT_MS (negated for a recall
//   marker). That queue is the source of truth: everything below is derived from it.
// - timerlog/<offset>: append-only files of 48-byte entries {magic, flags, prev, commit-log
//   offset, size, slot time, queue offset}; `prev` links the entries of one slot (newest first).
//   A file's footer keeps the latest slot time of its entries: a file is deleted once the wheel
//   has fired past that time.
// - wheel: N = 2 * timerMaxDelaySec / precision + 16 slots of {slot time, newest entry}; slot of
//   time T is (T / precision) % N.
// - checkpoint: the enqueue position (next queue offset, next log position), the fire position
//   (slot time F being fired, its cursor: the next entry to deliver, valid while
//   cursorSlot == F), the pending delivery (entry, commit-log offset before its put) and totals.
//
// One thread does everything (enqueue, then fire), so O(1) per message for both and no locks on
// the hot path. Firing slot F starts when the wall clock reaches F and the reput thread has
// dispatched everything the commit log held at that moment (so a message or recall marker put
// before F is in F's list). Up to kFireBatch entries are delivered per round, then new arrivals
// are enqueued again: a backlog drains at the put rate, not one message per tick.
//
// Crash windows (kill -9 keeps every store made to a MAP_SHARED page before the kill, in program
// order; each step below is ordered so that recovery can tell what happened):
// - enqueue: (1) entry written at logWritePos, (2) slot published (slot.time = T if new, then
//   slot.last = pos: one 8-byte store), (3) checkpoint enqueueCqOffset++, (4) logWritePos += 48.
//   Recovery reads the entry at logWritePos: if it is published (slot.time == entry.slot and
//   slot.last == pos) it is kept and the checkpoint rolled forward, else it is overwritten. A
//   queue unit is therefore in the wheel exactly once.
// - fire: (1) pendingFrom = commit-log max offset, (2) pendingPos = entry, (3) the delivery put
//   (returns once the record is in the commit log), (4) cursor = entry.prev, (5) pendingPos = -1.
//   Recovery with pendingPos == cursor (crash between 2 and 4) scans the commit log from
//   pendingFrom for the delivery (same real topic/queue, born time, body, UNIQ_KEY and
//   TIMER_ENQUEUE_MS = the parked record's store time): found -> the cursor moves past it (not
//   delivered twice); not found (the put never reached the commit log, or recovery truncated
//   its torn record) -> delivered again (not lost).
// - slot change: F += precision is one 8-byte store; the cursor is valid only while
//   cursorSlot == F, so a new slot always starts from its list head, and a slot is never
//   restarted once F moved past it. cursorSlot is written after the cursor at a start.
// - None early: a slot is fired only when the wall clock is >= its time, and TIMER_OUT_MS is the
//   due time rounded up to the precision.
// - Commit log truncated under the timer (power loss, a slave's log cut back): an entry whose
//   record is no longer a rmq_sys_wheel_timer record with the same queue offset is skipped with
//   a warning; the enqueue offset is clamped to the queue, so dequeue never sticks (#10668).
// - A slave promoted to master, or a lost checkpoint: a fresh wheel over a non-empty
//   rmq_sys_wheel_timer inherits it (timersuccession.h), with the master's fire mark.
// What is NOT covered: a power loss (the timer files and the commit log are flushed
// independently, as in RocketMQ).
//
// Threading: open()/start()/stop() from the owner's thread; runOnce() from the timer thread (or
// a test, with the thread not started); recall() and the accessors from any thread.

#include "broker/timer/timersuccession.h"
#include "broker/timer/timertransform.h"
#include "clientlib/common/result.h"
#include "storage/core/servicethread.h"
#include "storage/core/storetypes.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_set>
#include <vector>

namespace qrocket::storage {
class MessageStore;
class MappedFile;
} // namespace qrocket::storage

namespace qrocket::broker {

struct TimerStoreOptions
{
    QString dir; // <storePathRootDir>/timer
    timer::TimerRules rules;
    std::int64_t logFileSize = 48LL * 1024 * 1024 + 64; // 1 Mi entries + footer
    std::int64_t flushIntervalMs = 1000; // timerFlushIntervalMs
    std::function<std::int64_t()> clock; // ms since the epoch; default: the system clock
    std::function<protocol::HostAddress()> storeHost; // written into delivered records
};

class TimerMessageStore
{
public:
    static constexpr int kFireBatch = 2000;
    static constexpr int kEnqueueBatch = 4000;

    TimerMessageStore(storage::MessageStore &store, TimerStoreOptions options);
    ~TimerMessageStore();
    TimerMessageStore(const TimerMessageStore &) = delete;
    TimerMessageStore &operator=(const TimerMessageStore &) = delete;

    /// Opens or creates the files and recovers (the message store must be open). Refuses when
    /// the geometry (precision, slots) changed while messages still wait.
    Status open();
    /// Starts the timer thread (a master only). Idempotent.
    void start();
    void stop();

    /// One round: enqueue what arrived, fire what is due. Returns ms until the next round.
    std::int64_t runOnce();

    const timer::TimerRules &rules() const { return m_opt.rules; }

    /// Tests: a simulated kill -9 at a crash window. Called with 1 after an enqueue published
    /// its entry (checkpoint not yet moved), 2 after a delivery put (cursor not yet moved);
    /// returning true throws TEST_Crash out of runOnce() with the files left as they are.
    struct TEST_Crash
    { };
    std::function<bool(int point)> TEST_crashAt;

    enum class RecallResult : std::uint8_t { Ok, AlreadyDue, PutFailed };
    /// Puts recall `marker` (already in rmq_sys_wheel_timer, slot `slotMs`) unless slot
    /// `slotMs` has started firing; atomically with respect to the fire's start.
    RecallResult recall(const storage::MessageExtBrokerInner &marker, std::int64_t slotMs,
        storage::PutMessageResult *put);

    /// The store's tagsCode for rmq_sys_wheel_timer records, else `next`.
    static std::function<std::int64_t(const protocol::MessageRecordView &)> wrapTagsCodeResolver(
        std::function<std::int64_t(const protocol::MessageRecordView &)> next);

    // Metrics (any thread).
    std::int64_t backlog() const; // parked and not yet delivered/recalled
    std::int64_t enqueueBehind() const; // queue units not yet in the wheel
    std::int64_t readBehindMs() const; // how far the fire position lags the clock
    std::int64_t delivered() const;
    std::int64_t skipped() const; // recalled markers/messages and undeliverable records
    std::int64_t fireTime() const;
    /// GET_TIMER_CHECK_POINT's body (RocketMQ's TimerCheckpoint.encode: 7 big-endian longs),
    /// followed by the fire mark when there is one (timersuccession.h).
    QByteArray checkpointBody() const;
    /// The fire mark of the last slot change (none after a restart until the next one).
    std::optional<timer::FireMark> fireMark() const;
    /// GET_TIMER_METRICS's body (RocketMQ's TimerMetricsSerializeWrapper JSON).
    QByteArray metricsJson() const;
    /// GET_BROKER_RUNTIME_INFO's timer keys (RocketMQ's names, plus timerBacklog).
    std::vector<std::pair<QByteArray, QByteArray>> runtimeInfo() const;

    /// The timer log's entry and the wheel's slot (file layouts; see the top of this file).
    struct Entry;
    struct Slot;

private:
    Status openLog();
    Status recover();
    std::int64_t now() const { return m_opt.clock(); }
    std::int64_t ck(int field) const;
    void setCk(int field, std::int64_t v);
    Slot *slotOf(std::int64_t slotTime) const;
    Entry *entryAt(std::int64_t pos);
    const Entry *entryAt(std::int64_t pos) const;
    Result<std::int64_t> reserveEntry(std::int64_t pos); // position the entry goes to
    int enqueue(int max, bool &stalled);
    int fire(int max, bool &waiting);
    bool startSlot(std::int64_t slotTime);
    void collectMarkers(std::int64_t head);
    enum class DeliverResult : std::uint8_t { Done, Skipped, Retry };
    DeliverResult deliver(std::int64_t pos, const Entry &e);
    bool findDelivery(std::int64_t from, const protocol::MessageRecordView &source) const;
    void publishMark(std::int64_t slot);
    void deleteFiredLogFiles();
    void flushFiles();
    void run();

    storage::MessageStore &m_store;
    TimerStoreOptions m_opt;
    std::int64_t m_slots = 0;
    std::shared_ptr<storage::MappedFile> m_checkpoint;
    std::shared_ptr<storage::MappedFile> m_wheel;
    std::map<std::int64_t, std::shared_ptr<storage::MappedFile>> m_log; // by first offset
    mutable std::mutex m_logMutex; // m_log's map (the metrics read it)

    // Fire gate (recall vs. the start of a slot).
    std::mutex m_gateMutex;
    std::atomic<std::int64_t> m_startedSlot {0};
    std::int64_t m_gateOffset = -1; // commit-log offset the reput must reach first (timer thread)
    std::unordered_set<QByteArray> m_deleteKeys; // recall markers of the slot being fired
    std::atomic<std::int64_t> m_lastFireMs {0};

    timer::Inheritance m_inheritance; // timer thread
    mutable std::mutex m_markMutex;
    std::optional<timer::FireMark> m_mark;

    std::int64_t m_nextFlush = 0;
    storage::ServiceThread m_service;
};

} // namespace qrocket::broker
