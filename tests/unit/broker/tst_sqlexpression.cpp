// SqlExpression: RocketMQ 4.9.7's SQL92 selector. First the cases of RocketMQ's own tests
// (filter's ParserTest, ExpressionTest and FilterSpiTest, the broker's filter tests and the
// SqlFilterConsumer example) as tables, then the rules they leave implicit: three-valued logic,
// string-to-number conversion, the compile-time checks, the tokens; then the stored properties
// format, the bounds against hostile text, and that matching neither allocates nor races.

#include "broker/filter/sqlexpression.h"

#include <QTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

using qrocket::Status;
using qrocket::broker::filter::SqlExpression;

namespace {

// Counts this thread's heap allocations while t_counting is set (noAllocation()).
thread_local bool t_counting = false;
thread_local long t_allocations = 0;

} // namespace

void *operator new(std::size_t size)
{
    if (t_counting)
        ++t_allocations;
    if (void *p = std::malloc(size ? size : 1))
        return p;
    throw std::bad_alloc();
}

void operator delete(void *p) noexcept
{
    std::free(p);
}

void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}

namespace {

/// The tables' readable properties, "a=1|b=2", as stored: "a\x01" "1\x02b\x01" "2\x02".
QByteArray props(QByteArray readable)
{
    QByteArray out = std::move(readable);
    for (char &c : out)
        c = c == '=' ? '\x01' : c == '|' ? '\x02' : c;
    return out.isEmpty() ? out : out + '\x02';
}

/// `text` fit for a data tag: control characters shown as \xNN.
QByteArray tag(QByteArrayView text)
{
    QByteArray out;
    for (const char c : text) {
        if (uchar(c) < 0x20)
            out += "\\x" + QByteArray::number(uchar(c), 16).rightJustified(2, '0');
        else
            out += c;
    }
    return out;
}

void row(const char *expression, const char *properties, bool expected)
{
    QTest::addRow("%s [%s]", tag(expression).constData(), properties)
        << QByteArray(expression) << props(properties) << expected;
}

void errorRow(const char *expression, int position, const char *fragment)
{
    QTest::addRow("%s", tag(expression).constData())
        << QByteArray(expression) << position << QString::fromUtf8(fragment);
}

std::shared_ptr<const SqlExpression> compiled(QByteArrayView text)
{
    auto r = SqlExpression::compile(text);
    if (!r)
        qWarning("%s", qPrintable(r.error().message()));
    return r ? *r : nullptr;
}

QByteArray repeated(QByteArrayView part, int times)
{
    QByteArray out;
    for (int i = 0; i < times; ++i)
        out.append(part);
    return out;
}

} // namespace

class tst_SqlExpression : public QObject
{
    Q_OBJECT

private slots:
    void rocketmqParser_data();
    void rocketmqParser();
    void rocketmqEvaluation_data();
    void rocketmqEvaluation() { matches(); }
    void semantics_data();
    void semantics() { matches(); }
    void syntax_data();
    void syntax() { matches(); }
    void compileErrors_data();
    void compileErrors();
    void propertiesFormat_data();
    void propertiesFormat() { matches(); }
    void limits();
    void noAllocation();
    void concurrentMatches();

private:
    void matchesColumns();
    void matches();
};

void tst_SqlExpression::matchesColumns()
{
    QTest::addColumn<QByteArray>("expression");
    QTest::addColumn<QByteArray>("properties");
    QTest::addColumn<bool>("expected");
}

void tst_SqlExpression::matches()
{
    QFETCH(QByteArray, expression);
    QFETCH(QByteArray, properties);
    QFETCH(bool, expected);
    const auto r = SqlExpression::compile(expression);
    QVERIFY2(r.has_value(), qPrintable(r.status().toString()));
    QCOMPARE((*r)->matches(properties), expected);
}

