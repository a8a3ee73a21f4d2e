// qrocket-bench-broker: SEND_MESSAGE_V2 throughput and latency through a BrokerController
// (in-process, on loopback sockets, store in a temporary directory), first with ASYNC_FLUSH then
// with SYNC_FLUSH, over 1..16 connections with a window of requests in flight per connection
// (window 1 = synchronous senders); then pulls everything back. Each row is printed beside a
// remoting echo baseline (same server, same connections, same window, an inline echo processor)
// measured in the same run. A program that prints figures; never a test.
//
//   qrocket-bench-broker [--seconds S] [--window W] [--sizes 128,1024] [--connections 1,4,16]

#include "broker/brokercontroller.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

using namespace qrocket;
using namespace qrocket::remoting;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kEchoCode = 9199; // QRocket extension range, bench only
constexpr int kQueues = 4;

class EchoProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        RemotingCommand response = RemotingCommand::createResponse(request, 0);
        respond(std::move(response));
    }
};

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
    r.setExt("i", QByteArrayLiteral("TAGS\x01TagA\x02KEYS\x01k1"));
    r.body = QByteArray(bodyBytes, 'x');
    return r;
}

struct Figures
{
    double msgsPerSecond = 0;
    double mbPerSecond = 0;
    std::vector<std::int64_t> latencyNs; // sorted
    int errors = 0;
};

double percentileUs(const std::vector<std::int64_t> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const auto i = std::min(sorted.size() - 1, static_cast<std::size_t>(p * double(sorted.size())));
    return double(sorted[i]) / 1000.0;
}

/// One connection's closed loop with `window` requests in flight until the deadline.
struct Pipeline
{
    std::unique_ptr<RemotingClient> client;
    QByteArray address;
    RemotingCommand request;
    Clock::time_point deadline;
    std::vector<std::int64_t> latencies; // written on the client's I/O thread only
    std::atomic<int> inFlight {0};
    std::atomic<int> errors {0};
    std::mutex mutex;
    std::condition_variable done;

    void issue()
    {
        inFlight.fetch_add(1);
        const auto start = Clock::now();
        client->invokeAsync(address, request, 10000, [this, start](Result<RemotingCommand> r) {
            const auto now = Clock::now();
            latencies.push_back(
                std::chrono::duration_cast<std::chrono::nanoseconds>(now - start).count());
            if (!r || r->code != 0)
                errors.fetch_add(1);
            if (now < deadline)
                issue();
            if (inFlight.fetch_sub(1) == 1) {
                std::lock_guard lock(mutex);
                done.notify_all();
            }
        });
    }
};

