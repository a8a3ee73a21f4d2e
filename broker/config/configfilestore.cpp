#include "broker/config/configfilestore.h"

#include "broker/common/logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <unistd.h>

namespace qrocket::broker {

namespace {

Status writeWhole(const QString &path, const QByteArray &content)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return Status::ioError(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    if (f.write(content) != content.size() || !f.flush())
        return Status::ioError(QStringLiteral("cannot write %1: %2").arg(path, f.errorString()));
    // Make the bytes durable before the rename publishes them.
    if (::fdatasync(f.handle()) != 0)
        return Status::ioError(QStringLiteral("cannot sync %1").arg(path));
    f.close();
    return {};
}

} // namespace

Status ConfigFileStore::write(const QString &path, const QByteArray &content)
{
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return Status::ioError(
            QStringLiteral("cannot create directory %1").arg(info.absolutePath()));
    const QString tmp = tempPath(path);
    if (Status st = writeWhole(tmp, content); !st)
        return st;
    if (QFile::exists(path)) {
        const QString bak = backupPath(path);
        QFile::remove(bak);
        if (!QFile::copy(path, bak))
            qCWarning(lcBroker) << "cannot back up" << path << "to" << bak;
    }
    // std::rename replaces the destination atomically (QFile::rename refuses to overwrite).
    if (std::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) != 0)
        return Status::ioError(QStringLiteral("cannot rename %1 to %2").arg(tmp, path));
    return {};
}

Result<QByteArray> ConfigFileStore::readFile(const QString &path)
{
    QFile f(path);
    if (!f.exists())
        return Status::notFound(QStringLiteral("%1 does not exist").arg(path));
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(QStringLiteral("cannot read %1: %2").arg(path, f.errorString()));
    return f.readAll();
}

Status ConfigFileStore::load(
    const QString &path, const std::function<Status(const QByteArray &)> &decode)
{
    auto tryOne = [&](const QString &p) -> Status {
        auto text = readFile(p);
        if (!text)
            return text.error();
        if (text->trimmed().isEmpty())
            return Status::notFound(QStringLiteral("%1 is empty").arg(p));
        if (Status st = decode(*text); !st)
            return Status::corruption(QStringLiteral("%1: %2").arg(p, st.message()));
        return {};
    };
    const Status main = tryOne(path);
    if (main)
        return main;
    const QString bak = backupPath(path);
    const Status backup = tryOne(bak);
    if (backup) {
        if (main.code() != Status::Code::NotFound)
            qCWarning(lcBroker).noquote() << main.message() << "- loaded the backup" << bak;
        return backup;
    }
    if (main.code() == Status::Code::NotFound && backup.code() == Status::Code::NotFound)
        return Status::notFound(QStringLiteral("%1: no file yet").arg(path));
    return Status::corruption(QStringLiteral("cannot load %1 (%2) nor its backup (%3)")
                                  .arg(path, main.message(), backup.message()));
}

} // namespace qrocket::broker
