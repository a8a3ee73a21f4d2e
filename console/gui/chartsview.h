#pragma once

// ChartsView: the "Charts" tab: put and get TPS (Qt Charts), the last 10 minutes, either
//   per broker  one sample a second from the session's runtime-info history (the change of
//               msgPutTotalTodayNow / msgGetTotalTodayNow, the cluster view's figures), or
//   per topic   the session's topic rates (VIEW_BROKER_STATS_DATA minute averages, every 10 s)
//               of the topics checked in the list beside the charts: the top ones by traffic
//               until the operator checks or unchecks one.
// The list is a model over the session's rates (every topic that has some: 100,000 at most),
// re-sorted when they come (every 10 s), its texts made only for the rows drawn.

#include "console/gui/sessiontypes.h"

#include <QAbstractListModel>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <map>

class QComboBox;
class QListView;

namespace qrocket::console {

class ClusterSession;
class TimeChart;

/// The per-topic scope's list: busiest first (put + get TPS; equal ones by name), checkable.
/// Until the operator checks or unchecks one, the top `top` busy ones are the checked ones.
class TopicRateList : public QAbstractListModel
{
    Q_OBJECT

public:
    TopicRateList(int top, QObject *parent);
    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role) override;
    /// The rates again: the figures change in place, a change of order is one layoutChanged
    /// (selection kept), the checks stay with their topics.
    void update(const std::map<QByteArray, TopicRates> &rates);
    /// Checked, in the list's order (kept, not searched per call).
    const QStringList &checked() const { return m_checkedList; }
    /// Checks exactly `topics` (those in the list): the operator's choice from then on.
    void setChecked(const QStringList &topics);

signals:
    /// The operator checked or unchecked a topic.
    void checksChanged();

private:
    struct Row
    {
        QByteArray topic;
        double put = 0;
        double get = 0;
    };
    bool isChecked(std::size_t row) const;
    void updateCheckedList();

    int m_top;
    std::vector<Row> m_rows;
    bool m_manual = false; // the operator chose: m_checked holds the choice
    QSet<QByteArray> m_checked;
    QStringList m_checkedList;
};

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
    TopicRateList *topicList() const { return m_topicList; }
    /// At least two samples drawn.
    bool hasData() const;
    void refresh();

private:
    void refreshBrokers(std::int64_t now);
    void refreshTopics(std::int64_t now);

    ClusterSession *m_session;
    QComboBox *m_scope;
    QListView *m_topics;
    TopicRateList *m_topicList;
    TimeChart *m_put;
    TimeChart *m_get;
    /// New topic rates since the list was updated (only then, not every second).
    bool m_ratesDirty = true;
};

} // namespace qrocket::console
