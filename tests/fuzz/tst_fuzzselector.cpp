// Bounded, seeded mutation fuzzing of the SQL92 selector (broker/filter/sqlexpression.h), whose
// text comes from the network (PULL_MESSAGE, HEART_BEAT, CHECK_CLIENT_CONFIG): mutants of valid
// selectors and of stored properties strings must compile or fail cleanly, match without
// crashing, hanging or tripping a sanitizer, and give the same answers when compiled again.
// QROCKET_FUZZ_ITERATIONS scales the loop (default 200000 selector mutants); QROCKET_FUZZ_SEED
// picks another seed.

#include "broker/filter/sqlexpression.h"
#include "mutator.h"

#include <QElapsedTimer>
#include <QTest>

#include <vector>

using qrocket::broker::filter::SqlExpression;
using qrocket::fuzz::Mutator;

namespace {

constexpr const char *kSqlTokens[] = {" AND ", " OR ", " NOT ", "(", ")", "'", "''", " BETWEEN ",
    " IN (", " IS NULL", " IS NOT NULL", "=", "<>", ">=", "<", "1e999", "-", "+", "0.0", "1L",
    "9223372036854775808", "2147483648", "/*", "*/", "--", "\n", ",", "TRUE", "NULL", "a", "$x_1",
    "\x01", "\x02", "\xff"};

const std::vector<QByteArray> kSelectors = {
    "a > 5",
    "a BETWEEN 0 AND 3",
    "a NOT BETWEEN -1 AND 2.5",
    "TAGS IN ('TagA', 'TagB') AND a >= 10",
    "TAGS NOT IN ('x')",
    "b IS NULL OR b = 'it''s'",
    "b IS NOT NULL AND NOT (c = 'x' OR d <> 'y')",
    "(a > 1 AND a < 9) OR (a = 20)",
    "a = 1.5E3 OR a < .5 OR a > 5.",
    "x = TRUE OR y = FALSE",
    "NOT a",
    "a /* comment */ = 3 -- end\n",
    "KEYS = 'k1' AND UNIQ_KEY IS NOT NULL",
    "a = 2147483648 OR a = 9223372036854775807L",
    "$price >= 100 AND _region = 'eu'",
    "a > > 2",
    "a IN ()",
    "a > 'x'",
    "((((a = 1))))",
};

const std::vector<QByteArray> kProperties = {
    QByteArray(),
    "a\x01"
    "5\x02",
    "a\x01"
    "11\x02TAGS\x01TagA\x02",
    "TAGS\x01TagB\x02"
    "a\x01"
    "2.5\x02"
    "b\x01it's\x02",
    "a\x01x\x02"
    "b\x01\x02"
    "c\x01x",
    "KEYS\x01k1\x02UNIQ_KEY\x01"
    "0A0B\x02x\x01true\x02y\x01"
    "false",
    "$price\x01"
    "100\x02_region\x01"
    "eu\x02"
    "a\x01"
    "20\x02"
    "a\x01"
    "3",
    "a\x01-2147483648\x02"
    "d\x01y",
};

} // namespace

class tst_FuzzSelector : public QObject
{
    Q_OBJECT

private:
    int m_iterations = 0;
    quint32 m_seed = 0;

    /// Compiles `text` twice and matches `properties` with both: the outcomes must agree.
    static void check(const QByteArray &text, const std::vector<QByteArray> &properties)
    {
        const auto first = SqlExpression::compile(text);
        const auto second = SqlExpression::compile(text);
        QCOMPARE(first.has_value(), second.has_value());
        if (!first) {
            QVERIFY(!first.error().message().isEmpty());
            return;
        }
        for (const QByteArray &p : properties)
            QCOMPARE((*first)->matches(p), (*second)->matches(p));
    }

private slots:
    void initTestCase()
    {
        const auto budget = qrocket::fuzz::FuzzBudget::fromEnvironment(200000, 20261201);
        m_iterations = budget.iterations;
        m_seed = budget.seed;
        qInfo("seed %u, %d selector mutants", m_seed, m_iterations);
    }

    void seedsCompile()
    {
        int compiled = 0;
        for (const QByteArray &s : kSelectors) {
            check(s, kProperties);
            compiled += SqlExpression::compile(s).has_value();
        }
        // All but the three deliberately bad ones ("a > > 2", "a IN ()", "a > 'x'").
        QCOMPARE(compiled, int(kSelectors.size()) - 3);
    }

    void mutatedSelectors()
    {
        Mutator mut(m_seed, kSqlTokens);
        QElapsedTimer timer;
        timer.start();
        int compiled = 0;
        for (int i = 0; i < m_iterations; ++i) {
            const QByteArray text
                = mut.mutate(kSelectors[mut.bounded(quint32(kSelectors.size()))], kSelectors);
            const auto e = SqlExpression::compile(text);
            if (!e)
                continue;
            ++compiled;
            for (const QByteArray &p : kProperties)
                (void)(*e)->matches(p);
        }
        qInfo("%d selector mutants (%d compiled) in %lld ms", m_iterations, compiled,
            timer.elapsed());
        QVERIFY(compiled > m_iterations / 50); // the mutants still reach the evaluator
    }

    void mutatedProperties()
    {
        Mutator mut(m_seed + 1, kSqlTokens);
        std::vector<std::shared_ptr<const SqlExpression>> compiled;
        for (const QByteArray &s : kSelectors)
            if (auto e = SqlExpression::compile(s))
                compiled.push_back(*e);
        for (int i = 0; i < m_iterations / 4; ++i) {
            const QByteArray p
                = mut.mutate(kProperties[mut.bounded(quint32(kProperties.size()))], kProperties);
            for (const auto &e : compiled)
                (void)e->matches(p);
        }
    }

    void determinism()
    {
        Mutator mut(m_seed + 2, kSqlTokens);
        for (int i = 0; i < m_iterations / 100; ++i)
            check(mut.mutate(kSelectors[mut.bounded(quint32(kSelectors.size()))], kSelectors),
                kProperties);
    }

    void hostileShapes()
    {
        // Deep nesting, long chains and oversized text: refused or evaluated, never a crash.
        check(QByteArray(100000, '('), kProperties);
        check(QByteArray(5000, '(') + "a = 1" + QByteArray(5000, ')'), kProperties);
        check(QByteArray(200, '(') + "a = 1" + QByteArray(200, ')'), kProperties);
        QByteArray chain = "a = 0";
        for (int i = 1; i < 3000; ++i)
            chain += " OR a = " + QByteArray::number(i);
        check(chain, kProperties);
        QByteArray nots;
        for (int i = 0; i < 10000; ++i)
            nots += "NOT ";
        check(nots + "a", kProperties);
        check(QByteArray(SqlExpression::kMaxTextSize + 1, 'a'), kProperties);
        check("a IN ('" + QByteArray(60000, 'x') + "')", kProperties);
    }
};

QTEST_APPLESS_MAIN(tst_FuzzSelector)
#include "tst_fuzzselector.moc"
