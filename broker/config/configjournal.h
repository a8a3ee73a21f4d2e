#pragma once

// ConfigJournal: an append-only log of changes to one persisted config table (topics.json,
// subscriptionGroup.json), so that a change costs one small record instead of a rewrite of the
// whole file. The full file is still written, coalesced (ConfigManager::persist()); the journal
// only carries the changes made since.
//
// Files: "<file>.journal.<generation>" beside the config file. A generation is appended to until
// rotate() closes it; the next append opens generation + 1. Once a full file that covers every
// closed generation is durable, removeUpTo() deletes them. Recovery reads the config file, then
// replays every generation on disk in ascending order. Generations of a previous run are never
// appended to, so a torn tail stays at the end of its file and is skipped.
//
// Record: u32 payload length (big endian), u32 CRC-32 of the payload, payload. Replay stops a file
// at the first record whose length or CRC does not hold (a torn write at a crash): every record
// before it is applied, nothing after it.
//
// Durability: append() writes the record with write(2) before it returns (it survives a kill -9);
// sync() makes it durable on disk (fdatasync), as a group commit: one sync covers every record
// written before it started, so concurrent writers share syncs. syncAsync() does not wait: the
// journal's sync thread (started at its first call) syncs once for every record appended until
// then and completes every caller that sync covers, so a burst of changes from requests in flight
// shares one fdatasync per group instead of one (or one per processing thread) each.
//
// Thread-safety: every method may be called from any thread. Callers that need records in the
// order of their changes (two updates of the same name) serialise change + append themselves.

#include "clientlib/common/result.h"
#include "clientlib/common/status.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace qrocket::broker {

class ConfigJournal
{
public:
    /// Largest payload accepted (and believed on replay).
    static constexpr std::uint32_t kMaxPayload = 16 * 1024 * 1024;

    /// `configPath` is the config file the journal belongs to.
    explicit ConfigJournal(QString configPath);
    ~ConfigJournal();
    ConfigJournal(const ConfigJournal &) = delete;
    ConfigJournal &operator=(const ConfigJournal &) = delete;

    /// Applies the records of every generation on disk, oldest first. A torn or corrupt tail ends
    /// its file (logged, not an error); an error of `apply` stops the replay and is returned.
    /// Returns the number of records applied.
    Result<std::int64_t> replay(const std::function<Status(QByteArrayView payload)> &apply);

    /// Writes one record to the current generation (opening it when none is open). Returns the
    /// ticket to pass to sync().
    Result<std::int64_t> append(QByteArrayView payload);
    /// Returns once every record up to `ticket` is on disk (fdatasync, shared between callers).
    Status sync(std::int64_t ticket);
    /// Completion of syncAsync(): the status of the sync that covered the ticket.
    using SyncCallback = std::function<void(Status)>;
    /// Calls `done` once every record up to `ticket` is on disk: at once on this thread when it
    /// is already, else on the journal's sync thread, after one fdatasync that covers every record
    /// appended before it started (callers waiting meanwhile share it). `done` must not block for
    /// long: the next group waits for it. The destructor completes every pending call first.
    void syncAsync(std::int64_t ticket, SyncCallback done);
    /// Returns once every syncAsync() called before has completed (its callback returned).
    void waitForAsync();

    /// Closes the current generation (synced first). Returns the highest generation that is now
    /// closed: every generation up to it may go once a full file written after this call is
    /// durable.
    Result<std::int64_t> rotate();
    /// Deletes the generation files up to and including `generation`.
    void removeUpTo(std::int64_t generation);

    /// Records appended since the last rotate() (or since construction).
    std::int64_t recordsSinceRotate() const;
    /// Bytes of the generation files on disk (tests, status).
    qint64 bytesOnDisk() const;
    /// fdatasyncs made so far by sync(), syncAsync() and rotate() (tests, status).
    std::int64_t syncCount() const { return m_syncs.load(); }

    static QByteArray encodeRecord(QByteArrayView payload);

private:
    /// (generation, path) of each journal file on disk, in ascending generation order.
    std::vector<std::pair<std::int64_t, QString>> files() const;
    Status openNextLocked();
    /// The sync thread: one sync per group of waiters, then their completions.
    void syncLoop();

    const QString m_configPath;
    QString m_dir;
    QString m_prefix; // "<file name>.journal."

    std::mutex m_syncMutex; // one fdatasync at a time; taken before m_mutex
    mutable std::mutex m_mutex;
    int m_fd = -1; // guarded by m_mutex
    std::int64_t m_generation = 0; // the open (or last closed) generation; guarded by m_mutex
    bool m_scanned = false; // m_generation initialised from the files on disk; guarded by m_mutex
    std::int64_t m_written = 0; // bytes appended ever (a ticket); guarded by m_mutex
    std::int64_t m_synced = 0; // tickets up to this are durable; guarded by m_mutex
    std::int64_t m_sinceRotate = 0; // guarded by m_mutex
    std::int64_t m_fileSize = 0; // bytes in the open generation; guarded by m_mutex
    bool m_poisoned = false; // a failed append left a partial record; guarded by m_mutex

    // syncAsync(): waiters for the sync thread. Taken before neither of the mutexes above.
    std::mutex m_waitMutex;
    std::condition_variable m_waitCv;
    std::vector<std::pair<std::int64_t, SyncCallback>> m_waiters; // guarded by m_waitMutex
    bool m_stopping = false; // guarded by m_waitMutex
    bool m_groupRunning = false; // the sync thread holds a group; guarded by m_waitMutex
    std::condition_variable m_idleCv; // no waiter and no group
    std::thread m_syncThread; // started by the first syncAsync() that has to wait
    std::atomic<std::int64_t> m_syncs {0};
};

} // namespace qrocket::broker
