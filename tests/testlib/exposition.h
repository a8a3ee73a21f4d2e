#pragma once

// A strict reader of the Prometheus text exposition format 0.0.4, for the tests of GET /metrics:
// it accepts only what a scraper is sure to read the same way, and says why it refuses.
//
// Checked: every line ends with '\n'; comments are "# HELP <name> <text>" and
// "# TYPE <name> counter|gauge|histogram|summary|untyped", each at most once per family and the
// TYPE before the family's first sample; a family's samples are contiguous; metric names match
// [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]* (not "__..."), label values use
// only the escapes \\ \" \n; no label name twice in a sample; values parse (NaN, +Inf, -Inf
// included), an optional timestamp is an integer; a sample's name is its family's (a histogram's:
// <family>_bucket with an "le" label, _sum, _count); a counter's family ends in "_total"; no
// series (name and label set) appears twice.

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QString>

#include <cmath>
#include <limits>
#include <optional>

namespace qrocket::testlib {

struct ExpositionSample
{
    QByteArray name;
    QMap<QByteArray, QByteArray> labels;
    double value = 0;
};

struct Exposition
{
    QMap<QByteArray, QByteArray> types; // family -> type
    QList<ExpositionSample> samples;

    /// The samples of `name` whose labels include every pair of `match`.
    QList<ExpositionSample> find(
        const QByteArray &name, const QMap<QByteArray, QByteArray> &match = {}) const
    {
        QList<ExpositionSample> out;
        for (const ExpositionSample &s : samples) {
            if (s.name != name)
                continue;
            bool all = true;
            for (auto it = match.cbegin(); it != match.cend() && all; ++it)
                all = s.labels.value(it.key()) == it.value() && s.labels.contains(it.key());
            if (all)
                out.append(s);
        }
        return out;
    }
    /// The one sample's value; nullopt when there is none or more than one.
    std::optional<double> value(
        const QByteArray &name, const QMap<QByteArray, QByteArray> &match = {}) const
    {
        const QList<ExpositionSample> found = find(name, match);
        if (found.size() != 1)
            return std::nullopt;
        return found.front().value;
    }
};

namespace exposition_detail {

inline bool isMetricName(const QByteArray &n)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_:][a-zA-Z0-9_:]*$"));
    return re.match(QString::fromLatin1(n)).hasMatch();
}

inline bool isLabelName(const QByteArray &n)
{
    static const QRegularExpression re(QStringLiteral("^[a-zA-Z_][a-zA-Z0-9_]*$"));
    return re.match(QString::fromLatin1(n)).hasMatch() && !n.startsWith("__");
}

inline std::optional<double> parseValue(const QByteArray &t)
{
    if (t == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (t == "+Inf" || t == "Inf")
        return std::numeric_limits<double>::infinity();
    if (t == "-Inf")
        return -std::numeric_limits<double>::infinity();
    static const QRegularExpression re(
        QStringLiteral("^[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?$"));
    if (!re.match(QString::fromLatin1(t)).hasMatch())
        return std::nullopt;
    bool ok = false;
    const double v = t.toDouble(&ok);
    return ok ? std::optional<double>(v) : std::nullopt;
}

/// The family a sample name belongs to, given the declared types.
inline QByteArray familyOf(const QByteArray &name, const QMap<QByteArray, QByteArray> &types)
{
    if (types.contains(name))
        return name;
    for (const char *suffix : {"_bucket", "_sum", "_count"}) {
        if (name.endsWith(suffix)) {
            const QByteArray base = name.left(name.size() - qstrlen(suffix));
            if (types.value(base) == "histogram" || types.value(base) == "summary")
                return base;
        }
    }
    return {};
}

} // namespace exposition_detail

