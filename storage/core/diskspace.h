#pragma once

// The store's one disk-usage measure, RocketMQ 4.9's UtilAll.getDiskPartitionSpaceUsedPercent:
// used / (used + available) of the partition holding a path, where used = total - free and
// available is what an unprivileged user may still write (statvfs f_bavail). Blocks reserved for
// root count as used, so the figure is the Use% of `df`, not (total - free) / total. The clean
// service's marks (diskMaxUsedSpaceRatio, diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio)
// are compared with it, and the runtime info, storeFiles and the console show the same number.
//
// A DiskSpaceProbe answers total / free / available of a path's partition: statvfs by default;
// tests give their own (StoreOptions::diskSpace), the daemon a file (diskSpaceFileProbe). A
// probe is called from several threads (the clean service, admin requests): thread-safe.

#include <QString>

#include <cstdint>
#include <functional>

namespace qrocket::storage {

/// One partition's space in bytes; total <= 0 when it could not be measured.
struct DiskSpace
{
    std::int64_t total = -1; // f_blocks * f_frsize (Java File.getTotalSpace)
    std::int64_t free = 0; // f_bfree * f_frsize, root's reserve included (getFreeSpace)
    std::int64_t available = 0; // f_bavail * f_frsize, what users may still write (getUsableSpace)

    bool isKnown() const { return total > 0; }
};

using DiskSpaceProbe = std::function<DiskSpace(const QString &path)>;

/// statvfs() of `path`; unknown when the path does not exist or the call fails.
DiskSpace statvfsDiskSpace(const QString &path);

/// RocketMQ's measure in whole percent: ceil(used * 100 / (used + available)); -1 when unknown.
int diskUsedPercent(const DiskSpace &space);

/// The same as a ratio in [0, 1] (a hundredth's multiple, as RocketMQ reports it); -1 unknown.
inline double diskUsedRatio(const DiskSpace &space)
{
    const int percent = diskUsedPercent(space);
    return percent < 0 ? -1.0 : percent / 100.0;
}

/// A probe that reads the partition from a text file on every call: one line "total free
/// available" (bytes), for every path. Unknown while the file is missing or malformed. The
/// daemon's test seam (QROCKET_DISK_SPACE_FILE): a test changes the file to move the disk.
DiskSpaceProbe diskSpaceFileProbe(const QString &file);

} // namespace qrocket::storage
