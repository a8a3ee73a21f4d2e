#pragma once

// StoreRecovery: brings a MessageStore's files to a consistent state at open (protocol.md §7.7).
// Clean stop (no `abort`): scan the last three commit-log files. Crash: scan from the newest
// file whose first message is older than the checkpoint. Either way every record's magic, size
// and (checkCRCOnRecover) body CRC is verified; the first bad byte ends the valid data and
// everything after it is truncated in the commit log, the consume queues and the index. Missing
// consume-queue units and index entries are then rebuilt by re-dispatching from the earliest
// point that needs it. Everything found is logged and kept in the RecoveryReport.

#include "clientlib/common/status.h"

#include <QByteArrayView>

#include <cstdint>

namespace qrocket::storage {

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
