// tst_TraceData: the message trace codec (clientlib/protocol/tracedata.h) against records built
// by hand in RocketMQ 4.9's layout, the Java client's shapes (a null tag or key list written as
// "null", older Pub and SubAfter shapes) and round trips of every type.

#include "clientlib/protocol/tracedata.h"

#include <QTest>

using namespace qrocket::protocol::trace;

namespace {

/// Joins `fields` with char 1 and ends the record with char 2, as Java's encoder does.
QByteArray record(const QList<QByteArray> &fields)
{
    QByteArray out = fields.join('\x01');
    out.append('\x02');
    return out;
}

TraceRecord pub()
{
    TraceRecord r;
    r.type = TraceType::Pub;
    r.timestamp = 1700000000123;
    r.regionId = "DefaultRegion";
    r.groupName = "PG";
    r.topic = "TopicTest";
    r.msgId = "7F00000100002A9F0000000000000001";
    r.tags = "TagA";
    r.keys = "k1 k2";
    r.storeHost = "127.0.0.1:10911";
    r.bodyLength = 11;
    r.costTime = 5;
    r.offsetMsgId = "7F00000100002A9F00000000000000C8";
    r.success = true;
    return r;
}

} // namespace

class tst_TraceData : public QObject
{
    Q_OBJECT

private slots:
    void pubLayout()
    {
        const QByteArray expected = record({"Pub", "1700000000123", "DefaultRegion", "PG",
            "TopicTest", "7F00000100002A9F0000000000000001", "TagA", "k1 k2", "127.0.0.1:10911",
            "11", "5", "0", "7F00000100002A9F00000000000000C8", "true"});
        QCOMPARE(encodeRecord(pub()), expected);
    }

    void subLayouts()
    {
        TraceRecord before;
        before.type = TraceType::SubBefore;
        before.timestamp = 1700000000200;
        before.regionId = "DefaultRegion";
        before.groupName = "CG";
        before.requestId = "REQ1";
        before.msgId = "M1";
        before.retryTimes = 2;
        QCOMPARE(encodeRecord(before),
            record(
                {"SubBefore", "1700000000200", "DefaultRegion", "CG", "REQ1", "M1", "2", "null"}));
        TraceRecord after;
        after.type = TraceType::SubAfter;
        after.requestId = "REQ1";
        after.msgId = "M1";
        after.costTime = 7;
        after.success = false;
        after.keys = "k";
        after.contextCode = 4;
        after.timestamp = 1700000000207;
        after.groupName = "CG";
        QCOMPARE(encodeRecord(after),
            record({"SubAfter", "REQ1", "M1", "7", "false", "k", "4", "1700000000207", "CG"}));
    }

    void endTransactionLayout()
    {
        TraceRecord r;
        r.type = TraceType::EndTransaction;
        r.timestamp = 1700000000300;
        r.regionId = "DefaultRegion";
        r.groupName = "TG";
        r.topic = "T";
        r.msgId = "M2";
        r.storeHost = "127.0.0.1:10911";
        r.msgType = TraceMessageType::TransHalf;
        r.transactionId = "TX1";
        r.transactionState = "COMMIT_MESSAGE";
        r.fromTransactionCheck = true;
        const QByteArray text = encodeRecord(r);
        QCOMPARE(text,
            record({"EndTransaction", "1700000000300", "DefaultRegion", "TG", "T", "M2", "null",
                "null", "127.0.0.1:10911", "1", "TX1", "COMMIT_MESSAGE", "true"}));
        const std::vector<TraceRecord> back = decodeRecords(text);
        QCOMPARE(back.size(), std::size_t(1));
        QVERIFY(back[0] == r);
    }

    void javaShapedBody()
    {
        // What a Java 4.9.7 producer and consumer write for a message without tags or keys:
        // the null strings, three records in one trace message.
        const QByteArray body
            = record({"Pub", "1700000000123", "DefaultRegion", "please_rename_unique_group_name",
                  "TopicTest", "AC110001474C18B4AAC2712D5B1E0000", "null", "null",
                  "172.17.0.1:10911", "11", "37", "0", "AC11000100002A9F0000000000000F3A", "true"})
            + record({"SubBefore", "1700000000180", "DefaultRegion", "please_rename_group",
                "AC110001475118B4AAC27130B2A80003", "AC110001474C18B4AAC2712D5B1E0000", "0",
                "null"})
            + record(
                {"SubAfter", "AC110001475118B4AAC27130B2A80003", "AC110001474C18B4AAC2712D5B1E0000",
                    "2", "true", "null", "0", "1700000000182", "please_rename_group"});
        int malformed = -1;
        const std::vector<TraceRecord> records = decodeRecords(body, &malformed);
        QCOMPARE(malformed, 0);
        QCOMPARE(records.size(), std::size_t(3));
        QCOMPARE(records[0].type, TraceType::Pub);
        QCOMPARE(records[0].groupName, QByteArray("please_rename_unique_group_name"));
        QCOMPARE(records[0].tags, QByteArray());
        QCOMPARE(records[0].keys, QByteArray());
        QCOMPARE(records[0].costTime, 37);
        QCOMPARE(records[0].bodyLength, 11);
        QCOMPARE(records[0].offsetMsgId, QByteArray("AC11000100002A9F0000000000000F3A"));
        QVERIFY(records[0].success);
        QCOMPARE(records[1].type, TraceType::SubBefore);
        QCOMPARE(records[1].requestId, QByteArray("AC110001475118B4AAC27130B2A80003"));
        QCOMPARE(records[1].msgId, records[0].msgId);
        QCOMPARE(records[2].type, TraceType::SubAfter);
        QCOMPARE(records[2].requestId, records[1].requestId);
        QCOMPARE(records[2].groupName, QByteArray("please_rename_group"));
        QCOMPARE(records[2].timestamp, std::int64_t(1700000000182));
        QCOMPARE(records[2].costTime, 2);
        // Our writer gives the same bytes for the same records.
        QCOMPARE(
            encodeRecord(records[0]) + encodeRecord(records[1]) + encodeRecord(records[2]), body);
    }

