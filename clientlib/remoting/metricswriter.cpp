#include "clientlib/remoting/metricswriter.h"

#include "clientlib/remoting/remotingserver.h"

#include <QDir>
#include <QFile>

#include <cmath>
#include <limits>
#include <unistd.h>

namespace qrocket::remoting {

namespace {

bool isNameStart(char c, bool colonAllowed)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
        || (colonAllowed && c == ':');
}

bool isNameChar(char c, bool colonAllowed)
{
    return isNameStart(c, colonAllowed) || (c >= '0' && c <= '9');
}

bool isValidName(QByteArrayView name, bool colonAllowed)
{
    if (name.isEmpty() || !isNameStart(name.front(), colonAllowed))
        return false;
    for (const char c : name)
        if (!isNameChar(c, colonAllowed))
            return false;
    return true;
}

const char *typeName(MetricType t)
{
    switch (t) {
    case MetricType::Counter:
        return "counter";
    case MetricType::Gauge:
        return "gauge";
    case MetricType::Histogram:
        return "histogram";
    }
    return "gauge";
}

} // namespace

bool MetricsWriter::isValidMetricName(QByteArrayView name)
{
    return isValidName(name, true);
}

bool MetricsWriter::isValidLabelName(QByteArrayView name)
{
    return isValidName(name, false) && !name.startsWith("__");
}

