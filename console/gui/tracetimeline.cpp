// TraceTimeline (tracetimeline.h): trace records to events, and their drawing.

#include "console/gui/tracetimeline.h"

#include "console/gui/format.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <map>

namespace qrocket::console {

namespace trace = protocol::trace;

namespace {

constexpr int kMargin = 12;
constexpr int kLaneLabelWidth = 190;
constexpr int kLaneHeight = 74;
/// Label rows of a lane, as baselines relative to its line: above, below, further above, further
/// below (the lane is tall enough for four).
constexpr int kLabelSlots = 4;
constexpr int kSlotBaseline[kLabelSlots] = {-9, 19, -24, 34};

QString text(const QByteArray &b)
{
    return QString::fromUtf8(b);
}

QColor deadLetterColor()
{
    return {0x9c, 0x27, 0xb0};
}

} // namespace

TraceTimeline::TraceTimeline(QWidget *parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    setToolTip(tr("The message's trace records (RMQ_SYS_TRACE_TOPIC, written by clients with "
                  "enableMsgTrace) and where the broker stored it"));
}

void TraceTimeline::clear()
{
    m_events.clear();
    m_lanes.clear();
    m_note.clear();
    updateGeometry();
    update();
}

void TraceTimeline::setNote(const QString &note)
{
    m_note = note;
    update();
}

void TraceTimeline::setTrace(
    const client::MessageExt *message, const std::vector<client::MessageTraceView> &views)
{
    m_events.clear();
    m_lanes.clear();
    m_note.clear();
    auto laneOf = [this](const QString &lane) {
        if (std::find(m_lanes.begin(), m_lanes.end(), lane) == m_lanes.end())
            m_lanes.push_back(lane);
        return lane;
    };
    // Lanes in path order: producer, broker, consumers.
    for (const client::MessageTraceView &v : views) {
        if (v.record.type == trace::TraceType::Pub
            || v.record.type == trace::TraceType::EndTransaction)
            laneOf(tr("producer %1").arg(text(v.record.groupName)));
    }
    if (message && message->storeTimestamp() > 0) {
        const QString broker
            = tr("broker %1")
                  .arg(message->brokerName().isEmpty() ? text(message->storeHost().toString())
                                                       : text(message->brokerName()));
        m_events.push_back({message->storeTimestamp(), laneOf(broker),
            tr("stored at %1, queue %2 offset %3")
                .arg(text(message->storeHost().toString()))
                .arg(message->queueId())
                .arg(message->queueOffset()),
            false});
    }
    for (const client::MessageTraceView &v : views) {
        const trace::TraceRecord &r = v.record;
        switch (r.type) {
        case trace::TraceType::Pub:
            m_events.push_back({r.timestamp, laneOf(tr("producer %1").arg(text(r.groupName))),
                tr("sent from %1 to %2 in %3 ms%4")
                    .arg(text(v.clientHost), text(r.storeHost))
                    .arg(r.costTime)
                    .arg(r.success ? QString() : tr(" (not stored OK)")),
                !r.success});
            break;
        case trace::TraceType::EndTransaction:
            m_events.push_back({r.timestamp, laneOf(tr("producer %1").arg(text(r.groupName))),
                tr("transaction %1%2")
                    .arg(text(r.transactionState),
                        r.fromTransactionCheck ? tr(" (after a broker check)") : QString()),
                r.transactionState == "ROLLBACK_MESSAGE"});
            break;
        case trace::TraceType::SubBefore:
            m_events.push_back({r.timestamp, laneOf(tr("consumer %1").arg(text(r.groupName))),
                r.retryTimes > 0
                    ? tr("delivered to %1 (retry %2)").arg(text(v.clientHost)).arg(r.retryTimes)
                    : tr("delivered to %1").arg(text(v.clientHost)),
                false});
            break;
        case trace::TraceType::SubAfter:
            m_events.push_back({r.timestamp, laneOf(tr("consumer %1").arg(text(r.groupName))),
                r.success ? tr("consumed in %1 ms").arg(r.costTime)
                          : tr("failed after %1 ms: redelivered through %RETRY%%2")
                                .arg(r.costTime)
                                .arg(text(r.groupName)),
                !r.success});
            break;
        }
    }
    std::stable_sort(m_events.begin(), m_events.end(),
        [](const Event &a, const Event &b) { return a.timestamp < b.timestamp; });
    if (m_events.empty())
        m_note = tr("No trace of this message: its producer and consumers did not enable "
                    "message traces, or the broker's traceTopicEnable is off.");
    updateGeometry();
    update();
}

std::vector<TraceTimeline::FailedGroup> TraceTimeline::failedGroups(
    const std::vector<client::MessageTraceView> &views)
{
    struct Last
    {
        std::int64_t beforeAt = -1;
        int retry = 0;
        std::int64_t afterAt = -1;
        bool afterFailed = false;
    };
    std::map<QByteArray, Last> last;
    for (const client::MessageTraceView &v : views) {
        const trace::TraceRecord &r = v.record;
        Last &l = last[r.groupName];
        if (r.type == trace::TraceType::SubBefore && r.timestamp >= l.beforeAt) {
            l.beforeAt = r.timestamp;
            l.retry = r.retryTimes;
        } else if (r.type == trace::TraceType::SubAfter && r.timestamp >= l.afterAt) {
            l.afterAt = r.timestamp;
            l.afterFailed = !r.success;
        }
    }
    std::vector<FailedGroup> out;
    for (const auto &[group, l] : last) {
        // The last delivery failed, and no later delivery started.
        if (l.afterAt >= 0 && l.afterFailed && l.afterAt >= l.beforeAt)
            out.push_back({group, l.retry, l.afterAt});
    }
    return out;
}

void TraceTimeline::setDeadLetters(const std::vector<DeadLetter> &deadLetters)
{
    std::erase_if(m_events, [](const Event &e) { return e.deadLetter; });
    for (const DeadLetter &d : deadLetters) {
        const QByteArray &group = d.failed.group;
        const int max = d.maxReconsumeTimes >= 0 ? d.maxReconsumeTimes : 16;
        const QString lane = tr("consumer %1").arg(text(group));
        if (std::find(m_lanes.begin(), m_lanes.end(), lane) == m_lanes.end())
            m_lanes.push_back(lane);
        // The last failure was not redelivered through %RETRY%: it went to the DLQ.
        const QString retryText = QStringLiteral("redelivered through %RETRY%") + text(group);
        for (Event &e : m_events) {
            if (e.lane == lane && e.failed && e.timestamp == d.failed.failedAt
                && (d.found || d.failed.lastRetry >= max))
                e.label.replace(retryText, tr("retries used up"));
        }
        if (d.found) {
            m_events.push_back({d.storeTimestamp, lane,
                tr("to %DLQ%%1 on %2 after retry %3")
                    .arg(text(group), text(d.where))
                    .arg(d.failed.lastRetry),
                true, true});
        } else if (d.failed.lastRetry >= max) {
            // Not found (yet, or the index lookup failed): what the broker decides on the
            // retries alone.
            m_events.push_back({d.failed.failedAt + 1, lane,
                tr("to %DLQ%%1 (derived: retry %2 reached retryMaxTimes %3; lookup: %4)")
                    .arg(text(group))
                    .arg(d.failed.lastRetry)
                    .arg(max)
                    .arg(d.lookupError.isEmpty() ? tr("not found") : d.lookupError),
                true, true});
        }
    }
    std::stable_sort(m_events.begin(), m_events.end(),
        [](const Event &a, const Event &b) { return a.timestamp < b.timestamp; });
    if (!m_events.empty())
        m_note.clear();
    updateGeometry();
    update();
}

QSize TraceTimeline::sizeHint() const
{
    return {
        700, kMargin * 2 + 24 + kLaneHeight * std::max<int>(1, static_cast<int>(m_lanes.size()))};
}

void TraceTimeline::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    if (m_events.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin),
            Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_note);
        return;
    }
    const std::int64_t t0 = m_events.front().timestamp;
    const std::int64_t t1 = std::max(m_events.back().timestamp, t0 + 1);
    const int left = kMargin + kLaneLabelWidth;
    const int right = width() - kMargin - 160; // room for the last label
    const int span = std::max(40, right - left);
    auto xOf = [&](std::int64_t t) {
        return left
            + static_cast<int>(static_cast<double>(t - t0) * span / static_cast<double>(t1 - t0));
    };
    // Lanes.
    for (int i = 0; i < static_cast<int>(m_lanes.size()); ++i) {
        const int y = kMargin + 24 + i * kLaneHeight + kLaneHeight / 2;
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QRect(kMargin, y - kLaneHeight / 2, kLaneLabelWidth - 8, kLaneHeight),
            Qt::AlignVCenter | Qt::AlignLeft, m_lanes[static_cast<std::size_t>(i)]);
        p.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DashLine));
        p.drawLine(left, y, left + span, y);
    }
    // The time axis: the first event's time and the whole span.
    p.setPen(pal.color(QPalette::Text));
    p.drawText(QPoint(left, kMargin + 12), formatTimestamp(t0));
    p.drawText(QPoint(left + span - 60, kMargin + 12), QStringLiteral("+%1 ms").arg(t1 - t0));
    // Events, joined in time order.
    QPoint previous;
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        const Event &e = m_events[i];
        const auto lane = std::find(m_lanes.begin(), m_lanes.end(), e.lane) - m_lanes.begin();
        const QPoint at(xOf(e.timestamp),
            kMargin + 24 + static_cast<int>(lane) * kLaneHeight + kLaneHeight / 2);
        if (i > 0) {
            p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
            p.drawLine(previous, at);
        }
        previous = at;
    }
    std::vector<std::vector<QRect>> placed(m_lanes.size());
    const int ascent = p.fontMetrics().ascent();
    const int lineHeight = p.fontMetrics().height();
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        const Event &e = m_events[i];
        const auto lane = std::find(m_lanes.begin(), m_lanes.end(), e.lane) - m_lanes.begin();
        const QPoint at(xOf(e.timestamp),
            kMargin + 24 + static_cast<int>(lane) * kLaneHeight + kLaneHeight / 2);
        p.setPen(Qt::NoPen);
        if (e.deadLetter) {
            p.setBrush(deadLetterColor());
            p.drawRect(QRect(at.x() - 6, at.y() - 6, 12, 12));
        } else {
            p.setBrush(e.failed ? QColor(0xd3, 0x2f, 0x2f) : QColor(0x38, 0x8e, 0x3c));
            p.drawEllipse(at, 5, 5);
        }
        p.setPen(pal.color(QPalette::Text));
        const QString text = QStringLiteral("+%1 ms %2").arg(e.timestamp - t0).arg(e.label);
        // A label that would run past the right edge goes to the left of its dot.
        const int textWidth = p.fontMetrics().horizontalAdvance(text);
        const int x = at.x() + 7 + textWidth > width() - kMargin
            ? std::max(kMargin, at.x() - 7 - textWidth)
            : at.x() + 7;
        // The first of the lane's label rows (above, below, further above, further below)
        // where the label overlaps no label placed before: close events stay readable.
        std::vector<QRect> &taken = placed[static_cast<std::size_t>(lane)];
        QRect box;
        for (int slot = 0; slot < kLabelSlots; ++slot) {
            box = QRect(x - 2, at.y() + kSlotBaseline[slot] - ascent, textWidth + 4, lineHeight);
            if (std::none_of(
                    taken.begin(), taken.end(), [&](const QRect &r) { return r.intersects(box); }))
                break;
        }
        taken.push_back(box);
        p.drawText(QPoint(x, box.top() + ascent), text);
    }
}

} // namespace qrocket::console
