// Timer succession (broker/timer/timersuccession.h, issue 26): the fire mark carried after
// GET_TIMER_CHECK_POINT's 56 RocketMQ bytes, and a wheel opened fresh over a replicated
// rmq_sys_wheel_timer queue (a promoted slave) that inherits it: every timer message delivered
// exactly once overall, by the old master or by the successor, none early, a recalled one
// never; with an up-to-date mark, an older one, none at all, one that does not fit the commit
// log, and a crash in the middle of the inheritance.

#include "broker/timer/timermessagestore.h"
#include "broker/timer/timersuccession.h"
#include "broker/timer/timertransform.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <memory>

using namespace qrocket;
using namespace qrocket::broker;
namespace mc = protocol::MessageConst;

namespace {

constexpr std::int64_t kT0 = 1'800'000'000'123;
constexpr int kCount = 30;

std::int64_t bigEndianAt(const QByteArray &b, int at)
{
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
    return static_cast<std::int64_t>(v);
}

struct Delivery
{
    std::int64_t due = 0;
    std::int64_t dequeue = 0;
};

class Fixture
{
public:
    QTemporaryDir dir;
    std::atomic<std::int64_t> now {kT0};
    std::unique_ptr<storage::MessageStore> store;
    std::unique_ptr<TimerMessageStore> timer;
    timer::TimerRules rules;
    std::int64_t seen = 0;
    std::multimap<QByteArray, Delivery> delivered; // every delivery so far, by UNIQ_KEY

