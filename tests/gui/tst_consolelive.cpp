// qrocket-console under live load from real processes (issue 33): qrocket-namesrv and
// qrocket-broker as daemons, `qrocket-bench producer --tps` and `qrocket-bench consumer` as the
// load, the console offscreen in this process. Checked on screen, as an operator reads it:
//   - the group's consume TPS (GET_CONSUME_STATS consumeTps, the broker's minute average) is
//     within 20 % of the broker's get TPS over the same minute, in the group list and in the
//     group's header line, with its age;
//   - the charts' tick texts are drawn whole (no "…"), in k msgs/s at these rates, with a
//     labelled time axis and the exact value in a point's tooltip; the per-topic charts draw
//     the loaded topic;
//   - the storage gauge, its chart and the cluster view show the same disk figure;
//   - a message's "Consumed by" names the group that consumed it and a second, idle one as not.
// Screenshots of each view under load go to build/tests/screenshots/live-*.png.

#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "console/gui/brokermodel.h"
#include "console/gui/chartsview.h"
#include "console/gui/clustersession.h"
#include "console/gui/clusterview.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/consumersview.h"
#include "console/gui/format.h"
#include "console/gui/groupmodel.h"
#include "console/gui/mainwindow.h"
#include "console/gui/messagesview.h"
#include "console/gui/screenshot.h"
#include "console/gui/storageview.h"
#include "console/gui/style.h"
#include "console/gui/timechart.h"
#include "guitestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QApplication>
#include <QDateTime>
#include <QFileInfo>
#include <QProcess>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::console;
using qrocket::testlib::DaemonProcess;

namespace {

constexpr int kLoadTps = 2500;
const QByteArray kLiveTopic = "LiveTopic";
const QByteArray kLiveGroup = "LiveG";
const QByteArray kTrackTopic = "TrackTopic";

/// A qrocket-bench run in the background (killed by the destructor).
struct Bench
{
    QProcess process;
    ~Bench()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    bool start(const QStringList &args)
    {
        testlib::dieWithTheTest(process);
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(testlib::binDir() + QStringLiteral("/qrocket-bench"), args);
        return process.waitForStarted(10000);
    }
};

} // namespace

class tst_ConsoleLive : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void groupConsumeTpsMatchesTheBrokersGetTps();
    void chartAxesAreReadable();
    void perTopicCharts();
    void storageShowsOneDiskFigure();
    void consumedByNamesConsumedAndIdleGroups();

private:
    std::unique_ptr<client::PushConsumer> startConsumer(
        const QByteArray &group, std::shared_ptr<std::atomic<int>> consumed);
    void shoot(const QString &name);

    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    QString m_namesrvAddr;
    QByteArray m_brokerAddr;
    Bench m_producerBench;
    Bench m_consumerBench;
    std::unique_ptr<client::Producer> m_producer;
    std::vector<std::unique_ptr<client::PushConsumer>> m_consumers;
    std::unique_ptr<MainWindow> m_window;
    ClusterWidget *m_cw = nullptr;
};

std::unique_ptr<client::PushConsumer> tst_ConsoleLive::startConsumer(
    const QByteArray &group, std::shared_ptr<std::atomic<int>> consumed)
{
    client::PushConsumerOptions o;
    o.group = group;
    o.client.namesrvAddr = m_namesrvAddr.toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = group;
    o.client.heartbeatBrokerInterval = 1000;
    o.client.persistConsumerOffsetInterval = 500;
    o.client.pollNameServerInterval = 1000;
    o.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    auto c = std::make_unique<client::PushConsumer>(o);
    if (!c->subscribe(kTrackTopic).isOk())
        return nullptr;
    c->registerMessageListener([consumed](const std::vector<client::MessageExt> &msgs,
                                   client::ConsumeConcurrentlyContext &) {
        *consumed += static_cast<int>(msgs.size());
        return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
    });
    if (!c->start().isOk())
        return nullptr;
    return c;
}

