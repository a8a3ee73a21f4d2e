#pragma once

// StoreRecovery: brings a MessageStore's files to a consistent state at open (protocol.md §7.7).
// Clean stop (no `abort`): scan the last three commit-log files. Crash: scan from the newest
// file whose first message is older than the checkpoint. Either way every record's magic, size
// and (checkCRCOnRecover) body CRC is verified; the first bad byte ends the valid data and
// everything after it is truncated in the commit log, the consume queues and the index. Missing
// consume-queue units and index entries are then rebuilt by re-dispatching from the earliest
// point that needs it. Everything found is logged and kept in the RecoveryReport.
// The consume queues are checked after open() returns when one queue shows that they hold the
// records before the re-dispatch start (recoverConsumeQueuesInBackground; queuerecovery.cpp),
// else all of them first, in parallel (parallelFor).

#include "clientlib/common/status.h"

#include <QByteArrayView>

#include <cstddef>
#include <cstdint>
#include <functional>

namespace qrocket::storage {

/// Runs fn(0) .. fn(n - 1) on up to min(4, cores) threads (the calling one included) and returns
/// when all are done. For start-up work over many independent files (the consume queues'
/// loading and checking): `fn` must touch only what its index owns.
void parallelFor(std::size_t n, const std::function<void(std::size_t)> &fn);

class MessageStore;
class MappedFile;

class StoreRecovery
{
public:
    explicit StoreRecovery(MessageStore &store) : m_store(store) { }
    Status run(bool lastExitOk);

    struct ScanResult
    {
        std::int64_t endOffset = 0;
        std::int64_t records = 0;
        QString stopReason; // empty: clean end (zeros)
        // The first and last records filed in a consume queue (not a prepared or rolled-back
        // transaction half), -1 when none.
        std::int64_t firstQueueRecord = -1;
        std::int64_t lastQueueRecord = -1;
        // The first record stored at or after `flushedTs` (-1: none), and the last record filed
        // in a queue before it (-1: none).
        std::int64_t firstUnflushed = -1;
        std::int64_t lastFlushedQueueRecord = -1;
    };
    /// Verifies records of the commit log from `startOffset` (a file start) to the first invalid
    /// byte; pure scan, changes nothing. `flushedTs`: the checkpoint's time of the consume
    /// queues (every record dispatched before the first one stored at or after it is in them).
    static ScanResult scanCommitLog(
        MessageStore &store, std::int64_t startOffset, bool checkCrc, std::int64_t flushedTs = 0);

private:
    std::int64_t chooseAbnormalStart() const;
    /// Whether the record at `offset` is in its consume queue (recovering that queue).
    bool queuesHoldRecord(std::int64_t offset) const;
    MessageStore &m_store;
};

} // namespace qrocket::storage
