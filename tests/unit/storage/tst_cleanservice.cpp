#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QDateTime>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

Q_DECLARE_METATYPE(qrocket::storage::DiskSpace)

// Cleanup decisions with a fake clock and a fake disk-usage probe (protocol.md §8.7).
class tst_CleanService final : public QObject
{
    Q_OBJECT

private slots:
    void deletesExpiredOnlyAtDeleteWhen();
    void deletesExpiredAtAnyHourAbove75Percent();
    void forcesDeletionAbove85Percent();
    void refusesWritesAt90PercentAndRecovers();
    void measuresTheDiskAsDfDoes();
    void marksAreExceededNotReached_data();
    void marksAreExceededNotReached();
    void measuresTheConsumeQueuePartitionApart();
    void fileProbeReadsTheSeam();
    void keepsFileInUseUntilGracePeriod();
    void fileStatusSaysWhyEachFileIsKept();
    void readsBetweenCleanupSteps();

private:
    struct Env
    {
        QTemporaryDir dir;
        std::atomic<std::int64_t> now {QDateTime::currentMSecsSinceEpoch()};
        std::atomic<double> ratio {0.5};
        /// When set, the probe's answer instead of diskSpaceAt(ratio).
        std::function<DiskSpace(const QString &)> probe;
        std::unique_ptr<MessageStore> store;
        std::vector<PutMessageResult> puts;
        std::function<void(CleanStep, QByteArrayView, int)> onStep;

        Env(int batchMax = 10, QString deleteWhen = QStringLiteral("04"), int messages = 30,
            int bodySize = 1000)
        {
            MessageStoreConfig cfg = smallConfig(dir.path(), 4096);
            cfg.deleteWhen = deleteWhen;
            cfg.deleteFileBatchMax = batchMax;
            StoreOptions opt;
            opt.runCleanService = false;
            opt.clock = [this] { return now.load(); };
            opt.diskSpace = [this](const QString &path) {
                return probe ? probe(path) : diskSpaceAt(ratio.load());
            };
            opt.cleanStepHook = [this](CleanStep step, QByteArrayView topic, int queueId) {
                if (onStep)
                    onStep(step, topic, queueId);
            };
            store = std::make_unique<MessageStore>(cfg, opt);
            QVERIFY(store->open().isOk());
            for (int i = 0; i < messages; ++i)
                puts.push_back(
                    store->putMessageAndWait(message("T", 0, QByteArray(bodySize, 'x'))));
            QVERIFY(store->waitForDispatch(5000));
        }
        int fileCount() const { return static_cast<int>(store->stats().commitLogFiles.size()); }
    };
    static std::int64_t at(int daysAhead, int hour)
    {
        const QDateTime d(QDate::currentDate().addDays(daysAhead), QTime(hour, 30));
        return d.toMSecsSinceEpoch();
    }
};

void tst_CleanService::deletesExpiredOnlyAtDeleteWhen()
{
    Env e(3);
    const int files = e.fileCount();
    QVERIFY(files >= 8);
    e.now = at(5, 10); // expired (5 days > 72 h), but 10:30 is not a deleteWhen hour
    auto r = e.store->cleanService().run();
    QCOMPARE(r.deletedFiles, 0);
    QVERIFY(!r.deleteTimeUp);
    e.now = at(5, 4); // 04:30
    r = e.store->cleanService().run();
    QVERIFY(r.deleteTimeUp);
    QCOMPARE(r.deletedFiles, 3); // bounded per run
    QCOMPARE(e.fileCount(), files - 3);
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("expired")));
    QCOMPARE(e.store->commitLogMinOffset(), 3 * 4096);
    // Reading below the new min offset is corrected.
    const GetMessageResult g = e.store->getMessage("g", "T", 0, 0, 1);
    QCOMPARE(g.status, GetMessageStatus::OffsetTooSmall);
    QVERIFY(g.nextBeginOffset > 0);
    QCOMPARE(g.nextBeginOffset, g.minOffset);
    QCOMPARE(
        e.store->getMessage("g", "T", 0, g.nextBeginOffset, 1).status, GetMessageStatus::Found);
    // Keep running: never the current file.
    for (int i = 0; i < 10; ++i)
        e.store->cleanService().run();
    QCOMPARE(e.fileCount(), 1);
}

