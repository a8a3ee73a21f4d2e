#pragma once

// StoreFileModel: the storage tab's commit-log file table for every master: path, size, age,
// when it expires and why it is kept (the QRocket broker extension storeFiles). Synced in place.

#include "clientlib/client/admin/adminbodies.h"
#include "console/gui/rowsync.h"

namespace qrocket::console {

class ClusterSession;

class StoreFileModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { Broker, File, Size, Age, Expires, Reason, ColumnCount };

    explicit StoreFileModel(ClusterSession *session, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void refresh();
    /// The file names listed now (for tests: a cleanup removes what was listed).
    QStringList files() const;

private:
    struct Row
    {
        QByteArray broker;
        client::admin::StoreFile file;
        std::int64_t brokerNow = 0;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
};

} // namespace qrocket::console
