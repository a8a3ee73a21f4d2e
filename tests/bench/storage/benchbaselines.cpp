#include "benchbaselines.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace qrocket::storage::bench {

namespace {
struct MappedTemp
{
    int fd = -1;
    char *base = nullptr;
    std::int64_t size = 0;
    QByteArray path;
    MappedTemp(const QString &dir, std::int64_t sz) : size(sz)
    {
        path = QFile::encodeName(dir + QStringLiteral("/baseline.map"));
        fd = ::open(path.constData(), O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || ::posix_fallocate(fd, 0, sz) != 0)
            return;
        void *p
            = ::mmap(nullptr, static_cast<size_t>(sz), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        base = p == MAP_FAILED ? nullptr : static_cast<char *>(p);
    }
    ~MappedTemp()
    {
        if (base)
            ::munmap(base, static_cast<size_t>(size));
        if (fd >= 0)
            ::close(fd);
        ::unlink(path.constData());
    }
};
} // namespace

double mappedMemcpyMBps(const QString &dir, std::int64_t fileSize, int chunk)
{
    MappedTemp m(dir, fileSize);
    if (!m.base)
        return 0;
    const QByteArray src(chunk, 'm');
    QElapsedTimer t;
    t.start();
    for (std::int64_t pos = 0; pos + chunk <= fileSize; pos += chunk)
        std::memcpy(m.base + pos, src.constData(), static_cast<size_t>(chunk));
    const double secs = static_cast<double>(t.nsecsElapsed()) / 1e9;
    return static_cast<double>(fileSize) / 1e6 / secs;
}

double writeFdatasyncOpsPerSec(const QString &dir, int recordSize, int batch, double seconds)
{
    const QByteArray path = QFile::encodeName(dir + QStringLiteral("/baseline.wal"));
    const int fd = ::open(path.constData(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 0;
    const std::int64_t cap = 256LL * 1024 * 1024;
    ::posix_fallocate(fd, 0, cap);
    const QByteArray rec(recordSize, 'w');
    QElapsedTimer t;
    t.start();
    std::int64_t ops = 0, pos = 0;
    while (static_cast<double>(t.nsecsElapsed()) / 1e9 < seconds) {
        for (int i = 0; i < batch; ++i) {
            if (pos + recordSize > cap)
                pos = 0;
            if (::pwrite(fd, rec.constData(), static_cast<size_t>(recordSize), pos) != recordSize)
                break;
            pos += recordSize;
        }
        ::fdatasync(fd);
        ++ops;
    }
    const double secs = static_cast<double>(t.nsecsElapsed()) / 1e9;
    ::close(fd);
    ::unlink(path.constData());
    return static_cast<double>(ops) / secs;
}

namespace {
constexpr std::int64_t kLoopFileSize = 256LL * 1024 * 1024;
} // namespace

WriteFdatasyncLoop::WriteFdatasyncLoop(const QString &dir, int recordSize, int batch)
    : m_path(QFile::encodeName(dir + QStringLiteral("/baseline-loop.wal")))
    , m_record(recordSize, 'w')
    , m_batch(batch)
{
    m_fd = ::open(m_path.constData(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (m_fd >= 0)
        ::posix_fallocate(m_fd, 0, kLoopFileSize);
}

WriteFdatasyncLoop::~WriteFdatasyncLoop()
{
    if (m_fd >= 0)
        ::close(m_fd);
    ::unlink(m_path.constData());
}

std::int64_t WriteFdatasyncLoop::run(double seconds)
{
    if (m_fd < 0)
        return 0;
    const auto size = static_cast<size_t>(m_record.size());
    QElapsedTimer t;
    t.start();
    std::int64_t ops = 0;
    while (static_cast<double>(t.nsecsElapsed()) / 1e9 < seconds) {
        for (int i = 0; i < m_batch; ++i) {
            if (m_pos + m_record.size() > kLoopFileSize)
                m_pos = 0;
            if (::pwrite(m_fd, m_record.constData(), size, m_pos) != m_record.size())
                return ops;
            m_pos += m_record.size();
        }
        ::fdatasync(m_fd);
        ++ops;
    }
    return ops;
}

double mmapFlushOpsPerSec(const QString &dir, int batchBytes, bool useMsync, double seconds)
{
    MappedTemp m(dir, 256LL * 1024 * 1024);
    if (!m.base)
        return 0;
    const QByteArray src(batchBytes, 'f');
    QElapsedTimer t;
    t.start();
    std::int64_t ops = 0, pos = 0, flushed = 0;
    while (static_cast<double>(t.nsecsElapsed()) / 1e9 < seconds) {
        if (pos + batchBytes > m.size)
            pos = flushed = 0;
        std::memcpy(m.base + pos, src.constData(), static_cast<size_t>(batchBytes));
        pos += batchBytes;
        if (useMsync) {
            const std::int64_t start = flushed / 4096 * 4096;
            ::msync(m.base + start, static_cast<size_t>(pos - start), MS_SYNC);
        } else {
            ::fdatasync(m.fd);
        }
        flushed = pos;
        ++ops;
    }
    return static_cast<double>(ops) / (static_cast<double>(t.nsecsElapsed()) / 1e9);
}

} // namespace qrocket::storage::bench
