// qrocket-broker as a real process (with a real qrocket-namesrv): command line, bad config and
// busy port, clean restart (SIGTERM) with messages, offsets, topics, groups and a pending delayed
// message, kill -9 under SYNC_FLUSH (every acknowledged send survives), and a disk filled past
// diskSpaceWarningLevelRatio (as `df` counts it) refusing sends until it is freed.

#include "clientlib/protocol/json.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

class tst_BrokerDaemon final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void commandLine();
    void badConfigAndBusyPort();
    void restartKeepsEverything();
    void kill9WithSyncFlushKeepsAcknowledgedSends();
    void diskFullRefusesSendsUntilFreed();

private:
    QByteArray brokerConf(const QString &store, quint16 port, const QByteArray &extra = {}) const;
    bool startBroker(
        DaemonProcess &broker, const QString &store, quint16 &port, const QByteArray &extra = {});
    RemotingCommand call(quint16 port, RemotingCommand req);
    std::int64_t maxOffset(quint16 port, const QByteArray &topic, int queueId);
    /// GET_BROKER_RUNTIME_INFO's value of `key` ("" when the call fails).
    QByteArray runtimeValue(quint16 port, const char *key);

    QTemporaryDir m_dir;
    std::unique_ptr<DaemonProcess> m_namesrv;
    quint16 m_nsPort = 0;
    remoting::RemotingClient m_client;
};

QByteArray tst_BrokerDaemon::brokerConf(
    const QString &store, quint16 port, const QByteArray &extra) const
{
    return "brokerName=broker-sys\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort)
        + "\nstorePathRootDir=" + store.toUtf8()
        + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n" + extra;
}

bool tst_BrokerDaemon::startBroker(
    DaemonProcess &broker, const QString &store, quint16 &port, const QByteArray &extra)
{
    return startOnFreePort(broker, m_dir.filePath(QStringLiteral("broker.conf")), port,
        [&](quint16 p) { return brokerConf(store, p, extra); });
}

RemotingCommand tst_BrokerDaemon::call(quint16 port, RemotingCommand req)
{
    return invoke(m_client, localAddr(port), std::move(req));
}

std::int64_t tst_BrokerDaemon::maxOffset(quint16 port, const QByteArray &topic, int queueId)
{
    const RemotingCommand r
        = call(port, request(30, {{"topic", topic}, {"queueId", num(queueId)}}));
    return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
}

QByteArray tst_BrokerDaemon::runtimeValue(quint16 port, const char *key)
{
    const RemotingCommand r = call(port, request(28));
    const auto body = protocol::parseJson(r.body);
    if (r.code != 0 || !body)
        return {};
    return body.value()["table"][key].toString();
}

void tst_BrokerDaemon::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
    m_namesrv = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-namesrv"));
    m_nsPort = startNamesrv(*m_namesrv, m_dir.path());
    QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv->error()));
}

void tst_BrokerDaemon::cleanupTestCase()
{
    if (m_namesrv)
        m_namesrv->stop();
}

void tst_BrokerDaemon::commandLine()
{
    const QString exe = QDir(binDir()).filePath(QStringLiteral("qrocket-broker"));
    auto [rc, all] = runProgram(exe, {QStringLiteral("-p")});
    QCOMPARE(rc, 0);
    for (const char *key : {"brokerClusterName=", "listenPort=10911",
             "brokerIP1=", "flushDiskType=ASYNC_FLUSH", "storePathRootDir=", "messageDelayLevel="})
        QVERIFY2(all.contains(key), key);
    auto [rcM, important] = runProgram(exe, {QStringLiteral("-m")});
    QCOMPARE(rcM, 0);
    QVERIFY(important.count('\n') < all.count('\n'));
    auto [rcV, version] = runProgram(exe, {QStringLiteral("--version")});
    QCOMPARE(rcV, 0);
    QVERIFY(version.contains("qrocket-broker"));
    // -n overrides the file's namesrvAddr.
    auto [rcN, withNs] = runProgram(
        exe, {QStringLiteral("-n"), QStringLiteral("10.1.1.1:9876"), QStringLiteral("-p")});
    QCOMPARE(rcN, 0);
    QVERIFY(withNs.contains("namesrvAddr=10.1.1.1:9876"));
}

