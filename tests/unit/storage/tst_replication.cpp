// The store's side of replication, without sockets: a slave store takes a master's commit-log
// bytes verbatim (appendReplicated) and reput files them; a SYNC_MASTER's puts wait for a
// slave's acknowledgement (GroupTransferService) or answer SLAVE_NOT_AVAILABLE /
// FLUSH_SLAVE_TIMEOUT, through the same completion path as the group commit.

#include "storage/core/storecheckpoint.h"
#include "storage/services/grouptransferservice.h"
#include "tests/unit/storage/storetestutil.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

namespace {

/// A put's completion, waited for with a bound.
struct Completion
{
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<PutMessageResult> result;
    std::atomic<int> calls {0};

    PutCallback callback()
    {
        return [this](const PutMessageResult &r) {
            std::lock_guard lock(mutex);
            result = r;
            ++calls;
            cv.notify_all();
        };
    }
    bool wait(int ms)
    {
        std::unique_lock lock(mutex);
        return cv.wait_for(
            lock, std::chrono::milliseconds(ms), [this] { return result.has_value(); });
    }
    bool done()
    {
        std::lock_guard lock(mutex);
        return result.has_value();
    }
};

/// Copies everything the master wrote since `from` into the slave, in master-sized chunks
/// (what the HA stream carries); returns the new end.
std::int64_t replicate(const MessageStore &master, MessageStore &slave, std::int64_t from)
{
    for (;;) {
        const SelectedRecord data = master.commitLogData(from);
        if (!data.isValid())
            return from;
        const qsizetype n = std::min<qsizetype>(data.bytes.size(), 1000); // odd-sized transfers
        if (!slave.appendReplicated(from, data.bytes.first(n)))
            return -1;
        from += n;
    }
}

} // namespace

class tst_Replication final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void slaveTakesMasterBytesVerbatim();
    void slaveRefusesWrongOffset();
    void recordsWithNoTopicNameBuildNoPath();
    void emptySlaveStartsAtMastersFile();
    void syncMasterWithoutSlaveAnswersSlaveNotAvailable();
    void syncMasterCompletesOnAck();
    void writeGateClosedBeforeTheAckRefusesIt();
    void syncMasterTimesOut();
    void controllerModeReplicaRules();
    void syncMasterSyncFlushWaitsForBoth();
    void syncMasterFallenBehindSlave();
    void syncMasterBlockingPut();
    void transferServiceShutdownCompletesEverything();
};

