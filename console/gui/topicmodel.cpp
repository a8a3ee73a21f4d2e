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

QModelIndex TopicModel::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || !topicAt(row) || column < 0 || column >= ColumnCount)
        return {};
    return createIndex(row, column);
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

void TopicFilter::setSourceModel(QAbstractItemModel *model)
{
    m_model = qobject_cast<TopicModel *>(model);
    QSortFilterProxyModel::setSourceModel(model);
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

namespace {

bool isAscii(const QByteArray &s)
{
    return std::all_of(s.begin(), s.end(), [](char c) { return (c & 0x80) == 0; });
}

/// QString::compare(a, b, Qt::CaseInsensitive) of the names as text, without converting them
/// (topic names are ASCII; anything else takes the conversion).
int compareNames(const QByteArray &a, const QByteArray &b)
{
    const char *pa = a.constData();
    const char *pb = b.constData();
    const qsizetype n = std::min(a.size(), b.size());
    for (qsizetype i = 0; i < n; ++i) {
        if (pa[i] == pb[i]) // the same bytes are the same text (and the same folded)
            continue;
        const auto ca = static_cast<unsigned char>(pa[i]);
        const auto cb = static_cast<unsigned char>(pb[i]);
        if ((ca | cb) & 0x80)
            return QString::compare(
                QString::fromUtf8(a), QString::fromUtf8(b), Qt::CaseInsensitive);
        const int la = ca >= 'A' && ca <= 'Z' ? ca + 32 : ca;
        const int lb = cb >= 'A' && cb <= 'Z' ? cb + 32 : cb;
        if (la != lb)
            return la - lb;
    }
    if (a.size() != b.size())
        return a.size() < b.size() ? -1 : 1;
    return 0;
}

} // namespace

bool TopicFilter::filterAcceptsRow(int row, const QModelIndex &parent) const
{
    if (!m_model)
        return true;
    const TopicInfo *t = m_model->topicAt(row);
    if (!t || !(m_mask & (1 << static_cast<int>(t->type))))
        return false;
    Q_UNUSED(parent);
    if (m_search.isEmpty())
        return true;
    // Latin-1 is UTF-8 for ASCII names: searched in place, not converted per row and keystroke.
    if (isAscii(t->name))
        return QLatin1StringView(t->name).contains(m_search, Qt::CaseInsensitive);
    return QString::fromUtf8(t->name).contains(m_search, Qt::CaseInsensitive);
}

bool TopicFilter::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    // What the SortRole comparison decides, read from the rows: no QVariant or QString per
    // comparison (a sort of 100,000 rows makes about two million of them).
    const TopicInfo *a = m_model ? m_model->topicAt(left.row()) : nullptr;
    const TopicInfo *b = m_model ? m_model->topicAt(right.row()) : nullptr;
    if (!a || !b || left.column() != right.column() || sortRole() != SyncTableModel::SortRole
        || sortCaseSensitivity() != Qt::CaseInsensitive || isSortLocaleAware())
        return QSortFilterProxyModel::lessThan(left, right);
    switch (left.column()) {
    case TopicModel::Name:
        return compareNames(a->name, b->name) < 0;
    case TopicModel::Type:
        return static_cast<int>(a->type) < static_cast<int>(b->type);
    case TopicModel::Brokers:
        return a->brokers < b->brokers;
    case TopicModel::ReadQueues:
        return a->readQueues < b->readQueues;
    case TopicModel::WriteQueues:
        return a->writeQueues < b->writeQueues;
    default: // perm and order: compared as the text shown
        return QSortFilterProxyModel::lessThan(left, right);
    }
}

} // namespace qrocket::console
