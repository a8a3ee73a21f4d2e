#include "storage/core/mappedfilequeue.h"

#include "clientlib/common/threadsched.h"
#include "storage/core/logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qrocket::storage {

Status writeFileDurably(const QString &path, QByteArrayView text)
{
    QSaveFile f(path); // writes a temporary file, syncs it and renames it over `path`
    if (!f.open(QIODevice::WriteOnly) || f.write(text.data(), text.size()) != text.size()
        || !f.commit())
        return Status::ioError(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    // The rename itself is durable once the directory is.
    const QString dir = QFileInfo(path).path();
    const int dirFd
        = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = dirFd >= 0 && ::fsync(dirFd) == 0;
    if (dirFd >= 0)
        ::close(dirFd);
    if (!synced)
        return Status::ioError(QStringLiteral("cannot sync directory %1").arg(dir));
    return {};
}

QStringList listDirectory(const QString &dir, bool directories)
{
    QStringList out;
    const QByteArray native = QFile::encodeName(dir);
    DIR *d = ::opendir(native.constData());
    if (!d)
        return out;
    while (const dirent *e = ::readdir(d)) {
        const char *name = e->d_name;
        if (name[0] == '.')
            continue; // ".", ".." and hidden names, which QDir leaves out too
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN || type == DT_LNK) {
            // Also what QDir does with a link: the type of what it points to.
            struct stat st
            { };
            if (::fstatat(::dirfd(d), name, &st, 0) != 0)
                continue;
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
        }
        if (type == (directories ? DT_DIR : DT_REG))
            out.append(QFile::decodeName(name));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

MappedFileQueue::MappedFileQueue(QString dir, std::int64_t fileSize, MappingCachePtr cache)
    : m_dir(std::move(dir)), m_fileSize(fileSize), m_cache(std::move(cache))
{ }

Status MappedFileQueue::load()
{
    QDir d(m_dir);
    std::vector<MappedFilePtr> loaded;
    const QStringList names = listDirectory(m_dir, false);
    if (names.isEmpty() && !d.exists())
        return {}; // no directory: nothing loaded, the list left as it was
    for (const QString &name : names) {
        bool ok = false;
        const qlonglong start = name.toLongLong(&ok);
        if (name.size() != 20 || !ok) {
            qCWarning(lcStore) << "ignoring foreign file" << d.filePath(name);
            continue;
        }
        if (start % m_fileSize != 0)
            return Status::corruption(
                QStringLiteral("%1: start offset %2 is not a multiple of the file size %3")
                    .arg(d.filePath(name))
                    .arg(start)
                    .arg(m_fileSize));
        auto f = MappedFile::open(d.filePath(name), start, m_fileSize, false, m_cache, m_sparse);
        if (!f)
            return f.error();
        if (!loaded.empty() && loaded.back()->fileFromOffset() + m_fileSize != start)
            return Status::corruption(
                QStringLiteral("%1: gap before this file (previous file ends at %2)")
                    .arg(d.filePath(name))
                    .arg(loaded.back()->fileFromOffset() + m_fileSize));
        if ((*f)->wasShort()) {
            const QString w = QStringLiteral("%1 was %2 bytes short of %3; extended with zeros")
                                  .arg(d.filePath(name))
                                  .arg((*f)->wasShort())
                                  .arg(m_fileSize);
            qCWarning(lcStoreRecovery).noquote() << w;
            m_loadWarnings.append(w);
        }
        (*f)->setWrotePosition(m_fileSize);
        (*f)->setFlushedPosition(m_fileSize);
        loaded.push_back(std::move(*f));
    }
    std::lock_guard lock(m_mutex);
    m_files = std::move(loaded);
    return {};
}

Result<MappedFilePtr> MappedFileQueue::lastFileForWrite(std::int64_t startOffset, bool lastIsFull)
{
    std::int64_t next = startOffset - startOffset % m_fileSize;
    {
        std::lock_guard lock(m_mutex);
        if (!m_files.empty()) {
            if (!lastIsFull && !m_files.back()->isFull())
                return m_files.back();
            next = m_files.back()->fileFromOffset() + m_fileSize;
        }
    }
    if (!QDir().mkpath(m_dir))
        return Status::ioError(QStringLiteral("cannot create directory %1").arg(m_dir));
    Result<MappedFilePtr> f = Status::internal(QStringLiteral("not created"));
    if (m_preallocated.valid() && m_preallocatedOffset == next) {
        f = m_preallocated.get(); // normally ready: created while the previous file filled up
        if (!f)
            qCWarning(lcStore).noquote()
                << "preallocation failed:" << f.error().message() << "- retrying";
    } else {
        discardPreallocated();
    }
    if (!f)
        f = MappedFile::open(
            m_dir + u'/' + offsetToFileName(next), next, m_fileSize, true, m_cache, m_sparse);
    if (!f)
        return f.error();
    {
        std::lock_guard lock(m_mutex);
        if (m_files.empty())
            setFlushedWhere(next);
        m_files.push_back(*f);
    }
    if (m_preallocate)
        startPreallocation(next + m_fileSize);
    return std::move(*f);
}

void MappedFileQueue::startPreallocation(std::int64_t offset)
{
    m_preallocatedOffset = offset;
    const QString path = m_dir + u'/' + offsetToFileName(offset);
    const std::int64_t size = m_fileSize;
    m_preallocated = std::async(std::launch::async,
        [path, offset, size, cache = m_cache, prefault = m_prefault, head = m_headBytes,
            headWritable = m_headWritable]() -> Result<MappedFilePtr> {
            ::pthread_setname_np(::pthread_self(), "qr-allocfile");
            markCurrentThreadBackground();
            auto f = MappedFile::open(path, offset, size, true, cache);
            if (f && prefault)
                (*f)->prefault();
            if (f && head > 0)
                (*f)->populate(0, head, headWritable);
            return f;
        });
}

void MappedFileQueue::prepareNext(std::int64_t startOffsetIfEmpty)
{
    if (!m_preallocate || m_preallocated.valid())
        return;
    std::int64_t next = startOffsetIfEmpty - startOffsetIfEmpty % m_fileSize;
    {
        std::lock_guard lock(m_mutex);
        if (!m_files.empty())
            next = m_files.back()->fileFromOffset() + m_fileSize;
    }
    if (QDir().mkpath(m_dir))
        startPreallocation(next);
}

void MappedFileQueue::discardPreallocated()
{
    if (!m_preallocated.valid())
        return;
    auto f = m_preallocated.get();
    if (f)
        (*f)->unlinkFile();
    m_preallocatedOffset = -1;
}

MappedFileQueue::~MappedFileQueue()
{
    discardPreallocated();
}

MappedFilePtr MappedFileQueue::lastFile() const
{
    std::lock_guard lock(m_mutex);
    return m_files.empty() ? nullptr : m_files.back();
}

MappedFilePtr MappedFileQueue::firstFile() const
{
    std::lock_guard lock(m_mutex);
    return m_files.empty() ? nullptr : m_files.front();
}

MappedFilePtr MappedFileQueue::findLocked(std::int64_t offset) const
{
    if (m_files.empty() || offset < m_files.front()->fileFromOffset())
        return nullptr;
    const std::int64_t idx = (offset - m_files.front()->fileFromOffset()) / m_fileSize;
    if (idx >= static_cast<std::int64_t>(m_files.size()))
        return nullptr;
    return m_files[static_cast<size_t>(idx)];
}

MappedFilePtr MappedFileQueue::findFile(std::int64_t offset) const
{
    std::lock_guard lock(m_mutex);
    return findLocked(offset);
}

std::vector<MappedFilePtr> MappedFileQueue::files() const
{
    std::lock_guard lock(m_mutex);
    return m_files;
}

int MappedFileQueue::fileCount() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_files.size());
}

