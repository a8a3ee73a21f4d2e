#pragma once

// ClusterWidget: one cluster's page in the main window: its ClusterSession, its AlertEngine and
// a tab per view (cluster, topics, route, consumers, messages, storage, charts, alerts, acl). It
// relays the views' messages and the session's problems to the main window's status bar.

#include "clientlib/common/status.h"
#include "console/common/credentials.h"

#include <QWidget>

#include <memory>

class QTabWidget;

namespace qrocket::console {

class AclView;
class AlertEngine;
class AlertsView;
class ChartsView;
class ClusterSession;
struct ConnectionSettings;
class ClusterView;
class ConsumersView;
class MessagesView;
class RouteView;
class StorageView;
class TopicsView;

enum class ViewName { Cluster, Topics, Route, Consumers, Messages, Storage, Charts, Alerts, Acl };
/// "cluster", "topics", ...; parseViewName is false for an unknown name.
QString viewNameText(ViewName v);
bool parseViewName(const QString &text, ViewName *out);
QStringList viewNames();

class ClusterWidget : public QWidget
{
    Q_OBJECT

public:
    explicit ClusterWidget(
        const QString &namesrvAddr, const Credentials &credentials = {}, QWidget *parent = nullptr);
    explicit ClusterWidget(const ConnectionSettings &settings, QWidget *parent = nullptr);
    /// Deletes the views, then the session (which shuts its Admin down, bounded).
    ~ClusterWidget() override;

    /// Starts the session; InvalidArgument for a bad address.
    Status start();
    ClusterSession *session() const { return m_session.get(); }
    AlertEngine *alerts() const { return m_alerts; }
    QString namesrvAddr() const;

    void showView(ViewName v);
    ViewName currentView() const;
    QWidget *viewWidget(ViewName v) const;
    QTabWidget *tabs() const { return m_tabs; }

    ClusterView *clusterView() const { return m_cluster; }
    TopicsView *topicsView() const { return m_topics; }
    RouteView *routeView() const { return m_route; }
    ConsumersView *consumersView() const { return m_consumers; }
    MessagesView *messagesView() const { return m_messages; }
    StorageView *storageView() const { return m_storage; }
    ChartsView *chartsView() const { return m_charts; }
    AlertsView *alertsView() const { return m_alertsView; }
    AclView *aclView() const { return m_acl; }

signals:
    void statusMessage(const QString &text);
    void problemsChanged(const QString &summary);
    void alertsChanged(int count, const QString &latest);

private:
    std::unique_ptr<ClusterSession> m_session;
    AlertEngine *m_alerts;
    QTabWidget *m_tabs;
    ClusterView *m_cluster;
    TopicsView *m_topics;
    RouteView *m_route;
    ConsumersView *m_consumers;
    MessagesView *m_messages;
    StorageView *m_storage;
    ChartsView *m_charts;
    AlertsView *m_alertsView;
    AclView *m_acl;
};

} // namespace qrocket::console
