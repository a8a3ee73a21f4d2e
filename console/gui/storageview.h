#pragma once

// StorageView: the "Storage" tab: per master a disk gauge with RocketMQ's marks: 75 %
// (diskMaxUsedSpaceRatio: files are cleaned before they expire), 85 % (cleaned forcibly) and
// 90 % (diskSpaceWarningLevelRatio: disk full, writes refused), the broker's own values once its
// config is read; fileReservedTime, deleteWhen and the commit-log range; the write block
// (runtime info diskFull) with the reason the broker gives; the commit-log files with size, age,
// expiry and why each is kept (storeFiles, a QRocket broker extension: the view says so against
// a stock broker); DELETE_EXPIRED_COMMITLOG with confirmation; the disk ratio over time; and
// "Why is this file not deleted?" (explainCleanup, explainpanel.h): the selected file's broker,
// its findings and the broker-wide ones (deleteWhen, disk ratio and its marks), or every master's
// when no file is selected; asked when its tab is shown or the selection changes, and on demand.
// The gauge, the chart and the cluster view show one figure: the runtime info's
// commitLogDiskRatio, the measure the broker's clean service decides on.

#include "console/gui/tablesupport.h"

#include <QList>
#include <QWidget>

class QGridLayout;
class QPushButton;
class QTabWidget;

namespace qrocket::console {

class ClusterSession;
class ExplainPanel;
class StoreFileModel;
class TimeChart;

/// A horizontal gauge of a 0..1 ratio with the cleanup, forced-cleanup and write-block marks
/// (75/85/90 % unless set), the figure written on it, and "writes refused" while the broker
/// blocks writes.
class DiskGauge : public QWidget
{
    Q_OBJECT

public:
    explicit DiskGauge(QWidget *parent = nullptr);
    void setRatio(double ratio, bool stale);
    void setDiskFull(bool full);
    /// Ratios 0..1: diskMaxUsedSpaceRatio, diskSpaceCleanForciblyRatio, diskSpaceWarningLevelRatio.
    void setMarks(double clean, double forced, double refuse);
    double ratio() const { return m_ratio; }
    bool diskFull() const { return m_full; }
    QSize sizeHint() const override { return {260, 26}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    double m_ratio = -1;
    bool m_stale = false;
    bool m_full = false;
    double m_marks[3] = {0.75, 0.85, 0.90};
};

class StorageView : public QWidget
{
    Q_OBJECT

public:
    explicit StorageView(ClusterSession *session, QWidget *parent = nullptr);
    StoreFileModel *model() const { return m_model; }
    QPushButton *cleanButton() const { return m_clean; }
    bool hasData() const;
    /// The gauge of the master at `address`, or null.
    DiskGauge *gaugeFor(const QByteArray &address) const;
    /// The facts shown beside that gauge (rich text: settings, range, the write block), or empty.
    QString factsFor(const QByteArray &address) const;
    /// Sends DELETE_EXPIRED_COMMITLOG to every broker without asking (the button asks first).
    void runCleanup();
    ExplainPanel *explainPanel() const { return m_explain; }
    QTableView *table() const { return m_table.view; }
    /// Brings "Why is this file not deleted?" to the front (and asks).
    void showExplainTab();

signals:
    void message(const QString &text);
    void cleanupFinished(bool ok);

private:
    void refresh();
    void confirmCleanup();
    void askExplain();

    ClusterSession *m_session;
    StoreFileModel *m_model;
    QGridLayout *m_brokers;
    QWidget *m_brokerBox;
    Table m_table;
    QLabel *m_note;
    QPushButton *m_clean;
    TimeChart *m_chart;
    QTabWidget *m_bottom;
    ExplainPanel *m_explain;
    QList<double> m_chartMarks {75, 85, 90}; // the chart's lines, in percent
    std::vector<std::pair<QByteArray, DiskGauge *>> m_gauges;
    std::vector<QLabel *> m_brokerLabels;
};

} // namespace qrocket::console
