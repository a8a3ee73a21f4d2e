#pragma once

// IndexFile: RocketMQ's hash index by message key (protocol.md §7.4).
//   header (40 B): i64 beginTimestamp, i64 endTimestamp, i64 beginPhyOffset, i64 endPhyOffset,
//                  i32 hashSlotCount, i32 indexCount (starts at 1; entry 0 unused)
//   slotNum:  i32 per slot = newest entry number for that slot (0 = empty)
//   entries (20 B): i32 keyHash, i64 phyOffset, i32 timeDiff seconds, i32 prevIndex
// Key = "topic#key", keyHash = abs(Java String.hashCode) (MIN_VALUE -> 0), slot = keyHash %
// slotNum.
//
// Threading: not synchronised; IndexService serialises writers and readers.

#include "storage/core/mappedfile.h"

#include <QByteArrayView>

#include <cstdint>
#include <memory>
#include <vector>

namespace qrocket::storage {

class IndexFile
{
public:
    static constexpr int kHeaderSize = 40;
    static constexpr int kEntrySize = 20;

    static std::int64_t fileSizeFor(int slotNum, int maxIndexNum)
    {
        return kHeaderSize + static_cast<std::int64_t>(slotNum) * 4
            + static_cast<std::int64_t>(maxIndexNum) * kEntrySize;
    }
    /// Creates a new file; its begin offsets/timestamps start at the given ones.
    static Result<std::unique_ptr<IndexFile>> create(const QString &path, int slotNum,
        int maxIndexNum, std::int64_t beginPhyOffset, std::int64_t beginTimestamp);
    static Result<std::unique_ptr<IndexFile>> open(
        const QString &path, int slotNum, int maxIndexNum);

    static std::int32_t keyHash(QByteArrayView topicHashKey);

    /// Adds one key; false when the file is full.
    bool putKey(QByteArrayView topicHashKey, std::int64_t phyOffset, std::int64_t storeTimestamp);
    /// Appends matching physical offsets (newest first) until `out` holds `maxNum`.
    void selectPhyOffsets(std::vector<std::int64_t> &out, QByteArrayView topicHashKey, int maxNum,
        std::int64_t begin, std::int64_t end) const;
    bool isTimeMatched(std::int64_t begin, std::int64_t end) const;

    bool isFull() const { return indexCount() >= m_maxIndexNum; }
    std::int64_t beginTimestamp() const;
    std::int64_t endTimestamp() const;
    std::int64_t beginPhyOffset() const;
    std::int64_t endPhyOffset() const;
    std::int32_t hashSlotCount() const;
    std::int32_t indexCount() const;
    const MappedFilePtr &file() const { return m_file; }
    Status flush();

private:
    IndexFile(MappedFilePtr f, int slotNum, int maxIndexNum);
    char *entry(std::int64_t n) const;

    MappedFilePtr m_file;
    int m_slots;
    int m_maxIndexNum;
};

} // namespace qrocket::storage
