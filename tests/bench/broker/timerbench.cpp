// qrocket-bench-timer: the timer store's rates on a real MessageStore (no sockets). Prints
// scheduled/s (send-path transform + commit-log put, and the wheel's enqueue alone), fired/s with
// every message waiting, p50/p99/max lateness (TIMER_DEQUEUE_MS - due) and the anonymous memory
// before and after scheduling (the wheel and timer log are mmap'd files: RssAnon must not grow
// with the number of waiting timers). Benchmarks print; they never assert.
// Usage: qrocket-bench-timer [--dir D] [--messages N] [--window-ms W] [--body B]
// N messages (default 1,000,000) are due spread evenly over W ms (default 10,000) starting once
// all are scheduled: the wheel must fire N/W*1000 per second to keep lateness under a second.

#include "broker/timer/timermessagestore.h"
#include "broker/timer/timertransform.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace qrocket;

namespace {

long rssAnonKb()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("RssAnon:"))
            return line.mid(8).trimmed().split(' ').value(0).toLong();
    }
    return -1;
}

QByteArray arg(const QStringList &args, const char *name, const char *fallback)
{
    const int i = args.indexOf(QString::fromLatin1(name));
    return i >= 0 && i + 1 < args.size() ? args[i + 1].toUtf8() : QByteArray(fallback);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const long long count = arg(args, "--messages", "1000000").toLongLong();
    const long long windowMs = arg(args, "--window-ms", "10000").toLongLong();
    const int bodySize = arg(args, "--body", "64").toInt();
    QTemporaryDir tmp(QString::fromUtf8(arg(args, "--dir", "")).isEmpty()
            ? QDir::tempPath() + QStringLiteral("/qrocket-bench-timer-XXXXXX")
            : QString::fromUtf8(arg(args, "--dir", "")) + QStringLiteral("/timer-XXXXXX"));
    if (!tmp.isValid()) {
        std::fprintf(stderr, "cannot create a temporary dir\n");
        return 1;
    }
    storage::MessageStoreConfig sc;
    sc.storePathRootDir = tmp.path();
    sc.mappedFileSizeCommitLog = 256 * 1024 * 1024;
    sc.mappedFileSizeConsumeQueue = 20 * 1000000;
    sc.messageIndexEnable = false;
    storage::StoreOptions so;
    so.runCleanService = false;
    storage::MessageStore store(sc, so);
    store.setTagsCodeResolver(broker::TimerMessageStore::wrapTagsCodeResolver({}));
    if (Status st = store.open(); !st) {
        std::fprintf(stderr, "store: %s\n", qPrintable(st.message()));
        return 1;
    }
    broker::TimerStoreOptions to;
    to.dir = tmp.path() + QStringLiteral("/timer");
    broker::TimerMessageStore wheel(store, to);
    if (Status st = wheel.open(); !st) {
        std::fprintf(stderr, "timer: %s\n", qPrintable(st.message()));
        return 1;
    }
    const long rss0 = rssAnonKb();
    std::printf("qrocket-bench-timer: %lld messages due over %lld ms, %d-byte bodies, dir %s\n",
        count, windowMs, bodySize, qPrintable(tmp.path()));

    // Schedule: the send path's transform and the put. Dues start 1 s after an estimate of the
    // scheduling time and are fixed up front, so the fire phase starts with all of them waiting.
    const broker::timer::TimerRules rules;
    const QByteArray body(bodySize, 'x');
    QElapsedTimer t;
    t.start();
    const std::int64_t begin = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t firstDue = begin + 600'000; // rebased below
    storage::MessageExtBrokerInner m;
    m.topic = "BenchTimer";
    m.body = body;
    for (long long i = 0; i < count; ++i) {
        const std::int64_t due = firstDue + i * windowMs / std::max(1LL, count);
        m.topic = "BenchTimer";
        m.queueId = 0;
        m.properties = "UNIQ_KEY\x01" + QByteArray::number(i) + "\x02TIMER_DELIVER_MS\x01"
            + QByteArray::number(due);
        if (broker::timer::applyTimer(m, QDateTime::currentMSecsSinceEpoch(), rules)
            != broker::timer::TimerOutcome::Parked) {
            std::fprintf(stderr, "not parked\n");
            return 1;
        }
        const auto r = store.putMessageAndWait(m);
        if (!r.isOk()) {
            std::fprintf(stderr, "put failed: %s\n", storage::putMessageStatusName(r.status));
            return 1;
        }
    }
    const double putSec = t.elapsed() / 1000.0;
    store.waitForDispatch(600000);
    QElapsedTimer te;
    te.start();
    while (wheel.enqueueBehind() > 0)
        wheel.runOnce();
    const double enqSec = te.elapsed() / 1000.0;
    const long rss1 = rssAnonKb();
    std::printf("scheduled: %lld in %.2f s put (%.0f/s, transform + commit log) + %.2f s wheel "
                "enqueue (%.0f/s); %.0f/s end to end\n",
        count, putSec, count / putSec, enqSec, count / std::max(enqSec, 1e-9),
        count / (putSec + enqSec));
    std::printf("waiting: %lld; RssAnon %ld kB before, %ld kB with all waiting (+%ld kB)\n",
        static_cast<long long>(wheel.backlog()), rss0, rss1, rss1 - rss0);
    std::fflush(stdout);
    // Fire: the dues were set 10 minutes ahead; the bench's clock starts them 1 s from now.
    const std::int64_t shift = firstDue - (QDateTime::currentMSecsSinceEpoch() + 1000);
    broker::TimerStoreOptions fo = to;
    fo.clock = [shift] { return QDateTime::currentMSecsSinceEpoch() + shift; };
    broker::TimerMessageStore *firing = nullptr;
    std::unique_ptr<broker::TimerMessageStore> shifted;
    {
        // Reopen the same files with the shifted clock (what a restart would see).
        wheel.stop();
        shifted = std::make_unique<broker::TimerMessageStore>(store, fo);
        if (Status st = shifted->open(); !st) {
            std::fprintf(stderr, "timer reopen: %s\n", qPrintable(st.message()));
            return 1;
        }
        firing = shifted.get();
    }
    QElapsedTimer tf;
    tf.start();
    firing->start();
    while (firing->backlog() > 0 && tf.elapsed() < 3600'000)
        QThread::msleep(20);
    const double fireSec = tf.elapsed() / 1000.0;
    firing->stop();
    store.waitForDispatch(600000);
    // Lateness from the delivered records.
    std::vector<std::int64_t> late;
    late.reserve(static_cast<std::size_t>(count));
    if (storage::ConsumeQueue *cq = store.findConsumeQueue("BenchTimer", 0)) {
        for (std::int64_t i = 0; i < cq->maxOffsetInQueue(); ++i) {
            storage::ConsumeQueue::Unit u;
            if (!cq->unit(i, u))
                break;
            const auto sel = store.lookMessageByOffset(u.commitLogOffset);
            protocol::MessageRecordView rec;
            if (!sel.isValid()
                || protocol::decodeRecord(sel.bytes, rec, false).status
                    != protocol::RecordStatus::Ok)
                continue;
            const std::int64_t due
                = protocol::findProperty(rec.properties, "TIMER_DELIVER_MS").toLongLong();
            const std::int64_t deq
                = protocol::findProperty(rec.properties, "TIMER_DEQUEUE_MS").toLongLong();
            late.push_back(deq - due);
        }
    }
    std::sort(late.begin(), late.end());
    auto pct = [&](double p) {
        return late.empty()
            ? 0
            : late[std::min(late.size() - 1, static_cast<std::size_t>(p * late.size()))];
    };
    std::printf("fired: %zu delivered in %.2f s from 1 s before the first due (%.0f/s over the "
                "%.1f s window + drain)\n",
        late.size(), fireSec, late.size() / std::max(fireSec - 1.0, 1e-9), windowMs / 1000.0);
    std::printf("lateness ms: min %lld p50 %lld p99 %lld max %lld (early: %lld)\n",
        static_cast<long long>(late.empty() ? 0 : late.front()), static_cast<long long>(pct(0.5)),
        static_cast<long long>(pct(0.99)), static_cast<long long>(late.empty() ? 0 : late.back()),
        static_cast<long long>(
            std::count_if(late.begin(), late.end(), [](auto v) { return v < 0; })));
    store.shutdown();
    return 0;
}
