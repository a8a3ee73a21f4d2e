#pragma once

// ChartsView: the "Charts" tab: put and get TPS (Qt Charts), the last 10 minutes, either
//   per broker  one sample a second from the session's runtime-info history (the change of
//               msgPutTotalTodayNow / msgGetTotalTodayNow, the cluster view's figures), or
//   per topic   the session's topic rates (VIEW_BROKER_STATS_DATA minute averages, every 10 s)
//               of the topics checked in the list beside the charts: the top ones by traffic
//               until the operator checks or unchecks one.

#include <QTimer>
#include <QWidget>

class QComboBox;
class QListWidget;

namespace qrocket::console {

class ClusterSession;
class TimeChart;

class ChartsView : public QWidget
{
    Q_OBJECT

public:
    static constexpr std::int64_t kWindowMs = 10 * 60 * 1000;
    static constexpr int kTopTopics = 5;
    enum class Scope { Brokers, Topics };

    explicit ChartsView(ClusterSession *session, QWidget *parent = nullptr);
    TimeChart *putChart() const { return m_put; }
    TimeChart *getChart() const { return m_get; }
    void setScope(Scope scope);
    Scope scope() const;
    /// The topics drawn in the per-topic scope (checked in the list).
    QStringList checkedTopics() const;
    /// Checks exactly `topics` (the operator's choice from then on).
    void setCheckedTopics(const QStringList &topics);
    /// At least two samples drawn.
    bool hasData() const;
    void refresh();

private:
    void refreshBrokers(std::int64_t now);
    void refreshTopics(std::int64_t now);
    void fillTopicList();

    ClusterSession *m_session;
    QComboBox *m_scope;
    QListWidget *m_topics;
    TimeChart *m_put;
    TimeChart *m_get;
    /// The operator chose topics: the list no longer follows the top ones.
    bool m_manualTopics = false;
    bool m_filling = false;
    /// New topic rates since the list was filled (it is rebuilt only then, not every second).
    bool m_ratesDirty = true;
};

} // namespace qrocket::console
