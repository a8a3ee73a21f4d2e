// The route picture (see routediagram.h).

#include "console/gui/routediagram.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QPainter>
#include <QPainterPath>

namespace qrocket::console {

namespace {

constexpr int kCell = 34;
constexpr int kCellGap = 4;
constexpr int kRowHeight = 64;
constexpr int kMaxCells = 16;

} // namespace

RouteDiagram::RouteDiagram(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    setObjectName(QStringLiteral("routeDiagram"));
    connect(session, &ClusterSession::focusTopicUpdated, this, qOverload<>(&QWidget::update));
    setToolTip(tr("GET_ROUTEINFO_BY_TOPIC (brokers, queue counts, perm) and GET_TOPIC_STATS_INFO "
                  "(messages per queue), refreshed every second"));
}

QSize RouteDiagram::sizeHint() const
{
    const auto &route = m_session->focusRoute();
    const int brokers = route ? std::max<int>(1, static_cast<int>(route->queueDatas.size())) : 1;
    return {900, 40 + brokers * kRowHeight};
}

QSize RouteDiagram::minimumSizeHint() const
{
    return {400, 120};
}

void RouteDiagram::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.color(QPalette::Base));
    const auto &route = m_session->focusRoute();
    const auto &stats = m_session->focusStats();
    const QByteArray topic = m_session->focusTopic();
    p.setPen(pal.color(QPalette::Text));
    if (topic.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No topic selected"));
        return;
    }
    if (!route) {
        const QString err = m_session->focusTopicPart().error;
        p.drawText(rect(), Qt::AlignCenter,
            err.isEmpty()
                ? tr("Asking the name server for the route of %1…").arg(QString::fromUtf8(topic))
                : tr("No route for %1: %2").arg(QString::fromUtf8(topic), err));
        return;
    }
    const int n = static_cast<int>(route->queueDatas.size());
    const int top = 20;
    const int totalHeight = std::max(1, n) * kRowHeight;
    // Topic box.
    const QRect topicBox(12, top + totalHeight / 2 - 24, 170, 48);
    p.setBrush(pal.color(QPalette::Highlight).darker(130));
    p.setPen(pal.color(QPalette::Highlight));
    p.drawRoundedRect(topicBox, 6, 6);
    p.setPen(Qt::white);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(topicBox.adjusted(6, 2, -6, -20), Qt::AlignLeft | Qt::AlignVCenter,
        p.fontMetrics().elidedText(
            QString::fromUtf8(topic), Qt::ElideMiddle, topicBox.width() - 12));
    p.setFont(font());
    p.drawText(topicBox.adjusted(6, 22, -6, -2), Qt::AlignLeft | Qt::AlignVCenter,
        tr("topic · %1 broker(s)").arg(n));

    const int brokerX = topicBox.right() + 60;
    const int brokerW = 250;
    const int cellsX = brokerX + brokerW + 40;
    for (int i = 0; i < n; ++i) {
        const protocol::QueueData &q = route->queueDatas[static_cast<std::size_t>(i)];
        const int y = top + i * kRowHeight;
        const QRect box(brokerX, y + 6, brokerW, kRowHeight - 12);
        QByteArray master;
        for (const protocol::BrokerData &bd : route->brokerDatas) {
            if (bd.brokerName == q.brokerName)
                master = bd.masterAddr();
        }
        // Edge topic -> broker.
        QPainterPath edge;
        edge.moveTo(topicBox.right(), topicBox.center().y());
        edge.cubicTo(topicBox.right() + 30, topicBox.center().y(), brokerX - 30, box.center().y(),
            brokerX, box.center().y());
        p.setBrush(Qt::NoBrush);
        const bool writable = protocol::Perm::isWriteable(q.perm);
        const bool readable = protocol::Perm::isReadable(q.perm);
        QPen edgePen(writable && readable ? okColor() : warnColor(), 2);
        if (!writable)
            edgePen.setStyle(Qt::DashLine);
        p.setPen(edgePen);
        p.drawPath(edge);
        // Broker box.
        p.setBrush(pal.color(QPalette::Button));
        p.setPen(pal.color(QPalette::Mid));
        p.drawRoundedRect(box, 5, 5);
        p.setPen(pal.color(QPalette::ButtonText));
        p.setFont(bold);
        p.drawText(box.adjusted(8, 2, -8, -box.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
            QString::fromUtf8(q.brokerName));
        p.setFont(font());
        const QString permText
            = QStringLiteral("perm %1%2")
                  .arg(formatPerm(q.perm), master.isEmpty() ? tr(" · no master") : QString());
        p.drawText(
            box.adjusted(8, 2, -8, -box.height() / 2), Qt::AlignRight | Qt::AlignVCenter, permText);
        p.drawText(box.adjusted(8, box.height() / 2, -8, -2), Qt::AlignLeft | Qt::AlignVCenter,
            tr("%1 · R %2 / W %3")
                .arg(QString::fromUtf8(master.isEmpty() ? QByteArray("-") : master))
                .arg(q.readQueueNums)
                .arg(q.writeQueueNums));
        // Queue cells.
        const int queues = std::max(q.readQueueNums, q.writeQueueNums);
        const int shown = std::min(queues, kMaxCells);
        p.setPen(QPen(pal.color(QPalette::Mid), 1));
        p.drawLine(box.right(), box.center().y(), cellsX, box.center().y());
        for (int id = 0; id < shown; ++id) {
            const QRect cell(cellsX + id * (kCell + kCellGap), y + 10, kCell, kRowHeight - 20);
            const bool r = id < q.readQueueNums && readable;
            const bool w = id < q.writeQueueNums && writable;
            QColor fill = r && w ? okColor() : (r || w ? warnColor() : staleColor());
            fill.setAlpha(70);
            p.setBrush(fill);
            p.setPen(fill.lighter(160));
            p.drawRoundedRect(cell, 3, 3);
            p.setPen(pal.color(QPalette::Text));
            const QString rw
                = QStringLiteral("%1%2").arg(r ? QStringLiteral("R") : QStringLiteral("-"),
                    w ? QStringLiteral("W") : QStringLiteral("-"));
            p.drawText(cell.adjusted(0, 1, 0, -cell.height() / 2), Qt::AlignCenter,
                QStringLiteral("%1 %2").arg(id).arg(rw));
            if (stats) {
                auto it = stats->offsetTable.find({topic, q.brokerName, id});
                if (it != stats->offsetTable.end()) {
                    QFont small = font();
                    small.setPointSizeF(small.pointSizeF() * 0.8);
                    p.setFont(small);
                    p.drawText(cell.adjusted(0, cell.height() / 2, 0, 0), Qt::AlignCenter,
                        QString::number(it->second.maxOffset - it->second.minOffset));
                    p.setFont(font());
                }
            }
        }
        if (queues > shown) {
            p.drawText(QRect(cellsX + shown * (kCell + kCellGap), y + 10, 80, kRowHeight - 20),
                Qt::AlignLeft | Qt::AlignVCenter, tr("+%1 more").arg(queues - shown));
        }
    }
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRect(12, height() - 20, width() - 24, 18), Qt::AlignLeft | Qt::AlignVCenter,
        tr("Queue cells: id, R = readable, W = writable, messages below. "
           "Dashed edge: broker not writable."));
}

} // namespace qrocket::console
