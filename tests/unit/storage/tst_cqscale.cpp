// Consume queues at scale: many more queues than the store keeps mapped (the mapping cache,
// storage/core/mappingcache.h) stay readable and writable with the process's open files bounded,
// through a clean stop and a crash recovery; and a clean stop with thousands of light queues is
// timed (QROCKET_CQSCALE_LMQ sets how many, 1,000 by default, QROCKET_CQSCALE_CAP the cap: removing
// each 80 KB file takes a few ms on a file system mounted with `discard`; the figure is for
// 5,000).

#include "storage/core/mappedfilequeue.h"
#include "storage/core/multidispatch.h"
#include "tests/unit/storage/storetestutil.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_CqScale : public QObject
{
    Q_OBJECT
private slots:
    void pinOutlivesRelease();
    void hotQueueCost();
    void manyQueuesBeyondTheCap();
    void concurrentReadersWhileReleasing();
    void cleanStopWithManyLightQueues();
};

namespace {
std::unique_ptr<MessageStore> openStore(const MessageStoreConfig &c)
{
    StoreOptions options;
    options.runCleanService = false;
    auto s = std::make_unique<MessageStore>(c, options);
    if (!s->open())
        return nullptr;
    return s;
}

int openFdCount()
{
    return static_cast<int>(QDir(QStringLiteral("/proc/self/fd"))
                                .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
                                .size());
}

QByteArray lmqName(int i)
{
    return "%LMQ%q" + QByteArray::number(i);
}

QByteArray topicOf(int q)
{
    return "T" + QByteArray::number(q / 10);
}

QByteArray bodyOf(int q, std::int64_t i)
{
    return "q" + QByteArray::number(q) + "-" + QByteArray::number(i);
}

/// Body of the record at queue offset `i` of queue `q` (topicOf(q), q % 10), or a marker.
QByteArray readBody(const MessageStore &s, int q, std::int64_t i)
{
    const GetMessageResult r = s.getMessage("g", topicOf(q), q % 10, i, 1);
    if (r.status != GetMessageStatus::Found || r.messages.size() != 1)
        return QByteArrayLiteral("<missing>");
    protocol::MessageRecordView rec;
    if (protocol::decodeRecord(r.messages[0], rec, true).status != protocol::RecordStatus::Ok)
        return QByteArrayLiteral("<bad>");
    return rec.body.toByteArray();
}

/// Every queue of `queues` holds `perQueue` units whose records carry bodyOf(q, i).
bool everyQueueReadable(const MessageStore &s, int queues, int perQueue)
{
    for (int q = 0; q < queues; ++q) {
        if (s.maxOffsetInQueue(topicOf(q), q % 10) != perQueue) {
            qWarning() << "queue" << q << "ends at" << s.maxOffsetInQueue(topicOf(q), q % 10);
            return false;
        }
        for (int i = 0; i < perQueue; ++i) {
            if (const QByteArray b = readBody(s, q, i); b != bodyOf(q, i)) {
                qWarning() << "queue" << q << "offset" << i << "holds" << b;
                return false;
            }
        }
    }
    return true;
}

MessageStoreConfig cappedConfig(const QString &root, int cap)
{
    MessageStoreConfig c = smallConfig(root, 4 * 1024 * 1024);
    c.mappedFileSizeConsumeQueue = 20 * 4; // 4 units a file: queues span several files
    c.maxMappedConsumeQueueFiles = cap;
    return c;
}
} // namespace

