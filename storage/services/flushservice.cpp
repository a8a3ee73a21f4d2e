#include "storage/services/flushservice.h"

#include "storage/core/commitlog.h"
#include "storage/core/logging.h"

#include <chrono>
#include <climits>
#include <limits>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qrocket::storage {

Status flushCommitLog(MappedFileQueue &files, StoreCheckpoint &checkpoint, int leastPages,
    MappedFile::FlushScope scope)
{
    MappedFilePtr last = files.lastFile();
    if (!last)
        return {};
    // Timestamp first, then the offset: the record carrying `ts` ends at or before `target`.
    const std::int64_t ts = last->storeTimestamp();
    const std::int64_t target = files.maxOffset();
    auto r = files.flush(leastPages, scope);
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
            std::int64_t lastThorough = steadyNowMs();
            while (!m_thread.isStopping()) {
                m_thread.waitFor(std::chrono::milliseconds(m_intervalMs));
                int least = m_leastPages;
                if (steadyNowMs() - lastThorough >= m_thoroughIntervalMs) {
                    least = 0;
                    lastThorough = steadyNowMs();
                }
                // ASYNC_FLUSH writes through the mapping: keep the pages ahead writable.
                if (Status s = flushCommitLog(
                        m_files, m_checkpoint, least, MappedFile::FlushScope::WrittenRange);
                    !s)
                    qCWarning(lcStoreFlush).noquote() << "commit-log flush failed:" << s.message();
            }
        },
        "qr-flush", ServiceThread::Priority::Idle);
}

void FlushCommitLogService::stop()
{
    m_thread.stop();
    if (Status s = flushCommitLog(m_files, m_checkpoint, 0, MappedFile::FlushScope::WrittenRange);
        !s)
        qCWarning(lcStoreFlush).noquote() << "final commit-log flush failed:" << s.message();
}

GroupCommitService::GroupCommitService(
    MappedFileQueue &files, StoreCheckpoint &checkpoint, int timeoutMs, CommitLog *writer)
    : m_files(files), m_writer(writer), m_checkpoint(checkpoint), m_waiters(timeoutMs)
{ }

std::int64_t GroupCommitService::backlog() const
{
    return m_files.flushBacklog() + (m_writer ? m_writer->unwrittenBytes() : 0);
}

Status GroupCommitService::flushAll()
{
    if (m_writer)
        m_writer->writePending();
    return flushCommitLog(m_files, m_checkpoint, 0);
}

GroupCommitService::~GroupCommitService()
{
    stop();
}

void GroupCommitService::start()
{
    m_thread.start([this] { run(); }, "qr-groupcommit");
}

void GroupCommitService::stop()
{
    if (!m_waiters.close())
        return;
    m_thread.stop();
    doCommit(true);
    m_waiters.shutDown();
}

void GroupCommitService::arrived()
{
    const std::uint64_t a = m_arrivals.fetch_add(1) + 1;
    if (a == m_wakeAt.load())
        m_thread.notify();
}

void GroupCommitService::sleepUntil(
    std::uint64_t arrivals, std::chrono::steady_clock::time_point deadline)
{
    // seq_cst pair with arrived(): either it sees m_wakeAt, or we see its arrival.
    m_wakeAt.store(arrivals);
    if (m_arrivals.load() < arrivals)
        m_thread.sleepUntil(deadline, [&] { return m_arrivals.load() >= arrivals; });
    m_wakeAt.store(~std::uint64_t(0));
}

