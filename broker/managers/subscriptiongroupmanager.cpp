#include "broker/managers/subscriptiongroupmanager.h"

#include "broker/common/logging.h"
#include "broker/managers/topicvalidator.h"
#include "storage/core/multidispatch.h"

namespace qrocket::broker {

SubscriptionGroupManager::SubscriptionGroupManager(
    bool autoCreateSubscriptionGroup, QString path, bool lmqEnabled)
    : VersionedConfigManager(std::move(path), "subscription groups", "subscriptionGroupTable")
    , m_autoCreate(autoCreateSubscriptionGroup)
    , m_lmq(lmqEnabled)
{
    for (const char *g : {"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP",
             "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER"})
        seed(g);
}

void SubscriptionGroupManager::seed(const char *group)
{
    protocol::SubscriptionGroupConfig c {QByteArray(group)};
    c.consumeBroadcastEnable = true;
    m_table.insert_or_assign(c.groupName, c);
    touchedLocked(); // the constructor's: nothing else can hold the table yet
}

QString SubscriptionGroupManager::filePath(const QString &storePathRootDir)
{
    return storePathRootDir + QStringLiteral("/config/subscriptionGroup.json");
}

Status SubscriptionGroupManager::replaceFrom(QByteArrayView json)
{
    if (Status st = apply(json, true); !st)
        return st;
    persist();
    return {};
}

std::optional<protocol::SubscriptionGroupConfig> SubscriptionGroupManager::findOrCreate(
    QByteArrayView group)
{
    if (auto c = find(group))
        return c;
    if (m_lmq && storage::isLmqName(group)) // the defaults, never stored
        return protocol::SubscriptionGroupConfig {group.toByteArray()};
    if (!m_autoCreate && !isSystemConsumerGroup(group))
        return std::nullopt;
    if (!topics::validateGroup(group))
        return std::nullopt;
    protocol::SubscriptionGroupConfig created {group.toByteArray()};
    protocol::SubscriptionGroupConfig existing;
    if (!insert(created.groupName, created, false, &existing))
        return existing; // created meanwhile by another thread
    qCInfo(lcBroker).noquote() << "auto-created subscription group" << QString::fromUtf8(group);
    return created;
}

Status SubscriptionGroupManager::checkUpdate(const protocol::SubscriptionGroupConfig &config)
{
    if (Status st = topics::validateGroup(config.groupName); !st)
        return st;
    if (config.retryQueueNums < 0 || config.retryMaxTimes < 0)
        return Status::invalidArgument(QStringLiteral("retryQueueNums/retryMaxTimes must be >= 0"));
    return {};
}

void SubscriptionGroupManager::updateAsync(
    protocol::SubscriptionGroupConfig config, std::function<void(Status)> done)
{
    if (Status st = checkUpdate(config); !st) {
        done(st);
        return;
    }
    if (m_lmq && storage::isLmqName(config.groupName)) {
        done({}); // not stored, as update()
        return;
    }
    const QByteArray name = config.groupName;
    insertAsync(name, std::move(config), true,
        [done = std::move(done)](bool, DataVersion, Status durable) { done(std::move(durable)); });
}

Status SubscriptionGroupManager::update(protocol::SubscriptionGroupConfig config)
{
    if (Status st = checkUpdate(config); !st)
        return st;
    if (m_lmq && storage::isLmqName(config.groupName))
        return {}; // a light-queue group is not stored (RocketMQ 4.9.7 ignores it too)
    const QByteArray name = config.groupName;
    Status durable;
    insert(name, std::move(config), true, nullptr, &durable);
    qCInfo(lcBroker).noquote() << "updated subscription group" << QString::fromUtf8(name);
    return durable;
}

bool SubscriptionGroupManager::remove(QByteArrayView group)
{
    if (!erase(group))
        return false;
    qCInfo(lcBroker).noquote() << "deleted subscription group" << QString::fromUtf8(group);
    return true;
}

} // namespace qrocket::broker