void tst_CqScale::pinOutlivesRelease()
{
    QTemporaryDir dir;
    auto cache = std::make_shared<MappingCache>(2);
    QCOMPARE(cache->capacity(), 2);
    std::vector<MappedFilePtr> files;
    for (int i = 0; i < 5; ++i) {
        auto f = MappedFile::open(
            dir.filePath(offsetToFileName(i * 4096)), i * 4096, 4096, true, cache);
        QVERIFY(f);
        QVERIFY((*f)->isLazy());
        QVERIFY(!(*f)->isMapped()); // nothing mapped before the first use
        files.push_back(*f);
    }
    QCOMPARE(cache->mappedCount(), 0);
    MappedFile::Pin held = files[0]->pin();
    QVERIFY(held);
    std::memcpy(held.data(), "first", 5);
    // Using four more files releases file 0's mapping from the cache, but not from `held`.
    for (int i = 1; i < 5; ++i) {
        MappedFile::Pin p = files[static_cast<size_t>(i)]->pin();
        QVERIFY(p);
        std::memcpy(p.data(), "other", 5);
    }
    QVERIFY(cache->mappedCount() <= 2);
    QVERIFY(cache->releaseCount() >= 3);
    QVERIFY(!files[0]->isMapped());
    // Five first uses: five misses, no hit; using the newest file again is a hit, not a mapping.
    QCOMPARE(cache->mapCount(), std::uint64_t(5));
    QCOMPARE(cache->hitCount(), std::uint64_t(0));
    QVERIFY(files[4]->pin());
    const MappingCache::Stats st = cache->stats();
    QCOMPARE(st.hits, std::uint64_t(1));
    QCOMPARE(st.maps, std::uint64_t(5));
    QCOMPARE(st.releases, cache->releaseCount());
    QCOMPARE(st.capacity, 2);
    QVERIFY(st.mapped <= 2);
    std::memcpy(held.data() + 5, "-still", 6); // still mapped for its holder
    held = {};
    // A new mapping sees what went through the old one (MAP_SHARED: one page cache).
    const MappedFile::Pin again = files[0]->pin();
    QVERIFY(again);
    QCOMPARE(QByteArrayView(again.data(), 11), QByteArrayView("first-still"));
    // A released file's flush opens a descriptor for the fdatasync only.
    const auto idle = std::find_if(
        files.begin() + 1, files.end(), [](const MappedFilePtr &f) { return !f->isMapped(); });
    QVERIFY(idle != files.end());
    (*idle)->setWrotePosition(5);
    auto flushed = (*idle)->flush(0);
    QVERIFY(flushed);
    QCOMPARE(*flushed, 5);
    QVERIFY(!(*idle)->isMapped());
    files.clear(); // destroyed files leave the cache
    QCOMPARE(cache->mappedCount(), 0);
}

void tst_CqScale::hotQueueCost()
{
    // A queue that stays mapped costs a reader one uncontended mutex and a reference count per
    // unit read or written beyond an eager queue: printed, and both read the same units.
    constexpr int kUnits = 4000;
    constexpr int kReads = 400000;
    QTemporaryDir dir;
    auto cache = std::make_shared<MappingCache>(64);
    ConsumeQueue eager("E", 0, dir.path(), 20 * kUnits);
    ConsumeQueue lazy("L", 0, dir.path(), 20 * kUnits, cache);
    QElapsedTimer t;
    // Lazy first: the first file written in the process also pays for warming the code path.
    qint64 writeNs[2] = {};
    int q = 1;
    for (ConsumeQueue *cq : {&lazy, &eager}) {
        t.start();
        for (int i = 0; i < kUnits; ++i)
            QVERIFY(cq->putUnit(1000 + i * 100, 100, i, i).isOk());
        writeNs[q--] = t.nsecsElapsed();
    }
    qint64 readNs[2] = {};
    q = 0;
    for (ConsumeQueue *cq : {&eager, &lazy}) {
        std::int64_t sum = 0;
        ConsumeQueue::Unit u;
        t.start();
        for (int i = 0; i < kReads; ++i) {
            if (!cq->unit(i % kUnits, u))
                QFAIL("unit missing");
            sum += u.tagsCode;
        }
        readNs[q++] = t.nsecsElapsed();
        QCOMPARE(sum, std::int64_t(kReads / kUnits) * (kUnits - 1) * kUnits / 2);
    }
    qInfo().noquote() << QStringLiteral("per unit: write %1 ns eager, %2 ns lazy; read %3 ns "
                                        "eager, %4 ns lazy")
                             .arg(writeNs[0] / kUnits)
                             .arg(writeNs[1] / kUnits)
                             .arg(readNs[0] / kReads)
                             .arg(readNs[1] / kReads);
    QCOMPARE(cache->mappedCount(), 1);
}

