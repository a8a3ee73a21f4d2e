// tst_SendHeader: the one SEND_MESSAGE header decoder (clientlib/protocol/headers/sendheaders.h)
// in both its readings: decode() as Java's header decoder refuses, decodeSend() as the broker's
// send path reads (RocketMQ's remark wording, optional numbers tolerated). Both must agree on
// every header they both accept, write -> read must give the header back, and the captured
// frames of real clients decode.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "goldenvectors.h"

#include <QTest>

#include <limits>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

SendMessageRequestHeader fullHeader()
{
    SendMessageRequestHeader h;
    h.producerGroup = "PG";
    h.topic = "T";
    h.defaultTopic = "TBW102";
    h.defaultTopicQueueNums = 4;
    h.queueId = 2;
    h.sysFlag = 0x301;
    h.bornTimestamp = 1700000000000LL;
    h.flag = 5;
    h.properties = "TAGS\x01t\x02KEYS\x01k";
    h.reconsumeTimes = 1;
    h.unitMode = true;
    h.maxReconsumeTimes = 16;
    h.batch = true;
    h.brokerName = "broker-a";
    return h;
}

/// A request with the required fields set, `text` in queueId, reconsumeTimes and
/// maxReconsumeTimes.
RemotingCommand numbersRequest(bool v2, const QByteArray &text)
{
    RemotingCommand request = RemotingCommand::createRequest(v2 ? 310 : 10);
    const auto key = [v2](const char *v1Name, char letter) {
        return v2 ? QByteArray(1, letter) : QByteArray(v1Name);
    };
    request.setExt(key("producerGroup", 'a'), QByteArrayLiteral("G"));
    request.setExt(key("topic", 'b'), QByteArrayLiteral("T"));
    request.setExt(key("defaultTopic", 'c'), QByteArrayLiteral("TBW102"));
    request.setExt(key("defaultTopicQueueNums", 'd'), QByteArrayLiteral("4"));
    request.setExt(key("queueId", 'e'), text);
    request.setExt(key("sysFlag", 'f'), QByteArrayLiteral("0"));
    request.setExt(key("bornTimestamp", 'g'), QByteArrayLiteral("1700000000000"));
    request.setExt(key("flag", 'h'), QByteArrayLiteral("0"));
    request.setExt(key("reconsumeTimes", 'j'), text);
    request.setExt(key("maxReconsumeTimes", 'l'), text);
    return request;
}

} // namespace

class tst_SendHeader : public QObject
{
    Q_OBJECT

private slots:
    /// encode -> decode -> equal, for every code and both readings.
    void roundTrip()
    {
        for (int code : {10, 310, 320, 324, 325}) {
            SendMessageRequestHeader h = fullHeader();
            RemotingCommand cmd = RemotingCommand::createRequest(code);
            h.encode(cmd);
            const auto strict = SendMessageRequestHeader::decode(cmd);
            QVERIFY2(strict.has_value(), qPrintable(QString::number(code)));
            QCOMPARE(*strict, h);
            QByteArray remark;
            const auto send = SendMessageRequestHeader::decodeSend(cmd, &remark);
            QVERIFY(send.has_value());
            QCOMPARE(*send, h);
            QVERIFY(remark.isEmpty());
        }
        // Optional fields absent stay absent.
        SendMessageRequestHeader minimal = fullHeader();
        minimal.properties = QByteArray();
        minimal.reconsumeTimes.reset();
        minimal.maxReconsumeTimes.reset();
        minimal.unitMode = false;
        minimal.batch = false;
        minimal.brokerName = QByteArray();
        RemotingCommand cmd = RemotingCommand::createRequest(310);
        minimal.encode(cmd);
        QCOMPARE(*SendMessageRequestHeader::decode(cmd), minimal);
        QByteArray remark;
        QCOMPARE(*SendMessageRequestHeader::decodeSend(cmd, &remark), minimal);

        SendMessageResponseHeader r {"7F000001000051AF0000000000000000", 1, 7, "tx", "R", "true"};
        RemotingCommand response
            = RemotingCommand::createResponse(RemotingCommand::createRequest(310), 0);
        r.encode(response);
        QCOMPARE(*SendMessageResponseHeader::decode(response), r);
    }

