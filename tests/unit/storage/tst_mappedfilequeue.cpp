#include "storage/core/mappedfilequeue.h"
#include "storage/core/prefaultservice.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace qrocket::storage;

class tst_MappedFileQueue final : public QObject
{
    Q_OBJECT

private slots:
    void createsPreallocatedFileNamedByOffset();
    void refusesToCreateTwice();
    void flushHonoursLeastPages();
    void writtenRangeFlushUnmapsFlushedPages();
    void syncUnmapsTheFile();
    void rollsAndFindsByOffset();
    void truncateDirtyDropsLaterFilesAndZeroesTail();
    void loadReportsShortFileAndExtendsIt();
    void loadRejectsGapAndOversizedFile();
    void unlinkedFileStaysReadable();
    void populateKeepsContents();
    void populateReadsAheadOnlyWhatItMaps();
    void prefaultServiceStaysWithinWindow();
};

void tst_MappedFileQueue::createsPreallocatedFileNamedByOffset()
{
    QTemporaryDir dir;
    auto f = MappedFile::open(dir.filePath(offsetToFileName(65536)), 65536, 65536, true);
    QVERIFY2(f.has_value(), qPrintable(f.status().toString()));
    QCOMPARE((*f)->fileName(), QStringLiteral("00000000000000065536"));
    QCOMPARE(QFileInfo(dir.filePath(QStringLiteral("00000000000000065536"))).size(), 65536);
    QCOMPARE((*f)->wrotePosition(), 0);
    std::memcpy((*f)->data(), "hello", 5);
    (*f)->setWrotePosition(5);
    QCOMPARE((*f)->view(0, 5), QByteArrayView("hello"));
    QVERIFY((*f)->view(3, 5).isEmpty()); // beyond the wrote position
}

void tst_MappedFileQueue::refusesToCreateTwice()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(offsetToFileName(0));
    QVERIFY(MappedFile::open(path, 0, 4096, true).has_value());
    auto again = MappedFile::open(path, 0, 4096, true);
    QVERIFY(!again.has_value());
    QVERIFY(again.error().message().contains(path));
}

void tst_MappedFileQueue::flushHonoursLeastPages()
{
    QTemporaryDir dir;
    auto f = MappedFile::open(dir.filePath(offsetToFileName(0)), 0, 64 * 1024, true);
    QVERIFY(f.has_value());
    (*f)->setWrotePosition(4096 * 2 + 10);
    QCOMPARE(*(*f)->flush(4), 0); // only 2 dirty pages
    QCOMPARE(*(*f)->flush(2), 4096 * 2 + 10);
    (*f)->setWrotePosition(4096 * 3);
    QCOMPARE(*(*f)->flush(0), 4096 * 3);
}

namespace {
/// Whether the page at `addr` has a page-table entry in this process (/proc/self/pagemap bit 63;
/// readable without privileges). -1 when pagemap cannot be read.
int pagePresent(const char *addr)
{
    const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    std::uint64_t entry = 0;
    const off_t at = static_cast<off_t>(reinterpret_cast<std::uintptr_t>(addr) / 4096 * 8);
    const bool ok = ::pread(fd, &entry, sizeof entry, at) == static_cast<ssize_t>(sizeof entry);
    ::close(fd);
    return ok ? static_cast<int>(entry >> 63) : -1;
}

/// A new 64 KiB file at offset 0 in `dir`, mapped.
MappedFilePtr newFile(const QTemporaryDir &dir)
{
    auto opened = MappedFile::open(dir.filePath(offsetToFileName(0)), 0, 64 * 1024, true);
    return opened ? std::move(*opened) : nullptr;
}
} // namespace

void tst_MappedFileQueue::writtenRangeFlushUnmapsFlushedPages()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(offsetToFileName(0));
    const MappedFilePtr opened = newFile(dir);
    QVERIFY(opened);
    MappedFile &f = *opened;
    // Five pages and a bit written through the mapping, as an append does.
    constexpr int kWritten = 4096 * 5 + 100;
    for (int i = 0; i < kWritten; ++i)
        f.data()[i] = static_cast<char>('a' + i % 26);
    f.setWrotePosition(kWritten);
    if (pagePresent(f.data()) < 0)
        QSKIP("/proc/self/pagemap cannot be read here");
    for (int page = 0; page < 6; ++page)
        QCOMPARE(pagePresent(f.data() + page * 4096), 1);

    // A periodic round: the whole pages, and only those, are written and unmapped.
    QCOMPARE(*f.flush(1, MappedFile::FlushScope::WrittenRange), 4096 * 5);
    for (int page = 0; page < 5; ++page)
        QCOMPARE(pagePresent(f.data() + page * 4096), 0);
    QCOMPARE(pagePresent(f.data() + 5 * 4096), 1); // the page the writer is filling

    // The bytes are in the file, and the mapping still shows them.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray onDisk = file.read(kWritten);
    QCOMPARE(onDisk.size(), kWritten);
    QCOMPARE(QByteArrayView(f.data(), kWritten), QByteArrayView(onDisk));
    QCOMPARE(pagePresent(f.data()), 1); // faulted back in by the read above

    // The writer goes on in its page; a thorough round (0) takes the partial page as well and
    // leaves it mapped.
    f.data()[kWritten] = 'z';
    f.setWrotePosition(kWritten + 1);
    QCOMPARE(*f.flush(0, MappedFile::FlushScope::WrittenRange), kWritten + 1);
    QCOMPARE(pagePresent(f.data() + 5 * 4096), 1);
    file.seek(kWritten);
    QCOMPARE(file.read(1), QByteArray("z"));
}

