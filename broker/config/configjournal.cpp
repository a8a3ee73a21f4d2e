#include "broker/config/configjournal.h"

#include "broker/common/logging.h"
#include "clientlib/common/hash.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace qrocket::broker {

namespace {

void putBe32(char *p, std::uint32_t v)
{
    p[0] = static_cast<char>(v >> 24);
    p[1] = static_cast<char>(v >> 16);
    p[2] = static_cast<char>(v >> 8);
    p[3] = static_cast<char>(v);
}

std::uint32_t getBe32(const char *p)
{
    const auto *u = reinterpret_cast<const unsigned char *>(p);
    return (std::uint32_t(u[0]) << 24) | (std::uint32_t(u[1]) << 16) | (std::uint32_t(u[2]) << 8)
        | std::uint32_t(u[3]);
}

QString errnoText()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

/// fsync of a directory, so that a file created or removed in it survives a power loss.
void syncDirectory(const QString &dir)
{
    const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    ::fsync(fd);
    ::close(fd);
}

} // namespace

ConfigJournal::ConfigJournal(QString configPath) : m_configPath(std::move(configPath))
{
    const QFileInfo info(m_configPath);
    m_dir = info.absolutePath();
    m_prefix = info.fileName() + QStringLiteral(".journal.");
}

ConfigJournal::~ConfigJournal()
{
    {
        std::lock_guard wait(m_waitMutex);
        m_stopping = true;
    }
    m_waitCv.notify_all();
    if (m_syncThread.joinable())
        m_syncThread.join(); // it completes every waiter first
    std::lock_guard lock(m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
}

QByteArray ConfigJournal::encodeRecord(QByteArrayView payload)
{
    QByteArray record(8 + payload.size(), Qt::Uninitialized);
    putBe32(record.data(), static_cast<std::uint32_t>(payload.size()));
    putBe32(record.data() + 4, crc32(payload));
    std::memcpy(record.data() + 8, payload.data(), static_cast<std::size_t>(payload.size()));
    return record;
}

std::vector<std::pair<std::int64_t, QString>> ConfigJournal::files() const
{
    std::vector<std::pair<std::int64_t, QString>> out;
    const QDir dir(m_dir);
    for (const QString &name : dir.entryList({m_prefix + QLatin1Char('*')}, QDir::Files)) {
        bool ok = false;
        const std::int64_t generation = name.mid(m_prefix.size()).toLongLong(&ok);
        if (ok && generation > 0)
            out.emplace_back(generation, dir.filePath(name));
    }
    std::sort(out.begin(), out.end());
    return out;
}

Result<std::int64_t> ConfigJournal::replay(
    const std::function<Status(QByteArrayView payload)> &apply)
{
    std::int64_t applied = 0;
    const auto list = files();
    for (const auto &[generation, path] : list) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return Status::ioError(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
        const QByteArray data = f.readAll();
        qsizetype pos = 0;
        while (pos < data.size()) {
            if (data.size() - pos < 8)
                break;
            const std::uint32_t length = getBe32(data.constData() + pos);
            const std::uint32_t crc = getBe32(data.constData() + pos + 4);
            if (length > kMaxPayload || qsizetype(length) > data.size() - pos - 8)
                break;
            const QByteArrayView payload(data.constData() + pos + 8, length);
            if (crc32(payload) != crc)
                break;
            if (Status st = apply(payload); !st)
                return Status::corruption(
                    QStringLiteral("%1 at byte %2: %3").arg(path).arg(pos).arg(st.message()));
            ++applied;
            pos += 8 + qsizetype(length);
        }
        if (pos < data.size())
            qCWarning(lcBroker).noquote()
                << "ignored a torn or corrupt tail of" << (data.size() - pos) << "bytes in" << path
                << "(a change that was being written at a crash; it was never acknowledged)";
    }
    std::lock_guard lock(m_mutex);
    if (!list.empty())
        m_generation = std::max(m_generation, list.back().first);
    m_scanned = true;
    return applied;
}

Status ConfigJournal::openNextLocked()
{
    if (!m_scanned) {
        const auto list = files();
        if (!list.empty())
            m_generation = std::max(m_generation, list.back().first);
        m_scanned = true;
    }
    if (!QDir().mkpath(m_dir))
        return Status::ioError(QStringLiteral("cannot create directory %1").arg(m_dir));
    const QString path = QDir(m_dir).filePath(m_prefix + QString::number(m_generation + 1));
    const int fd = ::open(QFile::encodeName(path).constData(),
        O_WRONLY | O_CREAT | O_APPEND | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return Status::ioError(QStringLiteral("cannot create %1: %2").arg(path, errnoText()));
    syncDirectory(m_dir);
    m_fd = fd;
    m_fileSize = 0;
    ++m_generation;
    return {};
}

Result<std::int64_t> ConfigJournal::append(QByteArrayView payload)
{
    if (payload.size() > qsizetype(kMaxPayload))
        return Status::invalidArgument(QStringLiteral("journal record too large"));
    const QByteArray record = encodeRecord(payload);
    std::lock_guard lock(m_mutex);
    if (m_poisoned)
        return Status::ioError(
            QStringLiteral("the journal of %1 needs a full write first").arg(m_configPath));
    if (m_fd < 0) {
        if (Status st = openNextLocked(); !st)
            return st;
    }
    qsizetype done = 0;
    while (done < record.size()) {
        const ssize_t n = ::write(
            m_fd, record.constData() + done, static_cast<std::size_t>(record.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const QString why = errnoText();
            // A partial record would end the file for replay: cut it off, or refuse appends
            // until rotate() (the next full write) closes the file.
            if (::ftruncate(m_fd, static_cast<off_t>(m_fileSize)) != 0)
                m_poisoned = true;
            return Status::ioError(
                QStringLiteral("cannot append to the journal of %1: %2").arg(m_configPath, why));
        }
        done += n;
    }
    m_written += record.size();
    m_fileSize += record.size();
    ++m_sinceRotate;
    return m_written;
}

Status ConfigJournal::sync(std::int64_t ticket)
{
    std::lock_guard syncLock(m_syncMutex);
    int fd = -1;
    std::int64_t target = 0;
    {
        std::lock_guard lock(m_mutex);
        if (m_synced >= ticket)
            return {};
        fd = m_fd;
        target = m_written;
    }
    // fd is still open: only rotate() closes it, and rotate() takes m_syncMutex first.
    if (fd >= 0)
        m_syncs.fetch_add(1);
    if (fd >= 0 && ::fdatasync(fd) != 0)
        return Status::ioError(
            QStringLiteral("cannot sync the journal of %1: %2").arg(m_configPath, errnoText()));
    std::lock_guard lock(m_mutex);
    m_synced = std::max(m_synced, target);
    return {};
}

void ConfigJournal::syncAsync(std::int64_t ticket, SyncCallback done)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_synced >= ticket) {
            done({});
            return;
        }
    }
    {
        std::lock_guard wait(m_waitMutex);
        if (!m_stopping) {
            m_waiters.emplace_back(ticket, std::move(done));
            if (!m_syncThread.joinable())
                m_syncThread = std::thread([this] { syncLoop(); });
            m_waitCv.notify_one();
            return;
        }
    }
    done(sync(ticket)); // being destroyed: no thread to hand it to
}

