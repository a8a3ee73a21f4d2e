// The cluster view's election table (see electionmodel.h).

#include "console/gui/electionmodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QFont>

namespace qrocket::console {

ElectionModel::ElectionModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::electionsUpdated, this, &ElectionModel::refresh);
    refresh();
}

int ElectionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ElectionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void ElectionModel::refresh()
{
    std::vector<Row> fresh;
    for (const ElectionState &e : m_session->elections()) {
        for (const ReplicaView &r : e.replicas)
            fresh.push_back({e.brokerName, r.address});
    }
    // Keep the session's order (by brokerName, the master first): a new master moves up.
    const bool reordered = fresh.size() == m_rows.size() && fresh != m_rows;
    if (reordered) {
        beginResetModel();
        m_rows = std::move(fresh);
        endResetModel();
        return;
    }
    syncRows(m_rows, std::move(fresh), [](const Row &r) { return r.brokerName + '/' + r.address; });
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

QVariant ElectionModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Broker", "Epoch", "Replica", "Role", "SyncStateSet",
            "Commit log end", "Behind master"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Epoch:
            return tr("The newest epoch any replica reports (GET_BROKER_EPOCH_CACHE): each "
                      "election through etcd starts a new one");
        case SyncStateSet:
            return tr("In the SyncStateSet recorded in etcd (as the master reports it): SYNC "
                      "sends wait for these replicas, and only they may be elected");
        case Offset:
            return tr("The replica's commit-log end (maxOffset of GET_BROKER_EPOCH_CACHE)");
        case Behind:
            return tr("The master's commit-log end minus this replica's");
        default:
            return tr("Controller mode (enableControllerMode): masters elected through etcd");
        }
    }
    return {};
}

QVariant ElectionModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    const ElectionState *e = m_session->election(row.brokerName);
    if (!e)
        return {};
    const ReplicaView *r = nullptr;
    for (const ReplicaView &v : e->replicas) {
        if (v.address == row.address)
            r = &v;
    }
    if (!r)
        return {};
    const bool isMaster = r->role == ReplicaView::Role::Master;
    const bool fresh
        = e->changedMono > 0 && ClusterSession::nowMono() - e->changedMono < kHighlightMs;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case BrokerName:
            return QString::fromUtf8(row.brokerName);
        case Epoch:
            return e->epoch > 0 ? QVariant(qlonglong(e->epoch)) : QVariant(QStringLiteral("—"));
        case Replica:
            return QString::fromUtf8(r->address);
        case Role:
            if (isMaster && fresh)
                return tr("master (new)");
            return replicaRoleText(r->role);
        case SyncStateSet:
            return r->inSyncStateSet ? tr("in set") : tr("—");
        case Offset:
            return r->maxOffset >= 0 ? formatCount(r->maxOffset) : tr("—");
        case Behind:
            if (isMaster)
                return tr("—");
            return r->behind >= 0 ? formatBytes(r->behind) : tr("—");
        default:
            return {};
        }
    case SortRole:
        switch (index.column()) {
        case Epoch:
            return qlonglong(e->epoch);
        case Offset:
            return qlonglong(r->maxOffset);
        case Behind:
            return qlonglong(r->behind);
        case Role:
            return replicaRoleText(r->role);
        case SyncStateSet:
            return r->inSyncStateSet;
        default:
            return data(index, Qt::DisplayRole);
        }
    case KeyRole:
        return row.brokerName + '/' + row.address;
    case Qt::FontRole:
        if (isMaster) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == Role) {
            if (r->role == ReplicaView::Role::Unreachable)
                return badColor();
            if (isMaster)
                return okColor();
        }
        if (index.column() == SyncStateSet && !r->inSyncStateSet)
            return warnColor();
        return {};
    case Qt::BackgroundRole:
        if (isMaster && fresh) {
            QColor c = okColor();
            c.setAlpha(60);
            return c;
        }
        return {};
    case Qt::ToolTipRole:
        if (!r->error.isEmpty())
            return r->error;
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Epoch || index.column() == Offset || index.column() == Behind)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

} // namespace qrocket::console
