#pragma once

// The soak's cluster: one etcd, one qrocket-namesrv and 2 or 3 qrocket-broker replicas of one
// brokerName in controller mode (SYNC: allAckInSyncStateSet), real processes on loopback with
// their data under one directory. It reads the election record from etcd (who is master, the
// SyncStateSet), SIGKILLs and restarts replicas, and samples each daemon's RSS, open files and
// threads from /proc. Every call runs on the main thread (QProcess and the etcd client live
// there); waits inside are bounded.

#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace qrocket::broker::controller {
class EtcdClient;
}

namespace qrocket::soak {

inline const QByteArray kCluster = QByteArrayLiteral("SoakCluster");
inline const QByteArray kBrokerName = QByteArrayLiteral("broker-soak");

/// /proc/<pid> figures; -1 where unreadable (the process is gone).
struct ProcStats
{
    std::int64_t rssKiB = -1;
    std::int64_t anonKiB = -1; // RssAnon: RSS without mapped files (a store's mmapped files
                               // count in RSS as their pages are touched; a leak shows here)
    int fds = -1;
    int threads = -1;
};
ProcStats procStats(qint64 pid);

struct Election
{
    int master = -1; // replica index, -1: none known
    std::int64_t epoch = 0;
    std::vector<int> syncStateSet; // replica indexes
};

class SoakCluster
{
public:
    SoakCluster(QString dir, int replicas, int leaseTtlSeconds);
    ~SoakCluster();
    SoakCluster(const SoakCluster &) = delete;
    SoakCluster &operator=(const SoakCluster &) = delete;

    /// Starts etcd, the name server and every replica. False with error() on a failure.
    bool start();
    /// Stops everything (SIGTERM, bounded; SIGKILL after).
    void stop();
    QString error() const { return m_error; }

    int replicas() const { return int(m_brokers.size()); }
    QByteArray namesrvAddr() const;
    /// "127.0.0.1:<listen port>" of replica `i`; -1 from indexOf for an unknown address.
    QByteArray brokerAddr(int i) const;
    int indexOfPort(int port) const;

    /// The election record (nullopt: absent or etcd did not answer within 5 s).
    std::optional<Election> election();
    void killBroker(int i);
    bool startBroker(int i);
    bool brokerRunning(int i) const;
    /// Whether replica i printed `text` since it was last started.
    bool brokerSaid(int i, const QByteArray &text);
    /// The last `bytes` of what replica i printed since it was last started.
    QByteArray brokerTail(int i, int bytes);

    /// Writes what replica i printed since it was last started to `path`.
    void saveOutput(int i, const QString &path);

    /// Names and pids of the daemons, in table order ("etcd", "namesrv", "broker0", ...).
    struct Daemon
    {
        QString name;
        qint64 pid = -1;
    };
    std::vector<Daemon> daemons();

private:
    QByteArray brokerConf(int i, quint16 port) const;

    QString m_dir;
    int m_ttl;
    testlib::EtcdProcess m_etcd;
    testlib::DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    quint16 m_nsPort = 0;
    std::vector<std::unique_ptr<testlib::DaemonProcess>> m_brokers;
    std::vector<quint16> m_ports;
    std::unique_ptr<broker::controller::EtcdClient> m_etcdClient;
    qint64 m_etcdPid = -1;
    QString m_error;
};

} // namespace qrocket::soak
