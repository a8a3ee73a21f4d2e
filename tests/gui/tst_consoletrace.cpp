// tst_ConsoleTrace: the message detail's "Trace" tab (console/gui/tracetimeline.h), offscreen.
// The timeline from hand-built records (a failed delivery and its retry, a transaction end),
// then live: an embedded cluster with traceTopicEnable, a producer and a push consumer with
// enableMsgTrace, and the Messages view's detail of the message drawing sent -> stored ->
// delivered -> consumed in their lanes.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/pushconsumer.h"
#include "console/gui/clusterwidget.h"
#include "console/gui/messagemodel.h"
#include "console/gui/messagesview.h"
#include "console/gui/style.h"
#include "console/gui/tracetimeline.h"
#include "tests/gui/guitestutil.h"

#include <QApplication>
#include <QImage>
#include <QTableView>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::console;
using protocol::trace::TraceType;

namespace {

client::MessageTraceView view(TraceType type, std::int64_t ts, const char *group, bool ok = true,
    int retry = 0, const char *requestId = "")
{
    client::MessageTraceView v;
    v.record.type = type;
    v.record.timestamp = ts;
    v.record.groupName = group;
    v.record.success = ok;
    v.record.retryTimes = retry;
    v.record.requestId = requestId;
    v.record.msgId = "M";
    v.record.costTime = 3;
    v.record.storeHost = "127.0.0.1:10911";
    v.clientHost = "127.0.0.1";
    return v;
}

/// Pixels of roughly `color` in `image`.
int pixelsLike(const QImage &image, QColor color)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) < 30 && std::abs(c.green() - color.green()) < 30
                && std::abs(c.blue() - color.blue()) < 30)
                ++n;
        }
    }
    return n;
}

} // namespace

class tst_ConsoleTrace : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void timelineFromRecords();
    void messageDetailDrawsTheTrace();
    void cleanupTestCase();

private:
    std::unique_ptr<EmbeddedCluster> m_cluster;
};

void tst_ConsoleTrace::initTestCase()
{
    guitest::isolateSettings("tst_consoletrace");
    initConsoleResources();
}

void tst_ConsoleTrace::cleanupTestCase()
{
    m_cluster.reset();
}

void tst_ConsoleTrace::timelineFromRecords()
{
    TraceTimeline t;
    t.resize(900, 240);
    t.setTrace(nullptr, {});
    QVERIFY(t.events().empty());
    QVERIFY(t.note().contains(QStringLiteral("traceTopicEnable")));

    // Out of order on purpose: the timeline sorts by time.
    std::vector<client::MessageTraceView> views {
        view(TraceType::SubAfter, 1300, "CG", true, 0, "R2"),
        view(TraceType::Pub, 1000, "PG"),
        view(TraceType::SubBefore, 1100, "CG", true, 0, "R1"),
        view(TraceType::SubAfter, 1105, "CG", false, 0, "R1"),
        view(TraceType::SubBefore, 1290, "CG", true, 1, "R2"),
        view(TraceType::EndTransaction, 1010, "PG"),
    };
    views[5].record.transactionState = "COMMIT_MESSAGE";
    t.setTrace(nullptr, views);
    QVERIFY(t.note().isEmpty());
    QCOMPARE(t.lanes(),
        (std::vector<QString> {QStringLiteral("producer PG"), QStringLiteral("consumer CG")}));
    const std::vector<TraceTimeline::Event> &e = t.events();
    QCOMPARE(e.size(), std::size_t(6));
    for (std::size_t i = 1; i < e.size(); ++i)
        QVERIFY(e[i - 1].timestamp <= e[i].timestamp);
    QVERIFY(e[0].label.startsWith(QStringLiteral("sent from 127.0.0.1")));
    QCOMPARE(e[1].label, QStringLiteral("transaction COMMIT_MESSAGE"));
    QCOMPARE(e[2].label, QStringLiteral("delivered to 127.0.0.1"));
    QVERIFY(e[3].failed);
    QVERIFY2(e[3].label.contains(QStringLiteral("%RETRY%CG")), qPrintable(e[3].label));
    QCOMPARE(e[4].label, QStringLiteral("delivered to 127.0.0.1 (retry 1)"));
    QCOMPARE(e[5].label, QStringLiteral("consumed in 3 ms"));
    QVERIFY(!e[5].failed);
    // Drawn: green dots for the good steps, a red one for the failure.
    const QImage image = t.grab().toImage();
    QVERIFY(pixelsLike(image, QColor(0x38, 0x8e, 0x3c)) > 20);
    QVERIFY(pixelsLike(image, QColor(0xd3, 0x2f, 0x2f)) > 20);
}