void tst_ConsoleLive::shoot(const QString &name)
{
    const QString file
        = guitest::screenshotDir() + QStringLiteral("/live-") + name + QStringLiteral(".png");
    QVERIFY(writeScreenshot(m_window.get(), file).isOk());
    QVERIFY2(QFileInfo(file).size() > 10000, qPrintable(file));
}

void tst_ConsoleLive::initTestCase()
{
    guitest::isolateSettings("tst_consolelive");
    initConsoleResources();
    applyConsoleStyle(*qApp, true);
    QVERIFY(m_dir.isValid());
    if (!QFileInfo::exists(testlib::binDir() + QStringLiteral("/qrocket-bench")))
        QFAIL("qrocket-bench is not built (it is a dependency of this test)");
    const QString dir = m_dir.path();
    const quint16 namesrvPort = testlib::startNamesrv(m_namesrv, dir);
    QVERIFY2(namesrvPort, qPrintable(m_namesrv.error()));
    m_namesrvAddr = QStringLiteral("127.0.0.1:%1").arg(namesrvPort);
    quint16 brokerPort = 0;
    QVERIFY(testlib::startOnFreePort(
        m_broker, dir + QStringLiteral("/broker.conf"), brokerPort, [&](quint16 port) {
            return "brokerClusterName=LiveCluster\nbrokerName=live-broker\nbrokerId=0\n"
                   "listenPort="
                + QByteArray::number(port) + "\nnamesrvAddr=" + m_namesrvAddr.toUtf8()
                + "\nbrokerIP1=127.0.0.1\nregisterNameServerPeriod=10000\n"
                  "autoCreateTopicEnable=true\nstorePathRootDir="
                + dir.toUtf8() + "/store\n";
        }));
    m_brokerAddr = "127.0.0.1:" + QByteArray::number(brokerPort);

    // The topics, through the Admin the console uses.
    client::AdminOptions ao;
    ao.client.namesrvAddr = m_namesrvAddr.toUtf8();
    client::Admin admin(ao);
    QVERIFY(admin.start().isOk());
    for (const QByteArray &topic : {kLiveTopic, kTrackTopic}) {
        protocol::TopicConfig tc;
        tc.topicName = topic;
        tc.readQueueNums = 4;
        tc.writeQueueNums = 4;
        const auto r = admin.createOrUpdateTopic(m_brokerAddr, tc);
        QVERIFY2(r.isOk(), qPrintable(r.toString()));
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        admin.topicRoute(kLiveTopic).has_value() && admin.topicRoute(kTrackTopic).has_value(),
        30000);
    admin.shutdown();

    // The load: a paced producer and a consumer group, as processes.
    QVERIFY(m_consumerBench.start({QStringLiteral("consumer"), QStringLiteral("-n"), m_namesrvAddr,
        QStringLiteral("-t"), QString::fromUtf8(kLiveTopic), QStringLiteral("-g"),
        QString::fromUtf8(kLiveGroup), QStringLiteral("--interval"), QStringLiteral("5")}));
    QVERIFY(m_producerBench.start({QStringLiteral("producer"), QStringLiteral("-n"), m_namesrvAddr,
        QStringLiteral("-t"), QString::fromUtf8(kLiveTopic), QStringLiteral("-w"),
        QStringLiteral("8"), QStringLiteral("-s"), QStringLiteral("256"), QStringLiteral("--tps"),
        QString::number(kLoadTps), QStringLiteral("--interval"), QStringLiteral("5")}));

    client::ProducerOptions po;
    po.group = "tst_consolelive_p";
    po.client.namesrvAddr = m_namesrvAddr.toUtf8();
    po.client.clientIP = "127.0.0.1";
    po.client.instanceName = "tst_consolelive_p";
    m_producer = std::make_unique<client::Producer>(po);
    QVERIFY(m_producer->start().isOk());

    m_window = std::make_unique<MainWindow>();
    m_window->resize(1400, 900);
    QVERIFY(m_window->addCluster(m_namesrvAddr, &m_cw).isOk());
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void tst_ConsoleLive::cleanupTestCase()
{
    m_window.reset();
    for (auto &c : m_consumers) {
        if (c)
            c->shutdown();
    }
    if (m_producer)
        m_producer->shutdown();
    for (Bench *b : {&m_producerBench, &m_consumerBench}) {
        b->process.kill();
        b->process.waitForFinished(5000);
    }
    if (m_broker.isRunning())
        m_broker.stop();
    if (m_namesrv.isRunning())
        m_namesrv.stop();
}

// The group's consume TPS is the broker's minute average of what it pulled: after a minute of
// steady load it is within 20 % of the broker's get TPS (the cluster view's, per second)
// averaged over the same minute, and never 0.0 while the group consumes.
void tst_ConsoleLive::groupConsumeTpsMatchesTheBrokersGetTps()
{
    ClusterSession *session = m_cw->session();
    m_cw->showView(ViewName::Consumers);
    // The load flows: the broker's get TPS is up.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const BrokerInfo *b = session->broker(m_brokerAddr);
            return b && b->getTps > kLoadTps / 4.0;
        }(),
        60000);
    const std::int64_t loadSeen = QDateTime::currentMSecsSinceEpoch();
    m_cw->consumersView()->selectGroup(kLiveGroup);
    const GroupInfo *g = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT(
        (g = session->group(kLiveGroup)) != nullptr && g->statsKnown && g->consumeTps > 0, 30000);

    // The broker's get TPS over the last minute, from the session's per-second samples.
    const auto minuteGetTps = [&] {
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        double sum = 0;
        int n = 0;
        for (const BrokerSample &s : session->history(m_brokerAddr)) {
            if (s.epochMs >= now - 60000) {
                sum += s.getTps;
                ++n;
            }
        }
        return n ? sum / n : 0.0;
    };
    // A minute (and a window sample) after the load came up, the two minute figures agree.
    QTRY_VERIFY_WITH_TIMEOUT(QDateTime::currentMSecsSinceEpoch() - loadSeen > 72000, 90000);
    double consume = 0;
    double get = 0;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            g = session->group(kLiveGroup);
            consume = g ? g->consumeTps : 0;
            get = minuteGetTps();
            return get > 0 && std::abs(consume - get) <= 0.2 * get;
        }(),
        30000);
    qInfo("group %s consume TPS %.1f, broker get TPS (1-min mean of per-second samples) %.1f",
        kLiveGroup.constData(), consume, get);

    // The same figure in the list and in the group's header line, with its age.
    GroupModel *model = m_cw->consumersView()->groupModel();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            g = session->group(kLiveGroup);
            for (int r = 0; r < model->rowCount(); ++r) {
                if (model->index(r, 0).data(SyncTableModel::KeyRole).toByteArray() == kLiveGroup)
                    return model->index(r, GroupModel::Tps).data().toString()
                        == formatRate(g->consumeTps);
            }
            return false;
        }(),
        10000);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_cw->consumersView()->titleText().contains(
            formatRate(session->group(kLiveGroup)->consumeTps) + QStringLiteral(" (1-min avg, ")),
        10000);
    QVERIFY2(!m_cw->consumersView()->titleText().contains(QStringLiteral(" 0.0 msgs/s")),
        qPrintable(m_cw->consumersView()->titleText()));
    shoot(QStringLiteral("consumers"));
}

