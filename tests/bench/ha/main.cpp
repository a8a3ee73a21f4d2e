// qrocket-bench-ha: replication figures on loopback. One process runs an in-process master and,
// for the HA rows, an in-process slave following it over the real HA port; the load generator
// of qrocket-bench-broker (one epoll thread, pre-encoded SEND_MESSAGE_V2 frames) sends 1 KiB
// messages from N synchronous connections. Rows, in one run so that they share the machine's
// state: the single broker (no slave), ASYNC_MASTER + slave, SYNC_MASTER + slave; each prints
// send msg/s, MB/s and latency percentiles, the slave's lag sampled during the row, and the
// replication throughput (bytes the slave took / time from the row's start until it caught up).
// With --tlsCert/--tlsKey/--tlsCa, two more rows replicate over TLS (the master in
// tls.server.mode=permissive, so the load generator stays plain; the slave with tls.enable).
// Where etcd is installed (unless --no-controller), two more rows run controller mode: a single
// etcd and two brokers of one brokerName with enableControllerMode, in this process; the elected
// master takes the load once the other broker is in its SyncStateSet. CTRL_ASYNC is a master
// configured ASYNC_MASTER; CTRL_SYNC the default SYNC_MASTER with allAckInSyncStateSet (a send is
// acknowledged once every member of the SyncStateSet has it).
//
//   qrocket-bench-ha [--seconds 3] [--size 1024] [--connections 64] [--flush ASYNC_FLUSH]
//                    [--tlsCert server.pem --tlsKey server.key --tlsCa ca.pem] [--no-controller]

#include "broker/brokercontroller.h"
#include "broker/controller/elector.h"
#include "broker/controllermode.h"
#include "broker/ha/haservice.h"
#include "storage/messagestore.h"
#include "tests/bench/broker/loadgenerator.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <thread>

using namespace qrocket;
using bench::Clock;
using bench::Figures;
using bench::LoadGenerator;
using protocol::RemotingCommand;

