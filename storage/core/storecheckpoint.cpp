#include "storage/core/storecheckpoint.h"

#include "clientlib/common/byteorder.h"
#include "storage/core/logging.h"

#include <QFile>

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace qrocket::storage {

namespace {
QString errnoText(int err)
{
    return QString::fromLocal8Bit(std::strerror(err));
}
} // namespace

StoreCheckpoint::StoreCheckpoint(QString path) : m_path(std::move(path))
{ }

StoreCheckpoint::~StoreCheckpoint()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool StoreCheckpoint::parse(
    QByteArrayView bytes, std::int64_t &physic, std::int64_t &logics, std::int64_t &index)
{
    if (bytes.size() < 24)
        return false;
    physic = readI64(bytes.data());
    logics = readI64(bytes.data() + 8);
    index = readI64(bytes.data() + 16);
    return true;
}

Status StoreCheckpoint::open()
{
    m_fd = ::open(QFile::encodeName(m_path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        return Status::ioError(
            QStringLiteral("cannot open checkpoint %1: %2").arg(m_path, errnoText(errno)));
    std::array<char, 24> buf {};
    const ssize_t n = ::pread(m_fd, buf.data(), buf.size(), 0);
    if (n == static_cast<ssize_t>(buf.size())) {
        std::int64_t p = 0, l = 0, i = 0;
        parse(QByteArrayView(buf.data(), 24), p, l, i);
        m_physic = p;
        m_logics = l;
        m_index = i;
    } else if (n > 0) {
        qCWarning(lcStoreRecovery).noquote()
            << "checkpoint" << m_path << "is only" << n << "bytes; treating as empty";
    }
    return {};
}

Status StoreCheckpoint::flush()
{
    std::lock_guard lock(m_flushMutex);
    if (m_fd < 0)
        return Status::unavailable(QStringLiteral("checkpoint not open"));
    std::array<char, kFileSize> buf {};
    writeI64(buf.data(), m_physic.load());
    writeI64(buf.data() + 8, m_logics.load());
    writeI64(buf.data() + 16, m_index.load());
    if (::pwrite(m_fd, buf.data(), buf.size(), 0) != static_cast<ssize_t>(buf.size())
        || ::fdatasync(m_fd) != 0)
        return Status::ioError(
            QStringLiteral("cannot write checkpoint %1: %2").arg(m_path, errnoText(errno)));
    return {};
}

std::int64_t StoreCheckpoint::minTimestamp(bool indexSafe) const
{
    std::int64_t m = std::min(m_physic.load(), m_logics.load());
    if (indexSafe)
        m = std::min(m, m_index.load());
    return std::max<std::int64_t>(0, m - 3000);
}

StoreLock::~StoreLock()
{
    release();
}

Status StoreLock::acquire(const QString &lockPath)
{
    m_fd = ::open(QFile::encodeName(lockPath).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
        return Status::ioError(
            QStringLiteral("cannot open lock file %1: %2").arg(lockPath, errnoText(errno)));
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(m_fd);
        m_fd = -1;
        if (err == EWOULDBLOCK)
            return Status::busy(
                QStringLiteral("store is in use: another process holds %1 (is a second broker "
                               "running on the same storePathRootDir?)")
                    .arg(lockPath));
        return Status::ioError(QStringLiteral("cannot lock %1: %2").arg(lockPath, errnoText(err)));
    }
    const char text[] = "lock";
    if (::ftruncate(m_fd, 0) != 0 || ::pwrite(m_fd, text, 4, 0) != 4)
        qCWarning(lcStore).noquote() << "cannot write" << lockPath;
    return {};
}

void StoreLock::release()
{
    if (m_fd >= 0) {
        ::flock(m_fd, LOCK_UN);
        ::close(m_fd);
        m_fd = -1;
    }
}

} // namespace qrocket::storage
