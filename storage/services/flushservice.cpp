#include "storage/services/flushservice.h"

#include "storage/commitlog.h"
#include "storage/logging.h"

#include <chrono>
#include <climits>
#include <limits>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace qrocket::storage {

namespace {
std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

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
            std::int64_t lastThorough = steadyMs();
            while (!m_thread.isStopping()) {
                m_thread.waitFor(std::chrono::milliseconds(m_intervalMs));
                int least = m_leastPages;
                if (steadyMs() - lastThorough >= m_thoroughIntervalMs) {
                    least = 0;
                    lastThorough = steadyMs();
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
    : m_files(files), m_writer(writer), m_checkpoint(checkpoint), m_timeoutMs(timeoutMs)
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
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
    ::pthread_setname_np(m_thread.native_handle(), "qr-groupcommit");
}

void GroupCommitService::stop()
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopped)
            return;
        m_stopped = true;
    }
    {
        std::lock_guard lock(m_sleepMutex);
        m_stopping = true;
    }
    m_sleepCv.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    doCommit(true);
    m_finalDone.store(true);
    publishDurable();
}

void GroupCommitService::arrived()
{
    const std::uint64_t a = m_arrivals.fetch_add(1) + 1;
    if (a == m_wakeAt.load()) {
        // Taking the lock orders this wakeup after the service thread's predicate check.
        {
            std::lock_guard lock(m_sleepMutex);
        }
        m_sleepCv.notify_one();
    }
}

void GroupCommitService::sleepUntil(
    std::uint64_t arrivals, std::chrono::steady_clock::time_point deadline)
{
    // seq_cst pair with arrived(): either it sees m_wakeAt, or we see its arrival.
    m_wakeAt.store(arrivals);
    if (m_arrivals.load() < arrivals) {
        std::unique_lock lock(m_sleepMutex);
        m_sleepCv.wait_until(
            lock, deadline, [&] { return m_arrivals.load() >= arrivals || m_stopping.load(); });
    }
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
    while (!m_stopping.load()) {
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
    bool queued = false;
    {
        std::lock_guard lock(m_mutex);
        if (!m_stopped) {
            m_requests.push_back(
                {nextOffset, steadyMs() + m_timeoutMs, std::move(result), std::move(cb)});
            queued = true;
        }
    }
    if (queued) {
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
    const std::int64_t deadline = steadyMs() + m_timeoutMs;
    for (;;) {
        m_sleepers.fetch_add(1);
        const std::uint32_t gen = m_generation.load();
        if (m_files.flushedWhere() >= nextOffset) {
            m_sleepers.fetch_sub(1);
            return true;
        }
        const std::int64_t left = deadline - steadyMs();
        if (m_finalDone.load() || left <= 0) {
            m_sleepers.fetch_sub(1);
            if (whyNot)
                *whyNot = m_finalDone.load()
                    ? QStringLiteral("store shut down before the message was flushed")
                    : QStringLiteral("not flushed to disk within syncFlushTimeout %1 ms (durable "
                                     "up to %2, needed %3)")
                          .arg(m_timeoutMs)
                          .arg(m_files.flushedWhere())
                          .arg(nextOffset);
            return false;
        }
        timespec ts {static_cast<time_t>(left / 1000), static_cast<long>(left % 1000) * 1000000};
        static_assert(sizeof(m_generation) == sizeof(std::uint32_t));
        ::syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&m_generation), FUTEX_WAIT_PRIVATE,
            gen, &ts, nullptr, 0);
        m_sleepers.fetch_sub(1);
    }
}

void GroupCommitService::publishDurable()
{
    // seq_cst pair with waitDurable(): a waiter that registered before this sees the new
    // generation (its futex wait returns at once) or is woken here.
    m_generation.fetch_add(1);
    if (m_sleepers.load() > 0)
        ::syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(&m_generation), FUTEX_WAKE_PRIVATE,
            INT_MAX, nullptr, nullptr, 0);
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
            finish(r);
        } else if (expire && now >= r.deadline) {
            // A SLAVE_NOT_AVAILABLE put keeps its status (RocketMQ: the replica's status wins).
            if (r.result.status == PutMessageStatus::PutOk) {
                r.result.status = PutMessageStatus::FlushDiskTimeout;
                r.result.remark = QStringLiteral(
                    "not flushed to disk within syncFlushTimeout %1 ms (durable up to %2, "
                    "needed %3)")
                                      .arg(m_timeoutMs)
                                      .arg(durable)
                                      .arg(r.nextOffset);
            }
            finish(r);
        } else {
            if (kept != i)
                m_working[kept] = std::move(r);
            ++kept;
        }
    }
    m_working.erase(m_working.begin() + static_cast<std::ptrdiff_t>(kept), m_working.end());
}

void GroupCommitService::finish(Request &r)
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
    takeRequests();
    bool ok = true;
    if (backlog() > 0) {
        if (Status s = flushAll(); !s) {
            ok = false;
            qCWarning(lcStoreFlush).noquote() << "group commit flush failed:" << s.message();
        } else {
            m_flushes.fetch_add(1, std::memory_order_relaxed);
        }
        // Before the release: the released puts may be back before publishDurable() returns.
        m_arrivalsAtRelease = m_arrivals.load();
        publishDurable();
    }
    takeRequests();
    if (m_working.empty())
        return ok;
    if (final) {
        const std::int64_t never = std::numeric_limits<std::int64_t>::min();
        for (auto &r : m_working)
            r.deadline = never;
    }
    completeDurable(true);
    return ok;
}

} // namespace qrocket::storage
