#pragma once

// Store statistics for the broker's runtime info and the console, and the recovery report.

#include "storage/services/cleanservice.h"

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

namespace qrocket::storage {

struct StoreStats
{
    double putTps = 0; // messages/s since the previous stats() call
    double getFoundTps = 0; // messages returned by getMessage per second
    std::int64_t putMessageTotal = 0;
    std::int64_t putBytesTotal = 0;
    std::int64_t getMessageTotal = 0;
    // The clean service's last measure (storage/diskspace.h, what `df` shows), in [0, 1] with
    // -1 unknown: the commit-log partition's and the consume-queue partition's.
    double diskRatio = -1;
    double consumeQueueDiskRatio = -1;
    bool diskFull = false; // writes refused (either partition above diskSpaceWarningLevelRatio)
    QString refuseReason;
    std::int64_t commitLogMinOffset = 0;
    std::int64_t commitLogMaxOffset = 0;
    std::int64_t dispatchBehindBytes = 0;
    std::int64_t flushBacklogBytes = 0;
    std::int64_t pendingSyncFlushRequests = 0;
    std::int64_t syncFlushCount = 0; // group-commit flushes since open (SYNC_FLUSH)
    int consumeQueueCount = 0;
    int indexFileCount = 0;
    std::vector<StoreFileStatus> commitLogFiles; // size, mtime, expiry, reason kept
};

struct RecoveryReport
{
    bool lastExitOk = true;
    std::int64_t scanStartOffset = 0;
    std::int64_t processOffset = 0; // end of valid data
    std::int64_t scannedBytes = 0;
    std::int64_t scannedRecords = 0;
    std::int64_t truncatedBytes = 0; // commit-log bytes discarded after processOffset
    QString stopReason; // why the scan stopped (empty: clean end)
    std::int64_t redispatchFromOffset = 0;
    std::int64_t redispatchedRecords = 0;
    int consumeQueues = 0;
    int damagedConsumeQueues = 0;
    int deletedIndexFiles = 0;
    QStringList problems; // every damage found, human readable
    std::int64_t consumeQueueLoadMs = 0; // opening and checking every consume queue
    bool queuesInBackground = false; // checked after open() returned (queuesRecovered())
    std::int64_t rebuiltUnits = 0; // units a damaged queue got back from the commit log
    int validatedQueues = 0; // queues whose units an unfinished earlier start left unchecked
    std::int64_t scanMs = 0; // time spent verifying commit-log records
    std::int64_t elapsedMs = 0;
};

} // namespace qrocket::storage
