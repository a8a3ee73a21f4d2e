// Frame codec: golden frames from RocketMQ 4.9.7 / cpp / ali-ons, re-encoding, incremental
// decoding (byte by byte, random splits, pipelined), binary headers and malformed input.

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/jsontext.h"
#include "clientlib/protocol/sharedbytes.h"
#include "goldenvectors.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;
using qrocket::testing::GoldenFrame;

namespace {

QByteArray canonical(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String:
        return v.toString().toUtf8();
    case QJsonValue::Bool:
        return v.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    case QJsonValue::Double:
        return QByteArray::number(v.toInteger());
    default:
        return QByteArrayLiteral("<unexpected>");
    }
}

QByteArray frameOf(quint32 typeByte, QByteArrayView header, QByteArrayView body = {})
{
    QByteArray f(8, '\0');
    writeI32(f.data(), static_cast<std::int32_t>(4 + header.size() + body.size()));
    writeU32(f.data() + 4, (typeByte << 24) | static_cast<quint32>(header.size()));
    f.append(header.data(), header.size());
    f.append(body.data(), body.size());
    return f;
}

QByteArray jsonFrame(const char *header, QByteArrayView body = {})
{
    return frameOf(0, QByteArrayView(header), body);
}

bool sameCommand(const RemotingCommand &a, const RemotingCommand &b)
{
    return a.code == b.code && a.language == b.language && a.version == b.version
        && a.opaque == b.opaque && a.flag == b.flag
        && a.remark == b.remark
        // A ROCKETMQ header cannot tell an empty remark from none (length 0 = null, §1.4).
        && (a.remark.isNull() == b.remark.isNull() || a.serializeType == SerializeType::RocketMQ)
        && a.extFields == b.extFields && a.body == b.body && a.serializeType == b.serializeType;
}

/// JSON string quoting as fastjson writes it: '"', '\\' and control characters escaped (short
/// forms for \b \f \n \r \t, else \u00xx), every other byte raw. Byte by byte, as a reference
/// for the encoder's word-at-a-time paths.
QByteArray referenceQuoted(QByteArrayView s)
{
    QByteArray out("\"");
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20)
                out += QByteArray("\\u00") + QByteArray::number(c >> 4, 16)
                    + QByteArray::number(c & 0xF, 16);
            else
                out += ch;
        }
    }
    out += '"';
    return out;
}

/// A random string of 0..`maxLen` bytes, mostly plain text with the bytes JSON must escape, a
/// backslash-u lookalike and UTF-8 mixed in.
QByteArray randomText(QRandomGenerator &rng, int maxLen)
{
    static const char special[] = {'"', '\\', '\b', '\f', '\n', '\r', '\t', '\x01', '\x02', '\x1f',
        '\x7f', 'u', '/', '\'', '\0'};
    QByteArray s;
    const int n = static_cast<int>(rng.bounded(maxLen + 1));
    for (int i = 0; i < n; ++i) {
        const quint32 kind = rng.bounded(10);
        if (kind == 0)
            s += special[rng.bounded(static_cast<quint32>(sizeof special))];
        else if (kind == 1)
            s += static_cast<char>(0x80 + rng.bounded(0x80));
        else
            s += static_cast<char>('0' + rng.bounded(75));
    }
    return s;
}

// A hand-written ROCKETMQ (type 1) header per protocol.md §1.4.
QByteArray binaryHeader(std::int16_t code, std::uint8_t lang, std::int16_t version,
    std::int32_t opaque, std::int32_t flag, QByteArrayView remark,
    const std::vector<std::pair<QByteArray, QByteArray>> &ext)
{
    QByteArray h(17, '\0');
    writeI16(h.data(), code);
    h[2] = static_cast<char>(lang);
    writeI16(h.data() + 3, version);
    writeI32(h.data() + 5, opaque);
    writeI32(h.data() + 9, flag);
    writeI32(h.data() + 13, static_cast<std::int32_t>(remark.size()));
    h.append(remark.data(), remark.size());
    QByteArray map;
    for (const auto &[k, v] : ext) {
        char buf[4];
        writeI16(buf, static_cast<std::int16_t>(k.size()));
        map.append(buf, 2);
        map.append(k);
        writeI32(buf, static_cast<std::int32_t>(v.size()));
        map.append(buf, 4);
        map.append(v);
    }
    char len[4];
    writeI32(len, static_cast<std::int32_t>(map.size()));
    h.append(len, 4);
    h.append(map);
    return h;
}

} // namespace

