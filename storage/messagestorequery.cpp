// MessageStore read paths: getMessage (protocol.md §4.2), offsets, timestamps, key queries, stats.

#include "clientlib/common/byteorder.h"
#include "storage/core/logging.h"
#include "storage/core/multidispatch.h"
#include "storage/messagestore.h"
#include "storage/services/cleanservice.h"
#include "storage/services/flushservice.h"
#include "storage/services/reputservice.h"
#include "storage/storerecovery.h"

#include <QDir>
#include <QFileInfo>

#include <limits>
#include <thread>
#include <vector>

namespace qrocket::storage {

namespace {

/// The commit-log half of a property (SQL92) filter. A record that does not decode is handed
/// on unfiltered: the client meets the same bytes and reports them, as it does unfiltered.
bool matchesRecord(const MessageFilter &filter, QByteArrayView record)
{
    protocol::MessageRecordView view;
    if (protocol::decodeRecord(record, view, false).status != protocol::RecordStatus::Ok)
        return true;
    return filter.matchesProperties(view.properties);
}

} // namespace

GetMessageResult MessageStore::getMessage(QByteArrayView /*group*/, QByteArrayView topic,
    int queueId, std::int64_t offset, int maxMsgNums, const MessageFilter *filter) const
{
    GetMessageResult r;
    const bool correct = !m_config.isSlave() || m_config.offsetCheckInSlave;
    auto correction = [&](std::int64_t newOffset) { return correct ? newOffset : offset; };
    r.nextBeginOffset = offset;
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    if (!cq) {
        r.status = GetMessageStatus::NoMatchedLogicQueue;
        r.nextBeginOffset = correction(0);
        return r;
    }
    r.minOffset = cq->minOffsetInQueue();
    r.maxOffset = cq->maxOffsetInQueue();
    if (r.maxOffset == 0) {
        r.status = GetMessageStatus::NoMessageInQueue;
        r.nextBeginOffset = correction(0);
        return r;
    }
    if (offset < r.minOffset) {
        r.status = GetMessageStatus::OffsetTooSmall;
        r.nextBeginOffset = correction(r.minOffset);
        return r;
    }
    if (offset == r.maxOffset) {
        r.status = GetMessageStatus::OffsetOverflowOne;
        r.nextBeginOffset = correction(offset);
        return r;
    }
    if (offset > r.maxOffset) {
        r.status = GetMessageStatus::OffsetOverflowBadly;
        // RocketMQ 4.9.7 (DefaultMessageStore.getMessage): always the end of the queue. Earlier
        // releases went back to the start when the queue's minimum was 0, which replayed the
        // whole queue to a consumer whose offset outlived a wiped store.
        r.nextBeginOffset = correction(r.maxOffset);
        return r;
    }
    const ConsumeQueue::IndexBuffer buf = cq->indexBuffer(offset);
    if (buf.bytes.isEmpty()) {
        r.status = GetMessageStatus::OffsetFoundNull;
        r.nextBeginOffset = correction(cq->rollNextFile(offset));
        return r;
    }
    r.status = GetMessageStatus::NoMatchedMessage;
    const std::int64_t maxOffsetPy = m_commitLog.maxOffset();
    const std::int64_t memoryWindow
        = m_totalPhysicalMemory * m_config.accessMessageInMemoryMaxRatio / 100;
    const qsizetype maxFilterBytes
        = std::max<qsizetype>(16000, static_cast<qsizetype>(maxMsgNums) * 20);
    std::int64_t nextPhyFileStart = -1;
    std::int64_t maxPhyOffsetPulling = 0;
    qsizetype i = 0;
    for (; i + ConsumeQueue::kUnitSize <= buf.bytes.size() && i < maxFilterBytes;
         i += ConsumeQueue::kUnitSize) {
        const ConsumeQueue::Unit u = ConsumeQueue::decodeUnit(buf.bytes.data() + i);
        maxPhyOffsetPulling = u.commitLogOffset;
        if (nextPhyFileStart >= 0 && u.commitLogOffset < nextPhyFileStart)
            continue;
        const bool inDisk = maxOffsetPy - u.commitLogOffset > memoryWindow;
        const std::int64_t count = r.messageCount();
        if (r.bufferTotalSize > 0 && count > 0) {
            if (maxMsgNums <= count)
                break;
            const int maxBytes = inDisk ? m_config.maxTransferBytesOnMessageInDisk
                                        : m_config.maxTransferBytesOnMessageInMemory;
            const int maxCount = inDisk ? m_config.maxTransferCountOnMessageInDisk
                                        : m_config.maxTransferCountOnMessageInMemory;
            if (r.bufferTotalSize + u.size > maxBytes || count > maxCount - 1)
                break;
        }
        if (filter && !filter->matchesTagsCode(u.tagsCode)) {
            if (r.bufferTotalSize == 0)
                r.status = GetMessageStatus::NoMatchedMessage;
            continue;
        }
        SelectedRecord sel = m_commitLog.select(u.commitLogOffset, u.size);
        if (!sel.isValid()) {
            if (r.bufferTotalSize == 0)
                r.status = GetMessageStatus::MessageWasRemoving;
            nextPhyFileStart = m_commitLog.rollNextFile(u.commitLogOffset);
            continue;
        }
        if (filter && filter->properties && !matchesRecord(*filter, sel.bytes)) {
            if (r.bufferTotalSize == 0)
                r.status = GetMessageStatus::NoMatchedMessage;
            continue;
        }
        if (r.holds.empty() || r.holds.back() != sel.hold)
            r.holds.push_back(std::move(sel.hold));
        r.messages.push_back(sel.bytes);
        r.messageQueueOffsets.push_back(offset + i / ConsumeQueue::kUnitSize);
        r.bufferTotalSize += u.size;
        r.status = GetMessageStatus::Found;
        nextPhyFileStart = -1;
    }
    r.nextBeginOffset = offset + i / ConsumeQueue::kUnitSize;
    r.suggestPullingFromSlave = maxOffsetPy - maxPhyOffsetPulling > memoryWindow;
    m_getCount.fetch_add(r.messageCount(), std::memory_order_relaxed);
    return r;
}

std::int64_t MessageStore::minOffsetInQueue(QByteArrayView topic, int queueId) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    return cq ? cq->minOffsetInQueue() : 0;
}