void tst_SqlExpression::rocketmqParser_data()
{
    QTest::addColumn<QByteArray>("expression");
    QTest::addColumn<bool>("valid");
    const char *valid[] = {"a=3 and b<>4 And c>5 AND d<=4", "a=3  and    b<>4 And c>5 AND d<=4",
        "a=3 or b<>4 Or c>5 OR d<=4", "a in ('3', '4', '5')",
        "(a not in ('6', '4', '5')) or (b in ('3', '4', '5'))",
        "(a between 2 and 10) AND (b not between 6 and 9)", "a is null", "a is not null",
        "a <= now", "a between 10 AND 20", "a is not null and a > 0 and a < 20",
        "a is not null and a >= 5", "a is not null OR a is null",
        "(TAGS is not null and TAGS in ('TagA', 'TagB'))and (a is not null and a between 0 and 3)"};
    for (const char *e : valid)
        QTest::addRow("%s", e) << QByteArray(e) << true;
    const char *invalid[] = {"a and between 2 and 10", " a between 10 and 0",
        "a > 100000000000000000000000", "a between 10,20"};
    for (const char *e : invalid)
        QTest::addRow("%s", e) << QByteArray(e) << false;
    // ParserTest.testParse_floatOverFlow's 210 KB literal (refused here for its size alone).
    const QByteArray ones = repeated("111111111111111111111111111111111111111111111111111", 2048);
    QTest::addRow("float overflow") << "a > 1" + ones + "." + ones << false;
}

void tst_SqlExpression::rocketmqParser()
{
    QFETCH(QByteArray, expression);
    QFETCH(bool, valid);
    const auto r = SqlExpression::compile(expression);
    QVERIFY2(r.has_value() == valid, qPrintable(r.status().toString()));
    if (!valid)
        QCOMPARE(r.error().code(), Status::Code::InvalidArgument);
}

void tst_SqlExpression::rocketmqEvaluation_data()
{
    matchesColumns();
    // ExpressionTest (property values as the broker sees them: strings).
    row("TAGS is not null and TAGS='''''tag'''''", "TAGS=''tag''", true);
    row("a between up and low", "a=3.14", false); // NULL bounds
    row("a between up and low", "a=3.14|up=up|low=low", false); // Java throws
    row("key is not null and key between 0 and 100", "key=con", false);
    row("a between 0 and 100", "a=abc", false);
    row("a=b", "a=3.14|b=3.14", true);
    row("a<>b", "a=3.14|b=3.14", false);
    row("a<>b", "a=3.14|b=3.141", true);
    row("a > 3.1E10", "a=3.1415E10", true);
    row("a > 3.14", "a=3.1415", true);
    row("a > b", "a=10|b=20", false);
    row("a > b", "b=10|a=20", true);
    row("a is null OR a='hello'", "", true);
    row("a is null OR a='hello'", "a=hello", true);
    row("a is null OR a='hello'", "a=abc", false);
    row("a=TRUE OR b=FALSE", "a=true|b=false", true);
    row("a=TRUE OR b=FALSE", "a=false|b=true", false);
    row("a is not null and a='hello'", "a=hello", true);
    row("a is not null and a='hello'", "", false);
    const char *andExpression = "a=3 and b<>4 And c>5 AND d<=4";
    row(andExpression, "a=3|b=5|c=6|d=1", true);
    row(andExpression, "a=4|b=5|c=6|d=1", false);
    const char *orExpression = "a=3 or b<>4 Or c>5 OR d<=4";
    row(orExpression, "a=3", true);
    row(orExpression, "a=4|b=5", true);
    row(orExpression, "a=4|b=4|c=6", true);
    row(orExpression, "a=4|b=4|c=3|d=2", true);
    row(orExpression, "a=4|b=4|c=3|d=10", false);
    for (const char *v : {"a=3", "a=4", "a=5"}) {
        row("a in ('3', '4', '5')", v, true);
        row("a not in ('3', '4', '5')", v, false);
    }
    row("a in ('3', '4', '5')", "a=8", false);
    row("a not in ('3', '4', '5')", "a=8", true);
    for (const char *v : {"a=2", "a=10", "a=3"}) {
        row("a between 2 and 10", v, true);
        row("a not between 2 and 10", v, false);
    }
    for (const char *v : {"a=1", "a=11"}) {
        row("a between 2 and 10", v, false);
        row("a not between 2 and 10", v, true);
    }
    row("a is null", "abc=2", true);
    row("a is null", "a=2", false);
    row("a is not null", "a=2", true);
    row("a is not null", "abc=2", false);
    // FilterSpiTest, then the SqlFilterConsumer example.
    row("a is not null and a > 0", "", false);
    const char *example = "(TAGS is not null and TAGS in ('TagA', 'TagB'))"
                          "and (a is not null and a between 0 and 3)";
    row(example, "TAGS=TagB|a=3", true);
    row(example, "TAGS=TagC|a=3", false);
    row(example, "TAGS=TagA|a=4", false);
    row(example, "TAGS=TagA", false);
}

