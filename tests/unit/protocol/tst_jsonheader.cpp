// JSON remoting headers: the Java-like layout the codec writes, random strings, the quirks and
// scalars it reads (fastjson's and ali-ons' forms), string scanning and quoting, duplicate and
// null extFields, linear cost on huge headers, and Java's Long.parseLong. Split from
// tst_framecodec.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/jsontext.h"
#include "clientlib/protocol/sharedbytes.h"
#include "framecodectestutil.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;
using namespace framecodectest;

class tst_JsonHeader : public QObject
{
    Q_OBJECT

private slots:
    void jsonHeaderLayoutIsJavaLike()
    {
        RemotingCommand cmd = RemotingCommand::createRequest(310);
        cmd.opaque = 7;
        cmd.version = 407;
        cmd.setExt(QByteArrayLiteral("a"), QByteArrayLiteral("G"));
        cmd.setExt(QByteArrayLiteral("i"), QByteArrayLiteral("KEYS\x01k\x02TAGS\x01t"));
        QCOMPARE(encodeJsonHeader(cmd),
            QByteArrayLiteral("{\"code\":310,\"extFields\":{\"a\":\"G\",\"i\":"
                              "\"KEYS\\u0001k\\u0002TAGS\\u0001t\"},\"flag\":0,\"language\":"
                              "\"JAVA\",\"opaque\":7,\"serializeTypeCurrentRPC\":\"JSON\","
                              "\"version\":407}"));
        RemotingCommand resp
            = RemotingCommand::createResponse(cmd, 17, QByteArrayLiteral("a\"b\n"));
        QCOMPARE(encodeJsonHeader(resp),
            QByteArrayLiteral("{\"code\":17,\"flag\":1,\"language\":\"JAVA\",\"opaque\":7,"
                              "\"remark\":\"a\\\"b\\n\",\"serializeTypeCurrentRPC\":\"JSON\","
                              "\"version\":407}"));
    }

    void randomStringsRoundTrip()
    {
        // Keys and values of every length around the encoder's 4/8/16-byte word paths, with and
        // without bytes to escape: the header is what a byte-by-byte escaper writes, and it
        // decodes back to the same command.
        QRandomGenerator rng(20261130);
        for (int round = 0; round < 3000; ++round) {
            RemotingCommand cmd = RemotingCommand::createRequest(310);
            cmd.opaque = static_cast<int>(rng.generate());
            QByteArray ext;
            const int fields = 1 + static_cast<int>(rng.bounded(6));
            for (int f = 0; f < fields; ++f) {
                const QByteArray key = QByteArray::number(f) + randomText(rng, 20);
                const QByteArray value = randomText(rng, round % 3 ? 24 : 90);
                cmd.extFields.emplace_back(key, value);
                ext += (f ? "," : "") + referenceQuoted(key) + ':' + referenceQuoted(value);
            }
            if (round % 2)
                cmd.remark = randomText(rng, 40);
            const QByteArray expected = "{\"code\":310,\"extFields\":{" + ext
                + "},\"flag\":0,\"language\":\"JAVA\",\"opaque\":" + QByteArray::number(cmd.opaque)
                + (cmd.remark.isNull() ? QByteArray()
                                       : ",\"remark\":" + referenceQuoted(cmd.remark))
                + ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":407}";
            QCOMPARE(encodeJsonHeader(cmd), expected);
            RemotingCommand back;
            const DecodeResult r = decodeFrame(encodeFrame(cmd), back);
            QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
            QVERIFY(sameCommand(cmd, back));
        }
    }

