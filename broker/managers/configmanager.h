#pragma once

// ConfigManager: the load/persist half every persisted broker table shares (RocketMQ's
// ConfigManager shape). A manager names its file and says how its table becomes JSON and back;
// this class owns the file handling (ConfigFileStore: tmp -> .bak -> rename, .bak fallback), the
// "missing file is a fresh start" rule, serialised writes, and the log lines.
//
// VersionedConfigManager<Config>: a ConfigManager whose table is a name -> Config map with a
// DataVersion, stored as {"dataVersion":{...},"<tableKey>":{"<name>":{...}}} (topics.json,
// subscriptionGroup.json). It owns the table, its version and the shared mutex guarding both, the
// JSON both ways, the lookups, and the insert/erase that bump the version. preparedBody() is the
// encoded table kept between changes (the GET_ALL_* answers): a generation counter that every
// change moves (touchedLocked()) and the DataVersion say when it must be encoded again. Config
// needs `static Result<Config> fromJsonValue(const JsonValue &, QByteArrayView name)` and `void
// write(JsonWriter &) const` (the protocol bodies' names).
//
// And the offset files' shape, {"offsetTable":{...}} with int-keyed offset maps {"0":15}
// (consumerOffset.json per topic@group, delayOffset.json per level): decodeOffsetTable(),
// decodeIntOffsets(), writeIntOffsets().
//
// The journal (ConfigJournal, enabled by VersionedConfigManager): a change is appended to
// "<file>.journal.<n>" and synced before the change returns (commitChange()), or before its
// completion runs (commitChangeAsync(): changes in flight together share one sync), so it costs
// one small record, not a rewrite of the table; the full file is rewritten coalesced: when the
// journal holds compactThreshold() records (max(4096, table size at the last full write): amortised
// O(1) per change), on flushJournal() (the controller's timer) and at the first change when no file
// exists yet.
// persist() closes the journal's generation first and deletes the closed generations once the
// new file is on disk. load() reads the file (or its .bak), then replays the journal.
//
// Thread-safety: load() and persist() may be called from any thread; persist() calls are
// serialised. encode()/decode() must guard the manager's own table. VersionedConfigManager's
// methods may be called from any thread; a subclass holds m_mutex to touch m_table/m_dataVersion.

#include "broker/config/configjournal.h"
#include "broker/config/topicconfig.h"
#include "clientlib/common/result.h"
#include "clientlib/common/status.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string_view>
#include <vector>

namespace qrocket::broker {

/// Byte-wise order (QByteArray's) that also compares with views, so that a lookup by
/// QByteArrayView needs no temporary QByteArray (the send and pull paths look topics up per
/// request).
struct ByteArrayLess
{
    using is_transparent = void;
    bool operator()(QByteArrayView a, QByteArrayView b) const
    {
        return std::string_view(a.data(), static_cast<std::size_t>(a.size()))
            < std::string_view(b.data(), static_cast<std::size_t>(b.size()));
    }
};

class ConfigManager
{
public:
    /// `what` names the table in log lines ("topics", "consumer offsets", ...).
    ConfigManager(QString path, const char *what);
    virtual ~ConfigManager();
    ConfigManager(const ConfigManager &) = delete;
    ConfigManager &operator=(const ConfigManager &) = delete;

    const QString &path() const { return m_path; }

    /// Decodes the file (falling back to .bak), then replays the journal when there is one. A
    /// missing file is a fresh start (OK); a file and backup that are both unusable, or a journal
    /// record that does not apply, is a Corruption error (the broker refuses to start).
    Status load();
    /// Writes encode() to the file now, atomically (and retires the journal's generations it
    /// covers). Failures are logged and returned.
    Status persist();
    /// The coalesced rewrite: persist() when the journal holds changes the file lacks; nothing
    /// otherwise. Call periodically.
    Status flushJournal();
    bool isJournaled() const { return m_journal != nullptr; }
    /// The journal's bytes on disk (0 without one).
    qint64 journalBytes() const { return m_journal ? m_journal->bytesOnDisk() : 0; }

