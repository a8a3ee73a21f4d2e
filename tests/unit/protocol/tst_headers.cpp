// Typed request/response headers (protocol.md §3, §4) against the captured frames, plus required
// fields, number parsing and the SEND V1/V2 key conversion.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/headers/pullheaders.h"
#include "clientlib/protocol/headers/queryheaders.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/headers/transactionheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "goldenvectors.h"

#include <QTest>

#include <functional>
#include <map>

using namespace qrocket;
using namespace qrocket::protocol;
using qrocket::testing::GoldenFrame;

namespace {

/// Decodes with H, re-encodes into a fresh command and decodes again: the typed values survive.
template<typename H>
QString roundTrip(const RemotingCommand &cmd)
{
    auto h = H::decode(cmd);
    if (!h.has_value())
        return h.error().toString();
    RemotingCommand again = RemotingCommand::createRequest(cmd.code);
    h->encode(again);
    auto h2 = H::decode(again);
    if (!h2.has_value())
        return QStringLiteral("re-decode: ") + h2.error().toString();
    RemotingCommand third = RemotingCommand::createRequest(cmd.code);
    h2->encode(third);
    if (third.extFields != again.extFields)
        return QStringLiteral("re-encoding differs");
    // Every field the typed header knows keeps its text (modulo canonical bools).
    for (const auto &[key, value] : again.extFields) {
        const QByteArray *orig = cmd.ext(key);
        if (orig && *orig != value && !(value == "false" && orig->toLower() != "true")
            && !(value == "true" && orig->toLower() == "true"))
            return QStringLiteral("field %1: '%2' became '%3'")
                .arg(QString::fromUtf8(key), QString::fromUtf8(*orig), QString::fromUtf8(value));
    }
    return {};
}

using Checker = std::function<QString(const RemotingCommand &)>;

} // namespace

class tst_Headers : public QObject
{
    Q_OBJECT

private slots:
    void goldenRequests()
    {
        const std::map<int, Checker> requests = {
            {103, roundTrip<RegisterBrokerRequestHeader>},
            {104, roundTrip<UnregisterBrokerRequestHeader>},
            {105, roundTrip<GetRouteInfoRequestHeader>},
            {100, roundTrip<PutKVConfigRequestHeader>},
            {10, roundTrip<SendMessageRequestHeader>},
            {310, roundTrip<SendMessageRequestHeader>},
            {320, roundTrip<SendMessageRequestHeader>},
            {11, roundTrip<PullMessageRequestHeader>},
            {12, roundTrip<QueryMessageRequestHeader>},
            {14, roundTrip<QueryConsumerOffsetRequestHeader>},
            {15, roundTrip<UpdateConsumerOffsetRequestHeader>},
            {17, roundTrip<CreateTopicRequestHeader>},
            {30, roundTrip<GetMaxOffsetRequestHeader>},
            {33, roundTrip<ViewMessageRequestHeader>},
            {35, roundTrip<UnregisterClientRequestHeader>},
            {36, roundTrip<ConsumerSendMsgBackRequestHeader>},
            {38, roundTrip<GetConsumerListByGroupRequestHeader>},
            {40, roundTrip<NotifyConsumerIdsChangedRequestHeader>},
            {202, roundTrip<GetTopicStatsInfoRequestHeader>},
            {203, roundTrip<GetConsumerConnectionListRequestHeader>},
            {208, roundTrip<GetConsumeStatsRequestHeader>},
            {300, roundTrip<QueryTopicConsumeByWhoRequestHeader>},
        };
        const std::map<int, Checker> responses = {
            {310, roundTrip<SendMessageResponseHeader>},
            {320, roundTrip<SendMessageResponseHeader>},
            {14, roundTrip<QueryConsumerOffsetResponseHeader>},
            {30, roundTrip<GetMaxOffsetResponseHeader>},
            {12, roundTrip<QueryMessageResponseHeader>},
        };
        std::map<int, int> seen;
        for (const GoldenFrame &f : qrocket::testing::loadGoldenFrames()) {
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            QString error;
            if (!cmd.isResponse()) {
                const auto it = requests.find(cmd.code);
                if (it == requests.end())
                    continue;
                error = it->second(cmd);
                ++seen[cmd.code];
            } else if (cmd.code == 0) {
                const auto it = responses.find(f.requestCode);
                if (it != responses.end()) {
                    error = it->second(cmd);
                    ++seen[1000 + f.requestCode];
                }
                if (f.requestCode == 11) {
                    error = roundTrip<PullMessageResponseHeader>(cmd);
                    ++seen[1011];
                }
            } else if (f.requestCode == 11 && (cmd.code == 19 || cmd.code == 25)) {
                if (cmd.code == 19)
                    error = roundTrip<PullMessageResponseHeader>(cmd);
            }
            QVERIFY2(error.isEmpty(),
                qPrintable(
                    QStringLiteral("frame %1 (code %2): %3").arg(f.id).arg(cmd.code).arg(error)));
        }
        for (const auto &[code, checker] : requests) {
            if (code != 10) // no V1 sends in the capture
                QVERIFY2(seen[code] > 0, qPrintable(QString::number(code)));
        }
        QVERIFY(seen[1310] > 0);
        QVERIFY(seen[1011] > 0);
    }