    void oneLetterKeysAndDuplicates()
    {
        // One-letter keys take a shortcut on the fast path; duplicates among them and with
        // other keys still collapse as a Java map would (first position, last value).
        const QByteArray header
            = "{\"code\":310,\"extFields\":{\"z\":\"1\",\"a\":\"x\",\"q\":\"2\","
              "\"a\":\"y\",\"Z\":\"3\",\"ab\":\"4\",\"q\":\"5\",\"a\":\"last\"},"
              "\"flag\":0}";
        RemotingCommand fast;
        RemotingCommand general;
        QCOMPARE(decodeFrame(frameOf(0, header), fast).status, DecodeStatus::Ok);
        QCOMPARE(decodeFrame(frameOf(0, " " + header), general).status, DecodeStatus::Ok);
        QVERIFY(sameCommand(fast, general));
        const std::vector<RemotingCommand::ExtField> expected {
            {"z", "1"}, {"a", "last"}, {"q", "5"}, {"Z", "3"}, {"ab", "4"}};
        QCOMPARE(fast.extFields, expected);
        for (const auto &[k, v] : fast.extFields)
            QCOMPARE(k.constData()[k.size()], '\0');
    }

    void scanStringIntoMatchesScanString()
    {
        // The one-pass decoder against the two-pass one on random JSON string literals (valid
        // and broken escapes, surrogates, missing quotes) and random output rooms: the same
        // text and end position, or a refusal; a refusal for lack of room only when the
        // decoded text is longer than the room allows.
        QRandomGenerator rng(777);
        const char *pieces[] = {"a", "xyz", "\\u0001", "\\u00e9", "\\u4e16", "\\ud83d\\ude00",
            "\\ud83d", "\\ude00", "\\u12", "\\uZZZZ", "\\n", "\\\"", "\\\\", "\\/", "\\x", "\\",
            "'", "\xc3\xa9", "0123456789abcdef", "\\u007f", "\\u0080", "\\u00", "\\u0"};
        for (int round = 0; round < 20000; ++round) {
            QByteArray text = round % 2 ? "\"" : "'";
            const int n = static_cast<int>(rng.bounded(8));
            for (int k = 0; k < n; ++k)
                text += pieces[rng.bounded(static_cast<quint32>(std::size(pieces)))];
            if (rng.bounded(6) != 0)
                text += text[0];
            if (rng.bounded(2))
                text += "}}";
            qsizetype pos2 = 0;
            QByteArray reference;
            const bool ok2 = jsontext::scanString(text, pos2, reference);
            const qsizetype room = rng.bounded(3) ? text.size() : rng.bounded(24);
            QByteArray out(room + 8, '#');
            qsizetype pos1 = 0;
            const qsizetype got = jsontext::scanStringInto(text, pos1, out.data(), room);
            if (got >= 0) {
                QVERIFY2(ok2, text.constData());
                QCOMPARE(out.first(got), reference);
                QCOMPARE(pos1, pos2);
                QVERIFY(out.sliced(room).count('#') == 8); // nothing written past the room
            } else {
                QCOMPARE(pos1, qsizetype(0));
                QVERIFY2(!ok2 || room < text.size(), text.constData());
            }
        }
    }

    void sharedBytesBlock()
    {
        QByteArray a;
        QByteArray b;
        QByteArray big;
        QByteArray empty;
        {
            SharedBytes block(16);
            a = block.copy("hello");
            b = block.copy("world!");
            big = block.copy("does not fit in the rest"); // its own allocation
            empty = block.copy("");
            QCOMPARE(block.roomLeft(), qsizetype(16 - 6 - 7 - 1 - 1));
            QVERIFY(!block.room(2));
        }
        QCOMPARE(a, QByteArray("hello"));
        QCOMPARE(b, QByteArray("world!"));
        QCOMPARE(big, QByteArray("does not fit in the rest"));
        QVERIFY(!empty.isNull());
        QVERIFY(empty.isEmpty());
        QCOMPARE(a.constData()[5], '\0');
        QCOMPARE(b.constData()[6], '\0');
        QCOMPARE(qstrlen(empty.constData()), std::size_t(0));
        a.append(", and more than the block holds");
        b[0] = 'W';
        QCOMPARE(a, QByteArray("hello, and more than the block holds"));
        QCOMPARE(b, QByteArray("World!"));
        b = QByteArray();
        empty = QByteArray();
        a.append('.'); // the only holder left
        QCOMPARE(a, QByteArray("hello, and more than the block holds."));
    }

