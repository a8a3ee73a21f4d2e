#pragma once

// Elector: one broker's part in controller mode's election through etcd (issue 28). Every
// broker of a brokerName holds an etcd lease (leaseTtlSeconds) and keeps it alive every third
// of the TTL. Two keys per brokerName:
//
//   /qrocket/<cluster>/<brokerName>/master  bound to the master's lease: who is master now
//   /qrocket/<cluster>/<brokerName>/state   no lease: the last epoch, SyncStateSet and epoch
//                                           history (survives the master's lease)
//
// Both hold JSON (ElectionRecord). A broker finding no master key campaigns when it may: when
// there is no state yet (a new brokerName) or it is in the state's SyncStateSet (only a replica
// that had every acknowledged record may take over). The campaign is one transaction: "master
// absent and state unchanged since I read it" -> put master (bound to my lease) and state, with
// epoch + 1, SyncStateSet {me} and ⟨epoch, my commit-log end⟩ appended to the history. The
// winner records the entry in its EpochFile and emits becameMaster(); the others see the key
// on their next poll (pollIntervalMs) and emit following(). The master widens or narrows the
// SyncStateSet with setSyncStateSet() (a transaction guarded by its own master key).
//
// Fencing: the master may accept writes only while its lease is surely alive at etcd. Each
// successful keep-alive extends the local deadline to the moment the request was *sent* plus
// the TTL (etcd counts from when it received it, later), minus a margin (fenceMarginMs); when
// the deadline passes without a renewal the elector fences itself at once (writesAllowed()
// false, fenced() emitted), so the old master stops before etcd expires the lease, deletes the
// master key and lets another broker win. A keep-alive answered "lease not found" fences too.
// A fenced master drops its lease, takes a new one and campaigns again like any candidate.
//
// Threads: the owning thread's event loop (timers, the EtcdClient's callbacks). writesAllowed()
// may be read from any thread (the send path).

#include "broker/controller/epochfile.h"
#include "broker/controller/etcdclient.h"

#include <QByteArray>
#include <QObject>
#include <QTimer>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace qrocket::broker::controller {

struct ElectorOptions
{
    QByteArray clusterName;
    QByteArray brokerName;
    QByteArray brokerAddr; // this broker's identity in the SyncStateSet: "ip:port"
    QByteArray haAddr; // where slaves connect: "ip:haPort"
    int leaseTtlSeconds = 5;
    int pollIntervalMs = 500;
    int fenceMarginMs = 500;
    /// haMaxTimeSlaveNotCatchup: a SyncStateSet member that has not caught up for this long
    /// leaves the set (recorded in etcd before acknowledgements stop waiting for it).
    std::int64_t maxNotCatchupMs = 15000;
};

/// The JSON of both keys.
struct ElectionRecord
{
    QByteArray masterAddr;
    QByteArray masterHaAddr;
    std::int64_t epoch = 0;
    std::vector<QByteArray> syncStateSet;
    std::vector<EpochEntry> epochs; // the history, oldest first (the last 32 epochs)

    QByteArray toJson() const;
    static std::optional<ElectionRecord> fromJson(const QByteArray &json);
    bool inSyncStateSet(const QByteArray &addr) const;
};

class Elector final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Elector)

public:
    enum class Role { Stopped, Candidate, Follower, Master };

    /// `commitLogEnd` gives this broker's commit-log end (the new epoch's start when it wins);
    /// `epochs` is its epoch file, loaded; both must outlive the elector. The elector owns the
    /// client and destroys it first, so no etcd callback runs into a half-destroyed elector.
    Elector(std::unique_ptr<EtcdClient> etcd, ElectorOptions options,
        std::function<std::int64_t()> commitLogEnd, EpochFile &epochs, QObject *parent = nullptr);
    ~Elector() override;

    void start();
    /// Stops campaigning; `resign`: a master revokes its lease (the key goes at once, another
    /// broker wins without waiting for the TTL). Bounded by the client's request timeout.
    void stop(bool resign);

    Role role() const { return m_role; }
    /// True only on a master whose lease is surely alive (any thread): also false once the
    /// lease deadline passed while this thread was held up (a stopped process resumed), before
    /// the fence timer ran.
    bool writesAllowed() const
    {
        return m_writable.load(std::memory_order_acquire)
            && steadyNowMs() < m_leaseDeadlineMs.load(std::memory_order_acquire);
    }
    /// The steady clock in ms (the lease deadline's clock).
    static std::int64_t steadyNowMs();
    std::int64_t epoch() const { return m_record.epoch; }
    /// The master record last seen (master: its own).
    const ElectionRecord &record() const { return m_record; }
    /// A copy of record(), from any thread (the admin thread answers GET_BROKER_EPOCH_CACHE
    /// with its master and SyncStateSet).
    ElectionRecord recordSnapshot() const
    {
        std::lock_guard lock(m_snapshotMutex);
        return m_snapshot;
    }
    QByteArray masterKey() const;
    QByteArray stateKey() const;

    /// This broker's commit-log end, read without side effects (any role): reported to etcd
    /// every poll under /qrocket/<cluster>/<brokerName>/replicas/<brokerAddr> (bound to the
    /// lease) with the epoch it follows. The master widens the SyncStateSet with each replica
    /// that follows its epoch and whose log reached where the master's ended one poll before
    /// (it has everything up to there and keeps up). Set before start(); without it nothing is
    /// reported and the SyncStateSet stays {master}.
    void setReplicaOffsetProvider(std::function<std::int64_t()> provider)
    {
        m_replicaOffset = std::move(provider);
    }
    QByteArray replicasPrefix() const;
    /// The master's acknowledgement rule, called whenever it changes: `haPeers` are the HA
    /// connections ("ip:port" of the replicas' ends, as they report them) that acknowledgements
    /// must wait for: the set's members but this broker, and replicas about to join (a member
    /// whose connection is unknown gets a name no connection has); `setSize` is the recorded
    /// SyncStateSet's size. A replica that qualifies is added here before it is recorded in the
    /// set, and joins once it also has the log up to where it was at that moment (so it holds
    /// everything acknowledged before, and nothing is acknowledged without it after). A member
    /// leaves here only after its removal from the set is recorded in etcd. Set before start().
    using AckRuleHook = std::function<void(const std::vector<QByteArray> &haPeers, int setSize)>;
    void setReplicaAcksHook(AckRuleHook hook) { m_ackRule = std::move(hook); }
    /// This broker's end of its HA connection to the master ("ip:port", empty when not
    /// connected): reported to etcd with the replica's offset. Set before start().
    void setHaLocalAddressProvider(std::function<QByteArray()> provider)
    {
        m_haLocalAddress = std::move(provider);
    }
    /// On the master: what the HA connection from `haPeer` acknowledged (-1: no such live
    /// connection). With it, "caught up" is measured on the acknowledgements rather than on the
    /// offsets replicas report to etcd. Set before start().
    void setHaAckProvider(std::function<std::int64_t(const QByteArray &haPeer)> provider)
    {
        m_haAckOf = std::move(provider);
    }

    /// Master only: records `members` (this broker is always kept) as the SyncStateSet in both
    /// keys; `done` gets the outcome (false: not master any more, or etcd failed).
    void setSyncStateSet(std::vector<QByteArray> members, std::function<void(bool)> done = {});

