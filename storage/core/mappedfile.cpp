#include "storage/core/mappedfile.h"

#include "storage/core/logging.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace qrocket::storage {

namespace {
constexpr std::int64_t kPageSize = 4096;
constexpr std::int64_t kPopulateStep = 256 * 1024; // see populate()
constexpr std::int64_t kWritebackStep = 256 * 1024; // see flush()
constexpr std::int64_t kReadaheadStep = 1024 * 1024; // see populate()
std::atomic<MappedFile::FlushMethod> g_flushMethod {MappedFile::FlushMethod::Fdatasync};
std::atomic<MappedFile::SyncWriteMethod> g_syncWriteMethod {MappedFile::SyncWriteMethod::Pwrite};

QString errnoText(int err)
{
    return QString::fromLocal8Bit(std::strerror(err));
}
} // namespace

QString offsetToFileName(std::int64_t offset)
{
    return QStringLiteral("%1").arg(offset, 20, 10, QLatin1Char('0'));
}

void MappedFile::setFlushMethod(FlushMethod m)
{
    g_flushMethod.store(m);
}
MappedFile::FlushMethod MappedFile::flushMethod()
{
    return g_flushMethod.load();
}

void MappedFile::setSyncWriteMethod(SyncWriteMethod m)
{
    g_syncWriteMethod.store(m);
}
MappedFile::SyncWriteMethod MappedFile::syncWriteMethod()
{
    return g_syncWriteMethod.load(std::memory_order_relaxed);
}

Status MappedFile::writeAt(std::int64_t pos, const char *bytes, std::int64_t size)
{
    if (pos < 0 || size < 0 || pos + size > m_fileSize)
        return Status::invalidArgument(
            QStringLiteral("write of %1 bytes at %2 outside %3").arg(size).arg(pos).arg(m_path));
    const Pin lazy = m_cache ? pin() : Pin();
    if (m_cache && !lazy)
        return Status::ioError(QStringLiteral("cannot map %1").arg(m_path));
    const int fd = lazy ? lazy.fd() : m_fd;
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, bytes, static_cast<size_t>(size), pos);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return Status::ioError(
                QStringLiteral("write at %1 of %2 failed: %3")
                    .arg(pos)
                    .arg(m_path, n < 0 ? errnoText(errno) : QStringLiteral("no progress")));
        bytes += n;
        pos += n;
        size -= n;
    }
    return {};
}

namespace {
Result<char *> mapDescriptor(int fd, std::int64_t size, const QString &path)
{
    void *p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return Status::ioError(QStringLiteral("cannot map %1: %2").arg(path, errnoText(errno)));
    return static_cast<char *>(p);
}

/// A descriptor closed when it goes out of scope.
struct ScopedFd
{
    int fd = -1;
    ~ScopedFd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};
} // namespace

MappedFile::Mapping::~Mapping()
{
    if (base)
        ::munmap(base, static_cast<size_t>(size));
    if (fd >= 0)
        ::close(fd);
}

