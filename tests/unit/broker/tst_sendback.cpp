// CONSUMER_SEND_MSG_BACK (protocol.md §4.5, §8.4) against a real store: retry vs DLQ, the delay
// level, RETRY_TOPIC, ORIGIN_MESSAGE_ID, reconsumeTimes, and the error codes.

#include "broker/processors/sendbackprocessor.h"
#include "clientlib/protocol/messageid.h"
#include "tests/unit/broker/tst_schedulefixture.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;
using protocol::MessageProperties;
using protocol::RemotingCommand;
using testing::ExtrasFixture;

namespace {

constexpr const char *kGroup = "G1";

struct Stored
{
    std::int64_t offset = 0;
    QByteArray offsetMsgId;
};

Stored putOriginal(ExtrasFixture &f, int reconsumeTimes = 0, MessageProperties extra = {})
{
    MessageProperties p;
    p.set("TAGS", "TagA");
    p.set("KEYS", "k1");
    p.set("UNIQ_KEY", "7F0000015A6E301ED0659655B77E0000");
    for (const auto &[k, v] : extra.entries())
        p.set(k, v);
    auto m = ExtrasFixture::message("OrigTopic", 2, "the body", p);
    m.reconsumeTimes = reconsumeTimes;
    m.flag = 5;
    const storage::PutMessageResult r = f.put(m);
    return {r.wroteOffset, protocol::encodeOffsetMessageId(m.storeHost, r.wroteOffset)};
}

RemotingCommand sendBack(std::int64_t offset, int delayLevel, int version = 407,
    std::optional<int> maxReconsumeTimes = std::nullopt)
{
    RemotingCommand r = ExtrasFixture::request(36,
        {{"offset", QByteArray::number(offset)}, {"group", kGroup},
            {"delayLevel", QByteArray::number(delayLevel)}});
    r.version = version;
    if (maxReconsumeTimes)
        r.setExt("maxReconsumeTimes", *maxReconsumeTimes);
    return r;
}

} // namespace

