// qrocket-bench-store: prints the store's append, read and recovery figures next to the limits
// of this machine measured in the same run (mapped memcpy, write+fdatasync, ideal group commit).
// Benchmarks print; they never assert. Usage: qrocket-bench-store [--dir D] [--seconds S] [--quick]
// [--warm] [--only TEXT] [--no-limits] [--messages N] [--sync-write pwrite|mmap|auto]
// --only runs the append cases whose label contains TEXT ("read"/"recovery" need the ASYNC
// 1 KiB one-writer case); --no-limits skips the machine limits and --messages stops each case
// after N messages (for instruction counts under callgrind, where time means nothing).
// --lmq N [--lmq-per-message K]: light queues at scale instead (RIP-28, issue 30): files N light
// queues (%LMQ%q0..), K named per message's INNER_MULTI_DISPATCH as a sender would (default
// 1,000), then prints disk (files, directories, apparent and allocated bytes), memory (anonymous
// RSS and per queue), mappings, descriptors, and the times to file, stop cleanly, reopen after the
// clean stop, reopen after a crash and remove the store.

#include "benchbaselines.h"
#include "storage/core/mappedfile.h"
#include "storage/messagestore.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <atomic>
#include <cstdio>
#include <ftw.h>
#include <future>
#include <malloc.h>
#include <pthread.h>
#include <sys/stat.h>
#include <thread>
#include <vector>

using namespace qrocket::storage;

namespace {

struct Options
{
    QString dir;
    double seconds = 1.2; // per append case
    std::int64_t maxBytes = 384LL * 1024 * 1024;
    bool warm = false; // warmMapedFileEnable: pre-fault each new commit-log file in the background
    QString only;
    bool limits = true;
    std::int64_t maxMessages = 0; // 0: bounded by seconds/bytes only
    QString syncWrite = QStringLiteral("auto"); // pwrite | mmap | auto (fastest flush limit)
    int lmq = 0; // > 0: the light-queue case alone, with this many queues
    int lmqPerMessage = 1000;
};

struct Figures
{
    double msgsPerSec = 0;
    double mbPerSec = 0;
    std::int64_t messages = 0;
};

MessageStoreConfig benchConfig(const QString &root, bool sync, bool warm)
{
    MessageStoreConfig c;
    c.warmMapedFileEnable = warm;
    c.storePathRootDir = root;
    c.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
    c.flushDiskType = sync ? QStringLiteral("SYNC_FLUSH") : QStringLiteral("ASYNC_FLUSH");
    return c;
}

MessageExtBrokerInner benchMessage(int body, int queueId)
{
    MessageExtBrokerInner m;
    m.topic = "BenchTopic";
    m.queueId = queueId;
    m.body = QByteArray(body, 'q');
    m.properties = QByteArray("TAGS\x01TagA", 9);
    m.bornTimestamp = 1;
    m.bornHost = qrocket::protocol::HostAddress::ipv4(0x7F000001, 1);
    m.storeHost = qrocket::protocol::HostAddress::ipv4(0x7F000001, 2);
    return m;
}

Figures runAppend(MessageStore &store, int body, int writers, bool sync, const Options &o)
{
    std::atomic<std::int64_t> bytes {0}, msgs {0};
    std::atomic<bool> stop {false};
    QElapsedTimer t;
    t.start();
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            ::pthread_setname_np(::pthread_self(), "bench-writer");
            const MessageExtBrokerInner m = benchMessage(body, w % 8);
            std::int64_t myBytes = 0, myMsgs = 0;
            // A synchronous put takes a flush time: look at the clock more often.
            const int burst = sync ? 4 : 64;
            while (!stop.load(std::memory_order_relaxed)) {
                for (int i = 0; i < burst; ++i) {
                    PutMessageResult r;
                    if (sync) {
                        r = store.putMessageAndWait(m);
                    } else {
                        store.putMessage(m, [&r](const PutMessageResult &x) { r = x; });
                    }
                    if (!r.isOk()) {
                        std::fprintf(stderr, "put failed: %s %s\n", putMessageStatusName(r.status),
                            qPrintable(r.remark));
                        stop = true;
                        break;
                    }
                    myBytes += r.wroteBytes;
                    ++myMsgs;
                }
                bytes.fetch_add(myBytes);
                msgs.fetch_add(myMsgs);
                myBytes = myMsgs = 0;
                if (bytes.load() >= o.maxBytes
                    || (o.maxMessages > 0 && msgs.load() >= o.maxMessages)
                    || (o.maxMessages == 0
                        && static_cast<double>(t.nsecsElapsed()) / 1e9 >= o.seconds))
                    stop = true;
            }
        });
    }
    for (auto &th : threads)
        th.join();
    const double secs = static_cast<double>(t.nsecsElapsed()) / 1e9;
    return {static_cast<double>(msgs.load()) / secs, static_cast<double>(bytes.load()) / 1e6 / secs,
        msgs.load()};
}

