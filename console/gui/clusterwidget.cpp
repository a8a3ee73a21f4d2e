// One cluster's page (see clusterwidget.h).

#include "console/gui/clusterwidget.h"

#include "console/gui/aclview.h"
#include "console/gui/alerts.h"
#include "console/gui/alertsview.h"
#include "console/gui/chartsview.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/consumersview.h"
#include "console/gui/messagesview.h"
#include "console/gui/routeview.h"
#include "console/gui/storageview.h"
#include "console/gui/topicmodel.h"
#include "console/gui/topicsview.h"

#include <QTabWidget>
#include <QVBoxLayout>

namespace qrocket::console {

QStringList viewNames()
{
    return {QStringLiteral("cluster"), QStringLiteral("topics"), QStringLiteral("route"),
        QStringLiteral("consumers"), QStringLiteral("messages"), QStringLiteral("storage"),
        QStringLiteral("charts"), QStringLiteral("alerts"), QStringLiteral("acl")};
}

QString viewNameText(ViewName v)
{
    return viewNames().value(static_cast<int>(v));
}

bool parseViewName(const QString &text, ViewName *out)
{
    const int i = viewNames().indexOf(text.trimmed().toLower());
    if (i < 0)
        return false;
    *out = static_cast<ViewName>(i);
    return true;
}

ClusterWidget::ClusterWidget(
    const QString &namesrvAddr, const Credentials &credentials, QWidget *parent)
    : ClusterWidget(ConnectionSettings {namesrvAddr, credentials, std::nullopt}, parent)
{ }

ClusterWidget::ClusterWidget(const ConnectionSettings &settings, QWidget *parent)
    : QWidget(parent), m_session(std::make_unique<ClusterSession>(settings))
{
    ClusterSession *s = m_session.get();
    m_alerts = new AlertEngine(s, this);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_cluster = new ClusterView(s, m_tabs);
    m_topics = new TopicsView(s, m_tabs);
    m_route = new RouteView(s, m_topics->model(), m_tabs);
    m_consumers = new ConsumersView(s, m_tabs);
    m_messages = new MessagesView(s, m_topics->model(), m_tabs);
    m_storage = new StorageView(s, m_tabs);
    m_charts = new ChartsView(s, m_tabs);
    m_alertsView = new AlertsView(m_alerts, m_tabs);
    m_acl = new AclView(s, m_tabs);
    m_tabs->addTab(m_cluster, tr("&1 Cluster"));
    m_tabs->addTab(m_topics, tr("&2 Topics"));
    m_tabs->addTab(m_route, tr("&3 Route"));
    m_tabs->addTab(m_consumers, tr("&4 Consumers"));
    m_tabs->addTab(m_messages, tr("&5 Messages"));
    m_tabs->addTab(m_storage, tr("&6 Storage"));
    m_tabs->addTab(m_charts, tr("&7 Charts"));
    m_tabs->addTab(m_alertsView, tr("&8 Alerts"));
    m_tabs->addTab(m_acl, tr("&9 Users && ACL"));
    layout->addWidget(m_tabs);

    connect(m_topics, &TopicsView::routeRequested, this, [this](const QByteArray &topic) {
        m_route->showTopic(topic);
        m_messages->setTopic(topic);
        showView(ViewName::Route);
    });
    connect(m_topics, &TopicsView::message, this, &ClusterWidget::statusMessage);
    connect(m_consumers, &ConsumersView::message, this, &ClusterWidget::statusMessage);
    connect(m_messages, &MessagesView::message, this, &ClusterWidget::statusMessage);
    connect(m_storage, &StorageView::message, this, &ClusterWidget::statusMessage);
    connect(m_acl, &AclView::message, this, &ClusterWidget::statusMessage);
    connect(s, &ClusterSession::problemsChanged, this, &ClusterWidget::problemsChanged);
    auto alertsChanged = [this] {
        const auto &active = m_alerts->active();
        emit this->alertsChanged(
            static_cast<int>(active.size()), active.empty() ? QString() : active.back().text);
        m_tabs->setTabText(static_cast<int>(ViewName::Alerts),
            active.empty() ? tr("&8 Alerts") : tr("&8 Alerts (%1)").arg(active.size()));
    };
    connect(m_alerts, &AlertEngine::alertsChanged, this, alertsChanged);
    connect(m_alerts, &AlertEngine::raised, this,
        [this](const QString &text) { emit statusMessage(tr("Alert: %1").arg(text)); });
    // The route and messages tabs start on the default topic once the list is in.
    connect(s, &ClusterSession::topicsUpdated, this, [this, s] {
        if (s->focusTopic().isEmpty() && !s->topics().empty()) {
            m_route->showTopic(s->defaultTopic());
            m_messages->setTopic(s->defaultTopic());
        }
    });
}

ClusterWidget::~ClusterWidget()
{
    delete m_tabs; // the views (and their models) go before the session they read
    delete m_alerts;
    m_session.reset();
}

Status ClusterWidget::start()
{
    return m_session->start();
}

QString ClusterWidget::namesrvAddr() const
{
    return m_session->namesrvAddr();
}

void ClusterWidget::showView(ViewName v)
{
    m_tabs->setCurrentIndex(static_cast<int>(v));
}

ViewName ClusterWidget::currentView() const
{
    return static_cast<ViewName>(std::max(0, m_tabs->currentIndex()));
}

QWidget *ClusterWidget::viewWidget(ViewName v) const
{
    return m_tabs->widget(static_cast<int>(v));
}

} // namespace qrocket::console