void tst_SqlExpression::semantics_data()
{
    matchesColumns();
    // Three-valued logic: a = '1' is NULL without a, TRUE with a=1, FALSE with a=2.
    row("a = '1' AND b = '1'", "a=1|b=1", true);
    row("a = '1' AND b = '1'", "a=1", false);
    row("NOT (a = '1' AND b = '1')", "b=2", true); // NULL AND FALSE is FALSE
    row("NOT (a = '1' AND b = '1')", "b=1", false); // NULL AND TRUE is NULL
    row("NOT (a = '1' AND b = '1')", "a=2", true);
    row("NOT (a = '1' AND b = '1')", "", false);
    row("a = '1' OR b = '1'", "b=1", true); // NULL OR TRUE is TRUE
    row("a = '1' OR b = '1'", "b=2", false);
    row("NOT (a = '1' OR b = '1')", "b=2", false); // NULL OR FALSE is NULL
    row("NOT (a = '1' OR b = '1')", "a=2|b=2", true);
    row("NOT (a = '1')", "", false);
    row("NOT (a = '1')", "a=2", true);
    // = is asymmetric about NULL: NULL = x is NULL, x = NULL is FALSE, NULL = NULL is TRUE.
    row("a = b", "", true);
    row("a = b", "a=1", false);
    row("NOT (a = b)", "a=1", true);
    row("NOT (a = b)", "b=1", false);
    row("a <> b", "a=1", true);
    row("a <> b", "b=1", false);
    row("a = -'x'", "", true); // negating a string gives NULL
    row("a = -'x'", "a=x", false);
    // A string against an integer literal parses as a Java int, else the evaluation aborts.
    row("a = 5", "a=5", true);
    row("a = 5", "a=05", true);
    row("a = 5", "a=+5", true);
    row("a = 0", "a=-0", true);
    row("a = 5", "a= 5", false);
    row("a = 5", "a=5.0", false);
    row("NOT (a = 5)", "a=6", true);
    row("NOT (a = 5)", "a=abc", false); // an abort, not FALSE
    row("a = 5 OR b = '1'", "a=abc|b=1", false);
    row("b = '1' OR a = 5", "a=abc|b=1", true); // short-circuited before the abort
    row("a > 5", "a=5.5", false);
    row("NOT (a > 5)", "a=5.5", false);
    row("NOT (a > 5)", "a=4", true);
    row("a > 5", "a=3000000000", false); // not an int
    row("a > 3000000000", "a=3000000001", true); // a long literal parses a long
    row("a > 3000000000", "a=5", false);
    row("a > -2147483648", "a=3000000000", true); // -(a long) is a long
    row("a > -2147483647", "a=3000000000", false);
    row("a < 9223372036854775807", "a=9223372036854775808", false);
    row("a = 10L", "a=10", true);
    row("a > -5", "a=-4", true);
    row("a < -5", "a=-4", false);
    row("a = - - 5", "a=5", true);
    row("a = +5", "a=5", true);
    // Against a decimal literal, as Double.valueOf: trimmed, suffixes, hex, NaN, Infinity.
    row("a > 5.0", "a=5.5", true);
    row("a > 5.0", "a= 6 ", true);
    row("a > 5.0", "a=6d", true);
    row("a > 5.0", "a=6F", true);
    row("a > 5.0", "a=0x1p3", true);
    row("a < 5.0", "a=0x1.8P1", true);
    row("a > 5.0", "a=NaN", true); // NaN is above everything
    row("a < 5.0", "a=NaN", false);
    row("a = 5.0", "a=NaN", false);
    row("a > 5.0", "a=Infinity", true);
    row("a < 5.0", "a=-Infinity", true);
    row("a > 5.0", "a=1e400", true);
    row("a < 5.0", "a=1e-400", true);
    row("a > 5.0", "a=6e", false);
    row("a > 5.0", "a=6.0.0", false);
    row("a > 5.0", "a=6x", false);
    row("a > 5.0", "a=infinity", false);
    row("a = 2.0", "a=2", true);
    row("a = 0.5", "a=.5", true);
    row("a = .5e1", "a=5", true);
    row("a = 5.", "a=5", true);
    row("a = 1E+3", "a=1000", true);
    // Two properties are ordered as doubles (Double.compare: -0.0 < 0.0), or not at all.
    row("a > b", "a=10|b=9", true);
    row("a > b", "a=x|b=1", false);
    row("NOT (a > b)", "a=x|b=1", false);
    row("a >= b", "a=0.0|b=-0.0", true);
    row("a <= b", "a=0.0|b=-0.0", false);
    // Strings compare as bytes for = and IN.
    row("a = 'abc'", "a=abc", true);
    row("a = 'abc'", "a=ABC", false);
    row("a = b", "a=x|b=x", true);
    row("a = '1'", "a=01", false);
    row("a = 1", "a=01", true);
    row("a = ''", "a=x", false);
    // Against TRUE/FALSE as Boolean.valueOf; but TRUE on the left of a property aborts.
    row("a = TRUE", "a=TRUE", true);
    row("a = TRUE", "a=yes", false);
    row("NOT (a = TRUE)", "a=yes", true);
    row("a = FALSE", "a=yes", true);
    row("TRUE = a", "a=true", false);
    row("NOT (TRUE = a)", "a=true", false);
    row("NOT (TRUE = a)", "", true);
    // A property as a boolean is FALSE (its value is a string), or NULL when absent.
    row("a", "a=true", false);
    row("a", "", false);
    row("NOT a", "a=1", true);
    row("NOT a", "", false);
    row("a AND TRUE", "a=true", false);
    row("NOT a OR FALSE", "a=x", true);
    row("TRUE", "", true);
    row("FALSE", "", false);
    row("NULL", "", false);
    row("NOT NULL", "", false);
    row("NOT FALSE", "", true);
    // Precedence: NOT binds tighter than =, AND tighter than OR, comparisons tighter than =.
    row("NOT a = '1'", "a=1", false); // (NOT a) = '1': Boolean vs String aborts
    row("NOT a = '1'", "", false);
    row("a = '1' OR b = '1' AND c = '1'", "a=1", true);
    row("a = '1' OR b = '1' AND c = '1'", "b=1", false);
    row("(a = '1' OR b = '1') AND c = '1'", "a=1", false);
    row("(a = '1' OR b = '1') AND c = '1'", "a=1|c=1", true);
    row("(a > 1) = TRUE", "a=2", true);
    row("(a > 1) = TRUE", "a=0", false);
    row("a = 1 = TRUE", "a=1", true);
    row("a > 1 = b > 1", "a=2|b=3", true);
    row("a > 1 = b > 1", "a=2|b=0", false);
    // Literals on both sides.
    row("1 = 1", "", true);
    row("1 = 1.0", "", true);
    row("'a' = 'a'", "", true);
    row("TRUE = TRUE", "", true);
    row("TRUE = FALSE", "", false);
    row("1 = TRUE", "", false); // compiles (TRUE = 1 does not), never equal
    row("5 > 3", "", true);
    row("3 > 5", "", false);
    row("5 between 1 and 10", "", true);
    // IS [NOT] NULL takes any operand.
    row("(a > 1) is null", "", true);
    row("(a > 1) is null", "a=2", false);
    row("5 is null", "", false);
    row("NULL is null", "", true);
    row("'x' is not null", "", true);
    row("a is null is not null", "", true);
    // BETWEEN is (>= AND <=): each bound converts the value to its own type.
    row("a between 5 and 5", "a=5", true);
    row("a between 1 and 2.5", "a=2", true);
    row("a between 1 and 2.5", "a=2.5", false); // "2.5" is not an int: abort
    row("a between 1.0 and 2.5", "a=2.5", true);
    row("a between -5 and -1", "a=-3", true);
    row("a between -1 and -5", "a=-3", false); // negated bounds are not checked
    row("a not between 10 and 1", "a=5", true); // nor are NOT BETWEEN's
    row("a not between 1 and 10", "", false);
    row("a between 1 and b", "a=2|b=3", true);
    row("a between 1 and b", "a=2", false);
    // IN: a property against string literals; NULL when absent, even for NOT IN.
    row("a in ('x')", "", false);
    row("a not in ('x')", "", false);
    row("a not in ('x')", "a=y", true);
    row("a in ('x', 'y', 'z', 'w', 'v', 'u')", "a=u", true);
    row("a in ('x', 'y', 'z', 'w', 'v', 'u')", "a=U", false);
    row("a in ('it''s')", "a=it's", true);
    row("a in ('', 'x')", "a=x", true);
    row("(a) in ('x')", "a=x", true);
    row("+a in ('x')", "a=x", true);
    row("a in ('x', 'x')", "a=x", true);
    row("a not in ('x', 'x')", "a=x", false);
}