    void decodedStringsAreIndependent()
    {
        // The fast parser's ext strings share one block: each must still behave as its own
        // NUL-terminated QByteArray, outlive the command, and change without touching others.
        const QByteArray header
            = "{\"code\":310,\"extFields\":{\"a\":\"PG_bench\",\"b\":\"TopicA\","
              "\"zz\":\"KEYS\\u0001k\\u0002WAIT\\u0001true\",\"g\":\"1700000000000\"},"
              "\"flag\":0,\"language\":\"JAVA\",\"opaque\":1,\"version\":407}";
        QByteArray a;
        QByteArray topic;
        QByteArray props;
        QByteArray key;
        {
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(frameOf(0, header, "x"), cmd).status, DecodeStatus::Ok);
            QCOMPARE(cmd.extFields.size(), std::size_t(4));
            a = *cmd.ext("a");
            topic = *cmd.ext("b");
            props = *cmd.ext("zz");
            key = cmd.extFields[2].first;
            for (const auto &[k, v] : cmd.extFields) {
                QCOMPARE(qstrlen(k.constData()), std::size_t(k.size()));
                QCOMPARE(k.constData()[k.size()], '\0');
                QCOMPARE(v.constData()[v.size()], '\0');
            }
        }
        QCOMPARE(a, QByteArray("PG_bench"));
        QCOMPARE(topic, QByteArray("TopicA"));
        QCOMPARE(props, QByteArray("KEYS\x01k\x02WAIT\x01true"));
        QCOMPARE(key, QByteArray("zz"));
        a.append(QByteArray(100, 'y')); // grows in place or detaches: never over `topic`
        topic[0] = 't';
        props.prepend("P");
        QCOMPARE(a, QByteArray("PG_bench") + QByteArray(100, 'y'));
        QCOMPARE(topic, QByteArray("topicA"));
        QCOMPARE(props, QByteArray("PKEYS\x01k\x02WAIT\x01true"));
        QCOMPARE(key, QByteArray("zz"));
        topic = QByteArray();
        props = QByteArray();
        key = QByteArray();
        a.append("z"); // the last holder of the block
        QCOMPARE(a, QByteArray("PG_bench") + QByteArray(100, 'y') + "z");
        QCOMPARE(a.constData()[a.size()], '\0');

