// The cluster view's elections panel against real daemons (issue 28): etcd, qrocket-namesrv and
// two qrocket-broker processes of one brokerName in controller mode (leases of 3 s). The console,
// polling as it always does, shows the elected master A with epoch N and both replicas in the
// SyncStateSet; A is SIGKILLed; within a bounded wait the view shows B as master with epoch N + 1,
// highlighted as new, A unreachable, and the history lists the election (A -> B). Checked on the
// model's data and on the rendered widgets (visible, nothing clipped); screenshots of before and
// after go to build/tests/screenshots (cluster-elections-before.png, cluster-elections.png).

#include "console/gui/brokermodel.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/electionmodel.h"
#include "console/gui/mainwindow.h"
#include "console/gui/screenshot.h"
#include "console/gui/style.h"
#include "guitestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <array>

using namespace qrocket;
using namespace qrocket::console;
using qrocket::testlib::DaemonProcess;
using qrocket::testlib::EtcdProcess;

namespace {

constexpr int kTtlSeconds = 3;
const QByteArray kBrokerName = "broker-el";

} // namespace

class tst_ConsoleElections : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void cleanupTestCase();
    void killedMasterIsReplacedOnScreen();

private:
    QByteArray address(int i) const { return "127.0.0.1:" + QByteArray::number(m_ports[i]); }
    const ElectionState *election() const { return m_session->election(kBrokerName); }
    ElectionModel *model() const { return m_cw->clusterView()->electionModel(); }
    /// The model's row of replica `addr` (-1: none).
    int rowOf(const QByteArray &addr) const
    {
        for (int r = 0; r < model()->rowCount(); ++r) {
            if (model()->index(r, ElectionModel::Replica).data().toString().toUtf8() == addr)
                return r;
        }
        return -1;
    }
    QString cell(const QByteArray &addr, int column) const
    {
        const int r = rowOf(addr);
        return r < 0 ? QString() : model()->index(r, column).data().toString();
    }
    /// The labels and the table show everything they hold (nothing clipped).
    void checkNothingClipped();

    QTemporaryDir m_dir;
    EtcdProcess m_etcd;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    std::array<std::unique_ptr<DaemonProcess>, 2> m_brokers;
    std::array<quint16, 2> m_ports {};
    quint16 m_nsPort = 0;
    std::unique_ptr<MainWindow> m_window;
    ClusterWidget *m_cw = nullptr;
    ClusterSession *m_session = nullptr;
};

