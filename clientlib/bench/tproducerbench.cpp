// qrocket-bench tproducer: RocketMQ's benchmark TransactionProducer on QRocket's
// TransactionProducer. The Java tool's letters: -t topic, -w threadCount (32), -s messageSize
// (2048), -sr send rollback rate, -su send unknown rate (the local transaction's answer), -cr
// check rollback rate, -cu check unknown rate (the answer to the broker's check), -i sleep
// between messages (ms). Every body starts with the message's sequence number and the local
// transaction's answer, so a check can tell: "check" counts the broker's checks, an
// "unexpectedCheck" asks about a message the producer already committed or rolled back, a
// "duplicatedCheck" asks again about one whose check answer was final.
// Line: "Current Time: <millis> Send TPS: N Max RT(ms): N AVG RT(ms): N Send Failed: N check: N
// unexpectedCheck: N duplicatedCheck: N", then the interval's p50/p99/p999.

#include "clientlib/bench/benchmodes.h"
#include "clientlib/bench/benchrun.h"
#include "clientlib/client/producer.h"

#include <QDateTime>

#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

namespace qrocket::bench {

namespace {

using Clock = std::chrono::steady_clock;
using client::LocalTransactionState;

struct TxRates
{
    double sendRollback = 0;
    double sendUnknown = 0;
    double checkRollback = 0;
    double checkUnknown = 0;
};

LocalTransactionState pick(double rollbackRate, double unknownRate)
{
    thread_local std::minstd_rand random(std::random_device {}());
    const double r = std::uniform_real_distribution<double>(0, 1)(random);
    if (r < rollbackRate)
        return LocalTransactionState::RollbackMessage;
    if (r < rollbackRate + unknownRate)
        return LocalTransactionState::Unknown;
    return LocalTransactionState::CommitMessage;
}

constexpr int kHeader = 9; // 8-byte sequence, 1-byte local answer

class BenchListener final : public client::TransactionListener
{
public:
    BenchListener(TxRates rates, BenchCounters &counters) : m_rates(rates), m_counters(counters) { }

    LocalTransactionState executeLocalTransaction(const client::Message &msg, void *) override
    {
        Q_UNUSED(msg);
        // The answer was chosen when the body was built (its 9th byte).
        return LocalTransactionState(std::uint8_t(msg.body().at(8)));
    }

