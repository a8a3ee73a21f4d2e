#include "storage/core/consumequeue.h"
#include "storage/core/mappingcache.h"
#include "storetestutil.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_ConsumeQueue final : public QObject
{
    Q_OBJECT

private slots:
    void readsGoldenExcerpts_data();
    void readsGoldenExcerpts();
    void appendsAndReadsUnits();
    void skipsDuplicatesAndFillsPlaceholders();
    void rollsIntoNextFile();
    void recoverStopsAtZeroedUnitAndReportsDamage();
    void truncateDirtyLogicFilesDropsUnitsPastOffset();
    void deleteExpiredFilesKeepsLast();
    void sparseQueueTakesBlocksAsWritten();
    void loadReservesBlocksOfAFileWithHoles();
    void recoverReadsFilesWithoutMappingThem();
};

void tst_ConsumeQueue::readsGoldenExcerpts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("topic");
    QTest::addColumn<int>("queueId");
    QTest::addRow("TopicTest/0") << QStringLiteral("TopicTest-0-00000000000000000000.first4000")
                                 << QStringLiteral("TopicTest") << 0;
    QTest::addRow("SCHEDULE_TOPIC_XXXX/2")
        << QStringLiteral("SCHEDULE_TOPIC_XXXX-2-00000000000000000000.first4000")
        << QStringLiteral("SCHEDULE_TOPIC_XXXX") << 2;
}

void tst_ConsumeQueue::readsGoldenExcerpts()
{
    QFETCH(QString, name);
    QFETCH(QString, topic);
    QFETCH(int, queueId);
    const QString src = QStringLiteral("store/consumequeue/") + name;
    const QByteArray bytes = qrocket::testing::readVectorFile(src);
    QCOMPARE(bytes.size(), 4000);
    const QJsonObject json
        = QJsonDocument::fromJson(qrocket::testing::readVectorFile(src + QStringLiteral(".json")))
              .object();
    QJsonArray entries;
    for (const QJsonValue &v : json.value(QStringLiteral("entries")).toArray())
        if (!v.toObject().value(QStringLiteral("empty")).toBool())
            entries.append(v);
    QVERIFY(!entries.isEmpty());

    QTemporaryDir dir;
    const QString qdir = dir.path() + u'/' + topic + u'/' + QString::number(queueId);
    QVERIFY(QDir().mkpath(qdir));
    QFile out(qdir + QStringLiteral("/00000000000000000000"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();

    ConsumeQueue cq(topic.toUtf8(), queueId, dir.path(), 4000);
    QVERIFY(cq.load().isOk());
    const ConsumeQueue::RecoverResult r = cq.recover();
    QVERIFY2(!r.damaged, qPrintable(r.detail));
    const qint64 expectedUnits = std::min<qint64>(entries.size(), 200);
    QCOMPARE(cq.maxOffsetInQueue(), expectedUnits);
    QCOMPARE(r.units, expectedUnits);
    for (const QJsonValue &v : entries) {
        const QJsonObject e = v.toObject();
        ConsumeQueue::Unit u;
        QVERIFY(cq.unit(e.value(QStringLiteral("index")).toInteger(), u));
        QCOMPARE(u.commitLogOffset, e.value(QStringLiteral("commitLogOffset")).toInteger());
        QCOMPARE(u.size, e.value(QStringLiteral("size")).toInt());
        QCOMPARE(u.tagsCode, e.value(QStringLiteral("tagsCode")).toInteger());
    }
    if (topic == QLatin1String("SCHEDULE_TOPIC_XXXX")) {
        ConsumeQueue::Unit first;
        QVERIFY(cq.unit(0, first));
        QCOMPARE(first.tagsCode, 1796013414338); // delivery time, not a tag hash
    }
}

void tst_ConsumeQueue::appendsAndReadsUnits()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 1, dir.path(), 20 * 10);
    for (int i = 0; i < 5; ++i)
        QVERIFY(cq.putUnit(1000 + i * 100, 100, 7 + i, i).isOk());
    QCOMPARE(cq.maxOffsetInQueue(), 5);
    QCOMPARE(cq.minOffsetInQueue(), 0);
    QCOMPARE(cq.maxPhysicOffset(), 1500);
    ConsumeQueue::Unit u;
    QVERIFY(cq.unit(3, u));
    QCOMPARE(u.commitLogOffset, 1300);
    QCOMPARE(u.tagsCode, 10);
    QVERIFY(!cq.unit(5, u));
    const auto buf = cq.indexBuffer(2);
    QCOMPARE(buf.bytes.size(), 3 * 20);
    QVERIFY(QFile::exists(dir.path() + QStringLiteral("/T/1/00000000000000000000")));
}

