#include "broker/config/brokerconfig.h"

#include "broker/config/delaylevel.h"
#include "broker/controller/etcdclient.h"
#include "clientlib/protocol/aclsignature.h"

#include <QDir>
#include <QHostAddress>
#include <QNetworkInterface>
#include <QRegularExpression>
#include <QSysInfo>

#include <algorithm>

namespace qrocket::broker {

namespace {

bool isValidName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[%|a-zA-Z0-9_-]+$"));
    return name.size() <= 127 && re.match(name).hasMatch();
}

Status checkNamesrvAddr(const QStringList &addrs)
{
    for (const QString &a : addrs) {
        const qsizetype colon = a.lastIndexOf(u':');
        bool ok = false;
        const int port = colon > 0 ? a.mid(colon + 1).toInt(&ok) : 0;
        if (!ok || port <= 0 || port > 65535)
            return Status::invalidArgument(
                QStringLiteral("namesrvAddr: '%1' is not host:port").arg(a));
    }
    return {};
}

} // namespace

const char *brokerRoleName(BrokerRole role)
{
    switch (role) {
    case BrokerRole::AsyncMaster:
        return "ASYNC_MASTER";
    case BrokerRole::SyncMaster:
        return "SYNC_MASTER";
    case BrokerRole::Slave:
        return "SLAVE";
    }
    return "ASYNC_MASTER";
}

BrokerConfig::BrokerConfig()
    : rocketmqHome(qEnvironmentVariable("ROCKETMQ_HOME"))
    , namesrvAddr(qEnvironmentVariable("NAMESRV_ADDR"))
    , brokerName(QSysInfo::machineHostName())
    , brokerIP1(localIpv4Address())
    , brokerIP2(brokerIP1)
    , storePathRootDir(QDir::homePath() + QStringLiteral("/store"))
    , m_detectedIp(brokerIP1)
{
    if (brokerName.isEmpty())
        brokerName = QStringLiteral("localhost");
}

QString BrokerConfig::localIpv4Address()
{
    const auto ifaces = QNetworkInterface::allInterfaces();
    for (const QNetworkInterface &iface : ifaces) {
        const auto flags = iface.flags();
        if (!flags.testFlag(QNetworkInterface::IsUp)
            || flags.testFlag(QNetworkInterface::IsLoopBack))
            continue;
        const auto entries = iface.addressEntries();
        for (const QNetworkAddressEntry &e : entries) {
            const QHostAddress ip = e.ip();
            if (ip.protocol() == QAbstractSocket::IPv4Protocol && !ip.isLoopback())
                return ip.toString();
        }
    }
    return QStringLiteral("127.0.0.1");
}

ConfigSchema BrokerConfig::schema()
{
    ConfigSchema s;
    bind(s, true);
    return s;
}

bool BrokerConfig::isSharedStoreKey(const QString &key)
{
    return key == QLatin1String("storePathRootDir") || key == QLatin1String("brokerRole")
        || key == QLatin1String("messageDelayLevel");
}

void BrokerConfig::setSharedStoreKeys(QString storeRoot, QString role, QString delayLevels)
{
    storePathRootDir = std::move(storeRoot);
    brokerRole = std::move(role);
    messageDelayLevel = std::move(delayLevels);
}