    /// The file content (and the body of the matching GET_ALL_* admin request).
    virtual QByteArray encode() const = 0;
    /// Applies `json`; nothing changes when it does not decode.
    virtual Status decode(QByteArrayView json) = 0;

protected:
    /// Turns the journal on (from a subclass's constructor); changes then go through
    /// commitChange() and records come back through applyJournalRecord().
    void enableJournal();
    /// Replays one record written by a commitChange() of an earlier run.
    virtual Status applyJournalRecord(QByteArrayView payload);
    /// Journal records after which the full file is rewritten, evaluated at each full write
    /// (the table's size then: the rewrite costs O(table) once per O(table) changes).
    virtual std::int64_t compactThreshold() const { return 4096; }
    /// Runs `change`, which applies a change to the table and returns its journal record (empty:
    /// nothing changed), in journal order (changes and records in the same order); then makes the
    /// record durable before returning, and rewrites the file when due. Without a journal, or
    /// when the record cannot be appended, the file is rewritten instead. The returned status is
    /// that of making the change durable; the change is in the table either way.
    Status commitChange(const std::function<QByteArray()> &change);
    /// Completion of commitChangeAsync(): the status of making the change durable.
    using CommitCallback = std::function<void(Status)>;
    /// commitChange() without waiting for the disk: the change is in the table and its record
    /// written (it survives a kill -9) when this returns; `done` runs once the record is durable:
    /// at once on this thread when no sync is needed (no change, no journal, the first change),
    /// else on the journal's sync thread after one fdatasync shared with every change committed
    /// meanwhile (the group commit a pipelined burst of requests needs). `done` must not block.
    void commitChangeAsync(const std::function<QByteArray()> &change, CommitCallback done);
    /// Waits until every commitChangeAsync() completion has run. The most derived class calls it
    /// in its destructor when its completions use its members.
    void waitForCommits();

private:
    /// persist() with m_persistMutex held.
    Status persistLocked();
    /// The first change's full write: persist() unless the file was written meanwhile (changes
    /// in flight together all find no file); nullopt then, and the journal's sync makes the
    /// change durable (the file or a journal generation holds its record).
    std::optional<Status> persistFirst();
    /// commitChange()'s first half: runs `change` and appends its record. Returns the journal
    /// ticket to sync, or nothing when the change is complete already (`done`: nothing changed,
    /// no journal or a failed append and the whole file written, or the first file written).
    std::optional<std::int64_t> appendChange(
        const std::function<QByteArray()> &change, Status &done);
    /// A sync of the journal failed: the whole file is written instead (its status).
    Status persistAfterFailedSync(const Status &failed);
    /// Rewrites the whole file once the journal holds compactThreshold() records.
    void compactIfDue();

    const QString m_path;
    const char *m_what;
    std::mutex m_persistMutex; // serialises file writes
    std::unique_ptr<ConfigJournal> m_journal;
    std::mutex m_orderMutex; // a change and its journal append, in one order
    std::atomic<bool> m_fileWritten {false}; // the file exists (loaded or written)
    std::atomic<bool> m_flushPending {false}; // load() replayed journal files the file lacks
    std::atomic<std::int64_t> m_compactAfter {4096}; // compactThreshold() at the last full write
};

/// An int-keyed offset map: queue id -> offset, or delay level -> offset.
using IntOffsets = std::map<int, std::int64_t>;

/// Parses {"offsetTable":{...}} and gives the table object to `read`; Corruption when there is
/// none, else what `read` returns.
Status decodeOffsetTable(
    QByteArrayView json, const std::function<Status(const protocol::JsonValue &table)> &read);
/// Reads {"<int>":<number>,...} (also fastjson's unquoted {0:15}) into `out`. Corruption, naming
/// `where`, when it is not an object, a key is not an int >= `minKey` or a value not a number.
Status decodeIntOffsets(
    const protocol::JsonValue &object, IntOffsets &out, int minKey, const QString &where);
/// Writes {"<int>":<offset>,...}.
void writeIntOffsets(protocol::JsonWriter &w, const IntOffsets &offsets);

template<typename Config>
class VersionedConfigManager : public ConfigManager
{
public:
    /// `tableKey` names the table's member in the JSON ("topicConfigTable", ...).
    VersionedConfigManager(QString path, const char *what, const char *tableKey)
        : ConfigManager(std::move(path), what)
        , m_dataVersion(DataVersion::now())
        , m_tableKey(tableKey)
    {
        enableJournal();
    }
    /// Writes the full file when the journal holds changes it lacks.
    ~VersionedConfigManager() override
    {
        waitForCommits();
        flushJournal();
    }

