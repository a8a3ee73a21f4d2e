#pragma once

// SyncTableModel: a QAbstractTableModel base whose rows follow a fresh list in place: rows that
// went away are removed (contiguous ranges), rows that changed get dataChanged (contiguous runs),
// new rows are appended in one insert. The proxies and views above keep their selection,
// scroll position and sort, and a refresh that changes nothing emits nothing. A first fill (or, in
// syncRows, a change of more than half the rows) is one reset, cheaper than thousands of inserts.
//
// syncSortedRows does the same for lists kept sorted by their key (the topic catalogue: 100,000
// rows and more): one merge pass, no hashing; a changed row's dataChanged covers only the columns
// that changed, so that a proxy sorted by another column does not re-sort anything; new rows are
// inserted where they belong, so the list stays sorted. Many scattered ranges (or half the rows
// gone) are one layoutChanged, the persistent indexes following their keys.

#include <QAbstractTableModel>
#include <QHash>

#include <algorithm>
#include <vector>

namespace qrocket::console {

class SyncTableModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    /// Roles every console model answers besides the standard ones.
    enum Roles {
        SortRole = Qt::UserRole + 1, ///< the raw value, for sorting (numbers as numbers)
        KeyRole, ///< the row's key (topic, group, broker address) as a QByteArray
        StaleRole, ///< true when the row's figures are out of date
    };

protected:
    /// Row-range signals (removed or inserted runs) above which syncSortedRows resets instead:
    /// a sorting proxy pays for each of them over all of its rows.
    static constexpr std::size_t kMaxRangeSignals = 64;

