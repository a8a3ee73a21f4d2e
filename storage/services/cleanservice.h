#pragma once

// CleanService: commit-log retention and disk-space protection (protocol.md §8.7).
// One run(): measure the store partition's usage; at >= diskSpaceWarningLevelRatio refuse writes
// (isDiskFull/refuseReason) until usage falls again; delete commit-log files older than
// fileReservedTime when the hour is in deleteWhen, usage >= diskMaxUsedSpaceRatio, or on manual
// request; at >= diskSpaceCleanForciblyRatio delete the oldest files even if unexpired. At most
// deleteFileBatchMax files per run; never the newest file; a file still read by someone is kept
// until destroyMapedFileIntervalForcibly has passed since first tried. Then consume-queue and
// index files below the new commit-log min offset go. Every decision is logged with its reason.
//
// Clock and disk probe are injectable; run() is called by the store's timer thread or by tests.

#include "storage/mappedfilequeue.h"
#include "storage/storeconfig.h"

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

/// Used / total of the partition holding `path`, in [0, 1]; negative when unknown.
using DiskUsageProbe = std::function<double(const QString &path)>;
double statvfsDiskUsage(const QString &path);

struct StoreFileStatus
{
    QString path;
    std::int64_t size = 0;
    std::int64_t lastModified = 0; // ms since epoch
    std::int64_t expiresAt = 0; // lastModified + fileReservedTime
    QString reasonKept;
};

class CleanService
{
public:
    struct RunReport
    {
        double diskRatio = -1;
        bool deleteTimeUp = false, spaceFull = false, forced = false, manual = false;
        int deletedFiles = 0;
        QStringList decisions;
    };

    CleanService(const MessageStoreConfig &config, MappedFileQueue &commitLog,
        std::function<void(std::int64_t commitLogMinOffset)> cleanLogicFiles,
        std::function<std::int64_t()> clock, DiskUsageProbe probe, CleanStepHook stepHook = {});

    RunReport run();
    /// Like `mqadmin deleteExpiredCommitLog`: the next runs delete expired files at any hour.
    void requestManualDelete() { m_manualDeleteRuns = 20; }
    bool isDiskFull() const { return m_diskFull.load(); }
    QString refuseReason() const;
    double lastDiskRatio() const { return m_lastRatio.load(); }
    std::vector<StoreFileStatus> fileStatus() const;

private:
    bool isDeleteHour(std::int64_t now) const;
    void log(RunReport &r, const QString &text);

    const MessageStoreConfig &m_config;
    MappedFileQueue &m_commitLog;
    std::function<void(std::int64_t)> m_cleanLogicFiles;
    std::function<std::int64_t()> m_clock;
    DiskUsageProbe m_probe;
    CleanStepHook m_stepHook;
    std::atomic<bool> m_diskFull {false};
    std::atomic<double> m_lastRatio {-1};
    std::atomic<int> m_manualDeleteRuns {0};
    mutable std::mutex m_mutex; // guards m_refuseReason, m_inUseSince
    QString m_refuseReason;
    std::map<QString, std::int64_t> m_inUseSince; // path -> first time deletion found it in use
};

} // namespace qrocket::storage