Figures run(const QByteArray &address, const RemotingCommand &request, int connections, int window,
    double seconds)
{
    std::vector<std::unique_ptr<Pipeline>> pipes;
    for (int c = 0; c < connections; ++c) {
        auto p = std::make_unique<Pipeline>();
        p->client = std::make_unique<RemotingClient>();
        p->address = address;
        p->request = request;
        p->request.setExt("e", c % kQueues);
        p->client->invokeSync(address, p->request, 5000); // connect + warm up
        pipes.push_back(std::move(p));
    }
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration<double>(seconds);
    for (auto &p : pipes) {
        p->deadline = std::chrono::time_point_cast<Clock::duration>(deadline);
        for (int w = 0; w < window; ++w)
            p->issue();
    }
    Figures result;
    for (auto &p : pipes) {
        std::unique_lock lock(p->mutex);
        p->done.wait_for(lock, std::chrono::seconds(30), [&p] { return p->inFlight.load() == 0; });
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    for (auto &p : pipes) {
        p->client->shutdown();
        result.latencyNs.insert(result.latencyNs.end(), p->latencies.begin(), p->latencies.end());
        result.errors += p->errors.load();
    }
    std::sort(result.latencyNs.begin(), result.latencyNs.end());
    result.msgsPerSecond = double(result.latencyNs.size()) / elapsed;
    result.mbPerSecond = result.msgsPerSecond * double(request.body.size()) / 1e6;
    return result;
}

void printRow(const char *what, int size, int connections, int window, const Figures &r)
{
    std::printf("%-6s %5d B %3d conn x %3d  %10.0f msg/s %8.1f MB/s  p50 %7.1f p99 %7.1f "
                "p999 %8.1f max %8.1f us%s\n",
        what, size, connections, window, r.msgsPerSecond, r.mbPerSecond,
        percentileUs(r.latencyNs, 0.5), percentileUs(r.latencyNs, 0.99),
        percentileUs(r.latencyNs, 0.999),
        r.latencyNs.empty() ? 0.0 : double(r.latencyNs.back()) / 1000.0,
        r.errors ? qPrintable(QStringLiteral("  (%1 errors)").arg(r.errors)) : "");
    std::fflush(stdout);
}

/// Pulls every queue of the topic back (4 chains in parallel); returns msgs/s.
double pullBack(const QByteArray &address, const QByteArray &topic, std::int64_t *count)
{
    RemotingClient client;
    std::atomic<std::int64_t> got {0};
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
    *count = got.load();
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    return double(got.load()) / elapsed;
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
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption secondsOpt(QStringLiteral("seconds"),
        QStringLiteral("Seconds per row."), QStringLiteral("S"), QStringLiteral("1"));
    const QCommandLineOption windowOpt(QStringLiteral("window"),
        QStringLiteral("Requests in flight per connection (pipelined rows)."), QStringLiteral("W"),
        QStringLiteral("64"));
    const QCommandLineOption sizesOpt(QStringLiteral("sizes"), QStringLiteral("Body sizes."),
        QStringLiteral("LIST"), QStringLiteral("128,1024"));
    const QCommandLineOption connOpt(QStringLiteral("connections"), QStringLiteral("Connections."),
        QStringLiteral("LIST"), QStringLiteral("1,4,16"));
    parser.addOptions({secondsOpt, windowOpt, sizesOpt, connOpt});
    parser.process(app);
    const double seconds = parser.value(secondsOpt).toDouble();
    const int window = parser.value(windowOpt).toInt();

    for (const char *flush : {"ASYNC_FLUSH", "SYNC_FLUSH"}) {
        QTemporaryDir dir;
        broker::BrokerConfig config;
        config.brokerIP1 = QStringLiteral("127.0.0.1");
        config.storePathRootDir = dir.path();
        config.namesrvAddr.clear();
        static_cast<void>(config.validate());
        config.listenPort = 0;
        storage::MessageStoreConfig storeConfig;
        storeConfig.storePathRootDir = dir.path();
        storeConfig.flushDiskType = QString::fromLatin1(flush);
        storeConfig.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
        broker::BrokerController controller(config, storeConfig);
        if (Status st = controller.initialize(); !st) {
            std::fprintf(stderr, "initialize: %s\n", qPrintable(st.message()));
            return 1;
        }
        controller.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>(), {});
        if (Status st = controller.start(); !st) {
            std::fprintf(stderr, "start: %s\n", qPrintable(st.message()));
            return 1;
        }
        const QByteArray address = "127.0.0.1:" + QByteArray::number(controller.listenPort());
        std::printf("== %s, broker %s, %.1f s per row\n", flush, address.constData(), seconds);
        for (int size : intList(parser.value(sizesOpt))) {
            const QByteArray topic = "BenchTopic" + QByteArray::number(size);
            for (int connections : intList(parser.value(connOpt))) {
                for (int w : {1, window}) {
                    RemotingCommand echo = sendRequest(topic, 0, size);
                    echo.code = kEchoCode;
                    printRow(
                        "echo", size, connections, w, run(address, echo, connections, w, seconds));
                    printRow("send", size, connections, w,
                        run(address, sendRequest(topic, 0, size), connections, w, seconds));
                }
            }
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
