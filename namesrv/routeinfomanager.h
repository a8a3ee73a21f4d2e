#pragma once

// RouteInfoManager: the name server's route tables (protocol.md §3.1–§3.8, RocketMQ's class of
// the same name).
//
//   topicQueueTable   topic      -> brokerName -> QueueData
//   brokerAddrTable   brokerName -> BrokerData {cluster, brokerId -> addr}
//   clusterAddrTable  cluster    -> {brokerName}
//   brokerLiveTable   brokerAddr -> BrokerLiveInfo {last update, dataVersion, channel, haAddr}
//   filterServerTable brokerAddr -> [filter server addr]
//
// Thread safety: every public method may be called from any thread; the five tables are guarded
// by one std::shared_mutex (readers: route lookups; writers: registrations, expiry, admin changes).
// The topic list and cluster info bodies are prepared: kept encoded between changes, which move a
// generation counter under the write lock.
// Signals are emitted after the lock is released, from the calling thread.
//
// Time: liveness uses a monotonic millisecond clock (replaceable for tests); the wall-clock time
// of the last registration is kept for display only.

#include "clientlib/remoting/requestprocessor.h"
#include "namesrv/routedata.h"

#include <QObject>

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <vector>

namespace qrocket::namesrv {

struct RegisterBrokerResult
{
    QByteArray haServerAddr; // the master's HA address, for a slave whose master is registered
    QByteArray masterAddr; // the master's broker address, likewise
};

/// One live broker as the QRocket liveness extension reports it.
struct BrokerLiveness
{
    QByteArray clusterName;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray brokerAddr;
    QByteArray haServerAddr;
    std::int64_t lastUpdateEpochMs = 0; // wall clock of the last registration / version query
    std::int64_t ageMs = 0; // monotonic time since then
    DataVersion dataVersion;
};

/// A broker address that left the live table (explainBroker): the liveness scan, its connection
/// closing, or UNREGISTER_BROKER; or (as lastRegistrationError) a refused REGISTER_BROKER.
struct BrokerDeparture
{
    QByteArray clusterName;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray brokerAddr;
    QByteArray kind; // "expired", "connectionClosed", "unregistered", "registrationRefused"
    QByteArray reason;
    std::int64_t epochMs = 0; // wall clock of the event
    std::int64_t ageMs = 0; // monotonic time since
};

class RouteInfoManager : public QObject
{
    Q_OBJECT

public:
    using Clock = std::function<std::int64_t()>;

    explicit RouteInfoManager(QObject *parent = nullptr);
    ~RouteInfoManager() override;

    /// Replaces the monotonic millisecond clock (tests). Not thread-safe: call before use.
    void setClock(Clock monotonicMs);
    /// When true, a full registration with a new dataVersion drops the broker's queue data of
    /// topics missing from the body (RocketMQ 5's deleteTopicWithBrokerRegistration).
    void setDeleteTopicWithBrokerRegistration(bool on);

    /// The broker's topics in `body` are merged into its routes (RocketMQ 4.9.7: a partial table,
    /// as registerIncrementBrokerData sends, leaves the broker's other topics as they are).
    /// `incremental` (QRocket's "incremental" header field): the body holds only changed topics,
    /// so deleteTopicWithBrokerRegistration must not take it for the whole table.
    RegisterBrokerResult registerBroker(const QByteArray &clusterName, const QByteArray &brokerAddr,
        const QByteArray &brokerName, std::int64_t brokerId, const QByteArray &haServerAddr,
        const RegisterBrokerBody &body, const remoting::ChannelPtr &channel,
        bool incremental = false, int grpcPort = 0);
    void unregisterBroker(const QByteArray &clusterName, const QByteArray &brokerAddr,
        const QByteArray &brokerName, std::int64_t brokerId);

    /// QUERY_DATA_VERSION: true if the name server has no record of the broker or a different
    /// version. When unchanged, the broker's liveness timestamp is refreshed.
    bool isBrokerTopicConfigChanged(const QByteArray &brokerAddr, const DataVersion &version) const;
    std::optional<DataVersion> queryBrokerTopicConfig(const QByteArray &brokerAddr) const;
    void updateBrokerInfoUpdateTimestamp(const QByteArray &brokerAddr);

    /// The route of a topic, or nullopt when it has no queue data or no broker data. Brokers
    /// that registered a gRPC port (QRocket's "grpcPort" header field) carry it in grpcPorts.
    std::optional<TopicRouteData> pickupTopicRouteData(const QByteArray &topic) const;
    /// The route's JSON body (TopicRouteData::toJson() of pickupTopicRouteData()), encoded under
    /// the read lock without intermediate copies: the GET_ROUTEINFO_BY_TOPIC fast path.
    /// `orderTopicConf` (may be empty) is included as is.
    std::optional<QByteArray> topicRouteJson(
        const QByteArray &topic, const QByteArray &orderTopicConf = {}) const;
    /// GET_BROKER_CLUSTER_INFO's ClusterInfo body, prepared: encoded by the first call after the
    /// brokers or clusters changed and kept until the next change.
    QByteArray clusterInfoJson() const;
    /// The same, encoded now (tests compare the two).
    QByteArray freshClusterInfoJson() const;
    /// GET_ALL_TOPIC_LIST_FROM_NAMESERVER's TopicList body (topicListJson(allTopicList())),
    /// prepared: encoded by the first call after a topic appeared or went, kept until the next.
    QByteArray allTopicListJson() const;
    /// The same, encoded now.
    QByteArray freshAllTopicListJson() const;