void tst_ConsumeQueue::skipsDuplicatesAndFillsPlaceholders()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 10);
    QVERIFY(cq.putUnit(5000, 50, 0, 13).isOk()); // first unit at index 13: file starts at 10
    QCOMPARE(cq.maxOffsetInQueue(), 14);
    QCOMPARE(cq.minOffsetInQueue(), 13);
    QCOMPARE(cq.files().firstFile()->fileFromOffset(), 200);
    ConsumeQueue::Unit u;
    QVERIFY(cq.unit(11, u));
    QCOMPARE(u.size, 0x7FFFFFFF); // placeholder
    QVERIFY(cq.putUnit(5000, 50, 0, 13).isOk()); // re-dispatch: ignored
    QCOMPARE(cq.maxOffsetInQueue(), 14);
}

void tst_ConsumeQueue::rollsIntoNextFile()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 9; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    QCOMPARE(cq.files().fileCount(), 3);
    QCOMPARE(cq.maxOffsetInQueue(), 9);
    QCOMPARE(cq.indexBuffer(2).bytes.size(), 40); // up to the end of the first file
    QCOMPARE(cq.rollNextFile(2), 4);
}

void tst_ConsumeQueue::recoverStopsAtZeroedUnitAndReportsDamage()
{
    QTemporaryDir dir;
    {
        ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
        for (int i = 0; i < 10; ++i)
            QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    }
    // Zero the middle file (units 4..7).
    QVERIFY(patchFile(
        dir.path() + QStringLiteral("/T/0/00000000000000000080"), 0, QByteArray(80, '\0')));
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    QVERIFY(cq.load().isOk());
    const auto r = cq.recover();
    QVERIFY(r.damaged);
    QVERIFY2(r.detail.contains(QStringLiteral("index 4")), qPrintable(r.detail));
    QCOMPARE(r.units, 4);
    QCOMPARE(cq.maxOffsetInQueue(), 4);
    QCOMPARE(cq.maxPhysicOffset(), 40);
    QVERIFY(r.discardedBytes > 0);
}

void tst_ConsumeQueue::truncateDirtyLogicFilesDropsUnitsPastOffset()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 10; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    cq.truncateDirtyLogicFiles(45); // units with offset >= 45: 5..9
    QCOMPARE(cq.maxOffsetInQueue(), 5);
    QCOMPARE(cq.maxPhysicOffset(), 50);
    cq.truncateDirtyLogicFiles(40);
    QCOMPARE(cq.maxOffsetInQueue(), 4);
    QCOMPARE(cq.files().fileCount(), 1);
    cq.truncateDirtyLogicFiles(0);
    QCOMPARE(cq.maxOffsetInQueue(), 0);
    QCOMPARE(cq.maxPhysicOffset(), -1);
}

namespace {
/// Bytes of disk the file holds (blocks), -1 when it cannot be looked at.
qint64 allocatedBytes(const QString &path)
{
    struct stat st
    { };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return static_cast<qint64>(st.st_blocks) * 512;
}
} // namespace

// A light queue's files are sparse (issue 30: a million 80 KB files must not take 80 GB): blocks
// are reserved page by page as units reach them, recovery truncation gives the pages beyond back,
// and the queue goes on after a reopen as a preallocated one does.
void tst_ConsumeQueue::sparseQueueTakesBlocksAsWritten()
{
    QTemporaryDir dir;
    constexpr int kFileSize = 20 * 4096; // a light queue's file
    const QString path = dir.path() + QStringLiteral("/%LMQ%a/0/00000000000000000000");
    auto cache = std::make_shared<MappingCache>(64);
    {
        ConsumeQueue cq("%LMQ%a", 0, dir.path(), kFileSize, cache, true);
        QVERIFY(cq.putUnit(100, 10, 0, 0).isOk());
        QCOMPARE(QFileInfo(path).size(), qint64(kFileSize));
        const qint64 one = allocatedBytes(path);
        QVERIFY2(one > 0 && one <= 8192, qPrintable(QString::number(one)));
        for (int i = 1; i < 500; ++i) // 10,000 bytes: three pages
            QVERIFY(cq.putUnit(100 + i * 10, 10, 0, i).isOk());
        const qint64 three = allocatedBytes(path);
        QVERIFY2(three >= 12288 && three <= 16384, qPrintable(QString::number(three)));
        cq.truncateDirtyLogicFiles(100 + 100 * 10); // keeps units 0..99: 2,000 bytes, one page
        QCOMPARE(cq.maxOffsetInQueue(), 100);
        const qint64 back = allocatedBytes(path);
        QVERIFY2(back > 0 && back <= 8192, qPrintable(QString::number(back)));
        QVERIFY(static_cast<bool>(cq.flush(0)));
    }
    ConsumeQueue cq("%LMQ%a", 0, dir.path(), kFileSize, cache, true);
    QVERIFY(cq.load().isOk());
    const auto r = cq.recover();
    QVERIFY2(!r.damaged, qPrintable(r.detail));
    QCOMPARE(r.units, 100);
    QCOMPARE(cq.maxPhysicOffset(), 100 + 100 * 10);
    for (int i = 100; i < 1000; ++i) // past the pages given back: reserved again
        QVERIFY(cq.putUnit(100 + i * 10, 10, 0, i).isOk());
    ConsumeQueue::Unit u;
    for (int i : {0, 99, 100, 205, 999}) {
        QVERIFY(cq.unit(i, u));
        QCOMPARE(u.commitLogOffset, 100 + i * 10);
    }
    const qint64 five = allocatedBytes(path); // 20,000 bytes
    QVERIFY2(five >= 20000 && five <= 24576, qPrintable(QString::number(five)));
}