void tst_MappedFileQueue::syncUnmapsTheFile()
{
    // Index files write in place at random positions; sync() writes every dirty page and drops
    // the mapping's page-table entries, contents kept.
    QTemporaryDir dir;
    const QString path = dir.filePath(offsetToFileName(0));
    const MappedFilePtr opened = newFile(dir);
    QVERIFY(opened);
    MappedFile &f = *opened;
    for (int page : {9, 2, 14})
        std::memcpy(f.data() + page * 4096 + 7, "slot", 4);
    if (pagePresent(f.data()) < 0)
        QSKIP("/proc/self/pagemap cannot be read here");
    QCOMPARE(pagePresent(f.data() + 2 * 4096), 1);
    QVERIFY(f.sync().isOk());
    for (int page : {9, 2, 14})
        QCOMPARE(pagePresent(f.data() + page * 4096), 0);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    file.seek(14 * 4096 + 7);
    QCOMPARE(file.read(4), QByteArray("slot"));
    QCOMPARE(QByteArrayView(f.data() + 9 * 4096 + 7, 4), QByteArrayView("slot"));
    std::memcpy(f.data() + 2 * 4096 + 7, "next", 4); // written again after the sync
    QVERIFY(f.sync().isOk());
    file.seek(2 * 4096 + 7);
    QCOMPARE(file.read(4), QByteArray("next"));
}

void tst_MappedFileQueue::rollsAndFindsByOffset()
{
    QTemporaryDir dir;
    MappedFileQueue q(dir.path(), 4096);
    QVERIFY(q.isEmpty());
    QCOMPARE(q.minOffset(), -1);
    auto a = q.lastFileForWrite(0);
    QVERIFY(a.has_value());
    (*a)->setWrotePosition(4096);
    auto b = q.lastFileForWrite();
    QVERIFY(b.has_value());
    QCOMPARE((*b)->fileFromOffset(), 4096);
    (*b)->setWrotePosition(100);
    QCOMPARE(q.fileCount(), 2);
    QCOMPARE(q.findFile(0), *a);
    QCOMPARE(q.findFile(4095), *a);
    QCOMPARE(q.findFile(4096), *b);
    QVERIFY(!q.findFile(8192));
    QCOMPARE(q.maxOffset(), 4196);
    QCOMPARE(q.flushBacklog(), 4196);
    QCOMPARE(*q.flush(0), 4196);
    QCOMPARE(q.flushBacklog(), 0);
}

void tst_MappedFileQueue::truncateDirtyDropsLaterFilesAndZeroesTail()
{
    QTemporaryDir dir;
    MappedFileQueue q(dir.path(), 4096);
    for (int i = 0; i < 3; ++i) {
        auto f = q.lastFileForWrite(0);
        QVERIFY(f.has_value());
        std::memset((*f)->data(), 'x', 4096);
        (*f)->setWrotePosition(4096);
    }
    QCOMPARE(q.fileCount(), 3);
    const std::int64_t discarded = q.truncateDirty(4096 + 100);
    QCOMPARE(discarded, 4096 + 4096 - 100);
    QCOMPARE(q.fileCount(), 2);
    QCOMPARE(q.maxOffset(), 4196);
    MappedFilePtr second = q.findFile(4096);
    QCOMPARE(second->data()[99], 'x');
    QCOMPARE(second->data()[100], '\0');
    QCOMPARE(second->data()[4095], '\0');
    QVERIFY(!QFile::exists(dir.filePath(offsetToFileName(8192))));
}

