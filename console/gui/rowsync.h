#pragma once

// SyncTableModel: a QAbstractTableModel base whose rows follow a fresh list in place: rows that
// went away are removed (contiguous ranges), rows that changed get dataChanged (contiguous runs),
// new rows are appended in one insert. The proxies and views above keep their selection,
// scroll position and sort, and a refresh that changes nothing emits nothing. A first fill (or a
// change of more than half the rows) is one reset, which is cheaper than thousands of inserts.

#include <QAbstractTableModel>
#include <QHash>

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
