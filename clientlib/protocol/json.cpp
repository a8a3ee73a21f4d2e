#include "clientlib/protocol/json.h"

#include "clientlib/protocol/jsontext.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace qrocket::protocol {

namespace {

const std::vector<JsonValue> kNoItems;
const std::vector<JsonValue::Member> kNoMembers;
const JsonValue kNull;

bool isIdentStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool isIdentChar(char c)
{
    return isIdentStart(c) || (c >= '0' && c <= '9');
}

QByteArray formatDouble(double v)
{
    if (!std::isfinite(v))
        return QByteArrayLiteral("null");
    char buf[64];
    const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc())
        return QByteArrayLiteral("0.0");
    QByteArray out(buf, ptr - buf);
    // Java's Double.toString always shows a fraction or exponent ("0.0", "12.0").
    if (!out.contains('.') && !out.contains('e'))
        out.append(".0");
    return out;
}

class Parser
{
public:
    Parser(QByteArrayView text, int maxDepth) : m_text(text), m_maxDepth(maxDepth) { }

    Result<JsonValue> run()
    {
        JsonValue v;
        if (!parseValue(v, 0))
            return error();
        jsontext::skipSpace(m_text, m_pos);
        if (m_pos != m_text.size()) {
            m_what = "trailing characters after the JSON value";
            return error();
        }
        return v;
    }

private:
    Status error() const
    {
        return Status::invalidArgument(
            QStringLiteral("JSON: %1 at byte %2").arg(QLatin1String(m_what)).arg(m_pos));
    }
    bool fail(const char *what)
    {
        m_what = what;
        return false;
    }
    bool keyword(const char *word)
    {
        const QByteArrayView w(word);
        if (m_text.sliced(m_pos).startsWith(w)
            && (m_pos + w.size() == m_text.size() || !isIdentChar(m_text[m_pos + w.size()]))) {
            m_pos += w.size();
            return true;
        }
        return false;
    }

    bool parseNumber(JsonValue &out)
    {
        QByteArrayView literal;
        bool isInteger = false;
        if (!jsontext::scanNumber(m_text, m_pos, literal, isInteger))
            return fail("bad number");
        if (isInteger) {
            if (const auto v = jsontext::parseInteger(literal)) {
                out = JsonValue::fromInteger(*v);
                return true;
            }
        }
        const char *begin = literal.data();
        const char *end = begin + literal.size();
        if (*begin == '+')
            ++begin;
        double d = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, d);
        if (ec == std::errc::result_out_of_range)
            return fail("number out of range");
        if (ptr != end || ec != std::errc())
            return fail("bad number");
        out = JsonValue::fromDouble(d);
        return true;
    }

    bool parseKey(JsonValue &key, int depth)
    {
        const char c = m_text[m_pos];
        if (c == '"' || c == '\'' || c == '{' || c == '[' || c == '-' || c == '+'
            || (c >= '0' && c <= '9'))
            return parseValue(key, depth);
        if (isIdentStart(c)) { // fastjson accepts unquoted names
            const qsizetype start = m_pos;
            while (m_pos < m_text.size() && isIdentChar(m_text[m_pos]))
                ++m_pos;
            key = JsonValue::fromString(m_text.sliced(start, m_pos - start).toByteArray());
            return true;
        }
        return fail("expected an object key");
    }

    bool parseValue(JsonValue &out, int depth)
    {
        if (depth > m_maxDepth)
            return fail("nesting too deep");
        jsontext::skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size())
            return fail("unexpected end of input");
        const char c = m_text[m_pos];
        if (c == '{')
            return parseObject(out, depth);
        if (c == '[')
            return parseArray(out, depth);
        if (c == '"' || c == '\'') {
            QByteArray s;
            if (!jsontext::scanString(m_text, m_pos, s))
                return fail("bad string");
            if (s.isNull())
                s = QByteArray("", 0);
            out = JsonValue::fromString(std::move(s));
            return true;
        }
        if (keyword("true")) {
            out = JsonValue::fromBool(true);
            return true;
        }
        if (keyword("false")) {
            out = JsonValue::fromBool(false);
            return true;
        }
        if (keyword("null")) {
            out = JsonValue();
            return true;
        }
        return parseNumber(out);
    }

    bool parseObject(JsonValue &out, int depth)
    {
        ++m_pos; // '{'
        out = JsonValue::object();
        for (;;) {
            jsontext::skipSpace(m_text, m_pos);
            if (m_pos >= m_text.size())
                return fail("unterminated object");
            if (m_text[m_pos] == '}') { // also after a trailing comma
                ++m_pos;
                return true;
            }
            JsonValue key;
            if (!parseKey(key, depth + 1))
                return false;
            jsontext::skipSpace(m_text, m_pos);
            if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                return fail("expected ':'");
            ++m_pos;
            JsonValue value;
            if (!parseValue(value, depth + 1))
                return false;
            out.appendMember(std::move(key), std::move(value));
            jsontext::skipSpace(m_text, m_pos);
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or '}'");
        }
    }

    bool parseArray(JsonValue &out, int depth)
    {
        ++m_pos; // '['
        out = JsonValue::array();
        for (;;) {
            jsontext::skipSpace(m_text, m_pos);
            if (m_pos >= m_text.size())
                return fail("unterminated array");
            if (m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            JsonValue item;
            if (!parseValue(item, depth + 1))
                return false;
            out.append(std::move(item));
            jsontext::skipSpace(m_text, m_pos);
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or ']'");
        }
    }

    QByteArrayView m_text;
    int m_maxDepth;
    qsizetype m_pos = 0;
    const char *m_what = "";
};

} // namespace

