#include "storage/core/consumequeue.h"

#include "clientlib/common/byteorder.h"
#include "storage/core/logging.h"

#include <cstring>

namespace qrocket::storage {

namespace {
bool validUnit(const ConsumeQueue::Unit &u)
{
    return u.commitLogOffset >= 0 && u.size > 0;
}
bool allZero(const char *p, std::int64_t n)
{
    // Eight bytes at a time: recovery checks the tail of every queue's last file (at 200,000
    // queues a byte loop here was a tenth of the start's CPU).
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        if (w != 0)
            return false;
    }
    for (; i < n; ++i)
        if (p[i] != 0)
            return false;
    return true;
}
} // namespace

ConsumeQueue::ConsumeQueue(QByteArray topic, int queueId, const QString &rootDir, int fileSize,
    MappingCachePtr cache, bool sparse)
    : m_topic(std::move(topic))
    , m_queueId(queueId)
    , m_queue(rootDir + u'/' + QString::fromUtf8(m_topic) + u'/' + QString::number(queueId),
          fileSize, std::move(cache))
{
    m_queue.setSparse(sparse);
}

ConsumeQueue::Unit ConsumeQueue::decodeUnit(const char *p)
{
    return {readI64(p), readI32(p + 8), readI64(p + 12)};
}

ConsumeQueue::RecoverResult ConsumeQueue::recover()
{
    RecoverResult r;
    m_recoveredFirstPos = m_recoveredFirstPhy = -1;
    const auto all = m_queue.files();
    if (all.empty())
        return r;
    size_t index = all.size() > 3 ? all.size() - 3 : 0;
    std::int64_t validEnd = all[index]->fileFromOffset();
    std::int64_t maxPhy = -1;
    bool tailZero = false; // the bytes after validEnd are zero already
    for (; index < all.size(); ++index) {
        const auto &f = all[index];
        // A file nobody has mapped is read with pread (a start-up over 100,000s of queues then
        // maps none of them); otherwise, or when that fails, through its mapping.
        QByteArray copy;
        const MappedFile::Pin p = f->readUnmapped(copy) ? MappedFile::Pin() : f->pin();
        const char *data = p ? p.data() : copy.constData();
        if (!p && copy.isNull()) {
            // Never truncate what could not be read (no descriptor left, say): keep the files
            // and let reput refile from the last unit seen.
            r.detail = QStringLiteral("%1: cannot map %2").arg(m_queue.dir(), f->fileName());
            qCWarning(lcStoreRecovery).noquote() << "consume queue not checked:" << r.detail;
            m_maxPhysicOffset = maxPhy;
            return r;
        }
        const std::int64_t size = f->fileSize();
        std::int64_t pos = 0;
        for (; pos + kUnitSize <= size; pos += kUnitSize) {
            const Unit u = decodeUnit(data + pos);
            if (!validUnit(u))
                break;
            if (!ConsumeQueue::isPlaceholder(u)) {
                maxPhy = u.commitLogOffset + u.size;
                if (index == 0 && m_recoveredFirstPos < 0) {
                    m_recoveredFirstPos = pos;
                    m_recoveredFirstPhy = u.commitLogOffset;
                }
            }
            ++r.units;
        }
        validEnd = f->fileFromOffset() + pos;
        if (pos < size) {
            const bool isLast = index + 1 == all.size();
            const bool tailClean = allZero(data + pos, f->dataEnd(p, pos) - pos);
            tailZero = tailClean && isLast;
            if (!tailClean || !isLast || pos == 0) {
                r.damaged = true;
                r.detail = QStringLiteral("%1: invalid unit at index %2 (file %3 position %4)%5")
                               .arg(QString::fromUtf8(m_topic) + u'/' + QString::number(m_queueId))
                               .arg(validEnd / kUnitSize)
                               .arg(f->fileName())
                               .arg(pos)
                               .arg(isLast ? QString() : QStringLiteral("; later files discarded"));
                for (size_t j = index; j < all.size(); ++j) {
                    const auto &g = all[j];
                    const MappedFile::Pin gp = g->pin();
                    const std::int64_t from = j == index ? pos : 0;
                    for (std::int64_t k = from; gp && k < g->fileSize(); ++k)
                        r.discardedBytes += gp.data()[k] != 0 ? 1 : 0;
                }
            }
            break;
        }
    }
    m_queue.truncateDirty(validEnd, tailZero);
    if (m_queue.isEmpty() && r.damaged)
        qCWarning(lcStoreRecovery).noquote()
            << "consume queue" << m_queue.dir() << "emptied by recovery";
    m_queue.setFlushedWhere(validEnd);
    m_maxPhysicOffset = maxPhy;
    if (auto first = m_queue.firstFile(); first && m_minLogicOffset < first->fileFromOffset())
        m_minLogicOffset = first->fileFromOffset();
    if (r.damaged)
        qCWarning(lcStoreRecovery).noquote()
            << "consume queue damaged:" << r.detail << "- kept" << r.units << "units, discarded"
            << r.discardedBytes << "non-zero bytes";
    return r;
}