    QString timerDir() const { return dir.path() + QStringLiteral("/timer"); }
    bool open()
    {
        storage::MessageStoreConfig sc;
        sc.storePathRootDir = dir.path();
        sc.mappedFileSizeCommitLog = 16 * 1024 * 1024;
        sc.maxMessageSize = 64 * 1024;
        sc.mappedFileSizeConsumeQueue = 20 * 100000;
        sc.messageIndexEnable = false;
        storage::StoreOptions options;
        options.clock = [this] { return now.load(); };
        options.runCleanService = false;
        store = std::make_unique<storage::MessageStore>(sc, options);
        store->setTagsCodeResolver(TimerMessageStore::wrapTagsCodeResolver({}));
        return store->open().isOk() && openTimer();
    }
    bool openTimer()
    {
        TimerStoreOptions o;
        o.dir = timerDir();
        o.rules = rules;
        o.logFileSize = 48 * 1000 + 64;
        o.clock = [this] { return now.load(); };
        timer = std::make_unique<TimerMessageStore>(*store, o);
        const Status st = timer->open();
        if (!st)
            qWarning().noquote() << st.message();
        return st.isOk();
    }
    void put(storage::MessageExtBrokerInner m)
    {
        const auto r = store->putMessageAndWait(m);
        QVERIFY(r.isOk());
    }
    /// Parks `key` due at `dueMs`, accepted (applyTimer) at `acceptedAt` (default: now).
    void sendAt(const QByteArray &key, std::int64_t dueMs, std::int64_t acceptedAt = 0)
    {
        storage::MessageExtBrokerInner m;
        m.topic = "SuccT";
        m.queueId = 0;
        m.bornTimestamp = now.load();
        m.body = "body-" + key;
        m.properties
            = "UNIQ_KEY\x01" + key + "\x02TIMER_DELIVER_MS\x01" + QByteArray::number(dueMs);
        QCOMPARE(timer::applyTimer(m, acceptedAt ? acceptedAt : now.load(), rules, nullptr),
            timer::TimerOutcome::Parked);
        put(std::move(m));
    }
    /// A recall marker of `key` (due at `dueMs`), put as RECALL_MESSAGE does.
    void recall(const QByteArray &key, std::int64_t dueMs)
    {
        storage::MessageExtBrokerInner m;
        m.topic = "SuccT";
        m.body = "0";
        m.properties = "TIMER_DEL_UNIQKEY\x01" + timer::deleteKey("SuccT", key) + "\x02UNIQ_KEY\x01"
            + key + "-del\x02TIMER_DELIVER_MS\x01" + QByteArray::number(dueMs);
        std::int64_t slot = 0;
        QCOMPARE(timer::applyTimer(m, now.load(), rules, &slot), timer::TimerOutcome::Parked);
        QCOMPARE(timer->recall(m, slot, nullptr), TimerMessageStore::RecallResult::Ok);
    }
    /// Reads the deliveries in SuccT/0 that arrived since the last call.
    void collect()
    {
        QVERIFY(store->waitForDispatch(5000));
        storage::ConsumeQueue *cq = store->findConsumeQueue("SuccT", 0);
        for (; cq && seen < cq->maxOffsetInQueue(); ++seen) {
            storage::ConsumeQueue::Unit u;
            QVERIFY(cq->unit(seen, u));
            const auto sel = store->lookMessageByOffset(u.commitLogOffset);
            protocol::MessageRecordView rec;
            QVERIFY(sel.isValid()
                && protocol::decodeRecord(sel.bytes, rec, false).status
                    == protocol::RecordStatus::Ok);
            Delivery d;
            d.due = protocol::findProperty(rec.properties, timer::prop::DeliverMs).toLongLong();
            d.dequeue = protocol::findProperty(rec.properties, timer::prop::DequeueMs).toLongLong();
            delivered.emplace(
                protocol::findProperty(rec.properties, mc::UniqClientMessageIdKeyIdx).toByteArray(),
                d);
        }
    }
    /// One timer round after the store dispatched; false when a TEST_crashAt hook fired.
    bool round()
    {
        [&] { QVERIFY(store->waitForDispatch(5000)); }();
        try {
            timer->runOnce();
        } catch (const TimerMessageStore::TEST_Crash &) {
            return false;
        }
        return true;
    }
    /// Advances the fake clock to `until` by `step`, running the timer until it has nothing
    /// more to do at each step. False when a crash hook fired (the clock stays where it was).
    bool driveTo(std::int64_t until, std::int64_t step = 250)
    {
        while (now.load() < until) {
            now.store(std::min(until, now.load() + step));
            for (int i = 0; i < 1000; ++i) {
                if (!round())
                    return false;
                if (timer->enqueueBehind() == 0 && timer->fireTime() > now.load())
                    break;
            }
            collect();
        }
        return true;
    }
    /// The old master dies here; this store is now its slave's replica (the same commit log),
    /// promoted: own wheel gone, the master's checkpoint body saved (when given).
    void promote(const QByteArray &masterCheckpoint)
    {
        timer.reset();
        timer::discardOwnWheel(timerDir());
        QFile::remove(timer::masterCheckpointPath(timerDir()));
        if (!masterCheckpoint.isEmpty())
            QVERIFY(timer::saveMasterCheckpoint(timerDir(), masterCheckpoint));
        QVERIFY(openTimer());
    }
    /// Every key delivered exactly once, none early, none of `never`.
    void verifyExactlyOnce(int count, const QSet<QByteArray> &never)
    {
        for (int i = 0; i < count; ++i) {
            const QByteArray key = "k" + QByteArray::number(i);
            if (never.contains(key)) {
                QVERIFY2(delivered.count(key) == 0, key.constData());
                continue;
            }
            QVERIFY2(delivered.count(key) == 1,
                qPrintable(QStringLiteral("%1 delivered %2 times")
                               .arg(QString::fromLatin1(key))
                               .arg(delivered.count(key))));
            const Delivery d = delivered.find(key)->second;
            QVERIFY2(d.dequeue >= d.due, key.constData());
        }
        QCOMPARE(delivered.size(), std::size_t(count - never.size()));
    }
    /// 30 messages due 1 s apart from kT0 + 1 s, k27 recalled.
    void sendAll()
    {
        for (int i = 0; i < kCount; ++i)
            sendAt("k" + QByteArray::number(i), kT0 + 1000 * (i + 1));
        recall("k27", kT0 + 28000);
    }
};

} // namespace

class tst_TimerSuccession final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fireMarkCodec();
    void masterPublishesMarkAfterRocketMqBody();
    void inherits_data();
    void inherits();
    void crashDuringInheritance();
    void lateEnqueueIsNotTakenForFired();
    void largeInheritanceWithoutMark();
};

