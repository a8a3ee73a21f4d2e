// The shared part of qrocket-bench (benchrun.h).

#include "clientlib/bench/benchrun.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

namespace qrocket::bench {

namespace {

std::int64_t monotonicMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

extern "C" void onStopSignal(int)
{
    stopRequested().store(true, std::memory_order_relaxed);
}

} // namespace

std::atomic<bool> &stopRequested()
{
    static std::atomic<bool> flag {false};
    return flag;
}

void installStopSignals()
{
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
}

BenchArgs::BenchArgs(QString mode) : m_mode(std::move(mode))
{
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.setApplicationDescription(QStringLiteral("qrocket-bench %1").arg(m_mode));
}

void BenchArgs::addOption(
    const QStringList &names, const QString &help, const QString &defaultValue)
{
    QCommandLineOption option(names, help, QStringLiteral("value"), defaultValue);
    m_parser.addOption(option);
}

void BenchArgs::addCommonOptions()
{
    m_parser.addHelpOption();
    addOption({QStringLiteral("n"), QStringLiteral("namesrvAddr")},
        QStringLiteral("Name servers, \"host:port;host:port\". Default: $NAMESRV_ADDR, else "
                       "127.0.0.1:9876"),
        QString());
    addOption({QStringLiteral("t"), QStringLiteral("topic")},
        QStringLiteral("Topic name, Default: BenchmarkTest"), QStringLiteral("BenchmarkTest"));
    addOption({QStringLiteral("m"), QStringLiteral("msgTraceEnable")},
        QStringLiteral("Message Trace Enable (producer, consumer, tproducer: the client's "
                       "enableMsgTrace), Default: false"),
        QStringLiteral("false"));
    addOption({QStringLiteral("a"), QStringLiteral("aclEnable")},
        QStringLiteral("Acl Enable: sign every request, Default: false"), QStringLiteral("false"));
    addOption({QStringLiteral("ak"), QStringLiteral("accessKey")},
        QStringLiteral("Acl access key, Default: rocketmq2 (RocketMQ's benchmark AclClient)"),
        QStringLiteral("rocketmq2"));
    addOption({QStringLiteral("sk"), QStringLiteral("secretKey")},
        QStringLiteral("Acl secret key, Default: 12345678 (RocketMQ's benchmark AclClient)"),
        QStringLiteral("12345678"));
    m_parser.addOption(QCommandLineOption(QStringLiteral("tls"),
        QStringLiteral("Connect with TLS (RocketMQ's tls.enable), verifying the servers' "
                       "certificates")));
    addOption({QStringLiteral("tlsTrustCert")},
        QStringLiteral("PEM CA certificates the servers' certificates must chain to "
                       "(tls.client.trustCertPath). Default: the system's"),
        QString());
    addOption({QStringLiteral("duration")},
        QStringLiteral("Stop after this many seconds (0: until -q is reached or Ctrl-C). "
                       "Default: 0"),
        QStringLiteral("0"));
    addOption({QStringLiteral("interval")},
        QStringLiteral("Seconds between report lines. Default: 10 (as RocketMQ's benchmark)"),
        QStringLiteral("10"));
    m_parser.addOption(QCommandLineOption(QStringLiteral("json"),
        QStringLiteral("Print the summary as one JSON document on stdout (report lines go to "
                       "stderr)")));
}

void BenchArgs::fail(const QString &message)
{
    if (!m_failed)
        std::fprintf(stderr, "qrocket-bench %s: %s\n", qPrintable(m_mode), qPrintable(message));
    m_failed = true;
}

bool BenchArgs::parse(const QStringList &arguments, int *exitCode)
{
    if (!m_parser.parse(arguments)) {
        fail(m_parser.errorText() + QStringLiteral(" (see qrocket-bench %1 -h)").arg(m_mode));
        *exitCode = 2;
        return false;
    }
    if (m_parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(m_parser.helpText()), stdout);
        *exitCode = 0;
        return false;
    }
    if (!m_parser.positionalArguments().isEmpty()) {
        fail(QStringLiteral("unexpected argument \"%1\"")
                 .arg(m_parser.positionalArguments().front()));
        *exitCode = 2;
        return false;
    }
    m_json = m_parser.isSet(QStringLiteral("json"));
    const auto duration = integer(QStringLiteral("duration"), 0, 365LL * 24 * 3600);
    const auto interval = integer(QStringLiteral("interval"), 1, 3600);
    if (!duration || !interval) {
        *exitCode = 2;
        return false;
    }
    m_duration = int(*duration);
    m_interval = int(*interval);
    return true;
}

