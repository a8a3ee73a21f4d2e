#include "namesrv/kvconfigmanager.h"

#include "clientlib/protocol/json.h"
#include "clientlib/protocol/jsontext.h"
#include "namesrv/filestore.h"
#include "namesrv/logging.h"
#include "namesrv/routedata.h"

namespace qrocket::namesrv {

KvConfigManager::KvConfigManager(QString path) : m_path(std::move(path))
{ }

Status KvConfigManager::load()
{
    if (m_path.isEmpty())
        return {};
    auto data
        = readFileWithBackup(m_path, [](const QByteArray &d) { return decode(d).has_value(); });
    if (!data) {
        if (data.error().code() == Status::Code::NotFound) {
            qCInfo(lcNamesrvKv).noquote() << "no KV config file yet:" << m_path;
            return {};
        }
        return data.error();
    }
    auto table = decode(*data);
    if (!table)
        return table.error();
    std::unique_lock locker(m_lock);
    m_configTable = std::move(*table);
    m_totalBytes = 0;
    for (const auto &[ns, entries] : m_configTable) {
        for (const auto &[key, value] : entries)
            m_totalBytes += key.size() + value.size();
    }
    qCInfo(lcNamesrvKv).noquote() << "loaded" << m_configTable.size() << "KV namespaces from"
                                  << m_path;
    return {};
}

Status KvConfigManager::put(
    const QByteArray &ns, const QByteArray &key, const QByteArray &value, const Limits &limits)
{
    const auto refuse
        = [](const char *limitKey, std::int64_t actual, std::int64_t limit, const char *what) {
              return Status::invalidArgument(
                  QStringLiteral("KV config refused, nothing stored: %1 %2 over %3 (%4)")
                      .arg(QLatin1String(what))
                      .arg(actual)
                      .arg(QLatin1String(limitKey))
                      .arg(limit));
          };
    if (limits.maxKeyBytes > 0 && ns.size() > limits.maxKeyBytes)
        return refuse("kvConfigMaxKeyBytes", ns.size(), limits.maxKeyBytes, "namespace bytes");
    if (limits.maxKeyBytes > 0 && key.size() > limits.maxKeyBytes)
        return refuse("kvConfigMaxKeyBytes", key.size(), limits.maxKeyBytes, "key bytes");
    if (limits.maxValueBytes > 0 && value.size() > limits.maxValueBytes)
        return refuse("kvConfigMaxValueBytes", value.size(), limits.maxValueBytes, "value bytes");
    std::unique_lock locker(m_lock);
    const auto table = m_configTable.find(ns);
    const Table::const_iterator old
        = table != m_configTable.end() ? table->second.find(key) : Table::const_iterator();
    const bool exists = table != m_configTable.end() && old != table->second.end();
    if (table == m_configTable.end() && limits.maxNamespaces > 0
        && static_cast<std::int64_t>(m_configTable.size()) >= limits.maxNamespaces) {
        return refuse("kvConfigMaxNamespaces", static_cast<std::int64_t>(m_configTable.size()) + 1,
            limits.maxNamespaces, "namespaces");
    }
    if (!exists && table != m_configTable.end() && limits.maxEntries > 0
        && static_cast<std::int64_t>(table->second.size()) >= limits.maxEntries) {
        return refuse("kvConfigMaxEntries", static_cast<std::int64_t>(table->second.size()) + 1,
            limits.maxEntries, "entries in the namespace");
    }
    const std::int64_t after = m_totalBytes + value.size()
        - (exists ? old->second.size() : -static_cast<std::int64_t>(key.size()));
    if (limits.maxTotalBytes > 0 && after > limits.maxTotalBytes && after > m_totalBytes)
        return refuse(
            "kvConfigMaxTotalBytes", after, limits.maxTotalBytes, "bytes of all keys and values");
    m_totalBytes = after;
    const auto [it, inserted] = m_configTable[ns].insert_or_assign(key, value);
    Q_UNUSED(it);
    qCInfo(lcNamesrvKv).noquote() << (inserted ? "put new KV config:" : "replaced KV config:") << ns
                                  << key << value;
    return persistLocked();
}

std::optional<QByteArray> KvConfigManager::value(const QByteArray &ns, const QByteArray &key) const
{
    std::shared_lock locker(m_lock);
    const auto t = m_configTable.find(ns);
    if (t == m_configTable.end())
        return std::nullopt;
    const auto v = t->second.find(key);
    if (v == t->second.end())
        return std::nullopt;
    return v->second;
}

Status KvConfigManager::remove(const QByteArray &ns, const QByteArray &key)
{
    std::unique_lock locker(m_lock);
    const auto t = m_configTable.find(ns);
    if (t == m_configTable.end())
        return {};
    const auto entry = t->second.find(key);
    if (entry == t->second.end())
        return {};
    m_totalBytes -= entry->first.size() + entry->second.size();
    t->second.erase(entry);
    if (t->second.empty())
        m_configTable.erase(t);
    qCInfo(lcNamesrvKv).noquote() << "deleted KV config:" << ns << key;
    return persistLocked();
}

std::int64_t KvConfigManager::totalBytes() const
{
    std::shared_lock locker(m_lock);
    return m_totalBytes;
}

std::optional<KvConfigManager::Table> KvConfigManager::list(const QByteArray &ns) const
{
    std::shared_lock locker(m_lock);
    const auto t = m_configTable.find(ns);
    if (t == m_configTable.end() || t->second.empty())
        return std::nullopt;
    return t->second;
}

Status KvConfigManager::persistLocked() const
{
    if (m_path.isEmpty())
        return {};
    Status st = writeFileAtomically(m_path, encode(m_configTable));
    if (!st.isOk())
        qCWarning(lcNamesrvKv).noquote() << "persisting KV config failed:" << st.toString();
    return st;
}

QByteArray KvConfigManager::encode(const std::map<QByteArray, Table> &configTable)
{
    QByteArray out = "{\"configTable\":{";
    bool first = true;
    for (const auto &[ns, table] : configTable) {
        if (!first)
            out += ',';
        first = false;
        protocol::jsontext::appendQuoted(out, ns);
        out += ":{";
        bool firstKey = true;
        for (const auto &[k, v] : table) {
            if (!firstKey)
                out += ',';
            firstKey = false;
            protocol::jsontext::appendQuoted(out, k);
            out += ':';
            protocol::jsontext::appendQuoted(out, v);
        }
        out += '}';
    }
    out += "}}";
    return out;
}

Result<std::map<QByteArray, KvConfigManager::Table>> KvConfigManager::decode(const QByteArray &json)
{
    const Result<protocol::JsonValue> doc = protocol::parseJson(json);
    if (!doc || !doc->isObject())
        return Status::corruption(
            QStringLiteral("KV config is not a JSON object%1")
                .arg(doc ? QString() : QStringLiteral(": ") + doc.error().message()));
    std::map<QByteArray, Table> out;
    const protocol::JsonValue &tables = (*doc)["configTable"];
    if (!tables.isObject())
        return out;
    for (const auto &[ns, kv] : tables.members()) {
        Table &t = out[ns.toString()];
        if (!kv.isObject())
            continue;
        for (const auto &[k, v] : kv.members())
            t[k.toString()] = v.toString();
    }
    return out;
}

} // namespace qrocket::namesrv
