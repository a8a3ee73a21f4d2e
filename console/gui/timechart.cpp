// The sliding-window line chart (see timechart.h).

#include "console/gui/timechart.h"

#include "console/gui/format.h"

#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QDateTime>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLineSeries>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace qrocket::console {

namespace {

/// A tick step (1, 2, 2.5 or 5 times a power of ten) that splits 0..`want` into at most 5.
double niceStep(double want)
{
    const double raw = std::max(want, 1e-9) / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double f : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (mag * f >= raw)
            return mag * f;
    }
    return mag * 10;
}

/// "now", "-15 s", "-1 min", "-1 min 30 s" of an age in ms.
QString ageTick(std::int64_t ms)
{
    if (ms <= 0)
        return QStringLiteral("now");
    const std::int64_t s = ms / 1000;
    if (s < 60)
        return QStringLiteral("-%1 s").arg(s);
    if (s % 60 == 0)
        return QStringLiteral("-%1 min").arg(s / 60);
    return QStringLiteral("-%1 min %2 s").arg(s / 60).arg(s % 60);
}

/// The time tick step for a window: about five ticks, on round ages.
std::int64_t timeStep(std::int64_t windowMs)
{
    for (std::int64_t step : {10'000LL, 15'000LL, 30'000LL, 60'000LL, 120'000LL, 300'000LL}) {
        if (windowMs / step <= 6)
            return step;
    }
    return 600'000;
}

} // namespace

