#pragma once

// MappedFileQueue: the ordered list of equally sized MappedFiles in one directory, named by start
// offset; global offset o lives in the file starting at o - o % fileSize (protocol.md §7.2).
//
// Threading: the file list is guarded by an internal mutex; accessors return shared_ptr copies
// that keep a file mapped while used. Creating and truncating files is done by the single owner
// (the appender or the recovery code); flush may run concurrently with appends.

#include "storage/core/mappedfile.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <future>
#include <mutex>
#include <vector>

namespace qrocket::storage {

/// The names of the regular files (`directories` false) or subdirectories (true) of `dir`, in
/// name order (QString's, as QDir::Name sorts), from readdir's entry types: no stat per entry
/// unless the file system does not report types. Empty when `dir` cannot be read. (Start-up
/// lists 100,000s of consume-queue directories.)
QStringList listDirectory(const QString &dir, bool directories);
/// Replaces `path` with `text` so that a crash or power loss leaves the old file or the new one:
/// a temporary file, synced, renamed over it, then the directory synced.
Status writeFileDurably(const QString &path, QByteArrayView text);

class MappedFileQueue
{
public:
    /// With a `cache`, the files are lazy (MappedFile::pin(), mappingcache.h).
    MappedFileQueue(QString dir, std::int64_t fileSize, MappingCachePtr cache = {});
    ~MappedFileQueue();
    MappedFileQueue(const MappedFileQueue &) = delete;
    MappedFileQueue &operator=(const MappedFileQueue &) = delete;

    const QString &dir() const { return m_dir; }
    /// Creates (and pre-faults) the next file in the background whenever a new file starts
    /// (RocketMQ's AllocateMappedFileService), so the appender rarely creates files itself.
    /// `headBytes`: also map the first bytes of each new file ahead of time (MappedFile::populate).
    void setPreallocate(
        bool on, bool prefault, std::int64_t headBytes = 0, bool headWritable = false)
    {
        m_preallocate = on;
        m_prefault = prefault;
        m_headBytes = headBytes;
        m_headWritable = headWritable;
    }
    /// New and loaded files are sparse (MappedFile::open; lazy queues only): their writer
    /// reserves pages with MappedFile::reserve() before writing them.
    void setSparse(bool on) { m_sparse = on; }
    std::int64_t fileSize() const { return m_fileSize; }

    /// Maps every file of the directory. Files that are not 20-digit names are ignored; a file
    /// shorter than fileSize is extended with zeros and listed in loadWarnings(). Wrote positions
    /// start at the file size; recovery sets the real ones.
    Status load();
    QStringList loadWarnings() const { return m_loadWarnings; }

    /// The last file if it has room, else a new file following it (or at `startOffset` rounded
    /// down to a file boundary when the queue is empty). `lastIsFull`: the caller knows the last
    /// file is full although its wrote position does not show it yet (deferred writes).
    Result<MappedFilePtr> lastFileForWrite(std::int64_t startOffset = 0, bool lastIsFull = false);
    MappedFilePtr lastFile() const;
    MappedFilePtr firstFile() const;
    /// The file containing global `offset`, or null.
    MappedFilePtr findFile(std::int64_t offset) const;
    std::vector<MappedFilePtr> files() const;
    int fileCount() const;
    bool isEmpty() const { return fileCount() == 0; }

    std::int64_t minOffset() const; // first file's start, or -1 when empty
    std::int64_t maxOffset() const; // last file's start + wrote position, or 0
    std::int64_t flushedWhere() const { return m_flushedWhere.load(std::memory_order_acquire); }
    void setFlushedWhere(std::int64_t o) { m_flushedWhere.store(o, std::memory_order_release); }
    /// Bytes written but not yet flushed.
    std::int64_t flushBacklog() const
    {
        return std::max<std::int64_t>(0, maxOffset() - flushedWhere());
    }

    /// Flushes from flushedWhere; `leastPages` as in MappedFile::flush (0 flushes everything,
    /// across file boundaries). Returns the new flushedWhere.
    Result<std::int64_t> flush(
        int leastPages, MappedFile::FlushScope scope = MappedFile::FlushScope::File);
    /// Records that everything below `upTo` was made durable by other means (a syncfs of the
    /// whole file system): the files' flushed positions and flushedWhere move up to it.
    void markFlushed(std::int64_t upTo);
    /// Store timestamp of the newest file flushed completely up to flushedWhere (checkpoint).
    std::int64_t storeTimestampAtFlushedWhere() const;

    /// Drops everything at and after global `offset`: files starting at or after it are deleted,
    /// the file holding it is zeroed from there on. Returns the number of bytes discarded beyond
    /// `offset`.
    /// `tailIsZero`: the caller saw that the bytes from `offset` to the end of its file are
    /// zero (recovery of a clean consume queue): that file's positions are set, nothing written.
    std::int64_t truncateDirty(std::int64_t offset, bool tailIsZero = false);
    /// Removes `file` from the queue (it must be the first) and unlinks it; holders keep reading.
    bool removeFirst(const MappedFilePtr &file);
    /// Deletes every file and the directory's contents.
    void destroy();

    /// Starts preallocating the file the writer will need next (at open: the first file when the
    /// queue is empty, else the one after the last). No-op unless preallocation is on.
    void prepareNext(std::int64_t startOffsetIfEmpty);

private:
    MappedFilePtr findLocked(std::int64_t offset) const;
    void startPreallocation(std::int64_t offset); // writer thread only
    void discardPreallocated();

    QString m_dir;
    std::int64_t m_fileSize;
    MappingCachePtr m_cache;
    mutable std::mutex m_mutex; // guards m_files
    std::vector<MappedFilePtr> m_files;
    std::atomic<std::int64_t> m_flushedWhere {0};
    QStringList m_loadWarnings;
    bool m_sparse = false;
    bool m_preallocate = false;
    bool m_prefault = false;
    std::int64_t m_headBytes = 0;
    bool m_headWritable = false;
    std::future<Result<MappedFilePtr>> m_preallocated; // the writer's next file, being created
    std::int64_t m_preallocatedOffset = -1;
};

} // namespace qrocket::storage
