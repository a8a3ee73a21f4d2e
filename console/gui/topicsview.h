#pragma once

// TopicsView: the "Topics" tab: the topic list with a type filter (normal, retry, DLQ, system)
// and a search field; create, update and delete a topic (Admin::createOrUpdateTopicInCluster,
// deleteTopic) and send a test message (client::Producer). Outcomes go to the note line and the
// status bar, never to a pile of message boxes. Below the list, "Why are sends refused?" for the
// selected topic: explainSend of every master (SYSTEM_BUSY / code 14 thresholds, permissions, the
// ACL rule of the session's account; explainpanel.h), asked on selection, after a failed test
// send, and on demand.

#include "console/gui/tablesupport.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLineEdit;
class QPushButton;

namespace qrocket::client {
class Producer;
}

namespace qrocket::console {

class ClusterSession;
class ExplainPanel;
class TopicFilter;
class TopicModel;

class TopicsView : public QWidget
{
    Q_OBJECT

public:
    explicit TopicsView(ClusterSession *session, QWidget *parent = nullptr);
    ~TopicsView() override;

    TopicModel *model() const { return m_model; }
    TopicFilter *filter() const { return m_filter; }
    QTableView *table() const { return m_table.view; }
    QLineEdit *searchEdit() const { return m_search; }
    QPushButton *createButton() const { return m_create; }
    bool hasData() const;
    /// The selected topic (empty when none).
    QByteArray currentTopic() const;
    void selectTopic(const QByteArray &topic);
    ExplainPanel *explainPanel() const { return m_explain; }

public slots:
    void openCreateDialog();
    void openUpdateDialog();
    void deleteCurrent();
    void sendTestMessage();

signals:
    /// The user asked for the route of `topic` (double click / button).
    void routeRequested(const QByteArray &topic);
    void message(const QString &text);

private:
    void applyTypeMask();
    void updateCount();
    void report(const QString &text, bool error);
    void askWhySendsFail();

    ClusterSession *m_session;
    TopicModel *m_model;
    TopicFilter *m_filter;
    Table m_table;
    QLineEdit *m_search;
    QCheckBox *m_types[4];
    QPushButton *m_create;
    QPushButton *m_update;
    QPushButton *m_delete;
    QPushButton *m_send;
    QPushButton *m_route;
    QLabel *m_count;
    QLabel *m_note;
    ExplainPanel *m_explain;
    QByteArray m_explainedTopic;
    std::unique_ptr<client::Producer> m_producer;
};

} // namespace qrocket::console
