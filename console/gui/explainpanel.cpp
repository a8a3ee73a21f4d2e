// The "why" panel (see explainpanel.h).

#include "console/gui/explainpanel.h"

#include "console/gui/clustersession.h"
#include "console/gui/style.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace qrocket::console {

namespace verdicts = protocol::explainverdict;

namespace {

enum Column { VerdictCol, PeerCol, FindingCol, DecidedByCol, SubjectCol, ColumnCount };

constexpr char kError[] = "error";

/// Rank of a row's verdict: an unanswered peer sorts with the blocking findings.
int rankOf(const ExplainPanel::Row &r)
{
    return r.error ? 0 : verdicts::rank(r.finding.verdict);
}

QColor verdictColor(const ExplainPanel::Row &r)
{
    switch (rankOf(r)) {
    case 0:
        return badColor();
    case 1:
        return warnColor();
    case 2:
        return okColor();
    default:
        return staleColor();
    }
}

/// "setting = value", "client <id>", both, or the bare value.
QString decidedBy(const protocol::ExplainFinding &f)
{
    QStringList parts;
    if (!f.setting.isEmpty()) {
        parts << (f.value.isEmpty() ? QString::fromUtf8(f.setting)
                                    : QStringLiteral("%1 = %2").arg(
                                        QString::fromUtf8(f.setting), QString::fromUtf8(f.value)));
    } else if (!f.value.isEmpty()) {
        parts << QString::fromUtf8(f.value);
    }
    if (!f.client.isEmpty())
        parts << ExplainPanel::tr("client %1").arg(QString::fromUtf8(f.client));
    return parts.join(QStringLiteral("\n"));
}

} // namespace

std::vector<ExplainPanel::Peer> explainMasters(const ClusterSession &session)
{
    std::vector<ExplainPanel::Peer> peers;
    for (const BrokerInfo &b : session.brokers()) {
        if (b.registered && b.brokerId == protocol::kMasterBrokerId)
            peers.push_back({QString::fromUtf8(b.brokerName), b.address});
    }
    std::sort(peers.begin(), peers.end(),
        [](const ExplainPanel::Peer &a, const ExplainPanel::Peer &b) { return a.label < b.label; });
    return peers;
}

ExplainPanel *ExplainPanel::addBelow(
    QWidget *above, ClusterSession *session, const QString &prompt, QBoxLayout *layout)
{
    auto *splitter = new QSplitter(Qt::Vertical, layout->parentWidget());
    splitter->addWidget(above);
    auto *panel = new ExplainPanel(session, splitter);
    panel->clearQuestion(prompt);
    splitter->addWidget(panel);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({600, 400}); // proportions: the table's size hint would take it all
    layout->addWidget(splitter, 1);
    return panel;
}

