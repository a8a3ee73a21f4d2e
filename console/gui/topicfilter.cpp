// The topics tab's filter and sort (see TopicFilter in topicmodel.h).

#include "console/gui/format.h"
#include "console/gui/topicmodel.h"

#include <algorithm>
#include <climits>

namespace qrocket::console {

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

int compareInts(int a, int b)
{
    return a < b ? -1 : (a > b ? 1 : 0);
}

} // namespace

void TopicFilter::setSourceModel(QAbstractItemModel *model)
{
    beginResetModel();
    if (sourceModel())
        disconnect(sourceModel(), nullptr, this, nullptr);
    QAbstractProxyModel::setSourceModel(model);
    m_model = qobject_cast<TopicModel *>(model);
    if (model) {
        using M = QAbstractItemModel;
        connect(model, &M::modelAboutToBeReset, this, [this] { beginResetModel(); });
        connect(model, &M::modelReset, this, [this] {
            rebuild();
            endResetModel();
        });
        connect(model, &M::rowsAboutToBeRemoved, this, [this](const QModelIndex &p, int f, int l) {
            if (!p.isValid())
                sourceRowsAboutToBeRemoved(f, l);
        });
        connect(model, &M::rowsRemoved, this, [this](const QModelIndex &p, int f, int l) {
            if (!p.isValid())
                sourceRowsRemoved(f, l);
        });
        connect(model, &M::rowsInserted, this, [this](const QModelIndex &p, int f, int l) {
            if (!p.isValid())
                sourceRowsInserted(f, l);
        });
        connect(model, &M::dataChanged, this, &TopicFilter::sourceDataChanged);
        connect(
            model, &M::layoutAboutToBeChanged, this, &TopicFilter::sourceLayoutAboutToBeChanged);
        connect(model, &M::layoutChanged, this, &TopicFilter::sourceLayoutChanged);
        connect(model, &M::headerDataChanged, this, &M::headerDataChanged);
        // Gone first (the views' children go in their order): nothing is read of it any more.
        // No signal: QAbstractProxyModel emits none either, and the dying model cannot answer.
        connect(model, &QObject::destroyed, this, [this] {
            m_model = nullptr;
            m_rows.clear();
            m_map.clear();
        });
    }
    rebuild();
    endResetModel();
}

void TopicFilter::setTypeMask(int mask)
{
    if (mask == m_mask)
        return;
    m_mask = mask;
    refilter();
}

void TopicFilter::setSearch(const QString &text)
{
    if (text == m_search)
        return;
    m_search = text;
    refilter();
}

QModelIndex TopicFilter::index(int row, int column, const QModelIndex &parent) const
{
    if (parent.isValid() || row < 0 || static_cast<std::size_t>(row) >= m_rows.size() || column < 0
        || column >= columnCount())
        return {};
    return createIndex(row, column);
}

int TopicFilter::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TopicFilter::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() || !sourceModel() ? 0 : sourceModel()->columnCount();
}

bool TopicFilter::hasChildren(const QModelIndex &parent) const
{
    return !parent.isValid() && !m_rows.empty() && columnCount() > 0;
}

QModelIndex TopicFilter::mapToSource(const QModelIndex &proxy) const
{
    if (!proxy.isValid() || !sourceModel()
        || static_cast<std::size_t>(proxy.row()) >= m_rows.size())
        return {};
    return sourceModel()->index(m_rows[static_cast<std::size_t>(proxy.row())], proxy.column());
}

QModelIndex TopicFilter::mapFromSource(const QModelIndex &source) const
{
    if (!source.isValid() || source.parent().isValid()
        || static_cast<std::size_t>(source.row()) >= m_map.size())
        return {};
    const int row = m_map[static_cast<std::size_t>(source.row())];
    return row < 0 ? QModelIndex() : createIndex(row, source.column());
}

