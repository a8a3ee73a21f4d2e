// The cluster view's broker table (see brokermodel.h).

#include "console/gui/brokermodel.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

namespace qrocket::console {

BrokerModel::BrokerModel(ClusterSession *session, QObject *parent)
    : SyncTableModel(parent), m_session(session)
{
    connect(session, &ClusterSession::brokersUpdated, this, &BrokerModel::refresh);
    refresh();
}

int BrokerModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int BrokerModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void BrokerModel::refresh()
{
    std::vector<Row> fresh;
    for (const BrokerInfo &b : m_session->brokers())
        fresh.push_back({b.address});
    syncRows(m_rows, std::move(fresh), [](const Row &r) { return r.address; });
    // Values live in the session: every row's figures may have changed.
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void BrokerModel::tick()
{
    if (!m_rows.empty())
        emit dataChanged(index(0, Heartbeat), index(rowCount() - 1, ExpiresIn));
}

QVariant BrokerModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[]
            = {"Broker", "ID / role", "Address", "Version", "Last heartbeat", "Liveness",
                "Expires in", "Put TPS", "Get TPS", "Disk", "Commit log min", "Commit log max"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Heartbeat:
            return tr("Age of the broker's last registration at the name server "
                      "(brokerLiveness, a QRocket name-server extension)");
        case State:
            return tr("live; late: no heartbeat for its registerNameServerPeriod and a half; "
                      "expired: past the name server's brokerChannelExpiredTime or dropped");
        case ExpiresIn:
            return tr("Time left before the name server drops the broker "
                      "(brokerChannelExpiredTime minus the heartbeat age)");
        case PutTps:
        case GetTps:
            return tr("From GET_BROKER_RUNTIME_INFO: msgPut/GetTotalTodayNow sampled a second "
                      "apart (putTps / getTransferedTps when there is no earlier sample)");
        case Disk:
            return tr("commitLogDiskRatio from GET_BROKER_RUNTIME_INFO (used / (used + "
                      "available), as df and the broker's clean service); \"full\": the "
                      "broker refuses writes (diskFull)");
        case MinOffset:
        case MaxOffset:
            return tr("commitLogMin/MaxOffset from GET_BROKER_RUNTIME_INFO");
        default:
            return tr("GET_BROKER_CLUSTER_INFO and GET_BROKER_RUNTIME_INFO");
        }
    }
    return {};
}

QVariant BrokerModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const BrokerInfo *b = m_session->broker(m_rows[static_cast<std::size_t>(index.row())].address);
    if (!b)
        return {};
    const int col = index.column();
    const Liveness live = m_session->liveness(*b);
    const std::int64_t age = m_session->heartbeatAge(*b);
    const bool runtimeStale
        = !b->runtimeOk || !b->registered || ClusterSession::nowMono() - b->runtimeOkMono > 3500;
    const bool livenessStale
        = m_session->livenessSupported() && !m_session->livenessPart().error.isEmpty();
    const bool numeric = col >= Heartbeat && col != State && col != Address;
    switch (role) {
    case Qt::DisplayRole:
        switch (col) {
        case Name:
            return QString::fromUtf8(b->brokerName);
        case Role:
            return QStringLiteral("%1 (%2)")
                .arg(b->brokerId)
                .arg(b->brokerId == 0 ? QStringLiteral("master") : QStringLiteral("slave"));
        case Address:
            return QString::fromUtf8(b->address);
        case Version:
            return b->version.isEmpty() ? QStringLiteral("-") : QString::fromUtf8(b->version);
        case Heartbeat:
            if (!m_session->livenessSupported())
                return tr("n/a (stock name server)");
            return age < 0 ? QStringLiteral("-") : formatAgo(age);
        case State:
            return livenessText(live);
        case ExpiresIn:
            if (age < 0)
                return QStringLiteral("-");
            if (live == Liveness::Expired)
                return tr("expired");
            return formatDuration(std::max<std::int64_t>(0, m_session->expiryMs() - age));
        case PutTps:
            return formatRate(b->putTps);
        case GetTps:
            return formatRate(b->getTps);
        case Disk:
            return b->diskFull ? tr("%1 full").arg(formatRatio(b->diskRatio))
                               : formatRatio(b->diskRatio);
        case MinOffset:
            return formatCount(b->commitLogMinOffset);
        case MaxOffset:
            return formatCount(b->commitLogMaxOffset);
        }
        break;
    case SortRole:
        switch (col) {
        case Role:
            return static_cast<qlonglong>(b->brokerId);
        case Heartbeat:
            return static_cast<qlonglong>(age);
        case State:
            return static_cast<int>(live);
        case ExpiresIn:
            return static_cast<qlonglong>(age < 0 ? -1 : m_session->expiryMs() - age);
        case PutTps:
            return b->putTps;
        case GetTps:
            return b->getTps;
        case Disk:
            return b->diskRatio;
        case MinOffset:
            return static_cast<qlonglong>(b->commitLogMinOffset);
        case MaxOffset:
            return static_cast<qlonglong>(b->commitLogMaxOffset);
        default:
            return data(index, Qt::DisplayRole);
        }
    case KeyRole:
        return b->address;
    case StaleRole:
        return col >= PutTps ? runtimeStale : (col >= Heartbeat ? livenessStale : false);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(
            Qt::Alignment((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (col == State || col == Name)
            return livenessColor(live);
        if ((col >= PutTps && runtimeStale) || (col >= Heartbeat && col < PutTps && livenessStale))
            return staleColor();
        if (col == Disk && (b->diskFull || b->diskRatio > 0.85))
            return b->diskFull || b->diskRatio > 0.90 ? badColor() : warnColor();
        break;
    case Qt::DecorationRole:
        if (col == State)
            return livenessIcon(live);
        break;
    case Qt::ToolTipRole:
        if (col >= PutTps && runtimeStale) {
            return b->runtimeError.isEmpty()
                ? tr("No fresh runtime info (last answer %1)")
                      .arg(b->runtimeOkMono
                              ? formatAgo(ClusterSession::nowMono() - b->runtimeOkMono)
                              : tr("never"))
                : plainToolTip(tr("GET_BROKER_RUNTIME_INFO failed: %1").arg(b->runtimeError));
        }
        if (col == Heartbeat || col == State || col == ExpiresIn) {
            if (!m_session->livenessSupported())
                return tr("The name server has no brokerLiveness (QRocket extension): the "
                          "state says only whether it lists the broker");
            if (livenessStale)
                return tr("brokerLiveness failed: %1").arg(m_session->livenessPart().error);
            return tr("Last registration %1, late after %2, expired after %3")
                .arg(formatTimestamp(b->lastHeartbeatEpochMs),
                    formatDuration(ClusterSession::lateAfterMs(*b)),
                    formatDuration(m_session->expiryMs()));
        }
        return headerData(col, Qt::Horizontal, Qt::ToolTipRole);
    }
    return {};
}

} // namespace qrocket::console
