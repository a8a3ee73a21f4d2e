#pragma once

// The consumers tab's detail tables for the focus group: ConsumerQueueModel (per queue: broker
// offset, consumer offset, lag, last consumed, and the client that holds it, from each client's
// GET_CONSUMER_RUNNING_INFO) and ConnectionModel (GET_CONSUMER_CONNECTION_LIST: address,
// language, version, subscriptions). Both synced in place.

#include "clientlib/client/admin/adminbodies.h"
#include "console/gui/rowsync.h"

#include <map>

namespace qrocket::console {

class ClusterSession;

/// "V4_9_7" for an MQVersion ordinal RocketMQ clients send (ordinal N when unknown).
QString mqVersionName(int ordinal);

class ConsumerQueueModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column {
        Topic,
        Broker,
        Queue,
        BrokerOffset,
        ConsumerOffset,
        Lag,
        LastConsumed,
        Client,
        ColumnCount
    };

    explicit ConsumerQueueModel(ClusterSession *session, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void refresh();
    /// Queue -> client id, from the clients' running info.
    void setQueueOwners(std::map<protocol::MessageQueue, QByteArray> owners);
    std::int64_t totalLag() const;

private:
    struct Row
    {
        protocol::MessageQueue queue;
        client::admin::OffsetWrapper offsets;
        QByteArray client;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
    std::map<protocol::MessageQueue, QByteArray> m_owners;
};

class ConnectionModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { ClientId, Address, Language, Version, Subscriptions, ColumnCount };

    explicit ConnectionModel(ClusterSession *session, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void refresh();

private:
    struct Row
    {
        client::admin::Connection connection;
        QString subscriptions;
        friend bool operator==(const Row &, const Row &) = default;
    };
    ClusterSession *m_session;
    std::vector<Row> m_rows;
};

} // namespace qrocket::console