namespace {

RemotingCommand sendRequest(const QByteArray &topic, int bodyBytes)
{
    RemotingCommand r = RemotingCommand::createRequest(310);
    r.setExt("a", QByteArrayLiteral("PG_bench"));
    r.setExt("b", topic);
    r.setExt("c", QByteArrayLiteral("TBW102"));
    r.setExt("d", 4);
    r.setExt("e", 0);
    r.setExt("f", 0);
    r.setExt("g", std::int64_t(1700000000000));
    r.setExt("h", 0);
    r.setExt("i", QByteArrayLiteral("TAGS\x01TagA\x02WAIT\x01true"));
    r.body = QByteArray(bodyBytes, 'x');
    return r;
}

struct TlsFiles
{
    QString cert;
    QString key;
    QString ca;
};

std::unique_ptr<broker::BrokerController> startBroker(const QString &dir, const QByteArray &role,
    const QString &flush, quint16 masterHaPort, const TlsFiles *tls = nullptr)
{
    broker::BrokerConfig config;
    if (tls) {
        config.tls.configFile.clear();
        if (role == "SLAVE") {
            config.tls.enable = true;
            config.tls.clientTrustCertPath = tls->ca;
        } else {
            config.tls.serverMode = QStringLiteral("permissive");
            config.tls.serverCertPath = tls->cert;
            config.tls.serverKeyPath = tls->key;
        }
    }
    config.brokerIP1 = QStringLiteral("127.0.0.1");
    config.brokerIP2 = config.brokerIP1;
    config.brokerName = QStringLiteral("bench-ha");
    config.storePathRootDir = dir;
    config.brokerRole = QString::fromLatin1(role);
    config.brokerId = role == "SLAVE" ? 1 : 0;
    config.namesrvAddr.clear();
    if (Status st = config.validate(); !st) {
        std::fprintf(stderr, "config: %s\n", qPrintable(st.message()));
        return {};
    }
    config.listenPort = 0;
    storage::MessageStoreConfig store;
    store.storePathRootDir = dir;
    store.brokerRole = config.brokerRole;
    store.flushDiskType = flush;
    store.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
    if (masterHaPort != 0)
        store.haMasterAddress = QStringLiteral("127.0.0.1:%1").arg(masterHaPort);
    auto c = std::make_unique<broker::BrokerController>(config, store);
    if (Status st = c->initialize(); !st) {
        std::fprintf(stderr, "initialize: %s\n", qPrintable(st.message()));
        return {};
    }
    if (Status st = c->start(); !st) {
        std::fprintf(stderr, "start: %s\n", qPrintable(st.message()));
        return {};
    }
    return c;
}

/// A listen port whose fast port (-2) and HA port (+1) are free too: controller mode needs fixed
/// ports (they name the broker in the SyncStateSet).
quint16 brokerPorts()
{
    for (int attempt = 0; attempt < 100; ++attempt) {
        const quint16 port = testlib::freePort();
        if (port < 1026 || port > 65533)
            continue;
        bool free = true;
        for (const quint16 p : {quint16(port - 2), quint16(port + 1)}) {
            QTcpServer probe;
            free = free && probe.listen(QHostAddress::Any, p);
        }
        if (free)
            return port;
    }
    return 0;
}

std::unique_ptr<broker::controller::ControllerMode> startReplica(const QString &dir,
    const QByteArray &brokerName, const QByteArray &role, const QString &flush,
    const QString &etcdEndpoint)
{
    broker::BrokerConfig config;
    config.brokerIP1 = QStringLiteral("127.0.0.1");
    config.brokerIP2 = config.brokerIP1;
    config.brokerName = QString::fromLatin1(brokerName);
    config.storePathRootDir = dir;
    config.brokerRole = QString::fromLatin1(role);
    config.namesrvAddr.clear();
    config.enableControllerMode = true;
    config.etcdEndpoints = etcdEndpoint;
    config.listenPort = brokerPorts();
    if (config.listenPort == 0) {
        std::fprintf(stderr, "no free ports\n");
        return {};
    }
    if (Status st = config.validate(); !st) {
        std::fprintf(stderr, "config: %s\n", qPrintable(st.message()));
        return {};
    }
    storage::MessageStoreConfig store;
    store.storePathRootDir = dir;
    store.brokerRole = config.brokerRole;
    store.flushDiskType = flush;
    store.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
    store.haListenPort = config.listenPort + 1;
    auto mode = std::make_unique<broker::controller::ControllerMode>(config, store);
    if (Status st = mode->start(); !st) {
        std::fprintf(stderr, "controller mode: %s\n", qPrintable(st.message()));
        return {};
    }
    return mode;
}

/// Runs `work` on its own thread while this (the brokers' event-loop) thread keeps serving
/// events, blocked in its event loop (not spinning: the machine has two cores): the elector renews
/// its lease and the brokers restart on role changes here.
template<typename Work>
void runBeside(Work work)
{
    QEventLoop loop;
    std::thread worker([&] {
        work();
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec();
    worker.join();
}

/// Serves this thread's events for `ms`.
void serveEvents(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

struct RowResult
{
    Figures figures;
    double replMBps = 0;
    double catchUpMs = 0;
    std::int64_t maxLag = 0;
};

/// The measured row: load on `port` for `seconds`, the slave's lag sampled beside it, then the
/// time until the slave has everything.
RowResult measure(quint16 port, const RemotingCommand &send, int connections, double seconds,
    storage::MessageStore &mstore, storage::MessageStore *sstore, bool withEvents)
{
    RowResult out;
    {
        LoadGenerator warm(port, send, connections, 1);
        if (withEvents)
            runBeside([&] { warm.run(0.5, 0, send.body.size()); });
        else
            warm.run(0.5, 0, send.body.size());
    }
    const std::int64_t startOffset = mstore.commitLogMaxOffset();
    std::atomic<bool> sampling {sstore != nullptr};
    std::thread sampler([&] {
        while (sampling.load()) {
            out.maxLag
                = std::max(out.maxLag, mstore.commitLogMaxOffset() - sstore->commitLogMaxOffset());
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });
    const auto t0 = Clock::now();
    LoadGenerator load(port, send, connections, 1);
    if (withEvents)
        runBeside([&] { out.figures = load.run(seconds, 0, send.body.size()); });
    else
        out.figures = load.run(seconds, 0, send.body.size());
    sampling = false;
    sampler.join();
    if (sstore) {
        const std::int64_t end = mstore.commitLogMaxOffset();
        const auto rowEnd = Clock::now();
        const auto until = rowEnd + std::chrono::seconds(30);
        while (sstore->commitLogMaxOffset() < end && Clock::now() < until) {
            if (withEvents)
                serveEvents(1);
            else
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const auto caught = Clock::now();
        out.catchUpMs = std::chrono::duration<double, std::milli>(caught - rowEnd).count();
        const double secs = std::chrono::duration<double>(caught - t0).count();
        out.replMBps = static_cast<double>(end - startOffset) / secs / 1e6;
    }
    return out;
}

void printRow(const char *row, const RowResult &r, bool withSlave)
{
    const Figures &f = r.figures;
    std::printf("%-16s %10.0f msg/s %8.1f MB/s  p50 %7.1f p99 %7.1f us", row, f.msgsPerSecond,
        f.mbPerSecond, bench::percentileUs(f.latencyNs, 0.5),
        bench::percentileUs(f.latencyNs, 0.99));
    if (withSlave)
        std::printf("  replication %7.1f MB/s, max lag %lld B, caught up %.0f ms after", r.replMBps,
            static_cast<long long>(r.maxLag), r.catchUpMs);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption secondsOpt(QStringLiteral("seconds"),
        QStringLiteral("Seconds per row."), QStringLiteral("s"), QStringLiteral("3"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Body bytes."),
        QStringLiteral("n"), QStringLiteral("1024"));
    const QCommandLineOption connOpt(QStringLiteral("connections"),
        QStringLiteral("Synchronous senders."), QStringLiteral("n"), QStringLiteral("64"));
    const QCommandLineOption flushOpt(QStringLiteral("flush"),
        QStringLiteral("The master's flushDiskType."), QStringLiteral("type"),
        QStringLiteral("ASYNC_FLUSH"));
    const QCommandLineOption certOpt(QStringLiteral("tlsCert"),
        QStringLiteral("Server certificate (PEM, for 127.0.0.1): adds the TLS rows."),
        QStringLiteral("file"));
    const QCommandLineOption keyOpt(
        QStringLiteral("tlsKey"), QStringLiteral("Its key (PEM)."), QStringLiteral("file"));
    const QCommandLineOption caOpt(QStringLiteral("tlsCa"),
        QStringLiteral("The CA the slave verifies it with (PEM)."), QStringLiteral("file"));
    const QCommandLineOption noControllerOpt(QStringLiteral("no-controller"),
        QStringLiteral("Skip the controller-mode rows (they need etcd)."));
    parser.addOptions(
        {secondsOpt, sizeOpt, connOpt, flushOpt, certOpt, keyOpt, caOpt, noControllerOpt});
    parser.process(app);
    const double seconds = parser.value(secondsOpt).toDouble();
    const int size = parser.value(sizeOpt).toInt();
    const int connections = parser.value(connOpt).toInt();
    const QString flush = parser.value(flushOpt);

    std::printf("== %d B, %d synchronous connections, %.1f s per row, master %s\n", size,
        connections, seconds, qPrintable(flush));
    const TlsFiles tlsFiles {parser.value(certOpt), parser.value(keyOpt), parser.value(caOpt)};
    QList<const char *> rows {"single", "ASYNC_MASTER", "SYNC_MASTER"};
    if (!tlsFiles.cert.isEmpty())
        rows << "ASYNC_MASTER+TLS"
             << "SYNC_MASTER+TLS";
    double asyncRate = 0;
    for (const char *row : std::as_const(rows)) {
        QTemporaryDir dir;
        const QByteArray rowName(row);
        const bool withTls = rowName.endsWith("+TLS");
        const QByteArray roleName = withTls ? rowName.chopped(4) : rowName;
        const TlsFiles *tls = withTls ? &tlsFiles : nullptr;
        const bool withSlave = roleName != "single";
        auto master = startBroker(dir.filePath(QStringLiteral("master")),
            withSlave ? roleName : QByteArray("ASYNC_MASTER"), flush, 0, tls);
        if (!master)
            return 1;
        std::unique_ptr<broker::BrokerController> slave;
        if (withSlave) {
            slave = startBroker(dir.filePath(QStringLiteral("slave")), "SLAVE",
                QStringLiteral("ASYNC_FLUSH"), master->haListenPort(), tls);
            if (!slave)
                return 1;
            const auto until = Clock::now() + std::chrono::seconds(10);
            while (master->haService()->connectionCount() == 0 && Clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        const RowResult r = measure(master->listenPort(), sendRequest("BenchHa", size), connections,
            seconds, *master->context().store, slave ? slave->context().store : nullptr, false);
        if (rowName == "ASYNC_MASTER")
            asyncRate = r.figures.msgsPerSecond;
        printRow(row, r, withSlave);
        if (roleName == "SYNC_MASTER" && asyncRate > 0)
            std::printf("  (%.0f %% of ASYNC_MASTER)", 100.0 * r.figures.msgsPerSecond / asyncRate);
        if (r.figures.errors)
            std::printf("  (%lld errors)", static_cast<long long>(r.figures.errors));
        std::printf("\n");
        std::fflush(stdout);
        if (slave)
            slave->shutdown();
        master->shutdown();
    }
    if (parser.isSet(noControllerOpt))
        return 0;
    if (testlib::EtcdProcess::program().isEmpty()) {
        std::printf("(controller rows skipped: no etcd installed)\n");
        return 0;
    }
    QTemporaryDir etcdDir;
    testlib::EtcdProcess etcd;
    if (!etcd.start(etcdDir.path())) {
        std::fprintf(stderr, "etcd: %s\n", qPrintable(etcd.error()));
        return 1;
    }
    double ctrlAsyncRate = 0;
    for (const QByteArray &row : {QByteArray("CTRL_ASYNC"), QByteArray("CTRL_SYNC")}) {
        QTemporaryDir dir;
        const QByteArray brokerName = "bench-" + row.toLower();
        const QByteArray role = row == "CTRL_SYNC" ? "SYNC_MASTER" : "ASYNC_MASTER";
        std::unique_ptr<broker::controller::ControllerMode> replicas[2];
        for (int i = 0; i < 2; ++i) {
            replicas[i] = startReplica(dir.filePath(QString::number(i)), brokerName, role,
                i == 0 ? flush : QStringLiteral("ASYNC_FLUSH"), etcd.endpoint());
            if (!replicas[i])
                return 1;
        }
        // The election, then the follower caught up and in the master's SyncStateSet.
        broker::controller::ControllerMode *master = nullptr;
        broker::controller::ControllerMode *follower = nullptr;
        const auto until = Clock::now() + std::chrono::seconds(60);
        while (Clock::now() < until) {
            serveEvents(20);
            for (int i = 0; i < 2; ++i) {
                auto &e = replicas[i]->elector();
                if (e.role() == broker::controller::Elector::Role::Master
                    && e.record().syncStateSet.size() == 2 && replicas[i]->broker()
                    && replicas[1 - i]->broker()) {
                    master = replicas[i].get();
                    follower = replicas[1 - i].get();
                }
            }
            if (master)
                break;
        }
        if (!master) {
            std::fprintf(
                stderr, "%s: no master with a SyncStateSet of two within 60 s\n", row.constData());
            return 1;
        }
        const RowResult r = measure(master->broker()->listenPort(), sendRequest("BenchHa", size),
            connections, seconds, *master->broker()->context().store,
            follower->broker()->context().store, true);
        if (row == "CTRL_ASYNC")
            ctrlAsyncRate = r.figures.msgsPerSecond;
        printRow(row.constData(), r, true);
        if (row == "CTRL_SYNC") {
            if (ctrlAsyncRate > 0)
                std::printf(
                    "  (%.0f %% of CTRL_ASYNC", 100.0 * r.figures.msgsPerSecond / ctrlAsyncRate);
            if (asyncRate > 0)
                std::printf(
                    ", %.0f %% of ASYNC_MASTER", 100.0 * r.figures.msgsPerSecond / asyncRate);
            std::printf(")");
        }
        if (r.figures.errors)
            std::printf("  (%lld errors)", static_cast<long long>(r.figures.errors));
        std::printf("\n");
        std::fflush(stdout);
        follower->shutdown();
        master->shutdown();
    }
    return 0;
}