void ConfigJournal::syncLoop()
{
    std::vector<std::pair<std::int64_t, SyncCallback>> group;
    std::unique_lock wait(m_waitMutex);
    for (;;) {
        m_waitCv.wait(wait, [this] { return m_stopping || !m_waiters.empty(); });
        if (m_waiters.empty())
            return; // stopping, nothing owed
        group.swap(m_waiters);
        m_groupRunning = true;
        wait.unlock();
        std::int64_t highest = 0;
        for (const auto &w : group)
            highest = std::max(highest, w.first);
        // One fdatasync for the whole group (and every record appended before it starts).
        const Status st = sync(highest);
        for (auto &w : group)
            w.second(st);
        group.clear();
        wait.lock();
        m_groupRunning = false;
        if (m_waiters.empty())
            m_idleCv.notify_all();
    }
}

void ConfigJournal::waitForAsync()
{
    std::unique_lock wait(m_waitMutex);
    m_idleCv.wait(wait, [this] { return m_waiters.empty() && !m_groupRunning; });
}

Result<std::int64_t> ConfigJournal::rotate()
{
    std::lock_guard syncLock(m_syncMutex);
    std::lock_guard lock(m_mutex);
    if (!m_scanned) {
        const auto list = files();
        if (!list.empty())
            m_generation = std::max(m_generation, list.back().first);
        m_scanned = true;
    }
    if (m_fd >= 0) {
        m_syncs.fetch_add(1);
        const int rc = ::fdatasync(m_fd);
        ::close(m_fd);
        m_fd = -1;
        if (rc != 0)
            return Status::ioError(
                QStringLiteral("cannot sync the journal of %1: %2").arg(m_configPath, errnoText()));
        m_synced = m_written;
    }
    m_poisoned = false;
    m_sinceRotate = 0;
    return m_generation;
}

void ConfigJournal::removeUpTo(std::int64_t generation)
{
    // The caller's new config file was renamed into this directory: make that durable before the
    // journal files it replaces go.
    syncDirectory(m_dir);
    bool removed = false;
    for (const auto &[g, path] : files()) {
        if (g > generation)
            break;
        removed = QFile::remove(path) || removed;
    }
    if (removed)
        syncDirectory(m_dir);
}

std::int64_t ConfigJournal::recordsSinceRotate() const
{
    std::lock_guard lock(m_mutex);
    return m_sinceRotate;
}

qint64 ConfigJournal::bytesOnDisk() const
{
    qint64 total = 0;
    for (const auto &[g, path] : files())
        total += QFileInfo(path).size();
    return total;
}

} // namespace qrocket::broker
