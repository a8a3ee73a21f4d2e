// The live TPS charts (see chartsview.h).

#include "console/gui/chartsview.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/timechart.h"

#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
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
    m_topicList = new TopicRateList(kTopTopics, this);
    m_topics = new QListView(this);
    m_topics->setModel(m_topicList);
    m_topics->setUniformItemSizes(true); // no size asked of 100,000 rows
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
    connect(m_topicList, &TopicRateList::checksChanged, this, &ChartsView::refresh);
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
    return m_topicList->checked();
}

void ChartsView::setCheckedTopics(const QStringList &topics)
{
    m_topicList->setChecked(topics);
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

void ChartsView::refreshTopics(std::int64_t now)
{
    m_put->chart()->setTitle(
        tr("Put TPS per topic (TOPIC_PUT_NUMS, 1-min average, summed over the brokers)"));
    m_get->chart()->setTitle(
        tr("Get TPS per topic (GROUP_GET_NUMS of its groups, 1-min average, summed)"));
    if (m_ratesDirty) {
        m_ratesDirty = false;
        m_topicList->update(m_session->topicRates());
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

// -- the topic list ---------------------------------------------------------------------------

TopicRateList::TopicRateList(int top, QObject *parent) : QAbstractListModel(parent), m_top(top)
{ }

int TopicRateList::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

bool TopicRateList::isChecked(std::size_t row) const
{
    const Row &r = m_rows[row];
    return m_manual ? m_checked.contains(r.topic)
                    : row < static_cast<std::size_t>(m_top) && r.put + r.get > 0;
}

QVariant TopicRateList::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || static_cast<std::size_t>(index.row()) >= m_rows.size())
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const Row &r = m_rows[row];
    switch (role) {
    case Qt::DisplayRole:
        return tr("%1\nput %2 · get %3")
            .arg(QString::fromUtf8(r.topic), formatRate(r.put), formatRate(r.get));
    case Qt::UserRole:
        return QString::fromUtf8(r.topic);
    case Qt::CheckStateRole:
        return isChecked(row) ? Qt::Checked : Qt::Unchecked;
    default:
        return {};
    }
}

Qt::ItemFlags TopicRateList::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable
        | Qt::ItemNeverHasChildren;
}

bool TopicRateList::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::CheckStateRole || !index.isValid()
        || static_cast<std::size_t>(index.row()) >= m_rows.size())
        return false;
    if (!m_manual) { // the operator's choice starts from what is checked
        m_checked.clear();
        for (const QString &t : m_checkedList)
            m_checked.insert(t.toUtf8());
        m_manual = true;
    }
    const QByteArray &topic = m_rows[static_cast<std::size_t>(index.row())].topic;
    if (value.value<Qt::CheckState>() == Qt::Checked)
        m_checked.insert(topic);
    else
        m_checked.remove(topic);
    updateCheckedList();
    emit dataChanged(index, index, {Qt::CheckStateRole});
    emit checksChanged();
    return true;
}

void TopicRateList::setChecked(const QStringList &topics)
{
    m_manual = true;
    m_checked.clear();
    for (const QString &t : topics)
        m_checked.insert(t.toUtf8());
    // Only topics in the list can be checked.
    QSet<QByteArray> listed;
    for (const Row &r : m_rows) {
        if (m_checked.contains(r.topic))
            listed.insert(r.topic);
    }
    m_checked.swap(listed);
    updateCheckedList();
    if (!m_rows.empty())
        emit dataChanged(index(0), index(rowCount() - 1), {Qt::CheckStateRole});
}

void TopicRateList::updateCheckedList()
{
    m_checkedList.clear();
    if (!m_manual) {
        for (std::size_t i = 0; i < m_rows.size() && i < static_cast<std::size_t>(m_top); ++i) {
            if (isChecked(i))
                m_checkedList << QString::fromUtf8(m_rows[i].topic);
        }
        return;
    }
    if (m_checked.isEmpty())
        return;
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        if (m_checked.contains(m_rows[i].topic))
            m_checkedList << QString::fromUtf8(m_rows[i].topic);
    }
}

void TopicRateList::update(const std::map<QByteArray, TopicRates> &rates)
{
    std::vector<Row> fresh;
    fresh.reserve(rates.size());
    for (const auto &[topic, r] : rates)
        fresh.push_back({topic, r.putTps, r.getTps});
    // Busiest first; stable, so equal ones (most of them: idle) stay in the map's name order.
    std::stable_sort(fresh.begin(), fresh.end(),
        [](const Row &a, const Row &b) { return a.put + a.get > b.put + b.get; });
    const bool sameOrder = fresh.size() == m_rows.size()
        && std::equal(fresh.begin(), fresh.end(), m_rows.begin(),
            [](const Row &a, const Row &b) { return a.topic == b.topic; });
    if (sameOrder) {
        std::size_t first = fresh.size();
        std::size_t last = 0;
        for (std::size_t i = 0; i < fresh.size(); ++i) {
            if (fresh[i].put != m_rows[i].put || fresh[i].get != m_rows[i].get) {
                first = std::min(first, i);
                last = i;
            }
        }
        m_rows.swap(fresh);
        if (first <= last) {
            emit dataChanged(index(static_cast<int>(first)), index(static_cast<int>(last)));
        }
    } else if (m_rows.empty() || fresh.empty()) {
        beginResetModel();
        m_rows.swap(fresh);
        endResetModel();
    } else {
        emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        const QModelIndexList from = persistentIndexList(); // the view's few
        QModelIndexList to;
        for (const QModelIndex &i : from) {
            const QByteArray &topic = m_rows[static_cast<std::size_t>(i.row())].topic;
            const auto it = std::find_if(
                fresh.begin(), fresh.end(), [&](const Row &r) { return r.topic == topic; });
            to << (it == fresh.end() ? QModelIndex() : index(static_cast<int>(it - fresh.begin())));
        }
        m_rows.swap(fresh);
        changePersistentIndexList(from, to);
        emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    // A checked topic that left the rates leaves the choice.
    if (m_manual) {
        for (auto it = m_checked.begin(); it != m_checked.end();)
            it = rates.count(*it) ? std::next(it) : m_checked.erase(it);
    }
    updateCheckedList();
}

} // namespace qrocket::console
