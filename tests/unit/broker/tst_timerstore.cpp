// Timer messages (broker/timer/): the send rules, the wheel and timer log on a real MessageStore
// with a fake clock. Delivery within [0, +1 s] of due for delays from 1 s to 2 days, many
// messages in due-time order, recall before/after due, past and overflowing times, the crash
// windows of enqueue and delivery (apache/rocketmq#3473: no duplicates after a restart), the
// overflowing delay of apache/rocketmq#10872, and a backlog that drains by batches.

#include "broker/managers/topicvalidator.h"
#include "broker/timer/timermessagestore.h"
#include "broker/timer/timertransform.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <limits>
#include <map>
#include <memory>
#include <set>

using namespace qrocket;
using namespace qrocket::broker;
namespace mc = protocol::MessageConst;

namespace {

constexpr std::int64_t kT0 = 1'800'000'000'123; // not on a second boundary

struct Delivered
{
    QByteArray key;
    std::int64_t due = 0;
    std::int64_t dequeue = 0;
    std::int64_t slot = 0;
};

class Fixture
{
public:
    QTemporaryDir dir;
    std::atomic<std::int64_t> now {kT0};
    std::unique_ptr<storage::MessageStore> store;
    std::unique_ptr<TimerMessageStore> timer;
    timer::TimerRules rules;
    std::int64_t logFileSize = 48 * 1000 + 64; // small: several timer-log files
    std::int64_t seen = 0; // delivered records read so far

    bool openStore()
    {
        storage::MessageStoreConfig sc;
        sc.storePathRootDir = dir.path();
        sc.mappedFileSizeCommitLog = 16 * 1024 * 1024;
        sc.maxMessageSize = 64 * 1024;
        sc.mappedFileSizeConsumeQueue = 20 * 100000;
        sc.maxHashSlotNum = 1000;
        sc.maxIndexNum = 4000;
        sc.messageIndexEnable = false;
        storage::StoreOptions options;
        options.clock = [this] { return now.load(); };
        options.runCleanService = false;
        store = std::make_unique<storage::MessageStore>(sc, options);
        store->setTagsCodeResolver(TimerMessageStore::wrapTagsCodeResolver({}));
        const Status st = store->open();
        if (!st)
            qWarning().noquote() << st.message();
        return st.isOk();
    }
    bool openTimer()
    {
        TimerStoreOptions o;
        o.dir = dir.path() + QStringLiteral("/timer");
        o.rules = rules;
        o.logFileSize = logFileSize;
        o.clock = [this] { return now.load(); };
        timer = std::make_unique<TimerMessageStore>(*store, o);
        const Status st = timer->open();
        if (!st)
            qWarning().noquote() << st.message();
        return st.isOk();
    }
    bool open() { return openStore() && openTimer(); }

