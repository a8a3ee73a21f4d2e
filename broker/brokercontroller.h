#pragma once

// BrokerController: wires the broker together (RocketMQ's BrokerController): config, the
// MessageStore, the managers, the long-polling service, the request processors on two
// RemotingServers (listenPort and the fast port listenPort - 2), name-server registration and
// the housekeeping timers (registration every registerNameServerPeriod, consumer offsets every
// flushConsumerOffsetInterval, delay offsets every flushDelayOffsetInterval, stale client channels
// every 10 s), and replication: a master runs the HA server on haListenPort (listenPort + 1; a
// free port when listenPort is 0), a slave the HA client that follows its master and the
// metadata sync from it (topics, subscription groups, consumer and delay offsets). RocketMQ 5's
// gRPC service (broker/grpc/) serves grpcServerPort over the main server's processor table.
//
//   BrokerController controller(brokerConfig, storeConfig);   // both already validated
//   if (Status st = controller.initialize(); !st) ...        // loads config files, opens store
//   if (Status st = controller.start(); !st) ...             // listens, registers, timers
//   ...
//   controller.shutdown();                                   // also done by the destructor
//
// Other broker parts plug in through context() and registerProcessor(). When the header
// "broker/brokerextras.h" exists, initialize() calls its
// `void qrocket::broker::installBrokerExtras(BrokerController &)` (admin, send-back, query
// processors and the delay schedule service).
//
// Threads: lives on the thread that creates it, which needs an event loop (timers, queued
// channel-close notifications, coalesced re-registration).

#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "clientlib/common/status.h"
#include "clientlib/remoting/executor.h"
#include "clientlib/remoting/requestprocessor.h"
#include "storage/core/diskspace.h"
#include "storage/core/storeconfig.h"

#include <QObject>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>

namespace qrocket::storage {
class MessageStore;
}

namespace qrocket::remoting {
class MetricsHttpServer;
class RemotingServer;
class ThreadPoolExecutor;
} // namespace qrocket::remoting

namespace qrocket::acl {
class AclGuard;
} // namespace qrocket::acl

namespace qrocket::broker {

namespace ha {
class HAClient;
class HAService;
class SlaveSynchronize;
} // namespace ha
namespace v2 {
class GrpcServer;
} // namespace v2
namespace pop {
class PopService;
class RequestModeManager;
} // namespace pop

class BrokerConfiguration;
class BrokerMetrics;
class SendDedupTable;
class BrokerStats;
class BrokerStatsManager;
class ConsumerManager;
class ConsumerOffsetManager;
class DelayOffsetManager;
class NamesrvRegistrar;
class ProducerManager;
class AuthStore;
class TransactionalMessageService;
class PullMessageProcessor;
class PullRequestHoldService;
class ScheduleMessageService;
class TimerMessageStore;
namespace filter {
class SqlFilterCache;
}
class SubscriptionGroupManager;
class TopicConfigManager;

class BrokerController final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BrokerController)

public:
    BrokerController(const BrokerConfig &config, const storage::MessageStoreConfig &storeConfig,
        QObject *parent = nullptr);
    ~BrokerController() override;

    /// Test seam: the store's disk probe instead of statvfs (StoreOptions::diskSpace). Set
    /// before initialize().
    void setDiskSpaceProbe(storage::DiskSpaceProbe probe) { m_diskSpaceProbe = std::move(probe); }
    /// Controller mode's fence (storage::MessageStore::setWriteGate). Set before initialize().
    void setWriteGate(std::function<bool()> gate) { m_writeGate = std::move(gate); }
    /// Controller mode's epoch history (BrokerContext::epochHistory). Set before initialize().
    void setEpochHistory(
        std::function<std::vector<std::pair<std::int64_t, std::int64_t>>()> history)
    {
        m_ctx.epochHistory = std::move(history);
    }
    /// Controller mode's master and SyncStateSet (BrokerContext::electionState). Set before
    /// initialize().
    void setElectionState(std::function<std::pair<QByteArray, std::vector<QByteArray>>()> state)
    {
        m_ctx.electionState = std::move(state);
    }
    Status initialize();
    Status start();
    /// Unregisters from the name servers, stops the servers, flushes and closes the store and
    /// persists the managers. Idempotent.
    void shutdown();

    /// The bound ports once started (the configured ones, or the chosen ones for listenPort=0).
    quint16 listenPort() const;
    quint16 fastListenPort() const;
    /// The gRPC (RocketMQ 5 MessagingService) port once started (a free one when listenPort is
    /// 0, as for HA); 0 when off or not bound.
    quint16 grpcPort() const;
    /// The HA port a master listens on once started (0 on a slave).
    quint16 haListenPort() const;
    /// The port of GET /metrics once started (metricsPort / metricsExporterType=PROM), else 0.
    quint16 metricsPort() const;
    /// The master's HA server, or null (a slave).
    ha::HAService *haService() { return m_haService.get(); }
    /// The slave's HA client, or null (a master).
    ha::HAClient *haClient() { return m_haClient.get(); }
    /// POP consumption's state (broker/pop/); null before initialize().
    pop::PopService *popService() { return m_pop.get(); }

    BrokerConfig &config() { return m_config; }
    const storage::MessageStoreConfig &storeConfig() const { return m_storeConfig; }
    BrokerContext &context() { return m_ctx; }
    NamesrvRegistrar &registrar() { return *m_registrar; }
    remoting::RemotingServer *remotingServer() { return m_server.get(); }
    remoting::RemotingServer *fastRemotingServer() { return m_fastServer.get(); }

    /// Registers on both servers. `executor` null = inline on the I/O thread.
    void registerProcessor(
        int requestCode, remoting::RequestProcessorPtr processor, remoting::ExecutorPtr executor);
    void setDefaultProcessor(
        remoting::RequestProcessorPtr processor, remoting::ExecutorPtr executor);
    /// The admin pool (adminBrokerThreadPoolNums threads) for admin processors.
    remoting::ExecutorPtr adminExecutor() const;
    /// The send pool (CONSUMER_SEND_MSG_BACK belongs there, as in RocketMQ).
    remoting::ExecutorPtr sendExecutor() const;

    /// Re-registers with every name server at once (coalesced; any thread).
    void registerBrokerAllNow();