bool TopicFilter::accepts(int sourceRow) const
{
    if (!m_model)
        return true;
    const TopicInfo *t = m_model->topicAt(sourceRow);
    if (!t || !(m_mask & (1 << static_cast<int>(t->type))))
        return false;
    if (m_search.isEmpty())
        return true;
    // Latin-1 is UTF-8 for ASCII names: searched in place, not converted per row and keystroke.
    if (isAscii(t->name))
        return QLatin1StringView(t->name).contains(m_search, Qt::CaseInsensitive);
    return QString::fromUtf8(t->name).contains(m_search, Qt::CaseInsensitive);
}

int TopicFilter::compareKeys(int a, int b) const
{
    // Read from the rows: no QVariant or QString per comparison (a sort of 100,000 rows makes
    // about two million of them). Numbers as numbers, text case-insensitively.
    const TopicInfo *x = m_model ? m_model->topicAt(a) : nullptr;
    const TopicInfo *y = m_model ? m_model->topicAt(b) : nullptr;
    if (!x || !y)
        return 0;
    switch (m_column) {
    case TopicModel::Name:
        return compareNames(x->name, y->name);
    case TopicModel::Type:
        return compareInts(static_cast<int>(x->type), static_cast<int>(y->type));
    case TopicModel::Brokers:
        return compareInts(x->brokers, y->brokers);
    case TopicModel::ReadQueues:
        return compareInts(x->readQueues, y->readQueues);
    case TopicModel::WriteQueues:
        return compareInts(x->writeQueues, y->writeQueues);
    default: // perm and order: compared as the text shown
        return QString::compare(m_model->index(a, m_column).data().toString(),
            m_model->index(b, m_column).data().toString(), Qt::CaseInsensitive);
    }
}

bool TopicFilter::before(int a, int b) const
{
    if (m_column >= 0) {
        const int c = compareKeys(a, b);
        if (c != 0)
            return m_order == Qt::AscendingOrder ? c < 0 : c > 0;
    }
    return a < b;
}

void TopicFilter::remap()
{
    m_map.assign(static_cast<std::size_t>(sourceModel() ? sourceModel()->rowCount() : 0), -1);
    for (std::size_t p = 0; p < m_rows.size(); ++p)
        m_map[static_cast<std::size_t>(m_rows[p])] = static_cast<int>(p);
}

void TopicFilter::rebuild()
{
    m_rows.clear();
    const int n = sourceModel() ? sourceModel()->rowCount() : 0;
    for (int s = 0; s < n; ++s) {
        if (accepts(s))
            m_rows.push_back(s);
    }
    sortRows(m_rows);
    remap();
}

void TopicFilter::sortRows(std::vector<int> &rows) const
{
    const auto less = [this](int a, int b) { return before(a, b); };
    if (m_column < 0) {
        std::sort(rows.begin(), rows.end());
        return;
    }
    std::size_t inversions = 0;
    for (std::size_t i = 1; i < rows.size(); ++i)
        inversions += !less(rows[i - 1], rows[i]);
    if (inversions == 0)
        return;
    if (inversions * 64 > rows.size()) {
        std::sort(rows.begin(), rows.end(), less);
        return;
    }
    // Nearly sorted (rows in the source's name order, sorted by name case-insensitively): the
    // rows of every pair out of order are taken out until none is left, sorted and merged back.
    std::vector<int> out;
    std::vector<char> bad;
    for (int pass = 0;; ++pass) {
        bad.assign(rows.size(), 0);
        bool any = false;
        for (std::size_t i = 1; i < rows.size(); ++i) {
            if (!less(rows[i - 1], rows[i])) {
                bad[i - 1] = bad[i] = 1;
                any = true;
            }
        }
        if (!any)
            break;
        if (pass == kMaxMergePasses) {
            rows.insert(rows.end(), out.begin(), out.end());
            std::sort(rows.begin(), rows.end(), less);
            return;
        }
        std::size_t kept = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (bad[i])
                out.push_back(rows[i]);
            else
                rows[kept++] = rows[i];
        }
        rows.resize(kept);
    }
    std::sort(out.begin(), out.end(), less);
    std::vector<int> merged(rows.size() + out.size());
    std::merge(rows.begin(), rows.end(), out.begin(), out.end(), merged.begin(), less);
    rows.swap(merged);
}

