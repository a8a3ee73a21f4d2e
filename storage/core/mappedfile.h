#pragma once

// MappedFile: one fixed-size, preallocated, mmap'd store file (commit log, consume queue or
// index), named by the global offset of its first byte (protocol.md §7.1).
//
// Threading: one writer appends (advances wrotePosition with release semantics); any number of
// readers read bytes below wrotePosition() (acquire). flush() may run concurrently with the
// writer. An eager file (commit log, index) is mapped as long as the object lives: holders of a
// shared_ptr may keep reading after the file was unlinked by cleanup. A lazy file (consume
// queues, opened with a MappingCache) holds no descriptor and no mapping until used: its bytes
// are reached through a Pin, which maps the file when needed and keeps that mapping alive while
// held; the cache may release the file's own reference to an idle mapping (mappingcache.h).
//
// Full disk: the file is preallocated with posix_fallocate when created, so ENOSPC fails the
// creation with a Status instead of raising SIGBUS on a later write into a hole. A sparse file
// (light queues: a million of them must not cost 80 KB of disk each) is created with no blocks;
// its writer reserves the pages it is about to write with reserve() first, which fails cleanly
// on a full disk in the same way.

#include "clientlib/common/result.h"
#include "storage/core/mappingcache.h"

#include <QByteArrayView>
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

namespace qrocket::storage {

class MappedFile
{
public:
    enum class FlushMethod : std::uint8_t { Fdatasync, Msync };
    /// How SYNC_FLUSH appends put their bytes into the page cache: through the mapping, or by
    /// pwrite of the encoded record (the same page cache, so readers of the mapping see it).
    /// pwrite keeps the writer off page faults and write-protect faults after each fdatasync;
    /// on this project's disk pwrite+fdatasync group-commits about twice as fast as
    /// mmap+msync. ASYNC_FLUSH always writes through the mapping.
    enum class SyncWriteMethod : std::uint8_t { Pwrite, Mmap };

    /// Creates (preallocated, zero-filled) or opens an existing file of `fileSize` bytes. An
    /// existing shorter file is extended with zeros and reported through wasShort(). With a
    /// `cache` the file is lazy: it is closed again once checked, and mapped by pin().
    /// `sparse` (lazy files only): no blocks are reserved at creation, see reserve().
    static Result<std::shared_ptr<MappedFile>> open(const QString &path,
        std::int64_t fileFromOffset, std::int64_t fileSize, bool mustCreate,
        MappingCachePtr cache = {}, bool sparse = false);
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

private:
    struct Mapping
    {
        int fd = -1;
        char *base = nullptr;
        std::int64_t size = 0;
        Mapping(int f, char *b, std::int64_t s) : fd(f), base(b), size(s) { }
        Mapping(const Mapping &) = delete;
        Mapping &operator=(const Mapping &) = delete;
        ~Mapping();
    };

public:
    /// The file's bytes, mapped while the Pin lives (any thread; cheap to copy).
    class Pin
    {
    public:
        Pin() = default;
        explicit operator bool() const { return m_map != nullptr; }
        char *data() const { return m_map->base; }
        int fd() const { return m_map->fd; }

    private:
        friend class MappedFile;
        explicit Pin(std::shared_ptr<const Mapping> m) : m_map(std::move(m)) { }
        std::shared_ptr<const Mapping> m_map;
    };
    /// Maps a lazy file if it is not (an empty Pin when that fails: logged); an eager file's
    /// permanent mapping otherwise. A use: marks the file recently used for the cache.
    Pin pin() const;
    /// The whole file read with pread into `out`, without mapping it: for a lazy, not sparse
    /// file that is not mapped now (a one-pass scan at start-up: no mmap, page faults and munmap
    /// per file, nor a cache slot). False, `out` untouched, for any other file or when the read
    /// fails: use pin() then.
    bool readUnmapped(QByteArray &out) const;
    bool isLazy() const { return m_cache != nullptr; }
    /// A lazy file holds a mapping now.
    bool isMapped() const;

    const QString &path() const { return m_path; }
    QString fileName() const;
    std::int64_t fileFromOffset() const { return m_fileFromOffset; }
    std::int64_t fileSize() const { return m_fileSize; }
    /// Bytes that were missing when an existing file was opened (0 normally).
    std::int64_t wasShort() const { return m_wasShort; }
    /// An eager file's bytes (lazy files: pin()).
    char *data() const { return m_base; }

    std::int64_t wrotePosition() const { return m_wrotePosition.load(std::memory_order_acquire); }
    void setWrotePosition(std::int64_t pos)
    {
        m_wrotePosition.store(pos, std::memory_order_release);
    }
    std::int64_t flushedPosition() const
    {
        return m_flushedPosition.load(std::memory_order_acquire);
    }
    void setFlushedPosition(std::int64_t pos)
    {
        m_flushedPosition.store(pos, std::memory_order_release);
    }
    bool isFull() const { return wrotePosition() >= m_fileSize; }
    std::int64_t remaining() const { return m_fileSize - wrotePosition(); }

    /// Store time of the last message written (commit log) or indexed (CQ), for the checkpoint.
    std::int64_t storeTimestamp() const { return m_storeTimestamp.load(std::memory_order_acquire); }
    void setStoreTimestamp(std::int64_t ts)
    {
        m_storeTimestamp.store(ts, std::memory_order_release);
    }

