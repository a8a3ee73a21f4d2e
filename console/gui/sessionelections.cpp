// ClusterSession's election view of controller-mode brokers (issue 28): every tick, one
// GET_BROKER_EPOCH_CACHE (1007) to each registered broker whose config says enableControllerMode
// (plain brokers are never asked). Each answer carries the replica's epoch history and commit-log
// end, and QRocket's masterAddr / syncStateSet: the election record that replica last saw in etcd.
// The console does not talk to etcd. Per brokerName the newest epoch any replica reports wins; its
// master is the replica that says it is master itself (else what the others say, else the name
// server's brokerId 0). A new epoch or master is an election: kept with the wall time it was seen.
// Cost: one small request per controller-mode replica a tick, and one rebuild (linear in the
// brokers) per event-loop pass however many answers it brought.

#include "console/gui/clustersession.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>

namespace qrocket::console {

namespace {

constexpr int kEpochTimeoutMs = 2500;

} // namespace

QString replicaRoleText(ReplicaView::Role r)
{
    switch (r) {
    case ReplicaView::Role::Master:
        return QStringLiteral("master");
    case ReplicaView::Role::Follower:
        return QStringLiteral("follower");
    case ReplicaView::Role::Unreachable:
        return QStringLiteral("unreachable");
    }
    return {};
}

const ElectionState *ClusterSession::election(const QByteArray &brokerName) const
{
    for (const ElectionState &e : m_elections) {
        if (e.brokerName == brokerName)
            return &e;
    }
    return nullptr;
}

void ClusterSession::pollElections()
{
    // Brokers that left (or came back to) the name server's tables change the view too.
    if (!m_elections.empty()
        || std::any_of(m_brokers.begin(), m_brokers.end(),
            [](const BrokerInfo &b) { return b.controllerMode; }))
        rebuildElections();
    for (const BrokerInfo &b : m_brokers) {
        if (!b.controllerMode || !b.registered)
            continue;
        const QString key = QStringLiteral("epoch:") + QString::fromUtf8(b.address);
        if (m_inFlight.contains(key))
            continue;
        m_inFlight.insert(key);
        const QByteArray address = b.address;
        m_admin->brokerEpochCacheAsync(address,
            onGui<client::admin::EpochEntryCache>(
                [this, key, address](Result<client::admin::EpochEntryCache> r) {
                    m_inFlight.remove(key);
                    ReplicaAnswer &a = m_replicaAnswers[address];
                    a.ok = r.has_value();
                    if (!r) {
                        a.error = r.error().message();
                    } else {
                        a.error.clear();
                        a.okMono = nowMono();
                        a.epoch = r->epochList.empty() ? 0 : r->epochList.back().epoch;
                        a.maxOffset = r->maxOffset;
                        a.masterAddr = r->masterAddr;
                        a.syncStateSet = r->syncStateSet;
                    }
                    // One rebuild for every answer of the same event-loop pass.
                    if (m_electionsDirty)
                        return;
                    m_electionsDirty = true;
                    QTimer::singleShot(0, this, [this] {
                        m_electionsDirty = false;
                        rebuildElections();
                    });
                }),
            kEpochTimeoutMs);
    }
}

void ClusterSession::rebuildElections()
{
    // brokerName -> its controller-mode replicas (every address the name server ever listed).
    std::map<std::pair<QByteArray, QByteArray>, std::vector<const BrokerInfo *>> groups;
    for (const BrokerInfo &b : m_brokers) {
        if (b.controllerMode && b.everRegistered)
            groups[{b.cluster, b.brokerName}].push_back(&b);
    }
    std::map<std::pair<QByteArray, QByteArray>, ElectionState> previous;
    for (ElectionState &old : m_elections)
        previous.emplace(std::make_pair(old.cluster, old.brokerName), std::move(old));
    std::vector<ElectionState> next;
    for (const auto &[key, members] : groups) {
        ElectionState st;
        if (auto it = previous.find(key); it != previous.end())
            st = std::move(it->second);
        st.cluster = key.first;
        st.brokerName = key.second;
        auto answerOf = [this](const BrokerInfo *b) -> const ReplicaAnswer * {
            auto it = m_replicaAnswers.find(b->address);
            return it != m_replicaAnswers.end() && it->second.ok && b->registered ? &it->second
                                                                                  : nullptr;
        };
        std::int64_t epoch = 0;
        for (const BrokerInfo *b : members) {
            if (const ReplicaAnswer *a = answerOf(b))
                epoch = std::max(epoch, a->epoch);
        }
        // The master of that epoch: the replica that says it is master, else what another one
        // of that epoch says, else the name server's brokerId 0.
        QByteArray master;
        const ReplicaAnswer *masterAnswer = nullptr;
        const ReplicaAnswer *anyAnswer = nullptr;
        for (const BrokerInfo *b : members) {
            const ReplicaAnswer *a = answerOf(b);
            if (!a || a->epoch != epoch)
                continue;
            anyAnswer = anyAnswer ? anyAnswer : a;
            if (a->masterAddr == b->address) {
                master = b->address;
                masterAnswer = a;
            } else if (master.isEmpty()) {
                master = a->masterAddr;
            }
        }
        if (master.isEmpty()) {
            for (const BrokerInfo *b : members) {
                if (b->registered && b->brokerId == 0)
                    master = b->address;
            }
        }
        if (epoch > 0 && (epoch > st.epoch || (epoch == st.epoch && master != st.master))) {
            ElectionEvent e;
            e.epochMs = QDateTime::currentMSecsSinceEpoch();
            e.epoch = epoch;
            e.master = master;
            e.previousMaster = st.master;
            e.live = st.epoch > 0;
            if (e.live)
                st.changedMono = nowMono();
            st.history.push_front(std::move(e));
            while (st.history.size() > std::size_t(kElectionHistory))
                st.history.pop_back();
        }
        if (epoch > 0) {
            st.epoch = epoch;
            st.master = master;
            const ReplicaAnswer *setFrom = masterAnswer ? masterAnswer : anyAnswer;
            st.syncStateSet = setFrom ? setFrom->syncStateSet : std::vector<QByteArray> {};
            st.masterMaxOffset = masterAnswer ? masterAnswer->maxOffset : -1;
        }
        st.replicas.clear();
        for (const BrokerInfo *b : members) {
            ReplicaView v;
            v.address = b->address;
            v.registered = b->registered;
            v.inSyncStateSet = std::find(st.syncStateSet.begin(), st.syncStateSet.end(), b->address)
                != st.syncStateSet.end();
            if (const ReplicaAnswer *a = answerOf(b)) {
                v.role = b->address == st.master ? ReplicaView::Role::Master
                                                 : ReplicaView::Role::Follower;
                v.maxOffset = a->maxOffset;
                if (st.masterMaxOffset >= 0)
                    v.behind = std::max<std::int64_t>(0, st.masterMaxOffset - a->maxOffset);
            } else {
                auto it = m_replicaAnswers.find(b->address);
                v.error = !b->registered           ? tr("not registered at the name server")
                    : it != m_replicaAnswers.end() ? it->second.error
                                                   : tr("not answered yet");
            }
            st.replicas.push_back(std::move(v));
        }
        std::stable_sort(st.replicas.begin(), st.replicas.end(),
            [&](const ReplicaView &a, const ReplicaView &b) {
                const bool am = a.address == st.master;
                const bool bm = b.address == st.master;
                return am != bm ? am : a.address < b.address;
            });
        next.push_back(std::move(st));
    }
    m_elections = std::move(next);
    emit electionsUpdated();
}

} // namespace qrocket::console