void BrokerConfig::bind(ConfigSchema &s, bool withSharedStoreKeys)
{
    const bool shared = withSharedStoreKeys;
    s.add("rocketmqHome", &rocketmqHome);
    s.add("namesrvAddr", &namesrvAddr, true);
    s.add("brokerClusterName", &brokerClusterName, true);
    s.add("brokerName", &brokerName, true);
    s.add("brokerId", &brokerId, true);
    s.add("brokerIP1", &brokerIP1, true);
    s.add("brokerIP2", &brokerIP2, true);
    s.add("listenPort", &listenPort, true);
    s.add("grpcServerPort", &grpcServerPort, true);
    s.add("grpcAuthMaxClockSkewSeconds", &grpcAuthMaxClockSkewSeconds);
    s.add("regionId", &regionId);
    if (shared) {
        s.add("brokerRole", &brokerRole, true);
        s.add("storePathRootDir", &storePathRootDir, true);
    }
    s.add("brokerPermission", &brokerPermission);
    s.add("defaultTopicQueueNums", &defaultTopicQueueNums);
    s.add("autoCreateTopicEnable", &autoCreateTopicEnable, true);
    s.add("clusterTopicEnable", &clusterTopicEnable);
    s.add("brokerTopicEnable", &brokerTopicEnable);
    s.add("traceTopicEnable", &traceTopicEnable);
    s.add("msgTraceTopicName", &msgTraceTopicName);
    s.add("autoCreateSubscriptionGroup", &autoCreateSubscriptionGroup, true);
    s.add("traceOn", &traceOn);
    s.add("initPopOffsetByCheckMsgInMem", &initPopOffsetByCheckMsgInMem);
    s.add("registerNameServerPeriod", &registerNameServerPeriod);
    s.add("registerBrokerTimeoutMills", &registerBrokerTimeoutMills);
    s.add("forceRegister", &forceRegister);
    s.add("compressedRegister", &compressedRegister);
    s.add("longPollingEnable", &longPollingEnable);
    s.add("shortPollingTimeMills", &shortPollingTimeMills);
    s.add("notifyConsumerIdsChangedEnable", &notifyConsumerIdsChangedEnable);
    s.add("slaveReadEnable", &slaveReadEnable);
    s.add("enablePropertyFilter", &enablePropertyFilter);
    s.add("filterSupportRetry", &filterSupportRetry);
    s.add("flushConsumerOffsetInterval", &flushConsumerOffsetInterval);
    s.add("flushDelayOffsetInterval", &flushDelayOffsetInterval);
    if (shared)
        s.add("messageDelayLevel", &messageDelayLevel);
    s.add("channelExpiredTimeout", &channelExpiredTimeout);
    s.add("rejectTransactionMessage", &rejectTransactionMessage);
    s.add("startAcceptSendRequestTimeStamp", &startAcceptSendRequestTimeStamp);
    s.add("storeReplyMessageEnable", &storeReplyMessageEnable);
    s.add("recallMessageEnable", &recallMessageEnable);
    s.add("allowRecallWhenBrokerNotWriteable", &allowRecallWhenBrokerNotWriteable);
    s.add("sendDedupEnable", &sendDedupEnable);
    s.add("enableMixedMessageType", &enableMixedMessageType);
    s.add("sendDedupWindowSeconds", &sendDedupWindowSeconds);
    s.add("sendDedupMaxKeysPerTopic", &sendDedupMaxKeysPerTopic);
    s.add("transactionTimeOut", &transactionTimeOut);
    s.add("transactionCheckMax", &transactionCheckMax);
    s.add("transactionCheckInterval", &transactionCheckInterval);
    s.add("enableControllerMode", &enableControllerMode, true);
    s.add("etcdEndpoints", &etcdEndpoints, true);
    s.add("etcdLeaseTtlSeconds", &etcdLeaseTtlSeconds);
    s.add("aclEnable", &aclEnable, true);
    s.add("aclFilePath", &aclFilePath);
    tls.bind(s);
    metrics.bind(s);
    s.add("innerAccessKey", &innerAccessKey);
    s.add("innerSecretKey", &innerSecretKey);
    s.add("configBlackList", &configBlackList);
    s.add("serverSelectorThreads", &serverSelectorThreads);
    s.add("serverChannelMaxIdleTimeSeconds", &serverChannelMaxIdleTimeSeconds);
    s.add("serverFrameTimeoutMillis", &serverFrameTimeoutMillis);
    s.add("serverMaxConnections", &serverMaxConnections);
    s.add("serverMaxConnectionsPerAddress", &serverMaxConnectionsPerAddress);
    s.add("serverMaxPendingInputBytes", &serverMaxPendingInputBytes);
    s.add("serverMaxUnsentBytes", &serverMaxUnsentBytes);
    s.add("serverMaxInflightRequestsPerConnection", &serverMaxInflightRequestsPerConnection);
    s.add("sendMessageThreadPoolNums", &sendMessageThreadPoolNums);
    s.add("pullMessageThreadPoolNums", &pullMessageThreadPoolNums);
    s.add("adminBrokerThreadPoolNums", &adminBrokerThreadPoolNums);
}

