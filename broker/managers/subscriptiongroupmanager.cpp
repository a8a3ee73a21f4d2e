#include "broker/managers/subscriptiongroupmanager.h"

#include "broker/logging.h"
#include "broker/managers/topicvalidator.h"

namespace qrocket::broker {

SubscriptionGroupManager::SubscriptionGroupManager(bool autoCreateSubscriptionGroup, QString path)
    : ConfigManager(std::move(path), "subscription groups")
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
    auto loaded = parseVersionedTable<SubscriptionGroupConfig>(json, "subscriptionGroupTable");
    if (!loaded)
        return loaded.error();
    std::unique_lock lock(m_mutex);
    if (replace)
        m_table.clear();
    for (auto &[name, c] : loaded->table)
        m_table.insert_or_assign(name, std::move(c));
    if (loaded->dataVersion)
        m_dataVersion = *loaded->dataVersion;
    return {};
}

QByteArray SubscriptionGroupManager::encode() const
{
    std::shared_lock lock(m_mutex);
    return encodeVersionedTable(m_dataVersion, "subscriptionGroupTable", m_table);
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::find(QByteArrayView group) const
{
    std::shared_lock lock(m_mutex);
    auto it = m_table.find(group);
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
