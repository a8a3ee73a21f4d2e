#include "storage/services/flushservice.h"

#include "storage/logging.h"

#include <chrono>
#include <limits>

namespace qrocket::storage {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

Status flushCommitLog(MappedFileQueue &files, StoreCheckpoint &checkpoint, int leastPages)
{
    MappedFilePtr last = files.lastFile();
    if (!last)
        return {};
    // Timestamp first, then the offset: the record carrying `ts` ends at or before `target`.
    const std::int64_t ts = last->storeTimestamp();
    const std::int64_t target = files.maxOffset();
    auto r = files.flush(leastPages);
    if (!r)
        return r.error();
    if (*r >= target && ts > 0)
        checkpoint.setPhysicMsgTimestamp(ts);
    return {};
}

FlushCommitLogService::FlushCommitLogService(MappedFileQueue &files, StoreCheckpoint &checkpoint,
    int intervalMs, int leastPages, int thoroughIntervalMs)
    : m_files(files)
    , m_checkpoint(checkpoint)
    , m_intervalMs(intervalMs)
    , m_leastPages(leastPages)
    , m_thoroughIntervalMs(thoroughIntervalMs)
{ }

void FlushCommitLogService::start()
{
    m_thread.start(
        [this] {
            std::int64_t lastThorough = steadyMs();
            while (!m_thread.isStopping()) {
                m_thread.waitFor(std::chrono::milliseconds(m_intervalMs));
                int least = m_leastPages;
                if (steadyMs() - lastThorough >= m_thoroughIntervalMs) {
                    least = 0;
                    lastThorough = steadyMs();
                }
                if (Status s = flushCommitLog(m_files, m_checkpoint, least); !s)
                    qCWarning(lcStoreFlush).noquote() << "commit-log flush failed:" << s.message();
            }
        },
        "qr-flush");
}

void FlushCommitLogService::stop()
{
    m_thread.stop();
    if (Status s = flushCommitLog(m_files, m_checkpoint, 0); !s)
        qCWarning(lcStoreFlush).noquote() << "final commit-log flush failed:" << s.message();
}

GroupCommitService::GroupCommitService(
    MappedFileQueue &files, StoreCheckpoint &checkpoint, int timeoutMs)
    : m_files(files), m_checkpoint(checkpoint), m_timeoutMs(timeoutMs)
{ }

void GroupCommitService::start()
{
    m_thread.start(
        [this] {
            while (!m_thread.isStopping()) {
                m_thread.waitFor(std::chrono::milliseconds(10));
                doCommit(false);
            }
        },
        "qr-groupcommit");
}

void GroupCommitService::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopped = true;
    }
    m_thread.stop();
    doCommit(true);
}

void GroupCommitService::submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            m_requests.push_back(
                {nextOffset, steadyMs() + m_timeoutMs, std::move(result), std::move(cb)});
            m_thread.wakeup();
            return;
        }
    }
    // A put that raced with shutdown: flush here so its completion still fires.
    if (Status s = flushCommitLog(m_files, m_checkpoint, 0);
        !s || m_files.flushedWhere() < nextOffset) {
        result.status = PutMessageStatus::FlushDiskTimeout;
        result.remark = QStringLiteral("store shut down before the message was flushed");
    }
    cb(result);
}

std::int64_t GroupCommitService::pendingRequests() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<std::int64_t>(m_requests.size());
}

void GroupCommitService::takeRequests()
{
    std::lock_guard lock(m_mutex);
    if (m_working.empty()) {
        m_working.swap(m_requests);
    } else {
        for (auto &r : m_requests)
            m_working.push_back(std::move(r));
        m_requests.clear();
    }
}

void GroupCommitService::completeDurable(bool expire)
{
    const std::int64_t durable = m_files.flushedWhere();
    const std::int64_t now = expire ? steadyMs() : 0;
    size_t kept = 0;
    for (size_t i = 0; i < m_working.size(); ++i) {
        Request &r = m_working[i];
        if (durable >= r.nextOffset) {
            r.cb(r.result);
        } else if (expire && now >= r.deadline) {
            r.result.status = PutMessageStatus::FlushDiskTimeout;
            r.result.remark = QStringLiteral(
                "not flushed to disk within syncFlushTimeout %1 ms (durable up to %2, "
                "needed %3)")
                                  .arg(m_timeoutMs)
                                  .arg(durable)
                                  .arg(r.nextOffset);
            r.cb(r.result);
        } else {
            if (kept != i)
                m_working[kept] = std::move(r);
            ++kept;
        }
    }
    m_working.erase(m_working.begin() + static_cast<std::ptrdiff_t>(kept), m_working.end());
}

void GroupCommitService::doCommit(bool final)
{
    // One flush covers every put appended before it started, so it serves all waiting requests
    // at once; requests that arrive while it runs and are already covered by it are completed
    // right after it, without waiting for the next flush.
    takeRequests();
    if (m_files.flushBacklog() > 0) {
        if (Status s = flushCommitLog(m_files, m_checkpoint, 0); !s)
            qCWarning(lcStoreFlush).noquote() << "group commit flush failed:" << s.message();
    }
    takeRequests();
    if (m_working.empty())
        return;
    if (final) {
        const std::int64_t never = std::numeric_limits<std::int64_t>::min();
        for (auto &r : m_working)
            r.deadline = never;
    }
    completeDurable(true);
}

} // namespace qrocket::storage
