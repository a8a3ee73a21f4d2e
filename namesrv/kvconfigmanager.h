#pragma once

// KvConfigManager: the name server's namespaced key/value store (PUT/GET/DELETE_KV_CONFIG,
// GET_KVLIST_BY_NAMESPACE; protocol.md §3.7), persisted to kvConfig.json as
// `{"configTable":{namespace:{key:value}}}` after every change (tmp -> .bak -> rename; loading
// falls back to the .bak file).
//
// Thread safety: all methods may be called from any thread (one std::shared_mutex). Persisting
// happens under the write lock, so the file always matches a state the table had.
//
// Limits: PUT_KV_CONFIG comes from anyone who reaches the port, so put() takes caps (the name
// server's kvConfigMax* keys): namespaces, entries per namespace, key (and namespace) bytes,
// value bytes, and the bytes of all keys and values. A put over one is refused with
// InvalidArgument naming the key of the limit, and nothing is stored. A file loaded at start is
// taken whole (it was written by this process or an operator).

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>

namespace qrocket::namesrv {

/// Caps on what KvConfigManager::put() stores; 0 = no cap.
struct KvConfigLimits
{
    int maxNamespaces = 0;
    int maxEntries = 0; // per namespace
    int maxKeyBytes = 0; // the namespace's name too
    int maxValueBytes = 0;
    std::int64_t maxTotalBytes = 0; // keys and values of all namespaces
};

class KvConfigManager
{
public:
    using Table = std::map<QByteArray, QByteArray>;
    using Limits = KvConfigLimits;

    /// `path` empty = memory only (nothing is persisted).
    explicit KvConfigManager(QString path = {});

    /// Loads the file (or its .bak). A missing file is not an error; an unreadable one is.
    Status load();

    /// Stores and persists; the returned status is the persist result (the value is kept in
    /// memory either way, as RocketMQ does), or InvalidArgument when a cap of `limits` refuses
    /// the entry (nothing stored).
    Status put(const QByteArray &ns, const QByteArray &key, const QByteArray &value,
        const Limits &limits = {});
    /// Bytes of all keys and values (the maxTotalBytes measure).
    std::int64_t totalBytes() const;
    std::optional<QByteArray> value(const QByteArray &ns, const QByteArray &key) const;
    /// Removes and persists (no-op when absent).
    Status remove(const QByteArray &ns, const QByteArray &key);
    /// The namespace's table, or nullopt when the namespace is absent or empty.
    std::optional<Table> list(const QByteArray &ns) const;

    QString path() const { return m_path; }

    static QByteArray encode(const std::map<QByteArray, Table> &configTable);
    static Result<std::map<QByteArray, Table>> decode(const QByteArray &json);

private:
    Status persistLocked() const;

    const QString m_path;
    mutable std::shared_mutex m_lock;
    std::map<QByteArray, Table> m_configTable; // guarded by m_lock
    std::int64_t m_totalBytes = 0; // guarded by m_lock; keys and values
};

} // namespace qrocket::namesrv
