#include "namesrv/namesrvconfig.h"

#include <QDir>
#include <QHostAddress>

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
    listenAddress = other.listenAddress;
    listenPort = other.listenPort;
    serverSelectorThreads = other.serverSelectorThreads;
    serverChannelMaxIdleTimeSeconds = other.serverChannelMaxIdleTimeSeconds;
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
    m_schema.add("listenAddress", &listenAddress, true);
    m_schema.add("listenPort", &listenPort, true);
    m_schema.add("serverSelectorThreads", &serverSelectorThreads);
    m_schema.add("serverChannelMaxIdleTimeSeconds", &serverChannelMaxIdleTimeSeconds);
}

Status NamesrvConfig::validate() const
{
    const auto bad = [](const char *key, const QString &why) {
        return Status::invalidArgument(QStringLiteral("%1: %2").arg(QLatin1String(key), why));
    };
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

} // namespace qrocket::namesrv
