#include "clientlib/common/properties.h"

#include "clientlib/common/configkeys.h"

#include <QFile>

#include <type_traits>

namespace qrocket {

namespace {

bool isWhite(QChar c)
{
    return c == u' ' || c == u'\t' || c == u'\f';
}

// Joins continuation lines into logical lines, remembering where each one starts.
struct LogicalLine
{
    QString text;
    int line;
};

QList<LogicalLine> logicalLines(const QString &all)
{
    QList<LogicalLine> out;
    const QStringList physical = all.split(u'\n');
    QString pending;
    int pendingLine = 0;
    bool continuing = false;
    for (int i = 0; i < physical.size(); ++i) {
        QString l = physical.at(i);
        if (l.endsWith(u'\r'))
            l.chop(1);
        qsizetype start = 0;
        while (start < l.size() && isWhite(l.at(start)))
            ++start;
        l = l.mid(start);
        if (!continuing) {
            if (l.isEmpty() || l.startsWith(u'#') || l.startsWith(u'!'))
                continue;
            pendingLine = i + 1;
        }
        // An odd number of trailing backslashes continues the line.
        qsizetype slashes = 0;
        while (slashes < l.size() && l.at(l.size() - 1 - slashes) == u'\\')
            ++slashes;
        if (slashes % 2 == 1) {
            pending += l.left(l.size() - 1);
            continuing = true;
            continue;
        }
        pending += l;
        out.append({pending, pendingLine});
        pending.clear();
        continuing = false;
    }
    if (continuing)
        out.append({pending, pendingLine});
    return out;
}

QString unescape(QStringView s)
{
    QString out;
    out.reserve(s.size());
    for (qsizetype i = 0; i < s.size(); ++i) {
        QChar c = s.at(i);
        if (c != u'\\' || i + 1 >= s.size()) {
            out += c;
            continue;
        }
        c = s.at(++i);
        switch (c.unicode()) {
        case u't':
            out += u'\t';
            break;
        case u'n':
            out += u'\n';
            break;
        case u'r':
            out += u'\r';
            break;
        case u'f':
            out += u'\f';
            break;
        case u'u': {
            bool ok = false;
            const ushort code = s.mid(i + 1, 4).toUShort(&ok, 16);
            if (ok && i + 4 < s.size()) {
                out += QChar(code);
                i += 4;
            } else {
                out += u'u';
            }
            break;
        }
        default:
            out += c;
        }
    }
    return out;
}

QString escape(const QString &s, bool isKey)
{
    QString out;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar c = s.at(i);
        switch (c.unicode()) {
        case u'\\':
            out += QStringLiteral("\\\\");
            break;
        case u'\t':
            out += QStringLiteral("\\t");
            break;
        case u'\n':
            out += QStringLiteral("\\n");
            break;
        case u'\r':
            out += QStringLiteral("\\r");
            break;
        case u'\f':
            out += QStringLiteral("\\f");
            break;
        case u'=':
        case u':':
        case u'#':
        case u'!':
            if (isKey)
                out += u'\\';
            out += c;
            break;
        case u' ':
            if (isKey || i == 0)
                out += u'\\';
            out += c;
            break;
        default:
            out += c;
        }
    }
    return out;
}

} // namespace

Properties parseProperties(QByteArrayView text)
{
    Properties out;
    for (const LogicalLine &ll : logicalLines(QString::fromUtf8(text))) {
        const QString &l = ll.text;
        qsizetype keyEnd = 0;
        while (keyEnd < l.size()) {
            const QChar c = l.at(keyEnd);
            if (c == u'\\') {
                keyEnd += 2;
                continue;
            }
            if (c == u'=' || c == u':' || isWhite(c))
                break;
            ++keyEnd;
        }
        keyEnd = std::min(keyEnd, l.size());
        qsizetype valStart = keyEnd;
        while (valStart < l.size() && isWhite(l.at(valStart)))
            ++valStart;
        if (valStart < l.size() && (l.at(valStart) == u'=' || l.at(valStart) == u':')) {
            ++valStart;
            while (valStart < l.size() && isWhite(l.at(valStart)))
                ++valStart;
        }
        out.append({unescape(QStringView(l).left(keyEnd)), unescape(QStringView(l).mid(valStart)),
            ll.line});
    }
    return out;
}

