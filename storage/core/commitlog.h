#pragma once

// CommitLog: the append-only message log (protocol.md §5.1, §7.2). append() assigns the physical
// offset, the per topic-queue offset and the store timestamp under one lock and encodes the
// record straight into the mapped file; the body CRC is computed before taking the lock. A record
// that does not fit (+8 bytes) ends the file with a BLANK record and goes to the next file. The
// pages ahead of the writer are mapped by PrefaultService.
//
// SYNC_FLUSH with MappedFile::SyncWriteMethod::Pwrite ("deferred writes"): append() only encodes
// the record into an in-memory buffer under the lock; writePending(), called by the group
// commit before each fdatasync, pwrites the buffered bytes into the file (the same page cache
// the mapping shows) outside the put lock and only then publishes them to readers (the file's
// wrote position). A put never waits for a pwrite that stalls on the disk, and one flush gathers
// every writer. maxOffset() counts buffered bytes (they have their offsets); readers see bytes
// once written. Beyond kMaxUnwrittenBytes buffered, a put pwrites its record itself.
//
// Threading: append/appendBatch from any thread (serialised by the put lock); writePending()
// from any thread (serialised by its own lock); select*/min/max from any thread; recovery
// (recover*.cpp) before any of those run.

#include "clientlib/common/adaptivemutex.h"
#include "storage/core/mappedfilequeue.h"
#include "storage/core/recordutil.h"
#include "storage/core/storeconfig.h"
#include "storage/core/storetypes.h"