void GroupCommitService::run()
{
    using Clock = std::chrono::steady_clock;
    constexpr auto kIdle = std::chrono::milliseconds(10); // request expiry is checked this often
    constexpr auto kMaxLinger = std::chrono::milliseconds(2);
    std::uint64_t flushStartArrivals = m_arrivals.load();
    std::uint64_t released = 0; // arrivals the last flush covered
    std::uint64_t releasedAt = 0; // the arrival count when it released them
    Clock::duration flushTime {}; // moving average of one flush
    bool failed = false;
    while (!m_thread.isStopping()) {
        if (failed || backlog() == 0)
            sleepUntil(m_arrivals.load() + 1, Clock::now() + kIdle);
        if (!failed && released > 0 && backlog() > 0) {
            // Let the puts just released come back (bounded by about one flush time from the
            // first one): one flush for all of them instead of one for the first few and one
            // for the rest.
            sleepUntil(releasedAt + released,
                Clock::now() + std::min<Clock::duration>(flushTime, kMaxLinger));
        }
        const std::uint64_t before = m_arrivals.load();
        const Clock::time_point t0 = Clock::now();
        const std::int64_t flushedBefore = m_files.flushedWhere();
        failed = !doCommit(false);
        if (m_files.flushedWhere() != flushedBefore) {
            flushTime = flushTime == Clock::duration {} ? Clock::now() - t0
                                                        : (flushTime * 7 + (Clock::now() - t0)) / 8;
            released = before - flushStartArrivals;
            flushStartArrivals = before;
            releasedAt = m_arrivalsAtRelease;
        } else {
            released = 0;
        }
    }
}

void GroupCommitService::submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb)
{
    if (m_waiters.submit(nextOffset, result, cb)) {
        arrived();
        return;
    }
    // A put that raced with shutdown: flush here so its completion still fires.
    if (Status s = flushAll(); !s || m_files.flushedWhere() < nextOffset) {
        result.status = PutMessageStatus::FlushDiskTimeout;
        result.remark = QStringLiteral("store shut down before the message was flushed");
    }
    if (cb)
        cb(result);
}

bool GroupCommitService::waitDurable(std::int64_t nextOffset, QString *whyNot)
{
    arrived();
    const auto result = m_waiters.block(nextOffset, [this] { return m_files.flushedWhere(); });
    if (result == OffsetWaiters::BlockResult::Reached)
        return true;
    if (whyNot)
        *whyNot = result == OffsetWaiters::BlockResult::ShutDown
            ? QStringLiteral("store shut down before the message was flushed")
            : QStringLiteral("not flushed to disk within syncFlushTimeout %1 ms (durable up to "
                             "%2, needed %3)")
                  .arg(m_waiters.timeoutMs())
                  .arg(m_files.flushedWhere())
                  .arg(nextOffset);
    return false;
}

void GroupCommitService::finish(OffsetWaiters::Request &r)
{
    if (m_forward && r.result.status != PutMessageStatus::SlaveNotAvailable)
        m_forward(r.nextOffset, std::move(r.result), std::move(r.cb));
    else if (r.cb)
        r.cb(r.result);
}

bool GroupCommitService::doCommit(bool final)
{
    // One flush covers every put appended before it started, so it serves all waiting requests
    // at once; requests that arrive while it runs and are already covered by it are completed
    // right after it, without waiting for the next flush.
    m_waiters.take();
    bool ok = true;
    if (backlog() > 0) {
        if (Status s = flushAll(); !s) {
            ok = false;
            qCWarning(lcStoreFlush).noquote() << "group commit flush failed:" << s.message();
        } else {
            m_flushes.fetch_add(1, std::memory_order_relaxed);
        }
        // Before the release: the released puts may be back before publish() returns.
        m_arrivalsAtRelease = m_arrivals.load();
        m_waiters.publish();
    }
    m_waiters.take();
    if (m_waiters.idle())
        return ok;
    const std::int64_t durable = m_files.flushedWhere();
    m_waiters.complete(
        durable, final,
        [&](OffsetWaiters::Request &r) {
            // A SLAVE_NOT_AVAILABLE put keeps its status (RocketMQ: the replica's status wins).
            if (r.result.status == PutMessageStatus::PutOk) {
                r.result.status = PutMessageStatus::FlushDiskTimeout;
                r.result.remark = QStringLiteral(
                    "not flushed to disk within syncFlushTimeout %1 ms (durable up to %2, "
                    "needed %3)")
                                      .arg(m_waiters.timeoutMs())
                                      .arg(durable)
                                      .arg(r.nextOffset);
            }
        },
        [this](OffsetWaiters::Request &r) { finish(r); });
    return ok;
}

} // namespace qrocket::storage
