// Timer messages with qrocket-broker (and qrocket-namesrv) as real processes: a TIMER_DELAY_MS
// send is delivered within [0, +1 s] of due with TIMER_ENQUEUE_MS/TIMER_DEQUEUE_MS and its keys;
// the send answers a recall handle and RECALL_MESSAGE (370) cancels it; a recall after due and a
// bad handle get RocketMQ's ILLEGAL_OPERATION; times beyond timerMaxDelaySec or overflowing are
// refused (MESSAGE_ILLEGAL); GET_TIMER_CHECK_POINT / GET_TIMER_METRICS and the runtime info
// answer; and kill -9 at random moments while messages fall due loses none, delivers none twice
// and none early (TIMER_KILL_CYCLES cycles, 3 by default; the `slow` registration runs 20).

#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/singlebrokerfixture.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <map>
#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

class tst_TimerDaemon final : public QObject, private SingleBrokerFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void delayedSendDeliveredOnTime();
    void recallAndRefusals();
    void kill9WhileMessagesFallDue();

private:
    bool startBroker(DaemonProcess &broker, const QString &store);
    std::vector<QByteArray> pullAll(const QByteArray &topic, std::int64_t from,
        std::vector<std::map<QByteArray, QByteArray>> *got = nullptr);
};

bool tst_TimerDaemon::startBroker(DaemonProcess &broker, const QString &store)
{
    return SingleBrokerFixture::startBroker(broker, store, "broker-t",
        "mappedFileSizeConsumeQueue=600000\nrecallMessageEnable=true\n"
        "mappedFileSizeTimerLog=1048576\n");
}