void tst_BrokerDaemon::badConfigAndBusyPort()
{
    const QString exe = QDir(binDir()).filePath(QStringLiteral("qrocket-broker"));
    const QString conf = m_dir.filePath(QStringLiteral("bad.conf"));
    QFile f(conf);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("someUnknownKey=1\nlistenPort=notanumber\n");
    f.close();
    auto [rc, out] = runProgram(exe, {QStringLiteral("-c"), conf});
    QVERIFY(rc != 0);
    QVERIFY2(out.contains("listenPort"), out.constData());
    QVERIFY2(out.contains("someUnknownKey"), out.constData());
    auto [rcMissing, outMissing]
        = runProgram(exe, {QStringLiteral("-c"), conf + QStringLiteral(".none")});
    QVERIFY(rcMissing != 0);
    QVERIFY(!outMissing.isEmpty());

    QTcpServer busy;
    QVERIFY(busy.listen(QHostAddress::Any, 0));
    QFile g(conf);
    QVERIFY(g.open(QIODevice::WriteOnly | QIODevice::Truncate));
    g.write(brokerConf(m_dir.filePath(QStringLiteral("busystore")), busy.serverPort()));
    g.close();
    auto [rcBusy, outBusy] = runProgram(exe, {QStringLiteral("-c"), conf}, 15000);
    QVERIFY2(rcBusy != 0 && rcBusy != -1, outBusy.constData());
    QVERIFY2(outBusy.contains("listen"), outBusy.constData());
}

