// qrocket-bench-client: QRocket's client library against one in-process broker (EmbeddedCluster,
// ASYNC_FLUSH), 1 KiB messages, beside the raw-frame floor of the same run.
//
//   qrocket-bench-client [--seconds 3] [--threads 1,16,64] [--window 512] [--size 1024]
//
// Rows, each --seconds long:
//   raw     qrocket-bench-broker's SEND_MESSAGE_V2 rows (pre-encoded frames from one epoll
//           thread, 1 and 64 connections, its own in-process broker): what the broker and
//           loopback allow without a client library;
//   sync    N threads calling Producer::sendSync in a loop;
//   async   one thread keeping --window sendAsync calls in flight;
//   drain   a push consumer reading the backlog the rows above left, from the first offset.
// Every row prints msgs/s and send latency p50/p99 (µs), and the process's RSS. Figures are
// printed, never asserted: the machine's speed drifts, so read a client row against the raw row
// printed beside it.

#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/embedded/embeddedcluster.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

using namespace qrocket;
using namespace qrocket::client;
using Clock = std::chrono::steady_clock;

namespace {

double rssMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
    }
    return 0;
}

struct Row
{
    QByteArray name;
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    double seconds = 0;
    std::vector<std::int64_t> latenciesUs;
};

void print(Row &r)
{
    std::sort(r.latenciesUs.begin(), r.latenciesUs.end());
    auto pct = [&](double p) {
        if (r.latenciesUs.empty())
            return std::int64_t(0);
        return r.latenciesUs[std::min(
            r.latenciesUs.size() - 1, static_cast<std::size_t>(p * r.latenciesUs.size()))];
    };
    std::printf("%-22s %10.0f msg/s  p50 %8lld p99 %8lld us  failed %lld  RSS %.1f MiB\n",
        r.name.constData(), r.seconds > 0 ? r.ok / r.seconds : 0.0,
        static_cast<long long>(pct(0.50)), static_cast<long long>(pct(0.99)),
        static_cast<long long>(r.failed), rssMiB());
    std::fflush(stdout);
}

Row syncRow(
    Producer &producer, const QByteArray &topic, const QByteArray &body, int threads, int seconds)
{
    Row row;
    row.name = "sync " + QByteArray::number(threads) + " threads";
    std::vector<std::thread> workers;
    std::vector<Row> parts(static_cast<std::size_t>(threads));
    const auto end = Clock::now() + std::chrono::seconds(seconds);
    const auto begin = Clock::now();
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            Row &part = parts[static_cast<std::size_t>(t)];
            part.latenciesUs.reserve(100000);
            while (Clock::now() < end) {
                const auto t0 = Clock::now();
                auto r = producer.sendSync(Message(topic, body));
                const auto us
                    = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0)
                          .count();
                if (r && r->status == SendStatus::SendOk) {
                    ++part.ok;
                    part.latenciesUs.push_back(us);
                } else {
                    ++part.failed;
                }
            }
        });
    }
    for (std::thread &w : workers)
        w.join();
    row.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    for (Row &p : parts) {
        row.ok += p.ok;
        row.failed += p.failed;
        row.latenciesUs.insert(row.latenciesUs.end(), p.latenciesUs.begin(), p.latenciesUs.end());
    }
    return row;
}

