#pragma once

// ChartsView: the "Charts" tab: put and get TPS per broker (Qt Charts), one sample a second from
// the session's runtime-info history, the last 10 minutes.

#include <QTimer>
#include <QWidget>

namespace qrocket::console {

class ClusterSession;
class TimeChart;

class ChartsView : public QWidget
{
    Q_OBJECT

public:
    static constexpr std::int64_t kWindowMs = 10 * 60 * 1000;

    explicit ChartsView(ClusterSession *session, QWidget *parent = nullptr);
    TimeChart *putChart() const { return m_put; }
    TimeChart *getChart() const { return m_get; }
    /// At least two samples drawn.
    bool hasData() const;
    void refresh();

private:
    ClusterSession *m_session;
    TimeChart *m_put;
    TimeChart *m_get;
};

} // namespace qrocket::console
