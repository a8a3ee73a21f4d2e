// Tolerant JSON reader and compact writer (protocol.md §3.9, §7.6): real config files of a
// RocketMQ 4.9.7 store, fastjson bodies from the capture, and hand-written edge cases.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/json.h"
#include "goldenvectors.h"

#include <QJsonArray>
#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

JsonValue mustParse(QByteArrayView text)
{
    auto r = parseJson(text);
    if (!r.has_value()) {
        qWarning() << r.error().toString();
        return JsonValue();
    }
    return std::move(r).value();
}

} // namespace

class tst_Json : public QObject
{
    Q_OBJECT

private slots:
    void configFiles()
    {
        const JsonValue topics = mustParse(
            qrocket::testing::readVectorFile(QStringLiteral("store/config/topics.json")));
        QVERIFY(topics.isObject());
        QCOMPARE(topics["dataVersion"]["counter"].toInteger(), std::int64_t(14));
        const JsonValue &table = topics["topicConfigTable"];
        QVERIFY(table.members().size() > 10);
        QCOMPARE(table["TopicTest"]["writeQueueNums"].toInteger(), std::int64_t(4));
        QCOMPARE(table["TopicTest"]["topicFilterType"].toString(), QByteArray("SINGLE_TAG"));
        QCOMPARE(table["SCHEDULE_TOPIC_XXXX"]["readQueueNums"].toInteger(), std::int64_t(18));
        QCOMPARE(table["TopicTest"]["order"].toBool(true), false);

        const JsonValue offsets = mustParse(
            qrocket::testing::readVectorFile(QStringLiteral("store/config/consumerOffset.json")));
        const JsonValue &queues
            = offsets["offsetTable"]["TopicTest@please_rename_unique_group_name_4"];
        QCOMPARE(queues.members().size(), std::size_t(4));
        QCOMPARE(queues.members()[0].first.type(), JsonValue::Type::Integer); // unquoted key
        QCOMPARE(queues["0"].toInteger(), std::int64_t(250));
        QCOMPARE(queues["3"].toInteger(), std::int64_t(250));
        QCOMPARE(offsets["offsetTable"]
                        ["%RETRY%GID_aliOnsRT_mx2s0a6ec7753a@GID_aliOnsRT_mx2s0a6ec7753a"]["0"]
                            .toInteger(),
            std::int64_t(-1));

        const JsonValue delay = mustParse(
            qrocket::testing::readVectorFile(QStringLiteral("store/config/delayOffset.json")));
        QCOMPARE(delay["offsetTable"]["3"].toInteger(), std::int64_t(110));

        const JsonValue groups = mustParse(qrocket::testing::readVectorFile(
            QStringLiteral("store/config/subscriptionGroup.json")));
        QVERIFY(groups["subscriptionGroupTable"].isObject());
        QVERIFY(groups["subscriptionGroupTable"].members().size() > 3);

        const JsonValue kv = mustParse(
            qrocket::testing::readVectorFile(QStringLiteral("store/namesrv/kvConfig.json")));
        QCOMPARE(kv["configTable"]["VEC_NAMESPACE"]["vecKey"].toString(), QByteArray("vecValue"));
    }