void tst_CleanService::deletesExpiredAtAnyHourAbove75Percent()
{
    Env e;
    const int files = e.fileCount();
    e.now = QDateTime::currentMSecsSinceEpoch() + 3600 * 1000; // nothing expired yet
    e.ratio = 0.80;
    auto r = e.store->cleanService().run();
    QVERIFY(r.spaceFull);
    QVERIFY(!r.forced);
    QCOMPARE(r.deletedFiles, 0);
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("keeping")));
    e.now = at(5, 10);
    r = e.store->cleanService().run();
    QCOMPARE(r.deletedFiles, files - 1);
}

void tst_CleanService::forcesDeletionAbove85Percent()
{
    Env e(2);
    const int files = e.fileCount();
    e.ratio = 0.86; // nothing expired, not the hour
    auto r = e.store->cleanService().run();
    QVERIFY(r.forced);
    QCOMPARE(r.deletedFiles, 2);
    QCOMPARE(e.fileCount(), files - 2);
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("although not expired")));
    QVERIFY(!e.store->cleanService().isDiskFull());
}

void tst_CleanService::refusesWritesAt90PercentAndRecovers()
{
    Env e(0); // delete nothing, just watch the write gate
    e.ratio = 0.92;
    auto r = e.store->cleanService().run();
    QVERIFY(e.store->cleanService().isDiskFull());
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("writes refused")));
    const PutMessageResult refused = e.store->putMessageAndWait(message("T", 0, "x"));
    QCOMPARE(refused.status, PutMessageStatus::ServiceNotAvailable);
    QVERIFY2(refused.remark.contains(QStringLiteral("92.0%"))
            && refused.remark.contains(QStringLiteral("90%")),
        qPrintable(refused.remark));
    QVERIFY(e.store->stats().diskFull);
    e.ratio = 0.70;
    r = e.store->cleanService().run();
    QVERIFY(!e.store->cleanService().isDiskFull());
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("accepted again")));
    QVERIFY(e.store->putMessageAndWait(message("T", 0, "x")).isOk());
}

namespace {

/// A partition of `total` units (100 MiB each) with `reserved` of them kept for root and `used`
/// in use: free = total - used, available = free - reserved.
DiskSpace partition(std::int64_t total, std::int64_t reserved, std::int64_t used)
{
    constexpr std::int64_t unit = 100 * 1024 * 1024;
    DiskSpace d;
    d.total = total * unit;
    d.free = (total - used) * unit;
    d.available = (total - used - reserved) * unit;
    return d;
}

} // namespace

// The machine: 251.9 GiB, of which 156.3 GiB are reserved for root. Filled to 97 % as
// `df` shows it, (total - free) / total reads 37 %: the store must decide on the 97 %.
void tst_CleanService::measuresTheDiskAsDfDoes()
{
    Env e(0);
    const DiskSpace full = partition(2519, 1563, 927);
    QCOMPARE(diskUsedPercent(full), 97); // 927 / (927 + 29), rounded up
    QCOMPARE(qRound(100.0 * static_cast<double>(full.total - full.free)
                 / static_cast<double>(full.total)),
        37); // the old figure
    e.probe = [full](const QString &) { return full; };
    auto r = e.store->cleanService().run();
    QCOMPARE(r.diskRatio, 0.97);
    QVERIFY(r.diskFull);
    QVERIFY(r.spaceFull);
    QVERIFY(r.forced);
    QVERIFY(e.store->cleanService().isDiskFull());
    QCOMPARE(e.store->cleanService().lastDiskRatio(), 0.97);
    const StoreStats st = e.store->stats();
    QCOMPARE(st.diskRatio, 0.97);
    QCOMPARE(st.consumeQueueDiskRatio, 0.97);
    QVERIFY(st.diskFull);
    QCOMPARE(e.store->diskMeasure().commitLogPercent, 97);
    QCOMPARE(e.store->diskMeasure().commitLog.available, full.available);
    const PutMessageResult refused = e.store->putMessageAndWait(message("T", 0, "x"));
    QCOMPARE(refused.status, PutMessageStatus::ServiceNotAvailable);
    QVERIFY2(refused.remark.contains(QStringLiteral("97.0%"))
            && refused.remark.contains(QStringLiteral("diskSpaceWarningLevelRatio 90%"))
            && refused.remark.contains(QStringLiteral("commit-log partition")),
        qPrintable(refused.remark));

    // A normal day on the same machine: 30 % as df shows it (11 % by the old figure).
    const DiskSpace normal = partition(2519, 1563, 282);
    QCOMPARE(diskUsedPercent(normal), 30);
    e.probe = [normal](const QString &) { return normal; };
    r = e.store->cleanService().run();
    QCOMPARE(r.diskRatio, 0.30);
    QVERIFY(!r.diskFull && !r.spaceFull && !r.forced);
    QVERIFY2(r.decisions.join(u'\n').contains(QStringLiteral("writes accepted again")),
        qPrintable(r.decisions.join(u'\n')));
    QVERIFY(!e.store->stats().diskFull);
    QVERIFY(e.store->stats().refuseReason.isEmpty());
    QVERIFY(e.store->putMessageAndWait(message("T", 0, "x")).isOk());
}

