// The live TPS charts (see chartsview.h).

#include "console/gui/chartsview.h"

#include "console/gui/clustersession.h"
#include "console/gui/timechart.h"

#include <QDateTime>
#include <QVBoxLayout>

namespace qrocket::console {

ChartsView::ChartsView(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    m_put = new TimeChart(tr("Put TPS per broker (up to the last 10 min)"), tr("msgs/s"), this);
    m_get = new TimeChart(tr("Get TPS per broker (up to the last 10 min)"), tr("msgs/s"), this);
    const QString source = tr("From GET_BROKER_RUNTIME_INFO every second: the change of "
                              "msgPutTotalTodayNow / msgGetTotalTodayNow");
    m_put->setToolTip(source);
    m_get->setToolTip(source);
    layout->addWidget(m_put, 1);
    layout->addWidget(m_get, 1);
    connect(session, &ClusterSession::brokersUpdated, this, &ChartsView::refresh);
}

bool ChartsView::hasData() const
{
    return m_put->seriesCount() > 0 && m_put->pointCount() >= 2 * m_put->seriesCount();
}

void ChartsView::refresh()
{
    if (!isVisible() && hasData())
        return; // drawn again when shown (showEvent is not needed: the next poll comes in 1 s)
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    QStringList names;
    for (const BrokerInfo &b : m_session->brokers()) {
        if (b.brokerId != protocol::kMasterBrokerId && !b.registered)
            continue;
        const QString name = QStringLiteral("%1 (%2)").arg(
            QString::fromUtf8(b.brokerName), QString::fromUtf8(b.address));
        QList<QPointF> put;
        QList<QPointF> get;
        for (const BrokerSample &s : m_session->history(b.address)) {
            if (s.epochMs < now - kWindowMs)
                continue;
            put.append(QPointF(static_cast<double>(s.epochMs), s.putTps));
            get.append(QPointF(static_cast<double>(s.epochMs), s.getTps));
        }
        if (put.isEmpty())
            continue;
        names << name;
        m_put->setSeries(name, put);
        m_get->setSeries(name, get);
    }
    m_put->retainSeries(names);
    m_get->retainSeries(names);
    // The window grows with the samples, from one minute to ten, so a fresh session is readable.
    std::int64_t oldest = now;
    for (const BrokerInfo &b : m_session->brokers()) {
        const auto &h = m_session->history(b.address);
        if (!h.empty())
            oldest = std::min(oldest, h.front().epochMs);
    }
    const std::int64_t window = std::clamp<std::int64_t>(now - oldest, 60 * 1000, kWindowMs);
    m_put->finishUpdate(now, window);
    m_get->finishUpdate(now, window);
}

} // namespace qrocket::console
