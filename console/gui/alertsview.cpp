// The alerts tab (see alertsview.h).

#include "console/gui/alertsview.h"

#include "console/gui/alerts.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QVBoxLayout>

namespace qrocket::console {

AlertsView::AlertsView(AlertEngine *engine, QWidget *parent)
    : QWidget(parent)
    , m_engine(engine)
    , m_rules(new AlertRuleModel(engine, this))
    , m_alerts(new AlertModel(engine, this))
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(this);
    layout->addWidget(m_summary);
    m_alertTable = makeTable(m_alerts, QStringLiteral("alerts"), this);
    m_alertTable.view->horizontalHeader()->resizeSection(0, 170);
    m_alertTable.view->horizontalHeader()->resizeSection(1, 260);
    m_alertTable.view->horizontalHeader()->resizeSection(2, 220);
    m_alertTable.view->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_alertTable.view, 2);
    layout->addWidget(new QLabel(tr("<b>Rules</b> (double-click a threshold or subject to edit; "
                                    "disk thresholds in %)"),
        this));
    m_ruleTable = makeTable(m_rules, QStringLiteral("alertRules"), this);
    m_ruleTable.view->setSortingEnabled(false);
    m_ruleTable.view->setEditTriggers(
        QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_ruleTable.view->horizontalHeader()->resizeSection(1, 200);
    m_ruleTable.view->horizontalHeader()->setStretchLastSection(true);
    layout->addWidget(m_ruleTable.view, 1);
    auto *bar = new QHBoxLayout;
    auto *kind = new QComboBox(this);
    kind->addItem(tr("broker expired"), AlertRule::BrokerExpired);
    kind->addItem(tr("disk over 85 %"), AlertRule::DiskOver);
    kind->addItem(tr("group lag over 10,000"), AlertRule::LagOver);
    kind->addItem(tr("put TPS at zero for 10 s"), AlertRule::TpsZero);
    auto *add = new QPushButton(tr("&Add rule"), this);
    auto *remove = new QPushButton(tr("&Remove rule"), this);
    auto *defaults = new QPushButton(tr("Restore &defaults"), this);
    bar->addWidget(kind);
    bar->addWidget(add);
    bar->addWidget(remove);
    bar->addStretch(1);
    bar->addWidget(defaults);
    layout->addLayout(bar);

    connect(add, &QPushButton::clicked, this, [this, kind] {
        std::vector<AlertRule> rules = m_engine->rules();
        const auto k = static_cast<AlertRule::Kind>(kind->currentData().toInt());
        const double threshold = k == AlertRule::DiskOver
            ? 0.85
            : (k == AlertRule::LagOver ? 10000 : (k == AlertRule::TpsZero ? 10 : 0));
        rules.push_back({k, threshold, {}, true});
        m_engine->setRules(std::move(rules));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const QModelIndex i = currentSourceRow(m_ruleTable);
        if (!i.isValid())
            return;
        std::vector<AlertRule> rules = m_engine->rules();
        rules.erase(rules.begin() + i.row());
        m_engine->setRules(std::move(rules));
    });
    connect(defaults, &QPushButton::clicked, this,
        [this] { m_engine->setRules(AlertEngine::defaultRules()); });
    auto summarize = [this] {
        const auto n = m_engine->active().size();
        m_summary->setText(n == 0 ? tr("No alert holds now (%1 rule(s) checked every second).")
                                        .arg(m_engine->rules().size())
                                  : tr("<b>%1 alert(s)</b> hold now.").arg(n));
    };
    connect(engine, &AlertEngine::alertsChanged, this, summarize);
    connect(engine, &AlertEngine::rulesChanged, this, summarize);
    summarize();
}

bool AlertsView::hasData() const
{
    return m_rules->rowCount() > 0;
}

} // namespace qrocket::console
