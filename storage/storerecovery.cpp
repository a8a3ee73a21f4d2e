#include "storage/storerecovery.h"

#include "clientlib/common/byteorder.h"
#include "storage/core/logging.h"
#include "storage/messagestore.h"
#include "storage/services/reputservice.h"

#include <QDir>
#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace qrocket::storage {

namespace {
// Looking at the whole remainder of a 1 GiB file would fault in every page of it; a torn or
// corrupt tail shows within the window of the record that failed (or 64 KiB past it).
constexpr std::int64_t kTailWindow = 64 * 1024;

std::int64_t tailWindow(QByteArrayView rest)
{
    std::int64_t w = kTailWindow;
    if (rest.size() >= 4) {
        const std::int64_t claimed = readI32(rest.data());
        if (claimed > 0 && claimed <= 64 * 1024 * 1024)
            w = std::max(w, claimed);
    }
    return std::min<std::int64_t>(w, rest.size());
}

bool allZero(QByteArrayView v)
{
    for (char c : v.first(tailWindow(v)))
        if (c != 0)
            return false;
    return true;
}

// Bytes from `offset` to the last non-zero byte within the tail window (what a truncation
// discards, as far as it is cheap to tell).
std::int64_t dirtyBytesAfter(const MappedFileQueue &files, std::int64_t offset)
{
    const MappedFilePtr f = files.findFile(offset);
    if (!f)
        return 0;
    const std::int64_t from = offset - f->fileFromOffset();
    const QByteArrayView rest(f->data() + from, f->fileSize() - from);
    for (std::int64_t p = tailWindow(rest); p > 0; --p)
        if (rest[p - 1] != 0)
            return p;
    return 0;
}
} // namespace

void parallelFor(std::size_t n, const std::function<void(std::size_t)> &fn)
{
    const std::size_t threads = std::min<std::size_t>(
        {std::size_t(4), std::max(1u, std::thread::hardware_concurrency()), n});
    if (threads <= 1) {
        for (std::size_t i = 0; i < n; ++i)
            fn(i);
        return;
    }
    std::atomic<std::size_t> next {0};
    auto work = [&] {
        for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
            fn(i);
    };
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t)
        helpers.emplace_back(work);
    work();
    for (std::thread &t : helpers)
        t.join();
}

StoreRecovery::ScanResult StoreRecovery::scanCommitLog(
    MessageStore &store, std::int64_t startOffset, bool checkCrc, std::int64_t flushedTs)
{
    ScanResult r;
    r.endOffset = startOffset;
    MappedFileQueue &files = store.m_commitLog.files();
    protocol::MessageRecordView rec;
    for (MappedFilePtr f = files.findFile(startOffset); f;
         f = files.findFile(f->fileFromOffset() + f->fileSize())) {
        std::int64_t pos = r.endOffset - f->fileFromOffset();
        const std::int64_t size = f->fileSize();
        while (pos < size) {
            const QByteArrayView rest(f->data() + pos, size - pos);
            const protocol::RecordDecodeResult d = protocol::decodeRecord(rest, rec, checkCrc);
            if (d.status == protocol::RecordStatus::Ok
                && rec.physicalOffset != f->fileFromOffset() + pos) {
                r.stopReason = QStringLiteral("record at %1 claims physical offset %2")
                                   .arg(f->fileFromOffset() + pos)
                                   .arg(rec.physicalOffset);
                r.endOffset = f->fileFromOffset() + pos;
                return r;
            }
            if (d.status == protocol::RecordStatus::Ok) {
                const std::int32_t tx = rec.sysFlag & protocol::SysFlag::TransactionMask;
                const std::int64_t at = f->fileFromOffset() + pos;
                if (r.firstUnflushed < 0 && rec.storeTimestamp >= flushedTs)
                    r.firstUnflushed = at;
                if (tx == protocol::SysFlag::TransactionNot
                    || tx == protocol::SysFlag::TransactionCommit) {
                    r.lastQueueRecord = at;
                    if (r.firstQueueRecord < 0)
                        r.firstQueueRecord = at;
                    if (r.firstUnflushed < 0)
                        r.lastFlushedQueueRecord = at;
                }
                pos += d.size;
                ++r.records;
                continue;
            }
            if (d.status == protocol::RecordStatus::Blank && pos + d.size == size)
                break;
            r.endOffset = f->fileFromOffset() + pos;
            if (!allZero(rest))
                r.stopReason = QStringLiteral("%1 at commit-log offset %2 (file %3, position %4)")
                                   .arg(d.status == protocol::RecordStatus::Blank
                                           ? QStringLiteral("BLANK record not ending the file")
                                           : d.error)
                                   .arg(r.endOffset)
                                   .arg(f->fileName())
                                   .arg(pos);
            return r;
        }
        // The file ended with a BLANK record or was filled exactly: continue in the next one.
        r.endOffset = f->fileFromOffset() + size;
    }
    return r;
}

