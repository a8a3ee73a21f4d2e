// tst_ConsoleTrace: the message detail's "Trace" tab (console/gui/tracetimeline.h), offscreen.
// The timeline from hand-built records (a failed delivery and its retry, a transaction end),
// then live: an embedded cluster with traceTopicEnable, a producer and a push consumer with
// enableMsgTrace, and the Messages view's detail of the message drawing sent -> stored ->
// delivered -> consumed in their lanes; then a consumer that always fails with maxReconsumeTimes
// 1: its message goes to %DLQ%<group> (the broker's retry delays shortened to 1 s) and the
// timeline draws the DLQ step from the %DLQ% lookup (RocketMQ's trace records have no DLQ record).

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
    void timelineDrawsTheDlqStep();
    void messageDetailDrawsTheTrace();
    void messageDetailDrawsTheDlqStep();
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

void tst_ConsoleTrace::timelineDrawsTheDlqStep()
{
    std::vector<client::MessageTraceView> views {
        view(TraceType::Pub, 1000, "PG"),
        view(TraceType::SubBefore, 1100, "CG", true, 0, "R1"),
        view(TraceType::SubAfter, 1105, "CG", false, 0, "R1"),
        view(TraceType::SubBefore, 2100, "CG", true, 1, "R2"),
        view(TraceType::SubAfter, 2104, "CG", false, 0, "R2"),
        // Another group consumed it: not a DLQ candidate.
        view(TraceType::SubBefore, 1200, "OK", true, 0, "R3"),
        view(TraceType::SubAfter, 1201, "OK", true, 0, "R3"),
    };
    const std::vector<TraceTimeline::FailedGroup> failed = TraceTimeline::failedGroups(views);
    QCOMPARE(failed.size(), std::size_t(1));
    QCOMPARE(failed[0].group, QByteArray("CG"));
    QCOMPARE(failed[0].lastRetry, 1);
    QCOMPARE(failed[0].failedAt, 2104);

    TraceTimeline t;
    t.resize(1000, 260);
    t.setTrace(nullptr, views);
    // Found in %DLQ%CG: the step at the DLQ copy's store time, on the group's lane.
    TraceTimeline::DeadLetter found;
    found.failed = failed[0];
    found.found = true;
    found.storeTimestamp = 2110;
    found.where = "broker-a";
    t.setDeadLetters({found});
    const TraceTimeline::Event &last = t.events().back();
    QVERIFY(last.deadLetter);
    QCOMPARE(last.timestamp, 2110);
    QCOMPARE(last.lane, QStringLiteral("consumer CG"));
    QCOMPARE(last.label, QStringLiteral("to %DLQ%CG on broker-a after retry 1"));
    // The last failure no longer claims a redelivery; the first still does.
    const auto &e = t.events();
    const auto lastFailure = std::find_if(e.rbegin(), e.rend(),
        [](const TraceTimeline::Event &x) { return x.failed && !x.deadLetter; });
    QVERIFY2(lastFailure->label.contains(QStringLiteral("retries used up")),
        qPrintable(lastFailure->label));
    QCOMPARE(std::count_if(e.begin(), e.end(),
                 [](const TraceTimeline::Event &x) {
                     return x.label.contains(QStringLiteral("%RETRY%CG"));
                 }),
        1);
    const QImage image = t.grab().toImage();
    QVERIFY(pixelsLike(image, QColor(0x9c, 0x27, 0xb0)) > 60); // the purple square
    QVERIFY(image.save(guitest::screenshotDir() + QStringLiteral("/trace-dlq-records.png")));

    // Not found, retries reached retryMaxTimes 1: derived, and said so.
    TraceTimeline::DeadLetter derived;
    derived.failed = failed[0];
    derived.maxReconsumeTimes = 1;
    derived.lookupError = QStringLiteral("not in %DLQ%");
    t.setDeadLetters({derived});
    QCOMPARE(std::count_if(t.events().begin(), t.events().end(),
                 [](const TraceTimeline::Event &x) { return x.deadLetter; }),
        1);
    QVERIFY2(t.events().back().label.contains(QStringLiteral("derived: retry 1 reached "
                                                             "retryMaxTimes 1")),
        qPrintable(t.events().back().label));
    // Not found, retries below retryMaxTimes (16 when unknown): no DLQ step.
    derived.maxReconsumeTimes = -1;
    t.setDeadLetters({derived});
    QVERIFY(std::none_of(t.events().begin(), t.events().end(),
        [](const TraceTimeline::Event &x) { return x.deadLetter; }));
}

