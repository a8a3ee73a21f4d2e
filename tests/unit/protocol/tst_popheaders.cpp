// RocketMQ 5.3's POP wire formats (clientlib/protocol/headers/popheaders.h, bodies/popbodies.h)
// and the broker's revive-log records (broker/pop/popcheckpoint.h): the receipt handle as
// ExtraInfoUtil writes it, the pop response's offset strings, the batch-ack body with its
// java.util.BitSet bytes, the request-mode table, and that malformed input is refused.

#include "broker/pop/popcheckpoint.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;

class tst_PopHeaders final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void codes()
    {
        QCOMPARE(popcode::PopMessage, 200050);
        QCOMPARE(popcode::BatchAckMessage, 200151);
        QCOMPARE(QByteArray(requestCodeName(200053)), QByteArray("CHANGE_MESSAGE_INVISIBLETIME"));
        QCOMPARE(QByteArray(requestCodeName(402)), QByteArray("GET_ALL_MESSAGE_REQUEST_MODE"));
    }

    void retryTopics()
    {
        QCOMPARE(popRetryTopicV1("T", "G"), QByteArray("%RETRY%G_T"));
        QCOMPARE(popRetryTopicV2("T", "G"), QByteArray("%RETRY%G+T"));
        QCOMPARE(popRetryFlag("T"), '0');
        QCOMPARE(popRetryFlag("%RETRY%G_T"), '1');
        QCOMPARE(popRetryFlag("%RETRY%G+T"), '2');
        QCOMPARE(*popRealTopic("T", "G", '1'), QByteArray("%RETRY%G_T"));
        QVERIFY(!popRealTopic("T", "G", '7'));
    }

    void extraInfo()
    {
        // ExtraInfoUtil.buildExtraInfo(5, 1700000000000, 30000, 2, "T", "broker-a", 3, 7)
        const QByteArray text = "5 1700000000000 30000 2 0 broker-a 3 7";
        const auto e = ExtraInfo::parse(text);
        QVERIFY(e);
        QCOMPARE(e->ckQueueOffset, 5);
        QCOMPARE(e->popTime, 1700000000000);
        QCOMPARE(e->invisibleTime, 30000);
        QCOMPARE(e->reviveQid, 2);
        QCOMPARE(e->retry, '0');
        QCOMPARE(e->brokerName, QByteArray("broker-a"));
        QCOMPARE(e->queueId, 3);
        QCOMPARE(e->queueOffset, 7);
        QCOMPARE(e->toString(), text);
        const auto seven = ExtraInfo::parse("5 1 2 3 1 b 4");
        QVERIFY(seven && seven->queueOffset == -1);
        QCOMPARE(seven->toString(), QByteArray("5 1 2 3 1 b 4"));
        for (const char *bad : {"", "1 2 3", "x 1 2 3 0 b 4", "1 2 3 4 9 b 4", "1 2 3 4 0 b q",
                 "1 2 3 4 0 b 4 z", "1  2 3 4 0 b 4"})
            QVERIFY2(!ExtraInfo::parse(bad), bad);
    }

    void offsetInfos()
    {
        QByteArray start;
        appendStartOffsetInfo(start, '0', 1, 10);
        appendStartOffsetInfo(start, '1', 0, 3);
        QCOMPARE(start, QByteArray("0 1 10;1 0 3"));
        QByteArray msg;
        appendMsgOffsetInfo(msg, '0', 1, {10, 11, 13});
        appendMsgOffsetInfo(msg, '1', 0, {3});
        QCOMPARE(msg, QByteArray("0 1 10,11,13;1 0 3"));
        const auto s = parseStartOffsetInfo(start);
        QVERIFY(s && s->size() == 2 && (*s)[1].retry == '1' && (*s)[1].value == 3);
        const auto m = parseMsgOffsetInfo(msg);
        QVERIFY(m && m->size() == 2);
        QCOMPARE((*m)[0].offsets, (std::vector<std::int64_t> {10, 11, 13}));
        QVERIFY(!parseMsgOffsetInfo("0 1"));
        QVERIFY(!parseStartOffsetInfo("0 1 x"));
        QVERIFY(parseStartOffsetInfo("")->empty());
    }

    void batchAckBody()
    {
        // fastjson of a BatchAck with BitSet {0, 2, 9}: toByteArray() = [0x05, 0x02].
        const QByteArray json = "{\"acks\":[{\"b\":\"BQI=\",\"c\":\"G\",\"it\":30000,\"pt\":17,"
                                "\"q\":1,\"r\":\"0\",\"rq\":2,\"so\":100,\"t\":\"T\"}],"
                                "\"brokerName\":\"broker-a\"}";
        auto body = BatchAckMessageRequestBody::fromJson(json);
        QVERIFY2(body, qPrintable(body.status().message()));
        QCOMPARE(body->brokerName, QByteArray("broker-a"));
        QCOMPARE(body->acks.size(), std::size_t(1));
        const BatchAck &a = body->acks[0];
        QCOMPARE(a.consumerGroup, QByteArray("G"));
        QCOMPARE(a.startOffset, 100);
        QCOMPARE(a.offsets, (std::vector<std::int64_t> {100, 102, 109}));
        QCOMPARE(BatchAckMessageRequestBody::fromJson(body->toJson())->acks[0].offsets, a.offsets);
        QVERIFY(body->toJson().contains("\"b\":\"BQI=\""));
        // Long names too.
        auto longNames = BatchAckMessageRequestBody::fromJson(
            "{\"acks\":[{\"consumerGroup\":\"G\",\"topic\":\"T\",\"startOffset\":1,"
            "\"bitSet\":\"AQ==\"}]}");
        QVERIFY(longNames && longNames->acks[0].offsets == std::vector<std::int64_t> {1});
        // A bit set past 4096 bits is refused, so is garbage.
        const QByteArray huge
            = "{\"acks\":[{\"b\":\"" + QByteArray(600, '\xff').toBase64() + "\"}]}";
        QVERIFY(!BatchAckMessageRequestBody::fromJson(huge));
        QVERIFY(!BatchAckMessageRequestBody::fromJson("{\"acks\":[1]}"));
        QVERIFY(!BatchAckMessageRequestBody::fromJson("nope"));
    }

    void requestModeTable()
    {
        MessageRequestModeTable t;
        SetMessageRequestModeRequestBody b;
        b.topic = "T";
        b.consumerGroup = "G";
        b.mode = "POP";
        b.popShareQueueNum = 2;
        t.modes["T"]["G"] = b;
        const QByteArray json = t.toJson();
        QCOMPARE(json,
            QByteArray("{\"messageRequestModeMap\":{\"T\":{\"G\":{\"consumerGroup\":\"G\","
                       "\"mode\":\"POP\",\"popShareQueueNum\":2,\"topic\":\"T\"}}}}"));
        auto back = MessageRequestModeTable::fromJson(json);
        QVERIFY(back);
        QCOMPARE(back->modes["T"]["G"].popShareQueueNum, 2);
        QVERIFY(!SetMessageRequestModeRequestBody::fromJson("{\"mode\":\"PUSH\"}"));
    }

    void reviveLogRecords()
    {
        using namespace qrocket::broker::pop;
        CheckPoint ck;
        ck.group = "G";
        ck.topic = "%RETRY%G_T";
        ck.queueId = 0;
        ck.startOffset = 4;
        ck.popTime = 99;
        ck.invisibleTime = 1000;
        ck.attempt = 2;
        ck.order = true;
        ck.nextBeginOffset = 7;
        ck.offsets = {4, 6};
        ck.movedFrom = CheckPointKey {1, 50};
        const auto r = parseLogRecord(encodeCheckPoint(ck));
        QVERIFY(r && r->type == LogRecord::Type::CheckPoint);
        QCOMPARE(r->ck.topic, ck.topic);
        QCOMPARE(r->ck.offsets, ck.offsets);
        QCOMPARE(r->ck.attempt, 2);
        QVERIFY(r->ck.order);
        QVERIFY(r->ck.movedFrom && r->ck.movedFrom->popTime == 50);
        QCOMPARE(r->ck.states.size(), std::size_t(2));
        const auto ak = parseLogRecord(encodeSettle(LogRecord::Type::Ack, ck, {6}));
        QVERIFY(ak && ak->type == LogRecord::Type::Ack
            && ak->ck.offsets == std::vector<std::int64_t> {6});
        for (const char *bad : {"", "CK", "XX G T 0 1 2 3", "AK G T 0 1 2", "AK G T x 1 2 3",
                 "CK G T 0 1 2 3 0 2 5 1,2,", "RV G T -1 1 2 3"})
            QVERIFY2(!parseLogRecord(bad), bad);
    }
};

QTEST_APPLESS_MAIN(tst_PopHeaders)
#include "tst_popheaders.moc"
