#pragma once

// Delay levels (protocol.md §8.3): the pure parts of the schedule, shared by the send path, the
// store's tagsCode derivation and the delivery timers. No state, no threads; thread-safe.
//
// - A message with DELAY > 0 (transaction type NOT or COMMIT, not a batch) is parked in
//   SCHEDULE_TOPIC_XXXX queue level-1, the level clamped to the highest configured one, with its
//   real destination saved in REAL_TOPIC / REAL_QID.
// - The consume-queue tagsCode of a parked record is its delivery time: store time + level delay.
// - When due, a copy goes to the real topic/queue: DELAY, REAL_TOPIC and REAL_QID removed,
//   WAIT=false, everything else (body, flag, sysflag, born time/host, reconsumeTimes, other
//   properties) kept; the store derives tagsCode from TAGS again.

#include "clientlib/common/result.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/core/storetypes.h"

#include <QByteArrayView>
#include <QStringView>

#include <cstdint>
#include <vector>

namespace qrocket::broker::schedule {

/// The delay per level in ms, index 0 = level 1 (BrokerConfig::delayLevelMillis()).
using DelayLevels = std::vector<std::int64_t>;

/// Queue id in SCHEDULE_TOPIC_XXXX of a level (level - 1), and back.
inline int queueIdOfLevel(int level)
{
    return level - 1;
}
inline int levelOfQueueId(int queueId)
{
    return queueId + 1;
}

/// The DELAY property of an encoded properties string as a level (0 when absent or not a
/// positive number). Not clamped.
int delayLevelOf(QByteArrayView properties);

/// The delay of a level (clamped to [1, levels.size()]); 0 when no levels are configured.
std::int64_t levelDelayMillis(const DelayLevels &levels, int level);

/// Send path: parks `msg` in SCHEDULE_TOPIC_XXXX when it carries DELAY > 0 and its transaction
/// type is NOT or COMMIT. Returns the (clamped) level applied, or 0 when `msg` is unchanged.
/// Batches must not be passed here (they cannot be delayed).
int applyDelayLevel(storage::MessageExtBrokerInner &msg, const DelayLevels &levels);

/// The store's tagsCode for any record: the delivery time for SCHEDULE_TOPIC_XXXX records with a
/// DELAY, else the Java hash of TAGS (0 without TAGS).
std::int64_t tagsCodeOf(const protocol::MessageRecordView &record, const DelayLevels &levels);

/// RocketMQ's correctDeliverTimestamp: a delivery time later than now + levelDelay (the clock went
/// back since the message was stored) is clamped to now.
std::int64_t correctDeliverTimestamp(
    std::int64_t now, std::int64_t deliverTimestamp, std::int64_t levelDelay);

/// A parked record (delay level or timer) back at its real destination: REAL_TOPIC / REAL_QID
/// taken out of `props` (the record's properties as the caller adjusted them), WAIT=false, body,
/// flags, born time/host and reconsumeTimes kept, tagsCode from TAGS. InvalidArgument naming
/// `kind` when the record has no usable REAL_TOPIC / REAL_QID.
Result<storage::MessageExtBrokerInner> restoreParked(const protocol::MessageRecordView &record,
    protocol::MessageProperties props, const protocol::HostAddress &storeHost, QStringView kind);

/// The message to re-put when a parked record is due. InvalidArgument when the record has no
/// usable REAL_TOPIC / REAL_QID (it is then skipped). `storeHost` is this broker's address.
Result<storage::MessageExtBrokerInner> messageTimeUp(
    const protocol::MessageRecordView &record, const protocol::HostAddress &storeHost);

} // namespace qrocket::broker::schedule
