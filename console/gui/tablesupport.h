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
    QSortFilterProxyModel *proxy = nullptr;
};

/// A table over `model` (owned elsewhere), its proxy (`proxy`, or a plain one) parented to the
/// view. `key` names the QSettings entry of its header state.
Table makeTable(QAbstractItemModel *model, const QString &key, QWidget *parent,
    QSortFilterProxyModel *proxy = nullptr);
/// The model index of the current row's column 0, mapped to the source model (invalid if none).
QModelIndex currentSourceRow(const Table &t);
/// A word-wrapped, rich-text note label ("needs QRocket broker extension"...), hidden when empty.
QLabel *makeNote(QWidget *parent);
void setNote(QLabel *label, const QString &html);

} // namespace qrocket::console
