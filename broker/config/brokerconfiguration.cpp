#include "broker/config/brokerconfiguration.h"

#include "broker/common/logging.h"
#include "broker/config/brokerconfig.h"
#include "broker/config/configfilestore.h"
#include "clientlib/common/configkeys.h"

#include <QFileInfo>
#include <QSet>

namespace qrocket::broker {

namespace {

bool isScalar(const QString &value)
{
    bool numeric = false;
    value.toLongLong(&numeric);
    return numeric || value == QLatin1String("true") || value == QLatin1String("false");
}

QSet<QString> blackList(const QString &configured)
{
    QSet<QString> keys {QStringLiteral("brokerConfigPath"), QStringLiteral("rocketmqHome"),
        QStringLiteral("configBlackList")};
    for (const QString &k : configured.split(u';', Qt::SkipEmptyParts))
        keys.insert(k.trimmed());
    return keys;
}

// The broker's identity keys that no name-shape rule of remoteConfigRefusal() covers.
const QStringList &brokerIdentityKeys()
{
    static const QStringList keys {QStringLiteral("brokerId"), QStringLiteral("brokerName"),
        QStringLiteral("brokerClusterName"), QStringLiteral("brokerIP1"),
        QStringLiteral("brokerIP2")};
    return keys;
}

} // namespace

BrokerConfiguration::BrokerConfiguration(
    BrokerConfig &config, storage::MessageStoreConfig storeConfig, QString filePath)
    : m_config(config)
    , m_filePath(std::move(filePath))
    , m_storeConfig(std::move(storeConfig))
    , m_version(DataVersion::now())
{
    if (m_filePath.isEmpty() || !QFileInfo::exists(m_filePath))
        return;
    Result<Properties> props = loadPropertiesFile(m_filePath);
    if (!props) {
        qCWarning(lcBrokerConfig).noquote()
            << "cannot read" << m_filePath << props.error().message();
        return;
    }
    ConfigSchema brokerKeys = m_config.schema();
    ConfigSchema storeKeys;
    m_storeConfig.bind(storeKeys);
    QSet<QString> seen;
    for (const PropertyEntry &e : std::as_const(*props)) {
        if (brokerKeys.contains(e.key) || storeKeys.contains(e.key) || seen.contains(e.key))
            continue;
        seen.insert(e.key);
        m_fileExtras.append({e.key, e.value});
    }
}

QList<std::pair<QString, QString>> BrokerConfiguration::entriesLocked(bool forFile) const
{
    QList<std::pair<QString, QString>> out = m_config.schema().entries();
    QSet<QString> keys;
    for (auto &[key, value] : out) {
        keys.insert(key);
        if (auto it = m_pending.constFind(key); it != m_pending.constEnd())
            value = *it;
    }
    storage::MessageStoreConfig store = m_storeConfig;
    ConfigSchema storeKeys;
    store.bind(storeKeys);
    for (const auto &entry : storeKeys.entries()) {
        if (!keys.contains(entry.first)) {
            keys.insert(entry.first);
            out.append(entry);
        }
    }
    if (forFile) {
        for (const auto &entry : m_fileExtras) {
            if (!keys.contains(entry.first))
                out.append(entry);
        }
    } else {
        out.removeIf([](const auto &entry) { return isSecretConfigKey(entry.first); });
    }
    return out;
}

QByteArray BrokerConfiguration::text() const
{
    std::lock_guard lock(m_mutex);
    return formatProperties(entriesLocked(false));
}

DataVersion BrokerConfiguration::dataVersion() const
{
    std::lock_guard lock(m_mutex);
    return m_version;
}

Result<BrokerConfiguration::Update> BrokerConfiguration::update(const Properties &props)
{
    std::lock_guard lock(m_mutex);
    const QSet<QString> refused = blackList(m_config.configBlackList);
    for (const PropertyEntry &e : props) {
        const QString why = remoteConfigRefusal(e.key, brokerIdentityKeys());
        if (!why.isEmpty() || refused.contains(e.key))
            return Status::notSupported(blackListRemark(e.key, why));
    }

    // Check the whole update on copies first: nothing changes unless all of it is acceptable
    // now and at the next start.
    BrokerConfig brokerCopy = m_config;
    ConfigSchema brokerCopyKeys = brokerCopy.schema();
    for (auto it = m_pending.constBegin(); it != m_pending.constEnd(); ++it)
        static_cast<void>(brokerCopyKeys.set(it.key(), it.value()));
    storage::MessageStoreConfig storeCopy = m_storeConfig;
    ConfigSchema storeCopyKeys;
    storeCopy.bind(storeCopyKeys);
    Update result;
    for (const PropertyEntry &e : props) {
        const bool brokerKey = brokerCopyKeys.contains(e.key);
        const bool storeKey = storeCopyKeys.contains(e.key);
        if (!brokerKey && !storeKey) {
            // Keys of the file that the broker does not know stay as the operator wrote them.
            result.ignored.append(e.key);
            continue;
        }
        if (brokerKey)
            if (Status s = brokerCopyKeys.set(e.key, e.value); !s)
                return s;
        if (storeKey)
            if (Status s = storeCopyKeys.set(e.key, e.value); !s)
                return s;
    }
    // The shared keys (storePathRootDir, brokerRole, messageDelayLevel) follow the store's.
    brokerCopy.setSharedStoreKeys(
        storeCopy.storePathRootDir, storeCopy.brokerRole, storeCopy.messageDelayLevel);
    if (Status s = brokerCopy.validate(); !s)
        return s;
    if (Status s = storeCopy.validate(); !s)
        return s;

    // Apply: numeric and boolean BrokerConfig keys now, the rest at the next start.
    ConfigSchema live = m_config.schema();
    for (const PropertyEntry &e : props) {
        if (result.ignored.contains(e.key))
            continue;
        const QString current = live.value(e.key);
        if (!current.isNull() && isScalar(current) && !BrokerConfig::isSharedStoreKey(e.key)) {
            static_cast<void>(live.set(e.key, e.value));
            m_pending.remove(e.key);
            result.appliedNow.append(e.key);
            continue;
        }
        if (!current.isNull())
            m_pending.insert(e.key, e.value);
        result.atNextStart.append(e.key);
    }
    m_storeConfig = storeCopy;
    m_version.next();

    // RocketMQ only logs a failed persist; the update stands.
    if (!m_filePath.isEmpty())
        if (Status s = ConfigFileStore::write(m_filePath, formatProperties(entriesLocked(true)));
            !s)
            qCWarning(lcBrokerConfig).noquote() << "persist broker config:" << s.message();
    return result;
}

} // namespace qrocket::broker
