// The topics table (see topicmodel.h; its filter is in topicfilter.cpp).

#include "console/gui/topicmodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

namespace qrocket::console {

TopicModel::TopicModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::topicsUpdated, this, &TopicModel::refresh);
    refresh();
}

int TopicModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TopicModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QModelIndex TopicModel::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || !topicAt(row) || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column);
}

int TopicModel::rowOf(const QByteArray &name) const
{
    const auto it = std::lower_bound(m_rows.begin(), m_rows.end(), name,
        [](const TopicInfo &t, const QByteArray &n) { return t.name < n; });
    return it != m_rows.end() && it->name == name ? static_cast<int>(it - m_rows.begin()) : -1;
}

void TopicModel::refresh()
{
    // The session's list is sorted by name (prepared off the GUI thread): a merge against ours.
    syncSortedRows(
        m_rows, m_session->topics(),
        [](const TopicInfo &t) -> const QByteArray & { return t.name; },
        [](const TopicInfo &a, const TopicInfo &b) {
            int first = ColumnCount;
            int last = -1;
            const auto mark = [&](bool differs, int column) {
                if (differs) {
                    first = std::min(first, column);
                    last = std::max(last, column);
                }
            };
            mark(a.type != b.type, Type);
            mark(a.brokers != b.brokers, Brokers);
            mark(a.brokers != b.brokers, Perm); // "-" without a broker
            mark(a.readQueues != b.readQueues, ReadQueues);
            mark(a.writeQueues != b.writeQueues, WriteQueues);
            mark(a.perm != b.perm, Perm);
            mark(a.order != b.order, Order);
            return last < 0 ? std::pair {0, ColumnCount - 1} : std::pair {first, last};
        });
}

QVariant TopicModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[]
            = {"Topic", "Type", "Brokers", "Read queues", "Write queues", "Perm", "Order"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        if (section == Name)
            return tr("GET_ALL_TOPIC_LIST_FROM_NAMESERVER");
        if (section == Type)
            return tr("From the name: %RETRY%, %DLQ%, RocketMQ's built-in topics and the name "
                      "server's system topic list");
        return tr("Summed over the masters' GET_ALL_TOPIC_CONFIG (polled every 10 s)");
    }
    return {};
}

QVariant TopicModel::data(const QModelIndex &index, int role) const
{
    const TopicInfo *t = topicAt(index.row());
    if (!t)
        return {};
    const int col = index.column();
    const bool numeric = col == Brokers || col == ReadQueues || col == WriteQueues;
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Name:
            return QString::fromUtf8(t->name);
        case Type:
            return topicTypeText(t->type);
        case Brokers:
            return formatCount(t->brokers);
        case ReadQueues:
            return formatCount(t->readQueues);
        case WriteQueues:
            return formatCount(t->writeQueues);
        case Perm:
            return t->brokers ? formatPerm(t->perm) : QStringLiteral("-");
        case Order:
            return t->order ? tr("yes") : tr("no");
        }
        break;
    case SortRole:
        switch (col) {
        case Brokers:
            return t->brokers;
        case ReadQueues:
            return t->readQueues;
        case WriteQueues:
            return t->writeQueues;
        case Type:
            return static_cast<int>(t->type);
        default:
            return data(index, Qt::DisplayRole);
        }
    case KeyRole:
        return t->name;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (col == Type && t->type != TopicType::Normal)
            return staleColor();
        if (col == Brokers && t->brokers == 0)
            return warnColor();
        break;
    case Qt::ToolTipRole:
        if (col == Brokers && t->brokers == 0)
            return tr("No master reported a config for this topic (yet)");
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