/// Parses `text`; on the first problem returns nullopt with "line N: why" in `error`.
inline std::optional<Exposition> parseExposition(const QByteArray &text, QString *error)
{
    using namespace exposition_detail;
    Exposition out;
    auto fail = [&](int line, const QString &why) {
        *error = QStringLiteral("line %1: %2").arg(line).arg(why);
        return std::nullopt;
    };
    if (!text.isEmpty() && !text.endsWith('\n'))
        return fail(0, QStringLiteral("the text does not end with a newline"));
    QSet<QByteArray> helped;
    QSet<QByteArray> finished; // families whose samples are over
    QSet<QByteArray> seriesSeen;
    QByteArray current; // family of the previous sample
    const QList<QByteArray> lines = text.split('\n');
    for (int i = 0; i + 1 < lines.size(); ++i) {
        const QByteArray &l = lines[i];
        const int n = i + 1;
        if (l.isEmpty())
            return fail(n, QStringLiteral("empty line"));
        if (l.startsWith('#')) {
            const QList<QByteArray> parts = l.split(' ');
            if (parts.size() < 3 || parts[0] != "#" || (parts[1] != "HELP" && parts[1] != "TYPE"))
                return fail(n, QStringLiteral("a comment other than HELP or TYPE"));
            const QByteArray &name = parts[2];
            if (!isMetricName(name))
                return fail(n, QStringLiteral("bad metric name '%1'").arg(QString::fromUtf8(name)));
            if (finished.contains(name) || (current == name))
                return fail(n,
                    QStringLiteral("HELP/TYPE of %1 after its samples")
                        .arg(QString::fromUtf8(name)));
            if (parts[1] == "HELP") {
                if (helped.contains(name))
                    return fail(
                        n, QStringLiteral("second HELP for %1").arg(QString::fromUtf8(name)));
                helped.insert(name);
                const QByteArray help = l.mid(qstrlen("# HELP ") + name.size() + 1);
                for (qsizetype k = 0; k < help.size(); ++k)
                    if (help[k] == '\\'
                        && (k + 1 >= help.size() || (help[k + 1] != '\\' && help[k + 1] != 'n')))
                        return fail(n, QStringLiteral("bad escape in HELP"));
                    else if (help[k] == '\\')
                        ++k;
            } else {
                if (parts.size() != 4)
                    return fail(n, QStringLiteral("TYPE line with %1 fields").arg(parts.size()));
                if (out.types.contains(name))
                    return fail(
                        n, QStringLiteral("second TYPE for %1").arg(QString::fromUtf8(name)));
                const QByteArray &type = parts[3];
                if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary"
                    && type != "untyped")
                    return fail(
                        n, QStringLiteral("unknown type '%1'").arg(QString::fromUtf8(type)));
                if (type == "counter" && !name.endsWith("_total"))
                    return fail(n,
                        QStringLiteral("counter %1 does not end in _total")
                            .arg(QString::fromUtf8(name)));
                out.types.insert(name, type);
            }
            continue;
        }
        // A sample: name [{labels}] value [timestamp]
        ExpositionSample s;
        qsizetype at = 0;
        while (at < l.size() && l[at] != '{' && l[at] != ' ')
            ++at;
        s.name = l.left(at);
        if (!isMetricName(s.name))
            return fail(n, QStringLiteral("bad metric name '%1'").arg(QString::fromUtf8(s.name)));
        if (at < l.size() && l[at] == '{') {
            ++at;
            while (true) {
                if (at < l.size() && l[at] == '}') {
                    ++at;
                    break;
                }
                qsizetype eq = l.indexOf('=', at);
                if (eq < 0)
                    return fail(n, QStringLiteral("label without '='"));
                const QByteArray label = l.mid(at, eq - at);
                if (!isLabelName(label))
                    return fail(
                        n, QStringLiteral("bad label name '%1'").arg(QString::fromUtf8(label)));
                if (s.labels.contains(label))
                    return fail(n, QStringLiteral("label %1 twice").arg(QString::fromUtf8(label)));
                at = eq + 1;
                if (at >= l.size() || l[at] != '"')
                    return fail(n, QStringLiteral("label value not quoted"));
                ++at;
                QByteArray value;
                bool closed = false;
                while (at < l.size()) {
                    const char c = l[at++];
                    if (c == '"') {
                        closed = true;
                        break;
                    }
                    if (c == '\\') {
                        if (at >= l.size())
                            return fail(n, QStringLiteral("escape at the end"));
                        const char e = l[at++];
                        if (e == '\\')
                            value += '\\';
                        else if (e == '"')
                            value += '"';
                        else if (e == 'n')
                            value += '\n';
                        else
                            return fail(n, QStringLiteral("bad escape \\%1").arg(QLatin1Char(e)));
                    } else {
                        value += c;
                    }
                }
                if (!closed)
                    return fail(n, QStringLiteral("unterminated label value"));
                s.labels.insert(label, value);
                if (at < l.size() && l[at] == ',')
                    ++at;
                else if (at >= l.size() || l[at] != '}')
                    return fail(n, QStringLiteral("expected ',' or '}' after a label"));
            }
        }
        if (at >= l.size() || l[at] != ' ')
            return fail(n, QStringLiteral("no space before the value"));
        const QList<QByteArray> rest = l.mid(at + 1).split(' ');
        if (rest.size() > 2 || rest.isEmpty())
            return fail(n, QStringLiteral("value and timestamp expected"));
        const std::optional<double> v = parseValue(rest[0]);
        if (!v)
            return fail(
                n, QStringLiteral("value '%1' does not parse").arg(QString::fromUtf8(rest[0])));
        if (rest.size() == 2) {
            static const QRegularExpression ts(QStringLiteral("^-?\\d+$"));
            if (!ts.match(QString::fromLatin1(rest[1])).hasMatch())
                return fail(n, QStringLiteral("bad timestamp"));
        }
        s.value = *v;
        const QByteArray family = familyOf(s.name, out.types);
        if (family.isEmpty())
            return fail(n,
                QStringLiteral("sample %1 before (or without) its TYPE")
                    .arg(QString::fromUtf8(s.name)));
        const QByteArray type = out.types.value(family);
        if (type == "histogram" && s.name == family)
            return fail(n, QStringLiteral("histogram sample without _bucket/_sum/_count"));
        if (type == "histogram" && s.name.endsWith("_bucket") && !s.labels.contains("le"))
            return fail(n, QStringLiteral("bucket without le"));
        if (family != current) {
            if (finished.contains(family))
                return fail(n,
                    QStringLiteral("samples of %1 are not together")
                        .arg(QString::fromUtf8(family)));
            if (!current.isEmpty())
                finished.insert(current);
            current = family;
        }
        QByteArray key = s.name + '{';
        for (auto it = s.labels.cbegin(); it != s.labels.cend(); ++it)
            key += it.key() + "=\"" + it.value() + "\",";
        if (seriesSeen.contains(key))
            return fail(n, QStringLiteral("duplicate series %1").arg(QString::fromUtf8(key)));
        seriesSeen.insert(key);
        out.samples.append(s);
    }
    return out;
}

} // namespace qrocket::testlib