void BenchArgs::addConsumerSourceOptions()
{
    addOption({QStringLiteral("f"), QStringLiteral("filterType")},
        QStringLiteral("TAG, SQL92, Default: TAG"), QStringLiteral("TAG"));
    addOption({QStringLiteral("e"), QStringLiteral("expression")},
        QStringLiteral("Filter expression, or a file holding it, Default: *"), QStringLiteral("*"));
    addOption({QStringLiteral("from")},
        QStringLiteral("Where a new group starts: last or first, Default: last"),
        QStringLiteral("last"));
}

std::optional<BenchArgs::ConsumerSource> BenchArgs::consumerSource()
{
    ConsumerSource source;
    source.filterType = text(QStringLiteral("f")).trimmed().toUpper();
    if (source.filterType != QLatin1String("TAG") && source.filterType != QLatin1String("SQL92")) {
        fail(QStringLiteral("-f \"%1\": expected TAG or SQL92").arg(source.filterType));
        return std::nullopt;
    }
    source.sql = source.filterType == QLatin1String("SQL92");
    source.expression = text(QStringLiteral("e")).toUtf8();
    if (QFile file(QString::fromUtf8(source.expression));
        source.expression != "*" && file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            fail(QStringLiteral("-e %1: %2")
                     .arg(QString::fromUtf8(source.expression), file.errorString()));
            return std::nullopt;
        }
        source.expression = file.readAll().trimmed();
    }
    const QString from = text(QStringLiteral("from")).trimmed().toLower();
    if (from != QLatin1String("last") && from != QLatin1String("first")) {
        fail(QStringLiteral("--from \"%1\": expected last or first").arg(from));
        return std::nullopt;
    }
    source.fromFirst = from == QLatin1String("first");
    return source;
}

std::uint64_t microsSinceEpochMs(std::int64_t epochMs)
{
    const std::int64_t nowUs = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::system_clock::now().time_since_epoch())
                                   .count();
    const std::int64_t d = nowUs - epochMs * 1000;
    return d > 0 ? std::uint64_t(d) : 0;
}

bool BenchArgs::refuseUnsupported(bool traceSupported)
{
    const auto trace = boolean(QStringLiteral("m"));
    const auto acl = boolean(QStringLiteral("a"));
    if (!trace || !acl)
        return false;
    if (*trace && !traceSupported) {
        fail(QStringLiteral("-m (message trace) is not supported by this mode"));
        return false;
    }
    m_trace = *trace;
    m_acl = *acl;
    return true;
}

void BenchArgs::applyCredentials(client::ClientConfig &config) const
{
    config.tls.enable = m_parser.isSet(QStringLiteral("tls"));
    config.tls.configFile.clear(); // only what the command line says
    config.tls.clientTrustCertPath = m_parser.value(QStringLiteral("tlsTrustCert"));
    if (!m_acl)
        return;
    config.accessKey = m_parser.value(QStringLiteral("ak")).trimmed().toUtf8();
    config.secretKey = m_parser.value(QStringLiteral("sk")).trimmed().toUtf8();
}

QByteArray BenchArgs::topic() const
{
    return m_parser.value(QStringLiteral("t")).trimmed().toUtf8();
}

QString BenchArgs::text(const QString &name) const
{
    return m_parser.value(name);
}

std::optional<std::int64_t> BenchArgs::integer(
    const QString &name, std::int64_t min, std::int64_t max)
{
    bool ok = false;
    const std::int64_t v = m_parser.value(name).trimmed().toLongLong(&ok);
    if (!ok || v < min || v > max) {
        fail(QStringLiteral("-%1 \"%2\": expected an integer in [%3, %4]")
                 .arg(name, m_parser.value(name))
                 .arg(min)
                 .arg(max));
        return std::nullopt;
    }
    return v;
}

std::optional<double> BenchArgs::real(const QString &name, double min, double max)
{
    bool ok = false;
    const double v = m_parser.value(name).trimmed().toDouble(&ok);
    if (!ok || v < min || v > max) {
        fail(QStringLiteral("-%1 \"%2\": expected a number in [%3, %4]")
                 .arg(name, m_parser.value(name))
                 .arg(min)
                 .arg(max));
        return std::nullopt;
    }
    return v;
}