JsonValue JsonValue::fromBool(bool v)
{
    JsonValue j;
    j.m_type = Type::Bool;
    j.m_bool = v;
    return j;
}

JsonValue JsonValue::fromInteger(std::int64_t v)
{
    JsonValue j;
    j.m_type = Type::Integer;
    j.m_int = v;
    return j;
}

JsonValue JsonValue::fromDouble(double v)
{
    JsonValue j;
    j.m_type = Type::Double;
    j.m_double = v;
    return j;
}

JsonValue JsonValue::fromString(QByteArray v)
{
    JsonValue j;
    j.m_type = Type::String;
    j.m_string = std::move(v);
    return j;
}

JsonValue JsonValue::array()
{
    JsonValue j;
    j.m_type = Type::Array;
    j.m_items = std::make_shared<std::vector<JsonValue>>();
    return j;
}

JsonValue JsonValue::object()
{
    JsonValue j;
    j.m_type = Type::Object;
    j.m_members = std::make_shared<std::vector<Member>>();
    return j;
}

std::int64_t JsonValue::toInteger(std::int64_t fallback) const
{
    switch (m_type) {
    case Type::Integer:
        return m_int;
    case Type::Double:
        if (std::isfinite(m_double) && std::fabs(m_double) < 9.2e18)
            return static_cast<std::int64_t>(m_double);
        return fallback;
    case Type::Bool:
        return m_bool ? 1 : 0;
    case Type::String: {
        const QByteArray t = m_string.trimmed();
        if (const auto v = jsontext::parseInteger(t))
            return *v;
        qsizetype pos = 0;
        QByteArrayView literal;
        bool isInteger = false;
        if (jsontext::scanNumber(t, pos, literal, isInteger) && pos == t.size()) {
            if (const auto v = jsontext::parseInteger(jsontext::canonicalNumber(literal, false)))
                return *v;
        }
        return fallback;
    }
    default:
        return fallback;
    }
}

double JsonValue::toDouble(double fallback) const
{
    switch (m_type) {
    case Type::Integer:
        return static_cast<double>(m_int);
    case Type::Double:
        return m_double;
    case Type::Bool:
        return m_bool ? 1 : 0;
    case Type::String: {
        bool ok = false;
        const double d = m_string.trimmed().toDouble(&ok);
        return ok ? d : fallback;
    }
    default:
        return fallback;
    }
}

bool JsonValue::toBool(bool fallback) const
{
    switch (m_type) {
    case Type::Bool:
        return m_bool;
    case Type::Integer:
        return m_int != 0;
    case Type::String:
        if (m_string.compare(QByteArrayView("true"), Qt::CaseInsensitive) == 0)
            return true;
        if (m_string.compare(QByteArrayView("false"), Qt::CaseInsensitive) == 0)
            return false;
        return fallback;
    default:
        return fallback;
    }
}

QByteArray JsonValue::toString() const
{
    switch (m_type) {
    case Type::String:
        return m_string;
    case Type::Integer:
        return QByteArray::number(static_cast<qlonglong>(m_int));
    case Type::Double:
        if (std::isfinite(m_double) && m_double == std::trunc(m_double)
            && std::fabs(m_double) < 9.2e18)
            return QByteArray::number(static_cast<qlonglong>(m_double));
        return formatDouble(m_double);
    case Type::Bool:
        return m_bool ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    default:
        return {};
    }
}

const std::vector<JsonValue> &JsonValue::items() const
{
    return m_type == Type::Array && m_items ? *m_items : kNoItems;
}

void JsonValue::append(JsonValue v)
{
    if (m_type != Type::Array || !m_items) {
        *this = array();
    } else if (m_items.use_count() > 1) {
        m_items = std::make_shared<std::vector<JsonValue>>(*m_items); // detach
    }
    m_items->push_back(std::move(v));
}

const std::vector<JsonValue::Member> &JsonValue::members() const
{
    return m_type == Type::Object && m_members ? *m_members : kNoMembers;
}

namespace {
/// The integer whose canonical text is `key` ("7", "-3"; not "07", "+7", "-0").
std::optional<std::int64_t> canonicalInteger(QByteArrayView key)
{
    const QByteArrayView digits = key.startsWith('-') ? key.sliced(1) : key;
    if (digits.isEmpty() || (digits[0] == '0' && (digits.size() > 1 || key.size() > 1)))
        return std::nullopt;
    return jsontext::parseInteger(key.startsWith('+') ? QByteArrayView() : key);
}

bool keyMatches(const JsonValue &k, QByteArrayView key, const std::optional<std::int64_t> &asInt)
{
    if (k.type() == JsonValue::Type::String)
        return k.toString() == key;
    if (k.type() == JsonValue::Type::Integer)
        return asInt && k.toInteger() == *asInt;
    return false;
}
} // namespace

