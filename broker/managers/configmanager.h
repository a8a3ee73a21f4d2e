#pragma once

// ConfigManager: the load/persist half every persisted broker table shares (RocketMQ's
// ConfigManager shape). A manager names its file and says how its table becomes JSON and back;
// this class owns the file handling (ConfigFileStore: tmp -> .bak -> rename, .bak fallback), the
// "missing file is a fresh start" rule, serialised writes, and the log lines.
//
// Also the JSON shape two of them share, {"dataVersion":{...},"<table>":{"<name>":{...}}}
// (topics.json, subscriptionGroup.json): parseVersionedTable() / encodeVersionedTable() for any
// config type with `static Result<T> fromJson(const JsonValue &, const QByteArray &name)` and
// `void writeJson(JsonWriter &) const`.
//
// Thread-safety: load() and persist() may be called from any thread; persist() calls are
// serialised. encode()/decode() must guard the manager's own table.

#include "broker/managers/topicconfig.h"
#include "clientlib/common/result.h"
#include "clientlib/common/status.h"
#include "clientlib/protocol/json.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <map>
#include <mutex>
#include <optional>
#include <string_view>

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

    /// Decodes the file (falling back to .bak). A missing file is a fresh start (OK); a file and
    /// backup that are both unusable is a Corruption error (the broker refuses to start).
    Status load();
    /// Writes encode() to the file now, atomically. Failures are logged and returned.
    Status persist();

    /// The file content (and the body of the matching GET_ALL_* admin request).
    virtual QByteArray encode() const = 0;
    /// Applies `json`; nothing changes when it does not decode.
    virtual Status decode(QByteArrayView json) = 0;

private:
    const QString m_path;
    const char *m_what;
    std::mutex m_persistMutex; // serialises file writes
};

/// A decoded {"dataVersion":..., "<table>":{...}} document.
template<typename Config>
struct VersionedTable
{
    std::map<QByteArray, Config> table;
    std::optional<DataVersion> dataVersion; // absent in old files
};

template<typename Config>
Result<VersionedTable<Config>> parseVersionedTable(QByteArrayView json, const char *tableKey)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const protocol::JsonValue &root = *parsed;
    const protocol::JsonValue &table = root[tableKey];
    if (!root.isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no %1 object").arg(QLatin1String(tableKey)));
    VersionedTable<Config> out;
    for (const auto &[key, value] : table.members()) {
        const QByteArray name = key.toString();
        auto c = Config::fromJson(value, name);
        if (!c)
            return c.error();
        out.table.insert_or_assign(name, std::move(c).value());
    }
    if (root.find("dataVersion"))
        out.dataVersion = DataVersion::fromJson(root["dataVersion"]);
    return out;
}

template<typename Config, typename Less>
QByteArray encodeVersionedTable(const DataVersion &version, const char *tableKey,
    const std::map<QByteArray, Config, Less> &table)
{
    protocol::JsonWriter w;
    w.beginObject();
    w.key("dataVersion");
    version.writeJson(w);
    w.key(tableKey).beginObject();
    for (const auto &[name, c] : table) {
        w.key(name);
        c.writeJson(w);
    }
    w.endObject();
    w.endObject();
    return w.take();
}

} // namespace qrocket::broker
