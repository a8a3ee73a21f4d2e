// The storage and cleanup tab (see storageview.h).

#include "console/gui/storageview.h"

#include "console/gui/clustersession.h"
#include "console/gui/explainpanel.h"
#include "console/gui/format.h"
#include "console/gui/storagemodel.h"
#include "console/gui/style.h"
#include "console/gui/timechart.h"

#include <QDateTime>
#include <QGridLayout>
#include <QHeaderView>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

namespace qrocket::console {

DiskGauge::DiskGauge(QWidget *parent) : QWidget(parent)
{
    setMinimumSize(260, 24);
    setToolTip(tr("commitLogDiskRatio (GET_BROKER_RUNTIME_INFO): used / (used + available) "
                  "of the commit-log partition, as df shows it and as the broker's clean service "
                  "decides. Marks: diskMaxUsedSpaceRatio (files cleaned before they expire), "
                  "diskSpaceCleanForciblyRatio (cleaned forcibly), diskSpaceWarningLevelRatio "
                  "(above it writes are refused)"));
}

void DiskGauge::setDiskFull(bool full)
{
    if (full == m_full)
        return;
    m_full = full;
    update();
}

void DiskGauge::setMarks(double clean, double forced, double refuse)
{
    if (clean == m_marks[0] && forced == m_marks[1] && refuse == m_marks[2])
        return;
    m_marks[0] = clean;
    m_marks[1] = forced;
    m_marks[2] = refuse;
    update();
}

void DiskGauge::setRatio(double ratio, bool stale)
{
    if (ratio == m_ratio && stale == m_stale)
        return;
    m_ratio = ratio;
    m_stale = stale;
    update();
}

void DiskGauge::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF bar = QRectF(rect()).adjusted(1, 1, -1, -1);
    p.setPen(palette().color(QPalette::Mid));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(bar, 3, 3);
    if (m_ratio >= 0) {
        QColor fill = m_full || m_ratio > m_marks[2]
            ? badColor()
            : (m_ratio > m_marks[0] ? warnColor() : okColor());
        if (m_stale)
            fill = staleColor();
        fill.setAlpha(160);
        QRectF used = bar;
        used.setWidth(bar.width() * std::clamp(m_ratio, 0.0, 1.0));
        p.setPen(Qt::NoPen);
        p.setBrush(fill);
        p.drawRoundedRect(used, 3, 3);
    }
    for (int i = 0; i < 3; ++i) {
        const double x = bar.left() + bar.width() * std::clamp(m_marks[i], 0.0, 1.0);
        p.setPen(
            QPen(i == 2 ? badColor() : (i == 1 ? warnColor() : palette().color(QPalette::Text)),
                1.5, Qt::DashLine));
        p.drawLine(QPointF(x, bar.top()), QPointF(x, bar.bottom()));
    }
    p.setPen(palette().color(QPalette::Text));
    QString text = m_ratio < 0 ? tr("disk ratio unknown") : formatRatio(m_ratio);
    if (m_full)
        text += tr(" · writes refused");
    if (m_stale)
        text += tr(" (stale)");
    p.drawText(bar.adjusted(6, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
}

StorageView::StorageView(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new StoreFileModel(session, this))
{
    auto *layout = new QVBoxLayout(this);
    m_brokerBox = new QWidget(this);
    m_brokers = new QGridLayout(m_brokerBox);
    m_brokers->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_brokerBox);
    auto *bar = new QHBoxLayout;
    m_note = makeNote(this);
    m_clean = new QPushButton(tr("Delete expired commit-log files…"), this);
    m_clean->setToolTip(tr("DELETE_EXPIRED_COMMITLOG on every broker: the clean service deletes "
                           "the files past fileReservedTime now, not at deleteWhen"));
    bar->addWidget(m_note, 1);
    bar->addWidget(m_clean);
    layout->addLayout(bar);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    m_table = makeTable(m_model, QStringLiteral("storeFiles"), splitter);
    m_table.view->horizontalHeader()->resizeSection(StoreFileModel::File, 220);
    m_table.view->horizontalHeader()->resizeSection(StoreFileModel::Expires, 160);
    m_table.view->horizontalHeader()->setStretchLastSection(true);
    m_chart = new TimeChart(
        tr("Commit-log disk ratio (last 10 min; the gauges' figure)"),
        [](double v, double) { return QStringLiteral("%1 %").arg(v, 0, 'f', 0); },
        [](double v) { return formatRatio(v / 100.0); }, splitter);
    m_chart->setFixedRange(0, 100, 25);
    m_chart->setMarks(m_chartMarks);
    m_bottom = new QTabWidget(splitter);
    m_bottom->addTab(m_chart, tr("Disk &ratio"));
    m_explain = new ExplainPanel(session, m_bottom);
    m_explain->clearQuestion(tr("Why is a file not deleted? Shown when this tab is opened"));
    m_bottom->addTab(m_explain, tr("&Why is this file not deleted?"));
    splitter->addWidget(m_table.view);
    splitter->addWidget(m_bottom);
    layout->addWidget(splitter, 1);
    connect(m_bottom, &QTabWidget::currentChanged, this, [this] {
        if (m_bottom->currentWidget() == m_explain)
            askExplain();
    });
    connect(m_table.view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        if (m_bottom->currentWidget() == m_explain)
            askExplain();
    });
    connect(this, &StorageView::cleanupFinished, m_explain, &ExplainPanel::refresh);
    connect(m_clean, &QPushButton::clicked, this, &StorageView::confirmCleanup);
    connect(session, &ClusterSession::storageUpdated, this, &StorageView::refresh);
    connect(session, &ClusterSession::brokersUpdated, this, &StorageView::refresh);
    refresh();
}