void tst_SqlExpression::syntax_data()
{
    matchesColumns();
    // Names: system properties, $ and _, case-sensitive; keywords in any case.
    row("TAGS in ('TagA','TagB') and KEYS = 'k1'", "TAGS=TagA|KEYS=k1", true);
    row("UNIQ_KEY is not null", "UNIQ_KEY=abc", true);
    row("$a = '1'", "$a=1", true);
    row("_x1 = '1'", "_x1=1", true);
    row("A = '1'", "a=1", false);
    row("a IS NOT NULL", "a=1", true);
    row("a Is Not Null", "a=1", true);
    row("a iN ('1') aNd nOt FaLsE", "a=1", true);
    // Comments and blanks.
    row("a = '1' -- trailing\n", "a=1", true);
    row("-- leading\na = '1'", "a=1", true);
    row("/* lead */ a /* mid */ = '1'", "a=1", true);
    row("a\t=\n'1'\r\f", "a=1", true);
    row("a = 'x y'", "a=x y", true);
    row("a = 'h\xc3\xa9llo'", "a=h\xc3\xa9llo", true);
    // The text after a complete expression is ignored (RocketMQ's parser stops there).
    row("a = '1' -- no line end", "a=1", true);
    row("a = '1' b c", "a=1", true);
    row("a = '1')", "a=1", true);
    row("a = 0L", "a=0", true); // "0" is a whole integer token: "L" is left over
    row("a = 007", "a=0", true);
    row("a + 1", "a=1", false); // just "a"
    // A string token is the longest match: without a closing quote, it ends at the last ''.
    row("a = '1' 'x'' y", "a=1", true);
}

