#include "clientlib/common/byteorder.h"
#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <condition_variable>
#include <mutex>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

// Issue 30: consume queues checked after open() returns (storage/queuerecovery.cpp). The
// background pass is held at its start (StoreOptions::beforeQueueRecovery) so that every test
// sees queues recovered by their first use, then lets it run and checks what it did.
class tst_QueueRecovery final : public QObject
{
    Q_OBJECT

private slots:
    void queuesAreRecoveredOnFirstUse();
    void damagedQueueRebuildsItselfFromTheCommitLog();
    void deletedConsumeQueuesRebuildEverythingFirst();
    void topicDeletedBeforeItsQueuesWereChecked();
    void unfinishedCrashStartIsValidatedNextStart();
    void eagerModeStillAvailable();

private:
    // Holds the background pass until release() (bounded: a test that forgets lets it go).
    struct Gate
    {
        std::mutex mutex;
        std::condition_variable cv;
        bool open = false;
        // Also lets the pass go once this store is shutting down (it then checks nothing).
        std::atomic<MessageStore *> stopping {nullptr};
        void wait()
        {
            std::unique_lock lock(mutex);
            QDeadlineTimer deadline(30000);
            while (!open && !deadline.hasExpired()) {
                const MessageStore *s = stopping.load();
                if (s && !s->isOpen())
                    return;
                cv.wait_for(lock, std::chrono::milliseconds(10));
            }
        }
        void release()
        {
            {
                std::lock_guard lock(mutex);
                open = true;
            }
            cv.notify_all();
        }
    };
    static std::unique_ptr<MessageStore> openStore(
        const QString &dir, Gate *gate, bool background = true);
    static QByteArray topic(int t) { return "Q" + QByteArray::number(t).rightJustified(3, '0'); }
    // kTopics x 2 queues, queue (t, q) holding (t + q) % 3 + 1 messages; then "Last" 0 with one.
    static void fill(const QString &dir);
    static int expected(int t, int q) { return (t + q) % 3 + 1; }
    // Every queue as fill() left it; `grown` (if any) got one message more in its queue 1.
    static void checkAll(MessageStore &s, int grown = -1);
    static constexpr int kTopics = 30;
};

std::unique_ptr<MessageStore> tst_QueueRecovery::openStore(
    const QString &dir, Gate *gate, bool background)
{
    StoreOptions opt;
    opt.runCleanService = false;
    if (gate)
        opt.beforeQueueRecovery = [gate] { gate->wait(); };
    MessageStoreConfig c = smallConfig(dir, 4096);
    c.recoverConsumeQueuesInBackground = background;
    auto s = std::make_unique<MessageStore>(c, opt);
    const Status st = s->open();
    if (!st.isOk())
        qWarning() << st.toString();
    return st.isOk() ? std::move(s) : nullptr;
}

void tst_QueueRecovery::fill(const QString &dir)
{
    auto s = openStore(dir, nullptr);
    QVERIFY(s);
    for (int t = 0; t < kTopics; ++t)
        for (int q = 0; q < 2; ++q)
            for (int i = 0; i < expected(t, q); ++i)
                QVERIFY(s->putMessageAndWait(message(topic(t), q, "m" + topic(t))).isOk());
    QVERIFY(s->putMessageAndWait(message("Last", 0, "last")).isOk());
    QVERIFY(s->waitForDispatch(10000));
    s->shutdown();
}

void tst_QueueRecovery::checkAll(MessageStore &s, int grown)
{
    for (int t = 0; t < kTopics; ++t) {
        for (int q = 0; q < 2; ++q) {
            const int count = expected(t, q) + (t == grown && q == 1 ? 1 : 0);
            QCOMPARE(s.maxOffsetInQueue(topic(t), q), count);
            const GetMessageResult r = s.getMessage("g", topic(t), q, count - 1, 1);
            QCOMPARE(r.status, GetMessageStatus::Found);
            protocol::MessageRecordView rec;
            QCOMPARE(protocol::decodeRecord(r.messages[0], rec, true).status,
                protocol::RecordStatus::Ok);
            QCOMPARE(rec.topic.toByteArray(), topic(t));
            QCOMPARE(rec.queueId, q);
        }
    }
}

