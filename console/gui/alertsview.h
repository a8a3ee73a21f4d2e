#pragma once

// AlertsView: the "Alerts" tab: the rules (enable, threshold and subject editable in place, add,
// remove, restore the defaults; stored with QSettings) and the alerts that hold now.

#include "console/gui/tablesupport.h"

#include <QWidget>

namespace qrocket::console {

class AlertEngine;
class AlertModel;
class AlertRuleModel;

class AlertsView : public QWidget
{
    Q_OBJECT

public:
    AlertsView(AlertEngine *engine, QWidget *parent = nullptr);
    AlertModel *alertModel() const { return m_alerts; }
    AlertRuleModel *ruleModel() const { return m_rules; }
    bool hasData() const;

private:
    AlertEngine *m_engine;
    AlertRuleModel *m_rules;
    AlertModel *m_alerts;
    Table m_ruleTable;
    Table m_alertTable;
    QLabel *m_summary;
};

} // namespace qrocket::console