QByteArray MetricsWriter::escapeLabelValue(QByteArrayView value)
{
    QByteArray out;
    out.reserve(value.size());
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray MetricsWriter::escapeHelp(QByteArrayView help)
{
    QByteArray out;
    out.reserve(help.size());
    for (const char c : help) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

QByteArray MetricsWriter::formatValue(double value)
{
    if (std::isnan(value))
        return QByteArrayLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QByteArrayLiteral("+Inf") : QByteArrayLiteral("-Inf");
    // Exact integers up to 2^53 without exponent or fraction, the rest with 17 digits.
    if (std::fabs(value) < 9007199254740992.0 && value == std::trunc(value))
        return QByteArray::number(static_cast<qint64>(value));
    return QByteArray::number(value, 'g', 17);
}

MetricsWriter::Family *MetricsWriter::find(QByteArrayView name)
{
    for (Family &f : m_families)
        if (f.name == name)
            return &f;
    return nullptr;
}

bool MetricsWriter::declare(QByteArrayView name, MetricType type, QByteArrayView help)
{
    if (!isValidMetricName(name))
        return false;
    if (find(name))
        return true;
    if (type == MetricType::Counter && !name.endsWith("_total"))
        type = MetricType::Gauge;
    m_families.push_back({name.toByteArray(), type, escapeHelp(help), {}});
    return true;
}

bool MetricsWriter::writeSeries(
    QByteArray &out, QByteArrayView name, std::span<const Label> labels, const Label *extra)
{
    const qsizetype start = out.size();
    out += name;
    if (!labels.empty() || extra) {
        out += '{';
        bool first = true;
        auto one = [&](const Label &l) {
            if (!isValidLabelName(l.first))
                return false;
            if (!first)
                out += ',';
            first = false;
            out += l.first;
            out += "=\"";
            out += escapeLabelValue(l.second);
            out += '"';
            return true;
        };
        for (const Label &l : labels) {
            if (!one(l)) {
                out.truncate(start);
                return false;
            }
        }
        if (extra && !one(*extra)) {
            out.truncate(start);
            return false;
        }
        out += '}';
    }
    return true;
}

void MetricsWriter::add(QByteArrayView family, Labels labels, double value)
{
    add(family, std::span<const Label>(labels.begin(), labels.size()), value);
}

void MetricsWriter::add(QByteArrayView family, std::span<const Label> labels, double value)
{
    Family *f = find(family);
    if (!f || f->type == MetricType::Histogram || !writeSeries(f->samples, f->name, labels)) {
        ++m_dropped;
        return;
    }
    f->samples += ' ';
    f->samples += formatValue(value);
    f->samples += '\n';
}

void MetricsWriter::addHistogram(QByteArrayView family, Labels labels,
    std::span<const double> bounds, std::span<const std::uint64_t> counts, double sum)
{
    Family *f = find(family);
    if (!f || f->type != MetricType::Histogram || counts.size() != bounds.size() + 1) {
        ++m_dropped;
        return;
    }
    const std::span<const Label> ls(labels.begin(), labels.size());
    QByteArray out;
    const QByteArray bucket = f->name + "_bucket";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i <= bounds.size(); ++i) {
        cumulative += counts[i];
        const QByteArray le
            = i < bounds.size() ? formatValue(bounds[i]) : QByteArrayLiteral("+Inf");
        const Label leLabel {QByteArrayView("le"), QByteArrayView(le)};
        if (!writeSeries(out, bucket, ls, &leLabel)) {
            ++m_dropped;
            return;
        }
        out += ' ';
        out += QByteArray::number(cumulative);
        out += '\n';
    }
    writeSeries(out, f->name + "_sum", ls);
    out += ' ';
    out += formatValue(sum);
    out += '\n';
    writeSeries(out, f->name + "_count", ls);
    out += ' ';
    out += QByteArray::number(cumulative);
    out += '\n';
    f->samples += out;
}

QByteArray MetricsWriter::text() const
{
    QByteArray out;
    qsizetype size = 0;
    for (const Family &f : m_families)
        size += f.samples.size() + f.help.size() + 2 * f.name.size() + 32;
    out.reserve(size);
    for (const Family &f : m_families) {
        out += "# HELP ";
        out += f.name;
        out += ' ';
        out += f.help;
        out += "\n# TYPE ";
        out += f.name;
        out += ' ';
        out += typeName(f.type);
        out += '\n';
        out += f.samples;
    }
    return out;
}

void writeRemotingServerMetrics(
    MetricsWriter &w, const RemotingServerStats &stats, QByteArrayView connectionsHelp)
{
    w.declare("qrocket_connections", MetricType::Gauge, connectionsHelp);
    w.declare("qrocket_connection_limit", MetricType::Gauge, "serverMaxConnections in effect.");
    w.declare("qrocket_remoting_refused_total", MetricType::Counter,
        "Connections refused or closed by a remoting limit, by reason.");
    w.add("qrocket_connections", {}, stats.connections);
    w.add("qrocket_connection_limit", {}, stats.connectionLimit);
    for (const auto &[reason, value] :
        {std::pair<const char *, std::int64_t> {"max_connections", stats.refusedMaxConnections},
            {"max_connections_per_address", stats.refusedMaxConnectionsPerAddress},
            {"input_budget", stats.closedInputBudget}, {"frame_timeout", stats.closedFrameTimeout},
            {"idle", stats.closedIdle}, {"unsent_cap", stats.closedUnsentCap},
            {"plain_refused", stats.closedPlainRefused}, {"tls_failed", stats.closedTlsFailed}})
        w.add("qrocket_remoting_refused_total", {{"reason", reason}}, static_cast<double>(value));
}

void writeProcessMetrics(MetricsWriter &w)
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (statm.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> fields = statm.readAll().split(' ');
        bool ok = false;
        const qint64 pages = fields.size() > 1 ? fields[1].trimmed().toLongLong(&ok) : 0;
        if (ok) {
            w.declare("process_resident_memory_bytes", MetricType::Gauge,
                "Resident memory size in bytes.");
            w.add("process_resident_memory_bytes", {},
                static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE)));
        }
    }
    const QDir fds(QStringLiteral("/proc/self/fd"));
    if (fds.exists()) {
        w.declare("process_open_fds", MetricType::Gauge, "Number of open file descriptors.");
        w.add("process_open_fds", {},
            static_cast<double>(
                fds.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System).size()));
    }
}

ProcessMemory readProcessMemory()
{
    ProcessMemory m;
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return m;
    // "VmHWM:\t  123456 kB"
    auto kib = [](const QByteArray &line, qsizetype keyLength) {
        bool ok = false;
        const qint64 v = line.mid(keyLength).trimmed().split(' ').value(0).toLongLong(&ok);
        return ok ? v * 1024 : qint64(-1);
    };
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            m.rssBytes = kib(line, 6);
        else if (line.startsWith("VmHWM:"))
            m.peakRssBytes = kib(line, 6);
    }
    return m;
}

} // namespace qrocket::remoting
