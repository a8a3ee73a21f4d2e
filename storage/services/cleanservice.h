#pragma once

// CleanService: commit-log retention and disk-space protection (protocol.md §8.7), as RocketMQ
// 4.9's CleanCommitLogService. One run(): measure the commit-log and the consume-queue
// partitions with the store's one measure (storage/diskspace.h: used / (used + available), what
// `df` shows), each path on its own as they may sit on different partitions; above
// diskSpaceWarningLevelRatio on either, refuse writes (isDiskFull/refuseReason) until both are
// at or below it again; delete commit-log files older than fileReservedTime when the hour is in
// deleteWhen, either partition is above diskMaxUsedSpaceRatio (or cannot be measured), or on
// manual request; above diskSpaceCleanForciblyRatio delete the oldest files even if unexpired.
// Marks are exceeded, not reached: 90 % exactly is not full, as in RocketMQ. At most
// deleteFileBatchMax files per run; never the newest file; a file still read by someone is kept
// until destroyMapedFileIntervalForcibly has passed since first tried. Then consume-queue and
// index files below the new commit-log min offset go. Every decision is logged with its reason;
// the write block and its release name the measured ratio and the mark that decided.
//
// Clock and disk probe are injectable; run() is called by the store's timer thread or by tests;
// checkDisk() alone by the store's open() so that the figures are known from the start.

#include "storage/core/diskspace.h"
#include "storage/core/mappedfilequeue.h"
#include "storage/core/storeconfig.h"

#include <QByteArrayView>
#include <QStringList>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>

namespace qrocket::storage {

/// The points of a cleanup pass at which readers see the store half-cleaned, as in RocketMQ.
enum class CleanStep : std::uint8_t {
    /// Commit-log files are deleted; consume queues still point into them (getMessage answers
    /// MESSAGE_WAS_REMOVING for those units).
    CommitLogFilesDeleted,
    /// One consume queue's files wholly below the commit-log min offset are deleted; its min
    /// offset is not corrected yet (getMessage answers OFFSET_FOUND_NULL there).
    ConsumeQueueFilesDeleted,
};
/// Test seam (StoreOptions::cleanStepHook): called on the cleaning thread at each step, with the
/// queue for ConsumeQueueFilesDeleted (else an empty topic and -1).
using CleanStepHook = std::function<void(CleanStep step, QByteArrayView topic, int queueId)>;

/// The store's partitions as last measured by the clean service (whole percent, -1 unknown).
struct DiskMeasure
{
    int commitLogPercent = -1;
    int consumeQueuePercent = -1;
    int indexPercent = -1;
    DiskSpace commitLog; // the commit-log partition's bytes
    std::int64_t measuredAt = 0; // ms since epoch (the store's clock); 0: never

    double commitLogRatio() const { return ratio(commitLogPercent); }
    double consumeQueueRatio() const { return ratio(consumeQueuePercent); }
    double indexRatio() const { return ratio(indexPercent); }
    static double ratio(int percent) { return percent < 0 ? -1.0 : percent / 100.0; }
};

struct StoreFileStatus
{
    /// Why the file is still there (reasonKept says it in words).
    enum class Kept : std::uint8_t {
        Current, // being written: never deleted
        NotExpired, // younger than fileReservedTime
        Held, // expired, but a reader still holds it: destroyed after the grace period
        Expired, // deletable at the next deleteWhen hour, or at once above the disk mark
    };
    QString path;
    std::int64_t size = 0;
    std::int64_t lastModified = 0; // ms since epoch
    std::int64_t expiresAt = 0; // lastModified + fileReservedTime
    Kept kept = Kept::Current;
    QString reasonKept;
};

class CleanService
{
public:
    struct RunReport
    {
        double diskRatio = -1; // the commit-log partition's
        double consumeQueueDiskRatio = -1;
        bool diskFull = false;
        bool deleteTimeUp = false, spaceFull = false, forced = false, manual = false;
        int deletedFiles = 0;
        QStringList decisions;
    };

    CleanService(const MessageStoreConfig &config, MappedFileQueue &commitLog,
        std::function<void(std::int64_t commitLogMinOffset)> cleanLogicFiles,
        std::function<std::int64_t()> clock, DiskSpaceProbe probe, CleanStepHook stepHook = {});

    RunReport run();
    /// Measures the partitions and sets or clears the write block (run() starts with it).
    RunReport checkDisk();
    /// Like `mqadmin deleteExpiredCommitLog`: the next runs delete expired files at any hour.
    void requestManualDelete() { m_manualDeleteRuns = 20; }
    bool isDiskFull() const { return m_diskFull.load(); }
    QString refuseReason() const;
    /// The commit-log partition's ratio of the last measure (what the marks were compared with).
    double lastDiskRatio() const { return m_lastRatio.load(); }
    DiskMeasure lastMeasure() const;
    /// The probe's answer for any path (the runtime info's commitLogDirCapacity).
    DiskSpace diskSpace(const QString &path) const { return m_probe(path); }
    std::vector<StoreFileStatus> fileStatus() const;

private:
    bool isDeleteHour(std::int64_t now) const;
    void log(RunReport &r, const QString &text, QtMsgType level = QtInfoMsg);

    const MessageStoreConfig &m_config;
    MappedFileQueue &m_commitLog;
    std::function<void(std::int64_t)> m_cleanLogicFiles;
    std::function<std::int64_t()> m_clock;
    DiskSpaceProbe m_probe;
    CleanStepHook m_stepHook;
    std::atomic<bool> m_diskFull {false};
    std::atomic<double> m_lastRatio {-1};
    std::atomic<int> m_manualDeleteRuns {0};
    mutable std::mutex m_mutex; // guards m_refuseReason, m_measure, m_inUseSince
    QString m_refuseReason;
    DiskMeasure m_measure;
    std::map<QString, std::int64_t> m_inUseSince; // path -> first time deletion found it in use
};

} // namespace qrocket::storage
