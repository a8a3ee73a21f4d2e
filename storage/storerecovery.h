#pragma once

// StoreRecovery: brings a MessageStore's files to a consistent state at open (protocol.md §7.7).
// Clean stop (no `abort`): scan the last three commit-log files. Crash: scan from the newest
// file whose first message is older than the checkpoint. Either way every record's magic, size
// and (checkCRCOnRecover) body CRC is verified; the first bad byte ends the valid data and
// everything after it is truncated in the commit log, the consume queues and the index. Missing
// consume-queue units and index entries are then rebuilt by re-dispatching from the earliest
// point that needs it. Everything found is logged and kept in the RecoveryReport.
// The consume queues are loaded and checked in parallel (parallelFor); what is found is then
// taken in queue order, so the report and the decisions are those of a serial pass.

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
    };
    /// Verifies records of the commit log from `startOffset` (a file start) to the first invalid
    /// byte; pure scan, changes nothing.
    static ScanResult scanCommitLog(MessageStore &store, std::int64_t startOffset, bool checkCrc);

private:
    std::int64_t chooseAbnormalStart() const;
    MessageStore &m_store;
};

} // namespace qrocket::storage
