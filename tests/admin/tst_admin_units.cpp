// Units of qrocket-admin: the Java-style formatter its tables are printed with, the helpers
// beside it, and the ConsumeStatsList parser (GET_BROKER_CONSUME_STATS) the Admin gained for it.

#include "clientlib/client/admin/adminbodies.h"
#include "console/admin/output.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::admincli;

class TestAdminUnits : public QObject
{
    Q_OBJECT

private slots:
    void formatJava_data();
    void formatJava();
    void helpers();
    void consumeStatsList();
    void consumeStatsListMalformed_data();
    void consumeStatsListMalformed();
};

void TestAdminUnits::formatJava_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("expected");
    // Each format is applied to {"ab", 42, 3.14159}.
    QTest::newRow("left") << QStringLiteral("%-5s|") << QStringLiteral("ab   |");
    QTest::newRow("right") << QStringLiteral("%5s|") << QStringLiteral("   ab|");
    QTest::newRow("plain") << QStringLiteral("%s %d") << QStringLiteral("ab 42");
    QTest::newRow("overflow") << QStringLiteral("%-1s|") << QStringLiteral("ab|");
    QTest::newRow("zero pad") << QStringLiteral("%s %04d") << QStringLiteral("ab 0042");
    QTest::newRow("fixed") << QStringLiteral("%s %d %.2f") << QStringLiteral("ab 42 3.14");
    QTest::newRow("wide fixed") << QStringLiteral("%s %d %9.2f")
                                << QStringLiteral("ab 42      3.14");
    QTest::newRow("newline and percent") << QStringLiteral("%s%%%n") << QStringLiteral("ab%\n");
    QTest::newRow("missing argument")
        << QStringLiteral("%s %d %s %-3s|") << QStringLiteral("ab 42 3.14159    |");
}

void TestAdminUnits::formatJava()
{
    QFETCH(QString, format);
    QFETCH(QString, expected);
    const QByteArray f = format.toUtf8();
    QCOMPARE(admincli::formatJava(f.constData(), {Cell("ab"), Cell(42), Cell(3.14159)}), expected);
}

void TestAdminUnits::helpers()
{
    QCOMPARE(front(QStringLiteral("abcdef"), 3), QStringLiteral("abc"));
    QCOMPARE(front(QStringLiteral("ab"), 3), QStringLiteral("ab"));
    QCOMPARE(permText(6), QStringLiteral("RW-"));
    QCOMPARE(permText(4), QStringLiteral("R--"));
    QCOMPARE(permText(2), QStringLiteral("-W-"));
    QCOMPARE(javaMap({{"a", "1"}, {"b", "2"}}), QStringLiteral("{a=1, b=2}"));
    QCOMPARE(javaMap({}), QStringLiteral("{}"));
    // A cell keeps its number for --json while printing its text.
    const Cell c(QStringLiteral("0.50(0,0ms)"), 0.5);
    QCOMPARE(c.json.toDouble(), 0.5);
    QCOMPARE(admincli::formatJava("%19s", {c}), QStringLiteral("        0.50(0,0ms)"));
}

void TestAdminUnits::consumeStatsList()
{
    // As RocketMQ 4.9.7's broker writes it (fastjson: MessageQueue object keys).
    const QByteArray body
        = R"({"brokerAddr":"127.0.0.1:20911","consumeStatsList":[{"G1":[{"consumeTps":1.5,
        "offsetTable":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"brokerOffset":10,
        "consumerOffset":7,"lastTimestamp":1700000000000}}}]},{"G2":[]}],"totalDiff":3})";
    auto list = client::admin::ConsumeStatsList::fromJson(body);
    QVERIFY2(list.has_value(), qPrintable(list.status().toString()));
    QCOMPARE(list->brokerAddr, QByteArray("127.0.0.1:20911"));
    QCOMPARE(list->totalDiff, 3);
    QCOMPARE(list->groups.size(), std::size_t(2));
    QCOMPARE(list->groups[0].first, QByteArray("G1"));
    QCOMPARE(list->groups[0].second.size(), std::size_t(1));
    const auto &stats = list->groups[0].second[0];
    QCOMPARE(stats.consumeTps, 1.5);
    const client::admin::MessageQueue mq {"T", "broker-a", 1};
    QCOMPARE(stats.offsetTable.at(mq).lag(), 3);
    QCOMPARE(list->groups[1].second.size(), std::size_t(0));
    auto empty = client::admin::ConsumeStatsList::fromJson(R"({"brokerAddr":"x","totalDiff":0})");
    QVERIFY(empty.has_value());
    QVERIFY(empty->groups.empty());
}

void TestAdminUnits::consumeStatsListMalformed_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::newRow("not json") << QByteArray("consume stats");
    QTest::newRow("list not array") << QByteArray(R"({"consumeStatsList":{}})");
    QTest::newRow("entry not object") << QByteArray(R"({"consumeStatsList":[1]})");
    QTest::newRow("stats not array") << QByteArray(R"({"consumeStatsList":[{"G":{}}]})");
    QTest::newRow("stats not object") << QByteArray(R"({"consumeStatsList":[{"G":[7]}]})");
    QTest::newRow("bad queue key")
        << QByteArray(R"({"consumeStatsList":[{"G":[{"offsetTable":{"x":{}}}]}]})");
}

void TestAdminUnits::consumeStatsListMalformed()
{
    QFETCH(QByteArray, body);
    auto list = client::admin::ConsumeStatsList::fromJson(body);
    QVERIFY(!list.has_value());
    QCOMPARE(list.error().code(), Status::Code::InvalidArgument);
}

QTEST_GUILESS_MAIN(TestAdminUnits)
#include "tst_admin_units.moc"
