#include "storage/core/commitlog.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"
#include "storage/core/logging.h"
#include "storage/core/multidispatch.h"
#include "storage/core/prefaultservice.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace qrocket::storage {

using protocol::MessageRecordInput;

std::string_view topicQueueKey(QByteArrayView topic, int queueId, char (&buf)[160])
{
    const size_t n = static_cast<size_t>(std::min<qsizetype>(topic.size(), 140));
    std::memcpy(buf, topic.data(), n);
    buf[n] = '-';
    auto r = std::to_chars(buf + n + 1, buf + sizeof(buf), queueId);
    return {buf, static_cast<size_t>(r.ptr - buf)};
}

CommitLog::CommitLog(const MessageStoreConfig &config, std::function<std::int64_t()> clock)
    : m_config(config)
    , m_clock(std::move(clock))
    , m_files(config.commitLogDir(), config.mappedFileSizeCommitLog)
    , m_syncFlush(config.isSyncFlush())
    , m_deferred(config.isSyncFlush()
          && MappedFile::syncWriteMethod() == MappedFile::SyncWriteMethod::Pwrite)
{
    m_files.setPreallocate(
        true, config.warmMapedFileEnable, kCommitLogPrefaultWindow, !config.isSyncFlush());
}

namespace {
MessageRecordInput toInput(const MessageExtBrokerInner &m, std::int32_t crc)
{
    MessageRecordInput in;
    in.topic = m.topic;
    in.queueId = m.queueId;
    in.flag = m.flag;
    in.sysFlag = m.sysFlag;
    in.bornTimestamp = m.bornTimestamp;
    in.bornHost = m.bornHost;
    in.storeHost = m.storeHost;
    in.reconsumeTimes = m.reconsumeTimes;
    in.preparedTransactionOffset = m.preparedTransactionOffset;
    in.body = m.body;
    in.properties = m.properties;
    in.bodyCrc = crc;
    return in;
}

bool consumesQueueOffset(std::int32_t sysFlag)
{
    const std::int32_t tx = sysFlag & protocol::SysFlag::TransactionMask;
    return tx == protocol::SysFlag::TransactionNot || tx == protocol::SysFlag::TransactionCommit;
}

PutMessageResult failure(PutMessageStatus s, QString remark)
{
    PutMessageResult r;
    r.status = s;
    r.remark = std::move(remark);
    return r;
}
} // namespace

PutMessageStatus CommitLog::check(const MessageExtBrokerInner &m, QString &remark) const
{
    if (m.topic.isEmpty() || m.topic.size() > protocol::kMaxTopicLength) {
        remark = QStringLiteral("topic length %1 is not within 1..%2")
                     .arg(m.topic.size())
                     .arg(protocol::kMaxTopicLength);
        return PutMessageStatus::MessageIllegal;
    }
    if (m.properties.size() > protocol::kMaxPropertiesLength) {
        remark = QStringLiteral("properties length %1 exceeds %2")
                     .arg(m.properties.size())
                     .arg(protocol::kMaxPropertiesLength);
        return PutMessageStatus::PropertiesSizeExceeded;
    }
    if (m.body.size() > m_config.maxMessageSize) {
        remark = QStringLiteral("message body %1 bytes exceeds maxMessageSize %2")
                     .arg(m.body.size())
                     .arg(m_config.maxMessageSize);
        return PutMessageStatus::MessageIllegal;
    }
    if (m.queueId < 0) {
        remark = QStringLiteral("queueId %1 is negative").arg(m.queueId);
        return PutMessageStatus::MessageIllegal;
    }
    return PutMessageStatus::PutOk;
}

std::int64_t *CommitLog::queueOffsetSlot(QByteArrayView topic, int queueId, QString &why)
{
    if (m_lastSlot && queueId == m_lastQueueId
        && std::string_view(topic.data(), static_cast<size_t>(topic.size())) == m_lastTopic)
        return m_lastSlot;
    char buf[160];
    const std::string_view key = topicQueueKey(topic, queueId, buf);
    auto it = m_queueOffsets.find(key);
    if (it == m_queueOffsets.end()) {
        // First append to the queue since the start: its consume queue says where it ends.
        const std::int64_t next = m_offsetLoader ? m_offsetLoader(topic, queueId, why) : 0;
        if (next < 0)
            return nullptr;
        it = m_queueOffsets.emplace(std::string(key), next).first;
    }
    m_lastTopic.assign(topic.data(), static_cast<size_t>(topic.size()));
    m_lastQueueId = queueId;
    m_lastSlot = &it->second;
    return m_lastSlot;
}