void tst_CleanService::marksAreExceededNotReached_data()
{
    QTest::addColumn<DiskSpace>("space");
    QTest::addColumn<bool>("spaceFull");
    QTest::addColumn<bool>("forced");
    QTest::addColumn<bool>("full");
    // 1300 units, 300 reserved: used / 1000 is the df figure.
    QTest::newRow("75%") << partition(1300, 300, 750) << false << false << false;
    QTest::newRow("75.1% is 76%") << partition(13000, 3000, 7510) << true << false << false;
    QTest::newRow("85%") << partition(1300, 300, 850) << true << false << false;
    QTest::newRow("86%") << partition(1300, 300, 860) << true << true << false;
    QTest::newRow("90%") << partition(1300, 300, 900) << true << true << false;
    QTest::newRow("90.1% is 91%") << partition(13000, 3000, 9010) << true << true << true;
    QTest::newRow("unknown") << DiskSpace {} << true << false << false;
}

// RocketMQ compares whole percents, rounded up, with `>`: a mark reached is not yet exceeded.
void tst_CleanService::marksAreExceededNotReached()
{
    QFETCH(DiskSpace, space);
    QFETCH(bool, spaceFull);
    QFETCH(bool, forced);
    QFETCH(bool, full);
    Env e(0);
    e.probe = [space](const QString &) { return space; };
    const auto r = e.store->cleanService().run();
    QCOMPARE(r.spaceFull, spaceFull);
    QCOMPARE(r.forced, forced);
    QCOMPARE(r.diskFull, full);
    QCOMPARE(e.store->cleanService().isDiskFull(), full);
    QCOMPARE(e.store->putMessageAndWait(message("T", 0, "x")).isOk(), !full);
}

// The consume queues may sit on a partition of their own (a symlinked directory): measured
// apart, and either partition above the warning mark refuses writes.
void tst_CleanService::measuresTheConsumeQueuePartitionApart()
{
    std::atomic<int> cqUsed {920};
    Env e(0);
    const QString cqDir = e.store->config().consumeQueueDir();
    e.probe = [&cqUsed, cqDir](const QString &path) {
        return path == cqDir ? partition(1300, 300, cqUsed.load()) : partition(1300, 300, 500);
    };
    auto r = e.store->cleanService().run();
    QCOMPARE(r.diskRatio, 0.5);
    QCOMPARE(r.consumeQueueDiskRatio, 0.92);
    QVERIFY(r.diskFull);
    QVERIFY(r.forced);
    const StoreStats st = e.store->stats();
    QCOMPARE(st.diskRatio, 0.5);
    QCOMPARE(st.consumeQueueDiskRatio, 0.92);
    QVERIFY2(st.refuseReason.contains(QStringLiteral("consume-queue partition"))
            && st.refuseReason.contains(cqDir) && st.refuseReason.contains(QStringLiteral("92.0%")),
        qPrintable(st.refuseReason));
    QCOMPARE(e.store->putMessageAndWait(message("T", 0, "x")).status,
        PutMessageStatus::ServiceNotAvailable);
    cqUsed = 800;
    r = e.store->cleanService().run();
    QVERIFY(!r.diskFull);
    QVERIFY(r.spaceFull); // 80 % > diskMaxUsedSpaceRatio
    QVERIFY(!r.forced);
    QVERIFY(e.store->putMessageAndWait(message("T", 0, "x")).isOk());
}

