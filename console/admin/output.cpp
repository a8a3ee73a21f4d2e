// qrocket-admin's output layer: Java-style formatting, tables and the --json document.

#include "console/admin/output.h"

#include <QDateTime>
#include <QJsonDocument>

#include <cstdio>

namespace qrocket::admincli {

QString formatJava(const char *format, const std::vector<Cell> &args)
{
    QString out;
    std::size_t next = 0;
    const QByteArray f(format);
    for (qsizetype i = 0; i < f.size(); ++i) {
        const char c = f.at(i);
        if (c != '%' || i + 1 >= f.size()) {
            out += QLatin1Char(c);
            continue;
        }
        ++i;
        if (f.at(i) == 'n') {
            out += QLatin1Char('\n');
            continue;
        }
        if (f.at(i) == '%') {
            out += QLatin1Char('%');
            continue;
        }
        bool left = false;
        bool zero = false;
        for (; i < f.size() && (f.at(i) == '-' || f.at(i) == '0'); ++i) {
            if (f.at(i) == '-')
                left = true;
            else
                zero = true;
        }
        int width = 0;
        for (; i < f.size() && f.at(i) >= '0' && f.at(i) <= '9'; ++i)
            width = width * 10 + (f.at(i) - '0');
        int precision = -1;
        if (i < f.size() && f.at(i) == '.') {
            precision = 0;
            for (++i; i < f.size() && f.at(i) >= '0' && f.at(i) <= '9'; ++i)
                precision = precision * 10 + (f.at(i) - '0');
        }
        if (i >= f.size())
            break;
        const char conv = f.at(i);
        const Cell empty {QString(), QJsonValue()};
        const Cell &arg = next < args.size() ? args[next] : empty;
        ++next;
        QString text;
        if (conv == 'f') {
            const double v = arg.json.isDouble() ? arg.json.toDouble() : arg.text.toDouble();
            text = QString::number(v, 'f', precision < 0 ? 6 : precision);
        } else {
            text = arg.text;
        }
        if (text.size() < width) {
            const QString pad(
                width - text.size(), zero && !left ? QLatin1Char('0') : QLatin1Char(' '));
            text = left ? text + pad : pad + text;
        }
        out += text;
    }
    return out;
}

QString front(const QString &s, int n)
{
    return s.size() > n ? s.left(n) : s;
}

QString permText(int perm)
{
    QString s = QStringLiteral("---");
    if (perm & 4)
        s[0] = QLatin1Char('R');
    if (perm & 2)
        s[1] = QLatin1Char('W');
    if (perm & 1)
        s[2] = QLatin1Char('X');
    return s;
}

Table::Table(Output &out, QJsonArray *rows, const char *format, std::vector<Column> columns,
    const char *headingFormat)
    : m_out(&out), m_rows(rows), m_format(format), m_columns(std::move(columns))
{
    if (!m_rows) {
        std::vector<Cell> headings;
        for (const Column &c : m_columns)
            headings.emplace_back(c.heading);
        m_out->write(formatJava(headingFormat ? headingFormat : m_format, headings));
    }
}

void Table::row(const std::vector<Cell> &cells)
{
    if (!m_rows) {
        m_out->write(formatJava(m_format, cells));
        return;
    }
    QJsonObject o;
    for (std::size_t i = 0; i < m_columns.size() && i < cells.size(); ++i)
        o.insert(QString::fromUtf8(m_columns[i].key), cells[i].json);
    m_rows->append(o);
}

Output::Output(bool json) : m_json(json)
{ }

Table Output::table(const QString &key, const char *format, std::vector<Table::Column> columns,
    const char *headingFormat)
{
    return Table(
        *this, m_json ? &m_tables[key] : nullptr, format, std::move(columns), headingFormat);
}

void Output::field(const char *format, const char *label, const QString &key, const Cell &value)
{
    if (m_json)
        m_doc.insert(key, value.json);
    else
        write(formatJava(format, {Cell(label), value}));
}

void Output::text(const char *format, const std::vector<Cell> &args)
{
    if (!m_json)
        write(formatJava(format, args));
}

void Output::raw(const QString &s)
{
    if (!m_json)
        write(s);
}

void Output::value(const QString &key, const QJsonValue &v)
{
    if (m_json)
        m_doc.insert(key, v);
}

void Output::append(const QString &key, const QJsonValue &v)
{
    if (m_json)
        m_tables[key].append(v);
}

void Output::finish(bool printEmpty)
{
    if (m_json && (printEmpty || !m_doc.isEmpty() || !m_tables.empty())) {
        QJsonObject doc = m_doc;
        for (const auto &[key, rows] : m_tables)
            doc.insert(key, rows);
        const QByteArray text = QJsonDocument(doc).toJson(QJsonDocument::Indented);
        std::fwrite(text.constData(), 1, static_cast<std::size_t>(text.size()), stdout);
    }
    std::fflush(stdout);
}

void Output::write(const QString &s)
{
    const QByteArray bytes = s.toUtf8();
    std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
}

QString humanTime(std::int64_t epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(
        QStringLiteral("yyyy-MM-dd HH:mm:ss,zzz"));
}

QString dateTime(std::int64_t epochMs)
{
    return QDateTime::fromMSecsSinceEpoch(epochMs).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString javaMap(const std::vector<std::pair<QByteArray, QByteArray>> &entries)
{
    QString s = QStringLiteral("{");
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i)
            s += QStringLiteral(", ");
        s += QString::fromUtf8(entries[i].first) + QLatin1Char('=')
            + QString::fromUtf8(entries[i].second);
    }
    return s + QLatin1Char('}');
}

} // namespace qrocket::admincli
