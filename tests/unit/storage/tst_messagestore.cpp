#include "clientlib/common/hash.h"
#include "storage/core/mappedfile.h"
#include "storage/core/storecheckpoint.h"
#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_MessageStore final : public QObject
{
    Q_OBJECT

private slots:
    void putThenGet();
    void getMessageStatusTable();
    void tagFilter();
    void propertyFilter();
    void transferLimits();
    void queryByKeyAndOffset();
    void indexCheckpointAdvancesInThoroughRoundsOnly();
    void offsetByTimeAndStoreTimes();
    void batchPut();
    void syncFlushCompletesAfterDisk();
    void syncFlushConcurrentWaitersAndCallbacks();
    void onlySyncFlushWaitsCompleteLater();
    void syncFlushWriteMethodsStoreSameRecords_data();
    void syncFlushWriteMethodsStoreSameRecords();
    void survivesCleanRestart();
    void secondStoreOnSameDirectoryFails();
    void arrivalListenerSeesEveryMessage();
    void scheduleTopicTagsCodeIsDeliveryTime();
    void statsReportOffsetsAndFiles();
    void deleteTopicsRemovesQueuesAndRestartsOffsets();
    void deletedTopicStaysDeletedAfterCrash();
    void staleQueueOfDeletedTopicIsDropped();
};

namespace {
struct Fixture
{
    QTemporaryDir dir;
    std::atomic<std::int64_t> now {1796013328000};
    std::unique_ptr<MessageStore> store;

    explicit Fixture(bool sync = false, std::int64_t fileSize = 64 * 1024) { open(sync, fileSize); }
    void open(bool sync = false, std::int64_t fileSize = 64 * 1024)
    {
        MessageStoreConfig cfg = smallConfig(dir.path(), fileSize);
        if (sync)
            cfg.flushDiskType = QStringLiteral("SYNC_FLUSH");
        StoreOptions opt;
        opt.clock = [this] { return now.load(); };
        opt.runCleanService = false;
        opt.diskSpace = [](const QString &) { return diskSpaceAt(0.1); };
        store = std::make_unique<MessageStore>(cfg, opt);
        const Status s = store->open();
        QVERIFY2(s.isOk(), qPrintable(s.toString()));
    }
    PutMessageResult put(const MessageExtBrokerInner &m)
    {
        now += 10;
        return store->putMessageAndWait(m);
    }
};
} // namespace

