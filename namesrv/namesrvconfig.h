#pragma once

// NamesrvConfig: every setting qrocket-namesrv reads, with RocketMQ's key names where RocketMQ
// has one (NamesrvConfig + NettyServerConfig) and defaults from protocol.md §0 and §8.1.
// resources/conf/namesrv.conf lists the same keys with their defaults.
//
// Not thread-safe by itself; the controller serialises access (GET/UPDATE_NAMESRV_CONFIG run on
// remoting threads).

#include "clientlib/common/properties.h"

#include <QString>

namespace qrocket::namesrv {

class NamesrvConfig
{
public:
    NamesrvConfig();
    NamesrvConfig(const NamesrvConfig &other);
    NamesrvConfig &operator=(const NamesrvConfig &other);

    // RocketMQ NamesrvConfig
    QString rocketmqHome; // $ROCKETMQ_HOME
    QString kvConfigPath; // ~/namesrv/kvConfig.json
    QString configStorePath; // ~/namesrv/namesrv.properties (UPDATE_NAMESRV_CONFIG persists here)
    QString productEnvName = QStringLiteral("center");
    bool clusterTest = false;
    bool orderMessageEnable = false;
    /// Keys UPDATE_NAMESRV_CONFIG refuses, ';'-separated.
    QString configBlackList
        = QStringLiteral("configBlackList;configStorePath;kvConfigPath;rocketmqHome");
    // Liveness (milliseconds)
    std::int64_t scanNotActiveBrokerDelay = 5000;
    std::int64_t scanNotActiveBrokerInterval = 10000;
    std::int64_t brokerChannelExpiredTime = 120000;
    bool deleteTopicWithBrokerRegistration = false;
    // Server (RocketMQ NettyServerConfig names)
    QString listenAddress = QStringLiteral("0.0.0.0");
    int listenPort = 9876;
    int serverSelectorThreads = 3; // remoting I/O threads
    int serverChannelMaxIdleTimeSeconds = 120;

    ConfigSchema &schema() { return m_schema; }
    const ConfigSchema &schema() const { return m_schema; }

    /// Range checks after loading or updating; InvalidArgument naming the key.
    Status validate() const;
    /// Keys in configBlackList.
    QStringList blackList() const;

private:
    void bind();
    ConfigSchema m_schema;
};

} // namespace qrocket::namesrv