std::int64_t MessageStore::maxOffsetInQueue(QByteArrayView topic, int queueId) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    return cq ? cq->maxOffsetInQueue() : 0;
}

bool MessageStore::inMemoryAt(QByteArrayView topic, int queueId, std::int64_t queueOffset) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    ConsumeQueue::Unit u;
    if (!cq || !cq->unit(queueOffset, u))
        return false;
    const std::int64_t memoryWindow
        = m_totalPhysicalMemory * m_config.accessMessageInMemoryMaxRatio / 100;
    return u.commitLogOffset >= m_commitLog.minOffset()
        && m_commitLog.maxOffset() - u.commitLogOffset <= memoryWindow;
}

std::int64_t MessageStore::commitLogOffsetAt(
    QByteArrayView topic, int queueId, std::int64_t queueOffset) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    ConsumeQueue::Unit u;
    if (!cq || !cq->unit(queueOffset, u))
        return -1;
    return u.commitLogOffset;
}

std::int64_t MessageStore::messageStoreTimestamp(
    QByteArrayView topic, int queueId, std::int64_t queueOffset) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    ConsumeQueue::Unit u;
    if (!cq || !cq->unit(queueOffset, u))
        return -1;
    return m_commitLog.storeTimestampAt(u.commitLogOffset, u.size);
}