    storage::MessageExtBrokerInner message(const QByteArray &key, QByteArray extra)
    {
        storage::MessageExtBrokerInner m;
        m.topic = "TimerT";
        m.queueId = 0;
        m.bornTimestamp = now.load();
        m.body = "body-" + key;
        m.properties = "UNIQ_KEY\x01" + key + "\x02KEYS\x01k-" + key + "\x02TAGS\x01tg";
        if (!extra.isEmpty())
            m.properties += '\x02' + extra;
        return m;
    }
    /// Sends by the rules; returns the outcome (the put done for AtOnce and Parked).
    timer::TimerOutcome send(
        const QByteArray &key, const QByteArray &timerProps, std::int64_t *slot = nullptr)
    {
        storage::MessageExtBrokerInner m = message(key, timerProps);
        const auto outcome = timer::applyTimer(m, now.load(), rules, slot);
        if (outcome == timer::TimerOutcome::Parked || outcome == timer::TimerOutcome::AtOnce) {
            const auto r = store->putMessageAndWait(m);
            if (!r.isOk())
                qWarning() << "put failed" << storage::putMessageStatusName(r.status);
        }
        return outcome;
    }
    timer::TimerOutcome sendAt(const QByteArray &key, std::int64_t dueMs)
    {
        return send(key, "TIMER_DELIVER_MS\x01" + QByteArray::number(dueMs));
    }
    /// runOnce until it has nothing more to do now.
    void settle()
    {
        QVERIFY(store->waitForDispatch(5000));
        for (int i = 0; i < 100000; ++i) {
            if (timer->runOnce() > 0 && timer->enqueueBehind() == 0)
                return;
            QVERIFY(store->waitForDispatch(5000));
        }
        QFAIL("the timer never settled");
    }
    /// New deliveries in TimerT/0 since the last call.
    std::vector<Delivered> take()
    {
        std::vector<Delivered> out;
        [&] { QVERIFY(store->waitForDispatch(5000)); }();
        storage::ConsumeQueue *cq = store->findConsumeQueue("TimerT", 0);
        if (!cq)
            return out;
        for (; seen < cq->maxOffsetInQueue(); ++seen) {
            storage::ConsumeQueue::Unit u;
            if (!cq->unit(seen, u))
                break;
            const auto sel = store->lookMessageByOffset(u.commitLogOffset);
            protocol::MessageRecordView rec;
            if (!sel.isValid()
                || protocol::decodeRecord(sel.bytes, rec, false).status
                    != protocol::RecordStatus::Ok)
                continue;
            Delivered d;
            d.key = protocol::findProperty(rec.properties, mc::UniqClientMessageIdKeyIdx)
                        .toByteArray();
            d.due = protocol::findProperty(rec.properties, timer::prop::DeliverMs).toLongLong();
            d.dequeue = protocol::findProperty(rec.properties, timer::prop::DequeueMs).toLongLong();
            d.slot = protocol::findProperty(rec.properties, timer::prop::OutMs).toLongLong();
            out.push_back(d);
        }
        return out;
    }
    /// Advances the fake clock to `until` in `step` ms steps, running the timer at each.
    std::vector<Delivered> driveTo(std::int64_t until, std::int64_t step)
    {
        std::vector<Delivered> all;
        while (now.load() < until) {
            now.store(std::min(until, now.load() + step));
            settle();
            for (auto &d : take())
                all.push_back(d);
        }
        return all;
    }
};

} // namespace

class tst_TimerStore final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sendRules();
    void regression10872_overflowingDelayRefused();
    void recallHandleRoundTrip();
    void deliveredWithinOneSecondOfDue_data();
    void deliveredWithinOneSecondOfDue();
    void manyMessagesOnceInDueOrder();
    void recallBeforeAndAfterDue();
    void regression3473_noDuplicatesAfterRestart();
    void enqueueCrashWindowKeepsEachMessageOnce();
    void backlogDrainsByBatches();
    void survivesRestartWithWaitingMessages();
    void regression10668_cutBackLogNeitherStuckNorTwice();
};