void tst_CqScale::manyQueuesBeyondTheCap()
{
    constexpr int kCap = 64;
    constexpr int kQueues = 1000; // topics T0..T99, queues 0..9
    constexpr int kPerQueue = 6; // two files of 4 units each per queue
    QTemporaryDir dir;
    const MessageStoreConfig c = cappedConfig(dir.path(), kCap);
    const int fdsBefore = openFdCount();
    auto s = openStore(c);
    QVERIFY(s);
    QCOMPARE(s->consumeQueueMappings().capacity(), kCap);
    // Round robin over the queues: dispatch touches each queue once per pass, the worst order
    // for a cache of 64.
    int maxFds = 0;
    for (int i = 0; i < kPerQueue; ++i) {
        for (int q = 0; q < kQueues; ++q)
            QVERIFY(s->putMessageAndWait(message(topicOf(q), q % 10, bodyOf(q, i), "TagA")).isOk());
        QVERIFY(s->waitForDispatch(30000));
        maxFds = std::max(maxFds, openFdCount());
    }
    QVERIFY(s->consumeQueueMappings().mappedCount() <= kCap);
    QVERIFY(s->consumeQueueMappings().releaseCount() > 0);
    QVERIFY(everyQueueReadable(*s, kQueues, kPerQueue));
    maxFds = std::max(maxFds, openFdCount());
    // The store's own files (commit log, index, checkpoint, lock) plus at most kCap queue files
    // and a few pinned by readers at the moment of the count.
    const int bound = fdsBefore + kCap + 32;
    qInfo().noquote() << QStringLiteral(
        "%1 queues, cap %2: open fds %3 before, at most %4 (bound %5); "
        "%6 mappings made, %7 released")
                             .arg(kQueues)
                             .arg(kCap)
                             .arg(fdsBefore)
                             .arg(maxFds)
                             .arg(bound)
                             .arg(s->consumeQueueMappings().mapCount())
                             .arg(s->consumeQueueMappings().releaseCount());
    QVERIFY2(maxFds <= bound, qPrintable(QStringLiteral("%1 fds").arg(maxFds)));

    // A clean stop and a reopen: everything back, still bounded.
    s.reset();
    s = openStore(c);
    QVERIFY(s);
    QVERIFY(everyQueueReadable(*s, kQueues, kPerQueue));
    QVERIFY(openFdCount() <= bound);

    // A crash that lost every consume queue: recovery refiles all 1,000 with the cap on.
    s.reset();
    QVERIFY(QDir(dir.filePath(QStringLiteral("consumequeue"))).removeRecursively());
    {
        QFile abort(dir.filePath(QStringLiteral("abort")));
        QVERIFY(abort.open(QIODevice::WriteOnly));
    }
    s = openStore(c);
    QVERIFY(s);
    QVERIFY(!s->recoveryReport().lastExitOk);
    QVERIFY(s->waitForDispatch(30000));
    QVERIFY(everyQueueReadable(*s, kQueues, kPerQueue));
    QVERIFY(openFdCount() <= bound);
    // And a crash that kept them (the abort file alone): they are checked, not refiled twice.
    s.reset();
    {
        QFile abort(dir.filePath(QStringLiteral("abort")));
        QVERIFY(abort.open(QIODevice::WriteOnly));
    }
    s = openStore(c);
    QVERIFY(s);
    QVERIFY(s->waitForDispatch(30000));
    QVERIFY(everyQueueReadable(*s, kQueues, kPerQueue));
    QCOMPARE(
        s->putMessageAndWait(message(topicOf(7), 7, bodyOf(7, kPerQueue))).queueOffset, kPerQueue);
    QVERIFY(openFdCount() <= bound);
}

void tst_CqScale::concurrentReadersWhileReleasing()
{
    // A cache of 4 for 40 queues: nearly every use of a file releases another's mapping while
    // readers hold pins (ASan would see a read of an unmapped page as a SEGV, a torn unit as a
    // wrong body).
    constexpr int kQueues = 40;
    constexpr int kPerQueue = 40;
    QTemporaryDir dir;
    auto s = openStore(cappedConfig(dir.path(), 4));
    QVERIFY(s);
    std::atomic<bool> done {false};
    std::atomic<int> bad {0};
    std::atomic<std::int64_t> reads {0};
    auto reader = [&](int seed) {
        std::uint32_t x = static_cast<std::uint32_t>(seed) * 2654435761u + 1;
        while (!done.load()) {
            x = x * 1664525u + 1013904223u;
            const int q = static_cast<int>(x >> 8) % kQueues;
            const std::int64_t max = s->maxOffsetInQueue(topicOf(q), q % 10);
            for (std::int64_t i = 0; i < max; ++i) {
                if (readBody(*s, q, i) != bodyOf(q, i))
                    bad.fetch_add(1);
                reads.fetch_add(1);
            }
        }
    };
    std::thread r1(reader, 1), r2(reader, 2);
    for (int i = 0; i < kPerQueue; ++i)
        for (int q = 0; q < kQueues; ++q)
            QVERIFY(s->putMessageAndWait(message(topicOf(q), q % 10, bodyOf(q, i))).isOk());
    const bool dispatched = s->waitForDispatch(30000);
    done = true;
    r1.join();
    r2.join();
    QVERIFY(dispatched);
    qInfo().noquote() << QStringLiteral("%1 reads beside the writer, %2 mappings released")
                             .arg(reads.load())
                             .arg(s->consumeQueueMappings().releaseCount());
    QCOMPARE(bad.load(), 0);
    QVERIFY(reads.load() > 0);
    QVERIFY(everyQueueReadable(*s, kQueues, kPerQueue));
}

