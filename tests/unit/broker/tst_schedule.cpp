// ScheduleMessageService and the delay-level transform (protocol.md §8.3) against a real store.

#include "broker/schedule/scheduletransform.h"
#include "clientlib/common/hash.h"
#include "tests/unit/broker/tst_schedulefixture.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;
using protocol::MessageProperties;
using testing::ExtrasFixture;

namespace {

MessageProperties props(std::initializer_list<std::pair<const char *, const char *>> list)
{
    MessageProperties p;
    for (const auto &[k, v] : list)
        p.set(QByteArray(k), QByteArray(v));
    return p;
}

const schedule::DelayLevels kLevels {1000, 5000, 10000};

} // namespace

class tst_Schedule : public QObject
{
    Q_OBJECT

private slots:
    void transformParksDelayedMessage()
    {
        auto m = ExtrasFixture::message("T", 3, "body", props({{"TAGS", "TagA"}, {"DELAY", "2"}}));
        QCOMPARE(schedule::applyDelayLevel(m, kLevels), 2);
        QCOMPARE(m.topic, QByteArray("SCHEDULE_TOPIC_XXXX"));
        QCOMPARE(m.queueId, 1);
        const MessageProperties p = MessageProperties::parse(m.properties);
        QCOMPARE(p.value("REAL_TOPIC"), QByteArray("T"));
        QCOMPARE(p.value("REAL_QID"), QByteArray("3"));
        QCOMPARE(p.value("DELAY"), QByteArray("2"));
        QCOMPARE(p.value("TAGS"), QByteArray("TagA"));
    }

    void transformClampsToMaxLevel()
    {
        auto m = ExtrasFixture::message("T", 0, "b", props({{"DELAY", "40"}}));
        QCOMPARE(schedule::applyDelayLevel(m, kLevels), 3);
        QCOMPARE(m.queueId, 2);
        QCOMPARE(MessageProperties::parse(m.properties).value("DELAY"), QByteArray("3"));
    }

    void transformLeavesOthersAlone_data()
    {
        QTest::addColumn<QByteArray>("delay");
        QTest::addColumn<int>("sysFlag");
        QTest::addRow("no delay") << QByteArray() << 0;
        QTest::addRow("delay 0") << QByteArray("0") << 0;
        QTest::addRow("negative") << QByteArray("-1") << 0;
        QTest::addRow("garbage") << QByteArray("x") << 0;
        QTest::addRow("prepared tx")
            << QByteArray("2") << int(protocol::SysFlag::TransactionPrepared);
        QTest::addRow("rollback tx")
            << QByteArray("2") << int(protocol::SysFlag::TransactionRollback);
    }
    void transformLeavesOthersAlone()
    {
        QFETCH(QByteArray, delay);
        QFETCH(int, sysFlag);
        MessageProperties p = props({{"TAGS", "x"}});
        if (!delay.isNull())
            p.set("DELAY", delay);
        auto m = ExtrasFixture::message("T", 1, "b", p);
        m.sysFlag = sysFlag;
        const QByteArray before = m.properties;
        QCOMPARE(schedule::applyDelayLevel(m, kLevels), 0);
        QCOMPARE(m.topic, QByteArray("T"));
        QCOMPARE(m.properties, before);
    }

    void commitTxIsDelayed()
    {
        auto m = ExtrasFixture::message("T", 1, "b", props({{"DELAY", "1"}}));
        m.sysFlag = protocol::SysFlag::TransactionCommit;
        QCOMPARE(schedule::applyDelayLevel(m, kLevels), 1);
    }

