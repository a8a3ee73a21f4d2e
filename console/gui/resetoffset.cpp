// Reset offset by time, with its preview (see resetoffset.h).

#include "console/gui/resetoffset.h"

#include "console/gui/clustersession.h"
#include "console/gui/format.h"
#include "console/gui/style.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QGridLayout>
#include <QMessageBox>
#include <QPushButton>

namespace qrocket::console {

int ResetPreviewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ResetPreviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

void ResetPreviewModel::setPreview(std::vector<client::ResetOffsetPreview> rows)
{
    std::vector<Row> fresh;
    for (auto &p : rows)
        fresh.push_back({std::move(p)});
    syncRows(m_rows, std::move(fresh), [](const Row &r) {
        return r.p.queue.brokerName + '#' + QByteArray::number(r.p.queue.queueId);
    });
}

int ResetPreviewModel::movingQueues() const
{
    int n = 0;
    for (const Row &r : m_rows)
        n += r.p.targetOffset != r.p.consumerOffset;
    return n;
}

QVariant ResetPreviewModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[]
            = {"Broker", "Queue", "Committed now", "After reset", "Moves by"};
        return QString::fromLatin1(names[section]);
    }
    if (role == Qt::ToolTipRole)
        return tr("previewResetOffset: QUERY_CONSUMER_OFFSET and SEARCH_OFFSET_BY_TIMESTAMP per "
                  "write queue; nothing is changed");
    return {};
}

QVariant ResetPreviewModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const client::ResetOffsetPreview &p = m_rows[static_cast<std::size_t>(index.row())].p;
    const std::int64_t delta = p.targetOffset - (p.consumerOffset < 0 ? 0 : p.consumerOffset);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Broker:
            return QString::fromUtf8(p.queue.brokerName);
        case Queue:
            return p.queue.queueId;
        case Current:
            return p.consumerOffset < 0 ? tr("none") : formatCount(p.consumerOffset);
        case Target:
            return formatCount(p.targetOffset);
        case Moves:
            if (p.targetOffset == p.consumerOffset)
                return tr("unchanged");
            return (delta > 0 ? QStringLiteral("+") : QString()) + formatCount(delta)
                + (delta < 0 ? tr(" (re-consumes)") : tr(" (skips)"));
        }
        break;
    case SortRole:
        switch (index.column()) {
        case Queue:
            return p.queue.queueId;
        case Current:
            return static_cast<qlonglong>(p.consumerOffset);
        case Target:
            return static_cast<qlonglong>(p.targetOffset);
        case Moves:
            return static_cast<qlonglong>(delta);
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::Alignment(
            (index.column() == Broker ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter));
    case Qt::ForegroundRole:
        if (index.column() == Moves && p.targetOffset != p.consumerOffset)
            return warnColor();
        break;
    }
    return {};
}

