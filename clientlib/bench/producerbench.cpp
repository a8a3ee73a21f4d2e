// qrocket-bench producer: RocketMQ's benchmark Producer (and BatchProducer with -b) on
// QRocket's client. Options keep the Java tool's letters and its `-k true` value style:
//   -w threadCount (64)  -s messageSize (128)  -k keyEnable  -p propertySize  -l tagCount
//   -q messageQuantity (0: no limit)  -d delayEnable  -e delayLevel (1)  -y asyncEnable
//   -b batchSize (BatchProducer; 1: no batching)  -t topic (BenchmarkTest)
// QRocket's own: -o onewayEnable, --window (async sends in flight, 1024), --tps, --duration,
// --interval, --json.
// Lines: "Current Time: ... Send TPS: N Max RT(ms): N Average RT(ms): N Send Failed: N
// Response Failed: N" (BatchProducer's line with -b), then what the Java tool lacks:
// "p50(ms): p99(ms): p999(ms):" of the interval. Max RT is the interval's (Java's is since the
// start). A summary "[Complete] ..." (or the JSON document) at the end.

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"
#include "clientlib/client/producer.h"

#include <QDateTime>
#include <QJsonArray>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::bench {

namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t microsSince(Clock::time_point start)
{
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
}

struct ProducerSettings
{
    QByteArray topic;
    int threads = 64;
    int size = 128;
    bool keys = false;
    int propertySize = 0;
    int tagCount = 0;
    std::int64_t quantity = 0;
    bool delay = false;
    int delayLevel = 1;
    bool async = false;
    bool oneway = false;
    int batch = 1;
    int window = 1024;
    std::int64_t tps = 0;
};

/// The Java tool's body: "hello baby" repeated to the size.
QByteArray benchBody(int size)
{
    QByteArray body;
    body.reserve(size);
    while (body.size() < size)
        body.append("hello baby", std::min<qsizetype>(10, size - body.size()));
    return body;
}

client::Message buildMessage(const ProducerSettings &s, const QByteArray &body,
    const QByteArray &keys, std::uint64_t sequence)
{
    client::Message msg(s.topic, body);
    if (s.keys)
        msg.setKeys(keys);
    if (s.tagCount > 0)
        msg.setTags("tag" + QByteArray::number(qint64(sequence % std::uint64_t(s.tagCount))));
    if (s.delay)
        msg.setDelayTimeLevel(s.delayLevel);
    // -p: user properties adding up to about propertySize bytes (keys and values of 16 bytes).
    for (int used = 0, i = 0; used < s.propertySize; ++i, used += 32) {
        const QByteArray n = QByteArray::number(i).rightJustified(12, '0');
        msg.setProperty("prop" + n, "value" + n.left(11));
    }
    return msg;
}

/// Counts an outcome as the Java tool does: a broker's error response is "Response Failed",
/// anything else that went wrong (timeout, no route, connection) is "Send Failed".
void countOutcome(BenchCounters &c, const Status &status, std::uint64_t messages)
{
    if (status.isOk()) {
        c.success.fetch_add(1, std::memory_order_relaxed);
        c.messages.fetch_add(messages, std::memory_order_relaxed);
    } else if (status.code() == Status::Code::RemoteError) {
        c.responseFailed.fetch_add(1, std::memory_order_relaxed);
    } else {
        c.sendFailed.fetch_add(1, std::memory_order_relaxed);
    }
}

/// The first failure's text, printed once on stderr (a run of failures is one line, not
/// thousands).
class FirstError
{
public:
    void note(const Status &status)
    {
        if (status.isOk() || m_reported.exchange(true))
            return;
        std::fprintf(
            stderr, "qrocket-bench producer: first failure: %s\n", qPrintable(status.toString()));
    }

private:
    std::atomic<bool> m_reported {false};
};

} // namespace

