#pragma once

// ClusterSession: one connection of the console to one cluster (a name-server list). It owns a
// client::Admin and a poller that, every second, asks the cluster with the Admin's async calls
// (they run on the Admin's pool threads, never on the GUI thread) and applies each answer on the
// GUI thread (QMetaObject::invokeMethod, queued). Views read the values below and listen to the
// *Updated signals; they never call the Admin's blocking forms.
//
// What is asked, and how often (ticks of pollInterval, 1 s by default):
//   every tick     clusterOverview(with runtime info): brokers, versions, TPS, disk, offsets
//                  brokerLiveness (QRocket name-server extension; re-probed every 60 ticks when
//                  the name server lacks it)
//                  the focus topic's route and stats, the focus group's stats (+ connections)
//                  consumeStats of up to kGroupStatsBudget groups, oldest first (round-robin)
//   every 5 ticks  storeFiles of each master (QRocket broker extension)
//   every 10 ticks topicList + GET_ALL_TOPIC_CONFIG of each master (in parallel, one round trip
//                  per broker, whatever the number of topics) and GET_ALL_SUBSCRIPTIONGROUP_CONFIG
//                  of each master
//   once/address   brokerConfig (registerNameServerPeriod, deleteWhen, fileReservedTime...)
// A kind of call still in flight is not sent again, so a slow or dead name server never piles up
// requests; it is simply asked again on the next tick (the background retry). Each kind's last
// success and last error are kept in a PartState for the views (greyed values, status bar).
//
// Shutdown: the destructor shuts the Admin down first (bounded, 3 s for running calls), so no
// callback can reach a destroyed session; answers already queued to it are dropped by Qt.

#include "clientlib/client/admin/admin.h"
#include "console/common/credentials.h"
#include "console/gui/sessiontypes.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>

namespace qrocket::console {

/// How the console reaches one cluster: its name servers, the ACL credentials it signs with and
/// its TLS. Each cluster has its own (the connect dialog); the command line's --aclConfig and
/// --tls are the defaults.
struct ConnectionSettings
{
    QString namesrvAddr;
    Credentials credentials;
    /// nullopt: the console's default TLS (setClientTls).
    std::optional<remoting::TlsSettings> tls;
};

class ClusterSession : public QObject
{
    Q_OBJECT

public:
    static constexpr int kGroupStatsBudget = 64;
    static constexpr int kHistorySamples = 600;

    /// `credentials`: sign every request (RocketMQ's ACL) when it has an access key.
    explicit ClusterSession(
        QString namesrvAddr, const Credentials &credentials = {}, QObject *parent = nullptr);
    explicit ClusterSession(const ConnectionSettings &settings, QObject *parent = nullptr);
    ~ClusterSession() override;

    /// TLS of every session created afterwards (qrocket-console --tls ...; tls.enable and
    /// tls.client.*); GUI thread, before the first cluster is added.
    static void setClientTls(const remoting::TlsSettings &tls);
    static remoting::TlsSettings clientTls();
    /// Whether this session connects with TLS.
    bool usesTls() const { return m_tls.enable; }
    /// The client settings of this session (name servers, TLS): also for the console's producer.
    client::ClientConfig clientConfig() const;

    /// Starts the Admin and the poller (first poll at once). InvalidArgument for a bad address.
    Status start();
    QString namesrvAddr() const { return m_namesrvAddr; }
    client::Admin &admin() { return *m_admin; }
    /// The account this session signs with (empty without ACL).
    const Credentials &credentials() const { return m_credentials; }
    void setPollInterval(int ms);
    /// Polls the slow parts (topics, groups, store files) on the next tick.
    void refreshCatalog();

    /// Monotonic milliseconds (the clock every *Mono field uses).
    static std::int64_t nowMono();

    // -- brokers --------------------------------------------------------------------------
    const std::vector<BrokerInfo> &brokers() const { return m_brokers; }
    const BrokerInfo *broker(const QByteArray &address) const;
    std::vector<QByteArray> clusterNames() const;
    /// The heartbeat age now (sampled age + time since the sample); -1 when unknown.
    std::int64_t heartbeatAge(const BrokerInfo &b) const;
    /// The name server's brokerChannelExpiredTime (120 s unless it said otherwise).
    std::int64_t expiryMs() const { return m_expiryMs; }
    /// Age above which a broker is "late": its registration period plus half of it (>= 2 s).
    static std::int64_t lateAfterMs(const BrokerInfo &b);
    Liveness liveness(const BrokerInfo &b) const;
    bool livenessSupported() const { return !m_liveness.notSupported; }
    const PartState &clusterPart() const { return m_cluster; }
    const PartState &livenessPart() const { return m_liveness; }
    const std::deque<BrokerSample> &history(const QByteArray &address) const;

