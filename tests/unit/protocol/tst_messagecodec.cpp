// Stored-message codec (protocol.md §5, §6): the real RocketMQ 4.9.7 commit-log and consume-queue
// excerpts, hand-written IPv6 and BLANK records, malformed records, properties, batch bodies,
// msgIds, UNIQ_KEY and zlib.

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "goldenvectors.h"

#include <QDateTime>
#include <QJsonArray>
#include <QSet>
#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

QJsonObject readJson(const QString &relative)
{
    return QJsonDocument::fromJson(qrocket::testing::readVectorFile(relative)).object();
}

// A record laid out by hand from the protocol.md §5.1 table, IPv6 born and store hosts.
QByteArray handWrittenV6Record(QByteArrayView body, QByteArrayView topic, QByteArrayView props)
{
    const int total = 91 + 24 + int(body.size() + topic.size() + props.size());
    QByteArray r(total, '\0');
    char *p = r.data();
    writeI32(p + 0, total);
    writeI32(p + 4, static_cast<std::int32_t>(0xDAA320A7u));
    writeI32(p + 8, crc32Masked(body));
    writeI32(p + 12, 3); // queue id
    writeI32(p + 16, 77); // flag
    writeI64(p + 20, 12); // queue offset
    writeI64(p + 28, 4096); // physical offset
    writeI32(p + 36, 0x30 | 0x1); // born v6, store v6, compressed
    writeI64(p + 40, 1796013328622LL);
    // born host [fd00::2]:60734 at 48 (16 + 4 bytes)
    p[48] = char(0xfd);
    p[48 + 15] = 2;
    writeI32(p + 64, 60734);
    writeI64(p + 68, 1796013328661LL); // store timestamp at 48 + 20
    // store host [2001:db8::1]:20911 at 76
    p[76] = 0x20;
    p[77] = 0x01;
    p[78] = 0x0d;
    p[79] = char(0xb8);
    p[76 + 15] = 1;
    writeI32(p + 92, 20911);
    writeI32(p + 96, 2); // reconsume times
    writeI64(p + 100, 0); // prepared tx offset
    writeI32(p + 108, int(body.size()));
    std::memcpy(p + 112, body.data(), size_t(body.size()));
    qsizetype pos = 112 + body.size();
    p[pos++] = char(topic.size());
    std::memcpy(p + pos, topic.data(), size_t(topic.size()));
    pos += topic.size();
    writeI16(p + pos, std::int16_t(props.size()));
    std::memcpy(p + pos + 2, props.data(), size_t(props.size()));
    return r;
}

} // namespace

class tst_MessageCodec : public QObject
{
    Q_OBJECT

private:
    QByteArray m_commitLog;
    QJsonArray m_messages;

private slots:
    void initTestCase()
    {
        m_commitLog = qrocket::testing::readVectorFile(
            QStringLiteral("store/commitlog/00000000000000000000.first64KiB"));
        QCOMPARE(m_commitLog.size(), qsizetype(65536));
        m_messages = readJson(
            QStringLiteral("store/commitlog/00000000000000000000.first64KiB.messages.json"))
                         .value(QLatin1String("messages"))
                         .toArray();
        QVERIFY(m_messages.size() > 100);
    }

