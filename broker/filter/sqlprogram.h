#pragma once

// The compiled form of an SqlExpression, private to broker/filter: sqlparser.cpp builds it,
// sqlexpression.cpp evaluates it.
//
// Contract: a Program is immutable once parse() has returned it. It is then evaluated by many
// threads at once (SqlExpression::matches on the pull path), so evaluate() and everything it calls
// are const, keep no state outside their stack, and do not allocate: values are views of the
// message's properties or of the pool, and numbers are parsed in place.
//
// Layout: nodes refer to each other by index (-1: none); AND/OR operands, IN items, property
// names and string literals live in Program's side arrays, so a Node has a fixed size.

#include "clientlib/common/result.h"

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace qrocket::broker::filter::sql {

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

inline bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

inline bool numeric(Kind kind)
{
    return kind == Kind::Int || kind == Kind::Long || kind == Kind::Double;
}

// Java's number conversions and RocketMQ's comparison, defined in sqlexpression.cpp; the parser
// uses them for literals and for its compile-time checks so that both agree with evaluation.

/// Integer.valueOf / Long.valueOf: an optional sign, then ASCII digits, within [min, max].
std::optional<std::int64_t> parseJavaInteger(QByteArrayView s, std::int64_t min, std::int64_t max);

/// `number` (already validated: digits, point, exponent) as a correctly rounded double.
double toDouble(QByteArrayView number, bool hex);

/// The length of a well-formed exponent ([marker][+-]digits, marker in either case) at s[i], or 0.
qsizetype exponentLength(QByteArrayView s, qsizetype i, char marker);

/// RocketMQ's three-way comparison of two non-null values, converting a string to the other
/// side's type; nullopt where Java throws.
std::optional<int> compareValues(const Value &l, const Value &r);

/// Compiles `text` (at most SqlExpression::kMaxTextSize bytes, checked by the caller), defined in
/// sqlparser.cpp. On error, Status::invalidArgument saying what is wrong and where.
Result<std::unique_ptr<const Program>> parse(QByteArrayView text);

} // namespace qrocket::broker::filter::sql