std::vector<QByteArray> tst_TimerDaemon::pullAll(
    const QByteArray &topic, std::int64_t from, std::vector<std::map<QByteArray, QByteArray>> *got)
{
    std::vector<QByteArray> keys;
    std::int64_t offset = from;
    for (int i = 0; i < 10000; ++i) {
        const RemotingCommand p = call(request(11,
            {{"consumerGroup", "G_timer"}, {"topic", topic}, {"queueId", "0"},
                {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"},
                {"commitOffset", "0"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
                {"subVersion", "0"}}));
        if (p.code != 0)
            break;
        const auto recs = records(p.body);
        if (recs.empty())
            break;
        for (const auto &r : recs) {
            keys.push_back(protocol::findProperty(r.properties, "UNIQ_KEY").toByteArray());
            if (got) {
                std::map<QByteArray, QByteArray> m;
                for (const char *k : {"TIMER_DELIVER_MS", "TIMER_DEQUEUE_MS", "TIMER_ENQUEUE_MS",
                         "KEYS", "TAGS", "TIMER_OUT_MS"})
                    m[k] = protocol::findProperty(r.properties, k).toByteArray();
                got->push_back(std::move(m));
            }
            offset = r.queueOffset + 1;
        }
    }
    return keys;
}

void tst_TimerDaemon::initTestCase()
{
    if (const QString missing = missingDaemons(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QString error = startNamesrv();
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void tst_TimerDaemon::cleanupTestCase()
{
    stopNamesrv();
}

void tst_TimerDaemon::delayedSendDeliveredOnTime()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, path(QStringLiteral("store1"))));
    QCOMPARE(call(sendV2("TimerTopic", 0, "warm-up", props({{"UNIQ_KEY", "W"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("TimerTopic", 0), 1, 5000);
    const std::int64_t sent = QDateTime::currentMSecsSinceEpoch();
    const RemotingCommand r = call(sendV2("TimerTopic", 0, "later",
        props(
            {{"TAGS", "t1"}, {"KEYS", "key-1"}, {"UNIQ_KEY", "U1"}, {"TIMER_DELAY_MS", "2000"}})));
    QCOMPARE(r.code, 0);
    QVERIFY(r.ext("recallHandle") && !r.ext("recallHandle")->isEmpty());
    QCOMPARE(maxOffset("TimerTopic", 0), 1); // parked, not delivered yet
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("TimerTopic", 0), 2, 6000);
    std::vector<std::map<QByteArray, QByteArray>> got;
    const auto keys = pullAll("TimerTopic", 1, &got);
    QCOMPARE(keys.size(), std::size_t(1));
    QCOMPARE(keys[0], QByteArray("U1"));
    QCOMPARE(got[0]["KEYS"], QByteArray("key-1"));
    QCOMPARE(got[0]["TAGS"], QByteArray("t1"));
    const std::int64_t dequeue = got[0]["TIMER_DEQUEUE_MS"].toLongLong();
    QVERIFY(got[0]["TIMER_ENQUEUE_MS"].toLongLong() >= sent - 1000);
    const std::int64_t late = dequeue - (sent + 2000);
    // `sent` is taken before the request: the broker's due time is a little later.
    QVERIFY2(late >= 0 && late <= 1000 + 200,
        qPrintable(QStringLiteral("delivered %1 ms after due").arg(late)));
    // Timer admin codes and the runtime info.
    const RemotingCommand cp = call(request(60));
    QCOMPARE(cp.code, 0);
    // RocketMQ's 56 bytes (7 longs), then the fire mark of a slot already fired (40 bytes:
    // timersuccession.h; RocketMQ's TimerCheckpoint.decode ignores them).
    QCOMPARE(cp.body.size(), 56 + 40);
    const RemotingCommand metrics = call(request(61));
    QCOMPARE(metrics.code, 0);
    QVERIFY(protocol::parseJson(metrics.body).has_value());
    const RemotingCommand runtime = call(request(28));
    QCOMPARE(runtime.code, 0);
    auto table = protocol::parseJson(runtime.body);
    QVERIFY(table.has_value());
    QCOMPARE(table.value()["table"]["timerBacklog"].toString(), QByteArray("0"));
    QVERIFY(!table.value()["table"]["timerReadBehind"].toString().isEmpty());
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
}

void tst_TimerDaemon::recallAndRefusals()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, path(QStringLiteral("store2"))));
    QCOMPARE(call(sendV2("RecallT", 0, "warm-up", props({{"UNIQ_KEY", "W"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("RecallT", 0), 1, 5000);
    const RemotingCommand a
        = call(sendV2("RecallT", 0, "a", props({{"UNIQ_KEY", "RA"}, {"TIMER_DELAY_SEC", "3"}})));
    QCOMPARE(a.code, 0);
    const RemotingCommand b
        = call(sendV2("RecallT", 0, "b", props({{"UNIQ_KEY", "RB"}, {"TIMER_DELAY_SEC", "3"}})));
    QCOMPARE(b.code, 0);
    const QByteArray handleA = *a.ext("recallHandle");
    const RemotingCommand recalled
        = call(request(370, {{"topic", "RecallT"}, {"recallHandle", handleA}}));
    QCOMPARE(recalled.code, 0);
    QCOMPARE(recalled.extString("msgId"), QByteArrayView("RA"));
    // Wrong topic, bad handle: ILLEGAL_OPERATION (604).
    QCOMPARE(call(request(370, {{"topic", "TBW102"}, {"recallHandle", handleA}})).code, 604);
    const RemotingCommand bad = call(request(370, {{"topic", "RecallT"}, {"recallHandle", "xx"}}));
    QCOMPARE(bad.code, 604);
    QCOMPARE(bad.remark, QByteArray("recall handle is invalid"));
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("RecallT", 0), 2, 7000);
    QTest::qWait(1500); // A must not follow
    QCOMPARE(maxOffset("RecallT", 0), 2);
    const auto keys = pullAll("RecallT", 1);
    QCOMPARE(keys, std::vector<QByteArray> {QByteArray("RB")});
    // B was delivered: recalling it now is too late.
    const RemotingCommand late
        = call(request(370, {{"topic", "RecallT"}, {"recallHandle", *b.ext("recallHandle")}}));
    QCOMPARE(late.code, 604);
    QCOMPARE(late.remark, QByteArray("recall failed, timestamp invalid"));
    // Refusals: beyond timerMaxDelaySec (3 days), and an overflowing delay (#10872).
    const std::int64_t fourDays = QDateTime::currentMSecsSinceEpoch() + 4LL * 86400 * 1000;
    const RemotingCommand far = call(sendV2("RecallT", 0, "far",
        props(
            {{"UNIQ_KEY", "F"}, {"TIMER_DELIVER_MS", QByteArray::number(fourDays).constData()}})));
    QCOMPARE(far.code, 13);
    QVERIFY(far.remark.startsWith("timer message illegal"));
    const RemotingCommand overflow = call(sendV2("RecallT", 0, "overflow",
        props({{"UNIQ_KEY", "O"}, {"TIMER_DELAY_SEC", "9223372036854775807"}})));
    QCOMPARE(overflow.code, 13);
    // A time in the past: delivered at once.
    QCOMPARE(
        call(sendV2("RecallT", 0, "past", props({{"UNIQ_KEY", "P"}, {"TIMER_DELIVER_MS", "1000"}})))
            .code,
        0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("RecallT", 0), 3, 3000);
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
}

void tst_TimerDaemon::kill9WhileMessagesFallDue()
{
    const int cycles = qEnvironmentVariableIntValue("TIMER_KILL_CYCLES") > 0
        ? qEnvironmentVariableIntValue("TIMER_KILL_CYCLES")
        : 3;
    const QString store = path(QStringLiteral("store3"));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, store));
    QCOMPARE(call(sendV2("KillT", 0, "warm-up", props({{"UNIQ_KEY", "W"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("KillT", 0), 1, 5000);
    // Messages due over the whole run: ~1.3 s per cycle, several per second of it.
    const std::int64_t start = QDateTime::currentMSecsSinceEpoch();
    const std::int64_t window = 1500 + cycles * 1300LL;
    constexpr int kPerSecond = 40;
    const int count = static_cast<int>(window / 1000 * kPerSecond);
    std::map<QByteArray, std::int64_t> due;
    for (int i = 0; i < count; ++i) {
        const QByteArray key = "K" + QByteArray::number(i);
        const std::int64_t at
            = start + 1500 + static_cast<std::int64_t>(i) * (window - 1500) / count;
        due[key] = at;
        const RemotingCommand r = call(sendV2("KillT", 0, "m" + key,
            props({{"UNIQ_KEY", key.constData()},
                {"TIMER_DELIVER_MS", QByteArray::number(at).constData()}})));
        QCOMPARE(r.code, 0);
    }
    auto *rng = QRandomGenerator::global();
    for (int c = 0; c < cycles; ++c) {
        QThread::msleep(300 + rng->bounded(900));
        broker.kill();
        QVERIFY(startBroker(broker, store));
    }
    const std::int64_t end = start + window + 1500;
    while (QDateTime::currentMSecsSinceEpoch() < end)
        QThread::msleep(100);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("KillT", 0), 1 + count, 10000);
    std::vector<std::map<QByteArray, QByteArray>> got;
    const auto keys = pullAll("KillT", 1, &got);
    QCOMPARE(keys.size(), std::size_t(count));
    std::set<QByteArray> once;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        QVERIFY2(once.insert(keys[i]).second, ("twice: " + keys[i]).constData());
        const std::int64_t dequeue = got[i]["TIMER_DEQUEUE_MS"].toLongLong();
        QVERIFY2(dequeue >= due[keys[i]],
            qPrintable(QStringLiteral("%1 early by %2 ms")
                           .arg(QString::fromUtf8(keys[i]))
                           .arg(due[keys[i]] - dequeue)));
    }
    QCOMPARE(once.size(), std::size_t(count));
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
}

QTEST_GUILESS_MAIN(tst_TimerDaemon)
#include "tst_timerdaemon.moc"
