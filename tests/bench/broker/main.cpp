// qrocket-bench-broker: SEND_MESSAGE_V2 throughput and latency through a BrokerController
// (in-process, on loopback sockets, store in a temporary directory), first with ASYNC_FLUSH then
// with SYNC_FLUSH, over 1..64 connections with a window of requests in flight per connection
// (window 1 = synchronous senders); then pulls everything back. Each row is printed beside two
// baselines measured in the same run with the same frames, connections and window: "floor", the
// zero-work server (one epoll thread, no storage) answering each frame at once with a valid
// SEND_OK (the most any broker could reach with this generator on this machine), and "echo",
// QRocket's remoting server with an inline echo processor (the floor of the remoting layer). The
// echo and send rows end with their fraction of the floor row of the same run ("0.20x floor").
// A program that prints figures; never a test.
//
// The load generator is lean on purpose (the machine's cores are shared with the broker): one
// epoll thread drives every connection with pre-encoded JSON frames (as RocketMQ clients send
// them), patching only the opaque; a response is matched by its opaque (loadgenerator.h).
//
//   qrocket-bench-broker [--seconds S] [--window W] [--sizes 128,1024] [--connections 1,16,64]
//                        [--flush ASYNC_FLUSH,SYNC_FLUSH] [--messages N] [--no-echo] [--no-floor]
//                        [--rate half,20000] [--send-executor default|io|pool] [--no-pull]
//                        [--io-threads N] [--open-only] [--config broker.conf] [--repeat N]
//                        [--broker PORT] [--dedup] [--dedup-table]
//
// --dedup: every send carries a UNIQ_KEY no other send had, and each closed-loop send row runs
// four times in a row on the same broker, with sendDedupEnable off, on, on, off ("send" off,
// "send+d" on: every send claims its key in the window and finishes it after the put): the cost
// of exactly-once sends on the send path, same run, same frames.
//
// --broker PORT drives a broker daemon already on 127.0.0.1:PORT with the same generator (one send
// row per size and connection count, --window requests in flight on each): the floor for a client
// load generator (qrocket-bench, RocketMQ's benchmark) driving that same process, as
// resources/scripts/bench-producer.sh runs it; each such row follows its own floor row.
//
// --rate adds open-loop rows ("rate"): sends issued on a fixed schedule, latency measured from
// each send's scheduled time (no coordinated omission); "half" = half the rate the same number of
// synchronous senders (window 1) reached in the row before: one request per connection at a time
// batches as little as open-loop traffic does, so that is the peak it is half of. Open-loop rows
// also print "issued late p99": how late the generator itself sent (its own wait for a CPU on a
// machine it shares with the broker), a part of every latency in the row; and "round trip p99":
// the latency counted from the actual write instead, which is what a synchronous send() call
// takes (RocketMQ's benchmark times its sends that way). The first is the stricter figure; both
// are printed, and --repeat summarises both.
//
// Before each group of rows the store is let catch up (see settle()): no row pays for the flush
// of what an earlier row wrote.
//
// --messages N stops each row after N answers (for callgrind: instructions per send are the
// difference of two runs with different N divided by the difference of N).

#include "broker/brokercontroller.h"
#include "broker/brokerstartup.h"
#include "broker/processors/sendmessageprocessor.h"
#include "clientlib/common/heap.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingclient.h"
#include "dedupbench.h"
#include "loadgenerator.h"
#include "storage/messagestore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::bench;

namespace {

constexpr int kEchoCode = 9199; // QRocket extension range, bench only

class EchoProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        RemotingCommand response = RemotingCommand::createResponse(request, 0);
        respond(std::move(response));
    }
};

/// Forwards to the send processor but never runs inline: "--send-executor pool" measures the
/// hand-off to the send pool and back that the broker skips for sends to existing topics.
class PooledSend final : public RequestProcessor
{
public:
    explicit PooledSend(RequestProcessorPtr inner) : m_inner(std::move(inner)) { }
    void processRequest(
        const ChannelPtr &channel, RemotingCommand request, Responder respond) override
    {
        m_inner->processRequest(channel, std::move(request), std::move(respond));
    }

private:
    RequestProcessorPtr m_inner;
};

