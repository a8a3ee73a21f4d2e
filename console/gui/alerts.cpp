// Alert rules, their evaluation and their tables (see alerts.h).

#include "console/gui/alerts.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QDateTime>
#include <QIcon>
#include <QSettings>

namespace qrocket::console {

namespace {

const char *const kKindNames[]
    = {"broker expired", "disk over", "group lag over", "put TPS drops to zero"};

} // namespace

QString AlertRule::describe() const
{
    const QString who = subject.isEmpty() ? QStringLiteral("any") : subject;
    switch (kind) {
    case BrokerExpired:
        return QStringLiteral("broker %1 expired").arg(who);
    case DiskOver:
        return QStringLiteral("disk of %1 over %2").arg(who, formatRatio(threshold));
    case LagOver:
        return QStringLiteral("lag of group %1 over %2")
            .arg(who, formatCount(static_cast<std::int64_t>(threshold)));
    case TpsZero:
        return QStringLiteral("put TPS of %1 at zero for %2 s").arg(who).arg(threshold);
    }
    return {};
}

AlertEngine::AlertEngine(ClusterSession *session, QObject *parent)
    : QObject(parent), m_session(session), m_rules(loadRules())
{
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &AlertEngine::evaluate);
    m_timer.start();
}

std::vector<AlertRule> AlertEngine::defaultRules()
{
    return {{AlertRule::BrokerExpired, 0, {}, true}, {AlertRule::DiskOver, 0.85, {}, true},
        {AlertRule::LagOver, 10000, {}, true}, {AlertRule::TpsZero, 10, {}, true}};
}

std::vector<AlertRule> AlertEngine::loadRules()
{
    QSettings settings;
    if (!settings.contains(QStringLiteral("alerts/rules")))
        return defaultRules();
    std::vector<AlertRule> rules;
    for (const QVariant &v : settings.value(QStringLiteral("alerts/rules")).toList()) {
        const QVariantMap m = v.toMap();
        const int kind = m.value(QStringLiteral("kind")).toInt();
        if (kind < AlertRule::BrokerExpired || kind > AlertRule::TpsZero)
            continue; // a rule kind from a newer console: skipped, not misread
        rules.push_back(
            {static_cast<AlertRule::Kind>(kind), m.value(QStringLiteral("threshold")).toDouble(),
                m.value(QStringLiteral("subject")).toString(),
                m.value(QStringLiteral("enabled"), true).toBool()});
    }
    return rules;
}

void AlertEngine::saveRules(const std::vector<AlertRule> &rules)
{
    QVariantList list;
    for (const AlertRule &r : rules) {
        list << QVariantMap {{QStringLiteral("kind"), static_cast<int>(r.kind)},
            {QStringLiteral("threshold"), r.threshold}, {QStringLiteral("subject"), r.subject},
            {QStringLiteral("enabled"), r.enabled}};
    }
    QSettings().setValue(QStringLiteral("alerts/rules"), list);
}

void AlertEngine::setRules(std::vector<AlertRule> rules)
{
    if (rules == m_rules)
        return;
    m_rules = std::move(rules);
    saveRules(m_rules);
    emit rulesChanged();
    evaluate();
}

void AlertEngine::evaluate()
{
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    // Put TPS zero tracking: from positive to zero starts the clock; positive again stops it.
    for (const BrokerInfo &b : m_session->brokers()) {
        const auto &h = m_session->history(b.address);
        if (h.empty())
            continue;
        if (h.back().putTps > 0) {
            m_zeroSince.erase(b.address);
        } else if (!m_zeroSince.count(b.address)) {
            bool wasPositive = false;
            for (const BrokerSample &s : h)
                wasPositive = wasPositive || s.putTps > 0;
            if (wasPositive)
                m_zeroSince[b.address] = h.back().epochMs;
        }
    }
    std::vector<Alert> next;
    auto add = [&](int rule, const QString &subject, const QString &text) {
        Alert a;
        a.key = QStringLiteral("%1|%2").arg(rule).arg(subject);
        a.rule = rule;
        a.subject = subject;
        a.text = text;
        a.sinceEpochMs = now;
        for (const Alert &old : m_active) {
            if (old.key == a.key)
                a.sinceEpochMs = old.sinceEpochMs;
        }
        next.push_back(a);
    };
    for (int i = 0; i < static_cast<int>(m_rules.size()); ++i) {
        const AlertRule &r = m_rules[static_cast<std::size_t>(i)];
        if (!r.enabled)
            continue;
        if (r.kind == AlertRule::LagOver) {
            for (const GroupInfo &g : m_session->groups()) {
                const QString name = QString::fromUtf8(g.name);
                if ((!r.subject.isEmpty() && r.subject != name) || !g.statsKnown)
                    continue;
                if (static_cast<double>(g.lag) > r.threshold)
                    add(i, name, tr("group %1 lags %2 messages").arg(name, formatCount(g.lag)));
            }
            continue;
        }
        for (const BrokerInfo &b : m_session->brokers()) {
            const QString name = QString::fromUtf8(b.brokerName);
            const QString who = QStringLiteral("%1 (%2)").arg(name, QString::fromUtf8(b.address));
            if (!r.subject.isEmpty() && r.subject != name
                && r.subject != QString::fromUtf8(b.address))
                continue;
            switch (r.kind) {
            case AlertRule::BrokerExpired:
                if (m_session->liveness(b) == Liveness::Expired)
                    add(i, who, tr("broker %1 expired at the name server").arg(who));
                break;
            case AlertRule::DiskOver:
                // Also below the threshold when the broker blocks writes (its own mark, or
                // the consume-queue partition, decided), with the broker's reason.
                if (b.registered && (b.diskRatio > r.threshold || b.diskFull))
                    add(i, who,
                        tr("disk of %1 at %2%3")
                            .arg(who, formatRatio(b.diskRatio),
                                b.diskFull ? QStringLiteral(": ") + writeBlockReason(b)
                                           : QString()));
                break;
            case AlertRule::TpsZero:
                if (auto it = m_zeroSince.find(b.address); it != m_zeroSince.end()
                    && now - it->second >= static_cast<std::int64_t>(r.threshold * 1000))
                    add(i, who,
                        tr("put TPS of %1 at zero for %2")
                            .arg(who, formatDuration(now - it->second)));
                break;
            case AlertRule::LagOver:
                break;
            }
        }
    }
    if (next == m_active)
        return;
    for (const Alert &a : next) {
        bool isNew = true;
        for (const Alert &old : m_active)
            isNew = isNew && old.key != a.key;
        if (isNew)
            emit raised(a.text);
    }
    m_active = std::move(next);
    emit alertsChanged();
}

