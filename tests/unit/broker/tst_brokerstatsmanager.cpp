// BrokerStatsManager alone, with an injected clock: the sampling schedule of the three windows,
// the keys of each stats name, and the per-thread last-key shortcut across several managers.

#include "broker/stats/brokerstatsmanager.h"

#include <QTest>

#include <memory>
#include <thread>

using namespace qrocket;
using broker::BrokerStatsManager;

namespace {

constexpr std::int64_t kStart = 1'000'000;
constexpr std::int64_t kSecond = 1000;

struct Clocked
{
    std::int64_t now = kStart;
    std::unique_ptr<BrokerStatsManager> stats
        = std::make_unique<BrokerStatsManager>("C1", [this] { return now; });

    /// The minute window's sum of an item (-1 when it does not exist).
    std::int64_t minuteSum(const char *name, const char *key) const
    {
        const auto data = stats->statsData(name, key);
        return data ? (*data)[0].sum : -1;
    }
};

} // namespace

class tst_BrokerStatsManager final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void samplesFollowTheClock();
    void keysOfEachName();
    void lastKeyShortcutKeepsManagersApart();
    void threadsCountTogether();
    void groupGetTpsIsTheMinuteAverage();
};

void tst_BrokerStatsManager::samplesFollowTheClock()
{
    Clocked c;
    c.stats->tick(); // t0: every window samples (nothing exists yet)
    c.stats->onPut("T", 3, 300);
    c.now += 9 * kSecond;
    c.stats->tick(); // not due
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 0);
    c.now = kStart + 10 * kSecond;
    c.stats->tick();
    auto data = c.stats->statsData("TOPIC_PUT_NUMS", "T");
    QVERIFY(data);
    QCOMPARE((*data)[0].sum, 3);
    QCOMPARE((*data)[0].tps, 0.3);
    QCOMPARE((*data)[0].avgpt, 3.0);
    QCOMPARE((*data)[1].sum, 0); // the hour window is due at +10 min
    QCOMPARE(c.minuteSum("TOPIC_PUT_SIZE", "T"), 300);

    // A stall: one sample when the clock jumps, the next one a whole period later.
    c.stats->onPut("T", 1, 100);
    c.now = kStart + 95 * kSecond;
    c.stats->tick();
    c.stats->onPut("T", 1, 100);
    c.now = kStart + 100 * kSecond;
    c.stats->tick(); // not due (the next is at +105 s)
    data = c.stats->statsData("TOPIC_PUT_NUMS", "T");
    QCOMPARE((*data)[0].sum, 4); // samples at +0 (zero), +10 (3), +95 (4)
    QCOMPARE((*data)[0].tps, 4.0 / 95);
    c.now = kStart + 105 * kSecond;
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 5);

    // Replacing the clock samples at the next tick.
    c.stats->setClock([] { return 5 * kStart; });
    c.stats->onPut("T", 2, 10);
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 7);
}

void tst_BrokerStatsManager::keysOfEachName()
{
    Clocked c;
    c.stats->onPut("T", 2, 20);
    c.stats->onGet("G", "T", 3, 2, 20, 7);
    c.stats->onSendBack("G", "T");
    c.stats->onTopicPut("SCHEDULE_TOPIC_XXXX", 1, 5);
    c.stats->onScheduleDelivered("R", 1, 50);
    c.now += 10 * kSecond;
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 2);
    QCOMPARE(c.minuteSum("GROUP_GET_NUMS", "T@G"), 2);
    QCOMPARE(c.minuteSum("GROUP_GET_SIZE", "T@G"), 20);
    QCOMPARE(c.minuteSum("SNDBCK_PUT_NUMS", "T@G"), 1);
    QCOMPARE(c.minuteSum("GROUP_GET_LATENCY", "3@T@G"), 7);
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "SCHEDULE_TOPIC_XXXX"), 1);
    // A delivered delayed message: a get by the schedule's group, a put of its real topic.
    QCOMPARE(c.minuteSum("GROUP_GET_NUMS", "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER"), 1);
    QCOMPARE(c.minuteSum("GROUP_GET_SIZE", "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER"), 50);
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "R"), 1);
    QCOMPARE(c.minuteSum("BROKER_PUT_NUMS", "C1"), 3); // onTopicPut is not a broker put
    QCOMPARE(c.minuteSum("BROKER_GET_NUMS", "C1"), 2);
    // Names and keys that do not exist, or items of a key that were never added to.
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T@G"), -1);
    QCOMPARE(c.minuteSum("GROUP_GET_NUMS", "T"), -1);
    QCOMPARE(c.minuteSum("BROKER_PUT_NUMS", "C2"), -1);
    QCOMPARE(c.minuteSum("QUEUE_PUT_NUMS", "T@0"), -1);
    c.stats->onSendBack("G2", "T");
    QCOMPARE(c.minuteSum("SNDBCK_PUT_NUMS", "T@G2"), 0);
    QCOMPARE(c.minuteSum("GROUP_GET_NUMS", "T@G2"), -1);
}

