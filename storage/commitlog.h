#pragma once

// CommitLog: the append-only message log (protocol.md §5.1, §7.2). append() assigns the physical
// offset, the per topic-queue offset and the store timestamp under one lock and encodes the
// record straight into the mapped file (SYNC_FLUSH with MappedFile::SyncWriteMethod::Pwrite:
// into a staging buffer, then pwrite into the same page cache); the body CRC is computed before
// taking the lock. A record that does not fit (+8 bytes) ends the file with a BLANK record and
// goes to the next file. The pages ahead of the writer are mapped by PrefaultService.
//
// Threading: append/appendBatch from any thread (serialised by the put lock); select*/min/max
// from any thread; recovery (recover*.cpp) before any of those run.

#include "storage/mappedfilequeue.h"
#include "storage/recordutil.h"
#include "storage/storeconfig.h"
#include "storage/storetypes.h"

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace qrocket::storage {

class CommitLog
{
public:
    CommitLog(const MessageStoreConfig &config, std::function<std::int64_t()> clock);

    MappedFileQueue &files() { return m_files; }
    const MappedFileQueue &files() const { return m_files; }
    Status load() { return m_files.load(); }

    PutMessageResult append(const MessageExtBrokerInner &msg);
    /// All messages go to the same topic-queue with consecutive queue offsets.
    PutMessageResult appendBatch(const std::vector<MessageExtBrokerInner> &msgs);
    /// Called after each append with the new max offset (wakes the reput thread).
    void setAppendListener(std::function<void()> l) { m_appendListener = std::move(l); }

    std::int64_t minOffset() const { return m_files.minOffset() < 0 ? 0 : m_files.minOffset(); }
    std::int64_t maxOffset() const { return m_files.maxOffset(); }
    /// The record bytes [offset, offset+size), if stored and still mapped.
    SelectedRecord select(std::int64_t offset, std::int32_t size) const;
    /// All bytes from `offset` to the end of the written part of its file.
    SelectedRecord selectFrom(std::int64_t offset) const;
    /// Start of the file after the one holding `offset`.
    std::int64_t rollNextFile(std::int64_t offset) const;
    /// Store timestamp of the record at `offset`, or -1.
    std::int64_t storeTimestampAt(std::int64_t offset, std::int32_t size) const;

    /// Next queue offset of every topic-queue ("topic-queueId" -> offset); recovery sets it.
    void setQueueOffset(QByteArrayView topic, int queueId, std::int64_t next);
    void removeQueueOffset(QByteArrayView topic, int queueId);
    /// Forgets the next queue offsets of every queue of `topic` (topic deleted).
    void removeTopicQueueOffsets(QByteArrayView topic);
    void clearQueueOffsets();

    /// Holds the put lock as an append would (since clock() at TEST_holdPutLock()) until
    /// release() or destruction: tests of OS_PAGECACHE_BUSY.
    struct TEST_PutLockHold
    {
        std::unique_lock<std::mutex> lock;
        std::atomic<std::int64_t> *begin = nullptr;
        void release()
        {
            if (lock.owns_lock()) {
                begin->store(0, std::memory_order_relaxed);
                lock.unlock();
            }
        }
        ~TEST_PutLockHold() { release(); }
    };
    TEST_PutLockHold TEST_holdPutLock();

    /// Rejects appends while set (disk full, shutdown, slave), with the reason as remark.
    void setWritable(bool writable, QString reasonIfNot = {});
    bool isWritable() const;

private:
    PutMessageStatus check(const MessageExtBrokerInner &msg, QString &remark) const;
    /// RocketMQ's isOSPageCacheBusy: the put lock has been held longer than
    /// osPageCacheBusyTimeOutMills (the page cache is stalling the writer). One relaxed load
    /// when the lock is free.
    bool isOsPageCacheBusy(QString &remark) const;
    PutMessageResult appendLocked(
        const MessageExtBrokerInner &msg, std::int32_t bodyCrc, std::int64_t storeTs);
    std::int64_t &queueOffsetSlot(QByteArrayView topic, int queueId);
    /// Logs the first put that failed to write (full disk) and the first success after it.
    void noteWriteOutcome(const PutMessageResult &r);

    const MessageStoreConfig m_config; // a copy: small, and callers may pass a temporary
    std::function<std::int64_t()> m_clock;
    MappedFileQueue m_files;
    const bool m_syncFlush;
    std::function<void()> m_appendListener;

    // Store time taken by the current holder of the put lock, 0 when free.
    std::atomic<std::int64_t> m_beginTimeInLock {0};
    mutable std::mutex m_putMutex; // guards everything below
    MappedFilePtr m_current;
    std::unordered_map<std::string, std::int64_t, TransparentStringHash, std::equal_to<>>
        m_queueOffsets;
    bool m_writable = true;
    QString m_notWritableReason;
    // The last topic-queue appended to and its slot (map nodes never move): a run of appends to
    // one queue skips building and hashing the key.
    std::string m_lastTopic;
    int m_lastQueueId = -1;
    std::int64_t *m_lastSlot = nullptr;
    std::vector<char> m_staging; // SYNC_FLUSH with pwrite: the record is encoded here first
    std::int64_t m_failedWrites = 0; // puts failed by I/O since the last success
};

/// Builds "topic-queueId" (RocketMQ's topic-queue table key) into `buf`; returns its view.
std::string_view topicQueueKey(QByteArrayView topic, int queueId, char (&buf)[160]);

} // namespace qrocket::storage
