#pragma once

// qrocket-admin's output: mqadmin's printf-style lines and tables in text mode, or one JSON
// document (--json) built from the same calls, so that every command describes its output once.
//
//   Table t = out.table("queues", "%-32s  %-4s  %-20s%n", {{"brokerName", "#Broker Name"},
//       {"queueId", "#QID"}, {"maxOffset", "#Max Offset"}});    // text: the heading line
//   t.row({"broker-a", 0, 42});                                    // text: one line; JSON: object
//   out.field("%-20s %s%n", "Topic:", "topic", topic);           // "Topic:   T" / {"topic":"T"}
//   out.text("%nDiff Total: %d%n", {total});                      // text only
//   out.value("diffTotal", total);                                // JSON only
//
// Formats are Java's Formatter subset mqadmin uses: %s and %d with an optional '-' (left
// align), '0' (zero pad) and width, %.Nf / %N.Nf for numbers, %n and %%. A value wider than its
// column is printed whole, as Java does. The JSON document is printed by finish(); text goes to
// stdout as it is produced. Not thread-safe (the CLI is single-threaded).

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <vector>

namespace qrocket::admincli {

/// One value: its text (for %s / %d) and its JSON form (numbers stay numbers).
struct Cell
{
    QString text;
    QJsonValue json;

    Cell(const char *s) : text(QString::fromUtf8(s)), json(text) { }
    Cell(const QString &s) : text(s), json(s) { }
    Cell(const QByteArray &s) : text(QString::fromUtf8(s)), json(text) { }
    Cell(int v) : text(QString::number(v)), json(v) { }
    Cell(std::int64_t v) : text(QString::number(v)), json(static_cast<qint64>(v)) { }
    Cell(double v) : text(QString::number(v)), json(v) { }
    Cell(bool v) : text(v ? QStringLiteral("true") : QStringLiteral("false")), json(v) { }
    /// A value printed as `text` but kept as `json` in the document.
    Cell(QString t, QJsonValue j) : text(std::move(t)), json(std::move(j)) { }
};

/// `format` applied to `args` (see the file comment).
QString formatJava(const char *format, const std::vector<Cell> &args);
/// At most `n` characters of `s` (RocketMQ's UtilAll.frontStringAtLeast).
QString front(const QString &s, int n);
/// RocketMQ's PermName.perm2String: "RW-", "R--", ...
QString permText(int perm);

class Output;

/// A table: the heading line at creation, then one line (one JSON object) per row.
class Table
{
public:
    struct Column
    {
        const char *key; // JSON member name
        const char *heading; // mqadmin's heading text
    };

    void row(const std::vector<Cell> &cells);

private:
    friend class Output;
    Table(Output &out, QJsonArray *rows, const char *format, std::vector<Column> columns,
        const char *headingFormat);

    Output *m_out;
    QJsonArray *m_rows; // null in text mode
    const char *m_format;
    std::vector<Column> m_columns;
};

class Output
{
public:
    explicit Output(bool json);
    Output(const Output &) = delete;
    Output &operator=(const Output &) = delete;

    bool isJson() const { return m_json; }

    /// A table stored under `key` in the JSON document (rows appended when used twice). The
    /// heading line uses `headingFormat` when given (a few mqadmin tables have their own).
    Table table(const QString &key, const char *format, std::vector<Table::Column> columns,
        const char *headingFormat = nullptr);
    /// A labelled value: text `format` of {label, value}; JSON member `key`.
    void field(const char *format, const char *label, const QString &key, const Cell &value);
    /// Text mode only.
    void text(const char *format, const std::vector<Cell> &args = {});
    /// Raw text (text mode only), printed as is.
    void raw(const QString &s);
    /// JSON mode only: a member of the document.
    void value(const QString &key, const QJsonValue &v);
    /// JSON mode only: appends to the array member `key`.
    void append(const QString &key, const QJsonValue &v);

    /// Prints the JSON document (JSON mode; an empty one only when `printEmpty`, so that a
    /// failed command prints nothing but its error) and flushes stdout.
    void finish(bool printEmpty = true);

private:
    friend class Table;
    void write(const QString &s);

    bool m_json;
    QJsonObject m_doc;
    std::map<QString, QJsonArray> m_tables; // merged into m_doc by finish(); stable addresses
};

// -- value formatting shared by the commands ---------------------------------------------------

/// "yyyy-MM-dd HH:mm:ss,zzz" in local time (RocketMQ's timeMillisToHumanString2).
QString humanTime(std::int64_t epochMs);
/// "yyyy-MM-dd HH:mm:ss" (UtilAll.YYYY_MM_DD_HH_MM_SS).
QString dateTime(std::int64_t epochMs);
/// Java's Map.toString() of properties: "{k1=v1, k2=v2}".
QString javaMap(const std::vector<std::pair<QByteArray, QByteArray>> &entries);

} // namespace qrocket::admincli
