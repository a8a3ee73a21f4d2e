#include "storage/core/diskspace.h"

#include "storage/core/logging.h"

#include <QFile>
#include <QList>

#include <algorithm>
#include <atomic>
#include <sys/statvfs.h>

namespace qrocket::storage {

DiskSpace statvfsDiskSpace(const QString &path)
{
    struct statvfs st
    { };
    if (path.isEmpty() || ::statvfs(QFile::encodeName(path).constData(), &st) != 0
        || st.f_blocks == 0)
        return {};
    const auto unit = static_cast<std::int64_t>(st.f_frsize ? st.f_frsize : st.f_bsize);
    DiskSpace s;
    s.total = static_cast<std::int64_t>(st.f_blocks) * unit;
    s.free = static_cast<std::int64_t>(st.f_bfree) * unit;
    s.available = static_cast<std::int64_t>(st.f_bavail) * unit;
    return s;
}

int diskUsedPercent(const DiskSpace &space)
{
    if (!space.isKnown())
        return -1;
    const std::int64_t used = std::max<std::int64_t>(space.total - space.free, 0);
    const std::int64_t entire = used + std::max<std::int64_t>(space.available, 0);
    if (entire <= 0)
        return -1;
    // Whole percent, rounded up: 89.01 % is 90 %, as RocketMQ reports it.
    const std::int64_t percent = used * 100 / entire + (used * 100 % entire != 0 ? 1 : 0);
    return static_cast<int>(percent);
}

DiskSpaceProbe diskSpaceFileProbe(const QString &file)
{
    return [file](const QString &) -> DiskSpace {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        const QList<QByteArray> parts = f.readLine(256).simplified().split(' ');
        if (parts.size() != 3)
            return {};
        DiskSpace s;
        bool ok[3] = {false, false, false};
        s.total = parts[0].toLongLong(&ok[0]);
        s.free = parts[1].toLongLong(&ok[1]);
        s.available = parts[2].toLongLong(&ok[2]);
        if (!ok[0] || !ok[1] || !ok[2] || s.free > s.total || s.available > s.free)
            return {};
        return s;
    };
}

DiskSpaceProbe defaultDiskSpaceProbe()
{
    const QString file = qEnvironmentVariable("QROCKET_DISK_SPACE_FILE");
    if (file.isEmpty())
        return statvfsDiskSpace;
    static std::atomic<bool> told {false};
    if (!told.exchange(true))
        qCWarning(lcStoreClean).noquote() << "disk space read from" << file
                                          << "(QROCKET_DISK_SPACE_FILE, for tests), not measured";
    return diskSpaceFileProbe(file);
}

} // namespace qrocket::storage
