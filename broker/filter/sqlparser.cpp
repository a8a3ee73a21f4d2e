#include "broker/filter/sqlexpression.h"
#include "broker/filter/sqlprogram.h"

#include <QString>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <vector>

namespace qrocket::broker::filter::sql {

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

Result<std::unique_ptr<const Program>> parse(QByteArrayView text)
{
    auto program = std::make_unique<Program>();
    Parser parser(text, *program);
    if (!parser.run())
        return Status::invalidArgument(parser.error());
    return std::unique_ptr<const Program>(std::move(program));
}

} // namespace qrocket::broker::filter::sql
