#pragma once

// BrokerConfig: the broker's own settings, under RocketMQ 4.9's key names (BrokerConfig,
// NettyServerConfig.listenPort, and the few MessageStoreConfig keys the broker itself reads:
// brokerRole, messageDelayLevel, storePathRootDir, flushDelayOffsetInterval). The store's other
// keys belong to the storage module's config. resources/conf/broker.conf lists every key here
// with its default; keep the two in step.
//
// A plain value type. schema() binds the keys to this object's fields: the object must outlive
// the schema and must not move while the schema is used.

#include "clientlib/common/properties.h"
#include "clientlib/common/status.h"
#include "clientlib/remoting/metricssettings.h"
#include "clientlib/remoting/tlssettings.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <vector>

namespace qrocket::protocol {
class RemotingCommand;
} // namespace qrocket::protocol

namespace qrocket::broker {

enum class BrokerRole : std::uint8_t { AsyncMaster, SyncMaster, Slave };
const char *brokerRoleName(BrokerRole role);

struct BrokerConfig
{
    BrokerConfig(); // defaults; brokerIP1/2 = first non-loopback IPv4, brokerName = host name

    // Identity and cluster
    QString rocketmqHome; // $ROCKETMQ_HOME
    QString namesrvAddr; // "host:port;host:port", default $NAMESRV_ADDR
    QString brokerClusterName = QStringLiteral("DefaultCluster");
    QString brokerName; // host name
    std::int64_t brokerId = 0; // 0 = master, > 0 = slave
    QString brokerIP1; // address registered with the name server
    QString brokerIP2; // HA address (and the master's HA port binds to it: haListenAddress())
    int listenPort = 10911; // the fast (VIP) port is listenPort - 2
    /// RocketMQ 5's gRPC protocol (apache.rocketmq.v2.MessagingService, broker/grpc/) on this
    /// port, as RocketMQ's proxy serves it (its default 8081); 0 turns it off.
    int grpcServerPort = 8081;
    /// With aclEnable: how far (seconds) a signed gRPC call's x-mq-date-time may be from the
    /// broker's clock before it is refused as a possible replay (broker/grpc/grpcauth.h); 0: not
    /// checked, as RocketMQ 5.3's proxy. Set in the config file only (a security key).
    int grpcAuthMaxClockSkewSeconds = 900;
    QString regionId = QStringLiteral("DefaultRegion");
    QString brokerRole = QStringLiteral("ASYNC_MASTER"); // ASYNC_MASTER, SYNC_MASTER or SLAVE
    QString storePathRootDir; // ~/store

    // Controller mode (issue 28; broker/controller/): every broker of a brokerName runs with
    // enableControllerMode and the same etcdEndpoints; the master is elected through etcd
    // (brokerRole and brokerId of the file are then ignored: the election sets them).
    bool enableControllerMode = false;
    QString etcdEndpoints; // "http://host:port[,http://host:port...]"
    int etcdLeaseTtlSeconds = 5; // the lease a master holds: a dead master is replaced after it

    // Topics and subscription groups (protocol.md §8.2)
    int brokerPermission = 6;
    int defaultTopicQueueNums = 8;
    bool autoCreateTopicEnable = true;
    bool clusterTopicEnable = true;
    bool brokerTopicEnable = true;
    bool traceTopicEnable = false;
    QString msgTraceTopicName = QStringLiteral("RMQ_SYS_TRACE_TOPIC");
    bool autoCreateSubscriptionGroup = true;
    bool traceOn = true;
    // POP (RocketMQ 5.3's key): a group with no offset on a queue starts at 0 when the queue's
    // first message is still there and served from memory; else at its last message.
    bool initPopOffsetByCheckMsgInMem = true;

    // Name-server registration
    int registerNameServerPeriod = 30000; // clamped to 10000..60000 by validate()
    int registerBrokerTimeoutMills = 6000;
    bool forceRegister = true;
    bool compressedRegister = false;