void tst_Replication::slaveTakesMasterBytesVerbatim()
{
    QTemporaryDir dir;
    MessageStore master(smallConfig(dir.filePath(QStringLiteral("m")), 4096 * 4));
    MessageStoreConfig slaveConfig = smallConfig(dir.filePath(QStringLiteral("s")), 4096 * 4);
    slaveConfig.brokerRole = QStringLiteral("SLAVE");
    MessageStore slave(slaveConfig);
    QVERIFY(master.open());
    QVERIFY(slave.open());
    // Enough to roll over several files (BLANK records at their ends).
    for (int i = 0; i < 120; ++i)
        QVERIFY(master
                    .putMessageAndWait(message("TopicA", i % 3, QByteArray(300, char('a' + i % 26)),
                        "tag", "k" + QByteArray::number(i)))
                    .isOk());
    QVERIFY(master.commitLogMaxOffset() > 3 * 4096 * 4);
    QCOMPARE(replicate(master, slave, 0), master.commitLogMaxOffset());
    QCOMPARE(slave.commitLogMaxOffset(), master.commitLogMaxOffset());
    QCOMPARE(slave.commitLogMinOffset(), master.commitLogMinOffset());
    for (std::int64_t at = 0; at < master.commitLogMaxOffset();) {
        const SelectedRecord m = master.commitLogData(at);
        const SelectedRecord s = slave.commitLogData(at);
        QVERIFY(m.isValid());
        QCOMPARE(QByteArray(s.bytes.toByteArray()), QByteArray(m.bytes.toByteArray()));
        at += m.bytes.size();
    }
    QVERIFY(slave.waitForDispatch(5000));
    for (int q = 0; q < 3; ++q) {
        QCOMPARE(slave.maxOffsetInQueue("TopicA", q), master.maxOffsetInQueue("TopicA", q));
        const GetMessageResult got = slave.getMessage("G", "TopicA", q, 0, 32);
        QCOMPARE(got.status, GetMessageStatus::Found);
        QCOMPARE(got.messageCount(), std::min<int>(32, 40));
    }
    QCOMPARE(slave.queryMessage("TopicA", "k7", 32, 0, std::numeric_limits<std::int64_t>::max())
                 .messages.size(),
        size_t(1));
    // A slave's own sends are refused.
    QCOMPARE(slave.putMessageAndWait(message("TopicA", 0, "x")).status,
        PutMessageStatus::ServiceNotAvailable);
    // The slave's checkpoint has the store time of the last replicated record as its
    // physicMsgTimestamp (4.9.7's slave records it from the dispatched record), like the master's.
    const std::int64_t lastStoreTs = slave.lastStoreTime("TopicA", 119 % 3);
    QVERIFY(lastStoreTs > 0);
    slave.shutdown();
    master.shutdown();
    StoreCheckpoint slaveCp(slaveConfig.checkpointPath());
    QVERIFY(slaveCp.open());
    QCOMPARE(slaveCp.physicMsgTimestamp(), lastStoreTs);
    QCOMPARE(slaveCp.logicsMsgTimestamp(), lastStoreTs);
    StoreCheckpoint masterCp(
        smallConfig(dir.filePath(QStringLiteral("m")), 4096 * 4).checkpointPath());
    QVERIFY(masterCp.open());
    QCOMPARE(slaveCp.physicMsgTimestamp(), masterCp.physicMsgTimestamp());
}

void tst_Replication::recordsWithNoTopicNameBuildNoPath()
{
    // A hostile master (or a foreign commit log) streams records whose topic climbs out of the
    // store ("../../escape") or whose queue id no queue has: the slave keeps the bytes, as it
    // must to stay a byte-for-byte copy, but files them under no consume queue, and every
    // record after them is dispatched as usual.
    QTemporaryDir dir;
    const QString root = dir.filePath(QStringLiteral("nest/deeper"));
    MessageStore master(smallConfig(root + QStringLiteral("/m"), 4096 * 4));
    MessageStoreConfig slaveConfig = smallConfig(root + QStringLiteral("/s"), 4096 * 4);
    slaveConfig.brokerRole = QStringLiteral("SLAVE");
    MessageStore slave(slaveConfig);
    QVERIFY(master.open());
    QVERIFY(slave.open());
    QVERIFY(master.putMessageAndWait(message("../../../../escape", 0, "evil")).isOk());
    QVERIFY(master.putMessageAndWait(message("%RETRY%a/b", 1, "evil")).isOk());
    QVERIFY(master.putMessageAndWait(message("TopicA", 70000, "evil")).isOk());
    QVERIFY(master.putMessageAndWait(message("TopicA", 0, "good")).isOk());
    QCOMPARE(replicate(master, slave, 0), master.commitLogMaxOffset());
    QVERIFY(master.waitForDispatch(5000));
    QVERIFY(slave.waitForDispatch(5000));
    for (MessageStore *store : {&master, &slave}) {
        QCOMPARE(store->maxOffsetInQueue("TopicA", 0), 1);
        QVERIFY(!store->findConsumeQueue("TopicA", 70000));
        QVERIFY(!store->findConsumeQueue("../../../../escape", 0));
    }
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("escape"))));
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/escape")));
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/m/escape")));
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/s/escape")));
    QVERIFY(!QFileInfo::exists(slaveConfig.consumeQueueDir() + QStringLiteral("/%RETRY%a")));
    // Nor does a delete of such a name remove anything outside the store.
    QVERIFY(QDir().mkpath(root + QStringLiteral("/keepme")));
    QCOMPARE(slave.deleteTopics({QByteArrayLiteral("../../keepme")}), 0);
    QVERIFY(QFileInfo::exists(root + QStringLiteral("/keepme")));
    // A restart recovers the same way.
    slave.shutdown();
    MessageStore again(slaveConfig);
    QVERIFY(again.open());
    QVERIFY(again.waitForDispatch(5000));
    QCOMPARE(again.maxOffsetInQueue("TopicA", 0), 1);
    QVERIFY(!QFileInfo::exists(root + QStringLiteral("/escape")));
    again.shutdown();
    master.shutdown();
}

