// The commit-log file table (see storagemodel.h).

#include "console/gui/storagemodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QFileInfo>

namespace qrocket::console {

StoreFileModel::StoreFileModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::storageUpdated, this, &StoreFileModel::refresh);
    refresh();
}

int StoreFileModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int StoreFileModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QStringList StoreFileModel::files() const
{
    QStringList out;
    for (const Row &r : m_rows)
        out << QString::fromUtf8(r.file.path);
    return out;
}

void StoreFileModel::refresh()
{
    std::vector<Row> fresh;
    for (const BrokerInfo &b : m_session->brokers()) {
        if (!b.storeFiles || !b.registered)
            continue;
        for (const client::admin::StoreFile &f : b.storeFiles->files)
            fresh.push_back({b.brokerName, f, b.storeFiles->now});
    }
    syncRows(m_rows, std::move(fresh), [](const Row &r) { return r.broker + '|' + r.file.path; });
}

QVariant StoreFileModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[]
            = {"Broker", "Commit-log file", "Size", "Age", "Expires", "Why kept"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole)
        return tr("storeFiles (QRocket broker extension), every 5 s");
    return {};
}

QVariant StoreFileModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    const std::int64_t toExpiry = r.file.expiresAt - r.brokerNow;
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Broker:
            return QString::fromUtf8(r.broker);
        case File:
            return QFileInfo(QString::fromUtf8(r.file.path)).fileName();
        case Size:
            return formatBytes(r.file.size);
        case Age:
            return formatDuration(r.file.ageMillis);
        case Expires:
            return toExpiry <= 0 ? tr("expired %1").arg(formatAgo(-toExpiry))
                                 : formatAgo(-toExpiry);
        case Reason:
            return QString::fromUtf8(r.file.reasonKept);
        }
        break;
    case SortRole:
        switch (col) {
        case Size:
            return static_cast<qlonglong>(r.file.size);
        case Age:
            return static_cast<qlonglong>(r.file.ageMillis);
        case Expires:
            return static_cast<qlonglong>(r.file.expiresAt);
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(
            (col == Size || col == Age || col == Expires ? Qt::AlignRight : Qt::AlignLeft)
            | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (col == Expires && toExpiry <= 0)
            return warnColor();
        break;
    case Qt::ToolTipRole:
        if (col == File)
            return plainToolTip(QString::fromUtf8(r.file.path));
        if (col == Expires)
            return formatTimestamp(r.file.expiresAt);
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
