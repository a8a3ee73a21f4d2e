// Frame codec: golden frames from RocketMQ 4.9.7 / cpp / ali-ons, re-encoding, incremental
// decoding (byte by byte, random splits, pipelined), binary headers and malformed input.

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/jsontext.h"
#include "clientlib/protocol/sharedbytes.h"
#include "framecodectestutil.h"
#include "goldenvectors.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;
using qrocket::testing::GoldenFrame;

using namespace framecodectest;

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

    /// appendSendOkFrame writes exactly what encodeFrame() makes of the send processor's SEND_OK
    /// command after the server's Responder stamped it; and the frame decodes to that command.
    void sendOkFrameIsTheGenericEncoding_data()
    {
        QTest::addColumn<int>("opaque");
        QTest::addColumn<int>("queueId");
        QTest::addColumn<qint64>("queueOffset");
        QTest::addColumn<QByteArray>("region");
        QTest::addColumn<bool>("traceOn");
        QTest::newRow("typical") << 1000000017 << 3 << qint64(123456) << QByteArray("DefaultRegion")
                                 << true;
        QTest::newRow("extremes") << std::numeric_limits<int>::min()
                                  << std::numeric_limits<int>::max()
                                  << std::numeric_limits<qint64>::max() << QByteArray("") << false;
        QTest::newRow("escaped region")
            << -1 << 0 << qint64(-1) << QByteArray("r\"e\\g\x01i\xc3\xa9on\n") << true;
        QTest::newRow("long region") << 0 << 15 << qint64(0) << QByteArray(300, '\x02') << false;
    }
    void sendOkFrameIsTheGenericEncoding()
    {
        QFETCH(int, opaque);
        QFETCH(int, queueId);
        QFETCH(qint64, queueOffset);
        QFETCH(QByteArray, region);
        QFETCH(bool, traceOn);
        const QByteArray msgId("7F00000100002A9F00000000000A1B2C");
        RemotingCommand generic;
        generic.markResponse();
        generic.code = 0;
        generic.extFields.emplace_back("msgId", msgId);
        generic.extFields.emplace_back("queueId", QByteArray::number(queueId));
        generic.extFields.emplace_back("queueOffset", QByteArray::number(queueOffset));
        generic.extFields.emplace_back("MSG_REGION", region);
        generic.extFields.emplace_back("TRACE_ON", traceOn ? "true" : "false");
        generic.opaque = opaque; // as Responder stamps it
        generic.serializeType = SerializeType::Json;
        generic.flag &= ~RemotingCommand::kFlagOneway;
        generic.markResponse();
        const QByteArray expected = encodeFrame(generic);

        QByteArray out("prefix");
        appendSendOkFrame(out, opaque, msgId, queueId, queueOffset, region, traceOn);
        QCOMPARE(out.sliced(6), expected);
        appendSendOkFrame(out, opaque, msgId, queueId, queueOffset, region, traceOn);
        QCOMPARE(out, "prefix" + expected + expected); // appends, pipelined

        RemotingCommand decoded;
        const DecodeResult r = decodeFrame(expected, decoded);
        QCOMPARE(r.status, DecodeStatus::Ok);
        QVERIFY(decoded.isResponse());
        QCOMPARE(decoded.opaque, opaque);
        QCOMPARE(decoded.code, 0);
        QCOMPARE(decoded.extLong("queueOffset"), std::optional<std::int64_t>(queueOffset));
        QCOMPARE(*decoded.ext("MSG_REGION"), region);
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