// The daemon's test seam (QROCKET_DISK_SPACE_FILE): one line "total free available", for every
// path; anything else is unknown, never a made-up figure.
void tst_CleanService::fileProbeReadsTheSeam()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("disk"));
    const DiskSpaceProbe probe = diskSpaceFileProbe(file);
    QVERIFY(!probe(QStringLiteral("/any")).isKnown()); // no file yet
    const auto write = [&](const QByteArray &text) {
        QFile f(file);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
    };
    QVERIFY(write("1300 450 150\n"));
    const DiskSpace d = probe(QStringLiteral("/any"));
    QCOMPARE(d.total, 1300);
    QCOMPARE(d.free, 450);
    QCOMPARE(d.available, 150);
    QCOMPARE(diskUsedPercent(d), 85); // 850 / (850 + 150)
    for (const QByteArray &bad : {QByteArray("1300 450"), QByteArray("1300 x 150"),
             QByteArray("1300 1400 150"), QByteArray("1300 450 500"), QByteArray()}) {
        QVERIFY(write(bad));
        QVERIFY2(!probe(QStringLiteral("/any")).isKnown(), bad.constData());
        QCOMPARE(diskUsedPercent(probe(QStringLiteral("/any"))), -1);
    }
}

void tst_CleanService::keepsFileInUseUntilGracePeriod()
{
    Env e;
    const int files = e.fileCount();
    GetMessageResult reader = e.store->getMessage("g", "T", 0, 0, 1); // maps the first file
    QCOMPARE(reader.status, GetMessageStatus::Found);
    e.now = at(5, 4);
    auto r = e.store->cleanService().run();
    QCOMPARE(r.deletedFiles, 0);
    QVERIFY(r.decisions.join(u'\n').contains(QStringLiteral("still read")));
    e.now = e.now + 121 * 1000; // past destroyMapedFileIntervalForcibly
    r = e.store->cleanService().run();
    QCOMPARE(r.deletedFiles, files - 1);
    // The reader's bytes stay valid: the mapping lives as long as the result.
    protocol::MessageRecordView rec;
    QCOMPARE(
        protocol::decodeRecord(reader.messages[0], rec, true).status, protocol::RecordStatus::Ok);
}

// The store's per-file answer (explainCleanup and storeFiles read it): the file being written,
// files younger than fileReservedTime, an expired file a reader holds, expired files.
void tst_CleanService::fileStatusSaysWhyEachFileIsKept()
{
    using Kept = StoreFileStatus::Kept;
    Env e;
    auto kept = [&e] {
        std::vector<Kept> out;
        for (const StoreFileStatus &f : e.store->stats().commitLogFiles)
            out.push_back(f.kept);
        return out;
    };
    std::vector<Kept> k = kept();
    QVERIFY(k.size() >= 3);
    QCOMPARE(k.back(), Kept::Current);
    QVERIFY(std::all_of(k.begin(), k.end() - 1, [](Kept x) { return x == Kept::NotExpired; }));
    e.now = at(5, 10); // expired, not a deleteWhen hour
    {
        GetMessageResult reader = e.store->getMessage("g", "T", 0, 0, 1); // holds the first file
        QCOMPARE(reader.status, GetMessageStatus::Found);
        k = kept();
        QCOMPARE(k.front(), Kept::Held);
        QCOMPARE(k[1], Kept::Expired);
        QCOMPARE(k.back(), Kept::Current);
        QVERIFY(e.store->stats().commitLogFiles.front().reasonKept.startsWith(
            QLatin1String("expired but still read")));
    }
    QCOMPARE(kept().front(), Kept::Expired); // the reader let go
}