const JsonValue *JsonValue::find(QByteArrayView key) const
{
    const auto &ms = members();
    const std::optional<std::int64_t> asInt = canonicalInteger(key);
    // Last one wins, as fastjson and QJsonDocument do for duplicate keys.
    for (auto it = ms.rbegin(); it != ms.rend(); ++it) {
        if (keyMatches(it->first, key, asInt))
            return &it->second;
    }
    return nullptr;
}

const JsonValue &JsonValue::operator[](QByteArrayView key) const
{
    const JsonValue *v = find(key);
    return v ? *v : kNull;
}

void JsonValue::insert(JsonValue key, JsonValue value)
{
    if (m_type != Type::Object || !m_members) {
        *this = object();
    } else if (m_members.use_count() > 1) {
        m_members = std::make_shared<std::vector<Member>>(*m_members); // detach
    }
    if (key.type() == Type::String || key.type() == Type::Integer) {
        const QByteArray text = key.toString();
        const std::optional<std::int64_t> asInt = canonicalInteger(text);
        for (Member &m : *m_members) {
            if (m.first.type() == key.type() && keyMatches(m.first, text, asInt)) {
                m.second = std::move(value);
                return;
            }
        }
    }
    m_members->emplace_back(std::move(key), std::move(value));
}

void JsonValue::appendMember(JsonValue key, JsonValue value)
{
    if (m_type != Type::Object || !m_members)
        *this = object();
    else if (m_members.use_count() > 1)
        m_members = std::make_shared<std::vector<Member>>(*m_members); // detach
    m_members->emplace_back(std::move(key), std::move(value));
}

Result<JsonValue> parseJson(QByteArrayView text, int maxDepth)
{
    return Parser(text, maxDepth).run();
}

// ---------------------------------------------------------------------------------------------

void JsonWriter::separator()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_first.empty()) {
        if (!m_first.back())
            m_out.append(',');
        m_first.back() = false;
    }
}

JsonWriter &JsonWriter::beginObject()
{
    separator();
    m_out.append('{');
    m_first.push_back(true);
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    m_out.append('}');
    if (!m_first.empty())
        m_first.pop_back();
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separator();
    m_out.append('[');
    m_first.push_back(true);
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    m_out.append(']');
    if (!m_first.empty())
        m_first.pop_back();
    return *this;
}

JsonWriter &JsonWriter::key(QByteArrayView k)
{
    separator();
    jsontext::appendQuoted(m_out, k);
    m_out.append(':');
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::rawKey(QByteArrayView k)
{
    separator();
    m_out.append(k.data(), k.size());
    m_out.append(':');
    m_afterKey = true;
    return *this;
}

JsonWriter &JsonWriter::value(QByteArrayView s)
{
    separator();
    jsontext::appendQuoted(m_out, s);
    return *this;
}

JsonWriter &JsonWriter::value(std::int64_t v)
{
    separator();
    // Formatted in place: no temporary QByteArray (a config body writes several per entry).
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    m_out.append(digits, end - digits);
    return *this;
}

JsonWriter &JsonWriter::value(double v)
{
    separator();
    m_out.append(formatDouble(v));
    return *this;
}

JsonWriter &JsonWriter::value(bool v)
{
    separator();
    if (v)
        m_out.append("true", 4);
    else
        m_out.append("false", 5);
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separator();
    m_out.append("null", 4);
    return *this;
}

JsonWriter &JsonWriter::raw(QByteArrayView json)
{
    separator();
    m_out.append(json.data(), json.size());
    return *this;
}

JsonWriter &JsonWriter::value(const JsonValue &v)
{
    switch (v.type()) {
    case JsonValue::Type::Null:
        return null();
    case JsonValue::Type::Bool:
        return value(v.toBool());
    case JsonValue::Type::Integer:
        return value(v.toInteger());
    case JsonValue::Type::Double:
        return value(v.toDouble());
    case JsonValue::Type::String:
        return value(QByteArrayView(v.toString()));
    case JsonValue::Type::Array:
        beginArray();
        for (const JsonValue &item : v.items())
            value(item);
        return endArray();
    case JsonValue::Type::Object:
        beginObject();
        for (const auto &[k, member] : v.members()) {
            if (k.type() == JsonValue::Type::Object || k.type() == JsonValue::Type::Array)
                rawKey(toJson(k)); // fastjson's MessageQueue keys (protocol.md §3.9)
            else
                key(k.toString());
            value(member);
        }
        return endObject();
    }
    return *this;
}

QByteArray toJson(const JsonValue &v)
{
    JsonWriter w;
    w.value(v);
    return w.take();
}

} // namespace qrocket::protocol