    // -- controller mode: elections (every tick, one GET_BROKER_EPOCH_CACHE per replica) -----
    static constexpr int kElectionHistory = 8;
    /// Every controller-mode brokerName (brokers whose config says enableControllerMode), by
    /// cluster and name; empty without controller-mode brokers (nothing is asked then).
    const std::vector<ElectionState> &elections() const { return m_elections; }
    const ElectionState *election(const QByteArray &brokerName) const;

    // -- topics and groups ----------------------------------------------------------------
    const std::vector<TopicInfo> &topics() const { return m_topics; }
    const std::vector<QByteArray> &systemTopics() const { return m_systemTopics; }
    const PartState &topicsPart() const { return m_topicsPart; }
    const std::vector<GroupInfo> &groups() const { return m_groups; }
    /// The catalogue's row of `name` (the one source of a group's lag and consume TPS), or null.
    const GroupInfo *group(const QByteArray &name) const;
    const PartState &groupsPart() const { return m_groupsPart; }
    /// The first normal topic (by name), else TBW102.
    QByteArray defaultTopic() const;

    /// Replaces the topic catalogue (what a topic poll does once its answers are in; public
    /// for the scale benchmark and the tests, which feed synthetic catalogues): prepareTopics
    /// on the calling thread, then applyPreparedTopics.
    void applyTopics(const std::vector<QByteArray> &names,
        const std::map<QByteArray, TopicInfo> &configs, const QStringList &errors);
    /// The catalogue's rows from a round's answers, sorted by name. Touches nothing of a
    /// session: the poll runs it off the GUI thread.
    static std::vector<TopicInfo> prepareTopics(const std::vector<QByteArray> &names,
        const std::map<QByteArray, TopicInfo> &configs,
        const std::vector<QByteArray> &systemTopics);
    /// The GUI thread's part: takes prepared rows (sorted by name); the models diff against
    /// them and signal only what changed.
    void applyPreparedTopics(std::vector<TopicInfo> topics, const QStringList &errors);
    void applyGroups(
        const std::map<QByteArray, GroupInfo> &groups, const QStringList &errors, bool anyOk);
    /// One group's GET_CONSUME_STATS answer (the round-robin's; public for the benchmark). The
    /// models hear of it once per event-loop pass (groupsUpdated, coalesced).
    void applyGroupStats(const QByteArray &name, const Result<client::admin::ConsumeStats> &r);

    // -- per-topic rates (every kTopicRatesPeriodMs) ---------------------------------------
    /// The broker's minute windows move every 10 s: asking more often shows nothing new.
    static constexpr std::int64_t kTopicRatesPeriodMs = 10000;
    /// VIEW_BROKER_STATS_DATA calls per round at most (topics beyond it: the next rounds).
    static constexpr int kTopicRatesBudget = 256;
    const std::map<QByteArray, TopicRates> &topicRates() const { return m_topicRates; }
    /// A round's rates (topic -> put, get TPS; the topics that answered), sampled at `epochMs`:
    /// what a rates poll does once its answers are in (public for the benchmark). Topics no
    /// longer in the catalogue leave; topicRatesUpdated.
    void applyTopicRates(
        const std::map<QByteArray, std::pair<double, double>> &rates, std::int64_t epochMs);
    /// Asks for the per-topic rates on the next tick (tests).
    void refreshTopicRates() { m_topicRatesMono = 0; }

    // -- focus topic / group (asked every tick while set) ----------------------------------
    void setFocusTopic(const QByteArray &topic);
    QByteArray focusTopic() const { return m_focusTopic; }
    const std::optional<protocol::TopicRouteData> &focusRoute() const { return m_focusRoute; }
    const std::optional<client::admin::TopicStatsTable> &focusStats() const { return m_focusStats; }
    const PartState &focusTopicPart() const { return m_focusTopicPart; }
    std::int64_t focusStatsMono() const { return m_focusTopicPart.lastOkMono; }