void tst_ConsoleTrace::messageDetailDrawsTheTrace()
{
    EmbeddedClusterOptions o;
    o.brokerCount = 1;
    o.configureBroker = [](int, broker::BrokerConfig &c, storage::MessageStoreConfig &) {
        c.traceTopicEnable = true;
    };
    m_cluster = std::make_unique<EmbeddedCluster>(o);
    QVERIFY(m_cluster->start());
    QVERIFY(m_cluster->createTopic(QStringLiteral("TracedTopic"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("TracedTopic")).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("RMQ_SYS_TRACE_TOPIC")).isOk());
    client::ClientConfig cc;
    cc.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    cc.clientIP = "127.0.0.1";

    client::ProducerOptions po;
    po.group = "trace-gui-p";
    po.client = cc;
    po.enableMsgTrace = true;
    client::Producer producer(po);
    QVERIFY(producer.start());
    auto sent = producer.sendSync(client::Message("TracedTopic", "TagT", "gui-key", "traced"));
    QVERIFY2(sent, qPrintable(sent.status().toString()));
    client::PushConsumerOptions co;
    co.group = "trace-gui-c";
    co.client = cc;
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    co.consumeThreadMin = co.consumeThreadMax = 1;
    co.enableMsgTrace = true;
    client::PushConsumer consumer(co);
    QVERIFY(consumer.subscribe("TracedTopic"));
    std::atomic<int> consumed {0};
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            consumed += static_cast<int>(msgs.size());
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start());
    QTRY_COMPARE_WITH_TIMEOUT(consumed.load(), 1, 20000);
    consumer.shutdown(); // flushes the traces
    producer.shutdown();
    // The broker's index has the three records before the view asks.
    {
        client::AdminOptions ao;
        ao.client = cc;
        client::Admin admin(ao);
        QVERIFY(admin.start());
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto r = admin.queryMessageTrace(sent->msgId);
                return r && r->size() == 3;
            }(),
            15000);
        admin.shutdown();
    }

    ClusterWidget cw(m_cluster->namesrvAddress());
    QVERIFY(cw.start().isOk());
    cw.resize(1200, 800);
    cw.show();
    cw.showView(ViewName::Messages);
    MessagesView *v = cw.messagesView();
    v->queryById("TracedTopic", sent->msgId);
    QTRY_COMPARE_WITH_TIMEOUT(v->model()->rowCount(), 1, 10000);
    v->table()->setCurrentIndex(v->table()->model()->index(0, 0));
    QTRY_VERIFY_WITH_TIMEOUT(v->traceReady(), 10000);
    v->showTraceTab();
    TraceTimeline *t = v->traceTimeline();
    QVERIFY2(t->note().isEmpty(), qPrintable(t->note()));
    QCOMPARE(t->lanes().size(), std::size_t(3));
    QCOMPARE(t->lanes()[0], QStringLiteral("producer trace-gui-p"));
    QVERIFY2(t->lanes()[1].startsWith(QStringLiteral("broker ")), qPrintable(t->lanes()[1]));
    QCOMPARE(t->lanes()[2], QStringLiteral("consumer trace-gui-c"));
    const std::vector<TraceTimeline::Event> &e = t->events();
    QCOMPARE(e.size(), std::size_t(4)); // sent, stored, delivered, consumed
    QVERIFY(e[0].label.startsWith(QStringLiteral("sent"))
        || e[0].label.startsWith(QStringLiteral("stored")));
    QVERIFY(e[2].label.startsWith(QStringLiteral("delivered")));
    QVERIFY(e[3].label.startsWith(QStringLiteral("consumed")));
    // The Messages page with the detail's Trace tab is what the picture shows: the live
    // trace's dots are drawn (green, nothing failed).
    QCOMPARE(cw.currentView(), ViewName::Messages);
    QVERIFY(t->isVisible());
    const QImage shot = cw.grab().toImage();
    QVERIFY(pixelsLike(shot, QColor(0x38, 0x8e, 0x3c)) > 20);
    QCOMPARE(pixelsLike(shot, QColor(0xd3, 0x2f, 0x2f)), 0);
    const QString file = guitest::screenshotDir() + QStringLiteral("/message-trace.png");
    QVERIFY(shot.save(file));
}

QTEST_MAIN(tst_ConsoleTrace)
#include "tst_consoletrace.moc"
