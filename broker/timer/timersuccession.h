#pragma once

// Timer succession: how a broker that takes over from a master (a slave promoted by the
// controller or by hand) starts its time wheel without delivering again what the old master
// delivered, and without losing what it did not (README "Timer messages").
//
// A slave keeps no wheel: it replicates the parked rmq_sys_wheel_timer records and their
// deliveries through the commit log, and every sync round (SlaveSynchronize) copies the
// master's FIRE MARK, carried after RocketMQ's 56 bytes of GET_TIMER_CHECK_POINT's body:
//   F     every slot before F has been fired (delivered or skipped);
//   from  the commit-log max offset when F became the fire slot: every delivery of a slot
//         before F is below it, every delivery of slot F or later at or above it;
//   Q     the rmq_sys_wheel_timer queue offset enqueued when slot F - precision started: an
//         entry below Q whose due slot is before F was in a slot before F (an entry enqueued
//         after that start went to F or later).
// The master writes F, then from and Q, at each slot change (a crash between them leaves a
// mark that is older, never one that claims more).
//
// A store that opens without a checkpoint of its own while rmq_sys_wheel_timer holds records
// INHERITS them: with a mark (same precision, and the commit log holding everything up to
// `from`) an entry below Q due before F is known delivered and not enqueued; every other
// entry is looked up among the deliveries found by scanning the commit log from `from` to
// where the takeover began (exact: a digest hit is confirmed by comparing both records). With
// no usable mark the scan starts at the first parked record still in the queue (slower, as
// exact). Entries parked after the takeover are enqueued as usual.

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
};

/// The mark's bytes appended to GET_TIMER_CHECK_POINT's 56-byte body.
QByteArray encodeFireMark(const FireMark &mark);
/// The mark of a GET_TIMER_CHECK_POINT body; nullopt for RocketMQ's plain 56 bytes or garbage.
std::optional<FireMark> parseFireMark(QByteArrayView checkpointBody);

/// Where a slave keeps its master's last GET_TIMER_CHECK_POINT body (under the timer dir).
QString masterCheckpointPath(const QString &timerDir);
/// Saves `body` there atomically (write and rename).
bool saveMasterCheckpoint(const QString &timerDir, const QByteArray &body);
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
    /// True when parked record `source` was delivered in the scanned range.
    bool deliveredOf(
        const storage::MessageStore &store, const protocol::MessageRecordView &source) const;
    std::size_t size() const { return m_byDigest.size(); }
    void clear();

private:
    std::vector<std::pair<std::uint64_t, std::int64_t>> m_byDigest; // sorted (digest, offset)
};

} // namespace qrocket::broker::timer
