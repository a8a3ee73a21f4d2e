#pragma once

// Alerts: rules over a session's values (broker expired, disk over a ratio, group lag over N,
// put TPS dropped to zero) evaluated every second; the alerts that hold now, with when they
// started. Rules are stored with QSettings ("alerts/rules"); the defaults apply when none are.
// AlertRuleModel and AlertModel are the alerts tab's two tables.

#include "console/gui/rowsync.h"

#include <QObject>
#include <QTimer>

#include <map>

namespace qrocket::console {

class ClusterSession;

struct AlertRule
{
    enum Kind { BrokerExpired, DiskOver, LagOver, TpsZero };
    Kind kind = BrokerExpired;
    /// DiskOver: ratio 0..1; LagOver: messages; TpsZero: seconds at zero. Unused for BrokerExpired.
    double threshold = 0;
    /// Broker or group name the rule is limited to (empty: all).
    QString subject;
    bool enabled = true;

    QString describe() const;
    friend bool operator==(const AlertRule &, const AlertRule &) = default;
};

struct Alert
{
    QString key; // rule index + subject
    int rule = 0;
    QString subject;
    QString text;
    std::int64_t sinceEpochMs = 0;
    friend bool operator==(const Alert &, const Alert &) = default;
};

class AlertEngine : public QObject
{
    Q_OBJECT

public:
    explicit AlertEngine(ClusterSession *session, QObject *parent = nullptr);
    const std::vector<AlertRule> &rules() const { return m_rules; }
    void setRules(std::vector<AlertRule> rules);
    static std::vector<AlertRule> defaultRules();
    static std::vector<AlertRule> loadRules();
    static void saveRules(const std::vector<AlertRule> &rules);
    const std::vector<Alert> &active() const { return m_active; }
    void evaluate();

signals:
    void rulesChanged();
    void alertsChanged();
    /// A new alert started (for the status bar).
    void raised(const QString &text);

private:
    ClusterSession *m_session;
    std::vector<AlertRule> m_rules;
    std::vector<Alert> m_active;
    /// broker address -> since when (epoch ms) its put TPS is zero after being positive.
    std::map<QByteArray, std::int64_t> m_zeroSince;
    QTimer m_timer;
};

class AlertRuleModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { Enabled, Kind, Threshold, Subject, ColumnCount };
    explicit AlertRuleModel(AlertEngine *engine, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    AlertEngine *m_engine;
};

class AlertModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { Since, Rule, Subject, Text, ColumnCount };
    explicit AlertModel(AlertEngine *engine, QObject *parent = nullptr);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    void refresh();
    AlertEngine *m_engine;
    std::vector<Alert> m_rows;
};

} // namespace qrocket::console
