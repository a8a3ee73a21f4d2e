// SendDedupTable (broker/dedup/senddeduptable.h): claim/finish, waiters, the window, the
// per-topic cap, first-wins rebuild, many threads claiming the same keys; and the rebuild from
// a real store's commit log (broker/dedup/senddeduprebuild.h).

#include "broker/dedup/senddeduprebuild.h"
#include "broker/dedup/senddeduptable.h"
#include "tests/unit/storage/storetestutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <deque>
#include <map>
#include <thread>

using namespace qrocket;
using namespace qrocket::broker;
using Claim = SendDedupTable::Claim;

namespace {

DedupPlacement at(std::int64_t offset, int queueId = 1, std::int64_t queueOffset = 7)
{
    DedupPlacement p;
    p.storeHost = protocol::HostAddress::ipv4(0x7F000001, 10911);
    p.commitLogOffset = offset;
    p.queueId = queueId;
    p.queueOffset = queueOffset;
    return p;
}

const SendDedupTable::Limits kLimits {60000, 1000};

} // namespace

class tst_SendDedupTable final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void freshThenStored()
    {
        SendDedupTable t;
        DedupPlacement p;
        QCOMPARE(t.claim("T", "K1", 1000, kLimits, &p), Claim::Fresh);
        t.finish("T", "K1", at(4096, 3, 12), 1000, kLimits);
        QCOMPARE(t.claim("T", "K1", 1001, kLimits, &p), Claim::Stored);
        QCOMPARE(p.commitLogOffset, 4096);
        QCOMPARE(p.queueId, 3);
        QCOMPARE(p.queueOffset, 12);
        QCOMPARE(p.storeHost, at(0).storeHost);
        // Another topic's same key is another message.
        QCOMPARE(t.claim("U", "K1", 1001, kLimits, &p), Claim::Fresh);
        QCOMPARE(t.stats().keys, 2);
        QCOMPARE(t.stats().duplicates, 1);
    }

    void failedPutForgetsTheKeyAndTellsWaiters()
    {
        SendDedupTable t;
        DedupPlacement p;
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p), Claim::Fresh);
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p), Claim::Pending); // nothing queued
        int calls = 0;
        bool gotPlacement = true;
        SendDedupTable::Waiter w = [&](const std::optional<DedupPlacement> &r) {
            ++calls;
            gotPlacement = r.has_value();
        };
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p, &w), Claim::Pending);
        QVERIFY(!w); // moved into the table
        t.finish("T", "K", std::nullopt, 1000, kLimits);
        QCOMPARE(calls, 1);
        QVERIFY(!gotPlacement);
        QCOMPARE(t.stats().keys, 0);
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p), Claim::Fresh); // the retry stores it
    }

    void waitersGetTheFirstPlacement()
    {
        SendDedupTable t;
        DedupPlacement p;
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p), Claim::Fresh);
        std::vector<std::int64_t> seen;
        for (int i = 0; i < 3; ++i) {
            SendDedupTable::Waiter w = [&](const std::optional<DedupPlacement> &r) {
                seen.push_back(r ? r->commitLogOffset : -1);
            };
            QCOMPARE(t.claim("T", "K", 1000, kLimits, &p, &w), Claim::Pending);
        }
        t.finish("T", "K", at(777), 1000, kLimits);
        QCOMPARE(seen, (std::vector<std::int64_t> {777, 777, 777}));
        QCOMPARE(t.stats().duplicates, 3);
        // A waiter offered after the end is answered at once (Stored), not queued.
        SendDedupTable::Waiter late
            = [](const std::optional<DedupPlacement> &) { QFAIL("queued"); };
        QCOMPARE(t.claim("T", "K", 1000, kLimits, &p, &late), Claim::Stored);
        QVERIFY(late); // not moved from
    }

    void windowExpires()
    {
        SendDedupTable t;
        const SendDedupTable::Limits limits {1000, 1000};
        DedupPlacement p;
        QCOMPARE(t.claim("T", "A", 10000, limits, &p), Claim::Fresh);
        t.finish("T", "A", at(1), 10000, limits);
        QCOMPARE(t.claim("T", "B", 10500, limits, &p), Claim::Fresh);
        t.finish("T", "B", at(2), 10500, limits);
        QCOMPARE(t.claim("T", "A", 10999, limits, &p), Claim::Stored); // within the window
        // 1001 ms after A: A is gone (and counted); B is still there.
        QCOMPARE(t.claim("T", "A", 11001, limits, &p), Claim::Fresh);
        QCOMPARE(t.stats().evictedByWindow, 1);
        QCOMPARE(t.claim("T", "B", 11001, limits, &p), Claim::Stored);
        // A pending key is never expired.
        t.expire(50000, limits);
        QCOMPARE(t.stats().keys, 1); // A, still pending
        QCOMPARE(t.stats().evictedByWindow, 2);
        t.finish("T", "A", at(3), 50000, limits);
        QCOMPARE(t.claim("T", "A", 50001, limits, &p), Claim::Stored);
        t.expire(60000, limits);
        QCOMPARE(t.stats().keys, 0);
    }

    void capEvictsTheOldestOfTheTopic()
    {
        SendDedupTable t(1); // one shard: the cap is exact
        const SendDedupTable::Limits limits {3600000, 3};
        DedupPlacement p;
        for (int i = 0; i < 5; ++i) {
            const QByteArray key = "K" + QByteArray::number(i);
            QCOMPARE(t.claim("T", key, 1000 + i, limits, &p), Claim::Fresh);
            t.finish("T", key, at(i), 1000 + i, limits);
        }
        QCOMPARE(t.stats().keys, 3);
        QCOMPARE(t.stats().evictedByCap, 2);
        QCOMPARE(t.claim("T", "K0", 2000, limits, &p), Claim::Fresh); // evicted: stored again
        QCOMPARE(t.claim("T", "K4", 2000, limits, &p), Claim::Stored);
        // Other topics have caps of their own.
        QCOMPARE(t.claim("U", "K4", 2000, limits, &p), Claim::Fresh);
    }

    void capIsSplitAmongShards()
    {
        SendDedupTable t; // 64 shards: at most cap + shards - 1 keys per topic
        const SendDedupTable::Limits limits {3600000, 640};
        DedupPlacement p;
        for (int i = 0; i < 20000; ++i) {
            const QByteArray key = "KEY-" + QByteArray::number(i);
            QCOMPARE(t.claim("T", key, 1000, limits, &p), Claim::Fresh);
            t.finish("T", key, at(i), 1000, limits);
        }
        const auto s = t.stats();
        QVERIFY2(s.keys <= 640 + t.shardCount() - 1, qPrintable(QString::number(s.keys)));
        QVERIFY2(s.keys >= 640 * 9 / 10, qPrintable(QString::number(s.keys))); // spread evenly
        QCOMPARE(s.keys + s.evictedByCap, 20000);
    }

    // The open-addressing table (probing, backward-shift deletion, growth) against a plain model:
    // random claims over a pool of keys, some puts failing, the cap evicting the oldest.
    void matchesAModel()
    {
        SendDedupTable t(1);
        const SendDedupTable::Limits limits {3600000, 50};
        std::map<QByteArray, std::int64_t> model; // key -> commit-log offset
        std::deque<QByteArray> order;
        std::uint32_t rng = 12345;
        auto next = [&] { return rng = rng * 1103515245u + 12345u, (rng >> 8) & 0xFFFF; };
        for (int op = 0; op < 40000; ++op) {
            const QByteArray key = "KEY" + QByteArray::number(next() % 300);
            DedupPlacement p;
            const Claim c = t.claim("T", key, 1000, limits, &p);
            const auto it = model.find(key);
            if (it != model.end()) {
                QCOMPARE(c, Claim::Stored);
                QCOMPARE(p.commitLogOffset, it->second);
                continue;
            }
            QCOMPARE(c, Claim::Fresh);
            if (next() % 10 == 0) {
                t.finish("T", key, std::nullopt, 1000, limits);
                continue;
            }
            t.finish("T", key, at(op), 1000, limits);
            model[key] = op;
            order.push_back(key);
            if (order.size() > 50) {
                model.erase(order.front());
                order.pop_front();
            }
            QCOMPARE(t.stats().keys, std::int64_t(model.size()));
        }
    }

    void recordKeepsTheFirst()
    {
        SendDedupTable t;
        QVERIFY(t.record("T", "K", at(100), 1000, kLimits));
        QVERIFY(!t.record("T", "K", at(200), 1001, kLimits));
        DedupPlacement p;
        QCOMPARE(t.claim("T", "K", 1002, kLimits, &p), Claim::Stored);
        QCOMPARE(p.commitLogOffset, 100);
        QCOMPARE(t.claim("T", "P", 1002, kLimits, &p), Claim::Fresh);
        QVERIFY(!t.record("T", "P", at(300), 1003, kLimits)); // pending: left alone
    }

    // Many threads send the same keys at once (the same message's attempts on several
    // connections): each key is stored by exactly one, every other attempt learns its placement.
    void concurrentClaimsStoreEachKeyOnce()
    {
        SendDedupTable t;
        constexpr int kThreads = 4, kKeys = 3000;
        const SendDedupTable::Limits roomy {60000, 100000}; // nothing evicted during the run
        std::vector<std::atomic<int>> owners(kKeys);
        std::atomic<int> answered {0}, wrong {0};
        std::vector<std::thread> threads;
        for (int th = 0; th < kThreads; ++th)
            threads.emplace_back([&, th] {
                for (int k = 0; k < kKeys; ++k) {
                    const int key = (k + th * 997) % kKeys; // different orders
                    const QByteArray name = "K" + QByteArray::number(key);
                    DedupPlacement p;
                    SendDedupTable::Waiter w = [&, key](const std::optional<DedupPlacement> &r) {
                        if (!r || r->commitLogOffset != key)
                            ++wrong;
                        ++answered;
                    };
                    SendDedupTable::Ticket ticket;
                    switch (t.claim("T", name, 1000, roomy, &p, &w, &ticket)) {
                    case Claim::Fresh:
                        owners[static_cast<std::size_t>(key)].fetch_add(1);
                        if (key % 3 == 0)
                            std::this_thread::yield(); // let others find it pending
                        if (th % 2) // the send path's way (no lookup), or by name
                            t.finish(ticket, at(key), 1000, roomy);
                        else
                            t.finish("T", name, at(key), 1000, roomy);
                        ++answered;
                        break;
                    case Claim::Stored:
                        if (p.commitLogOffset != key)
                            ++wrong;
                        ++answered;
                        break;
                    case Claim::Pending:
                        break; // the waiter answers
                    }
                }
            });
        for (auto &th : threads)
            th.join();
        for (int k = 0; k < kKeys; ++k)
            QCOMPARE(owners[static_cast<std::size_t>(k)].load(), 1);
        QCOMPARE(answered.load(), kThreads * kKeys);
        QCOMPARE(wrong.load(), 0);
    }

    // The window comes back from the commit log: keys stored within it, under REAL_TOPIC and
    // REAL_QID for parked messages, the first record of a key winning; older records left out,
    // also across several commit-log files.
    void rebuildFromTheCommitLog()
    {
        using namespace qrocket::storage;
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::atomic<std::int64_t> now {1'000'000};
        StoreOptions opt;
        opt.clock = [&] { return now.load(); };
        opt.runCleanService = false;
        MessageStore store(test::smallConfig(dir.path(), 16 * 1024), opt);
        QVERIFY(store.open().isOk());
        const QByteArray body(600, 'x');
        std::vector<PutMessageResult> old, recent;
        for (int i = 0; i < 60; ++i) { // ~2.5 files before the window
            now += 10;
            old.push_back(store.putMessageAndWait(
                test::message("T", i % 4, body, {}, {}, "OLD" + QByteArray::number(i))));
            QVERIFY(old.back().isOk());
        }
        now += 100000;
        const std::int64_t windowStart = now.load() - 1;
        for (int i = 0; i < 60; ++i) {
            now += 10;
            recent.push_back(store.putMessageAndWait(
                test::message("T", i % 4, body, {}, {}, "NEW" + QByteArray::number(i))));
            QVERIFY(recent.back().isOk());
        }
        // A delayed message parked in SCHEDULE_TOPIC_XXXX, then delivered to T (same key).
        MessageExtBrokerInner parked = test::message("SCHEDULE_TOPIC_XXXX", 2, body);
        parked.properties = "UNIQ_KEY\x01PARKED\x02REAL_TOPIC\x01T\x02REAL_QID\x01"
                            "3";
        now += 10;
        const PutMessageResult parkedAt = store.putMessageAndWait(parked);
        now += 10;
        QVERIFY(store.putMessageAndWait(test::message("T", 3, body, {}, {}, "PARKED")).isOk());
        // A transaction's COMMIT record: keyed under its topic and, as END_TRANSACTION keys it,
        // under commitDedupTopic().
        MessageExtBrokerInner commit = test::message("T", 1, body, {}, {}, "TXC");
        commit.sysFlag = protocol::SysFlag::TransactionCommit;
        now += 10;
        const PutMessageResult commitAt = store.putMessageAndWait(commit);
        QVERIFY(commitAt.isOk());
        // Retry topics are not deduplicated.
        now += 10;
        QVERIFY(store.putMessageAndWait(test::message("%RETRY%G", 0, body, {}, {}, "R1")).isOk());

        SendDedupTable t;
        const std::int64_t end = now.load() + 1;
        const SendDedupRebuild r = rebuildSendDedup(t, store, end, {end - windowStart, 100000});
        QCOMPARE(r.keys, 63);
        QVERIFY2(r.fromOffset > 0, "started at the file before the window, not the first");
        QVERIFY(r.scannedRecords < 120);
        QCOMPARE(r.toOffset, store.commitLogMaxOffset());
        DedupPlacement p;
        for (int i = 0; i < 60; ++i) {
            QCOMPARE(t.claim("T", "NEW" + QByteArray::number(i), end, kLimits, &p), Claim::Stored);
            QCOMPARE(p.commitLogOffset, recent[static_cast<std::size_t>(i)].wroteOffset);
            QCOMPARE(p.queueOffset, recent[static_cast<std::size_t>(i)].queueOffset);
            QCOMPARE(p.queueId, i % 4);
        }
        QCOMPARE(t.claim("T", "OLD59", end, kLimits, &p), Claim::Fresh);
        QCOMPARE(t.claim("T", "PARKED", end, kLimits, &p), Claim::Stored);
        QCOMPARE(p.commitLogOffset, parkedAt.wroteOffset);
        QCOMPARE(p.queueId, 3);
        QCOMPARE(t.claim(commitDedupTopic("T"), "TXC", end, kLimits, &p), Claim::Stored);
        QCOMPARE(p.commitLogOffset, commitAt.wroteOffset);
        QCOMPARE(t.claim("T", "TXC", end, kLimits, &p), Claim::Stored);
        QCOMPARE(t.claim("%RETRY%G", "R1", end, kLimits, &p), Claim::Fresh);
        QVERIFY(!isDedupTopic("%DLQ%G"));
        QVERIFY(isDedupTopic("T"));
    }
};

QTEST_GUILESS_MAIN(tst_SendDedupTable)
#include "tst_senddeduptable.moc"
