#include "broker/controller/epochfile.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>

#include <algorithm>

namespace qrocket::broker::controller {

QString EpochFile::filePath(const QString &storeRoot)
{
    return QDir(storeRoot).filePath(QStringLiteral("epochFile"));
}

Status EpochFile::load()
{
    m_entries.clear();
    QFile f(m_path);
    if (!f.exists())
        return {};
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(QStringLiteral("cannot read %1: %2").arg(m_path, f.errorString()));
    int lineNo = 0;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        ++lineNo;
        if (line.isEmpty())
            continue;
        const QList<QByteArray> parts = line.split(' ');
        bool okEpoch = false;
        bool okOffset = false;
        EpochEntry e;
        if (parts.size() == 2) {
            e.epoch = parts[0].toLongLong(&okEpoch);
            e.startOffset = parts[1].toLongLong(&okOffset);
        }
        const bool ordered = m_entries.empty()
            || (e.epoch > m_entries.back().epoch && e.startOffset >= m_entries.back().startOffset);
        if (!okEpoch || !okOffset || e.epoch <= 0 || e.startOffset < 0 || !ordered) {
            m_entries.clear();
            return Status::corruption(QStringLiteral("%1 line %2 is not a valid epoch entry: '%3'")
                                          .arg(m_path)
                                          .arg(lineNo)
                                          .arg(QString::fromLatin1(line)));
        }
        m_entries.push_back(e);
    }
    return {};
}

Status EpochFile::append(std::int64_t epoch, std::int64_t startOffset)
{
    if (epoch <= 0 || startOffset < 0)
        return Status::invalidArgument(
            QStringLiteral("bad epoch entry %1 at %2").arg(epoch).arg(startOffset));
    std::erase_if(m_entries,
        [&](const EpochEntry &e) { return e.epoch >= epoch || e.startOffset > startOffset; });
    m_entries.push_back({epoch, startOffset});
    return save();
}

Status EpochFile::truncateFrom(std::int64_t offset)
{
    const auto before = m_entries.size();
    std::erase_if(m_entries, [&](const EpochEntry &e) { return e.startOffset >= offset; });
    return before == m_entries.size() ? Status() : save();
}

Status EpochFile::replace(std::vector<EpochEntry> entries)
{
    m_entries = std::move(entries);
    return save();
}

Status EpochFile::save()
{
    QSaveFile f(m_path);
    if (!f.open(QIODevice::WriteOnly))
        return Status::ioError(QStringLiteral("cannot write %1: %2").arg(m_path, f.errorString()));
    QByteArray text;
    for (const EpochEntry &e : m_entries)
        text += QByteArray::number(e.epoch) + ' ' + QByteArray::number(e.startOffset) + '\n';
    if (f.write(text) != text.size() || !f.commit())
        return Status::ioError(QStringLiteral("cannot write %1: %2").arg(m_path, f.errorString()));
    return {};
}

std::optional<std::int64_t> EpochFile::truncationPoint(const std::vector<EpochEntry> &local,
    std::int64_t localEnd, const std::vector<EpochEntry> &master, std::int64_t masterEnd)
{
    if (local.empty())
        return std::min(localEnd, masterEnd);
    // An epoch's end: where the next entry of the same history starts, else that log's end.
    auto endOf = [](const std::vector<EpochEntry> &h, std::size_t i, std::int64_t logEnd) {
        return i + 1 < h.size() ? h[i + 1].startOffset : logEnd;
    };
    for (std::size_t i = local.size(); i-- > 0;) {
        const auto it = std::find_if(master.begin(), master.end(),
            [&](const EpochEntry &m) { return m.epoch == local[i].epoch; });
        if (it == master.end() || it->startOffset != local[i].startOffset)
            continue;
        const auto j = static_cast<std::size_t>(it - master.begin());
        return std::min(endOf(local, i, localEnd), endOf(master, j, masterEnd));
    }
    return std::nullopt;
}

} // namespace qrocket::broker::controller