    /// encodeV2() into a fresh command (every send's path: static keys, numbers sharing one
    /// buffer) writes exactly what the field table writes into a command that already has
    /// fields, and its values stay '\0'-terminated and independent of each other.
    void encodeV2FastPathMatchesTable()
    {
        SendMessageRequestHeader extremes = fullHeader();
        extremes.defaultTopicQueueNums = std::numeric_limits<std::int32_t>::min();
        extremes.queueId = std::numeric_limits<std::int32_t>::max();
        extremes.sysFlag = -1;
        extremes.bornTimestamp = std::numeric_limits<std::int64_t>::min();
        extremes.flag = 0;
        extremes.reconsumeTimes = std::numeric_limits<std::int32_t>::min();
        extremes.maxReconsumeTimes = -7;
        SendMessageRequestHeader minimal = fullHeader();
        minimal.properties = QByteArray();
        minimal.reconsumeTimes.reset();
        minimal.maxReconsumeTimes.reset();
        minimal.brokerName = QByteArray();
        for (const SendMessageRequestHeader &h : {fullHeader(), extremes, minimal}) {
            RemotingCommand fast = RemotingCommand::createRequest(310);
            h.encodeV2(fast);
            RemotingCommand table = RemotingCommand::createRequest(310);
            table.setExt(QByteArrayLiteral("zz"), QByteArrayLiteral("first")); // general path
            h.encodeV2(table);
            QVERIFY(table.removeExt("zz"));
            QCOMPARE(fast.extFields, table.extFields);
            QCOMPARE(encodeFrame(fast), encodeFrame(table));
            for (const auto &[key, value] : fast.extFields)
                QCOMPARE(qstrlen(value.constData()), static_cast<std::size_t>(value.size()));
            QCOMPARE(*SendMessageRequestHeader::decode(fast), h);
        }
        // A value written to detaches from the shared number buffer.
        RemotingCommand cmd = RemotingCommand::createRequest(310);
        fullHeader().encodeV2(cmd);
        QByteArray *queueId = nullptr;
        for (auto &[key, value] : cmd.extFields)
            if (key == "e")
                queueId = &value;
        QVERIFY(queueId);
        queueId->append("99");
        QCOMPARE(cmd.extString("e"), QByteArrayView("299"));
        QCOMPARE(cmd.extString("d"), QByteArrayView("4"));
        QCOMPARE(cmd.extString("f"), QByteArrayView("769"));
    }

    void headerNumbers_data()
    {
        QTest::addColumn<QByteArray>("text");
        for (const char *t : {"0", "4", "9", "04", "12", "99", "100", "-1", "+3", "-0", "1a", "a",
                 "", " 1", "2147483647", "2147483648", "-2147483648", "-2147483649", "0x1", "1.0"})
            QTest::addRow("%s", t) << QByteArray(t);
    }
    /// The int fields read as Long.parseLong, then the int32 range (nullopt otherwise); a
    /// required one that does not parse refuses the header. (Moved from tst_sendproperties with
    /// the broker's decoder.)
    void headerNumbers()
    {
        QFETCH(QByteArray, text);
        const auto parsed = protocol::parseJavaLong(text);
        const bool valid = parsed && *parsed >= std::numeric_limits<std::int32_t>::min()
            && *parsed <= std::numeric_limits<std::int32_t>::max();
        for (const bool v2 : {true, false}) {
            const RemotingCommand request = numbersRequest(v2, text);
            QByteArray error;
            const auto h = SendMessageRequestHeader::decodeSend(request, &error);
            QCOMPARE(h.has_value(), valid);
            QCOMPARE(SendMessageRequestHeader::decode(request).has_value(), valid);
            if (!valid) {
                QVERIFY(!error.isEmpty());
                continue;
            }
            QCOMPARE(h->queueId, static_cast<int>(*parsed));
            QCOMPARE(h->reconsumeTimes.value_or(-12345), static_cast<int>(*parsed));
            QCOMPARE(h->maxReconsumeTimes.value_or(-12345), static_cast<int>(*parsed));
            QCOMPARE(h->defaultTopicQueueNums, 4);
            QCOMPARE(h->bornTimestamp, std::int64_t(1700000000000));
        }
    }