char *CommitLog::reservePending(std::int64_t size)
{
    const size_t need = m_pendingSize + static_cast<size_t>(size);
    if (m_pending.size() < need)
        m_pending.resize(std::max(need, m_pending.size() * 2));
    return m_pending.data() + m_pendingSize;
}

void CommitLog::addSegment(std::int64_t pos, std::int64_t size, size_t bufOffset,
    std::int64_t endPos, std::int64_t storeTs, bool written)
{
    if (!m_segments.empty()) {
        Segment &last = m_segments.back();
        // Extend the last run: same file, contiguous, both buffered (or both written).
        if (last.file == m_current && last.written == written && last.endPos == pos
            && last.pos + last.size == pos
            && (written || last.bufOffset + static_cast<size_t>(last.size) == bufOffset)) {
            last.size += size;
            last.endPos = endPos;
            last.storeTs = storeTs;
            return;
        }
    }
    m_segments.push_back({m_current, pos, size, bufOffset, endPos, storeTs, written});
}

bool CommitLog::multiDispatchNames(
    const MessageExtBrokerInner &m, std::vector<QByteArrayView> &names, QString &remark) const
{
    if (!m_config.enableMultiDispatch || !mayHaveMultiDispatch(m.properties))
        return true;
    // A delayed, timer or half message is filed in the named queues when it reaches its real
    // topic (the re-put), not while it waits in a system topic.
    if (isMultiDispatchHoldingTopic(m.topic))
        return true;
    if (Status s = parseMultiDispatchNames(m.properties, m.topic, names); !s) {
        remark = s.message();
        return false;
    }
    return true;
}