std::int64_t MessageStore::offsetInQueueByTime(
    QByteArrayView topic, int queueId, std::int64_t timestamp) const
{
    const ConsumeQueue *cq = findConsumeQueue(topic, queueId);
    if (!cq)
        return 0;
    std::int64_t lo = cq->minOffsetInQueue(), hi = cq->maxOffsetInQueue();
    // First offset whose store time >= timestamp; unreadable entries count as "earlier".
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        const std::int64_t ts = messageStoreTimestamp(topic, queueId, mid);
        if (ts < timestamp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

std::int64_t MessageStore::lastStoreTime(QByteArrayView topic, int queueId) const
{
    const std::int64_t max = maxOffsetInQueue(topic, queueId);
    return max > 0 ? messageStoreTimestamp(topic, queueId, max - 1) : -1;
}

std::int64_t MessageStore::earliestMessageTime() const
{
    MappedFilePtr f = m_commitLog.files().firstFile();
    if (!f)
        return -1;
    protocol::MessageRecordView rec;
    const auto d = protocol::decodeRecord(
        f->view(0, std::min<std::int64_t>(f->wrotePosition(), f->fileSize())), rec, false);
    return d.status == protocol::RecordStatus::Ok ? rec.storeTimestamp : -1;
}

std::int64_t MessageStore::earliestMessageTime(QByteArrayView topic, int queueId) const
{
    return messageStoreTimestamp(topic, queueId, minOffsetInQueue(topic, queueId));
}

SelectedRecord MessageStore::lookMessageByOffset(std::int64_t commitLogOffset) const
{
    const SelectedRecord head = m_commitLog.select(commitLogOffset, 8);
    if (!head.isValid())
        return {};
    const std::int32_t size = readI32(head.bytes.data());
    if (readI32(head.bytes.data() + 4) != protocol::kMessageMagic || size <= 8)
        return {};
    return m_commitLog.select(commitLogOffset, size);
}

QueryMessageResult MessageStore::queryMessage(QByteArrayView topic, QByteArrayView key, int maxNum,
    std::int64_t begin, std::int64_t end) const
{
    QueryMessageResult out;
    if (!m_index)
        return out;
    maxNum
        = std::min(maxNum > 0 ? maxNum : m_config.defaultQueryMaxNum, m_config.defaultQueryMaxNum);
    const IndexService::QueryResult q = m_index->query(topic, key, maxNum, begin, end);
    out.indexLastUpdateTimestamp = q.lastUpdateTimestamp;
    out.indexLastUpdatePhyoffset = q.lastUpdatePhyOffset;
    for (std::int64_t phy : q.phyOffsets) {
        SelectedRecord sel = lookMessageByOffset(phy);
        if (!sel.isValid())
            continue;
        // The hash may collide: confirm the topic and the key in the record itself.
        protocol::MessageRecordView rec;
        if (protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok
            || rec.topic != topic)
            continue;
        const QByteArrayView keys = findProperty(rec.properties, kPropertyKeys);
        bool match = findProperty(rec.properties, kPropertyUniqKey) == key;
        for (QByteArrayView rest = keys; !match && !rest.isEmpty();) {
            const qsizetype sp = rest.indexOf(' ');
            match = (sp < 0 ? rest : rest.first(sp)) == key;
            rest = sp < 0 ? QByteArrayView() : rest.sliced(sp + 1);
        }
        if (!match)
            continue;
        out.bufferTotalSize += sel.bytes.size();
        out.messages.push_back(sel.bytes);
        out.holds.push_back(std::move(sel.hold));
    }
    return out;
}

std::int64_t MessageStore::dispatchBehindBytes() const
{
    return m_reput ? m_reput->dispatchBehindBytes() : 0;
}

std::int64_t MessageStore::dispatchedOffset() const
{
    return m_reput ? m_reput->reputFromOffset() : m_commitLog.maxOffset();
}

bool MessageStore::waitForDispatch(int timeoutMs) const
{
    for (int waited = 0; waited <= timeoutMs; ++waited) {
        if (dispatchBehindBytes() == 0)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return dispatchBehindBytes() == 0;
}

StoreStats MessageStore::stats() const
{
    StoreStats s = statsSnapshot();
    std::lock_guard lock(m_statsMutex);
    const std::int64_t t = m_clock();
    if (m_lastStatsTime > 0 && t > m_lastStatsTime) {
        const double secs = static_cast<double>(t - m_lastStatsTime) / 1000.0;
        s.putTps = static_cast<double>(s.putMessageTotal - m_lastPutCount) / secs;
        s.getFoundTps = static_cast<double>(s.getMessageTotal - m_lastGetCount) / secs;
    }
    m_lastStatsTime = t;
    m_lastPutCount = s.putMessageTotal;
    m_lastGetCount = s.getMessageTotal;
    return s;
}

StoreStats MessageStore::statsSnapshot() const
{
    StoreStats s;
    s.putMessageTotal = m_putCount.load();
    s.putBytesTotal = m_putBytes.load();
    s.getMessageTotal = m_getCount.load();
    s.commitLogMinOffset = m_commitLog.minOffset();
    s.commitLogMaxOffset = m_commitLog.maxOffset();
    s.dispatchBehindBytes = dispatchBehindBytes();
    s.flushBacklogBytes = m_commitLog.files().flushBacklog() + m_commitLog.unwrittenBytes();
    s.pendingSyncFlushRequests = m_groupCommit ? m_groupCommit->pendingRequests() : 0;
    s.syncFlushCount = m_groupCommit ? m_groupCommit->flushCount() : 0;
    s.consumeQueueCount = static_cast<int>(consumeQueues().size());
    s.indexFileCount = m_index ? m_index->fileCount() : 0;
    if (m_clean) {
        const DiskMeasure m = m_clean->lastMeasure();
        s.diskRatio = m.commitLogRatio();
        s.consumeQueueDiskRatio = m.consumeQueueRatio();
        s.diskFull = m_clean->isDiskFull();
        s.refuseReason = m_clean->refuseReason();
        s.commitLogFiles = m_clean->fileStatus();
    }
    return s;
}

DiskMeasure MessageStore::diskMeasure() const
{
    return m_clean ? m_clean->lastMeasure() : DiskMeasure {};
}

DiskSpace MessageStore::diskSpace(const QString &path) const
{
    return m_clean
        ? m_clean->diskSpace(path)
        : (m_options.diskSpace ? m_options.diskSpace(path) : defaultDiskSpaceProbe()(path));
}

} // namespace qrocket::storage
