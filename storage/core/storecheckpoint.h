#pragma once

// StoreCheckpoint: the 4 KiB `checkpoint` file (protocol.md §7.5):
//   @0 i64 physicMsgTimestamp  store time of the last flushed commit-log message
//   @8 i64 logicsMsgTimestamp  store time of the last flushed consume-queue entry
//   @16 i64 indexMsgTimestamp  store time covered by flushed index files
// Rest zero, big-endian. Setters are thread-safe; flush() writes and fdatasyncs the file.

#include "clientlib/common/result.h"

#include <QString>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace qrocket::storage {

class StoreCheckpoint
{
public:
    static constexpr int kFileSize = 4096;

    explicit StoreCheckpoint(QString path);
    ~StoreCheckpoint();
    StoreCheckpoint(const StoreCheckpoint &) = delete;
    StoreCheckpoint &operator=(const StoreCheckpoint &) = delete;

    /// Opens (creating if missing) and reads the file. A short or unreadable file is an error
    /// only if it cannot be opened; a short file reads as zeros.
    Status open();
    Status flush();

    std::int64_t physicMsgTimestamp() const { return m_physic.load(); }
    std::int64_t logicsMsgTimestamp() const { return m_logics.load(); }
    std::int64_t indexMsgTimestamp() const { return m_index.load(); }
    void setPhysicMsgTimestamp(std::int64_t v) { m_physic.store(v); }
    void setLogicsMsgTimestamp(std::int64_t v) { m_logics.store(v); }
    void setIndexMsgTimestamp(std::int64_t v) { m_index.store(v); }

    /// RocketMQ's recovery bound: min(physic, logics) (and index when `indexSafe`) minus 3 s.
    std::int64_t minTimestamp(bool indexSafe) const;

    /// Parses a checkpoint image (at least 24 bytes) without touching any file.
    static bool parse(
        QByteArrayView bytes, std::int64_t &physic, std::int64_t &logics, std::int64_t &index);

private:
    QString m_path;
    int m_fd = -1;
    std::mutex m_flushMutex;
    std::atomic<std::int64_t> m_physic {0};
    std::atomic<std::int64_t> m_logics {0};
    std::atomic<std::int64_t> m_index {0};
};

/// The `lock` file (held with flock while the store is open, so a second process gets a clear
/// error) and the `abort` marker (present while running; absent after a clean stop).
class StoreLock
{
public:
    StoreLock() = default;
    ~StoreLock();
    StoreLock(const StoreLock &) = delete;
    StoreLock &operator=(const StoreLock &) = delete;

    /// Busy when another process holds the lock.
    Status acquire(const QString &lockPath);
    void release();

private:
    int m_fd = -1;
};

} // namespace qrocket::storage