Status BrokerConfig::apply(const Properties &props, QStringList *unknownKeys)
{
    ConfigSchema s = schema();
    return s.apply(props, unknownKeys);
}

Status BrokerConfig::validate()
{
    auto bad = [](const QString &msg) { return Status::invalidArgument(msg); };
    if (Status st = tls.validate(); !st)
        return st;
    if (Status st = metrics.validate(); !st)
        return st;
    if (brokerRole == QLatin1String("ASYNC_MASTER"))
        m_role = BrokerRole::AsyncMaster;
    else if (brokerRole == QLatin1String("SYNC_MASTER"))
        m_role = BrokerRole::SyncMaster;
    else if (brokerRole == QLatin1String("SLAVE"))
        m_role = BrokerRole::Slave;
    else
        return bad(QStringLiteral("brokerRole: '%1' is not ASYNC_MASTER, SYNC_MASTER or SLAVE")
                       .arg(brokerRole));
    if (enableControllerMode) {
        if (auto endpoints = controller::EtcdClient::parseEndpoints(etcdEndpoints); !endpoints)
            return bad(QStringLiteral("etcdEndpoints: ") + endpoints.error().message());
        if (etcdLeaseTtlSeconds < 2 || etcdLeaseTtlSeconds > 60)
            return bad(QStringLiteral("etcdLeaseTtlSeconds: %1 is out of range (2..60)")
                           .arg(etcdLeaseTtlSeconds));
    } else if (m_role == BrokerRole::Slave && brokerId <= 0)
        return bad(QStringLiteral("brokerId: a SLAVE needs brokerId > 0 (got %1)").arg(brokerId));
    // RocketMQ's BrokerStartup silently forces a master's id to 0; a wrong id in a master's file
    // is almost always a slave's file started with the wrong role, so it is refused here.
    if (!enableControllerMode && m_role != BrokerRole::Slave && brokerId != 0)
        return bad(QStringLiteral("brokerId: a %1 needs brokerId 0 (got %2)")
                       .arg(QLatin1String(brokerRoleName(m_role)))
                       .arg(brokerId));
    if (!isValidName(brokerName))
        return bad(
            QStringLiteral("brokerName: '%1' must match ^[%|a-zA-Z0-9_-]+$").arg(brokerName));
    if (!isValidName(brokerClusterName))
        return bad(QStringLiteral("brokerClusterName: '%1' must match ^[%|a-zA-Z0-9_-]+$")
                       .arg(brokerClusterName));
    if (listenPort < 2 || listenPort > 65534)
        return bad(QStringLiteral("listenPort: %1 is out of range (2..65534)").arg(listenPort));
    if (grpcServerPort < 0 || grpcServerPort > 65535)
        return bad(QStringLiteral("grpcServerPort: %1 is out of range (0..65535, 0: off)")
                       .arg(grpcServerPort));
    if (grpcAuthMaxClockSkewSeconds < 0)
        return bad(QStringLiteral("grpcAuthMaxClockSkewSeconds: %1 is negative (0: not checked)")
                       .arg(grpcAuthMaxClockSkewSeconds));
    if (QHostAddress(brokerIP1).isNull())
        return bad(QStringLiteral("brokerIP1: '%1' is not an IP address").arg(brokerIP1));
    if (brokerIP2.isEmpty())
        brokerIP2 = brokerIP1;
    if (defaultTopicQueueNums <= 0 || defaultTopicQueueNums > 1024)
        return bad(QStringLiteral("defaultTopicQueueNums: %1 is out of range (1..1024)")
                       .arg(defaultTopicQueueNums));
    if (brokerPermission < 0 || brokerPermission > 15)
        return bad(
            QStringLiteral("brokerPermission: %1 is out of range (0..15)").arg(brokerPermission));
    if (flushConsumerOffsetInterval <= 0 || flushDelayOffsetInterval <= 0)
        return bad(
            QStringLiteral("flushConsumerOffsetInterval/flushDelayOffsetInterval must be > 0"));
    if (shortPollingTimeMills < 0 || channelExpiredTimeout <= 0)
        return bad(QStringLiteral("shortPollingTimeMills/channelExpiredTimeout must be positive"));
    if (serverSelectorThreads < 1 || serverSelectorThreads > 64)
        return bad(QStringLiteral("serverSelectorThreads: %1 is out of range (1..64)")
                       .arg(serverSelectorThreads));
    for (const auto &[key, value] :
        {std::pair<const char *, std::int64_t> {
             "serverChannelMaxIdleTimeSeconds", serverChannelMaxIdleTimeSeconds},
            {"serverFrameTimeoutMillis", serverFrameTimeoutMillis},
            {"serverMaxConnections", serverMaxConnections},
            {"serverMaxConnectionsPerAddress", serverMaxConnectionsPerAddress},
            {"serverMaxPendingInputBytes", serverMaxPendingInputBytes},
            {"serverMaxInflightRequestsPerConnection", serverMaxInflightRequestsPerConnection}}) {
        if (value < 0)
            return bad(QStringLiteral("%1: %2 must be >= 0 (0 disables the limit)")
                           .arg(QLatin1String(key))
                           .arg(value));
    }
    if (serverMaxUnsentBytes < 64 * 1024)
        return bad(
            QStringLiteral("serverMaxUnsentBytes: %1 is below 65536").arg(serverMaxUnsentBytes));
    for (const auto &[key, value] :
        {std::pair {"sendMessageThreadPoolNums", sendMessageThreadPoolNums},
            std::pair {"pullMessageThreadPoolNums", pullMessageThreadPoolNums},
            std::pair {"adminBrokerThreadPoolNums", adminBrokerThreadPoolNums}}) {
        if (value < 1 || value > 1024)
            return bad(QStringLiteral("%1: %2 is out of range (1..1024)")
                           .arg(QLatin1String(key))
                           .arg(value));
    }
    if (sendDedupWindowSeconds < 1 || sendDedupWindowSeconds > 86400)
        return bad(QStringLiteral("sendDedupWindowSeconds: %1 is out of range (1..86400)")
                       .arg(sendDedupWindowSeconds));
    if (sendDedupMaxKeysPerTopic < 1 || sendDedupMaxKeysPerTopic > 100000000)
        return bad(QStringLiteral("sendDedupMaxKeysPerTopic: %1 is out of range (1..100000000)")
                       .arg(sendDedupMaxKeysPerTopic));
    if (Status st = checkNamesrvAddr(namesrvAddrList()); !st)
        return st;
    auto levels = parseMessageDelayLevel(messageDelayLevel);
    if (!levels)
        return levels.error();
    m_delayLevels = std::move(levels).value();
    // RocketMQ clamps the registration period silently (BrokerController.start).
    registerNameServerPeriod = std::clamp(registerNameServerPeriod, 10000, 60000);
    if (storePathRootDir.isEmpty())
        return bad(QStringLiteral("storePathRootDir: empty"));
    return {};
}

