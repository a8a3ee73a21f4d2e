#pragma once

// NamesrvConfig: every setting qrocket-namesrv reads, with RocketMQ's key names where RocketMQ
// has one (NamesrvConfig + NettyServerConfig) and defaults from protocol.md §0 and §8.1.
// resources/conf/namesrv.conf lists the same keys with their defaults.
//
// Not thread-safe by itself; the controller serialises access (GET/UPDATE_NAMESRV_CONFIG run on
// remoting threads).

#include "clientlib/common/properties.h"
#include "clientlib/remoting/metricssettings.h"
#include "clientlib/remoting/tlssettings.h"

#include <QString>

#include <atomic>
#include <mutex>

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
    /// Every request is checked against plain_acl.yml (clientlib/acl/aclguard.h): admin codes
    /// (config, KV, permission and topic changes, broker registration) need an admin account.
    bool aclEnable = false;
    /// QRocket: where plain_acl.yml is; empty: ${rocketmqHome}/conf/plain_acl.yml.
    QString aclFilePath;
    // Server (RocketMQ NettyServerConfig names)
    QString listenAddress = QStringLiteral("0.0.0.0");
    int listenPort = 9876;
    int serverSelectorThreads = 3; // remoting I/O threads
    /// No complete frame from a connection for this long closes it; 0 disables.
    int serverChannelMaxIdleTimeSeconds = 120;
    // Remoting limits (clientlib/remoting/remotingserver.h, connection.h); 0 disables one.
    std::int64_t serverFrameTimeoutMillis = 60000; // a frame begun must be complete by then
    int serverMaxConnections = 10000; // lowered to the open-file limit minus a reserve
    int serverMaxConnectionsPerAddress = 1000;
    std::int64_t serverMaxPendingInputBytes = 64 * 1024 * 1024; // partial frames, all connections
    std::int64_t serverMaxUnsentBytes = 64 * 1024 * 1024; // per connection; over it: closed
    int serverMaxInflightRequestsPerConnection = 4096; // at the cap reading pauses
    /// tls.server.mode, tls.server.certPath, ... and tls.config.file (RocketMQ's names;
    /// clientlib/remoting/tlssettings.h). Never changed by UPDATE_NAMESRV_CONFIG.
    remoting::TlsSettings tls;
    /// GET /metrics (clientlib/remoting/metricssettings.h): metricsPort, metricsHost,
    /// metricsExporterType=PROM + metricsPromExporterPort/Host. Off by default.
    remoting::MetricsSettings metrics;
    // KV store caps (PUT_KV_CONFIG over them is refused, nothing stored); 0 disables one.
    int kvConfigMaxNamespaces = 64;
    int kvConfigMaxEntries = 10000; // per namespace
    int kvConfigMaxKeyBytes = 1024;
    int kvConfigMaxValueBytes = 64 * 1024;
    std::int64_t kvConfigMaxTotalBytes = 64 * 1024 * 1024; // keys + values, all namespaces

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

/// Applies a `-c` properties file: IoError when unreadable, InvalidArgument (naming the line) for
/// a bad value or a failed range check. Unknown keys are collected, not an error. As RocketMQ's
/// NamesrvStartup does, configStorePath becomes the file itself unless the file sets it.
Status loadConfigFile(const QString &path, NamesrvConfig &config, QStringList *unknownKeys);

/// The running name server's config, shared by the controller (timers) and the request processor
/// (GET/UPDATE_NAMESRV_CONFIG, orderMessageEnable). Thread-safe.
class NamesrvConfigStore
{
public:
    explicit NamesrvConfigStore(const NamesrvConfig &initial);

    NamesrvConfig snapshot() const;
    /// Cheap reads of single settings (no copy of the whole config).
    bool orderMessageEnable() const;
    std::int64_t brokerChannelExpiredTime() const;
    std::int64_t scanNotActiveBrokerInterval() const;
    /// `key=value` lines of every setting but secrets (GET_NAMESRV_CONFIG body).
    QByteArray propertiesText() const;

    enum class UpdateError { None, BlackListed, Invalid, Persist };
    /// Applies a properties text (UPDATE_NAMESRV_CONFIG body): all keys or none. Refuses
    /// (BlackListed) every path, address, port and security key (configStorePath, kvConfigPath,
    /// rocketmqHome, listenAddress, listenPort, ...; clientlib/common/configkeys.h) whatever
    /// configBlackList says, and the keys in configBlackList; refuses unknown keys or bad values
    /// (Invalid); then persists the
    /// whole config to configStorePath (Persist on failure; the update stays applied, as RocketMQ
    /// does). `error` gets a message.
    UpdateError update(QByteArrayView propertiesText, QString *error);

private:
    mutable std::mutex m_mutex;
    NamesrvConfig m_config; // guarded by m_mutex
    /// Read on every GET_ROUTEINFO_BY_TOPIC by all I/O threads: kept outside the mutex.
    std::atomic<bool> m_orderMessageEnable;
};

} // namespace qrocket::namesrv