void tst_SqlExpression::compileErrors_data()
{
    QTest::addColumn<QByteArray>("expression");
    QTest::addColumn<int>("position"); // -1: not checked
    QTest::addColumn<QString>("fragment");
    // Syntax.
    errorRow("", 0, "found the end");
    errorRow("   ", 3, "found the end");
    errorRow("a =", 3, "found the end");
    errorRow("a = = 1", 4, "found \"=\"");
    errorRow("a == 1", 3, "found \"=\"");
    errorRow("a != 1", 2, "unexpected character '!'");
    errorRow("(a = 1", 6, "')'");
    errorRow("a in ('x'", 9, "',' or ')'");
    errorRow("a in 'x'", 5, "'(' after IN");
    errorRow("a in ()", 6, "string literal");
    errorRow("a in (1)", 6, "string literal");
    errorRow("a = 'x", 4, "unterminated string");
    errorRow("'unterminated", 0, "unterminated string");
    errorRow("a between 1", 11, "AND");
    errorRow("a between 1 and", 15, "found the end");
    errorRow("a between 10,20", 12, "AND");
    errorRow("a not x", 6, "BETWEEN or IN");
    errorRow("a is x", 5, "NULL or NOT NULL");
    errorRow("a is not x", 9, "NULL after IS NOT");
    errorRow("and", 0, "found \"and\"");
    errorRow("a and", 5, "found the end");
    errorRow("a or or b", 5, "found \"or\"");
    errorRow("a @ 1", 2, "'@'");
    errorRow("a = 1 AND @", 10, "'@'");
    errorRow("a = 1 #", 6, "'#'"); // the token ending the expression must be valid
    errorRow("a = 1 /* x", 6, "unterminated /*");
    errorRow("a = 1 'x", 6, "unterminated string");
    errorRow("a = 'x''", 7, "unterminated string"); // 'x' then a lone quote
    errorRow("a = 'x'' y", 7, "unterminated string");
    errorRow("a\v= 1", 1, "byte 0x0b");
    errorRow("a = 1 \xc3\xa9", 6, "byte 0xc3");
    errorRow("a.b = 1", 1, "'.'");
    // Not booleans where one is needed.
    errorRow("5", 0, "not a boolean");
    errorRow("'x'", 0, "not a boolean");
    errorRow("-a", 0, "not a boolean");
    errorRow("a = 1 and 5", 10, "not a boolean");
    errorRow("NOT 5", 4, "not a boolean");
    errorRow("-- only a comment", 0, "not a boolean"); // no line end: two minus signs
    // What > >= < <= BETWEEN compare.
    errorRow("a > 'x'", 4, "only numbers");
    errorRow("'x' < a", 0, "only numbers");
    errorRow("a > TRUE", 4, "only numbers");
    errorRow("a >= NULL", 5, "only numbers");
    errorRow("a > (b > 1)", 5, "boolean expression");
    errorRow("a > 1 > 0", 0, "boolean expression");
    errorRow("NOT a > 1", 0, "boolean expression");
    errorRow("a between 'x' and 'y'", 10, "only numbers");
    errorRow("a between TRUE and FALSE", 10, "only numbers");
    errorRow("a not between 'x' and 1", 14, "only numbers");
    errorRow("a between 10 and 0", 10, "lower bound");
    errorRow("a between 1.5 and 1", 10, "lower bound");
    errorRow("a between NULL and 1", 2, "NULL");
    // What = and <> compare; what IN takes.
    errorRow("a = NULL", 4, "use IS NULL");
    errorRow("NULL = a", 0, "use IS NULL");
    errorRow("a <> NULL", 5, "use IS NULL");
    errorRow("TRUE = 1", 7, "cannot be compared");
    errorRow("FALSE = 'x'", 8, "cannot be compared");
    errorRow("'x' in ('x')", 0, "IN needs a property");
    errorRow("a in ('x') in ('y')", 0, "IN needs a property");
    errorRow("NOT a in ('x')", 0, "IN needs a property");
    // Literals out of Java's range; RocketMQ refuses a decimal literal of 0.
    errorRow("a > 9223372036854775808", 4, "does not fit");
    errorRow("a > 0.0", 4, "positive doubles");
    errorRow("a > 0e5", 4, "positive doubles");
    errorRow("a > 1e-400", 4, "positive doubles");
    errorRow("a > 1e400", 4, "positive doubles");
    QTest::addRow("400-digit decimal")
        << "a > " + QByteArray(400, '1') + ".5" << 4 << QStringLiteral("positive doubles");
}

