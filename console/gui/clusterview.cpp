// The cluster tab (see clusterview.h).

#include "console/gui/clusterview.h"

#include "console/gui/brokermodel.h"
#include "console/gui/clustersession.h"
#include "console/gui/electionmodel.h"
#include "console/gui/explainpanel.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QGroupBox>
#include <QHeaderView>
#include <QVBoxLayout>

namespace qrocket::console {

ClusterView::ClusterView(ClusterSession *session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_model(new BrokerModel(session, this))
    , m_electionModel(new ElectionModel(session, this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_note = makeNote(this);
    m_table = makeTable(m_model, QStringLiteral("brokers"), this);
    m_table.view->setSortingEnabled(false);
    m_table.view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_summary);
    layout->addWidget(m_note);
    auto *elections = new QGroupBox(tr("Elections (controller mode, through etcd)"), this);
    m_electionPanel = elections;
    auto *electionLayout = new QVBoxLayout(elections);
    m_electionHeadline = new QLabel(elections);
    m_electionHeadline->setTextFormat(Qt::RichText);
    m_electionTable = makeTable(m_electionModel, QStringLiteral("elections"), elections);
    m_electionTable.view->setSortingEnabled(false);
    m_electionTable.view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_electionTable.view->horizontalHeader()->setStretchLastSection(false);
    m_electionTable.view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_electionHistory = new QLabel(elections);
    m_electionHistory->setTextFormat(Qt::RichText);
    electionLayout->addWidget(m_electionHeadline);
    electionLayout->addWidget(m_electionTable.view);
    electionLayout->addWidget(m_electionHistory);
    // Its own height (a few rows and lines): the broker table's splitter gives way, never it.
    elections->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    elections->hide();
    layout->addWidget(elections);
    connect(session, &ClusterSession::electionsUpdated, this, &ClusterView::updateElections);
    m_explain = ExplainPanel::addBelow(m_table.view, session,
        tr("Select a broker to ask the name servers why it is late or gone"), layout);
    connect(m_table.view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        &ClusterView::onCurrentBroker);
    connect(session, &ClusterSession::brokersUpdated, this, &ClusterView::updateNote);
    // Four times a second, so that the summary line and the rows never disagree for long.
    m_ageTimer.setInterval(250);
    connect(&m_ageTimer, &QTimer::timeout, this, [this] {
        m_model->tick();
        updateNote();
    });
    m_ageTimer.start();
    updateNote();
}

bool ClusterView::hasData() const
{
    return m_model->rowCount() > 0;
}

void ClusterView::selectBroker(const QByteArray &brokerName)
{
    QSortFilterProxyModel *proxy = m_table.proxy;
    for (int r = 0; r < proxy->rowCount(); ++r) {
        const QModelIndex i = proxy->index(r, BrokerModel::Name);
        if (i.data().toString().toUtf8() == brokerName) {
            m_table.view->setCurrentIndex(i);
            return;
        }
    }
}

void ClusterView::onCurrentBroker()
{
    const QModelIndex i = currentSourceRow(m_table);
    const QByteArray name = i.isValid()
        ? m_model->index(i.row(), BrokerModel::Name).data().toString().toUtf8()
        : QByteArray();
    if (name == m_explainedBroker)
        return; // another address of the same broker: the same answer
    m_explainedBroker = name;
    if (name.isEmpty()) {
        m_explain->clearQuestion(
            tr("Select a broker to ask the name servers why it is late or gone"));
        return;
    }
    // Each name server of the session's list keeps its own registration table.
    std::vector<ExplainPanel::Peer> peers;
    for (const QString &addr : m_session->namesrvAddr().split(QLatin1Char(';'), Qt::SkipEmptyParts))
        peers.push_back({tr("name server %1").arg(addr.trimmed()), addr.trimmed().toUtf8()});
    m_explain->setQuestion(
        tr("Why is %1 late or expired?").arg(QString::fromUtf8(name)), [peers] { return peers; },
        [name](client::Admin &admin, const QByteArray &address, ExplainPanel::Callback done) {
            admin.explainBrokerAsync(address, name, std::move(done), 5000);
        });
}

void ClusterView::updateElections()
{
    const std::vector<ElectionState> &all = m_session->elections();
    m_electionPanel->setVisible(!all.empty());
    if (all.empty())
        return;
    QStringList heads;
    QStringList history;
    const std::int64_t now = ClusterSession::nowMono();
    for (const ElectionState &e : all) {
        const bool fresh = e.changedMono > 0 && now - e.changedMono < ElectionModel::kHighlightMs;
        QStringList set;
        for (const QByteArray &m : e.syncStateSet)
            set << QString::fromUtf8(m).toHtmlEscaped();
        const QString master = e.master.isEmpty()
            ? tr("none known yet")
            : QStringLiteral("<span style='color:%1'>%2</span>")
                  .arg(okColor().name(), QString::fromUtf8(e.master).toHtmlEscaped());
        heads << tr("<b>%1</b>: master %2 · epoch <b>%3</b>%4 · SyncStateSet {%5}")
                     .arg(QString::fromUtf8(e.brokerName).toHtmlEscaped(), master)
                     .arg(e.epoch)
                     .arg(fresh ? tr(" <b>— new master elected</b>") : QString())
                     .arg(set.join(QStringLiteral(", ")));
        for (const ElectionEvent &ev : e.history) {
            QString line = tr("%1 · %2 · epoch %3 · master %4")
                               .arg(formatTimestamp(ev.epochMs),
                                   QString::fromUtf8(e.brokerName).toHtmlEscaped())
                               .arg(ev.epoch)
                               .arg(QString::fromUtf8(ev.master).toHtmlEscaped());
            if (!ev.live)
                line += tr(" (master when the console first saw it)");
            else if (!ev.previousMaster.isEmpty() && ev.previousMaster != ev.master)
                line += tr(" (was %1)").arg(QString::fromUtf8(ev.previousMaster).toHtmlEscaped());
            history << line;
        }
    }
    m_electionHeadline->setText(heads.join(QStringLiteral("<br>")));
    m_electionHistory->setText(tr("<b>Last elections seen</b><br>")
        + (history.isEmpty() ? tr("none yet") : history.join(QStringLiteral("<br>"))));
    // The table shows every replica without a scroll bar (a few rows per brokerName).
    QTableView *view = m_electionTable.view;
    int height = view->horizontalHeader()->sizeHint().height() + 2 * view->frameWidth();
    for (int r = 0; r < m_electionModel->rowCount(); ++r)
        height += view->verticalHeader()->sectionSize(r);
    view->setFixedHeight(height + 2);
}

void ClusterView::updateNote()
{
    int live = 0;
    int late = 0;
    int expired = 0;
    double put = 0;
    double get = 0;
    for (const BrokerInfo &b : m_session->brokers()) {
        switch (m_session->liveness(b)) {
        case Liveness::Live:
            ++live;
            break;
        case Liveness::Late:
            ++late;
            break;
        case Liveness::Expired:
            ++expired;
            break;
        case Liveness::Unknown:
            break;
        }
        put += b.registered ? b.putTps : 0;
        get += b.registered ? b.getTps : 0;
    }
    m_summary->setText(
        tr("<b>%1</b> — %2 broker address(es): %3 live, %4 late, %5 expired · "
           "put %6 · get %7 · name-server expiry %8")
            .arg(m_session->namesrvAddr().toHtmlEscaped())
            .arg(m_session->brokers().size())
            .arg(live)
            .arg(late)
            .arg(expired)
            .arg(formatRate(put), formatRate(get), formatDuration(m_session->expiryMs())));
    QStringList notes;
    if (!m_session->livenessSupported()) {
        notes << tr("Heartbeat ages need QRocket's brokerLiveness name-server extension; this "
                    "name server does not have it, so liveness only says whether it lists the "
                    "broker.");
    }
    const PartState &cluster = m_session->clusterPart();
    if (!cluster.error.isEmpty()) {
        notes << tr("<span style='color:#ff6b6b'>&#9888; Cluster info is stale (%1): %2</span>")
                     .arg(cluster.lastOkMono
                             ? formatAgo(ClusterSession::nowMono() - cluster.lastOkMono)
                             : tr("never answered"),
                         cluster.error.toHtmlEscaped());
    }
    setNote(m_note, notes.join(QStringLiteral("<br>")));
}

} // namespace qrocket::console