void ConsumeQueue::fillPlaceholders(char *base, std::int64_t fromPos, std::int64_t toPos)
{
    for (std::int64_t p = fromPos; p + kUnitSize <= toPos; p += kUnitSize) {
        char *d = base + p;
        writeI64(d, 0);
        writeI32(d + 8, 0x7FFFFFFF);
        writeI64(d + 12, 0);
    }
}

Status ConsumeQueue::putUnit(
    std::int64_t commitLogOffset, std::int32_t size, std::int64_t tagsCode, std::int64_t cqOffset)
{
    if (commitLogOffset + size <= m_maxPhysicOffset.load())
        return {}; // already dispatched (re-dispatch after recovery)
    const std::int64_t expected = cqOffset * kUnitSize;
    const bool wasEmpty = m_queue.isEmpty();
    auto fr = m_queue.lastFileForWrite(expected);
    if (!fr)
        return fr.error();
    MappedFilePtr f = *fr;
    MappedFile::Pin pin = f->pin();
    if (!pin)
        return Status::ioError(QStringLiteral("cannot map %1").arg(f->path()));
    std::int64_t current = f->fileFromOffset() + f->wrotePosition();
    if (wasEmpty) {
        m_recoveredFirstPos = m_recoveredFirstPhy = -1;
        if (Status st = f->reserve(pin, expected - f->fileFromOffset()); !st)
            return st;
        fillPlaceholders(pin.data(), 0, expected - f->fileFromOffset());
        f->setWrotePosition(expected - f->fileFromOffset());
        m_minLogicOffset = expected;
        current = expected;
    }
    if (expected < current)
        return {}; // this index is already written
    if (expected > current) {
        qCWarning(lcStore).noquote()
            << "consume queue" << m_queue.dir() << "gap: expected unit" << cqOffset
            << "but queue ends at" << current / kUnitSize << "; filling placeholders";
        while (current < expected) {
            auto g = m_queue.lastFileForWrite(current);
            if (!g)
                return g.error();
            f = *g;
            pin = f->pin();
            if (!pin)
                return Status::ioError(QStringLiteral("cannot map %1").arg(f->path()));
            const std::int64_t end = std::min(expected, f->fileFromOffset() + f->fileSize());
            if (Status st = f->reserve(pin, end - f->fileFromOffset()); !st)
                return st;
            fillPlaceholders(pin.data(), current - f->fileFromOffset(), end - f->fileFromOffset());
            f->setWrotePosition(end - f->fileFromOffset());
            current = end;
        }
        auto g = m_queue.lastFileForWrite(current);
        if (!g)
            return g.error();
        f = *g;
        pin = f->pin();
        if (!pin)
            return Status::ioError(QStringLiteral("cannot map %1").arg(f->path()));
    }
    const std::int64_t pos = expected - f->fileFromOffset();
    if (Status st = f->reserve(pin, pos + kUnitSize); !st)
        return st;
    char *d = pin.data() + pos;
    writeI64(d, commitLogOffset);
    writeI32(d + 8, size);
    writeI64(d + 12, tagsCode);
    m_maxPhysicOffset.store(commitLogOffset + size);
    f->setWrotePosition(pos + kUnitSize);
    return {};
}

bool ConsumeQueue::unit(std::int64_t index, Unit &out) const
{
    const std::int64_t off = index * kUnitSize;
    MappedFilePtr f = m_queue.findFile(off);
    if (!f)
        return false;
    const std::int64_t pos = off - f->fileFromOffset();
    if (pos + kUnitSize > f->wrotePosition())
        return false;
    const MappedFile::Pin p = f->pin();
    if (!p)
        return false;
    out = decodeUnit(p.data() + pos);
    return true;
}

ConsumeQueue::IndexBuffer ConsumeQueue::indexBuffer(std::int64_t index) const
{
    const std::int64_t off = index * kUnitSize;
    if (off < m_minLogicOffset.load())
        return {};
    MappedFilePtr f = m_queue.findFile(off);
    if (!f)
        return {};
    const std::int64_t pos = off - f->fileFromOffset();
    const std::int64_t wrote = f->wrotePosition();
    if (pos >= wrote)
        return {};
    MappedFile::Pin p = f->pin();
    if (!p)
        return {};
    return {QByteArrayView(p.data() + pos, wrote - pos), f, std::move(p)};
}