// RocketMQ's two windows of a cleanup pass, stopped in deterministically through the store's
// clean-step hook: commit-log files deleted while the consume queue still points into them
// (MESSAGE_WAS_REMOVING), then consume-queue files deleted before the queue's min offset is
// corrected (OFFSET_FOUND_NULL); nextBeginOffset as protocol.md §4.2.
void tst_CleanService::readsBetweenCleanupSteps()
{
    // 250 small messages: about 20 per 4 KiB commit-log file, 100 units per consume-queue file.
    // Forced deletion of the 7 oldest commit-log files removes messages 0..~139, so the first
    // consume-queue file (units 0..99) lies wholly below the new min offset.
    Env e(7, QStringLiteral("04"), 250, 100);
    for (const PutMessageResult &p : e.puts)
        QVERIFY(p.isOk());
    const std::int64_t newMin = 7 * 4096;
    std::int64_t firstKept = 0;
    while (e.puts[static_cast<size_t>(firstKept)].wroteOffset < newMin)
        ++firstKept;
    QVERIFY2(firstKept > 100 && firstKept < 200, qPrintable(QString::number(firstKept)));

    int commitLogSteps = 0, queueSteps = 0;
    e.onStep = [&](CleanStep step, QByteArrayView topic, int queueId) {
        MessageStore &s = *e.store;
        if (step == CleanStep::CommitLogFilesDeleted) {
            ++commitLogSteps;
            QCOMPARE(s.commitLogMinOffset(), newMin);
            QCOMPARE(s.minOffsetInQueue("T", 0), 0); // not corrected yet
            // Every unit of the first consume-queue file points into a deleted file: scanned to
            // the end of that file, nothing returned.
            GetMessageResult r = s.getMessage("g", "T", 0, 0, 32);
            QCOMPARE(r.status, GetMessageStatus::MessageWasRemoving);
            QCOMPARE(r.messageCount(), 0);
            QCOMPARE(r.nextBeginOffset, 100);
            r = s.getMessage("g", "T", 0, 60, 32);
            QCOMPARE(r.status, GetMessageStatus::MessageWasRemoving);
            QCOMPARE(r.nextBeginOffset, 100);
            // From 100 on, the removed units are skipped and the first kept message is found.
            r = s.getMessage("g", "T", 0, 100, 4);
            QCOMPARE(r.status, GetMessageStatus::Found);
            QCOMPARE(r.messageCount(), 4);
            QCOMPARE(r.messageQueueOffsets.front(), firstKept);
            QCOMPARE(r.nextBeginOffset, firstKept + 4);
        } else {
            ++queueSteps;
            QCOMPARE(topic, QByteArrayView("T"));
            QCOMPARE(queueId, 0);
            QCOMPARE(s.minOffsetInQueue("T", 0), 0); // still the deleted file's first unit
            QCOMPARE(s.maxOffsetInQueue("T", 0), 250);
            for (std::int64_t offset : {0, 50, 99}) {
                const GetMessageResult r = s.getMessage("g", "T", 0, offset, 32);
                QCOMPARE(r.status, GetMessageStatus::OffsetFoundNull);
                QCOMPARE(r.messageCount(), 0);
                QCOMPARE(r.nextBeginOffset, 100); // start of the next consume-queue file
            }
            const GetMessageResult r = s.getMessage("g", "T", 0, 100, 1);
            QCOMPARE(r.status, GetMessageStatus::Found);
            QCOMPARE(r.messageQueueOffsets.front(), firstKept);
        }
    };
    e.ratio = 0.86; // forced: the 7 oldest files go although unexpired
    const auto run = e.store->cleanService().run();
    e.onStep = nullptr;
    QCOMPARE(run.deletedFiles, 7);
    QCOMPARE(commitLogSteps, 1);
    QCOMPARE(queueSteps, 1);

    // Afterwards the min offset is corrected: below it is OFFSET_TOO_SMALL.
    QCOMPARE(e.store->minOffsetInQueue("T", 0), firstKept);
    const GetMessageResult r = e.store->getMessage("g", "T", 0, 50, 32);
    QCOMPARE(r.status, GetMessageStatus::OffsetTooSmall);
    QCOMPARE(r.nextBeginOffset, firstKept);
}

QTEST_GUILESS_MAIN(tst_CleanService)
#include "tst_cleanservice.moc"