class tst_SendBack : public QObject
{
    Q_OBJECT

private slots:
    void retryGoesThroughScheduleWithLevelThreePlusReconsumeTimes()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        const Stored orig = putOriginal(f, 1);
        SendBackProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, sendBack(orig.offset, 0));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        QVERIFY(resp->isResponse());
        QVERIFY(f.store->waitForDispatch(5000));
        QVERIFY(f.topics->contains("%RETRY%G1"));
        QVERIFY(f.registerCalls.load() >= 1);

        // level 3 + 1 = 4 -> SCHEDULE_TOPIC_XXXX queue 3
        QCOMPARE(f.store->maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 3), 1);
        storage::GetMessageResult keep;
        auto rec = f.recordAt("SCHEDULE_TOPIC_XXXX", 3, 0, keep);
        QVERIFY(rec);
        QCOMPARE(rec->reconsumeTimes, 2);
        QCOMPARE(rec->flag, 5);
        QCOMPARE(rec->body.toByteArray(), QByteArray("the body"));
        const MessageProperties props = MessageProperties::parse(rec->properties);
        QCOMPARE(props.value("REAL_TOPIC"), QByteArray("%RETRY%G1"));
        QCOMPARE(props.value("REAL_QID"), QByteArray("0"));
        QCOMPARE(props.value("DELAY"), QByteArray("4"));
        QCOMPARE(props.value("RETRY_TOPIC"), QByteArray("OrigTopic"));
        QCOMPARE(props.value("ORIGIN_MESSAGE_ID"), orig.offsetMsgId);
        QCOMPARE(props.value("WAIT"), QByteArray("false"));
        QCOMPARE(props.value("KEYS"), QByteArray("k1"));
        QCOMPARE(props.value("UNIQ_KEY"), QByteArray("7F0000015A6E301ED0659655B77E0000"));

        // Due: it appears in %RETRY%G1 with RETRY_TOPIC, no DELAY.
        f.fakeNow = f.now() + 31 * 1000;
        f.schedule->deliverLevel(4);
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("%RETRY%G1", 0), 1);
        auto retry = f.recordAt("%RETRY%G1", 0, 0, keep);
        QVERIFY(retry);
        QCOMPARE(retry->reconsumeTimes, 2);
        const MessageProperties rp = MessageProperties::parse(retry->properties);
        QCOMPARE(rp.value("RETRY_TOPIC"), QByteArray("OrigTopic"));
        QCOMPARE(rp.value("ORIGIN_MESSAGE_ID"), orig.offsetMsgId);
        QVERIFY(!rp.contains("DELAY"));
    }

    void explicitDelayLevelAndExistingOriginKept()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        MessageProperties extra;
        extra.set("ORIGIN_MESSAGE_ID", "AAAA");
        extra.set("RETRY_TOPIC", "First");
        const Stored orig = putOriginal(f, 0, extra);
        SendBackProcessor p(f.ctx);
        QCOMPARE(ExtrasFixture::call(p, sendBack(orig.offset, 1))->code, 0);
        QVERIFY(f.store->waitForDispatch(5000));
        storage::GetMessageResult keep;
        auto rec = f.recordAt("SCHEDULE_TOPIC_XXXX", 0, 0, keep);
        QVERIFY(rec);
        const MessageProperties props = MessageProperties::parse(rec->properties);
        QCOMPARE(props.value("ORIGIN_MESSAGE_ID"), QByteArray("AAAA"));
        QCOMPARE(props.value("RETRY_TOPIC"), QByteArray("First"));
        QCOMPARE(rec->reconsumeTimes, 1);
    }

    void deadLetterAfterMaxReconsumeTimes_data()
    {
        QTest::addColumn<int>("reconsumeTimes");
        QTest::addColumn<int>("delayLevel");
        QTest::addColumn<int>("version");
        QTest::addColumn<int>("headerMax");
        QTest::addColumn<bool>("dlq");
        QTest::addRow("16 of 16") << 16 << 0 << 407 << -1 << true;
        QTest::addRow("15 of 16") << 15 << 0 << 407 << -1 << false;
        QTest::addRow("delay -1") << 0 << -1 << 407 << -1 << true;
        QTest::addRow("header max 2") << 2 << 0 << 407 << 2 << true;
        QTest::addRow("header max ignored before v121") << 2 << 0 << 120 << 2 << false;
    }
    void deadLetterAfterMaxReconsumeTimes()
    {
        QFETCH(int, reconsumeTimes);
        QFETCH(int, delayLevel);
        QFETCH(int, version);
        QFETCH(int, headerMax);
        QFETCH(bool, dlq);
        ExtrasFixture f;
        QVERIFY(f.open());
        const Stored orig = putOriginal(f, reconsumeTimes);
        SendBackProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p,
            sendBack(orig.offset, delayLevel, version,
                headerMax >= 0 ? std::optional<int>(headerMax) : std::nullopt));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("%DLQ%G1", 0), dlq ? 1 : 0);
        QCOMPARE(f.topics->contains("%DLQ%G1"), dlq);
        if (dlq) {
            storage::GetMessageResult keep;
            auto rec = f.recordAt("%DLQ%G1", 0, 0, keep);
            QVERIFY(rec);
            QCOMPARE(rec->reconsumeTimes, reconsumeTimes + 1);
            const MessageProperties props = MessageProperties::parse(rec->properties);
            QVERIFY(!props.contains("DELAY"));
            QCOMPARE(props.value("ORIGIN_MESSAGE_ID"), orig.offsetMsgId);
            QCOMPARE(props.value("RETRY_TOPIC"), QByteArray("OrigTopic"));
        }
    }

    void unknownGroupIs26()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        f.groups = std::make_unique<SubscriptionGroupManager>(
            false, SubscriptionGroupManager::filePath(f.dir.path() + QStringLiteral("/other")));
        f.ctx.subscriptionGroups = f.groups.get();
        const Stored orig = putOriginal(f);
        SendBackProcessor p(f.ctx);
        QCOMPARE(ExtrasFixture::call(p, sendBack(orig.offset, 0))->code, 26);
    }

    void groupLongerThan120IsRefusedBeforeAnythingIsStored()
    {
        // One send-back with a 200-character group used to create a retry topic the commit
        // log refuses, parked for delivery: its delay level then retried it every 10 s forever.
        ExtrasFixture f;
        QVERIFY(f.open());
        const Stored orig = putOriginal(f);
        const std::int64_t scheduled = f.store->maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 2);
        SendBackProcessor p(f.ctx);
        RemotingCommand r = sendBack(orig.offset, 0);
        const QByteArray group(200, 'g');
        r.setExt("group", group);
        const auto resp = ExtrasFixture::call(p, r);
        QCOMPARE(resp->code, 1);
        QVERIFY2(resp->remark.contains("longer than 120"), resp->remark.constData());
        QVERIFY(!f.topics->contains("%RETRY%" + group));
        QVERIFY(!f.groups->find(group));
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 2), scheduled);
        // A 120-character group is fine (its retry topic has 127).
        r.setExt("group", QByteArray(120, 'g'));
        QCOMPARE(ExtrasFixture::call(p, r)->code, 0);
    }

    void missingMessageIs1()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        putOriginal(f);
        SendBackProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, sendBack(999999, 0));
        QCOMPARE(resp->code, 1);
        QVERIFY(resp->remark.contains("999999"));
    }

    void missingFieldIs1()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        SendBackProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, ExtrasFixture::request(36, {{"group", kGroup}}));
        QCOMPARE(resp->code, 1);
    }

    void noRetryQueuesDropsWithSuccess()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        protocol::SubscriptionGroupConfig g(kGroup);
        g.retryQueueNums = 0;
        QVERIFY(f.groups->update(g));
        const Stored orig = putOriginal(f);
        SendBackProcessor p(f.ctx);
        QCOMPARE(ExtrasFixture::call(p, sendBack(orig.offset, 0))->code, 0);
        QVERIFY(!f.topics->contains("%RETRY%G1"));
    }

    void goldenAliOnsRequestAccepted()
    {
        // ali-ons sends numbers and booleans as JSON scalars (frames.jsonl id 148).
        ExtrasFixture f;
        QVERIFY(f.open());
        const Stored orig = putOriginal(f);
        RemotingCommand r = ExtrasFixture::request(36,
            {{"offset", QByteArray::number(orig.offset)}, {"group", kGroup}, {"delayLevel", "0"},
                {"originMsgId", orig.offsetMsgId}, {"originTopic", "OrigTopic"},
                {"unitMode", "false"}, {"maxReconsumeTimes", "16"}});
        r.version = 121;
        SendBackProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, r);
        QCOMPARE(resp->code, 0);
        QVERIFY(resp->remark.isNull());
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 2), 1);
    }
};

QTEST_GUILESS_MAIN(tst_SendBack)
#include "tst_sendback.moc"
