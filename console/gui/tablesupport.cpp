// Table helpers (see tablesupport.h).

#include "console/gui/tablesupport.h"

#include "console/gui/rowsync.h"

#include <QHeaderView>
#include <QSettings>

namespace qrocket::console {

Table makeTable(
    QAbstractItemModel *model, const QString &key, QWidget *parent, QAbstractProxyModel *proxy)
{
    Table t;
    t.view = new QTableView(parent);
    t.view->setObjectName(key);
    t.mapping = proxy ? proxy : new QSortFilterProxyModel(t.view);
    t.mapping->setParent(t.view);
    t.mapping->setSourceModel(model);
    t.proxy = qobject_cast<QSortFilterProxyModel *>(t.mapping);
    if (t.proxy) {
        t.proxy->setSortRole(SyncTableModel::SortRole);
        t.proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
        t.proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    }
    t.view->setModel(t.mapping);
    t.view->setSortingEnabled(true);
    t.view->setAlternatingRowColors(true);
    t.view->setSelectionBehavior(QAbstractItemView::SelectRows);
    t.view->setSelectionMode(QAbstractItemView::SingleSelection);
    t.view->setTabKeyNavigation(false);
    t.view->setWordWrap(false);
    t.view->verticalHeader()->setVisible(false);
    t.view->verticalHeader()->setDefaultSectionSize(t.view->fontMetrics().height() + 8);
    // Stretching the last column pushes a right-aligned figure far from its header: only
    // tables whose last column is text turn it on.
    t.view->horizontalHeader()->setStretchLastSection(false);
    t.view->horizontalHeader()->setSectionsMovable(true);
    t.view->horizontalHeader()->setHighlightSections(false);
    t.view->setIconSize(QSize(14, 14));

    QHeaderView *header = t.view->horizontalHeader();
    const QString settingsKey = QStringLiteral("tables/") + key;
    QSettings settings;
    const QByteArray state = settings.value(settingsKey).toByteArray();
    if (state.isEmpty() || !header->restoreState(state)) {
        header->setDefaultSectionSize(110);
        t.view->sortByColumn(0, Qt::AscendingOrder);
    }
    // restoreState brings back an old stretch setting too: the view decides that, not the file.
    header->setStretchLastSection(false);
    auto save = [header, settingsKey] { QSettings().setValue(settingsKey, header->saveState()); };
    QObject::connect(header, &QHeaderView::sectionResized, header, save);
    QObject::connect(header, &QHeaderView::sortIndicatorChanged, header, save);
    QObject::connect(header, &QHeaderView::sectionMoved, header, save);
    return t;
}

QModelIndex currentSourceRow(const Table &t)
{
    const QModelIndex current = t.view->currentIndex();
    if (!current.isValid())
        return {};
    return t.mapping->mapToSource(current.siblingAtColumn(0));
}

QLabel *makeNote(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setVisible(false);
    return label;
}

void setNote(QLabel *label, const QString &html)
{
    if (label->text() != html)
        label->setText(html);
    label->setVisible(!html.isEmpty());
}

} // namespace qrocket::console