void tst_ConsoleTrace::messageDetailDrawsTheTrace()
{
    EmbeddedClusterOptions o;
    o.brokerCount = 1;
    o.configureBroker = [](int, broker::BrokerConfig &c, storage::MessageStoreConfig &s) {
        c.traceTopicEnable = true;
        // Retries one second apart (level 3 is the first retry's), so that a message uses up
        // its retries within the test.
        const QString fast = QStringLiteral("1s ").repeated(17) + QStringLiteral("1s");
        c.messageDelayLevel = fast;
        s.messageDelayLevel = fast;
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

void tst_ConsoleTrace::messageDetailDrawsTheDlqStep()
{
    QVERIFY(m_cluster);
    QVERIFY(m_cluster->createTopic(QStringLiteral("DlqTopic"), 1).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("DlqTopic")).isOk());
    client::ClientConfig cc;
    cc.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    cc.clientIP = "127.0.0.1";
    client::ProducerOptions po;
    po.group = "trace-dlq-p";
    po.client = cc;
    po.enableMsgTrace = true;
    client::Producer producer(po);
    QVERIFY(producer.start());
    auto sent = producer.sendSync(client::Message("DlqTopic", "TagD", "dlq-key", "doomed"));
    QVERIFY2(sent, qPrintable(sent.status().toString()));
    producer.shutdown();

    // Fails every delivery; one retry allowed, so the second failure goes to %DLQ%.
    client::PushConsumerOptions co;
    co.group = "trace-dlq-c";
    co.client = cc;
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    co.consumeThreadMin = co.consumeThreadMax = 1;
    co.maxReconsumeTimes = 1;
    co.enableMsgTrace = true;
    client::PushConsumer consumer(co);
    QVERIFY(consumer.subscribe("DlqTopic"));
    std::atomic<int> deliveries {0};
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            deliveries += static_cast<int>(msgs.size());
            return client::ConsumeConcurrentlyStatus::ReconsumeLater;
        });
    QVERIFY(consumer.start());
    client::AdminOptions ao;
    ao.client = cc;
    client::Admin admin(ao);
    QVERIFY(admin.start());
    QTRY_VERIFY_WITH_TIMEOUT(
        admin.queryMessageByUniqueKey("%DLQ%trace-dlq-c", sent->msgId).has_value(), 40000);
    QCOMPARE(deliveries.load(), 2);
    consumer.shutdown(); // flushes the traces
    // Pub + two deliveries (SubBefore + SubAfter each).
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            auto r = admin.queryMessageTrace(sent->msgId);
            return r && r->size() == 5;
        }(),
        15000);
    admin.shutdown();

    ClusterWidget cw(m_cluster->namesrvAddress());
    QVERIFY(cw.start().isOk());
    cw.resize(1200, 800);
    cw.show();
    cw.showView(ViewName::Messages);
    MessagesView *v = cw.messagesView();
    v->queryById("DlqTopic", sent->msgId);
    QTRY_COMPARE_WITH_TIMEOUT(v->model()->rowCount(), 1, 10000);
    v->table()->setCurrentIndex(v->table()->model()->index(0, 0));
    QTRY_VERIFY_WITH_TIMEOUT(v->traceReady(), 10000);
    v->showTraceTab();
    TraceTimeline *t = v->traceTimeline();
    const std::vector<TraceTimeline::Event> &e = t->events();
    QCOMPARE(e.size(), std::size_t(7)); // sent, stored, 2 x (delivered, failed), to the DLQ
    QCOMPARE(t->lanes().back(), QStringLiteral("consumer trace-dlq-c"));
    const TraceTimeline::Event &dlq = e.back();
    QVERIFY(dlq.deadLetter);
    QCOMPARE(dlq.lane, QStringLiteral("consumer trace-dlq-c"));
    // Found by the lookup (not derived): at the DLQ copy's store time, after the last failure.
    QVERIFY2(
        dlq.label.startsWith(QStringLiteral("to %DLQ%trace-dlq-c on ")), qPrintable(dlq.label));
    QVERIFY2(dlq.label.endsWith(QStringLiteral("after retry 1")), qPrintable(dlq.label));
    QVERIFY(dlq.timestamp >= e[e.size() - 2].timestamp);
    QVERIFY(e[e.size() - 2].failed);
    QVERIFY(t->isVisible());
    const QImage shot = cw.grab().toImage();
    QVERIFY(pixelsLike(shot, QColor(0x9c, 0x27, 0xb0)) > 60);
    QVERIFY(pixelsLike(shot, QColor(0xd3, 0x2f, 0x2f)) > 20);
    QVERIFY(shot.save(guitest::screenshotDir() + QStringLiteral("/message-trace-dlq.png")));
}

QTEST_MAIN(tst_ConsoleTrace)
#include "tst_consoletrace.moc"
