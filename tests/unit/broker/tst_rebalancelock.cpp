// RebalanceLockManager with a fake clock (grant, renew, refusal until expiry, takeover, unlock by
// the owner only, groups kept apart) and LockProcessor::handle on LOCK/UNLOCK_BATCH_MQ frames
// (protocol.md §4.7), including the C++ client's body with its trailing newline.

#include "broker/managers/rebalancelockmanager.h"
#include "broker/processors/lockprocessor.h"
#include "clientlib/protocol/bodies/clientbodies.h"

#include <QTest>

#include <atomic>
#include <thread>

using namespace qrocket;
using namespace qrocket::broker;
using protocol::MessageQueue;
using protocol::RemotingCommand;

namespace {

MessageQueue mq(const char *topic, int queueId, const char *broker = "broker-a")
{
    return MessageQueue {topic, broker, queueId};
}

RemotingCommand lockRequest(int code, const QByteArray &body)
{
    RemotingCommand r = RemotingCommand::createRequest(code);
    r.body = body;
    return r;
}

} // namespace

class tst_RebalanceLock final : public QObject
{
    Q_OBJECT

private slots:
    void grantsFreeQueuesAndRenews()
    {
        std::int64_t now = 1000;
        RebalanceLockManager m(60000, [&] { return now; });
        const std::vector<MessageQueue> want {mq("T", 0), mq("T", 1)};
        QCOMPARE(m.tryLockBatch("G", want, "c1"), want);
        QVERIFY(m.isLockedBy("G", mq("T", 0), "c1"));
        QCOMPARE(m.holder("G", mq("T", 1)), QByteArray("c1"));
        QCOMPARE(m.lockCount("G"), 2);

        // Renewal just before expiry keeps the lock alive for another full period.
        now += 59000;
        QCOMPARE(m.tryLockBatch("G", {mq("T", 0)}, "c1"), std::vector<MessageQueue> {mq("T", 0)});
        now += 59000; // 118 s after the first lock, 59 s after the renewal
        QVERIFY(m.isLockedBy("G", mq("T", 0), "c1"));
        QVERIFY(!m.isLockedBy("G", mq("T", 1), "c1")); // not renewed: expired
        QVERIFY(!m.tryLock("G", mq("T", 0), "c2"));
    }

    void otherClientRefusedUntilExpiry()
    {
        std::int64_t now = 5000;
        RebalanceLockManager m(60000, [&] { return now; });
        QVERIFY(m.tryLock("G", mq("T", 0), "c1"));

        // c2 asks for both: gets only the free one.
        QCOMPARE(m.tryLockBatch("G", {mq("T", 0), mq("T", 1)}, "c2"),
            std::vector<MessageQueue> {mq("T", 1)});
        QCOMPARE(m.holder("G", mq("T", 0)), QByteArray("c1"));

        now += 60000; // exactly the max live time: not yet expired (strictly longer expires)
        QVERIFY(!m.tryLock("G", mq("T", 0), "c2"));
        now += 1;
        QVERIFY(m.tryLock("G", mq("T", 0), "c2"));
        QCOMPARE(m.holder("G", mq("T", 0)), QByteArray("c2"));
        QVERIFY(!m.isLockedBy("G", mq("T", 0), "c1"));
        // The old holder is now refused.
        QVERIFY(m.tryLockBatch("G", {mq("T", 0)}, "c1").empty());
    }

    void expiredOwnLockIsRetaken()
    {
        std::int64_t now = 0;
        RebalanceLockManager m(1000, [&] { return now; });
        QCOMPARE(m.lockMaxLiveTimeMs(), 1000);
        QVERIFY(m.tryLock("G", mq("T", 0), "c1"));
        now = 5000;
        QVERIFY(!m.isLockedBy("G", mq("T", 0), "c1"));
        QVERIFY(m.tryLock("G", mq("T", 0), "c1"));
        QVERIFY(m.isLockedBy("G", mq("T", 0), "c1"));
    }

    void unlockByOwnerOnly()
    {
        std::int64_t now = 0;
        RebalanceLockManager m(60000, [&] { return now; });
        QCOMPARE(m.tryLockBatch("G", {mq("T", 0), mq("T", 1)}, "c1").size(), std::size_t(2));
        QCOMPARE(m.unlockBatch("G", {mq("T", 0), mq("T", 1)}, "c2"), 0);
        QCOMPARE(m.holder("G", mq("T", 0)), QByteArray("c1"));
        QCOMPARE(m.unlockBatch("G", {mq("T", 0), mq("T", 7)}, "c1"), 1);
        QVERIFY(m.holder("G", mq("T", 0)).isEmpty());
        QCOMPARE(m.holder("G", mq("T", 1)), QByteArray("c1"));
        // Released: another client takes it at once.
        QVERIFY(m.tryLock("G", mq("T", 0), "c2"));
        // Unknown group: nothing to release.
        QCOMPARE(m.unlockBatch("nope", {mq("T", 0)}, "c2"), 0);
        QCOMPARE(m.unlockBatch("G", {mq("T", 0), mq("T", 1)}, "c2"), 1);
        QCOMPARE(m.unlockBatch("G", {mq("T", 1)}, "c1"), 1);
        QCOMPARE(m.lockCount("G"), 0);
    }

