#pragma once

// SqlExpression: RocketMQ's SQL92 message selector (what MessageSelector.bySql sends, expression
// type "SQL92"), compiled once per subscription and matched against each message's stored
// properties on the pull path.
//
// The language and its evaluation are Apache RocketMQ 4.9.7's, quirks included, so that a consumer
// gets the same messages from either broker:
//  - Keywords (AND OR NOT BETWEEN IN IS NULL TRUE FALSE) ignore case; property names are
//    case-sensitive identifiers [A-Za-z_$][A-Za-z0-9_$]*. Literals: 'text' ('' is a quote),
//    integers (Java int, or long when larger; an L suffix is allowed), decimals (5.5 .5 5. 5E10,
//    always Java double, and never 0 or infinite). Comments: -- to end of line, /* ... */.
//  - Precedence, loosest first: OR; AND; = <> IS [NOT] NULL; > >= < <= [NOT] BETWEEN [NOT] IN;
//    unary + - NOT. So NOT binds tighter than a comparison: "NOT a = 1" is "(NOT a) = 1".
//  - Compile-time checks: > >= < <= and BETWEEN take no boolean expression and no literal other
//    than a number; = and <> take no NULL literal; IN needs a property on its left; AND, OR, NOT
//    and the whole selector need a boolean expression or a property; literal BETWEEN bounds must
//    be in order.
//  - Evaluation is three-valued and only TRUE matches. A missing property is NULL, and so is any
//    comparison with NULL, except `x = y` which is TRUE when both are NULL and FALSE when only y
//    is. Property values are strings; against a number a value is parsed as that number's Java
//    type (Integer.valueOf, Long.valueOf, Double.valueOf), against TRUE/FALSE as a boolean, and
//    two strings are ordered as doubles. A value that does not parse aborts the whole evaluation
//    (Java throws) and the message does not match, whatever the rest of the selector says. A
//    property used as a boolean ("a AND ...", "NOT a") is FALSE when present, NULL when absent.
//  - Parsing stops after a complete expression: the token right after it must be valid, the
//    rest of the text is ignored (RocketMQ's parser does not require the end of the input).
//  - Bounds RocketMQ lacks, because the text comes from the network: at most kMaxTextSize bytes,
//    kMaxNesting levels of parentheses and unary operators, kMaxTreeDepth levels of operators.
//  - Text is UTF-8 and compared as bytes, where Java compares decoded strings (the same for valid
//    UTF-8); only ASCII digits make numbers (Java's Integer.valueOf takes any Unicode digit).
// Compile errors say what is wrong and where (a 0-based byte offset into the text).
//
// Thread safety: a compiled expression is immutable; matches() may run on many threads at once,
// and it does not allocate.

#include "clientlib/common/result.h"

#include <QByteArrayView>

#include <memory>

namespace qrocket::broker::filter {

namespace sql {
struct Program; // the compiled tree (sqlprogram.h, private to broker/filter)
} // namespace sql

class SqlExpression
{
public:
    static constexpr qsizetype kMaxTextSize = 64 * 1024;
    static constexpr int kMaxNesting = 256;
    static constexpr int kMaxTreeDepth = 512;

    /// Compiles a selector. On a syntax error or a type error that RocketMQ rejects at compile
    /// time, returns Status::invalidArgument with a message saying what was wrong and where.
    static Result<std::shared_ptr<const SqlExpression>> compile(QByteArrayView text);

    /// True only when the expression evaluates to TRUE against `properties`, RocketMQ's stored
    /// properties string ("name\x01value\x02...", the last 0x02 optional). A repeated name's last
    /// value wins; a pair with an empty name or value is absent (MessageDecoder's rules).
    bool matches(QByteArrayView properties) const;

    ~SqlExpression();
    SqlExpression(const SqlExpression &) = delete;
    SqlExpression &operator=(const SqlExpression &) = delete;

private:
    explicit SqlExpression(std::unique_ptr<const sql::Program> program);

    std::unique_ptr<const sql::Program> m_program;
};

} // namespace qrocket::broker::filter