ExplainPanel::ExplainPanel(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *top = new QHBoxLayout;
    m_heading = new QLabel(this);
    m_heading->setTextFormat(Qt::RichText);
    m_summary = new QLabel(this);
    m_summary->setTextFormat(Qt::RichText);
    m_ask = new QPushButton(tr("Ask &again"), this);
    m_ask->setToolTip(tr("Asks the daemons again (QRocket's explain requests; the answer names "
                         "the setting or the client that decides)"));
    m_ask->setEnabled(false);
    top->addWidget(m_heading);
    top->addWidget(m_summary, 1);
    top->addWidget(m_ask);
    layout->addLayout(top);
    m_table = new QTableWidget(0, ColumnCount, this);
    m_table->setObjectName(QStringLiteral("explainFindings"));
    m_table->setHorizontalHeaderLabels(
        {tr("Verdict"), tr("Asked"), tr("Finding"), tr("Decided by"), tr("About")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->setAlternatingRowColors(true);
    QHeaderView *h = m_table->horizontalHeader();
    h->setSectionResizeMode(VerdictCol, QHeaderView::ResizeToContents);
    h->setSectionResizeMode(PeerCol, QHeaderView::ResizeToContents);
    h->setSectionResizeMode(FindingCol, QHeaderView::Stretch);
    // The setting and its value on one line where they fit; long values wrap at the cap.
    h->setMaximumSectionSize(420);
    h->setSectionResizeMode(DecidedByCol, QHeaderView::ResizeToContents);
    h->setSectionResizeMode(SubjectCol, QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    connect(m_ask, &QPushButton::clicked, this, &ExplainPanel::refresh);
    clearQuestion({});
}

void ExplainPanel::clearQuestion(const QString &hint)
{
    ++m_generation;
    m_question.clear();
    m_peersOf = {};
    m_peers.clear();
    m_askOne = {};
    m_keep = {};
    m_rows.clear();
    m_pending = 0;
    m_asked = false;
    m_heading->setText(hint.toHtmlEscaped());
    m_summary->clear();
    m_ask->setEnabled(false);
    m_table->hide(); // no empty grid under the hint
    fillTable();
}

void ExplainPanel::setQuestion(const QString &question, Peers peers, Ask ask, Filter keep)
{
    m_question = question;
    m_peersOf = std::move(peers);
    m_askOne = std::move(ask);
    m_keep = std::move(keep);
    this->ask();
}

void ExplainPanel::refresh()
{
    if (m_askOne)
        ask();
}

void ExplainPanel::ask()
{
    const int generation = ++m_generation;
    m_rows.clear();
    m_asked = true;
    m_answeredPeers = 0;
    m_heading->setText(QStringLiteral("<b>%1</b>").arg(m_question.toHtmlEscaped()));
    m_ask->setEnabled(true);
    m_table->show();
    m_peers = m_peersOf ? m_peersOf() : std::vector<Peer> {};
    m_pending = static_cast<int>(m_peers.size());
    if (m_peers.empty()) {
        m_summary->setText(tr("nobody to ask: no registered master"));
        fillTable();
        emit answered();
        return;
    }
    m_summary->setText(tr("asking %1…").arg(m_peers.size()));
    fillTable();
    for (const Peer &peer : m_peers) {
        const QString label = peer.label;
        m_askOne(m_session->admin(), peer.address,
            m_session->deliver<protocol::ExplainBody>(
                this, [this, generation, label](Result<protocol::ExplainBody> r) {
                    if (generation != m_generation)
                        return; // an older question's answer
                    if (r) {
                        ++m_answeredPeers;
                        for (protocol::ExplainFinding &f : r->findings) {
                            if (!m_keep || m_keep(f))
                                m_rows.push_back({label, std::move(f), false});
                        }
                    } else {
                        protocol::ExplainFinding f;
                        f.verdict = kError;
                        f.reason = r.error().code() == Status::Code::NotSupported
                            ? tr("not answered: this daemon lacks QRocket's explain requests "
                                 "(%1)")
                                  .arg(r.error().toString())
                                  .toUtf8()
                            : r.error().toString().toUtf8();
                        m_rows.push_back({label, std::move(f), true});
                    }
                    std::stable_sort(m_rows.begin(), m_rows.end(),
                        [](const Row &a, const Row &b) { return rankOf(a) < rankOf(b); });
                    if (--m_pending == 0) {
                        const QByteArray v = verdict();
                        QColor c = v == verdicts::kBlocking || v == kError
                            ? badColor()
                            : (v == verdicts::kWarning ? warnColor() : okColor());
                        m_summary->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                                               .arg(c.name(), summary().toHtmlEscaped()));
                    }
                    fillTable();
                    if (m_pending == 0)
                        emit answered();
                }));
    }
}

QByteArray ExplainPanel::verdict() const
{
    if (m_asked && m_answeredPeers == 0 && !m_peers.empty())
        return kError;
    QByteArray worst = verdicts::kOk;
    for (const Row &r : m_rows) {
        if (!r.error && verdicts::rank(r.finding.verdict) < verdicts::rank(worst))
            worst = r.finding.verdict;
    }
    return worst;
}

QString ExplainPanel::summary() const
{
    if (!ready())
        return {};
    int blocking = 0;
    int warnings = 0;
    for (const Row &r : m_rows) {
        blocking += r.finding.verdict == verdicts::kBlocking ? 1 : 0;
        warnings += r.finding.verdict == verdicts::kWarning ? 1 : 0;
    }
    return tr("%1 — %2 blocking, %3 warning(s); %4 of %5 answered")
        .arg(QString::fromUtf8(verdict()))
        .arg(blocking)
        .arg(warnings)
        .arg(m_answeredPeers)
        .arg(m_peers.size());
}

void ExplainPanel::fillTable()
{
    m_table->setRowCount(static_cast<int>(m_rows.size()));
    for (int i = 0; i < static_cast<int>(m_rows.size()); ++i) {
        const Row &r = m_rows[static_cast<std::size_t>(i)];
        const protocol::ExplainFinding &f = r.finding;
        auto set = [&](int col, const QString &text, const QString &tip = {}) {
            auto *item = new QTableWidgetItem(text);
            item->setToolTip(tip.isEmpty() ? text : tip);
            m_table->setItem(i, col, item);
            return item;
        };
        QTableWidgetItem *v = set(VerdictCol, QString::fromUtf8(f.verdict),
            f.kind.isEmpty() ? QString() : tr("kind: %1").arg(QString::fromUtf8(f.kind)));
        v->setForeground(verdictColor(r));
        QFont bold = v->font();
        bold.setBold(rankOf(r) <= 1);
        v->setFont(bold);
        set(PeerCol, r.peer);
        set(FindingCol, QString::fromUtf8(f.reason));
        set(DecidedByCol, decidedBy(f));
        // A file path: its name (the whole path in the tooltip).
        const QString subject = QString::fromUtf8(f.subject);
        set(SubjectCol, subject.section(QLatin1Char('/'), -1), subject);
    }
    m_table->resizeRowsToContents();
}

} // namespace qrocket::console
