#pragma once

// Machine limits measured in the same run as the store figures (qrocket-bench-store).

#include <QByteArray>
#include <QString>

#include <cstdint>

namespace qrocket::storage::bench {

/// MB/s of memcpy in `chunk`-byte pieces into a fresh, preallocated mapped file of `fileSize`.
double mappedMemcpyMBps(const QString &dir, std::int64_t fileSize, int chunk);
/// Operations/s of: write `batch` records of `recordSize` bytes sequentially, then fdatasync.
double writeFdatasyncOpsPerSec(const QString &dir, int recordSize, int batch, double seconds);

/// The same, on one file kept for several short slices (interleaved with the store's): no file
/// is created or deleted between slices (deleting a preallocated file discards its blocks on
/// this disk and slows the next fdatasyncs).
class WriteFdatasyncLoop
{
public:
    WriteFdatasyncLoop(const QString &dir, int recordSize, int batch);
    ~WriteFdatasyncLoop();
    WriteFdatasyncLoop(const WriteFdatasyncLoop &) = delete;
    WriteFdatasyncLoop &operator=(const WriteFdatasyncLoop &) = delete;
    /// Runs for `seconds`; returns the operations done.
    std::int64_t run(double seconds);

private:
    QByteArray m_path, m_record;
    int m_fd = -1, m_batch;
    std::int64_t m_pos = 0;
};
/// Commit-log style flush comparison: msync of the dirty range vs fdatasync on an mmap'd file,
/// writing `batchBytes` per flush. Returns flushes/s.
double mmapFlushOpsPerSec(const QString &dir, int batchBytes, bool useMsync, double seconds);

} // namespace qrocket::storage::bench
