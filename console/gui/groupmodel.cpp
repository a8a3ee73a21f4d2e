// The consumer-group table (see groupmodel.h).

#include "console/gui/groupmodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

namespace qrocket::console {

GroupModel::GroupModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::groupsUpdated, this, &GroupModel::refresh);
    refresh();
}

int GroupModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GroupModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const GroupInfo *GroupModel::groupAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_rows[static_cast<std::size_t>(row)];
}

void GroupModel::refresh()
{
    syncRows(m_rows, m_session->groups(), [](const GroupInfo &g) { return g.name; });
}

QVariant GroupModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Group", "Mode", "Brokers", "Topics", "Queues", "Lag",
            "Consume TPS", "In flight", "Revive backlog", "Updated", "State"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Name:
        case Brokers:
            return tr("GET_ALL_SUBSCRIPTIONGROUP_CONFIG of every master (every 10 s)");
        case Mode:
            return tr("The group's message request mode on the masters (SET_MESSAGE_REQUEST_MODE, "
                      "qrocket-admin setConsumeMode): PULL, POP, or PULL+POP when it pops some "
                      "topics and pulls others");
        case InFlight:
            return tr("POP: messages popped and neither acked nor revived yet, invisible to the "
                      "group until their invisible time ends (every master, every 10 s)");
        case ReviveBacklog:
            return tr("POP: messages in flight whose invisible time is over and that the broker "
                      "has not revived yet (back to the group's retry topic or the DLQ)");
        case Updated:
            return tr("Age of the group's GET_CONSUME_STATS (asked round-robin, %1 groups a "
                      "second)")
                .arg(ClusterSession::kGroupStatsBudget);
        case Tps:
            return tr("GET_CONSUME_STATS consumeTps: each broker's average over its last minute "
                      "of the messages the group pulled (RocketMQ's tpsGroupGetNums, as "
                      "consumerProgress shows it), summed over the brokers; its age is Updated");
        default:
            return tr("GET_CONSUME_STATS of the brokers of the group's %RETRY% topic: lag = "
                      "broker offset - consumer offset, summed over the queues");
        }
    }
    return {};
}

QVariant GroupModel::data(const QModelIndex &index, int role) const
{
    const GroupInfo *g = groupAt(index.row());
    if (!g)
        return {};
    const int col = index.column();
    const std::int64_t age = g->statsOkMono ? ClusterSession::nowMono() - g->statsOkMono : -1;
    const bool stale = !g->statsKnown || age > 30000;
    const bool numeric = col >= Brokers && col <= Updated;
    const bool noConsumer = g->statsKnown && !g->statsError.isEmpty();
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Name:
            return QString::fromUtf8(g->name);
        case Mode:
            return g->mode.isEmpty() ? QStringLiteral("-") : QString::fromUtf8(g->mode);
        case InFlight:
            return g->mode.isEmpty() ? QStringLiteral("-") : formatCount(g->popInFlight);
        case ReviveBacklog:
            return g->mode.isEmpty() ? QStringLiteral("-") : formatCount(g->reviveBacklog);
        case Brokers:
            return formatCount(g->brokers);
        case Topics:
            return g->statsKnown ? formatCount(g->topics) : QStringLiteral("-");
        case Queues:
            return g->statsKnown ? formatCount(g->queues) : QStringLiteral("-");
        case Lag:
            return g->statsKnown ? formatCount(g->lag) : QStringLiteral("-");
        case Tps:
            return g->statsKnown ? formatRate(g->consumeTps) : QStringLiteral("-");
        case Updated:
            return age < 0 ? tr("pending") : formatAgo(age);
        case State:
            if (!g->statsKnown)
                return g->statsError.isEmpty() ? tr("waiting for stats") : tr("error");
            if (noConsumer)
                return g->statsError.contains(QStringLiteral("206")) ? tr("no consumer online")
                                                                     : tr("never consumed");
            return g->consumeEnable ? tr("consuming") : tr("consume disabled");
        }
        break;
    case SortRole:
        switch (col) {
        case Brokers:
            return g->brokers;
        case Topics:
            return g->topics;
        case Queues:
            return g->queues;
        case Lag:
            return static_cast<qlonglong>(g->statsKnown ? g->lag : -1);
        case Tps:
            return g->consumeTps;
        case InFlight:
            return static_cast<qlonglong>(g->popInFlight);
        case ReviveBacklog:
            return static_cast<qlonglong>(g->reviveBacklog);
        case Updated:
            return static_cast<qlonglong>(age);
        default:
            return data(index, Qt::DisplayRole);
        }
    case KeyRole:
        return g->name;
    case StaleRole:
        return stale;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (stale && col != Name)
            return staleColor();
        if (col == State && !g->statsError.isEmpty())
            return warnColor();
        if (col == ReviveBacklog && g->reviveBacklog > 0)
            return warnColor();
        break;
    case Qt::ToolTipRole:
        if (!g->statsError.isEmpty())
            return plainToolTip(g->statsError);
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
