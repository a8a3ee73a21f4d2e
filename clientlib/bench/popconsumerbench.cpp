// qrocket-bench popconsumer: POP consumption (RocketMQ 5's SimpleConsumer) under load, reporting
// like the consumer mode. -w receiver threads each loop receive(-b) -> ack every message;
// -g group, -f/-e filter as the consumer mode; -i invisible time (ms), --await the long-polling
// time of one receive (ms), --from last|first, --quantity, --duration, --interval, --json.
// Lines: "Current Time: ... TPS: N FAIL: N AVG(B2C) RT(ms): N AVG(S2C) RT(ms): N MAX(B2C)
// RT(ms): N MAX(S2C) RT(ms): N" and the interval's B2C percentiles; FAIL counts failed acks and
// receives. TPS counts acked messages.

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"
#include "clientlib/client/simpleconsumer.h"

#include <chrono>
#include <thread>

namespace qrocket::bench {

int runPopConsumer(const QStringList &arguments)
{
    BenchArgs args(QStringLiteral("popconsumer"));
    args.addCommonOptions();
    args.addOption({QStringLiteral("w"), QStringLiteral("threadCount")},
        QStringLiteral("Receiver threads, Default: 4"), QStringLiteral("4"));
    args.addOption({QStringLiteral("g"), QStringLiteral("group")},
        QStringLiteral("Consumer group name, Default: benchmark_pop_consumer"),
        QStringLiteral("benchmark_pop_consumer"));
    args.addConsumerSourceOptions();
    args.addOption({QStringLiteral("b"), QStringLiteral("batch")},
        QStringLiteral("Most messages of one receive (1..32), Default: 32"), QStringLiteral("32"));
    args.addOption({QStringLiteral("i"), QStringLiteral("invisibleTime")},
        QStringLiteral("Invisible time of a received message (ms), Default: 30000"),
        QStringLiteral("30000"));
    args.addOption({QStringLiteral("await")},
        QStringLiteral("Long-polling time of one receive (ms), Default: 1000"),
        QStringLiteral("1000"));
    args.addOption({QStringLiteral("quantity")},
        QStringLiteral("Stop after acking this many messages (0: no limit), Default: 0"),
        QStringLiteral("0"));
    int exitCode = 0;
    if (!args.parse(arguments, &exitCode))
        return exitCode;
    if (!args.refuseUnsupported(false))
        return 2;
    const auto threads = args.integer(QStringLiteral("w"), 1, 256);
    const auto batch = args.integer(QStringLiteral("b"), 1, client::SimpleConsumer::kMaxReceive);
    const auto invisible = args.integer(QStringLiteral("i"), 1000, 7LL * 24 * 3600 * 1000);
    const auto awaitMs = args.integer(QStringLiteral("await"), 0, 60000);
    const auto quantity
        = args.integer(QStringLiteral("quantity"), 0, std::numeric_limits<std::int64_t>::max());
    if (!threads || !batch || !invisible || !awaitMs || !quantity)
        return 2;
    const QByteArray topic = args.topic();
    const QByteArray group = args.text(QStringLiteral("g")).trimmed().toUtf8();
    const auto source = args.consumerSource();
    if (!source)
        return 2;

    client::SimpleConsumerOptions options;
    options.group = group;
    options.client.namesrvAddr = args.namesrvAddr();
    args.applyCredentials(options.client);
    options.awaitDurationMillis = int(*awaitMs);
    options.consumeFromFirst = source->fromFirst;
    client::SimpleConsumer consumer(options);
    const client::MessageSelector selector = source->sql
        ? client::MessageSelector::bySql(source->expression)
        : client::MessageSelector::byTag(source->expression);
    std::fprintf(args.lines(),
        "topic: %s, threadCount %d, group: %s, filterType: %s, expression: %s, batch: %d, "
        "invisibleTime: %lld ms, await: %lld ms\n",
        topic.constData(), int(*threads), group.constData(), qPrintable(source->filterType),
        source->expression.constData(), int(*batch), qlonglong(*invisible), qlonglong(*awaitMs));
    if (Status st = consumer.subscribe(topic, selector); !st) {
        std::fprintf(stderr, "qrocket-bench popconsumer: %s\n", qPrintable(st.toString()));
        return 2;
    }
    if (Status st = consumer.start(); !st) {
        std::fprintf(
            stderr, "qrocket-bench popconsumer: cannot start: %s\n", qPrintable(st.toString()));
        return 1;
    }
    std::fprintf(args.lines(), "PopConsumer Started.\n");
    std::fflush(args.lines());

    BenchCounters counters; // success: acked, sendFailed: failed acks and receives
    LatencyRecorder bornToConsumer;
    LatencyRecorder storeToConsumer;
    std::atomic<bool> stop {false};
    std::atomic<bool> warned {false};
    std::vector<std::thread> workers;
    for (int t = 0; t < int(*threads); ++t) {
        workers.emplace_back([&] {
            while (!stop.load(std::memory_order_relaxed)) {
                auto got = consumer.receive(int(*batch), int(*invisible));
                if (!got) {
                    counters.sendFailed.fetch_add(1, std::memory_order_relaxed);
                    if (!warned.exchange(true))
                        std::fprintf(stderr, "qrocket-bench popconsumer: receive: %s\n",
                            qPrintable(got.error().toString()));
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    continue;
                }
                for (const client::MessageExt &m : *got) {
                    bornToConsumer.record(microsSinceEpochMs(m.bornTimestamp()));
                    storeToConsumer.record(microsSinceEpochMs(m.storeTimestamp()));
                    if (consumer.ack(m))
                        counters.success.fetch_add(1, std::memory_order_relaxed);
                    else
                        counters.sendFailed.fetch_add(1, std::memory_order_relaxed);
                }
            }
        });
    }

    auto printLine = [&](const BenchSample &d) {
        const double secs = std::max(0.001, d.seconds());
        std::fprintf(args.lines(),
            "Current Time: %s TPS: %lld FAIL: %llu AVG(B2C) RT(ms): %7.3f AVG(S2C) RT(ms): %7.3f "
            "MAX(B2C) RT(ms): %lld MAX(S2C) RT(ms): %lld p50(B2C)(ms): %.3f p99(B2C)(ms): %.3f "
            "p999(B2C)(ms): %.3f\n",
            currentTimeText().constData(), qlonglong(double(d.success) / secs),
            qulonglong(d.sendFailed), ms(d.latency.meanMicros()), ms(d.latency2.meanMicros()),
            qlonglong(d.latency.maxMicros / 1000), qlonglong(d.latency2.maxMicros / 1000),
            ms(d.latency.percentile(0.5)), ms(d.latency.percentile(0.99)),
            ms(d.latency.percentile(0.999)));
    };
    const BenchSample total = runReportLoop(
        args, [&] { return takeSample(counters, bornToConsumer, &storeToConsumer); }, printLine,
        [&, limit = std::uint64_t(*quantity)] {
            return limit > 0 && counters.success.load(std::memory_order_relaxed) >= limit;
        });
    stop = true;
    for (std::thread &w : workers)
        w.join(); // each ends within one receive (await + the API timeout)
    consumer.shutdown();
    const BenchSample all = takeSample(counters, bornToConsumer, &storeToConsumer) - BenchSample {};
    const double secs = std::max(0.001, total.seconds());
    if (args.json()) {
        printJson(QJsonObject {
            {QStringLiteral("mode"), QStringLiteral("popconsumer")},
            {QStringLiteral("topic"), QString::fromUtf8(topic)},
            {QStringLiteral("group"), QString::fromUtf8(group)},
            {QStringLiteral("seconds"), secs},
            {QStringLiteral("consumed"), double(all.success)},
            {QStringLiteral("failed"), double(all.sendFailed)},
            {QStringLiteral("tps"), double(total.success) / secs},
            {QStringLiteral("bornToConsumer"), latencyJson(all.latency)},
            {QStringLiteral("storeToConsumer"), latencyJson(all.latency2)},
        });
    } else {
        std::fprintf(stdout,
            "[Complete] Consume Total: %llu TPS: %lld FAIL: %llu AVG(B2C) RT(ms): %7.3f AVG(S2C) "
            "RT(ms): %7.3f MAX(B2C) RT(ms): %lld MAX(S2C) RT(ms): %lld p50(B2C)(ms): %.3f "
            "p99(B2C)(ms): %.3f p999(B2C)(ms): %.3f\n",
            qulonglong(all.success), qlonglong(double(total.success) / secs),
            qulonglong(all.sendFailed), ms(all.latency.meanMicros()), ms(all.latency2.meanMicros()),
            qlonglong(all.latency.maxMicros / 1000), qlonglong(all.latency2.maxMicros / 1000),
            ms(all.latency.percentile(0.5)), ms(all.latency.percentile(0.99)),
            ms(all.latency.percentile(0.999)));
    }
    return all.success > 0 || *quantity == 0 ? 0 : 1;
}

} // namespace qrocket::bench
