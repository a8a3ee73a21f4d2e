#include "broker/filter/sqlexpression.h"

#include "clientlib/protocol/messageproperties.h"

#include <QString>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

namespace qrocket::broker::filter {
namespace sql {

// Node kinds. Derived forms keep RocketMQ's shape because its null and error rules are what a
// consumer observes: <> is NOT(=), IS NULL is (= NULL), IS NOT NULL is NOT(= NULL), BETWEEN is
// AND(>=, <=), NOT BETWEEN is OR(<, >). AND and OR chains are flattened (same order, same
// short-circuit, same three-valued result) so that a long chain does not nest. BoolCast is a
// property used as a boolean: NULL when absent, else FALSE (its value is a string).
enum class Op : std::uint8_t {
    Constant,
    Property,
    Negate,
    Not,
    BoolCast,
    And,
    Or,
    Equal,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    In,
    NotIn
};

// The Java classes RocketMQ compares. Int and Long differ: a string compared with an Integer must
// parse as an int. Error stands for a thrown exception, which aborts the whole evaluation.
enum class Kind : std::uint8_t { Null, Bool, Int, Long, Double, String, Error };

struct Node
{
    Op op = Op::Constant;
    Kind kind = Kind::Null; // of a constant
    bool boolean = false;
    std::int32_t lhs = -1; // operand of unary nodes, left of comparisons, property of IN
    std::int32_t rhs = -1; // right of comparisons
    std::int32_t first = 0; // AND/OR: range of operands; IN: range of items;
    std::int32_t count = 0; // property name and string constant: range of the pool
    std::int64_t integer = 0;
    double real = 0;
    std::int32_t pos = 0; // source span, for compile errors
    std::int32_t end = 0;
};

struct Span
{
    std::int32_t offset = 0;
    std::int32_t size = 0;
};

struct Value
{
    Kind kind = Kind::Null;
    bool boolean = false;
    std::int64_t integer = 0; // Int and Long
    double real = 0;
    QByteArrayView text; // String: a view of the properties or of the pool

    static Value of(bool b) { return {Kind::Bool, b, 0, 0, {}}; }
    static Value error() { return {Kind::Error, false, 0, 0, {}}; }
};

struct Program
{
    std::vector<Node> nodes;
    std::vector<std::int32_t> operands; // of AND and OR nodes
    std::vector<Span> items; // of IN lists, each list's range sorted
    QByteArray pool; // property names and string literals; not modified after compile
    std::int32_t root = -1;