void tst_TimerStore::sendRules()
{
    timer::TimerRules rules;
    const std::int64_t now = kT0;
    auto msg = [](QByteArray props) {
        storage::MessageExtBrokerInner m;
        m.topic = "T";
        m.queueId = 3;
        m.properties = std::move(props);
        return m;
    };
    // TIMER_DELAY_SEC: parked, TIMER_OUT_MS rounded up to the precision, real topic/queue kept.
    auto m = msg("TIMER_DELAY_SEC\x01"
                 "10\x02UNIQ_KEY\x01u1");
    std::int64_t slot = 0;
    QCOMPARE(timer::applyTimer(m, now, rules, &slot), timer::TimerOutcome::Parked);
    QCOMPARE(slot, (now + 10000 + 999) / 1000 * 1000);
    QCOMPARE(m.topic, QByteArray("rmq_sys_wheel_timer"));
    QCOMPARE(m.queueId, 0);
    QCOMPARE(protocol::findProperty(m.properties, mc::RealTopic), QByteArrayView("T"));
    QCOMPARE(protocol::findProperty(m.properties, mc::RealQueueId), QByteArrayView("3"));
    QCOMPARE(protocol::findProperty(m.properties, timer::prop::OutMs),
        QByteArrayView(QByteArray::number(slot)));
    // An exact second stays where it is (never early, never a second late for nothing).
    m = msg("TIMER_DELIVER_MS\x01" + QByteArray::number(kT0 - 123 + 5000));
    QCOMPARE(timer::applyTimer(m, now, rules, &slot), timer::TimerOutcome::Parked);
    QCOMPARE(slot, kT0 - 123 + 5000);
    // TIMER_DELAY_MS.
    m = msg("TIMER_DELAY_MS\x01"
            "1500");
    QCOMPARE(timer::applyTimer(m, now, rules, &slot), timer::TimerOutcome::Parked);
    QCOMPARE(slot, (now + 1500 + 999) / 1000 * 1000);
    // A delay level wins: the timer properties go.
    m = msg("DELAY\x01"
            "3\x02TIMER_DELAY_SEC\x01"
            "10");
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::NotTimer);
    QVERIFY(protocol::findProperty(m.properties, timer::prop::DelaySec).isNull());
    QCOMPARE(m.topic, QByteArray("T"));
    // A delivered timer message sent again (TIMER_OUT_MS) is not timed again.
    m = msg("TIMER_DELAY_SEC\x01"
            "10\x02TIMER_OUT_MS\x01"
            "5");
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::NotTimer);
    // A time in the past: at once, unchanged.
    m = msg("TIMER_DELIVER_MS\x01" + QByteArray::number(now - 1));
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::AtOnce);
    QCOMPARE(m.topic, QByteArray("T"));
    m = msg("TIMER_DELAY_SEC\x01-5");
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::AtOnce);
    // timerMaxDelaySec: 3 days is fine, a millisecond more is refused.
    m = msg("TIMER_DELAY_MS\x01" + QByteArray::number(rules.maxDelayMs));
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::Parked);
    m = msg("TIMER_DELAY_MS\x01" + QByteArray::number(rules.maxDelayMs + 1));
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::Illegal);
    // Not a number.
    m = msg("TIMER_DELIVER_MS\x01tomorrow");
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::Illegal);
    // Disabled.
    timer::TimerRules off = rules;
    off.enabled = false;
    m = msg("TIMER_DELAY_SEC\x01"
            "10");
    QCOMPARE(timer::applyTimer(m, now, off), timer::TimerOutcome::Disabled);
    // Half messages are not timed at send (their COMMIT is).
    m = msg("TIMER_DELAY_SEC\x01"
            "10");
    m.sysFlag = protocol::SysFlag::TransactionPrepared;
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::NotTimer);
    m.sysFlag = protocol::SysFlag::TransactionCommit;
    QCOMPARE(timer::applyTimer(m, now, rules), timer::TimerOutcome::Parked);
    // Nobody sends to the timer topic directly (its records name the topic they go to).
    QVERIFY(topics::isNotAllowedSendTopic("rmq_sys_wheel_timer"));
    // The refusal a producer sees (RocketMQ's code and remark).
    storage::MessageStoreConfig sc;
    m = msg("TIMER_DELAY_SEC\x01"
            "999999999");
    const auto refusal = timer::applyOnSend(sc, m, now);
    QVERIFY(refusal.has_value());
    QCOMPARE(refusal->code, 13);
    QVERIFY(refusal->remark.startsWith("timer message illegal, the delay time should not be bigger "
                                       "than the max delay 259200000ms"));
}

