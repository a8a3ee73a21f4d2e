#pragma once

// BrokerModel: the cluster view's table, one row per broker address, read from the session.
// Rows follow the session's broker list in place; the heartbeat-age and liveness columns are
// refreshed every second by tick() (the age counts on between two liveness answers, so a broker
// that stops heartbeating turns late, then expired, without a poll changing anything).

#include "console/gui/rowsync.h"

namespace qrocket::console {

class ClusterSession;

class BrokerModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column {
        Name,
        Role,
        Address,
        Version,
        Heartbeat,
        State,
        ExpiresIn,
        PutTps,
        GetTps,
        Disk,
        MinOffset,
        MaxOffset,
        ColumnCount
    };

    explicit BrokerModel(ClusterSession *session, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    /// Re-reads the session (connected to brokersUpdated).
    void refresh();
    /// Ages and liveness move on (a 1 s timer of the view).
    void tick();

private:
    struct Row
    {
        QByteArray address;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
};

} // namespace qrocket::console