Figures runRead(MessageStore &store, int queues)
{
    store.waitForDispatch(60000);
    QElapsedTimer t;
    t.start();
    std::int64_t msgs = 0, bytes = 0;
    for (int q = 0; q < queues; ++q) {
        std::int64_t off = 0;
        const std::int64_t max = store.maxOffsetInQueue("BenchTopic", q);
        while (off < max) {
            const GetMessageResult r = store.getMessage("g", "BenchTopic", q, off, 32);
            if (r.status != GetMessageStatus::Found)
                break;
            msgs += r.messageCount();
            bytes += r.bufferTotalSize;
            off = r.nextBeginOffset;
        }
    }
    const double secs = static_cast<double>(t.nsecsElapsed()) / 1e9;
    return {static_cast<double>(msgs) / secs, static_cast<double>(bytes) / 1e6 / secs, msgs};
}

void line(const char *what, const Figures &f, double value, double limit, const char *limitName,
    const char *target)
{
    std::printf("%-44s %10.0f msgs/s %9.1f MB/s   = %5.2f x %s (%.0f)%s%s\n", what, f.msgsPerSec,
        f.mbPerSec, limit > 0 ? value / limit : 0.0, limitName, limit,
        target[0] ? "   target: " : "", target);
    std::fflush(stdout);
}

// --- light queues at scale (--lmq) ----------------------------------------------------------

struct DiskUse
{
    std::int64_t files = 0, dirs = 0, apparent = 0, allocated = 0;
};
DiskUse g_walk; // nftw has no user pointer

DiskUse diskUse(const QString &root)
{
    g_walk = {};
    ::nftw(
        QFile::encodeName(root).constData(),
        [](const char *, const struct stat *st, int type, FTW *) {
            if (type == FTW_F) {
                ++g_walk.files;
                g_walk.apparent += st->st_size;
            } else if (type == FTW_D) {
                ++g_walk.dirs;
            }
            g_walk.allocated += static_cast<std::int64_t>(st->st_blocks) * 512;
            return 0;
        },
        64, FTW_PHYS);
    return g_walk;
}

/// A field of /proc/self/status in KiB (RssAnon, RssFile, VmRSS).
std::int64_t statusKb(const char *field)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &l : f.readAll().split('\n'))
        if (l.startsWith(key))
            return l.mid(key.size()).trimmed().split(' ').value(0).toLongLong();
    return -1;
}

std::int64_t lineCount(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().count('\n') : -1;
}

std::int64_t fdCount()
{
    return QDir(QStringLiteral("/proc/self/fd"))
        .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
        .size();
}

QByteArray lmqName(int i)
{
    return "%LMQ%q" + QByteArray::number(i);
}

MessageStoreConfig lmqConfig(const QString &root, int queues)
{
    MessageStoreConfig c;
    c.storePathRootDir = root;
    c.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
    c.maxMessageSize = 1024 * 1024;
    c.enableLmq = true;
    c.enableMultiDispatch = true;
    c.maxLmqConsumeQueueNum = queues + 10;
    return c;
}

std::int64_t heapInUse()
{
    return static_cast<std::int64_t>(mallinfo2().uordblks);
}
std::int64_t g_heapBase = 0;

