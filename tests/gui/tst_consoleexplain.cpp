// tst_ConsoleExplain: the console's "why" panels (console/gui/explainpanel.h) against an embedded
// cluster, offscreen, each for a situation the test builds: a group with consumeEnable false and
// no consumer (consumers tab), a live broker asked at the name server (cluster tab), a kept
// commit-log file (storage tab) and a topic without the write bit (topics tab). Each panel must
// show the daemon's finding with the setting that decides it; a screenshot of each goes to
// build/tests/screenshots/explain-*.png.

#include "clientlib/client/admin/admin.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/consumersview.h"
#include "console/gui/explainpanel.h"
#include "console/gui/groupmodel.h"
#include "console/gui/storagemodel.h"
#include "console/gui/storageview.h"
#include "console/gui/style.h"
#include "console/gui/topicsview.h"
#include "tests/gui/guitestutil.h"

#include <QApplication>
#include <QImage>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>

using namespace qrocket;
using namespace qrocket::console;

namespace {

/// The panel's row of `kind`, or null.
const ExplainPanel::Row *rowOf(const ExplainPanel *panel, const QByteArray &kind)
{
    for (const ExplainPanel::Row &r : panel->rows()) {
        if (r.finding.kind == kind)
            return &r;
    }
    return nullptr;
}

QString describe(const ExplainPanel *panel)
{
    QStringList lines {panel->question(), panel->summary()};
    for (const ExplainPanel::Row &r : panel->rows())
        lines << QStringLiteral("%1 %2 %3 %4=%5: %6")
                     .arg(r.peer, QString::fromUtf8(r.finding.verdict),
                         QString::fromUtf8(r.finding.kind), QString::fromUtf8(r.finding.setting),
                         QString::fromUtf8(r.finding.value), QString::fromUtf8(r.finding.reason));
    return lines.join(QLatin1Char('\n'));
}

/// The text the table shows in `column` of the row of `kind` (the widget, not the model).
QString cellOf(const ExplainPanel *panel, const QByteArray &kind, int column)
{
    for (int i = 0; i < static_cast<int>(panel->rows().size()); ++i) {
        if (panel->rows()[static_cast<std::size_t>(i)].finding.kind == kind)
            return panel->table()->item(i, column)->text();
    }
    return {};
}

} // namespace

class tst_ConsoleExplain : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void groupNotConsuming();
    void brokerLateOrExpired();
    void fileNotDeleted();
    void sendsRefused();
    void cleanupTestCase();

private:
    void shoot(const QString &name);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<ClusterWidget> m_cw;
};

