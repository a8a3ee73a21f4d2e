// The client library's pure parts: queue allocation (the Java client's results), the latency
// fault table, ProcessQueue's commit offsets, the local offset file (the Java client's JSON),
// tag expressions, the hash selector (Java's String.hashCode), message properties, and the
// threads that may be shut down from inside their own tasks.

#include "clientlib/client/consumer/allocate.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/consumer/rebalanceimpl.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/threads.h"
#include "clientlib/client/topicpublishinfo.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <map>
#include <thread>

using namespace qrocket;
using namespace qrocket::client;

class tst_ClientUnits : public QObject
{
    Q_OBJECT

private slots:
    void averagelyMatchesJava();
    void byCircleAndConsistentHashCoverEveryQueueOnce();
    void faultTableIsJavas();
    void faultAvoidanceSkipsAFailedBroker();
    void startOffsetIsRocketMQs();
    void processQueueNeverCommitsPastAnInFlightMessage();
    void processQueueOrderlyCommit();
    void processQueueWithoutMessageCopies();
    void localOffsetFileIsJavasJson();
    void tagExpressions();
    void hashSelectorIsJavas();
    void messageProperties();
    void schedulerRunsCancelsAndShutsDownFromInside();
    void workerPoolShutsDownFromInside();
    void workerPoolGrowsToMaxAndRetiresExtras();
    void workerPoolExecuteAll();
    void workerPoolWakesEveryCoreThreadForLongTasks();
};

namespace {
std::vector<MessageQueue> queues(int brokers, int perBroker)
{
    std::vector<MessageQueue> out;
    for (int b = 0; b < brokers; ++b) {
        for (int q = 0; q < perBroker; ++q)
            out.push_back({"T", "broker-" + QByteArray::number(b), q});
    }
    std::sort(out.begin(), out.end());
    return out;
}
std::vector<QByteArray> ids(int n)
{
    std::vector<QByteArray> out;
    for (int i = 0; i < n; ++i)
        out.push_back("10.0.0." + QByteArray::number(i) + "@c");
    std::sort(out.begin(), out.end());
    return out;
}
} // namespace

void tst_ClientUnits::averagelyMatchesJava()
{
    // 8 queues, 3 consumers: Java's AllocateMessageQueueAveragely gives 3, 3, 2 contiguous.
    const auto all = queues(2, 4);
    const auto cids = ids(3);
    const auto a = allocateMessageQueues(AllocateStrategy::Averagely, cids[0], all, cids);
    const auto b = allocateMessageQueues(AllocateStrategy::Averagely, cids[1], all, cids);
    const auto c = allocateMessageQueues(AllocateStrategy::Averagely, cids[2], all, cids);
    QCOMPARE(a.size(), std::size_t(3));
    QCOMPARE(b.size(), std::size_t(3));
    QCOMPARE(c.size(), std::size_t(2));
    QCOMPARE(a.front(), all[0]);
    QCOMPARE(b.front(), all[3]);
    QCOMPARE(c.front(), all[6]);
    // More consumers than queues: the last ones get nothing.
    const auto many = ids(10);
    QCOMPARE(allocateMessageQueues(AllocateStrategy::Averagely, many[9], all, many).size(),
        std::size_t(0));
    QCOMPARE(allocateMessageQueues(AllocateStrategy::Averagely, many[0], all, many).size(),
        std::size_t(1));
    // Not a member: nothing.
    QVERIFY(allocateMessageQueues(AllocateStrategy::Averagely, "stranger", all, cids).empty());
}

void tst_ClientUnits::byCircleAndConsistentHashCoverEveryQueueOnce()
{
    const auto all = queues(3, 8);
    for (AllocateStrategy s : {AllocateStrategy::Averagely, AllocateStrategy::AveragelyByCircle,
             AllocateStrategy::ConsistentHash}) {
        for (int n : {1, 2, 3, 5, 7, 30}) {
            const auto cids = ids(n);
            std::map<MessageQueue, int> owners;
            for (const QByteArray &id : cids) {
                for (const MessageQueue &mq : allocateMessageQueues(s, id, all, cids))
                    ++owners[mq];
            }
            QCOMPARE(owners.size(), all.size());
            for (const auto &[mq, count] : owners)
                QCOMPARE(count, 1);
        }
    }
    // By circle: queue i to member i % n.
    const auto cids = ids(2);
    const auto first
        = allocateMessageQueues(AllocateStrategy::AveragelyByCircle, cids[0], all, cids);
    QCOMPARE(first[1], all[2]);
}