QByteArray BrokerConfig::brokerAddr() const
{
    return (brokerIP1 + u':' + QString::number(listenPort)).toUtf8();
}

QString BrokerConfig::haListenAddress() const
{
    const QString ip = (brokerIP2.isEmpty() ? brokerIP1 : brokerIP2).trimmed();
    const QHostAddress a(ip);
    if (a.isNull() || a == QHostAddress::AnyIPv4 || a == QHostAddress::AnyIPv6
        || ip == m_detectedIp)
        return {};
    return ip;
}

QStringList BrokerConfig::namesrvAddrList() const
{
    QStringList out;
    const auto parts = namesrvAddr.split(u';', Qt::SkipEmptyParts);
    for (const QString &p : parts) {
        const QString t = p.trimmed();
        if (!t.isEmpty())
            out.append(t);
    }
    return out;
}

QByteArray BrokerConfig::toProperties()
{
    return formatProperties(schema().entries());
}

std::function<void(protocol::RemotingCommand &)> BrokerConfig::innerRequestSigner() const
{
    if (innerAccessKey.isEmpty())
        return {};
    return [ak = innerAccessKey.toUtf8(), sk = innerSecretKey.toUtf8()](
               protocol::RemotingCommand &request) { protocol::aclSign(request, ak, sk); };
}

} // namespace qrocket::broker