Result<Properties> loadPropertiesFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(
            QStringLiteral("cannot read config file %1: %2").arg(path, f.errorString()));
    return parseProperties(f.readAll());
}

QByteArray formatProperties(const QList<std::pair<QString, QString>> &entries)
{
    QString out;
    for (const auto &[k, v] : entries)
        out += escape(k, true) + u'=' + escape(v, false) + u'\n';
    return out.toUtf8();
}

void ConfigSchema::add(const char *key, Field field, bool important)
{
    m_items.push_back({QString::fromLatin1(key), field, important});
}

const ConfigSchema::Item *ConfigSchema::find(const QString &key) const
{
    for (const Item &it : m_items)
        if (it.key == key)
            return &it;
    return nullptr;
}

bool ConfigSchema::contains(const QString &key) const
{
    return find(key) != nullptr;
}

Status ConfigSchema::set(const QString &key, const QString &rawValue)
{
    const Item *it = find(key);
    if (!it)
        return Status::notFound(QStringLiteral("unknown config key '%1'").arg(key));
    const QString value = rawValue.trimmed();
    auto bad = [&](const char *type) {
        return Status::invalidArgument(QStringLiteral("config key '%1': '%2' is not %3")
                                           .arg(key, rawValue, QLatin1String(type)));
    };
    return std::visit(
        [&](auto *p) -> Status {
            using T = std::remove_pointer_t<decltype(p)>;
            bool ok = true;
            if constexpr (std::is_same_v<T, int>) {
                const int v = value.toInt(&ok);
                if (!ok)
                    return bad("an integer");
                *p = v;
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                const qlonglong v = value.toLongLong(&ok);
                if (!ok)
                    return bad("an integer");
                *p = v;
            } else if constexpr (std::is_same_v<T, bool>) {
                // Java's Boolean.parseBoolean takes anything but "true" as false; we are strict
                // so that a typo is reported instead of silently turning a switch off.
                if (value.compare(u"true", Qt::CaseInsensitive) == 0)
                    *p = true;
                else if (value.compare(u"false", Qt::CaseInsensitive) == 0)
                    *p = false;
                else
                    return bad("true or false");
            } else if constexpr (std::is_same_v<T, double>) {
                const double v = value.toDouble(&ok);
                if (!ok)
                    return bad("a number");
                *p = v;
            } else {
                *p = value;
            }
            return {};
        },
        it->field);
}

Status ConfigSchema::apply(const Properties &props, QStringList *unknownKeys)
{
    for (const PropertyEntry &e : props) {
        Status st = set(e.key, e.value);
        if (st.code() == Status::Code::NotFound) {
            if (unknownKeys)
                unknownKeys->append(e.key);
            continue;
        }
        if (!st.isOk())
            return Status::invalidArgument(
                QStringLiteral("line %1: %2").arg(e.line).arg(st.message()));
    }
    return {};
}

QString ConfigSchema::value(const QString &key) const
{
    const Item *it = find(key);
    if (!it)
        return {};
    return std::visit(
        [](auto *p) -> QString {
            using T = std::remove_pointer_t<decltype(p)>;
            if constexpr (std::is_same_v<T, bool>)
                return *p ? QStringLiteral("true") : QStringLiteral("false");
            else if constexpr (std::is_same_v<T, QString>)
                return *p;
            else
                return QString::number(*p);
        },
        it->field);
}

QList<std::pair<QString, QString>> ConfigSchema::entries(bool importantOnly) const
{
    QList<std::pair<QString, QString>> out;
    for (const Item &it : m_items)
        if (!importantOnly || it.important)
            out.append({it.key, value(it.key)});
    return out;
}

QString ConfigSchema::print(bool importantOnly) const
{
    QString out;
    for (const auto &[k, v] : entries(importantOnly)) {
        // -p/-m output lands in terminals, logs and tickets: never a secret's value.
        const bool hide = !v.isEmpty() && isSecretConfigKey(k);
        out += k + u'=' + (hide ? QStringLiteral("******") : v) + u'\n';
    }
    return out;
}

} // namespace qrocket
