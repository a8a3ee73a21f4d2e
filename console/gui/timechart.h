#pragma once

// TimeChart: a Qt Charts line chart over the last N minutes, one series per broker (or topic),
// used by the live charts (put / get TPS) and the storage view (disk ratio). setSeries() replaces
// a series' points in one call (QXYSeries::replace), so a refresh a second is cheap.
//
// Both axes carry their own tick texts (QCategoryAxis, labels on the values), so they read at
// any magnitude: the value axis "0", "5.0 k msgs/s", "10.0 k msgs/s", ... from a tick formatter,
// the time axis "-4 min" ... "now" with the local clock of "now" in its title. Hovering a line
// shows the nearest sample's exact value and time (pointText()); the legend names each line.

#include <QChartView>
#include <QHash>

#include <functional>

class QCategoryAxis;
class QLineSeries;

namespace qrocket::console {

class TimeChart : public QChartView
{
    Q_OBJECT

public:
    /// `tick(value, step)`: a value axis tick text ("19.0 k msgs/s"); `exact(value)`: a hovered
    /// sample's value as it is ("19,012.3 msgs/s").
    using TickFormatter = std::function<QString(double value, double step)>;
    using ExactFormatter = std::function<QString(double value)>;

    TimeChart(
        const QString &title, TickFormatter tick, ExactFormatter exact, QWidget *parent = nullptr);
    /// Points are (epoch ms, value).
    void setSeries(const QString &name, const QList<QPointF> &points);
    /// Drops series not named in `keep`.
    void retainSeries(const QStringList &keep);
    /// Slides the time axis to [now - windowMs, now] and fits the value axis.
    void finishUpdate(std::int64_t nowMs, std::int64_t windowMs);
    /// A fixed value range with ticks every `step` (the disk chart: 0..100 % by 25); otherwise
    /// it fits the data.
    void setFixedRange(double min, double max, double step);
    /// Horizontal reference lines, ascending (the 75/85/90 % marks); the top one red, the one
    /// below it amber.
    void setMarks(const QList<double> &marks);
    int seriesCount() const { return static_cast<int>(m_series.size()); }
    int pointCount() const;
    QStringList seriesNames() const { return m_series.keys(); }

    /// The tick texts of the value axis (bottom up) and of the time axis (oldest first).
    QStringList valueTicks() const;
    QStringList timeTicks() const;
    /// Every text the chart's scene draws now (titles, tick labels, legend), as rendered: Qt
    /// Charts elides a label that does not fit with "…".
    QStringList renderedTexts() const;
    /// The tooltip of the sample of `series` nearest to `epochMs` (empty when there is none).
    QString pointText(const QString &series, double epochMs) const;

private:
    void setValueTicks(double top, double step);

    TickFormatter m_tick;
    ExactFormatter m_exact;
    QCategoryAxis *m_time;
    QCategoryAxis *m_value;
    QHash<QString, QLineSeries *> m_series;
    QList<QLineSeries *> m_marks;
    bool m_fixed = false;
    double m_top = -1;
    double m_step = 0;
    std::int64_t m_nowMs = 0;
    std::size_t m_colorIndex = 0;
};

} // namespace qrocket::console