void tst_ConsoleExplain::initTestCase()
{
    guitest::isolateSettings("tst_consoleexplain");
    initConsoleResources();
    applyConsoleStyle(*qApp);
    // A fixed half-empty disk: below diskMaxUsedSpaceRatio, so expired files wait for the
    // deleteWhen hour (twelve hours away) whatever the host's disk holds.
    m_cluster = guitest::startCluster(1, [](int) -> storage::DiskSpaceProbe {
        return [](const QString &) {
            storage::DiskSpace d;
            d.total = 100LL * 1024 * 1024 * 1024;
            d.free = d.available = d.total / 2;
            return d;
        };
    });
    QVERIFY(m_cluster);
    QVERIFY(m_cluster->createTopic(QStringLiteral("ExplainTopic"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("ExplainTopic")).isOk());
    auto producer = guitest::startProducer(*m_cluster, "explain-p");
    QVERIFY(producer);
    // Enough bytes for two commit-log files (16 MB each in an embedded cluster).
    const QByteArray body(1024 * 1024, 'x');
    for (int i = 0; i < 20; ++i)
        QVERIFY(producer->sendSync(client::Message("ExplainTopic", body)).has_value());
    producer->shutdown();

    m_cw = std::make_unique<ClusterWidget>(m_cluster->namesrvAddress());
    QVERIFY(m_cw->start().isOk());
    m_cw->session()->setPollInterval(500);
    m_cw->resize(1280, 860);
    m_cw->show();
    const QByteArray broker = m_cluster->brokerAddress(0).toUtf8();
    client::admin::SubscriptionGroupConfig idle;
    idle.groupName = "idle-group";
    idle.consumeEnable = false;
    QVERIFY(m_cw->session()->admin().createOrUpdateSubscriptionGroup(broker, idle).isOk());
    // Readable, not writeable: producers are told not to send here.
    QVERIFY(m_cw->session()
                ->admin()
                .createOrUpdateTopic(broker, protocol::TopicConfig("ReadOnlyTopic", 2, 4))
                .isOk());
    QTRY_VERIFY_WITH_TIMEOUT(m_cw->clusterView()->hasData(), 10000);
}

void tst_ConsoleExplain::cleanupTestCase()
{
    m_cw.reset();
    m_cluster.reset();
}

void tst_ConsoleExplain::shoot(const QString &name)
{
    QApplication::processEvents();
    const QImage shot = m_cw->grab().toImage();
    QVERIFY(!shot.isNull());
    QVERIFY(shot.save(guitest::screenshotDir() + QLatin1Char('/') + name));
}

void tst_ConsoleExplain::groupNotConsuming()
{
    m_cw->showView(ViewName::Consumers);
    ConsumersView *view = m_cw->consumersView();
    auto listed = [&] {
        for (int r = 0; r < view->groupModel()->rowCount(); ++r) {
            if (view->groupModel()->index(r, 0).data(GroupModel::KeyRole).toByteArray()
                == "idle-group")
                return true;
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT((m_cw->session()->refreshCatalog(), listed()), 15000);
    view->selectGroup("idle-group");
    // A group that never consumed has no %RETRY% topic: a neutral note, not an orange
    // TOPIC_NOT_EXIST error.
    QTRY_VERIFY_WITH_TIMEOUT(
        view->noteText().contains(QStringLiteral("No consume progress yet")), 10000);
    QVERIFY2(!view->noteText().contains(QStringLiteral("TOPIC_NOT_EXIST"))
            && !view->noteText().contains(QStringLiteral("f0b429")),
        qPrintable(view->noteText()));
    view->showExplainTab();
    ExplainPanel *panel = view->explainPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 10000);
    QCOMPARE(panel->question(), QStringLiteral("Why is idle-group not consuming?"));
    QVERIFY(panel->isVisible());
    QCOMPARE(panel->verdict(), QByteArray("blocking"));
    const ExplainPanel::Row *none = rowOf(panel, "noLiveConsumer");
    QVERIFY2(none, qPrintable(describe(panel)));
    QCOMPARE(none->peer, m_cluster->brokerName(0));
    QCOMPARE(none->finding.setting, QByteArray("channelExpiredTimeoutMillis"));
    const ExplainPanel::Row *off = rowOf(panel, "consumeDisabled");
    QVERIFY2(off, qPrintable(describe(panel)));
    // What the operator reads: the verdict, the finding, the setting and its value.
    QCOMPARE(cellOf(panel, "consumeDisabled", 0), QStringLiteral("blocking"));
    QCOMPARE(cellOf(panel, "consumeDisabled", 3), QStringLiteral("consumeEnable = false"));
    QVERIFY(!cellOf(panel, "noLiveConsumer", 2).isEmpty());
    // Blocking findings first.
    QCOMPARE(panel->rows().front().finding.verdict, QByteArray("blocking"));
    QVERIFY2(panel->summary().startsWith(QStringLiteral("blocking")), qPrintable(panel->summary()));
    shoot(QStringLiteral("explain-group.png"));

    // Asked again on demand: a fresh answer, the same verdict.
    QTest::mouseClick(panel->askButton(), Qt::LeftButton);
    QVERIFY(!panel->ready());
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 10000);
    QCOMPARE(panel->verdict(), QByteArray("blocking"));
}

void tst_ConsoleExplain::brokerLateOrExpired()
{
    m_cw->showView(ViewName::Cluster);
    ClusterView *view = m_cw->clusterView();
    const QByteArray name = m_cluster->brokerName(0).toUtf8();
    view->selectBroker(name);
    ExplainPanel *panel = view->explainPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 10000);
    QCOMPARE(panel->question(),
        QStringLiteral("Why is %1 late or expired?").arg(QString::fromUtf8(name)));
    // A live broker: the name server says so, and by which setting.
    const ExplainPanel::Row *live = rowOf(panel, "live");
    QVERIFY2(live, qPrintable(describe(panel)));
    QCOMPARE(live->finding.verdict, QByteArray("ok"));
    QCOMPARE(live->finding.setting, QByteArray("brokerChannelExpiredTime"));
    QVERIFY(live->peer.contains(m_cluster->namesrvAddress()));
    shoot(QStringLiteral("explain-broker.png"));
}

