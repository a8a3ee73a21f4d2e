// The topics table and its filter (see topicmodel.h).

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

const TopicInfo *TopicModel::topicAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_rows[static_cast<std::size_t>(row)];
}

void TopicModel::refresh()
{
    syncRows(m_rows, m_session->topics(), [](const TopicInfo &t) { return t.name; });
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

void TopicFilter::setTypeMask(int mask)
{
    if (mask == m_mask)
        return;
    m_mask = mask;
    invalidateFilter();
}

void TopicFilter::setSearch(const QString &text)
{
    if (text == m_search)
        return;
    m_search = text;
    invalidateFilter();
}

bool TopicFilter::filterAcceptsRow(int row, const QModelIndex &parent) const
{
    auto *model = qobject_cast<TopicModel *>(sourceModel());
    if (!model)
        return true;
    const TopicInfo *t = model->topicAt(row);
    if (!t || !(m_mask & (1 << static_cast<int>(t->type))))
        return false;
    Q_UNUSED(parent);
    return m_search.isEmpty() || QString::fromUtf8(t->name).contains(m_search, Qt::CaseInsensitive);
}

} // namespace qrocket::console