Result<std::shared_ptr<MappedFile>> MappedFile::open(const QString &path,
    std::int64_t fileFromOffset, std::int64_t fileSize, bool mustCreate, MappingCachePtr cache,
    bool sparse)
{
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_sparse = sparse && cache != nullptr;
    f->m_path = path;
    f->m_fileFromOffset = fileFromOffset;
    f->m_fileSize = fileSize;
    const QByteArray native = QFile::encodeName(path);
    if (!mustCreate && cache) {
        // A lazy file that is whole already (its size, and blocks for all of it unless sparse)
        // needs no descriptor here: nothing to extend or reserve, and pin() opens it when used.
        // At start-up with 100,000s of consume queues this saves an open, a posix_fallocate
        // (which dirties the inode even when every block exists) and a close per file.
        struct stat st
        { };
        if (::stat(native.constData(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == fileSize
            && (f->m_sparse || static_cast<std::int64_t>(st.st_blocks) * 512 >= fileSize)) {
            f->m_cache = std::move(cache);
            return f;
        }
    }
    const int flags = O_RDWR | O_CLOEXEC | (mustCreate ? O_CREAT | O_EXCL : 0);
    ScopedFd fd {::open(native.constData(), flags, 0644)};
    if (fd.fd < 0)
        return Status::ioError(
            QStringLiteral("cannot %1 %2: %3")
                .arg(mustCreate ? QStringLiteral("create") : QStringLiteral("open"), path,
                    errnoText(errno)));
    struct stat st
    { };
    if (::fstat(fd.fd, &st) != 0)
        return Status::ioError(QStringLiteral("cannot stat %1: %2").arg(path, errnoText(errno)));
    if (st.st_size > fileSize)
        return Status::corruption(
            QStringLiteral("%1 is %2 bytes, larger than the configured file size %3")
                .arg(path)
                .arg(st.st_size)
                .arg(fileSize));
    if (!mustCreate && st.st_size < fileSize)
        f->m_wasShort = fileSize - st.st_size;
    if (f->m_sparse) {
        // No blocks: the writer reserves pages as it reaches them (reserve()).
        if (st.st_size < fileSize && ::ftruncate(fd.fd, fileSize) != 0) {
            const int err = errno;
            if (mustCreate)
                ::unlink(native.constData());
            return Status::ioError(QStringLiteral("cannot size %1 to %2 bytes: %3")
                                       .arg(path)
                                       .arg(fileSize)
                                       .arg(errnoText(err)));
        }
        f->m_cache = std::move(cache); // mapped by the first pin()
        return f;
    }
    // Reserve every block now: a full disk fails here, cleanly, instead of SIGBUS later.
    const int rc = ::posix_fallocate(fd.fd, 0, fileSize);
    if (rc != 0) {
        if (mustCreate)
            ::unlink(native.constData());
        return Status::ioError(QStringLiteral("cannot preallocate %1 bytes for %2: %3")
                                   .arg(fileSize)
                                   .arg(path, errnoText(rc)));
    }
    if (cache) {
        f->m_cache = std::move(cache); // mapped by the first pin()
        return f;
    }
    auto base = mapDescriptor(fd.fd, fileSize, path);
    if (!base) {
        if (mustCreate)
            ::unlink(native.constData());
        return base.error();
    }
    f->m_fd = std::exchange(fd.fd, -1);
    f->m_base = *base;
    f->m_map = std::make_shared<const Mapping>(f->m_fd, f->m_base, fileSize);
    return f;
}

MappedFile::~MappedFile()
{
    if (m_cache)
        m_cache->forget(this);
}

MappedFile::Pin MappedFile::pinIfMapped() const
{
    if (!m_cache)
        return Pin(m_map);
    std::lock_guard lock(m_mapMutex);
    return Pin(m_map);
}

bool MappedFile::isMapped() const
{
    return static_cast<bool>(pinIfMapped());
}

MappedFile::Pin MappedFile::pin() const
{
    if (!m_cache)
        return Pin(m_map);
    m_referenced.store(true, std::memory_order_relaxed);
    std::shared_ptr<const Mapping> made;
    {
        std::unique_lock lock(m_mapMutex);
        if (m_map) {
            Pin hit(m_map);
            lock.unlock();
            m_cache->noteHit(); // counted outside the file's lock
            return hit;
        }
        ScopedFd fd {::open(QFile::encodeName(m_path).constData(), O_RDWR | O_CLOEXEC)};
        if (fd.fd < 0) {
            qCWarning(lcStore).noquote()
                << "cannot open" << m_path << "to map it:" << errnoText(errno);
            return {};
        }
        auto base = mapDescriptor(fd.fd, m_fileSize, m_path);
        if (!base) {
            qCWarning(lcStore).noquote() << base.error().message();
            return {};
        }
        // A sparse (light-queue) file is mostly holes and read a few units at a time: no
        // read-ahead, so a use brings the pages it touches into the page cache and no others
        // (with a million queues, recovery would otherwise read and keep the whole 80 KB of each).
        if (m_sparse)
            ::madvise(*base, static_cast<size_t>(m_fileSize), MADV_RANDOM);
        m_map = std::make_shared<const Mapping>(std::exchange(fd.fd, -1), *base, m_fileSize);
        made = m_map;
    }
    m_cache->admit(const_cast<MappedFile *>(this));
    return Pin(std::move(made));
}

bool MappedFile::readUnmapped(QByteArray &out) const
{
    if (!m_cache || m_sparse || isMapped())
        return false;
    ScopedFd fd {::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_CLOEXEC)};
    if (fd.fd < 0)
        return false;
    QByteArray buf(static_cast<qsizetype>(m_fileSize), Qt::Uninitialized);
    std::int64_t done = 0;
    while (done < m_fileSize) {
        const ssize_t n = ::pread(fd.fd, buf.data() + done, static_cast<size_t>(m_fileSize - done),
            static_cast<off_t>(done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false; // an error, or shorter than opened: the mapping's way decides
        done += n;
    }
    out = std::move(buf);
    return true;
}

QString MappedFile::fileName() const
{
    return QFileInfo(m_path).fileName();
}

QByteArrayView MappedFile::view(std::int64_t pos, std::int64_t size) const
{
    if (pos < 0 || size < 0 || pos + size > wrotePosition())
        return {};
    return QByteArrayView(m_base + pos, size);
}

Result<std::int64_t> MappedFile::flush(int leastPages, FlushScope scope)
{
    const std::int64_t wrote = wrotePosition();
    const std::int64_t flushed = flushedPosition();
    const bool range = scope == FlushScope::WrittenRange;
    // Where this flush ends: a periodic round of the range scope stops at the last whole page.
    const std::int64_t target = range && leastPages > 0 ? wrote / kPageSize * kPageSize : wrote;
    if (target <= flushed)
        return flushed;
    if (leastPages > 0 && (target / kPageSize - flushed / kPageSize) < leastPages)
        return flushed;
    // A lazy file flushes through its mapping when it has one, else through a descriptor opened
    // for the fdatasync alone (the dirty pages are in the page cache either way): a flush never
    // maps a file, so flushing many idle queues does not churn the mapping cache.
    int fd = m_fd;
    char *base = m_base;
    Pin lazy;
    ScopedFd own;
    if (m_cache) {
        lazy = pinIfMapped();
        if (lazy) {
            fd = lazy.fd();
            base = lazy.data();
        } else {
            own.fd = ::open(QFile::encodeName(m_path).constData(), O_RDWR | O_CLOEXEC);
            if (own.fd < 0)
                return Status::ioError(
                    QStringLiteral("flush of %1 failed: %2").arg(m_path, errnoText(errno)));
            fd = own.fd;
            base = nullptr;
        }
    }
    int rc = 0;
    if (base && (range || flushMethod() == FlushMethod::Msync)) {
        const std::int64_t start = flushed / kPageSize * kPageSize;
        if (range) {
            // Writing back a page that is mapped writable write-protects it again: an rmap walk
            // and a TLB shoot-down per page, that is, an IPI to every other CPU running this
            // process (the I/O threads) and a wait for its answer. A 500 ms round at 40 MB/s
            // is ~5,000 pages: ~40 ms of this thread's time on this 2-core VM, all of it in
            // the kernel where it cannot be preempted (PREEMPT_NONE), with the I/O threads
            // interrupted 5,000 times. The writer never comes back to these pages, so first
            // drop their page-table entries in one go (one TLB flush; the dirty pages stay in
            // the page cache, and a reader faults them back in read-only, which a write-back
            // does not have to touch).
            const std::int64_t wholeEnd = target / kPageSize * kPageSize; // not the writer's page
            if (wholeEnd > start)
                ::madvise(base + start, static_cast<size_t>(wholeEnd - start), MADV_DONTNEED);
            // Then start the write-back in steps and wait once: between steps the scheduler
            // can switch to a woken I/O thread.
            for (std::int64_t at = start; at < target; at += kWritebackStep) {
                const std::int64_t len = std::min(kWritebackStep, target - at);
                if (::sync_file_range(fd, at, len, SYNC_FILE_RANGE_WRITE) != 0)
                    break; // the msync below writes what is left, and reports the error
            }
        }
        rc = ::msync(base + start, static_cast<size_t>(target - start), MS_SYNC);
    } else {
        rc = ::fdatasync(fd);
    }
    if (rc != 0)
        return Status::ioError(
            QStringLiteral("flush of %1 failed: %2").arg(m_path, errnoText(errno)));
    setFlushedPosition(target);
    return target;
}

void MappedFile::prefault()
{
    const Pin p = pin();
    if (!p)
        return;
    if (populate(0, m_fileSize, false) != 0)
        ::madvise(p.data(), static_cast<size_t>(m_fileSize), MADV_WILLNEED);
}

int MappedFile::populate(std::int64_t from, std::int64_t to, bool writable)
{
#ifndef MADV_POPULATE_READ
    constexpr int MADV_POPULATE_READ = 22; // Linux 5.14
#endif
#ifndef MADV_POPULATE_WRITE
    constexpr int MADV_POPULATE_WRITE = 23;
#endif
    from = std::clamp<std::int64_t>(from / kPageSize * kPageSize, 0, m_fileSize);
    to = std::clamp<std::int64_t>((to + kPageSize - 1) / kPageSize * kPageSize, 0, m_fileSize);
    if (to <= from)
        return 0;
    const Pin p = pin();
    if (!p)
        return EBADF;
    // One madvise holds the process's mmap lock (read side) while it faults every page in; a
    // thread then waiting for the write side (malloc's mprotect/mmap/munmap on an I/O thread)
    // queues every page fault of the process behind it. Small steps bound that stall to the
    // faulting of kPopulateStep bytes.
    // EINTR/EAGAIN (a signal, memory pressure) are worth another try later; EINVAL means the
    // kernel (before 5.14) does not know the advice.
    // Pages not yet in the page cache are first read in, kReadaheadStep bytes at a time: the
    // fault of a missing page would read ahead read_ahead_kb at once (8 MiB on this project's
    // VM; for a preallocated file that is zero-filling 2,048 pages), 1-3 ms in the kernel
    // without a preemption point, every 8 MiB of commit log: I/O threads woken on this CPU
    // waited behind it (perf sched timehist: late-send episodes every 130-145 ms at 50-55k
    // msgs/s). readahead() of pages already cached does nothing.
    for (std::int64_t at = from; at < to; at += kPopulateStep) {
        const std::int64_t len = std::min(kPopulateStep, to - at);
        if ((at - from) % kReadaheadStep == 0)
            ::readahead(p.fd(), at, static_cast<size_t>(std::min(kReadaheadStep, to - at)));
        if (::madvise(p.data() + at, static_cast<size_t>(len),
                writable ? MADV_POPULATE_WRITE : MADV_POPULATE_READ)
            != 0)
            return errno;
    }
    return 0;
}

Status MappedFile::sync()
{
    // As flush() does for the written range, for the whole file: the pages written in place
    // (an index file's random hash slots: nearly every slot page is dirty after a second at
    // 50k msgs/s) lose their page-table entries in one go, so the write-back needs no TLB
    // shoot-down per page. The writer faults a page back in when it next writes it.
    const Pin p = pin();
    if (!p)
        return Status::ioError(QStringLiteral("cannot map %1").arg(m_path));
    ::madvise(p.data(), static_cast<size_t>(m_fileSize), MADV_DONTNEED);
    if (::fdatasync(p.fd()) != 0)
        return Status::ioError(
            QStringLiteral("fdatasync of %1 failed: %2").arg(m_path, errnoText(errno)));
    return {};
}

Status MappedFile::reserve(const Pin &pin, std::int64_t end)
{
    if (!m_sparse || end <= m_reservedEnd)
        return {};
    const std::int64_t from = m_reservedEnd / kPageSize * kPageSize;
    const std::int64_t to = std::min(m_fileSize, (end + kPageSize - 1) / kPageSize * kPageSize);
    const int rc = ::posix_fallocate(pin.fd(), from, to - from);
    if (rc != 0)
        return Status::ioError(QStringLiteral("cannot reserve bytes %1..%2 of %3: %4")
                                   .arg(from)
                                   .arg(to)
                                   .arg(m_path, errnoText(rc)));
    m_reservedEnd = to;
    return {};
}

std::int64_t MappedFile::dataEnd(const Pin &pin, std::int64_t from) const
{
    if (!m_sparse || !pin)
        return m_fileSize;
    const std::int64_t pageEnd
        = std::min(m_fileSize, (from + kPageSize - 1) / kPageSize * kPageSize);
    if (pageEnd >= m_fileSize)
        return m_fileSize;
    errno = 0;
    const off_t next = ::lseek(pin.fd(), pageEnd, SEEK_DATA);
    return next < 0 && errno == ENXIO ? pageEnd : m_fileSize; // ENXIO: holes to the end
}

void MappedFile::truncateTo(std::int64_t pos)
{
    pos = std::clamp<std::int64_t>(pos, 0, m_fileSize);
    const Pin p = pin();
    if (!p) {
        qCWarning(lcStoreRecovery).noquote() << "cannot truncate" << m_path << ": not mapped";
        return;
    }
    // Zero the partial page by hand, the rest with FALLOC_FL_ZERO_RANGE (cheap even for a
    // 1 GiB file). Never punch a hole: with the disk full it could not be filled again, and the
    // next write through the mapping would raise SIGBUS. Without ZERO_RANGE the blocks stay
    // allocated, so writing zeros through the mapping is safe.
    const std::int64_t pageEnd
        = std::min(m_fileSize, (pos + kPageSize - 1) / kPageSize * kPageSize);
    std::memset(p.data() + pos, 0, static_cast<size_t>(pageEnd - pos));
    if (m_sparse) {
        // A sparse file's writer reserves before it writes (reserve()), so its pages beyond the
        // truncation point can go back to holes. The partial page held units (a consume queue
        // is written from its start): it is allocated, and zeroing it above was safe.
        if (pageEnd < m_fileSize
            && ::fallocate(p.fd(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, pageEnd,
                   m_fileSize - pageEnd)
                != 0
            && ::fallocate(p.fd(), FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, pageEnd,
                   m_fileSize - pageEnd)
                != 0)
            std::memset(p.data() + pageEnd, 0, static_cast<size_t>(m_fileSize - pageEnd));
        m_reservedEnd = std::min(m_reservedEnd, pageEnd);
        setWrotePosition(pos);
        setFlushedPosition(pos);
        return;
    }
    if (pageEnd < m_fileSize
        && ::fallocate(
               p.fd(), FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, pageEnd, m_fileSize - pageEnd)
            != 0)
        std::memset(p.data() + pageEnd, 0, static_cast<size_t>(m_fileSize - pageEnd));
    setWrotePosition(pos);
    setFlushedPosition(pos);
}

std::int64_t MappedFile::lastModified() const
{
    struct stat st
    { };
    if ((m_cache ? ::stat(QFile::encodeName(m_path).constData(), &st) : ::fstat(m_fd, &st)) != 0)
        return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

bool MappedFile::unlinkFile()
{
    if (m_unlinked.exchange(true))
        return true;
    const bool ok = ::unlink(QFile::encodeName(m_path).constData()) == 0 || errno == ENOENT;
    if (!ok)
        qCWarning(lcStore) << "cannot delete" << m_path << errnoText(errno);
    return ok;
}

} // namespace qrocket::storage