PutMessageResult CommitLog::appendLocked(const MessageExtBrokerInner &m, std::int32_t crc,
    std::int64_t storeTs, const std::vector<QByteArrayView> *names)
{
    MessageRecordInput in = toInput(m, crc);
    QString why;
    std::int64_t *const nextSlot = queueOffsetSlot(m.topic, m.queueId, why);
    if (!nextSlot)
        return failure(PutMessageStatus::ServiceNotAvailable, why);
    // Multi-dispatch (RocketMQ's MultiDispatch.wrapMultiDispatch): each named queue's next offset,
    // stored in the record as INNER_MULTI_QUEUE_OFFSET; they advance once the record is in.
    QByteArray rewritten;
    std::vector<std::int64_t *> multiSlots;
    std::vector<std::int64_t> multiOffsets;
    if (names && !names->empty() && consumesQueueOffset(m.sysFlag)) {
        multiSlots.reserve(names->size());
        multiOffsets.reserve(names->size());
        for (QByteArrayView name : *names) {
            const int queueId = m_config.enableLmq && isLmqName(name) ? 0 : m.queueId;
            std::int64_t *slot = queueOffsetSlot(name, queueId, why);
            if (!slot)
                return failure(PutMessageStatus::ServiceNotAvailable, why);
            multiSlots.push_back(slot);
            multiOffsets.push_back(*slot);
        }
        rewritten = withMultiQueueOffsets(m.properties, multiOffsets.data(), multiOffsets.size());
        if (rewritten.size() > protocol::kMaxPropertiesLength)
            return failure(PutMessageStatus::PropertiesSizeExceeded,
                QStringLiteral("properties length %1 with INNER_MULTI_QUEUE_OFFSET exceeds %2")
                    .arg(rewritten.size())
                    .arg(protocol::kMaxPropertiesLength));
        in.properties = rewritten;
    }
    const std::int32_t size = protocol::recordSize(in);
    const std::int64_t fileSize = m_files.fileSize();
    if (size + protocol::kBlankRecordSize > fileSize)
        return failure(PutMessageStatus::MessageIllegal,
            QStringLiteral("record of %1 bytes cannot fit in a %2-byte commit-log file")
                .arg(size)
                .arg(fileSize));
    if (!m_current || appendPosition() >= fileSize) {
        // A full current file is the last one (a failed roll below): the next one follows it.
        const bool full = m_current != nullptr;
        auto f = m_files.lastFileForWrite(
            full ? m_current->fileFromOffset() + fileSize : m_files.maxOffset(), full);
        if (!f)
            return failure(PutMessageStatus::CreateMappedFileFailed, f.error().message());
        m_current = *f;
        m_appendPos = m_current->wrotePosition();
    }
    std::int64_t wrote = appendPosition();
    if (size + protocol::kBlankRecordSize > fileSize - wrote) {
        // End this file with a BLANK record (§5.5) and continue in the next one.
        char blank[protocol::kBlankRecordSize];
        writeI32(blank, static_cast<std::int32_t>(fileSize - wrote));
        writeI32(blank + 4, protocol::kBlankMagic);
        if (m_deferred) {
            const size_t at = m_pendingSize;
            std::memcpy(reservePending(sizeof blank), blank, sizeof blank);
            m_pendingSize += sizeof blank;
            // The file's store time stays that of its last record.
            const std::int64_t lastTs = !m_segments.empty() && m_segments.back().file == m_current
                ? m_segments.back().storeTs
                : m_current->storeTimestamp();
            addSegment(wrote, sizeof blank, at, fileSize, lastTs, false);
            m_unwrittenBytes.fetch_add(sizeof blank, std::memory_order_release);
            m_appendPos = fileSize;
            m_appendEnd.store(m_current->fileFromOffset() + fileSize, std::memory_order_release);
        } else {
            std::memcpy(m_current->data() + wrote, blank, sizeof blank);
            m_current->setWrotePosition(fileSize);
        }
        auto f = m_files.lastFileForWrite(m_current->fileFromOffset() + fileSize, true);
        if (!f) // m_current stays, full: the next append tries again
            return failure(PutMessageStatus::CreateMappedFileFailed, f.error().message());
        m_current = *f;
        m_appendPos = 0;
        wrote = 0;
    }
    std::int64_t &next = *nextSlot;
    const bool consumes = consumesQueueOffset(m.sysFlag);
    const std::int64_t queueOffset = consumes ? next : 0;
    const std::int64_t phy = m_current->fileFromOffset() + wrote;
    if (m_deferred && m_unwrittenBytes.load(std::memory_order_relaxed) < kMaxUnwrittenBytes) {
        protocol::encodeRecord(in, queueOffset, phy, storeTs, reservePending(size));
        addSegment(wrote, size, m_pendingSize, wrote + size, storeTs, false);
        m_pendingSize += static_cast<size_t>(size);
        m_unwrittenBytes.fetch_add(size, std::memory_order_release);
    } else if (m_deferred) {
        // The buffer is full (the disk is far behind): pwrite here, under the lock.
        if (m_staging.size() < static_cast<size_t>(size))
            m_staging.resize(static_cast<size_t>(size));
        protocol::encodeRecord(in, queueOffset, phy, storeTs, m_staging.data());
        if (Status s = m_current->writeAt(wrote, m_staging.data(), size); !s)
            return failure(PutMessageStatus::UnknownError, s.message());
        // In the file, but published in order by writePending().
        addSegment(wrote, size, 0, wrote + size, storeTs, true);
    } else {
        protocol::encodeRecord(in, queueOffset, phy, storeTs, m_current->data() + wrote);
    }
    if (m_deferred) {
        m_appendPos = wrote + size;
        m_appendEnd.store(phy + size, std::memory_order_release);
    } else {
        // Position first: whoever sees the new timestamp (acquire) also sees the record's bytes.
        m_current->setWrotePosition(wrote + size);
        m_current->setStoreTimestamp(storeTs);
    }
    if (consumes)
        ++next;
    // Assigned, not incremented: a name listed twice gets one offset (as RocketMQ's put(key, ++o)).
    for (size_t i = 0; i < multiSlots.size(); ++i)
        *multiSlots[i] = multiOffsets[i] + 1;
    PutMessageResult r;
    r.status = PutMessageStatus::PutOk;
    r.wroteOffset = phy;
    r.wroteBytes = size;
    r.queueOffset = queueOffset;
    r.storeTimestamp = storeTs;
    r.msgNum = 1;
    return r;
}