    QList<QByteArray> allTopicList() const;
    QList<QByteArray> topicsByCluster(const QByteArray &cluster) const;
    /// Cluster names and broker names; `brokerAddr` gets one registered address.
    QList<QByteArray> systemTopicList(QByteArray *brokerAddr) const;
    QList<QByteArray> unitTopics() const;
    QList<QByteArray> hasUnitSubTopics() const;
    QList<QByteArray> hasUnitSubUnUnitTopics() const;

    /// Removes the topic everywhere, or (clusterName not empty) from that cluster's brokers only.
    void deleteTopic(const QByteArray &topic, const QByteArray &clusterName = {});
    /// Clears the write bit of the broker's queue data on every topic; returns the topic count.
    int wipeWritePermOfBroker(const QByteArray &brokerName);
    /// Sets perm = read|write on every topic of the broker; returns the topic count.
    int addWritePermOfBroker(const QByteArray &brokerName);

    /// Removes brokers whose last update is older than `expiredMs`, closing their channels.
    /// Returns the number removed.
    int scanNotActiveBroker(std::int64_t expiredMs);
    /// A connection closed: removes the broker registered over it, if any.
    void onChannelDestroy(std::uint64_t channelId);

    QList<BrokerLiveness> brokerLiveness() const;
    /// The latest departure of each address of `brokerName` since start (at most
    /// kMaxDepartures are kept, the oldest dropped first).
    QList<BrokerDeparture> departures(const QByteArray &brokerName) const;
    /// A REGISTER_BROKER refused (bad body, crc); kept per broker name, the latest only.
    void noteRegistrationError(
        const QByteArray &brokerName, const QByteArray &brokerAddr, const QByteArray &error);
    std::optional<BrokerDeparture> lastRegistrationError(const QByteArray &brokerName) const;
    static constexpr std::size_t kMaxDepartures = 256;
    bool isBrokerLive(const QByteArray &brokerAddr) const;
    int liveBrokerCount() const;
    /// REGISTER_BROKER requests handled since start (GET /metrics); any thread.
    std::uint64_t registrations() const { return m_registrations.load(std::memory_order_relaxed); }
    /// Topics with a route (GET /metrics).
    int topicCount() const;

signals:
    void brokerRegistered(const QByteArray &clusterName, const QByteArray &brokerName,
        qint64 brokerId, const QByteArray &brokerAddr);
    void brokerUnregistered(const QByteArray &clusterName, const QByteArray &brokerName,
        qint64 brokerId, const QByteArray &brokerAddr);
    /// Removed by the liveness scan (silent too long) or because its connection closed.
    void brokerExpired(const QByteArray &brokerAddr, const QString &reason);

private:
    struct BrokerLiveInfo
    {
        std::int64_t lastUpdateMs = 0;
        std::int64_t lastUpdateEpochMs = 0;
        DataVersion dataVersion;
        remoting::ChannelPtr channel;
        QByteArray haServerAddr;
        int grpcPort = 0; // QRocket's REGISTER_BROKER "grpcPort"; 0: none
        QByteArray clusterName;
        QByteArray brokerName;
        std::int64_t brokerId = 0;
    };

    void createAndUpdateQueueData(
        const QByteArray &brokerName, const QByteArray &topic, const TopicConfig &tc);
    void removeTopicsOfBrokerName(const QByteArray &brokerName);
    /// Removes a broker address from every table (lock held for writing).
    void removeBrokerAddrLocked(const QByteArray &brokerAddr);
    /// Records a departure (m_lock not held).
    void noteDeparture(BrokerDeparture d);
    QByteArray topicListJsonLocked() const;
    /// The registered gRPC ports of `bd`'s addresses (lock held).
    std::map<std::int64_t, int> grpcPortsLocked(const BrokerData &bd) const;

    /// A prepared answer body and the generation of the tables it was encoded from.
    struct PreparedBody
    {
        QByteArray bytes;
        std::uint64_t generation = 0;
        bool valid = false;
    };
    std::int64_t now() const { return m_clock(); }

    Clock m_clock;
    bool m_deleteTopicWithBrokerRegistration = false;
    std::atomic<std::uint64_t> m_registrations {0};

    mutable std::shared_mutex m_lock;
    // guarded by m_lock:
    std::map<QByteArray, std::map<QByteArray, QueueData>> m_topicQueueTable;
    std::map<QByteArray, BrokerData> m_brokerAddrTable;
    std::map<QByteArray, std::set<QByteArray>> m_clusterAddrTable;
    std::map<QByteArray, BrokerLiveInfo> m_brokerLiveTable;
    std::map<QByteArray, std::vector<QByteArray>> m_filterServerTable;
    // Moved (m_lock held for writing) whenever a topic appears in or leaves m_topicQueueTable, and
    // whenever m_brokerAddrTable or m_clusterAddrTable changes: the prepared bodies' keys.
    std::uint64_t m_topicsGeneration = 0;
    std::uint64_t m_clusterGeneration = 0;

    // The prepared bodies; m_bodyMutex is taken with m_lock held (shared), never the other way
    // round, so one caller encodes after a change while the others wait for its bytes.
    mutable std::mutex m_bodyMutex;
    mutable PreparedBody m_topicListBody; // guarded by m_bodyMutex
    mutable PreparedBody m_clusterBody; // guarded by m_bodyMutex

    // explainBroker's history; never taken together with m_lock.
    mutable std::mutex m_historyMutex;
    std::map<QByteArray, BrokerDeparture> m_departures; // by address; guarded by m_historyMutex
    std::map<QByteArray, BrokerDeparture> m_registrationErrors; // by broker name; likewise
};

} // namespace qrocket::namesrv