    void olderShapes()
    {
        // Pub without offsetMsgId (13 fields) and with a clientHost (15); SubAfter of 6 fields.
        const QByteArray body
            = record({"Pub", "1", "R", "G", "T", "M", "t", "k", "h:1", "3", "4", "3", "false"})
            + record({"Pub", "2", "R", "G", "T", "M", "t", "k", "h:1", "3", "4", "0", "O", "true",
                "10.0.0.9"})
            + record({"SubAfter", "REQ", "M", "9", "TRUE", "k"});
        const std::vector<TraceRecord> r = decodeRecords(body);
        QCOMPARE(r.size(), std::size_t(3));
        QVERIFY(!r[0].success);
        QCOMPARE(r[0].msgType, TraceMessageType::Delay);
        QVERIFY(r[0].offsetMsgId.isEmpty());
        QCOMPARE(r[1].offsetMsgId, QByteArray("O"));
        QCOMPARE(r[1].clientHost, QByteArray("10.0.0.9"));
        QVERIFY(r[2].success);
        QCOMPARE(r[2].costTime, 9);
        QCOMPARE(r[2].contextCode, 0);
        QVERIFY(r[2].groupName.isEmpty());
    }

    void malformedSkipped()
    {
        const QByteArray body = record({"Pub", "notanumber", "R", "G", "T", "M", "t", "k", "h", "3",
                                    "4", "0", "O", "true"})
            + record({"Recall", "1", "x"}) + record({"SubBefore", "1", "R"})
            + record({"Pub", "1", "R", "G", "T", "M", "t", "k", "h", "3", "4", "9", "O", "true"})
            + encodeRecord(pub());
        int malformed = 0;
        const std::vector<TraceRecord> r = decodeRecords(body, &malformed);
        QCOMPARE(malformed, 4);
        QCOMPARE(r.size(), std::size_t(1));
        QVERIFY(r[0] == pub());
        QVERIFY(decodeRecords(QByteArrayView()).empty());
        QVERIFY(decodeRecords("\x02\x02").empty());
    }

    void roundTripEveryType()
    {
        std::vector<TraceRecord> all;
        all.push_back(pub());
        TraceRecord b = pub();
        b.type = TraceType::SubBefore;
        b.topic.clear();
        b.tags.clear();
        b.storeHost.clear();
        b.offsetMsgId.clear();
        b.bodyLength = 0;
        b.costTime = 0;
        b.requestId = "R";
        b.retryTimes = 3;
        all.push_back(b);
        TraceRecord a;
        a.type = TraceType::SubAfter;
        a.requestId = "R";
        a.msgId = "M";
        a.costTime = 12;
        a.success = false;
        a.contextCode = 1;
        a.timestamp = 99;
        a.groupName = "CG";
        all.push_back(a);
        QByteArray body;
        for (const TraceRecord &r : all)
            appendRecord(body, r);
        const std::vector<TraceRecord> back = decodeRecords(body);
        QCOMPARE(back.size(), all.size());
        for (std::size_t i = 0; i < all.size(); ++i)
            QVERIFY2(back[i] == all[i], traceTypeName(all[i].type));
    }

    void keysIndexTheMsgId()
    {
        std::vector<QByteArray> keys;
        appendTraceKeys(keys, pub());
        QCOMPARE(keys, (std::vector<QByteArray> {"7F00000100002A9F0000000000000001", "k1", "k2"}));
        TraceRecord noKeys = pub();
        noKeys.keys.clear();
        keys.clear();
        appendTraceKeys(keys, noKeys);
        QCOMPARE(keys.size(), std::size_t(1));
    }
};

QTEST_APPLESS_MAIN(tst_TraceData)
#include "tst_tracedata.moc"