void CommitLog::writePending()
{
    if (!m_deferred)
        return;
    std::lock_guard writeLock(m_writeMutex);
    {
        std::lock_guard lock(m_putMutex);
        if (m_segments.empty())
            return;
        m_writing.swap(m_pending);
        m_writingSegments.swap(m_segments);
        m_pendingSize = 0;
    }
    std::int64_t bytes = 0;
    for (const Segment &seg : m_writingSegments) {
        if (!seg.written) {
            const char *src = m_writing.data() + seg.bufOffset;
            if (Status s = seg.file->writeAt(seg.pos, src, seg.size); !s) {
                // The file is preallocated: the mapping can take the bytes without SIGBUS.
                std::memcpy(seg.file->data() + seg.pos, src, static_cast<size_t>(seg.size));
                if (!m_writeFallback)
                    qCWarning(lcStore).noquote()
                        << s.message() << "- writing the commit log through its mapping until"
                        << "pwrite works again; the flush decides what is durable";
                m_writeFallback = true;
            } else if (m_writeFallback) {
                qCInfo(lcStore) << "commit-log pwrite works again";
                m_writeFallback = false;
            }
        }
        // Position first: whoever sees the new timestamp (acquire) also sees the record's bytes.
        seg.file->setWrotePosition(seg.endPos);
        seg.file->setStoreTimestamp(seg.storeTs);
        if (!seg.written)
            bytes += seg.size;
    }
    m_writingSegments.clear();
    m_unwrittenBytes.fetch_sub(bytes, std::memory_order_release);
    if (m_appendListener)
        m_appendListener();
}

void CommitLog::noteWriteOutcome(const PutMessageResult &r)
{
    const bool ioFailure = r.status == PutMessageStatus::CreateMappedFileFailed
        || r.status == PutMessageStatus::UnknownError;
    if (ioFailure) {
        if (m_failedWrites++ == 0)
            qCCritical(lcStore).noquote()
                << "commit log cannot be written (disk full?):" << r.remark << "- puts fail with"
                << putMessageStatusName(r.status)
                << "until it can; nothing was acknowledged for them";
    } else if (m_failedWrites > 0 && r.isOk()) {
        qCInfo(lcStore).noquote() << "commit log writable again after" << m_failedWrites
                                  << "failed puts";
        m_failedWrites = 0;
    }
}

bool CommitLog::isOsPageCacheBusy(QString &remark) const
{
    const std::int64_t begin = m_beginTimeInLock.load(std::memory_order_relaxed);
    if (begin == 0)
        return false;
    const std::int64_t held = m_clock() - begin;
    // Like RocketMQ, a difference of hours means a clock jump, not a stall.
    if (held <= m_config.osPageCacheBusyTimeOutMills || held >= 10000000)
        return false;
    remark = QStringLiteral("the commit-log put lock has been held for %1 ms "
                            "(osPageCacheBusyTimeOutMills %2)")
                 .arg(held)
                 .arg(m_config.osPageCacheBusyTimeOutMills);
    return true;
}

CommitLog::TEST_PutLockHold CommitLog::TEST_holdPutLock()
{
    std::unique_lock lock(m_putMutex);
    m_beginTimeInLock.store(m_clock(), std::memory_order_relaxed);
    return {std::move(lock), &m_beginTimeInLock};
}

PutMessageResult CommitLog::append(const MessageExtBrokerInner &m)
{
    QString remark;
    if (const PutMessageStatus s = check(m, remark); s != PutMessageStatus::PutOk)
        return failure(s, remark);
    if (isOsPageCacheBusy(remark))
        return failure(PutMessageStatus::OsPageCacheBusy, remark);
    std::vector<QByteArrayView> names; // allocates only for a message that names queues
    if (!multiDispatchNames(m, names, remark))
        return failure(PutMessageStatus::MessageIllegal, remark);
    const std::int32_t crc = crc32Masked(m.body); // outside the lock
    PutMessageResult r;
    {
        std::lock_guard lock(m_putMutex);
        if (!m_writable)
            return failure(PutMessageStatus::ServiceNotAvailable, m_notWritableReason);
        const std::int64_t storeTs = m_clock();
        m_beginTimeInLock.store(storeTs, std::memory_order_relaxed);
        r = appendLocked(m, crc, storeTs, names.empty() ? nullptr : &names);
        noteWriteOutcome(r);
        m_beginTimeInLock.store(0, std::memory_order_relaxed);
    }
    if (r.isOk() && m_appendListener && !m_deferred)
        m_appendListener();
    return r;
}