void tst_ConsoleLive::chartAxesAreReadable()
{
    m_cw->showView(ViewName::Charts);
    ChartsView *charts = m_cw->chartsView();
    charts->setScope(ChartsView::Scope::Brokers);
    QTRY_VERIFY_WITH_TIMEOUT(charts->hasData(), 20000);
    for (TimeChart *chart : {charts->putChart(), charts->getChart()}) {
        // At ~2,500 msgs/s the ticks are in k msgs/s, and all of them are drawn whole.
        QTRY_VERIFY_WITH_TIMEOUT(chart->valueTicks().size() >= 3
                && chart->valueTicks().last().endsWith(QStringLiteral(" k msgs/s")),
            10000);
        QTest::qWait(50); // one paint of the new ticks
        const QStringList drawn = chart->renderedTexts();
        for (const QString &text : drawn)
            QVERIFY2(!text.contains(QChar(0x2026)) && !text.endsWith(QStringLiteral("...")),
                qPrintable(QStringLiteral("elided: ") + text));
        for (const QString &tick : chart->valueTicks())
            QVERIFY2(drawn.contains(tick), qPrintable(tick + QStringLiteral(" not drawn")));
        // The time axis: ages back to "now", drawn, and a title with the clock.
        QVERIFY(chart->timeTicks().size() >= 3);
        QCOMPARE(chart->timeTicks().last(), QStringLiteral("now"));
        for (const QString &tick : chart->timeTicks())
            QVERIFY2(drawn.contains(tick), qPrintable(tick + QStringLiteral(" not drawn")));
        QVERIFY(std::any_of(drawn.begin(), drawn.end(),
            [](const QString &t) { return t.startsWith(QStringLiteral("time before now")); }));
        // The legend names the broker; a point's tooltip has its exact value.
        const QString series = chart->seriesNames().value(0);
        QVERIFY(series.startsWith(QStringLiteral("live-broker")));
        QVERIFY(drawn.contains(series));
    }
    const auto &h = m_cw->session()->history(m_brokerAddr);
    QVERIFY(!h.empty());
    const BrokerSample last = h.back();
    const QString tip = charts->putChart()->pointText(
        charts->putChart()->seriesNames().value(0), static_cast<double>(last.epochMs));
    QVERIFY2(tip.contains(formatRate(last.putTps)), qPrintable(tip));
    shoot(QStringLiteral("charts"));
}

