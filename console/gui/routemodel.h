#pragma once

// RouteQueueModel: one row per queue of the focus topic's route (GET_ROUTEINFO_BY_TOPIC's
// queueDatas), with readable / writable from the queue counts, the broker's permission, and the
// per-queue min / max offset and last update from GET_TOPIC_STATS_INFO. Synced in place.

#include "clientlib/protocol/bodies/routebodies.h"
#include "console/gui/rowsync.h"

namespace qrocket::console {

class ClusterSession;

class RouteQueueModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column {
        Broker,
        Queue,
        Access,
        Perm,
        MinOffset,
        MaxOffset,
        Messages,
        LastUpdate,
        ColumnCount
    };

    explicit RouteQueueModel(ClusterSession *session, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void refresh();

private:
    struct Row
    {
        QByteArray brokerName;
        int queueId = 0;
        bool readable = false;
        bool writable = false;
        int perm = 0;
        bool hasStats = false;
        std::int64_t minOffset = 0;
        std::int64_t maxOffset = 0;
        std::int64_t lastUpdate = 0;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
    bool m_stale = false;
};

} // namespace qrocket::console