Row asyncRow(
    Producer &producer, const QByteArray &topic, const QByteArray &body, int window, int seconds)
{
    Row row;
    row.name = "async window " + QByteArray::number(window);
    std::mutex mutex;
    std::condition_variable cv;
    int inFlight = 0;
    std::vector<std::int64_t> lat;
    lat.reserve(1000000);
    const auto begin = Clock::now();
    const auto end = begin + std::chrono::seconds(seconds);
    while (Clock::now() < end) {
        {
            std::unique_lock lock(mutex);
            cv.wait(lock, [&] { return inFlight < window; });
            ++inFlight;
        }
        const auto t0 = Clock::now();
        producer.sendAsync(Message(topic, body), [&, t0](Result<SendResult> r) {
            const auto us
                = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
            std::lock_guard lock(mutex);
            if (r && r->status == SendStatus::SendOk) {
                ++row.ok;
                lat.push_back(us);
            } else {
                ++row.failed;
            }
            --inFlight;
            cv.notify_all();
        });
    }
    std::unique_lock lock(mutex);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return inFlight == 0; });
    row.seconds = std::chrono::duration<double>(Clock::now() - begin).count();
    row.latenciesUs = std::move(lat);
    return row;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("Seconds per row."),
        QStringLiteral("S"), QStringLiteral("3")});
    parser.addOption({QStringLiteral("threads"), QStringLiteral("Sync sender threads per row."),
        QStringLiteral("LIST"), QStringLiteral("1,16,64")});
    parser.addOption({QStringLiteral("window"), QStringLiteral("Async sends in flight."),
        QStringLiteral("W"), QStringLiteral("512")});
    parser.addOption({QStringLiteral("size"), QStringLiteral("Body bytes."), QStringLiteral("B"),
        QStringLiteral("1024")});
    parser.addOption({QStringLiteral("no-raw"), QStringLiteral("Skip the raw-frame rows.")});
    parser.process(app);
    const int seconds = std::max(1, parser.value(QStringLiteral("seconds")).toInt());
    const int size = std::max(1, parser.value(QStringLiteral("size")).toInt());
    const QByteArray body(size, 'x');

    std::printf("== qrocket-bench-client: %d-byte messages, ASYNC_FLUSH, one in-process broker, %d "
                "s per row\n",
        size, seconds);
    if (!parser.isSet(QStringLiteral("no-raw"))) {
        QProcess raw;
        raw.setProcessChannelMode(QProcess::SeparateChannels);
        raw.start(QCoreApplication::applicationDirPath() + QStringLiteral("/qrocket-bench-broker"),
            {QStringLiteral("--seconds"), QString::number(seconds), QStringLiteral("--sizes"),
                QString::number(size), QStringLiteral("--connections"), QStringLiteral("1,64"),
                QStringLiteral("--flush"), QStringLiteral("ASYNC_FLUSH"),
                QStringLiteral("--no-pull"), QStringLiteral("--no-echo")});
        if (raw.waitForFinished(120000)) {
            for (const QByteArray &line : raw.readAllStandardOutput().split('\n')) {
                if (line.startsWith("send"))
                    std::printf("raw   %s\n", line.constData());
            }
        } else {
            std::printf(
                "raw   (qrocket-bench-broker did not run: %s)\n", qPrintable(raw.errorString()));
        }
    }

    EmbeddedClusterOptions o;
    o.brokerCount = 1;
    o.smallFiles = false;
    EmbeddedCluster cluster(o);
    if (Status s = cluster.start(); !s) {
        std::fprintf(stderr, "cluster: %s\n", qPrintable(s.message()));
        return 1;
    }
    cluster.createTopic(QStringLiteral("BenchClient"), 8);
    cluster.waitForRoute(QStringLiteral("BenchClient"));
    ProducerOptions po;
    po.group = "bench_client_producer";
    po.client.namesrvAddr = cluster.namesrvAddress().toUtf8();
    po.client.instanceName = "bench";
    po.compressMsgBodyOverHowmuch = 1 << 30;
    Producer producer(po);
    if (Status s = producer.start(); !s) {
        std::fprintf(stderr, "producer: %s\n", qPrintable(s.message()));
        return 1;
    }
    (void)producer.sendSync(Message("BenchClient", body)); // route, connection
    std::int64_t sent = 1;
    for (const QString &t : parser.value(QStringLiteral("threads")).split(QLatin1Char(','))) {
        Row r = syncRow(producer, "BenchClient", body, std::max(1, t.toInt()), seconds);
        sent += r.ok;
        print(r);
    }
    Row a = asyncRow(producer, "BenchClient", body,
        std::max(1, parser.value(QStringLiteral("window")).toInt()), seconds);
    sent += a.ok;
    print(a);

    // Drain the backlog with a push consumer.
    PushConsumerOptions co;
    co.group = "bench_client_consumer";
    co.client = po.client;
    co.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    co.pullBatchSize = 32;
    co.consumeMessageBatchMaxSize = 32;
    PushConsumer consumer(co);
    consumer.subscribe("BenchClient");
    std::atomic<std::int64_t> consumed {0};
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            consumed += static_cast<std::int64_t>(msgs.size());
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QElapsedTimer drain;
    drain.start();
    if (Status s = consumer.start(); !s) {
        std::fprintf(stderr, "consumer: %s\n", qPrintable(s.message()));
        return 1;
    }
    while (consumed.load() < sent && drain.elapsed() < 120000)
        QThread::msleep(20);
    Row d;
    d.name = "drain push consumer";
    d.ok = consumed.load();
    d.seconds = drain.elapsed() / 1000.0;
    print(d);
    std::printf("(drain: %lld of %lld messages backlog)\n", static_cast<long long>(consumed.load()),
        static_cast<long long>(sent));
    consumer.shutdown();
    producer.shutdown();
    return 0;
}