void tst_ConsoleLive::perTopicCharts()
{
    ClusterSession *session = m_cw->session();
    ChartsView *charts = m_cw->chartsView();
    charts->setScope(ChartsView::Scope::Topics);
    // Two rounds (10 s apart) for a line; the loaded topic is the busiest, checked by default.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const auto it = session->topicRates().find(kLiveTopic);
            return it != session->topicRates().end() && it->second.history.size() >= 2
                && it->second.putTps > 0 && it->second.getTps > 0;
        }(),
        40000);
    QTRY_VERIFY_WITH_TIMEOUT(charts->checkedTopics().value(0) == QString::fromUtf8(kLiveTopic)
            && charts->putChart()->seriesNames().contains(QString::fromUtf8(kLiveTopic)),
        15000);
    const TopicRates &r = session->topicRates().at(kLiveTopic);
    // The broker's minute average of what was put into the topic: near the paced rate.
    QVERIFY2(r.putTps > kLoadTps * 0.3, qPrintable(QString::number(r.putTps)));
    for (TimeChart *chart : {charts->putChart(), charts->getChart()}) {
        QTest::qWait(50);
        for (const QString &text : chart->renderedTexts())
            QVERIFY2(!text.contains(QChar(0x2026)), qPrintable(QStringLiteral("elided: ") + text));
    }
    shoot(QStringLiteral("charts-topics"));
    // Unchecking it is the operator's choice: it leaves the charts and stays out.
    charts->setCheckedTopics({});
    QCOMPARE(charts->putChart()->seriesCount(), 0);
    charts->setCheckedTopics({QString::fromUtf8(kLiveTopic)});
    QCOMPARE(charts->putChart()->seriesCount(), 1);
    charts->setScope(ChartsView::Scope::Brokers);
}

void tst_ConsoleLive::storageShowsOneDiskFigure()
{
    ClusterSession *session = m_cw->session();
    m_cw->showView(ViewName::Storage);
    StorageView *view = m_cw->storageView();
    QTRY_VERIFY_WITH_TIMEOUT(view->gaugeFor(m_brokerAddr)
            && view->gaugeFor(m_brokerAddr)->ratio() >= 0
            && !session->history(m_brokerAddr).empty(),
        20000);
    BrokerModel *brokers = m_cw->clusterView()->model();
    // Gauge, chart (the last sample) and cluster view: one figure, at one moment.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const double ratio = session->broker(m_brokerAddr)->diskRatio;
            if (view->gaugeFor(m_brokerAddr)->ratio() != ratio
                || session->history(m_brokerAddr).back().diskRatio != ratio)
                return false;
            for (int r = 0; r < brokers->rowCount(); ++r) {
                if (brokers->index(r, BrokerModel::Name).data().toString()
                    == QStringLiteral("live-broker"))
                    return brokers->index(r, BrokerModel::Disk).data().toString()
                        == formatRatio(ratio);
            }
            return false;
        }(),
        10000);
    shoot(QStringLiteral("storage"));
}