std::int64_t StoreRecovery::chooseAbnormalStart() const
{
    const auto files = m_store.m_commitLog.files().files();
    const std::int64_t cpMin = m_store.m_checkpoint.minTimestamp(m_store.m_config.messageIndexSafe);
    for (auto it = files.rbegin(); it != files.rend(); ++it) {
        const MappedFilePtr &f = *it;
        protocol::MessageRecordView rec;
        const auto d = protocol::decodeRecord(QByteArrayView(f->data(), f->fileSize()), rec, false);
        if (d.status == protocol::RecordStatus::Ok && rec.storeTimestamp != 0
            && rec.storeTimestamp <= cpMin) {
            qCInfo(lcStoreRecovery).noquote()
                << "abnormal recovery starts at" << f->fileName() << "(first message stored at"
                << rec.storeTimestamp << "<= checkpoint" << cpMin << ")";
            return f->fileFromOffset();
        }
    }
    return files.empty() ? 0 : files.front()->fileFromOffset();
}

namespace {
std::int64_t readMarker(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    bool ok = false;
    const std::int64_t v = f.readAll().trimmed().toLongLong(&ok);
    return ok && v >= 0 ? v : 0; // unreadable: validate from the start
}

} // namespace

bool StoreRecovery::queuesHoldRecord(std::int64_t offset) const
{
    MessageStore &s = m_store;
    if (offset < 0)
        return false;
    const SelectedRecord sel = s.lookMessageByOffset(offset);
    protocol::MessageRecordView rec;
    if (!sel.isValid()
        || protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok)
        return false;
    if (const auto it = s.m_deletedAtOpen.find(
            std::string_view(rec.topic.data(), static_cast<size_t>(rec.topic.size())));
        it != s.m_deletedAtOpen.end() && offset < it->second)
        return false;
    const ConsumeQueue *cq = s.findConsumeQueue(rec.topic, rec.queueId);
    ConsumeQueue::Unit u;
    return cq && cq->unit(rec.queueOffset, u) && u.commitLogOffset == offset
        && u.size == rec.totalSize;
}