    /// What each reading refuses, and how it says so.
    void refusals()
    {
        RemotingCommand cmd = numbersRequest(true, "1");
        // decodeSend: every required field's presence before any number, RocketMQ's wording.
        cmd.setExt("d", QByteArrayLiteral("x"));
        cmd.removeExt("h");
        QByteArray remark;
        QVERIFY(!SendMessageRequestHeader::decodeSend(cmd, &remark));
        QCOMPARE(remark, QByteArray("the custom field <h> is null"));
        // decode: the fields in order, Java's decoder's message.
        auto strict = SendMessageRequestHeader::decode(cmd);
        QVERIFY(!strict);
        QVERIFY2(strict.error().message().contains(
                     QLatin1String("SendMessageRequestHeaderV2: field 'd' is not an int")),
            qPrintable(strict.error().message()));
        cmd.setExt("h", QByteArrayLiteral("0"));
        QVERIFY(!SendMessageRequestHeader::decodeSend(cmd, &remark));
        QCOMPARE(
            remark, QByteArray("malformed send message header: a numeric field is not a number"));
        cmd.setExt("d", QByteArrayLiteral("4"));
        cmd.setExt("g", QByteArrayLiteral("99999999999999999999"));
        strict = SendMessageRequestHeader::decode(cmd);
        QVERIFY(strict.error().message().contains(QLatin1String("field 'g' is not a long")));

        // An optional number that does not parse: refused by decode, absent for decodeSend.
        cmd.setExt("g", QByteArrayLiteral("1"));
        cmd.setExt("j", QByteArrayLiteral("many"));
        cmd.setExt("l", QByteArrayLiteral("3000000000"));
        QVERIFY(!SendMessageRequestHeader::decode(cmd));
        const auto lenient = SendMessageRequestHeader::decodeSend(cmd, &remark);
        QVERIFY(lenient);
        QVERIFY(!lenient->reconsumeTimes && !lenient->maxReconsumeTimes);

        // V1 names in the remark; the first of duplicate keys wins.
        RemotingCommand v1 = numbersRequest(false, "1");
        v1.removeExt("topic");
        QVERIFY(!SendMessageRequestHeader::decodeSend(v1, &remark));
        QCOMPARE(remark, QByteArray("the custom field <topic> is null"));
        QVERIFY(SendMessageRequestHeader::decode(v1).error().message().contains(
            QLatin1String("SendMessageRequestHeader: missing required field "
                          "'topic'")));
        v1.extFields.emplace_back(QByteArrayLiteral("topic"), QByteArrayLiteral("first"));
        v1.extFields.emplace_back(QByteArrayLiteral("topic"), QByteArrayLiteral("second"));
        QCOMPARE(SendMessageRequestHeader::decodeSend(v1, &remark)->topic, QByteArray("first"));
        QCOMPARE(SendMessageRequestHeader::decode(v1)->topic, QByteArray("first"));
    }

    /// Every send the real clients sent reads the same both ways.
    void goldenFramesBothReadings()
    {
        int sends = 0;
        for (const auto &f : qrocket::testing::loadGoldenFrames()) {
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            if (cmd.isResponse()
                || (cmd.code != 10 && cmd.code != 310 && cmd.code != 320 && cmd.code != 324
                    && cmd.code != 325))
                continue;
            const auto strict = SendMessageRequestHeader::decode(cmd);
            QByteArray remark;
            const auto send = SendMessageRequestHeader::decodeSend(cmd, &remark);
            QVERIFY2(strict.has_value(), qPrintable(QString::number(f.id)));
            QVERIFY(send.has_value());
            QCOMPARE(*send, *strict);
            // Written back, read again: the same header.
            RemotingCommand again = RemotingCommand::createRequest(cmd.code);
            strict->encode(again);
            QCOMPARE(*SendMessageRequestHeader::decode(again), *strict);
            ++sends;
        }
        QVERIFY(sends > 0);
    }
};

QTEST_APPLESS_MAIN(tst_SendHeader)
#include "tst_sendheader.moc"