template<typename Change>
void TopicFilter::relayout(Change change, QAbstractItemModel::LayoutChangeHint hint)
{
    emit layoutAboutToBeChanged({}, hint);
    const QModelIndexList from = persistentIndexList();
    std::vector<int> sources;
    sources.reserve(static_cast<std::size_t>(from.size()));
    for (const QModelIndex &i : from) {
        sources.push_back(static_cast<std::size_t>(i.row()) < m_rows.size()
                ? m_rows[static_cast<std::size_t>(i.row())]
                : -1);
    }
    change();
    QModelIndexList to;
    to.reserve(from.size());
    for (qsizetype k = 0; k < from.size(); ++k) {
        const int s = sources[static_cast<std::size_t>(k)];
        const int p = s >= 0 && static_cast<std::size_t>(s) < m_map.size()
            ? m_map[static_cast<std::size_t>(s)]
            : -1;
        to << (p < 0 ? QModelIndex() : createIndex(p, from[k].column()));
    }
    changePersistentIndexList(from, to);
    emit layoutChanged({}, hint);
}

void TopicFilter::mergeIn(std::vector<int> rows)
{
    if (rows.empty())
        return;
    const auto less = [this](int a, int b) { return before(a, b); };
    sortRows(rows);
    std::vector<int> merged(m_rows.size() + rows.size());
    std::merge(m_rows.begin(), m_rows.end(), rows.begin(), rows.end(), merged.begin(), less);
    m_rows.swap(merged);
}

void TopicFilter::sort(int column, Qt::SortOrder order)
{
    if (column >= columnCount())
        column = -1;
    relayout(
        [&] {
            m_column = column;
            m_order = order;
            // From the source's order (one pass over the map): by name, that is nearly sorted.
            m_rows.clear();
            for (std::size_t s = 0; s < m_map.size(); ++s) {
                if (m_map[s] >= 0)
                    m_rows.push_back(static_cast<int>(s));
            }
            sortRows(m_rows);
            remap();
        },
        QAbstractItemModel::VerticalSortHint);
}

void TopicFilter::refilter()
{
    // Rows that stay keep their places; those that come are merged in: ranged signals when
    // they are few, else one layoutChanged, so the selection and the scroll position survive
    // a keystroke in the search field.
    const int n = sourceModel() ? sourceModel()->rowCount() : 0;
    std::vector<char> accepted(static_cast<std::size_t>(n));
    std::vector<int> shown;
    bool hides = false;
    for (int s = 0; s < n; ++s) {
        accepted[static_cast<std::size_t>(s)] = accepts(s);
        const bool visible = m_map[static_cast<std::size_t>(s)] >= 0;
        if (accepted[static_cast<std::size_t>(s)] && !visible)
            shown.push_back(s);
        hides = hides || (!accepted[static_cast<std::size_t>(s)] && visible);
    }
    if (!hides) { // more rows: inserted where they go (a few ranges when sorted by name)
        insertRows(std::move(shown));
        return;
    }
    if (shown.empty()) { // fewer rows: removed, when they are a few ranges
        std::vector<int> gone;
        for (std::size_t p = 0; p < m_rows.size(); ++p) {
            if (!accepted[static_cast<std::size_t>(m_rows[p])])
                gone.push_back(static_cast<int>(p));
        }
        if (removeRanges(std::move(gone)))
            return;
    }
    relayout(
        [&] {
            std::erase_if(m_rows, [&](int s) { return !accepted[static_cast<std::size_t>(s)]; });
            mergeIn(std::move(shown));
            remap();
        },
        QAbstractItemModel::NoLayoutChangeHint);
}

