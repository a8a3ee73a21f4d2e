#pragma once

// TimeChart: a Qt Charts line chart over the last N minutes, one series per broker, used by the
// live charts (put / get TPS) and the storage view (disk ratio). setSeries() replaces a series'
// points in one call (QXYSeries::replace), so a refresh a second is cheap; the time axis slides.

#include <QChartView>
#include <QHash>

class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

namespace qrocket::console {

class TimeChart : public QChartView
{
    Q_OBJECT

public:
    TimeChart(const QString &title, const QString &unit, QWidget *parent = nullptr);
    /// Points are (epoch ms, value).
    void setSeries(const QString &name, const QList<QPointF> &points);
    /// Drops series not named in `keep`.
    void retainSeries(const QStringList &keep);
    /// Slides the time axis to [now - windowMs, now] and fits the value axis.
    void finishUpdate(std::int64_t nowMs, std::int64_t windowMs);
    /// A fixed value range (the disk chart: 0..100 %); otherwise it fits the data.
    void setFixedRange(double min, double max);
    /// Horizontal reference lines, ascending (the 75/85/90 % marks); the top one red, the one
    /// below it amber.
    void setMarks(const QList<double> &marks);
    void setLabelFormat(const QString &format);
    int seriesCount() const { return static_cast<int>(m_series.size()); }
    int pointCount() const;

private:
    QDateTimeAxis *m_time;
    QValueAxis *m_value;
    QHash<QString, QLineSeries *> m_series;
    QList<QLineSeries *> m_marks;
    bool m_fixed = false;
    double m_min = 0;
    double m_max = 1;
};

} // namespace qrocket::console
