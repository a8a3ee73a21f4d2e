#include "storage/core/indexservice.h"

#include "clientlib/protocol/messagecodec.h"
#include "storage/core/logging.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <array>
#include <cstring>

namespace qrocket::storage {

IndexService::IndexService(
    QString dir, int slotNum, int maxIndexNum, std::function<std::int64_t()> clock)
    : m_dir(std::move(dir)), m_slots(slotNum), m_maxIndexNum(maxIndexNum), m_clock(std::move(clock))
{ }

Result<IndexService::LoadResult> IndexService::load(
    bool lastExitOk, std::int64_t checkpointIndexTimestamp)
{
    LoadResult r;
    QDir d(m_dir);
    std::lock_guard lock(m_mutex);
    if (!d.exists())
        return r;
    for (const QString &name : d.entryList(QDir::Files, QDir::Name)) {
        const QString path = d.filePath(name);
        auto f = IndexFile::open(path, m_slots, m_maxIndexNum);
        if (!f) {
            qCWarning(lcStoreRecovery).noquote()
                << "deleting unreadable index file:" << f.error().message();
            QFile::remove(path);
            r.deletedFiles++;
            r.rebuildFromPhyOffset = 0;
            continue;
        }
        if (!lastExitOk && (*f)->endTimestamp() > checkpointIndexTimestamp) {
            qCInfo(lcStoreRecovery).noquote()
                << "deleting index file" << path << "ending at" << (*f)->endTimestamp()
                << "after the checkpoint's index timestamp" << checkpointIndexTimestamp
                << "(rebuilt by re-dispatch)";
            const std::int64_t begin = (*f)->beginPhyOffset();
            (*f)->file()->unlinkFile();
            r.deletedFiles++;
            if (r.rebuildFromPhyOffset < 0 || begin < r.rebuildFromPhyOffset)
                r.rebuildFromPhyOffset = begin;
            continue;
        }
        m_files.push_back(std::move(*f));
    }
    return r;
}

Result<IndexFile *> IndexService::writableFile()
{
    if (!m_files.empty() && !m_files.back()->isFull())
        return m_files.back().get();
    std::int64_t beginPhy = 0, beginTs = 0;
    if (!m_files.empty()) {
        IndexFile *full = m_files.back().get();
        beginPhy = full->endPhyOffset();
        beginTs = full->endTimestamp();
        if (Status s = full->flush(); !s)
            return s;
        m_fullFlushedTimestamp = full->endTimestamp();
        qCInfo(lcStore).noquote() << "index file" << full->file()->path()
                                  << "is full; starting a new one";
    }
    if (!QDir().mkpath(m_dir))
        return Status::ioError(QStringLiteral("cannot create directory %1").arg(m_dir));
    std::int64_t now = m_clock();
    QString path;
    for (;; ++now) {
        path = m_dir + u'/'
            + QDateTime::fromMSecsSinceEpoch(now).toString(QStringLiteral("yyyyMMddHHmmsszzz"));
        if (!QFileInfo::exists(path))
            break;
    }
    auto f = IndexFile::create(path, m_slots, m_maxIndexNum, beginPhy, beginTs);
    if (!f)
        return f.error();
    m_files.push_back(std::move(*f));
    return m_files.back().get();
}

Status IndexService::buildIndex(const DispatchRequest &req)
{
    if ((req.sysFlag & protocol::SysFlag::TransactionMask)
        == protocol::SysFlag::TransactionRollback)
        return {};
    if (req.uniqKey.isEmpty() && req.keys.isEmpty())
        return {};
    std::lock_guard lock(m_mutex);
    if (!m_files.empty() && req.commitLogOffset < m_files.back()->endPhyOffset())
        return {}; // already indexed (re-dispatch after recovery)
    std::array<char, 512> stack {};
    QByteArray heap;
    auto put = [&](QByteArrayView key) -> Status {
        const qsizetype n = req.topic.size() + 1 + key.size();
        char *buf = stack.data();
        if (n > static_cast<qsizetype>(stack.size())) {
            heap.resize(n);
            buf = heap.data();
        }
        std::memcpy(buf, req.topic.data(), static_cast<size_t>(req.topic.size()));
        buf[req.topic.size()] = '#';
        std::memcpy(buf + req.topic.size() + 1, key.data(), static_cast<size_t>(key.size()));
        for (int attempt = 0; attempt < 2; ++attempt) {
            auto f = writableFile();
            if (!f)
                return f.error();
            if ((*f)->putKey(QByteArrayView(buf, n), req.commitLogOffset, req.storeTimestamp))
                return {};
        }
        return Status::internal(QStringLiteral("index: cannot put key"));
    };
    if (!req.uniqKey.isEmpty())
        if (Status s = put(req.uniqKey); !s)
            return s;
    QByteArrayView keys = req.keys;
    while (!keys.isEmpty()) {
        qsizetype sp = keys.indexOf(' ');
        const QByteArrayView word = sp < 0 ? keys : keys.first(sp);
        keys = sp < 0 ? QByteArrayView() : keys.sliced(sp + 1);
        if (!word.isEmpty())
            if (Status s = put(word); !s)
                return s;
    }
    return {};
}

IndexService::QueryResult IndexService::query(QByteArrayView topic, QByteArrayView key, int maxNum,
    std::int64_t begin, std::int64_t end) const
{
    QueryResult r;
    const QByteArray full = topic.toByteArray() + '#' + key.toByteArray();
    std::lock_guard lock(m_mutex);
    for (auto it = m_files.rbegin(); it != m_files.rend(); ++it) {
        const IndexFile &f = **it;
        if (it == m_files.rbegin()) {
            r.lastUpdateTimestamp = f.endTimestamp();
            r.lastUpdatePhyOffset = f.endPhyOffset();
        }
        if (f.isTimeMatched(begin, end))
            f.selectPhyOffsets(r.phyOffsets, full, maxNum, begin, end);
        if (f.beginTimestamp() < begin || static_cast<int>(r.phyOffsets.size()) >= maxNum)
            break;
    }
    return r;
}

std::int64_t IndexService::flush()
{
    std::int64_t ts = -1;
    MappedFilePtr file;
    {
        std::lock_guard lock(m_mutex);
        if (m_files.empty())
            return m_fullFlushedTimestamp > 0 ? m_fullFlushedTimestamp : -1;
        ts = m_files.back()->endTimestamp(); // every entry up to it is in the pages synced below
        file = m_files.back()->file();
    }
    // Outside the lock: the reput thread goes on indexing while the disk writes (an fdatasync of
    // a few thousand random slot pages takes tens of ms).
    if (Status s = file->sync(); !s) {
        qCWarning(lcStoreFlush).noquote() << s.message();
        return -1;
    }
    return ts;
}

int IndexService::deleteExpiredFiles(std::int64_t commitLogMinOffset)
{
    std::lock_guard lock(m_mutex);
    int n = 0;
    while (m_files.size() > 1 && m_files.front()->endPhyOffset() < commitLogMinOffset) {
        qCInfo(lcStoreClean).noquote() << "deleted index file" << m_files.front()->file()->path()
                                       << "- its entries end at" << m_files.front()->endPhyOffset()
                                       << "below commit-log min offset" << commitLogMinOffset;
        m_files.front()->file()->unlinkFile();
        m_files.erase(m_files.begin());
        ++n;
    }
    return n;
}

std::int64_t IndexService::truncate(std::int64_t phyOffset)
{
    std::int64_t rebuildFrom = -1;
    std::lock_guard lock(m_mutex);
    while (!m_files.empty() && m_files.back()->endPhyOffset() >= phyOffset
        && m_files.back()->indexCount() > 1) {
        qCInfo(lcStoreRecovery).noquote()
            << "deleting index file" << m_files.back()->file()->path()
            << "with entries past the truncated commit log end" << phyOffset;
        rebuildFrom = m_files.back()->beginPhyOffset();
        m_files.back()->file()->unlinkFile();
        m_files.pop_back();
    }
    return rebuildFrom;
}

int IndexService::fileCount() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_files.size());
}

std::vector<IndexService::FileInfo> IndexService::fileInfos() const
{
    std::lock_guard lock(m_mutex);
    std::vector<FileInfo> out;
    for (const auto &f : m_files)
        out.push_back({f->file()->path(), f->file()->fileSize(), f->beginPhyOffset(),
            f->endPhyOffset(), f->endTimestamp()});
    return out;
}

void IndexService::destroy()
{
    std::lock_guard lock(m_mutex);
    for (auto &f : m_files)
        f->file()->unlinkFile();
    m_files.clear();
}

} // namespace qrocket::storage
