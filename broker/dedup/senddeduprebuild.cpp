#include "broker/dedup/senddeduprebuild.h"

#include "broker/managers/topicvalidator.h"
#include "clientlib/protocol/messagecodec.h"
#include "clientlib/protocol/messageproperties.h"
#include "storage/messagestore.h"

#include <charconv>

namespace qrocket::broker {

namespace mc = protocol::MessageConst;

namespace {

/// Store time of the first record at `fileStart`, or -1.
std::int64_t firstRecordTime(const storage::MessageStore &store, std::int64_t fileStart)
{
    const storage::SelectedRecord sel = store.commitLogData(fileStart);
    if (!sel.isValid())
        return -1;
    protocol::MessageRecordView rec;
    if (protocol::decodeRecord(sel.bytes, rec, false).status != protocol::RecordStatus::Ok)
        return -1;
    return rec.storeTimestamp;
}

int parseQueueId(QByteArrayView text, int fallback)
{
    int v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() ? v : fallback;
}

} // namespace

bool isDedupTopic(QByteArrayView topic)
{
    return !topic.isEmpty() && !topics::isRetryTopic(topic) && !topics::isDlqTopic(topic);
}

QByteArray commitDedupTopic(QByteArrayView topic)
{
    return QByteArrayLiteral("commit:") + topic.toByteArray();
}

SendDedupRebuild rebuildSendDedup(SendDedupTable &table, const storage::MessageStore &store,
    std::int64_t nowMs, const SendDedupTable::Limits &limits)
{
    SendDedupRebuild report;
    const std::int64_t fileSize = store.config().mappedFileSizeCommitLog;
    const std::int64_t minOffset = store.commitLogMinOffset();
    const std::int64_t maxOffset = store.commitLogMaxOffset();
    const std::int64_t windowStart = nowMs - limits.windowMs;
    // The last file whose first record is older than the window's start (files are few: a
    // linear walk reads one record per file).
    std::int64_t start = minOffset - minOffset % fileSize;
    for (std::int64_t f = start; f < maxOffset; f += fileSize) {
        const std::int64_t t = firstRecordTime(store, std::max(f, minOffset));
        if (t >= 0 && t > windowStart)
            break;
        start = f;
    }
    std::int64_t offset = std::max(start, minOffset);
    report.fromOffset = offset;
    while (offset < maxOffset) {
        const storage::SelectedRecord sel = store.commitLogData(offset);
        if (!sel.isValid())
            break;
        qsizetype pos = 0;
        bool nextFile = false;
        while (pos < sel.bytes.size()) {
            protocol::MessageRecordView rec;
            const protocol::RecordDecodeResult d
                = protocol::decodeRecord(sel.bytes.sliced(pos), rec, false);
            if (d.status == protocol::RecordStatus::Blank) {
                nextFile = true;
                break;
            }
            if (d.status != protocol::RecordStatus::Ok || d.size <= 0)
                break;
            pos += d.size;
            ++report.scannedRecords;
            if (rec.storeTimestamp < windowStart)
                continue;
            const QByteArrayView key
                = protocol::findProperty(rec.properties, mc::UniqClientMessageIdKeyIdx);
            if (key.isEmpty())
                continue;
            const QByteArrayView realTopic = protocol::findProperty(rec.properties, mc::RealTopic);
            const QByteArrayView topic = realTopic.isEmpty() ? rec.topic : realTopic;
            if (!isDedupTopic(topic))
                continue;
            DedupPlacement p;
            p.storeHost = rec.storeHost;
            p.commitLogOffset = rec.physicalOffset;
            p.queueId = parseQueueId(
                protocol::findProperty(rec.properties, mc::RealQueueId), rec.queueId);
            p.queueOffset = rec.queueOffset;
            if (table.record(topic, key, p, rec.storeTimestamp, limits))
                ++report.keys;
            if ((rec.sysFlag & protocol::SysFlag::TransactionMask)
                    == protocol::SysFlag::TransactionCommit
                && table.record(commitDedupTopic(topic), key, p, rec.storeTimestamp, limits))
                ++report.keys;
        }
        if (nextFile)
            offset = offset - offset % fileSize + fileSize;
        else if (pos == 0)
            break; // nothing readable here: the end of what was stored
        else
            offset += pos;
    }
    report.toOffset = offset;
    return report;
}

} // namespace qrocket::broker