void printProcess(const char *when, std::int64_t anonBaseKb, int queues)
{
    const std::int64_t anon = statusKb("RssAnon");
    const std::int64_t heap = heapInUse() - g_heapBase;
    std::printf(
        "  %-26s RssAnon %7.1f MiB (+%.1f MiB over the empty store = %.2f KiB/queue), "
        "RssFile %.1f MiB, mappings %lld, fds %lld; heap in use +%.1f MiB = %.2f KiB/queue\n",
        when, static_cast<double>(anon) / 1024.0, static_cast<double>(anon - anonBaseKb) / 1024.0,
        static_cast<double>(anon - anonBaseKb) / queues,
        static_cast<double>(statusKb("RssFile")) / 1024.0,
        static_cast<long long>(lineCount(QStringLiteral("/proc/self/maps"))),
        static_cast<long long>(fdCount()), static_cast<double>(heap) / 1048576.0,
        static_cast<double>(heap) / 1024.0 / queues);
    std::fflush(stdout);
}

int runLmq(const QString &root, const Options &o)
{
    const int n = o.lmq;
    const QString dir = root + QStringLiteral("/lmq");
    const MessageStoreConfig c = lmqConfig(dir, n);
    std::printf(
        "light queues: %d, %d named per message, store %s\n", n, o.lmqPerMessage, qPrintable(dir));
    StoreOptions so;
    so.runCleanService = false;
    auto store = std::make_unique<MessageStore>(c, so);
    if (const auto st = store->open(); !st) {
        std::fprintf(stderr, "open failed: %s\n", qPrintable(st.toString()));
        return 1;
    }
    const std::int64_t anonBase = statusKb("RssAnon");
    g_heapBase = heapInUse();
    printProcess("empty store", anonBase, n);
    QElapsedTimer t;
    t.start();
    for (int first = 0; first < n; first += o.lmqPerMessage) {
        QByteArray names;
        for (int i = first; i < std::min(n, first + o.lmqPerMessage); ++i) {
            if (!names.isEmpty())
                names += ',';
            names += lmqName(i);
        }
        MessageExtBrokerInner m = benchMessage(256, 0);
        m.properties += QByteArray("\x02INNER_MULTI_DISPATCH\x01") + names;
        const PutMessageResult r = store->putMessageAndWait(m);
        if (!r.isOk()) {
            std::fprintf(stderr, "put failed: %s %s\n", putMessageStatusName(r.status),
                qPrintable(r.remark));
            return 1;
        }
    }
    if (!store->waitForDispatch(3600 * 1000)) {
        std::fprintf(stderr, "dispatch did not finish\n");
        return 1;
    }
    const std::int64_t createMs = t.elapsed();
    std::printf("  filed %d light queues in %lld ms (%.1f us/queue); store counts %d\n", n,
        static_cast<long long>(createMs), 1000.0 * static_cast<double>(createMs) / n,
        store->lmqConsumeQueueCount());
    printProcess("after filing", anonBase, n);
    t.restart();
    store->shutdown();
    store.reset();
    std::printf("  clean stop: %lld ms\n", static_cast<long long>(t.elapsed()));
    t.restart();
    const DiskUse d = diskUse(dir);
    const DiskUse q = diskUse(dir + QStringLiteral("/consumequeue"));
    std::printf(
        "  disk: store %lld files, %lld directories, apparent %.1f MiB, allocated %.1f MiB; "
        "consumequeue/ %lld files, %lld directories, apparent %.1f MiB, allocated %.1f MiB "
        "(%.2f KiB/queue) [walk %lld ms]\n",
        static_cast<long long>(d.files), static_cast<long long>(d.dirs),
        static_cast<double>(d.apparent) / 1048576.0, static_cast<double>(d.allocated) / 1048576.0,
        static_cast<long long>(q.files), static_cast<long long>(q.dirs),
        static_cast<double>(q.apparent) / 1048576.0, static_cast<double>(q.allocated) / 1048576.0,
        static_cast<double>(q.allocated) / 1024.0 / n, static_cast<long long>(t.elapsed()));
    std::fflush(stdout);
    for (const bool crash : {false, true}) {
        if (crash) {
            QFile abort(dir + QStringLiteral("/abort"));
            abort.open(QIODevice::WriteOnly);
            abort.close();
        }
        t.restart();
        store = std::make_unique<MessageStore>(c, so);
        if (const auto st = store->open(); !st) {
            std::fprintf(stderr, "reopen failed: %s\n", qPrintable(st.toString()));
            return 1;
        }
        const std::int64_t openMs = t.elapsed();
        const RecoveryReport rep = store->recoveryReport(); // waits until every queue is checked
        const std::int64_t checkedMs = t.elapsed();
        std::printf("  reopen after %s: open() returned after %lld ms, every queue checked after "
                    "%lld ms (%s: %lld ms, %d queues, re-dispatched %lld records); counts %d\n",
            crash ? "a crash" : "a clean stop", static_cast<long long>(openMs),
            static_cast<long long>(checkedMs),
            rep.queuesInBackground ? "in the background" : "before open() returned",
            static_cast<long long>(rep.consumeQueueLoadMs), rep.consumeQueues,
            static_cast<long long>(rep.redispatchedRecords), store->lmqConsumeQueueCount());
        int bad = 0;
        for (int i = 0; i < n; i += std::max(1, n / 1000))
            if (store->getMessage("g", lmqName(i), 0, 0, 1).status != GetMessageStatus::Found)
                ++bad;
        if (bad > 0)
            std::printf("  !! %d sampled light queues not readable\n", bad);
        printProcess(crash ? "after crash reopen" : "after clean reopen", anonBase, n);
        t.restart();
        store->shutdown();
        store.reset();
        std::printf("  clean stop: %lld ms\n", static_cast<long long>(t.elapsed()));
    }
    t.restart();
    QDir(dir).removeRecursively();
    std::printf("  store removed in %lld ms\n", static_cast<long long>(t.elapsed()));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    qputenv("QT_LOGGING_RULES", "qrocket.storage*.info=false");
    Options o;
    const QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--dir") && i + 1 < args.size())
            o.dir = args[++i];
        else if (args[i] == QLatin1String("--seconds") && i + 1 < args.size())
            o.seconds = args[++i].toDouble();
        else if (args[i] == QLatin1String("--quick"))
            o.seconds = 0.4;
        else if (args[i] == QLatin1String("--warm"))
            o.warm = true;
        else if (args[i] == QLatin1String("--only") && i + 1 < args.size())
            o.only = args[++i];
        else if (args[i] == QLatin1String("--no-limits"))
            o.limits = false;
        else if (args[i] == QLatin1String("--messages") && i + 1 < args.size())
            o.maxMessages = args[++i].toLongLong();
        else if (args[i] == QLatin1String("--sync-write") && i + 1 < args.size()
            && (args[i + 1] == QLatin1String("pwrite") || args[i + 1] == QLatin1String("mmap")
                || args[i + 1] == QLatin1String("auto")))
            o.syncWrite = args[++i];
        else if (args[i] == QLatin1String("--lmq") && i + 1 < args.size())
            o.lmq = args[++i].toInt();
        else if (args[i] == QLatin1String("--lmq-per-message") && i + 1 < args.size())
            o.lmqPerMessage = std::max(1, args[++i].toInt());
        else {
            std::fprintf(stderr,
                "usage: qrocket-bench-store [--dir D] [--seconds S] [--quick] [--warm] [--only "
                "TEXT] [--no-limits] [--messages N] [--sync-write pwrite|mmap|auto] [--lmq N "
                "[--lmq-per-message K]]\n");
            return 2;
        }
    }
    QTemporaryDir tmp(o.dir.isEmpty()
            ? QDir::tempPath() + QStringLiteral("/qrocket-bench-store-XXXXXX")
            : o.dir + QStringLiteral("/qrocket-bench-store-XXXXXX"));
    if (!tmp.isValid()) {
        std::fprintf(stderr, "cannot create a directory for the benchmark\n");
        return 1;
    }
    const QString root = tmp.path();
    if (o.lmq > 0)
        return runLmq(root, o);
    std::printf("qrocket-bench-store: %s, %.1f s per append case, commit-log files 256 MiB\n",
        qPrintable(root), o.seconds);

    // --- limits of this machine -------------------------------------------------------------
    const double memcpyMBps
        = o.limits ? bench::mappedMemcpyMBps(root, 256LL * 1024 * 1024, 1024) : 0;
    std::printf("limit  mapped memcpy (1 KiB pieces into a fresh 256 MiB mapped file): %.0f MB/s\n",
        memcpyMBps);
    double syncOps[3] = {};
    const int bodies[3] = {128, 1024, 4096};
    for (int i = 0; i < 3 && o.limits; ++i) {
        syncOps[i] = bench::writeFdatasyncOpsPerSec(root, bodies[i] + 110, 1, 0.4);
        std::printf("limit  write+fdatasync of one %d-byte record: %.0f ops/s (%.3f ms each)\n",
            bodies[i] + 110, syncOps[i], 1000.0 / syncOps[i]);
    }
    const double ideal16
        = o.limits ? bench::writeFdatasyncOpsPerSec(root, 1024 + 110, 16, 0.6) * 16 : 0;
    std::printf(
        "limit  ideal group commit (16 x 1 KiB written, one fdatasync): %.0f msgs/s\n", ideal16);
    const double viaFdatasync
        = o.limits ? bench::mmapFlushOpsPerSec(root, 16 * 1134, false, 0.5) : 1;
    const double viaMsync = o.limits ? bench::mmapFlushOpsPerSec(root, 16 * 1134, true, 0.5) : 0;
    // SYNC_FLUSH path: pwrite+fdatasync (the ideal group commit above) or writes through the
    // mapping flushed by fdatasync or msync; --sync-write forces one, else the fastest here.
    const double viaPwrite = ideal16 / 16;
    bool pwrite = o.syncWrite == QLatin1String("pwrite");
    if (o.syncWrite == QLatin1String("auto"))
        pwrite = o.limits ? viaPwrite >= std::max(viaFdatasync, viaMsync) : true;
    const bool msync = !pwrite && viaMsync > viaFdatasync;
    std::printf("flush  16 KiB batches: pwrite+fdatasync %.0f, mapped+fdatasync %.0f, "
                "mapped+msync %.0f flushes/s -> SYNC_FLUSH uses %s\n",
        viaPwrite, viaFdatasync, viaMsync,
        pwrite ? "pwrite+fdatasync" : (msync ? "mapped+msync" : "mapped+fdatasync"));
    MappedFile::setSyncWriteMethod(
        pwrite ? MappedFile::SyncWriteMethod::Pwrite : MappedFile::SyncWriteMethod::Mmap);
    MappedFile::setFlushMethod(
        msync ? MappedFile::FlushMethod::Msync : MappedFile::FlushMethod::Fdatasync);

    // --- appends -----------------------------------------------------------------------------
    int caseNo = 0;
    Figures readFig;
    RecoveryReport recovery;
    std::int64_t recoveredBytes = 0;
    for (bool sync : {false, true}) {
        for (int b = 0; b < 3; ++b) {
            for (int writers : {1, 4, 16}) {
                if (writers == 16 && !sync)
                    continue;
                char what[96];
                std::snprintf(what, sizeof what, "append %s body=%d writers=%d",
                    sync ? "SYNC " : "ASYNC", bodies[b], writers);
                const bool readCase = !sync && b == 1 && writers == 1;
                if (!o.only.isEmpty() && !QString::fromLatin1(what).contains(o.only)
                    && !(readCase
                        && (o.only == QLatin1String("read")
                            || o.only == QLatin1String("recovery"))))
                    continue;
                const QString dir = root + QStringLiteral("/case") + QString::number(caseNo++);
                auto store = std::make_unique<MessageStore>(benchConfig(dir, sync, o.warm));
                if (const auto s = store->open(); !s) {
                    std::fprintf(stderr, "open failed: %s\n", qPrintable(s.toString()));
                    return 1;
                }
                const bool groupCase = sync && writers == 16 && bodies[b] == 1024;
                Figures f;
                double idealSliced = 0;
                if (groupCase && o.limits && o.maxMessages == 0) {
                    // The shared disk's latency drifts several-fold from second to second, so
                    // the ideal is measured in slices interleaved with the store's: both see the
                    // same disk, and the ratio compares like with like.
                    constexpr int kSlices = 8;
                    Options slice = o;
                    slice.seconds = o.seconds / kSlices;
                    double idealOps = 0, idealSecs = 0, storeMsgs = 0, storeSecs = 0;
                    bench::WriteFdatasyncLoop ideal(root, 1024 + 110, 16);
                    for (int i = 0; i < kSlices; ++i) {
                        QElapsedTimer it;
                        it.start();
                        idealOps += static_cast<double>(ideal.run(slice.seconds) * 16);
                        idealSecs += static_cast<double>(it.nsecsElapsed()) / 1e9;
                        QElapsedTimer st;
                        st.start();
                        const Figures part = runAppend(*store, bodies[b], writers, sync, slice);
                        storeSecs += static_cast<double>(st.nsecsElapsed()) / 1e9;
                        storeMsgs += static_cast<double>(part.messages);
                        f.messages += part.messages;
                        f.mbPerSec += part.mbPerSec * static_cast<double>(st.nsecsElapsed()) / 1e9;
                    }
                    f.msgsPerSec = storeMsgs / storeSecs;
                    f.mbPerSec /= storeSecs;
                    idealSliced = idealOps / idealSecs;
                } else {
                    f = runAppend(*store, bodies[b], writers, sync, o);
                }
                if (sync) {
                    const std::int64_t flushes = store->stats().syncFlushCount;
                    std::printf(
                        "       %lld messages in %lld group-commit flushes: %.1f per flush\n",
                        static_cast<long long>(f.messages), static_cast<long long>(flushes),
                        flushes > 0 ? static_cast<double>(f.messages) / static_cast<double>(flushes)
                                    : 0.0);
                }
                if (!sync)
                    line(what, f, f.mbPerSec, memcpyMBps, "mapped memcpy MB/s",
                        bodies[b] == 1024 && writers == 1 ? ">= 1000 MB/s and >= 0.20" : "");
                else if (groupCase) {
                    line(what, f, f.msgsPerSec, idealSliced,
                        "ideal group commit msgs/s (interleaved slices)", ">= 0.50");
                } else
                    line(what, f, f.msgsPerSec, writers == 1 ? syncOps[b] : ideal16,
                        writers == 1 ? "write+fdatasync ops/s" : "ideal group commit msgs/s", "");
                if (readCase) {
                    readFig = runRead(*store, 1);
                    store->shutdown();
                    QFile abort(dir + QStringLiteral("/abort"));
                    abort.open(
                        QIODevice::WriteOnly); // pretend it crashed: full CRC scan from the start
                    abort.close();
                    store = std::make_unique<MessageStore>(benchConfig(dir, false, o.warm));
                    if (store->open().isOk()) {
                        recovery = store->recoveryReport();
                        recoveredBytes = recovery.scannedBytes;
                    }
                }
                store.reset();
                QDir(dir).removeRecursively();
            }
        }
    }
    line("read getMessage (32 per call, 1 KiB bodies)", readFig, readFig.mbPerSec, memcpyMBps,
        "mapped memcpy MB/s", "");
    const double scanGiBps = recovery.scanMs > 0 ? static_cast<double>(recoveredBytes)
            / (1024.0 * 1024 * 1024) / (static_cast<double>(recovery.scanMs) / 1000.0)
                                                 : 0;
    std::printf("recovery (crash, CRC on): scanned %.0f MiB in %lld ms = %.2f GiB/s (= %.2f x "
                "target 1 GiB/s; "
                "%.2f x mapped memcpy); total open incl. re-dispatch %lld ms\n",
        static_cast<double>(recoveredBytes) / 1048576.0, static_cast<long long>(recovery.scanMs),
        scanGiBps, scanGiBps, scanGiBps * 1073.741824 / memcpyMBps,
        static_cast<long long>(recovery.elapsedMs));
    return 0;
}