    void goldenCommitLogDecodes()
    {
        qsizetype pos = 0;
        int complete = 0;
        int compressed = 0;
        for (const QJsonValue &jv : std::as_const(m_messages)) {
            const QJsonObject m = jv.toObject();
            QCOMPARE(pos, qsizetype(m.value(QLatin1String("file_offset")).toInteger()));
            MessageRecordView v;
            const RecordDecodeResult r
                = decodeRecord(QByteArrayView(m_commitLog).sliced(pos), v, true);
            if (!m.value(QLatin1String("complete")).toBool()) {
                QCOMPARE(r.status, RecordStatus::Truncated);
                QVERIFY(!r.error.isEmpty());
                pos = m_commitLog.size();
                break;
            }
            QVERIFY2(r.status == RecordStatus::Ok, qPrintable(r.error));
            QCOMPARE(r.size, m.value(QLatin1String("totalSize")).toInt());
            QCOMPARE(v.topic, m.value(QLatin1String("topic")).toString().toUtf8());
            QCOMPARE(v.queueId, m.value(QLatin1String("queueId")).toInt());
            QCOMPARE(v.queueOffset, m.value(QLatin1String("queueOffset")).toInteger());
            QCOMPARE(v.physicalOffset, m.value(QLatin1String("physicalOffset")).toInteger());
            QCOMPARE(v.physicalOffset, std::int64_t(pos));
            QCOMPARE(v.sysFlag, m.value(QLatin1String("sysFlag")).toInt());
            QCOMPARE(v.flag, m.value(QLatin1String("flag")).toInt());
            QCOMPARE(v.bodyCrc, m.value(QLatin1String("bodyCRC")).toInt());
            QCOMPARE(v.bornTimestamp, m.value(QLatin1String("bornTimestamp")).toInteger());
            QCOMPARE(v.storeTimestamp, m.value(QLatin1String("storeTimestamp")).toInteger());
            QCOMPARE(v.bornHost.toString(), m.value(QLatin1String("bornHost")).toString().toUtf8());
            QCOMPARE(
                v.storeHost.toString(), m.value(QLatin1String("storeHost")).toString().toUtf8());
            QCOMPARE(v.reconsumeTimes, m.value(QLatin1String("reconsumeTimes")).toInt());
            QCOMPARE(v.preparedTransactionOffset,
                m.value(QLatin1String("preparedTransactionOffset")).toInteger());
            QCOMPARE(v.body.size(), qsizetype(m.value(QLatin1String("bodyLength")).toInt()));
            QCOMPARE(encodeOffsetMessageId(v.storeHost, v.physicalOffset),
                m.value(QLatin1String("offsetMsgId")).toString().toLatin1());

            const MessageProperties props = MessageProperties::parse(v.properties);
            const QJsonObject expected = m.value(QLatin1String("properties")).toObject();
            QCOMPARE(props.size(), std::size_t(expected.size()));
            for (auto it = expected.begin(); it != expected.end(); ++it) {
                QCOMPARE(props.value(it.key().toUtf8()), it.value().toString().toUtf8());
                QCOMPARE(findProperty(v.properties, it.key().toUtf8()),
                    QByteArrayView(it.value().toString().toUtf8()));
            }
            if (m.contains(QLatin1String("body_utf8")))
                QCOMPARE(
                    v.body.toByteArray(), m.value(QLatin1String("body_utf8")).toString().toUtf8());
            if (v.sysFlag & SysFlag::Compressed) {
                const auto inflated = zlibDecompress(v.body);
                QVERIFY(inflated.has_value());
                QCOMPARE(
                    inflated->size(), qsizetype(m.value(QLatin1String("inflatedLength")).toInt()));
                const QByteArray preview = m.value(QLatin1String("inflated"))
                                               .toObject()
                                               .value(QLatin1String("body_utf8"))
                                               .toString()
                                               .toUtf8();
                if (preview.endsWith("..."))
                    QVERIFY(inflated->startsWith(preview.chopped(3)));
                ++compressed;
            }

            // Our encoder lays out the same record byte for byte.
            QCOMPARE(
                encodeRecord(recordInputOf(v), v.queueOffset, v.physicalOffset, v.storeTimestamp),
                m_commitLog.mid(pos, r.size));
            pos += r.size;
            ++complete;
        }
        QCOMPARE(complete, 139);
        QVERIFY(compressed >= 2);
    }