void StorageView::showExplainTab()
{
    if (m_bottom->currentWidget() == m_explain)
        askExplain();
    else
        m_bottom->setCurrentWidget(m_explain);
}

void StorageView::askExplain()
{
    auto ask = [](client::Admin &admin, const QByteArray &address, ExplainPanel::Callback done) {
        admin.explainCleanupAsync(address, std::move(done), 5000);
    };
    const QModelIndex i = currentSourceRow(m_table);
    if (!i.isValid()) {
        m_explain->setQuestion(
            tr("Why are the commit-log files kept?"), [this] { return explainMasters(*m_session); },
            ask);
        return;
    }
    const QString broker = m_model->index(i.row(), StoreFileModel::Broker).data().toString();
    const QString file = m_model->index(i.row(), StoreFileModel::File).data().toString();
    // The file's own findings and the broker-wide ones (subject "commitlog").
    m_explain->setQuestion(
        tr("Why is %1 on %2 not deleted?").arg(file, broker),
        [this, broker] {
            std::vector<ExplainPanel::Peer> peers = explainMasters(*m_session);
            std::erase_if(peers, [&](const ExplainPanel::Peer &p) { return p.label != broker; });
            return peers;
        },
        ask,
        [file = file.toUtf8()](const protocol::ExplainFinding &f) {
            return f.subject == "commitlog" || f.subject.endsWith('/' + file) || f.subject == file;
        });
}

bool StorageView::hasData() const
{
    if (m_gauges.empty())
        return false;
    for (const BrokerInfo &b : m_session->brokers()) {
        if (b.registered && b.brokerId == protocol::kMasterBrokerId && !b.storeFiles
            && !b.store.notSupported)
            return false;
    }
    return true;
}

DiskGauge *StorageView::gaugeFor(const QByteArray &address) const
{
    for (const auto &[gaugeAddress, gauge] : m_gauges) {
        if (gaugeAddress == address)
            return gauge;
    }
    return nullptr;
}

QString StorageView::factsFor(const QByteArray &address) const
{
    for (std::size_t i = 0; i < m_gauges.size(); ++i) {
        if (m_gauges[i].first == address && 2 * i + 1 < m_brokerLabels.size())
            return m_brokerLabels[2 * i + 1]->text();
    }
    return {};
}

