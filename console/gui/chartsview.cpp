// The live TPS charts (see chartsview.h).

#include "console/gui/chartsview.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/timechart.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace qrocket::console {

namespace {

TimeChart *rateChart(QWidget *parent)
{
    return new TimeChart(
        QString(), [](double v, double step) { return formatRateTick(v, step); },
        [](double v) { return formatRate(v); }, parent);
}

} // namespace

ChartsView::ChartsView(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    auto *layout = new QHBoxLayout(this);
    auto *charts = new QVBoxLayout;
    auto *bar = new QHBoxLayout;
    m_scope = new QComboBox(this);
    m_scope->addItem(tr("Per broker (every second)"));
    m_scope->addItem(tr("Per topic (1-min averages, every 10 s)"));
    auto *scopeLabel = new QLabel(tr("&Show:"), this);
    scopeLabel->setBuddy(m_scope);
    bar->addWidget(scopeLabel);
    bar->addWidget(m_scope);
    bar->addStretch(1);
    charts->addLayout(bar);
    m_put = rateChart(this);
    m_get = rateChart(this);
    charts->addWidget(m_put, 1);
    charts->addWidget(m_get, 1);
    layout->addLayout(charts, 1);
    m_topics = new QListWidget(this);
    m_topics->setToolTip(
        tr("Topics drawn: the %1 busiest until you check or uncheck one").arg(kTopTopics));
    m_topics->setMaximumWidth(300);
    m_topics->setMinimumWidth(220);
    layout->addWidget(m_topics);
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] {
        m_topics->setVisible(scope() == Scope::Topics);
        // The other scope's series go; the next refresh draws this one's.
        m_put->retainSeries({});
        m_get->retainSeries({});
        refresh();
    });
    connect(m_topics, &QListWidget::itemChanged, this, [this] {
        if (m_filling)
            return;
        m_manualTopics = true;
        refresh();
    });
    connect(session, &ClusterSession::brokersUpdated, this, &ChartsView::refresh);
    connect(session, &ClusterSession::topicRatesUpdated, this, [this] {
        m_ratesDirty = true;
        refresh();
    });
    m_topics->setVisible(false);
    setScope(Scope::Brokers);
}

void ChartsView::setScope(Scope scope)
{
    m_scope->setCurrentIndex(static_cast<int>(scope));
    m_topics->setVisible(scope == Scope::Topics);
    refresh();
}

ChartsView::Scope ChartsView::scope() const
{
    return static_cast<Scope>(m_scope->currentIndex());
}

QStringList ChartsView::checkedTopics() const
{
    QStringList out;
    for (int i = 0; i < m_topics->count(); ++i) {
        if (m_topics->item(i)->checkState() == Qt::Checked)
            out << m_topics->item(i)->data(Qt::UserRole).toString();
    }
    return out;
}

void ChartsView::setCheckedTopics(const QStringList &topics)
{
    m_manualTopics = true;
    m_filling = true;
    for (int i = 0; i < m_topics->count(); ++i) {
        QListWidgetItem *item = m_topics->item(i);
        item->setCheckState(
            topics.contains(item->data(Qt::UserRole).toString()) ? Qt::Checked : Qt::Unchecked);
    }
    m_filling = false;
    refresh();
}

bool ChartsView::hasData() const
{
    return m_put->seriesCount() > 0 && m_put->pointCount() >= 2 * m_put->seriesCount();
}

void ChartsView::refresh()
{
    if (!isVisible() && hasData())
        return; // drawn again when shown (the next poll comes in 1 s)
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    if (scope() == Scope::Brokers)
        refreshBrokers(now);
    else
        refreshTopics(now);
}

