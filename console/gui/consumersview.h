#pragma once

// ConsumersView: the "Consumers" tab: groups with total lag and TPS (sortable, searchable); for
// the selected group its queues (broker offset, consumer offset, lag, client), its connected
// clients (address, language, version, subscriptions), a reset-offset-by-time panel with
// preview, and "Why is this group not consuming?" (explainGroup of every master: explainpanel.h),
// asked when a group is selected and again on demand.

#include "console/gui/tablesupport.h"

#include <QTimer>
#include <QWidget>

class QLineEdit;
class QTabWidget;

namespace qrocket::console {

class ClusterSession;
class ConnectionModel;
class ConsumerQueueModel;
class ExplainPanel;
class GroupModel;
class ResetOffsetPanel;

class ConsumersView : public QWidget
{
    Q_OBJECT

public:
    explicit ConsumersView(ClusterSession *session, QWidget *parent = nullptr);
    GroupModel *groupModel() const { return m_groups; }
    ConsumerQueueModel *queueModel() const { return m_queues; }
    ConnectionModel *connectionModel() const { return m_connections; }
    ResetOffsetPanel *resetPanel() const { return m_reset; }
    ExplainPanel *explainPanel() const { return m_explain; }
    /// Brings the detail's "Why not consuming?" tab to the front.
    void showExplainTab();
    QTableView *groupTable() const { return m_groupTable.view; }
    /// The selected group's header line ("<b>G</b> · lag 105 · 19,012 msgs/s (1-min avg, ...)").
    QString titleText() const;
    /// The note under the group's title (expected states, then failures in orange).
    QString noteText() const;
    void selectGroup(const QByteArray &group);
    bool hasData() const;

signals:
    void message(const QString &text);

private:
    void onCurrentGroup();
    void onFocusUpdated();
    void pollRunningInfo();

    ClusterSession *m_session;
    GroupModel *m_groups;
    ConsumerQueueModel *m_queues;
    ConnectionModel *m_connections;
    Table m_groupTable;
    Table m_queueTable;
    Table m_connectionTable;
    ResetOffsetPanel *m_reset;
    ExplainPanel *m_explain;
    QTabWidget *m_tabs;
    QLineEdit *m_search;
    QLabel *m_title;
    QLabel *m_note;
    QTimer m_runningInfoTimer;
    /// The group whose clients were last asked for their queues (asked again every 5 s).
    QByteArray m_ownersAskedFor;
};

} // namespace qrocket::console
