// qrocket-bench-metadata: topic creation at scale against real daemons. Starts qrocket-namesrv and
// qrocket-broker as child processes (the broker's name server address is a FrameTap relay, so
// every byte it sends for registration is counted), then creates --topics topics through
// UPDATE_AND_CREATE_TOPIC (17), --window requests in flight on one connection. Prints, per
// --step topics: the existing topic count, creations/s, the name server's RSS at the end of the
// step, and the REGISTER_BROKER frames and bytes sent during it. Then: how long until the name
// server routes the last topic, the peak RSS of both daemons, the name server's CPU time during
// the burst, and the size of one full registration of the whole table (forced by an
// UPDATE_BROKER_CONFIG of brokerPermission, which RocketMQ answers with a full registration).
// Then --groups subscription groups through UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), pipelined
// the same way, and the reads an operator's tools make of the whole table: --reads requests each
// of GET_ALL_TOPIC_CONFIG (21) and GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201) to the broker and
// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206) and GET_BROKER_CLUSTER_INFO (106) to the name server,
// --read-window in flight: requests/s, body size, mean latency.
//
//   qrocket-bench-metadata [--topics 10000] [--window 200] [--step 1000] [--queues 4]
//                          [--groups 0] [--reads 200] [--read-window 8]
//                          [--set key=value ...]   (extra broker settings, e.g.
//                          compressedRegister=true)
//
// The daemons are taken from $QROCKET_BIN_DIR, else from this program's directory. Everything
// shares the machine, so the figures are for comparison between builds, not capacity.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/frametap.h"
#include "tests/testlib/metadataload.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTimer>

#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <vector>

using namespace qrocket;
using protocol::RemotingCommand;
using testlib::cpuMs;
using testlib::createTopicRequest;
using testlib::DaemonProcess;
using testlib::FrameTap;
using testlib::PipelineResult;
using testlib::spinUntil;
using testlib::statusKib;