std::int64_t ConsumeQueue::rollNextFile(std::int64_t index) const
{
    const std::int64_t unitsPerFile = m_queue.fileSize() / kUnitSize;
    return index + unitsPerFile - index % unitsPerFile;
}

void ConsumeQueue::truncateDirtyLogicFiles(std::int64_t phyOffset)
{
    m_recoveredFirstPos = m_recoveredFirstPhy = -1;
    for (;;) {
        MappedFilePtr f = m_queue.lastFile();
        if (!f) {
            m_maxPhysicOffset = -1;
            return;
        }
        const std::int64_t wrote = f->wrotePosition();
        const MappedFile::Pin p = f->pin();
        if (!p) {
            qCWarning(lcStoreRecovery).noquote() << "cannot map" << f->path() << "to truncate it";
            return;
        }
        std::int64_t pos = 0;
        std::int64_t maxPhy = -1;
        for (; pos + kUnitSize <= wrote; pos += kUnitSize) {
            const Unit u = decodeUnit(p.data() + pos);
            if (!ConsumeQueue::isPlaceholder(u) && u.commitLogOffset >= phyOffset)
                break;
            if (!ConsumeQueue::isPlaceholder(u))
                maxPhy = u.commitLogOffset + u.size;
        }
        if (pos == 0 || maxPhy < 0) {
            m_queue.truncateDirty(
                f->fileFromOffset()); // the whole file goes; look at the previous one
            continue;
        }
        if (pos < wrote)
            m_queue.truncateDirty(f->fileFromOffset() + pos);
        m_maxPhysicOffset = maxPhy;
        return;
    }
}

void ConsumeQueue::correctMinOffsetAfterRecovery(std::int64_t commitLogMinOffset)
{
    MappedFilePtr f = m_queue.firstFile();
    if (f && m_recoveredFirstPos >= 0 && m_recoveredFirstPhy >= commitLogMinOffset
        && m_recoveredFirstPos + kUnitSize <= f->wrotePosition()) {
        m_minLogicOffset = f->fileFromOffset() + m_recoveredFirstPos;
        return;
    }
    correctMinOffset(commitLogMinOffset);
}

void ConsumeQueue::correctMinOffset(std::int64_t commitLogMinOffset)
{
    MappedFilePtr f = m_queue.firstFile();
    if (!f)
        return;
    const std::int64_t wrote = f->wrotePosition();
    const MappedFile::Pin p = f->pin();
    if (!p)
        return;
    for (std::int64_t pos = 0; pos + kUnitSize <= wrote; pos += kUnitSize) {
        const Unit u = decodeUnit(p.data() + pos);
        if (u.commitLogOffset >= commitLogMinOffset && !ConsumeQueue::isPlaceholder(u)) {
            m_minLogicOffset = f->fileFromOffset() + pos;
            return;
        }
    }
    m_minLogicOffset = f->fileFromOffset() + wrote;
}

int ConsumeQueue::deleteExpiredFiles(
    std::int64_t commitLogMinOffset, const std::function<void()> &beforeCorrection)
{
    int deleted = 0;
    m_recoveredFirstPos = m_recoveredFirstPhy = -1;
    const auto all = m_queue.files();
    for (size_t i = 0; i + 1 < all.size(); ++i) {
        const auto &f = all[i];
        const std::int64_t wrote = f->wrotePosition();
        if (wrote < kUnitSize)
            break;
        const MappedFile::Pin p = f->pin();
        if (!p)
            break;
        const Unit last = decodeUnit(p.data() + wrote - kUnitSize);
        if (last.commitLogOffset + last.size > commitLogMinOffset)
            break;
        if (!m_queue.removeFirst(f))
            break;
        qCInfo(lcStoreClean).noquote()
            << "deleted consume queue file" << f->path()
            << "- its last unit ends below commit-log min offset" << commitLogMinOffset;
        ++deleted;
    }
    if (deleted > 0 && beforeCorrection)
        beforeCorrection();
    correctMinOffset(commitLogMinOffset);
    return deleted;
}

void ConsumeQueue::destroy()
{
    m_queue.destroy();
    m_recoveredFirstPos = m_recoveredFirstPhy = -1;
    m_maxPhysicOffset = -1;
    m_minLogicOffset = 0;
}

} // namespace qrocket::storage
