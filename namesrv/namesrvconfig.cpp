#include "namesrv/namesrvconfig.h"

#include "clientlib/common/configkeys.h"
#include "namesrv/filestore.h"

#include <QDir>
#include <QFileInfo>
#include <QHostAddress>

#include <algorithm>

namespace qrocket::namesrv {

NamesrvConfig::NamesrvConfig()
    : rocketmqHome(qEnvironmentVariable("ROCKETMQ_HOME"))
    , kvConfigPath(QDir::homePath() + QStringLiteral("/namesrv/kvConfig.json"))
    , configStorePath(QDir::homePath() + QStringLiteral("/namesrv/namesrv.properties"))
{
    bind();
}

NamesrvConfig::NamesrvConfig(const NamesrvConfig &other)
{
    *this = other;
}

NamesrvConfig &NamesrvConfig::operator=(const NamesrvConfig &other)
{
    if (this == &other)
        return *this;
    rocketmqHome = other.rocketmqHome;
    kvConfigPath = other.kvConfigPath;
    configStorePath = other.configStorePath;
    productEnvName = other.productEnvName;
    clusterTest = other.clusterTest;
    orderMessageEnable = other.orderMessageEnable;
    configBlackList = other.configBlackList;
    scanNotActiveBrokerDelay = other.scanNotActiveBrokerDelay;
    scanNotActiveBrokerInterval = other.scanNotActiveBrokerInterval;
    brokerChannelExpiredTime = other.brokerChannelExpiredTime;
    deleteTopicWithBrokerRegistration = other.deleteTopicWithBrokerRegistration;
    aclEnable = other.aclEnable;
    aclFilePath = other.aclFilePath;
    listenAddress = other.listenAddress;
    listenPort = other.listenPort;
    serverSelectorThreads = other.serverSelectorThreads;
    serverChannelMaxIdleTimeSeconds = other.serverChannelMaxIdleTimeSeconds;
    serverFrameTimeoutMillis = other.serverFrameTimeoutMillis;
    serverMaxConnections = other.serverMaxConnections;
    serverMaxConnectionsPerAddress = other.serverMaxConnectionsPerAddress;
    serverMaxPendingInputBytes = other.serverMaxPendingInputBytes;
    serverMaxUnsentBytes = other.serverMaxUnsentBytes;
    serverMaxInflightRequestsPerConnection = other.serverMaxInflightRequestsPerConnection;
    kvConfigMaxNamespaces = other.kvConfigMaxNamespaces;
    kvConfigMaxEntries = other.kvConfigMaxEntries;
    kvConfigMaxKeyBytes = other.kvConfigMaxKeyBytes;
    kvConfigMaxValueBytes = other.kvConfigMaxValueBytes;
    kvConfigMaxTotalBytes = other.kvConfigMaxTotalBytes;
    tls = other.tls;
    metrics = other.metrics;
    m_schema = ConfigSchema();
    bind();
    return *this;
}

void NamesrvConfig::bind()
{
    m_schema.add("rocketmqHome", &rocketmqHome);
    m_schema.add("kvConfigPath", &kvConfigPath, true);
    m_schema.add("configStorePath", &configStorePath);
    m_schema.add("productEnvName", &productEnvName);
    m_schema.add("clusterTest", &clusterTest);
    m_schema.add("orderMessageEnable", &orderMessageEnable, true);
    m_schema.add("configBlackList", &configBlackList);
    m_schema.add("scanNotActiveBrokerDelay", &scanNotActiveBrokerDelay);
    m_schema.add("scanNotActiveBrokerInterval", &scanNotActiveBrokerInterval, true);
    m_schema.add("brokerChannelExpiredTime", &brokerChannelExpiredTime, true);
    m_schema.add("deleteTopicWithBrokerRegistration", &deleteTopicWithBrokerRegistration);
    m_schema.add("aclEnable", &aclEnable, true);
    m_schema.add("aclFilePath", &aclFilePath);
    m_schema.add("listenAddress", &listenAddress, true);
    m_schema.add("listenPort", &listenPort, true);
    m_schema.add("serverSelectorThreads", &serverSelectorThreads);
    m_schema.add("serverChannelMaxIdleTimeSeconds", &serverChannelMaxIdleTimeSeconds);
    m_schema.add("serverFrameTimeoutMillis", &serverFrameTimeoutMillis);
    m_schema.add("serverMaxConnections", &serverMaxConnections);
    m_schema.add("serverMaxConnectionsPerAddress", &serverMaxConnectionsPerAddress);
    m_schema.add("serverMaxPendingInputBytes", &serverMaxPendingInputBytes);
    m_schema.add("serverMaxUnsentBytes", &serverMaxUnsentBytes);
    m_schema.add("serverMaxInflightRequestsPerConnection", &serverMaxInflightRequestsPerConnection);
    m_schema.add("kvConfigMaxNamespaces", &kvConfigMaxNamespaces);
    m_schema.add("kvConfigMaxEntries", &kvConfigMaxEntries);
    m_schema.add("kvConfigMaxKeyBytes", &kvConfigMaxKeyBytes);
    m_schema.add("kvConfigMaxValueBytes", &kvConfigMaxValueBytes);
    m_schema.add("kvConfigMaxTotalBytes", &kvConfigMaxTotalBytes);
    tls.bind(m_schema);
    metrics.bind(m_schema);
}

Status NamesrvConfig::validate() const
{
    const auto bad = [](const char *key, const QString &why) {
        return Status::invalidArgument(QStringLiteral("%1: %2").arg(QLatin1String(key), why));
    };
    if (Status st = tls.validate(); !st)
        return st;
    if (Status st = metrics.validate(); !st)
        return st;
    if (listenPort < 0 || listenPort > 65535)
        return bad("listenPort", QStringLiteral("%1 is not a port (0-65535)").arg(listenPort));
    if (QHostAddress(listenAddress).isNull())
        return bad("listenAddress",
            QStringLiteral("'%1' is not an IPv4 or IPv6 address").arg(listenAddress));
    if (scanNotActiveBrokerDelay < 0)
        return bad("scanNotActiveBrokerDelay", QStringLiteral("must be >= 0"));
    if (scanNotActiveBrokerInterval < 1)
        return bad("scanNotActiveBrokerInterval", QStringLiteral("must be >= 1 ms"));
    if (brokerChannelExpiredTime < 1)
        return bad("brokerChannelExpiredTime", QStringLiteral("must be >= 1 ms"));
    if (serverSelectorThreads < 1 || serverSelectorThreads > 64)
        return bad("serverSelectorThreads", QStringLiteral("must be 1-64"));
    if (serverChannelMaxIdleTimeSeconds < 0)
        return bad("serverChannelMaxIdleTimeSeconds", QStringLiteral("must be >= 0"));
    for (const auto &[key, value] : {std::pair<const char *, std::int64_t> {
                                         "serverFrameTimeoutMillis", serverFrameTimeoutMillis},
             {"serverMaxConnections", serverMaxConnections},
             {"serverMaxConnectionsPerAddress", serverMaxConnectionsPerAddress},
             {"serverMaxPendingInputBytes", serverMaxPendingInputBytes},
             {"serverMaxInflightRequestsPerConnection", serverMaxInflightRequestsPerConnection},
             {"kvConfigMaxNamespaces", kvConfigMaxNamespaces},
             {"kvConfigMaxEntries", kvConfigMaxEntries},
             {"kvConfigMaxKeyBytes", kvConfigMaxKeyBytes},
             {"kvConfigMaxValueBytes", kvConfigMaxValueBytes},
             {"kvConfigMaxTotalBytes", kvConfigMaxTotalBytes}}) {
        if (value < 0)
            return bad(key, QStringLiteral("must be >= 0 (0 disables the limit)"));
    }
    if (serverMaxUnsentBytes < 64 * 1024)
        return bad("serverMaxUnsentBytes", QStringLiteral("must be >= 65536"));
    if (kvConfigPath.isEmpty())
        return bad("kvConfigPath", QStringLiteral("must not be empty"));
    return {};
}

QStringList NamesrvConfig::blackList() const
{
    QStringList out;
    const QStringList parts = configBlackList.split(u';', Qt::SkipEmptyParts);
    for (const QString &p : parts)
        out.append(p.trimmed());
    return out;
}

Status loadConfigFile(const QString &path, NamesrvConfig &config, QStringList *unknownKeys)
{
    Result<Properties> props = loadPropertiesFile(path);
    if (!props)
        return props.error();
    if (Status st = config.schema().apply(*props, unknownKeys); !st.isOk())
        return Status::invalidArgument(QStringLiteral("%1: %2").arg(path, st.message()));
    const bool setsStorePath = std::any_of(props->begin(), props->end(),
        [](const auto &e) { return e.key == QLatin1String("configStorePath"); });
    if (!setsStorePath)
        config.configStorePath = QFileInfo(path).absoluteFilePath();
    if (Status st = config.validate(); !st.isOk())
        return Status::invalidArgument(QStringLiteral("%1: %2").arg(path, st.message()));
    return {};
}

NamesrvConfigStore::NamesrvConfigStore(const NamesrvConfig &initial) : m_config(initial)
{ }

NamesrvConfig NamesrvConfigStore::snapshot() const
{
    std::lock_guard locker(m_mutex);
    return m_config;
}

bool NamesrvConfigStore::orderMessageEnable() const
{
    return m_orderMessageEnable.load(std::memory_order_relaxed);
}

std::int64_t NamesrvConfigStore::brokerChannelExpiredTime() const
{
    std::lock_guard locker(m_mutex);
    return m_config.brokerChannelExpiredTime;
}

std::int64_t NamesrvConfigStore::scanNotActiveBrokerInterval() const
{
    std::lock_guard locker(m_mutex);
    return m_config.scanNotActiveBrokerInterval;
}

QByteArray NamesrvConfigStore::propertiesText() const
{
    std::lock_guard locker(m_mutex);
    QList<std::pair<QString, QString>> entries = m_config.schema().entries();
    entries.removeIf([](const auto &entry) { return isSecretConfigKey(entry.first); });
    return formatProperties(entries);
}

NamesrvConfigStore::UpdateError NamesrvConfigStore::update(QByteArrayView text, QString *error)
{
    const Properties props = parseProperties(text);
    std::lock_guard locker(m_mutex);
    const QStringList black = m_config.blackList();
    for (const PropertyEntry &e : props) {
        // Paths, addresses, ports and security keys whatever configBlackList says: a narrowed
        // black list must not bring CVE-2023-37582 back (configStorePath written at once).
        const QString why = remoteConfigRefusal(e.key, {});
        if (!why.isEmpty() || black.contains(e.key)) {
            *error = blackListRemark(e.key, why);
            return UpdateError::BlackListed;
        }
    }
    NamesrvConfig next = m_config;
    QStringList unknown;
    if (Status st = next.schema().apply(props, &unknown); !st.isOk()) {
        *error = st.message();
        return UpdateError::Invalid;
    }
    if (!unknown.isEmpty()) {
        *error = QStringLiteral("unknown config keys: %1").arg(unknown.join(QLatin1String(", ")));
        return UpdateError::Invalid;
    }
    if (Status st = next.validate(); !st.isOk()) {
        *error = st.message();
        return UpdateError::Invalid;
    }
    m_config = next;
    m_orderMessageEnable.store(m_config.orderMessageEnable, std::memory_order_relaxed);
    if (!m_config.configStorePath.isEmpty()) {
        Status st = writeFileAtomically(
            m_config.configStorePath, formatProperties(m_config.schema().entries()));
        if (!st.isOk()) {
            *error = st.message();
            return UpdateError::Persist;
        }
    }
    return UpdateError::None;
}

} // namespace qrocket::namesrv
