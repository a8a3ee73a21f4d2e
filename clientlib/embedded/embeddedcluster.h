#pragma once

// EmbeddedCluster: a QRocket name server and N master brokers inside the calling process, for
// an application's QtTest suites (beyond RocketMQ: none of its clients ships one).
//
//   qrocket::EmbeddedClusterOptions options;
//   options.brokerCount = 2;
//   qrocket::EmbeddedCluster cluster(options);
//   if (Status st = cluster.start(); !st) ...              // QVERIFY2(st.isOk(), ...)
//   cluster.createTopic(QStringLiteral("T"), 4);          // on every running broker, registered
//   cluster.waitForRoute(QStringLiteral("T"), 10s);       // the name server routes T to all
//   producer.setNamesrvAddr(cluster.namesrvAddress());    // "127.0.0.1:<port>"
//   ...
//   // ~EmbeddedCluster: stops every broker and the name server, deletes the temporary store
//
// Ports: the name server listens on 127.0.0.1 port 0, each broker on port 0 (its fast port is
// chosen separately) and registers as 127.0.0.1:<port>; the bound addresses are read back after
// start(). (BrokerController has no listen-address setting: the broker's sockets bind every
// interface, as qrocket-broker does.)
//
// Store: under storeRoot (a QTemporaryDir when the option is empty): "<root>/namesrv" for the
// name server's kvConfig.json, "<root>/<brokerName>" for each broker's store and config files.
// A temporary root is removed on destruction; a given root is created when missing and kept.
//
// Ownership: the cluster owns the controllers, its thread, the temporary store and a
// RemotingClient it uses for waitForRoute()/topicRoute(). Not copyable or movable.
//
// Threads: the NamesrvController and BrokerControllers are created, run and destroyed on the
// cluster's own QThread ("qrocket-embedded", with its own event loop), never on the caller's
// thread, so a test thread that blocks (a synchronous send over loopback, a QThread::sleep)
// never starves their accept loop or timers. Every public method is thread-safe; the operations
// (start, stop, stopBroker, startBroker, createTopic) are serialised and each waits at most
// Options::operationTimeout for the cluster thread (Status::timeout beyond it). They must not be
// called from the cluster's thread, i.e. from the configure callbacks below (they return an
// Internal error there). waitForRoute() polls the name server from the calling thread and, like
// QTest::qWait, processes the calling thread's events between polls. A QCoreApplication must
// exist before start().
//
// Shutdown: the destructor (or stop()) unregisters and stops each broker cleanly, then the name
// server, joins the cluster thread and removes the temporary store, within a bounded time
// (2 x operationTimeout for the controllers, operationTimeout for the thread). If the thread is
// wedged beyond that, it is logged (qCCritical) and leaked rather than destroyed while running,
// and the store is kept.

#include "clientlib/common/result.h"
#include "clientlib/common/status.h"
#include "storage/core/diskspace.h"

#include <QString>

#include <chrono>
#include <functional>
#include <memory>

namespace qrocket::broker {
struct BrokerConfig;
}
namespace qrocket::storage {
struct MessageStoreConfig;
}
namespace qrocket::namesrv {
class NamesrvConfig;
}
namespace qrocket::protocol {
struct TopicRouteData;
}

namespace qrocket {

/// The brokers' flushDiskType: ASYNC_FLUSH (RocketMQ's default) or SYNC_FLUSH.
enum class FlushMode { Async, Sync };

struct EmbeddedClusterOptions
{
    /// 1..64 master brokers, named "<brokerNamePrefix>-<index>" ("broker-0", "broker-1"...).
    int brokerCount = 1;
    QString clusterName = QStringLiteral("DefaultCluster");
    QString brokerNamePrefix = QStringLiteral("broker");
    FlushMode flushMode = FlushMode::Async;
    /// The brokers' autoCreateTopicEnable: a send to an unknown topic creates it (from TBW102).
    bool autoCreateTopicEnable = true;
    /// Empty: a fresh QTemporaryDir, removed on destruction. Otherwise created when missing,
    /// must be writable, and is kept (brokers reuse a store found there).
    QString storeRoot;

    /// Test timers, so that routes follow the cluster quickly: brokers re-register every 2 s
    /// (below RocketMQ's 10 s floor, allowed here), the name server scans every 1 s (first after
    /// 500 ms) and expires a broker silent for 10 s. A cleanly stopped broker unregisters, so its
    /// route drops at once either way. false: RocketMQ's 30 s / 5 s + 10 s / 120 s.
    bool shortTimers = true;
    /// Small files: 16 MiB commit-log files (a 4 MiB message must fit), 2,000-entry consume-queue
    /// files and a 5,000-slot / 20,000-entry index file, all created sparse. false: RocketMQ's
    /// 1 GiB / 300,000 entries / 5,000,000 slots.
    bool smallFiles = true;

