// qrocket-broker (with qrocket-namesrv) as real processes: a delayed message is delivered within
// 1 s of its due time (short delay levels), a pending delayed message survives a clean restart,
// and the admin / send-back processors answer over a socket.

#include "clientlib/protocol/json.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/singlebrokerfixture.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

class tst_ScheduleDaemon final : public QObject, private SingleBrokerFixture
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void delayedMessageDeliveredWithinOneSecondOfDue();
    void pendingDelayedMessageSurvivesRestart();
    void adminAndSendBackOverSocket();

private:
    bool startBroker(DaemonProcess &broker, const QString &store);
};

bool tst_ScheduleDaemon::startBroker(DaemonProcess &broker, const QString &store)
{
    return SingleBrokerFixture::startBroker(broker, store, "broker-x",
        "mappedFileSizeConsumeQueue=60000\nmessageDelayLevel=1s 2s 3s\n");
}

void tst_ScheduleDaemon::initTestCase()
{
    if (const QString missing = missingDaemons(); !missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QString error = startNamesrv();
    QVERIFY2(error.isEmpty(), qPrintable(error));
}

void tst_ScheduleDaemon::cleanupTestCase()
{
    stopNamesrv();
}

void tst_ScheduleDaemon::delayedMessageDeliveredWithinOneSecondOfDue()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, path(QStringLiteral("store1"))));
    // Create the topic first (auto-create), then send with DELAY=2 (2 s).
    QCOMPARE(call(sendV2("DelayTopic", 0, "warm-up", props({{"TAGS", "t"}}))).code, 0);
    // The consume queue is written by the reput thread just after the send is acknowledged.
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("DelayTopic", 0), 1, 5000);
    const std::int64_t sent = QDateTime::currentMSecsSinceEpoch();
    const RemotingCommand r
        = call(sendV2("DelayTopic", 0, "later", props({{"TAGS", "t"}, {"DELAY", "2"}})));
    QCOMPARE(r.code, 0);
    QCOMPARE(maxOffset("DelayTopic", 0), 1); // parked, not delivered yet
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("DelayTopic", 0), 2, 6000);
    const std::int64_t late = QDateTime::currentMSecsSinceEpoch() - sent - 2000;
    QVERIFY2(late > -150 && late < 1000,
        qPrintable(QStringLiteral("delivered %1 ms after due").arg(late)));
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
}

void tst_ScheduleDaemon::pendingDelayedMessageSurvivesRestart()
{
    const QString store = path(QStringLiteral("store2"));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, store));
    QCOMPARE(call(sendV2("DelayR", 0, "x", props({{"TAGS", "t"}}))).code, 0);
    QCOMPARE(call(sendV2("DelayR", 0, "pending", props({{"TAGS", "t"}, {"DELAY", "3"}}))).code, 0);
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
    QCOMPARE(QFile::exists(store + QStringLiteral("/config/delayOffset.json")), true);

    DaemonProcess again(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(again, store));
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("DelayR", 0), 2, 8000);
    // Delivered once, not again after its offset was persisted.
    QVERIFY2(again.stop() == 0, again.output().right(6000).constData());
    DaemonProcess third(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(third, store));
    QCOMPARE(maxOffset("DelayR", 0), 2);
    QVERIFY2(third.stop() == 0, third.output().right(6000).constData());
}

void tst_ScheduleDaemon::adminAndSendBackOverSocket()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(broker, path(QStringLiteral("store3"))));
    const RemotingCommand created = call(request(17,
        {{"topic", "AdminT"}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
            {"writeQueueNums", "2"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}}));
    QCOMPARE(created.code, 0);
    const RemotingCommand sent
        = call(sendV2("AdminT", 1, "hello", props({{"TAGS", "a"}, {"KEYS", "key1"}})));
    QCOMPARE(sent.code, 0);

    const RemotingCommand stats = call(request(202, {{"topic", "AdminT"}}));
    QCOMPARE(stats.code, 0);
    QVERIFY(stats.body.startsWith("{\"offsetTable\":{{\"brokerName\":\"broker-x\""));

    const RemotingCommand runtime = call(request(28));
    QCOMPARE(runtime.code, 0);
    auto table = protocol::parseJson(runtime.body);
    QVERIFY(table.has_value());
    QCOMPARE(table.value()["table"]["brokerVersionDesc"].toString(), QByteArray("V4_9_7"));

    // Send the message back: it goes to SCHEDULE_TOPIC_XXXX (level 3 clamped to the max, 3).
    // The index is written by the reput thread after the send is acknowledged: query until the
    // key is there (bounded).
    int queryCode = -1;
    std::int64_t phyOffset = -1;
    auto queryKey = [&] {
        const RemotingCommand view = call(request(12,
            {{"topic", "AdminT"}, {"key", "key1"}, {"maxNum", "32"}, {"beginTimestamp", "0"},
                {"endTimestamp", "9223372036854775807"}}));
        const auto recs = records(view.body);
        queryCode = view.code;
        phyOffset = recs.empty() ? -1 : recs.front().physicalOffset;
        return queryCode == 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(queryKey(), 5000);
    QCOMPARE(queryCode, 0);
    QVERIFY(phyOffset >= 0);
    const RemotingCommand back
        = call(request(36, {{"offset", num(phyOffset)}, {"group", "GX"}, {"delayLevel", "0"}}));
    QCOMPARE(back.code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("SCHEDULE_TOPIC_XXXX", 2), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("%RETRY%GX", 0), 1, 8000);
    QVERIFY2(broker.stop() == 0, broker.output().right(6000).constData());
}

QTEST_GUILESS_MAIN(tst_ScheduleDaemon)
#include "tst_scheduledaemon.moc"
