#pragma once

// Machine limits measured in the same run as the store figures (qrocket-bench-store).

#include <QString>

#include <cstdint>

namespace qrocket::storage::bench {

/// MB/s of memcpy in `chunk`-byte pieces into a fresh, preallocated mapped file of `fileSize`.
double mappedMemcpyMBps(const QString &dir, std::int64_t fileSize, int chunk);
/// Operations/s of: write `batch` records of `recordSize` bytes sequentially, then fdatasync.
double writeFdatasyncOpsPerSec(const QString &dir, int recordSize, int batch, double seconds);
/// Commit-log style flush comparison: msync of the dirty range vs fdatasync on an mmap'd file,
/// writing `batchBytes` per flush. Returns flushes/s.
double mmapFlushOpsPerSec(const QString &dir, int batchBytes, bool useMsync, double seconds);

} // namespace qrocket::storage::bench
