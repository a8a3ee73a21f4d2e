#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

// Corruption and crash recovery: each test writes a store, damages it the way a crash or a bad
// disk would, reopens it and checks that the damage is detected, reported, and that everything
// before it is kept.
class tst_StoreRecovery final : public QObject
{
    Q_OBJECT

private slots:
    void crashRebuildsMissingConsumeQueues();
    void flippedByteTruncatesFromThatRecord();
    void fileTruncatedMidRecord();
    void zeroedConsumeQueueFileIsRebuilt();
    void tornTailAfterCrashIsCut();
    void consumeQueuePastCommitLogIsTrimmed();
    void indexNewerThanCheckpointIsRebuilt();
    void manyQueuesLoadInParallel();

private:
    struct Written
    {
        std::vector<PutMessageResult> results;
    };
    static std::unique_ptr<MessageStore> openStore(const QString &dir);
    static Written writeMessages(const QString &dir, int count);
    static void markCrashed(const QString &dir);
    static void checkReadable(MessageStore &s, const Written &w, int expectKept);
};

std::unique_ptr<MessageStore> tst_StoreRecovery::openStore(const QString &dir)
{
    StoreOptions opt;
    opt.runCleanService = false;
    auto s = std::make_unique<MessageStore>(smallConfig(dir, 4096), opt);
    const Status st = s->open();
    if (!st.isOk())
        qWarning() << st.toString();
    return st.isOk() ? std::move(s) : nullptr;
}

tst_StoreRecovery::Written tst_StoreRecovery::writeMessages(const QString &dir, int count)
{
    Written w;
    auto s = openStore(dir);
    for (int i = 0; i < count; ++i)
        w.results.push_back(s->putMessageAndWait(message(
            "T", 0, QByteArray(500, char('a' + i % 26)), "TagA", "k" + QByteArray::number(i))));
    s->waitForDispatch(5000);
    s->shutdown();
    return w;
}

void tst_StoreRecovery::markCrashed(const QString &dir)
{
    QFile f(dir + QStringLiteral("/abort"));
    QVERIFY(f.open(QIODevice::WriteOnly));
}

void tst_StoreRecovery::checkReadable(MessageStore &s, const Written &w, int expectKept)
{
    QCOMPARE(s.maxOffsetInQueue("T", 0), expectKept);
    for (int i = 0; i < expectKept; ++i) {
        const GetMessageResult r = s.getMessage("g", "T", 0, i, 1);
        QCOMPARE(r.status, GetMessageStatus::Found);
        protocol::MessageRecordView rec;
        QCOMPARE(
            protocol::decodeRecord(r.messages[0], rec, true).status, protocol::RecordStatus::Ok);
        QCOMPARE(rec.physicalOffset, w.results[static_cast<size_t>(i)].wroteOffset);
        QCOMPARE(rec.queueOffset, i);
    }
    QCOMPARE(s.getMessage("g", "T", 0, expectKept, 1).status, GetMessageStatus::OffsetOverflowOne);
}

void tst_StoreRecovery::crashRebuildsMissingConsumeQueues()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    QVERIFY(QDir(dir.filePath(QStringLiteral("consumequeue"))).removeRecursively());
    markCrashed(dir.path());
    auto s = openStore(dir.path());
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QVERIFY(!rep.lastExitOk);
    QCOMPARE(rep.redispatchFromOffset, 0);
    QCOMPARE(rep.scannedRecords, 20);
    checkReadable(*s, w, 20);
    QCOMPARE(s->putMessageAndWait(message("T", 0, "next")).queueOffset, 20);
}

