#pragma once

// ClusterView: the "Cluster" tab: every broker address with role, version, heartbeat age and
// liveness (live / late / expired, colour + icon + text, with the name server's expiry counting
// down), TPS, disk ratio and commit-log offsets. Ages move every second without a poll. Below,
// "Why is this broker late or expired?" for the selected row: explainBroker of each name server
// (last registration age, the expiry, the last error; explainpanel.h), asked on selection and on
// demand. For controller-mode brokers (enableControllerMode), an "Elections" panel above the
// table: per brokerName its master, epoch and SyncStateSet, a row per replica (role, in the set,
// commit-log end, how far behind; electionmodel.h) and the last elections seen (time, epoch,
// master); hidden when the cluster has none, so plain master/slave clusters look as before.

#include "console/gui/tablesupport.h"

#include <QTimer>
#include <QWidget>

namespace qrocket::console {

class BrokerModel;
class ClusterSession;
class ElectionModel;
class ExplainPanel;

class ClusterView : public QWidget
{
    Q_OBJECT

public:
    explicit ClusterView(ClusterSession *session, QWidget *parent = nullptr);
    BrokerModel *model() const { return m_model; }
    QTableView *table() const { return m_table.view; }
    /// True once at least one broker row is shown.
    bool hasData() const;
    ExplainPanel *explainPanel() const { return m_explain; }
    ElectionModel *electionModel() const { return m_electionModel; }
    /// The elections panel (hidden without controller-mode brokers), its table, the headline
    /// (master, epoch and SyncStateSet of each brokerName) and the history of elections.
    QWidget *electionPanel() const { return m_electionPanel; }
    QTableView *electionTable() const { return m_electionTable.view; }
    QLabel *electionHeadline() const { return m_electionHeadline; }
    QLabel *electionHistory() const { return m_electionHistory; }
    /// Selects the first row of `brokerName` (asks why it is late).
    void selectBroker(const QByteArray &brokerName);

private:
    void updateNote();
    void updateElections();
    void onCurrentBroker();

    ClusterSession *m_session;
    BrokerModel *m_model;
    Table m_table;
    QLabel *m_summary;
    QLabel *m_note;
    QTimer m_ageTimer;
    ExplainPanel *m_explain;
    QByteArray m_explainedBroker;
    ElectionModel *m_electionModel;
    QWidget *m_electionPanel;
    Table m_electionTable;
    QLabel *m_electionHeadline;
    QLabel *m_electionHistory;
};

} // namespace qrocket::console