void tst_SqlExpression::compileErrors()
{
    QFETCH(QByteArray, expression);
    QFETCH(int, position);
    QFETCH(QString, fragment);
    const auto r = SqlExpression::compile(expression);
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code(), Status::Code::InvalidArgument);
    const QString message = r.error().message();
    QVERIFY2(message.contains(fragment), qPrintable(message));
    if (position >= 0)
        QVERIFY2(
            message.endsWith(QStringLiteral(" at position %1").arg(position)), qPrintable(message));
}

void tst_SqlExpression::propertiesFormat_data()
{
    QTest::addColumn<QByteArray>("expression");
    QTest::addColumn<QByteArray>("properties");
    QTest::addColumn<bool>("expected");
    const auto add
        = [](const char *name, const char *expression, QByteArray properties, bool expected) {
              QTest::newRow(name) << QByteArray(expression) << properties << expected;
          };
    const QByteArray repeatedName("a\x01"
                                  "1\x02"
                                  "a\x01"
                                  "2\x02");
    add("repeated name: last wins", "a = '2'", repeatedName, true);
    add("repeated name: first lost", "a = '1'", repeatedName, false);
    add("no trailing separator", "b = '2'",
        QByteArray("a\x01"
                   "1\x02"
                   "b\x01"
                   "2"),
        true);
    add("empty value is absent", "a is null", QByteArray("a\x01\x02"), true);
    add("empty value does not override", "a = '1'",
        QByteArray("a\x01"
                   "1\x02"
                   "a\x01\x02"),
        true);
    add("empty name", "a is null",
        QByteArray("\x01"
                   "a\x02"),
        true);
    add("pair without separator", "ab is null and a = '1'",
        QByteArray("ab\x02"
                   "a\x01"
                   "1"),
        true);
    add("value holds 0x01", "a = 'x\x01y'", QByteArray("a\x01x\x01y\x02"), true);
    add("value holds a name", "a is null and x is not null",
        QByteArray("x\x01"
                   "a\x01"
                   "1\x02"),
        true);
    add("name is a prefix", "a is null and ab = '1'",
        QByteArray("ab\x01"
                   "1\x02"),
        true);
    add("value with spaces and quotes", "a = 'it''s a b'", QByteArray("a\x01it's a b\x02"), true);
    add("empty string", "a is null", QByteArray(""), true);
    add("null view", "a is null", QByteArray(), true);
    add("only separators", "NOT (a is not null)", QByteArray("\x02\x02\x01\x02"), true);
}