void tst_CqScale::cleanStopWithManyLightQueues()
{
    const int queues = qEnvironmentVariableIntValue("QROCKET_CQSCALE_LMQ") > 0
        ? qEnvironmentVariableIntValue("QROCKET_CQSCALE_LMQ")
        : 1000;
    constexpr int kPerMessage = 1000;
    constexpr int kRounds = 2;
    QTemporaryDir dir;
    MessageStoreConfig c = smallConfig(dir.path(), 64 * 1024 * 1024);
    c.maxMessageSize = 1024 * 1024;
    c.enableLmq = true;
    c.enableMultiDispatch = true;
    c.maxLmqConsumeQueueNum = queues + 10;
    c.maxMappedConsumeQueueFiles
        = qEnvironmentVariableIntValue("QROCKET_CQSCALE_CAP"); // 0: default
    auto s = openStore(c);
    QVERIFY(s);
    const int fdsBefore = openFdCount();
    QElapsedTimer filed;
    filed.start();
    for (int round = 0; round < kRounds; ++round) {
        for (int first = 0; first < queues; first += kPerMessage) {
            QByteArray names;
            for (int i = first; i < std::min(queues, first + kPerMessage); ++i) {
                if (!names.isEmpty())
                    names += ',';
                names += lmqName(i);
            }
            MessageExtBrokerInner m = message("T", 0, "b" + QByteArray::number(round), "TagA");
            m.properties += QByteArray("\x02INNER_MULTI_DISPATCH\x01") + names;
            QVERIFY(s->putMessageAndWait(m).isOk());
        }
    }
    QVERIFY(s->waitForDispatch(60000));
    qInfo().noquote()
        << QStringLiteral("%1 light queues filed in %2 ms").arg(queues).arg(filed.elapsed());
    QCOMPARE(s->lmqConsumeQueueCount(), queues);
    const int fdsLoaded = openFdCount();
    for (int i = 0; i < queues; i += std::max(1, queues / 50))
        QCOMPARE(s->maxOffsetInQueue(lmqName(i), 0), kRounds);
    QElapsedTimer t;
    t.start();
    s->shutdown();
    const qint64 stopMs = t.elapsed();
    qInfo().noquote() << QStringLiteral(
        "clean stop with %1 light queues, mapping cap %5: %2 ms (open fds %3 -> %4)")
                             .arg(queues)
                             .arg(stopMs)
                             .arg(fdsBefore)
                             .arg(fdsLoaded)
                             .arg(s->consumeQueueMappings().capacity());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("abort"))));
    t.restart();
    s.reset();
    qInfo().noquote() << QStringLiteral("destroyed in %1 ms").arg(t.elapsed());
    // Reopened after the clean stop: every queue is there with its units.
    QElapsedTimer reopen;
    reopen.start();
    s = openStore(c);
    qInfo().noquote() << QStringLiteral("reopened in %1 ms").arg(reopen.elapsed());
    QVERIFY(s);
    QVERIFY(s->waitForQueueRecovery(600000)); // the count is complete once all are found
    qInfo().noquote() << QStringLiteral("all queues checked after %1 ms").arg(reopen.elapsed());
    QCOMPARE(s->lmqConsumeQueueCount(), queues);
    for (int i = 0; i < queues; i += std::max(1, queues / 50)) {
        const GetMessageResult r = s->getMessage("g", lmqName(i), 0, kRounds - 1, 1);
        QCOMPARE(r.status, GetMessageStatus::Found);
    }
    t.restart();
    s.reset();
    qInfo().noquote() << QStringLiteral("stopped again in %1 ms").arg(t.elapsed());
    t.restart();
    QVERIFY(dir.remove());
    qInfo().noquote() << QStringLiteral("files removed in %1 ms").arg(t.elapsed());
}

QTEST_GUILESS_MAIN(tst_CqScale)
#include "tst_cqscale.moc"
