#pragma once

// Helpers shared by the storage unit tests: a small-file config in a temporary directory, a
// message builder and a partition at a given disk ratio.

#include "clientlib/common/byteorder.h"
#include "storage/messagestore.h"
#include "tests/testlib/vectors.h"

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cmath>

namespace qrocket::storage::test {

inline MessageStoreConfig smallConfig(
    const QString &root, std::int64_t commitLogFileSize = 64 * 1024)
{
    MessageStoreConfig c;
    c.storePathRootDir = root;
    c.mappedFileSizeCommitLog = commitLogFileSize;
    c.mappedFileSizeConsumeQueue = 20 * 100; // 100 units per file
    c.maxHashSlotNum = 64;
    c.maxIndexNum = 256;
    c.maxMessageSize = static_cast<int>(std::min<std::int64_t>(16 * 1024, commitLogFileSize / 2));
    c.deleteCommitLogFilesInterval = 0;
    c.flushIntervalCommitLog = 20;
    c.flushIntervalConsumeQueue = 50;
    return c;
}

inline QByteArray properties(
    const QByteArray &tags, const QByteArray &keys = {}, const QByteArray &uniq = {})
{
    QByteArray p;
    auto add = [&](const char *k, const QByteArray &v) {
        if (v.isEmpty())
            return;
        if (!p.isEmpty())
            p += '\x02';
        p += k;
        p += '\x01';
        p += v;
    };
    add("TAGS", tags);
    add("KEYS", keys);
    add("UNIQ_KEY", uniq);
    return p;
}

inline MessageExtBrokerInner message(const QByteArray &topic, int queueId, const QByteArray &body,
    const QByteArray &tags = {}, const QByteArray &keys = {}, const QByteArray &uniq = {})
{
    MessageExtBrokerInner m;
    m.topic = topic;
    m.queueId = queueId;
    m.body = body;
    m.properties = properties(tags, keys, uniq);
    m.bornTimestamp = 1796013328622;
    m.bornHost = protocol::HostAddress::ipv4(0x7F000001, 60734);
    m.storeHost = protocol::HostAddress::ipv4(0x7F000001, 10911);
    return m;
}

inline bool patchFile(const QString &path, qint64 pos, const QByteArray &bytes)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadWrite) || !f.seek(pos))
        return false;
    return f.write(bytes) == bytes.size();
}

inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// A partition whose `df` Use% (the store's measure, used / (used + available)) is `ratio`,
/// with 5 % of its blocks reserved for root, so that free and available differ.
inline DiskSpace diskSpaceAt(double ratio)
{
    constexpr std::int64_t unit = 1024 * 1024;
    constexpr std::int64_t total = 100000 * unit, reserved = 5000 * unit;
    const std::int64_t used = std::llround(ratio * 95000) * unit;
    DiskSpace d;
    d.total = total;
    d.available = total - reserved - used;
    d.free = d.available + reserved;
    return d;
}

} // namespace qrocket::storage::test