bool TopicFilter::removeRanges(std::vector<int> gone)
{
    std::sort(gone.begin(), gone.end());
    int ranges = 0;
    for (std::size_t k = 0; k < gone.size(); ++k)
        ranges += k == 0 || gone[k] != gone[k - 1] + 1;
    if (ranges > kMaxRangeSignals)
        return false;
    for (std::size_t k = gone.size(); k > 0;) {
        const int to = gone[--k];
        int from = to;
        while (k > 0 && gone[k - 1] + 1 == from)
            from = gone[--k];
        beginRemoveRows({}, from, to);
        m_rows.erase(m_rows.begin() + from, m_rows.begin() + to + 1);
        remap();
        endRemoveRows();
    }
    return true;
}

void TopicFilter::sourceRowsAboutToBeRemoved(int first, int last)
{
    // Removed while the source still has the rows: the proxy's rows read them meanwhile.
    std::vector<int> gone;
    for (int s = first; s <= last; ++s) {
        if (const int p = m_map[static_cast<std::size_t>(s)]; p >= 0)
            gone.push_back(p);
    }
    if (gone.empty() || removeRanges(std::move(gone)))
        return;
    relayout(
        [&] {
            std::erase_if(m_rows, [&](int s) { return s >= first && s <= last; });
            remap();
        },
        QAbstractItemModel::NoLayoutChangeHint);
}

void TopicFilter::sourceRowsRemoved(int first, int last)
{
    const int count = last - first + 1;
    for (int &s : m_rows) {
        if (s > last)
            s -= count;
    }
    remap();
}

void TopicFilter::sourceRowsInserted(int first, int last)
{
    const int count = last - first + 1;
    for (int &s : m_rows) {
        if (s >= first)
            s += count;
    }
    remap();
    std::vector<int> fresh;
    for (int s = first; s <= last; ++s) {
        if (accepts(s))
            fresh.push_back(s);
    }
    insertRows(std::move(fresh));
}

void TopicFilter::insertRows(std::vector<int> fresh)
{
    if (fresh.empty())
        return;
    const auto less = [this](int a, int b) { return before(a, b); };
    sortRows(fresh);
    std::vector<int> places; // where each goes in m_rows as it is now
    places.reserve(fresh.size());
    auto from = m_rows.begin();
    const bool walk = fresh.size() * 16 > m_rows.size(); // many: one pass, not a search each
    for (int s : fresh) {
        if (walk) {
            while (from != m_rows.end() && less(*from, s))
                ++from;
        } else {
            from = std::lower_bound(from, m_rows.end(), s, less);
        }
        places.push_back(static_cast<int>(from - m_rows.begin()));
    }
    int ranges = 0;
    for (std::size_t k = 0; k < places.size(); ++k)
        ranges += k == 0 || places[k] != places[k - 1];
    if (ranges > kMaxRangeSignals) {
        relayout(
            [&] {
                mergeIn(std::move(fresh));
                remap();
            },
            QAbstractItemModel::NoLayoutChangeHint);
        return;
    }
    // Last place first, so that the earlier places hold.
    for (std::size_t k = fresh.size(); k > 0;) {
        const std::size_t end = k;
        const int place = places[--k];
        while (k > 0 && places[k - 1] == place)
            --k;
        const auto n = static_cast<int>(end - k);
        beginInsertRows({}, place, place + n - 1);
        m_rows.insert(m_rows.begin() + place, fresh.begin() + static_cast<std::ptrdiff_t>(k),
            fresh.begin() + static_cast<std::ptrdiff_t>(end));
        remap();
        endInsertRows();
    }
}