std::optional<bool> BenchArgs::boolean(const QString &name)
{
    const QString v = m_parser.value(name).trimmed().toLower();
    if (v == QLatin1String("true") || v == QLatin1String("1") || v == QLatin1String("yes"))
        return true;
    if (v == QLatin1String("false") || v == QLatin1String("0") || v == QLatin1String("no"))
        return false;
    fail(QStringLiteral("-%1 \"%2\": expected true or false").arg(name, m_parser.value(name)));
    return std::nullopt;
}

QByteArray BenchArgs::namesrvAddr() const
{
    QByteArray addr = m_parser.value(QStringLiteral("n")).toUtf8().trimmed();
    if (addr.isEmpty())
        addr = qgetenv("NAMESRV_ADDR").trimmed();
    return addr.isEmpty() ? QByteArrayLiteral("127.0.0.1:9876") : addr;
}

BenchSample BenchSample::operator-(const BenchSample &earlier) const
{
    BenchSample d;
    d.atMs = atMs - earlier.atMs;
    d.success = success - earlier.success;
    d.sendFailed = sendFailed - earlier.sendFailed;
    d.responseFailed = responseFailed - earlier.responseFailed;
    d.messages = messages - earlier.messages;
    for (int i = 0; i < 4; ++i)
        d.extra[i] = extra[i] - earlier.extra[i];
    d.latency = latency - earlier.latency;
    d.latency2 = latency2 - earlier.latency2;
    return d;
}

BenchSample takeSample(
    const BenchCounters &counters, const LatencyRecorder &latency, const LatencyRecorder *latency2)
{
    BenchSample s;
    s.atMs = monotonicMs();
    s.success = counters.success.load(std::memory_order_relaxed);
    s.sendFailed = counters.sendFailed.load(std::memory_order_relaxed);
    s.responseFailed = counters.responseFailed.load(std::memory_order_relaxed);
    s.messages = counters.messages.load(std::memory_order_relaxed);
    for (int i = 0; i < 4; ++i)
        s.extra[i] = counters.extra[i].load(std::memory_order_relaxed);
    s.latency = latency.snapshot();
    if (latency2)
        s.latency2 = latency2->snapshot();
    return s;
}

QByteArray currentTimeText()
{
    return QDateTime::currentDateTime()
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss,zzz"))
        .toLatin1();
}

BenchSample runReportLoop(const BenchArgs &args, const std::function<BenchSample()> &sample,
    const std::function<void(const BenchSample &delta)> &printInterval,
    const std::function<bool()> &done)
{
    const BenchSample first = sample();
    BenchSample lastPrinted = first;
    BenchSample last = first;
    std::int64_t nextTick = first.atMs + 1000;
    int ticks = 0;
    const std::int64_t endMs = args.durationSeconds() > 0
        ? first.atMs + std::int64_t(args.durationSeconds()) * 1000
        : -1;
    for (;;) {
        // Wake every 20 ms to notice a stop quickly; sample on whole seconds.
        const bool stop = stopRequested().load(std::memory_order_relaxed) || done();
        const std::int64_t now = monotonicMs();
        const bool timeUp = endMs >= 0 && now >= endMs;
        if (stop || timeUp || now >= nextTick) {
            last = sample();
            if (!stop && !timeUp) {
                ++ticks;
                nextTick += 1000;
                if (ticks % args.intervalSeconds() == 0) {
                    printInterval(last - lastPrinted);
                    std::fflush(args.lines());
                    lastPrinted = last;
                }
            }
            if (stop || timeUp)
                break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return last - first;
}

QJsonObject latencyJson(const HistogramSnapshot &h)
{
    return QJsonObject {
        {QStringLiteral("count"), double(h.count)},
        {QStringLiteral("meanMs"), ms(h.meanMicros())},
        {QStringLiteral("p50Ms"), ms(h.percentile(0.50))},
        {QStringLiteral("p90Ms"), ms(h.percentile(0.90))},
        {QStringLiteral("p99Ms"), ms(h.percentile(0.99))},
        {QStringLiteral("p999Ms"), ms(h.percentile(0.999))},
        {QStringLiteral("maxMs"), ms(double(h.maxMicros))},
    };
}

void printJson(const QJsonObject &summary)
{
    std::fputs(QJsonDocument(summary).toJson(QJsonDocument::Compact).constData(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

} // namespace qrocket::bench
