#pragma once

// MetricsWriter: builds one answer in the Prometheus text exposition format 0.0.4, the body of
// both daemons' GET /metrics (metricshttpserver.h serves it).
//
//   MetricsWriter w;
//   w.declare("rocketmq_messages_in_total", MetricType::Counter, "Messages stored.");
//   w.add("rocketmq_messages_in_total", {{"topic", topic}}, 42);
//   QByteArray body = w.text();
//
// What it guarantees, whatever the callers pass:
// - each family's "# HELP" and "# TYPE" once, its samples together below them, families in the
//   order they were declared (samples may be added in any order);
// - label values escaped (backslash, double quote, newline), HELP text escaped (backslash,
//   newline); names checked against [a-zA-Z_:][a-zA-Z0-9_:]*, label names against
//   [a-zA-Z_][a-zA-Z0-9_]* (not "__..."): a sample with a bad name is dropped and counted in
//   droppedSamples(), never written;
// - a counter's name ends with "_total" (a counter declared without it is written as a gauge);
// - histograms as <name>_bucket{le="..."} (cumulative, "+Inf" last), <name>_sum, <name>_count;
// - values as Prometheus parses them (integers without exponent, NaN, +Inf, -Inf).
// A sample added to a family never declared is dropped and counted too.
//
// Not thread-safe: one writer per answer.

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <utility>
#include <vector>

namespace qrocket::remoting {

enum class MetricType : std::uint8_t { Counter, Gauge, Histogram };

class MetricsWriter
{
public:
    using Label = std::pair<QByteArrayView, QByteArrayView>;
    using Labels = std::initializer_list<Label>;

    /// Declares a family (again: ignored, the first declaration stands). False for a bad name.
    bool declare(QByteArrayView name, MetricType type, QByteArrayView help);
    /// One sample of a counter or gauge family.
    void add(QByteArrayView family, Labels labels, double value);
    void add(QByteArrayView family, std::span<const Label> labels, double value);
    /// One histogram series: `bounds` ascending upper bounds (without +Inf), `counts[i]` the
    /// observations <= bounds[i] and > bounds[i-1] (counts has bounds.size() + 1 entries, the
    /// last one those above every bound).
    void addHistogram(QByteArrayView family, Labels labels, std::span<const double> bounds,
        std::span<const std::uint64_t> counts, double sum);

    /// The exposition text (ends with a newline when anything was declared).
    QByteArray text() const;
    int droppedSamples() const { return m_dropped; }

    static bool isValidMetricName(QByteArrayView name);
    static bool isValidLabelName(QByteArrayView name);
    /// A label value as written between the quotes.
    static QByteArray escapeLabelValue(QByteArrayView value);
    /// HELP text as written after the name.
    static QByteArray escapeHelp(QByteArrayView help);
    /// A sample value as Prometheus parses it.
    static QByteArray formatValue(double value);

private:
    struct Family
    {
        QByteArray name;
        MetricType type = MetricType::Gauge;
        QByteArray help;
        QByteArray samples;
    };
    Family *find(QByteArrayView name);
    /// `name{labels}` (or `name` alone), appended to `out`; false for a bad label name.
    static bool writeSeries(QByteArray &out, QByteArrayView name, std::span<const Label> labels,
        const Label *extra = nullptr);

    std::vector<Family> m_families;
    int m_dropped = 0;
};

struct RemotingServerStats;

/// A remoting server's connections, its limit and the connections its limits refused or closed
/// (qrocket_connections, qrocket_connection_limit, qrocket_remoting_refused_total{reason}): both
/// daemons export them the same way. `connectionsHelp` says which ports are counted.
void writeRemotingServerMetrics(
    MetricsWriter &w, const RemotingServerStats &stats, QByteArrayView connectionsHelp);

/// The process's own series, as Prometheus's client libraries name them:
/// process_resident_memory_bytes (Linux /proc/self/statm) and process_open_fds.
void writeProcessMetrics(MetricsWriter &w);

/// This process's memory as Linux reports it in /proc/self/status: resident now (VmRSS) and the
/// peak resident size since start (VmHWM). -1 where unknown (not Linux).
struct ProcessMemory
{
    qint64 rssBytes = -1;
    qint64 peakRssBytes = -1;
};
ProcessMemory readProcessMemory();

} // namespace qrocket::remoting
