#pragma once

// Commit-log flushing (protocol.md §8.6).
// - FlushCommitLogService (ASYNC_FLUSH): every flushIntervalCommitLog ms flush when at least
//   flushCommitLogLeastPages pages are dirty; everything at least every
//   flushCommitLogThoroughInterval ms.
// - GroupCommitService (SYNC_FLUSH): puts hand in "durable up to offset X" requests with their
//   completion (or block in waitDurable()); the service thread flushes once for everything
//   appended so far and completes each request (PUT_OK), or FLUSH_DISK_TIMEOUT after
//   syncFlushTimeout. Completions run on the service thread; putting threads never wait for
//   the disk. Right after a flush released k puts, the next flush waits (at most about one
//   flush time after the first of them) until k more puts have arrived: the writers it just
//   released are usually about to append again, and flushing at once would split them into two
//   groups. With a commit log that defers its writes (CommitLog::writePending), each flush
//   first writes what the puts buffered, outside the put lock, then fdatasyncs.
// Both record the checkpoint's physicMsgTimestamp for what they made durable.

#include "storage/core/mappedfilequeue.h"
#include "storage/core/servicethread.h"
#include "storage/core/storecheckpoint.h"
#include "storage/core/storetypes.h"
#include "storage/services/offsetwaiters.h"

#include <atomic>
#include <chrono>
#include <functional>

namespace qrocket::storage {

class CommitLog;

/// Flushes `files` completely or by least pages and updates the checkpoint when it is durable.
Status flushCommitLog(MappedFileQueue &files, StoreCheckpoint &checkpoint, int leastPages,
    MappedFile::FlushScope scope = MappedFile::FlushScope::File);

class FlushCommitLogService
{
public:
    FlushCommitLogService(MappedFileQueue &files, StoreCheckpoint &checkpoint, int intervalMs,
        int leastPages, int thoroughIntervalMs);
    void start();
    void stop(); // flushes everything before returning
    void wakeup() { m_thread.wakeup(); }

private:
    MappedFileQueue &m_files;
    StoreCheckpoint &m_checkpoint;
    int m_intervalMs, m_leastPages, m_thoroughIntervalMs;
    ServiceThread m_thread;
};

class GroupCommitService
{
public:
    /// `writer`: the commit log whose buffered writes each flush writes first (deferred writes),
    /// or null.
    GroupCommitService(MappedFileQueue &files, StoreCheckpoint &checkpoint, int timeoutMs,
        CommitLog *writer = nullptr);
    ~GroupCommitService();
    GroupCommitService(const GroupCommitService &) = delete;
    GroupCommitService &operator=(const GroupCommitService &) = delete;

    /// Where a durable (or timed-out) request goes instead of its completion: SYNC_MASTER's wait
    /// for a slave (GroupTransferService::submit). A request already failed with
    /// SLAVE_NOT_AVAILABLE completes at once. Set before start().
    using Forward
        = std::function<void(std::int64_t nextOffset, PutMessageResult &&, PutCallback &&)>;
    void setForward(Forward forward) { m_forward = std::move(forward); }

    void start();
    /// Flushes, completes what became durable and times out the rest.
    void stop();
    /// Completes `cb` with `result` (on the service thread) once the commit log is durable up to
    /// `nextOffset`, or with FLUSH_DISK_TIMEOUT after the timeout.
    void submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb);
    /// Blocks the calling thread until the commit log is durable up to `nextOffset`. All such
    /// waiters sleep on one futex that each flush wakes once, instead of one wakeup per put.
    /// False (with the reason) after the timeout or a shutdown that could not make it durable.
    bool waitDurable(std::int64_t nextOffset, QString *whyNot);
    /// Tells the flusher that bytes were appended (a WAIT=false put): flush soon.
    void wakeup() { arrived(); }
    std::int64_t pendingRequests() const { return m_waiters.queued(); }
    /// Flushes done so far (the bench divides messages by it).
    std::int64_t flushCount() const { return m_flushes.load(std::memory_order_relaxed); }

private:
    void run();
    /// Counts one put that needs a flush; wakes the service thread when it waits for this one.
    void arrived();
    /// Sleeps until `arrivals` puts have arrived in total, `deadline`, or stop().
    void sleepUntil(std::uint64_t arrivals, std::chrono::steady_clock::time_point deadline);
    /// One flush plus completions; false when the flush failed.
    bool doCommit(bool final);
    /// A request's end: forwarded, or its completion called.
    void finish(OffsetWaiters::Request &r);
    /// Bytes appended but not yet durable (written or not).
    std::int64_t backlog() const;
    /// Writes the buffered appends, then flushes everything.
    Status flushAll();

    MappedFileQueue &m_files;
    CommitLog *m_writer;
    StoreCheckpoint &m_checkpoint;
    Forward m_forward;
    OffsetWaiters m_waiters;

    // Arrivals (puts waiting for a flush, counted after their append) drive the service thread:
    // it sleeps until the arrival count reaches m_wakeAt, and only the put that reaches it pays
    // for a wakeup.
    std::atomic<std::uint64_t> m_arrivals {0};
    std::atomic<std::uint64_t> m_wakeAt {~std::uint64_t(0)};
    std::uint64_t m_arrivalsAtRelease = 0; // service thread: arrivals when the last flush ended
    std::atomic<std::int64_t> m_flushes {0};
    ServiceThread m_thread;
};

} // namespace qrocket::storage
