#pragma once

// ConsumeQueue: the per (topic, queueId) index into the commit log (protocol.md §7.3). Each unit
// is 20 bytes: i64 commitLogOffset, i32 size, i64 tagsCode; unit n sits at byte n*20.
//
// Threading: one writer (the reput thread, or recovery before start); readers call
// unit()/indexBuffer() concurrently and see units below the published write position.

#include "storage/core/mappedfilequeue.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <functional>

namespace qrocket::storage {

class ConsumeQueue
{
public:
    static constexpr int kUnitSize = 20;

    struct Unit
    {
        std::int64_t commitLogOffset = 0;
        std::int32_t size = 0;
        std::int64_t tagsCode = 0;
    };
    struct IndexBuffer
    {
        QByteArrayView bytes; // whole units from the requested index to the end of its file
        MappedFilePtr hold;
        MappedFile::Pin pin; // keeps `bytes` mapped
    };
    struct RecoverResult
    {
        std::int64_t units = 0; // valid units kept
        std::int64_t discardedBytes = 0; // non-zero bytes found after the first invalid unit
        bool damaged = false; // invalid units followed by data, or a file that starts invalid
        QString detail;
    };

    /// With a `cache` the queue's files are mapped only while used (mappingcache.h); `sparse`
    /// (with a cache; light queues) files take disk blocks only for the pages written.
    ConsumeQueue(QByteArray topic, int queueId, const QString &rootDir, int fileSize,
        MappingCachePtr cache = {}, bool sparse = false);

    /// Start-up (MessageStore): a queue found on disk is Pending until one thread (the first
    /// to need it, or the background recovery) claims it, loads and recovers it; others wait.
    /// Broken: its files could not be loaded (kept as they are, not used). Gone: a queue of a
    /// deleted topic that recovery found and deleted (no queue; replaced if the topic's queue
    /// is created again). New queues are Ready.
    enum class State : std::uint8_t { Ready, Pending, Recovering, Broken, Gone };
    State state() const { return static_cast<State>(m_state.load(std::memory_order_acquire)); }
    void setPending() { m_state.store(std::uint8_t(State::Pending), std::memory_order_relaxed); }
    /// Pending -> Recovering; true when this thread now recovers the queue.
    bool claimRecovery()
    {
        std::uint8_t expected = std::uint8_t(State::Pending);
        return m_state.compare_exchange_strong(
            expected, std::uint8_t(State::Recovering), std::memory_order_acq_rel);
    }
    /// Ends a claim (or a Pending queue given up) and wakes the waiters.
    void finishRecovery(State s)
    {
        m_state.store(std::uint8_t(s), std::memory_order_release);
        m_state.notify_all();
    }
    /// Blocks while another thread recovers the queue.
    void waitWhileRecovering() const
    {
        m_state.wait(std::uint8_t(State::Recovering), std::memory_order_acquire);
    }

    const QByteArray &topic() const { return m_topic; }
    int queueId() const { return m_queueId; }
    MappedFileQueue &files() { return m_queue; }

    Status load() { return m_queue.load(); }
    /// Scans from the third-last file, keeps units while commitLogOffset >= 0 and size > 0,
    /// truncates the rest and reports what it found.
    RecoverResult recover();

    /// Appends unit `cqOffset` (reput). Idempotent: units whose data ends at or before
    /// maxPhysicOffset() or whose index is already written are skipped.
    Status putUnit(std::int64_t commitLogOffset, std::int32_t size, std::int64_t tagsCode,
        std::int64_t cqOffset);

    std::int64_t minOffsetInQueue() const { return m_minLogicOffset.load() / kUnitSize; }
    std::int64_t maxOffsetInQueue() const { return m_queue.maxOffset() / kUnitSize; }
    /// End (offset + size) of the last unit's message, or -1 when empty.
    std::int64_t maxPhysicOffset() const { return m_maxPhysicOffset.load(); }
    bool unit(std::int64_t index, Unit &out) const;
    IndexBuffer indexBuffer(std::int64_t index) const;
    /// First index of the file after the one holding `index`.
    std::int64_t rollNextFile(std::int64_t index) const;

    /// Drops units whose commitLogOffset >= `phyOffset` (commit log truncated there).
    void truncateDirtyLogicFiles(std::int64_t phyOffset);
    /// Sets the min offset to the first unit whose commitLogOffset >= commitLogMinOffset.
    void correctMinOffset(std::int64_t commitLogMinOffset);
    /// The same, at the end of recovery: when recover() saw the first file's first unit and it
    /// is not below commitLogMinOffset, without mapping the file again (with a million light
    /// queues and a cold cache, a second open and read of each first file took most of a start).
    void correctMinOffsetAfterRecovery(std::int64_t commitLogMinOffset);
    /// Deletes files (never the last) whose last unit lies below commitLogMinOffset, then
    /// corrects the min offset (calling `beforeCorrection` in between when a file went).
    int deleteExpiredFiles(
        std::int64_t commitLogMinOffset, const std::function<void()> &beforeCorrection = {});
    Result<std::int64_t> flush(int leastPages) { return m_queue.flush(leastPages); }
    void destroy();

    static Unit decodeUnit(const char *p);
    /// A unit put where a queue starts past 0 or skips indexes (no message of its own).
    static bool isPlaceholder(const Unit &u)
    {
        return u.commitLogOffset == 0 && u.size == 0x7FFFFFFF;
    }

private:
    static void fillPlaceholders(char *base, std::int64_t fromPos, std::int64_t toPos);

    QByteArray m_topic;
    int m_queueId;
    MappedFileQueue m_queue;
    std::atomic<std::int64_t> m_maxPhysicOffset {-1};
    std::atomic<std::int64_t> m_minLogicOffset {0};
    // recover(): the first file's first unit that is no placeholder (its position in the file
    // and commit-log offset), or -1; any later change to the files forgets it (reput and
    // clean-up threads: atomics, read by recovery only).
    std::atomic<std::int64_t> m_recoveredFirstPos {-1};
    std::atomic<std::int64_t> m_recoveredFirstPhy {-1};
    std::atomic<std::uint8_t> m_state {std::uint8_t(State::Ready)};
};

} // namespace qrocket::storage
