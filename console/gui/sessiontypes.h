#pragma once

// The values a ClusterSession keeps about its cluster, as the views read them: one struct per
// broker address, topic and consumer group, plus the state of each poll ("part") so that a view
// can grey out what is stale and say why. Plain values, owned and changed on the GUI thread only.

#include "clientlib/client/admin/adminbodies.h"
#include "clientlib/client/message.h"

#include <QByteArray>
#include <QLoggingCategory>
#include <QString>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace qrocket::console {

/// "qrocket.console": the session's polls (debug: each round's outcome).
Q_DECLARE_LOGGING_CATEGORY(lcConsole)

enum class Liveness { Unknown, Live, Late, Expired };
QString livenessText(Liveness l);

enum class TopicType { Normal, Retry, Dlq, System };
QString topicTypeText(TopicType t);
/// %RETRY% / %DLQ% prefixes, RocketMQ's built-in names (TBW102, SCHEDULE_TOPIC_XXXX, RMQ_SYS_*,
/// OFFSET_MOVED_EVENT, ...) and the names in `systemTopics` (the name server's list).
TopicType classifyTopic(const QByteArray &name, const std::vector<QByteArray> &systemTopics);

/// One poll's health: when it last succeeded and why the last attempt failed.
struct PartState
{
    /// Monotonic ms (ClusterSession::nowMono) of the last success; 0 = never.
    std::int64_t lastOkMono = 0;
    /// The last attempt's error (empty after a success).
    QString error;
    /// The peer lacks a QRocket extension this part needs.
    bool notSupported = false;
};

/// One broker address (master or slave) of the cluster.
struct BrokerInfo
{
    QByteArray cluster;
    QByteArray brokerName;
    std::int64_t brokerId = 0;
    QByteArray address;
    QByteArray version;
    /// Listed by the name server's last cluster info.
    bool registered = false;
    /// Once listed; a broker that leaves the name server's tables stays on screen as expired.
    bool everRegistered = false;

    // GET_BROKER_RUNTIME_INFO
    bool runtimeOk = false;
    QString runtimeError;
    std::int64_t runtimeOkMono = 0;
    double putTps = 0;
    double getTps = 0;
    /// The broker's one disk measure (used / (used + available), what `df` shows), as its clean
    /// service last took it: commitLogDiskRatio, consumeQueueDiskRatio; -1 unknown.
    double diskRatio = -1;
    double consumeQueueDiskRatio = -1;
    /// Runtime info `diskFull` (QRocket): the store refuses writes.
    bool diskFull = false;
    /// Runtime info `diskFullReason` (QRocket) while diskFull: the partition, its ratio and the
    /// mark that decided, in the broker's words; empty otherwise or from a stock broker.
    QString diskFullReason;
    std::int64_t commitLogMinOffset = 0;
    std::int64_t commitLogMaxOffset = 0;
    std::int64_t putTotal = -1;
    std::int64_t getTotal = -1;
    std::int64_t totalsMono = 0;

    // brokerLiveness (QRocket name server extension)
    bool livenessKnown = false;
    std::int64_t heartbeatAgeMs = 0; // at livenessSampleMono
    std::int64_t livenessSampleMono = 0;
    std::int64_t lastHeartbeatEpochMs = 0;

    // GET_BROKER_CONFIG (asked once per address)
    bool configOk = false;
    std::int64_t configAskedMono = 0;
    std::int64_t registerPeriodMs = 30000;
    QString deleteWhen;
    QString fileReservedTime;
    QString diskMaxUsedSpaceRatio;
    QString diskSpaceCleanForciblyRatio;
    QString diskSpaceWarningLevelRatio;
    /// enableControllerMode=true: its master is elected through etcd (the election view).
    bool controllerMode = false;

    // storeFiles (QRocket broker extension)
    std::optional<client::admin::StoreFiles> storeFiles;
    PartState store;
};

/// A disk mark from the broker's config (whole percent: "90") as a ratio, else `fallback`.
double diskMark(const QString &configured, double fallback);

/// Why the broker refuses writes, the one text the storage view and the alert show: its own
/// reason (runtime info diskFullReason, else storeFiles' refuseReason: "disk full: commit-log
/// partition (dir) at 97.0% used > diskSpaceWarningLevelRatio 90%; writes refused until ..."),
/// else its measured ratio against its diskSpaceWarningLevelRatio. Empty while it accepts.
QString writeBlockReason(const BrokerInfo &b);