// One message of TrackTopic: TrackDone consumes it, TrackIdle consumed the one before it and
// went away; TrackDone consumed both (and committed on leaving). The detail's "Consumed by"
// says so from each group's committed offset.
void tst_ConsoleLive::consumedByNamesConsumedAndIdleGroups()
{
    auto idleCount = std::make_shared<std::atomic<int>>(0);
    m_consumers.push_back(startConsumer("TrackIdle", idleCount));
    QVERIFY(m_consumers.back());
    const protocol::MessageQueue queue {kTrackTopic, "live-broker", 0};
    QVERIFY(m_producer->sendSync(client::Message(kTrackTopic, QByteArray("before")), queue)
                .has_value());
    QTRY_COMPARE_WITH_TIMEOUT(idleCount->load(), 1, 30000);
    m_consumers.back()->shutdown(); // persists its offset (1) and leaves
    m_consumers.pop_back();

    Result<client::SendResult> sent
        = m_producer->sendSync(client::Message(kTrackTopic, QByteArray("tracked")), queue);
    QVERIFY(sent.has_value());
    auto doneCount = std::make_shared<std::atomic<int>>(0);
    m_consumers.push_back(startConsumer("TrackDone", doneCount));
    QVERIFY(m_consumers.back());
    QTRY_COMPARE_WITH_TIMEOUT(doneCount->load(), 2, 30000);
    // Its offset (2) committed at once: the periodic commit of a push consumer whose next pull
    // long-polls the empty queue was not seen at the broker within 90 s here (reported).
    m_consumers.back()->shutdown();
    m_consumers.pop_back();

    m_cw->showView(ViewName::Messages);
    MessagesView *view = m_cw->messagesView();
    using State = MessagesView::ConsumedBy::State;
    const auto stateOf = [&](const QByteArray &group) -> int {
        for (const auto &c : view->consumedBy()) {
            if (c.group == group)
                return static_cast<int>(c.state);
        }
        return -1;
    };
    // Ask again until the committed offsets show.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            view->queryById(kTrackTopic, sent->msgId);
            const bool ready = waitUntil([&] { return view->consumedByReady(); }, 5000);
            for (const auto &c : view->consumedBy())
                qInfo("consumed by: %s state %d: %s", c.group.constData(),
                    static_cast<int>(c.state), qPrintable(c.text));
            return ready && stateOf("TrackDone") == static_cast<int>(State::Consumed);
        }(),
        30000);
    QCOMPARE(stateOf("TrackIdle"), static_cast<int>(State::NotYet));
    for (const auto &c : view->consumedBy()) {
        if (c.group == "TrackIdle")
            QCOMPARE(c.committedOffset, 1LL); // the message is at offset 1
    }
    // The table says it in words.
    QTableWidget *table = view->consumedByTable();
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r)
        rows << table->item(r, 0)->text() + QLatin1Char('=') + table->item(r, 1)->text();
    QVERIFY2(rows.contains(QStringLiteral("TrackDone=✔ consumed"))
            && rows.contains(QStringLiteral("TrackIdle=not consumed yet")),
        qPrintable(rows.join(QLatin1Char(' '))));
    if (auto *tabs = qobject_cast<QTabWidget *>(table->parentWidget()->parentWidget()))
        tabs->setCurrentWidget(table);
    shoot(QStringLiteral("messages-consumedby"));
}

QTEST_MAIN(tst_ConsoleLive)
#include "tst_consolelive.moc"