    void typedValuesFromClients()
    {
        for (const GoldenFrame &f : qrocket::testing::loadGoldenFrames()) {
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            if (f.id == 43) { // Java mqadmin SEND_MESSAGE_V2
                const auto h = SendMessageRequestHeader::decode(cmd);
                QVERIFY(h.has_value());
                QCOMPARE(h->producerGroup, QByteArray("1796013327958"));
                QCOMPARE(h->topic, QByteArray("VecTopic"));
                QCOMPARE(h->defaultTopic, QByteArray("TBW102"));
                QCOMPARE(h->defaultTopicQueueNums, 4);
                QCOMPARE(h->queueId, 1);
                QCOMPARE(h->bornTimestamp, std::int64_t(1796013328622LL));
                QCOMPARE(h->reconsumeTimes.value(), 0);
                QCOMPARE(h->batch, false);
                QCOMPARE(h->brokerName, QByteArray("broker-a"));
                QVERIFY(h->properties.contains("UNIQ_KEY"));
            } else if (f.id == 112) { // ali-ons numbers and booleans
                const auto h = SendMessageRequestHeader::decode(cmd);
                QVERIFY(h.has_value());
                QCOMPARE(h->bornTimestamp, std::int64_t(1796013402055LL));
                QCOMPARE(h->unitMode, false);
                QVERIFY(!h->maxReconsumeTimes.has_value());
            } else if (f.id == 64) {
                QVERIFY(SendMessageRequestHeader::decode(cmd)->batch);
            } else if (f.id == 92) { // cpp pull: ints as numbers, longs as strings
                const auto h = PullMessageRequestHeader::decode(cmd);
                QVERIFY(h.has_value());
                QCOMPARE(h->maxMsgNums, 32);
                QCOMPARE(h->sysFlag, PullSysFlag::Suspend | PullSysFlag::Subscription);
                QCOMPARE(h->suspendTimeoutMillis, std::int64_t(15000));
                QCOMPARE(h->subscription, QByteArray("*"));
                QVERIFY(h->expressionType.isNull());
            } else if (f.id == 1) {
                const auto h = RegisterBrokerRequestHeader::decode(cmd);
                QVERIFY(h.has_value());
                QCOMPARE(h->brokerId, std::int64_t(0));
                QCOMPARE(h->compressed, false);
                QCOMPARE(h->bodyCrc32, 942065949);
                QCOMPARE(h->haServerAddr, QByteArray("192.0.2.2:20912"));
            } else if (f.id == 148) { // ali-ons send-back
                const auto h = ConsumerSendMsgBackRequestHeader::decode(cmd);
                QVERIFY(h.has_value());
                QCOMPARE(h->offset, std::int64_t(37455));
                QCOMPARE(h->maxReconsumeTimes.value(), 16);
                QCOMPARE(h->originMsgId, QByteArray("7F000001000051AF000000000000924F"));
            }
        }
    }