/// A per-broker sample for the charts (one a second, ten minutes kept).
struct BrokerSample
{
    std::int64_t epochMs = 0;
    double putTps = 0;
    double getTps = 0;
    double diskRatio = -1;
};

struct TopicInfo
{
    QByteArray name;
    TopicType type = TopicType::Normal;
    /// Brokers (masters) with a config for it (from GET_ALL_TOPIC_CONFIG of each).
    int brokers = 0;
    int readQueues = 0;
    int writeQueues = 0;
    int perm = 0;
    bool order = false;

    friend bool operator==(const TopicInfo &, const TopicInfo &) = default;
};

struct GroupInfo
{
    QByteArray name;
    int brokers = 0;
    bool consumeEnable = true;
    /// The subscription group's retryMaxTimes (the smallest of its brokers'): past it, a failed
    /// message goes to %DLQ%<group> (a client's maxReconsumeTimes overrides it).
    int retryMaxTimes = -1;
    // POP (QRocket extension kGetPopStats of every master, with the catalogue): "PULL", "POP"
    // or "PULL+POP" (POP for some topics), empty when no broker could tell.
    QByteArray mode;
    std::int64_t popInFlight = 0; // popped, neither acked nor revived: invisible now
    std::int64_t reviveBacklog = 0; // in flight past their invisible time, not revived yet
    // consumeStats (refreshed round-robin, see ClusterSession)
    bool statsKnown = false;
    QString statsError;
    std::int64_t statsOkMono = 0;
    std::int64_t lag = 0;
    double consumeTps = 0;
    int queues = 0;
    int topics = 0;
    /// The topics of its offset table (no %RETRY%), sorted: whose get TPS it counts in.
    std::vector<QByteArray> topicNames;

    friend bool operator==(const GroupInfo &, const GroupInfo &) = default;
};

/// One controller-mode replica's GET_BROKER_EPOCH_CACHE, as it last answered (its own view of
/// the election record: QRocket's masterAddr / syncStateSet fields).
struct ReplicaAnswer
{
    bool ok = false;
    QString error;
    std::int64_t okMono = 0;
    std::int64_t epoch = 0; // the newest epoch of its history (0: none)
    std::int64_t maxOffset = 0;
    QByteArray masterAddr;
    std::vector<QByteArray> syncStateSet;
};

/// One replica in the election view.
struct ReplicaView
{
    QByteArray address;
    enum class Role { Master, Follower, Unreachable } role = Role::Unreachable;
    bool registered = false;
    bool inSyncStateSet = false;
    std::int64_t maxOffset = -1; // -1: unknown
    std::int64_t behind = -1; // the master's commit-log end minus its own; -1: unknown
    QString error; // why it is unreachable

    friend bool operator==(const ReplicaView &, const ReplicaView &) = default;
};

/// An election the console saw: a new epoch (or master) for a brokerName.
struct ElectionEvent
{
    std::int64_t epochMs = 0; // wall clock when the console saw it
    std::int64_t epoch = 0;
    QByteArray master;
    QByteArray previousMaster; // empty for the first one seen
    /// False for the state found when the console connected (not seen as it happened).
    bool live = true;

    friend bool operator==(const ElectionEvent &, const ElectionEvent &) = default;
};

/// A controller-mode brokerName: its master and epoch, SyncStateSet, replicas and the last
/// elections seen (newest first).
struct ElectionState
{
    QByteArray cluster;
    QByteArray brokerName;
    QByteArray master; // empty until a replica answered
    std::int64_t epoch = 0;
    std::vector<QByteArray> syncStateSet;
    std::int64_t masterMaxOffset = -1;
    std::vector<ReplicaView> replicas; // the master first, then by address
    std::deque<ElectionEvent> history;
    /// Monotonic ms of the last election seen live (0: none): the view highlights it a while.
    std::int64_t changedMono = 0;
};
QString replicaRoleText(ReplicaView::Role r);

/// One topic's rates at one time (the per-topic charts).
struct TopicRateSample
{
    std::int64_t epochMs = 0;
    double putTps = 0;
    double getTps = 0;
};

/// A topic's put and get TPS from VIEW_BROKER_STATS_DATA, the broker's one-minute averages
/// (sampled by the broker every 10 s), summed over the masters: put = TOPIC_PUT_NUMS of the
/// topic, get = GROUP_GET_NUMS of topic@group for every group that consumes it.
struct TopicRates
{
    double putTps = 0;
    double getTps = 0;
    std::int64_t okMono = 0;
    std::deque<TopicRateSample> history;
};

} // namespace qrocket::console