void tst_ClientUnits::faultTableIsJavas()
{
    QCOMPARE(FaultTolerance::notAvailableDuration(10), std::int64_t(0));
    QCOMPARE(FaultTolerance::notAvailableDuration(100), std::int64_t(0));
    QCOMPARE(FaultTolerance::notAvailableDuration(550), std::int64_t(30000));
    QCOMPARE(FaultTolerance::notAvailableDuration(1000), std::int64_t(60000));
    QCOMPARE(FaultTolerance::notAvailableDuration(2000), std::int64_t(120000));
    QCOMPARE(FaultTolerance::notAvailableDuration(3000), std::int64_t(180000));
    QCOMPARE(FaultTolerance::notAvailableDuration(15000), std::int64_t(600000));
}

void tst_ClientUnits::faultAvoidanceSkipsAFailedBroker()
{
    protocol::TopicRouteData route;
    for (const char *b : {"broker-a", "broker-b"}) {
        protocol::BrokerData bd;
        bd.brokerName = b;
        bd.brokerAddrs[0] = "127.0.0.1:1";
        route.brokerDatas.push_back(bd);
        protocol::QueueData qd;
        qd.brokerName = b;
        qd.readQueueNums = qd.writeQueueNums = 4;
        qd.perm = 6;
        route.queueDatas.push_back(qd);
    }
    auto info = TopicPublishInfo::fromRoute("T", route);
    QCOMPARE(info->queues.size(), std::size_t(8));
    FaultTolerance faults;
    faults.update("broker-b", 3000, true);
    QVERIFY(!faults.isAvailable("broker-b"));
    for (int i = 0; i < 20; ++i)
        QCOMPARE(faults.select(*info, QByteArray(), true).brokerName, QByteArray("broker-a"));
    // Without fault avoidance a retry only avoids the last broker.
    QCOMPARE(faults.select(*info, "broker-a", false).brokerName, QByteArray("broker-b"));
    // Everything failed: still a queue (the broker back first).
    faults.update("broker-a", 15000, false);
    QVERIFY(!faults.select(*info, QByteArray(), true).brokerName.isEmpty());
    // An auto-create route caps the queues per broker.
    QCOMPARE(TopicPublishInfo::fromRoute("T", route, 2)->queues.size(), std::size_t(4));
}

namespace {
MessageExt at(std::int64_t offset)
{
    protocol::MessageRecordInput in;
    in.topic = "T";
    in.body = "x";
    protocol::MessageRecordView v;
    const QByteArray rec = protocol::encodeRecord(in, offset, offset * 100, 1);
    protocol::decodeRecord(rec, v, false);
    return MessageExt::fromRecord(v, "b").value();
}
} // namespace