void tst_Replication::slaveRefusesWrongOffset()
{
    QTemporaryDir dir;
    MessageStore master(smallConfig(dir.filePath(QStringLiteral("m"))));
    MessageStoreConfig sc = smallConfig(dir.filePath(QStringLiteral("s")));
    sc.brokerRole = QStringLiteral("SLAVE");
    MessageStore slave(sc);
    QVERIFY(master.open());
    QVERIFY(slave.open());
    QVERIFY(master.putMessageAndWait(message("T", 0, "one")).isOk());
    QVERIFY(master.putMessageAndWait(message("T", 0, "two")).isOk());
    const SelectedRecord data = master.commitLogData(0);
    QVERIFY(slave.appendReplicated(0, data.bytes.first(10)));
    // Not where the slave ends: neither a gap nor an overlap is taken.
    QVERIFY(!slave.appendReplicated(20, data.bytes.sliced(20)));
    QVERIFY(!slave.appendReplicated(5, data.bytes.sliced(5)));
    QCOMPARE(slave.commitLogMaxOffset(), std::int64_t(10));
    QVERIFY(slave.appendReplicated(10, data.bytes.sliced(10)));
    QCOMPARE(slave.commitLogMaxOffset(), master.commitLogMaxOffset());
}

void tst_Replication::emptySlaveStartsAtMastersFile()
{
    QTemporaryDir dir;
    MessageStoreConfig sc = smallConfig(dir.filePath(QStringLiteral("s")), 4096);
    sc.brokerRole = QStringLiteral("SLAVE");
    MessageStore slave(sc);
    QVERIFY(slave.open());
    // A new slave follows from the start of the master's last file (here the third).
    QVERIFY(slave.appendReplicated(2 * 4096, QByteArray(100, 'x')));
    QCOMPARE(slave.commitLogMinOffset(), std::int64_t(2 * 4096));
    QCOMPARE(slave.commitLogMaxOffset(), std::int64_t(2 * 4096 + 100));
}

void tst_Replication::syncMasterWithoutSlaveAnswersSlaveNotAvailable()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    MessageStore store(c);
    QVERIFY(store.open());
    QVERIFY(store.groupTransfer());
    Completion done;
    store.putMessage(message("T", 0, "body"), done.callback());
    QVERIFY(done.done()); // in line: nothing to wait for
    QCOMPARE(done.result->status, PutMessageStatus::SlaveNotAvailable);
    QCOMPARE(store.commitLogMaxOffset(), std::int64_t(done.result->wroteBytes)); // stored anyway
    // WAIT=false does not wait for a slave either, and is OK.
    MessageExtBrokerInner noWait = message("T", 0, "body");
    noWait.waitStoreMsgOk = false;
    Completion done2;
    store.putMessage(noWait, done2.callback());
    QCOMPARE(done2.result->status, PutMessageStatus::PutOk);
}

void tst_Replication::syncMasterCompletesOnAck()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    MessageStore store(c);
    QVERIFY(store.open());
    GroupTransferService &t = *store.groupTransfer();
    t.setSlaveConnections(1);
    Completion a, b;
    store.putMessage(message("T", 0, "a"), a.callback());
    store.putMessage(message("T", 0, "b"), b.callback());
    QVERIFY(!a.done());
    QVERIFY(!b.done());
    // Acknowledging the first message's end completes only the first.
    const std::int64_t firstEnd = store.commitLogMaxOffset() / 2;
    t.notifyTransferSome(firstEnd);
    QVERIFY(a.wait(2000));
    QCOMPARE(a.result->status, PutMessageStatus::PutOk);
    QVERIFY(!b.done());
    t.notifyTransferSome(store.commitLogMaxOffset());
    QVERIFY(b.wait(2000));
    QCOMPARE(b.result->status, PutMessageStatus::PutOk);
    QCOMPARE(a.calls.load(), 1);
    QCOMPARE(b.calls.load(), 1);
}