    /// {"dataVersion":{...},"<tableKey>":{...}}: the file content and the GET_ALL_* body,
    /// encoded now.
    QByteArray encode() const override
    {
        std::shared_lock lock(m_mutex);
        return encodeLocked();
    }
    /// encode() as of now, kept from the last call until the table changes: the GET_ALL_* answer
    /// costs a copy of the bytes, not an encode of the table, while nothing changes (the first
    /// call after a change encodes; concurrent callers then wait for that one encode).
    QByteArray preparedBody() const
    {
        std::shared_lock lock(m_mutex);
        std::lock_guard cache(m_bodyMutex);
        if (!m_body.valid || m_body.generation != m_generation
            || !(m_body.dataVersion == m_dataVersion)) {
            m_body.bytes = encodeLocked();
            m_body.generation = m_generation;
            m_body.dataVersion = m_dataVersion;
            m_body.valid = true;
        }
        return m_body.bytes;
    }
    /// Lays the table in `json` over the current one (entries with the same name are replaced)
    /// and takes its DataVersion. Nothing changes when the text does not decode.
    Status decode(QByteArrayView json) override { return apply(json, false); }

    std::optional<Config> find(QByteArrayView name) const
    {
        std::shared_lock lock(m_mutex);
        auto it = m_table.find(name);
        if (it == m_table.end())
            return std::nullopt;
        return it->second;
    }
    /// Whether `name` exists, without copying its entry (the send path asks on every request).
    bool contains(QByteArrayView name) const
    {
        std::shared_lock lock(m_mutex);
        return m_table.find(name) != m_table.end();
    }
    /// Every entry, in name order.
    std::vector<Config> configs() const
    {
        std::shared_lock lock(m_mutex);
        std::vector<Config> out;
        out.reserve(m_table.size());
        for (const auto &[name, c] : m_table)
            out.push_back(c);
        return out;
    }
    DataVersion dataVersion() const
    {
        std::shared_lock lock(m_mutex);
        return m_dataVersion;
    }

protected:
    /// decode() (`replace` false), or the slave sync's whole-table replacement (true): the
    /// entries and the DataVersion of `json`. Nothing changes when it does not decode.
    Status apply(QByteArrayView json, bool replace)
    {
        auto parsed = protocol::parseJson(json);
        if (!parsed)
            return parsed.error();
        const protocol::JsonValue &root = *parsed;
        const protocol::JsonValue &table = root[m_tableKey];
        if (!root.isObject() || !table.isObject())
            return Status::corruption(
                QStringLiteral("no %1 object").arg(QLatin1String(m_tableKey)));
        std::map<QByteArray, Config> loaded;
        for (const auto &[key, value] : table.members()) {
            const QByteArray name = key.toString();
            auto c = Config::fromJsonValue(value, name);
            if (!c)
                return c.error();
            loaded.insert_or_assign(name, std::move(c).value());
        }
        std::unique_lock lock(m_mutex);
        if (replace)
            m_table.clear();
        for (auto &[name, c] : loaded)
            m_table.insert_or_assign(name, std::move(c));
        touchedLocked();
        if (auto version = DataVersion::fromJsonValue(root["dataVersion"])) // absent in old files
            m_dataVersion = *version;
        return {};
    }
    /// Stores `c` as `name`, bumps the DataVersion and journals the change (durable when this
    /// returns; *status, if given, says whether it could be made so). When `name` exists and
    /// `replace` is false nothing changes, *existing (if given) receives the stored entry and the
    /// result is false.
    /// *version, if given, receives the DataVersion this change gave the table.
    bool insert(const QByteArray &name, Config c, bool replace, Config *existing = nullptr,
        Status *status = nullptr, DataVersion *version = nullptr)
    {
        bool inserted = false;
        const Status st = commitChange([&]() -> QByteArray {
            std::unique_lock lock(m_mutex);
            auto it = m_table.find(name);
            if (it != m_table.end() && !replace) {
                if (existing)
                    *existing = it->second;
                return {};
            }
            m_dataVersion.next();
            if (version)
                *version = m_dataVersion;
            QByteArray record = journalRecord(name, &c);
            m_table.insert_or_assign(name, std::move(c));
            touchedLocked();
            inserted = true;
            return record;
        });
        if (status)
            *status = st;
        return inserted;
    }
    /// Completion of insertAsync(): whether `name` was stored, the DataVersion the change gave
    /// the table, and the status of making it durable.
    using InsertCallback = std::function<void(bool inserted, DataVersion version, Status durable)>;
    /// insert() that does not wait for the disk (commitChangeAsync()): `c` is in the table when
    /// this returns; `done` runs once it is durable (at once when nothing changed).
    void insertAsync(const QByteArray &name, Config c, bool replace, InsertCallback done)
    {
        struct Outcome
        {
            bool inserted = false;
            DataVersion version;
        };
        // Read by the completion, which may run on the journal's sync thread after this returns.
        auto outcome = std::make_shared<Outcome>();
        auto change = [&]() -> QByteArray {
            std::unique_lock lock(m_mutex);
            auto it = m_table.find(name);
            if (it != m_table.end() && !replace)
                return {};
            m_dataVersion.next();
            outcome->version = m_dataVersion;
            QByteArray record = journalRecord(name, &c);
            m_table.insert_or_assign(name, std::move(c));
            touchedLocked();
            outcome->inserted = true;
            return record;
        };
        commitChangeAsync(change, [outcome, done = std::move(done)](Status st) {
            done(outcome->inserted, outcome->version, std::move(st));
        });
    }
    /// Removes `name`, bumps the DataVersion and journals the change; false (no change) when it
    /// did not exist.
    bool erase(QByteArrayView name, Status *status = nullptr, DataVersion *version = nullptr)
    {
        bool erased = false;
        const Status st = commitChange([&]() -> QByteArray {
            std::unique_lock lock(m_mutex);
            auto it = m_table.find(name);
            if (it == m_table.end())
                return {};
            m_dataVersion.next();
            if (version)
                *version = m_dataVersion;
            QByteArray record = journalRecord(it->first, nullptr);
            m_table.erase(it);
            touchedLocked();
            erased = true;
            return record;
        });
        if (status)
            *status = st;
        return erased;
    }