void tst_TimerSuccession::fireMarkCodec()
{
    const timer::FireMark mark {kT0 - 123 + 7000, 123456, 42, 1000};
    QByteArray body(56, '\x07');
    body += timer::encodeFireMark(mark);
    QCOMPARE(body.size(), 96);
    QCOMPARE(timer::parseFireMark(body), std::optional<timer::FireMark>(mark));
    // RocketMQ's plain body, and anything else, carry no mark.
    QCOMPARE(timer::parseFireMark(body.left(56)), std::nullopt);
    QCOMPARE(timer::parseFireMark(QByteArray()), std::nullopt);
    QCOMPARE(timer::parseFireMark(body.left(95)), std::nullopt);
    QCOMPARE(timer::parseFireMark(body + 'x'), std::nullopt);
    QByteArray wrongMagic = body;
    wrongMagic[60] = 'z';
    QCOMPARE(timer::parseFireMark(wrongMagic), std::nullopt);
    QByteArray zeroPrecision(56, 0);
    zeroPrecision += timer::encodeFireMark({kT0 - 123, 1, 1, 0});
    QCOMPARE(timer::parseFireMark(zeroPrecision), std::nullopt);
    QByteArray offSlot(56, 0);
    offSlot += timer::encodeFireMark({kT0, 1, 1, 1000}); // F not on a slot
    QCOMPARE(timer::parseFireMark(offSlot), std::nullopt);
    auto *rng = QRandomGenerator::global();
    for (int i = 0; i < 2000; ++i) {
        QByteArray garbage(56 + static_cast<int>(rng->bounded(80)), Qt::Uninitialized);
        for (auto &c : garbage)
            c = static_cast<char>(rng->bounded(256));
        QCOMPARE(timer::parseFireMark(garbage), std::nullopt);
    }
    // The saved copy: written atomically, read back.
    QTemporaryDir dir;
    QVERIFY(timer::saveMasterCheckpoint(dir.path() + QStringLiteral("/t"), body));
    QCOMPARE(timer::loadMasterMark(dir.path() + QStringLiteral("/t")),
        std::optional<timer::FireMark>(mark));
}