    void groupsAndQueuesAreIndependent()
    {
        std::int64_t now = 0;
        RebalanceLockManager m(60000, [&] { return now; });
        QVERIFY(m.tryLock("G1", mq("T", 0), "c1"));
        QVERIFY(m.tryLock("G2", mq("T", 0), "c2")); // same queue, other group
        QVERIFY(m.tryLock("G1", mq("T", 0, "broker-b"), "c2")); // other broker name
        QVERIFY(m.tryLock("G1", mq("%RETRY%G1", 0), "c2")); // other topic
        QVERIFY(!m.tryLock("G1", mq("T", 0), "c2"));
        QCOMPARE(m.lockCount("G1"), 3);
        QCOMPARE(m.lockCount("G2"), 1);
        QCOMPARE(m.unlockBatch("G2", {mq("T", 0)}, "c2"), 1);
        QCOMPARE(m.holder("G1", mq("T", 0)), QByteArray("c1"));
    }

    void duplicatesAndEmptyRequests()
    {
        RebalanceLockManager m;
        QCOMPARE(m.lockMaxLiveTimeMs(), RebalanceLockManager::kDefaultLockMaxLiveTimeMs);
        QCOMPARE(m.tryLockBatch("G", {mq("T", 2), mq("T", 2), mq("T", 1)}, "c1"),
            (std::vector<MessageQueue> {mq("T", 2), mq("T", 1)}));
        QVERIFY(m.tryLockBatch("G", {}, "c1").empty());
        QVERIFY(m.tryLockBatch("G0", {}, "c1").empty());
        QCOMPARE(m.lockCount("G0"), 0);
    }

    void concurrentContendersGetDisjointQueues()
    {
        RebalanceLockManager m;
        std::vector<MessageQueue> all;
        for (int i = 0; i < 64; ++i)
            all.push_back(mq("T", i));
        std::vector<std::vector<MessageQueue>> got(4);
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                const QByteArray client = "c" + QByteArray::number(t);
                for (int round = 0; round < 50; ++round)
                    got[t] = m.tryLockBatch("G", all, client);
            });
        }
        for (auto &th : threads)
            th.join();
        std::size_t total = 0;
        for (int t = 0; t < 4; ++t) {
            total += got[t].size();
            for (const MessageQueue &q : got[t])
                QCOMPARE(m.holder("G", q), "c" + QByteArray::number(t));
        }
        QCOMPARE(total, all.size());
    }

    void processorLocksWithCppClientFrameBody()
    {
        RebalanceLockManager m;
        LockProcessor p(m);
        const QByteArray body = "{\"clientId\":\"127.0.0.1@24035#DEFAULT\",\"consumerGroup\":"
                                "\"G_ord\",\"mqSet\":[{\"brokerName\":\"broker-a\",\"queueId\":0,"
                                "\"topic\":\"TO\"}]}\n";
        RemotingCommand r = p.handle(lockRequest(LockProcessor::kLockBatchMq, body));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.body,
            QByteArray("{\"lockOKMQSet\":[{\"brokerName\":\"broker-a\",\"queueId\":0,"
                       "\"topic\":\"TO\"}]}"));
        QCOMPARE(m.holder("G_ord", mq("TO", 0)), QByteArray("127.0.0.1@24035#DEFAULT"));

        // Another client: nothing locked, still SUCCESS.
        QByteArray other = body;
        other.replace("24035", "999");
        r = p.handle(lockRequest(LockProcessor::kLockBatchMq, other));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.body, QByteArray("{\"lockOKMQSet\":[]}"));
        QVERIFY(protocol::LockBatchResponseBody::fromJson(r.body)->lockOKMQSet.empty());

        // Unlock: SUCCESS without a body; only the owner's counts.
        r = p.handle(lockRequest(LockProcessor::kUnlockBatchMq, other));
        QCOMPARE(r.code, 0);
        QVERIFY(r.body.isEmpty());
        QCOMPARE(m.lockCount("G_ord"), 1);
        r = p.handle(lockRequest(LockProcessor::kUnlockBatchMq, body));
        QCOMPARE(r.code, 0);
        QCOMPARE(m.lockCount("G_ord"), 0);
    }

    void processorRejectsBadBodies_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("not json") << QByteArray("garbage");
        QTest::newRow("array") << QByteArray("[1,2]");
        QTest::newRow("no clientId") << QByteArray("{\"consumerGroup\":\"G\",\"mqSet\":[]}");
        QTest::newRow("no group") << QByteArray("{\"clientId\":\"c\",\"mqSet\":[]}");
        QTest::newRow("mqSet not array")
            << QByteArray("{\"clientId\":\"c\",\"consumerGroup\":\"G\",\"mqSet\":5}");
    }

    void processorRejectsBadBodies()
    {
        QFETCH(QByteArray, body);
        RebalanceLockManager m;
        LockProcessor p(m);
        for (int code : {LockProcessor::kLockBatchMq, LockProcessor::kUnlockBatchMq}) {
            const RemotingCommand r = p.handle(lockRequest(code, body));
            QCOMPARE(r.code, 1);
            QVERIFY(!r.remark.isEmpty());
        }
        QCOMPARE(p.handle(lockRequest(99, "{}")).code, 3);
    }
};

QTEST_GUILESS_MAIN(tst_RebalanceLock)
#include "tst_rebalancelock.moc"
