// qrocket-console's views, offscreen, against an embedded cluster of two brokers: every view
// fills (and is written to build/tests/screenshots/<view>.png), keyboard navigation, a topic
// created and deleted from the UI (checked on the brokers through Admin), a group's lag rising
// while its consumer is held and falling once it consumes, the reset-offset preview, message
// queries, a cleanup run removing the expired commit-log file the storage view listed, and a
// broker whose disk fills past diskSpaceWarningLevelRatio shown with one figure everywhere.

#include "clientlib/client/pushconsumer.h"
#include "console/gui/alerts.h"
#include "console/gui/brokermodel.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/consumersview.h"
#include "console/gui/electionmodel.h"
#include "console/gui/format.h"
#include "console/gui/groupmodel.h"
#include "console/gui/mainwindow.h"
#include "console/gui/messagemodel.h"
#include "console/gui/messagesview.h"
#include "console/gui/resetoffset.h"
#include "console/gui/screenshot.h"
#include "console/gui/storagemodel.h"
#include "console/gui/storageview.h"
#include "console/gui/style.h"
#include "console/gui/topicdialog.h"
#include "console/gui/topicmodel.h"
#include "console/gui/topicsview.h"
#include "guitestutil.h"

#include <QApplication>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QTabWidget>
#include <QTest>
#include <QTimer>

#include <condition_variable>
#include <mutex>

using namespace qrocket;
using namespace qrocket::console;

namespace {

/// A consumer listener that can be held: while closed, deliveries wait (bounded) for it.
struct Gate
{
    std::mutex mutex;
    std::condition_variable cv;
    bool open = true;
    std::atomic<int> consumed {0};

    void set(bool value)
    {
        {
            std::lock_guard lock(mutex);
            open = value;
        }
        cv.notify_all();
    }
};

} // namespace

class tst_ConsoleViews : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyViewFillsAndIsCaptured();
    void keyboardSwitchesViews();
    void severalClustersInTabs();
    void createAndDeleteTopicFromTheUi();
    void lagRisesThenFallsAsTheGroupConsumes();
    void resetOffsetPreviewShowsWhatMoves();
    void messageQueries();
    void cleanupRemovesTheExpiredFileListed();
    void diskFullShowsOneFigureEverywhere();

private:
    std::unique_ptr<client::PushConsumer> startConsumer(
        const QByteArray &group, const QByteArray &topic, std::shared_ptr<Gate> gate);
    QAbstractButton *messageBoxButton(QWidget *parent, QMessageBox::StandardButton which);
    qlonglong groupLag(const QByteArray &group);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::Producer> m_producer;
    std::vector<std::unique_ptr<client::PushConsumer>> m_consumers;
    std::unique_ptr<MainWindow> m_window;
    ClusterWidget *m_cw = nullptr;
    QTimer m_traffic;
    QByteArray m_sentId;
    /// broker-1's disk: 100 MiB units in use of a 251.9 GiB partition with 156.3 GiB reserved
    /// for root (the machine); 282 is 30 % as df shows it.
    std::atomic<std::int64_t> m_broker1Used {282};
};

