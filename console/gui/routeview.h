#pragma once

// RouteView: the "Route" tab: pick a topic (completion over the topic list), then its route as a
// picture (RouteDiagram) and as a per-queue table (RouteQueueModel), both refreshed every second.

#include "console/gui/tablesupport.h"

#include <QWidget>

class QLineEdit;

namespace qrocket::console {

class ClusterSession;
class RouteDiagram;
class RouteQueueModel;
class TopicModel;

class RouteView : public QWidget
{
    Q_OBJECT

public:
    RouteView(ClusterSession *session, TopicModel *topics, QWidget *parent = nullptr);
    void showTopic(const QByteArray &topic);
    bool hasData() const;
    RouteQueueModel *model() const { return m_model; }

private:
    void updateNote();

    ClusterSession *m_session;
    QLineEdit *m_topic;
    RouteDiagram *m_diagram;
    RouteQueueModel *m_model;
    Table m_table;
    QLabel *m_note;
};

} // namespace qrocket::console
