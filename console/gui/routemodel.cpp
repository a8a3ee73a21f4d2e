// The route's queue table (see routemodel.h).

#include "console/gui/routemodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QDateTime>

namespace qrocket::console {

RouteQueueModel::RouteQueueModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::focusTopicUpdated, this, &RouteQueueModel::refresh);
    refresh();
}

int RouteQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RouteQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void RouteQueueModel::refresh()
{
    std::vector<Row> fresh;
    const auto &route = m_session->focusRoute();
    const auto &stats = m_session->focusStats();
    if (route) {
        for (const protocol::QueueData &q : route->queueDatas) {
            const int n = std::max(q.readQueueNums, q.writeQueueNums);
            for (int id = 0; id < n; ++id) {
                Row r;
                r.brokerName = q.brokerName;
                r.queueId = id;
                r.readable = id < q.readQueueNums;
                r.writable = id < q.writeQueueNums;
                r.perm = q.perm;
                if (stats) {
                    auto it = stats->offsetTable.find({m_session->focusTopic(), q.brokerName, id});
                    if (it != stats->offsetTable.end()) {
                        r.hasStats = true;
                        r.minOffset = it->second.minOffset;
                        r.maxOffset = it->second.maxOffset;
                        r.lastUpdate = it->second.lastUpdateTimestamp;
                    }
                }
                fresh.push_back(r);
            }
        }
    }
    const bool stale = !m_session->focusTopicPart().error.isEmpty();
    syncRows(m_rows, std::move(fresh),
        [](const Row &r) { return r.brokerName + '#' + QByteArray::number(r.queueId); });
    if (stale != m_stale && !m_rows.empty()) {
        m_stale = stale;
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    }
    m_stale = stale;
}

QVariant RouteQueueModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Broker", "Queue", "Access", "Perm", "Min offset",
            "Max offset", "Messages", "Last update"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        if (section <= Perm)
            return tr("GET_ROUTEINFO_BY_TOPIC (queue ids below readQueueNums are read, below "
                      "writeQueueNums written)");
        return tr("GET_TOPIC_STATS_INFO of the queue's broker, every second");
    }
    return {};
}

QVariant RouteQueueModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Broker:
            return QString::fromUtf8(r.brokerName);
        case Queue:
            return r.queueId;
        case Access:
            return QStringLiteral("%1%2").arg(r.readable ? QStringLiteral("read ") : QString(),
                r.writable ? QStringLiteral("write") : QString());
        case Perm:
            return formatPerm(r.perm);
        case MinOffset:
            return r.hasStats ? formatCount(r.minOffset) : QStringLiteral("-");
        case MaxOffset:
            return r.hasStats ? formatCount(r.maxOffset) : QStringLiteral("-");
        case Messages:
            return r.hasStats ? formatCount(r.maxOffset - r.minOffset) : QStringLiteral("-");
        case LastUpdate:
            return r.lastUpdate ? formatAgo(QDateTime::currentMSecsSinceEpoch() - r.lastUpdate)
                                : tr("never");
        }
        break;
    case SortRole:
        switch (col) {
        case Queue:
            return r.queueId;
        case MinOffset:
            return static_cast<qlonglong>(r.minOffset);
        case MaxOffset:
            return static_cast<qlonglong>(r.maxOffset);
        case Messages:
            return static_cast<qlonglong>(r.maxOffset - r.minOffset);
        case LastUpdate:
            return static_cast<qlonglong>(r.lastUpdate);
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((col == Queue || col >= MinOffset ? Qt::AlignRight : Qt::AlignLeft)
                | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (m_stale || (col >= MinOffset && !r.hasStats))
            return staleColor();
        break;
    case Qt::ToolTipRole:
        if (col == LastUpdate && r.lastUpdate)
            return formatTimestamp(r.lastUpdate);
        if (m_stale)
            return plainToolTip(tr("Stale: %1").arg(m_session->focusTopicPart().error));
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