std::unique_ptr<client::PushConsumer> tst_ConsoleViews::startConsumer(
    const QByteArray &group, const QByteArray &topic, std::shared_ptr<Gate> gate)
{
    client::PushConsumerOptions o;
    o.group = group;
    o.client.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = group;
    o.client.heartbeatBrokerInterval = 1000;
    o.client.persistConsumerOffsetInterval = 500;
    o.client.pollNameServerInterval = 1000;
    o.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    auto c = std::make_unique<client::PushConsumer>(o);
    if (!c->subscribe(topic).isOk())
        return nullptr;
    c->registerMessageListener(
        [gate](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            std::unique_lock lock(gate->mutex);
            gate->cv.wait_for(lock, std::chrono::seconds(30), [&] { return gate->open; });
            gate->consumed += static_cast<int>(msgs.size());
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    if (!c->start().isOk())
        return nullptr;
    return c;
}

QAbstractButton *tst_ConsoleViews::messageBoxButton(
    QWidget *parent, QMessageBox::StandardButton which)
{
    for (QMessageBox *box : parent->findChildren<QMessageBox *>()) {
        if (box->isVisible())
            return box->button(which);
    }
    return nullptr;
}

qlonglong tst_ConsoleViews::groupLag(const QByteArray &group)
{
    GroupModel *m = m_cw->consumersView()->groupModel();
    for (int r = 0; r < m->rowCount(); ++r) {
        if (m->index(r, 0).data(SyncTableModel::KeyRole).toByteArray() == group
            && m->groupAt(r)->statsKnown)
            return m->index(r, GroupModel::Lag).data(SyncTableModel::SortRole).toLongLong();
    }
    return -1;
}

void tst_ConsoleViews::initTestCase()
{
    guitest::isolateSettings("tst_consoleviews");
    initConsoleResources();
    applyConsoleStyle(*qApp, true);
    m_cluster = guitest::startCluster(2, [this](int index) -> storage::DiskSpaceProbe {
        if (index != 1)
            return {}; // broker-0: statvfs
        return [this](const QString &) {
            constexpr std::int64_t unit = 100LL * 1024 * 1024, total = 2519, reserved = 1563;
            storage::DiskSpace d;
            d.total = total * unit;
            d.free = (total - m_broker1Used.load()) * unit;
            d.available = d.free - reserved * unit;
            return d;
        };
    });
    QVERIFY(m_cluster);
    for (const char *t : {"ViewTopic", "LagTopic", "BigTopic"})
        QVERIFY(m_cluster->createTopic(QString::fromLatin1(t), 2).isOk());
    for (const char *t : {"ViewTopic", "LagTopic", "BigTopic"})
        QVERIFY(m_cluster->waitForRoute(QString::fromLatin1(t)).isOk());
    m_producer = guitest::startProducer(*m_cluster, "tst_consoleviews_p");
    QVERIFY(m_producer);
    for (int i = 0; i < 30; ++i) {
        client::Message m(
            "ViewTopic", "tagA", "view-key", QByteArray("view message ") + QByteArray::number(i));
        Result<client::SendResult> r = m_producer->sendSync(std::move(m));
        QVERIFY(r.has_value());
        m_sentId = r->msgId;
    }
    auto gate = std::make_shared<Gate>();
    m_consumers.push_back(startConsumer("ViewGroup", "ViewTopic", gate));
    QVERIFY(m_consumers.back());
    // Steady traffic for the charts.
    m_traffic.setInterval(100);
    connect(&m_traffic, &QTimer::timeout, this, [this] {
        m_producer->sendAsync(client::Message("ViewTopic", "tick", "traffic", "t"), this,
            [](Result<client::SendResult>) {});
    });
    m_traffic.start();

    m_window = std::make_unique<MainWindow>();
    m_window->resize(1400, 860);
    QVERIFY(m_window->addCluster(m_cluster->namesrvAddress(), &m_cw).isOk());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_cw->session()->setPollInterval(500);
}

void tst_ConsoleViews::cleanupTestCase()
{
    m_traffic.stop();
    m_window.reset();
    for (auto &c : m_consumers) {
        if (c)
            c->shutdown();
    }
    if (m_producer)
        m_producer->shutdown();
    m_cluster.reset();
}

void tst_ConsoleViews::everyViewFillsAndIsCaptured()
{
    const QString dir = guitest::screenshotDir();
    for (const QString &name : viewNames()) {
        ViewName v;
        QVERIFY(parseViewName(name, &v));
        const Status s = prepareView(m_cw, v, "ViewTopic", 20000);
        QVERIFY2(s.isOk(), qPrintable(s.toString()));
        QCOMPARE(m_cw->currentView(), v);
        const QString file = dir + QLatin1Char('/') + name + QStringLiteral(".png");
        QVERIFY(writeScreenshot(m_window.get(), file).isOk());
        QVERIFY2(QFileInfo(file).size() > 10000, qPrintable(file));
    }
    ViewName unknown;
    QVERIFY(!parseViewName(QStringLiteral("nonsense"), &unknown));
}

void tst_ConsoleViews::keyboardSwitchesViews()
{
    m_window->activateWindow();
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(m_cw->currentView(), ViewName::Topics);
    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(m_cw->currentView(), ViewName::Cluster);
    // Alt+<digit> is the tab's mnemonic.
    QTest::keyClick(m_cw->tabs(), Qt::Key_4, Qt::AltModifier);
    QTRY_COMPARE(m_cw->currentView(), ViewName::Consumers);
    // Ctrl+F in the topics tab goes to its search field.
    m_cw->showView(ViewName::Topics);
    m_cw->topicsView()->table()->setFocus();
    QTest::keyClick(m_cw->topicsView()->table(), Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(m_cw->topicsView()->searchEdit()->hasFocus());
}

void tst_ConsoleViews::severalClustersInTabs()
{
    ClusterWidget *second = nullptr;
    QVERIFY(m_window->addCluster(m_cluster->namesrvAddress(), &second).isOk());
    QCOMPARE(m_window->clusterCount(), 2);
    QCOMPARE(m_window->currentCluster(), second);
    QCOMPARE(MainWindow::recentClusters().front(), m_cluster->namesrvAddress());
    QTRY_VERIFY_WITH_TIMEOUT(!second->session()->brokers().empty(), 10000);
    // A bad address is one clear error, no tab.
    QVERIFY(!m_window->addCluster(QStringLiteral("  ")).isOk());
    QCOMPARE(m_window->clusterCount(), 2);
    QTest::keyClick(m_window.get(), Qt::Key_W, Qt::ControlModifier); // closes the current one
    QCOMPARE(m_window->clusterCount(), 1);
    QCOMPARE(m_window->currentCluster(), m_cw);
}

void tst_ConsoleViews::createAndDeleteTopicFromTheUi()
{
    m_cw->showView(ViewName::Topics);
    TopicsView *view = m_cw->topicsView();
    QTest::mouseClick(view->createButton(), Qt::LeftButton);
    TopicDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = view->findChild<TopicDialog *>()) != nullptr && dialog->isVisible());
    QTest::keyClicks(dialog->nameEdit(), QStringLiteral("UiCreatedTopic"));
    QAbstractButton *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    QTest::mouseClick(ok, Qt::LeftButton);
    // On both brokers, as the dialog asked (8 queues by default).
    for (int i = 0; i < 2; ++i) {
        const QByteArray broker = m_cluster->brokerAddress(i).toUtf8();
        QTRY_VERIFY_WITH_TIMEOUT(
            m_cw->session()->admin().topicConfig(broker, "UiCreatedTopic").has_value(), 10000);
        QCOMPARE(m_cw->session()->admin().topicConfig(broker, "UiCreatedTopic")->writeQueueNums, 8);
    }
    // And in the list, without a refresh button.
    view->searchEdit()->setText(QStringLiteral("UiCreated"));
    QTRY_COMPARE_WITH_TIMEOUT(view->filter()->rowCount(), 1, 15000);
    view->table()->setCurrentIndex(view->filter()->index(0, 0));
    QCOMPARE(view->currentTopic(), QByteArray("UiCreatedTopic"));

    view->deleteCurrent();
    QAbstractButton *yes = nullptr;
    QTRY_VERIFY((yes = messageBoxButton(view, QMessageBox::Yes)) != nullptr);
    QTest::mouseClick(yes, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_cw->session()
             ->admin()
             .topicConfig(m_cluster->brokerAddress(0).toUtf8(), "UiCreatedTopic")
             .has_value(),
        10000);
    QTRY_COMPARE_WITH_TIMEOUT(view->filter()->rowCount(), 0, 15000);
    view->searchEdit()->clear();
}

void tst_ConsoleViews::lagRisesThenFallsAsTheGroupConsumes()
{
    auto gate = std::make_shared<Gate>();
    m_consumers.push_back(startConsumer("LagGroup", "LagTopic", gate));
    QVERIFY(m_consumers.back());
    for (int i = 0; i < 4; ++i)
        QVERIFY(
            m_producer->sendSync(client::Message("LagTopic", QByteArray("warm up"))).has_value());
    QTRY_COMPARE_WITH_TIMEOUT(gate->consumed.load(), 4, 15000);
    m_cw->showView(ViewName::Consumers);
    QTRY_VERIFY_WITH_TIMEOUT((m_cw->session()->refreshCatalog(), groupLag("LagGroup") == 0), 20000);
    gate->set(false);
    for (int i = 0; i < 40; ++i)
        QVERIFY(
            m_producer
                ->sendSync(client::Message("LagTopic", QByteArray("held ") + QByteArray::number(i)))
                .has_value());
    QTRY_VERIFY_WITH_TIMEOUT(groupLag("LagGroup") >= 40, 20000);
    gate->set(true);
    QTRY_COMPARE_WITH_TIMEOUT(groupLag("LagGroup"), 0LL, 20000);
    QCOMPARE(gate->consumed.load(), 44);
}

void tst_ConsoleViews::resetOffsetPreviewShowsWhatMoves()
{
    m_cw->showView(ViewName::Consumers);
    m_cw->consumersView()->selectGroup("ViewGroup");
    ResetOffsetPanel *panel = m_cw->consumersView()->resetPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->topicBox()->findText(QStringLiteral("ViewTopic")) >= 0, 10000);
    panel->topicBox()->setCurrentText(QStringLiteral("ViewTopic"));
    panel->timeEdit()->setDateTime(QDateTime::currentDateTime().addSecs(-3600));
    QTest::mouseClick(panel->previewButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(panel->model()->rowCount(), 4, 10000); // 2 write queues x 2 brokers
    // An hour back: every queue that was consumed moves back to its start.
    QVERIFY(panel->model()->movingQueues() > 0);
}

void tst_ConsoleViews::messageQueries()
{
    m_cw->showView(ViewName::Messages);
    MessagesView *view = m_cw->messagesView();
    view->queryByKey("ViewTopic", "view-key");
    QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 30, 10000);
    view->queryById("ViewTopic", m_sentId);
    QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 1, 10000);
    QTRY_COMPARE(view->bodyText()->toPlainText(), QStringLiteral("view message 29"));
    QVERIFY(view->bodyHex()->toPlainText().startsWith(QStringLiteral("00000000  76 69 65 77")));
    view->queryById("ViewTopic", "00000000000000000000000000000000");
    QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 0, 10000);
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    view->queryByTime("ViewTopic", now - 3600 * 1000, now + 60 * 1000);
    QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 20, 10000); // the first page
}