void tst_SqlExpression::limits()
{
    const auto fails = [](const QByteArray &text, const QString &fragment) {
        const auto r = SqlExpression::compile(text);
        return !r.has_value() && r.error().message().contains(fragment);
    };
    // Parentheses and unary operators: 256 levels of the parser's recursion.
    QVERIFY(fails(QByteArray(300, '(') + "a = 1" + QByteArray(300, ')'), QStringLiteral("nested")));
    QVERIFY(fails(QByteArray(300, '(') + "a = 1", QStringLiteral("at position 256")));
    QVERIFY(fails(repeated("NOT ", 300) + "a", QStringLiteral("nested")));
    QVERIFY(fails("a = " + repeated("- ", 300) + "1", QStringLiteral("nested")));
    auto deep = compiled(QByteArray(200, '(') + "a = '1'" + QByteArray(200, ')'));
    QVERIFY(deep && deep->matches(props("a=1")));
    deep = compiled(repeated("NOT ", 201) + "a");
    QVERIFY(deep && deep->matches(props("a=1")) && !deep->matches(""));

    // Operators chained without parentheses still nest the tree: bounded too.
    QVERIFY(fails("a = '1'" + repeated(" = TRUE", 600), QStringLiteral("operators nested")));
    QVERIFY(fails("a is null" + repeated(" is null", 600), QStringLiteral("operators nested")));
    deep = compiled("a = '1'" + repeated(" = TRUE", 400));
    QVERIFY(deep && deep->matches(props("a=1")));
    // ... but AND/OR chains are flat, whatever their length.
    QByteArray chain = "a = 'v0'";
    for (int i = 1; i < 3000; ++i)
        chain += " OR a = 'v" + QByteArray::number(i) + "'";
    deep = compiled(chain);
    QVERIFY(deep && deep->matches(props("a=v2999")) && !deep->matches(props("a=v3000")));

    // Text size.
    const QByteArray atLimit = "a = '" + QByteArray(SqlExpression::kMaxTextSize - 6, 'x') + "'";
    QCOMPARE(atLimit.size(), SqlExpression::kMaxTextSize);
    QVERIFY(compiled(atLimit));
    QVERIFY(fails(atLimit + " ", QStringLiteral("65537 bytes")));
}