    void goldenPullQueryViewBodies()
    {
        // §5.6: PULL/QUERY/VIEW bodies are stored records back to back.
        int bodies = 0;
        int records = 0;
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            if (f.kind != QLatin1String("response") || f.code != 0 || f.body.isEmpty()
                || (f.requestCode != 11 && f.requestCode != 12 && f.requestCode != 33))
                continue;
            qsizetype pos = 0;
            while (pos < f.body.size()) {
                MessageRecordView v;
                const RecordDecodeResult r
                    = decodeRecord(QByteArrayView(f.body).sliced(pos), v, true);
                QVERIFY2(r.status == RecordStatus::Ok, qPrintable(r.error));
                QVERIFY(!v.topic.isEmpty());
                QCOMPARE(v.storeHost.toString(), QByteArray("127.0.0.1:20911"));
                if (v.sysFlag & SysFlag::Compressed)
                    QVERIFY(zlibDecompress(v.body).has_value());
                pos += r.size;
                ++records;
            }
            QCOMPARE(pos, f.body.size());
            ++bodies;
        }
        QVERIFY(bodies >= 6);
        QVERIFY(records > bodies);
    }

    void goldenConsumeQueues_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addRow("TopicTest-0")
            << QStringLiteral("TopicTest-0-00000000000000000000.first4000");
        QTest::addRow("SCHEDULE-2")
            << QStringLiteral("SCHEDULE_TOPIC_XXXX-2-00000000000000000000.first4000");
    }

    void goldenConsumeQueues()
    {
        QFETCH(QString, name);
        const QByteArray cq
            = qrocket::testing::readVectorFile(QStringLiteral("store/consumequeue/") + name);
        QCOMPARE(cq.size(), qsizetype(4000));
        const QJsonArray entries
            = readJson(QStringLiteral("store/consumequeue/") + name + QStringLiteral(".json"))
                  .value(QLatin1String("entries"))
                  .toArray();
        QVERIFY(!entries.isEmpty());
        int crossChecked = 0;
        for (const QJsonValue &jv : entries) {
            const QJsonObject e = jv.toObject();
            const int index = e.value(QLatin1String("index")).toInt();
            const char *unit = cq.constData() + index * 20;
            if (e.value(QLatin1String("empty")).toBool()) {
                QCOMPARE(QByteArrayView(unit, 20), QByteArrayView(QByteArray(20, '\0')));
                continue;
            }
            const std::int64_t offset = readI64(unit);
            const std::int32_t size = readI32(unit + 8);
            const std::int64_t tagsCode = readI64(unit + 12);
            QCOMPARE(offset, e.value(QLatin1String("commitLogOffset")).toInteger());
            QCOMPARE(size, e.value(QLatin1String("size")).toInt());
            QCOMPARE(tagsCode, e.value(QLatin1String("tagsCode")).toInteger());
            if (offset + size > m_commitLog.size())
                continue;
            MessageRecordView v;
            const RecordDecodeResult r
                = decodeRecord(QByteArrayView(m_commitLog).sliced(offset), v, true);
            QCOMPARE(r.status, RecordStatus::Ok);
            QCOMPARE(r.size, size);
            const QJsonObject check = e.value(QLatin1String("check")).toObject();
            QCOMPARE(v.topic, check.value(QLatin1String("topic")).toString().toUtf8());
            QCOMPARE(v.queueOffset, std::int64_t(index));
            const QByteArrayView tags = findProperty(v.properties, MessageConst::Tags);
            if (v.topic == "SCHEDULE_TOPIC_XXXX")
                QCOMPARE(tagsCode, v.storeTimestamp + 10000);
            else
                QCOMPARE(tagsCode, std::int64_t(javaStringHash(tags)));
            ++crossChecked;
        }
        int inExcerpt = 0;
        for (const QJsonValue &jv : entries) {
            const QJsonObject check = jv.toObject().value(QLatin1String("check")).toObject();
            inExcerpt += check.value(QLatin1String("in_commitlog_excerpt")).toBool() ? 1 : 0;
        }
        QCOMPARE(crossChecked, inExcerpt);
    }

    void ipv6RecordHandWritten()
    {
        const QByteArray props("TAGS\x01t\x02UNIQ_KEY\x01"
                               "ABC");
        const QByteArray rec = handWrittenV6Record("payload", "V6Topic", props);
        QCOMPARE(rec.size(), qsizetype(91 + 24 + 7 + 7 + props.size()));
        MessageRecordView v;
        const RecordDecodeResult r = decodeRecord(rec, v, true);
        QVERIFY2(r.status == RecordStatus::Ok, qPrintable(r.error));
        QVERIFY(v.bornHost.v6);
        QVERIFY(v.storeHost.v6);
        QCOMPARE(v.bornHost.toString(), QByteArray("[fd00::2]:60734"));
        QCOMPARE(v.storeHost.toString(), QByteArray("[2001:db8::1]:20911"));
        QCOMPARE(v.storeTimestamp, std::int64_t(1796013328661LL));
        QCOMPARE(v.reconsumeTimes, 2);
        QCOMPARE(v.body, QByteArrayView("payload"));
        QCOMPARE(v.topic, QByteArrayView("V6Topic"));
        QCOMPARE(v.properties, QByteArrayView(props));
        // 56-digit offset msgId for an IPv6 store host.
        const QByteArray id = encodeOffsetMessageId(v.storeHost, v.physicalOffset);
        QCOMPARE(id, QByteArray("20010DB8000000000000000000000001000051AF0000000000001000"));
        const auto back = decodeOffsetMessageId(id);
        QVERIFY(back.has_value());
        QCOMPARE(back->storeHost, v.storeHost);
        QCOMPARE(back->commitLogOffset, std::int64_t(4096));

        // Encoding derives the v6 bits from the hosts.
        MessageRecordInput in = recordInputOf(v);
        in.sysFlag = SysFlag::Compressed;
        QCOMPARE(recordSize(in), std::int32_t(rec.size()));
        QCOMPARE(encodeRecord(in, 12, 4096, v.storeTimestamp), rec);
        // An IPv4 host never gets the v6 bit.
        in.bornHost = HostAddress::ipv4(0x7F000001, 1);
        in.sysFlag = SysFlag::Compressed | SysFlag::BornHostV6;
        const QByteArray mixed = encodeRecord(in, 12, 4096, v.storeTimestamp);
        QCOMPARE(mixed.size(), rec.size() - 12);
        QCOMPARE(decodeRecord(mixed, v, true).status, RecordStatus::Ok);
        QCOMPARE(v.sysFlag, SysFlag::Compressed | SysFlag::StoreHostV6);
        QCOMPARE(v.bornHost.toString(), QByteArray("127.0.0.1:1"));
    }

    void blankRecord()
    {
        QByteArray blank(8, '\0');
        writeI32(blank.data(), 1234);
        writeI32(blank.data() + 4, static_cast<std::int32_t>(0xCBD43194u));
        MessageRecordView v;
        RecordDecodeResult r = decodeRecord(blank, v, true);
        QCOMPARE(r.status, RecordStatus::Blank);
        QCOMPARE(r.size, 1234);
        writeI32(blank.data(), 4);
        QCOMPARE(decodeRecord(blank, v, true).status, RecordStatus::Invalid);
        // Zero-filled tail of a file: not a record.
        QCOMPARE(decodeRecord(QByteArray(64, '\0'), v, false).status, RecordStatus::Invalid);
        QCOMPARE(decodeRecord(QByteArray(5, '\0'), v, false).status, RecordStatus::Truncated);
    }

    void malformedRecords()
    {
        MessageRecordView v;
        const QByteArray good = m_commitLog.left(227);
        QCOMPARE(decodeRecord(good, v, true).status, RecordStatus::Ok);
        const auto expectInvalid = [&](QByteArray bad, const char *reason) {
            const RecordDecodeResult r = decodeRecord(bad, v, true);
            QVERIFY2(r.status == RecordStatus::Invalid, reason);
            QVERIFY2(!r.error.isEmpty(), reason);
        };
        QByteArray b = good;
        writeI32(b.data() + 4, 0x12345678);
        expectInvalid(b, "bad magic");
        b = good;
        writeI32(b.data(), 90);
        expectInvalid(b, "size below minimum");
        b = good;
        writeI32(b.data(), -1);
        expectInvalid(b, "negative size");
        b = good;
        writeI32(b.data() + 84, 100000);
        expectInvalid(b, "body length beyond record");
        b = good;
        writeI32(b.data() + 84, -3);
        expectInvalid(b, "negative body length");
        b = good;
        b[8] = char(b[8] ^ 0x10);
        expectInvalid(b, "crc mismatch");
        QCOMPARE(decodeRecord(b, v, false).status, RecordStatus::Ok); // CRC not asked
        b = good;
        writeI32(b.data() + 36, SysFlag::BornHostV6 | SysFlag::StoreHostV6);
        expectInvalid(b, "v6 flags shift every field");
        b = good;
        b.append("xyz");
        writeI32(b.data(), 230);
        expectInvalid(b, "TOTALSIZE larger than the fields");
        // Truncated anywhere inside.
        for (qsizetype n = 0; n < good.size(); ++n)
            QVERIFY(
                decodeRecord(QByteArrayView(good).first(n), v, true).status != RecordStatus::Ok);
    }

    void properties_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("expected"); // name=value;... after parsing
        QTest::addRow("java") << QByteArray("KEYS\x01k1 k2\x02TAGS\x01TagA\x02WAIT\x01true")
                              << QByteArray("KEYS=k1 k2;TAGS=TagA;WAIT=true");
        QTest::addRow("ali-ons-trailing")
            << QByteArray("TAGS\x01TagC\x02rt\x01x\x02") << QByteArray("TAGS=TagC;rt=x");
        QTest::addRow("empty") << QByteArray("") << QByteArray("");
        QTest::addRow("only-separators") << QByteArray("\x02\x02\x02") << QByteArray("");
        QTest::addRow("short-segment") << QByteArray("a\x01\x02"
                                                     "b\x01"
                                                     "c")
                                       << QByteArray("b=c");
        QTest::addRow("no-name") << QByteArray("\x01value\x02"
                                               "a\x01"
                                               "b")
                                 << QByteArray("a=b");
        QTest::addRow("no-value") << QByteArray("name\x01\x02"
                                                "a\x01"
                                                "b")
                                  << QByteArray("a=b");
        QTest::addRow("no-nv-separator") << QByteArray("garbage\x02"
                                                       "a\x01"
                                                       "b")
                                         << QByteArray("a=b");
        QTest::addRow("duplicate-last-wins") << QByteArray("a\x01"
                                                           "1\x02"
                                                           "b\x01"
                                                           "2\x02"
                                                           "a\x01"
                                                           "3")
                                             << QByteArray("a=3;b=2");
        QTest::addRow("value-with-nv-separator") << QByteArray("a\x01"
                                                               "b\x01"
                                                               "c")
                                                 << QByteArray("a=b\x01"
                                                               "c");
        QTest::addRow("utf8") << QByteArray("note\x01h\xc3\xa9llo \xe4\xb8\x96")
                              << QByteArray("note=h\xc3\xa9llo \xe4\xb8\x96");
    }

    void properties()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, expected);
        const MessageProperties props = MessageProperties::parse(text);
        QByteArrayList parts;
        for (const auto &[k, v] : props.entries())
            parts.append(k + '=' + v);
        QCOMPARE(parts.join(';'), expected);
        // Encoding then parsing again is stable, and never ends with a separator.
        const QByteArray encoded = props.encode();
        QVERIFY(!encoded.endsWith('\x02'));
        QCOMPARE(MessageProperties::parse(encoded), props);
        for (const auto &[k, v] : props.entries())
            QCOMPARE(findProperty(text, k), QByteArrayView(v));
        QVERIFY(findProperty(text, "absent").isNull());
    }

    void manyDuplicateProperties()
    {
        QByteArray text;
        for (int i = 0; i < 8000; ++i)
            text += "k" + QByteArray::number(i % 100) + "\x01v" + QByteArray::number(i) + "\x02";
        const MessageProperties p = MessageProperties::parse(text);
        QCOMPARE(p.size(), std::size_t(100));
        QCOMPARE(p.value("k0"), QByteArray("v7900"));
        QCOMPARE(p.entries()[0].first, QByteArray("k0"));
        QCOMPARE(findProperty(text, "k99"), QByteArrayView("v7999"));
    }

    void replacePropertiesMatchesRemoveThenAppend_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addRow("empty") << QByteArray();
        QTest::addRow("neither") << QByteArray("TAGS\x01t\x02KEYS\x01k");
        QTest::addRow("wait") << QByteArray("TAGS\x01t\x02WAIT\x01true");
        QTest::addRow("wait twice, trailing separator")
            << QByteArray("WAIT\x01true\x02TAGS\x01t\x02WAIT\x01"
                          "false\x02");
        QTest::addRow("cluster only") << QByteArray("CLUSTER\x01old\x02KEYS\x01k");
        QTest::addRow("both, empty segments") << QByteArray("\x02\x02WAIT\x01true\x02\x02"
                                                            "CLUSTER\x01x\x02KEYS\x01k");
        QTest::addRow("only invalid segments") << QByteArray("WAIT\x01\x02\x01x\x02"
                                                             "ab");
        QTest::addRow("trailing separator, nothing removed") << QByteArray("TAGS\x01t\x02");
        QTest::addRow("everything removed") << QByteArray("WAIT\x01true\x02"
                                                          "CLUSTER\x01"
                                                          "c");
    }

    void replacePropertiesMatchesRemoveThenAppend()
    {
        QFETCH(QByteArray, text);
        for (const QByteArray &extra : {QByteArray("CLUSTER\x01"
                                                   "DefaultCluster"),
                 QByteArray()}) {
            QByteArray expected = text;
            for (QByteArrayView name : {MessageConst::WaitStoreMsgOk, MessageConst::Cluster}) {
                if (!findProperty(expected, name).isNull())
                    expected = removeProperty(expected, name);
            }
            expected = appendProperties(expected, extra);
            QCOMPARE(replaceProperties(
                         text, {MessageConst::WaitStoreMsgOk, MessageConst::Cluster}, extra),
                expected);
        }
    }

    void propertiesEditing()
    {
        MessageProperties p;
        p.set(QByteArray(MessageConst::Tags.toByteArray()), "T");
        p.set("KEYS", "k");
        p.set("TAGS", "T2");
        p.set("EMPTY", "");
        QCOMPARE(p.encode(), QByteArray("TAGS\x01T2\x02KEYS\x01k"));
        QVERIFY(p.remove("TAGS"));
        QVERIFY(!p.remove("TAGS"));
        QCOMPARE(p.value("KEYS"), QByteArray("k"));
        QCOMPARE(p.value("X", "d"), QByteArray("d"));
        MessageProperties big;
        big.set("K", QByteArray(40000, 'x'));
        QVERIFY(!big.encodeChecked().has_value());
        QVERIFY(p.encodeChecked().has_value());

        const QByteArray text("WAIT\x01true\x02TAGS\x01t\x02WAIT\x01"
                              "false");
        QCOMPARE(removeProperty(text, "WAIT"), QByteArray("TAGS\x01t"));
        QCOMPARE(removeProperty(text, "NONE"), text);
        QCOMPARE(appendProperties("a\x01"
                                  "b",
                     "CLUSTER\x01"
                     "c"),
            QByteArray("a\x01"
                       "b\x02"
                       "CLUSTER\x01"
                       "c"));
        QCOMPARE(appendProperties("a\x01"
                                  "b\x02",
                     "c\x01"
                     "d"),
            QByteArray("a\x01"
                       "b\x02"
                       "c\x01"
                       "d"));
        QCOMPARE(appendProperties("",
                     "c\x01"
                     "d"),
            QByteArray("c\x01"
                       "d"));
        QCOMPARE(appendProperties("a\x01"
                                  "b",
                     ""),
            QByteArray("a\x01"
                       "b"));
    }

    /// encodeCheckedAppending(name, value) == set(name, value) then encodeChecked(), for
    /// properties with skipped (unencodable) entries, none at all, and an unencodable addition.
    void encodeCheckedAppendingMatchesSetThenEncode()
    {
        MessageProperties plain;
        plain.set("TAGS", "t");
        plain.set("KEYS", "k1 k2");
        MessageProperties skipped;
        skipped.set("EMPTY", "");
        skipped.set("BAD\x01NAME", "v");
        skipped.set("WAIT", "true");
        MessageProperties onlySkipped;
        onlySkipped.set("BAD", "x\x02y");
        for (const MessageProperties &given : {MessageProperties(), plain, skipped, onlySkipped}) {
            for (const QByteArray &value : {QByteArray("7F0000011A2B18B4AAC2"), QByteArray(),
                     QByteArray("a\x02"
                                "b")}) {
                MessageProperties set = given;
                set.set("UNIQ_KEY", value);
                const auto expected = set.encodeChecked();
                const auto appended = given.encodeCheckedAppending("UNIQ_KEY", value);
                QVERIFY(expected.has_value());
                QVERIFY(appended.has_value());
                QCOMPARE(*appended, *expected);
            }
        }
        MessageProperties big;
        big.set("K", QByteArray(32760, 'x'));
        QVERIFY(big.encodeChecked().has_value());
        QVERIFY(!big.encodeCheckedAppending("UNIQ_KEY", "0123456789").has_value());
    }

    void goldenBatch()
    {
        int batches = 0;
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            if (f.code != 320 || f.kind != QLatin1String("request"))
                continue;
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            QCOMPARE(cmd.extString("m"), QByteArrayView("true"));
            const auto items = decodeBatch(cmd.body, true);
            QVERIFY2(items.has_value(), qPrintable(items.status().toString()));
            QCOMPARE(items->size(), std::size_t(3));
            for (const BatchItemView &item : *items) {
                QVERIFY(!findProperty(item.properties, MessageConst::UniqClientMessageIdKeyIdx)
                             .isEmpty());
                QVERIFY(!item.body.isEmpty());
            }
            QCOMPARE(encodeBatch(*items), cmd.body);
            // The broker stored each inner body as its own record (BatchTest in the commit log).
            int found = 0;
            qsizetype pos = 0;
            while (pos < m_commitLog.size()) {
                MessageRecordView v;
                const RecordDecodeResult r
                    = decodeRecord(QByteArrayView(m_commitLog).sliced(pos), v, false);
                if (r.status != RecordStatus::Ok)
                    break;
                if (v.topic == "BatchTest") {
                    QCOMPARE(v.body, (*items)[std::size_t(found)].body);
                    const QByteArrayView uniq
                        = findProperty(v.properties, MessageConst::UniqClientMessageIdKeyIdx);
                    QCOMPARE(uniq,
                        findProperty((*items)[std::size_t(found)].properties,
                            MessageConst::UniqClientMessageIdKeyIdx));
                    ++found;
                }
                pos += r.size;
            }
            QCOMPARE(found, 3);
            ++batches;
        }
        QCOMPARE(batches, 1);
    }

    void malformedBatch()
    {
        std::vector<BatchItemView> in {{1, "body-1",
                                           "a\x01"
                                           "b"},
            {2, "", ""}};
        const QByteArray good = encodeBatch(in);
        QCOMPARE(good.size(), qsizetype(22 + 6 + 3 + 22));
        auto items = decodeBatch(good, true);
        QVERIFY(items.has_value());
        QCOMPARE(items->size(), std::size_t(2));
        QCOMPARE((*items)[0].flag, 1);
        QCOMPARE((*items)[0].body, QByteArrayView("body-1"));
        QCOMPARE((*items)[1].flag, 2);
        QVERIFY(decodeBatch(QByteArrayView(), true).has_value());
        for (qsizetype n = 1; n < good.size(); ++n) {
            if (n == 31)
                continue; // exactly the first item
            QVERIFY2(!decodeBatch(QByteArrayView(good).first(n), true).has_value(),
                qPrintable(QString::number(n)));
        }
        QByteArray b = good;
        writeI32(b.data() + 16, 1000);
        QVERIFY(!decodeBatch(b).has_value());
        b = good;
        writeI32(b.data(), 99);
        QVERIFY(!decodeBatch(b, true).has_value());
        QVERIFY(decodeBatch(b, false).has_value()); // Java ignores TOTALSIZE
        b = good;
        writeI16(b.data() + 26, -1);
        QVERIFY(!decodeBatch(b).has_value());
    }

    void offsetMessageId()
    {
        const auto id = decodeOffsetMessageId("7F000001000051AF00000000000000E3");
        QVERIFY(id.has_value());
        QCOMPARE(id->storeHost.toString(), QByteArray("127.0.0.1:20911"));
        QCOMPARE(id->commitLogOffset, std::int64_t(227));
        QVERIFY(decodeOffsetMessageId("7f000001000051af00000000000000e3").has_value());
        QVERIFY(!decodeOffsetMessageId("7F000001000051AF00000000000000E").has_value());
        QVERIFY(!decodeOffsetMessageId("7F000001000051AF00000000000000EZ").has_value());
        QVERIFY(!decodeOffsetMessageId("").has_value());
        // Every golden send response carries an offset msgId of the broker's store host.
        int checked = 0;
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            if (f.kind != QLatin1String("response") || f.requestCode != 310 || f.code != 0)
                continue;
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            const auto msgId = decodeOffsetMessageId(cmd.extString("msgId"));
            QVERIFY(msgId.has_value());
            QCOMPARE(msgId->storeHost.toString(), QByteArray("127.0.0.1:20911"));
            QCOMPARE(encodeOffsetMessageId(msgId->storeHost, msgId->commitLogOffset),
                cmd.extString("msgId").toByteArray());
            ++checked;
        }
        QVERIFY(checked >= 8);
    }

    void uniqueIds()
    {
        HostAddress ip;
        QVERIFY(HostAddress::parse("192.0.2.2", ip));
        UniqueIdGenerator gen(&ip, 0x12345);
        QSet<QByteArray> seen;
        const std::int64_t before = QDateTime::currentMSecsSinceEpoch();
        QByteArray first;
        for (int i = 0; i < 20000; ++i) {
            const QByteArray id = gen.next();
            QCOMPARE(id.size(), qsizetype(32));
            QCOMPARE(id, id.toUpper());
            QVERIFY(id.startsWith("C00002022345"));
            seen.insert(id);
            if (i == 0)
                first = id;
        }
        QCOMPARE(seen.size(), qsizetype(20000));
        std::int64_t start = 0;
        std::int64_t next = 0;
        monthBounds(before, start, next);
        QVERIFY(start <= before && before < next);
        const std::int64_t ts = UniqueIdGenerator::timestampOf(first, start);
        QVERIFY2(std::llabs(ts - before) < 5000, qPrintable(QString::fromLatin1(first)));
        HostAddress v6;
        QVERIFY(HostAddress::parse("[fd00::2]:1", v6));
        UniqueIdGenerator gen6(&v6);
        QCOMPARE(gen6.next().size(), qsizetype(56));
        UniqueIdGenerator anon;
        QCOMPARE(anon.next().size(), qsizetype(32));
        QCOMPARE(UniqueIdGenerator::timestampOf("xyz", 0), std::int64_t(-1));
    }

    void zlib()
    {
        QByteArray text;
        for (int i = 0; i < 240; ++i)
            text += "golden-vector-line-" + QByteArray::number(i).rightJustified(4, '0') + ';';
        const auto packed = zlibCompress(text);
        QVERIFY(packed.has_value());
        QCOMPARE(quint8(packed->at(0)), quint8(0x78)); // zlib header, not raw deflate or gzip
        QVERIFY(packed->size() < text.size() / 4);
        const auto unpacked = zlibDecompress(*packed);
        QVERIFY(unpacked.has_value());
        QCOMPARE(*unpacked, text);
        QCOMPARE(zlibDecompress(*zlibCompress(QByteArray())).value(), QByteArray());
        // Output cap.
        const auto capped = zlibDecompress(*packed, text.size() - 1);
        QVERIFY(!capped.has_value());
        QVERIFY(capped.error().message().contains(QLatin1String("limit")));
        QVERIFY(zlibDecompress(*packed, text.size()).has_value());
        const QByteArray bomb = zlibCompress(QByteArray(8 * 1024 * 1024, '\0')).value();
        QVERIFY(!zlibDecompress(bomb, 1024 * 1024).has_value());
        // Corrupt and truncated.
        QVERIFY(!zlibDecompress(packed->left(packed->size() / 2)).has_value());
        QVERIFY(!zlibDecompress("not zlib at all").has_value());
        QVERIFY(!zlibDecompress(QByteArray()).has_value());
        QByteArray corrupt = *packed;
        corrupt[corrupt.size() - 1] = char(corrupt[corrupt.size() - 1] ^ 0xFF); // adler32
        QVERIFY(!zlibDecompress(corrupt).has_value());
        // The Java client's compressed SEND_MESSAGE_V2 body (sysFlag 769).
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            if (f.scenario != QLatin1String("mqadmin-sendMessage-4k") || f.code != 310)
                continue;
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            QCOMPARE(cmd.extInt("f").value(), 769);
            QCOMPARE(zlibDecompress(cmd.body).value().size(), qsizetype(5760));
        }
    }

    void hostAddresses_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QByteArray>("canonical");
        QTest::addRow("v4") << QByteArray("127.0.0.1:20911") << true
                            << QByteArray("127.0.0.1:20911");
        QTest::addRow("v4-noport") << QByteArray("10.1.2.3") << true << QByteArray("10.1.2.3:0");
        QTest::addRow("v6") << QByteArray("[fd00::2]:10911") << true
                            << QByteArray("[fd00::2]:10911");
        QTest::addRow("v6-full") << QByteArray("[2001:0db8:0:0:1:0:0:1]:1") << true
                                 << QByteArray("[2001:db8::1:0:0:1]:1");
        QTest::addRow("v6-any") << QByteArray("[::]:5") << true << QByteArray("[::]:5");
        QTest::addRow("v6-bare") << QByteArray("fe80::1") << true << QByteArray("[fe80::1]:0");
        QTest::addRow("mapped") << QByteArray("::ffff:192.0.2.2") << true
                                << QByteArray("192.0.2.2:0");
        QTest::addRow("mapped-port")
            << QByteArray("[::ffff:127.0.0.1]:9876") << true << QByteArray("127.0.0.1:9876");
        QTest::addRow("v4-octet") << QByteArray("256.0.0.1:1") << false << QByteArray();
        QTest::addRow("v4-short") << QByteArray("1.2.3:1") << false << QByteArray();
        QTest::addRow("port-range") << QByteArray("1.2.3.4:70000") << false << QByteArray();
        QTest::addRow("port-empty") << QByteArray("1.2.3.4:") << false << QByteArray();
        QTest::addRow("v6-two-gaps") << QByteArray("[1::2::3]:1") << false << QByteArray();
        QTest::addRow("v6-unclosed") << QByteArray("[fd00::2:1") << false << QByteArray();
        QTest::addRow("v6-too-many")
            << QByteArray("[1:2:3:4:5:6:7:8:9]:1") << false << QByteArray();
        QTest::addRow("name") << QByteArray("localhost:1") << false << QByteArray();
        QTest::addRow("empty") << QByteArray("") << false << QByteArray();
    }

    void hostAddresses()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, ok);
        QFETCH(QByteArray, canonical);
        HostAddress h;
        QCOMPARE(HostAddress::parse(text, h), ok);
        if (ok) {
            QCOMPARE(h.toString(), canonical);
            HostAddress again;
            QVERIFY(HostAddress::parse(canonical, again));
            QCOMPARE(again, h);
        }
    }
};

QTEST_APPLESS_MAIN(tst_MessageCodec)
#include "tst_messagecodec.moc"