void tst_StoreRecovery::flippedByteTruncatesFromThatRecord()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    // Flip one body byte of message 9 (about six records fit in each 4 KiB file).
    const PutMessageResult &victim = w.results[9];
    const std::int64_t fileStart = victim.wroteOffset - victim.wroteOffset % 4096;
    const QString path = dir.path() + QStringLiteral("/commitlog/") + offsetToFileName(fileStart);
    const qint64 pos = victim.wroteOffset - fileStart + 200;
    QByteArray b = readFile(path).mid(pos, 1);
    b[0] = char(b[0] ^ 0x5A);
    QVERIFY(patchFile(path, pos, b));
    markCrashed(dir.path());
    auto s = openStore(dir.path());
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QCOMPARE(rep.processOffset, victim.wroteOffset);
    QVERIFY2(rep.stopReason.contains(QStringLiteral("CRC")), qPrintable(rep.stopReason));
    QVERIFY(rep.truncatedBytes > 0);
    QVERIFY(!rep.problems.isEmpty());
    checkReadable(*s, w, 9);
    QCOMPARE(s->commitLogMaxOffset(), victim.wroteOffset);
    QCOMPARE(s->putMessageAndWait(message("T", 0, "next")).wroteOffset, victim.wroteOffset);
}

void tst_StoreRecovery::fileTruncatedMidRecord()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    const PutMessageResult &last = w.results.back();
    const std::int64_t fileStart = last.wroteOffset - last.wroteOffset % 4096;
    const QString path = dir.path() + QStringLiteral("/commitlog/") + offsetToFileName(fileStart);
    QVERIFY(QFile::resize(path, last.wroteOffset - fileStart + 100)); // cut inside the last record
    auto s = openStore(dir.path()); // clean shutdown: normal recovery still checks the tail
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QCOMPARE(rep.processOffset, last.wroteOffset);
    QVERIFY(!rep.problems.isEmpty());
    QVERIFY2(rep.problems.first().contains(QStringLiteral("short")),
        qPrintable(rep.problems.join(u'\n')));
    checkReadable(*s, w, 19);
}

void tst_StoreRecovery::zeroedConsumeQueueFileIsRebuilt()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    const QString cq = dir.path() + QStringLiteral("/consumequeue/T/0/") + offsetToFileName(0);
    QVERIFY(patchFile(cq, 0, QByteArray(2000, '\0')));
    auto s = openStore(dir.path());
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QCOMPARE(rep.damagedConsumeQueues, 1);
    QVERIFY(rep.problems.join(u'\n').contains(QStringLiteral("consume queue damaged")));
    QCOMPARE(rep.redispatchedRecords >= 20, true);
    checkReadable(*s, w, 20);
}

void tst_StoreRecovery::tornTailAfterCrashIsCut()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 10);
    const std::int64_t end = w.results.back().wroteOffset + w.results.back().wroteBytes;
    const std::int64_t fileStart = end - end % 4096;
    const QString path = dir.path() + QStringLiteral("/commitlog/") + offsetToFileName(fileStart);
    // Half a record: a plausible header, then nothing.
    const QByteArray torn = readFile(path).mid(w.results.back().wroteOffset - fileStart, 60);
    QVERIFY(patchFile(path, end - fileStart, torn));
    markCrashed(dir.path());
    auto s = openStore(dir.path());
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QCOMPARE(rep.processOffset, end);
    QVERIFY(!rep.stopReason.isEmpty());
    checkReadable(*s, w, 10);
    MappedFileQueue probe(dir.path() + QStringLiteral("/commitlog"), 4096);
    // Nothing follows the cut: the bytes after it are zero now.
    const QByteArray after = readFile(path).mid(end - fileStart, 60);
    QCOMPARE(after, QByteArray(60, '\0'));
}

