// The consumers tab (see consumersview.h).

#include "console/gui/consumersview.h"

#include "clientlib/protocol/systemtopics.h"
#include "console/gui/clustersession.h"
#include "console/gui/consumerdetail.h"
#include "console/gui/explainpanel.h"
#include "console/gui/format.h"
#include "console/gui/groupmodel.h"
#include "console/gui/resetoffset.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace qrocket::console {

ConsumersView::ConsumersView(ClusterSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_groups(new GroupModel(session, this))
    , m_queues(new ConsumerQueueModel(session, this))
    , m_connections(new ConnectionModel(session, this))
{
    auto *layout = new QVBoxLayout(this);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search groups (Ctrl+F)"));
    auto *find = new QShortcut(QKeySequence::Find, this);
    connect(find, &QShortcut::activated, m_search, [this] { m_search->setFocus(); });
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_groupTable = makeTable(m_groups, QStringLiteral("groups"), splitter);
    m_groupTable.view->horizontalHeader()->resizeSection(0, 280);
    m_groupTable.proxy->setFilterKeyColumn(GroupModel::Name);
    m_groupTable.view->horizontalHeader()->setStretchLastSection(true);
    splitter->addWidget(m_groupTable.view);
    auto *detail = new QWidget(splitter);
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    m_title = new QLabel(tr("Select a group"), detail);
    m_note = makeNote(detail);
    auto *tabs = m_tabs = new QTabWidget(detail);
    m_queueTable = makeTable(m_queues, QStringLiteral("groupQueues"), tabs);
    m_connectionTable = makeTable(m_connections, QStringLiteral("groupClients"), tabs);
    m_connectionTable.view->horizontalHeader()->setStretchLastSection(true);
    m_queueTable.view->horizontalHeader()->setStretchLastSection(true);
    m_reset = new ResetOffsetPanel(session, tabs);
    tabs->addTab(m_queueTable.view, tr("&Queues"));
    tabs->addTab(m_connectionTable.view, tr("C&lients"));
    tabs->addTab(m_reset, tr("Reset &offset"));
    m_explain = new ExplainPanel(session, tabs);
    m_explain->clearQuestion(tr("Select a group"));
    tabs->addTab(m_explain, tr("&Why not consuming?"));
    detailLayout->addWidget(m_title);
    detailLayout->addWidget(m_note);
    detailLayout->addWidget(tabs, 1);
    splitter->addWidget(detail);
    layout->addWidget(splitter, 1);

    connect(m_search, &QLineEdit::textChanged, m_groupTable.proxy,
        &QSortFilterProxyModel::setFilterFixedString);
    connect(m_groupTable.view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &ConsumersView::onCurrentGroup);
    connect(session, &ClusterSession::focusGroupUpdated, this, &ConsumersView::onFocusUpdated);
    connect(m_reset, &ResetOffsetPanel::message, this, &ConsumersView::message);
    m_runningInfoTimer.setInterval(5000);
    connect(&m_runningInfoTimer, &QTimer::timeout, this, &ConsumersView::pollRunningInfo);
    m_runningInfoTimer.start();
}

bool ConsumersView::hasData() const
{
    return m_groups->rowCount() > 0;
}

void ConsumersView::selectGroup(const QByteArray &group)
{
    QSortFilterProxyModel *proxy = m_groupTable.proxy;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        const QModelIndex i = proxy->index(r, 0);
        if (i.data(GroupModel::KeyRole).toByteArray() == group) {
            m_groupTable.view->setCurrentIndex(i);
            m_groupTable.view->scrollTo(i);
            return;
        }
    }
    m_session->setFocusGroup(group);
}

void ConsumersView::onCurrentGroup()
{
    const QModelIndex i = currentSourceRow(m_groupTable);
    const QByteArray group = i.isValid() ? i.data(GroupModel::KeyRole).toByteArray() : QByteArray();
    m_session->setFocusGroup(group);
    m_queues->setQueueOwners({});
    m_title->setText(group.isEmpty()
            ? tr("Select a group")
            : tr("<b>%1</b>").arg(QString::fromUtf8(group).toHtmlEscaped()));
    if (group.isEmpty()) {
        m_explain->clearQuestion(tr("Select a group"));
    } else {
        m_explain->setQuestion(
            tr("Why is %1 not consuming?").arg(QString::fromUtf8(group)),
            [this] { return explainMasters(*m_session); },
            [group](client::Admin &admin, const QByteArray &address, ExplainPanel::Callback done) {
                admin.explainGroupAsync(address, group, {}, std::move(done), 5000);
            });
    }
    pollRunningInfo();
}

