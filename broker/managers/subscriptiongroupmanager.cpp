#include "broker/managers/subscriptiongroupmanager.h"

#include "broker/logging.h"
#include "broker/managers/configfilestore.h"
#include "broker/managers/topicvalidator.h"

namespace qrocket::broker {

using protocol::JsonValue;
using protocol::JsonWriter;

SubscriptionGroupManager::SubscriptionGroupManager(bool autoCreateSubscriptionGroup, QString path)
    : m_path(std::move(path))
    , m_autoCreate(autoCreateSubscriptionGroup)
    , m_dataVersion(DataVersion::now())
{
    for (const char *g : {"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP",
             "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER"})
        seed(g);
}

void SubscriptionGroupManager::seed(const char *group)
{
    SubscriptionGroupConfig c {QByteArray(group)};
    c.consumeBroadcastEnable = true;
    m_table.insert_or_assign(c.groupName, c);
}

QString SubscriptionGroupManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/subscriptionGroup.json");
}

Status SubscriptionGroupManager::load()
{
    const Status st
        = ConfigFileStore::load(m_path, [this](const QByteArray &t) { return decode(t); });
    if (st.code() == Status::Code::NotFound)
        return {};
    return st;
}

Status SubscriptionGroupManager::decode(QByteArrayView json)
{
    return apply(json, false);
}

Status SubscriptionGroupManager::replaceFrom(QByteArrayView json)
{
    if (Status st = apply(json, true); !st)
        return st;
    persist();
    return {};
}

Status SubscriptionGroupManager::apply(QByteArrayView json, bool replace)
{
    auto parsed = protocol::parseJson(json);
    if (!parsed)
        return parsed.error();
    const JsonValue &root = *parsed;
    const JsonValue &table = root["subscriptionGroupTable"];
    if (!root.isObject() || !table.isObject())
        return Status::corruption(QStringLiteral("no subscriptionGroupTable object"));
    std::map<QByteArray, SubscriptionGroupConfig> loaded;
    for (const auto &[key, value] : table.members()) {
        const QByteArray name = key.toString();
        auto c = SubscriptionGroupConfig::fromJson(value, name);
        if (!c)
            return c.error();
        loaded.insert_or_assign(name, std::move(c).value());
    }
    std::unique_lock lock(m_mutex);
    if (replace)
        m_table.clear();
    for (auto &[name, c] : loaded)
        m_table.insert_or_assign(name, std::move(c));
    if (root.find("dataVersion"))
        m_dataVersion = DataVersion::fromJson(root["dataVersion"]);
    return {};
}

QByteArray SubscriptionGroupManager::encode() const
{
    std::shared_lock lock(m_mutex);
    JsonWriter w;
    w.beginObject();
    w.key("dataVersion");
    m_dataVersion.writeJson(w);
    w.key("subscriptionGroupTable").beginObject();
    for (const auto &[name, c] : m_table) {
        w.key(name);
        c.writeJson(w);
    }
    w.endObject();
    w.endObject();
    return w.take();
}

Status SubscriptionGroupManager::persist()
{
    std::lock_guard persistLock(m_persistMutex);
    const Status st = ConfigFileStore::write(m_path, encode());
    if (!st)
        qCWarning(lcBroker).noquote() << "persisting subscription groups failed:" << st.message();
    return st;
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::find(QByteArrayView group) const
{
    std::shared_lock lock(m_mutex);
    auto it = m_table.find(group.toByteArray());
    if (it == m_table.end())
        return std::nullopt;
    return it->second;
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::findOrCreate(QByteArrayView group)
{
    if (auto c = find(group))
        return c;
    if (!m_autoCreate && !isSystemConsumerGroup(group))
        return std::nullopt;
    if (!topics::validateGroup(group))
        return std::nullopt;
    SubscriptionGroupConfig created {group.toByteArray()};
    {
        std::unique_lock lock(m_mutex);
        auto [it, inserted] = m_table.try_emplace(created.groupName, created);
        if (!inserted)
            return it->second;
        m_dataVersion.next();
    }
    qCInfo(lcBroker).noquote() << "auto-created subscription group" << QString::fromUtf8(group);
    persist();
    return created;
}

Status SubscriptionGroupManager::update(SubscriptionGroupConfig config)
{
    if (Status st = topics::validateGroup(config.groupName); !st)
        return st;
    if (config.retryQueueNums < 0 || config.retryMaxTimes < 0)
        return Status::invalidArgument(QStringLiteral("retryQueueNums/retryMaxTimes must be >= 0"));
    const QByteArray name = config.groupName;
    {
        std::unique_lock lock(m_mutex);
        m_table.insert_or_assign(name, std::move(config));
        m_dataVersion.next();
    }
    qCInfo(lcBroker).noquote() << "updated subscription group" << QString::fromUtf8(name);
    persist();
    return {};
}

bool SubscriptionGroupManager::remove(QByteArrayView group)
{
    {
        std::unique_lock lock(m_mutex);
        if (m_table.erase(group.toByteArray()) == 0)
            return false;
        m_dataVersion.next();
    }
    qCInfo(lcBroker).noquote() << "deleted subscription group" << QString::fromUtf8(group);
    persist();
    return true;
}

std::vector<SubscriptionGroupConfig> SubscriptionGroupManager::groups() const
{
    std::shared_lock lock(m_mutex);
    std::vector<SubscriptionGroupConfig> out;
    out.reserve(m_table.size());
    for (const auto &[name, c] : m_table)
        out.push_back(c);
    return out;
}

DataVersion SubscriptionGroupManager::dataVersion() const
{
    std::shared_lock lock(m_mutex);
    return m_dataVersion;
}

} // namespace qrocket::broker
