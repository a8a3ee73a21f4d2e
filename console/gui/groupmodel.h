#pragma once

// GroupModel: the consumers tab's group table: every subscription group of the masters'
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG, with total lag, consume TPS, topic and queue counts from its
// GET_CONSUME_STATS (refreshed round-robin by the session, kGroupStatsBudget a second, so each
// row says how old its figures are), and its POP mode, messages in flight and revive backlog
// (QRocket's kGetPopStats, with the catalogue). Synced in place from ClusterSession::groups().

#include "console/gui/rowsync.h"
#include "console/gui/sessiontypes.h"

namespace qrocket::console {

class ClusterSession;

class GroupModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column {
        Name,
        Mode,
        Brokers,
        Topics,
        Queues,
        Lag,
        Tps,
        InFlight,
        ReviveBacklog,
        Updated,
        State,
        ColumnCount
    };

    explicit GroupModel(ClusterSession *session, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    const GroupInfo *groupAt(int row) const;
    void refresh();

private:
    ClusterSession *m_session;
    std::vector<GroupInfo> m_rows;
};

} // namespace qrocket::console