void ConsumersView::showExplainTab()
{
    m_tabs->setCurrentWidget(m_explain);
}

void ConsumersView::onFocusUpdated()
{
    const QByteArray group = m_session->focusGroup();
    std::vector<QByteArray> topics;
    if (const auto &cc = m_session->focusConnection()) {
        for (const auto &entry : cc->subscriptionTable) {
            if (!entry.first.startsWith(protocol::topics::kRetryPrefix))
                topics.push_back(entry.first);
        }
    }
    if (topics.empty()) {
        if (const auto &stats = m_session->focusConsumeStats()) {
            for (const auto &entry : stats->offsetTable) {
                if (!entry.first.topic.startsWith(protocol::topics::kRetryPrefix)
                    && std::find(topics.begin(), topics.end(), entry.first.topic) == topics.end())
                    topics.push_back(entry.first.topic);
            }
        }
    }
    m_reset->setGroup(group, topics);
    // The first connection list of a group: ask its clients for their queues at once.
    if (!group.isEmpty() && group != m_ownersAskedFor && m_session->focusConnection())
        pollRunningInfo();
    if (!group.isEmpty()) {
        // The group list's row: one source for the lag and the TPS in both places.
        const GroupInfo *g = m_session->group(group);
        const bool known = g && g->statsKnown;
        const QString tps = known ? tr("%1 (1-min avg, %2)")
                                        .arg(formatRate(g->consumeTps),
                                            formatAgo(ClusterSession::nowMono() - g->statsOkMono))
                                  : tr("consume TPS pending");
        m_title->setText(tr("<b>%1</b> · lag %2 · %3 · %4 client(s)")
                             .arg(QString::fromUtf8(group).toHtmlEscaped(),
                                 known ? formatCount(g->lag) : QStringLiteral("-"), tps)
                             .arg(m_connections->rowCount()));
    }
    QStringList notes;
    if (!m_session->focusGroupPart().error.isEmpty())
        notes << tr("Consume stats: %1").arg(m_session->focusGroupPart().error.toHtmlEscaped());
    if (!m_session->focusConnectionError().isEmpty())
        notes << tr("Connections: %1").arg(m_session->focusConnectionError().toHtmlEscaped());
    QString text;
    if (!m_session->focusGroupNote().isEmpty())
        text = m_session->focusGroupNote().toHtmlEscaped();
    if (!notes.isEmpty())
        text += (text.isEmpty() ? QString() : QStringLiteral("<br>"))
            + QStringLiteral("<span style='color:#f0b429'>%1</span>")
                  .arg(notes.join(QStringLiteral("<br>")));
    setNote(m_note, text);
}

QString ConsumersView::titleText() const
{
    return m_title->text();
}

QString ConsumersView::noteText() const
{
    return m_note->text();
}

void ConsumersView::pollRunningInfo()
{
    const QByteArray group = m_session->focusGroup();
    const auto &cc = m_session->focusConnection();
    if (group.isEmpty() || !cc || cc->connectionSet.empty())
        return;
    m_ownersAskedFor = group;
    // One GET_CONSUMER_RUNNING_INFO per client of the focus group (a handful), gathered.
    struct Gather
    {
        int pending = 0;
        std::map<protocol::MessageQueue, QByteArray> owners;
    };
    auto gather = std::make_shared<Gather>();
    gather->pending = static_cast<int>(cc->connectionSet.size());
    for (const client::admin::Connection &c : cc->connectionSet) {
        const QByteArray clientId = c.clientId;
        m_session->admin().consumerRunningInfoAsync(group, clientId, false,
            m_session->deliver<client::admin::ConsumerRunningInfo>(this,
                [this, gather, group, clientId](Result<client::admin::ConsumerRunningInfo> r) {
                    if (r) {
                        for (const auto &entry : r->mqTable)
                            gather->owners[entry.first] = clientId;
                    }
                    if (--gather->pending == 0 && group == m_session->focusGroup())
                        m_queues->setQueueOwners(std::move(gather->owners));
                }),
            3000);
    }
}

} // namespace qrocket::console