    LocalTransactionState checkLocalTransaction(const client::MessageExt &msg) override
    {
        m_counters.extra[0].fetch_add(1, std::memory_order_relaxed);
        const QByteArray &body = msg.body();
        if (body.size() < kHeader)
            return LocalTransactionState::Unknown;
        std::uint64_t seq = 0;
        std::memcpy(&seq, body.constData(), sizeof seq);
        const auto local = LocalTransactionState(std::uint8_t(body.at(8)));
        if (local != LocalTransactionState::Unknown)
            m_counters.extra[1].fetch_add(1, std::memory_order_relaxed);
        const LocalTransactionState answer = pick(m_rates.checkRollback, m_rates.checkUnknown);
        std::lock_guard lock(m_mutex);
        auto [it, fresh] = m_checked.try_emplace(seq, answer);
        if (!fresh && it->second != LocalTransactionState::Unknown)
            m_counters.extra[2].fetch_add(1, std::memory_order_relaxed);
        it->second = answer;
        return answer;
    }

private:
    TxRates m_rates;
    BenchCounters &m_counters;
    std::mutex m_mutex; // checks are rare: a map under a lock is fine here
    std::unordered_map<std::uint64_t, LocalTransactionState> m_checked;
};

} // namespace

int runTransactionProducer(const QStringList &arguments)
{
    BenchArgs args(QStringLiteral("tproducer"));
    args.addCommonOptions();
    args.addOption({QStringLiteral("w"), QStringLiteral("threadCount")},
        QStringLiteral("Thread count, Default: 32"), QStringLiteral("32"));
    args.addOption({QStringLiteral("s"), QStringLiteral("messageSize")},
        QStringLiteral("Message Size, Default: 2048"), QStringLiteral("2048"));
    args.addOption({QStringLiteral("sr")}, QStringLiteral("Send rollback rate, Default: 0.0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("su")}, QStringLiteral("Send unknown rate, Default: 0.0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("cr")}, QStringLiteral("Check rollback rate, Default: 0.0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("cu")}, QStringLiteral("Check unknown rate, Default: 0.0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("i")},
        QStringLiteral("sleep interval in millis between messages, Default: 0"),
        QStringLiteral("0"));
    args.addOption({QStringLiteral("q"), QStringLiteral("messageQuantity")},
        QStringLiteral("Send message quantity, Default: 0, running forever"), QStringLiteral("0"));
    int exitCode = 0;
    if (!args.parse(arguments, &exitCode))
        return exitCode;
    if (!args.refuseUnsupported())
        return 2;
    const auto threads = args.integer(QStringLiteral("w"), 1, 4096);
    const auto size = args.integer(QStringLiteral("s"), kHeader, 4 * 1024 * 1024);
    const auto sr = args.real(QStringLiteral("sr"), 0, 1);
    const auto su = args.real(QStringLiteral("su"), 0, 1);
    const auto cr = args.real(QStringLiteral("cr"), 0, 1);
    const auto cu = args.real(QStringLiteral("cu"), 0, 1);
    const auto interval = args.integer(QStringLiteral("i"), 0, 3600 * 1000);
    const auto quantity
        = args.integer(QStringLiteral("q"), 0, std::numeric_limits<std::int64_t>::max());
    if (!threads || !size || !sr || !su || !cr || !cu || !interval || !quantity)
        return 2;
    if (*sr + *su > 1.0 || *cr + *cu > 1.0) {
        std::fprintf(
            stderr, "qrocket-bench tproducer: -sr + -su and -cr + -cu must not exceed 1\n");
        return 2;
    }
    const QByteArray topic = args.topic();

    BenchCounters counters; // extra: checks, unexpected checks, duplicated checks
    LatencyRecorder latency;
    BenchListener listener({*sr, *su, *cr, *cu}, counters);
    client::ProducerOptions options;
    options.group = QByteArrayLiteral("benchmark_transaction_producer");
    options.client.namesrvAddr = args.namesrvAddr();
    args.applyCredentials(options.client);
    options.enableMsgTrace = args.msgTrace();
    client::TransactionProducer producer(options, &listener);
    if (Status st = producer.start(); !st) {
        std::fprintf(
            stderr, "qrocket-bench tproducer: cannot start: %s\n", qPrintable(st.toString()));
        return 1;
    }
    if (auto queues = producer.fetchPublishMessageQueues(topic); !queues) {
        std::fprintf(stderr, "qrocket-bench tproducer: topic %s: %s\n", topic.constData(),
            qPrintable(queues.error().toString()));
        return 1;
    }
    std::fprintf(args.lines(),
        "topic: %s threadCount: %d messageSize: %d sr: %.3f su: %.3f cr: %.3f cu: %.3f\n",
        topic.constData(), int(*threads), int(*size), *sr, *su, *cr, *cu);
    std::fflush(args.lines());

    const int threadCount = int(*threads);
    const std::int64_t perThread
        = *quantity > 0 ? std::max<std::int64_t>(1, *quantity / threadCount) : 0;
    std::atomic<std::uint64_t> sequence {0};
    std::atomic<int> finished {0};
    std::vector<std::thread> workers;
    for (int t = 0; t < threadCount; ++t) {
        workers.emplace_back([&] {
            QByteArray body(int(*size), 'x');
            for (std::int64_t n = 0; !stopRequested().load(std::memory_order_relaxed)
                 && (perThread == 0 || n < perThread);
                 ++n) {
                const std::uint64_t seq = sequence.fetch_add(1, std::memory_order_relaxed);
                std::memcpy(body.data(), &seq, sizeof seq);
                body[8] = char(std::uint8_t(pick(*sr, *su)));
                const Clock::time_point start = Clock::now();
                auto r = producer.sendMessageInTransaction(client::Message(topic, body));
                latency.record(std::uint64_t(
                    std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start)
                        .count()));
                if (r)
                    counters.success.fetch_add(1, std::memory_order_relaxed);
                else
                    counters.sendFailed.fetch_add(1, std::memory_order_relaxed);
                if (*interval > 0)
                    std::this_thread::sleep_for(std::chrono::milliseconds(*interval));
            }
            finished.fetch_add(1);
        });
    }
    auto printLine = [&](const BenchSample &d) {
        const double secs = std::max(0.001, d.seconds());
        std::fprintf(args.lines(),
            "Current Time: %lld Send TPS:%5lld Max RT(ms):%5lld AVG RT(ms):%3.1f Send Failed: %llu "
            "check: %llu unexpectedCheck: %llu duplicatedCheck: %llu p50(ms): %.3f p99(ms): %.3f "
            "p999(ms): %.3f\n",
            qlonglong(QDateTime::currentMSecsSinceEpoch()),
            qlonglong(double(d.success + d.sendFailed) / secs),
            qlonglong(d.latency.maxMicros / 1000), ms(d.latency.meanMicros()),
            qulonglong(d.sendFailed), qulonglong(d.extra[0]), qulonglong(d.extra[1]),
            qulonglong(d.extra[2]), ms(d.latency.percentile(0.5)), ms(d.latency.percentile(0.99)),
            ms(d.latency.percentile(0.999)));
    };
    const BenchSample total = runReportLoop(
        args, [&] { return takeSample(counters, latency); }, printLine,
        [&] { return finished.load() == threadCount; });
    stopRequested().store(true);
    for (std::thread &w : workers)
        w.join();
    const BenchSample all = takeSample(counters, latency) - BenchSample {};
    const double secs = std::max(0.001, total.seconds());
    if (args.json()) {
        printJson(QJsonObject {
            {QStringLiteral("mode"), QStringLiteral("tproducer")},
            {QStringLiteral("topic"), QString::fromUtf8(topic)},
            {QStringLiteral("seconds"), secs},
            {QStringLiteral("sent"), double(all.success)},
            {QStringLiteral("sendFailed"), double(all.sendFailed)},
            {QStringLiteral("sendTps"), double(total.success + total.sendFailed) / secs},
            {QStringLiteral("checks"), double(all.extra[0])},
            {QStringLiteral("unexpectedChecks"), double(all.extra[1])},
            {QStringLiteral("duplicatedChecks"), double(all.extra[2])},
            {QStringLiteral("latency"), latencyJson(all.latency)},
        });
    } else {
        std::fprintf(stdout,
            "[Complete] Send Total: %llu Send TPS: %lld Max RT(ms): %lld AVG RT(ms): %3.1f Send "
            "Failed: %llu check: %llu unexpectedCheck: %llu duplicatedCheck: %llu p50(ms): %.3f "
            "p99(ms): %.3f p999(ms): %.3f\n",
            qulonglong(all.success + all.sendFailed),
            qlonglong(double(total.success + total.sendFailed) / secs),
            qlonglong(all.latency.maxMicros / 1000), ms(all.latency.meanMicros()),
            qulonglong(all.sendFailed), qulonglong(all.extra[0]), qulonglong(all.extra[1]),
            qulonglong(all.extra[2]), ms(all.latency.percentile(0.5)),
            ms(all.latency.percentile(0.99)), ms(all.latency.percentile(0.999)));
    }
    producer.shutdown();
    return all.success > 0 ? 0 : 1;
}

} // namespace qrocket::bench