namespace {

constexpr int kRegisterBroker = 103;
constexpr int kQueryDataVersion = 322;

QByteArray topicName(int i)
{
    return "BenchMeta_" + QByteArray::number(i).rightJustified(6, '0');
}

RemotingCommand createGroupRequest(int i)
{
    return testlib::createGroupRequest(
        "BenchGroup_" + QByteArray::number(i).rightJustified(6, '0'));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench-metadata"));
    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Topic creation rate and registration cost"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("topics"), QStringLiteral("topics to create"),
        QStringLiteral("n"), QStringLiteral("10000")});
    parser.addOption({QStringLiteral("window"), QStringLiteral("requests in flight"),
        QStringLiteral("n"), QStringLiteral("200")});
    parser.addOption({QStringLiteral("step"), QStringLiteral("topics per report line"),
        QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("queues"), QStringLiteral("queues per topic"),
        QStringLiteral("n"), QStringLiteral("4")});
    parser.addOption({QStringLiteral("set"), QStringLiteral("extra broker setting key=value"),
        QStringLiteral("kv")});
    parser.addOption({QStringLiteral("groups"), QStringLiteral("subscription groups to create"),
        QStringLiteral("n"), QStringLiteral("0")});
    parser.addOption(
        {QStringLiteral("reads"), QStringLiteral("requests of each whole-table read (0: none)"),
            QStringLiteral("n"), QStringLiteral("200")});
    parser.addOption({QStringLiteral("read-window"), QStringLiteral("reads in flight"),
        QStringLiteral("n"), QStringLiteral("8")});
    parser.process(app);
    const int total = std::max(1, parser.value(QStringLiteral("topics")).toInt());
    const int window = std::max(1, parser.value(QStringLiteral("window")).toInt());
    const int step = std::max(1, parser.value(QStringLiteral("step")).toInt());
    const int queues = std::max(1, parser.value(QStringLiteral("queues")).toInt());
    const int groups = std::max(0, parser.value(QStringLiteral("groups")).toInt());
    const int reads = std::max(0, parser.value(QStringLiteral("reads")).toInt());
    const int readWindow = std::max(1, parser.value(QStringLiteral("read-window")).toInt());
    QByteArray extra;
    for (const QString &kv : parser.values(QStringLiteral("set")))
        extra += kv.toUtf8() + '\n';

    if (qEnvironmentVariableIsEmpty("QROCKET_BIN_DIR"))
        qputenv("QROCKET_BIN_DIR", QCoreApplication::applicationDirPath().toLocal8Bit());
    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;

    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = testlib::startNamesrv(namesrv, dir.path());
    if (nsPort == 0) {
        std::fprintf(stderr, "name server did not start: %s\n", qPrintable(namesrv.error()));
        return 1;
    }
    FrameTap tap(nsPort);
    if (!tap.listen()) {
        std::fprintf(stderr, "cannot listen for the relay\n");
        return 1;
    }
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 brokerPort = 0;
    const QString store = dir.filePath(QStringLiteral("store"));
    const bool started = testlib::startOnFreePort(
        broker, dir.filePath(QStringLiteral("broker.conf")), brokerPort, [&](quint16 port) {
            return "brokerName=bench-meta\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:"
                + QByteArray::number(tap.port()) + "\nstorePathRootDir=" + store.toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\n" + extra;
        });
    if (!started) {
        std::fprintf(stderr, "broker did not start: %s\n", qPrintable(broker.error()));
        return 1;
    }
    const QByteArray brokerAddr = "127.0.0.1:" + QByteArray::number(brokerPort);
    const QByteArray nsAddr = "127.0.0.1:" + QByteArray::number(nsPort);

    remoting::RemotingClient client;
    auto routed = [&](const QByteArray &topic) {
        RemotingCommand r = RemotingCommand::createRequest(105);
        r.setExt("topic", topic);
        auto answer = client.invokeSync(nsAddr, std::move(r), 3000);
        return answer && answer->code == 0;
    };
    if (!spinUntil([&] { return routed("bench-meta"); }, 15000)) {
        std::fprintf(stderr, "the broker did not register\n");
        return 1;
    }
    // What the name server and broker hold before the burst.
    const qint64 nsRssStart = statusKib(namesrv.pid(), "VmRSS:");
    tap.reset();

    std::printf("qrocket-bench-metadata: %d topics (%d queues each), %d in flight, broker "
                "settings: %s\n",
        total, queues, window,
        extra.isEmpty() ? "defaults" : extra.trimmed().replace('\n', ' ').constData());
    std::printf("%10s %12s %10s %12s %10s %14s\n", "existing", "creations/s", "ns RSS MB",
        "ns peak MB", "registers", "register MB");

    std::atomic<int> sent {0};
    std::atomic<int> done {0};
    std::atomic<int> failed {0};
    std::mutex failMutex;
    QByteArray firstFailure;
    std::function<void()> sendNext = [&] {
        const int i = sent.fetch_add(1);
        if (i >= total)
            return;
        client.invokeAsync(brokerAddr, createTopicRequest(topicName(i), queues), 60000,
            [&](Result<RemotingCommand> r) {
                if (!r || r->code != 0) {
                    std::lock_guard lock(failMutex);
                    if (failed.fetch_add(1) == 0)
                        firstFailure = r ? r->remark : r.error().message().toUtf8();
                }
                done.fetch_add(1);
                sendNext();
            });
    };

    const qint64 nsCpuStart = cpuMs(namesrv.pid());
    const qint64 brokerCpuStart = cpuMs(broker.pid());
    qint64 nsPeakKib = 0;
    QTimer sampler;
    sampler.setInterval(50);
    QObject::connect(&sampler, &QTimer::timeout, [&] {
        nsPeakKib = std::max(nsPeakKib, statusKib(namesrv.pid(), "VmRSS:"));
        namesrv.output(); // keeps the daemons' pipes drained
        broker.output();
    });
    sampler.start();

    QElapsedTimer clock;
    clock.start();
    qint64 stepStartMs = 0;
    FrameTap::Counts stepStart;
    for (int i = 0; i < std::min(window, total); ++i)
        sendNext();
    int reported = 0;
    const bool finished = spinUntil(
        [&] {
            const int d = done.load();
            while (d - reported >= step || (d == total && reported < total)) {
                const int n = std::min(step, total - reported);
                const qint64 now = clock.elapsed();
                const FrameTap::Counts c = tap.counts(kRegisterBroker);
                const double rate = n * 1000.0 / std::max<qint64>(1, now - stepStartMs);
                std::printf("%10d %12.0f %10.1f %12.1f %10lld %14.2f\n", reported, rate,
                    statusKib(namesrv.pid(), "VmRSS:") / 1024.0, nsPeakKib / 1024.0,
                    static_cast<long long>(c.frames - stepStart.frames),
                    (c.bytes - stepStart.bytes) / 1048576.0);
                std::fflush(stdout);
                reported += n;
                stepStartMs = now;
                stepStart = c;
            }
            return d == total;
        },
        30 * 60 * 1000);
    const qint64 burstMs = clock.elapsed();
    // What the burst cost on the wire (read now: the convergence wait below may include a
    // periodic registration).
    const FrameTap::Counts burst = tap.counts(kRegisterBroker);
    const FrameTap::Counts queries = tap.counts(kQueryDataVersion);
    if (!finished) {
        std::fprintf(stderr, "timed out after %d of %d creations\n", done.load(), total);
        return 1;
    }
    const bool converged = spinUntil([&] { return routed(topicName(total - 1)); }, 120000);
    const qint64 convergeMs = clock.elapsed() - burstMs;
    const qint64 nsCpu = cpuMs(namesrv.pid()) - nsCpuStart;
    const qint64 brokerCpu = cpuMs(broker.pid()) - brokerCpuStart;

    std::printf("\n%d topics in %.1f s: %.0f creations/s overall, %d failed\n", total,
        burstMs / 1000.0, total * 1000.0 / std::max<qint64>(1, burstMs), failed.load());
    if (!firstFailure.isEmpty())
        std::printf("  first failure: %s\n", firstFailure.constData());
    std::printf("route of the last topic at the name server %s %.1f s after the last answer\n",
        converged ? "within" : "NOT within", convergeMs / 1000.0);
    if (!converged) {
        const QByteArray out = broker.output();
        std::printf("broker's last output lines:\n%s\n", out.right(4000).constData());
    }
    std::printf("name server: RSS %.1f MB before, peak %.1f MB (VmHWM %.1f MB), now %.1f MB; "
                "CPU %.1f s during the burst (%.0f %%)\n",
        nsRssStart / 1024.0, nsPeakKib / 1024.0, statusKib(namesrv.pid(), "VmHWM:") / 1024.0,
        statusKib(namesrv.pid(), "VmRSS:") / 1024.0, nsCpu / 1000.0,
        nsCpu * 100.0 / std::max<qint64>(1, burstMs));
    std::printf("broker: RSS peak (VmHWM) %.1f MB; CPU %.1f s during the burst\n",
        statusKib(broker.pid(), "VmHWM:") / 1024.0, brokerCpu / 1000.0);
    std::printf("registrations during the burst: %lld REGISTER_BROKER, %.2f MB (%.0f bytes "
                "each on average, largest %lld), %lld QUERY_DATA_VERSION\n",
        static_cast<long long>(burst.frames), burst.bytes / 1048576.0,
        burst.frames ? double(burst.bytes) / double(burst.frames) : 0.0,
        static_cast<long long>(burst.maxFrameBytes), static_cast<long long>(queries.frames));

    // One full registration of the whole table: brokerPermission set to its own value makes the
    // broker register everything at once (RocketMQ's updateBrokerConfig).
    tap.reset();
    RemotingCommand update = RemotingCommand::createRequest(25);
    update.body = "brokerPermission=6\n";
    auto answer = client.invokeSync(brokerAddr, std::move(update), 10000);
    const bool full = answer && answer->code == 0
        && spinUntil([&] { return tap.counts(kRegisterBroker).frames > 0; }, 30000);
    spinUntil([] { return false; }, 500);
    const FrameTap::Counts fullCounts = tap.counts(kRegisterBroker);
    if (full)
        std::printf("one full registration of %d+ topics: %lld bytes (body %lld)\n", total,
            static_cast<long long>(fullCounts.maxFrameBytes),
            static_cast<long long>(
                fullCounts.bodyBytes / std::max<std::int64_t>(1, fullCounts.frames)));
    else
        std::printf("no full registration seen after UPDATE_BROKER_CONFIG\n");

    bool readsOk = true;
    if (groups > 0) {
        const PipelineResult g = testlib::pipeline(
            client, brokerAddr, groups, window, createGroupRequest, 30 * 60 * 1000);
        std::printf("%d subscription groups in %.1f s: %.0f creations/s, %d failed%s%s\n", groups,
            g.elapsedMs / 1000.0, groups * 1000.0 / std::max<qint64>(1, g.elapsedMs), g.failed,
            g.firstFailure.isEmpty() ? "" : "; first failure: ", g.firstFailure.constData());
        readsOk = g.finished && g.failed == 0;
    }
    if (reads > 0 && readsOk) {
        struct Read
        {
            const char *name;
            int code;
            const QByteArray *addr;
        };
        const Read kinds[] = {{"GET_ALL_TOPIC_CONFIG (21)", 21, &brokerAddr},
            {"GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201)", 201, &brokerAddr},
            {"GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206)", 206, &nsAddr},
            {"GET_BROKER_CLUSTER_INFO (106)", 106, &nsAddr}};
        std::printf("\nwhole-table reads: %d of each, %d in flight\n", reads, readWindow);
        std::printf("%-42s %12s %12s %14s %8s\n", "request", "requests/s", "body bytes", "mean ms",
            "failed");
        for (const Read &k : kinds) {
            const PipelineResult r = testlib::pipeline(
                client, *k.addr, reads, readWindow,
                [&](int) { return RemotingCommand::createRequest(k.code); }, 10 * 60 * 1000);
            std::printf("%-42s %12.0f %12lld %14.2f %8d\n", k.name,
                reads * 1000.0 / std::max<qint64>(1, r.elapsedMs),
                static_cast<long long>(r.bodyBytes), r.meanLatencyMs, r.failed);
            if (!r.firstFailure.isEmpty())
                std::printf("  first failure: %s\n", r.firstFailure.constData());
            std::fflush(stdout);
            if (!r.finished) {
                readsOk = false;
                break;
            }
        }
        std::printf("name server RSS after the reads %.1f MB, broker %.1f MB\n",
            statusKib(namesrv.pid(), "VmRSS:") / 1024.0,
            statusKib(broker.pid(), "VmRSS:") / 1024.0);
    }

    client.shutdown();
    broker.stop();
    namesrv.stop();
    return failed.load() == 0 && converged && readsOk ? 0 : 1;
}