#include <algorithm>
#include <atomic>
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
    /// A slave's append (HA): raw bytes the master had at `startOffset`, written verbatim
    /// (give it whole records: each file's part is written with its first 4 bytes last, so that
    /// a process killed in the middle leaves nothing recovery would take for a record).
    /// `startOffset` must equal maxOffset(), unless the log is empty (then the first file is the
    /// one holding `startOffset`). Continues into the next file where the current one is full.
    /// InvalidArgument for a wrong offset, IoError when a file cannot be created.
    Status appendData(std::int64_t startOffset, QByteArrayView data);
    /// Called after each append with the new max offset (wakes the reput thread).
    void setAppendListener(std::function<void()> l) { m_appendListener = std::move(l); }

    std::int64_t minOffset() const { return m_files.minOffset() < 0 ? 0 : m_files.minOffset(); }
    /// End of the last record appended, including records not yet written into the file.
    std::int64_t maxOffset() const
    {
        return m_deferred
            ? std::max(m_files.maxOffset(), m_appendEnd.load(std::memory_order_acquire))
            : m_files.maxOffset();
    }

    /// Deferred writes: pwrites the buffered records into their files and publishes them to
    /// readers (then calls the append listener). A pwrite that fails (a file-size limit, say)
    /// is replaced by a copy through the mapping of the preallocated file; the flush that
    /// follows decides whether the bytes are durable. No-op without deferred writes.
    void writePending();
    /// Bytes appended but not yet written into the file (deferred writes), else 0.
    std::int64_t unwrittenBytes() const { return m_unwrittenBytes.load(std::memory_order_acquire); }
    bool defersWrites() const { return m_deferred; }
    static constexpr std::int64_t kMaxUnwrittenBytes = 8 << 20;
    /// The record bytes [offset, offset+size), if stored and still mapped.
    SelectedRecord select(std::int64_t offset, std::int32_t size) const;
    /// All bytes from `offset` to the end of the written part of its file.
    SelectedRecord selectFrom(std::int64_t offset) const;
    /// Start of the file after the one holding `offset`.
    std::int64_t rollNextFile(std::int64_t offset) const;
    /// Store timestamp of the record at `offset`, or -1.
    std::int64_t storeTimestampAt(std::int64_t offset, std::int32_t size) const;

    /// Where a topic-queue's next offset starts the first time an append names it (the store:
    /// its consume queue's end, recovering the queue first); -1 refuses the append with `why`.
    /// Called under the put lock. Set before the first append.
    using QueueOffsetLoader
        = std::function<std::int64_t(QByteArrayView topic, int queueId, QString &why)>;
    void setQueueOffsetLoader(QueueOffsetLoader l) { m_offsetLoader = std::move(l); }
    /// Holds off appends while the caller changes queues and their next offsets together: the
    /// lock is taken before the store's queue table lock (the QueueOffsetLoader, called under
    /// it, takes that one), and the two calls below take it themselves unless given it.
    using PutLock = std::unique_lock<AdaptiveMutex>;
    PutLock lockPuts() { return PutLock(m_putMutex); }
    /// Forgets the next queue offset of (topic, queueId) if it is still `expectedNext`, under the
    /// put lock: no append has given the queue an offset beyond it. True when forgotten (or when
    /// there was no entry).
    bool removeQueueOffsetIf(QByteArrayView topic, int queueId, std::int64_t expectedNext,
        const PutLock *held = nullptr);
    /// Forgets the next queue offsets of every queue of `topic` (topic deleted).
    void removeTopicQueueOffsets(QByteArrayView topic, const PutLock *held = nullptr);

    /// Holds the put lock as an append would (since clock() at TEST_holdPutLock()) until
    /// release() or destruction: tests of OS_PAGECACHE_BUSY.
    struct TEST_PutLockHold
    {
        std::unique_lock<AdaptiveMutex> lock;
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
    /// `names`: the queues of the message's INNER_MULTI_DISPATCH (multidispatch.h), or null.
    PutMessageResult appendLocked(const MessageExtBrokerInner &msg, std::int32_t bodyCrc,
        std::int64_t storeTs, const std::vector<QByteArrayView> *names = nullptr);
    /// The queues `m` names for multi-dispatch (none unless enableMultiDispatch and the property
    /// is there: one memmem otherwise); false with `remark` for a malformed list.
    bool multiDispatchNames(
        const MessageExtBrokerInner &m, std::vector<QByteArrayView> &names, QString &remark) const;
    /// Where the next record goes in m_current (deferred writes: past the buffered records).
    std::int64_t appendPosition() const
    {
        return m_deferred ? m_appendPos : m_current->wrotePosition();
    }
    /// Deferred writes: `size` bytes at `pos` of m_current; written=false: they are in
    /// m_pending at `bufOffset`. `endPos` is the wrote position once they are written.
    void addSegment(std::int64_t pos, std::int64_t size, size_t bufOffset, std::int64_t endPos,
        std::int64_t storeTs, bool written);
    /// Room for `size` more bytes in m_pending; returns where they go.
    char *reservePending(std::int64_t size);
    /// The next-offset slot of a topic-queue. A queue not appended to since the start asks the
    /// loader (without one it starts at 0); null when the loader refuses (`why` says why).
    std::int64_t *queueOffsetSlot(QByteArrayView topic, int queueId, QString &why);
    /// Logs the first put that failed to write (full disk) and the first success after it.
    void noteWriteOutcome(const PutMessageResult &r);

    const MessageStoreConfig m_config; // a copy: small, and callers may pass a temporary
    std::function<std::int64_t()> m_clock;
    MappedFileQueue m_files;
    const bool m_syncFlush;
    const bool m_deferred; // SYNC_FLUSH with pwrite: see the header comment
    std::function<void()> m_appendListener;
    QueueOffsetLoader m_offsetLoader;

    // Deferred writes: a run of bytes appended to one file, in append order.
    struct Segment
    {
        MappedFilePtr file;
        std::int64_t pos; // in the file
        std::int64_t size;
        size_t bufOffset; // in the buffer, unless written
        std::int64_t endPos; // the file's wrote position once written (BLANK: the file size)
        std::int64_t storeTs;
        bool written; // pwritten by the put itself (buffer over kMaxUnwrittenBytes)
    };
    std::atomic<std::int64_t> m_appendEnd {0};
    std::atomic<std::int64_t> m_unwrittenBytes {0};
    std::mutex m_writeMutex; // serialises writePending(); taken before m_putMutex
    std::vector<char> m_writing; // writePending() only: the buffer taken from m_pending
    std::vector<Segment> m_writingSegments;
    bool m_writeFallback = false; // writePending() only: the last pwrite failed

    // Store time taken by the current holder of the put lock, 0 when free.
    std::atomic<std::int64_t> m_beginTimeInLock {0};
    mutable AdaptiveMutex m_putMutex; // guards everything below
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
    std::vector<char> m_staging; // a record pwritten by the put itself is encoded here first
    // Deferred writes: m_current's next write position, and the records not yet written.
    std::int64_t m_appendPos = 0;
    std::vector<char> m_pending;
    size_t m_pendingSize = 0;
    std::vector<Segment> m_segments;
    std::int64_t m_failedWrites = 0; // puts failed by I/O since the last success
};

/// Builds "topic-queueId" (RocketMQ's topic-queue table key) into `buf`; returns its view.
std::string_view topicQueueKey(QByteArrayView topic, int queueId, char (&buf)[160]);

} // namespace qrocket::storage