void tst_TimerStore::regression10872_overflowingDelayRefused()
{
    // apache/rocketmq#10872: now + delay overflowed to a time in the past and the message was
    // delivered at once. Every overflowing form is refused here.
    timer::TimerRules rules;
    const QByteArray maxLong = QByteArray::number(std::numeric_limits<std::int64_t>::max());
    for (const QByteArray &props : {QByteArray("TIMER_DELAY_SEC\x01") + maxLong,
             QByteArray("TIMER_DELAY_SEC\x01")
                 + QByteArray::number(std::numeric_limits<std::int64_t>::max() / 1000),
             QByteArray("TIMER_DELAY_MS\x01") + maxLong,
             QByteArray("TIMER_DELAY_MS\x01")
                 + QByteArray::number(std::numeric_limits<std::int64_t>::max() - kT0 + 1),
             QByteArray("TIMER_DELAY_SEC\x01"
                        "99999999999999999999"),
             QByteArray("TIMER_DELIVER_MS\x01"
                        "99999999999999999999")}) {
        storage::MessageExtBrokerInner m;
        m.topic = "T";
        m.properties = props;
        QCOMPARE(timer::applyTimer(m, kT0, rules), timer::TimerOutcome::Illegal);
        QCOMPARE(m.topic, QByteArray("T"));
    }
}

void tst_TimerStore::recallHandleRoundTrip()
{
    const QByteArray h = timer::encodeRecallHandle("TopicA", "broker-a", 1800000001000, "UNIQ1");
    // RocketMQ's HandleV1: base64url of "v1 topic broker timestamp id".
    QCOMPARE(QByteArray::fromBase64(h, QByteArray::Base64UrlEncoding),
        QByteArray("v1 TopicA broker-a 1800000001000 UNIQ1"));
    const auto d = timer::decodeRecallHandle(h);
    QVERIFY(d.has_value());
    QCOMPARE(d->topic, QByteArray("TopicA"));
    QCOMPARE(d->brokerName, QByteArray("broker-a"));
    QCOMPARE(d->timestamp, QByteArray("1800000001000"));
    QCOMPARE(d->uniqKey, QByteArray("UNIQ1"));
    QVERIFY(!timer::decodeRecallHandle("").has_value());
    QVERIFY(!timer::decodeRecallHandle("***").has_value());
    QVERIFY(
        !timer::decodeRecallHandle(QByteArray("v2 a b c d").toBase64(QByteArray::Base64UrlEncoding))
             .has_value());
    QVERIFY(
        !timer::decodeRecallHandle(QByteArray("v1 a b c").toBase64(QByteArray::Base64UrlEncoding))
             .has_value());
}

void tst_TimerStore::deliveredWithinOneSecondOfDue_data()
{
    QTest::addColumn<std::int64_t>("delayMs");
    for (std::int64_t d : {1000LL, 1001LL, 1999LL, 5000LL, 59'500LL, 3'600'000LL + 77,
             86'400'000LL - 1, 2 * 86'400'000LL})
        QTest::addRow("%lld ms", static_cast<long long>(d)) << d;
}

void tst_TimerStore::deliveredWithinOneSecondOfDue()
{
    QFETCH(std::int64_t, delayMs);
    Fixture f;
    QVERIFY(f.open());
    const std::int64_t due = f.now.load() + delayMs;
    QCOMPARE(f.sendAt("m1", due), timer::TimerOutcome::Parked);
    f.settle();
    // Jump close to the due time (empty slots fire in O(1) each), then walk in 50 ms steps.
    auto early = f.driveTo(due - 1500, std::max<std::int64_t>(1, (due - 1500 - f.now.load()) / 3));
    QVERIFY(early.empty());
    QVERIFY(f.driveTo(due - 1, 50).empty()); // never early
    auto got = f.driveTo(due + 1100, 50);
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0].key, QByteArray("m1"));
    QVERIFY2(got[0].dequeue >= due && got[0].dequeue <= due + 1000,
        qPrintable(QStringLiteral("delivered %1 ms after due").arg(got[0].dequeue - due)));
    QVERIFY(f.driveTo(due + 5000, 500).empty()); // once
    QCOMPARE(f.timer->backlog(), 0);
}

