#pragma once

// ElectionModel: the cluster view's election table for controller-mode brokers (issue 28), one
// row per replica of each controller-mode brokerName, read from ClusterSession::elections():
// the brokerName's epoch, the replica, its role (master / follower / unreachable), whether it is
// in the SyncStateSet, its commit-log end and how far it is behind the master. The master's row
// is bold; for kHighlightMs after an election seen live it is highlighted. Empty (and the panel
// hidden) without controller-mode brokers.

#include "console/gui/rowsync.h"

namespace qrocket::console {

class ClusterSession;

class ElectionModel : public SyncTableModel
{
    Q_OBJECT

public:
    static constexpr std::int64_t kHighlightMs = 15000;
    enum Column { BrokerName, Epoch, Replica, Role, SyncStateSet, Offset, Behind, ColumnCount };

    explicit ElectionModel(ClusterSession *session, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

    /// Re-reads the session (connected to electionsUpdated).
    void refresh();

private:
    struct Row
    {
        QByteArray brokerName;
        QByteArray address;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
};

} // namespace qrocket::console