signals:
    void becameMaster(std::int64_t epoch);
    /// Another broker is master (emitted when the master or its epoch changes).
    void following(const qrocket::broker::controller::ElectionRecord &master);
    /// This master stopped accepting writes (lease not renewed in time, or lost).
    void fenced(const QString &why);

private:
    void tick();
    void ensureLease();
    void sendKeepAlive();
    void checkFence();
    void fence(const QString &why);
    void observe();
    void campaign(const std::optional<EtcdKeyValue> &state);
    void won(const ElectionRecord &record, std::int64_t masterCreateRevision);
    void reportReplica();
    void etcdTrouble(const QString &what);
    /// Master, every poll: widens the SyncStateSet with replicas that caught up and shrinks it
    /// by members that did not for maxNotCatchupMs (README: the rules).
    void manageSyncStateSet();
    void publishAckRule(std::vector<QByteArray> peers);
    /// Every change of m_record goes through here (it keeps recordSnapshot() in step).
    void setRecord(ElectionRecord record);

    ElectorOptions m_options;
    std::function<std::int64_t()> m_commitLogEnd;
    std::function<std::int64_t()> m_replicaOffset;
    bool m_reportPending = false;
    bool m_managePending = false;
    std::int64_t m_caughtUpMark = -1; // the master's log end one poll ago (-1: not yet)
    AckRuleHook m_ackRule;
    std::function<QByteArray()> m_haLocalAddress;
    std::function<std::int64_t(const QByteArray &)> m_haAckOf;
    std::vector<QByteArray> m_ackPeers; // as last published; cleared on every win
    // Each member's last poll at which it had caught up (steadyNowMs()); cleared on every win.
    std::map<QByteArray, std::int64_t> m_caughtUpAt;
    std::int64_t m_lastTroubleLogMs = 0;
    std::int64_t m_troubleSkipped = 0;
    // Replicas that qualified, with the master's log end when acknowledgements started to wait
    // for them (they join once they reach it) and when: one that does not reach it within
    // maxNotCatchupMs is given up. Cleared on every win.
    struct Joining
    {
        std::int64_t target = 0;
        std::int64_t sinceMs = 0;
    };
    std::map<QByteArray, Joining> m_joining;
    EpochFile &m_epochs;

    Role m_role = Role::Stopped;
    std::atomic<bool> m_writable {false};
    ElectionRecord m_record;
    mutable std::mutex m_snapshotMutex;
    ElectionRecord m_snapshot; // guarded by m_snapshotMutex: m_record, for other threads
    std::int64_t m_leaseId = 0;
    bool m_leasePending = false;
    bool m_keepAlivePending = false;
    bool m_observePending = false;
    // steadyNowMs() by which the master must stop writing; read by writesAllowed() anywhere.
    std::atomic<std::int64_t> m_leaseDeadlineMs {0};
    std::int64_t m_masterCreateRevision = 0; // the master key's, while master
    std::int64_t m_generation = 0; // bumps on every lease change: stale callbacks are ignored
    QTimer m_pollTimer;
    QTimer m_keepAliveTimer;
    QTimer m_fenceTimer;
    std::unique_ptr<EtcdClient> m_etcd; // last: destroyed first (drops pending callbacks)
};

} // namespace qrocket::broker::controller