void StorageView::refresh()
{
    std::vector<const BrokerInfo *> masters;
    for (const BrokerInfo &b : m_session->brokers()) {
        if (b.brokerId == protocol::kMasterBrokerId && b.everRegistered)
            masters.push_back(&b);
    }
    if (masters.size() != m_gauges.size()) {
        for (auto &g : m_gauges)
            delete g.second;
        for (QLabel *l : m_brokerLabels)
            delete l;
        m_gauges.clear();
        m_brokerLabels.clear();
        for (std::size_t i = 0; i < masters.size(); ++i) {
            auto *name = new QLabel(m_brokerBox);
            auto *gauge = new DiskGauge(m_brokerBox);
            auto *info = new QLabel(m_brokerBox);
            info->setTextFormat(Qt::RichText);
            info->setWordWrap(true); // the broker's reason for a write block is long
            m_brokers->addWidget(name, static_cast<int>(i), 0);
            m_brokers->addWidget(gauge, static_cast<int>(i), 1);
            m_brokers->addWidget(info, static_cast<int>(i), 2);
            m_brokers->setColumnStretch(1, 1);
            m_brokers->setColumnStretch(2, 2);
            m_gauges.emplace_back(masters[i]->address, gauge);
            m_brokerLabels.push_back(name);
            m_brokerLabels.push_back(info);
        }
    }
    bool anyNotSupported = false;
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    QStringList chartNames;
    for (std::size_t i = 0; i < masters.size(); ++i) {
        const BrokerInfo &b = *masters[i];
        m_gauges[i].first = b.address;
        const bool stale = !b.runtimeOk || !b.registered;
        // The runtime info's figure, as the chart below and the cluster view: storeFiles
        // carries the same measure, but polled less often.
        DiskGauge *gauge = m_gauges[i].second;
        gauge->setRatio(b.diskRatio, stale);
        gauge->setDiskFull(b.diskFull);
        gauge->setMarks(diskMark(b.diskMaxUsedSpaceRatio, 0.75),
            diskMark(b.diskSpaceCleanForciblyRatio, 0.85),
            diskMark(b.diskSpaceWarningLevelRatio, 0.90));
        m_brokerLabels[2 * i]->setText(QStringLiteral("<b>%1</b> %2")
                                           .arg(QString::fromUtf8(b.brokerName).toHtmlEscaped(),
                                               QString::fromUtf8(b.address).toHtmlEscaped()));
        m_brokerLabels[2 * i]->setTextFormat(Qt::RichText);
        QStringList facts;
        facts << tr("fileReservedTime %1 h")
                     .arg(b.storeFiles
                             ? QString::number(b.storeFiles->fileReservedTimeHours)
                             : (b.fileReservedTime.isEmpty() ? QStringLiteral("?")
                                                             : b.fileReservedTime.toHtmlEscaped()));
        facts << tr("deleteWhen %1")
                     .arg(b.deleteWhen.isEmpty() ? QStringLiteral("?")
                                                 : b.deleteWhen.toHtmlEscaped());
        facts << tr("commit log %1 – %2")
                     .arg(formatCount(b.commitLogMinOffset), formatCount(b.commitLogMaxOffset));
        if (b.consumeQueueDiskRatio >= 0 && b.consumeQueueDiskRatio != b.diskRatio)
            facts << tr("consume-queue partition %1").arg(formatRatio(b.consumeQueueDiskRatio));
        if (b.storeFiles) {
            std::int64_t total = 0;
            for (const auto &f : b.storeFiles->files)
                total += f.size;
            facts << tr("%1 file(s), %2").arg(b.storeFiles->files.size()).arg(formatBytes(total));
        }
        if (b.diskFull) {
            // The broker's reason names the partition, its ratio and the mark that decided.
            facts << tr("<span style='color:#ff6b6b'>&#9888; writes refused: %1</span>")
                         .arg(writeBlockReason(b).toHtmlEscaped());
        }
        if (b.store.notSupported)
            anyNotSupported = true;
        else if (!b.store.error.isEmpty())
            facts << tr("<span style='color:#f0b429'>files: %1</span>")
                         .arg(b.store.error.toHtmlEscaped());
        m_brokerLabels[2 * i + 1]->setText(facts.join(QStringLiteral(" · ")));
        QList<QPointF> points;
        for (const BrokerSample &s : m_session->history(b.address)) {
            if (s.diskRatio >= 0 && s.epochMs >= now - 10 * 60 * 1000)
                points.append(QPointF(static_cast<double>(s.epochMs), s.diskRatio * 100.0));
        }
        const QString series = QString::fromUtf8(b.brokerName);
        chartNames << series;
        m_chart->setSeries(series, points);
    }
    // The chart's lines are the gauges' marks: the first master's configured ones.
    if (!masters.empty()) {
        const BrokerInfo &b = *masters.front();
        const QList<double> marks {diskMark(b.diskMaxUsedSpaceRatio, 0.75) * 100,
            diskMark(b.diskSpaceCleanForciblyRatio, 0.85) * 100,
            diskMark(b.diskSpaceWarningLevelRatio, 0.90) * 100};
        if (marks != m_chartMarks) {
            m_chartMarks = marks;
            m_chart->setMarks(m_chartMarks);
        }
    }
    m_chart->retainSeries(chartNames);
    m_chart->finishUpdate(now, 10 * 60 * 1000);
    if (anyNotSupported) {
        setNote(m_note,
            tr("The commit-log file list needs QRocket's storeFiles broker extension; "
               "this broker does not have it (stock RocketMQ). The gauge, settings and "
               "cleanup still work."));
    } else if (m_note->property("sticky").toString().isEmpty()) {
        setNote(m_note, {});
    }
}

void StorageView::confirmCleanup()
{
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete expired commit-log files"),
        tr("Send DELETE_EXPIRED_COMMITLOG to every broker? Files past fileReservedTime are "
           "deleted now; their messages can no longer be read."),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this](int button) {
        if (button == QMessageBox::Yes)
            runCleanup();
    });
    box->open();
}

void StorageView::runCleanup()
{
    m_clean->setEnabled(false);
    m_session->admin().deleteExpiredCommitLogAsync(
        {}, m_session->deliver<client::FanOutResult>(this, [this](Result<client::FanOutResult> r) {
            m_clean->setEnabled(true);
            const Status s = r ? r->status() : r.error();
            const QString text = s
                ? tr("DELETE_EXPIRED_COMMITLOG sent to %1 broker(s)").arg(r->outcomes.size())
                : tr("Cleanup failed: %1").arg(s.toString());
            m_note->setProperty("sticky", text);
            setNote(m_note,
                QStringLiteral("<span style='color:%1'>%2</span>")
                    .arg(s ? QStringLiteral("#4cc36a") : QStringLiteral("#ff6b6b"),
                        text.toHtmlEscaped()));
            emit message(text);
            m_session->refreshCatalog();
            emit cleanupFinished(s.isOk());
        }));
}

} // namespace qrocket::console