// Start-up opens no descriptor for a lazy queue file that is whole (issue 30: 200,000 files), but
// one with holes (copied sparse, say) still gets every block before anything writes through its
// mapping: a full disk stays an error, never a SIGBUS.
void tst_ConsumeQueue::loadReservesBlocksOfAFileWithHoles()
{
    QTemporaryDir dir;
    constexpr int kFileSize = 20 * 4096;
    const QString path = dir.path() + QStringLiteral("/T/0/00000000000000000000");
    QVERIFY(QDir().mkpath(QFileInfo(path).path()));
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(kFileSize)); // all holes
    }
    QVERIFY2(allocatedBytes(path) < kFileSize, qPrintable(QString::number(allocatedBytes(path))));
    auto cache = std::make_shared<MappingCache>(64);
    ConsumeQueue cq("T", 0, dir.path(), kFileSize, cache);
    QVERIFY(cq.load().isOk());
    QVERIFY2(allocatedBytes(path) >= kFileSize, qPrintable(QString::number(allocatedBytes(path))));
    const auto r = cq.recover();
    QVERIFY(r.damaged); // a file that starts with no valid unit, as before
    QCOMPARE(r.units, 0);
}

// Recovery reads lazy files that nobody mapped with pread: same units, same decisions, and no file
// left mapped (nor a slot of the mapping cache taken) by a start-up over many queues.
void tst_ConsumeQueue::recoverReadsFilesWithoutMappingThem()
{
    QTemporaryDir dir;
    constexpr int kFileSize = 20 * 8;
    {
        auto cache = std::make_shared<MappingCache>(64);
        ConsumeQueue cq("T", 0, dir.path(), kFileSize, cache);
        for (int i = 0; i < 20; ++i) // files of 8 units: 8 + 8 + 4
            QVERIFY(cq.putUnit(100 + i * 10, 10, 0, i).isOk());
        QVERIFY(static_cast<bool>(cq.flush(0)));
    }
    auto cache = std::make_shared<MappingCache>(64);
    ConsumeQueue cq("T", 0, dir.path(), kFileSize, cache);
    QVERIFY(cq.load().isOk());
    QCOMPARE(cq.files().fileCount(), 3);
    const auto r = cq.recover();
    QVERIFY2(!r.damaged, qPrintable(r.detail));
    QCOMPARE(r.units, 20);
    QCOMPARE(cq.maxOffsetInQueue(), 20);
    QCOMPARE(cq.maxPhysicOffset(), 100 + 20 * 10);
    QCOMPARE(cache->mappedCount(), 0);
    ConsumeQueue::Unit u;
    QVERIFY(cq.unit(13, u));
    QCOMPARE(u.commitLogOffset, 100 + 13 * 10);
    QVERIFY(cq.putUnit(100 + 20 * 10, 10, 0, 20).isOk()); // goes on where it was
    QCOMPARE(cq.maxOffsetInQueue(), 21);
}

void tst_ConsumeQueue::deleteExpiredFilesKeepsLast()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 10; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    // Files hold units 0-3 (data ends at 40), 4-7 (ends at 80) and 8-9.
    QCOMPARE(cq.deleteExpiredFiles(85), 2);
    QCOMPARE(cq.minOffsetInQueue(), 9); // first unit at or past offset 85
    QCOMPARE(cq.deleteExpiredFiles(1000), 0); // never the last file
    QCOMPARE(cq.files().fileCount(), 1);
}

QTEST_APPLESS_MAIN(tst_ConsumeQueue)
#include "tst_consumequeue.moc"