    /// Bound on each operation's wait for the cluster thread (start, stop, stopBroker...).
    std::chrono::milliseconds operationTimeout {30000};

    /// Adjusts broker `index`'s configs after the cluster filled them and before they are
    /// validated (runs on the cluster thread). The cluster then sets listenPort (0, or the old
    /// port on restart); registerNameServerPeriod may be set below 10 s (minimum 100 ms).
    /// storeConfig.storePathRootDir is the broker's store (change it to move the store);
    /// brokerRole and messageDelayLevel are taken from `config` for both.
    std::function<void(
        int index, broker::BrokerConfig &config, storage::MessageStoreConfig &storeConfig)>
        configureBroker;
    /// Broker `index`'s disk probe instead of statvfs (storage/diskspace.h; called once per
    /// broker start, on the cluster thread; a null probe is statvfs): a test can fill a broker's
    /// disk, which then refuses writes above diskSpaceWarningLevelRatio and cleans up above
    /// diskMaxUsedSpaceRatio, as measured by `df`. The probe is called from the broker's threads
    /// (its clean service, admin requests): it must be thread-safe.
    std::function<storage::DiskSpaceProbe(int index)> diskSpace;
    /// Adjusts the name server's config before it is validated (cluster thread).
    std::function<void(namesrv::NamesrvConfig &config)> configureNamesrv;
};

class EmbeddedCluster final
{
public:
    using Options = EmbeddedClusterOptions;

    explicit EmbeddedCluster(Options options = Options());
    /// stop(), then deletes a temporary store (see Shutdown in the file comment).
    ~EmbeddedCluster();
    EmbeddedCluster(const EmbeddedCluster &) = delete;
    EmbeddedCluster &operator=(const EmbeddedCluster &) = delete;

    /// Starts the name server, then every broker, and returns once the name server lists them all.
    /// A bad option (brokerCount out of range, bad names, an unwritable storeRoot), no
    /// QCoreApplication, or a controller that cannot start is an error naming the part; whatever
    /// was started is stopped again. Once only: a second call (after success or failure) is an
    /// Internal error.
    Status start();
    /// Stops every broker, then the name server, and joins the cluster thread. The store stays
    /// until destruction. Idempotent; the cluster cannot be started again.
    void stop();
    /// True between a successful start() and stop().
    bool isRunning() const;

    /// "127.0.0.1:<port>" of the name server, for a client's namesrvAddr (empty before start()).
    QString namesrvAddress() const;
    QString clusterName() const;
    /// The store root (the temporary directory's path once start() created it).
    QString storeRoot() const;

    /// Options::brokerCount (also before start()).
    int brokerCount() const;
    /// "<prefix>-<index>"; empty for an index out of range (as are the accessors below).
    QString brokerName(int index) const;
    /// "127.0.0.1:<port>" of the broker's main port; while stopped, its last address.
    QString brokerAddress(int index) const;
    /// The broker's storePathRootDir.
    QString brokerStorePath(int index) const;
    bool isBrokerRunning(int index) const;

    /// Shuts broker `index` down cleanly (it unregisters, flushes, persists) and destroys its
    /// controller; the store stays. OK when it is already stopped.
    Status stopBroker(int index);
    /// Starts broker `index` again on the same store (same name, same data). It listens on its
    /// previous port when that port and the one below it by 2 (the fast port) can be bound again,
    /// else on a new one (port 0): brokerAddress() tells which. OK when it is already running.
    Status startBroker(int index);

    /// Creates or updates `topic` with `queueNums` read and write queues on every running broker
    /// and has each re-register with the name server at once (not after
    /// registerNameServerPeriod). Follow with waitForRoute() before using the route.
    Status createTopic(const QString &topic, int queueNums = 8);
    /// Polls the name server (GET_ROUTEINFO_BY_TOPIC, every 50 ms) until `topic`'s route matches
    /// the cluster: every running broker present at its current address with write queues, and
    /// no stopped one. Timeout (with the last route seen) when it does not within `timeout`.
    Status waitForRoute(
        const QString &topic, std::chrono::milliseconds timeout = std::chrono::seconds(10));
    /// One GET_ROUTEINFO_BY_TOPIC to the name server: the route, NotFound when the name server
    /// has none, or the call's error (include "clientlib/protocol/bodies/routebodies.h").
    Result<protocol::TopicRouteData> topicRoute(
        const QString &topic, std::chrono::milliseconds timeout = std::chrono::seconds(3)) const;

private:
    /// Polls the name server's cluster info until every broker is in it (start()).
    Status waitForRegistrations();
    struct Private;
    std::shared_ptr<Private> d; // shared with tasks queued to the cluster thread
};

} // namespace qrocket