void tst_ConsoleElections::initTestCase()
{
    guitest::isolateSettings("tst_consoleelections");
    initConsoleResources();
    applyConsoleStyle(*qApp, true);
    QVERIFY(m_dir.isValid());
    if (EtcdProcess::program().isEmpty())
        QSKIP("no etcd binary (Debian: etcd-server)");
    QVERIFY2(m_etcd.start(m_dir.filePath(QStringLiteral("etcd"))), qPrintable(m_etcd.error()));
    const QString dir = m_dir.path();
    QVERIFY(testlib::startOnFreePort(
        m_namesrv, dir + QStringLiteral("/namesrv.conf"), m_nsPort, [&](quint16 port) {
            return "listenPort=" + QByteArray::number(port) + "\nkvConfigPath=" + dir.toUtf8()
                + "/kvConfig.json\n";
        }));
    for (int i = 0; i < 2; ++i) {
        m_brokers[i] = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
        const QString store = dir + QStringLiteral("/store%1").arg(i);
        QVERIFY2(
            testlib::startOnFreePort(*m_brokers[i], store + QStringLiteral(".conf"), m_ports[i],
                [&](quint16 port) {
                    return "brokerClusterName=ElCluster\nbrokerName=" + kBrokerName
                        + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
                        + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:"
                        + QByteArray::number(m_nsPort) + "\nstorePathRootDir=" + store.toUtf8()
                        + "\nbrokerRole=SYNC_MASTER\nenableControllerMode=true\n"
                          "etcdEndpoints="
                        + m_etcd.endpoint().toUtf8()
                        + "\netcdLeaseTtlSeconds=" + QByteArray::number(kTtlSeconds)
                        + "\nmappedFileSizeCommitLog=16777216\n"
                          "mappedFileSizeConsumeQueue=60000\nhaSendHeartbeatInterval=1000\n"
                          "haHousekeepingInterval=3000\n";
                }),
            qPrintable(m_brokers[i]->error()));
    }
    m_window = std::make_unique<MainWindow>();
    m_window->resize(1400, 860);
    QVERIFY(m_window->addCluster(QStringLiteral("127.0.0.1:%1").arg(m_nsPort), &m_cw).isOk());
    m_session = m_cw->session();
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void tst_ConsoleElections::cleanup()
{
    if (!QTest::currentTestFailed())
        return;
    for (int i = 0; i < 2; ++i) {
        if (m_brokers[i])
            qInfo("broker %d (port %u) said:\n%s", i, m_ports[i],
                m_brokers[i]->output().right(6000).constData());
    }
}

void tst_ConsoleElections::cleanupTestCase()
{
    m_window.reset();
    for (auto &b : m_brokers) {
        if (b)
            b->stop(20000);
    }
    if (m_namesrv.isRunning())
        m_namesrv.stop();
    m_etcd.kill();
}

void tst_ConsoleElections::checkNothingClipped()
{
    ClusterView *view = m_cw->clusterView();
    QVERIFY(view->electionPanel()->isVisible());
    // A text change relays the panel out on the next event-loop pass.
    for (QLabel *label : {view->electionHeadline(), view->electionHistory()}) {
        QVERIFY(label->isVisible());
        QTRY_VERIFY2_WITH_TIMEOUT(label->height() >= label->sizeHint().height()
                && label->width() >= label->sizeHint().width(),
            qPrintable(QStringLiteral("%1x%2 px for %3x%4 px of text: %5")
                           .arg(label->width())
                           .arg(label->height())
                           .arg(label->sizeHint().width())
                           .arg(label->sizeHint().height())
                           .arg(label->text())),
            3000);
    }
    QTableView *table = view->electionTable();
    QVERIFY(table->isVisible());
    const auto rowsHeight = [&] {
        int rows = 0;
        for (int r = 0; r < model()->rowCount(); ++r)
            rows += table->rowHeight(r);
        return rows;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(table->viewport()->height() >= rowsHeight(),
        qPrintable(QStringLiteral("viewport %1 px, rows %2 px")
                       .arg(table->viewport()->height())
                       .arg(rowsHeight())),
        3000);
    // Nothing overlaps: headline, table and history one below the other, inside the panel.
    QWidget *panel = view->electionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->height() >= panel->sizeHint().height(), 3000);
    QVERIFY(view->electionHeadline()->geometry().bottom() <= table->geometry().top());
    QVERIFY2(table->geometry().bottom() <= view->electionHistory()->geometry().top(),
        qPrintable(QStringLiteral("table ends at %1, history starts at %2")
                       .arg(table->geometry().bottom())
                       .arg(view->electionHistory()->geometry().top())));
    QVERIFY(view->electionHistory()->geometry().bottom() <= panel->contentsRect().bottom());
    for (int c = 0; c < ElectionModel::ColumnCount; ++c)
        QVERIFY2(table->columnViewportPosition(c) + table->columnWidth(c)
                <= table->viewport()->width() + 1,
            qPrintable(QStringLiteral("column %1 beyond the table").arg(c)));
}

void tst_ConsoleElections::killedMasterIsReplacedOnScreen()
{
    // One master is elected and the other replica joins the SyncStateSet; the view shows it.
    QTRY_VERIFY_WITH_TIMEOUT(election() && election()->epoch > 0 && !election()->master.isEmpty()
            && election()->syncStateSet.size() == 2,
        45000);
    const std::int64_t epoch = election()->epoch;
    const int m = election()->master == address(0) ? 0 : 1;
    QCOMPARE(election()->master, address(m));
    const int s = 1 - m;
    qInfo("master %s epoch %lld, follower %s", address(m).constData(),
        static_cast<long long>(epoch), address(s).constData());
    QTRY_COMPARE_WITH_TIMEOUT(model()->rowCount(), 2, 5000);
    // The follower re-registers as it switches to its role (an in-process restart): it answers
    // again within a poll or two.
    QTRY_COMPARE_WITH_TIMEOUT(
        cell(address(s), ElectionModel::Role), QStringLiteral("follower"), 15000);
    QCOMPARE(model()->index(0, ElectionModel::Replica).data().toString().toUtf8(), address(m));
    QCOMPARE(cell(address(m), ElectionModel::Role), QStringLiteral("master"));
    QCOMPARE(cell(address(m), ElectionModel::Epoch).toLongLong(), qlonglong(epoch));
    QCOMPARE(cell(address(m), ElectionModel::SyncStateSet), QStringLiteral("in set"));
    QCOMPARE(cell(address(s), ElectionModel::SyncStateSet), QStringLiteral("in set"));
    QVERIFY(model()
                ->index(rowOf(address(m)), ElectionModel::Role)
                .data(Qt::FontRole)
                .value<QFont>()
                .bold());
    // Both commit-log ends known: the follower is behind by a number of bytes (0: caught up).
    QVERIFY(model()
                ->index(rowOf(address(s)), ElectionModel::Behind)
                .data(SyncTableModel::SortRole)
                .toLongLong()
        >= 0);
    ClusterView *view = m_cw->clusterView();
    QTRY_VERIFY_WITH_TIMEOUT(view->electionPanel()->isVisible(), 5000);
    QVERIFY(view->electionHeadline()->text().contains(QString::fromUtf8(address(m))));
    QVERIFY(
        view->electionHeadline()->text().contains(QStringLiteral("epoch <b>%1</b>").arg(epoch)));
    QVERIFY(!election()->history.empty());
    QVERIFY(!election()->history.front().live); // found when the console connected
    checkNothingClipped();
    QVERIFY(writeScreenshot(
        m_window.get(), guitest::screenshotDir() + QStringLiteral("/cluster-elections-before.png"))
                .isOk());

    // SIGKILL the master: the follower is elected with the next epoch, and the view follows.
    QElapsedTimer clock;
    clock.start();
    m_brokers[m]->kill();
    QTRY_VERIFY_WITH_TIMEOUT(
        election()->master == address(s) && election()->epoch == epoch + 1, 30000);
    qInfo("the view showed %s master with epoch %lld %lld ms after the SIGKILL (lease TTL %d s, "
          "console poll 1 s)",
        address(s).constData(), static_cast<long long>(epoch + 1),
        static_cast<long long>(clock.elapsed()), kTtlSeconds);
    const ElectionEvent &last = election()->history.front();
    QCOMPARE(last.epoch, epoch + 1);
    QCOMPARE(last.master, address(s));
    QCOMPARE(last.previousMaster, address(m));
    QVERIFY(last.live);
    QCOMPARE(election()->history.size(), std::size_t(2));
    QTRY_COMPARE_WITH_TIMEOUT(
        model()->index(0, ElectionModel::Replica).data().toString().toUtf8(), address(s), 5000);
    QCOMPARE(cell(address(s), ElectionModel::Role), QStringLiteral("master (new)"));
    QCOMPARE(cell(address(s), ElectionModel::Epoch).toLongLong(), qlonglong(epoch + 1));
    QVERIFY(model()->index(0, ElectionModel::Role).data(Qt::BackgroundRole).isValid());
    QVERIFY(!model()->index(1, ElectionModel::Role).data(Qt::BackgroundRole).isValid());
    // Rendered: the headline names the new master and epoch, the history the election.
    QTRY_VERIFY_WITH_TIMEOUT(
        view->electionHeadline()->text().contains(QStringLiteral("new master elected")), 5000);
    QVERIFY(view->electionHeadline()->text().contains(QString::fromUtf8(address(s))));
    QVERIFY(view->electionHeadline()->text().contains(
        QStringLiteral("epoch <b>%1</b>").arg(epoch + 1)));
    const QString history = view->electionHistory()->text();
    QVERIFY2(
        history.contains(QStringLiteral("epoch %1 · master %2 (was %3)")
                             .arg(epoch + 1)
                             .arg(QString::fromUtf8(address(s)), QString::fromUtf8(address(m)))),
        qPrintable(history));
    QVERIFY(history.contains(
        QStringLiteral("epoch %1 · master %2").arg(epoch).arg(QString::fromUtf8(address(m)))));
    // The killed replica is unreachable (the name server drops it when its connection closes).
    QTRY_COMPARE_WITH_TIMEOUT(
        cell(address(m), ElectionModel::Role), QStringLiteral("unreachable"), 15000);
    // The broker table (the name server's route) agrees: the new master registered as brokerId 0.
    BrokerModel *brokers = view->model();
    const auto routeRole = [&](const QByteArray &addr) {
        for (int r = 0; r < brokers->rowCount(); ++r) {
            if (brokers->index(r, BrokerModel::Address).data().toString().toUtf8() == addr)
                return brokers->index(r, BrokerModel::Role).data().toString();
        }
        return QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(routeRole(address(s)), QStringLiteral("0 (master)"), 10000);
    checkNothingClipped();
    // The table drew the new master's row at the top.
    QTableView *table = view->electionTable();
    QVERIFY(table->visualRect(table->model()->index(0, ElectionModel::Role)).isValid());
    QVERIFY(!view->electionPanel()->grab().isNull());
    QVERIFY(writeScreenshot(
        m_window.get(), guitest::screenshotDir() + QStringLiteral("/cluster-elections.png"))
                .isOk());
}

QTEST_MAIN(tst_ConsoleElections)
#include "tst_consoleelections.moc"