void tst_MessageStore::putThenGet()
{
    Fixture f;
    for (int i = 0; i < 5; ++i)
        QVERIFY(f.put(message("T", 0, "body" + QByteArray::number(i), "TagA")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(f.store->maxOffsetInQueue("T", 0), 5);
    const GetMessageResult r = f.store->getMessage("g", "T", 0, 1, 32);
    QCOMPARE(r.status, GetMessageStatus::Found);
    QCOMPARE(r.messageCount(), 4);
    QCOMPARE(r.nextBeginOffset, 5);
    QCOMPARE(r.minOffset, 0);
    QCOMPARE(r.maxOffset, 5);
    protocol::MessageRecordView rec;
    QCOMPARE(protocol::decodeRecord(r.messages[0], rec, true).status, protocol::RecordStatus::Ok);
    QCOMPARE(rec.body.toByteArray(), QByteArray("body1"));
    QCOMPARE(rec.queueOffset, 1);
    QCOMPARE(r.concatenated().size(), r.bufferTotalSize);
}

void tst_MessageStore::getMessageStatusTable()
{
    Fixture f;
    for (int i = 0; i < 3; ++i)
        QVERIFY(f.put(message("T", 0, "x")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    struct Row
    {
        const char *topic;
        std::int64_t offset;
        GetMessageStatus status;
        std::int64_t next;
    };
    const Row rows[] = {
        {"Nope", 5, GetMessageStatus::NoMatchedLogicQueue, 0}, {"T", 0, GetMessageStatus::Found, 3},
        {"T", 2, GetMessageStatus::Found, 3}, {"T", 3, GetMessageStatus::OffsetOverflowOne, 3},
        {"T", 9, GetMessageStatus::OffsetOverflowBadly, 3}, // to the end, as 4.9.7
    };
    for (const Row &row : rows) {
        const GetMessageResult r = f.store->getMessage("g", row.topic, 0, row.offset, 32);
        QVERIFY2(r.status == row.status, getMessageStatusName(r.status));
        QCOMPARE(r.nextBeginOffset, row.next);
    }
    QCOMPARE(f.store->getMessage("g", "T", 7, 0, 32).status, GetMessageStatus::NoMatchedLogicQueue);
}

void tst_MessageStore::tagFilter()
{
    Fixture f;
    for (int i = 0; i < 6; ++i)
        QVERIFY(f.put(message("T", 0, "x", i % 3 == 0 ? "TagA" : "TagB")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    const MessageFilter a = MessageFilter::fromTagExpression("TagA");
    GetMessageResult r = f.store->getMessage("g", "T", 0, 0, 32, &a);
    QCOMPARE(r.status, GetMessageStatus::Found);
    QCOMPARE(r.messageCount(), 2);
    QCOMPARE(r.messageQueueOffsets, (std::vector<std::int64_t> {0, 3}));
    QCOMPARE(r.nextBeginOffset, 6);
    const MessageFilter none = MessageFilter::fromTagExpression("TagC || TagD");
    r = f.store->getMessage("g", "T", 0, 0, 32, &none);
    QCOMPARE(r.status, GetMessageStatus::NoMatchedMessage);
    QCOMPARE(r.nextBeginOffset, 6);
    const MessageFilter all = MessageFilter::fromTagExpression("*");
    QCOMPARE(f.store->getMessage("g", "T", 0, 0, 32, &all).messageCount(), 6);
    QCOMPARE(MessageFilter::fromTagExpression("TagA || TagB").codes.size(), 2u);
}

namespace {

/// Matches records whose properties hold the exact pair "name\x01value".
class PairFilter final : public PropertyFilter
{
public:
    explicit PairFilter(QByteArray pair) : m_pair(std::move(pair)) { }
    bool matches(QByteArrayView properties) const override
    {
        ++calls;
        return properties.contains(m_pair);
    }
    mutable std::atomic<int> calls {0};

private:
    QByteArray m_pair;
};

} // namespace

void tst_MessageStore::propertyFilter()
{
    Fixture f;
    // Keys k0..k5; TagA on 0 and 3 (as tagFilter()).
    for (int i = 0; i < 6; ++i)
        QVERIFY(
            f.put(message("T", 0, "x", i % 3 == 0 ? "TagA" : "TagB", "k" + QByteArray::number(i)))
                .isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    auto k4 = std::make_shared<PairFilter>(QByteArrayLiteral("KEYS\x01k4"));
    const MessageFilter byKey = MessageFilter::fromProperties(k4);
    QVERIFY(!byKey.acceptsAll());
    GetMessageResult r = f.store->getMessage("g", "T", 0, 0, 32, &byKey);
    QCOMPARE(r.status, GetMessageStatus::Found);
    QCOMPARE(r.messageQueueOffsets, (std::vector<std::int64_t> {4}));
    QCOMPARE(r.nextBeginOffset, 6);
    QCOMPARE(k4->calls.load(), 6); // every record was read for its properties

    // The tag check runs first, on the consume queue: records it refuses are not read.
    auto k3 = std::make_shared<PairFilter>(QByteArrayLiteral("KEYS\x01k3"));
    MessageFilter both = MessageFilter::fromTagExpression("TagA");
    both.properties = k3;
    r = f.store->getMessage("g", "T", 0, 0, 32, &both);
    QCOMPARE(r.messageQueueOffsets, (std::vector<std::int64_t> {3}));
    QCOMPARE(k3->calls.load(), 2);

    // Nothing matches: the whole scan is skipped over, as with tags.
    const MessageFilter none = MessageFilter::fromProperties(
        std::make_shared<PairFilter>(QByteArrayLiteral("KEYS\x01zz")));
    r = f.store->getMessage("g", "T", 0, 0, 32, &none);
    QCOMPARE(r.status, GetMessageStatus::NoMatchedMessage);
    QCOMPARE(r.messageCount(), 0);
    QCOMPARE(r.nextBeginOffset, 6);
    QVERIFY(none.matches(0, "KEYS\x01zz\x02"));
    QVERIFY(!none.matches(0, "KEYS\x01k1\x02"));
}

void tst_MessageStore::transferLimits()
{
    Fixture f;
    for (int i = 0; i < 40; ++i)
        QVERIFY(f.put(message("T", 0, "x")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    GetMessageResult r = f.store->getMessage("g", "T", 0, 0, 100);
    QCOMPARE(r.messageCount(), 32); // maxTransferCountOnMessageInMemory
    QCOMPARE(r.nextBeginOffset, 32);
    r = f.store->getMessage("g", "T", 0, 0, 5);
    QCOMPARE(r.messageCount(), 5);
    QCOMPARE(r.nextBeginOffset, 5);
}

void tst_MessageStore::indexCheckpointAdvancesInThoroughRoundsOnly()
{
    Fixture f;
    const auto indexTimestampOnDisk = [&] {
        QFile cp(f.dir.filePath(QStringLiteral("checkpoint")));
        std::int64_t physic = 0, logics = 0, index = 0;
        if (!cp.open(QIODevice::ReadOnly)
            || !StoreCheckpoint::parse(cp.readAll(), physic, logics, index))
            return std::int64_t(-2);
        return index;
    };
    for (int i = 0; i < 5; ++i)
        QVERIFY(f.put(message("T", 0, "x", "TagA", "key" + QByteArray::number(i))).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    const std::int64_t lastStoreTs = f.now.load();
    // A periodic round (the service's own, every 50 ms here, are periodic too: the fixture's
    // clock never reaches the thorough interval) leaves the index and its timestamp alone...
    f.store->flushConsumeQueues(2);
    QCOMPARE(indexTimestampOnDisk(), 0);
    // ... a thorough round flushes the index file and records what it covers.
    f.store->flushConsumeQueues(0);
    QCOMPARE(indexTimestampOnDisk(), lastStoreTs);
    QCOMPARE(f.store->queryMessage("T", "key4", 32, 0, f.now + 1000).messages.size(), 1u);
}

void tst_MessageStore::queryByKeyAndOffset()
{
    Fixture f;
    QVERIFY(f.put(message("T", 0, "a", "TagA", "k1 k2", "UNIQ1")).isOk());
    const PutMessageResult b = f.put(message("T", 1, "b", "TagA", "k2", "UNIQ2"));
    QVERIFY(f.put(message("U", 0, "c", "TagA", "k2", "UNIQ3")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    QueryMessageResult q = f.store->queryMessage("T", "k2", 32, 0, f.now + 1000);
    QCOMPARE(q.messages.size(), 2u);
    q = f.store->queryMessage("T", "UNIQ2", 32, 0, f.now + 1000);
    QCOMPARE(q.messages.size(), 1u);
    protocol::MessageRecordView rec;
    QCOMPARE(protocol::decodeRecord(q.messages[0], rec, true).status, protocol::RecordStatus::Ok);
    QCOMPARE(rec.body.toByteArray(), QByteArray("b"));
    QCOMPARE(f.store->queryMessage("T", "k2", 1, 0, f.now + 1000).messages.size(), 1u);
    QCOMPARE(f.store->queryMessage("T", "k1", 32, f.now + 500, f.now + 1000).messages.size(), 0u);
    const SelectedRecord byOffset = f.store->lookMessageByOffset(b.wroteOffset);
    QVERIFY(byOffset.isValid());
    QCOMPARE(byOffset.bytes.size(), b.wroteBytes);
    QVERIFY(!f.store->lookMessageByOffset(b.wroteOffset + 1).isValid());
    QVERIFY(!f.store->lookMessageByOffset(1 << 30).isValid());
}

void tst_MessageStore::offsetByTimeAndStoreTimes()
{
    Fixture f;
    std::vector<std::int64_t> times;
    for (int i = 0; i < 10; ++i) {
        f.now += 1000;
        const auto r = f.store->putMessageAndWait(message("T", 0, "x"));
        times.push_back(r.storeTimestamp);
    }
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(f.store->offsetInQueueByTime("T", 0, times[4]), 4);
    QCOMPARE(f.store->offsetInQueueByTime("T", 0, times[4] - 1), 4);
    QCOMPARE(f.store->offsetInQueueByTime("T", 0, times[4] + 1), 5);
    QCOMPARE(f.store->offsetInQueueByTime("T", 0, 0), 0);
    QCOMPARE(f.store->offsetInQueueByTime("T", 0, times.back() + 1), 10);
    QCOMPARE(f.store->lastStoreTime("T", 0), times.back());
    QCOMPARE(f.store->earliestMessageTime("T", 0), times.front());
    QCOMPARE(f.store->earliestMessageTime(), times.front());
    QCOMPARE(f.store->messageStoreTimestamp("T", 0, 3), times[3]);
    QCOMPARE(f.store->lastStoreTime("Nope", 0), -1);
}

void tst_MessageStore::batchPut()
{
    Fixture f;
    std::vector<MessageExtBrokerInner> batch;
    for (int i = 0; i < 4; ++i)
        batch.push_back(message("B", 2, "m" + QByteArray::number(i)));
    std::promise<PutMessageResult> p;
    f.store->putMessages(batch, [&](const PutMessageResult &r) { p.set_value(r); });
    const PutMessageResult r = p.get_future().get();
    QVERIFY(r.isOk());
    QCOMPARE(r.msgNum, 4);
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(f.store->maxOffsetInQueue("B", 2), 4);
}

void tst_MessageStore::syncFlushCompletesAfterDisk()
{
    Fixture f(true);
    std::atomic<int> done {0};
    std::vector<std::promise<PutMessageResult>> ps(50);
    for (int i = 0; i < 50; ++i)
        f.store->putMessage(message("S", 0, "x"), [&, i](const PutMessageResult &r) {
            ++done; // before waking the waiter
            ps[static_cast<size_t>(i)].set_value(r);
        });
    for (auto &p : ps) {
        const PutMessageResult r = p.get_future().get();
        QCOMPARE(r.status, PutMessageStatus::PutOk);
    }
    QCOMPARE(done.load(), 50);
    QCOMPARE(f.store->stats().flushBacklogBytes, 0);
    MessageExtBrokerInner noWait = message("S", 0, "x");
    noWait.waitStoreMsgOk = false;
    QVERIFY(f.store->putMessageAndWait(noWait).isOk());
}

void tst_MessageStore::onlySyncFlushWaitsCompleteLater()
{
    // putMessage completes a put in line, without making a PutCallback, exactly when this says
    // the put does not complete later (both use the same rule); a SYNC_FLUSH put whose sender
    // waits must not take that path (its answer would come before the disk has it).
    MessageExtBrokerInner waits = message("W", 0, "x");
    waits.waitStoreMsgOk = true;
    MessageExtBrokerInner noWait = message("W", 0, "x");
    noWait.waitStoreMsgOk = false;
    {
        Fixture async;
        QVERIFY(!async.store->putCompletesLater(waits));
        QVERIFY(!async.store->putCompletesLater(noWait));
    }
    Fixture sync(true);
    QVERIFY(sync.store->putCompletesLater(waits));
    QVERIFY(!sync.store->putCompletesLater(noWait));
    // What the later path waits for: once the waiting put returns, nothing is left unflushed.
    QVERIFY(sync.put(waits).isOk());
    QCOMPARE(sync.store->stats().flushBacklogBytes, 0);
}

void tst_MessageStore::syncFlushConcurrentWaitersAndCallbacks()
{
    // Blocking waiters (one futex per flush) and callback requests share the group commit:
    // every put completes PUT_OK with its own queue offset, once its bytes are flushed.
    Fixture f(true, 1024 * 1024);
    constexpr int kThreads = 8, kEach = 25;
    std::vector<std::vector<std::int64_t>> offsets(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < kEach; ++i) {
                PutMessageResult r;
                if (t % 2 == 0) {
                    r = f.store->putMessageAndWait(message("G", 0, "x"));
                } else {
                    std::promise<PutMessageResult> p;
                    f.store->putMessage(
                        message("G", 0, "x"), [&p](const PutMessageResult &x) { p.set_value(x); });
                    r = p.get_future().get();
                }
                offsets[static_cast<size_t>(t)].push_back(
                    r.status == PutMessageStatus::PutOk ? r.queueOffset : -1);
            }
        });
    for (auto &th : threads)
        th.join();
    std::vector<std::int64_t> all;
    for (const auto &v : offsets)
        all.insert(all.end(), v.begin(), v.end());
    std::sort(all.begin(), all.end());
    for (int i = 0; i < kThreads * kEach; ++i)
        QCOMPARE(all[static_cast<size_t>(i)], i);
    const StoreStats s = f.store->stats();
    QCOMPARE(s.flushBacklogBytes, 0);
    QCOMPARE(s.pendingSyncFlushRequests, 0);
    QVERIFY(s.syncFlushCount >= 1);
    QVERIFY(s.syncFlushCount <= kThreads * kEach);
}

void tst_MessageStore::syncFlushWriteMethodsStoreSameRecords_data()
{
    QTest::addColumn<int>("method");
    QTest::newRow("pwrite") << int(MappedFile::SyncWriteMethod::Pwrite);
    QTest::newRow("mmap") << int(MappedFile::SyncWriteMethod::Mmap);
}

void tst_MessageStore::syncFlushWriteMethodsStoreSameRecords()
{
    QFETCH(int, method);
    MappedFile::setSyncWriteMethod(static_cast<MappedFile::SyncWriteMethod>(method));
    struct Restore
    {
        ~Restore() { MappedFile::setSyncWriteMethod(MappedFile::SyncWriteMethod::Pwrite); }
    } restore;
    // Small files: the appends roll over several times (BLANK records, preallocated files).
    Fixture f(true, 4096);
    std::vector<std::int64_t> offsets;
    for (int i = 0; i < 40; ++i) {
        const PutMessageResult r
            = f.put(message("W", i % 2, QByteArray(200 + i, char('a' + i % 26)), "TagA"));
        QCOMPARE(r.status, PutMessageStatus::PutOk);
        offsets.push_back(r.wroteOffset);
    }
    QCOMPARE(f.store->stats().flushBacklogBytes, 0);
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(f.store->maxOffsetInQueue("W", 0), 20);
    QCOMPARE(f.store->maxOffsetInQueue("W", 1), 20);
    for (int i = 0; i < 40; ++i) {
        const SelectedRecord rec = f.store->lookMessageByOffset(offsets[static_cast<size_t>(i)]);
        QVERIFY(rec.isValid());
        protocol::MessageRecordView v;
        QCOMPARE(protocol::decodeRecord(rec.bytes, v, true).status, protocol::RecordStatus::Ok);
        QCOMPARE(v.body, QByteArray(200 + i, char('a' + i % 26)));
    }
    // Durable as acknowledged: a crash-style reopen (abort left behind) recovers every record.
    f.store->shutdown();
    QFile abort(f.dir.filePath(QStringLiteral("abort")));
    QVERIFY(abort.open(QIODevice::WriteOnly));
    abort.close();
    f.open(true, 4096);
    QVERIFY(!f.store->recoveryReport().lastExitOk);
    QCOMPARE(f.store->maxOffsetInQueue("W", 0), 20);
    QCOMPARE(f.store->maxOffsetInQueue("W", 1), 20);
}

void tst_MessageStore::survivesCleanRestart()
{
    Fixture f(false, 4096);
    for (int i = 0; i < 30; ++i)
        QVERIFY(f.put(message("T", i % 2, QByteArray(300, 'a' + i % 20), "TagA",
                          "key" + QByteArray::number(i)))
                    .isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    const std::int64_t maxOffset = f.store->commitLogMaxOffset();
    f.store->shutdown();
    QVERIFY(!QFile::exists(f.dir.filePath(QStringLiteral("abort"))));
    f.open(false, 4096);
    const RecoveryReport &rep = f.store->recoveryReport();
    QVERIFY(rep.lastExitOk);
    QVERIFY2(rep.problems.isEmpty(), qPrintable(rep.problems.join(u'\n')));
    QCOMPARE(f.store->commitLogMaxOffset(), maxOffset);
    QCOMPARE(f.store->maxOffsetInQueue("T", 0), 15);
    QCOMPARE(f.store->maxOffsetInQueue("T", 1), 15);
    QCOMPARE(f.put(message("T", 0, "after")).queueOffset, 15);
    QCOMPARE(f.store->queryMessage("T", "key7", 32, 0, f.now + 1000).messages.size(), 1u);
}

void tst_MessageStore::secondStoreOnSameDirectoryFails()
{
    Fixture f;
    MessageStore second(smallConfig(f.dir.path()));
    const Status s = second.open();
    QCOMPARE(s.code(), Status::Code::Busy);
    QVERIFY(s.message().contains(QStringLiteral("lock")));
    QVERIFY(f.put(message("T", 0, "still fine")).isOk());
}

void tst_MessageStore::arrivalListenerSeesEveryMessage()
{
    QTemporaryDir dir;
    MessageStore store(smallConfig(dir.path()));
    std::atomic<int> arrivals {0};
    std::atomic<std::int64_t> lastOffset {-1};
    store.setArrivalListener([&](QByteArrayView topic, int queueId, std::int64_t off, std::int64_t,
                                 std::int64_t, QByteArrayView) {
        if (topic == "T" && queueId == 3) {
            lastOffset = off;
            ++arrivals;
        }
    });
    QVERIFY(store.open().isOk());
    for (int i = 0; i < 10; ++i)
        QVERIFY(store.putMessageAndWait(message("T", 3, "x")).isOk());
    QVERIFY(store.waitForDispatch(5000));
    QTRY_COMPARE_WITH_TIMEOUT(arrivals.load(), 10, 5000);
    QCOMPARE(lastOffset.load(), 9);
}

void tst_MessageStore::scheduleTopicTagsCodeIsDeliveryTime()
{
    Fixture f;
    MessageExtBrokerInner m = message("SCHEDULE_TOPIC_XXXX", 2, "delayed", "TagA");
    m.properties += QByteArray("\x02"
                               "DELAY\x01"
                               "3");
    const PutMessageResult r = f.put(m);
    QVERIFY(r.isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    ConsumeQueue::Unit u;
    QVERIFY(f.store->findConsumeQueue("SCHEDULE_TOPIC_XXXX", 2)->unit(0, u));
    QCOMPARE(u.tagsCode, r.storeTimestamp + 10000);
    QVERIFY(f.put(message("T", 0, "x", "TagA")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    QVERIFY(f.store->findConsumeQueue("T", 0)->unit(0, u));
    QCOMPARE(u.tagsCode, javaStringHash("TagA"));
}

void tst_MessageStore::statsReportOffsetsAndFiles()
{
    Fixture f(false, 4096);
    for (int i = 0; i < 10; ++i)
        QVERIFY(f.put(message("T", 0, QByteArray(1000, 'x'))).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    f.store->cleanService().run();
    const StoreStats s = f.store->stats();
    QCOMPARE(s.putMessageTotal, 10);
    QCOMPARE(s.commitLogMinOffset, 0);
    QCOMPARE(s.commitLogMaxOffset, f.store->commitLogMaxOffset());
    QCOMPARE(s.dispatchBehindBytes, 0);
    QVERIFY(s.commitLogFiles.size() >= 3);
    QVERIFY(s.commitLogFiles.back().reasonKept.contains(QStringLiteral("current")));
    QVERIFY(s.commitLogFiles.front().reasonKept.contains(QStringLiteral("not expired")));
    QCOMPARE(s.diskRatio, 0.1);
    QVERIFY(!s.diskFull);
}

void tst_MessageStore::deleteTopicsRemovesQueuesAndRestartsOffsets()
{
    Fixture f;
    for (int q = 0; q < 2; ++q)
        for (int i = 0; i < 5; ++i)
            QVERIFY(f.put(message("Del", q, "old")).isOk());
    QVERIFY(f.put(message("Del-1", 0, "similar name")).isOk());
    QVERIFY(f.put(message("Keep", 0, "k")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    const QString dir = f.store->config().consumeQueueDir() + QStringLiteral("/Del");
    QVERIFY(QDir(dir + QStringLiteral("/1")).exists());

    QCOMPARE(f.store->deleteTopics({QByteArrayLiteral("Del")}), 2);
    QVERIFY(!QDir(dir).exists());
    QVERIFY(!f.store->findConsumeQueue("Del", 0));
    QCOMPARE(
        f.store->getMessage("g", "Del", 0, 0, 1).status, GetMessageStatus::NoMatchedLogicQueue);
    QCOMPARE(f.store->maxOffsetInQueue("Del-1", 0), 1);
    QCOMPARE(f.store->maxOffsetInQueue("Keep", 0), 1);

    // Re-created, it starts at queue offset 0 again (RocketMQ does the same).
    const PutMessageResult again = f.put(message("Del", 0, "new"));
    QCOMPARE(again.queueOffset, 0);
    QCOMPARE(f.put(message("Del-1", 0, "x")).queueOffset, 1);
    QVERIFY(f.store->waitForDispatch(5000));
    auto readBody = [&](QByteArrayView topic, std::int64_t offset) {
        const GetMessageResult r = f.store->getMessage("g", topic, 0, offset, 1);
        protocol::MessageRecordView rec;
        if (r.status != GetMessageStatus::Found
            || protocol::decodeRecord(r.messages[0], rec, true).status
                != protocol::RecordStatus::Ok)
            return QByteArray();
        return rec.body.toByteArray();
    };
    QCOMPARE(f.store->maxOffsetInQueue("Del", 0), 1);
    QCOMPARE(readBody("Del", 0), QByteArray("new"));

    // And after a restart.
    f.store.reset();
    f.open();
    QCOMPARE(f.store->maxOffsetInQueue("Del", 0), 1);
    QCOMPARE(readBody("Del", 0), QByteArray("new"));
    QVERIFY(!f.store->findConsumeQueue("Del", 1));
    QCOMPARE(f.put(message("Del", 1, "y")).queueOffset, 0);
}

// Crash recovery re-dispatches the commit log from the checkpoint's file on: the records a deleted
// topic left there must not re-create its queues, while the same topic re-created after the
// delete keeps its new messages.
void tst_MessageStore::deletedTopicStaysDeletedAfterCrash()
{
    Fixture f;
    for (int q = 0; q < 2; ++q)
        for (int i = 0; i < 5; ++i)
            QVERIFY(f.put(message("Del", q, "old")).isOk());
    QVERIFY(f.put(message("Keep", 0, "k0")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(f.store->deleteTopics({QByteArrayLiteral("Del")}), 2);
    QCOMPARE(f.put(message("Del", 0, "new")).queueOffset, 0);
    // The deleted records come last in the commit log for queue 1: no other queue's progress
    // hides them from a restart.
    QVERIFY(f.put(message("Keep", 0, "k1")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));

    auto readBody = [&](QByteArrayView topic, int queueId, std::int64_t offset) {
        const GetMessageResult r = f.store->getMessage("g", topic, queueId, offset, 1);
        protocol::MessageRecordView rec;
        if (r.status != GetMessageStatus::Found
            || protocol::decodeRecord(r.messages[0], rec, true).status
                != protocol::RecordStatus::Ok)
            return QByteArray();
        return rec.body.toByteArray();
    };
    auto check = [&] {
        QVERIFY(!f.store->recoveryReport().lastExitOk);
        QVERIFY(f.store->recoveryReport().redispatchFromOffset == 0);
        QVERIFY(!f.store->findConsumeQueue("Del", 1));
        QVERIFY(!QDir(f.store->config().consumeQueueDir() + QStringLiteral("/Del/1")).exists());
        QCOMPARE(
            f.store->getMessage("g", "Del", 1, 0, 1).status, GetMessageStatus::NoMatchedLogicQueue);
        QCOMPARE(f.store->maxOffsetInQueue("Del", 0), 1);
        QCOMPARE(readBody("Del", 0, 0), QByteArray("new"));
        QCOMPARE(f.store->maxOffsetInQueue("Keep", 0), 2);
        QCOMPARE(readBody("Keep", 0, 1), QByteArray("k1"));
    };
    auto crashAndReopen = [&] {
        f.store->shutdown();
        QFile abort(f.dir.path() + QStringLiteral("/abort"));
        QVERIFY(abort.open(QIODevice::WriteOnly)); // as if the process had died
        abort.close();
        // ... before any consume queue was flushed: recovery re-dispatches from the start.
        QVERIFY(patchFile(f.dir.path() + QStringLiteral("/checkpoint"), 8, QByteArray(8, '\0')));
        f.store.reset();
        f.open();
    };
    crashAndReopen();
    check();
    // Still so after a second crash, and writes go on where the re-created topic left off.
    crashAndReopen();
    check();
    QCOMPARE(f.put(message("Del", 0, "new2")).queueOffset, 1);
    QCOMPARE(f.put(message("Del", 1, "y")).queueOffset, 0);
    QVERIFY(f.store->waitForDispatch(5000));
    QCOMPARE(readBody("Del", 1, 0), QByteArray("y"));
    QCOMPARE(readBody("Del", 0, 1), QByteArray("new2"));
}

void tst_MessageStore::staleQueueOfDeletedTopicIsDropped()
{
    Fixture f(false, 4096);
    for (int i = 0; i < 3; ++i)
        QVERIFY(f.put(message("Del", 0, "old")).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    const QString cqDir = f.store->config().consumeQueueDir() + QStringLiteral("/Del/0");
    QMap<QString, QByteArray> saved;
    for (const QString &name : QDir(cqDir).entryList(QDir::Files))
        saved[name] = readFile(cqDir + u'/' + name);
    QVERIFY(!saved.isEmpty());
    QCOMPARE(f.store->deleteTopics({QByteArrayLiteral("Del")}), 1);
    const QString marker = f.store->config().deletedTopicsPath();
    QVERIFY(QFile::exists(marker));
    for (int i = 0; i < 20; ++i) // several 4 KiB commit-log files
        QVERIFY(f.put(message("Keep", 0, QByteArray(1000, 'k'))).isOk());
    QVERIFY(f.store->waitForDispatch(5000));
    f.store->shutdown();

    // As if the process had died after recording the deletion, before deleting the files.
    QVERIFY(QDir().mkpath(cqDir));
    for (auto it = saved.cbegin(); it != saved.cend(); ++it) {
        QFile out(cqDir + u'/' + it.key());
        QVERIFY(out.open(QIODevice::WriteOnly));
        QCOMPARE(out.write(it.value()), it.value().size());
    }
    QFile abort(f.dir.path() + QStringLiteral("/abort"));
    QVERIFY(abort.open(QIODevice::WriteOnly));
    abort.close();
    f.store.reset();
    f.open(false, 4096);
    QVERIFY(!f.store->findConsumeQueue("Del", 0));
    QVERIFY(!QDir(f.store->config().consumeQueueDir() + QStringLiteral("/Del")).exists());
    QCOMPARE(f.store->maxOffsetInQueue("Keep", 0), 20);
    QCOMPARE(f.put(message("Del", 0, "new")).queueOffset, 0);

    // Once cleanup has removed every commit-log file from before the deletion, the entry goes.
    // Past fileReservedTime (72 h) after the files' modification times, which are real ones:
    // the fixture's fixed clock plus four days stopped being that on 2026-12-01.
    f.now = QDateTime::currentMSecsSinceEpoch() + 4LL * 24 * 3600 * 1000;
    f.store->cleanService().requestManualDelete();
    QVERIFY(f.store->cleanService().run().deletedFiles > 0);
    QVERIFY(f.store->commitLogMinOffset() >= 4096);
    QVERIFY(!QFile::exists(marker));
}

QTEST_GUILESS_MAIN(tst_MessageStore)
#include "tst_messagestore.moc"