void tst_Replication::writeGateClosedBeforeTheAckRefusesIt()
{
    // Controller mode: a put appended while the lease held, acknowledged by a slave after the
    // gate closed (the master was frozen in between), is not acknowledged: SERVICE_NOT_AVAILABLE.
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    MessageStore store(c);
    std::atomic<bool> open {true};
    store.setWriteGate([&open] { return open.load(); });
    QVERIFY(store.open());
    GroupTransferService &t = *store.groupTransfer();
    t.setSlaveConnections(1);
    Completion before, after;
    store.putMessage(message("T", 0, "a"), before.callback());
    QVERIFY(!before.done());
    t.notifyTransferSome(store.commitLogMaxOffset());
    QVERIFY(before.wait(2000));
    QCOMPARE(before.result->status, PutMessageStatus::PutOk);
    store.putMessage(message("T", 0, "b"), after.callback());
    QVERIFY(!after.done());
    open = false; // the lease runs out while the put waits for the slave
    t.notifyTransferSome(store.commitLogMaxOffset());
    QVERIFY(after.wait(2000));
    QCOMPARE(after.result->status, PutMessageStatus::ServiceNotAvailable);
    // Refused before the append once the gate is closed; stored nothing.
    const std::int64_t end = store.commitLogMaxOffset();
    Completion refused;
    store.putMessage(message("T", 0, "c"), refused.callback());
    QVERIFY(refused.done());
    QCOMPARE(refused.result->status, PutMessageStatus::ServiceNotAvailable);
    QCOMPARE(store.commitLogMaxOffset(), end);
    // A master acknowledging alone (its SyncStateSet is itself) completes in line while the
    // gate is open.
    open = true;
    store.setReplicaAcksRequired(false);
    Completion alone;
    store.putMessage(message("T", 0, "d"), alone.callback());
    QVERIFY(alone.done());
    QCOMPARE(alone.result->status, PutMessageStatus::PutOk);
}

void tst_Replication::controllerModeReplicaRules()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    c.minInSyncReplicas = 2;
    MessageStore store(c);
    QVERIFY(store.open());
    GroupTransferService &t = *store.groupTransfer();
    // minInSyncReplicas: a SyncStateSet of the master alone refuses a waiting put, storing
    // nothing (RocketMQ 5's IN_SYNC_REPLICAS_NOT_ENOUGH, a SYSTEM_ERROR).
    store.setInSyncReplicas(1);
    store.setReplicaAcksRequired(false);
    const std::int64_t end = store.commitLogMaxOffset();
    Completion refused;
    store.putMessage(message("T", 0, "a"), refused.callback());
    QVERIFY(refused.done());
    QCOMPARE(refused.result->status, PutMessageStatus::UnknownError);
    QVERIFY(refused.result->remark.contains(QLatin1String("in-sync replicas not enough")));
    QCOMPARE(store.commitLogMaxOffset(), end);
    // A put whose sender does not wait is not held to it.
    MessageExtBrokerInner noWait = message("T", 0, "b");
    noWait.waitStoreMsgOk = false;
    QCOMPARE(store.putMessageAndWait(noWait).status, PutMessageStatus::PutOk);
    // Two members: puts wait for the replicas' acknowledged offset, which HAService sets as is
    // (it may go down when a replica joins the set: what it has counts, not the maximum seen).
    store.setInSyncReplicas(2);
    store.setReplicaAcksRequired(true);
    t.setSlaveConnections(1);
    t.setAckedOffset(store.commitLogMaxOffset());
    t.setAckedOffset(0); // a replica that has less joined the ones waited for
    Completion waits;
    store.putMessage(message("T", 0, "c"), waits.callback());
    QVERIFY(!waits.done());
    t.setAckedOffset(store.commitLogMaxOffset());
    QVERIFY(waits.wait(2000));
    QCOMPARE(waits.result->status, PutMessageStatus::PutOk);
}