void tst_ConsoleExplain::fileNotDeleted()
{
    m_cw->showView(ViewName::Storage);
    StorageView *view = m_cw->storageView();
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_cw->session()->refreshCatalog(), view->model()->rowCount() >= 2), 15000);
    // The newest file (sorted by name, the last row): the one being written.
    view->table()->sortByColumn(StoreFileModel::File, Qt::AscendingOrder);
    const int last = view->table()->model()->rowCount() - 1;
    view->table()->setCurrentIndex(view->table()->model()->index(last, StoreFileModel::File));
    const QString file = view->table()->currentIndex().data().toString();
    view->showExplainTab();
    ExplainPanel *panel = view->explainPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 10000);
    QVERIFY2(panel->question().contains(file), qPrintable(panel->question()));
    const ExplainPanel::Row *current = rowOf(panel, "currentFile");
    QVERIFY2(current, qPrintable(describe(panel)));
    QVERIFY(current->finding.subject.endsWith(file.toUtf8()));
    QCOMPARE(current->finding.setting, QByteArray("mappedFileSizeCommitLog"));
    // The broker-wide finding stays; the other files' do not.
    QVERIFY2(rowOf(panel, "diskRatio"), qPrintable(describe(panel)));
    for (const ExplainPanel::Row &r : panel->rows())
        QVERIFY(r.finding.subject == "commitlog" || r.finding.subject.endsWith(file.toUtf8()));
    shoot(QStringLiteral("explain-cleanup.png"));

    // The first file: expired (fileReservedTime 0) but the deleteWhen hour is 12 h away.
    view->table()->setCurrentIndex(view->table()->model()->index(0, StoreFileModel::File));
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready() && !rowOf(panel, "currentFile"), 10000);
    const ExplainPanel::Row *waiting = rowOf(panel, "waitingDeleteWhen");
    QVERIFY2(waiting, qPrintable(describe(panel)));
    QCOMPARE(waiting->finding.setting, QByteArray("deleteWhen"));
}

void tst_ConsoleExplain::sendsRefused()
{
    m_cw->showView(ViewName::Topics);
    TopicsView *view = m_cw->topicsView();
    QTRY_VERIFY_WITH_TIMEOUT((m_cw->session()->refreshCatalog(), view->selectTopic("ReadOnlyTopic"),
                                 view->currentTopic() == "ReadOnlyTopic"),
        15000);
    ExplainPanel *panel = view->explainPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready(), 10000);
    QCOMPARE(panel->question(), QStringLiteral("Why are sends to ReadOnlyTopic refused?"));
    const ExplainPanel::Row *perm = rowOf(panel, "topicNotWriteable");
    QVERIFY2(perm, qPrintable(describe(panel)));
    QCOMPARE(perm->finding.setting, QByteArray("perm"));
    QCOMPARE(panel->verdict(), QByteArray("warning"));
    QVERIFY(rowOf(panel, "brokerWriteable"));
    shoot(QStringLiteral("explain-send.png"));

    // A writeable topic: nothing worse than info.
    view->selectTopic("ExplainTopic");
    QTRY_VERIFY_WITH_TIMEOUT(panel->ready() && rowOf(panel, "topicWriteable"), 10000);
    QVERIFY2(panel->verdict() == "ok" || panel->verdict() == "info", qPrintable(describe(panel)));
}

QTEST_MAIN(tst_ConsoleExplain)
#include "tst_consoleexplain.moc"
