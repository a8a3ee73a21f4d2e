#pragma once

// BrokerContext: what every request processor and broker service needs, by reference. The
// BrokerController owns all of it and outlives every processor; processors hold a
// `BrokerContext &` and never own or delete anything in it. Filled by the controller in
// initialize(); a pointer is null only when that part is disabled by config.
//
// Thread-safety is each member's own (the managers and the MessageStore are safe to call from
// any processor thread).

#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/messagecodec.h"

#include <QByteArray>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace qrocket::remoting {
struct RemotingServerStats;
}

namespace qrocket::storage {
class MessageStore;
struct MessageExtBrokerInner;
} // namespace qrocket::storage

namespace qrocket::acl {
class AclGuard;
} // namespace qrocket::acl

namespace qrocket::broker {

struct BrokerConfig;
class BrokerConfiguration;
class BrokerStats;
class BrokerStatsManager;
class TopicConfigManager;
class SubscriptionGroupManager;
class ConsumerOffsetManager;
class DelayOffsetManager;
class ConsumerManager;
class ProducerManager;
class AuthStore;
class PullRequestHoldService;
class ScheduleMessageService;
class TimerMessageStore;
class RebalanceLockManager;
class SendDedupTable;
namespace filter {
class SqlFilterCache;
}
namespace ha {
class HAClient;
class HAService;
} // namespace ha

struct BrokerContext
{
    BrokerConfig *config = nullptr;
    BrokerConfiguration *configuration = nullptr; // GET/UPDATE_BROKER_CONFIG, persisted
    BrokerStats *stats = nullptr; // runtime-info counters
    BrokerStatsManager *statsManager = nullptr; // per-topic/group stats (VIEW_BROKER_STATS_DATA)
    storage::MessageStore *store = nullptr;
    TopicConfigManager *topics = nullptr;
    SubscriptionGroupManager *subscriptionGroups = nullptr;
    ConsumerOffsetManager *consumerOffsets = nullptr;
    DelayOffsetManager *delayOffsets = nullptr;
    ConsumerManager *consumers = nullptr;
    ProducerManager *producers = nullptr;
    PullRequestHoldService *pullHold = nullptr; // long polling
    ScheduleMessageService *schedule = nullptr; // delay levels (SCHEDULE_TOPIC_XXXX)
    TimerMessageStore *timer = nullptr; // timer messages (null on a slave / timerWheelEnable=false)
    filter::SqlFilterCache *sqlFilters = nullptr; // SQL92 subscriptions' compiled selectors
    ha::HAService *haService = nullptr; // a master's HA server (null on a slave)
    ha::HAClient *haClient = nullptr; // a slave's HA client (null on a master)
    qrocket::acl::AclGuard *acl = nullptr; // aclEnable only
    /// Exactly-once sends' window (used while sendDedupEnable; always present on a started
    /// broker so that the key can be switched on at run time).
    SendDedupTable *sendDedup = nullptr;
    AuthStore *authStore = nullptr; // ACL 2.0 users and ACLs; aclEnable only
    /// Orderly consumers' queue locks (LOCK/UNLOCK_BATCH_MQ): created by registerExtraProcessors
    /// on its first call when unset, then shared by the LockProcessors of both servers.
    std::shared_ptr<RebalanceLockManager> rebalanceLocks;

    /// "brokerIP1:listenPort": the store host written into records and offset msgIds.
    QByteArray storeHost;
    /// The same, parsed: what SEND writes as STOREHOST and encodes into offset msgIds.
    protocol::HostAddress storeHostAddress;
    /// Asks the controller to re-register with every name server now (topic created/deleted).
    /// Safe to call from any thread; coalesced.
    std::function<void()> registerBrokerAllNow;
    /// The remoting limits' counters of both listen ports together (runtime info); any thread.
    std::function<remoting::RemotingServerStats()> remotingStats;
    /// Controller mode: this broker's epoch history, ⟨epoch, start offset⟩ oldest first
    /// (GET_BROKER_EPOCH_CACHE); unset outside controller mode (the cache is then empty).
    /// Called on the thread that serves admin requests.
    std::function<std::vector<std::pair<std::int64_t, std::int64_t>>()> epochHistory;
    /// Controller mode: the master and the SyncStateSet (broker addresses) of the election
    /// record this broker last saw in etcd (GET_BROKER_EPOCH_CACHE's QRocket fields); unset
    /// outside controller mode. Any thread.
    std::function<std::pair<QByteArray, std::vector<QByteArray>>()> electionState;
    /// POP state of one group (every group when empty), as kGetPopStats answers it without the
    /// modes (explainGroup); unset when there is no POP service. Any thread.
    std::function<protocol::PopStatsBody(const QByteArray &group)> popStats;
};

} // namespace qrocket::broker
