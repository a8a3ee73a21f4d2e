// The focus group's queue and connection tables (see consumerdetail.h).

#include "console/gui/consumerdetail.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QDateTime>

namespace qrocket::console {

QString mqVersionName(int ordinal)
{
    // MQVersion.Version: from V4_9_0 (393) on, a SNAPSHOT ordinal then the release one.
    if (ordinal >= 393 && ordinal <= 419 && ordinal % 2 == 1)
        return QStringLiteral("V4_9_%1").arg((ordinal - 393) / 2);
    switch (ordinal) {
    case 37:
        return QStringLiteral("V3_0_11");
    case 121:
        return QStringLiteral("V3_4_9");
    case 317:
        return QStringLiteral("V4_5_2");
    case 333:
        return QStringLiteral("V4_6_0");
    default:
        return QStringLiteral("ordinal %1").arg(ordinal);
    }
}

ConsumerQueueModel::ConsumerQueueModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::focusGroupUpdated, this, &ConsumerQueueModel::refresh);
}

int ConsumerQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConsumerQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void ConsumerQueueModel::setQueueOwners(std::map<protocol::MessageQueue, QByteArray> owners)
{
    m_owners = std::move(owners);
    refresh();
}

std::int64_t ConsumerQueueModel::totalLag() const
{
    std::int64_t lag = 0;
    for (const Row &r : m_rows)
        lag += r.offsets.lag();
    return lag;
}

void ConsumerQueueModel::refresh()
{
    std::vector<Row> fresh;
    if (const auto &stats = m_session->focusConsumeStats()) {
        for (const auto &[queue, offsets] : stats->offsetTable) {
            auto owner = m_owners.find(queue);
            fresh.push_back(
                {queue, offsets, owner == m_owners.end() ? QByteArray() : owner->second});
        }
    }
    syncRows(m_rows, std::move(fresh), [](const Row &r) {
        return r.queue.topic + '@' + r.queue.brokerName + '#' + QByteArray::number(r.queue.queueId);
    });
}

QVariant ConsumerQueueModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {"Topic", "Broker", "Queue", "Broker offset",
            "Consumer offset", "Lag", "Last consumed", "Client"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        return section == Client
            ? tr("mqTable of each connected client's GET_CONSUMER_RUNNING_INFO")
            : tr("GET_CONSUME_STATS of the group (every 2 s)");
    }
    return {};
}

QVariant ConsumerQueueModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    const int col = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Topic:
            return QString::fromUtf8(r.queue.topic);
        case Broker:
            return QString::fromUtf8(r.queue.brokerName);
        case Queue:
            return r.queue.queueId;
        case BrokerOffset:
            return formatCount(r.offsets.brokerOffset);
        case ConsumerOffset:
            return formatCount(r.offsets.consumerOffset);
        case Lag:
            return formatCount(r.offsets.lag());
        case LastConsumed:
            return r.offsets.lastTimestamp
                ? formatAgo(QDateTime::currentMSecsSinceEpoch() - r.offsets.lastTimestamp)
                : tr("never");
        case Client:
            return r.client.isEmpty() ? QStringLiteral("-") : QString::fromUtf8(r.client);
        }
        break;
    case SortRole:
        switch (col) {
        case Queue:
            return r.queue.queueId;
        case BrokerOffset:
            return static_cast<qlonglong>(r.offsets.brokerOffset);
        case ConsumerOffset:
            return static_cast<qlonglong>(r.offsets.consumerOffset);
        case Lag:
            return static_cast<qlonglong>(r.offsets.lag());
        case LastConsumed:
            return static_cast<qlonglong>(r.offsets.lastTimestamp);
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((col >= Queue && col <= LastConsumed ? Qt::AlignRight : Qt::AlignLeft)
                | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (!m_session->focusGroupPart().error.isEmpty())
            return staleColor();
        if (col == Lag && r.offsets.lag() > 0)
            return warnColor();
        break;
    case Qt::ToolTipRole:
        if (col == LastConsumed && r.offsets.lastTimestamp)
            return formatTimestamp(r.offsets.lastTimestamp);
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

ConnectionModel::ConnectionModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::focusGroupUpdated, this, &ConnectionModel::refresh);
}

int ConnectionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConnectionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void ConnectionModel::refresh()
{
    std::vector<Row> fresh;
    if (const auto &cc = m_session->focusConnection()) {
        QStringList subs;
        for (const auto &[topic, sub] : cc->subscriptionTable)
            subs << QStringLiteral("%1 (%2)").arg(
                QString::fromUtf8(topic), QString::fromUtf8(sub.subString));
        const QString subText = subs.join(QStringLiteral(", "));
        for (const client::admin::Connection &c : cc->connectionSet)
            fresh.push_back({c, subText});
    }
    syncRows(m_rows, std::move(fresh), [](const Row &r) { return r.connection.clientId; });
}

QVariant ConnectionModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[]
            = {"Client id", "Address", "Language", "Version", "Subscriptions"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole)
        return tr("GET_CONSUMER_CONNECTION_LIST from the brokers of the group's %RETRY% topic");
    return {};
}

QVariant ConnectionModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row &r = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        switch (index.column()) {
        case ClientId:
            return QString::fromUtf8(r.connection.clientId);
        case Address:
            return QString::fromUtf8(r.connection.clientAddr);
        case Language:
            return QString::fromUtf8(r.connection.language);
        case Version:
            if (role == SortRole)
                return r.connection.version;
            return mqVersionName(r.connection.version);
        case Subscriptions:
            return r.subscriptions;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Subscriptions)
            return r.subscriptions;
        return headerData(index.column(), Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
