#pragma once

// The store's one disk-usage measure, RocketMQ 4.9's UtilAll.getDiskPartitionSpaceUsedPercent:
// used / (used + available) of the partition holding a path, where used = total - free and
// available is what an unprivileged user may still write (statvfs f_bavail). Blocks reserved for
// root count as used, so the figure is the Use% of `df`, not (total - free) / total. The clean
// service's marks (diskMaxUsedSpaceRatio, diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio)
// are compared with it, and the runtime info, storeFiles and the console show the same number.
//
// A DiskSpaceProbe answers total / free / available of a path's partition: statvfs by default
// (defaultDiskSpaceProbe); tests give their own (StoreOptions::diskSpace) or a file through the
// environment. A probe is called from several threads (the clean service, admin requests):
// thread-safe.

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
/// available" (bytes), for every path. Unknown while the file is missing or malformed. A test
/// changes the file to move the disk.
DiskSpaceProbe diskSpaceFileProbe(const QString &file);

/// The probe of a store given none: statvfs; or, when the environment names a file in
/// QROCKET_DISK_SPACE_FILE (the tests' seam, so that no test depends on the shared host's fill
/// level and a system test can fill and free a real daemon's disk), diskSpaceFileProbe of it,
/// with a warning in the log (once per process). Read when the store opens: every broker of a
/// process, in-process or daemon, controller mode included.
DiskSpaceProbe defaultDiskSpaceProbe();

} // namespace qrocket::storage