// Where a queue without a committed offset starts. The push and the lite-pull consumer both take
// it from RebalanceImpl::computePullFromWhere, which is this function: one answer for both, as in
// RocketMQ 4.9.7 (RebalancePushImpl and RebalanceLitePullImpl agree). FIRST_OFFSET is 0 without
// asking the broker (the lite-pull consumer used to ask for the queue's min offset).
void tst_ClientUnits::startOffsetIsRocketMQs()
{
    using protocol::ConsumeFromWhere;
    const MessageQueue mq {"T", "broker-a", 1};
    const MessageQueue retry {"%RETRY%g", "broker-a", 0};
    int brokerCalls = 0;
    const auto maxOffset = [&]() -> std::int64_t {
        ++brokerCalls;
        return 500;
    };
    const auto searchOffset = [&](std::int64_t timestamp) -> std::int64_t {
        ++brokerCalls;
        return timestamp == 1234 ? 77 : -1;
    };
    const auto start = [&](ConsumeFromWhere where, const MessageQueue &q, std::int64_t stored) {
        return startOffset(where, q, stored, 1234, maxOffset, searchOffset);
    };
    for (ConsumeFromWhere where : {ConsumeFromWhere::ConsumeFromLastOffset,
             ConsumeFromWhere::ConsumeFromFirstOffset, ConsumeFromWhere::ConsumeFromTimestamp}) {
        QCOMPARE(start(where, mq, 42), std::int64_t(42)); // a stored offset wins
        QCOMPARE(start(where, mq, -2), std::int64_t(-1)); // the store could not be asked
    }
    QCOMPARE(brokerCalls, 0);
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromFirstOffset, mq, -1), std::int64_t(0));
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromFirstOffset, retry, -1), std::int64_t(0));
    QCOMPARE(brokerCalls, 0);
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromLastOffset, mq, -1), std::int64_t(500));
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromLastOffset, retry, -1), std::int64_t(0));
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromTimestamp, mq, -1), std::int64_t(77));
    QCOMPARE(start(ConsumeFromWhere::ConsumeFromTimestamp, retry, -1), std::int64_t(500));
}

void tst_ClientUnits::processQueueNeverCommitsPastAnInFlightMessage()
{
    ProcessQueue pq;
    pq.putMessages({at(10), at(11), at(12), at(13)});
    QCOMPARE(pq.messageCount(), std::int64_t(4));
    QCOMPARE(pq.maxSpan(), std::int64_t(3));
    // 11 and 13 done, 10 and 12 still running: commit 10.
    QCOMPARE(pq.removeMessages({at(11), at(13)}), std::int64_t(10));
    QCOMPARE(pq.removeMessages({at(10)}), std::int64_t(12));
    QCOMPARE(pq.removeMessages({at(12)}), std::int64_t(14)); // all done: one past the highest
    QCOMPARE(pq.removeMessages({at(12)}), std::int64_t(-1));
}

void tst_ClientUnits::processQueueOrderlyCommit()
{
    ProcessQueue pq;
    QVERIFY(pq.putMessages({at(0), at(1), at(2)})); // idle -> dispatch
    QVERIFY(!pq.putMessages({at(3)})); // already dispatched
    auto first = pq.takeMessages(2);
    QCOMPARE(first.size(), std::size_t(2));
    QCOMPARE(first[0].queueOffset(), std::int64_t(0));
    pq.makeMessagesToConsumeAgain(first); // suspended: same ones again
    auto again = pq.takeMessages(2);
    QCOMPARE(again[0].queueOffset(), std::int64_t(0));
    QCOMPARE(pq.commit(), std::int64_t(2));
    auto rest = pq.takeMessages(10);
    QCOMPARE(rest.size(), std::size_t(2));
    QCOMPARE(pq.commit(), std::int64_t(4));
    QVERIFY(pq.takeMessages(10).empty()); // idle again
    QVERIFY(pq.putMessages({at(4)}));
}

void tst_ClientUnits::processQueueWithoutMessageCopies()
{
    // A concurrent consumer's queue keeps offsets and sizes only: the same counts, bytes, span
    // and commit offsets as with the messages kept.
    ProcessQueue pq;
    pq.putMessages({at(10), at(11), at(12), at(13)}, false);
    QCOMPARE(pq.messageCount(), std::int64_t(4));
    QCOMPARE(pq.messageBytes(), std::int64_t(4)); // four one-byte bodies
    QCOMPARE(pq.maxSpan(), std::int64_t(3));
    pq.putMessages({at(12)}, false); // pulled twice: counted once
    QCOMPARE(pq.messageCount(), std::int64_t(4));
    QCOMPARE(pq.removeMessages({at(11), at(13)}), std::int64_t(10));
    QCOMPARE(pq.messageBytes(), std::int64_t(2));
    QCOMPARE(pq.removeMessages({at(10), at(12)}), std::int64_t(14));
    QCOMPARE(pq.messageCount(), std::int64_t(0));
    QCOMPARE(pq.messageBytes(), std::int64_t(0));
    QCOMPARE(pq.info().cachedMsgCount, std::int64_t(0));
}

