// qrocket-bench consumer: RocketMQ's benchmark Consumer on QRocket's PushConsumer. The Java
// tool's letters: -t topic (BenchmarkTest), -w threadCount (20), -g group (benchmark_consumer),
// -p group prefix enable (adds "_<millis % 100>"), -f filterType (TAG or SQL92), -e expression
// (text, or a file holding it, as the Java tool reads), -r fail rate (RECONSUME_LATER share).
// QRocket's own: --broadcasting, --from last|first, --quantity, --duration, --interval, --json.
// Lines: "Current Time: ... TPS: N FAIL: N AVG(B2C) RT(ms): N AVG(S2C) RT(ms): N MAX(B2C)
// RT(ms): N MAX(S2C) RT(ms): N", then the interval's B2C p50/p99/p999 (born on the producer
// to consumed; S2C: stored on the broker to consumed; both use the two hosts' wall clocks).

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"
#include "clientlib/client/pushconsumer.h"

#include <QDateTime>

#include <random>

namespace qrocket::bench {

int runConsumer(const QStringList &arguments)
{
    BenchArgs args(QStringLiteral("consumer"));
    args.addCommonOptions();
    args.addOption({QStringLiteral("w"), QStringLiteral("threadCount")},
        QStringLiteral("Thread count, Default: 20"), QStringLiteral("20"));
    args.addOption({QStringLiteral("g"), QStringLiteral("group")},
        QStringLiteral("Consumer group name, Default: benchmark_consumer"),
        QStringLiteral("benchmark_consumer"));
    args.addOption({QStringLiteral("p"), QStringLiteral("groupPrefixEnable")},
        QStringLiteral("Is group prefix enable, Default: false"), QStringLiteral("false"));
    args.addConsumerSourceOptions();
    args.addOption({QStringLiteral("r"), QStringLiteral("failRate")},
        QStringLiteral("consumer fail rate, default 0"), QStringLiteral("0"));
    args.addOption({QStringLiteral("broadcasting")},
        QStringLiteral("Broadcasting instead of clustering, Default: false"),
        QStringLiteral("false"));
    args.addOption({QStringLiteral("quantity")},
        QStringLiteral("Stop after consuming this many messages (0: no limit), Default: 0"),
        QStringLiteral("0"));
    int exitCode = 0;
    if (!args.parse(arguments, &exitCode))
        return exitCode;
    if (!args.refuseUnsupported())
        return 2;

    const auto threads = args.integer(QStringLiteral("w"), 1, 1024);
    const auto prefix = args.boolean(QStringLiteral("p"));
    const auto failRate = args.real(QStringLiteral("r"), 0.0, 1.0);
    const auto broadcasting = args.boolean(QStringLiteral("broadcasting"));
    const auto quantity
        = args.integer(QStringLiteral("quantity"), 0, std::numeric_limits<std::int64_t>::max());
    if (!threads || !prefix || !failRate || !broadcasting || !quantity)
        return 2;
    const QByteArray topic = args.topic();
    QByteArray group = args.text(QStringLiteral("g")).trimmed().toUtf8();
    if (*prefix)
        group += '_' + QByteArray::number(QDateTime::currentMSecsSinceEpoch() % 100);
    const auto source = args.consumerSource();
    if (!source)
        return 2;

    client::PushConsumerOptions options;
    options.group = group;
    options.client.namesrvAddr = args.namesrvAddr();
    args.applyCredentials(options.client);
    options.enableMsgTrace = args.msgTrace();
    options.consumeThreadMin = options.consumeThreadMax = int(*threads);
    options.messageModel
        = *broadcasting ? client::MessageModel::Broadcasting : client::MessageModel::Clustering;
    options.consumeFromWhere = source->fromFirst ? client::ConsumeFromWhere::ConsumeFromFirstOffset
                                                 : client::ConsumeFromWhere::ConsumeFromLastOffset;
    client::PushConsumer consumer(options);
    const client::MessageSelector selector = source->sql
        ? client::MessageSelector::bySql(source->expression)
        : client::MessageSelector::byTag(source->expression);
    std::fprintf(args.lines(),
        "topic: %s, threadCount %d, group: %s, filterType: %s, expression: %s, broadcasting: %s\n",
        topic.constData(), int(*threads), group.constData(), qPrintable(source->filterType),
        source->expression.constData(), *broadcasting ? "true" : "false");
    if (Status st = consumer.subscribe(topic, selector); !st) {
        std::fprintf(stderr, "qrocket-bench consumer: %s\n", qPrintable(st.toString()));
        return 2;
    }

    BenchCounters counters; // success: consumed, sendFailed: returned RECONSUME_LATER
    LatencyRecorder bornToConsumer;
    LatencyRecorder storeToConsumer;
    const double rate = *failRate;
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            for (const client::MessageExt &m : msgs) {
                bornToConsumer.record(microsSinceEpochMs(m.bornTimestamp()));
                storeToConsumer.record(microsSinceEpochMs(m.storeTimestamp()));
            }
            thread_local std::minstd_rand random(std::random_device {}());
            if (rate > 0 && std::uniform_real_distribution<double>(0, 1)(random) < rate) {
                counters.sendFailed.fetch_add(msgs.size(), std::memory_order_relaxed);
                return client::ConsumeConcurrentlyStatus::ReconsumeLater;
            }
            counters.success.fetch_add(msgs.size(), std::memory_order_relaxed);
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    if (Status st = consumer.start(); !st) {
        std::fprintf(
            stderr, "qrocket-bench consumer: cannot start: %s\n", qPrintable(st.toString()));
        return 1;
    }
    std::fprintf(args.lines(), "Consumer Started.\n");
    std::fflush(args.lines());

    auto printLine = [&](const BenchSample &d) {
        const double secs = std::max(0.001, d.seconds());
        std::fprintf(args.lines(),
            "Current Time: %s TPS: %lld FAIL: %llu AVG(B2C) RT(ms): %7.3f AVG(S2C) RT(ms): %7.3f "
            "MAX(B2C) RT(ms): %lld MAX(S2C) RT(ms): %lld p50(B2C)(ms): %.3f p99(B2C)(ms): %.3f "
            "p999(B2C)(ms): %.3f\n",
            currentTimeText().constData(), qlonglong(double(d.success + d.sendFailed) / secs),
            qulonglong(d.sendFailed), ms(d.latency.meanMicros()), ms(d.latency2.meanMicros()),
            qlonglong(d.latency.maxMicros / 1000), qlonglong(d.latency2.maxMicros / 1000),
            ms(d.latency.percentile(0.5)), ms(d.latency.percentile(0.99)),
            ms(d.latency.percentile(0.999)));
    };
    const BenchSample total = runReportLoop(
        args, [&] { return takeSample(counters, bornToConsumer, &storeToConsumer); }, printLine,
        [&, limit = std::uint64_t(*quantity)] {
            return limit > 0
                && counters.success.load(std::memory_order_relaxed)
                    + counters.sendFailed.load(std::memory_order_relaxed)
                >= limit;
        });
    consumer.shutdown();
    const BenchSample all = takeSample(counters, bornToConsumer, &storeToConsumer) - BenchSample {};
    const double secs = std::max(0.001, total.seconds());
    if (args.json()) {
        printJson(QJsonObject {
            {QStringLiteral("mode"), QStringLiteral("consumer")},
            {QStringLiteral("topic"), QString::fromUtf8(topic)},
            {QStringLiteral("group"), QString::fromUtf8(group)},
            {QStringLiteral("seconds"), secs},
            {QStringLiteral("consumed"), double(all.success + all.sendFailed)},
            {QStringLiteral("failed"), double(all.sendFailed)},
            {QStringLiteral("tps"), double(total.success + total.sendFailed) / secs},
            {QStringLiteral("bornToConsumer"), latencyJson(all.latency)},
            {QStringLiteral("storeToConsumer"), latencyJson(all.latency2)},
        });
    } else {
        std::fprintf(stdout,
            "[Complete] Consume Total: %llu TPS: %lld FAIL: %llu AVG(B2C) RT(ms): %7.3f AVG(S2C) "
            "RT(ms): %7.3f MAX(B2C) RT(ms): %lld MAX(S2C) RT(ms): %lld p50(B2C)(ms): %.3f "
            "p99(B2C)(ms): %.3f p999(B2C)(ms): %.3f\n",
            qulonglong(all.success + all.sendFailed),
            qlonglong(double(total.success + total.sendFailed) / secs), qulonglong(all.sendFailed),
            ms(all.latency.meanMicros()), ms(all.latency2.meanMicros()),
            qlonglong(all.latency.maxMicros / 1000), qlonglong(all.latency2.maxMicros / 1000),
            ms(all.latency.percentile(0.5)), ms(all.latency.percentile(0.99)),
            ms(all.latency.percentile(0.999)));
    }
    return 0;
}

} // namespace qrocket::bench