    // Consumption
    bool longPollingEnable = true;
    std::int64_t shortPollingTimeMills = 1000;
    bool notifyConsumerIdsChangedEnable = true;
    bool slaveReadEnable = false;
    bool enablePropertyFilter = false; // SQL92 subscriptions (MessageSelector.bySql)
    bool filterSupportRetry = false; // a group's %RETRY% pulls filtered by its SQL92 selectors
    int flushConsumerOffsetInterval = 5000;
    int flushDelayOffsetInterval = 10000;
    QString messageDelayLevel
        = QStringLiteral("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");
    std::int64_t channelExpiredTimeout = 120000; // QRocket: client channel idle expiry

    // Transactions and security
    bool rejectTransactionMessage = false;
    /// Sends are refused until this time (ms since epoch; 0 = at once).
    std::int64_t startAcceptSendRequestTimeStamp = 0;
    /// SEND_REPLY_MESSAGE also stores the reply in <cluster>_REPLY_TOPIC (RocketMQ default true).
    bool storeReplyMessageEnable = true;
    // RECALL_MESSAGE (370, timer messages): off by default, as in RocketMQ 5.3.
    bool recallMessageEnable = false;
    bool allowRecallWhenBrokerNotWriteable = true;
    /// Exactly-once sends (QRocket, issue 28; broker/dedup/senddeduptable.h): a send whose
    /// UNIQ_KEY this broker stored for the same topic within the window is answered with the
    /// first attempt's msgId, queue id and queue offset and stores nothing. At most
    /// sendDedupMaxKeysPerTopic keys are kept per topic (the oldest go first).
    bool sendDedupEnable = false;
    /// Whether UPDATE_AND_CREATE_TOPIC may give a topic message.type=MIXED (RocketMQ 5's key and
    /// default; broker/managers/topicattributes.h).
    bool enableMixedMessageType = false;
    int sendDedupWindowSeconds = 120;
    std::int64_t sendDedupMaxKeysPerTopic = 200000;
    std::int64_t transactionTimeOut = 6000;
    int transactionCheckMax = 15;
    std::int64_t transactionCheckInterval = 60000;
    /// Every request is checked against plain_acl.yml and the ACL 2.0 users and ACLs
    /// (clientlib/acl/aclguard.h, broker/auth/authstore.h).
    bool aclEnable = false;
    /// QRocket: where plain_acl.yml is; empty: ${rocketmqHome}/conf/plain_acl.yml, as RocketMQ.
    QString aclFilePath;
    /// The account this broker signs its own requests with (registrations at name servers with
    /// aclEnable, a slave's requests to its master): an admin account of their plain_acl.yml.
    /// Empty: unsigned. The secret is never printed (GET_BROKER_CONFIG, -p) nor logged.
    QString innerAccessKey;
    QString innerSecretKey;
    /// Signs a request with innerAccessKey/innerSecretKey (empty function when there is none):
    /// RemotingClientOptions::requestHook of the broker's own clients.
    std::function<void(protocol::RemotingCommand &)> innerRequestSigner() const;
    /// Keys UPDATE_BROKER_CONFIG refuses, ';'-separated (RocketMQ 4.9.8; rocketmqHome,
    /// brokerConfigPath and configBlackList are always refused).
    QString configBlackList = QStringLiteral("configBlackList;brokerConfigPath");

    /// Not a key: the file UPDATE_BROKER_CONFIG rewrites (RocketMQ's BrokerPathConfigHelper: the
    /// -c file, else ${user.home}/store/config/broker.properties). Empty: nothing is persisted.
    QString configFilePath;

