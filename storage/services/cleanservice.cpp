#include "storage/services/cleanservice.h"

#include "storage/core/logging.h"

#include <QDateTime>
#include <QFile>

#include <chrono>
#include <thread>

namespace qrocket::storage {

CleanService::CleanService(const MessageStoreConfig &config, MappedFileQueue &commitLog,
    std::function<void(std::int64_t)> cleanLogicFiles, std::function<std::int64_t()> clock,
    DiskSpaceProbe probe, CleanStepHook stepHook)
    : m_config(config)
    , m_commitLog(commitLog)
    , m_cleanLogicFiles(std::move(cleanLogicFiles))
    , m_clock(std::move(clock))
    , m_probe(probe ? std::move(probe) : defaultDiskSpaceProbe())
    , m_stepHook(std::move(stepHook))
{ }

QString CleanService::refuseReason() const
{
    std::lock_guard lock(m_mutex);
    return m_refuseReason;
}

bool CleanService::isDeleteHour(std::int64_t now) const
{
    const int hour = QDateTime::fromMSecsSinceEpoch(now).time().hour();
    return m_config.deleteHours().contains(hour);
}

DiskMeasure CleanService::lastMeasure() const
{
    std::lock_guard lock(m_mutex);
    return m_measure;
}

void CleanService::log(RunReport &r, const QString &text, QtMsgType level)
{
    if (level == QtCriticalMsg)
        qCCritical(lcStoreClean).noquote() << text;
    else if (level == QtWarningMsg)
        qCWarning(lcStoreClean).noquote() << text;
    else
        qCInfo(lcStoreClean).noquote() << text;
    r.decisions.append(text);
}

namespace {

QString percentText(int percent)
{
    return percent < 0 ? QStringLiteral("unknown")
                       : QStringLiteral("%1%").arg(static_cast<double>(percent), 0, 'f', 1);
}

} // namespace

CleanService::RunReport CleanService::checkDisk()
{
    RunReport r;
    DiskMeasure m;
    m.commitLog = m_probe(m_commitLog.dir());
    m.commitLogPercent = diskUsedPercent(m.commitLog);
    m.consumeQueuePercent = diskUsedPercent(m_probe(m_config.consumeQueueDir()));
    m.indexPercent = diskUsedPercent(m_probe(m_config.indexDir()));
    m.measuredAt = m_clock();
    r.diskRatio = m.commitLogRatio();
    r.consumeQueueDiskRatio = m.consumeQueueRatio();
    const int warning = m_config.diskSpaceWarningLevelRatio;
    const int cl = m.commitLogPercent, cq = m.consumeQueuePercent;
    // Either partition above the warning mark blocks writes; the commit log's is named first.
    const bool full = cl > warning || cq > warning;
    r.diskFull = full;
    QString reason;
    if (full) {
        const bool byCommitLog = cl > warning;
        reason
            = QStringLiteral("disk full: %1 partition (%2) at %3 used > "
                             "diskSpaceWarningLevelRatio %4%; writes refused until it is at "
                             "or below %4%")
                  .arg(byCommitLog ? QStringLiteral("commit-log") : QStringLiteral("consume-queue"),
                      byCommitLog ? m_commitLog.dir() : m_config.consumeQueueDir(),
                      percentText(byCommitLog ? cl : cq))
                  .arg(warning);
    }
    {
        std::lock_guard lock(m_mutex);
        m_measure = m;
        if (full) // a refused put finds the reason once the flag is up
            m_refuseReason = reason;
    }
    m_lastRatio = r.diskRatio;
    const bool wasFull = m_diskFull.exchange(full);
    if (!full) {
        std::lock_guard lock(m_mutex);
        m_refuseReason.clear();
    }
    if (full != wasFull) {
        if (full)
            log(r, reason, QtCriticalMsg);
        else
            log(r,
                QStringLiteral("disk space ok again: commit-log partition at %1, consume-queue "
                               "partition at %2, none above diskSpaceWarningLevelRatio %3%: "
                               "writes accepted again")
                    .arg(percentText(cl), percentText(cq))
                    .arg(warning));
    }
    const int maxUsed = m_config.diskMaxUsedSpaceRatio;
    const int forcibly = m_config.diskSpaceCleanForciblyRatio;
    // An unknown figure reclaims too (expired files only), as RocketMQ does.
    r.spaceFull = cl < 0 || cl > maxUsed || cq < 0 || cq > maxUsed;
    r.forced = m_config.cleanFileForciblyEnable
        && (cl > forcibly || cq > forcibly || cl > warning || cq > warning);
    return r;
}

CleanService::RunReport CleanService::run()
{
    RunReport r = checkDisk();
    const std::int64_t now = m_clock();
    const DiskMeasure m = lastMeasure();
    r.deleteTimeUp = isDeleteHour(now);
    r.manual = m_manualDeleteRuns.load() > 0;
    if (r.manual)
        --m_manualDeleteRuns;
    if (!r.spaceFull && !r.deleteTimeUp && !r.manual)
        return r; // nothing to decide: not the hour, space fine
    log(r,
        QStringLiteral("cleanup pass: disk usage %1 commit log, %2 consume queue (deleteWhen "
                       "hour: %3, > %4%: %5, > %6% forced: %7, manual: %8)")
            .arg(percentText(m.commitLogPercent), percentText(m.consumeQueuePercent))
            .arg(r.deleteTimeUp ? QStringLiteral("yes") : QStringLiteral("no"))
            .arg(m_config.diskMaxUsedSpaceRatio)
            .arg(r.spaceFull ? QStringLiteral("yes") : QStringLiteral("no"))
            .arg(m_config.diskSpaceCleanForciblyRatio)
            .arg(r.forced ? QStringLiteral("yes") : QStringLiteral("no"))
            .arg(r.manual ? QStringLiteral("yes") : QStringLiteral("no")));
    const std::int64_t reserved
        = static_cast<std::int64_t>(m_config.fileReservedTime) * 3600 * 1000;
    const auto files = m_commitLog.files();
    for (size_t i = 0; i + 1 < files.size() && r.deletedFiles < m_config.deleteFileBatchMax; ++i) {
        const MappedFilePtr &f = files[i];
        const std::int64_t mtime = f->lastModified();
        const bool expired = now >= mtime + reserved;
        if (!expired && !r.forced) {
            log(r,
                QStringLiteral("keeping %1: expires at %2")
                    .arg(f->path(),
                        QDateTime::fromMSecsSinceEpoch(mtime + reserved).toString(Qt::ISODate)));
            break;
        }
        // `files` and the queue hold two references; more means a reader still uses it.
        if (f.use_count() > 2) {
            std::lock_guard lock(m_mutex);
            auto it = m_inUseSince.try_emplace(f->path(), now).first;
            if (now - it->second < m_config.destroyMapedFileIntervalForcibly) {
                log(r,
                    QStringLiteral(
                        "keeping %1 for now: still read by %2 holder(s); forced after %3 ms")
                        .arg(f->path())
                        .arg(f.use_count() - 2)
                        .arg(m_config.destroyMapedFileIntervalForcibly - (now - it->second)));
                break;
            }
        }
        if (!m_commitLog.removeFirst(f))
            break;
        {
            std::lock_guard lock(m_mutex);
            m_inUseSince.erase(f->path());
        }
        r.deletedFiles++;
        log(r,
            QStringLiteral("deleted %1: %2")
                .arg(f->path(),
                    expired
                        ? QStringLiteral("expired (older than fileReservedTime %1 h)")
                              .arg(m_config.fileReservedTime)
                        : QStringLiteral("disk usage %1 > %2%: deleted although not expired")
                              .arg(percentText(std::max(m.commitLogPercent, m.consumeQueuePercent)))
                              .arg(m_config.diskSpaceCleanForciblyRatio)));
        if (m_config.deleteCommitLogFilesInterval > 0
            && r.deletedFiles < m_config.deleteFileBatchMax)
            std::this_thread::sleep_for(
                std::chrono::milliseconds(m_config.deleteCommitLogFilesInterval));
    }
    if (r.deletedFiles == 0 && r.spaceFull)
        log(r,
            QStringLiteral("disk usage above diskMaxUsedSpaceRatio %1% (commit log %2, consume "
                           "queue %3) but no commit-log file could be deleted")
                .arg(m_config.diskMaxUsedSpaceRatio)
                .arg(percentText(m.commitLogPercent), percentText(m.consumeQueuePercent)),
            QtWarningMsg);
    if (r.deletedFiles > 0 && m_stepHook)
        m_stepHook(CleanStep::CommitLogFilesDeleted, {}, -1);
    if (r.deletedFiles > 0 && m_cleanLogicFiles)
        m_cleanLogicFiles(m_commitLog.minOffset());
    return r;
}

std::vector<StoreFileStatus> CleanService::fileStatus() const
{
    std::vector<StoreFileStatus> out;
    const std::int64_t reserved
        = static_cast<std::int64_t>(m_config.fileReservedTime) * 3600 * 1000;
    const std::int64_t now = m_clock();
    const auto files = m_commitLog.files();
    for (size_t i = 0; i < files.size(); ++i) {
        const auto &f = files[i];
        StoreFileStatus s;
        s.path = f->path();
        s.size = f->fileSize();
        s.lastModified = f->lastModified();
        s.expiresAt = s.lastModified + reserved;
        using Kept = StoreFileStatus::Kept;
        // Holders besides the queue's own list and `files` here: readers.
        s.kept = i + 1 == files.size() ? Kept::Current
            : now < s.expiresAt        ? Kept::NotExpired
            : f.use_count() > 2        ? Kept::Held
                                       : Kept::Expired;
        switch (s.kept) {
        case Kept::Current:
            s.reasonKept = QStringLiteral("current file (being written)");
            break;
        case Kept::NotExpired:
            s.reasonKept = QStringLiteral("not expired: fileReservedTime %1 h")
                               .arg(m_config.fileReservedTime);
            break;
        case Kept::Held:
            s.reasonKept
                = QStringLiteral("expired but still read; destroyed after the grace period");
            break;
        case Kept::Expired:
            s.reasonKept
                = QStringLiteral("expired; deleted at deleteWhen %1 or when disk usage > %2%")
                      .arg(m_config.deleteWhen)
                      .arg(m_config.diskMaxUsedSpaceRatio);
            break;
        }
        out.push_back(s);
    }
    return out;
}

} // namespace qrocket::storage