class tst_FrameCodec : public QObject
{
    Q_OBJECT

private:
    std::vector<GoldenFrame> m_frames;

private slots:
    void initTestCase()
    {
        m_frames = qrocket::testing::loadGoldenFrames();
        QVERIFY2(m_frames.size() >= 280, "frames.jsonl not found or incomplete");
    }

    void goldenFramesDecode()
    {
        for (const GoldenFrame &f : m_frames) {
            RemotingCommand cmd;
            const DecodeResult r = decodeFrame(f.frame, cmd);
            QVERIFY2(r.status == DecodeStatus::Ok,
                qPrintable(QStringLiteral("frame %1: %2").arg(f.id).arg(r.error)));
            QCOMPARE(r.consumed, f.frame.size());
            QCOMPARE(cmd.code, f.code);
            QCOMPARE(cmd.flag, f.flag);
            QCOMPARE(cmd.opaque, f.opaque);
            QCOMPARE(cmd.body, f.body);
            QCOMPARE(cmd.serializeType, SerializeType::Json);

            const QJsonObject h = QJsonDocument::fromJson(f.header).object();
            QVERIFY(!h.isEmpty());
            QCOMPARE(cmd.version, h.value(QLatin1String("version")).toInt());
            QCOMPARE(QByteArray(languageName(cmd.language)),
                h.value(QLatin1String("language")).toString().toLatin1());
            if (h.contains(QLatin1String("remark")))
                QCOMPARE(cmd.remark, h.value(QLatin1String("remark")).toString().toUtf8());
            else
                QVERIFY(cmd.remark.isNull());
            const QJsonObject ext = h.value(QLatin1String("extFields")).toObject();
            QCOMPARE(cmd.extFields.size(), static_cast<std::size_t>(ext.size()));
            for (auto it = ext.begin(); it != ext.end(); ++it) {
                const QByteArray *v = cmd.ext(it.key().toUtf8());
                QVERIFY2(
                    v, qPrintable(QStringLiteral("frame %1 lacks %2").arg(f.id).arg(it.key())));
                QCOMPARE(*v, canonical(it.value()));
            }
        }
    }

    void goldenTypedAccess()
    {
        // ali-ons sends numbers and booleans; cpp numbers for ints (protocol.md §1.7).
        int checked = 0;
        for (const GoldenFrame &f : m_frames) {
            if (f.code != 310 || f.kind != QLatin1String("request"))
                continue;
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            QVERIFY(cmd.extInt("d").has_value());
            QVERIFY(cmd.extInt("e").has_value());
            QVERIFY(cmd.extLong("g").value() > std::int64_t(1700000000000LL));
            QVERIFY(cmd.extBool("k").has_value());
            QCOMPARE(cmd.extBool("k").value(), false);
            ++checked;
        }
        QVERIFY(checked >= 6);
    }

    void goldenReencode()
    {
        for (const GoldenFrame &f : m_frames) {
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            for (SerializeType type : {SerializeType::Json, SerializeType::RocketMQ}) {
                cmd.serializeType = type;
                const QByteArray again = encodeFrame(cmd);
                RemotingCommand cmd2;
                const DecodeResult r = decodeFrame(again, cmd2);
                QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
                QCOMPARE(r.consumed, again.size());
                QVERIFY2(sameCommand(cmd, cmd2), qPrintable(QString::number(f.id)));
            }
        }
    }

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

