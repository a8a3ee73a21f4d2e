// A full disk, made real by the kernel: RLIMIT_FSIZE lowered below the commit-log file size (with
// SIGXFSZ ignored) makes pwrite past the limit and the preallocation of every new file fail with
// EFBIG, the same paths ENOSPC takes. Puts must fail with a clear status, never crash (no SIGBUS
// from the mapping), never acknowledge a message that is not stored, and succeed again once the
// limit is lifted.

#include "storage/core/mappedfile.h"
#include "storage/messagestore.h"
#include "storetestutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/resource.h>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_DiskFull final : public QObject
{
    Q_OBJECT

private slots:
    void putsFailCleanlyAndResume_data();
    void putsFailCleanlyAndResume();
    void consumeQueueFileFailureIsRetried();
};

namespace {
constexpr std::int64_t kFileSize = 64 * 1024;

/// Lowers this process's file-size limit for its lifetime.
class FileSizeLimit
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
        ::getrlimit(RLIMIT_FSIZE, &m_old);
        rlimit lowered = m_old;
        lowered.rlim_cur = bytes;
        m_ok = ::setrlimit(RLIMIT_FSIZE, &lowered) == 0;
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_old);
        std::signal(SIGXFSZ, m_oldHandler);
    }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;
    bool ok() const { return m_ok; }

private:
    rlimit m_old {};
    void (*m_oldHandler)(int) = nullptr;
    bool m_ok = false;
};

struct Acked
{
    std::int64_t queueOffset;
    QByteArray body;
};

std::unique_ptr<MessageStore> openStore(const QString &dir, bool sync)
{
    MessageStoreConfig cfg = smallConfig(dir, kFileSize);
    if (sync)
        cfg.flushDiskType = QStringLiteral("SYNC_FLUSH");
    StoreOptions opt;
    opt.runCleanService = false;
    opt.diskSpace = [](const QString &) { return diskSpaceAt(0.1); };
    auto store = std::make_unique<MessageStore>(cfg, opt);
    const Status s = store->open();
    return s.isOk() ? std::move(store) : nullptr;
}

/// Every acknowledged message is in its queue, with its body.
bool allReadable(const MessageStore &store, const std::vector<Acked> &acked, QString &why)
{
    if (!store.waitForDispatch(10000)) {
        why = QStringLiteral("dispatch did not catch up");
        return false;
    }
    if (store.maxOffsetInQueue("F", 0) != static_cast<std::int64_t>(acked.size())) {
        why = QStringLiteral("queue has %1 messages, %2 acknowledged")
                  .arg(store.maxOffsetInQueue("F", 0))
                  .arg(acked.size());
        return false;
    }
    for (const Acked &a : acked) {
        const GetMessageResult r = store.getMessage("g", "F", 0, a.queueOffset, 1);
        protocol::MessageRecordView rec;
        if (r.status != GetMessageStatus::Found || r.messageCount() != 1
            || protocol::decodeRecord(r.messages[0], rec, true).status != protocol::RecordStatus::Ok
            || rec.body != a.body) {
            why = QStringLiteral("acknowledged message at queue offset %1 is missing or differs")
                      .arg(a.queueOffset);
            return false;
        }
    }
    return true;
}
} // namespace

void tst_DiskFull::putsFailCleanlyAndResume_data()
{
    QTest::addColumn<bool>("sync");
    QTest::addColumn<int>("method");
    // Every path fails when the next file cannot be preallocated. SYNC_FLUSH through pwrite: the
    // group commit's pwrite past the limit fails, and it copies those bytes through the mapping
    // into the preallocated blocks instead; the mapped paths write there anyway.
    QTest::newRow("sync-pwrite") << true << int(MappedFile::SyncWriteMethod::Pwrite);
    QTest::newRow("sync-mmap") << true << int(MappedFile::SyncWriteMethod::Mmap);
    QTest::newRow("async-mmap") << false << int(MappedFile::SyncWriteMethod::Pwrite);
}