    void tagsCodeIsDeliveryTime()
    {
        protocol::MessageRecordView v;
        v.topic = "SCHEDULE_TOPIC_XXXX";
        v.storeTimestamp = 1000000;
        const QByteArray p = props({{"DELAY", "3"}, {"TAGS", "TagA"}}).encode();
        v.properties = p;
        QCOMPARE(schedule::tagsCodeOf(v, kLevels), 1010000);
        v.topic = "T";
        QCOMPARE(schedule::tagsCodeOf(v, kLevels), std::int64_t(javaStringHash("TagA")));
        const QByteArray none = props({{"KEYS", "k"}}).encode();
        v.properties = none;
        QCOMPARE(schedule::tagsCodeOf(v, kLevels), 0);
    }

    void deliverTimeClampedWhenClockWentBack()
    {
        QCOMPARE(schedule::correctDeliverTimestamp(1000, 1500, 1000), 1500);
        QCOMPARE(schedule::correctDeliverTimestamp(1000, 2000, 1000), 2000);
        QCOMPARE(schedule::correctDeliverTimestamp(1000, 2001, 1000), 1000);
    }

    void timeUpRestoresRealDestination()
    {
        auto m = ExtrasFixture::message("Real", 2, "payload",
            props({{"TAGS", "TagB"}, {"KEYS", "k1"}, {"DELAY", "1"}, {"u", "v"}}));
        m.flag = 7;
        m.reconsumeTimes = 3;
        m.sysFlag = protocol::SysFlag::Compressed;
        schedule::applyDelayLevel(m, kLevels);
        protocol::MessageRecordInput in;
        in.topic = m.topic;
        in.queueId = m.queueId;
        in.flag = m.flag;
        in.sysFlag = m.sysFlag;
        in.bornTimestamp = 42;
        in.bornHost = m.bornHost;
        in.storeHost = m.storeHost;
        in.reconsumeTimes = m.reconsumeTimes;
        in.body = m.body;
        in.properties = m.properties;
        in.bodyCrc = crc32Masked(m.body);
        const QByteArray bytes = protocol::encodeRecord(in, 0, 100, 5000);
        protocol::MessageRecordView rec;
        QCOMPARE(protocol::decodeRecord(bytes, rec, true).status, protocol::RecordStatus::Ok);

        protocol::HostAddress host;
        QVERIFY(protocol::HostAddress::parse("10.0.0.1:10911", host));
        auto out = schedule::messageTimeUp(rec, host);
        QVERIFY(out.has_value());
        const storage::MessageExtBrokerInner &d = out.value();
        QCOMPARE(d.topic, QByteArray("Real"));
        QCOMPARE(d.queueId, 2);
        QCOMPARE(d.flag, 7);
        QCOMPARE(d.reconsumeTimes, 3);
        QCOMPARE(d.sysFlag, protocol::SysFlag::Compressed);
        QCOMPARE(d.bornTimestamp, 42);
        QCOMPARE(d.body, QByteArray("payload"));
        QCOMPARE(d.storeHost, host);
        QVERIFY(!d.waitStoreMsgOk);
        QCOMPARE(d.tagsCode, std::int64_t(javaStringHash("TagB")));
        const MessageProperties p = MessageProperties::parse(d.properties);
        QVERIFY(!p.contains("DELAY"));
        QVERIFY(!p.contains("REAL_TOPIC"));
        QVERIFY(!p.contains("REAL_QID"));
        QCOMPARE(p.value("WAIT"), QByteArray("false"));
        QCOMPARE(p.value("KEYS"), QByteArray("k1"));
        QCOMPARE(p.value("u"), QByteArray("v"));
    }

    void timeUpRejectsRecordWithoutRealTopic()
    {
        protocol::MessageRecordView rec;
        const QByteArray p = props({{"DELAY", "1"}}).encode();
        rec.properties = p;
        QVERIFY(!schedule::messageTimeUp(rec, {}).has_value());
    }

