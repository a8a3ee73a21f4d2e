#pragma once

// Commit-log flushing (protocol.md §8.6).
// - FlushCommitLogService (ASYNC_FLUSH): every flushIntervalCommitLog ms flush when at least
//   flushCommitLogLeastPages pages are dirty; everything at least every
//   flushCommitLogThoroughInterval ms.
// - GroupCommitService (SYNC_FLUSH): puts hand in "durable up to offset X" requests with their
//   completion; the service thread batches them, flushes once per batch and completes each
//   request (PUT_OK), or FLUSH_DISK_TIMEOUT after syncFlushTimeout. Completions run on the
//   service thread; putting threads never wait for the disk.
// Both record the checkpoint's physicMsgTimestamp for what they made durable.

#include "storage/mappedfilequeue.h"
#include "storage/services/servicethread.h"
#include "storage/storecheckpoint.h"
#include "storage/storetypes.h"

#include <mutex>
#include <vector>

namespace qrocket::storage {

/// Flushes `files` completely or by least pages and updates the checkpoint when it is durable.
Status flushCommitLog(MappedFileQueue &files, StoreCheckpoint &checkpoint, int leastPages);

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
    GroupCommitService(MappedFileQueue &files, StoreCheckpoint &checkpoint, int timeoutMs);
    void start();
    /// Flushes, completes what became durable and times out the rest.
    void stop();
    /// Completes `cb` with `result` once the commit log is durable up to `nextOffset`.
    void submit(std::int64_t nextOffset, PutMessageResult result, PutCallback cb);
    /// Wakes the flusher without a request (WAIT=false puts).
    void wakeup() { m_thread.wakeup(); }
    std::int64_t pendingRequests() const;

private:
    struct Request
    {
        std::int64_t nextOffset;
        std::int64_t deadline; // steady-clock ms
        PutMessageResult result;
        PutCallback cb;
    };
    void doCommit(bool final);
    void takeRequests();
    /// Completes the requests the flushed offset covers; with `expire`, times out the overdue.
    void completeDurable(bool expire);

    MappedFileQueue &m_files;
    StoreCheckpoint &m_checkpoint;
    int m_timeoutMs;
    mutable std::mutex m_mutex; // guards m_requests, m_stopped
    std::vector<Request> m_requests;
    bool m_stopped = false;
    std::vector<Request> m_working; // service thread only
    ServiceThread m_thread;
};

} // namespace qrocket::storage
