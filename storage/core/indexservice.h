#pragma once

// IndexService: the list of IndexFiles under <root>/index, named by creation time
// (yyyyMMddHHmmssSSS). Builds entries for each dispatched message (UNIQ_KEY, then each KEYS
// word, as "topic#key") and answers key queries newest file first.
//
// Threading: buildIndex runs on the reput thread; queries, flush and cleanup on others; all
// serialised by one internal mutex (queries are rare, builds are short).

#include "storage/core/indexfile.h"
#include "storage/core/storetypes.h"

#include <QString>

#include <functional>
#include <mutex>
#include <vector>

namespace qrocket::storage {

class IndexService
{
public:
    struct LoadResult
    {
        int deletedFiles = 0;
        std::int64_t rebuildFromPhyOffset = -1; // begin of the oldest file deleted, or -1
    };
    struct QueryResult
    {
        std::vector<std::int64_t> phyOffsets;
        std::int64_t lastUpdateTimestamp = 0;
        std::int64_t lastUpdatePhyOffset = 0;
    };

    IndexService(QString dir, int slotNum, int maxIndexNum, std::function<std::int64_t()> clock);

    /// Opens the files; after a crash, files that end past the checkpoint's index timestamp are
    /// deleted (their entries are rebuilt by re-dispatch from rebuildFromPhyOffset).
    Result<LoadResult> load(bool lastExitOk, std::int64_t checkpointIndexTimestamp);

    /// Indexes one dispatched message; skipped when already covered (commitLogOffset below the
    /// last file's end offset) or for transaction rollback records.
    Status buildIndex(const DispatchRequest &req);
    QueryResult query(QByteArrayView topic, QByteArrayView key, int maxNum, std::int64_t begin,
        std::int64_t end) const;

    /// Flushes the newest file (without holding the index lock, so indexing goes on); returns the
    /// timestamp now safe for the checkpoint, or -1.
    std::int64_t flush();
    /// Deletes files (never the newest) whose last entry lies below the commit-log min offset.
    int deleteExpiredFiles(std::int64_t commitLogMinOffset);
    /// Deletes files whose entries point at or past `phyOffset` (commit log truncated there);
    /// returns the oldest deleted file's begin offset (to re-dispatch from), or -1.
    std::int64_t truncate(std::int64_t phyOffset);
    int fileCount() const;
    struct FileInfo
    {
        QString path;
        std::int64_t size, beginPhyOffset, endPhyOffset, endTimestamp;
    };
    std::vector<FileInfo> fileInfos() const;
    void destroy();

private:
    Result<IndexFile *> writableFile();

    QString m_dir;
    int m_slots;
    int m_maxIndexNum;
    std::function<std::int64_t()> m_clock;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<IndexFile>> m_files;
    std::int64_t m_fullFlushedTimestamp = 0;
};

} // namespace qrocket::storage
