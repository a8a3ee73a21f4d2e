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
    MessageStore &store, std::int64_t startOffset, bool checkCrc)
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
    QElapsedTimer cqTimer;
    cqTimer.start();
    if (Status st = s.loadConsumeQueues(); !st)
        return st;
    // 1. consume queues
    std::int64_t maxCqPhy = -1;
    std::int64_t rebuildFrom = -1;
    auto lowerRebuild = [&](std::int64_t o) {
        if (o >= 0 && (rebuildFrom < 0 || o < rebuildFrom))
            rebuildFrom = o;
    };
    const std::vector<ConsumeQueue *> queues = s.consumeQueues();
    std::vector<ConsumeQueue::RecoverResult> checked(queues.size());
    parallelFor(queues.size(), [&](std::size_t i) { checked[i] = queues[i]->recover(); });
    for (std::size_t i = 0; i < queues.size(); ++i) {
        ConsumeQueue *cq = queues[i];
        const ConsumeQueue::RecoverResult &r = checked[i];
        rep.consumeQueues++;
        maxCqPhy = std::max(maxCqPhy, cq->maxPhysicOffset());
        if (r.damaged) {
            rep.damagedConsumeQueues++;
            rep.problems.append(QStringLiteral(
                "consume queue damaged: %1; kept %2 units; rebuilt from the commit log")
                                    .arg(r.detail)
                                    .arg(r.units));
            lowerRebuild(std::max<std::int64_t>(cq->maxPhysicOffset(), 0));
        }
    }
    rep.consumeQueueLoadMs = cqTimer.elapsed();
    // 2. commit log
    const auto clFiles = s.m_commitLog.files().files();
    if (clFiles.empty()) {
        for (ConsumeQueue *cq : s.consumeQueues())
            cq->destroy();
        s.m_index->destroy();
        if (rep.consumeQueues > 0)
            qCInfo(lcStoreRecovery)
                << "no commit-log files: destroyed" << rep.consumeQueues << "consume queues";
    }
    std::int64_t start = 0;
    if (!clFiles.empty()) {
        start = lastExitOk ? clFiles[clFiles.size() > 3 ? clFiles.size() - 3 : 0]->fileFromOffset()
                           : chooseAbnormalStart();
        QElapsedTimer scanTimer;
        scanTimer.start();
        const ScanResult scan = scanCommitLog(s, start, s.m_config.checkCRCOnRecover);
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
    // 3. drop logic entries beyond the valid end: in the queues that reach it (the others have
    // none; truncating every queue mapped each one's last file again, serially, and made step 6
    // map each first file again too: most of a start with 200,000 queues)
    if (maxCqPhy >= processOffset) {
        for (ConsumeQueue *cq : s.consumeQueues())
            if (cq->maxPhysicOffset() >= processOffset)
                cq->truncateDirtyLogicFiles(processOffset);
    }
    // 4. index
    if (s.m_config.messageIndexEnable) {
        auto loaded = s.m_index->load(lastExitOk, s.m_checkpoint.indexMsgTimestamp());
        if (!loaded)
            return loaded.error();
        rep.deletedIndexFiles = loaded->deletedFiles;
        lowerRebuild(loaded->rebuildFromPhyOffset);
        lowerRebuild(s.m_index->truncate(processOffset));
    }
    // 5. re-dispatch what the queues and index are missing
    std::int64_t reputFrom = s.m_commitLog.minOffset();
    for (ConsumeQueue *cq : s.consumeQueues())
        reputFrom = std::max(reputFrom, cq->maxPhysicOffset());
    if (!lastExitOk)
        reputFrom = std::min(reputFrom, start);
    if (rebuildFrom >= 0)
        reputFrom = std::min(reputFrom, rebuildFrom);
    reputFrom = std::clamp(reputFrom, s.m_commitLog.minOffset(), processOffset);
    rep.redispatchFromOffset = reputFrom;
    s.m_reput->setReputFromOffset(reputFrom);
    rep.redispatchedRecords = s.m_reput->dispatchAll();
    // 6. queue offset table and min offsets
    s.m_commitLog.clearQueueOffsets();
    const std::int64_t clMin = s.m_commitLog.minOffset();
    for (ConsumeQueue *cq : s.consumeQueues()) {
        cq->correctMinOffsetAfterRecovery(clMin);
        s.m_commitLog.setQueueOffset(cq->topic(), cq->queueId(), cq->maxOffsetInQueue());
    }
    rep.elapsedMs = timer.elapsed();
    const double secs = std::max<double>(rep.elapsedMs, 1) / 1000.0;
    qCInfo(lcStoreRecovery).noquote() << QStringLiteral(
        "recovery done in %1 ms: scanned %2 bytes (%3 records) from %4, valid end %5, truncated %6 "
        "bytes, %7 consume queues (%8 damaged), %9 index files deleted, re-dispatched %10 records "
        "from "
        "%11 (%12 MiB/s)")
                                             .arg(rep.elapsedMs)
                                             .arg(rep.scannedBytes)
                                             .arg(rep.scannedRecords)
                                             .arg(rep.scanStartOffset)
                                             .arg(processOffset)
                                             .arg(rep.truncatedBytes)
                                             .arg(rep.consumeQueues)
                                             .arg(rep.damagedConsumeQueues)
                                             .arg(rep.deletedIndexFiles)
                                             .arg(rep.redispatchedRecords)
                                             .arg(reputFrom)
                                             .arg(static_cast<double>(rep.scannedBytes)
                                                     / (1024.0 * 1024.0) / secs,
                                                 0, 'f', 1);
    return {};
}

} // namespace qrocket::storage