    /// encode() with m_mutex held (shared or unique).
    QByteArray encodeLocked() const
    {
        protocol::JsonWriter w;
        w.beginObject();
        w.key("dataVersion");
        m_dataVersion.write(w);
        w.key(m_tableKey).beginObject();
        for (const auto &[name, c] : m_table) {
            w.key(name);
            c.write(w);
        }
        w.endObject();
        w.endObject();
        return w.take();
    }
    /// A subclass that changes m_table (or m_dataVersion) calls this with m_mutex held for
    /// writing, so that preparedBody() encodes again (a DataVersion change alone is noticed too).
    void touchedLocked() { ++m_generation; }

    /// {"op":"put"|"delete","name":...,"dataVersion":{...},"config":{...}}, with the DataVersion
    /// after the change (m_mutex held).
    QByteArray journalRecord(QByteArrayView name, const Config *c) const
    {
        protocol::JsonWriter w;
        w.beginObject().key("op").value(c ? "put" : "delete").key("name").value(name);
        w.key("dataVersion");
        m_dataVersion.write(w);
        if (c) {
            w.key("config");
            c->write(w);
        }
        w.endObject();
        return w.take();
    }
    Status applyJournalRecord(QByteArrayView payload) override
    {
        auto parsed = protocol::parseJson(payload);
        if (!parsed)
            return parsed.error();
        const protocol::JsonValue &root = *parsed;
        const QByteArray op = root["op"].toString();
        const QByteArray name = root["name"].toString();
        auto version = DataVersion::fromJsonValue(root["dataVersion"]);
        if (name.isEmpty() || !version || (op != "put" && op != "delete"))
            return Status::corruption(QStringLiteral("not a journal record"));
        std::optional<Config> c;
        if (op == "put") {
            auto decoded = Config::fromJsonValue(root["config"], name);
            if (!decoded)
                return decoded.error();
            c = std::move(decoded).value();
        }
        std::unique_lock lock(m_mutex);
        if (c)
            m_table.insert_or_assign(name, std::move(*c));
        else
            m_table.erase(name);
        m_dataVersion = *version;
        touchedLocked();
        return {};
    }
    std::int64_t compactThreshold() const override
    {
        std::shared_lock lock(m_mutex);
        return std::max<std::int64_t>(4096, static_cast<std::int64_t>(m_table.size()));
    }

    mutable std::shared_mutex m_mutex;
    std::map<QByteArray, Config, ByteArrayLess> m_table; // guarded by m_mutex
    DataVersion m_dataVersion; // guarded by m_mutex
    std::uint64_t m_generation = 0; // guarded by m_mutex; see touchedLocked()

private:
    /// preparedBody()'s bytes and what they were encoded from.
    struct PreparedBody
    {
        QByteArray bytes;
        std::uint64_t generation = 0;
        DataVersion dataVersion;
        bool valid = false;
    };

    const char *m_tableKey;
    // Taken with m_mutex held (shared), never the other way round.
    mutable std::mutex m_bodyMutex;
    mutable PreparedBody m_body; // guarded by m_bodyMutex
};

} // namespace qrocket::broker
