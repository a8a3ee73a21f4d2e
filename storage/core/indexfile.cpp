#include "storage/core/indexfile.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"

#include <limits>

namespace qrocket::storage {

namespace {
constexpr int kBeginTs = 0, kEndTs = 8, kBeginPhy = 16, kEndPhy = 24, kSlotCount = 32,
              kIndexCount = 36;
} // namespace

IndexFile::IndexFile(MappedFilePtr f, int slotNum, int maxIndexNum)
    : m_file(std::move(f)), m_slots(slotNum), m_maxIndexNum(maxIndexNum)
{
    m_file->setWrotePosition(m_file->fileSize());
}

Result<std::unique_ptr<IndexFile>> IndexFile::create(const QString &path, int slotNum,
    int maxIndexNum, std::int64_t beginPhyOffset, std::int64_t beginTimestamp)
{
    auto f = MappedFile::open(path, 0, fileSizeFor(slotNum, maxIndexNum), true);
    if (!f)
        return f.error();
    std::unique_ptr<IndexFile> idx(new IndexFile(*f, slotNum, maxIndexNum));
    char *h = (*f)->data();
    writeI64(h + kBeginTs, beginTimestamp);
    writeI64(h + kEndTs, beginTimestamp);
    writeI64(h + kBeginPhy, beginPhyOffset);
    writeI64(h + kEndPhy, beginPhyOffset);
    writeI32(h + kSlotCount, 0);
    writeI32(h + kIndexCount, 1);
    (*f)->setFlushedPosition(0);
    return idx;
}

Result<std::unique_ptr<IndexFile>> IndexFile::open(
    const QString &path, int slotNum, int maxIndexNum)
{
    auto f = MappedFile::open(path, 0, fileSizeFor(slotNum, maxIndexNum), false);
    if (!f)
        return f.error();
    if ((*f)->wasShort())
        return Status::corruption(
            QStringLiteral("index file %1 is %2 bytes short").arg(path).arg((*f)->wasShort()));
    std::unique_ptr<IndexFile> idx(new IndexFile(*f, slotNum, maxIndexNum));
    const std::int32_t count = idx->indexCount();
    if (count < 0 || count > maxIndexNum)
        return Status::corruption(
            QStringLiteral("index file %1: indexCount %2 out of range").arg(path).arg(count));
    (*f)->setFlushedPosition((*f)->fileSize());
    return idx;
}

std::int32_t IndexFile::keyHash(QByteArrayView key)
{
    const std::int32_t h = javaStringHash(key);
    if (h == std::numeric_limits<std::int32_t>::min())
        return 0;
    return h < 0 ? -h : h;
}

char *IndexFile::entry(std::int64_t n) const
{
    return m_file->data() + kHeaderSize + static_cast<std::int64_t>(m_slots) * 4 + n * kEntrySize;
}

std::int64_t IndexFile::beginTimestamp() const
{
    return readI64(m_file->data() + kBeginTs);
}
std::int64_t IndexFile::endTimestamp() const
{
    return readI64(m_file->data() + kEndTs);
}
std::int64_t IndexFile::beginPhyOffset() const
{
    return readI64(m_file->data() + kBeginPhy);
}
std::int64_t IndexFile::endPhyOffset() const
{
    return readI64(m_file->data() + kEndPhy);
}
std::int32_t IndexFile::hashSlotCount() const
{
    return readI32(m_file->data() + kSlotCount);
}
std::int32_t IndexFile::indexCount() const
{
    return readI32(m_file->data() + kIndexCount);
}

bool IndexFile::putKey(QByteArrayView key, std::int64_t phyOffset, std::int64_t storeTimestamp)
{
    const std::int32_t count = indexCount();
    if (count >= m_maxIndexNum)
        return false;
    const std::int32_t hash = keyHash(key);
    char *slot = m_file->data() + kHeaderSize + static_cast<std::int64_t>(hash % m_slots) * 4;
    std::int32_t slotValue = readI32(slot);
    if (slotValue <= 0 || slotValue > count)
        slotValue = 0;
    char *h = m_file->data();
    std::int64_t begin = beginTimestamp();
    if (count <= 1) {
        writeI64(h + kBeginPhy, phyOffset);
        writeI64(h + kBeginTs, storeTimestamp);
        begin = storeTimestamp;
    }
    std::int64_t diff = begin > 0 ? (storeTimestamp - begin) / 1000 : 0;
    diff = std::clamp<std::int64_t>(diff, 0, std::numeric_limits<std::int32_t>::max());
    char *e = entry(count);
    writeI32(e, hash);
    writeI64(e + 4, phyOffset);
    writeI32(e + 12, static_cast<std::int32_t>(diff));
    writeI32(e + 16, slotValue);
    writeI32(slot, count);
    if (slotValue == 0)
        writeI32(h + kSlotCount, hashSlotCount() + 1);
    writeI64(h + kEndPhy, phyOffset);
    writeI64(h + kEndTs, storeTimestamp);
    writeI32(h + kIndexCount, count + 1);
    return true;
}

bool IndexFile::isTimeMatched(std::int64_t begin, std::int64_t end) const
{
    const std::int64_t b = beginTimestamp(), e = endTimestamp();
    return (begin < b && end > e) || (begin >= b && begin <= e) || (end >= b && end <= e);
}

void IndexFile::selectPhyOffsets(std::vector<std::int64_t> &out, QByteArrayView key, int maxNum,
    std::int64_t begin, std::int64_t end) const
{
    const std::int32_t hash = keyHash(key);
    const std::int32_t count = indexCount();
    const std::int32_t slotValue
        = readI32(m_file->data() + kHeaderSize + static_cast<std::int64_t>(hash % m_slots) * 4);
    if (slotValue <= 0 || slotValue > count || count <= 1)
        return;
    const std::int64_t beginTs = beginTimestamp();
    std::int32_t next = slotValue;
    for (int guard = 0; guard < m_maxIndexNum && static_cast<int>(out.size()) < maxNum; ++guard) {
        const char *e = entry(next);
        const std::int32_t h = readI32(e);
        const std::int64_t phy = readI64(e + 4);
        const std::int64_t timeRead = beginTs + static_cast<std::int64_t>(readI32(e + 12)) * 1000;
        const std::int32_t prev = readI32(e + 16);
        if (h == hash && timeRead >= begin && timeRead <= end)
            out.push_back(phy);
        if (prev <= 0 || prev > count || prev == next || timeRead < begin)
            break;
        next = prev;
    }
}

Status IndexFile::flush()
{
    return m_file->sync();
}

} // namespace qrocket::storage