void tst_BrokerDaemon::restartKeepsEverything()
{
    const QString store = m_dir.filePath(QStringLiteral("restartstore"));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(startBroker(broker, store, port));
    const QByteArray topic = "RestartTopic";
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(port, sendV2(topic, 0, "restart-" + num(i), props({{"TAGS", "T"}}))).code, 0);
    const QByteArray hb
        = "{\"clientID\":\"10.0.0.7@77\",\"consumerDataSet\":[{\"consumeFromWhere\":"
          "\"CONSUME_FROM_FIRST_OFFSET\",\"consumeType\":\"CONSUME_PASSIVELY\","
          "\"groupName\":\"G_restart\",\"messageModel\":\"CLUSTERING\","
          "\"subscriptionDataSet\":[{\"subString\":\"*\",\"subVersion\":1,"
          "\"topic\":\"RestartTopic\"}]}]}";
    QCOMPARE(call(port, request(34, {}, hb)).code, 0);
    QCOMPARE(call(port,
                 request(15,
                     {{"consumerGroup", "G_restart"}, {"topic", topic}, {"queueId", "0"},
                         {"commitOffset", "7"}}))
                 .code,
        0);
    // A delayed message still pending at the stop (level 18 = 2 h).
    QCOMPARE(call(port, sendV2(topic, 0, "much later", props({{"DELAY", "18"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(port, "SCHEDULE_TOPIC_XXXX", 17), 1, 5000);
    QCOMPARE(broker.stop(), 0);
    QVERIFY(QFile::exists(store + QStringLiteral("/config/consumerOffset.json")));
    QVERIFY(!QFile::exists(store + QStringLiteral("/abort")));

    QVERIFY(startBroker(broker, store, port));
    QCOMPARE(maxOffset(port, topic, 0), 20);
    QCOMPARE(maxOffset(port, "SCHEDULE_TOPIC_XXXX", 17), 1);
    RemotingCommand q = call(
        port, request(14, {{"consumerGroup", "G_restart"}, {"topic", topic}, {"queueId", "0"}}));
    QCOMPARE(q.code, 0);
    QCOMPARE(q.extString("offset"), QByteArrayView("7"));
    // The topic survived: sending with a template that does not exist still works.
    QCOMPARE(call(port, sendV2(topic, 0, "after", {}, "NoTemplate")).code, 0);
    // So did the group and its retry topic.
    QCOMPARE(call(port, sendV2("%RETRY%G_restart", 0, "r", {}, "NoTemplate")).code, 0);
    // Consumption resumes at the committed offset. The "after" message reaches the consume queue
    // asynchronously (reput): wait for it before pulling.
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(port, topic, 0), 21, 5000);
    RemotingCommand p = call(port,
        request(11,
            {{"consumerGroup", "G_restart"}, {"topic", topic}, {"queueId", "0"},
                {"queueOffset", "7"}, {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "0"},
                {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}));
    QCOMPARE(p.code, 0);
    const auto recs = records(p.body);
    QCOMPARE(recs.size(), std::size_t(14));
    QCOMPARE(recs.front().body, QByteArrayView("restart-7"));
    QCOMPARE(recs.front().queueOffset, 7);
    // The route is back on the name server (the registration at start is asynchronous: wait).
    const auto routeFound = [&] {
        auto route = m_client.invokeSync(
            "127.0.0.1:" + QByteArray::number(m_nsPort), request(105, {{"topic", topic}}), 5000);
        return route.has_value() && route->code == 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(routeFound(), 10000);
    QCOMPARE(broker.stop(), 0);
}

void tst_BrokerDaemon::kill9WithSyncFlushKeepsAcknowledgedSends()
{
    const QString store = m_dir.filePath(QStringLiteral("killstore"));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(startBroker(broker, store, port, "flushDiskType=SYNC_FLUSH\n"));
    const QByteArray topic = "KillTopic";
    int acknowledged = 0;
    for (int i = 0; i < 300; ++i) {
        if (call(port, sendV2(topic, 0, "durable-" + num(i))).code == 0)
            ++acknowledged;
    }
    QCOMPARE(acknowledged, 300);
    broker.kill();
    QVERIFY(startBroker(broker, store, port, "flushDiskType=SYNC_FLUSH\n"));
    QCOMPARE(maxOffset(port, topic, 0), 300);
    int seen = 0;
    std::int64_t offset = 0;
    while (offset < 300) {
        RemotingCommand p = call(port,
            request(11,
                {{"consumerGroup", "G_kill"}, {"topic", topic}, {"queueId", "0"},
                    {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"},
                    {"commitOffset", "0"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
                    {"subVersion", "0"}}));
        QCOMPARE(p.code, 0);
        for (const auto &rec : records(p.body)) {
            QCOMPARE(rec.body.toByteArray(), "durable-" + num(rec.queueOffset));
            ++seen;
        }
        offset = p.extLong("nextBeginOffset").value_or(300);
    }
    QCOMPARE(seen, 300);
    QCOMPARE(broker.stop(), 0);
}

// The machine, given to a real daemon through its disk probe seam
// (QROCKET_DISK_SPACE_FILE: "total free available" bytes, read at each check): 251.9 GiB with
// 156.3 GiB reserved for root. Filled to 97 % as `df` counts it ((total - free) / total would
// read 37 %), the broker reports diskFull and 0.97 with the mark that decided, logs the block
// and refuses SEND with RocketMQ's SERVICE_NOT_AVAILABLE (14) and remark; at 90 % (the mark
// reached, not exceeded) it logs the release and accepts again, and at 30 % too; every
// acknowledged message is there, in order.
void tst_BrokerDaemon::diskFullRefusesSendsUntilFreed()
{
    const QString store = m_dir.filePath(QStringLiteral("diskstore"));
    const QString diskFile = m_dir.filePath(QStringLiteral("disk-space.txt"));
    // `perMille` (a whole percent's multiple) of used + available in use, as df counts it.
    const auto setDisk = [&](std::int64_t perMille) {
        constexpr std::int64_t unit = 100LL * 1024 * 1024, total = 2519 * unit;
        constexpr std::int64_t entire = total - 1563 * unit; // used + available
        const std::int64_t used = entire * perMille / 1000; // exact for whole percents
        QSaveFile f(diskFile); // renamed into place: the broker never reads half a line
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(num(total) + ' ' + num(total - used) + ' ' + num(entire - used) + '\n');
        return f.commit();
    };
    QVERIFY(setDisk(300));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    qputenv("QROCKET_DISK_SPACE_FILE", QFile::encodeName(diskFile));
    const bool started = startBroker(broker, store, port, "cleanResourceInterval=100\n");
    qunsetenv("QROCKET_DISK_SPACE_FILE");
    QVERIFY2(started, qPrintable(broker.error()));
    QCOMPARE(runtimeValue(port, "commitLogDiskRatio"), QByteArray("0.3"));
    QCOMPARE(runtimeValue(port, "consumeQueueDiskRatio"), QByteArray("0.3"));
    QCOMPARE(runtimeValue(port, "diskFull"), QByteArray("false"));

    const QByteArray topic = "DiskTopic";
    QList<QByteArray> acknowledged;
    const auto send = [&](const QByteArray &body) {
        const RemotingCommand r = call(port, sendV2(topic, 0, body));
        if (r.code == 0)
            acknowledged.append(body);
        return r;
    };
    for (int i = 0; i < 10; ++i)
        QCOMPARE(send("before-" + num(i)).code, 0);

    QVERIFY(setDisk(970));
    QTRY_COMPARE_WITH_TIMEOUT(runtimeValue(port, "diskFull"), QByteArray("true"), 10000);
    QCOMPARE(runtimeValue(port, "commitLogDiskRatio"), QByteArray("0.97"));
    QCOMPARE(runtimeValue(port, "consumeQueueDiskRatio"), QByteArray("0.97"));
    for (int i = 0; i < 5; ++i) {
        const RemotingCommand r = send("refused-" + num(i));
        QCOMPARE(r.code, 14); // SERVICE_NOT_AVAILABLE
        QCOMPARE(r.remark,
            QByteArray("service not available now. It may be caused by one of the following "
                       "reasons: the broker's disk is full [CL:  0.97 CQ:  0.97 INDEX:  0.97], "
                       "messages are put to the slave, message store has been shut down, etc."));
    }
    const QByteArray reason = runtimeValue(port, "diskFullReason");
    QVERIFY2(reason.startsWith("disk full: commit-log partition (")
            && reason.contains(") at 97.0% used > diskSpaceWarningLevelRatio 90%"),
        reason.constData());
    QTRY_VERIFY_WITH_TIMEOUT(broker.output().contains(reason), 5000); // logged, the same words
    QVERIFY(!broker.output().contains("writes accepted again"));

    QVERIFY(setDisk(900)); // the mark reached, not exceeded: writes go again
    QTRY_COMPARE_WITH_TIMEOUT(runtimeValue(port, "diskFull"), QByteArray("false"), 10000);
    QCOMPARE(runtimeValue(port, "commitLogDiskRatio"), QByteArray("0.9"));
    QCOMPARE(runtimeValue(port, "diskFullReason"), QByteArray());
    QTRY_VERIFY_WITH_TIMEOUT(broker.output().contains("commit-log partition at 90.0%, "
                                                      "consume-queue partition at 90.0%, none "
                                                      "above diskSpaceWarningLevelRatio 90%: "
                                                      "writes accepted again"),
        5000);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(send("at-mark-" + num(i)).code, 0);

    QVERIFY(setDisk(300));
    QTRY_COMPARE_WITH_TIMEOUT(runtimeValue(port, "commitLogDiskRatio"), QByteArray("0.3"), 10000);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(send("after-" + num(i)).code, 0);

    // Nothing acknowledged is lost, nothing refused was stored.
    QCOMPARE(acknowledged.size(), 20);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(port, topic, 0), 20, 5000);
    QList<QByteArray> stored;
    std::int64_t offset = 0;
    for (int round = 0; offset < 20 && round < 20; ++round) {
        const RemotingCommand p = call(port,
            request(11,
                {{"consumerGroup", "G_disk"}, {"topic", topic}, {"queueId", "0"},
                    {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"},
                    {"commitOffset", "0"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
                    {"subVersion", "0"}}));
        QCOMPARE(p.code, 0);
        for (const auto &rec : records(p.body))
            stored.append(rec.body.toByteArray());
        offset = p.extLong("nextBeginOffset").value_or(20);
    }
    QCOMPARE(stored, acknowledged);
    QCOMPARE(broker.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_BrokerDaemon)
#include "tst_brokerdaemon.moc"