void tst_TimerSuccession::masterPublishesMarkAfterRocketMqBody()
{
    Fixture f;
    QVERIFY(f.open());
    // Just opened: no slot changed yet, RocketMQ's 56 bytes alone.
    QCOMPARE(f.timer->checkpointBody().size(), 56);
    f.sendAll();
    QVERIFY(f.driveTo(kT0 + 10'500));
    const QByteArray body = f.timer->checkpointBody();
    const auto mark = timer::parseFireMark(body);
    QVERIFY(mark);
    QCOMPARE(*mark, *f.timer->fireMark());
    // What RocketMQ's TimerCheckpoint.decode reads first is unchanged.
    QCOMPARE(bigEndianAt(body, 0), f.timer->fireTime());
    QCOMPARE(mark->fire, f.timer->fireTime());
    QCOMPARE(mark->precisionMs, 1000);
    QVERIFY(mark->from <= f.store->commitLogMaxOffset());
    QVERIFY(mark->queueOffset > 0);
    QVERIFY(mark->queueOffset <= kCount + 1);
}

void tst_TimerSuccession::inherits_data()
{
    QTest::addColumn<int>("markKind");
    QTest::newRow("current mark") << 0;
    QTest::newRow("older mark") << 1;
    QTest::newRow("no mark") << 2;
    QTest::newRow("mark beyond the commit log") << 3;
    QTest::newRow("mark of another precision") << 4;
}

void tst_TimerSuccession::inherits()
{
    QFETCH(int, markKind);
    Fixture f;
    QVERIFY(f.open());
    f.sendAll();
    QVERIFY(f.driveTo(kT0 + 8'500));
    const QByteArray older = f.timer->checkpointBody();
    QVERIFY(timer::parseFireMark(older));
    // k0..k12 delivered by the old master (k12's slot is the second at kT0 - 123 + 14 s).
    QVERIFY(f.driveTo(kT0 + 14'500));
    QCOMPARE(f.delivered.size(), std::size_t(13));
    QByteArray saved;
    switch (markKind) {
    case 0:
        saved = f.timer->checkpointBody();
        break;
    case 1:
        saved = older; // k7..k12's deliveries are found by the scan from its `from`
        break;
    case 2:
        break;
    case 3: {
        auto m = *timer::parseFireMark(older);
        m.from = f.store->commitLogMaxOffset() + 4096;
        saved = older.left(56) + timer::encodeFireMark(m);
        break;
    }
    case 4: {
        auto m = *timer::parseFireMark(older);
        m.precisionMs = 500;
        saved = older.left(56) + timer::encodeFireMark(m);
        break;
    }
    }
    f.promote(saved);
    // Sent to the successor after the takeover: enqueued as usual.
    f.sendAt("k30", kT0 + 20'000);
    QVERIFY(f.driveTo(kT0 + 40'000));
    f.verifyExactlyOnce(kCount + 1, {"k27"});
    QCOMPARE(f.timer->backlog(), 0);
    // The successor publishes marks of its own once past what it inherited.
    QVERIFY(f.timer->fireMark());
    QCOMPARE(f.timer->fireMark()->fire, f.timer->fireTime());
}

void tst_TimerSuccession::crashDuringInheritance()
{
    Fixture f;
    QVERIFY(f.open());
    f.sendAll();
    QVERIFY(f.driveTo(kT0 + 12'500));
    const QByteArray body = f.timer->checkpointBody();
    QVERIFY(f.driveTo(kT0 + 16'500));
    f.promote(body);
    // kill -9 after the successor published its 3rd inherited entry, then again after the 5th
    // of the next run: each restart resumes the inheritance from its checkpoint.
    for (int crashAt : {3, 5}) {
        int publishes = 0;
        f.timer->TEST_crashAt = [&](int point) { return point == 1 && ++publishes == crashAt; };
        QVERIFY(!f.driveTo(kT0 + 40'000));
        f.timer.reset();
        QVERIFY(f.openTimer());
    }
    QVERIFY(f.driveTo(kT0 + 40'000));
    f.verifyExactlyOnce(kCount, {"k27"});
    QCOMPARE(f.timer->backlog(), 0);
}

void tst_TimerSuccession::lateEnqueueIsNotTakenForFired()
{
    // Q is the queue offset enqueued when the slot before F STARTED: a message that reached the
    // wheel while slot S was firing went to S + precision even though it was due in S, and must
    // not be taken for fired when the master dies after S and before S + precision.
    Fixture f;
    QVERIFY(f.open());
    const std::int64_t slot = kT0 - 123 + 2000;
    const int many = TimerMessageStore::kFireBatch + 100; // slot S takes two rounds
    for (int i = 0; i < many; ++i)
        f.sendAt("k" + QByteArray::number(i), kT0 + 1000);
    f.now.store(slot);
    QVERIFY(f.round()); // enqueues all, starts S, fires kFireBatch of it
    QCOMPARE(f.timer->fireTime(), slot);
    // Accepted just before S, in the queue only now: due in S, parked in S + precision.
    f.sendAt("k" + QByteArray::number(many), slot - 100, slot - 200);
    for (int i = 0; i < 10 && f.timer->fireTime() == slot; ++i)
        QVERIFY(f.round());
    QCOMPARE(f.timer->fireTime(), slot + 1000);
    f.collect();
    QCOMPARE(f.delivered.size(), std::size_t(many));
    const auto mark = f.timer->fireMark();
    QVERIFY(mark);
    QCOMPARE(mark->fire, slot + 1000);
    QCOMPARE(mark->queueOffset, many);
    f.promote(f.timer->checkpointBody());
    QVERIFY(f.driveTo(slot + 5000));
    f.verifyExactlyOnce(many + 1, {});
}

void tst_TimerSuccession::largeInheritanceWithoutMark()
{
    // 20000 messages over 20 slots, half delivered by the old master; no mark: the scan runs
    // from the first parked record over every delivery (timed: the figure in the log).
    Fixture f;
    QVERIFY(f.open());
    constexpr int kMany = 20000;
    for (int i = 0; i < kMany; ++i)
        f.sendAt("k" + QByteArray::number(i), kT0 + 1000 * (1 + i % 20));
    QVERIFY(f.driveTo(kT0 + 11'000, 1000));
    QCOMPARE(f.delivered.size(), std::size_t(kMany / 2));
    f.promote({});
    QElapsedTimer clock;
    clock.start();
    while (f.timer->enqueueBehind() > 0)
        QVERIFY(f.round());
    qInfo("inherited %d entries (%d delivered before) in %lld ms", kMany, kMany / 2,
        static_cast<long long>(clock.elapsed()));
    QVERIFY(f.driveTo(kT0 + 30'000, 1000));
    f.verifyExactlyOnce(kMany, {});
}

QTEST_GUILESS_MAIN(tst_TimerSuccession)
#include "tst_timersuccession.moc"