private:
    Status loadManagers();
    Status startAuthStore();
    Status startMetrics();
    /// grpcServerPort > 0: serves gRPC on it (`anyPort`: on a free port).
    void startGrpc(bool anyPort);
    void createProcessors();
    void onChannelClosed(quint64 channelId);
    void scanClients();
    /// Creates the send dedup table and, with sendDedupEnable, refills it from the commit log's
    /// tail (after the store's recovery, before the ports open).
    void rebuildSendDedupWindow();
    void persistOffsets();
    void sampleStats();
    void armMorningRecord();

    BrokerConfig m_config;
    storage::MessageStoreConfig m_storeConfig;
    storage::DiskSpaceProbe m_diskSpaceProbe;
    std::function<bool()> m_writeGate;
    BrokerContext m_ctx;

    std::unique_ptr<TopicConfigManager> m_topics;
    std::unique_ptr<SubscriptionGroupManager> m_groups;
    std::unique_ptr<ConsumerOffsetManager> m_consumerOffsets;
    std::unique_ptr<DelayOffsetManager> m_delayOffsets;
    std::unique_ptr<ConsumerManager> m_consumers;
    std::unique_ptr<ProducerManager> m_producers;
    // Before the hold service: its parked pulls' filters refer to the cache (and the managers).
    std::unique_ptr<filter::SqlFilterCache> m_sqlFilters;
    std::unique_ptr<PullRequestHoldService> m_pullHold;
    std::unique_ptr<storage::MessageStore> m_store;
    std::unique_ptr<ha::HAService> m_haService; // masters
    std::unique_ptr<ha::HAClient> m_haClient; // slaves
    std::unique_ptr<ha::SlaveSynchronize> m_slaveSync; // slaves
    std::unique_ptr<NamesrvRegistrar> m_registrar;
    std::unique_ptr<BrokerConfiguration> m_configuration;
    std::unique_ptr<BrokerStats> m_stats;
    std::unique_ptr<BrokerStatsManager> m_statsManager;
    std::unique_ptr<ScheduleMessageService> m_schedule;
    std::unique_ptr<TimerMessageStore> m_timer; // timer messages (a master, timerWheelEnable)
    std::shared_ptr<TransactionalMessageService> m_transactions; // half messages, check-back
    std::unique_ptr<pop::RequestModeManager> m_requestModes; // SET_MESSAGE_REQUEST_MODE
    std::unique_ptr<pop::PopService> m_pop; // POP consumption; before the store's listener runs

    std::shared_ptr<remoting::ThreadPoolExecutor> m_sendPool;
    std::shared_ptr<remoting::ThreadPoolExecutor> m_pullPool;
    std::shared_ptr<remoting::ThreadPoolExecutor> m_clientPool;
    std::shared_ptr<remoting::ThreadPoolExecutor> m_adminPool;
    std::shared_ptr<PullMessageProcessor> m_pullProcessor;
    std::shared_ptr<qrocket::acl::AclGuard> m_acl; // aclEnable only
    std::unique_ptr<AuthStore> m_authStore; // aclEnable only
    std::unique_ptr<remoting::RemotingServer> m_server;
    std::unique_ptr<remoting::RemotingServer> m_fastServer;
    std::unique_ptr<BrokerMetrics> m_metrics; // GET /metrics, when enabled
    std::unique_ptr<SendDedupTable> m_sendDedup; // exactly-once sends' window
    std::unique_ptr<remoting::MetricsHttpServer> m_metricsServer;
    std::unique_ptr<v2::GrpcServer> m_grpc; // grpcServerPort > 0

    QTimer m_registerTimer;
    QTimer m_offsetTimer;
    QTimer m_delayOffsetTimer;
    QTimer m_clientScanTimer;
    QTimer m_statsSampleTimer; // every second (StoreStatsService sampling)
    QTimer m_statsMorningTimer; // at each local midnight (BrokerStats.record)
    QTimer m_slaveSyncTimer; // slaves: 3 s after start, then every 10 s (RocketMQ 4.9.7)
    std::atomic<bool> m_registerPending {false};
    bool m_initialized = false;
    bool m_started = false;
    bool m_shutdown = false;
};

} // namespace qrocket::broker