    void deliversWhenDueOnly()
    {
        ExtrasFixture f;
        f.fakeNow = 1'800'000'000'000;
        QVERIFY(f.open(QStringLiteral("1s 5s 10s")));
        auto m = ExtrasFixture::message(
            "DelayT", 1, "hello", props({{"TAGS", "TagD"}, {"DELAY", "2"}}));
        QCOMPARE(f.schedule->transform(m), 2);
        QVERIFY(f.put(m).isOk());
        QCOMPARE(f.store->maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 1), 1);
        // The CQ unit carries the delivery time.
        storage::ConsumeQueue::Unit unit;
        QVERIFY(f.store->findConsumeQueue("SCHEDULE_TOPIC_XXXX", 1)->unit(0, unit));
        QCOMPARE(unit.tagsCode, f.fakeNow.load() + 5000);

        f.fakeNow += 4000;
        const std::int64_t next = f.schedule->deliverLevel(2);
        QVERIFY(next > 0 && next <= 100);
        QCOMPARE(f.store->maxOffsetInQueue("DelayT", 1), 0);
        QCOMPARE(f.delays->offset(2), 0);

        f.fakeNow += 1000;
        QCOMPARE(f.schedule->deliverLevel(2), ScheduleMessageService::kDelayForAWhileMillis);
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("DelayT", 1), 1);
        QCOMPARE(f.delays->offset(2), 1);
        storage::GetMessageResult keep;
        auto rec = f.recordAt("DelayT", 1, 0, keep);
        QVERIFY(rec);
        QCOMPARE(rec->body.toByteArray(), QByteArray("hello"));
        QVERIFY(!protocol::findProperty(rec->properties, "DELAY").data());
        QVERIFY(f.store->findConsumeQueue("DelayT", 1)->unit(0, unit));
        QCOMPARE(unit.tagsCode, std::int64_t(javaStringHash("TagD")));

        // Nothing new: no double delivery.
        f.schedule->deliverLevel(2);
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("DelayT", 1), 1);
    }

    void undeliverableRecordDoesNotHoldUpItsLevel()
    {
        // A record parked for a destination the store can never accept (here a retry topic of
        // a 200-character group, as an older broker or a hostile send-back left it) used to be
        // retried every 10 s forever, wedging its delay level for every user.
        ExtrasFixture f;
        f.fakeNow = 1'800'000'000'000;
        QVERIFY(f.open(QStringLiteral("1s")));
        auto bad = ExtrasFixture::message(
            "%RETRY%" + QByteArray(200, 'g'), 0, "never", props({{"DELAY", "1"}}));
        QCOMPARE(f.schedule->transform(bad), 1);
        QVERIFY(f.put(bad).isOk());
        auto good = ExtrasFixture::message("DelayOk", 0, "due", props({{"DELAY", "1"}}));
        QCOMPARE(f.schedule->transform(good), 1);
        QVERIFY(f.put(good).isOk());
        f.fakeNow += 1000;
        QCOMPARE(f.schedule->deliverLevel(1), ScheduleMessageService::kDelayForAWhileMillis);
        QCOMPARE(f.delays->offset(1), 2);
        QCOMPARE(f.schedule->undeliverable(), std::uint64_t(1));
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("DelayOk", 0), 1);
        bool counted = false;
        for (const auto &[key, value] : f.schedule->runtimeInfo())
            counted = counted || (key == "scheduleMessageUndeliverable" && value == "1");
        QVERIFY(counted);
    }

    void backlogIsDeliveredInBoundedRuns()
    {
        ExtrasFixture f;
        f.fakeNow = 1'800'000'000'000;
        QVERIFY(f.open(QStringLiteral("1s")));
        const int n = ScheduleMessageService::kMaxDeliveriesPerRun + 5;
        for (int i = 0; i < n; ++i) {
            auto m = ExtrasFixture::message("Backlog", 0, "b", props({{"DELAY", "1"}}));
            f.schedule->transform(m);
            QVERIFY(f.store->putMessageAndWait(m).isOk());
        }
        QVERIFY(f.store->waitForDispatch(5000));
        f.fakeNow += 1000;
        QCOMPARE(f.schedule->deliverLevel(1), 1);
        QCOMPARE(f.delays->offset(1), ScheduleMessageService::kMaxDeliveriesPerRun);
        QCOMPARE(f.schedule->deliverLevel(1), ScheduleMessageService::kDelayForAWhileMillis);
        QCOMPARE(f.delays->offset(1), n);
        QVERIFY(f.store->waitForDispatch(5000));
        QCOMPARE(f.store->maxOffsetInQueue("Backlog", 0), n);
    }

    void threadDeliversWithinOneSecondOfDue()
    {
        ExtrasFixture f;
        QVERIFY(f.open(QStringLiteral("1s 2s")));
        f.schedule->start();
        QVERIFY(f.schedule->isRunning());
        auto m = ExtrasFixture::message("DelayT", 0, "x", props({{"DELAY", "1"}}));
        f.schedule->transform(m);
        const std::int64_t sent = QDateTime::currentMSecsSinceEpoch();
        QVERIFY(f.put(m).isOk());
        QTRY_COMPARE_WITH_TIMEOUT(f.store->maxOffsetInQueue("DelayT", 0), 1, 5000);
        const std::int64_t delivered = QDateTime::currentMSecsSinceEpoch();
        QVERIFY2(delivered - sent >= 900, qPrintable(QString::number(delivered - sent)));
        QVERIFY2(delivered - sent < 2000, qPrintable(QString::number(delivered - sent)));
        f.schedule->stop();
        QVERIFY(!f.schedule->isRunning());
        // stop() persisted the progress.
        DelayOffsetManager reread(DelayOffsetManager::filePath(f.dir.path()));
        QVERIFY(reread.load());
        QCOMPARE(reread.offset(1), 1);
    }

    void pendingDelayedMessageSurvivesRestart()
    {
        QTemporaryDir root;
        {
            ExtrasFixture f;
            QVERIFY(f.open(QStringLiteral("1s 2s"), root.path()));
            auto m = ExtrasFixture::message("DelayR", 0, "persist me", props({{"DELAY", "2"}}));
            f.schedule->transform(m);
            QVERIFY(f.put(m).isOk());
            QVERIFY(f.delays->persist());
            f.close();
        }
        ExtrasFixture f2;
        QVERIFY(f2.open(QStringLiteral("1s 2s"), root.path()));
        QCOMPARE(f2.store->maxOffsetInQueue("DelayR", 0), 0);
        f2.schedule->start();
        QTRY_COMPARE_WITH_TIMEOUT(f2.store->maxOffsetInQueue("DelayR", 0), 1, 5000);
        storage::GetMessageResult keep;
        auto rec = f2.recordAt("DelayR", 0, 0, keep);
        QVERIFY(rec);
        QCOMPARE(rec->body.toByteArray(), QByteArray("persist me"));
    }

    void slaveDoesNotDeliver()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        f.config.brokerRole = QStringLiteral("SLAVE");
        f.schedule->start();
        QVERIFY(!f.schedule->isRunning());
    }

    void runtimeInfoReportsLevels()
    {
        ExtrasFixture f;
        QVERIFY(f.open(QStringLiteral("1s 2s")));
        auto m = ExtrasFixture::message("T", 0, "x", props({{"DELAY", "2"}}));
        f.schedule->transform(m);
        QVERIFY(f.put(m).isOk());
        const auto info = f.schedule->runtimeInfo();
        QCOMPARE(info.size(), std::size_t(2));
        QCOMPARE(info.front().first, QByteArray("scheduleMessageOffset_2"));
        QCOMPARE(info.front().second, QByteArray("0,1"));
        QCOMPARE(info.back().first, QByteArray("scheduleMessageUndeliverable"));
        QCOMPARE(info.back().second, QByteArray("0"));
    }
};

QTEST_GUILESS_MAIN(tst_Schedule)
#include "tst_schedule.moc"