int runProducer(const QStringList &arguments)
{
    BenchArgs args(QStringLiteral("producer"));
    args.addCommonOptions();
    args.addOption({QStringLiteral("w"), QStringLiteral("threadCount")},
        QStringLiteral("Thread count, Default: 64"), QStringLiteral("64"));
    args.addOption({QStringLiteral("s"), QStringLiteral("messageSize")},
        QStringLiteral("Message Size, Default: 128"), QStringLiteral("128"));
    args.addOption({QStringLiteral("k"), QStringLiteral("keyEnable")},
        QStringLiteral("Message Key Enable, Default: false"), QStringLiteral("false"));
    args.addOption({QStringLiteral("p"), QStringLiteral("propertySize")},
        QStringLiteral("Property Size, Default: 0"), QStringLiteral("0"));
    args.addOption({QStringLiteral("l"), QStringLiteral("tagCount")},
        QStringLiteral("Tag count, Default: 0"), QStringLiteral("0"));
    args.addOption({QStringLiteral("q"), QStringLiteral("messageQuantity")},
        QStringLiteral("Send message quantity, Default: 0, running forever"), QStringLiteral("0"));
    args.addOption({QStringLiteral("d"), QStringLiteral("delayEnable")},
        QStringLiteral("Delay message Enable, Default: false"), QStringLiteral("false"));
    args.addOption({QStringLiteral("e"), QStringLiteral("delayLevel")},
        QStringLiteral("Delay message level, Default: 1"), QStringLiteral("1"));
    args.addOption({QStringLiteral("y"), QStringLiteral("asyncEnable")},
        QStringLiteral("Enable async produce (one thread, --window sends in flight), Default: "
                       "false"),
        QStringLiteral("false"));
    args.addOption({QStringLiteral("o"), QStringLiteral("onewayEnable")},
        QStringLiteral("Oneway sends (RT is the call's), Default: false"), QStringLiteral("false"));
    args.addOption({QStringLiteral("b"), QStringLiteral("batchSize")},
        QStringLiteral("Messages per SEND_BATCH_MESSAGE (BatchProducer), Default: 1 (no batch)"),
        QStringLiteral("1"));
    args.addOption({QStringLiteral("tps")},
        QStringLiteral("Pace the senders to this many requests per second in total (0: as fast "
                       "as they go), Default: 0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("window")},
        QStringLiteral("Async sends in flight with -y true, Default: 1024"),
        QStringLiteral("1024"));
    int exitCode = 0;
    if (!args.parse(arguments, &exitCode))
        return exitCode;
    if (!args.refuseUnsupported())
        return 2;

    ProducerSettings s;
    s.topic = args.topic();
    const auto threads = args.integer(QStringLiteral("w"), 1, 4096);
    const auto size = args.integer(QStringLiteral("s"), 1, 4 * 1024 * 1024);
    const auto keys = args.boolean(QStringLiteral("k"));
    const auto props = args.integer(QStringLiteral("p"), 0, 32 * 1024);
    const auto tags = args.integer(QStringLiteral("l"), 0, 1 << 20);
    const auto quantity
        = args.integer(QStringLiteral("q"), 0, std::numeric_limits<std::int64_t>::max());
    const auto delay = args.boolean(QStringLiteral("d"));
    const auto level = args.integer(QStringLiteral("e"), 1, 18);
    const auto async = args.boolean(QStringLiteral("y"));
    const auto oneway = args.boolean(QStringLiteral("o"));
    const auto batch = args.integer(QStringLiteral("b"), 1, 10000);
    const auto window = args.integer(QStringLiteral("window"), 1, 65536);
    const auto tps = args.integer(QStringLiteral("tps"), 0, 100'000'000);
    if (!threads || !size || !keys || !props || !tags || !quantity || !delay || !level || !async
        || !oneway || !batch || !window || !tps)
        return 2;
    s.threads = int(*async ? 1 : *threads);
    s.size = int(*size);
    s.keys = *keys;
    s.propertySize = int(*props);
    s.tagCount = int(*tags);
    s.quantity = *quantity;
    s.delay = *delay;
    s.delayLevel = int(*level);
    s.async = *async;
    s.oneway = *oneway;
    s.batch = int(*batch);
    s.window = int(*window);
    s.tps = *tps;
    if (int(s.async) + int(s.oneway) + int(s.batch > 1) > 1) {
        std::fprintf(stderr, "qrocket-bench producer: -y, -o and -b are exclusive\n");
        return 2;
    }
    if (s.topic.isEmpty()) {
        std::fprintf(stderr, "qrocket-bench producer: -t: empty topic\n");
        return 2;
    }

    client::ProducerOptions options;
    options.group = QByteArrayLiteral("benchmark_producer");
    options.client.namesrvAddr = args.namesrvAddr();
    args.applyCredentials(options.client);
    options.enableMsgTrace = args.msgTrace();
    client::Producer producer(options);
    if (Status st = producer.start(); !st) {
        std::fprintf(
            stderr, "qrocket-bench producer: cannot start: %s\n", qPrintable(st.toString()));
        return 1;
    }
    std::fprintf(args.lines(),
        "topic: %s threadCount: %d messageSize: %d keyEnable: %s propertySize: %d tagCount: %d "
        "delayEnable: %s delayLevel: %d asyncEnable: %s onewayEnable: %s batchSize: %d\n",
        s.topic.constData(), s.threads, s.size, s.keys ? "true" : "false", s.propertySize,
        s.tagCount, s.delay ? "true" : "false", s.delayLevel, s.async ? "true" : "false",
        s.oneway ? "true" : "false", s.batch);
    std::fflush(args.lines());

    // Fail fast on a topic with no route (and auto-creation off) instead of printing a screen of
    // failures: one synchronous probe of the route.
    if (auto queues = producer.fetchPublishMessageQueues(s.topic); !queues) {
        std::fprintf(stderr, "qrocket-bench producer: topic %s: %s\n", s.topic.constData(),
            qPrintable(queues.error().toString()));
        return 1;
    }

    BenchCounters counters;
    LatencyRecorder latency;
    FirstError firstError;
    const QByteArray body = benchBody(s.size);
    const QByteArray keyText = QByteArray::number(QDateTime::currentMSecsSinceEpoch() / 1000);
    const std::int64_t perThread
        = s.quantity > 0 ? std::max<std::int64_t>(1, s.quantity / s.threads) : 0;
    std::atomic<int> finished {0};
    std::atomic<std::uint64_t> sequence {0};
    auto keepGoing = [] { return !stopRequested().load(std::memory_order_relaxed); };

    std::mutex windowMutex;
    std::condition_variable windowCv;
    int inFlight = 0;

    std::vector<std::thread> workers;
    for (int t = 0; t < s.threads; ++t) {
        workers.emplace_back([&] {
            // --tps: each thread keeps its share of the rate on a fixed schedule.
            const auto period = s.tps > 0
                ? std::chrono::nanoseconds(1'000'000'000LL * s.threads / s.tps)
                : std::chrono::nanoseconds(0);
            Clock::time_point due = Clock::now();
            for (std::int64_t n = 0; keepGoing() && (perThread == 0 || n < perThread); ++n) {
                if (s.tps > 0) {
                    due += period;
                    std::this_thread::sleep_until(due);
                }
                const std::uint64_t seq = sequence.fetch_add(1, std::memory_order_relaxed);
                const Clock::time_point start = Clock::now();
                if (s.batch > 1) {
                    std::vector<client::Message> msgs;
                    msgs.reserve(std::size_t(s.batch));
                    for (int i = 0; i < s.batch; ++i)
                        msgs.push_back(buildMessage(s, body, keyText, seq + std::uint64_t(i)));
                    auto r = producer.sendBatch(std::move(msgs));
                    latency.record(microsSince(start));
                    countOutcome(counters, r.status(), std::uint64_t(s.batch));
                    firstError.note(r.status());
                } else if (s.oneway) {
                    const Status st = producer.sendOneway(buildMessage(s, body, keyText, seq));
                    latency.record(microsSince(start));
                    countOutcome(counters, st, 1);
                    firstError.note(st);
                } else if (s.async) {
                    {
                        std::unique_lock lock(windowMutex);
                        windowCv.wait(lock, [&] { return inFlight < s.window || !keepGoing(); });
                        if (!keepGoing())
                            break;
                        ++inFlight;
                    }
                    producer.sendAsync(buildMessage(s, body, keyText, seq),
                        [&, start](Result<client::SendResult> r) {
                            latency.record(microsSince(start));
                            countOutcome(counters, r.status(), 1);
                            firstError.note(r.status());
                            // Wake the sender when half the window is free (or all of it), not
                            // per completion: a wake-up per message is a context switch per
                            // message, the tool's own cost rather than the client's.
                            std::lock_guard lock(windowMutex);
                            --inFlight;
                            if (inFlight <= s.window / 2)
                                windowCv.notify_one();
                        });
                } else {
                    auto r = producer.sendSync(buildMessage(s, body, keyText, seq));
                    latency.record(microsSince(start));
                    countOutcome(counters, r.status(), 1);
                    firstError.note(r.status());
                }
            }
            finished.fetch_add(1);
        });
    }

    auto printLine = [&](const BenchSample &d) {
        const double secs = std::max(0.001, d.seconds());
        const std::uint64_t requests = d.success + d.sendFailed + d.responseFailed;
        if (s.batch > 1) {
            std::fprintf(args.lines(),
                "Current Time: %s Send TPS: %lld Send MPS: %lld Max RT(ms): %lld Average RT(ms): "
                "%7.3f Average Message RT(ms): %7.3f Send Failed: %llu Send Message Failed: %llu "
                "p50(ms): %.3f p99(ms): %.3f p999(ms): %.3f\n",
                currentTimeText().constData(), qlonglong(double(requests) / secs),
                qlonglong(double(d.messages) / secs), qlonglong(d.latency.maxMicros / 1000),
                ms(d.latency.meanMicros()), ms(d.latency.meanMicros()) / s.batch,
                qulonglong(d.sendFailed + d.responseFailed),
                qulonglong((d.sendFailed + d.responseFailed) * std::uint64_t(s.batch)),
                ms(d.latency.percentile(0.5)), ms(d.latency.percentile(0.99)),
                ms(d.latency.percentile(0.999)));
            return;
        }
        std::fprintf(args.lines(),
            "Current Time: %s Send TPS: %lld Max RT(ms): %lld Average RT(ms): %7.3f Send Failed: "
            "%llu Response Failed: %llu p50(ms): %.3f p99(ms): %.3f p999(ms): %.3f\n",
            currentTimeText().constData(), qlonglong(double(requests) / secs),
            qlonglong(d.latency.maxMicros / 1000), ms(d.latency.meanMicros()),
            qulonglong(d.sendFailed), qulonglong(d.responseFailed), ms(d.latency.percentile(0.5)),
            ms(d.latency.percentile(0.99)), ms(d.latency.percentile(0.999)));
    };
    const BenchSample total = runReportLoop(
        args, [&] { return takeSample(counters, latency); }, printLine,
        [&] { return finished.load() == s.threads; });

    stopRequested().store(true);
    windowCv.notify_all();
    for (std::thread &w : workers)
        w.join();
    // Async sends still in flight finish (or time out, 3 s) before the summary counts them.
    {
        std::unique_lock lock(windowMutex);
        windowCv.wait_for(lock, std::chrono::seconds(5), [&] { return inFlight == 0; });
    }
    const BenchSample all = takeSample(counters, latency) - BenchSample {};
    const double secs = std::max(0.001, total.seconds());
    const std::uint64_t requests = all.success + all.sendFailed + all.responseFailed;
    if (args.json()) {
        printJson(QJsonObject {
            {QStringLiteral("mode"), QStringLiteral("producer")},
            {QStringLiteral("topic"), QString::fromUtf8(s.topic)},
            {QStringLiteral("threads"), s.threads},
            {QStringLiteral("messageSize"), s.size},
            {QStringLiteral("async"), s.async},
            {QStringLiteral("oneway"), s.oneway},
            {QStringLiteral("batchSize"), s.batch},
            {QStringLiteral("seconds"), secs},
            {QStringLiteral("requests"), double(requests)},
            {QStringLiteral("messages"), double(all.messages)},
            {QStringLiteral("sendTps"),
                double(total.success + total.sendFailed + total.responseFailed) / secs},
            {QStringLiteral("messagesPerSecond"), double(total.messages) / secs},
            {QStringLiteral("sendFailed"), double(all.sendFailed)},
            {QStringLiteral("responseFailed"), double(all.responseFailed)},
            {QStringLiteral("latency"), latencyJson(all.latency)},
        });
    } else if (s.batch > 1) {
        std::fprintf(stdout,
            "[Complete] Send Total: %llu Send TPS: %lld Send MPS: %lld Max RT(ms): %lld Average "
            "RT(ms): %7.3f Send Failed: %llu Send Message Failed: %llu p50(ms): %.3f p99(ms): %.3f "
            "p999(ms): %.3f\n",
            qulonglong(requests),
            qlonglong(double(total.success + total.sendFailed + total.responseFailed) / secs),
            qlonglong(double(total.messages) / secs), qlonglong(all.latency.maxMicros / 1000),
            ms(all.latency.meanMicros()), qulonglong(all.sendFailed + all.responseFailed),
            qulonglong((all.sendFailed + all.responseFailed) * std::uint64_t(s.batch)),
            ms(all.latency.percentile(0.5)), ms(all.latency.percentile(0.99)),
            ms(all.latency.percentile(0.999)));
    } else {
        std::fprintf(stdout,
            "[Complete] Send Total: %llu Send TPS: %lld Max RT(ms): %lld Average RT(ms): %7.3f "
            "Send Failed: %llu Response Failed: %llu p50(ms): %.3f p99(ms): %.3f p999(ms): %.3f\n",
            qulonglong(requests),
            qlonglong(double(total.success + total.sendFailed + total.responseFailed) / secs),
            qlonglong(all.latency.maxMicros / 1000), ms(all.latency.meanMicros()),
            qulonglong(all.sendFailed), qulonglong(all.responseFailed),
            ms(all.latency.percentile(0.5)), ms(all.latency.percentile(0.99)),
            ms(all.latency.percentile(0.999)));
    }
    producer.shutdown();
    return all.success > 0 ? 0 : 1;
}

} // namespace qrocket::bench
