#pragma once

// TopicModel: the topics tab's table, one row per topic of the name server's list, with what the
// masters' GET_ALL_TOPIC_CONFIG say about it (brokers, queue counts, permission). Synced in place
// from ClusterSession::topics(). TopicFilter filters by type and by a search text.

#include "console/gui/rowsync.h"
#include "console/gui/sessiontypes.h"

#include <QSortFilterProxyModel>

namespace qrocket::console {

class ClusterSession;

class TopicModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { Name, Type, Brokers, ReadQueues, WriteQueues, Perm, Order, ColumnCount };

    explicit TopicModel(ClusterSession *session, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    /// Without QAbstractTableModel's rowCount/columnCount calls: a sort of 100,000 rows makes
    /// four million indexes.
    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    const TopicInfo *topicAt(int row) const
    {
        return row >= 0 && static_cast<std::size_t>(row) < m_rows.size()
            ? &m_rows[static_cast<std::size_t>(row)]
            : nullptr;
    }
    void refresh();

private:
    ClusterSession *m_session;
    std::vector<TopicInfo> m_rows;
};

class TopicFilter : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    void setSourceModel(QAbstractItemModel *model) override;
    /// Bit (1 << TopicType) per type shown.
    void setTypeMask(int mask);
    int typeMask() const { return m_mask; }
    void setSearch(const QString &text);

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override;
    /// The SortRole order (numbers as numbers, text case-insensitively), read from the rows.
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    TopicModel *m_model = nullptr; // the source model (read directly: no qobject_cast per row)
    int m_mask = 0xF;
    QString m_search;
};

} // namespace qrocket::console