void tst_MappedFileQueue::loadReportsShortFileAndExtendsIt()
{
    QTemporaryDir dir;
    {
        QFile f(dir.filePath(offsetToFileName(0)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(1000, 'a'));
    }
    QFile foreign(dir.filePath(QStringLiteral("notes.txt")));
    QVERIFY(foreign.open(QIODevice::WriteOnly));
    foreign.close();
    MappedFileQueue q(dir.path(), 4096);
    QVERIFY(q.load().isOk());
    QCOMPARE(q.fileCount(), 1);
    QCOMPARE(q.loadWarnings().size(), 1);
    QVERIFY(q.loadWarnings().first().contains(QStringLiteral("3096 bytes short")));
    QCOMPARE(QFileInfo(dir.filePath(offsetToFileName(0))).size(), 4096);
    QCOMPARE(q.firstFile()->data()[999], 'a');
    QCOMPARE(q.firstFile()->data()[1000], '\0');
}

void tst_MappedFileQueue::loadRejectsGapAndOversizedFile()
{
    {
        QTemporaryDir dir;
        for (std::int64_t start : {0, 8192}) {
            QFile f(dir.filePath(offsetToFileName(start)));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.resize(4096);
        }
        MappedFileQueue q(dir.path(), 4096);
        const qrocket::Status s = q.load();
        QCOMPARE(s.code(), qrocket::Status::Code::Corruption);
        QVERIFY(s.message().contains(QStringLiteral("gap")));
    }
    {
        QTemporaryDir dir;
        QFile f(dir.filePath(offsetToFileName(0)));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.resize(5000);
        MappedFileQueue q(dir.path(), 4096);
        QCOMPARE(q.load().code(), qrocket::Status::Code::Corruption);
    }
}

void tst_MappedFileQueue::unlinkedFileStaysReadable()
{
    QTemporaryDir dir;
    MappedFileQueue q(dir.path(), 4096);
    auto a = q.lastFileForWrite(0);
    std::memcpy((*a)->data(), "data", 4);
    (*a)->setWrotePosition(4096);
    auto b = q.lastFileForWrite();
    QVERIFY(b.has_value());
    MappedFilePtr reader = q.firstFile();
    QVERIFY(q.removeFirst(reader));
    QVERIFY(!QFile::exists(reader->path()));
    QCOMPARE(reader->view(0, 4), QByteArrayView("data"));
    QCOMPARE(q.minOffset(), 4096);
}

void tst_MappedFileQueue::populateKeepsContents()
{
    QTemporaryDir dir;
    auto f = MappedFile::open(dir.filePath(offsetToFileName(0)), 0, 64 * 1024, true);
    QVERIFY(f.has_value());
    std::memcpy((*f)->data() + 4000, "written", 7);
    QCOMPARE((*f)->populate(0, 64 * 1024, true), 0);
    QCOMPARE((*f)->populate(100, 9000, false), 0);
    QCOMPARE((*f)->populate(60000, 1 << 30, true), 0); // clamped to the file
    QCOMPARE((*f)->populate(9000, 100, true), 0); // empty range
    QCOMPARE(QByteArrayView((*f)->data() + 4000, 7), QByteArrayView("written"));
    QCOMPARE((*f)->data()[0], '\0');
    QCOMPARE((*f)->data()[64 * 1024 - 1], '\0');
}

void tst_MappedFileQueue::populateReadsAheadOnlyWhatItMaps()
{
    // The first fault of a missing page would read ahead read_ahead_kb (8 MiB on the project's
    // VM) in one unpreemptible go; populate() reads in 1 MiB steps itself. Page-cache residency
    // (mincore) after mapping 256 KiB of a 16 MiB preallocated file stays within that step.
    QTemporaryDir dir;
    constexpr std::int64_t kSize = 16 << 20;
    auto opened = MappedFile::open(dir.filePath(offsetToFileName(0)), 0, kSize, true);
    QVERIFY(opened.has_value());
    MappedFile &f = **opened;
    QCOMPARE(f.populate(0, 256 * 1024, true), 0);
    std::vector<unsigned char> resident(kSize / 4096);
    QCOMPARE(::mincore(f.data(), kSize, resident.data()), 0);
    const auto inCache = std::count_if(
        resident.begin(), resident.end(), [](unsigned char c) { return (c & 1) != 0; });
    QVERIFY2(inCache >= 64, qPrintable(QString::number(inCache)));
    QVERIFY2(inCache <= 256, qPrintable(QString::number(inCache)));
}

void tst_MappedFileQueue::prefaultServiceStaysWithinWindow()
{
    QTemporaryDir dir;
    MappedFileQueue q(dir.path(), 64 * 1024);
    PrefaultService svc(q, 16 * 1024, true);
    QCOMPARE(svc.runOnce(4096), 0); // no file yet
    auto f = q.lastFileForWrite(0);
    QVERIFY(f.has_value());
    // The window is 16 KiB ahead of the write position, mapped in chunks.
    QCOMPARE(svc.runOnce(4096), 4096);
    QCOMPARE(svc.runOnce(1 << 20), 12 * 1024);
    QCOMPARE(svc.runOnce(1 << 20), 0);
    (*f)->setWrotePosition(10000);
    QCOMPARE(svc.runOnce(1 << 20), 10000); // [16 KiB frontier, 10000 + 16 KiB)
    (*f)->setWrotePosition(60000);
    QCOMPARE(svc.runOnce(1 << 20), 64 * 1024 - 60000); // clamped to the end of the file
    QCOMPARE(svc.runOnce(1 << 20), 0);
    // The next file: the window follows the writer into it.
    (*f)->setWrotePosition(64 * 1024);
    auto g = q.lastFileForWrite(64 * 1024);
    QVERIFY(g.has_value());
    QCOMPARE((*g)->fileFromOffset(), 64 * 1024);
    QCOMPARE(svc.runOnce(1 << 20), 16 * 1024);
    svc.start();
    svc.stop();
}

QTEST_APPLESS_MAIN(tst_MappedFileQueue)
#include "tst_mappedfilequeue.moc"