// -- tables ---------------------------------------------------------------------------------

AlertRuleModel::AlertRuleModel(AlertEngine *engine, QObject *parent)
    : SyncTableModel(parent), m_engine(engine)
{
    connect(engine, &AlertEngine::rulesChanged, this, [this] {
        beginResetModel(); // a handful of rules, changed by the user
        endResetModel();
    });
}

int AlertRuleModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_engine->rules().size());
}

int AlertRuleModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AlertRuleModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"On", "Rule", "Threshold", "Broker / group (empty: all)"};
    return QString::fromLatin1(names[section]);
}

Qt::ItemFlags AlertRuleModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = SyncTableModel::flags(index);
    if (index.column() == Enabled)
        f |= Qt::ItemIsUserCheckable;
    if (index.column() == Threshold || index.column() == Subject)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant AlertRuleModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const AlertRule &r = m_engine->rules()[static_cast<std::size_t>(index.row())];
    if (role == Qt::CheckStateRole && index.column() == Enabled)
        return r.enabled ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::DisplayRole || role == Qt::EditRole || role == SortRole) {
        switch (index.column()) {
        case Kind:
            return QString::fromLatin1(kKindNames[r.kind]);
        case Threshold:
            if (role == Qt::EditRole || role == SortRole)
                return r.kind == AlertRule::DiskOver ? r.threshold * 100 : r.threshold;
            switch (r.kind) {
            case AlertRule::BrokerExpired:
                return QStringLiteral("-");
            case AlertRule::DiskOver:
                return formatRatio(r.threshold);
            case AlertRule::LagOver:
                return formatCount(static_cast<std::int64_t>(r.threshold)) + tr(" msgs");
            case AlertRule::TpsZero:
                return tr("%1 s").arg(r.threshold);
            }
            break;
        case Subject:
            return r.subject;
        }
    }
    if (role == Qt::ToolTipRole)
        return r.describe() + tr(" (disk thresholds are edited in %)");
    if (role == Qt::TextAlignmentRole && index.column() == Threshold)
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    return {};
}

bool AlertRuleModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.row() >= rowCount())
        return false;
    std::vector<AlertRule> rules = m_engine->rules();
    AlertRule &r = rules[static_cast<std::size_t>(index.row())];
    if (index.column() == Enabled && role == Qt::CheckStateRole) {
        r.enabled = value.toInt() == Qt::Checked;
    } else if (index.column() == Threshold && role == Qt::EditRole) {
        bool ok = false;
        const double v = value.toString().remove(QLatin1Char(',')).toDouble(&ok);
        if (!ok || v < 0)
            return false;
        r.threshold = r.kind == AlertRule::DiskOver ? std::min(v, 100.0) / 100.0 : v;
    } else if (index.column() == Subject && role == Qt::EditRole) {
        r.subject = value.toString().trimmed();
    } else {
        return false;
    }
    m_engine->setRules(std::move(rules));
    return true;
}

AlertModel::AlertModel(AlertEngine *engine, QObject *parent)
    : SyncTableModel(parent), m_engine(engine)
{
    connect(engine, &AlertEngine::alertsChanged, this, &AlertModel::refresh);
    refresh();
}

void AlertModel::refresh()
{
    syncRows(m_rows, m_engine->active(), [](const Alert &a) { return a.key.toUtf8(); });
}

int AlertModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AlertModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AlertModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *const names[] = {"Since", "Rule", "Subject", "Alert"};
    return QString::fromLatin1(names[section]);
}

QVariant AlertModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Alert &a = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Since:
            return formatTimestamp(a.sinceEpochMs);
        case Rule:
            return a.rule < static_cast<int>(m_engine->rules().size())
                ? m_engine->rules()[static_cast<std::size_t>(a.rule)].describe()
                : QString();
        case Subject:
            return a.subject;
        case Text:
            return a.text;
        }
        break;
    case SortRole:
        return index.column() == Since ? QVariant(static_cast<qlonglong>(a.sinceEpochMs))
                                       : data(index, Qt::DisplayRole);
    case Qt::DecorationRole:
        if (index.column() == Since)
            return QIcon(QStringLiteral(":/console/icons/alert.png"));
        break;
    case Qt::ForegroundRole:
        if (index.column() == Text)
            return warnColor();
        break;
    }
    return {};
}

} // namespace qrocket::console