void tst_QueueRecovery::queuesAreRecoveredOnFirstUse()
{
    QTemporaryDir dir;
    fill(dir.path());
    Gate gate;
    auto s = openStore(dir.path(), &gate);
    QVERIFY(s);
    QVERIFY(!s->queuesRecovered());
    // Only the queue recovery looked at to choose the background mode is checked so far.
    QCOMPARE(s->consumeQueues().size(), size_t(1));
    // A pull and an offset query recover the queue they name.
    QCOMPARE(s->maxOffsetInQueue(topic(5), 1), expected(5, 1));
    const GetMessageResult r = s->getMessage("g", topic(7), 0, 0, 8);
    QCOMPARE(r.status, GetMessageStatus::Found);
    QCOMPARE(int(r.messages.size()), expected(7, 0));
    // A put to a queue not checked yet continues its offsets; a new queue starts at 0; a
    // missing one reads empty.
    QCOMPARE(s->putMessageAndWait(message(topic(9), 1, "more")).queueOffset, expected(9, 1));
    QCOMPARE(s->putMessageAndWait(message("Fresh", 0, "new")).queueOffset, 0);
    QCOMPARE(s->maxOffsetInQueue("Nothing", 0), 0);
    QVERIFY(s->findConsumeQueue("Nothing", 0) == nullptr);
    QVERIFY(!s->queuesRecovered());
    gate.release();
    QVERIFY(s->waitForQueueRecovery(10000));
    const RecoveryReport rep = s->recoveryReport();
    QVERIFY(rep.queuesInBackground);
    QCOMPARE(rep.consumeQueues, kTopics * 2 + 1);
    QCOMPARE(rep.damagedConsumeQueues, 0);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue(topic(9), 1), expected(9, 1) + 1);
    QCOMPARE(s->consumeQueues().size(), size_t(kTopics * 2 + 2));
    // The put that continued a queue is where its offset says, after a reopen too.
    s.reset();
    s = openStore(dir.path(), nullptr);
    QVERIFY(s);
    const GetMessageResult more = s->getMessage("g", topic(9), 1, expected(9, 1), 1);
    QCOMPARE(more.status, GetMessageStatus::Found);
    protocol::MessageRecordView rec;
    QCOMPARE(
        protocol::decodeRecord(more.messages[0], rec, true).status, protocol::RecordStatus::Ok);
    QCOMPARE(rec.body.toByteArray(), QByteArray("more"));
    QVERIFY(s->waitForQueueRecovery(10000));
    checkAll(*s, 9);
}

void tst_QueueRecovery::damagedQueueRebuildsItselfFromTheCommitLog()
{
    for (const bool crash : {false, true}) {
        QTemporaryDir dir;
        fill(dir.path());
        // Zero the start of two queues' only file: recovery finds them damaged.
        for (int t : {4, 17}) {
            const QString cq = dir.path() + QStringLiteral("/consumequeue/")
                + QString::fromUtf8(topic(t)) + QStringLiteral("/0/") + offsetToFileName(0);
            QVERIFY(patchFile(cq, 0, QByteArray(20, '\0')));
        }
        if (crash) {
            QFile abort(dir.filePath(QStringLiteral("abort")));
            QVERIFY(abort.open(QIODevice::WriteOnly));
        }
        Gate gate;
        auto s = openStore(dir.path(), &gate);
        QVERIFY(s);
        QVERIFY(!s->queuesRecovered());
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
        // First use rebuilds topic 4's queue before answering.
        QCOMPARE(s->maxOffsetInQueue(topic(4), 0), expected(4, 0));
        QCOMPARE(s->getMessage("g", topic(4), 0, 0, 8).messages.size(), size_t(expected(4, 0)));
        // A put to the other damaged queue gets the offset after its rebuilt units.
        QCOMPARE(s->putMessageAndWait(message(topic(17), 0, "after")).queueOffset, expected(17, 0));
        gate.release();
        const RecoveryReport rep = s->recoveryReport(); // waits for the pass
        QCOMPARE(rep.damagedConsumeQueues, 2);
        QCOMPARE(rep.rebuiltUnits, std::int64_t(expected(4, 0) + expected(17, 0)));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
        QVERIFY(s->waitForDispatch(5000));
        QCOMPARE(s->maxOffsetInQueue(topic(17), 0), expected(17, 0) + 1);
        for (int t = 0; t < kTopics; ++t)
            QCOMPARE(s->maxOffsetInQueue(topic(t), 1), expected(t, 1));
    }
}

void tst_QueueRecovery::deletedConsumeQueuesRebuildEverythingFirst()
{
    // The operator's repair: stop, delete consumequeue/, start. The queue of the last record
    // does not hold it: every queue is rebuilt by re-dispatch before open() returns.
    QTemporaryDir dir;
    fill(dir.path());
    QVERIFY(QDir(dir.filePath(QStringLiteral("consumequeue"))).removeRecursively());
    Gate gate;
    gate.release();
    auto s = openStore(dir.path(), &gate);
    QVERIFY(s);
    QVERIFY(s->queuesRecovered());
    const RecoveryReport rep = s->recoveryReport();
    QVERIFY(!rep.queuesInBackground);
    QCOMPARE(rep.redispatchFromOffset, 0);
    checkAll(*s);
}