    /// Bytes [pos, pos+size) if they lie below wrotePosition, else an empty view (eager files).
    QByteArrayView view(std::int64_t pos, std::int64_t size) const;

    /// Which bytes a flush makes durable and how.
    enum class FlushScope : std::uint8_t {
        /// [flushedPosition, wrotePosition) with the method of setFlushMethod (fdatasync: every
        /// dirty page of the file).
        File,
        /// msync of the written range alone, and in a periodic round (leastPages > 0) only its
        /// whole pages. The pages beyond it, pre-faulted writable ahead of the writer, and the
        /// page the writer is filling stay dirty and writable: after fdatasync they were clean
        /// and write-protected, so the appends that followed took a write fault per page on
        /// the I/O threads (under the put lock), each able to wait for the journal commit the
        /// flush had started; and the zero pages ahead were written to disk for nothing.
        /// The range's whole pages are unmapped first (MADV_DONTNEED: they stay dirty in the
        /// page cache), so their write-back sends no TLB shoot-down to the I/O threads' CPUs.
        WrittenRange,
    };
    /// Makes [flushedPosition, wrotePosition) durable when at least `leastPages` 4 KiB pages are
    /// dirty (0: always; with WrittenRange and leastPages > 0, up to the last whole page).
    /// Returns the new flushed position, or an IoError.
    Result<std::int64_t> flush(int leastPages, FlushScope scope = FlushScope::File);
    /// fdatasync regardless of positions (index files write in place, not by position); the
    /// file's pages are unmapped first (they stay in the page cache), as WrittenRange does.
    Status sync();
    static void setFlushMethod(FlushMethod m);
    static FlushMethod flushMethod();
    static void setSyncWriteMethod(SyncWriteMethod m);
    static SyncWriteMethod syncWriteMethod();
    /// pwrite of `size` bytes at `pos` (must lie within the file); IoError on failure.
    Status writeAt(std::int64_t pos, const char *bytes, std::int64_t size);

    /// Maps every page ahead of the writer (read-populate: no dirty pages, no disk writes), so
    /// appends do not pay for page allocation. Best effort.
    void prefault();
    /// Maps the pages of [from, to) ahead of the writer (MADV_POPULATE_WRITE when `writable`:
    /// page-cache pages allocated, zeroed and mapped writable, so the writer's first touch does
    /// not fault; else MADV_POPULATE_READ). Contents are not changed, so it may run beside the
    /// writer. Best effort: 0, or the errno of madvise (EINVAL: the kernel cannot do it).
    int populate(std::int64_t from, std::int64_t to, bool writable);
    bool isSparse() const { return m_sparse; }
    /// A sparse file: allocates the disk blocks of every page below `end` not yet reserved by
    /// this object (those below the first reserve() of an opened file are assumed written, as a
    /// consume queue's are), through the descriptor of `pin`. Call before writing those bytes
    /// through the mapping: a full disk is then an IoError here, not a SIGBUS in the write.
    /// No-op for other files. One writer.
    Status reserve(const Pin &pin, std::int64_t end);
    /// Where the bytes of [from, fileSize) that may be non-zero end: a sparse file's holes
    /// read as zeros, so a tail with no data after `from`'s page ends there (SEEK_DATA); the
    /// file size otherwise. Lets recovery check a light queue's tail without reading its holes.
    std::int64_t dataEnd(const Pin &pin, std::int64_t from) const;
    /// Zeroes [pos, fileSize) and sets wrote/flushed positions to `pos` (recovery truncation).
    void truncateTo(std::int64_t pos);
    /// Last-modified time of the file on disk (ms since epoch), 0 when unknown.
    std::int64_t lastModified() const;
    /// Removes the file from the directory; the mapping stays valid until destruction.
    bool unlinkFile();
    bool isUnlinked() const { return m_unlinked.load(); }

private:
    friend class MappingCache;
    MappedFile() = default;
    /// A lazy file's mapping if it has one (no mapping made, no use recorded).
    Pin pinIfMapped() const;

    QString m_path;
    int m_fd = -1; // eager: the mapping's descriptor
    char *m_base = nullptr; // eager: the mapping's bytes
    mutable std::shared_ptr<const Mapping> m_map; // eager: set once; lazy: under m_mapMutex
    MappingCachePtr m_cache; // lazy files only
    mutable std::mutex m_mapMutex;
    mutable std::atomic<bool> m_referenced {false}; // used since the cache's hand passed
    MappedFile *m_lruPrev = nullptr; // guarded by the cache's mutex
    MappedFile *m_lruNext = nullptr;
    bool m_inLru = false;
    std::int64_t m_fileFromOffset = 0;
    std::int64_t m_fileSize = 0;
    std::int64_t m_wasShort = 0;
    std::atomic<std::int64_t> m_wrotePosition {0};
    std::atomic<std::int64_t> m_flushedPosition {0};
    std::atomic<std::int64_t> m_storeTimestamp {0};
    std::atomic<bool> m_unlinked {false};
    bool m_sparse = false;
    std::int64_t m_reservedEnd = 0; // sparse: pages below are allocated (the writer's)
};

using MappedFilePtr = std::shared_ptr<MappedFile>;

/// "%020lld" of an offset: the name of the file starting there.
QString offsetToFileName(std::int64_t offset);

} // namespace qrocket::storage