void tst_BrokerStatsManager::lastKeyShortcutKeepsManagersApart()
{
    // One thread counting the same key into two managers in turn, then into a third one made
    // after the first is gone (possibly at the same address): each counts only its own adds.
    auto a = std::make_unique<Clocked>();
    Clocked b;
    a->stats->onPut("T", 1, 1);
    b.stats->onPut("T", 10, 1);
    a->stats->onPut("T", 1, 1);
    a->now += 10 * kSecond;
    a->stats->tick();
    b.now += 10 * kSecond;
    b.stats->tick();
    QCOMPARE(a->minuteSum("TOPIC_PUT_NUMS", "T"), 2);
    QCOMPARE(b.minuteSum("TOPIC_PUT_NUMS", "T"), 10);
    a.reset();
    Clocked c;
    c.stats->onPut("T", 5, 1);
    c.now += 10 * kSecond;
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 5);
    // The same thread alternating keys in one manager.
    for (int i = 0; i < 3; ++i) {
        c.stats->onPut("T", 1, 1);
        c.stats->onPut("U", 1, 1);
    }
    c.now += 10 * kSecond;
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T"), 8);
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "U"), 3);
}

void tst_BrokerStatsManager::threadsCountTogether()
{
    Clocked c;
    constexpr int kThreads = 4;
    constexpr int kPerThread = 5000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&c, t] {
            const QByteArray own = "T" + QByteArray::number(t);
            for (int i = 0; i < kPerThread; ++i) {
                c.stats->onPut("shared", 1, 1);
                c.stats->onPut(own, 1, 1);
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    c.now += 10 * kSecond;
    c.stats->tick();
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "shared"), kThreads * kPerThread);
    QCOMPARE(c.minuteSum("TOPIC_PUT_NUMS", "T2"), kPerThread);
    QCOMPARE(c.minuteSum("BROKER_PUT_NUMS", "C1"), 2 * kThreads * kPerThread);
}

// GET_CONSUME_STATS' consumeTps: GROUP_GET_NUMS of topic@group per second over the minute
// window (RocketMQ's tpsGroupGetNums), for a group pulling 1,900 messages a second.
void tst_BrokerStatsManager::groupGetTpsIsTheMinuteAverage()
{
    Clocked c;
    c.stats->tick();
    QCOMPARE(c.stats->groupGetTps("G", "T"), 0.0); // never pulled
    for (int s = 0; s < 60; ++s) {
        for (int i = 0; i < 19; ++i)
            c.stats->onGet("G", "T", i % 4, 100, 100 * 64, 1);
        c.now += kSecond;
        c.stats->tick();
    }
    QCOMPARE(c.stats->groupGetTps("G", "T"), 1900.0);
    QCOMPARE(c.stats->groupGetTps("G", "Other"), 0.0);
    QCOMPARE(c.stats->groupGetTps("Other", "T"), 0.0);
    // It stops: the average falls as the idle samples enter the window.
    c.now += 30 * kSecond;
    c.stats->tick();
    QVERIFY(c.stats->groupGetTps("G", "T") < 1900.0);
}

QTEST_GUILESS_MAIN(tst_BrokerStatsManager)
#include "tst_brokerstatsmanager.moc"