void TopicFilter::sourceDataChanged(
    const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles)
{
    if (!topLeft.isValid() || topLeft.parent().isValid() || !bottomRight.isValid())
        return;
    const int first = topLeft.row();
    const int last = bottomRight.row();
    const auto changed = [&](int s) { return s >= first && s <= last; };
    // The filter reads the name and the type only; the order, the sort column.
    const bool refilters = topLeft.column() <= TopicModel::Type;
    const bool resorts = m_column >= topLeft.column() && m_column <= bottomRight.column();
    std::vector<char> accepted;
    std::vector<int> shown;
    bool hides = false;
    if (refilters) {
        accepted.resize(static_cast<std::size_t>(last - first + 1));
        for (int s = first; s <= last; ++s) {
            const bool now = accepts(s);
            accepted[static_cast<std::size_t>(s - first)] = now;
            const bool visible = m_map[static_cast<std::size_t>(s)] >= 0;
            if (now && !visible)
                shown.push_back(s);
            hides = hides || (!now && visible);
        }
    }
    std::vector<int> rows; // the rows that stay in place, when any move
    std::vector<int> movers;
    bool moves = false;
    if (hides || !shown.empty() || resorts) {
        rows = m_rows;
        if (hides) {
            std::erase_if(rows, [&](int s) {
                return changed(s) && !accepted[static_cast<std::size_t>(s - first)];
            });
        }
    }
    if (resorts) {
        // The unchanged rows are still in order among themselves: every pair out of order has
        // a changed row, which is taken out. A few passes find them all (a changed row can be
        // in order with neighbours that are taken out next to it); past kMaxMergePasses the
        // rows are sorted whole.
        for (int pass = 0;; ++pass) {
            std::vector<char> out(rows.size(), 0);
            bool any = false;
            for (std::size_t i = 1; i < rows.size(); ++i) {
                if (!before(rows[i - 1], rows[i])) {
                    any = true;
                    out[i - 1] = out[i - 1] || changed(rows[i - 1]);
                    out[i] = out[i] || changed(rows[i]);
                }
            }
            if (!any)
                break;
            if (pass == kMaxMergePasses) {
                rows.insert(rows.end(), movers.begin(), movers.end());
                movers.clear();
                std::sort(rows.begin(), rows.end(), [this](int a, int b) { return before(a, b); });
                moves = true;
                break;
            }
            std::size_t kept = 0;
            for (std::size_t i = 0; i < rows.size(); ++i) {
                if (out[i])
                    movers.push_back(rows[i]);
                else
                    rows[kept++] = rows[i];
            }
            rows.resize(kept);
            moves = true;
        }
    }
    if (hides || !shown.empty() || moves) {
        movers.insert(movers.end(), shown.begin(), shown.end());
        relayout(
            [&] {
                m_rows.swap(rows);
                mergeIn(std::move(movers));
                remap();
            },
            hides || !shown.empty() ? QAbstractItemModel::NoLayoutChangeHint
                                    : QAbstractItemModel::VerticalSortHint);
    }
    int lo = INT_MAX;
    int hi = -1;
    for (int s = first; s <= last; ++s) {
        if (const int p = m_map[static_cast<std::size_t>(s)]; p >= 0) {
            lo = std::min(lo, p);
            hi = std::max(hi, p);
        }
    }
    if (hi >= 0)
        emit dataChanged(index(lo, topLeft.column()), index(hi, bottomRight.column()), roles);
}

void TopicFilter::sourceLayoutAboutToBeChanged()
{
    emit layoutAboutToBeChanged();
    m_layoutFrom = persistentIndexList();
    m_layoutSources.clear();
    for (const QModelIndex &i : m_layoutFrom)
        m_layoutSources << QPersistentModelIndex(mapToSource(i));
}

void TopicFilter::sourceLayoutChanged()
{
    // Rows may have come and gone as well: rebuilt, the persistent indexes follow their
    // source rows (kept by the source's own persistent index update).
    rebuild();
    QModelIndexList to;
    to.reserve(m_layoutSources.size());
    for (const QPersistentModelIndex &s : m_layoutSources)
        to << mapFromSource(s);
    changePersistentIndexList(m_layoutFrom, to);
    m_layoutFrom.clear();
    m_layoutSources.clear();
    emit layoutChanged();
}

} // namespace qrocket::console