void tst_TimerStore::manyMessagesOnceInDueOrder()
{
    Fixture f;
    QVERIFY(f.open());
    constexpr int kCount = 20000;
    std::map<QByteArray, std::int64_t> dues;
    auto *rng = QRandomGenerator::global();
    for (int i = 0; i < kCount; ++i) {
        const std::int64_t due = kT0 + 1000 + static_cast<std::int64_t>(rng->bounded(120'000));
        const QByteArray key = "k" + QByteArray::number(i);
        dues[key] = due;
        QCOMPARE(f.sendAt(key, due), timer::TimerOutcome::Parked);
    }
    f.settle();
    QCOMPARE(f.timer->backlog(), kCount);
    // Steps that land on the slots' boundaries: the clock reads each slot's time exactly, as the
    // timer thread's wake-up at the next slot does.
    f.now.store((kT0 / 1000 + 1) * 1000);
    const auto got = f.driveTo(kT0 + 125'000, 100);
    QCOMPARE(got.size(), std::size_t(kCount));
    std::set<QByteArray> keys;
    std::int64_t lastSlot = 0;
    for (const Delivered &d : got) {
        QVERIFY2(keys.insert(d.key).second, d.key.constData()); // once
        QCOMPARE(d.due, dues[d.key]);
        QVERIFY(d.dequeue >= d.due && d.dequeue <= d.due + 1000);
        QVERIFY(d.slot >= lastSlot); // due-time order within the precision
        lastSlot = d.slot;
    }
    QCOMPARE(f.timer->backlog(), 0);
    QCOMPARE(f.timer->delivered(), kCount);
}

static storage::MessageExtBrokerInner recallMarker(const QByteArray &topic, const QByteArray &uniq,
    std::int64_t slot, std::int64_t now, const timer::TimerRules &rules, std::int64_t &markerSlot)
{
    storage::MessageExtBrokerInner m;
    m.topic = topic;
    m.body = "0";
    m.properties = "TIMER_DEL_UNIQKEY\x01" + timer::deleteKey(topic, uniq) + "\x02UNIQ_KEY\x01"
        + uniq + "\x02TIMER_DELIVER_MS\x01" + QByteArray::number(slot);
    [&] { QCOMPARE(timer::applyTimer(m, now, rules, &markerSlot), timer::TimerOutcome::Parked); }();
    return m;
}

void tst_TimerStore::recallBeforeAndAfterDue()
{
    Fixture f;
    QVERIFY(f.open());
    std::int64_t slotA = 0;
    std::int64_t slotB = 0;
    QCOMPARE(f.send("A",
                 "TIMER_DELAY_SEC\x01"
                 "10",
                 &slotA),
        timer::TimerOutcome::Parked);
    QCOMPARE(f.send("B",
                 "TIMER_DELAY_SEC\x01"
                 "10",
                 &slotB),
        timer::TimerOutcome::Parked);
    QCOMPARE(slotA, slotB);
    f.settle();
    QVERIFY(f.driveTo(kT0 + 3000, 500).empty());
    std::int64_t markerSlot = 0;
    auto marker = recallMarker("TimerT", "A", slotA, f.now.load(), f.rules, markerSlot);
    QCOMPARE(markerSlot, slotA);
    QCOMPARE(f.timer->recall(marker, markerSlot, nullptr), TimerMessageStore::RecallResult::Ok);
    const auto got = f.driveTo(slotA + 3000, 100);
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0].key, QByteArray("B")); // A was recalled, B not
    QCOMPARE(f.timer->backlog(), 0);
    // After due: the slot has fired; the recall is refused (RocketMQ: "timestamp invalid").
    auto late = recallMarker("TimerT", "B", f.now.load() + 2000, f.now.load(), f.rules, markerSlot);
    QCOMPARE(f.timer->recall(late, slotB, nullptr), TimerMessageStore::RecallResult::AlreadyDue);
    // Recall survives a restart in the middle of the slot's life.
    std::int64_t slotC = 0;
    QCOMPARE(f.send("C",
                 "TIMER_DELAY_SEC\x01"
                 "20",
                 &slotC),
        timer::TimerOutcome::Parked);
    f.settle();
    auto markerC = recallMarker("TimerT", "C", slotC, f.now.load(), f.rules, markerSlot);
    QCOMPARE(f.timer->recall(markerC, markerSlot, nullptr), TimerMessageStore::RecallResult::Ok);
    f.timer.reset();
    QVERIFY(f.openTimer());
    QVERIFY(f.driveTo(slotC + 3000, 200).empty());
}

void tst_TimerStore::regression3473_noDuplicatesAfterRestart()
{
    // apache/rocketmq#3473: messages delivered again after a restart. Crash right after a
    // delivery's put and before the checkpoint moves, at several points of a slot: after the
    // restart each message is delivered exactly once, none lost.
    Fixture f;
    QVERIFY(f.open());
    constexpr int kCount = 300;
    for (int i = 0; i < kCount; ++i)
        QCOMPARE(f.sendAt("d" + QByteArray::number(i), kT0 + 5000 + (i % 3) * 1000),
            timer::TimerOutcome::Parked);
    f.settle();
    std::set<QByteArray> keys;
    int crashes = 0;
    int puts = 0;
    int crashEvery = 37;
    f.timer->TEST_crashAt = [&](int point) { return point == 2 && ++puts % crashEvery == 0; };
    f.now.store(kT0 + 9000);
    for (int round = 0; round < 1000 && f.timer->backlog() > 0; ++round) {
        try {
            f.settle();
        } catch (const TimerMessageStore::TEST_Crash &) {
            ++crashes;
            f.timer.reset(); // kill -9: nothing more runs; the files stay as they are
            QVERIFY(f.openTimer());
            f.timer->TEST_crashAt
                = [&](int point) { return point == 2 && ++puts % crashEvery == 0; };
        }
        for (auto &d : f.take())
            QVERIFY2(keys.insert(d.key).second, ("twice: " + d.key).constData());
    }
    QVERIFY(crashes >= 5);
    QCOMPARE(keys.size(), std::size_t(kCount));
    QCOMPARE(f.timer->backlog(), 0);
}

void tst_TimerStore::enqueueCrashWindowKeepsEachMessageOnce()
{
    Fixture f;
    QVERIFY(f.open());
    constexpr int kCount = 200;
    for (int i = 0; i < kCount; ++i)
        QCOMPARE(f.sendAt("e" + QByteArray::number(i), kT0 + 4000), timer::TimerOutcome::Parked);
    QVERIFY(f.store->waitForDispatch(5000));
    int publishes = 0;
    int crashes = 0;
    for (int round = 0; round < 1000 && f.timer->enqueueBehind() > 0; ++round) {
        f.timer->TEST_crashAt = [&](int point) { return point == 1 && ++publishes % 23 == 0; };
        try {
            f.settle();
        } catch (const TimerMessageStore::TEST_Crash &) {
            ++crashes;
            f.timer.reset();
            QVERIFY(f.openTimer());
        }
    }
    QVERIFY(crashes >= 5);
    f.timer->TEST_crashAt = {};
    QCOMPARE(f.timer->backlog(), kCount);
    const auto got = f.driveTo(kT0 + 6000, 250);
    std::set<QByteArray> keys;
    for (auto &d : got)
        QVERIFY2(keys.insert(d.key).second, ("twice: " + d.key).constData());
    QCOMPARE(keys.size(), std::size_t(kCount));
}

void tst_TimerStore::backlogDrainsByBatches()
{
    Fixture f;
    QVERIFY(f.open());
    constexpr int kCount = 3 * TimerMessageStore::kFireBatch + 10;
    for (int i = 0; i < kCount; ++i)
        QCOMPARE(f.sendAt("b" + QByteArray::number(i), kT0 + 2000), timer::TimerOutcome::Parked);
    f.settle();
    f.now.store(kT0 + 3000);
    // One round delivers a whole batch, not one message per tick.
    QCOMPARE(f.timer->runOnce(), 0);
    QCOMPARE(f.timer->delivered(), TimerMessageStore::kFireBatch);
    int rounds = 1;
    while (f.timer->backlog() > 0 && rounds < 100) {
        f.timer->runOnce();
        ++rounds;
    }
    QCOMPARE(f.timer->delivered(), kCount);
    QVERIFY(rounds <= 5);
    QCOMPARE(f.take().size(), std::size_t(kCount));
}

void tst_TimerStore::survivesRestartWithWaitingMessages()
{
    Fixture f;
    QVERIFY(f.open());
    for (int i = 0; i < 50; ++i)
        QCOMPARE(f.sendAt("r" + QByteArray::number(i), kT0 + 60'000 + i * 100),
            timer::TimerOutcome::Parked);
    f.settle();
    QCOMPARE(f.timer->backlog(), 50);
    // The whole store closes and opens again (clean restart), and the timer files too.
    f.timer.reset();
    f.store->shutdown();
    f.store.reset();
    QVERIFY(f.open());
    QCOMPARE(f.timer->backlog(), 50);
    QVERIFY(f.driveTo(kT0 + 59'000, 10'000).empty());
    QCOMPARE(f.driveTo(kT0 + 66'000, 200).size(), std::size_t(50));
    // The timer-log files of fired slots are deleted.
    f.settle();
}

void tst_TimerStore::regression10668_cutBackLogNeitherStuckNorTwice()
{
    // apache/rocketmq#10668: the commit log was cut back (recovery of a torn tail) under a
    // timer log that still held entries for the records cut. Records written later at the same
    // offsets, with the same queue offsets, must be delivered once (not again through the stale
    // entries), the cut ones never, and the wheel must go on firing.
    Fixture f;
    QVERIFY(f.open());
    for (int i = 0; i < 10; ++i)
        QCOMPARE(f.sendAt("a" + QByteArray::number(i), kT0 + 60'000), timer::TimerOutcome::Parked);
    f.settle();
    const std::int64_t cut = f.store->commitLogMaxOffset();
    for (int i = 0; i < 10; ++i)
        QCOMPARE(f.sendAt("b" + QByteArray::number(i), kT0 + 60'000), timer::TimerOutcome::Parked);
    f.settle();
    QCOMPARE(f.timer->backlog(), 20);
    const std::int64_t written = f.store->commitLogMaxOffset();
    const QString storeDir = f.dir.path();
    f.timer.reset();
    f.store->shutdown();
    f.store.reset();
    // What recovery does with a torn tail: the bytes from `cut` on are gone, the stop unclean.
    storage::MessageStoreConfig sc;
    sc.storePathRootDir = storeDir;
    QFile log(QDir(sc.commitLogDir()).filePath(QStringLiteral("00000000000000000000")));
    QVERIFY(log.open(QIODevice::ReadWrite));
    QVERIFY(log.seek(cut));
    QVERIFY(log.write(QByteArray(static_cast<qsizetype>(log.size() - cut), '\0')) > 0);
    log.close();
    QFile abort(sc.abortPath());
    QVERIFY(abort.open(QIODevice::WriteOnly));
    abort.close();
    QVERIFY(f.open());
    QCOMPARE(f.store->commitLogMaxOffset(), cut);
    // Same sizes, so at the b messages' offsets and queue offsets.
    for (int i = 0; i < 10; ++i)
        QCOMPARE(f.sendAt("c" + QByteArray::number(i), kT0 + 60'000), timer::TimerOutcome::Parked);
    f.settle();
    QCOMPARE(f.store->commitLogMaxOffset(), written); // where the b messages were
    std::map<QByteArray, int> times;
    for (const Delivered &d : f.driveTo(kT0 + 62'000, 200))
        ++times[d.key];
    for (int i = 0; i < 10; ++i) {
        QCOMPARE(times["a" + QByteArray::number(i)], 1);
        QCOMPARE(times["c" + QByteArray::number(i)], 1);
    }
    QCOMPARE(times.size(), std::size_t(20)); // no b
    QCOMPARE(f.timer->backlog(), 0);
}

QTEST_GUILESS_MAIN(tst_TimerStore)
#include "tst_timerstore.moc"
