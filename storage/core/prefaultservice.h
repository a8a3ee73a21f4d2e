#pragma once

// PrefaultService: keeps the pages just ahead of the commit log's write position mapped, so the
// appending thread (which holds the put lock) never takes a page fault: the kernel's page-cache
// allocation, zeroing and ext4 page_mkwrite run on this thread instead (RocketMQ gets the same
// effect from warming whole files; a window keeps page cache and disk writes small).
//
// writable=true (ASYNC_FLUSH): MADV_POPULATE_WRITE; the window's zero pages are dirty, so a
// flush may write them (at most the window per flush) before the records overwrite them.
// writable=false (SYNC_FLUSH): MADV_POPULATE_READ; nothing becomes dirty, so a group commit
// never writes more than the records, and the writer is left only the cheaper write-protect
// fault.
//
// Threading: its own thread between start() and stop(); reads positions only.

#include "storage/core/mappedfilequeue.h"
#include "storage/core/servicethread.h"

namespace qrocket::storage {

/// Commit-log bytes kept mapped ahead of the writer; also mapped at the head of each
/// preallocated file, so a roll-over does not fault either.
inline constexpr std::int64_t kCommitLogPrefaultWindow = 16LL << 20;

class PrefaultService
{
public:
    PrefaultService(MappedFileQueue &files, std::int64_t windowBytes, bool writable);
    void start();
    void stop() { m_thread.stop(); }
    /// One pass: maps up to `chunk` bytes of the window; returns the bytes mapped.
    std::int64_t runOnce(std::int64_t chunk);

private:
    MappedFileQueue &m_files;
    std::int64_t m_window;
    bool m_writable;
    std::int64_t m_frontier = -1; // global offset up to which pages are mapped
    bool m_unsupported = false;
    ServiceThread m_thread;
};

} // namespace qrocket::storage