ResetOffsetPanel::ResetOffsetPanel(ClusterSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_model(new ResetPreviewModel(this))
{
    auto *grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    m_topic = new QComboBox(this);
    m_topic->setEditable(true);
    m_topic->setMinimumContentsLength(24);
    m_time = new QDateTimeEdit(QDateTime::currentDateTime().addSecs(-3600), this);
    m_time->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    m_time->setCalendarPopup(true);
    m_force = new QCheckBox(tr("force (also move forward)"), this);
    m_force->setChecked(true);
    m_previewButton = new QPushButton(tr("&Preview"), this);
    m_resetButton = new QPushButton(tr("Reset…"), this);
    m_resetButton->setEnabled(false);
    grid->addWidget(new QLabel(tr("Reset topic"), this), 0, 0);
    grid->addWidget(m_topic, 0, 1);
    grid->addWidget(new QLabel(tr("to"), this), 0, 2);
    grid->addWidget(m_time, 0, 3);
    grid->addWidget(m_force, 0, 4);
    grid->addWidget(m_previewButton, 0, 5);
    grid->addWidget(m_resetButton, 0, 6);
    m_note = makeNote(this);
    grid->addWidget(m_note, 1, 0, 1, 7);
    m_table = makeTable(m_model, QStringLiteral("resetPreview"), this);
    grid->addWidget(m_table.view, 2, 0, 1, 7);
    grid->setColumnStretch(1, 1);
    connect(m_previewButton, &QPushButton::clicked, this, &ResetOffsetPanel::preview);
    connect(m_resetButton, &QPushButton::clicked, this, &ResetOffsetPanel::reset);
    connect(m_time, &QDateTimeEdit::dateTimeChanged, this,
        [this] { m_resetButton->setEnabled(false); });
}

void ResetOffsetPanel::setGroup(const QByteArray &group, const std::vector<QByteArray> &topics)
{
    if (group != m_group) {
        m_group = group;
        m_model->setPreview({});
        m_resetButton->setEnabled(false);
        setNote(m_note, {});
    }
    const QString current = m_topic->currentText();
    QStringList items;
    for (const QByteArray &t : topics)
        items << QString::fromUtf8(t);
    QStringList old;
    for (int i = 0; i < m_topic->count(); ++i)
        old << m_topic->itemText(i);
    if (items != old) {
        m_topic->clear();
        m_topic->addItems(items);
        if (!current.isEmpty() && items.contains(current))
            m_topic->setCurrentText(current);
    }
}

void ResetOffsetPanel::report(const QString &text, bool error)
{
    setNote(m_note,
        QStringLiteral("<span style='color:%1'>%2</span>")
            .arg(error ? QStringLiteral("#ff6b6b") : QStringLiteral("#4cc36a"),
                text.toHtmlEscaped()));
    emit message(text);
}

void ResetOffsetPanel::preview()
{
    const QByteArray topic = m_topic->currentText().toUtf8();
    if (m_group.isEmpty() || topic.isEmpty()) {
        report(tr("Pick a group and one of its topics"), true);
        return;
    }
    const std::int64_t ts = m_time->dateTime().toMSecsSinceEpoch();
    m_session->admin().previewResetOffsetAsync(topic, m_group, ts, m_force->isChecked(),
        m_session->deliver<std::vector<client::ResetOffsetPreview>>(
            this, [this, topic](Result<std::vector<client::ResetOffsetPreview>> r) {
                if (!r) {
                    report(tr("Preview failed: %1").arg(r.error().toString()), true);
                    return;
                }
                m_model->setPreview(std::move(r).value());
                m_resetButton->setEnabled(true);
                report(tr("Preview: %1 of %2 queue(s) of %3 would move")
                           .arg(m_model->movingQueues())
                           .arg(m_model->rowCount())
                           .arg(QString::fromUtf8(topic)),
                    false);
            }));
}

void ResetOffsetPanel::reset()
{
    const QByteArray topic = m_topic->currentText().toUtf8();
    const std::int64_t ts = m_time->dateTime().toMSecsSinceEpoch();
    const bool force = m_force->isChecked();
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Reset offsets"),
        tr("Reset group %1 on %2 to %3? %4 queue(s) move.")
            .arg(QString::fromUtf8(m_group), QString::fromUtf8(topic), formatTimestamp(ts))
            .arg(m_model->movingQueues()),
        QMessageBox::Yes | QMessageBox::Cancel, this);
    box->setTextFormat(Qt::PlainText); // group and topic names come from the cluster
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setDefaultButton(QMessageBox::Cancel);
    const QByteArray group = m_group;
    connect(box, &QMessageBox::finished, this, [this, topic, group, ts, force](int button) {
        if (button != QMessageBox::Yes)
            return;
        using Offsets = std::map<protocol::MessageQueue, std::int64_t>;
        m_session->admin().resetOffsetByTimeAsync(topic, group, ts, force,
            m_session->deliver<Offsets>(this, [this, topic, group, ts, force](Result<Offsets> r) {
                if (r) {
                    report(
                        tr("Reset %1 queue(s) of %2").arg(r->size()).arg(QString::fromUtf8(topic)),
                        false);
                    return;
                }
                if (r.error().remoteCode() != 206) {
                    report(tr("Reset failed: %1").arg(r.error().toString()), true);
                    return;
                }
                // Nobody online: commit the offsets directly (mqadmin's fallback).
                m_session->admin().resetOffsetByTimeOfflineAsync(topic, group, ts, force,
                    m_session->deliver<Offsets>(this, [this, topic](Result<Offsets> r2) {
                        if (r2)
                            report(tr("No consumer online: committed %1 offset(s) of %2 directly")
                                       .arg(r2->size())
                                       .arg(QString::fromUtf8(topic)),
                                false);
                        else
                            report(tr("Offline reset failed: %1").arg(r2.error().toString()), true);
                    }));
            }));
    });
    box->open();
}

} // namespace qrocket::console