    void setFocusGroup(const QByteArray &group);
    QByteArray focusGroup() const { return m_focusGroup; }
    const std::optional<client::admin::ConsumeStats> &focusConsumeStats() const
    {
        return m_focusConsume;
    }
    const std::optional<client::admin::ConsumerConnection> &focusConnection() const
    {
        return m_focusConnection;
    }
    const PartState &focusGroupPart() const { return m_focusGroupPart; }
    /// A neutral note on the focus group's consume stats (an expected state, not a failure).
    QString focusGroupNote() const { return m_focusGroupNote; }
    QString focusConnectionError() const { return m_focusConnectionError; }

    /// An Admin callback that runs `handler` on the GUI thread, unless `context` was destroyed
    /// by then (for the views' own calls: create topic, query messages...).
    template<typename T, typename F>
    client::Admin::Callback<T> deliver(QObject *context, F handler)
    {
        QPointer<QObject> guard(context);
        return onGui<T>([guard, handler](Result<T> r) mutable {
            if (guard)
                handler(std::move(r));
        });
    }

    /// A one-line summary of what is failing now (empty when all is well), for the status bar.
    QString problemSummary() const;

signals:
    void brokersUpdated();
    /// elections() changed (an answer arrived, an election was seen).
    void electionsUpdated();
    void topicsUpdated();
    void groupsUpdated();
    void storageUpdated();
    void focusTopicUpdated();
    void topicRatesUpdated();
    void focusGroupUpdated();
    /// problemSummary() changed.
    void problemsChanged(const QString &summary);

private:
    /// Wraps a GUI-thread handler into an Admin callback that queues it to this object.
    template<typename T, typename F>
    client::Admin::Callback<T> onGui(F handler)
    {
        return [this, handler = std::move(handler)](Result<T> r) mutable {
            QMetaObject::invokeMethod(
                this, [handler, r = std::move(r)]() mutable { handler(std::move(r)); },
                Qt::QueuedConnection);
        };
    }

    void tick();
    void pollCluster();
    void pollLiveness();
    void pollBrokerConfigs();
    void pollStoreFiles();
    void pollTopics();
    void pollGroups();
    void pollGroupStats();
    void pollFocusTopic();
    void pollTopicRates();
    void pollFocusGroup();
    void pollElections();
    void rebuildElections();
    void applyOverview(Result<client::ClusterOverview> r);
    void applyLiveness(Result<client::admin::BrokerLiveness> r);
    BrokerInfo *brokerAt(const QByteArray &address);
    std::vector<QByteArray> masterAddresses() const;
    void markGroupsDirty();
    void updateProblems();

    QString m_namesrvAddr;
    Credentials m_credentials; // signs every request when it has an access key
    remoting::TlsSettings m_tls;
    std::shared_ptr<client::Admin> m_admin;
    QTimer m_timer;
    std::int64_t m_tick = 0;
    QSet<QString> m_inFlight;

    std::vector<BrokerInfo> m_brokers;
    std::map<QByteArray, std::deque<BrokerSample>> m_history;
    std::int64_t m_expiryMs = 120000;
    PartState m_cluster;
    PartState m_liveness;
    std::int64_t m_livenessProbeTick = 0;
    bool m_storeNotSupported = false;

    std::map<QByteArray, ReplicaAnswer> m_replicaAnswers; // by address
    std::vector<ElectionState> m_elections;
    bool m_electionsDirty = false;

    std::vector<TopicInfo> m_topics;
    std::vector<QByteArray> m_systemTopics;
    PartState m_topicsPart;
    std::vector<GroupInfo> m_groups;
    QHash<QByteArray, int> m_groupIndex;
    PartState m_groupsPart;
    std::size_t m_groupCursor = 0;
    int m_groupStatsInFlight = 0;
    bool m_groupsDirty = false;
    bool m_catalogDue = true;

    std::map<QByteArray, TopicRates> m_topicRates;
    std::int64_t m_topicRatesMono = 0;
    std::size_t m_topicRatesCursor = 0;

    QByteArray m_focusTopic;
    std::optional<protocol::TopicRouteData> m_focusRoute;
    std::optional<client::admin::TopicStatsTable> m_focusStats;
    PartState m_focusTopicPart;
    QByteArray m_focusGroup;
    std::optional<client::admin::ConsumeStats> m_focusConsume;
    std::optional<client::admin::ConsumerConnection> m_focusConnection;
    QString m_focusConnectionError;
    PartState m_focusGroupPart;
    QString m_focusGroupNote;
    QString m_lastProblems;
};

} // namespace qrocket::console
