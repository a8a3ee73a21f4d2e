// The route tab (see routeview.h).

#include "console/gui/routeview.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/routediagram.h"
#include "console/gui/routemodel.h"
#include "console/gui/topicmodel.h"

#include <QCompleter>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

namespace qrocket::console {

RouteView::RouteView(ClusterSession *session, TopicModel *topics, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new RouteQueueModel(session, this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    m_topic = new QLineEdit(this);
    m_topic->setPlaceholderText(tr("Topic"));
    auto *completer = new QCompleter(topics, m_topic);
    completer->setCompletionColumn(TopicModel::Name);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_topic->setCompleter(completer);
    auto *show = new QPushButton(tr("Show"), this);
    bar->addWidget(new QLabel(tr("Topic:"), this));
    bar->addWidget(m_topic, 1);
    bar->addWidget(show);
    layout->addLayout(bar);
    m_note = makeNote(this);
    layout->addWidget(m_note);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_diagram = new RouteDiagram(session, splitter);
    auto *scroll = new QScrollArea(splitter);
    scroll->setWidget(m_diagram);
    scroll->setWidgetResizable(true);
    m_table = makeTable(m_model, QStringLiteral("routeQueues"), splitter);
    splitter->addWidget(scroll);
    splitter->addWidget(m_table.view);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    layout->addWidget(splitter, 1);
    auto apply = [this] { showTopic(m_topic->text().trimmed().toUtf8()); };
    connect(m_topic, &QLineEdit::returnPressed, this, apply);
    connect(show, &QPushButton::clicked, this, apply);
    connect(session, &ClusterSession::focusTopicUpdated, this, &RouteView::updateNote);
    connect(session, &ClusterSession::focusTopicUpdated, m_diagram, &QWidget::updateGeometry);
}

void RouteView::showTopic(const QByteArray &topic)
{
    m_topic->setText(QString::fromUtf8(topic));
    m_session->setFocusTopic(topic);
}

bool RouteView::hasData() const
{
    return m_session->focusRoute().has_value() && m_session->focusStats().has_value()
        && m_model->rowCount() > 0;
}

void RouteView::updateNote()
{
    const PartState &part = m_session->focusTopicPart();
    if (part.error.isEmpty()) {
        setNote(m_note, {});
        return;
    }
    setNote(m_note,
        tr("<span style='color:#f0b429'>&#9888; %1 (last good answer %2)</span>")
            .arg(part.error.toHtmlEscaped(),
                part.lastOkMono ? formatAgo(ClusterSession::nowMono() - part.lastOkMono)
                                : tr("never")));
}

} // namespace qrocket::console