std::int64_t MappedFileQueue::minOffset() const
{
    std::lock_guard lock(m_mutex);
    return m_files.empty() ? -1 : m_files.front()->fileFromOffset();
}

std::int64_t MappedFileQueue::maxOffset() const
{
    std::lock_guard lock(m_mutex);
    return m_files.empty() ? 0 : m_files.back()->fileFromOffset() + m_files.back()->wrotePosition();
}

Result<std::int64_t> MappedFileQueue::flush(int leastPages, MappedFile::FlushScope scope)
{
    for (;;) {
        const std::int64_t where = flushedWhere();
        MappedFilePtr f = findFile(where);
        if (!f) {
            f = firstFile();
            if (!f || where >= f->fileFromOffset())
                return where;
        }
        auto r = f->flush(leastPages, scope);
        if (!r)
            return r.error();
        const std::int64_t now = f->fileFromOffset() + *r;
        setFlushedWhere(now);
        // Continue into the next file only for a thorough flush of a completed file.
        if (leastPages > 0 || now == where || *r < f->fileSize())
            return now;
    }
}

void MappedFileQueue::markFlushed(std::int64_t upTo)
{
    std::lock_guard lock(m_mutex);
    for (const auto &f : m_files) {
        const std::int64_t end = std::min(f->fileSize(), upTo - f->fileFromOffset());
        if (end > f->flushedPosition())
            f->setFlushedPosition(end);
    }
    if (upTo > flushedWhere())
        setFlushedWhere(upTo);
}

std::int64_t MappedFileQueue::storeTimestampAtFlushedWhere() const
{
    std::lock_guard lock(m_mutex);
    const std::int64_t where = flushedWhere();
    std::int64_t ts = 0;
    for (const auto &f : m_files) {
        if (f->fileFromOffset() >= where)
            break;
        ts = f->storeTimestamp();
    }
    return ts;
}

std::int64_t MappedFileQueue::truncateDirty(std::int64_t offset, bool tailIsZero)
{
    discardPreallocated();
    std::int64_t discarded = 0;
    std::vector<MappedFilePtr> doomed;
    {
        std::lock_guard lock(m_mutex);
        while (!m_files.empty() && m_files.back()->fileFromOffset() >= offset) {
            discarded += m_files.back()->wrotePosition();
            doomed.push_back(m_files.back());
            m_files.pop_back();
        }
        if (!m_files.empty()) {
            auto &last = m_files.back();
            const std::int64_t pos = offset - last->fileFromOffset();
            if (pos >= 0 && pos < last->fileSize()) {
                discarded += std::max<std::int64_t>(0, last->wrotePosition() - pos);
                if (tailIsZero && doomed.empty()) {
                    last->setWrotePosition(pos);
                    last->setFlushedPosition(pos);
                } else {
                    last->truncateTo(pos);
                }
            }
        }
    }
    for (auto &f : doomed) {
        qCInfo(lcStoreRecovery).noquote()
            << "deleting" << f->path() << "(after truncation point" << offset << ")";
        f->unlinkFile();
    }
    if (flushedWhere() > offset)
        setFlushedWhere(offset);
    return discarded;
}

bool MappedFileQueue::removeFirst(const MappedFilePtr &file)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_files.empty() || m_files.front() != file)
            return false;
        m_files.erase(m_files.begin());
    }
    return file->unlinkFile();
}

void MappedFileQueue::destroy()
{
    discardPreallocated();
    std::vector<MappedFilePtr> all;
    {
        std::lock_guard lock(m_mutex);
        all.swap(m_files);
    }
    for (auto &f : all)
        f->unlinkFile();
    setFlushedWhere(0);
    QDir(m_dir).removeRecursively();
}

} // namespace qrocket::storage