void tst_ClientUnits::localOffsetFileIsJavasJson()
{
    // What the Java client writes (fastjson, MessageQueue objects as keys).
    const QByteArray java
        = "{\"offsetTable\":{{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"T\"}:42,"
          "{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}:7}}";
    auto table = LocalFileOffsetStore::decode(java);
    QVERIFY(table);
    QCOMPARE(table->size(), std::size_t(2));
    QCOMPARE(table->at(MessageQueue {"T", "broker-a", 1}), std::int64_t(42));
    const QByteArray ours = LocalFileOffsetStore::encode(*table);
    QCOMPARE(LocalFileOffsetStore::decode(ours).value(), *table);
    QVERIFY(ours.contains("{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}:7"));
    QVERIFY(!LocalFileOffsetStore::decode("{\"offsetTable\":3}"));
    QVERIFY(!LocalFileOffsetStore::decode("not json"));
    // Through the file, with the path the Java client uses.
    QTemporaryDir dir;
    {
        LocalFileOffsetStore store(dir.path(), "10.0.0.1@DEFAULT", "G");
        QCOMPARE(store.path(), dir.path() + QStringLiteral("/10.0.0.1@DEFAULT/G/offsets.json"));
        store.updateOffset({"T", "b", 0}, 5, false);
        store.updateOffset({"T", "b", 0}, 3, true); // increase only: stays 5
        store.persistAll({}, true);
    }
    LocalFileOffsetStore again(dir.path(), "10.0.0.1@DEFAULT", "G");
    QVERIFY(again.load().isOk());
    QCOMPARE(again.readOffset({"T", "b", 0}, ReadOffsetType::Store), std::int64_t(5));
    QCOMPARE(again.readOffset({"T", "b", 1}, ReadOffsetType::Store), std::int64_t(-1));
}

void tst_ClientUnits::tagExpressions()
{
    QVERIFY(parseTagExpression("*").empty());
    QVERIFY(parseTagExpression("").empty());
    QCOMPARE(parseTagExpression(" TagA || TagB ||  "), (std::vector<QByteArray> {"TagA", "TagB"}));
}

void tst_ClientUnits::hashSelectorIsJavas()
{
    // Java: Math.abs("order-42".hashCode()) % 8.
    std::vector<MessageQueue> qs;
    for (int i = 0; i < 8; ++i)
        qs.push_back({"T", "b", i});
    const int javaHash = 1234255197; // "order-42".hashCode() (positive)
    QCOMPARE(selectors::byHash("order-42")(qs, Message()).queueId, javaHash % 8);
    QVERIFY(selectors::byHash("x")({}, Message()).topic.isEmpty());
}

void tst_ClientUnits::messageProperties()
{
    Message m("T", "TagA", "k1", "body");
    m.setKeys(std::vector<QByteArray> {"a", "", "b"});
    QCOMPARE(m.keys(), QByteArray("a b"));
    QCOMPARE(m.tags(), QByteArray("TagA"));
    m.setDelayTimeLevel(3);
    QCOMPARE(m.delayTimeLevel(), 3);
    m.setDelayTimeLevel(0);
    QCOMPARE(m.property("DELAY"), QByteArray());
    QVERIFY(m.waitStoreMsgOK());
    m.setWaitStoreMsgOK(false);
    QVERIFY(!m.waitStoreMsgOK());
    m.setProperty("user", "v");
    m.setProperty("user", QByteArray());
    QVERIFY(m.property("user").isEmpty());
    // Parsed names and values are interned where well known; they read and compare as any.
    const auto parsed
        = protocol::MessageProperties::parse("UNIQ_KEY\x01u1\x02WAIT\x01true\x02mine\x01"
                                             "false\x02TAGS\x01t");
    QCOMPARE(parsed.size(), std::size_t(4));
    QCOMPARE(parsed.value("WAIT"), QByteArray("true"));
    QCOMPARE(parsed.value("mine"), QByteArray("false"));
    QCOMPARE(parsed.entries()[0].first, QByteArray("UNIQ_KEY"));
    QCOMPARE(parsed.encode(),
        QByteArray("UNIQ_KEY\x01u1\x02WAIT\x01true\x02mine\x01"
                   "false\x02TAGS\x01t"));
    QCOMPARE(protocol::MessageProperties::internedName("MIN_OFFSET"), QByteArray("MIN_OFFSET"));
    QCOMPARE(protocol::MessageProperties::internedName("MIN_OFFSETS"), QByteArray("MIN_OFFSETS"));
    QCOMPARE(protocol::MessageProperties::internedName("user"), QByteArray("user"));
    QByteArray name = protocol::MessageProperties::internedName("TAGS");
    name[0] = 'X'; // a copy of the static text, which stays as it was
    QCOMPARE(name, QByteArray("XAGS"));
    QCOMPARE(protocol::MessageProperties::internedName("TAGS"), QByteArray("TAGS"));
}

