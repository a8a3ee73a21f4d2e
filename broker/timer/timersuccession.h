#pragma once

// Timer succession: how a broker that takes over from a master (a slave promoted by the
// controller or by hand) starts its time wheel without delivering again what the old master
// delivered, and without losing what it did not (README "Timer messages").
//
// A slave keeps no wheel: it replicates the parked rmq_sys_wheel_timer records and their
// deliveries through the commit log, and every sync round (SlaveSynchronize) copies the
// master's FIRE MARK, carried after RocketMQ's 56 bytes of GET_TIMER_CHECK_POINT's body
// (RocketMQ's TimerCheckpoint.decode reads seven longs and ignores what follows):
//   F     every slot before F has been fired (delivered or skipped);
//   from  the commit-log max offset when F became the fire slot: every delivery of a slot
//         before F is below it, every delivery of slot F or later at or above it;
//   Q     the rmq_sys_wheel_timer queue offset enqueued when slot F - precision started (after
//         that start's drain): an entry below Q whose due slot is before F was in a slot before
//         F (an entry enqueued after that start went to F or later).
// The master builds the mark at each slot change, under a mutex, from the fire position it has
// just stored and from the slot's start (queue offset and slot time, both in the checkpoint,
// so a slot resumed after a restart still has its Q); a slot whose start is not known publishes
// no mark, and the slave then keeps its older copy. An older mark is always a true statement
// (it only claims less), so a slave that saved one mark and misses later ones stays correct;
// it only scans more.
//
// A store that opens without a checkpoint of its own while rmq_sys_wheel_timer holds records
// INHERITS them (Inheritance below): with a mark (same precision, and the commit log holding
// everything in [from, its end)) an entry below Q due before F is known fired and not
// enqueued; every other entry is looked up among the deliveries found by scanning the commit
// log from `from` to its end at open (exact: a digest hit is confirmed by comparing both
// records, and a delivery accounts for one parked record only). With no usable mark the scan
// starts at the first parked record still in the queue (slower, as exact). Entries parked
// after the open are enqueued as usual. The plan is kept in the store's checkpoint, so a crash
// during the inheritance redoes the scan (on the timer thread, never at open) and goes on.
//
// A successor publishes marks again only once its inheritance is over (its slot started at or
// beyond the inherited range) and its fire slot is past every inherited entry it skipped
// (those were delivered by a predecessor, maybe below its own `from`).

#include "clientlib/protocol/messagecodec.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace qrocket::storage {
class MessageStore;
}

namespace qrocket::broker::timer {

struct FireMark
{
    std::int64_t fire = 0; // F
    std::int64_t from = 0; // commit-log offset
    std::int64_t queueOffset = 0; // Q
    std::int64_t precisionMs = 0;
    bool operator==(const FireMark &) const = default;
};

/// The mark's bytes appended to GET_TIMER_CHECK_POINT's 56-byte body (a magic and four
/// big-endian longs).
QByteArray encodeFireMark(const FireMark &mark);
/// The mark of a GET_TIMER_CHECK_POINT body; nullopt for RocketMQ's plain 56 bytes or garbage.
std::optional<FireMark> parseFireMark(QByteArrayView checkpointBody);

/// Where a slave keeps its master's last GET_TIMER_CHECK_POINT body (under the timer dir).
QString masterCheckpointPath(const QString &timerDir);
/// Saves `body` there atomically (write and rename).
bool saveMasterCheckpoint(const QString &timerDir, const QByteArray &body);
/// The mark of the saved copy, if any.
std::optional<FireMark> loadMasterMark(const QString &timerDir);
/// A slave's own wheel is stale by definition (the master fires): removes checkpoint, wheel and
/// timer log, keeping the master's checkpoint copy, so that a later promotion inherits.
void discardOwnWheel(const QString &timerDir);

/// Visits every record of the commit log in [from, to) (stops early when `visit` returns
/// false, or at a record that does not decode). Returns false when it stopped at a bad record.
bool forEachRecord(const storage::MessageStore &store, std::int64_t from, std::int64_t to,
    const std::function<bool(const protocol::MessageRecordView &, std::int64_t offset)> &visit);

/// The deliveries of timer messages found in a range of the commit log, by digest.
class InheritedDeliveries
{
public:
    /// Scans [from, to).
    void load(const storage::MessageStore &store, std::int64_t from, std::int64_t to);
    /// True when parked record `source` was delivered in the scanned range; that delivery then
    /// accounts for no other parked record.
    bool takeDeliveryOf(
        const storage::MessageStore &store, const protocol::MessageRecordView &source);
    std::size_t size() const { return m_byDigest.size(); }
    void clear();

private:
    std::vector<std::pair<std::uint64_t, std::int64_t>> m_byDigest; // sorted (digest, offset)
    std::vector<bool> m_taken; // by index in m_byDigest
};

/// A fresh-open inheritance of rmq_sys_wheel_timer's records (see the top of this file).
class Inheritance
{
public:
    struct Plan
    {
        std::int64_t end = 0; // queue offsets below it are inherited (0: nothing)
        std::int64_t markFire = 0; // F of the mark used (0: none)
        std::int64_t markQueue = 0; // Q of the mark used
        std::int64_t from = 0; // the scan's range of the commit log
        std::int64_t to = 0;
    };
    /// The plan of a store opening without its own checkpoint.
    static Plan plan(
        const storage::MessageStore &store, const QString &timerDir, std::int64_t precisionMs);

    /// Whether inherited queue unit `queueOffset` (due slot `dueSlot`, a recall marker or not,
    /// its record at `commitLogOffset`) must not be enqueued. Scans on its first call.
    bool skip(const storage::MessageStore &store, const Plan &plan, std::int64_t queueOffset,
        std::int64_t dueSlot, bool marker, std::int64_t commitLogOffset);
    /// Frees the scan once the inheritance is over.
    void finish();
    bool loaded() const { return m_loaded; }
    std::size_t deliveriesFound() const { return m_deliveries.size(); }

private:
    InheritedDeliveries m_deliveries;
    bool m_loaded = false;
};

} // namespace qrocket::broker::timer
