#include "broker/controller/elector.h"

#include "broker/common/logging.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>

namespace qrocket::broker::controller {

namespace {
constexpr std::size_t kHistoryKept = 32;
} // namespace

std::int64_t Elector::steadyNowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

QByteArray ElectionRecord::toJson() const
{
    QJsonArray sss;
    for (const QByteArray &m : syncStateSet)
        sss.append(QString::fromUtf8(m));
    QJsonArray history;
    for (const EpochEntry &e : epochs)
        history.append(QJsonArray {QString::number(e.epoch), QString::number(e.startOffset)});
    const QJsonObject o {{QStringLiteral("masterAddr"), QString::fromUtf8(masterAddr)},
        {QStringLiteral("masterHaAddr"), QString::fromUtf8(masterHaAddr)},
        {QStringLiteral("epoch"), QString::number(epoch)}, {QStringLiteral("syncStateSet"), sss},
        {QStringLiteral("epochs"), history}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

std::optional<ElectionRecord> ElectionRecord::fromJson(const QByteArray &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (!doc.isObject())
        return std::nullopt;
    const QJsonObject o = doc.object();
    ElectionRecord r;
    bool ok = false;
    r.masterAddr = o.value(QLatin1String("masterAddr")).toString().toUtf8();
    r.masterHaAddr = o.value(QLatin1String("masterHaAddr")).toString().toUtf8();
    r.epoch = o.value(QLatin1String("epoch")).toString().toLongLong(&ok);
    if (!ok || r.epoch <= 0 || r.masterAddr.isEmpty())
        return std::nullopt;
    for (const QJsonValue &m : o.value(QLatin1String("syncStateSet")).toArray())
        r.syncStateSet.push_back(m.toString().toUtf8());
    for (const QJsonValue &v : o.value(QLatin1String("epochs")).toArray()) {
        const QJsonArray pair = v.toArray();
        bool okE = false;
        bool okO = false;
        EpochEntry e {
            pair.at(0).toString().toLongLong(&okE), pair.at(1).toString().toLongLong(&okO)};
        if (pair.size() != 2 || !okE || !okO)
            return std::nullopt;
        r.epochs.push_back(e);
    }
    return r;
}

bool ElectionRecord::inSyncStateSet(const QByteArray &addr) const
{
    return std::find(syncStateSet.begin(), syncStateSet.end(), addr) != syncStateSet.end();
}

Elector::Elector(std::unique_ptr<EtcdClient> etcd, ElectorOptions options,
    std::function<std::int64_t()> commitLogEnd, EpochFile &epochs, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_commitLogEnd(std::move(commitLogEnd))
    , m_epochs(epochs)
    , m_etcd(std::move(etcd))
{
    m_options.leaseTtlSeconds = std::max(1, m_options.leaseTtlSeconds);
    m_options.pollIntervalMs = std::max(10, m_options.pollIntervalMs);
    m_options.fenceMarginMs
        = std::clamp(m_options.fenceMarginMs, 0, m_options.leaseTtlSeconds * 1000 / 2);
    m_pollTimer.setInterval(m_options.pollIntervalMs);
    m_keepAliveTimer.setInterval(std::max(100, m_options.leaseTtlSeconds * 1000 / 3));
    m_fenceTimer.setInterval(20);
    connect(&m_pollTimer, &QTimer::timeout, this, &Elector::tick);
    connect(&m_keepAliveTimer, &QTimer::timeout, this, &Elector::sendKeepAlive);
    connect(&m_fenceTimer, &QTimer::timeout, this, &Elector::checkFence);
}

Elector::~Elector()
{
    m_writable.store(false, std::memory_order_release);
}

QByteArray Elector::masterKey() const
{
    return "/qrocket/" + m_options.clusterName + '/' + m_options.brokerName + "/master";
}

QByteArray Elector::stateKey() const
{
    return "/qrocket/" + m_options.clusterName + '/' + m_options.brokerName + "/state";
}

void Elector::start()
{
    if (m_role != Role::Stopped)
        return;
    m_role = Role::Candidate;
    m_pollTimer.start();
    m_keepAliveTimer.start();
    m_fenceTimer.start();
    tick();
}

void Elector::stop(bool resign)
{
    m_pollTimer.stop();
    m_keepAliveTimer.stop();
    m_fenceTimer.stop();
    m_writable.store(false, std::memory_order_release);
    const bool wasMaster = m_role == Role::Master;
    m_role = Role::Stopped;
    if (resign && wasMaster && m_leaseId != 0) {
        qCInfo(lcBrokerHa).noquote() << "controller: resigning as master of" << m_options.brokerName
                                     << "epoch" << m_record.epoch;
        m_etcd->revokeLease(m_leaseId, [](Status st) {
            if (!st)
                qCWarning(lcBrokerHa).noquote() << "controller: resign:" << st.message();
        });
    }
    m_leaseId = 0;
}

void Elector::etcdTrouble(const QString &what)
{
    // etcd down or slow: every poll fails alike; one line at once, then one per 10 s.
    const std::int64_t now = steadyNowMs();
    if (m_lastTroubleLogMs != 0 && now - m_lastTroubleLogMs < 10000) {
        ++m_troubleSkipped;
        return;
    }
    qCWarning(lcBrokerHa).noquote()
        << "controller: etcd:" << what
        << (m_troubleSkipped ? QStringLiteral("(%1 more since)").arg(m_troubleSkipped) : QString());
    m_lastTroubleLogMs = now;
    m_troubleSkipped = 0;
}

void Elector::tick()
{
    if (m_role == Role::Stopped)
        return;
    if (m_leaseId == 0) {
        ensureLease();
        return;
    }
    observe();
    reportReplica();
    if (m_role == Role::Master)
        manageSyncStateSet();
}

QByteArray Elector::replicasPrefix() const
{
    return "/qrocket/" + m_options.clusterName + '/' + m_options.brokerName + "/replicas/";
}

void Elector::reportReplica()
{
    if (!m_replicaOffset || m_reportPending || m_leaseId == 0)
        return;
    const std::int64_t epoch
        = m_role == Role::Master || m_role == Role::Follower ? m_record.epoch : 0;
    const QJsonObject o {{QStringLiteral("offset"), QString::number(m_replicaOffset())},
        {QStringLiteral("epoch"), QString::number(epoch)},
        {QStringLiteral("ha"),
            QString::fromUtf8(
                m_haLocalAddress && m_role == Role::Follower ? m_haLocalAddress() : QByteArray())}};
    m_reportPending = true;
    m_etcd->put(replicasPrefix() + m_options.brokerAddr,
        QJsonDocument(o).toJson(QJsonDocument::Compact), m_leaseId, [this](Status st) {
            m_reportPending = false;
            if (!st)
                qCDebug(lcBrokerHa).noquote() << "controller: replica report:" << st.message();
        });
}

void Elector::publishAckRule(std::vector<QByteArray> peers)
{
    if (peers == m_ackPeers)
        return;
    m_ackPeers = std::move(peers);
    if (m_ackRule)
        m_ackRule(m_ackPeers, int(m_record.syncStateSet.size()));
}

void Elector::manageSyncStateSet()
{
    if (!m_replicaOffset || m_managePending)
        return;
    const std::int64_t mark = m_caughtUpMark;
    m_caughtUpMark = m_replicaOffset();
    if (mark < 0)
        return;
    m_managePending = true;
    const QByteArray prefix = replicasPrefix();
    m_etcd->list(prefix, [this, prefix, mark](Result<std::vector<EtcdKeyValue>> replicas) {
        if (!replicas || m_role != Role::Master) {
            m_managePending = false;
            return;
        }
        struct Seen
        {
            std::int64_t offset = -1;
            std::int64_t epoch = 0;
            QByteArray ha;
        };
        std::map<QByteArray, Seen> seen;
        for (const EtcdKeyValue &kv : *replicas) {
            const QJsonObject o = QJsonDocument::fromJson(kv.value).object();
            seen[kv.key.mid(prefix.size())]
                = {o.value(QLatin1String("offset")).toString().toLongLong(),
                    o.value(QLatin1String("epoch")).toString().toLongLong(),
                    o.value(QLatin1String("ha")).toString().toUtf8()};
        }
        // What a replica has: its HA connection's acknowledgement when the master can tell
        // (a replica not connected has nothing), else the offset it reported to etcd.
        auto has = [&](const Seen &r) -> std::int64_t {
            if (r.epoch != m_record.epoch)
                return -1;
            if (m_haAckOf)
                return r.ha.isEmpty() ? -1 : m_haAckOf(r.ha);
            return r.offset;
        };
        const std::int64_t now = steadyNowMs();
        std::vector<QByteArray> members = m_record.syncStateSet;
        std::vector<QByteArray> joined;
        std::vector<QByteArray> removed;
        // Shrink: a member that has not caught up for maxNotCatchupMs.
        for (const QByteArray &m : m_record.syncStateSet) {
            if (m == m_options.brokerAddr)
                continue;
            const auto r = seen.find(m);
            const auto at = m_caughtUpAt.try_emplace(m, now).first;
            if (r != seen.end() && has(r->second) >= mark)
                at->second = now;
            else if (now - at->second > m_options.maxNotCatchupMs)
                removed.push_back(m);
        }
        // Widen: phase 1 (it keeps up: acknowledgements wait for it from now on), phase 2 (it
        // has everything written until phase 1: it joins).
        for (const auto &[addr, r] : seen) {
            if (r.epoch != m_record.epoch || m_record.inSyncStateSet(addr))
                continue;
            const std::int64_t offset = has(r);
            const auto joining = m_joining.find(addr);
            if (joining == m_joining.end()) {
                if (offset < mark)
                    continue;
                m_joining.emplace(addr, Joining {m_replicaOffset(), now});
                qCInfo(lcBrokerHa).noquote() << "controller:" << addr << "caught up (at" << offset
                                             << "): acknowledgements wait for it from now on";
                continue;
            }
            if (offset >= joining->second.target) {
                qCInfo(lcBrokerHa).noquote() << "controller:" << addr << "at" << offset
                                             << "joins the SyncStateSet of epoch" << r.epoch;
                joined.push_back(addr);
            }
        }
        for (auto it = m_joining.begin(); it != m_joining.end();) {
            const bool gone = std::find(joined.begin(), joined.end(), it->first) == joined.end()
                && now - it->second.sinceMs > m_options.maxNotCatchupMs;
            if (gone)
                qCInfo(lcBrokerHa).noquote() << "controller:" << it->first
                                             << "did not catch up: not joining the SyncStateSet";
            it = gone ? m_joining.erase(it) : std::next(it);
        }
        // Acknowledgements wait for every member (a removed one too, until its removal is
        // recorded) and every replica about to join.
        auto peersFor = [&, seen](const std::vector<QByteArray> &set) {
            std::vector<QByteArray> peers;
            auto add = [&](const QByteArray &addr) {
                const auto r = seen.find(addr);
                peers.push_back(r != seen.end() && !r->second.ha.isEmpty()
                        ? r->second.ha
                        : "(not connected) " + addr);
            };
            for (const QByteArray &m : set)
                if (m != m_options.brokerAddr)
                    add(m);
            for (const auto &j : m_joining)
                if (std::find(set.begin(), set.end(), j.first) == set.end())
                    add(j.first);
            return peers;
        };
        publishAckRule(peersFor(members));
        if (joined.empty() && removed.empty()) {
            m_managePending = false;
            return;
        }
        for (const QByteArray &m : removed) {
            qCWarning(lcBrokerHa).noquote()
                << "controller:" << m << "has not caught up for more than"
                << m_options.maxNotCatchupMs << "ms (haMaxTimeSlaveNotCatchup): leaving the "
                << "SyncStateSet of epoch" << m_record.epoch;
            members.erase(std::find(members.begin(), members.end(), m));
        }
        for (const QByteArray &j : joined)
            members.push_back(j);
        setSyncStateSet(members, [this, joined, peersFor](bool ok) {
            m_managePending = false;
            if (!ok || m_role != Role::Master)
                return; // not recorded: acknowledgements keep waiting for every member
            const std::int64_t at = steadyNowMs();
            for (const QByteArray &j : joined) {
                m_joining.erase(j);
                m_caughtUpAt[j] = at;
            }
            for (auto it = m_caughtUpAt.begin(); it != m_caughtUpAt.end();)
                it = m_record.inSyncStateSet(it->first) ? std::next(it) : m_caughtUpAt.erase(it);
            // Recorded: from now on acknowledgements skip the removed members.
            m_ackPeers.clear(); // the set's size changed: always tell
            publishAckRule(peersFor(m_record.syncStateSet));
            qCInfo(lcBrokerHa).noquote() << "controller: SyncStateSet of epoch" << m_record.epoch
                                         << "is now" << m_record.syncStateSet.size() << "replicas";
        });
    });
}

void Elector::ensureLease()
{
    if (m_leasePending)
        return;
    m_leasePending = true;
    const std::int64_t sentAt = steadyNowMs();
    m_etcd->grantLease(m_options.leaseTtlSeconds, [this, sentAt](Result<EtcdLease> lease) {
        m_leasePending = false;
        if (m_role == Role::Stopped)
            return;
        if (!lease) {
            etcdTrouble(QStringLiteral("no lease: ") + lease.error().message());
            return;
        }
        m_leaseId = lease->id;
        m_leaseDeadlineMs = sentAt + lease->ttl * 1000 - m_options.fenceMarginMs;
        observe();
    });
}

void Elector::sendKeepAlive()
{
    if (m_leaseId == 0 || m_keepAlivePending || m_role == Role::Stopped)
        return;
    m_keepAlivePending = true;
    const std::int64_t sentAt = steadyNowMs();
    const std::int64_t id = m_leaseId;
    m_etcd->keepAlive(id, [this, sentAt, id](Result<EtcdLease> lease) {
        m_keepAlivePending = false;
        if (id != m_leaseId || m_role == Role::Stopped)
            return; // a lease given up meanwhile
        if (lease) {
            m_leaseDeadlineMs = sentAt + lease->ttl * 1000 - m_options.fenceMarginMs;
            return;
        }
        if (lease.error().code() == Status::Code::NotFound) {
            m_leaseId = 0; // gone at etcd: a new one on the next tick
            fence(QStringLiteral("etcd lease lost: ") + lease.error().message());
            return;
        }
        etcdTrouble(QStringLiteral("keep-alive: ") + lease.error().message());
        checkFence();
    });
}

void Elector::checkFence()
{
    if (m_leaseId == 0 || steadyNowMs() < m_leaseDeadlineMs)
        return;
    // Not renewed in time: etcd may expire the lease from now on. A master stops writing now,
    // before anyone can take its key; anyone gives the lease up and asks for a new one.
    m_leaseId = 0;
    fence(QStringLiteral("etcd lease not renewed within its TTL (%1 s)")
              .arg(m_options.leaseTtlSeconds));
}

void Elector::fence(const QString &why)
{
    m_writable.store(false, std::memory_order_release);
    if (m_role != Role::Master)
        return;
    m_role = Role::Candidate;
    qCWarning(lcBrokerHa).noquote() << "controller: master of" << m_options.brokerName << "epoch"
                                    << m_record.epoch << "fenced:" << why;
    emit fenced(why);
}

void Elector::observe()
{
    if (m_observePending || m_leaseId == 0 || m_role == Role::Stopped)
        return;
    m_observePending = true;
    m_etcd->get(masterKey(), [this](Result<std::optional<EtcdKeyValue>> got) {
        if (m_role == Role::Stopped) {
            m_observePending = false;
            return;
        }
        if (!got) {
            m_observePending = false;
            etcdTrouble(QStringLiteral("read master: ") + got.error().message());
            return;
        }
        if (got->has_value()) {
            m_observePending = false;
            const EtcdKeyValue &kv = **got;
            const auto rec = ElectionRecord::fromJson(kv.value);
            if (!rec) {
                qCCritical(lcBrokerHa).noquote()
                    << "controller: unreadable master record in etcd:" << kv.value;
                return;
            }
            if (rec->masterAddr == m_options.brokerAddr) {
                if (kv.lease == m_leaseId) {
                    setRecord(*rec); // ours, as written
                } else if (m_role != Role::Master && kv.lease != 0) {
                    // Held by a lease of ours given up after a fence: let it go at once.
                    m_etcd->revokeLease(kv.lease, [](Status) {});
                }
                return;
            }
            if (m_role == Role::Master)
                fence(QStringLiteral("etcd names another master: ")
                    + QString::fromUtf8(rec->masterAddr));
            const bool changed = m_role != Role::Follower || rec->masterAddr != m_record.masterAddr
                || rec->epoch != m_record.epoch;
            m_role = Role::Follower;
            setRecord(*rec);
            if (changed) {
                qCInfo(lcBrokerHa).noquote() << "controller:" << m_options.brokerName << "master is"
                                             << rec->masterAddr << "epoch" << rec->epoch;
                emit following(*rec);
            }
            return;
        }
        if (m_role == Role::Master) { // our key is gone: the lease expired at etcd
            m_observePending = false;
            m_leaseId = 0;
            fence(QStringLiteral("master key gone from etcd"));
            return;
        }
        m_etcd->get(stateKey(), [this](Result<std::optional<EtcdKeyValue>> state) {
            if (!state || m_role == Role::Stopped) {
                m_observePending = false;
                if (!state)
                    etcdTrouble(QStringLiteral("read state: ") + state.error().message());
                return;
            }
            campaign(*state);
        });
    });
}

void Elector::campaign(const std::optional<EtcdKeyValue> &stateKv)
{
    std::optional<ElectionRecord> state;
    if (stateKv) {
        state = ElectionRecord::fromJson(stateKv->value);
        if (!state) {
            m_observePending = false;
            qCCritical(lcBrokerHa).noquote()
                << "controller: unreadable state record in etcd:" << stateKv->value;
            return;
        }
        if (!state->inSyncStateSet(m_options.brokerAddr)) {
            m_observePending = false;
            m_role = Role::Candidate;
            qCDebug(lcBrokerHa).noquote()
                << "controller: not in the SyncStateSet of" << m_options.brokerName << "epoch"
                << state->epoch << ": waiting for a master";
            return;
        }
    }
    ElectionRecord next;
    next.masterAddr = m_options.brokerAddr;
    next.masterHaAddr = m_options.haAddr;
    next.epoch = std::max(state ? state->epoch : 0, m_epochs.lastEpoch()) + 1;
    next.syncStateSet = {m_options.brokerAddr};
    if (state)
        next.epochs = state->epochs;
    next.epochs.push_back({next.epoch, m_commitLogEnd()});
    if (next.epochs.size() > kHistoryKept)
        next.epochs.erase(next.epochs.begin(), next.epochs.end() - kHistoryKept);
    const QByteArray json = next.toJson();
    std::vector<EtcdCompare> compares {{masterKey(), EtcdCompare::Target::Create, 0}};
    compares.push_back(stateKv
            ? EtcdCompare {stateKey(), EtcdCompare::Target::Mod, stateKv->modRevision}
            : EtcdCompare {stateKey(), EtcdCompare::Target::Create, 0});
    const std::int64_t lease = m_leaseId;
    m_etcd->txnPut(compares, {{masterKey(), json, lease}, {stateKey(), json, 0}}, {},
        [this, next, lease](Result<EtcdTxnResult> r) {
            m_observePending = false;
            if (m_role == Role::Stopped || lease != m_leaseId)
                return;
            if (!r) {
                etcdTrouble(QStringLiteral("campaign: ") + r.error().message());
                return;
            }
            if (r->succeeded)
                won(next, r->revision);
            // Lost: someone else won or the state moved; the next poll sees who.
        });
}

void Elector::won(const ElectionRecord &record, std::int64_t masterCreateRevision)
{
    const EpochEntry entry = record.epochs.back();
    if (Status st = m_epochs.append(entry.epoch, entry.startOffset); !st) {
        // Without the history this broker could not truncate correctly later: give the
        // mastership back at once rather than serve without it.
        qCCritical(lcBrokerHa).noquote() << "controller: epoch file:" << st.message();
        m_etcd->revokeLease(m_leaseId, [](Status) {});
        m_leaseId = 0;
        return;
    }
    setRecord(record);
    m_masterCreateRevision = masterCreateRevision;
    m_caughtUpMark = -1;
    m_joining.clear();
    m_caughtUpAt.clear();
    m_ackPeers.clear();
    m_role = Role::Master;
    m_writable.store(steadyNowMs() < m_leaseDeadlineMs, std::memory_order_release);
    qCInfo(lcBrokerHa).noquote() << "controller:" << m_options.brokerAddr << "is master of"
                                 << m_options.brokerName << "epoch" << record.epoch << "from offset"
                                 << entry.startOffset;
    emit becameMaster(record.epoch);
    checkFence();
}

void Elector::setRecord(ElectionRecord record)
{
    m_record = std::move(record);
    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = m_record;
}

void Elector::setSyncStateSet(std::vector<QByteArray> members, std::function<void(bool)> done)
{
    auto finish = [done = std::move(done)](bool ok) {
        if (done)
            done(ok);
    };
    if (m_role != Role::Master || m_leaseId == 0)
        return finish(false);
    ElectionRecord next = m_record;
    next.syncStateSet = {m_options.brokerAddr};
    for (QByteArray &m : members)
        if (!next.inSyncStateSet(m))
            next.syncStateSet.push_back(std::move(m));
    const QByteArray json = next.toJson();
    const std::int64_t lease = m_leaseId;
    m_etcd->txnPut({{masterKey(), EtcdCompare::Target::Create, m_masterCreateRevision}},
        {{masterKey(), json, lease}, {stateKey(), json, 0}}, {},
        [this, next, lease, finish](Result<EtcdTxnResult> r) {
            const bool ok = r && r->succeeded && lease == m_leaseId && m_role == Role::Master;
            if (ok)
                setRecord(next);
            else
                qCWarning(lcBrokerHa).noquote()
                    << "controller: SyncStateSet not recorded:"
                    << (r ? QStringLiteral("no longer master") : r.error().message());
            finish(ok);
        });
}

} // namespace qrocket::broker::controller