TimeChart::TimeChart(
    const QString &title, TickFormatter tick, ExactFormatter exact, QWidget *parent)
    : QChartView(parent), m_tick(std::move(tick)), m_exact(std::move(exact))
{
    auto *chart = new QChart;
    chart->setTheme(QChart::ChartThemeDark);
    chart->setBackgroundBrush(palette().color(QPalette::Base));
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_time = new QCategoryAxis(chart);
    m_time->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    m_time->setTitleText(tr("time"));
    m_value = new QCategoryAxis(chart);
    m_value->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    chart->addAxis(m_time, Qt::AlignBottom);
    chart->addAxis(m_value, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(240);
    setValueTicks(1, 0.25);
}

void TimeChart::setSeries(const QString &name, const QList<QPointF> &points)
{
    QLineSeries *s = m_series.value(name);
    if (!s) {
        s = new QLineSeries(chart());
        s->setName(name);
        // Own colours, none of them the marks' grey, amber or red.
        static const QColor palette[] = {QColor(0x4c, 0xc3, 0x6a), QColor(0x4a, 0x9e, 0xe8),
            QColor(0xc0, 0x7a, 0xf0), QColor(0x3c, 0xd0, 0xd0), QColor(0xf0, 0x7a, 0xc0),
            QColor(0xa8, 0xd0, 0x40), QColor(0x80, 0x90, 0xff), QColor(0xe8, 0xe8, 0xe8)};
        QPen pen(palette[m_colorIndex++ % std::size(palette)]);
        pen.setWidthF(2);
        s->setPen(pen);
        chart()->addSeries(s);
        s->attachAxis(m_time);
        s->attachAxis(m_value);
        m_series.insert(name, s);
        connect(s, &QLineSeries::hovered, this, [this, name](const QPointF &p, bool entered) {
            if (entered)
                QToolTip::showText(QCursor::pos(), plainToolTip(pointText(name, p.x())), this);
            else
                QToolTip::hideText();
        });
    }
    s->replace(points);
}

void TimeChart::retainSeries(const QStringList &keep)
{
    for (auto it = m_series.begin(); it != m_series.end();) {
        if (!keep.contains(it.key())) {
            chart()->removeSeries(it.value());
            delete it.value();
            it = m_series.erase(it);
        } else {
            ++it;
        }
    }
}

int TimeChart::pointCount() const
{
    int n = 0;
    for (const QLineSeries *s : m_series)
        n += static_cast<int>(s->count());
    return n;
}

void TimeChart::setValueTicks(double top, double step)
{
    if (top == m_top && step == m_step)
        return;
    m_top = top;
    m_step = step;
    for (const QString &label : m_value->categoriesLabels())
        m_value->remove(label);
    m_value->setStartValue(0);
    // Ticks on the values; a label appears once (two equal texts would merge).
    const int n = static_cast<int>(std::lround(top / step));
    for (int i = 0; i <= n; ++i) {
        const double v = step * i;
        m_value->append(i == 0 ? QStringLiteral("0") : m_tick(v, step), v);
    }
    m_value->setRange(0, top);
}

void TimeChart::setFixedRange(double min, double max, double step)
{
    m_fixed = true;
    setValueTicks(max, step);
    m_value->setRange(min, max);
}

void TimeChart::setMarks(const QList<double> &marks)
{
    for (QLineSeries *m : m_marks) {
        chart()->removeSeries(m);
        delete m;
    }
    m_marks.clear();
    for (qsizetype i = 0; i < marks.size(); ++i) {
        const double v = marks[i];
        auto *s = new QLineSeries(chart());
        s->setName(m_exact(v));
        s->setProperty("mark", v);
        // The highest mark red, the one below it amber, the others grey.
        const qsizetype fromTop = marks.size() - 1 - i;
        QPen pen(fromTop == 0
                ? QColor(0xff, 0x6b, 0x6b)
                : (fromTop == 1 ? QColor(0xf0, 0xb4, 0x29) : QColor(0x9a, 0x9e, 0xa4)));
        pen.setStyle(Qt::DashLine);
        s->setPen(pen);
        chart()->addSeries(s);
        s->attachAxis(m_time);
        s->attachAxis(m_value);
        m_marks.push_back(s);
    }
}

void TimeChart::finishUpdate(std::int64_t nowMs, std::int64_t windowMs)
{
    m_nowMs = nowMs;
    const std::int64_t from = nowMs - windowMs;
    // The time axis: round ages back from now, oldest first.
    for (const QString &label : m_time->categoriesLabels())
        m_time->remove(label);
    const std::int64_t timeTick = timeStep(windowMs);
    m_time->setStartValue(static_cast<double>(from));
    for (std::int64_t age = (windowMs / timeTick) * timeTick; age >= 0; age -= timeTick)
        m_time->append(ageTick(age), static_cast<double>(nowMs - age));
    m_time->setRange(static_cast<double>(from), static_cast<double>(nowMs));
    m_time->setTitleText(
        tr("time before now (now = %1 local)")
            .arg(QDateTime::fromMSecsSinceEpoch(nowMs).toString(QStringLiteral("HH:mm:ss"))));
    for (QLineSeries *m : m_marks) {
        const double v = m->property("mark").toDouble();
        m->replace({QPointF(static_cast<double>(from), v), QPointF(static_cast<double>(nowMs), v)});
    }
    if (m_fixed)
        return;
    double peak = 0;
    for (const QLineSeries *s : m_series) {
        for (const QPointF &p : s->points())
            peak = std::max(peak, p.y());
    }
    // A round top a bit above the peak, on a tick.
    const double want = std::max(1.0, peak * 1.1);
    const double step = niceStep(want);
    setValueTicks(std::ceil(want / step - 1e-9) * step, step);
}

QStringList TimeChart::valueTicks() const
{
    return m_value->categoriesLabels();
}

QStringList TimeChart::timeTicks() const
{
    return m_time->categoriesLabels();
}

QStringList TimeChart::renderedTexts() const
{
    QStringList out;
    if (!scene())
        return out;
    for (const QGraphicsItem *item : scene()->items()) {
        if (!item->isVisible())
            continue;
        if (const auto *t = dynamic_cast<const QGraphicsTextItem *>(item))
            out << t->toPlainText();
        else if (const auto *s = dynamic_cast<const QGraphicsSimpleTextItem *>(item))
            out << s->text();
    }
    return out;
}

QString TimeChart::pointText(const QString &series, double epochMs) const
{
    const QLineSeries *s = m_series.value(series);
    if (!s || s->count() == 0)
        return {};
    const QList<QPointF> points = s->points();
    const auto nearest = std::min_element(
        points.begin(), points.end(), [epochMs](const QPointF &a, const QPointF &b) {
            return std::abs(a.x() - epochMs) < std::abs(b.x() - epochMs);
        });
    const auto at = static_cast<std::int64_t>(nearest->x());
    return tr("%1\n%2 (%3)\n%4")
        .arg(series, formatTimestamp(at), formatAgo(std::max<std::int64_t>(0, m_nowMs - at)),
            m_exact(nearest->y()));
}

} // namespace qrocket::console