void tst_StoreRecovery::consumeQueuePastCommitLogIsTrimmed()
{
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    // Lose the commit-log tail (e.g. a disk that dropped unflushed pages): delete the last file.
    const PutMessageResult &last = w.results.back();
    const std::int64_t fileStart = last.wroteOffset - last.wroteOffset % 4096;
    QVERIFY(
        QFile::remove(dir.path() + QStringLiteral("/commitlog/") + offsetToFileName(fileStart)));
    markCrashed(dir.path());
    auto s = openStore(dir.path());
    QVERIFY(s);
    int kept = 0;
    while (kept < 20 && w.results[static_cast<size_t>(kept)].wroteOffset < fileStart)
        ++kept;
    checkReadable(*s, w, kept);
    QCOMPARE(s->queryMessage("T", "k19", 32, 0, std::numeric_limits<std::int64_t>::max())
                 .messages.size(),
        0u);
}

void tst_StoreRecovery::indexNewerThanCheckpointIsRebuilt()
{
    // The index is flushed in thorough rounds only: after a crash between two, the checkpoint's
    // index timestamp lies behind the index file, which recovery then deletes and rebuilds from
    // the commit log.
    QTemporaryDir dir;
    const Written w = writeMessages(dir.path(), 20);
    QVERIFY(patchFile(dir.path() + QStringLiteral("/checkpoint"), 16, QByteArray(8, '\0')));
    markCrashed(dir.path());
    auto s = openStore(dir.path());
    QVERIFY(s);
    QVERIFY(s->recoveryReport().deletedIndexFiles >= 1);
    QVERIFY(s->waitForDispatch(5000));
    checkReadable(*s, w, 20);
    for (int i = 0; i < 20; ++i) {
        const QueryMessageResult q = s->queryMessage(
            "T", "k" + QByteArray::number(i), 32, 0, std::numeric_limits<std::int64_t>::max());
        QCOMPARE(q.messages.size(), 1u);
    }
}

void tst_StoreRecovery::manyQueuesLoadInParallel()
{
    // The consume queues are loaded and checked on several threads: every queue comes back with
    // its units, damaged ones (three, spread over the table) are found and rebuilt, and a deleted
    // topic's leftover queue is still dropped.
    QTemporaryDir dir;
    constexpr int kTopics = 60;
    constexpr int kQueues = 4;
    auto topic = [](int t) { return "P" + QByteArray::number(t).rightJustified(3, '0'); };
    {
        auto s = openStore(dir.path());
        QVERIFY(s);
        for (int t = 0; t < kTopics; ++t) {
            for (int q = 0; q < kQueues; ++q) {
                for (int i = 0; i <= (t + q) % 3; ++i)
                    QVERIFY(s->putMessageAndWait(message(topic(t), q, "m" + topic(t))).isOk());
            }
        }
        QVERIFY(s->waitForDispatch(10000));
        s->shutdown();
    }
    for (int t : {3, 31, 58}) {
        const QString cq = dir.path() + QStringLiteral("/consumequeue/")
            + QString::fromUtf8(topic(t)) + QStringLiteral("/1/") + offsetToFileName(0);
        QVERIFY(patchFile(cq, 0, QByteArray(100, '\0')));
    }
    auto s = openStore(dir.path());
    QVERIFY(s);
    const RecoveryReport &rep = s->recoveryReport();
    QCOMPARE(rep.consumeQueues, kTopics * kQueues);
    QCOMPARE(rep.damagedConsumeQueues, 3);
    for (int t = 0; t < kTopics; ++t) {
        for (int q = 0; q < kQueues; ++q) {
            const int expect = (t + q) % 3 + 1;
            QCOMPARE(s->maxOffsetInQueue(topic(t), q), expect);
            const GetMessageResult r = s->getMessage("g", topic(t), q, expect - 1, 1);
            QCOMPARE(r.status, GetMessageStatus::Found);
            protocol::MessageRecordView rec;
            QCOMPARE(protocol::decodeRecord(r.messages[0], rec, true).status,
                protocol::RecordStatus::Ok);
            QCOMPARE(rec.topic.toByteArray(), topic(t));
            QCOMPARE(rec.queueId, q);
        }
    }
}

QTEST_GUILESS_MAIN(tst_StoreRecovery)
#include "tst_storerecovery.moc"