void tst_SqlExpression::noAllocation()
{
    const char *expressions[]
        = {"a = 5 AND b > 2.5 AND c IN ('x', 'y', 'z', 'w', 'v') AND d IS NOT NULL",
            "a between 1 and 10 OR b not between 1.5 and 2 OR c <> 'q' OR NOT e",
            "a > b AND (c = TRUE OR c = d) AND -a IS NULL AND f > 1", "x = 5 OR y = 1",
            "TAGS IN ('TagA')"};
    std::vector<std::shared_ptr<const SqlExpression>> all;
    for (const char *e : expressions) {
        all.push_back(compiled(e));
        QVERIFY(all.back());
    }
    const QByteArray digits = "0." + QByteArray(2000, '0') + "1e2000";
    const QByteArray properties[] = {props("a=5|b=3|c=z|d=1|TAGS=TagA"),
        props("a=7|b= 0x1p1 |c=q|e=1"), props("a=20|b=" + digits + "|c=true|d=x|f=2"),
        props("x=abc|y=1"), props("a=NaN|b=1e999|f=2")};
    int hits = 0;
    t_allocations = 0;
    t_counting = true;
    for (int round = 0; round < 100; ++round) {
        for (const auto &e : all) {
            for (const QByteArray &p : properties)
                hits += int(e->matches(p));
        }
    }
    t_counting = false;
    QCOMPARE(t_allocations, 0);
    QVERIFY(hits > 0);
    // The same calls did evaluate something.
    QVERIFY(all[0]->matches(properties[0]));
    QVERIFY(all[1]->matches(properties[1]));
    QVERIFY(!all[3]->matches(properties[3])); // x = 5 aborts on "abc"
    QVERIFY(all[4]->matches(properties[0]));
}

void tst_SqlExpression::concurrentMatches()
{
    const auto expr = compiled("(a between 10 and 20 OR b IN ('x', 'y')) AND c IS NULL");
    QVERIFY(expr);
    const QByteArray yes = props("a=15"), no = props("a=15|c=1"), alsoYes = props("a=1|b=y");
    std::atomic<int> matched {0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 20000; ++i)
                matched += int(expr->matches(yes)) + int(expr->matches(no))
                    + int(expr->matches(alsoYes));
        });
    }
    for (auto &t : threads)
        t.join();
    QCOMPARE(matched.load(), 4 * 20000 * 2);
}

QTEST_APPLESS_MAIN(tst_SqlExpression)
#include "tst_sqlexpression.moc"
