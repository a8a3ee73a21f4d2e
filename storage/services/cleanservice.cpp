#include "storage/services/cleanservice.h"

#include "storage/logging.h"

#include <QDateTime>
#include <QFile>

#include <chrono>
#include <sys/statvfs.h>
#include <thread>

namespace qrocket::storage {

double statvfsDiskUsage(const QString &path)
{
    struct statvfs st
    { };
    if (::statvfs(QFile::encodeName(path).constData(), &st) != 0 || st.f_blocks == 0)
        return -1;
    const double total = static_cast<double>(st.f_blocks);
    return (total - static_cast<double>(st.f_bfree)) / total;
}

CleanService::CleanService(const MessageStoreConfig &config, MappedFileQueue &commitLog,
    std::function<void(std::int64_t)> cleanLogicFiles, std::function<std::int64_t()> clock,
    DiskUsageProbe probe, CleanStepHook stepHook)
    : m_config(config)
    , m_commitLog(commitLog)
    , m_cleanLogicFiles(std::move(cleanLogicFiles))
    , m_clock(std::move(clock))
    , m_probe(probe ? std::move(probe) : DiskUsageProbe(statvfsDiskUsage))
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

void CleanService::log(RunReport &r, const QString &text)
{
    qCInfo(lcStoreClean).noquote() << text;
    r.decisions.append(text);
}

CleanService::RunReport CleanService::run()
{
    RunReport r;
    const std::int64_t now = m_clock();
    const double ratio = m_probe(m_commitLog.dir());
    r.diskRatio = ratio;
    m_lastRatio = ratio;
    const double pct = ratio * 100.0;
    const bool full = ratio >= 0 && pct >= m_config.diskSpaceWarningLevelRatio;
    if (full != m_diskFull.load()) {
        QString reason;
        if (full)
            reason = QStringLiteral(
                "disk full: store partition usage %1% >= diskSpaceWarningLevelRatio %2%; "
                "writes refused until it falls")
                         .arg(pct, 0, 'f', 1)
                         .arg(m_config.diskSpaceWarningLevelRatio);
        {
            std::lock_guard lock(m_mutex);
            m_refuseReason = reason;
        }
        m_diskFull = full;
        log(r,
            full ? reason
                 : QStringLiteral(
                     "disk usage %1% below diskSpaceWarningLevelRatio %2%: writes accepted again")
                       .arg(pct, 0, 'f', 1)
                       .arg(m_config.diskSpaceWarningLevelRatio));
    }
    r.spaceFull = ratio >= 0 && pct >= m_config.diskMaxUsedSpaceRatio;
    r.forced = m_config.cleanFileForciblyEnable && ratio >= 0
        && pct >= m_config.diskSpaceCleanForciblyRatio;
    r.deleteTimeUp = isDeleteHour(now);
    r.manual = m_manualDeleteRuns.load() > 0;
    if (r.manual)
        --m_manualDeleteRuns;
    if (!r.spaceFull && !r.deleteTimeUp && !r.manual)
        return r; // nothing to decide: not the hour, space fine
    log(r,
        QStringLiteral("cleanup pass: disk usage %1% (deleteWhen hour: %2, >= %3%: %4, >= %5% "
                       "forced: %6, manual: %7)")
            .arg(pct, 0, 'f', 1)
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
                    expired ? QStringLiteral("expired (older than fileReservedTime %1 h)")
                                  .arg(m_config.fileReservedTime)
                            : QStringLiteral("disk usage %1% >= %2%: deleted although not expired")
                                  .arg(pct, 0, 'f', 1)
                                  .arg(m_config.diskSpaceCleanForciblyRatio)));
        if (m_config.deleteCommitLogFilesInterval > 0
            && r.deletedFiles < m_config.deleteFileBatchMax)
            std::this_thread::sleep_for(
                std::chrono::milliseconds(m_config.deleteCommitLogFilesInterval));
    }
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
        if (i + 1 == files.size())
            s.reasonKept = QStringLiteral("current file (being written)");
        else if (now < s.expiresAt)
            s.reasonKept = QStringLiteral("not expired: fileReservedTime %1 h")
                               .arg(m_config.fileReservedTime);
        else if (f.use_count() > 2)
            s.reasonKept
                = QStringLiteral("expired but still read; destroyed after the grace period");
        else
            s.reasonKept
                = QStringLiteral("expired; deleted at deleteWhen %1 or when disk usage >= %2%")
                      .arg(m_config.deleteWhen)
                      .arg(m_config.diskMaxUsedSpaceRatio);
        out.push_back(s);
    }
    return out;
}

} // namespace qrocket::storage
