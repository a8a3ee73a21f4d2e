#pragma once

// EpochFile: a broker's ⟨master epoch, start offset⟩ history in controller mode (RocketMQ 5's
// epoch file idea): each elected master appends the epoch it raised and its commit-log end at
// that moment, the offset where that epoch's records begin. A replica that comes back after a
// failover compares its history with the new master's to find the last offset both logs agree
// on (truncationPoint()), and cuts its commit log there before following.
//
// On disk: <storePathRootDir>/epochFile, one "epoch startOffset" line per entry, oldest first,
// replaced atomically (QSaveFile) on every change. Not thread-safe: one owner.

#include "clientlib/common/result.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace qrocket::broker::controller {

struct EpochEntry
{
    std::int64_t epoch = 0;
    std::int64_t startOffset = 0;
    bool operator==(const EpochEntry &) const = default;
};

class EpochFile
{
public:
    explicit EpochFile(QString path) : m_path(std::move(path)) { }
    static QString filePath(const QString &storeRoot);

    /// Reads the file (absent: empty history). Corruption for a malformed line or a history
    /// whose epochs or offsets go backwards.
    Status load();
    /// Records `epoch` starting at `startOffset`: entries with an epoch >= `epoch` or a start
    /// beyond `startOffset` are dropped first (they were never the cluster's), then the file is
    /// rewritten. InvalidArgument for epoch <= 0 or a negative offset.
    Status append(std::int64_t epoch, std::int64_t startOffset);
    /// Drops the entries that start at or after `offset` (after the commit log was truncated
    /// there) and rewrites the file.
    Status truncateFrom(std::int64_t offset);

    /// Replaces the history with `entries` (a follower adopting its master's, once its log is
    /// a prefix of the master's) and rewrites the file.
    Status replace(std::vector<EpochEntry> entries);

    const std::vector<EpochEntry> &entries() const { return m_entries; }
    std::int64_t lastEpoch() const { return m_entries.empty() ? 0 : m_entries.back().epoch; }

    /// Where a replica whose history is `local` and whose commit log ends at `localEnd` must cut
    /// its log to follow a master whose history is `master` and whose log ends at `masterEnd`:
    /// from the newest local epoch backwards, the first epoch both histories hold with the same
    /// start offset; the cut is the smaller of its two ends (an epoch ends where the next one
    /// starts, the newest at the log's end). nullopt when they share no epoch (the replica
    /// cannot follow without losing everything: a person decides). An empty local history
    /// (a fresh replica) shares everything up to its end: min(localEnd, masterEnd).
    static std::optional<std::int64_t> truncationPoint(const std::vector<EpochEntry> &local,
        std::int64_t localEnd, const std::vector<EpochEntry> &master, std::int64_t masterEnd);

private:
    Status save();

    QString m_path;
    std::vector<EpochEntry> m_entries;
};

} // namespace qrocket::broker::controller