bool g_uniqueKeys = false; // --dedup: a UNIQ_KEY on every send (patched per send)

RemotingCommand sendRequest(const QByteArray &topic, int queueId, int bodyBytes)
{
    RemotingCommand r = RemotingCommand::createRequest(310);
    r.setExt("a", QByteArrayLiteral("PG_bench"));
    r.setExt("b", topic);
    r.setExt("c", QByteArrayLiteral("TBW102"));
    r.setExt("d", 4);
    r.setExt("e", queueId);
    r.setExt("f", 0);
    r.setExt("g", std::int64_t(1700000000000));
    r.setExt("h", 0);
    r.setExt("i",
        g_uniqueKeys
            ? QByteArrayLiteral("TAGS\x01TagA\x02KEYS\x01k1\x02WAIT\x01true\x02UNIQ_KEY\x01")
                + kUniqKeyMark + QByteArray(16, '0')
            : QByteArrayLiteral("TAGS\x01TagA\x02KEYS\x01k1\x02WAIT\x01true"));
    r.body = QByteArray(bodyBytes, 'x');
    return r;
}

/// --repeat: the p99 of every run of floor@, echo@ and send@, then their median and range, and how
/// many runs kept p99 under 1 ms; once counted from the scheduled send time and once as the
/// round trip (from the actual write).
class RepeatSummary
{
public:
    void add(int kind, const Figures &f)
    {
        m_p99Us[kind][0].push_back(percentileUs(f.latencyNs, 0.99));
        m_p99Us[kind][1].push_back(percentileUs(f.roundTripNs, 0.99));
        if (f.stealPercent >= 0)
            m_steal[kind].push_back(f.stealPercent);
        if (f.busyPercent >= 0)
            m_busy[kind].push_back(f.busyPercent);
    }
    void print()
    {
        static const char *const kNames[] = {"floor@", "echo@", "send@"};
        static const char *const kFrom[] = {"from the schedule", "round trip       "};
        for (int kind = 0; kind < 3; ++kind) {
            std::vector<double> &st = m_steal[kind];
            std::sort(st.begin(), st.end());
            std::vector<double> &busy = m_busy[kind];
            std::sort(busy.begin(), busy.end());
            for (int from = 0; from < 2; ++from) {
                std::vector<double> &v = m_p99Us[kind][from];
                if (v.empty())
                    continue;
                std::sort(v.begin(), v.end());
                const auto under1ms
                    = std::count_if(v.begin(), v.end(), [](double us) { return us < 1000.0; });
                std::printf("%-6s p99 %s over %zu runs: median %.2f ms (%.2f .. %.2f), under "
                            "1 ms in %lld; CPU busy median %.0f%%, host steal median %.0f%%\n",
                    kNames[kind], kFrom[from], v.size(), median(v) / 1000.0, v.front() / 1000.0,
                    v.back() / 1000.0, static_cast<long long>(under1ms),
                    busy.empty() ? 0.0 : median(busy), st.empty() ? 0.0 : median(st));
            }
        }
        std::fflush(stdout);
    }

private:
    static double median(const std::vector<double> &sorted)
    {
        const std::size_t n = sorted.size();
        return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
    std::vector<double> m_p99Us[3][2]; // [floor@, echo@, send@][from the schedule, round trip]
    std::vector<double> m_steal[3];
    std::vector<double> m_busy[3];
};

/// One row; `floorRate` > 0 appends the row's fraction of the floor row of the same run.
void printRow(
    const char *what, int size, int connections, int window, const Figures &r, double floorRate = 0)
{
    std::printf("%-6s %5d B %3d conn x %3d  %10.0f msg/s %8.1f MB/s  p50 %7.1f p99 %7.1f "
                "p999 %8.1f max %8.1f us%s%s%s%s%s\n",
        what, size, connections, window, r.msgsPerSecond, r.mbPerSecond,
        percentileUs(r.latencyNs, 0.5), percentileUs(r.latencyNs, 0.99),
        percentileUs(r.latencyNs, 0.999),
        r.latencyNs.empty() ? 0.0 : double(r.latencyNs.back()) / 1000.0,
        r.issueLagP99Us >= 0
            ? qPrintable(QStringLiteral("  (issued late p99 %1 us; round trip p99 %2 us)")
                             .arg(r.issueLagP99Us, 0, 'f', 1)
                             .arg(percentileUs(r.roundTripNs, 0.99), 0, 'f', 1))
            : "",
        r.stealPercent >= 0 ? qPrintable(QStringLiteral("  (CPU busy %1%, host steal %2%)")
                                             .arg(r.busyPercent, 0, 'f', 0)
                                             .arg(r.stealPercent, 0, 'f', 0))
                            : "",
        floorRate > 0
            ? qPrintable(QStringLiteral("  %1x floor").arg(r.msgsPerSecond / floorRate, 0, 'f', 2))
            : "",
        r.errors ? qPrintable(QStringLiteral("  (%1 errors)").arg(r.errors)) : "",
        r.failed ? "  (FAILED: connection lost or answers missing)" : "");
    std::fflush(stdout);
}

/// Lets the store catch up before a row (dispatch done, the async flush within 64 KiB of the
/// end), so that no row pays for flushing what the row before it wrote: after a pipelined row
/// that is up to a GiB, written back during the rows that follow. At most 30 s.
void settle(storage::MessageStore &store)
{
    store.waitForDispatch(30'000);
    const auto until = Clock::now() + std::chrono::seconds(30);
    while (store.stats().flushBacklogBytes > 64 * 1024 && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

/// Pulls every queue of the topic back, 32 at a time; returns msgs/s.
double pullBack(const QByteArray &address, const QByteArray &topic, std::int64_t *count)
{
    RemotingClient client;
    std::int64_t got = 0;
    const auto start = Clock::now();
    for (int q = 0; q < kQueues; ++q) {
        std::int64_t offset = 0;
        for (;;) {
            RemotingCommand pull = RemotingCommand::createRequest(11);
            pull.setExt("consumerGroup", QByteArrayLiteral("G_bench"));
            pull.setExt("topic", topic);
            pull.setExt("queueId", q);
            pull.setExt("queueOffset", offset);
            pull.setExt("maxMsgNums", 32);
            pull.setExt("sysFlag", 4);
            pull.setExt("commitOffset", 0);
            pull.setExt("suspendTimeoutMillis", 0);
            pull.setExt("subscription", QByteArrayLiteral("*"));
            pull.setExt("subVersion", 0);
            auto r = client.invokeSync(address, pull, 10000);
            if (!r || r->code != 0)
                break;
            const std::int64_t next = r->extLong("nextBeginOffset").value_or(offset);
            got += next - offset;
            offset = next;
        }
    }
    *count = got;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    return double(got) / elapsed;
}

QList<int> intList(const QString &text)
{
    QList<int> out;
    for (const QString &part : text.split(u','))
        if (int v = part.toInt(); v > 0)
            out.append(v);
    return out;
}

} // namespace

int main(int argc, char *argv[])
{
    qrocket::reserveHeapHeadroom(); // as qrocket-broker's main() does
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption secondsOpt(QStringLiteral("seconds"),
        QStringLiteral("Seconds per row."), QStringLiteral("S"), QStringLiteral("1"));
    const QCommandLineOption windowOpt(QStringLiteral("window"),
        QStringLiteral("Requests in flight per connection (pipelined rows)."), QStringLiteral("W"),
        QStringLiteral("32"));
    const QCommandLineOption sizesOpt(QStringLiteral("sizes"), QStringLiteral("Body sizes."),
        QStringLiteral("LIST"), QStringLiteral("128,1024"));
    const QCommandLineOption connOpt(QStringLiteral("connections"), QStringLiteral("Connections."),
        QStringLiteral("LIST"), QStringLiteral("1,16,64"));
    const QCommandLineOption flushOpt(QStringLiteral("flush"), QStringLiteral("Flush types."),
        QStringLiteral("LIST"), QStringLiteral("ASYNC_FLUSH,SYNC_FLUSH"));
    const QCommandLineOption messagesOpt(QStringLiteral("messages"),
        QStringLiteral("Stop each row after N answers (0 = by time)."), QStringLiteral("N"),
        QStringLiteral("0"));
    const QCommandLineOption noEchoOpt(
        QStringLiteral("no-echo"), QStringLiteral("Skip the echo baseline rows."));
    const QCommandLineOption noFloorOpt(QStringLiteral("no-floor"),
        QStringLiteral("Skip the zero-work floor rows (and the fractions of it)."));
    const QCommandLineOption executorOpt(QStringLiteral("send-executor"),
        QStringLiteral("Where SEND_MESSAGE_V2 runs: default (the broker's choice: inline for "
                       "existing topics), io (always inline on the I/O thread) or pool (always "
                       "through the send pool)."),
        QStringLiteral("WHERE"), QStringLiteral("default"));
    const QCommandLineOption rateOpt(QStringLiteral("rate"),
        QStringLiteral(
            "Also run open-loop rows at these send rates (msgs/s, comma-separated; "
            "'half' = half the rate of the synchronous senders (window 1) of the same "
            "size and connections), up to the window's requests in flight per connection; "
            "latency counts from each request's scheduled time."),
        QStringLiteral("LIST"));
    const QCommandLineOption ioThreadsOpt(QStringLiteral("io-threads"),
        QStringLiteral("The broker's serverSelectorThreads (I/O threads of its listen port)."),
        QStringLiteral("N"), QString::number(broker::BrokerConfig().serverSelectorThreads));
    const QCommandLineOption configOpt(QStringLiteral("config"),
        QStringLiteral("Broker and store keys from this broker.conf (the daemon's -c); the bench "
                       "still sets the store folder, the flush type, the port and the I/O "
                       "threads. For A/B runs of one setting."),
        QStringLiteral("FILE"));
    const QCommandLineOption repeatOpt(QStringLiteral("repeat"),
        QStringLiteral("Run each open-loop rate N times (each after the store settles) and print "
                       "the median and range of the rows' p99: on a shared host one run's p99 "
                       "moves with the host."),
        QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption noPullOpt(
        QStringLiteral("no-pull"), QStringLiteral("Skip pulling the messages back."));
    const QCommandLineOption externalOpt(QStringLiteral("broker"),
        QStringLiteral("Drive the broker already listening on 127.0.0.1:PORT (a qrocket-broker or "
                       "RocketMQ daemon) instead of an in-process one: one send row per size and "
                       "connection count, --window in flight on each, so a client's load generator "
                       "can be compared with "
                       "this one on the same process (--flush, --config and --io-threads do not "
                       "apply)."),
        QStringLiteral("PORT"));
    const QCommandLineOption dedupOpt(QStringLiteral("dedup"),
        QStringLiteral("A fresh UNIQ_KEY on every send, and each send row with sendDedupEnable "
                       "off, on, on, off (\"send+d\"), on the same broker."));
    const QCommandLineOption dedupTableOpt(QStringLiteral("dedup-table"),
        QStringLiteral("Measure the send dedup table alone (claim + finish per send, table "
                       "full at sendDedupMaxKeysPerTopic's default and not) and exit."));
    const QCommandLineOption openOnlyOpt(QStringLiteral("open-only"),
        QStringLiteral("Run only the open-loop rows of --rate (numeric rates only)."));
    parser.addOptions({secondsOpt, windowOpt, sizesOpt, connOpt, flushOpt, messagesOpt, noEchoOpt,
        noFloorOpt, noPullOpt, executorOpt, rateOpt, ioThreadsOpt, openOnlyOpt, configOpt,
        repeatOpt, externalOpt, dedupOpt, dedupTableOpt});
    parser.process(app);
    if (parser.isSet(dedupTableOpt)) {
        const std::int64_t cap = broker::BrokerConfig().sendDedupMaxKeysPerTopic;
        for (const std::int64_t c : {cap, std::int64_t(100000000)}) {
            std::printf("== dedup table, cap %lld keys per topic\n", static_cast<long long>(c));
            runDedupTableBench(c, 2, 1000000);
        }
        return 0;
    }
    g_uniqueKeys = parser.isSet(dedupOpt);
    const double seconds = parser.value(secondsOpt).toDouble();
    const int window = std::max(1, parser.value(windowOpt).toInt());
    const std::int64_t maxMessages = parser.value(messagesOpt).toLongLong();
    const int repeat = std::max(1, parser.value(repeatOpt).toInt());
    const bool withFloor = !parser.isSet(noFloorOpt);
    // The floor row for these frames and this shape, printed; its rate (0 when skipped).
    const auto floorRow
        = [&](const QByteArray &topic, int size, int connections, int w, double rate = 0) {
              if (!withFloor)
                  return Figures {};
              FloorServer floor;
              LoadGenerator load(floor.port(), sendRequest(topic, 0, size), connections, w);
              const Figures f = load.run(seconds, maxMessages, size, rate);
              printRow(rate > 0 ? "floor@" : "floor", size, connections, w, f);
              return f;
          };

    if (parser.isSet(externalOpt)) {
        bool ok = false;
        const uint port = parser.value(externalOpt).toUInt(&ok);
        if (!ok || port == 0 || port > 65535) {
            std::fprintf(
                stderr, "--broker: not a port: %s\n", qPrintable(parser.value(externalOpt)));
            return 2;
        }
        std::printf("== external broker 127.0.0.1:%u, %.1f s per row\n", port, seconds);
        for (int size : intList(parser.value(sizesOpt))) {
            const QByteArray topic = "BenchTopic" + QByteArray::number(size);
            for (int connections : intList(parser.value(connOpt))) {
                const double floorRate = floorRow(topic, size, connections, window).msgsPerSecond;
                const RemotingCommand send = sendRequest(topic, 0, size);
                LoadGenerator load(quint16(port), send, connections, window);
                printRow("send", size, connections, window,
                    load.run(seconds, maxMessages, send.body.size()), floorRate);
            }
        }
        return 0;
    }

    for (const QString &flush : parser.value(flushOpt).split(u',', Qt::SkipEmptyParts)) {
        QTemporaryDir dir;
        broker::BrokerStartupConfig startup;
        if (parser.isSet(configOpt)) {
            QStringList unknown;
            if (Status st = startup.load(parser.value(configOpt), {}, &unknown); !st) {
                std::fprintf(stderr, "--config: %s\n", qPrintable(st.message()));
                return 2;
            }
            if (!unknown.isEmpty()) {
                std::fprintf(stderr, "--config: unknown keys: %s\n",
                    qPrintable(unknown.join(QStringLiteral(", "))));
                return 2;
            }
        }
        broker::BrokerConfig config = startup.broker;
        config.brokerIP1 = QStringLiteral("127.0.0.1");
        config.storePathRootDir = dir.path();
        config.namesrvAddr.clear();
        static_cast<void>(config.validate());
        config.listenPort = 0;
        config.serverSelectorThreads = std::max(1, parser.value(ioThreadsOpt).toInt());
        storage::MessageStoreConfig storeConfig = startup.store;
        storeConfig.storePathRootDir = dir.path();
        storeConfig.flushDiskType = flush;
        storeConfig.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
        broker::BrokerController controller(config, storeConfig);
        if (Status st = controller.initialize(); !st) {
            std::fprintf(stderr, "initialize: %s\n", qPrintable(st.message()));
            return 1;
        }
        controller.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>(), {});
        if (const QString where = parser.value(executorOpt); where != QLatin1String("default")) {
            auto send = std::make_shared<broker::SendMessageProcessor>(controller.context());
            if (where == QLatin1String("pool"))
                controller.registerProcessor(
                    310, std::make_shared<PooledSend>(send), controller.sendExecutor());
            else
                controller.registerProcessor(310, send, nullptr);
        }
        if (Status st = controller.start(); !st) {
            std::fprintf(stderr, "start: %s\n", qPrintable(st.message()));
            return 1;
        }
        const quint16 port = controller.listenPort();
        const QByteArray address = "127.0.0.1:" + QByteArray::number(port);
        std::printf("== %s, broker %s, %.1f s per row, send executor: %s, %d I/O threads\n",
            qPrintable(flush), address.constData(), seconds, qPrintable(parser.value(executorOpt)),
            config.serverSelectorThreads);
        for (int size : intList(parser.value(sizesOpt))) {
            const QByteArray topic = "BenchTopic" + QByteArray::number(size);
            for (int connections : intList(parser.value(connOpt))) {
                double syncRate = 0; // of the synchronous senders (window 1)
                for (int w : {1, window}) {
                    if (parser.isSet(openOnlyOpt))
                        break;
                    settle(*controller.context().store);
                    const double floorRate = floorRow(topic, size, connections, w).msgsPerSecond;
                    if (!parser.isSet(noEchoOpt)) {
                        RemotingCommand echo = sendRequest(topic, 0, size);
                        echo.code = kEchoCode;
                        LoadGenerator load(port, echo, connections, w);
                        printRow("echo", size, connections, w,
                            load.run(seconds, maxMessages, echo.body.size()), floorRate);
                    }
                    const RemotingCommand send = sendRequest(topic, 0, size);
                    // --dedup: off, on, on, off (ABBA: drift over the rows, the store growing,
                    // the host's other load, weighs on both settings alike).
                    for (const bool dedup : g_uniqueKeys ? std::vector {false, true, true, false}
                                                         : std::vector {false}) {
                        if (g_uniqueKeys)
                            settle(*controller.context().store);
                        controller.context().config->sendDedupEnable = dedup;
                        LoadGenerator load(port, send, connections, w);
                        const Figures f = load.run(seconds, maxMessages, send.body.size());
                        printRow(dedup ? "send+d" : "send", size, connections, w, f, floorRate);
                        if (w == 1 && !dedup && syncRate == 0)
                            syncRate = f.msgsPerSecond;
                    }
                    controller.context().config->sendDedupEnable = false;
                }
                for (const QString &r : parser.value(rateOpt).split(u',', Qt::SkipEmptyParts)) {
                    const double rate = r == QLatin1String("half") ? syncRate / 2 : r.toDouble();
                    if (rate <= 0)
                        continue;
                    RepeatSummary summary;
                    for (int run = 0; run < repeat; ++run) {
                        settle(*controller.context().store);
                        // The same schedule against both floors first: a tail they show too is
                        // the machine's (scheduler, loopback), not the broker's.
                        if (withFloor)
                            summary.add(0, floorRow(topic, size, connections, window, rate));
                        if (!parser.isSet(noEchoOpt)) {
                            RemotingCommand echo = sendRequest(topic, 0, size);
                            echo.code = kEchoCode;
                            LoadGenerator echoLoad(port, echo, connections, window);
                            const Figures ef
                                = echoLoad.run(seconds, maxMessages, echo.body.size(), rate);
                            printRow("echo@", size, connections, window, ef);
                            summary.add(1, ef);
                        }
                        const RemotingCommand send = sendRequest(topic, 0, size);
                        LoadGenerator load(port, send, connections, window);
                        const Figures f = load.run(seconds, maxMessages, send.body.size(), rate);
                        printRow("send@", size, connections, window, f);
                        summary.add(2, f);
                        std::printf("       (open loop at %.0f msg/s%s)\n", rate,
                            r == QLatin1String("half") ? ", half the synchronous senders' rate"
                                                       : "");
                    }
                    if (repeat > 1)
                        summary.print();
                }
            }
            if (parser.isSet(noPullOpt))
                continue;
            controller.context().store->waitForDispatch(10000);
            std::int64_t pulled = 0;
            const double rate = pullBack(address, topic, &pulled);
            std::printf("pull   %5d B  %lld msgs back at %.0f msg/s (%.1f MB/s)\n", size,
                static_cast<long long>(pulled), rate, rate * size / 1e6);
        }
        controller.shutdown();
    }
    return 0;
}
