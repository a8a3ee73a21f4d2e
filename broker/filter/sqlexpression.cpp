#include "broker/filter/sqlexpression.h"

#include "broker/filter/sqlprogram.h"
#include "clientlib/protocol/messageproperties.h"

#include <QString>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace qrocket::broker::filter {
namespace sql {

namespace {

bool isHexDigit(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

template<typename T>
int threeWay(T a, T b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

/// Double.compare: NaN equals itself and is above +Infinity; -0.0 is below 0.0.
int compareDoubles(double a, double b)
{
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    const auto bits = [](double d) {
        return std::isnan(d) ? std::int64_t {0x7ff8000000000000} : std::bit_cast<std::int64_t>(d);
    };
    return threeWay(bits(a), bits(b));
}

/// from_chars leaves its output alone when out of range, where Java rounds to infinity or zero:
/// which one follows from the first significant digit's place plus the exponent.
double outOfRange(QByteArrayView number, bool hex)
{
    std::int64_t scale = 0;
    bool significant = false;
    bool fraction = false;
    qsizetype i = 0;
    for (; i < number.size() && (number[i] == '.' || (hex ? isHexDigit : isDigit)(number[i]));
         ++i) {
        fraction = fraction || number[i] == '.';
        significant = significant || (number[i] != '.' && number[i] != '0');
        if (number[i] != '.')
            scale += (significant && !fraction) ? 1 : (!significant && fraction) ? -1 : 0;
    }
    const bool negativeExponent = i + 1 < number.size() && number[i + 1] == '-';
    std::int64_t exponent = 0;
    for (; i < number.size(); ++i) {
        if (isDigit(number[i]))
            exponent = std::min<std::int64_t>(exponent * 10 + (number[i] - '0'), 1'000'000'000);
    }
    const std::int64_t magnitude
        = scale * (hex ? 4 : 1) + (negativeExponent ? -exponent : exponent);
    return magnitude > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

/// Double.valueOf: trimmed of chars <= ' ', a sign, then NaN, Infinity, a decimal (digits with an
/// optional point and e-exponent) or a hexadecimal (0x, digits, p-exponent), then one optional
/// [fFdD].
std::optional<double> parseJavaDouble(QByteArrayView s)
{
    while (!s.isEmpty() && uchar(s.front()) <= ' ')
        s = s.sliced(1);
    while (!s.isEmpty() && uchar(s.back()) <= ' ')
        s.chop(1);
    const bool negative = s.startsWith('-');
    if (negative || s.startsWith('+'))
        s = s.sliced(1);
    if (s == "NaN")
        return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity")
        return negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
    const bool hex = s.size() > 1 && s[0] == '0' && (s[1] | 0x20) == 'x';
    if (hex)
        s = s.sliced(2);
    const auto digit = hex ? isHexDigit : isDigit;
    qsizetype i = 0;
    qsizetype digits = 0;
    for (; i < s.size() && digit(s[i]); ++i)
        ++digits;
    if (i < s.size() && s[i] == '.') {
        for (++i; i < s.size() && digit(s[i]); ++i)
            ++digits;
    }
    const qsizetype exponent = exponentLength(s, i, hex ? 'p' : 'e');
    if (digits == 0 || (hex && exponent == 0))
        return std::nullopt;
    i += exponent;
    if (i < s.size() && (i + 1 != s.size() || !QByteArrayView("fFdD").contains(s[i])))
        return std::nullopt;
    const double v = toDouble(s.first(i), hex);
    return negative ? -v : v;
}

/// `text` parsed as Java parses `kind` (Integer, Long or Double); nullopt: NumberFormatException.
std::optional<Value> convert(QByteArrayView text, Kind kind)
{
    Value v {kind, false, 0, 0, {}};
    if (kind == Kind::Double) {
        const auto d = parseJavaDouble(text);
        v.real = d.value_or(0);
        return d ? std::optional(v) : std::nullopt;
    }
    const auto i = kind == Kind::Int
        ? parseJavaInteger(text, std::numeric_limits<std::int32_t>::min(),
            std::numeric_limits<std::int32_t>::max())
        : parseJavaInteger(text, std::numeric_limits<std::int64_t>::min(),
            std::numeric_limits<std::int64_t>::max());
    v.integer = i.value_or(0);
    return i ? std::optional(v) : std::nullopt;
}

} // namespace

/// Integer.valueOf / Long.valueOf: an optional sign, then ASCII digits, within [min, max].
std::optional<std::int64_t> parseJavaInteger(QByteArrayView s, std::int64_t min, std::int64_t max)
{
    const bool negative = s.startsWith('-');
    if (negative || s.startsWith('+'))
        s = s.sliced(1);
    if (s.isEmpty())
        return std::nullopt;
    const auto limit = negative ? std::uint64_t(-(min + 1)) + 1 : std::uint64_t(max);
    std::uint64_t v = 0;
    for (const char c : s) {
        if (!isDigit(c))
            return std::nullopt;
        const auto digit = std::uint64_t(c - '0');
        if (v > (limit - digit) / 10)
            return std::nullopt;
        v = v * 10 + digit;
    }
    return negative ? std::int64_t(0 - v) : std::int64_t(v);
}

/// `number` (already validated: digits, point, exponent) as a correctly rounded double.
double toDouble(QByteArrayView number, bool hex)
{
    double v = 0;
    const auto result = std::from_chars(number.data(), number.data() + number.size(), v,
        hex ? std::chars_format::hex : std::chars_format::general);
    return result.ec == std::errc::result_out_of_range ? outOfRange(number, hex) : v;
}

/// The length of a well-formed exponent ([marker][+-]digits, marker in either case) at s[i], or 0.
qsizetype exponentLength(QByteArrayView s, qsizetype i, char marker)
{
    if (i >= s.size() || (s[i] | 0x20) != marker)
        return 0;
    qsizetype j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-'))
        ++j;
    const qsizetype digits = j;
    while (j < s.size() && isDigit(s[j]))
        ++j;
    return j > digits ? j - i : 0;
}

/// RocketMQ's three-way comparison of two non-null values, converting a string to the other
/// side's type; nullopt where Java throws.
std::optional<int> compareValues(const Value &l, const Value &r)
{
    if (numeric(l.kind) && numeric(r.kind)) {
        if (l.kind != Kind::Double && r.kind != Kind::Double)
            return threeWay(l.integer, r.integer);
        const auto real
            = [](const Value &v) { return v.kind == Kind::Double ? v.real : double(v.integer); };
        return compareDoubles(real(l), real(r));
    }
    if (l.kind == r.kind && l.kind == Kind::Bool)
        return threeWay(l.boolean, r.boolean);
    if (l.kind == r.kind && l.kind == Kind::String)
        return threeWay(l.text.compare(r.text), 0);
    if (l.kind == Kind::String && r.kind == Kind::Bool) // Boolean.valueOf: "true" in any case
        return threeWay(l.text.compare("true", Qt::CaseInsensitive) == 0, r.boolean);
    if (l.kind == Kind::String && numeric(r.kind)) {
        const auto converted = convert(l.text, r.kind);
        return converted ? compareValues(*converted, r) : std::nullopt;
    }
    if (numeric(l.kind) && r.kind == Kind::String) {
        const auto converted = convert(r.text, l.kind);
        return converted ? compareValues(l, *converted) : std::nullopt;
    }
    if (l.kind == Kind::Bool && r.kind == Kind::String)
        return std::nullopt; // Java casts the Boolean itself to String: ClassCastException
    return -1; // what RocketMQ answers for a pair it cannot convert (a number and a boolean)
}

Value Program::evaluate(std::int32_t index, QByteArrayView properties) const
{
    const Node &n = nodes[std::size_t(index)];
    switch (n.op) {
    case Op::Constant:
        return constant(n);
    case Op::Property: {
        const QByteArrayView v = protocol::findProperty(properties, pooled(n.first, n.count));
        return v.isNull() ? Value() : Value {Kind::String, false, 0, 0, v};
    }
    case Op::Negate: {
        Value v = evaluate(n.lhs, properties);
        if (v.kind == Kind::Int || v.kind == Kind::Long)
            v.integer = std::int64_t(0 - std::uint64_t(v.integer));
        else if (v.kind == Kind::Double)
            v.real = -v.real;
        else if (v.kind != Kind::Error)
            return {}; // RocketMQ negates numbers only
        return v;
    }
    case Op::Not: {
        const Value v = evaluate(n.lhs, properties);
        return v.kind == Kind::Bool ? Value::of(!v.boolean) : v;
    }
    case Op::BoolCast: {
        const Value v = evaluate(n.lhs, properties);
        return v.kind == Kind::String ? Value::of(false) : v;
    }
    case Op::And:
    case Op::Or: {
        const bool isAnd = n.op == Op::And;
        bool unknown = false;
        for (std::int32_t k = 0; k < n.count; ++k) {
            const Value v = evaluate(operands[std::size_t(n.first + k)], properties);
            if (v.kind == Kind::Error || (v.kind == Kind::Bool && v.boolean != isAnd))
                return v;
            unknown = unknown || v.kind != Kind::Bool;
        }
        return unknown ? Value() : Value::of(isAnd);
    }
    case Op::Equal:
        return equal(n, properties);
    case Op::In:
    case Op::NotIn: {
        const Value v = evaluate(n.lhs, properties);
        if (v.kind != Kind::String)
            return v.kind == Kind::Error ? v : Value();
        const auto begin = items.begin() + n.first;
        const auto end = begin + n.count;
        const auto it = std::lower_bound(begin, end, v.text,
            [this](const Span &s, QByteArrayView t) { return pooled(s.offset, s.size) < t; });
        const bool found = it != end && pooled(it->offset, it->size) == v.text;
        return Value::of(found != (n.op == Op::NotIn));
    }
    default:
        return order(n, properties);
    }
}

Value Program::equal(const Node &n, QByteArrayView properties) const
{
    const Value l = evaluate(n.lhs, properties);
    if (l.kind == Kind::Error)
        return l;
    const Value r = evaluate(n.rhs, properties);
    if (r.kind == Kind::Error)
        return r;
    // RocketMQ's asymmetry: NULL = x is NULL, x = NULL is FALSE, NULL = NULL is TRUE.
    if (l.kind == Kind::Null || r.kind == Kind::Null)
        return l.kind == r.kind ? Value::of(true) : (l.kind == Kind::Null ? l : Value::of(false));
    const auto c = compareValues(l, r);
    return c ? Value::of(*c == 0) : Value::error();
}

Value Program::order(const Node &n, QByteArrayView properties) const
{
    const Value l = evaluate(n.lhs, properties);
    if (l.kind == Kind::Null || l.kind == Kind::Error)
        return l;
    const Value r = evaluate(n.rhs, properties);
    if (r.kind == Kind::Null || r.kind == Kind::Error)
        return r;
    std::optional<int> c;
    if (l.kind == Kind::String && r.kind == Kind::String) { // ordered as doubles, or not at all
        const auto x = parseJavaDouble(l.text);
        const auto y = parseJavaDouble(r.text);
        if (x && y)
            c = compareDoubles(*x, *y);
    } else {
        c = compareValues(l, r);
    }
    if (!c)
        return Value::error();
    switch (n.op) {
    case Op::Greater:
        return Value::of(*c > 0);
    case Op::GreaterEqual:
        return Value::of(*c >= 0);
    case Op::Less:
        return Value::of(*c < 0);
    default:
        return Value::of(*c <= 0);
    }
}

} // namespace sql

SqlExpression::SqlExpression(std::unique_ptr<const sql::Program> program)
    : m_program(std::move(program))
{ }

SqlExpression::~SqlExpression() = default;

Result<std::shared_ptr<const SqlExpression>> SqlExpression::compile(QByteArrayView text)
{
    if (text.size() > kMaxTextSize) {
        return Status::invalidArgument(
            QStringLiteral("invalid SQL92 selector: %1 bytes, more than the %2 allowed")
                .arg(text.size())
                .arg(kMaxTextSize));
    }
    auto program = sql::parse(text);
    if (!program)
        return program.error();
    return std::shared_ptr<const SqlExpression>(new SqlExpression(std::move(program).value()));
}

bool SqlExpression::matches(QByteArrayView properties) const
{
    const sql::Value v = m_program->evaluate(m_program->root, properties);
    return v.kind == sql::Kind::Bool && v.boolean;
}

} // namespace qrocket::broker::filter
