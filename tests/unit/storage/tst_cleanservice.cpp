#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

// Cleanup decisions with a fake clock and a fake disk-usage probe (protocol.md §8.7).
class tst_CleanService final : public QObject
{
    Q_OBJECT

private slots:
    void deletesExpiredOnlyAtDeleteWhen();
    void deletesExpiredAtAnyHourAbove75Percent();
    void forcesDeletionAbove85Percent();
    void refusesWritesAt90PercentAndRecovers();
    void keepsFileInUseUntilGracePeriod();

private:
    struct Env
    {
        QTemporaryDir dir;
        std::atomic<std::int64_t> now {QDateTime::currentMSecsSinceEpoch()};
        std::atomic<double> ratio {0.5};
        std::unique_ptr<MessageStore> store;
        std::vector<PutMessageResult> puts;

        Env(int batchMax = 10, QString deleteWhen = QStringLiteral("04"))
        {
            MessageStoreConfig cfg = smallConfig(dir.path(), 4096);
            cfg.deleteWhen = deleteWhen;
            cfg.deleteFileBatchMax = batchMax;
            StoreOptions opt;
            opt.runCleanService = false;
            opt.clock = [this] { return now.load(); };
            opt.diskUsage = [this](const QString &) { return ratio.load(); };
            store = std::make_unique<MessageStore>(cfg, opt);
            QVERIFY(store->open().isOk());
            for (int i = 0; i < 30; ++i)
                puts.push_back(store->putMessageAndWait(message("T", 0, QByteArray(1000, 'x'))));
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

QTEST_GUILESS_MAIN(tst_CleanService)
#include "tst_cleanservice.moc"