void tst_ClientUnits::schedulerRunsCancelsAndShutsDownFromInside()
{
    Scheduler s("tst-sched");
    std::atomic<int> ran {0};
    s.schedule(std::chrono::milliseconds(10), [&] { ++ran; });
    const auto cancelled = s.schedule(std::chrono::milliseconds(50), [&] { ran += 100; });
    s.cancel(cancelled);
    std::atomic<int> periodic {0};
    const auto every = s.scheduleWithFixedDelay(
        std::chrono::milliseconds(0), std::chrono::milliseconds(5), [&] { ++periodic; });
    QTRY_VERIFY_WITH_TIMEOUT(ran.load() == 1 && periodic.load() >= 3, 3000);
    s.cancel(every);
    QTest::qWait(100);
    QCOMPARE(ran.load(), 1);
    // Shut down (and destroyed) from inside one of its own tasks.
    auto inner
        = std::make_shared<std::unique_ptr<Scheduler>>(std::make_unique<Scheduler>("tst-self"));
    std::atomic<bool> done {false};
    (*inner)->post([inner, &done] {
        inner->reset();
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done.load(), 3000);
    QCOMPARE(s.schedule(std::chrono::milliseconds(0), [] {}) != 0, true);
    s.shutdown();
    QCOMPARE(s.post([] {}), Scheduler::TaskId(0));
}

void tst_ClientUnits::workerPoolShutsDownFromInside()
{
    auto pool = std::make_shared<std::unique_ptr<WorkerPool>>(
        std::make_unique<WorkerPool>("tst-pool", 3));
    std::atomic<int> ran {0};
    for (int i = 0; i < 10; ++i)
        (*pool)->execute([&] { ++ran; });
    QTRY_VERIFY_WITH_TIMEOUT(ran.load() == 10, 3000);
    std::atomic<bool> done {false};
    (*pool)->execute([pool, &done] {
        pool->reset(); // destroys the pool from one of its own threads
        done = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(done.load(), 3000);
    // A pool whose task hangs: shutdown returns within its timeout.
    WorkerPool slow("tst-slow", 1);
    std::atomic<bool> release {false};
    slow.execute([&] {
        while (!release)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    QTest::qWait(20);
    QElapsedTimer t;
    t.start();
    slow.shutdown(std::chrono::milliseconds(200));
    QVERIFY(t.elapsed() < 1500);
    QVERIFY(!slow.execute([] {}));
    release = true;
    QTest::qWait(50);
}

void tst_ClientUnits::workerPoolWakesEveryCoreThreadForLongTasks()
{
    // Twenty idle core threads (a push consumer's default pool), twenty tasks that wait for each
    // other: the wake-ups passed from thread to thread reach all of them, by execute() and by
    // executeAll(), without growing the pool.
    WorkerPool pool("tst-wake", 20);
    for (int round = 0; round < 2; ++round) {
        std::atomic<int> running {0};
        std::atomic<bool> release {false};
        std::atomic<int> done {0};
        const auto blocking = [&] {
            ++running;
            while (!release.load())
                std::this_thread::yield();
            ++done;
        };
        if (round == 0) {
            for (int i = 0; i < 20; ++i)
                QVERIFY(pool.execute(blocking));
        } else {
            std::vector<std::function<void()>> tasks(20, blocking);
            QVERIFY(pool.executeAll(std::move(tasks)));
        }
        QTRY_COMPARE_WITH_TIMEOUT(running.load(), 20, 5000);
        QCOMPARE(pool.threadCount(), 20);
        release = true;
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), 20, 5000);
    }
}

QTEST_GUILESS_MAIN(tst_ClientUnits)
void tst_ClientUnits::workerPoolGrowsToMaxAndRetiresExtras()
{
    // consumeThreadMin 1, consumeThreadMax 4: four tasks that wait for each other all run at once
    // (a pool stuck at its minimum would deadlock them), then the extras retire after keepAlive.
    WorkerPool pool("tst-grow", 1, 4, std::chrono::milliseconds(100));
    QCOMPARE(pool.threadCount(), 1);
    std::atomic<int> running {0};
    std::atomic<bool> release {false};
    std::atomic<int> done {0};
    for (int i = 0; i < 4; ++i) {
        QVERIFY(pool.execute([&] {
            ++running;
            while (!release.load())
                std::this_thread::yield();
            ++done;
        }));
    }
    QTRY_COMPARE_WITH_TIMEOUT(running.load(), 4, 5000);
    QCOMPARE(pool.threadCount(), 4);
    // A fifth task waits: the pool is at its maximum.
    QVERIFY(pool.execute([&] { ++done; }));
    QCOMPARE(pool.threadCount(), 4);
    release = true;
    QTRY_COMPARE_WITH_TIMEOUT(done.load(), 5, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(pool.threadCount(), 1, 5000);
    // It grows again, and a shutdown with extra threads running is bounded.
    release = false;
    for (int i = 0; i < 3; ++i)
        pool.execute([&] {
            while (!release.load())
                std::this_thread::yield();
        });
    QTRY_COMPARE_WITH_TIMEOUT(pool.threadCount(), 3, 5000);
    release = true;
    QElapsedTimer t;
    t.start();
    pool.shutdown(std::chrono::seconds(3));
    QVERIFY(t.elapsed() < 3000);
    QVERIFY(!pool.execute([] {}));
}

void tst_ClientUnits::workerPoolExecuteAll()
{
    // A batch handed over at once wakes a waiting thread, which wakes the next while tasks are
    // left; it grows the pool by as many as no waiting thread takes, and runs each task once; a
    // shut-down pool refuses the batch and drops it.
    WorkerPool pool("tst-all", 2, 6, std::chrono::milliseconds(100));
    std::atomic<int> running {0};
    std::atomic<bool> release {false};
    std::atomic<int> done {0};
    const auto blocking = [&] {
        return [&] {
            ++running;
            while (!release.load())
                std::this_thread::yield();
            ++done;
        };
    };
    std::vector<std::function<void()>> tasks;
    for (int i = 0; i < 6; ++i)
        tasks.emplace_back(blocking());
    QVERIFY(pool.executeAll(std::move(tasks)));
    // Six tasks that wait for each other all run at once: both waiting threads woke, and four
    // more started.
    QTRY_COMPARE_WITH_TIMEOUT(running.load(), 6, 5000);
    QCOMPARE(pool.threadCount(), 6);
    release = true;
    QTRY_COMPARE_WITH_TIMEOUT(done.load(), 6, 5000);
    // Many small tasks, more than threads: each runs exactly once.
    std::atomic<int> counted {0};
    tasks.clear();
    for (int i = 0; i < 1000; ++i)
        tasks.emplace_back([&] { ++counted; });
    QVERIFY(pool.executeAll(std::move(tasks)));
    QVERIFY(pool.executeAll({})); // nothing to do
    QTRY_COMPARE_WITH_TIMEOUT(counted.load(), 1000, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(pool.threadCount(), 2, 5000);
    pool.shutdown(std::chrono::seconds(3));
    auto alive = std::make_shared<int>(0);
    tasks.clear();
    tasks.emplace_back([alive] { ++*alive; });
    QVERIFY(!pool.executeAll(std::move(tasks)));
    QCOMPARE(alive.use_count(), 1); // the refused task was dropped, its captures released
}

#include "tst_clientunits.moc"
