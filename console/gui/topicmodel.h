#pragma once

// TopicModel: the topics tab's table, one row per topic of the name server's list, with what the
// masters' GET_ALL_TOPIC_CONFIG say about it (brokers, queue counts, permission). Synced in place
// from ClusterSession::topics(). TopicFilter filters by type and by a search text.

#include "console/gui/rowsync.h"
#include "console/gui/sessiontypes.h"

#include <QAbstractProxyModel>
#include <QPersistentModelIndex>

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
    /// The row of `name` (the rows are sorted by name), or -1.
    int rowOf(const QByteArray &name) const;
    void refresh();

private:
    ClusterSession *m_session;
    std::vector<TopicInfo> m_rows;
};

/// The topics tab's filter (type mask, search text) and sort, over a TopicModel: a flat proxy
/// that keeps its permutation itself. QSortFilterProxyModel re-sorts every row of a changed
/// span (at 100,000 topics a refresh sorted by a changing column cost a full sort); here the
/// rows of the span that are out of place are taken out and merged back in one pass and one
/// layoutChanged, so selection and scroll position stay. Equal keys keep the source (name)
/// order, in both directions. Handles what TopicModel emits: reset, row ranges inserted and
/// removed, dataChanged, layoutChanged (rebuilt, persistent indexes kept).
class TopicFilter : public QAbstractProxyModel
{
    Q_OBJECT

public:
    using QAbstractProxyModel::QAbstractProxyModel;
    void setSourceModel(QAbstractItemModel *model) override;
    /// Bit (1 << TopicType) per type shown.
    void setTypeMask(int mask);
    int typeMask() const { return m_mask; }
    void setSearch(const QString &text);
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    int sortColumn() const { return m_column; }
    Qt::SortOrder sortOrder() const { return m_order; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &) const override { return {}; }
    QModelIndex sibling(int row, int column, const QModelIndex &) const override
    {
        return index(row, column);
    }
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    QModelIndex mapToSource(const QModelIndex &proxy) const override;
    QModelIndex mapFromSource(const QModelIndex &source) const override;

    /// Rows out of place above which a changed span is sorted whole instead (the merge's
    /// passes are linear; this bounds them).
    static constexpr int kMaxMergePasses = 8;
    /// Row ranges inserted or removed above which they are one layoutChanged instead: a view
    /// pays for each signal over all of its rows.
    static constexpr int kMaxRangeSignals = 16;

private:
    bool accepts(int sourceRow) const;
    /// The sort order, total: the key, then the source row.
    bool before(int a, int b) const;
    int compareKeys(int a, int b) const;
    /// Rebuilds m_map from m_rows.
    void remap();
    /// The rows again from scratch (filtered, sorted).
    void rebuild();
    /// `change` rearranges m_rows (and m_map) inside one layoutChanged; the persistent indexes
    /// follow their source rows (invalid when gone). `sourceRows` of the proxy's persistent
    /// indexes are taken before, through the current m_rows.
    template<typename Change>
    void relayout(Change change, QAbstractItemModel::LayoutChangeHint hint);
    /// Sorts source rows by the sort order; rows nearly in order already (the source's order
    /// when sorted by name) cost a few linear passes, not a sort.
    void sortRows(std::vector<int> &rows) const;
    /// Sorts `rows` and merges them into m_rows (sorted), in one pass.
    void mergeIn(std::vector<int> rows);
    /// Removes proxy rows `gone` as ranged signals; false (nothing done) past kMaxRangeSignals.
    bool removeRanges(std::vector<int> gone);
    /// Inserts source rows `fresh` (accepted, not shown) where they go: ranged signals, or one
    /// layoutChanged past kMaxRangeSignals.
    void insertRows(std::vector<int> fresh);
    void refilter();
    void sourceRowsAboutToBeRemoved(int first, int last);
    void sourceRowsRemoved(int first, int last);
    void sourceRowsInserted(int first, int last);
    void sourceDataChanged(
        const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);
    void sourceLayoutAboutToBeChanged();
    void sourceLayoutChanged();

    TopicModel *m_model = nullptr; // the source model (read directly: no qobject_cast per row)
    int m_mask = 0xF;
    QString m_search;
    int m_column = -1; // unsorted: the source order
    Qt::SortOrder m_order = Qt::AscendingOrder;
    std::vector<int> m_rows; // proxy row -> source row
    std::vector<int> m_map; // source row -> proxy row, -1 when filtered out
    QModelIndexList m_layoutFrom; // across a source layout change
    QList<QPersistentModelIndex> m_layoutSources;
};

} // namespace qrocket::console