    QByteArrayView pooled(std::int32_t offset, std::int32_t size) const
    {
        return {pool.constData() + offset, size};
    }
    Value constant(const Node &n) const
    {
        return {n.kind, n.boolean, n.integer, n.real,
            n.kind == Kind::String ? pooled(n.first, n.count) : QByteArrayView()};
    }
    Value evaluate(std::int32_t index, QByteArrayView properties) const;
    Value equal(const Node &n, QByteArrayView properties) const;
    Value order(const Node &n, QByteArrayView properties) const;
};

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHexDigit(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool numeric(Kind kind)
{
    return kind == Kind::Int || kind == Kind::Long || kind == Kind::Double;
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

} // namespace

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

namespace {

// Error: a lexical error, already reported.
enum class Tok : std::uint8_t {
    End,
    Error,
    Not,
    And,
    Or,
    Between,
    In,
    True,
    False,
    Null,
    Is,
    IntegerLiteral,
    FloatLiteral,
    StringLiteral,
    Id,
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    LParen,
    Comma,
    RParen,
    Plus,
    Minus
};

struct Token
{
    Tok type = Tok::End;
    qsizetype pos = 0;
    qsizetype size = 0;
};

struct Keyword
{
    QByteArrayView word;
    Tok type;
};

constexpr Keyword kKeywords[] = {{"NOT", Tok::Not}, {"AND", Tok::And}, {"OR", Tok::Or},
    {"BETWEEN", Tok::Between}, {"IN", Tok::In}, {"TRUE", Tok::True}, {"FALSE", Tok::False},
    {"NULL", Tok::Null}, {"IS", Tok::Is}};

bool isIdentifierStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

/// Recursive descent over RocketMQ's grammar, with its compile-time checks. Tokens are read one
/// ahead, on demand, like the generated parser: the text after a complete expression is never
/// read beyond the one token that ends it. Node builders return an index, or -1 once failed.
class Parser
{
public:
    Parser(QByteArrayView text, Program &out) : m_text(text), m_out(out) { }

    bool run()
    {
        const std::int32_t root = asBoolean(parseOr());
        m_out.root = root;
        return !m_failed;
    }
    const QString &error() const { return m_error; }

private:
    const Node &node(std::int32_t index) const { return m_out.nodes[std::size_t(index)]; }

    // ---- tokens
    const Token &peek()
    {
        if (!m_peeked)
            m_next = lex();
        m_peeked = true;
        return m_next;
    }
    void take()
    {
        m_lastEnd = m_next.pos + m_next.size;
        m_peeked = false;
    }
    bool expect(Tok type, const char *what)
    {
        if (peek().type != type)
            return unexpected(peek(), what) >= 0;
        take();
        return true;
    }
    Token lex();
    Token lexNumber(qsizetype i);

    // ---- grammar, loosest first
    std::int32_t parseOr() { return parseChain(Tok::Or, Op::Or, &Parser::parseAnd); }
    std::int32_t parseAnd() { return parseChain(Tok::And, Op::And, &Parser::parseEquality); }
    std::int32_t parseChain(Tok separator, Op op, std::int32_t (Parser::*operand)());
    std::int32_t parseEquality();
    std::int32_t parseComparison();
    std::int32_t parseBetween(std::int32_t value, bool negated, const Token &keyword);
    std::int32_t parseIn(std::int32_t value, bool negated);
    std::int32_t parseUnary();
    std::int32_t parsePrimary();

    // ---- nodes and RocketMQ's compile-time checks
    std::int32_t add(Node n);
    std::int32_t literal(const Token &t);
    std::int32_t unary(Op op, std::int32_t operand, qsizetype pos)
    {
        Node n {.op = op, .lhs = operand, .pos = std::int32_t(pos)};
        return add(n);
    }
    std::int32_t binary(Op op, std::int32_t lhs, std::int32_t rhs)
    {
        return add(Node {.op = op, .lhs = lhs, .rhs = rhs, .pos = node(lhs).pos});
    }
    std::int32_t logic(Op op, const std::vector<std::int32_t> &operands);
    std::int32_t ordering(Op op, std::int32_t lhs, std::int32_t rhs, const Token &t);
    std::int32_t equality(std::int32_t lhs, std::int32_t rhs, const Token &t);
    bool isBoolean(std::int32_t index) const;
    std::int32_t asBoolean(std::int32_t index);
    QByteArray unquote(const Token &t) const;
    Span pool(QByteArrayView bytes);

    // ---- errors
    std::int32_t fail(qsizetype pos, const QString &what);
    std::int32_t unexpected(const Token &t, const char *expected);
    QString quote(qsizetype pos, qsizetype end) const;
    QString quote(const Node &n) const { return quote(n.pos, n.end); }

    QByteArrayView m_text;
    Program &m_out;
    qsizetype m_pos = 0; // where the lexer resumes
    Token m_next;
    bool m_peeked = false;
    qsizetype m_lastEnd = 0; // end of the last token taken
    int m_nesting = 0;
    std::vector<int> m_depths; // of each node's subtree
    bool m_failed = false;
    QString m_error;
};

Token Parser::lex()
{
    const qsizetype n = m_text.size();
    const char *d = m_text.data();
    qsizetype i = m_pos;
    for (;;) { // blanks and comments
        while (
            i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r' || d[i] == '\f'))
            ++i;
        if (i + 1 < n && d[i] == '-' && d[i + 1] == '-') {
            // A line comment needs its line end; without one the dashes are two minus signs.
            qsizetype e = i + 2;
            while (e < n && d[e] != '\n' && d[e] != '\r')
                ++e;
            if (e == n)
                break;
            i = e;
        } else if (i + 1 < n && d[i] == '/' && d[i + 1] == '*') {
            const qsizetype close = m_text.indexOf("*/", i + 2);
            if (close < 0) {
                fail(i, QStringLiteral("unterminated /* comment"));
                return {Tok::Error, i, 0};
            }
            i = close + 2;
        } else {
            break;
        }
    }
    const auto token = [&](Tok type, qsizetype size) {
        m_pos = i + size;
        return Token {type, i, size};
    };
    if (i == n)
        return token(Tok::End, 0);
    const char c = d[i];
    if (isIdentifierStart(c)) {
        qsizetype j = i + 1;
        while (j < n && (isIdentifierStart(d[j]) || isDigit(d[j])))
            ++j;
        const QByteArrayView word = m_text.sliced(i, j - i);
        for (const Keyword &k : kKeywords) {
            if (word.compare(k.word, Qt::CaseInsensitive) == 0)
                return token(k.type, j - i);
        }
        return token(Tok::Id, j - i);
    }
    if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(d[i + 1])))
        return lexNumber(i);
    if (c == '\'') { // '' is a quote inside
        qsizetype shorter = 0; // the longest match without a closing quote: one ending at a ''
        for (qsizetype j = i + 1; j < n; ++j) {
            if (d[j] == '\'' && (j + 1 == n || d[j + 1] != '\''))
                return token(Tok::StringLiteral, j + 1 - i);
            if (d[j] == '\'')
                shorter = ++j - i;
        }
        if (shorter > 0) // "'a'' b": the token is 'a' (the rest is read only if needed)
            return token(Tok::StringLiteral, shorter);
        fail(i, QStringLiteral("unterminated string literal"));
        return {Tok::Error, i, 0};
    }
    const char next = i + 1 < n ? d[i + 1] : '\0';
    switch (c) {
    case '=':
        return token(Tok::Eq, 1);
    case '<':
        return next == '>' ? token(Tok::Ne, 2)
            : next == '='  ? token(Tok::Le, 2)
                           : token(Tok::Lt, 1);
    case '>':
        return next == '=' ? token(Tok::Ge, 2) : token(Tok::Gt, 1);
    case '(':
        return token(Tok::LParen, 1);
    case ',':
        return token(Tok::Comma, 1);
    case ')':
        return token(Tok::RParen, 1);
    case '+':
        return token(Tok::Plus, 1);
    case '-':
        return token(Tok::Minus, 1);
    default:
        break;
    }
    const QString shown = c > ' ' && c < 0x7f
        ? QStringLiteral("'%1'").arg(QLatin1Char(c))
        : QStringLiteral("byte 0x%1").arg(uchar(c), 2, 16, QLatin1Char('0'));
    fail(i, QStringLiteral("unexpected character %1").arg(shown));
    return {Tok::Error, i, 0};
}

/// The longest of RocketMQ's two number tokens: an integer ("0", or [1-9][0-9]* with an optional
/// L) and a float (digits "." digits? exponent?, "." digits exponent?, digits exponent).
Token Parser::lexNumber(qsizetype i)
{
    const QByteArrayView t = m_text;
    qsizetype j = i;
    while (j < t.size() && isDigit(t[j]))
        ++j;
    const qsizetype digits = j - i;
    qsizetype integer = 0;
    if (digits > 0)
        integer = t[i] == '0' ? 1 : digits + (j < t.size() && (t[j] | 0x20) == 'l' ? 1 : 0);
    qsizetype floating = 0;
    if (j < t.size() && t[j] == '.') {
        qsizetype k = j + 1;
        while (k < t.size() && isDigit(t[k]))
            ++k;
        floating = k - i + exponentLength(t, k, 'e');
    } else if (const qsizetype e = exponentLength(t, j, 'e'); e > 0) {
        floating = digits + e;
    }
    const Tok type = floating > integer ? Tok::FloatLiteral : Tok::IntegerLiteral;
    const qsizetype size = std::max(floating, integer);
    m_pos = i + size;
    return {type, i, size};
}

std::int32_t Parser::parseChain(Tok separator, Op op, std::int32_t (Parser::*operand)())
{
    const std::int32_t first = (this->*operand)();
    if (first < 0 || peek().type != separator)
        return first;
    std::vector<std::int32_t> operands {first};
    while (peek().type == separator) {
        take();
        const std::int32_t next = (this->*operand)();
        if (next < 0 || (operands.size() == 1 && (operands[0] = asBoolean(operands[0])) < 0))
            return -1;
        operands.push_back(asBoolean(next));
        if (operands.back() < 0)
            return -1;
    }
    return logic(op, operands);
}

std::int32_t Parser::parseEquality()
{
    std::int32_t left = parseComparison();
    while (left >= 0) {
        const Token t = peek();
        if (t.type == Tok::Eq || t.type == Tok::Ne) {
            take();
            const std::int32_t right = parseComparison();
            left = right < 0 ? -1 : equality(left, right, t);
            if (left >= 0 && t.type == Tok::Ne)
                left = unary(Op::Not, left, node(left).pos);
        } else if (t.type == Tok::Is) {
            take();
            const bool negated = peek().type == Tok::Not;
            if (negated)
                take();
            const Token null = peek();
            if (null.type != Tok::Null)
                return unexpected(
                    null, negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
            take();
            const std::int32_t nullNode = literal(null);
            left = nullNode < 0 ? -1 : binary(Op::Equal, left, nullNode);
            if (left >= 0 && negated)
                left = unary(Op::Not, left, node(left).pos);
        } else {
            break;
        }
    }
    return left;
}

std::int32_t Parser::parseComparison()
{
    std::int32_t left = parseUnary();
    while (left >= 0) {
        const Token t = peek();
        switch (t.type) {
        case Tok::Gt:
        case Tok::Ge:
        case Tok::Lt:
        case Tok::Le: {
            take();
            const std::int32_t right = parseUnary();
            const Op op = t.type == Tok::Gt ? Op::Greater
                : t.type == Tok::Ge         ? Op::GreaterEqual
                : t.type == Tok::Lt         ? Op::Less
                                            : Op::LessEqual;
            left = right < 0 ? -1 : ordering(op, left, right, t);
            break;
        }
        case Tok::Between:
            take();
            left = parseBetween(left, false, t);
            break;
        case Tok::In:
            take();
            left = parseIn(left, false);
            break;
        case Tok::Not: {
            take();
            const Token u = peek();
            if (u.type != Tok::Between && u.type != Tok::In)
                return unexpected(u, "BETWEEN or IN after NOT");
            take();
            left = u.type == Tok::Between ? parseBetween(left, true, u) : parseIn(left, true);
            break;
        }
        default:
            return left;
        }
    }
    return left;
}

std::int32_t Parser::parseBetween(std::int32_t value, bool negated, const Token &keyword)
{
    const std::int32_t low = parseUnary();
    if (low < 0 || !expect(Tok::And, "AND between the BETWEEN bounds"))
        return -1;
    const std::int32_t high = parseUnary();
    if (high < 0)
        return -1;
    const Node &lo = node(low);
    const Node &hi = node(high);
    // RocketMQ checks the order of literal bounds, for BETWEEN only (not NOT BETWEEN, and not a
    // negative bound, which is a negation rather than a literal).
    if (!negated && lo.op == Op::Constant && hi.op == Op::Constant) {
        if (lo.kind == Kind::Null || hi.kind == Kind::Null)
            return fail(keyword.pos, QStringLiteral("BETWEEN bounds cannot be NULL"));
        if (numeric(lo.kind) && numeric(hi.kind)
            && compareValues(m_out.constant(hi), m_out.constant(lo)).value_or(0) < 0) {
            return fail(lo.pos,
                QStringLiteral("BETWEEN's lower bound %1 is above its upper bound %2")
                    .arg(quote(lo), quote(hi)));
        }
    }
    const std::int32_t lowTest
        = ordering(negated ? Op::Less : Op::GreaterEqual, value, low, keyword);
    const std::int32_t highTest
        = lowTest < 0 ? -1 : ordering(negated ? Op::Greater : Op::LessEqual, value, high, keyword);
    return highTest < 0 ? -1 : logic(negated ? Op::Or : Op::And, {lowTest, highTest});
}

std::int32_t Parser::parseIn(std::int32_t value, bool negated)
{
    if (!expect(Tok::LParen, "'(' after IN"))
        return -1;
    const auto first = std::int32_t(m_out.items.size());
    for (;;) {
        const Token t = peek();
        if (t.type != Tok::StringLiteral)
            return unexpected(t, "a string literal in the IN list");
        take();
        m_out.items.push_back(pool(unquote(t)));
        if (peek().type != Tok::Comma)
            break;
        take();
    }
    if (!expect(Tok::RParen, "',' or ')' in the IN list"))
        return -1;
    if (node(value).op != Op::Property) {
        return fail(node(value).pos,
            QStringLiteral("IN needs a property on its left, not %1").arg(quote(node(value))));
    }
    const auto begin = m_out.items.begin() + first;
    std::sort(begin, m_out.items.end(), [this](const Span &a, const Span &b) {
        return m_out.pooled(a.offset, a.size) < m_out.pooled(b.offset, b.size);
    });
    return add(Node {.op = negated ? Op::NotIn : Op::In,
        .lhs = value,
        .first = first,
        .count = std::int32_t(m_out.items.size()) - first,
        .pos = node(value).pos});
}

std::int32_t Parser::parseUnary()
{
    const Token t = peek();
    if (m_nesting >= SqlExpression::kMaxNesting) {
        return fail(t.pos,
            QStringLiteral("more than %1 nested parentheses or unary operators")
                .arg(SqlExpression::kMaxNesting));
    }
    ++m_nesting;
    std::int32_t result = -1;
    switch (t.type) {
    case Tok::Plus:
        take();
        result = parseUnary();
        break;
    case Tok::Minus:
        take();
        result = parseUnary();
        result = result < 0 ? -1 : unary(Op::Negate, result, t.pos);
        break;
    case Tok::Not:
        take();
        result = asBoolean(parseUnary());
        result = result < 0 ? -1 : unary(Op::Not, result, t.pos);
        break;
    default:
        result = parsePrimary();
        break;
    }
    --m_nesting;
    return result;
}

std::int32_t Parser::parsePrimary()
{
    const Token t = peek();
    switch (t.type) {
    case Tok::StringLiteral:
    case Tok::IntegerLiteral:
    case Tok::FloatLiteral:
    case Tok::True:
    case Tok::False:
    case Tok::Null:
        take();
        return literal(t);
    case Tok::Id: {
        take();
        const Span name = pool(m_text.sliced(t.pos, t.size));
        return add(Node {.op = Op::Property,
            .first = name.offset,
            .count = name.size,
            .pos = std::int32_t(t.pos)});
    }
    case Tok::LParen: {
        take();
        const std::int32_t inner = parseOr();
        return inner < 0 || !expect(Tok::RParen, "')'") ? -1 : inner;
    }
    default:
        return unexpected(t, "a property, a literal or '('");
    }
}

std::int32_t Parser::add(Node n)
{
    int depth = 0;
    const auto deeper = [&](std::int32_t child) {
        depth = child < 0 ? depth : std::max(depth, m_depths[std::size_t(child)]);
    };
    deeper(n.lhs);
    deeper(n.rhs);
    for (std::int32_t k = 0; (n.op == Op::And || n.op == Op::Or) && k < n.count; ++k)
        deeper(m_out.operands[std::size_t(n.first + k)]);
    if (++depth > SqlExpression::kMaxTreeDepth) {
        return fail(n.pos,
            QStringLiteral("operators nested more than %1 deep").arg(SqlExpression::kMaxTreeDepth));
    }
    n.end = std::int32_t(m_lastEnd);
    m_depths.push_back(depth);
    m_out.nodes.push_back(n);
    return std::int32_t(m_out.nodes.size() - 1);
}

std::int32_t Parser::literal(const Token &t)
{
    const QByteArrayView text = m_text.sliced(t.pos, t.size);
    Node n {.pos = std::int32_t(t.pos)};
    switch (t.type) {
    case Tok::StringLiteral: {
        const Span s = pool(unquote(t));
        n.kind = Kind::String;
        n.first = s.offset;
        n.count = s.size;
        break;
    }
    case Tok::IntegerLiteral: { // an Integer when it fits, else a Long, whatever the suffix
        const QByteArrayView digits = (text.back() | 0x20) == 'l' ? text.chopped(1) : text;
        const auto v = parseJavaInteger(digits, 0, std::numeric_limits<std::int64_t>::max());
        if (!v)
            return fail(t.pos,
                QStringLiteral("%1 does not fit in a long").arg(quote(t.pos, t.pos + t.size)));
        n.kind = *v <= std::numeric_limits<std::int32_t>::max() ? Kind::Int : Kind::Long;
        n.integer = *v;
        break;
    }
    case Tok::FloatLiteral:
        n.kind = Kind::Double;
        n.real = toDouble(text, false);
        if (std::isinf(n.real) || n.real == 0) { // RocketMQ rejects both, 0.0 included
            return fail(t.pos,
                QStringLiteral("%1 is outside the positive doubles RocketMQ accepts (%2 to %3)")
                    .arg(quote(t.pos, t.pos + t.size), QStringLiteral("4.9E-324"),
                        QStringLiteral("1.7976931348623157E308")));
        }
        break;
    case Tok::True:
    case Tok::False:
        n.kind = Kind::Bool;
        n.boolean = t.type == Tok::True;
        break;
    default:
        break; // NULL
    }
    return add(n);
}

std::int32_t Parser::logic(Op op, const std::vector<std::int32_t> &operands)
{
    const auto first = std::int32_t(m_out.operands.size());
    m_out.operands.insert(m_out.operands.end(), operands.begin(), operands.end());
    return add(Node {.op = op,
        .first = first,
        .count = std::int32_t(operands.size()),
        .pos = node(operands.front()).pos});
}

/// > >= < <= (and BETWEEN's halves) take no boolean expression and no literal but a number.
std::int32_t Parser::ordering(Op op, std::int32_t lhs, std::int32_t rhs, const Token &t)
{
    for (const std::int32_t side : {lhs, rhs}) {
        const Node &n = node(side);
        if (n.op == Op::Constant ? !numeric(n.kind) : isBoolean(side)) {
            return fail(n.pos,
                QStringLiteral("%1 cannot be compared with '%2' (%3)")
                    .arg(quote(n), QString::fromUtf8(m_text.sliced(t.pos, t.size)),
                        n.op == Op::Constant ? QStringLiteral("only numbers can")
                                             : QStringLiteral("it is a boolean expression")));
        }
    }
    return binary(op, lhs, rhs);
}

/// = and <> take no NULL literal, and not a TRUE/FALSE literal on the left of another literal.
std::int32_t Parser::equality(std::int32_t lhs, std::int32_t rhs, const Token &t)
{
    const QString op = QString::fromUtf8(m_text.sliced(t.pos, t.size));
    for (const std::int32_t side : {lhs, rhs}) {
        const Node &n = node(side);
        if (n.op == Op::Constant && n.kind == Kind::Null) {
            return fail(
                n.pos, QStringLiteral("NULL cannot be compared with '%1' (use IS NULL)").arg(op));
        }
    }
    const Node &l = node(lhs);
    const Node &r = node(rhs);
    if (l.op == Op::Constant && r.op == Op::Constant && l.kind == Kind::Bool
        && r.kind != Kind::Bool) {
        return fail(r.pos, QStringLiteral("%1 cannot be compared with %2").arg(quote(l), quote(r)));
    }
    return binary(Op::Equal, lhs, rhs);
}

/// What RocketMQ types as a BooleanExpression: TRUE, FALSE, NULL and every operator but unary
/// minus.
bool Parser::isBoolean(std::int32_t index) const
{
    const Node &n = node(index);
    if (n.op == Op::Constant)
        return n.kind == Kind::Bool || n.kind == Kind::Null;
    return n.op != Op::Property && n.op != Op::Negate;
}

/// AND, OR, NOT and the whole selector take a boolean expression, or a property (cast).
std::int32_t Parser::asBoolean(std::int32_t index)
{
    if (index < 0 || isBoolean(index))
        return index;
    const Node &n = node(index);
    if (n.op == Op::Property)
        return unary(Op::BoolCast, index, n.pos);
    return fail(n.pos, QStringLiteral("%1 is not a boolean expression").arg(quote(n)));
}

/// A string literal's text: without its quotes, '' read as one quote.
QByteArray Parser::unquote(const Token &t) const
{
    QByteArray text;
    for (qsizetype k = t.pos + 1; k < t.pos + t.size - 1; ++k) {
        text.append(m_text[k]);
        k += m_text[k] == '\'' ? 1 : 0;
    }
    return text;
}

Span Parser::pool(QByteArrayView bytes)
{
    const Span s {std::int32_t(m_out.pool.size()), std::int32_t(bytes.size())};
    m_out.pool.append(bytes);
    return s;
}

std::int32_t Parser::fail(qsizetype pos, const QString &what)
{
    if (!m_failed) {
        m_failed = true;
        m_error = QStringLiteral("invalid SQL92 selector: %1 at position %2").arg(what).arg(pos);
    }
    return -1;
}

std::int32_t Parser::unexpected(const Token &t, const char *expected)
{
    if (t.type == Tok::Error)
        return -1; // reported by the lexer
    return fail(t.pos,
        QStringLiteral("expected %1 but found %2")
            .arg(QLatin1String(expected),
                t.type == Tok::End ? QStringLiteral("the end") : quote(t.pos, t.pos + t.size)));
}

QString Parser::quote(qsizetype pos, qsizetype end) const
{
    constexpr qsizetype kShown = 40;
    const QByteArrayView text = m_text.sliced(pos, std::min(end - pos, kShown));
    return QStringLiteral("\"%1%2\"")
        .arg(QString::fromUtf8(text), end - pos > kShown ? QStringLiteral("...") : QString());
}

} // namespace
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
    auto program = std::make_unique<sql::Program>();
    sql::Parser parser(text, *program);
    if (!parser.run())
        return Status::invalidArgument(parser.error());
    return std::shared_ptr<const SqlExpression>(new SqlExpression(std::move(program)));
}

bool SqlExpression::matches(QByteArrayView properties) const
{
    const sql::Value v = m_program->evaluate(m_program->root, properties);
    return v.kind == sql::Kind::Bool && v.boolean;
}

} // namespace qrocket::broker::filter