        // A header larger than the shared block's limit decodes to the same strings.
        RemotingCommand big;
        RemotingCommand small;
        const QByteArray pad(5000, 'p');
        const QByteArray bigHeader
            = "{\"code\":1,\"extFields\":{\"pad\":\"" + pad + "\",\"b\":\"T\\u0001\"},\"flag\":0}";
        QCOMPARE(decodeFrame(frameOf(0, bigHeader), big).status, DecodeStatus::Ok);
        QCOMPARE(big.extString("pad"), QByteArrayView(pad));
        QCOMPARE(big.extString("b"), QByteArrayView("T\x01"));
        QCOMPARE(decodeFrame(frameOf(0, " " + bigHeader), small).status, DecodeStatus::Ok);
        QVERIFY(sameCommand(big, small));
    }

    void jsonHeaderQuirks_data()
    {
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("int") << QByteArray("{\"code\":1,\"extFields\":{\"x\":0}}")
                             << QByteArray("x") << QByteArray("0");
        QTest::addRow("negative") << QByteArray("{\"extFields\":{\"x\":-15}}") << QByteArray("x")
                                  << QByteArray("-15");
        QTest::addRow("long") << QByteArray("{\"extFields\":{\"g\":1796013402055}}")
                              << QByteArray("g") << QByteArray("1796013402055");
        QTest::addRow("double-integral")
            << QByteArray("{\"extFields\":{\"x\":5.0}}") << QByteArray("x") << QByteArray("5");
        QTest::addRow("exponent") << QByteArray("{\"extFields\":{\"x\":1e3}}") << QByteArray("x")
                                  << QByteArray("1000");
        QTest::addRow("fraction") << QByteArray("{\"extFields\":{\"x\":1.5}}") << QByteArray("x")
                                  << QByteArray("1.5");
        QTest::addRow("true") << QByteArray("{\"extFields\":{\"k\":true}}") << QByteArray("k")
                              << QByteArray("true");
        QTest::addRow("false") << QByteArray("{\"extFields\":{\"k\":false}}") << QByteArray("k")
                               << QByteArray("false");
        QTest::addRow("escapes") << QByteArray(
            "{\"extFields\":{\"s\":\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\"}}")
                                 << QByteArray("s") << QByteArray("a\"\\/\b\f\n\r\t");
        QTest::addRow("u-escape") << QByteArray("{\"extFields\":{\"s\":\"\\u0001\\u00e9\\u4e16\"}}")
                                  << QByteArray("s") << QByteArray("\x01\xc3\xa9\xe4\xb8\x96");
        QTest::addRow("surrogate-pair") << QByteArray("{\"extFields\":{\"s\":\"\\ud83d\\ude00\"}}")
                                        << QByteArray("s") << QByteArray("\xf0\x9f\x98\x80");
        QTest::addRow("lone-surrogate") << QByteArray("{\"extFields\":{\"s\":\"\\ud83dx\"}}")
                                        << QByteArray("s") << QByteArray("\xef\xbf\xbdx");
        QTest::addRow("raw-utf8") << QByteArray("{\"extFields\":{\"s\":\"h\xc3\xa9llo\"}}")
                                  << QByteArray("s") << QByteArray("h\xc3\xa9llo");
        QTest::addRow("key-order")
            << QByteArray("{\"extFields\":{\"q\":\"1\"},\"code\":2,\"flag\":0}") << QByteArray("q")
            << QByteArray("1");
        QTest::addRow("cpp-newline")
            << QByteArray("{\"extFields\":{\"q\":\"1\"}}\n") << QByteArray("q") << QByteArray("1");
        QTest::addRow("whitespace")
            << QByteArray(" { \"extFields\" : { \"q\" : 7 } , \"code\" : 1 } ") << QByteArray("q")
            << QByteArray("7");
        QTest::addRow("unknown-keys") << QByteArray(
            "{\"foo\":{\"a\":[1,2,{\"b\":null}]},\"bar\":[],\"extFields\":{\"q\":\"v\"}}")
                                      << QByteArray("q") << QByteArray("v");
        QTest::addRow("empty-string")
            << QByteArray("{\"extFields\":{\"q\":\"\"}}") << QByteArray("q") << QByteArray("");
    }

    void jsonHeaderQuirks()
    {
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, expected);
        RemotingCommand cmd;
        const DecodeResult r = decodeFrame(frameOf(0, header), cmd);
        QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
        const QByteArray *v = cmd.ext(key);
        QVERIFY(v);
        QCOMPARE(*v, expected);
        QVERIFY(!v->isNull());
    }

    void jsonHeaderScalars()
    {
        RemotingCommand cmd;
        QCOMPARE(
            decodeFrame(jsonFrame("{\"language\":9,\"code\":\"12\",\"opaque\":-5,\"flag\":3,"
                                  "\"version\":317,\"remark\":null,\"extFields\":{\"n\":null}}"),
                cmd)
                .status,
            DecodeStatus::Ok);
        QCOMPARE(cmd.language, LanguageCode::Go);
        QCOMPARE(cmd.code, 12);
        QCOMPARE(cmd.opaque, -5);
        QVERIFY(cmd.isResponse());
        QVERIFY(cmd.isOneway());
        QCOMPARE(cmd.version, 317);
        QVERIFY(cmd.remark.isNull());
        QVERIFY(!cmd.hasExt("n")); // null ext values are absent, as in Java
        QCOMPARE(decodeFrame(jsonFrame("{\"language\":\"CPP\",\"remark\":\"\"}"), cmd).status,
            DecodeStatus::Ok);
        QCOMPARE(cmd.language, LanguageCode::Cpp);
        QVERIFY(!cmd.remark.isNull());
        QVERIFY(cmd.remark.isEmpty());
        QCOMPARE(decodeFrame(jsonFrame("{\"language\":\"COBOL\"}"), cmd).status, DecodeStatus::Ok);
        QCOMPARE(cmd.language, LanguageCode::Other);
    }

    void duplicateAndNullExtFields()
    {
        RemotingCommand cmd;
        QCOMPARE(decodeFrame(jsonFrame("{\"extFields\":{\"a\":\"1\",\"b\":\"x\",\"a\":2,\"b\":null,"
                                       "\"c\":null,\"c\":\"z\"}}"),
                     cmd)
                     .status,
            DecodeStatus::Ok);
        QCOMPARE(cmd.extFields.size(), std::size_t(2));
        QCOMPARE(cmd.extString("a"), QByteArrayView("2")); // last wins, first position
        QCOMPARE(cmd.extFields[0].first, QByteArray("a"));
        QVERIFY(!cmd.hasExt("b"));
        QCOMPARE(cmd.extString("c"), QByteArrayView("z"));
        const QByteArray bin
            = binaryHeader(10, 0, 1, 1, 0, "", {{"k", "1"}, {"j", "2"}, {"k", "3"}});
        QCOMPARE(decodeFrame(frameOf(1, bin), cmd).status, DecodeStatus::Ok);
        QCOMPARE(cmd.extFields.size(), std::size_t(2));
        QCOMPARE(cmd.extString("k"), QByteArrayView("3"));
    }

    void hugeHeadersStayLinear()
    {
        // 400k fields in a 5 MB header: duplicates are resolved in linear time (no O(n^2) hang).
        QByteArray json("{\"extFields\":{");
        for (int i = 0; i < 400000; ++i) {
            json += i % 2 ? "\"k\":1," : "\"";
            if (i % 2 == 0)
                json += QByteArray::number(i % 50000) + "\":2,";
        }
        json += "\"end\":0}}";
        RemotingCommand cmd;
        DecodeResult r = decodeFrame(frameOf(0, json), cmd);
        QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
        QCOMPARE(cmd.extFields.size(), std::size_t(25002)); // even keys mod 50000, "k", "end"
        QCOMPARE(cmd.extString("k"), QByteArrayView("1"));
        std::vector<std::pair<QByteArray, QByteArray>> many;
        for (int i = 0; i < 150000; ++i)
            many.emplace_back(QByteArray::number(i % 1000), QByteArray("v"));
        r = decodeFrame(frameOf(1, binaryHeader(10, 0, 1, 1, 0, "", many)), cmd);
        QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
        QCOMPARE(cmd.extFields.size(), std::size_t(1000));
    }

    void extAccessors()
    {
        RemotingCommand cmd;
        cmd.setExt(QByteArrayLiteral("i"), QByteArrayLiteral("-2147483648"));
        cmd.setExt(QByteArrayLiteral("big"), QByteArrayLiteral("2147483648"));
        cmd.setExt(QByteArrayLiteral("l"), QByteArrayLiteral("9223372036854775807"));
        cmd.setExt(QByteArrayLiteral("lo"), QByteArrayLiteral("9223372036854775808"));
        cmd.setExt(QByteArrayLiteral("b"), QByteArrayLiteral("TRUE"));
        cmd.setExt(QByteArrayLiteral("bad"), QByteArrayLiteral("12a"));
        cmd.setExt(QByteArrayLiteral("n"), std::int64_t(-9));
        cmd.setExtBool(QByteArrayLiteral("f"), false);
        QCOMPARE(cmd.extInt("i").value(), std::numeric_limits<std::int32_t>::min());
        QVERIFY(!cmd.extInt("big").has_value());
        QCOMPARE(cmd.extLong("big").value(), std::int64_t(2147483648LL));
        QCOMPARE(cmd.extLong("l").value(), std::numeric_limits<std::int64_t>::max());
        QVERIFY(!cmd.extLong("lo").has_value());
        QCOMPARE(cmd.extBool("b").value(), true);
        QCOMPARE(cmd.extBool("bad").value(), false);
        QVERIFY(!cmd.extInt("bad").has_value());
        QVERIFY(!cmd.extInt("missing").has_value());
        QCOMPARE(cmd.extInt("n").value(), -9);
        QCOMPARE(cmd.extString("f"), QByteArrayView("false"));
        cmd.setExt(QByteArrayLiteral("n"), QByteArrayLiteral("1"));
        QCOMPARE(cmd.extInt("n").value(), 1);
        QVERIFY(cmd.removeExt("n"));
        QVERIFY(!cmd.hasExt("n"));
        QVERIFY(!cmd.removeExt("n"));
        QCOMPARE(parseLanguage("RUST").value(), LanguageCode::Rust);
        QCOMPARE(parseLanguage("1").value(), LanguageCode::Cpp);
        QVERIFY(!parseLanguage("13").has_value());
        QVERIFY(!parseLanguage("java").has_value());
    }

    void parseJavaLongMatchesJava()
    {
        // Reference: Long.parseLong's rules spelled out on the unsigned magnitude.
        const auto reference = [](QByteArrayView t) -> std::optional<std::int64_t> {
            qsizetype i = 0;
            bool negative = false;
            if (!t.isEmpty() && (t[0] == '-' || t[0] == '+')) {
                negative = t[0] == '-';
                ++i;
            }
            if (i >= t.size())
                return std::nullopt;
            constexpr std::uint64_t kLimit = std::uint64_t(1) << 63;
            std::uint64_t m = 0;
            for (; i < t.size(); ++i) {
                if (t[i] < '0' || t[i] > '9')
                    return std::nullopt;
                if (__builtin_mul_overflow(m, 10u, &m)
                    || __builtin_add_overflow(m, static_cast<unsigned>(t[i] - '0'), &m)
                    || m > kLimit)
                    return std::nullopt;
            }
            if (!negative)
                return m == kLimit ? std::nullopt : std::optional<std::int64_t>(std::int64_t(m));
            return m == kLimit ? std::numeric_limits<std::int64_t>::min() : -std::int64_t(m);
        };
        const char *fixed[] = {"", "-", "+", "0", "-0", "+0", "+5", "-5", "1700000000000",
            "123456789012345678", "999999999999999999", "-999999999999999999",
            "1000000000000000000", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "-9223372036854775809", "+9223372036854775807",
            "00000000000000000000001", "1a", " 1", "1 ", "--1", "+-1", "-+1", "1.0", "1e3",
            "18446744073709551616", "99999999999999999999999"};
        for (const char *t : fixed)
            QVERIFY2(parseJavaLong(t) == reference(t), t);
        QRandomGenerator rng(5005);
        // Digits, then bytes just outside '0'..'9', signs, and bytes with the high bit set.
        const char alphabet[] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '-', '+', 'a',
            '/', ':', '\x80', '\xb9', '\xba', '\xff', '\0', ' '};
        for (int round = 0; round < 100000; ++round) {
            QByteArray t;
            const int n = static_cast<int>(rng.bounded(24));
            for (int k = 0; k < n; ++k) {
                // Mostly digits, so that long valid numbers near the range limits come up.
                const bool digit = rng.bounded(8) != 0;
                t.append(alphabet[digit ? rng.bounded(10)
                                        : rng.bounded(static_cast<quint32>(sizeof alphabet))]);
            }
            QVERIFY2(parseJavaLong(t) == reference(t), t.constData());
        }
    }
};

QTEST_APPLESS_MAIN(tst_JsonHeader)
#include "tst_jsonheader.moc"
