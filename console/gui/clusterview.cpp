// The cluster tab (see clusterview.h).

#include "console/gui/clusterview.h"

#include "console/gui/brokermodel.h"
#include "console/gui/clustersession.h"
#include "console/gui/explainpanel.h"
#include "console/gui/format.h"

#include <QHeaderView>
#include <QVBoxLayout>

namespace qrocket::console {

ClusterView::ClusterView(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new BrokerModel(session, this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    m_note = makeNote(this);
    m_table = makeTable(m_model, QStringLiteral("brokers"), this);
    m_table.view->setSortingEnabled(false);
    m_table.view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_summary);
    layout->addWidget(m_note);
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