void tst_Replication::syncMasterTimesOut()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    c.syncFlushTimeout = 200;
    MessageStore store(c);
    QVERIFY(store.open());
    store.groupTransfer()->setSlaveConnections(1);
    Completion done;
    store.putMessage(message("T", 0, "a"), done.callback());
    QVERIFY(done.wait(3000));
    QCOMPARE(done.result->status, PutMessageStatus::FlushSlaveTimeout);
    QVERIFY(done.result->remark.contains(QLatin1String("200 ms")));
}

void tst_Replication::syncMasterSyncFlushWaitsForBoth()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    c.flushDiskType = QStringLiteral("SYNC_FLUSH");
    MessageStore store(c);
    QVERIFY(store.open());
    store.groupTransfer()->setSlaveConnections(1);
    Completion done;
    store.putMessage(message("T", 0, "a"), done.callback());
    // Flushed by the group commit within milliseconds, but still waiting for the slave.
    QTest::qWait(100);
    QVERIFY(!done.done());
    store.groupTransfer()->notifyTransferSome(store.commitLogMaxOffset());
    QVERIFY(done.wait(2000));
    QCOMPARE(done.result->status, PutMessageStatus::PutOk);

    // Without a slave: flushed, then SLAVE_NOT_AVAILABLE (not in line: the flush comes first).
    store.groupTransfer()->setSlaveConnections(0);
    Completion none;
    store.putMessage(message("T", 0, "b"), none.callback());
    QVERIFY(none.wait(2000));
    QCOMPARE(none.result->status, PutMessageStatus::SlaveNotAvailable);
}

void tst_Replication::syncMasterFallenBehindSlave()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    c.haSlaveFallbehindMax = 1000;
    MessageStore store(c);
    QVERIFY(store.open());
    store.groupTransfer()->setSlaveConnections(1);
    Completion done;
    store.putMessage(message("T", 0, QByteArray(2000, 'x')), done.callback());
    QVERIFY(done.done());
    QCOMPARE(done.result->status, PutMessageStatus::SlaveNotAvailable);
    QVERIFY(done.result->remark.contains(QLatin1String("haSlaveFallbehindMax")));
}

void tst_Replication::syncMasterBlockingPut()
{
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path());
    c.brokerRole = QStringLiteral("SYNC_MASTER");
    c.syncFlushTimeout = 300;
    MessageStore store(c);
    QVERIFY(store.open());
    QCOMPARE(
        store.putMessageAndWait(message("T", 0, "a")).status, PutMessageStatus::SlaveNotAvailable);
    store.groupTransfer()->setSlaveConnections(1);
    QCOMPARE(
        store.putMessageAndWait(message("T", 0, "b")).status, PutMessageStatus::FlushSlaveTimeout);
    std::thread acker([&] {
        QTest::qSleep(50);
        store.groupTransfer()->notifyTransferSome(1 << 20);
    });
    QCOMPARE(store.putMessageAndWait(message("T", 0, "c")).status, PutMessageStatus::PutOk);
    acker.join();
}

void tst_Replication::transferServiceShutdownCompletesEverything()
{
    GroupTransferService t(60000, 1 << 30);
    t.start();
    t.setSlaveConnections(1);
    Completion covered, pending;
    PutMessageResult ok;
    ok.status = PutMessageStatus::PutOk;
    t.submit(100, ok, covered.callback());
    t.submit(200, ok, pending.callback());
    t.notifyTransferSome(150);
    QVERIFY(covered.wait(2000));
    QCOMPARE(covered.result->status, PutMessageStatus::PutOk);
    t.stop();
    QVERIFY(pending.done());
    QCOMPARE(pending.result->status, PutMessageStatus::FlushSlaveTimeout);
    QVERIFY(pending.result->remark.contains(QLatin1String("shut down")));
    // After stop, a submit completes at once.
    Completion late;
    t.submit(120, ok, late.callback());
    QCOMPARE(late.result->status, PutMessageStatus::PutOk);
    QCOMPARE(covered.calls.load() + pending.calls.load() + late.calls.load(), 3);
}

QTEST_GUILESS_MAIN(tst_Replication)
#include "tst_replication.moc"