    void fastjsonBodies()
    {
        int clusterInfos = 0;
        int mqKeyed = 0;
        int routes = 0;
        int others = 0;
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            if (f.body.isEmpty() || (f.body[0] != '{' && f.body[0] != '['))
                continue;
            const auto parsed = parseJson(f.body);
            QVERIFY2(parsed.has_value(),
                qPrintable(
                    QStringLiteral("frame %1: %2").arg(f.id).arg(parsed.status().toString())));
            const JsonValue &v = *parsed;
            QVERIFY(v.isObject());
            const int code = f.kind == QLatin1String("response") ? f.requestCode : f.code;
            if (code == 106) {
                const JsonValue &addrs = v["brokerAddrTable"]["broker-a"]["brokerAddrs"];
                QCOMPARE(addrs.members()[0].first.type(), JsonValue::Type::Integer);
                QCOMPARE(addrs["0"].toString(), QByteArray("127.0.0.1:20911"));
                QCOMPARE(v["clusterAddrTable"]["DefaultCluster"].items()[0].toString(),
                    QByteArray("broker-a"));
                ++clusterInfos;
            } else if (code == 202 || code == 208) {
                const auto &table = v["offsetTable"].members();
                QVERIFY(!table.empty());
                for (const auto &[key, value] : table) {
                    QVERIFY(key.isObject());
                    QVERIFY(key["topic"].toString().endsWith("please_rename_unique_group_name_4")
                        || key["topic"].toString() == "TopicTest");
                    QCOMPARE(key["brokerName"].toString(), QByteArray("broker-a"));
                    QVERIFY(key["queueId"].toInteger(-1) >= 0);
                    QVERIFY(value.isObject());
                }
                if (code == 208)
                    QVERIFY(v["consumeTps"].toDouble() > 16.0);
                // Written back fastjson-style, and read again to the same tree.
                const QByteArray again = toJson(v);
                QVERIFY(again.contains("{{\"brokerName\":\"broker-a\""));
                QCOMPARE(toJson(mustParse(again)), again);
                ++mqKeyed;
            } else if (code == 105) {
                const JsonValue &bd = v["brokerDatas"].items()[0];
                QCOMPARE(bd["brokerAddrs"]["0"].toString(), QByteArray("127.0.0.1:20911"));
                QVERIFY(v["queueDatas"].items().size() >= 1);
                ++routes;
            } else {
                ++others;
            }
            // Standard JSON bodies compare equal to Qt's reading of them.
            const QJsonDocument qt = QJsonDocument::fromJson(f.body);
            if (!qt.isNull()) {
                const QByteArray ours = toJson(v);
                QCOMPARE(QJsonDocument::fromJson(ours), qt);
            }
        }
        QCOMPARE(clusterInfos, 4);
        QCOMPARE(mqKeyed, 2);
        QVERIFY(routes >= 20);
        QVERIFY(others >= 10);
    }

    void tolerantForms_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("compact");
        QTest::addRow("standard") << QByteArray(
            " {\"a\" : [1, -2, 3.5, true, false, null, \"s\"]} ")
                                  << QByteArray("{\"a\":[1,-2,3.5,true,false,null,\"s\"]}");
        QTest::addRow("int-keys") << QByteArray("{0:\"x\",12:5}")
                                  << QByteArray("{\"0\":\"x\",\"12\":5}");
        QTest::addRow("object-key") << QByteArray("{{\"q\":1}:2}") << QByteArray("{{\"q\":1}:2}");
        QTest::addRow("single-quotes")
            << QByteArray("{'a':'b\\'c'}") << QByteArray("{\"a\":\"b'c\"}");
        QTest::addRow("unquoted-name")
            << QByteArray("{abc_1:true}") << QByteArray("{\"abc_1\":true}");
        QTest::addRow("trailing-commas")
            << QByteArray("{\"a\":[1,2,],}") << QByteArray("{\"a\":[1,2]}");
        QTest::addRow("tabs-newlines")
            << QByteArray("{\n\t\"a\":{\r\n\t\t\"b\":1\n\t}\n}") << QByteArray("{\"a\":{\"b\":1}}");
        QTest::addRow("escapes") << QByteArray("[\"\\u0001\\n\\ud83d\\ude00\\/\"]")
                                 << QByteArray("[\"\\u0001\\n\xf0\x9f\x98\x80/\"]");
        QTest::addRow("big-int") << QByteArray("[9223372036854775807,-9223372036854775808]")
                                 << QByteArray("[9223372036854775807,-9223372036854775808]");
        QTest::addRow("double") << QByteArray("[0.0,16.666666666666668,1e-7]")
                                << QByteArray("[0.0,16.666666666666668,1e-07]");
        QTest::addRow("empty") << QByteArray("{\"a\":{},\"b\":[]}")
                               << QByteArray("{\"a\":{},\"b\":[]}");
        QTest::addRow("scalar") << QByteArray("\"x\"") << QByteArray("\"x\"");
        QTest::addRow("utf8") << QByteArray("{\"k\":\"h\xc3\xa9\"}")
                              << QByteArray("{\"k\":\"h\xc3\xa9\"}");
    }

    void tolerantForms()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, compact);
        const auto v = parseJson(text);
        QVERIFY2(v.has_value(), qPrintable(v.status().toString()));
        QCOMPARE(toJson(*v), compact);
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addRow("empty") << QByteArray("");
        QTest::addRow("spaces") << QByteArray("   ");
        QTest::addRow("unterminated-object") << QByteArray("{\"a\":1");
        QTest::addRow("unterminated-array") << QByteArray("[1,2");
        QTest::addRow("unterminated-string") << QByteArray("[\"abc");
        QTest::addRow("missing-colon") << QByteArray("{\"a\" 1}");
        QTest::addRow("missing-comma") << QByteArray("[1 2]");
        QTest::addRow("bad-literal") << QByteArray("[tru]");
        QTest::addRow("literal-prefix") << QByteArray("[nullx]");
        QTest::addRow("bad-escape") << QByteArray("[\"\\q\"]");
        QTest::addRow("bad-number") << QByteArray("[-]");
        QTest::addRow("bad-fraction") << QByteArray("[1.]");
        QTest::addRow("trailing") << QByteArray("{} x");
        QTest::addRow("two-values") << QByteArray("1 2");
        QTest::addRow("deep") << QByteArray(200, '[') + QByteArray(200, ']');
        QTest::addRow("huge-number") << QByteArray("[1e400]");
        QTest::addRow("lone-comma") << QByteArray("[,]");
        QTest::addRow("colon-key") << QByteArray("{:1}");
    }

    void errors()
    {
        QFETCH(QByteArray, text);
        const auto v = parseJson(text);
        QVERIFY(!v.has_value());
        QVERIFY(v.error().message().contains(QLatin1String("at byte")));
    }

    void lenientAccess()
    {
        const JsonValue v = mustParse("{\"i\":\"42\",\"d\":5.0,\"b\":\"TRUE\",\"n\":7,\"s\":\"x\","
                                      "\"f\":2.5,\"l\":1796013402055}");
        QCOMPARE(v["i"].toInteger(), std::int64_t(42));
        QCOMPARE(v["d"].toInteger(), std::int64_t(5));
        QCOMPARE(v["d"].toString(), QByteArray("5"));
        QCOMPARE(v["f"].toString(), QByteArray("2.5"));
        QCOMPARE(v["b"].toBool(), true);
        QCOMPARE(v["n"].toString(), QByteArray("7"));
        QCOMPARE(v["n"].toBool(), true);
        QCOMPARE(v["s"].toInteger(-1), std::int64_t(-1));
        QCOMPARE(v["s"].toBool(true), true);
        QCOMPARE(v["missing"].toInteger(9), std::int64_t(9));
        QVERIFY(v["missing"].isNull());
        QVERIFY(!v.find("missing"));
        QCOMPARE(v["l"].toInteger(), std::int64_t(1796013402055LL));
        QCOMPARE(v["i"].toDouble(), 42.0);
        // Duplicate keys: the last one wins.
        QCOMPARE(mustParse("{\"a\":1,\"a\":2}")["a"].toInteger(), std::int64_t(2));
        // Integer and string keys found by their text.
        QCOMPARE(mustParse("{7:\"x\"}")["7"].toString(), QByteArray("x"));
        QVERIFY(!mustParse("{7:\"x\"}").find("07"));
    }

    void buildAndWrite()
    {
        JsonValue o = JsonValue::object();
        o.insert("b", JsonValue::fromInteger(1));
        o.insert("a", JsonValue::fromString("x\"y"));
        o.insert("b", JsonValue::fromInteger(2)); // replaces
        JsonValue arr = JsonValue::array();
        arr.append(JsonValue::fromBool(true));
        arr.append(JsonValue());
        arr.append(JsonValue::fromDouble(0.5));
        o.insert("arr", arr);
        JsonValue copy = o; // copies share until written
        copy.insert("c", JsonValue::fromInteger(3));
        QCOMPARE(toJson(o), QByteArray("{\"b\":2,\"a\":\"x\\\"y\",\"arr\":[true,null,0.5]}"));
        QCOMPARE(
            toJson(copy), QByteArray("{\"b\":2,\"a\":\"x\\\"y\",\"arr\":[true,null,0.5],\"c\":3}"));
        JsonValue arr2 = arr;
        arr2.append(JsonValue::fromInteger(1));
        QCOMPARE(arr.items().size(), std::size_t(3));
        QCOMPARE(arr2.items().size(), std::size_t(4));

        JsonWriter w;
        w.beginObject()
            .key("offsetTable")
            .beginObject()
            .rawKey("{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}")
            .beginObject()
            .key("maxOffset")
            .value(std::int64_t(5))
            .endObject()
            .endObject()
            .key("list")
            .beginArray()
            .value("a")
            .value(1)
            .value(false)
            .null()
            .raw("{\"x\":1}")
            .endArray()
            .key("tps")
            .value(0.0)
            .endObject();
        QCOMPARE(w.data(),
            QByteArray("{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:{"
                       "\"maxOffset\":5}},"
                       "\"list\":[\"a\",1,false,null,{\"x\":1}],\"tps\":0.0}"));
        const JsonValue back = mustParse(w.data());
        QCOMPARE(back["offsetTable"].members()[0].first["topic"].toString(), QByteArray("T"));
        QCOMPARE(back["offsetTable"].members()[0].second["maxOffset"].toInteger(), std::int64_t(5));
    }
};

QTEST_APPLESS_MAIN(tst_Json)
#include "tst_json.moc"