    void sendV1V2Conversion()
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
        h.properties = "TAGS\x01t";
        h.reconsumeTimes = 1;
        h.maxReconsumeTimes = 16;
        h.batch = true;

        RemotingCommand v2 = RemotingCommand::createRequest(toInt(RequestCode::SendMessageV2));
        h.encode(v2);
        QCOMPARE(v2.extString("a"), QByteArrayView("PG"));
        QCOMPARE(v2.extString("f"), QByteArrayView("769"));
        QCOMPARE(v2.extString("g"), QByteArrayView("1700000000000"));
        QCOMPARE(v2.extString("l"), QByteArrayView("16"));
        QCOMPARE(v2.extString("m"), QByteArrayView("true"));
        QVERIFY(!v2.hasExt("n"));
        QVERIFY(!v2.hasExt("topic"));

        RemotingCommand v1 = RemotingCommand::createRequest(toInt(RequestCode::SendMessage));
        h.encode(v1);
        QCOMPARE(v1.extString("producerGroup"), QByteArrayView("PG"));
        QCOMPARE(v1.extString("batch"), QByteArrayView("true"));
        QVERIFY(!v1.hasExt("a"));

        const auto fromV2 = SendMessageRequestHeader::decode(v2);
        const auto fromV1 = SendMessageRequestHeader::decode(v1);
        QVERIFY(fromV2.has_value());
        QVERIFY(fromV1.has_value());
        for (const auto *d : {&*fromV1, &*fromV2}) {
            QCOMPARE(d->producerGroup, h.producerGroup);
            QCOMPARE(d->sysFlag, h.sysFlag);
            QCOMPARE(d->bornTimestamp, h.bornTimestamp);
            QCOMPARE(d->properties, h.properties);
            QCOMPARE(d->maxReconsumeTimes, h.maxReconsumeTimes);
            QCOMPARE(d->batch, true);
        }
        // Batch code 320 and reply V2 use the V2 keys too.
        QVERIFY(SendMessageRequestHeader::usesV2(320));
        QVERIFY(SendMessageRequestHeader::usesV2(325));
        QVERIFY(!SendMessageRequestHeader::usesV2(324));
    }

    void requiredAndBadFields()
    {
        RemotingCommand cmd = RemotingCommand::createRequest(11);
        cmd.setExt("consumerGroup", QByteArray("G"));
        cmd.setExt("topic", QByteArray("T"));
        cmd.setExt("queueId", QByteArray("1"));
        cmd.setExt("queueOffset", QByteArray("0"));
        cmd.setExt("maxMsgNums", QByteArray("32"));
        cmd.setExt("sysFlag", QByteArray("2"));
        cmd.setExt("commitOffset", QByteArray("0"));
        cmd.setExt("suspendTimeoutMillis", QByteArray("15000"));
        auto h = PullMessageRequestHeader::decode(cmd);
        QVERIFY(!h.has_value());
        QVERIFY2(h.error().message().contains(QLatin1String("'subVersion'")),
            qPrintable(h.error().toString()));
        QVERIFY(h.error().message().contains(QLatin1String("PullMessageRequestHeader")));
        cmd.setExt("subVersion", QByteArray("1"));
        QVERIFY(PullMessageRequestHeader::decode(cmd).has_value());
        cmd.setExt("queueId", QByteArray("x1"));
        h = PullMessageRequestHeader::decode(cmd);
        QVERIFY(!h.has_value());
        QVERIFY(h.error().message().contains(QLatin1String("'queueId' is not an int")));
        cmd.setExt("queueId", QByteArray("2147483648"));
        QVERIFY(!PullMessageRequestHeader::decode(cmd).has_value());
        cmd.setExt("queueId", QByteArray("-1"));
        QCOMPARE(PullMessageRequestHeader::decode(cmd)->queueId, -1);
        cmd.setExt("queueOffset", QByteArray("9223372036854775808"));
        QVERIFY(!PullMessageRequestHeader::decode(cmd).has_value());
        cmd.setExt("queueOffset", QByteArray("9223372036854775807"));
        QCOMPARE(PullMessageRequestHeader::decode(cmd)->queueOffset,
            std::numeric_limits<std::int64_t>::max());
        // An optional number that is not a number is still an error (Java's NumberFormatException).
        RemotingCommand back = RemotingCommand::createRequest(36);
        back.setExt("offset", QByteArray("1"));
        back.setExt("group", QByteArray("G"));
        back.setExt("delayLevel", QByteArray("0"));
        QVERIFY(ConsumerSendMsgBackRequestHeader::decode(back).has_value());
        QVERIFY(!ConsumerSendMsgBackRequestHeader::decode(back)->maxReconsumeTimes.has_value());
        back.setExt("maxReconsumeTimes", QByteArray("lots"));
        QVERIFY(!ConsumerSendMsgBackRequestHeader::decode(back).has_value());
        // Booleans: anything but "true" is false.
        back.removeExt("maxReconsumeTimes");
        back.setExt("unitMode", QByteArray("yes"));
        QCOMPARE(ConsumerSendMsgBackRequestHeader::decode(back)->unitMode, false);
        back.setExt("unitMode", QByteArray("TRUE"));
        QCOMPARE(ConsumerSendMsgBackRequestHeader::decode(back)->unitMode, true);
        // Empty required strings are present (Java only checks for null).
        RemotingCommand kv = RemotingCommand::createRequest(101);
        kv.setExt("namespace", QByteArray(""));
        kv.setExt("key", QByteArray("k"));
        const auto g = GetKVConfigRequestHeader::decode(kv);
        QVERIFY(g.has_value());
        QVERIFY(g->nameSpace.isEmpty() && !g->nameSpace.isNull());
    }

    void responseHeaders()
    {
        SendMessageResponseHeader r;
        r.msgId = "7F000001000051AF0000000000000000";
        r.queueId = 1;
        r.queueOffset = 7;
        r.msgRegion = "DefaultRegion";
        r.traceOn = "true";
        RemotingCommand cmd
            = RemotingCommand::createResponse(RemotingCommand::createRequest(310), 0);
        r.encode(cmd);
        QCOMPARE(cmd.extString("MSG_REGION"), QByteArrayView("DefaultRegion"));
        QCOMPARE(cmd.extString("queueOffset"), QByteArrayView("7"));
        QVERIFY(!cmd.hasExt("transactionId"));
        PullMessageResponseHeader p {1, 2, 3, 4};
        RemotingCommand pc;
        p.encode(pc);
        QCOMPARE(pc.extString("suggestWhichBrokerId"), QByteArrayView("1"));
        QCOMPARE(pc.extString("maxOffset"), QByteArrayView("4"));
        QueryDataVersionResponseHeader q;
        RemotingCommand qc;
        q.encode(qc);
        QVERIFY(qc.extFields.empty());
        q.changed = true;
        q.encode(qc);
        QCOMPARE(qc.extString("changed"), QByteArrayView("true"));
    }

    /// UPDATE_AND_CREATE_TOPIC's RocketMQ 5 "attributes" field: written only when given, so a
    /// request without attributes has the fields (and order) it had before the field existed,
    /// and mqadmin 4.9.7's captured request decodes with none.
    void createTopicAttributes()
    {
        CreateTopicRequestHeader h;
        h.topic = "T";
        h.defaultTopic = "TBW102";
        h.readQueueNums = 2;
        h.writeQueueNums = 3;
        h.perm = 6;
        h.topicFilterType = "SINGLE_TAG";
        h.topicSysFlag = 0;
        const std::vector<RemotingCommand::ExtField> before
            = {{"topic", "T"}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
                {"writeQueueNums", "3"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}};
        RemotingCommand plain = RemotingCommand::createRequest(17);
        h.encode(plain);
        QCOMPARE(plain.extFields, before);

        h.attributes = "+message.type=FIFO";
        RemotingCommand with = RemotingCommand::createRequest(17);
        h.encode(with);
        std::vector<RemotingCommand::ExtField> expected = before;
        expected.emplace_back("attributes", "+message.type=FIFO");
        QCOMPARE(with.extFields, expected);
        const auto back = CreateTopicRequestHeader::decode(with);
        QVERIFY(back.has_value());
        QCOMPARE(back->attributes, QByteArray("+message.type=FIFO"));
        QVERIFY(CreateTopicRequestHeader::decode(plain)->attributes.isNull());

        bool sawMqadmin = false;
        for (const GoldenFrame &f : qrocket::testing::loadGoldenFrames()) {
            if (f.scenario != QLatin1String("mqadmin-updateTopic") || f.code != 17
                || f.kind != QLatin1String("request"))
                continue;
            RemotingCommand cmd;
            QCOMPARE(decodeFrame(f.frame, cmd).status, DecodeStatus::Ok);
            const auto d = CreateTopicRequestHeader::decode(cmd);
            QVERIFY(d.has_value());
            QVERIFY(d->attributes.isNull());
            RemotingCommand again = RemotingCommand::createRequest(17);
            d->encode(again);
            QVERIFY(!again.hasExt("attributes"));
            // Every field re-encoded is one mqadmin sent, with its text.
            for (const auto &[key, value] : again.extFields) {
                QVERIFY2(cmd.ext(key) && *cmd.ext(key) == value, key.constData());
            }
            sawMqadmin = true;
        }
        QVERIFY(sawMqadmin);
    }

    void codeNames()
    {
        QCOMPARE(QByteArray(requestCodeName(toInt(RequestCode::SendMessageV2))),
            QByteArray("SEND_MESSAGE_V2"));
        QCOMPARE(QByteArray(requestCodeName(105)), QByteArray("GET_ROUTEINFO_BY_TOPIC"));
        QCOMPARE(QByteArray(requestCodeName(329)), QByteArray("DELETE_EXPIRED_COMMITLOG"));
        QCOMPARE(QByteArray(requestCodeName(3001)), QByteArray("AUTH_CREATE_USER"));
        QCOMPARE(QByteArray(requestCodeName(3010)), QByteArray("AUTH_LIST_ACL"));
        QCOMPARE(responseCodeLabel(29), QByteArray("INVALID_PARAMETER(29)"));
        QVERIFY(requestCodeName(999) == nullptr);
        QCOMPARE(requestCodeLabel(999), QByteArray("UNKNOWN(999)"));
        QCOMPARE(responseCodeLabel(toInt(ResponseCode::TopicNotExist)),
            QByteArray("TOPIC_NOT_EXIST(17)"));
        QCOMPARE(toInt(ResponseCode::FlowControl), 215);
        QCOMPARE(toInt(RequestCode::QueryDataVersion), 322);
        QCOMPARE(QByteArray(responseCodeName(206)), QByteArray("CONSUMER_NOT_ONLINE"));
        // Every code in the capture has a name.
        for (const GoldenFrame &f : qrocket::testing::loadGoldenFrames()) {
            if (f.kind == QLatin1String("response"))
                QVERIFY2(responseCodeName(f.code), qPrintable(QString::number(f.code)));
            else
                QVERIFY2(requestCodeName(f.code), qPrintable(QString::number(f.code)));
        }
    }
};

QTEST_APPLESS_MAIN(tst_Headers)
#include "tst_headers.moc"
