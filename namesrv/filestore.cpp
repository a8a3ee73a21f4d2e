#include "namesrv/filestore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cstdio>
#include <unistd.h>

namespace qrocket::namesrv {

Status writeFileAtomically(const QString &path, const QByteArray &content)
{
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return Status::ioError(
            QStringLiteral("cannot create directory %1").arg(info.absolutePath()));
    const QString tmp = path + QStringLiteral(".tmp");
    const QString bak = path + QStringLiteral(".bak");
    {
        QFile f(tmp);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return Status::ioError(QStringLiteral("cannot write %1: %2").arg(tmp, f.errorString()));
        if (f.write(content) != content.size() || !f.flush())
            return Status::ioError(QStringLiteral("cannot write %1: %2").arg(tmp, f.errorString()));
        if (::fsync(f.handle()) != 0)
            return Status::ioError(QStringLiteral("fsync of %1 failed").arg(tmp));
    }
    if (QFileInfo::exists(path)) {
        if (std::rename(QFile::encodeName(path).constData(), QFile::encodeName(bak).constData())
            != 0)
            return Status::ioError(QStringLiteral("cannot move %1 to %2").arg(path, bak));
    }
    if (std::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) != 0)
        return Status::ioError(QStringLiteral("cannot rename %1 to %2").arg(tmp, path));
    return {};
}

Result<QByteArray> readFileWithBackup(
    const QString &path, const std::function<bool(const QByteArray &)> &validate)
{
    const auto readOne = [&](const QString &p) -> std::optional<QByteArray> {
        QFile f(p);
        if (!f.open(QIODevice::ReadOnly))
            return std::nullopt;
        QByteArray data = f.readAll();
        if (data.trimmed().isEmpty() || (validate && !validate(data)))
            return std::nullopt;
        return data;
    };
    if (auto data = readOne(path))
        return *data;
    if (auto data = readOne(path + QStringLiteral(".bak")))
        return *data;
    if (QFileInfo::exists(path) || QFileInfo::exists(path + QStringLiteral(".bak")))
        return Status::corruption(
            QStringLiteral("%1 and its .bak are unreadable or invalid").arg(path));
    return Status::notFound(QStringLiteral("%1 does not exist").arg(path));
}

} // namespace qrocket::namesrv