void tst_QueueRecovery::topicDeletedBeforeItsQueuesWereChecked()
{
    QTemporaryDir dir;
    fill(dir.path());
    Gate gate;
    auto s = openStore(dir.path(), &gate);
    QVERIFY(s);
    QCOMPARE(s->maxOffsetInQueue(topic(3), 0), expected(3, 0)); // one checked, one not
    QCOMPARE(s->deleteTopics({topic(3), topic(6)}), 1); // only known queues are counted
    QVERIFY(!QDir(dir.filePath(QStringLiteral("consumequeue/") + QString::fromUtf8(topic(6))))
                 .exists());
    gate.release();
    QVERIFY(s->waitForQueueRecovery(10000));
    for (int t : {3, 6}) {
        for (int q = 0; q < 2; ++q) {
            QCOMPARE(s->maxOffsetInQueue(topic(t), q), 0);
            QCOMPARE(s->putMessageAndWait(message(topic(t), q, "again")).queueOffset, 0);
        }
    }
    QVERIFY(s->waitForDispatch(5000));
    s.reset();
    s = openStore(dir.path(), nullptr);
    QVERIFY(s);
    QVERIFY(s->waitForQueueRecovery(10000));
    for (int t : {3, 6})
        QCOMPARE(s->maxOffsetInQueue(topic(t), 1), 1);
    QCOMPARE(s->maxOffsetInQueue(topic(5), 1), expected(5, 1));
}

void tst_QueueRecovery::unfinishedCrashStartIsValidatedNextStart()
{
    // A crash start whose background pass never finished (the process died again, or was
    // stopped): units that pointed past the then valid end may point into newer records. The
    // marker left behind makes the next start check every queue first and cut such units.
    QTemporaryDir dir;
    fill(dir.path());
    std::int64_t end = 0;
    {
        auto s = openStore(dir.path(), nullptr);
        QVERIFY(s);
        QVERIFY(s->waitForQueueRecovery(10000)); // else the next start checks all first
        end = s->commitLogMaxOffset();
    }
    // Topic 12 queue 1 gets a unit for a record that is not there (its commit-log page lost).
    const QString cq = dir.path() + QStringLiteral("/consumequeue/") + QString::fromUtf8(topic(12))
        + QStringLiteral("/1/") + offsetToFileName(0);
    QByteArray unit(20, '\0');
    writeI64(unit.data(), end + 8);
    writeI32(unit.data() + 8, 200);
    QVERIFY(patchFile(cq, 20 * expected(12, 1), unit));
    QFile abort(dir.filePath(QStringLiteral("abort")));
    QVERIFY(abort.open(QIODevice::WriteOnly));
    abort.close();
    {
        Gate gate;
        auto s = openStore(dir.path(), &gate);
        QVERIFY(s);
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
        // Newer records now cover the offset that unit names.
        for (int i = 0; i < 6; ++i)
            QVERIFY(s->putMessageAndWait(message("Other", 0, QByteArray(300, 'o'))).isOk());
        QVERIFY(s->commitLogMaxOffset() > end + 208);
        QVERIFY(s->waitForDispatch(5000));
        // Stopped before the pass checked the queue: the marker stays.
        gate.stopping = s.get();
        s->shutdown();
    }
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
    auto s = openStore(dir.path(), nullptr);
    QVERIFY(s);
    QVERIFY(s->queuesRecovered()); // every queue first
    const RecoveryReport rep = s->recoveryReport();
    QVERIFY(!rep.queuesInBackground);
    QVERIFY(rep.validatedQueues >= 1);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("queuesUnchecked"))));
    QCOMPARE(s->maxOffsetInQueue(topic(12), 1), expected(12, 1));
    QCOMPARE(s->maxOffsetInQueue("Other", 0), 6);
    checkAll(*s);
}

void tst_QueueRecovery::eagerModeStillAvailable()
{
    QTemporaryDir dir;
    fill(dir.path());
    auto s = openStore(dir.path(), nullptr, false);
    QVERIFY(s);
    QVERIFY(s->queuesRecovered());
    QCOMPARE(s->consumeQueues().size(), size_t(kTopics * 2 + 1));
    QVERIFY(!s->recoveryReport().queuesInBackground);
    checkAll(*s);
}

QTEST_GUILESS_MAIN(tst_QueueRecovery)
#include "tst_queuerecovery.moc"