void tst_DiskFull::putsFailCleanlyAndResume()
{
    QFETCH(bool, sync);
    QFETCH(int, method);
    MappedFile::setSyncWriteMethod(static_cast<MappedFile::SyncWriteMethod>(method));
    struct Restore
    {
        ~Restore() { MappedFile::setSyncWriteMethod(MappedFile::SyncWriteMethod::Pwrite); }
    } restore;

    QTemporaryDir dir;
    auto store = openStore(dir.path(), sync);
    QVERIFY(store);
    std::vector<Acked> acked;
    int seq = 0;
    auto put = [&]() -> PutMessageResult {
        const QByteArray body = QByteArray(1000, 'a' + char(seq % 26)) + QByteArray::number(seq);
        ++seq;
        const PutMessageResult r = store->putMessageAndWait(message("F", 0, body));
        if (r.isOk())
            acked.push_back({r.queueOffset, body});
        return r;
    };
    while (store->commitLogMaxOffset() < kFileSize / 2)
        QVERIFY(put().isOk());

    std::vector<PutMessageResult> failures;
    {
        // Past the current write position but below the file size: mapped writes go on into
        // the preallocated blocks (this file and the next one, created at open), no further
        // commit-log file can be created, pwrite fails past the limit.
        FileSizeLimit limit(static_cast<rlim_t>(kFileSize * 3 / 4));
        QVERIFY(limit.ok());
        for (int i = 0; i < 200 && failures.size() < 5; ++i) {
            const PutMessageResult r = put();
            if (!r.isOk())
                failures.push_back(r);
        }
    }
    QVERIFY(!failures.empty());
    const QString efbig = QString::fromLocal8Bit(std::strerror(EFBIG));
    for (const PutMessageResult &r : failures) {
        QVERIFY2(r.status == PutMessageStatus::CreateMappedFileFailed
                || r.status == PutMessageStatus::UnknownError,
            putMessageStatusName(r.status));
        QVERIFY2(r.remark.contains(efbig), qPrintable(r.remark));
    }
    QString why;
    QVERIFY2(allReadable(*store, acked, why), qPrintable(why));

    // Space is back: writes are accepted again, into a new file where needed.
    const std::int64_t before = store->commitLogMaxOffset();
    for (int i = 0; i < 60; ++i)
        QVERIFY(put().isOk());
    QVERIFY(store->commitLogMaxOffset() > kFileSize);
    QVERIFY(store->commitLogMaxOffset() > before);
    QVERIFY2(allReadable(*store, acked, why), qPrintable(why));

    // And it all survives a restart.
    store.reset();
    store = openStore(dir.path(), sync);
    QVERIFY(store);
    QVERIFY2(allReadable(*store, acked, why), qPrintable(why));
}

void tst_DiskFull::consumeQueueFileFailureIsRetried()
{
    // ASYNC_FLUSH writes through the mapping of preallocated commit-log files, so puts succeed,
    // but the next consume-queue file (100 units of 20 bytes) cannot be created: reput must keep
    // the records and dispatch them once it can, not skip them.
    QTemporaryDir dir;
    auto store = openStore(dir.path(), false);
    QVERIFY(store);
    std::vector<Acked> acked;
    auto put = [&](int seq) {
        const QByteArray body = QByteArray("m") + QByteArray::number(seq);
        const PutMessageResult r = store->putMessageAndWait(message("F", 0, body));
        if (r.isOk())
            acked.push_back({r.queueOffset, body});
        return r.isOk();
    };
    for (int i = 0; i < 90; ++i)
        QVERIFY(put(i));
    QString why;
    QVERIFY2(allReadable(*store, acked, why), qPrintable(why));
    {
        FileSizeLimit limit(1000);
        QVERIFY(limit.ok());
        for (int i = 90; i < 130; ++i)
            QVERIFY(put(i));
        QVERIFY(!store->waitForDispatch(300)); // stuck at the 100th unit, records kept
        QCOMPARE(store->maxOffsetInQueue("F", 0), 100);
    }
    QVERIFY2(allReadable(*store, acked, why), qPrintable(why));
    QCOMPARE(acked.size(), size_t(130));
}

QTEST_GUILESS_MAIN(tst_DiskFull)
#include "tst_diskfull.moc"
