// qrocket-bench consumer: RocketMQ's benchmark Consumer on QRocket's PushConsumer. The Java
// tool's letters: -t topic (BenchmarkTest), -w threadCount (20), -g group (benchmark_consumer),
// -p group prefix enable (adds "_<millis % 100>"), -f filterType (TAG or SQL92), -e expression
// (text, or a file holding it, as the Java tool reads), -r fail rate (RECONSUME_LATER share).
// QRocket's own: --broadcasting, --from last|first, --quantity, --duration, --interval, --json.
// Lines: "Current Time: ... TPS: N FAIL: N AVG(B2C) RT(ms): N AVG(S2C) RT(ms): N MAX(B2C)
// RT(ms): N MAX(S2C) RT(ms): N", then the interval's B2C p50/p99/p999 (born on the producer
// to consumed; S2C: stored on the broker to consumed; both use the two hosts' wall clocks).
// --floor true: before the consumer starts, the pull path's own floor over the same backlog: a
// raw PULL_MESSAGE loop (no client library: pre-built headers on a bare RemotingClient, one pull
// in flight per queue as the push consumer has, the same batch of 32, nothing decoded), from each
// queue's minimum offset, as many messages as --quantity; printed as "Floor: ..." before the
// consumer's lines and again beside its [Complete] line.

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"
#include "clientlib/client/admin/admin.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/remotingclient.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <condition_variable>
#include <mutex>
#include <random>

namespace qrocket::bench {

namespace {

struct FloorResult
{
    std::int64_t messages = 0;
    double seconds = 0;
    int queues = 0;
    QString error; // empty when it ran
    double rate() const { return seconds > 0 ? double(messages) / seconds : 0; }
};

/// The raw pull loop (see the header comment): every queue of `topic` pulled from its minimum
/// offset, `batch` at a time, one request in flight per queue, until `quantity` messages came
/// back (0: until every queue answered PULL_NOT_FOUND). Never commits an offset.
FloorResult rawPullFloor(const client::ClientConfig &config, const QByteArray &topic,
    const QByteArray &group, int batch, std::int64_t quantity)
{
    FloorResult out;
    client::AdminOptions ao;
    ao.client = config;
    ao.client.instanceName = "qrocket-bench-floor";
    client::Admin admin(ao);
    if (Status s = admin.start(); !s) {
        out.error = s.toString();
        return out;
    }
    auto route = admin.topicRoute(topic);
    if (!route) {
        out.error = route.error().toString();
        return out;
    }
    auto stats = admin.topicStats(topic);
    admin.shutdown();
    if (!stats) {
        out.error = stats.error().toString();
        return out;
    }
    struct Queue
    {
        QByteArray address;
        protocol::PullMessageRequestHeader header;
    };
    std::vector<Queue> queues;
    for (const auto &[mq, offsets] : stats->offsetTable) {
        for (const protocol::BrokerData &b : route->brokerDatas) {
            if (b.brokerName != mq.brokerName || b.masterAddr().isEmpty())
                continue;
            Queue q;
            q.address = b.masterAddr();
            q.header.consumerGroup = group;
            q.header.topic = topic;
            q.header.queueId = mq.queueId;
            q.header.queueOffset = offsets.minOffset;
            q.header.maxMsgNums = batch;
            // The expression rides along (no heartbeat registered the group): never suspended,
            // never a commit.
            q.header.sysFlag = protocol::PullSysFlag::Subscription;
            q.header.subscription = "*";
            q.header.expressionType = "TAG";
            q.header.brokerName = mq.brokerName;
            queues.push_back(std::move(q));
        }
    }
    out.queues = int(queues.size());
    if (queues.empty()) {
        out.error = QStringLiteral("no queue to pull");
        return out;
    }
    remoting::RemotingClient rc;
    std::mutex mutex;
    std::condition_variable cv;
    int running = int(queues.size());
    std::atomic<std::int64_t> pulled {0};
    QString error;
    std::function<void(std::size_t)> pullOne = [&](std::size_t i) {
        Queue &q = queues[i];
        protocol::RemotingCommand request = protocol::RemotingCommand::createRequest(
            protocol::toInt(protocol::RequestCode::PullMessage));
        q.header.encode(request);
        rc.invokeAsync(
            q.address, std::move(request), 10000, [&, i](Result<protocol::RemotingCommand> r) {
                Queue &qq = queues[i];
                bool more = false;
                if (!r) {
                    std::lock_guard lock(mutex);
                    error = r.error().toString();
                } else if (r->code == int(protocol::ResponseCode::Success)) {
                    auto h = protocol::PullMessageResponseHeader::decode(*r);
                    if (h && h->nextBeginOffset > qq.header.queueOffset) {
                        const std::int64_t n = h->nextBeginOffset - qq.header.queueOffset;
                        qq.header.queueOffset = h->nextBeginOffset;
                        more = quantity <= 0 || pulled.fetch_add(n) + n < quantity;
                    }
                } else if (r->code != int(protocol::ResponseCode::PullNotFound)) {
                    std::lock_guard lock(mutex);
                    error = QStringLiteral("PULL_MESSAGE answered %1: %2")
                                .arg(r->code)
                                .arg(QString::fromUtf8(r->remark));
                }
                if (more) {
                    pullOne(i);
                    return;
                }
                std::lock_guard lock(mutex);
                if (--running == 0)
                    cv.notify_all();
            });
    };
    QElapsedTimer timer;
    timer.start();
    for (std::size_t i = 0; i < queues.size(); ++i)
        pullOne(i);
    {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return running == 0; });
    }
    out.seconds = double(timer.nsecsElapsed()) / 1e9;
    out.messages = pulled.load();
    out.error = error;
    rc.shutdown();
    return out;
}

void printFloor(std::FILE *f, const FloorResult &floor, int batch)
{
    if (!floor.error.isEmpty()) {
        std::fprintf(f, "Floor: raw pull loop failed: %s\n", qPrintable(floor.error));
        return;
    }
    std::fprintf(f,
        "Floor: raw PULL_MESSAGE loop, %d queues, batch %d, one in flight per queue: %lld msgs "
        "in %.3f s, TPS: %.0f\n",
        floor.queues, batch, static_cast<long long>(floor.messages), floor.seconds, floor.rate());
}

} // namespace

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
    args.addOption({QStringLiteral("floor")},
        QStringLiteral("First pull the same backlog with a raw PULL_MESSAGE loop (no client "
                       "library) and print its rate beside the consumer's, Default: false"),
        QStringLiteral("false"));
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
    const auto floorWanted = args.boolean(QStringLiteral("floor"));
    if (!threads || !prefix || !failRate || !broadcasting || !quantity || !floorWanted)
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
    std::optional<FloorResult> floor;
    if (*floorWanted) {
        floor = rawPullFloor(options.client, topic, group + "_floor", options.pullBatchSize,
            std::int64_t(*quantity));
        printFloor(args.lines(), *floor, options.pullBatchSize);
        std::fflush(args.lines());
    }
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
        if (floor)
            printFloor(stdout, *floor, options.pullBatchSize);
    }
    return 0;
}

} // namespace qrocket::bench
