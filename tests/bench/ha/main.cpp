// qrocket-bench-ha: replication figures on loopback. One process runs an in-process master and,
// for the HA rows, an in-process slave following it over the real HA port; the load generator
// of qrocket-bench-broker (one epoll thread, pre-encoded SEND_MESSAGE_V2 frames) sends 1 KiB
// messages from N synchronous connections. Rows, in one run so that they share the machine's
// state: the single broker (no slave), ASYNC_MASTER + slave, SYNC_MASTER + slave; each prints
// send msg/s, MB/s and latency percentiles, the slave's lag sampled during the row, and the
// replication throughput (bytes the slave took / time from the row's start until it caught up).
// With --tlsCert/--tlsKey/--tlsCa, two more rows replicate over TLS (the master in
// tls.server.mode=permissive, so the load generator stays plain; the slave with tls.enable).
//
//   qrocket-bench-ha [--seconds 3] [--size 1024] [--connections 64] [--flush ASYNC_FLUSH]
//                    [--tlsCert server.pem --tlsKey server.key --tlsCa ca.pem]

#include "broker/brokercontroller.h"
#include "broker/ha/haservice.h"
#include "storage/messagestore.h"
#include "tests/bench/broker/loadgenerator.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTemporaryDir>

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
    parser.addOptions({secondsOpt, sizeOpt, connOpt, flushOpt, certOpt, keyOpt, caOpt});
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
        storage::MessageStore &mstore = *master->context().store;
        const RemotingCommand send = sendRequest("BenchHa", size);
        // Warm-up row (topic creation, first file), not printed.
        {
            LoadGenerator warm(master->listenPort(), send, connections, 1);
            warm.run(0.5, 0, send.body.size());
        }
        const std::int64_t startOffset = mstore.commitLogMaxOffset();
        std::int64_t maxLag = 0;
        std::atomic<bool> sampling {withSlave};
        std::thread sampler([&] {
            while (sampling.load()) {
                maxLag = std::max(maxLag,
                    mstore.commitLogMaxOffset() - slave->context().store->commitLogMaxOffset());
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        });
        const auto t0 = Clock::now();
        LoadGenerator load(master->listenPort(), send, connections, 1);
        const Figures f = load.run(seconds, 0, send.body.size());
        sampling = false;
        sampler.join();
        double replMBps = 0;
        double catchUpMs = 0;
        if (withSlave) {
            const std::int64_t end = mstore.commitLogMaxOffset();
            const auto rowEnd = Clock::now();
            const auto until = rowEnd + std::chrono::seconds(30);
            while (slave->context().store->commitLogMaxOffset() < end && Clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            const auto caught = Clock::now();
            catchUpMs = std::chrono::duration<double, std::milli>(caught - rowEnd).count();
            const double secs = std::chrono::duration<double>(caught - t0).count();
            replMBps = static_cast<double>(end - startOffset) / secs / 1e6;
        }
        if (rowName == "ASYNC_MASTER")
            asyncRate = f.msgsPerSecond;
        std::printf("%-16s %10.0f msg/s %8.1f MB/s  p50 %7.1f p99 %7.1f us", row, f.msgsPerSecond,
            f.mbPerSecond, bench::percentileUs(f.latencyNs, 0.5),
            bench::percentileUs(f.latencyNs, 0.99));
        if (withSlave)
            std::printf("  replication %7.1f MB/s, max lag %lld B, caught up %.0f ms after",
                replMBps, static_cast<long long>(maxLag), catchUpMs);
        if (roleName == "SYNC_MASTER" && asyncRate > 0)
            std::printf("  (%.0f %% of ASYNC_MASTER)", 100.0 * f.msgsPerSecond / asyncRate);
        if (f.errors)
            std::printf("  (%lld errors)", static_cast<long long>(f.errors));
        std::printf("\n");
        std::fflush(stdout);
        if (slave)
            slave->shutdown();
        master->shutdown();
    }
    return 0;
}
