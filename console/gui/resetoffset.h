#pragma once

// ResetOffsetPanel: reset a group's offsets on a topic to a time, with a preview first
// (Admin::previewResetOffset: per queue the committed offset, the offset for the time and what
// the reset would set, i.e. what moves and by how much). Reset asks for confirmation, calls
// resetOffsetByTime, and, when the group has no consumer online (CONSUMER_NOT_ONLINE), offers
// resetOffsetByTimeOffline, as mqadmin does.

#include "clientlib/client/admin/admin.h"
#include "console/gui/rowsync.h"
#include "console/gui/tablesupport.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QPushButton;

namespace qrocket::console {

class ClusterSession;

class ResetPreviewModel : public SyncTableModel
{
    Q_OBJECT

public:
    enum Column { Broker, Queue, Current, Target, Moves, ColumnCount };
    using SyncTableModel::SyncTableModel;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;
    void setPreview(std::vector<client::ResetOffsetPreview> rows);
    /// Queues whose offset the reset changes.
    int movingQueues() const;

private:
    struct Row
    {
        client::ResetOffsetPreview p;
        friend bool operator==(const Row &a, const Row &b)
        {
            return a.p.queue == b.p.queue && a.p.consumerOffset == b.p.consumerOffset
                && a.p.targetOffset == b.p.targetOffset
                && a.p.timestampOffset == b.p.timestampOffset;
        }
    };
    std::vector<Row> m_rows;
};

class ResetOffsetPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ResetOffsetPanel(ClusterSession *session, QWidget *parent = nullptr);
    void setGroup(const QByteArray &group, const std::vector<QByteArray> &topics);
    ResetPreviewModel *model() const { return m_model; }
    QPushButton *previewButton() const { return m_previewButton; }
    QDateTimeEdit *timeEdit() const { return m_time; }
    QComboBox *topicBox() const { return m_topic; }

signals:
    void message(const QString &text);

private:
    void preview();
    void reset();
    void report(const QString &text, bool error);

    ClusterSession *m_session;
    QByteArray m_group;
    QComboBox *m_topic;
    QDateTimeEdit *m_time;
    QCheckBox *m_force;
    QPushButton *m_previewButton;
    QPushButton *m_resetButton;
    ResetPreviewModel *m_model;
    Table m_table;
    QLabel *m_note;
};

} // namespace qrocket::console
