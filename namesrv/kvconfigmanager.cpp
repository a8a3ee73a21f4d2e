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
    qCInfo(lcNamesrvKv).noquote() << "loaded" << m_configTable.size() << "KV namespaces from"
                                  << m_path;
    return {};
}

Status KvConfigManager::put(const QByteArray &ns, const QByteArray &key, const QByteArray &value)
{
    std::unique_lock locker(m_lock);
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
    if (t == m_configTable.end() || t->second.erase(key) == 0)
        return {};
    if (t->second.empty())
        m_configTable.erase(t);
    qCInfo(lcNamesrvKv).noquote() << "deleted KV config:" << ns << key;
    return persistLocked();
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