PutMessageResult CommitLog::appendBatch(const std::vector<MessageExtBrokerInner> &msgs)
{
    if (msgs.empty())
        return failure(PutMessageStatus::MessageIllegal, QStringLiteral("empty batch"));
    QString remark;
    std::vector<std::int32_t> crcs;
    crcs.reserve(msgs.size());
    // Per message: the queues it names for multi-dispatch (empty for most).
    std::vector<std::vector<QByteArrayView>> names;
    for (const auto &m : msgs) {
        std::vector<QByteArrayView> mine;
        if (!multiDispatchNames(m, mine, remark))
            return failure(PutMessageStatus::MessageIllegal, remark);
        if (!mine.empty()) {
            names.resize(msgs.size());
            names[static_cast<size_t>(&m - msgs.data())] = std::move(mine);
        }
        if (const PutMessageStatus s = check(m, remark); s != PutMessageStatus::PutOk)
            return failure(s, remark);
        if (m.topic != msgs.front().topic || m.queueId != msgs.front().queueId)
            return failure(PutMessageStatus::MessageIllegal,
                QStringLiteral("batch messages must share topic and queue"));
        if ((m.sysFlag & protocol::SysFlag::TransactionMask) != protocol::SysFlag::TransactionNot)
            return failure(PutMessageStatus::MessageIllegal,
                QStringLiteral("batch messages cannot be transactional"));
        crcs.push_back(crc32Masked(m.body));
    }
    if (isOsPageCacheBusy(remark))
        return failure(PutMessageStatus::OsPageCacheBusy, remark);
    PutMessageResult total;
    {
        std::lock_guard lock(m_putMutex);
        if (!m_writable)
            return failure(PutMessageStatus::ServiceNotAvailable, m_notWritableReason);
        const std::int64_t storeTs = m_clock();
        m_beginTimeInLock.store(storeTs, std::memory_order_relaxed);
        // Cleared on every way out of this block.
        struct ClearBegin
        {
            std::atomic<std::int64_t> &begin;
            ~ClearBegin() { begin.store(0, std::memory_order_relaxed); }
        } clearBegin {m_beginTimeInLock};
        total.batchOffsets.reserve(msgs.size());
        for (size_t i = 0; i < msgs.size(); ++i) {
            PutMessageResult r = appendLocked(msgs[i], crcs[i], storeTs,
                i < names.size() && !names[i].empty() ? &names[i] : nullptr);
            noteWriteOutcome(r);
            if (!r.isOk()) {
                if (i == 0)
                    return r;
                r.remark = QStringLiteral("batch stopped after %1 of %2 messages: %3")
                               .arg(i)
                               .arg(msgs.size())
                               .arg(r.remark);
                total.status = r.status;
                total.remark = r.remark;
                break;
            }
            if (i == 0) {
                total = r;
                total.batchOffsets.reserve(msgs.size());
            } else {
                total.wroteBytes += r.wroteBytes;
                total.msgNum++;
            }
            total.batchOffsets.push_back(r.wroteOffset);
        }
    }
    if (m_appendListener && !m_deferred)
        m_appendListener();
    return total;
}

Status CommitLog::appendData(std::int64_t startOffset, QByteArrayView data)
{
    {
        std::lock_guard lock(m_putMutex);
        if (!m_writable)
            return Status::ioError(m_notWritableReason);
        if (m_deferred && m_unwrittenBytes.load(std::memory_order_acquire) > 0)
            return Status::invalidArgument(
                QStringLiteral("commit log holds unwritten appends: it is not a slave's"));
        const bool empty = m_files.isEmpty();
        if (!empty && startOffset != m_files.maxOffset())
            return Status::invalidArgument(
                QStringLiteral("replicated data starts at %1, the commit log ends at %2")
                    .arg(startOffset)
                    .arg(m_files.maxOffset()));
        if (startOffset < 0)
            return Status::invalidArgument(
                QStringLiteral("replicated data at a negative offset %1").arg(startOffset));
        const std::int64_t fileSize = m_files.fileSize();
        std::int64_t at = startOffset;
        while (!data.isEmpty()) {
            if (!m_current || m_current->isFull()
                || m_current->fileFromOffset() + m_current->wrotePosition() != at) {
                auto f = m_files.lastFileForWrite(at);
                if (!f)
                    return f.error();
                m_current = *f;
            }
            const std::int64_t pos = at - m_current->fileFromOffset();
            if (pos != m_current->wrotePosition() || pos < 0 || pos >= fileSize)
                return Status::invalidArgument(
                    QStringLiteral("replicated data at %1 does not continue file %2 (at %3)")
                        .arg(at)
                        .arg(m_current->fileName())
                        .arg(m_current->wrotePosition()));
            const std::int64_t n = std::min<std::int64_t>(fileSize - pos, data.size());
            char *dst = m_current->data() + pos;
            // The first 4 bytes (the first record's TOTALSIZE) last: a process killed in the
            // middle leaves a zero size there, which recovery takes as the end, instead of a
            // record whose properties are torn (the body CRC does not cover them).
            const size_t head = std::min<size_t>(4, static_cast<size_t>(n));
            std::memcpy(dst + head, data.data() + head, static_cast<size_t>(n) - head);
            std::atomic_signal_fence(std::memory_order_seq_cst);
            std::memcpy(dst, data.data(), head);
            m_current->setWrotePosition(pos + n);
            data = data.sliced(n);
            at += n;
        }
    }
    if (m_appendListener)
        m_appendListener();
    return {};
}