Status StoreRecovery::run(bool lastExitOk)
{
    QElapsedTimer timer;
    timer.start();
    MessageStore &s = m_store;
    RecoveryReport &rep = s.m_recovery;
    rep = RecoveryReport();
    rep.lastExitOk = lastExitOk;
    qCInfo(lcStoreRecovery).noquote()
        << (lastExitOk ? "clean stop detected: normal recovery"
                       : "abort file present (crash): abnormal recovery");
    if (Status st = s.m_commitLog.load(); !st)
        return st;
    for (const QString &w : s.m_commitLog.files().loadWarnings())
        rep.problems.append(w);
    s.m_uncheckedFrom = readMarker(s.uncheckedMarkerPath());
    if (s.m_uncheckedFrom >= 0)
        qCWarning(lcStoreRecovery).noquote()
            << "an earlier start did not finish checking the consume queues: checking all of"
            << "them now, and their units from commit-log offset" << s.m_uncheckedFrom;
    s.m_deletedAtOpen = s.m_deletedTopics;
    // 1. commit log
    const auto clFiles = s.m_commitLog.files().files();
    std::int64_t start = 0;
    ScanResult scan;
    if (!clFiles.empty()) {
        start = lastExitOk ? clFiles[clFiles.size() > 3 ? clFiles.size() - 3 : 0]->fileFromOffset()
                           : chooseAbnormalStart();
        QElapsedTimer scanTimer;
        scanTimer.start();
        scan = scanCommitLog(
            s, start, s.m_config.checkCRCOnRecover, s.m_checkpoint.logicsMsgTimestamp());
        rep.scanMs = scanTimer.elapsed();
        rep.scanStartOffset = start;
        rep.processOffset = scan.endOffset;
        rep.scannedBytes = scan.endOffset - start;
        rep.scannedRecords = scan.records;
        rep.stopReason = scan.stopReason;
        if (!scan.stopReason.isEmpty())
            rep.truncatedBytes = dirtyBytesAfter(s.m_commitLog.files(), scan.endOffset);
        s.m_commitLog.files().truncateDirty(scan.endOffset);
        s.m_commitLog.files().setFlushedWhere(scan.endOffset);
        if (!scan.stopReason.isEmpty()) {
            rep.problems.append(QStringLiteral("commit log: %1; truncated at %2")
                                    .arg(scan.stopReason)
                                    .arg(scan.endOffset));
            qCWarning(lcStoreRecovery).noquote()
                << "commit log damaged:" << scan.stopReason << "- keeping" << scan.endOffset
                << "bytes, everything after is discarded";
        }
    }
    const std::int64_t processOffset = s.m_commitLog.maxOffset();
    // Units at or past it are cut from every queue as it is recovered.
    s.m_recoveryEnd = processOffset;
    // 2. index
    std::int64_t rebuildFrom = -1;
    auto lowerRebuild = [&](std::int64_t o) {
        if (o >= 0 && (rebuildFrom < 0 || o < rebuildFrom))
            rebuildFrom = o;
    };
    if (s.m_config.messageIndexEnable) {
        auto loaded = s.m_index->load(lastExitOk, s.m_checkpoint.indexMsgTimestamp());
        if (!loaded)
            return loaded.error();
        rep.deletedIndexFiles = loaded->deletedFiles;
        lowerRebuild(loaded->rebuildFromPhyOffset);
        lowerRebuild(s.m_index->truncate(processOffset));
    }
    // 3. consume queues: in the background when the queues are known to hold the records
    // before the re-dispatch start: a clean stop's end, or after a crash the first record
    // stored at or after the checkpoint's consume-queue time (every record before it was in
    // a flushed queue). One queue tells: the one of the last record before that start (after a
    // crash without one, the first record re-dispatched). Else (no such record, or it is not
    // in its queue: the queues were deleted or lost, an unfinished earlier start) every queue
    // is checked now, and re-dispatch starts where the queues end.
    s.m_queuesPending = true;
    std::int64_t probe = scan.lastQueueRecord;
    std::int64_t reputFrom = processOffset;
    if (!lastExitOk) {
        reputFrom = scan.firstUnflushed >= 0 ? scan.firstUnflushed : processOffset;
        probe = scan.lastFlushedQueueRecord >= 0 ? scan.lastFlushedQueueRecord
                                                 : scan.firstQueueRecord;
    }
    const bool background = s.m_config.recoverConsumeQueuesInBackground && !clFiles.empty()
        && s.m_uncheckedFrom < 0 && queuesHoldRecord(probe)
        && s.m_damagedFrom < 0; // that queue was not damaged (it was checked as eagerly)
    QElapsedTimer cqTimer;
    cqTimer.start();
    if (!background) {
        s.recoverAllQueues();
        s.m_queuesPending = false;
        rep.consumeQueueLoadMs = cqTimer.elapsed();
        if (clFiles.empty()) {
            for (ConsumeQueue *cq : s.consumeQueues())
                cq->destroy();
            s.m_index->destroy();
            if (rep.consumeQueues > 0)
                qCInfo(lcStoreRecovery)
                    << "no commit-log files: destroyed" << rep.consumeQueues << "consume queues";
        }
        // Re-dispatch from the end of the queue that reaches furthest (all of it when there
        // is none), and from where a damaged queue ends.
        reputFrom = s.m_commitLog.minOffset();
        for (ConsumeQueue *cq : s.consumeQueues())
            reputFrom = std::max(reputFrom, cq->maxPhysicOffset());
        if (!lastExitOk)
            reputFrom = std::min(reputFrom, start);
        lowerRebuild(s.m_damagedFrom);
    } else {
        rep.queuesInBackground = true;
        s.m_rebuildDamaged = true;
    }
    // 4. re-dispatch what the queues and index are missing
    if (rebuildFrom >= 0)
        reputFrom = std::min(reputFrom, rebuildFrom);
    reputFrom = std::clamp(reputFrom, s.m_commitLog.minOffset(), processOffset);
    rep.redispatchFromOffset = reputFrom;
    s.m_reput->setReputFromOffset(reputFrom);
    rep.redispatchedRecords = s.m_reput->dispatchAll();
    if (!background) {
        const std::int64_t clMin = s.m_commitLog.minOffset();
        for (ConsumeQueue *cq : s.consumeQueues())
            cq->correctMinOffsetAfterRecovery(clMin);
        QFile::remove(s.uncheckedMarkerPath());
    } else {
        // Until every queue is checked, the next start must do it first (queuerecovery.cpp): a
        // queue not checked yet may hold units past the valid end (a crash, or a commit log cut
        // while the broker was down, as controller mode does), which new records would cover.
        if (Status st
            = writeFileDurably(s.uncheckedMarkerPath(), QByteArray::number(processOffset));
            !st)
            return st;
    }
    if (!background)
        s.m_uncheckedFrom = -1;
    rep.elapsedMs = timer.elapsed();
    const double secs = std::max<double>(rep.elapsedMs, 1) / 1000.0;
    qCInfo(lcStoreRecovery).noquote() << QStringLiteral(
        "recovery done in %1 ms: scanned %2 bytes (%3 records) from %4, valid end %5, truncated %6 "
        "bytes, %7, %8 index files deleted, re-dispatched %9 records from %10 (%11 MiB/s)")
                                             .arg(rep.elapsedMs)
                                             .arg(rep.scannedBytes)
                                             .arg(rep.scannedRecords)
                                             .arg(rep.scanStartOffset)
                                             .arg(processOffset)
                                             .arg(rep.truncatedBytes)
                                             .arg(background ? QStringLiteral(
                                                      "consume queues checked in the background")
                                                             : QStringLiteral(
                                                                 "%1 consume queues (%2 damaged)")
                                                                   .arg(rep.consumeQueues)
                                                                   .arg(rep.damagedConsumeQueues))
                                             .arg(rep.deletedIndexFiles)
                                             .arg(rep.redispatchedRecords)
                                             .arg(reputFrom)
                                             .arg(static_cast<double>(rep.scannedBytes)
                                                     / (1024.0 * 1024.0) / secs,
                                                 0, 'f', 1);
    return {};
}

} // namespace qrocket::storage