void tst_ConsoleViews::cleanupRemovesTheExpiredFileListed()
{
    // Two commit-log files on broker-0 (16 MiB each): the first is expired (fileReservedTime 0).
    const QByteArray broker0 = m_cluster->brokerName(0).toUtf8();
    QByteArray body(3 * 1024 * 1024 + 512 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < body.size(); i += 4) {
        const quint32 v = QRandomGenerator::global()->generate();
        std::memcpy(body.data() + i, &v, 4);
    }
    for (int i = 0; i < 6; ++i) {
        Result<client::SendResult> r = m_producer->sendSync(
            client::Message("BigTopic", body), protocol::MessageQueue {"BigTopic", broker0, 0});
        QVERIFY2(r.has_value(), qPrintable(r.status().toString()));
    }
    m_cw->showView(ViewName::Storage);
    StorageView *view = m_cw->storageView();
    StoreFileModel *model = view->model();
    auto brokerFiles = [&] {
        QStringList files;
        for (int r = 0; r < model->rowCount(); ++r) {
            if (model->index(r, StoreFileModel::Broker).data().toString()
                == QString::fromUtf8(broker0))
                files << model->index(r, StoreFileModel::File).data(Qt::ToolTipRole).toString();
        }
        files.sort();
        return files;
    };
    QTRY_VERIFY_WITH_TIMEOUT((m_cw->session()->refreshCatalog(), brokerFiles().size() >= 2), 20000);
    const QString oldest = brokerFiles().first();
    QTest::mouseClick(view->cleanButton(), Qt::LeftButton);
    QAbstractButton *yes = nullptr;
    QTRY_VERIFY((yes = messageBoxButton(view, QMessageBox::Yes)) != nullptr);
    QTest::mouseClick(yes, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(
        (m_cw->session()->refreshCatalog(), !brokerFiles().contains(oldest)), 25000);
    QVERIFY(!brokerFiles().isEmpty()); // the newest file stays
    QVERIFY(!QFileInfo::exists(oldest));
}

// broker-1's disk filled to 97 % as df counts it ((total - free) / total would read 37 %): the
// storage view's gauge, its chart, the cluster view and the alert all show the broker's own
// figure and its write block; freed again, all of them let it go.
void tst_ConsoleViews::diskFullShowsOneFigureEverywhere()
{
    const QString name1 = m_cluster->brokerName(1);
    const QByteArray addr1 = m_cluster->brokerAddress(1).toUtf8();
    ClusterSession *session = m_cw->session();
    BrokerModel *brokers = m_cw->clusterView()->model();
    // Plain master/slave brokers: no elections asked, the panel stays hidden.
    QVERIFY(session->elections().empty());
    QVERIFY(!m_cw->clusterView()->electionPanel()->isVisible());
    QCOMPARE(m_cw->clusterView()->electionModel()->rowCount(), 0);
    const auto gauge1 = [&] { return m_cw->storageView()->gaugeFor(addr1); };
    const auto diskCell = [&]() -> QString {
        for (int r = 0; r < brokers->rowCount(); ++r) {
            if (brokers->index(r, BrokerModel::Name).data().toString() == name1)
                return brokers->index(r, BrokerModel::Disk).data().toString();
        }
        return {};
    };
    const auto diskAlert = [&]() -> QString {
        for (const Alert &a : m_cw->alerts()->active()) {
            if (a.subject.startsWith(name1) && a.text.startsWith(QStringLiteral("disk of")))
                return a.text;
        }
        return {};
    };
    const auto lastSample = [&] {
        const auto &h = session->history(addr1);
        return h.empty() ? -2.0 : h.back().diskRatio;
    };
    m_cw->showView(ViewName::Storage);
    QTRY_VERIFY_WITH_TIMEOUT(gauge1() && gauge1()->ratio() == 0.30, 20000);
    QVERIFY(!gauge1()->diskFull());

    m_broker1Used = 927; // 927 / (927 + 29): 97 %
    QTRY_VERIFY_WITH_TIMEOUT(gauge1()->diskFull() && gauge1()->ratio() == 0.97, 20000);
    QCOMPARE(session->broker(addr1)->diskRatio, 0.97);
    QVERIFY(session->broker(addr1)->diskFull);
    QTRY_COMPARE_WITH_TIMEOUT(lastSample(), 0.97, 5000); // the chart's series
    QCOMPARE(diskCell(), QStringLiteral("%1 full").arg(formatRatio(0.97)));
    QTRY_VERIFY_WITH_TIMEOUT(diskAlert().contains(QStringLiteral("writes refused")), 5000);
    QVERIFY2(diskAlert().contains(formatRatio(0.97)), qPrintable(diskAlert()));
    // The runtime info's reason, the one text of the alert and the storage view: the
    // partition, the figure and the mark that decided.
    const QString reason = session->broker(addr1)->diskFullReason;
    QVERIFY2(reason.contains(QStringLiteral("commit-log partition"))
            && reason.contains(QStringLiteral("at 97.0% used > diskSpaceWarningLevelRatio 90%")),
        qPrintable(reason));
    QVERIFY2(diskAlert().endsWith(reason), qPrintable(diskAlert()));
    QTRY_VERIFY_WITH_TIMEOUT(m_cw->storageView()->factsFor(addr1).contains(
                                 QStringLiteral("writes refused: ") + reason.toHtmlEscaped()),
        5000);
    // The broker's reason (storeFiles, polled every few seconds) names the mark that decided.
    QTRY_VERIFY_WITH_TIMEOUT(
        (session->refreshCatalog(),
            session->broker(addr1)->storeFiles && session->broker(addr1)->storeFiles->diskFull),
        20000);
    const QString dir = guitest::screenshotDir();
    QVERIFY(writeScreenshot(m_window.get(), dir + QStringLiteral("/storage-diskfull.png")).isOk());
    m_cw->showView(ViewName::Cluster);
    QVERIFY(writeScreenshot(m_window.get(), dir + QStringLiteral("/cluster-diskfull.png")).isOk());

    m_broker1Used = 282;
    QTRY_VERIFY_WITH_TIMEOUT(!gauge1()->diskFull() && gauge1()->ratio() == 0.30, 20000);
    QCOMPARE(diskCell(), formatRatio(0.30));
    QTRY_VERIFY_WITH_TIMEOUT(diskAlert().isEmpty(), 5000);
    QVERIFY(session->broker(addr1)->diskFullReason.isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_cw->storageView()->factsFor(addr1).contains(QStringLiteral("writes refused")), 5000);
}

QTEST_MAIN(tst_ConsoleViews)
#include "tst_consoleviews.moc"
