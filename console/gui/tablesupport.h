#pragma once

// Helpers every console table uses: a sortable, filterable QTableView over a SyncTableModel
// (sorting by SortRole, so numbers sort as numbers), with the column widths and sort order
// remembered in QSettings under "tables/<key>", and a note label for stale / unsupported parts.

#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace qrocket::console {

struct Table
{
    QTableView *view = nullptr;
    /// The view's proxy when it is a QSortFilterProxyModel (null for a table with its own).
    QSortFilterProxyModel *proxy = nullptr;
    /// The view's proxy, whatever it is.
    QAbstractProxyModel *mapping = nullptr;
};

/// A table over `model` (owned elsewhere), its proxy (`proxy`, or a QSortFilterProxyModel)
/// parented to the view. `key` names the QSettings entry of its header state. A proxy of another
/// kind sorts by its own rules (its sort() is called with the header's column).
Table makeTable(QAbstractItemModel *model, const QString &key, QWidget *parent,
    QAbstractProxyModel *proxy = nullptr);
/// The model index of the current row's column 0, mapped to the source model (invalid if none).
QModelIndex currentSourceRow(const Table &t);
/// A word-wrapped, rich-text note label ("needs QRocket broker extension"...), hidden when empty.
QLabel *makeNote(QWidget *parent);
void setNote(QLabel *label, const QString &html);

} // namespace qrocket::console