    // Request executors (threads per pool)
    /// I/O threads of the main listen port, each with its own event loop over its share of the
    /// connections (NettyServerConfig.serverSelectorThreads); the fast port has one.
    int serverSelectorThreads = 3;
    // Remoting limits, for each listen port on its own (clientlib/remoting/remotingserver.h and
    // connection.h; every port is reachable by an attacker). 0 disables a limit.
    /// No complete frame from a connection for this long closes it (NettyServerConfig's key).
    int serverChannelMaxIdleTimeSeconds = 120;
    /// A frame begun must be complete within this (a peer trickling bytes is closed).
    std::int64_t serverFrameTimeoutMillis = 60000;
    /// Connections at once; lowered to the open-file limit (minus a reserve) when that is less.
    int serverMaxConnections = 10000;
    /// Connections at once from one peer IP address.
    int serverMaxConnectionsPerAddress = 1000;
    /// Bytes all connections may hold in partial frames together.
    std::int64_t serverMaxPendingInputBytes = 256 * 1024 * 1024;
    /// Answers queued for one peer that does not read; over it the connection is closed.
    std::int64_t serverMaxUnsentBytes = 64 * 1024 * 1024;
    /// Requests of one connection awaiting answers; at the cap the broker stops reading it.
    int serverMaxInflightRequestsPerConnection = 4096;
    /// TLS with RocketMQ's keys (clientlib/remoting/tlssettings.h): tls.server.* for the main and
    /// fast ports, tls.enable and tls.client.* for the broker's own connections (name servers,
    /// a slave's master), tls.config.file.
    remoting::TlsSettings tls;
    /// GET /metrics (clientlib/remoting/metricssettings.h): metricsPort, metricsHost,
    /// metricsExporterType=PROM + metricsPromExporterPort/Host, metricsSeriesLimit. Off by default.
    remoting::MetricsSettings metrics;
    int sendMessageThreadPoolNums = 4;
    int pullMessageThreadPoolNums = 4;
    int adminBrokerThreadPoolNums = 2;

    /// Binds every key to this object's fields (see the file comment).
    ConfigSchema schema();
    /// Registers the keys on a shared schema (the daemon binds BrokerConfig and the storage
    /// module's MessageStoreConfig on one schema for -c/-p/-m). storePathRootDir, brokerRole and
    /// messageDelayLevel are store keys too: with `withSharedStoreKeys` false they are left to
    /// the store's bind(), and the caller copies them here with setSharedStoreKeys() before
    /// validate().
    void bind(ConfigSchema &schema, bool withSharedStoreKeys = true);
    void setSharedStoreKeys(QString storeRoot, QString role, QString delayLevels);
    static bool isSharedStoreKey(const QString &key);
    /// Applies properties; unknown keys are appended to `unknownKeys` (the caller logs them).
    Status apply(const Properties &props, QStringList *unknownKeys = nullptr);
    /// Checks and normalises after loading: clamps registerNameServerPeriod to 10–60 s, rejects
    /// a master with brokerId != 0, a slave with brokerId <= 0, bad role, bad names, bad
    /// ports, bad queue counts, bad namesrvAddr and bad messageDelayLevel with a message naming
    /// the key. Also fills the parsed fields below.
    Status validate();

    // Parsed by validate()
    BrokerRole role() const { return m_role; }
    const std::vector<std::int64_t> &delayLevelMillis() const { return m_delayLevels; }
    bool isMaster() const { return m_role != BrokerRole::Slave; }
    /// "brokerIP1:listenPort", the address clients and the name server use.
    QByteArray brokerAddr() const;
    /// Where a master's HA port listens: brokerIP2, the HA address slaves are told (validate()
    /// sets an empty one to brokerIP1). Empty (every address, as RocketMQ) when it is a
    /// wildcard (0.0.0.0, ::) or still the address the constructor detected, i.e. brokerIP2 was
    /// not set (setting brokerIP1 alone leaves brokerIP2, and so the HA port, as detected).
    /// HAService binds a loopback address on both families, and every address for one this
    /// host does not have (NAT).
    QString haListenAddress() const;
    /// namesrvAddr split on ';' (empty entries dropped).
    QStringList namesrvAddrList() const;
    /// Java Properties text of every key, as GET_BROKER_CONFIG (26) answers.
    QByteArray toProperties();

    /// The first IPv4 address of an up, non-loopback interface, else "127.0.0.1".
    static QString localIpv4Address();

private:
    BrokerRole m_role = BrokerRole::AsyncMaster;
    QString m_detectedIp; // brokerIP1/brokerIP2 before any key set them
    std::vector<std::int64_t> m_delayLevels;
};

} // namespace qrocket::broker