    /// `rows` and `fresh` sorted ascending by `key` (a QByteArray, unique). `columns(old, new)`
    /// gives the first and last column that differ between two versions of a row.
    template<typename Row, typename KeyFn, typename ColumnsFn>
    void syncSortedRows(
        std::vector<Row> &rows, const std::vector<Row> &fresh, KeyFn key, ColumnsFn columns)
    {
        if (rows.empty() || fresh.empty()) {
            if (rows.empty() && fresh.empty())
                return;
            beginResetModel();
            rows = fresh;
            endResetModel();
            return;
        }
        struct Change
        {
            std::size_t row, fresh;
            int first, last;
        };
        std::vector<std::size_t> gone; // indexes in rows
        std::vector<std::pair<std::size_t, std::size_t>> added; // (before rows[i], fresh[j])
        std::vector<Change> changed;
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < rows.size() && j < fresh.size()) {
            const int c = key(rows[i]).compare(key(fresh[j]));
            if (c < 0) {
                gone.push_back(i++);
            } else if (c > 0) {
                added.emplace_back(i, j++);
            } else {
                if (!(rows[i] == fresh[j])) {
                    const auto [first, last] = columns(rows[i], fresh[j]);
                    changed.push_back({i, j, first, last});
                }
                ++i;
                ++j;
            }
        }
        for (; i < rows.size(); ++i)
            gone.push_back(i);
        for (; j < fresh.size(); ++j)
            added.emplace_back(rows.size(), j);
        if (gone.empty() && added.empty() && changed.empty())
            return;
        std::size_t ranges = 0;
        for (std::size_t k = 0; k < gone.size(); ++k)
            ranges += k == 0 || gone[k] != gone[k - 1] + 1;
        for (std::size_t k = 0; k < added.size(); ++k)
            ranges += k == 0 || added[k].first != added[k - 1].first;
        if (ranges > kMaxRangeSignals || gone.size() * 2 > rows.size()) {
            // One layout change, not a reset: the persistent indexes (the views' selection and
            // current row) follow their rows by key, and a view keeps its scroll position.
            emit layoutAboutToBeChanged();
            const QModelIndexList from = persistentIndexList();
            QModelIndexList to;
            to.reserve(from.size());
            for (const QModelIndex &p : from) {
                const std::size_t r = static_cast<std::size_t>(p.row());
                const auto it = r < rows.size()
                    ? std::lower_bound(fresh.begin(), fresh.end(), key(rows[r]),
                        [&](const Row &a, const QByteArray &k) { return key(a).compare(k) < 0; })
                    : fresh.end();
                to << (it != fresh.end() && key(*it) == key(rows[r])
                        ? createIndex(static_cast<int>(it - fresh.begin()), p.column())
                        : QModelIndex());
            }
            rows = fresh;
            changePersistentIndexList(from, to);
            emit layoutChanged();
            return;
        }
        // Changed rows first, while the old indexes hold: one dataChanged per run of adjacent
        // rows over the columns that changed in it (or one span when the runs are many).
        std::vector<Change> runs;
        for (const Change &c : changed) {
            rows[c.row] = fresh[c.fresh];
            if (!runs.empty() && runs.back().fresh + 1 == c.row) {
                runs.back().fresh = c.row; // the run's last row
                runs.back().first = std::min(runs.back().first, c.first);
                runs.back().last = std::max(runs.back().last, c.last);
            } else {
                runs.push_back({c.row, c.row, c.first, c.last});
            }
        }
        if (runs.size() > kMaxRangeSignals) {
            int first = runs.front().first;
            int last = runs.front().last;
            for (const Change &r : runs) {
                first = std::min(first, r.first);
                last = std::max(last, r.last);
            }
            runs = {{runs.front().row, runs.back().fresh, first, last}};
        }
        for (const Change &r : runs) {
            emit dataChanged(
                index(static_cast<int>(r.row), r.first), index(static_cast<int>(r.fresh), r.last));
        }
        // Removals, last range first so that earlier indexes stay valid.
        for (std::size_t k = gone.size(); k > 0;) {
            const std::size_t last = gone[--k];
            std::size_t first = last;
            while (k > 0 && gone[k - 1] + 1 == first)
                first = gone[--k];
            beginRemoveRows({}, static_cast<int>(first), static_cast<int>(last));
            rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(first),
                rows.begin() + static_cast<std::ptrdiff_t>(last) + 1);
            endRemoveRows();
        }
        // Insertions, last place first: a place in the old list, less the rows removed before it.
        std::size_t goneBefore = gone.size();
        for (std::size_t k = added.size(); k > 0;) {
            const std::size_t place = added[--k].first;
            std::size_t first = k;
            while (first > 0 && added[first - 1].first == place)
                --first;
            while (goneBefore > 0 && gone[goneBefore - 1] >= place)
                --goneBefore;
            const std::size_t at = place - goneBefore;
            const std::size_t count = k - first + 1;
            beginInsertRows({}, static_cast<int>(at), static_cast<int>(at + count - 1));
            std::vector<Row> block;
            block.reserve(count);
            for (std::size_t a = first; a <= k; ++a)
                block.push_back(fresh[added[a].second]);
            rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(at),
                std::make_move_iterator(block.begin()), std::make_move_iterator(block.end()));
            endInsertRows();
            k = first;
        }
    }

    template<typename Row, typename KeyFn>
    void syncRows(std::vector<Row> &rows, std::vector<Row> fresh, KeyFn key)
    {
        const int cols = columnCount();
        if (rows.empty() || fresh.empty()) {
            if (rows.empty() && fresh.empty())
                return;
            beginResetModel();
            rows = std::move(fresh);
            endResetModel();
            return;
        }
        QHash<QByteArray, int> freshIndex;
        freshIndex.reserve(static_cast<qsizetype>(fresh.size()));
        for (std::size_t i = 0; i < fresh.size(); ++i)
            freshIndex.insert(key(fresh[i]), static_cast<int>(i));
        std::vector<int> gone;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (!freshIndex.contains(key(rows[i])))
                gone.push_back(static_cast<int>(i));
        }
        if (gone.size() * 2 > rows.size()) {
            beginResetModel();
            rows = std::move(fresh);
            endResetModel();
            return;
        }
        // Removals, last range first so that earlier indexes stay valid.
        for (std::size_t k = gone.size(); k > 0;) {
            const int last = gone[--k];
            int first = last;
            while (k > 0 && gone[k - 1] == first - 1)
                first = gone[--k];
            beginRemoveRows({}, first, last);
            rows.erase(rows.begin() + first, rows.begin() + last + 1);
            endRemoveRows();
        }
        std::vector<char> used(fresh.size(), 0);
        // Changed rows are gathered as runs; many scattered runs are sent as one span, since a
        // sorting proxy pays for each dataChanged separately (100 signals cost more than one
        // signal over the rows between them).
        std::vector<std::pair<int, int>> runs;
        int runStart = -1;
        auto flush = [&](int end) {
            if (runStart >= 0)
                runs.emplace_back(runStart, end);
            runStart = -1;
        };
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const int j = freshIndex.value(key(rows[i]), -1);
            if (j < 0)
                continue;
            used[static_cast<std::size_t>(j)] = 1;
            if (rows[i] == fresh[static_cast<std::size_t>(j)]) {
                flush(static_cast<int>(i) - 1);
                continue;
            }
            rows[i] = std::move(fresh[static_cast<std::size_t>(j)]);
            if (runStart < 0)
                runStart = static_cast<int>(i);
        }
        flush(static_cast<int>(rows.size()) - 1);
        if (runs.size() > 8) {
            emit dataChanged(index(runs.front().first, 0), index(runs.back().second, cols - 1));
        } else {
            for (const auto &[first, last] : runs)
                emit dataChanged(index(first, 0), index(last, cols - 1));
        }
        std::vector<Row> added;
        for (std::size_t j = 0; j < fresh.size(); ++j) {
            if (!used[j])
                added.push_back(std::move(fresh[j]));
        }
        if (!added.empty()) {
            const int first = static_cast<int>(rows.size());
            beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
            for (Row &r : added)
                rows.push_back(std::move(r));
            endInsertRows();
        }
    }
};

} // namespace qrocket::console
