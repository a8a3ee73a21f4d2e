#pragma once

// What qrocket-bench's three modes share: parsed options (RocketMQ benchmark letters), the
// counters their threads bump, and the report loop that samples them every second and prints
// one line per report interval, then a summary.
//
// Threads: the senders (or the consumer's pool) only bump atomics and record latencies; the
// main thread samples, formats and prints. Nothing on the send path allocates for reporting.

#include "clientlib/bench/latencyhistogram.h"
#include "clientlib/client/clientconfig.h"

#include <QByteArray>
#include <QCommandLineParser>
#include <QJsonObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>

namespace qrocket::bench {

/// Set by SIGINT/SIGTERM (and by a mode whose work is done): the report loop ends.
std::atomic<bool> &stopRequested();
void installStopSignals();

/// QCommandLineParser with Java-benchmark-style value parsing: every failure is one line on
/// stderr and exit code 2, so a typo never starts a long run with a default.
class BenchArgs
{
public:
    explicit BenchArgs(QString mode);
    QCommandLineParser &parser() { return m_parser; }
    /// Adds -n/--namesrvAddr, -t/--topic (BenchmarkTest), --duration, --interval, --json and
    /// the Java tools' -m/--msgTraceEnable and -a/--aclEnable (every mode has them).
    void addCommonOptions();
    /// After parse(): false (with one line on stderr) when -m or -a asks for what QRocket's
    /// client cannot do yet (-m for a mode without tracing), or their value is not a boolean.
    bool refuseUnsupported(bool traceSupported = true);
    /// -m true: the client traces (enableMsgTrace, RocketMQ's default trace topic).
    bool msgTrace() const { return m_trace; }
    QByteArray topic() const;
    void addOption(const QStringList &names, const QString &help, const QString &defaultValue);
    /// Parses argv (the mode word removed); false after printing the error or the help.
    bool parse(const QStringList &arguments, int *exitCode);

    QString text(const QString &name) const;
    std::optional<std::int64_t> integer(const QString &name, std::int64_t min, std::int64_t max);
    std::optional<double> real(const QString &name, double min, double max);
    /// "true"/"false" (the Java tool's `-k true`); also 1/0, yes/no.
    std::optional<bool> boolean(const QString &name);

    /// The consumer modes' -f/--filterType (TAG or SQL92), -e/--expression (text, or a file
    /// holding it, as RocketMQ's benchmark reads it) and --from (last or first).
    void addConsumerSourceOptions();
    struct ConsumerSource
    {
        QString filterType; // "TAG" or "SQL92"
        QByteArray expression;
        bool sql = false;
        bool fromFirst = false;
    };
    /// After parse(): the options above, or nullopt after one line on stderr.
    std::optional<ConsumerSource> consumerSource();

    QByteArray namesrvAddr() const;
    /// With -a true: the access and secret key (-ak/-sk, RocketMQ's benchmark defaults) signing
    /// every request of the client; with --tls: TLS on every connection (--tlsTrustCert).
    void applyCredentials(client::ClientConfig &config) const;
    int durationSeconds() const { return m_duration; }
    int intervalSeconds() const { return m_interval; }
    bool json() const { return m_json; }
    /// Where the interval lines go: stdout, or stderr with --json (stdout is the JSON alone).
    std::FILE *lines() const { return m_json ? stderr : stdout; }
    const QString &mode() const { return m_mode; }

private:
    void fail(const QString &message);
    QString m_mode;
    QCommandLineParser m_parser;
    bool m_failed = false;
    int m_duration = 0;
    int m_interval = 10;
    bool m_json = false;
    bool m_acl = false; // -a true
    bool m_trace = false; // -m true
};

/// Microseconds from `epochMs` (a born or store timestamp) to now on this host's wall clock; 0
/// when the clocks put it in the future.
std::uint64_t microsSinceEpochMs(std::int64_t epochMs);

/// Counters bumped by the working threads (all monotonic).
struct BenchCounters
{
    std::atomic<std::uint64_t> success {0};
    std::atomic<std::uint64_t> sendFailed {0};
    std::atomic<std::uint64_t> responseFailed {0};
    /// Messages (a batch request counts its messages here, one request in success).
    std::atomic<std::uint64_t> messages {0};
    std::atomic<std::uint64_t> extra[4] {};
};

struct BenchSample
{
    std::int64_t atMs = 0; // monotonic
    std::uint64_t success = 0;
    std::uint64_t sendFailed = 0;
    std::uint64_t responseFailed = 0;
    std::uint64_t messages = 0;
    std::uint64_t extra[4] {};
    HistogramSnapshot latency; // send RT, or B2C for the consumer
    HistogramSnapshot latency2; // S2C for the consumer

    /// What happened between `earlier` and this sample.
    BenchSample operator-(const BenchSample &earlier) const;
    double seconds() const { return double(atMs) / 1000.0; }
};

BenchSample takeSample(const BenchCounters &counters, const LatencyRecorder &latency,
    const LatencyRecorder *latency2 = nullptr);

/// "2026-12-01 23:59:59,123", as the Java benchmark prints "Current Time".
QByteArray currentTimeText();
/// Milliseconds with three decimals from microseconds.
inline double ms(double micros)
{
    return micros / 1000.0;
}

/// Samples every second until stopRequested() or `done()` is true or the duration passed;
/// calls `printInterval(delta)` every report interval; returns first and last samples' delta.
BenchSample runReportLoop(const BenchArgs &args, const std::function<BenchSample()> &sample,
    const std::function<void(const BenchSample &delta)> &printInterval,
    const std::function<bool()> &done);

/// The latency part of a JSON summary: count, mean, p50, p90, p99, p999, max (ms).
QJsonObject latencyJson(const HistogramSnapshot &h);
/// Prints the JSON document on stdout (one line).
void printJson(const QJsonObject &summary);

} // namespace qrocket::bench