SelectedRecord CommitLog::select(std::int64_t offset, std::int32_t size) const
{
    MappedFilePtr f = m_files.findFile(offset);
    if (!f || size <= 0)
        return {};
    const QByteArrayView v = f->view(offset - f->fileFromOffset(), size);
    if (v.isEmpty())
        return {};
    return {v, std::move(f)};
}

SelectedRecord CommitLog::selectFrom(std::int64_t offset) const
{
    MappedFilePtr f = m_files.findFile(offset);
    if (!f)
        return {};
    const std::int64_t pos = offset - f->fileFromOffset();
    const std::int64_t wrote = f->wrotePosition();
    if (pos >= wrote)
        return {};
    return {QByteArrayView(f->data() + pos, wrote - pos), std::move(f)};
}

std::int64_t CommitLog::rollNextFile(std::int64_t offset) const
{
    const std::int64_t size = m_files.fileSize();
    return offset + size - offset % size;
}

std::int64_t CommitLog::storeTimestampAt(std::int64_t offset, std::int32_t size) const
{
    const SelectedRecord r = select(offset, size);
    if (!r.isValid() || r.bytes.size() < 64)
        return -1;
    const std::int32_t sysFlag = readI32(r.bytes.data() + 36);
    const int bornHostLen = (sysFlag & protocol::SysFlag::BornHostV6) ? 20 : 8;
    return readI64(r.bytes.data() + 48 + bornHostLen);
}

bool CommitLog::removeQueueOffsetIf(
    QByteArrayView topic, int queueId, std::int64_t expectedNext, const PutLock *held)
{
    char buf[160];
    PutLock lock = held ? PutLock() : lockPuts();
    auto it = m_queueOffsets.find(topicQueueKey(topic, queueId, buf));
    if (it == m_queueOffsets.end())
        return true;
    if (it->second != expectedNext)
        return false;
    m_lastSlot = nullptr;
    m_queueOffsets.erase(it);
    return true;
}

void CommitLog::removeTopicQueueOffsets(QByteArrayView topic, const PutLock *held)
{
    const std::string_view t(topic.data(), static_cast<size_t>(topic.size()));
    PutLock lock = held ? PutLock() : lockPuts();
    m_lastSlot = nullptr;
    std::erase_if(m_queueOffsets, [t](const auto &entry) {
        // "topic-queueId": the topic itself may contain '-', the queue id is all digits.
        const std::string &key = entry.first;
        if (key.size() <= t.size() + 1 || key.compare(0, t.size(), t) != 0 || key[t.size()] != '-')
            return false;
        return std::all_of(key.begin() + static_cast<std::ptrdiff_t>(t.size()) + 1, key.end(),
            [](char c) { return c >= '0' && c <= '9'; });
    });
}

void CommitLog::setWritable(bool writable, QString reasonIfNot)
{
    std::lock_guard lock(m_putMutex);
    m_writable = writable;
    m_notWritableReason = writable ? QString() : std::move(reasonIfNot);
}

bool CommitLog::isWritable() const
{
    std::lock_guard lock(m_putMutex);
    return m_writable;
}

} // namespace qrocket::storage