void ChartsView::refreshBrokers(std::int64_t now)
{
    m_put->chart()->setTitle(tr("Put TPS per broker (msgPutTotalTodayNow, each second)"));
    m_get->chart()->setTitle(tr("Get TPS per broker (msgGetTotalTodayNow, each second)"));
    QStringList names;
    for (const BrokerInfo &b : m_session->brokers()) {
        if (b.brokerId != protocol::kMasterBrokerId && !b.registered)
            continue;
        const QString name = QStringLiteral("%1 (%2)").arg(
            QString::fromUtf8(b.brokerName), QString::fromUtf8(b.address));
        QList<QPointF> put;
        QList<QPointF> get;
        for (const BrokerSample &s : m_session->history(b.address)) {
            if (s.epochMs < now - kWindowMs)
                continue;
            put.append(QPointF(static_cast<double>(s.epochMs), s.putTps));
            get.append(QPointF(static_cast<double>(s.epochMs), s.getTps));
        }
        if (put.isEmpty())
            continue;
        names << name;
        m_put->setSeries(name, put);
        m_get->setSeries(name, get);
    }
    m_put->retainSeries(names);
    m_get->retainSeries(names);
    // The window grows with the samples, from one minute to ten, so a fresh session is readable.
    std::int64_t oldest = now;
    for (const BrokerInfo &b : m_session->brokers()) {
        const auto &h = m_session->history(b.address);
        if (!h.empty())
            oldest = std::min(oldest, h.front().epochMs);
    }
    const std::int64_t window = std::clamp<std::int64_t>(now - oldest, 60 * 1000, kWindowMs);
    m_put->finishUpdate(now, window);
    m_get->finishUpdate(now, window);
}

void ChartsView::fillTopicList()
{
    // Busiest first; the operator's checks are kept, else the top ones are checked.
    std::vector<std::pair<double, QString>> order;
    for (const auto &[topic, rates] : m_session->topicRates())
        order.emplace_back(rates.putTps + rates.getTps, QString::fromUtf8(topic));
    std::stable_sort(
        order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    const QStringList checked = checkedTopics();
    m_filling = true;
    m_topics->clear();
    for (std::size_t i = 0; i < order.size(); ++i) {
        const QString &topic = order[i].second;
        const TopicRates &r = m_session->topicRates().at(topic.toUtf8());
        auto *item = new QListWidgetItem(
            tr("%1\nput %2 · get %3").arg(topic, formatRate(r.putTps), formatRate(r.getTps)),
            m_topics);
        item->setData(Qt::UserRole, topic);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        const bool on = m_manualTopics
            ? checked.contains(topic)
            : (i < static_cast<std::size_t>(kTopTopics) && order[i].first > 0);
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
    m_filling = false;
}

void ChartsView::refreshTopics(std::int64_t now)
{
    m_put->chart()->setTitle(
        tr("Put TPS per topic (TOPIC_PUT_NUMS, 1-min average, summed over the brokers)"));
    m_get->chart()->setTitle(
        tr("Get TPS per topic (GROUP_GET_NUMS of its groups, 1-min average, summed)"));
    if (m_ratesDirty) {
        m_ratesDirty = false;
        fillTopicList();
    }
    QStringList names;
    std::int64_t oldest = now;
    for (const QString &topic : checkedTopics()) {
        const auto it = m_session->topicRates().find(topic.toUtf8());
        if (it == m_session->topicRates().end())
            continue;
        QList<QPointF> put;
        QList<QPointF> get;
        for (const TopicRateSample &s : it->second.history) {
            if (s.epochMs < now - kWindowMs)
                continue;
            oldest = std::min(oldest, s.epochMs);
            put.append(QPointF(static_cast<double>(s.epochMs), s.putTps));
            get.append(QPointF(static_cast<double>(s.epochMs), s.getTps));
        }
        if (put.isEmpty())
            continue;
        names << topic;
        m_put->setSeries(topic, put);
        m_get->setSeries(topic, get);
    }
    m_put->retainSeries(names);
    m_get->retainSeries(names);
    const std::int64_t window = std::clamp<std::int64_t>(now - oldest, 60 * 1000, kWindowMs);
    m_put->finishUpdate(now, window);
    m_get->finishUpdate(now, window);
}

} // namespace qrocket::console