    void compactAndGeneralPathsAgree()
    {
        // decodeFrame tries a fast parser for compact headers and falls back to the general
        // scanner; a leading space sends a header straight to the general one. Both must give
        // the same command (or both refuse) for real frames, random commands and random
        // corruptions of them.
        const auto check = [](const QByteArray &header, const QByteArray &body) {
            RemotingCommand fast;
            RemotingCommand general;
            const DecodeResult a = decodeFrame(frameOf(0, header, body), fast);
            const DecodeResult b = decodeFrame(frameOf(0, " " + header, body), general);
            if (a.status != b.status)
                return false;
            return a.status != DecodeStatus::Ok || sameCommand(fast, general);
        };
        int json = 0;
        for (const GoldenFrame &f : m_frames) {
            if (f.frame.at(4) != 0)
                continue;
            ++json;
            QVERIFY2(check(f.header, f.body), qPrintable(QString::number(f.id)));
        }
        QVERIFY(json > 100);
        QRandomGenerator rng(5050);
        const char significant[] = "{}[]\":,\\u0123456789abcdefABCDEF-+.eEtrunlfas \n\x01";
        int accepted = 0;
        for (int round = 0; round < 4000; ++round) {
            RemotingCommand cmd = RemotingCommand::createRequest(310);
            cmd.opaque = static_cast<int>(rng.generate());
            const int fields = static_cast<int>(rng.bounded(5));
            for (int f = 0; f < fields; ++f)
                cmd.extFields.emplace_back(QByteArray(1, char('a' + f)), randomText(rng, 30));
            if (round % 3 == 0)
                cmd.remark = randomText(rng, 10);
            QByteArray header = encodeJsonHeader(cmd);
            const int edits = static_cast<int>(rng.bounded(4));
            for (int e = 0; e < edits && !header.isEmpty(); ++e) {
                const auto at
                    = static_cast<qsizetype>(rng.bounded(static_cast<quint32>(header.size())));
                const char c
                    = significant[rng.bounded(static_cast<quint32>(sizeof significant - 1))];
                switch (rng.bounded(3)) {
                case 0:
                    header.remove(at, 1);
                    break;
                case 1:
                    header.insert(at, c);
                    break;
                default:
                    header[at] = c;
                }
            }
            const bool ok = check(header, QByteArray("body"));
            QVERIFY2(ok, header.constData());
            RemotingCommand probe;
            accepted += decodeFrame(frameOf(0, header), probe).status == DecodeStatus::Ok;
        }
        QVERIFY(accepted > 1000); // the corruptions also produce valid headers of other shapes
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

    void binaryHeaderHandWritten()
    {
        // protocol.md §1.4: code 310, GO, version 317, opaque 42, flag 0, remark "hi", 2 ext
        // fields.
        const QByteArray header
            = binaryHeader(310, 9, 317, 42, 0, "hi", {{"topic", "T"}, {"queueId", "3"}});
        QByteArray expected;
        expected.append(
            "\x01\x36\x09\x01\x3d\x00\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x02hi", 19);
        expected.append(
            "\x00\x00\x00\x1a\x00\x05topic\x00\x00\x00\x01T\x00\x07queueId\x00\x00\x00\x01"
            "3",
            30);
        QCOMPARE(header, expected);
        RemotingCommand cmd;
        const QByteArray frame = frameOf(1, header, "BODY");
        QCOMPARE(int(frame[4]), 1);
        const DecodeResult r = decodeFrame(frame, cmd);
        QVERIFY2(r.status == DecodeStatus::Ok, qPrintable(r.error));
        QCOMPARE(r.consumed, frame.size());
        QCOMPARE(cmd.serializeType, SerializeType::RocketMQ);
        QCOMPARE(cmd.code, 310);
        QCOMPARE(cmd.language, LanguageCode::Go);
        QCOMPARE(cmd.version, 317);
        QCOMPARE(cmd.opaque, 42);
        QCOMPARE(cmd.remark, QByteArray("hi"));
        QCOMPARE(cmd.extString("topic"), QByteArrayView("T"));
        QCOMPARE(cmd.extInt("queueId").value(), 3);
        QCOMPARE(cmd.body, QByteArray("BODY"));
        // Our encoder produces the same header bytes, and the answer keeps the request's type.
        QCOMPARE(encodeBinaryHeader(cmd), header);
        const RemotingCommand resp = RemotingCommand::createResponse(cmd, 0);
        QCOMPARE(resp.serializeType, SerializeType::RocketMQ);
        QCOMPARE(int(encodeFrame(resp)[4]), 1);

        // No remark, no ext map.
        const QByteArray bare = binaryHeader(34, 0, 409, 1, 2, "", {});
        QCOMPARE(bare.size(), qsizetype(21));
        QCOMPARE(decodeFrame(frameOf(1, bare), cmd).status, DecodeStatus::Ok);
        QVERIFY(cmd.remark.isNull());
        QVERIFY(cmd.extFields.empty());
        QVERIFY(cmd.isOneway());
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("frame");
        QTest::addColumn<QString>("reason");
        const auto raw = [](std::int32_t len, std::uint32_t lenAndType, QByteArray rest) {
            QByteArray f(8, '\0');
            writeI32(f.data(), len);
            writeU32(f.data() + 4, lenAndType);
            return f + rest;
        };
        QTest::addRow("length-0") << raw(0, 0, {}) << QStringLiteral("smaller");
        QTest::addRow("length-3") << raw(3, 0, {}) << QStringLiteral("smaller");
        QTest::addRow("length-negative") << raw(-5, 0, {}) << QStringLiteral("smaller");
        QTest::addRow("over-limit") << raw(16 * 1024 * 1024, 2, {}) << QStringLiteral("limit");
        QTest::addRow("header-longer-than-frame")
            << raw(10, 100, QByteArray(6, '{')) << QStringLiteral("exceeds the frame");
        QTest::addRow("serialize-type-2") << frameOf(2, "{}") << QStringLiteral("serialize type");
        QTest::addRow("serialize-type-ff")
            << frameOf(0xff, "{}") << QStringLiteral("serialize type");
        QTest::addRow("empty-json") << frameOf(0, "") << QStringLiteral("not an object");
        QTest::addRow("json-array") << jsonFrame("[1,2]") << QStringLiteral("not an object");
        QTest::addRow("json-string") << jsonFrame("\"x\"") << QStringLiteral("not an object");
        QTest::addRow("json-unterminated") << jsonFrame("{\"code\":1") << QStringLiteral("JSON");
        QTest::addRow("json-bad-string")
            << jsonFrame("{\"code\":1,\"remark\":\"ab") << QStringLiteral("JSON");
        QTest::addRow("json-bad-escape")
            << jsonFrame("{\"remark\":\"\\x\"}") << QStringLiteral("JSON");
        QTest::addRow("json-bad-u")
            << jsonFrame("{\"remark\":\"\\u12G4\"}") << QStringLiteral("JSON");
        QTest::addRow("json-trailing") << jsonFrame("{\"code\":1}x") << QStringLiteral("trailing");
        QTest::addRow("json-two-objects") << jsonFrame("{}{}") << QStringLiteral("trailing");
        QTest::addRow("json-unquoted-key") << jsonFrame("{code:1}") << QStringLiteral("key");
        QTest::addRow("json-code-string")
            << jsonFrame("{\"code\":\"abc\"}") << QStringLiteral("code");
        QTest::addRow("json-code-overflow")
            << jsonFrame("{\"code\":99999999999}") << QStringLiteral("code");
        QTest::addRow("json-code-bool") << jsonFrame("{\"code\":true}") << QStringLiteral("code");
        QTest::addRow("json-ext-array")
            << jsonFrame("{\"extFields\":[]}") << QStringLiteral("extFields");
        QTest::addRow("json-ext-string")
            << jsonFrame("{\"extFields\":\"a\"}") << QStringLiteral("extFields");
        QTest::addRow("json-ext-nested-object")
            << jsonFrame("{\"extFields\":{\"a\":{\"b\":1}}}") << QStringLiteral("scalar");
        QTest::addRow("json-ext-nested-array")
            << jsonFrame("{\"extFields\":{\"a\":[1]}}") << QStringLiteral("scalar");
        QTest::addRow("json-remark-number")
            << jsonFrame("{\"remark\":5}") << QStringLiteral("remark");
        QTest::addRow("json-language-object")
            << jsonFrame("{\"language\":{}}") << QStringLiteral("language");
        QTest::addRow("json-deep-unknown")
            << frameOf(0, QByteArray("{\"x\":") + QByteArray(100, '[') + QByteArray(100, ']') + "}")
            << QStringLiteral("deep");
        QTest::addRow("json-missing-colon") << jsonFrame("{\"code\" 1}") << QStringLiteral("':'");
        QTest::addRow("json-trailing-comma") << jsonFrame("{\"code\":1,}") << QStringLiteral("key");
        QTest::addRow("binary-truncated")
            << frameOf(1, QByteArray(20, '\0')) << QStringLiteral("truncated");
        QByteArray h = binaryHeader(10, 0, 1, 1, 0, "remark", {});
        writeI32(h.data() + 13, 1000);
        QTest::addRow("binary-remark-beyond") << frameOf(1, h) << QStringLiteral("remark length");
        writeI32(h.data() + 13, -1);
        QTest::addRow("binary-remark-negative") << frameOf(1, h) << QStringLiteral("remark length");
        h = binaryHeader(10, 0, 1, 1, 0, "", {{"k", "v"}});
        writeI32(h.data() + 17, 1000);
        QTest::addRow("binary-ext-beyond") << frameOf(1, h) << QStringLiteral("extFields length");
        h = binaryHeader(10, 0, 1, 1, 0, "", {{"k", "v"}});
        writeI16(h.data() + 21, 50);
        QTest::addRow("binary-key-beyond") << frameOf(1, h) << QStringLiteral("key length");
        h = binaryHeader(10, 0, 1, 1, 0, "", {{"k", "v"}});
        writeI32(h.data() + 24, 50);
        QTest::addRow("binary-value-beyond") << frameOf(1, h) << QStringLiteral("value length");
        h = binaryHeader(10, 0, 1, 1, 0, "", {});
        h.chop(2);
        QTest::addRow("binary-no-ext-length") << frameOf(1, h) << QStringLiteral("truncated");
    }

    void malformed()
    {
        QFETCH(QByteArray, frame);
        QFETCH(QString, reason);
        RemotingCommand cmd;
        const DecodeResult r = decodeFrame(frame, cmd);
        QCOMPARE(r.status, DecodeStatus::Invalid);
        QVERIFY2(r.error.contains(reason), qPrintable(r.error));
        QCOMPARE(r.consumed, qsizetype(0));
    }

    void limitBoundaries()
    {
        FrameLimits limits;
        limits.maxFrameBytes = 1024;
        const QByteArray header = "{\"code\":1}";
        for (int total : {1023, 1024, 1025}) {
            const QByteArray body(total - 8 - header.size(), 'b');
            const QByteArray frame = frameOf(0, header, body);
            QCOMPARE(frame.size(), qsizetype(total));
            RemotingCommand cmd;
            // The limit is decided from the first 4 bytes alone, before the rest arrives.
            const DecodeResult early = decodeFrame(QByteArrayView(frame).first(4), cmd, limits);
            const DecodeResult full = decodeFrame(frame, cmd, limits);
            if (total <= 1024) {
                QCOMPARE(early.status, DecodeStatus::NeedMore);
                QCOMPARE(full.status, DecodeStatus::Ok);
                QCOMPARE(cmd.body.size(), body.size());
            } else {
                QCOMPARE(early.status, DecodeStatus::Invalid);
                QCOMPARE(full.status, DecodeStatus::Invalid);
            }
        }
        // Default limit: 16 MiB including the length prefix; a huge length is refused up front.
        QByteArray prefix(4, '\0');
        writeI32(prefix.data(), 16 * 1024 * 1024 - 4);
        RemotingCommand cmd;
        QCOMPARE(decodeFrame(prefix, cmd).status, DecodeStatus::NeedMore);
        writeI32(prefix.data(), 16 * 1024 * 1024 - 3);
        QCOMPARE(decodeFrame(prefix, cmd).status, DecodeStatus::Invalid);
        writeI32(prefix.data(), std::numeric_limits<std::int32_t>::max());
        QCOMPARE(decodeFrame(prefix, cmd).status, DecodeStatus::Invalid);
    }

    void byteByByte()
    {
        QByteArray stream;
        for (const GoldenFrame &f : m_frames)
            stream += f.frame;
        QByteArray buffer;
        std::size_t next = 0;
        for (qsizetype i = 0; i < stream.size(); ++i) {
            buffer.append(stream[i]);
            RemotingCommand cmd;
            const DecodeResult r = decodeFrame(buffer, cmd);
            QVERIFY(r.status != DecodeStatus::Invalid);
            if (r.status == DecodeStatus::Ok) {
                QCOMPARE(r.consumed, buffer.size());
                QCOMPARE(cmd.opaque, m_frames[next].opaque);
                QCOMPARE(cmd.body, m_frames[next].body);
                buffer.clear();
                ++next;
            }
        }
        QCOMPARE(next, m_frames.size());
        QVERIFY(buffer.isEmpty());
    }

    void randomSplitsAndPipelining()
    {
        QByteArray stream;
        for (const GoldenFrame &f : m_frames)
            stream += f.frame;
        QRandomGenerator rng(20261130);
        for (int round = 0; round < 20; ++round) {
            QByteArray buffer;
            std::size_t next = 0;
            qsizetype pos = 0;
            while (pos < stream.size()) {
                // Chunks from 1 byte to several frames at once.
                const qsizetype chunk = std::min<qsizetype>(
                    stream.size() - pos, 1 + rng.bounded(round % 2 ? 64 : 8192));
                buffer.append(stream.constData() + pos, chunk);
                pos += chunk;
                qsizetype offset = 0;
                for (;;) {
                    RemotingCommand cmd;
                    const DecodeResult r = decodeFrame(QByteArrayView(buffer).sliced(offset), cmd);
                    QVERIFY(r.status != DecodeStatus::Invalid);
                    if (r.status == DecodeStatus::NeedMore)
                        break;
                    QCOMPARE(cmd.code, m_frames[next].code);
                    QCOMPARE(cmd.opaque, m_frames[next].opaque);
                    QCOMPARE(r.consumed, m_frames[next].frame.size());
                    offset += r.consumed;
                    ++next;
                }
                buffer.remove(0, offset);
            }
            QCOMPARE(next, m_frames.size());
            QVERIFY(buffer.isEmpty());
        }
    }
};

QTEST_APPLESS_MAIN(tst_FrameCodec)
#include "tst_framecodec.moc"
