#pragma once

// ControllerMode: runs a broker whose role is decided by the election through etcd
// (enableControllerMode=true; Elector). It owns the Elector, the broker's EpochFile and the
// BrokerController, and switches the broker's role at run time by replacing the controller
// in-process with one started in the new role, so that a promoted slave comes up exactly as a
// master starts (HA server accepting, puts accepted, schedule, timer and POP services started,
// registered with the name servers at once as brokerId 0) and a demoted master exactly as a
// slave does; the store is closed and reopened in between (the store, the ports and the etcd
// lease stay this process's).
//
//   - start: the broker runs as a slave without a master (puts refused) while the election
//     decides; its commit-log end is what a win records as the new epoch's start.
//   - becameMaster: restarted as brokerId 0 with the file's master role (SYNC_MASTER unless
//     ASYNC_MASTER was given); every put also asks the elector (writesAllowed(): the lease is
//     surely held), so a master that cannot renew its lease refuses puts before another broker
//     can be elected.
//   - following: restarted as a slave (brokerId 1 unless the file gives a positive brokerId) of
//     the elected master's HA address. Before it follows, its commit log is cut to the last
//     offset its epoch history shares with the master's (EpochFile::truncationPoint: a deposed
//     master drops what it wrote after the new master's epoch began, none of which was
//     acknowledged under SYNC replication), then it adopts the master's history.
//   - fenced: puts are refused at once (the gate); the broker keeps running until the election
//     says whom to follow.
//
// Threads: the owning thread's event loop (the daemon's main thread).

#include "broker/config/brokerconfig.h"
#include "storage/core/diskspace.h"
#include "storage/core/storeconfig.h"

#include <QObject>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace qrocket::broker {
class BrokerController;
}

namespace qrocket::broker::controller {

class Elector;
class EpochFile;
struct ElectionRecord;

class ControllerMode final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ControllerMode)

public:
    /// `config` and `storeConfig` validated, config.enableControllerMode set.
    ControllerMode(const BrokerConfig &config, const storage::MessageStoreConfig &storeConfig,
        QObject *parent = nullptr);
    ~ControllerMode() override;

    /// The disk-space probe of every broker it starts (the daemon's QROCKET_DISK_SPACE_FILE
    /// test seam); before start(). Unset: statvfs.
    void setDiskSpaceProbe(storage::DiskSpaceProbe probe) { m_diskSpaceProbe = std::move(probe); }
    /// Opens the store as a slave, starts serving and joins the election.
    Status start();
    /// Resigns (a master revokes its lease: the others elect at once) and stops the broker.
    void shutdown();

    /// The running broker (replaced at every role change); null between two.
    BrokerController *broker() { return m_broker.get(); }
    Elector &elector() { return *m_elector; }

    /// Cuts the commit log in `storeConfig`'s directory at `offset` (files starting at or after it
    /// removed, the one holding it zeroed from there) and leaves the `abort` marker, so the next
    /// open recovers fully (consume queues and index are cut too). The store must be closed.
    static Status truncateCommitLog(
        const storage::MessageStoreConfig &storeConfig, std::int64_t offset);

private:
    /// Replaces the running broker with one in the given role; `master` null: a slave of
    /// nobody yet.
    Status restart(bool asMaster, const ElectionRecord *master);
    Status startBroker(bool asMaster, const QByteArray &haMaster);
    void onBecameMaster(std::int64_t epoch);
    void onFollowing(const ElectionRecord &master);
    std::int64_t commitLogEndForCampaign();
    /// Master: acknowledgements wait for the HA connections `haPeers` (Elector::AckRuleHook),
    /// as allAckInSyncStateSet/inSyncReplicas say; `setSize` for minInSyncReplicas.
    void applyAckRule(const std::vector<QByteArray> &haPeers, int setSize);
    /// Copies the epoch file's entries where the broker's GET_BROKER_EPOCH_CACHE reads them
    /// (an admin thread): after every change of the file.
    void publishHistory();

    BrokerConfig m_config;
    storage::MessageStoreConfig m_storeConfig;
    storage::DiskSpaceProbe m_diskSpaceProbe;
    std::unique_ptr<EpochFile> m_epochs;
    std::unique_ptr<BrokerController> m_broker;
    std::unique_ptr<Elector> m_elector; // after m_broker: destroyed first
    bool m_shutdown = false;
    std::mutex m_historyMutex;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_history; // guarded by m_historyMutex
};

} // namespace qrocket::broker::controller
