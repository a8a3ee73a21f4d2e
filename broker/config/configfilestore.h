#pragma once

// ConfigFileStore: reading and writing RocketMQ's persisted config files (protocol.md §7.6:
// topics.json, consumerOffset.json, subscriptionGroup.json, delayOffset.json).
//
// write(): the new text goes to "<file>.tmp" (flushed to disk), the current file is copied to
// "<file>.bak", then "<file>.tmp" is renamed over "<file>" (atomic on POSIX), so a crash at any
// point leaves either the old or the new content readable in "<file>" or "<file>.bak".
// load(): decodes "<file>"; when it is missing, empty or does not decode, falls back to
// "<file>.bak". Both missing is a fresh start (NotFound); both unusable is an error.
//
// Stateless and thread-safe; callers serialise writes of the same file (each manager persists
// under its own lock or from one thread).

#include "clientlib/common/result.h"
#include "clientlib/common/status.h"

#include <QByteArray>
#include <QString>

#include <functional>

namespace qrocket::broker {

class ConfigFileStore
{
public:
    /// Atomically replaces `path` with `content` as described above.
    static Status write(const QString &path, const QByteArray &content);

    /// Reads a whole file; NotFound when it does not exist, IoError when it cannot be read.
    static Result<QByteArray> readFile(const QString &path);

    /// Decodes `path`, else `path.bak`. `decode` returns OK when it accepted the text (and then
    /// has applied it). Returns OK when either file decoded (a fallback is logged), NotFound when
    /// neither file exists (or both are empty), else Corruption naming both failures.
    static Status load(
        const QString &path, const std::function<Status(const QByteArray &)> &decode);

    static QString backupPath(const QString &path) { return path + QStringLiteral(".bak"); }
    static QString tempPath(const QString &path) { return path + QStringLiteral(".tmp"); }
};

} // namespace qrocket::broker
