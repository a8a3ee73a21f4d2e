// The sliding-window line chart (see timechart.h).

#include "console/gui/timechart.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLineSeries>
#include <QValueAxis>

#include <cmath>

namespace qrocket::console {

TimeChart::TimeChart(const QString &title, const QString &unit, QWidget *parent)
    : QChartView(parent)
{
    auto *chart = new QChart;
    chart->setTheme(QChart::ChartThemeDark);
    chart->setBackgroundBrush(palette().color(QPalette::Base));
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    m_time = new QDateTimeAxis(chart);
    m_time->setFormat(QStringLiteral("HH:mm:ss"));
    m_time->setTickCount(6);
    m_value = new QValueAxis(chart);
    m_value->setTitleText(unit);
    m_value->setLabelFormat(QStringLiteral("%.1f"));
    m_value->setMin(0);
    chart->addAxis(m_time, Qt::AlignBottom);
    chart->addAxis(m_value, Qt::AlignLeft);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
}

void TimeChart::setSeries(const QString &name, const QList<QPointF> &points)
{
    QLineSeries *s = m_series.value(name);
    if (!s) {
        s = new QLineSeries(chart());
        s->setName(name);
        chart()->addSeries(s);
        s->attachAxis(m_time);
        s->attachAxis(m_value);
        m_series.insert(name, s);
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

void TimeChart::setFixedRange(double min, double max)
{
    m_fixed = true;
    m_min = min;
    m_max = max;
    m_value->setRange(min, max);
}

void TimeChart::setLabelFormat(const QString &format)
{
    m_value->setLabelFormat(format);
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
        s->setName(QStringLiteral("%1 %").arg(v, 0, 'f', 0));
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
    const std::int64_t from = nowMs - windowMs;
    m_time->setRange(QDateTime::fromMSecsSinceEpoch(from), QDateTime::fromMSecsSinceEpoch(nowMs));
    for (QLineSeries *m : m_marks) {
        const double v = m->name().section(QLatin1Char(' '), 0, 0).toDouble();
        m->replace({QPointF(static_cast<double>(from), v), QPointF(static_cast<double>(nowMs), v)});
    }
    if (m_fixed)
        return;
    double top = 0;
    for (const QLineSeries *s : m_series) {
        for (const QPointF &p : s->points())
            top = std::max(top, p.y());
    }
    // A round top (1, 2 or 5 times a power of ten) a bit above the peak.
    const double want = std::max(1.0, top * 1.15);
    const double mag = std::pow(10.0, std::floor(std::log10(want)));
    double nice = mag * 10;
    for (double f : {1.0, 2.0, 5.0}) {
        if (mag * f >= want) {
            nice = mag * f;
            break;
        }
    }
    m_value->setRange(0, std::max(1.0, nice));
}

} // namespace qrocket::console
