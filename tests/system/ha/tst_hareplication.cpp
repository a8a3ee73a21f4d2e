// Replication with real qrocket-broker processes on loopback: a SYNC_MASTER + SYNC_FLUSH master
// SIGKILLed at random moments under load (every acknowledged send is on the slave, byte for
// byte, and the restarted master and the slave agree), an ASYNC_MASTER's lag and its clean stop,
// a slave restarted under load, a slave whose commit log is ahead of its master, bad input on
// the HA port, and a slave without slaveReadEnable serving pulls as 4.9.7 does. Producers speak raw
// SEND_MESSAGE_V2 frames; every wait is bounded.

#include "broker/ha/haprotocol.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

class tst_HaReplication final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void syncMasterKilledKeepsAcknowledgedOnSlave();
    void asyncMasterLagAndCleanStop();
    void slaveRestartedUnderLoadCatchesUp();
    void slaveAheadOfMasterIsRefused();
    void badInputOnHaPort();
    void slaveServesConsumersWhenMasterDies();
    void slaveWithoutReadEnableServesPulls();
    void slaveFollowsOverIpv6();

private:
    struct Pair
    {
        DaemonProcess master {QStringLiteral("qrocket-broker")};
        DaemonProcess slave {QStringLiteral("qrocket-broker")};
        quint16 masterPort = 0;
        quint16 slavePort = 0;
        QString masterStore;
        QString slaveStore;
        QByteArray role;
        QByteArray masterExtra;
    };
    bool startMaster(Pair &p);
    bool startSlave(Pair &p, const QByteArray &extra = {});
    std::int64_t maxOffset(quint16 port)
    {
        return runtimeLong(m_client, port, "commitLogMaxOffset");
    }
    /// Waits until the slave's commit log ends where the master's does; false after `ms`.
    bool waitCaughtUp(Pair &p, int ms);
    /// Both commit logs byte for byte over [from, to).
    void compareCommitLogs(const Pair &p, std::int64_t from, std::int64_t to);
    static void verifyNoSanitizerReport(DaemonProcess &d);

    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
    int m_pairs = 0;
};

void tst_HaReplication::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
}

bool tst_HaReplication::startMaster(Pair &p)
{
    if (p.masterStore.isEmpty()) {
        const QString n = QString::number(++m_pairs);
        p.masterStore = m_dir.filePath(QStringLiteral("m") + n);
        p.slaveStore = m_dir.filePath(QStringLiteral("s") + n);
    }
    return startOnFreePort(p.master, p.masterStore + QStringLiteral(".conf"), p.masterPort,
        [&](quint16 port) { return brokerConf(p.masterStore, port, p.role, 0, p.masterExtra); });
}

bool tst_HaReplication::startSlave(Pair &p, const QByteArray &extra)
{
    return startOnFreePort(p.slave, p.slaveStore + QStringLiteral(".conf"), p.slavePort,
        [&](quint16 port) { return brokerConf(p.slaveStore, port, "SLAVE", p.masterPort, extra); });
}

bool tst_HaReplication::waitCaughtUp(Pair &p, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        const std::int64_t m = maxOffset(p.masterPort);
        if (m > 0 && maxOffset(p.slavePort) == m)
            return true;
        QTest::qWait(20);
    }
    qWarning() << "slave at" << maxOffset(p.slavePort) << "master at" << maxOffset(p.masterPort);
    return false;
}

void tst_HaReplication::compareCommitLogs(const Pair &p, std::int64_t from, std::int64_t to)
{
    const QByteArray m = readCommitLog(p.masterStore, from, to);
    const QByteArray s = readCommitLog(p.slaveStore, from, to);
    QCOMPARE(m.size(), to - from);
    QCOMPARE(s.size(), to - from);
    if (m != s) {
        qsizetype at = 0;
        while (at < m.size() && m[at] == s[at])
            ++at;
        qWarning() << "master" << m.mid(std::max<qsizetype>(0, at - 32), 96).toHex();
        qWarning() << "slave " << s.mid(std::max<qsizetype>(0, at - 32), 96).toHex();
        QFAIL(qPrintable(QStringLiteral("commit logs differ from offset %1 of [%2, %3)")
                             .arg(from + at)
                             .arg(from)
                             .arg(to)));
    }
}

void tst_HaReplication::verifyNoSanitizerReport(DaemonProcess &d)
{
    const QByteArray out = d.output();
    for (const char *bad : {"AddressSanitizer", "LeakSanitizer", "runtime error:"})
        QVERIFY2(!out.contains(bad), out.right(4000).constData());
}

void tst_HaReplication::syncMasterKilledKeepsAcknowledgedOnSlave()
{
    Pair p;
    p.role = "SYNC_MASTER";
    p.masterExtra = "flushDiskType=SYNC_FLUSH\n";
    QVERIFY(startMaster(p));
    QVERIFY(startSlave(p));
    const int cycles = qEnvironmentVariableIntValue("QROCKET_HA_KILL_CYCLES") > 0
        ? qEnvironmentVariableIntValue("QROCKET_HA_KILL_CYCLES")
        : 10;
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("kill cycles %d, seed %u", cycles, seed);
    QRandomGenerator rng(seed);
    std::int64_t totalAcked = 0;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        // Until the slave is connected, SYNC_MASTER answers SLAVE_NOT_AVAILABLE.
        QTRY_VERIFY_WITH_TIMEOUT(
            call(m_client, p.masterPort, sendV2("HaSync", 0, "probe")).code == 0, 15000);
        Producer producer(p.masterPort, "HaSync", "c" + QByteArray::number(cycle), 4);
        QTRY_VERIFY_WITH_TIMEOUT(producer.ackedCount() > 20, 10000);
        QTest::qWait(static_cast<int>(rng.bounded(50, 400)));
        p.master.kill(); // SIGKILL at a random moment, sends in flight
        producer.stop();
        const std::vector<Acked> acked = producer.acked();
        totalAcked += static_cast<std::int64_t>(acked.size());
        // Every acknowledged send is on the slave: its record decodes to the sent body.
        const std::int64_t slaveEnd = maxOffset(p.slavePort);
        QVERIFY(slaveEnd > 0);
        for (const Acked &a : acked) {
            QVERIFY2(a.offset < slaveEnd,
                qPrintable(
                    QStringLiteral("acked at %1, slave ends at %2").arg(a.offset).arg(slaveEnd)));
            const QByteArray head = readCommitLog(p.slaveStore, a.offset, a.offset + 4);
            QCOMPARE(head.size(), 4);
            const std::int32_t size = readI32(head.constData());
            const QByteArray rec = readCommitLog(p.slaveStore, a.offset, a.offset + size);
            protocol::MessageRecordView v;
            QCOMPARE(protocol::decodeRecord(rec, v, true).status, protocol::RecordStatus::Ok);
            QCOMPARE(QByteArray(v.body.toByteArray()), a.body);
        }
        // What the slave has is the killed master's bytes (read from its files).
        compareCommitLogs(p, 0, slaveEnd);
        QVERIFY(startMaster(p)); // same store, same port: the slave follows it again
    }
    qInfo("acknowledged sends checked on the slave: %lld", static_cast<long long>(totalAcked));
    QVERIFY(totalAcked > cycles * 20);
    QVERIFY(waitCaughtUp(p, 20000));
    compareCommitLogs(p, 0, maxOffset(p.masterPort));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
    verifyNoSanitizerReport(p.master);
    verifyNoSanitizerReport(p.slave);
}

void tst_HaReplication::asyncMasterLagAndCleanStop()
{
    Pair p;
    p.role = "ASYNC_MASTER";
    QVERIFY(startMaster(p));
    QVERIFY(startSlave(p));
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset(p.slavePort) == 0, 10000);
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaAsync", 0, "first")).code, 0);
    QVERIFY(waitCaughtUp(p, 10000));
    // Lag sampled under load: the master's end minus the slave's, every 50 ms.
    Producer producer(p.masterPort, "HaAsync", "a", 8, 1024);
    std::int64_t maxLag = 0;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 3000) {
        const std::int64_t m = maxOffset(p.masterPort);
        const std::int64_t s = maxOffset(p.slavePort);
        if (m > 0 && s >= 0)
            maxLag = std::max(maxLag, m - s);
        QTest::qWait(50);
    }
    producer.stop();
    const std::int64_t end = maxOffset(p.masterPort);
    qInfo("ASYNC_MASTER: %d sends in 3 s (1 KiB), max sampled slave lag %lld bytes",
        producer.ackedCount(), static_cast<long long>(maxLag));
    QVERIFY(producer.ackedCount() > 0);
    // A clean stop right away: the master hands the slave what it lacks before it exits.
    QCOMPARE(p.master.stop(), 0);
    QCOMPARE(maxOffset(p.slavePort), end);
    compareCommitLogs(p, 0, end);
    QCOMPARE(p.slave.stop(), 0);
    verifyNoSanitizerReport(p.master);
    verifyNoSanitizerReport(p.slave);
}

void tst_HaReplication::slaveRestartedUnderLoadCatchesUp()
{
    Pair p;
    p.role = "ASYNC_MASTER";
    QVERIFY(startMaster(p));
    QVERIFY(startSlave(p));
    Producer producer(p.masterPort, "HaRestart", "r", 4);
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset(p.slavePort) > 0, 10000);
    p.slave.kill();
    QTest::qWait(300);
    QVERIFY(startSlave(p));
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedCount() > 500, 20000);
    p.slave.stop();
    QTest::qWait(300);
    QVERIFY(startSlave(p));
    QTest::qWait(300);
    producer.stop();
    QVERIFY(waitCaughtUp(p, 20000));
    compareCommitLogs(p, 0, maxOffset(p.masterPort));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaReplication::slaveAheadOfMasterIsRefused()
{
    Pair p;
    p.role = "ASYNC_MASTER";
    // The slave's store first runs as a master of its own and takes more messages.
    {
        Pair other;
        other.role = "ASYNC_MASTER";
        QVERIFY(startMaster(other));
        for (int i = 0; i < 50; ++i)
            QCOMPARE(
                call(m_client, other.masterPort, sendV2("HaAhead", 0, "ahead-" + num(i))).code, 0);
        QCOMPARE(other.master.stop(), 0);
        QVERIFY(startMaster(p));
        QVERIFY(QDir().rename(other.masterStore, p.slaveStore));
    }
    for (int i = 0; i < 5; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaAhead", 0, "m-" + num(i))).code, 0);
    const std::int64_t masterEnd = maxOffset(p.masterPort);
    QVERIFY(startSlave(p));
    const std::int64_t slaveEnd = maxOffset(p.slavePort);
    QVERIFY(slaveEnd > masterEnd);
    const QByteArray before = readCommitLog(p.slaveStore, 0, slaveEnd);
    QTRY_VERIFY_WITH_TIMEOUT(p.slave.output().contains("REFUSING to follow master"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("REFUSING slave"), 10000);
    // Nothing truncated or merged on either side.
    QCOMPARE(maxOffset(p.slavePort), slaveEnd);
    QCOMPARE(readCommitLog(p.slaveStore, 0, slaveEnd), before);
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaAhead", 0, "more")).code, 0);
    QTest::qWait(500);
    QCOMPARE(maxOffset(p.slavePort), slaveEnd);
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

void tst_HaReplication::badInputOnHaPort()
{
    Pair p;
    p.role = "ASYNC_MASTER";
    QVERIFY(startMaster(p));
    QVERIFY(startSlave(p));
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaBad", 0, "before")).code, 0);
    QVERIFY(waitCaughtUp(p, 10000));
    const quint16 haPort = p.masterPort + 1;
    const std::int64_t end = maxOffset(p.masterPort);

    // Garbage: read as offsets, they are negative or past the end: dropped.
    QTcpSocket garbage;
    garbage.connectToHost(QStringLiteral("127.0.0.1"), haPort);
    QVERIFY(garbage.waitForConnected(3000));
    QByteArray junk(64, '\xff');
    junk[0] = '\x80';
    garbage.write(junk);
    QVERIFY(garbage.waitForDisconnected(5000));

    // An offset past the master's end: told the master's end (a heartbeat header), dropped.
    QTcpSocket ahead;
    ahead.connectToHost(QStringLiteral("127.0.0.1"), haPort);
    QVERIFY(ahead.waitForConnected(3000));
    char report[8];
    broker::ha::encodeReport(report, end + 1000000);
    ahead.write(report, 8);
    while (ahead.bytesAvailable() < 12 && ahead.waitForReadyRead(5000)) { }
    const QByteArray header = ahead.read(12);
    QCOMPARE(header.size(), 12);
    const broker::ha::TransferHeader h = broker::ha::decodeHeader(header.constData());
    QCOMPARE(h.startPhyOffset, end);
    QCOMPARE(h.bodySize, 0);
    QVERIFY(ahead.state() == QAbstractSocket::UnconnectedState || ahead.waitForDisconnected(5000));

    // Half a report, then silence: dropped after haHousekeepingInterval (3 s here).
    QTcpSocket half;
    half.connectToHost(QStringLiteral("127.0.0.1"), haPort);
    QVERIFY(half.waitForConnected(3000));
    half.write("\0\0\0\0", 4);
    QElapsedTimer t;
    t.start();
    QVERIFY(half.waitForDisconnected(8000));
    QVERIFY2(t.elapsed() >= 2000, "dropped before the housekeeping interval");

    // Meanwhile the real slave is served as before.
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaBad", 0, "after-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 10000));
    compareCommitLogs(p, 0, maxOffset(p.masterPort));
    QVERIFY(p.master.isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(p.master.output().contains("no report for 3000 ms"), 5000);
    QVERIFY(p.master.output().contains("beyond this master's end"));
    QVERIFY(p.master.output().contains("negative commit-log offset"));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
    verifyNoSanitizerReport(p.master);
}

void tst_HaReplication::slaveServesConsumersWhenMasterDies()
{
    // The slave learns its master from the name server here, and syncs its metadata from it.
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ns"))));
    const quint16 nsPort = startNamesrv(namesrv, m_dir.filePath(QStringLiteral("ns")));
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error()));
    const QByteArray ns = "namesrvAddr=127.0.0.1:" + QByteArray::number(nsPort) + '\n';
    Pair p;
    p.role = "ASYNC_MASTER";
    p.masterExtra = ns;
    QVERIFY(startMaster(p));
    const quint16 masterPort = p.masterPort;
    p.masterPort = 0; // no haMasterAddress: the registration answer gives it
    QVERIFY(startSlave(p, ns + "slaveReadEnable=true\nregisterNameServerPeriod=10000\n"));
    p.masterPort = masterPort;
    for (int i = 0; i < 20; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaFail", 0, "m-" + num(i))).code, 0);
    const Ext offsetKey {{"consumerGroup", "G_fail"}, {"topic", "HaFail"}, {"queueId", "0"}};
    QCOMPARE(call(m_client, p.masterPort,
                 request(15,
                     {{"consumerGroup", "G_fail"}, {"topic", "HaFail"}, {"queueId", "0"},
                         {"commitOffset", "7"}}))
                 .code,
        0);
    QVERIFY(waitCaughtUp(p, 15000));
    // The master's runtime info shows its slave, acknowledged and not behind.
    QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, p.masterPort, "slaveFallBehindMuch"), 0, 5000);
    const auto info = runtimeInfo(m_client, p.masterPort);
    QCOMPARE(info.at("haConnectionCount"), QByteArray("1"));
    QCOMPARE(info.at("brokerRole"), QByteArray("ASYNC_MASTER"));
    int slaveKeys = 0;
    for (const auto &[k, v] : info)
        if (k.startsWith("haSlaveLag_") && v == "0")
            ++slaveKeys;
    QCOMPARE(slaveKeys, 1);
    const auto slaveInfo = runtimeInfo(m_client, p.slavePort);
    QCOMPARE(slaveInfo.at("brokerRole"), QByteArray("SLAVE"));
    QCOMPARE(slaveInfo.at("haMasterAddress"), "127.0.0.1:" + QByteArray::number(p.masterPort + 1));
    QCOMPARE(slaveInfo.at("haMasterConnected"), QByteArray("true"));
    // Topic and consumer offset arrive with the slave sync (3 s after start, then every 10 s).
    QTRY_COMPARE_WITH_TIMEOUT(
        call(m_client, p.slavePort, request(14, offsetKey)).extLong("offset").value_or(-1),
        std::int64_t(7), 20000);
    // A send to the slave is refused with RocketMQ's code (SERVICE_NOT_AVAILABLE).
    QCOMPARE(call(m_client, p.slavePort, sendV2("HaFail", 0, "to-slave")).code, 14);

    p.master.kill();
    // The consumer carries on from the slave, at its committed offset.
    QCOMPARE(call(m_client, p.slavePort, request(14, offsetKey)).extLong("offset").value_or(-1),
        std::int64_t(7));
    const RemotingCommand pulled = call(m_client, p.slavePort,
        request(11,
            {{"consumerGroup", "G_fail"}, {"topic", "HaFail"}, {"queueId", "0"},
                {"queueOffset", "7"}, {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "0"},
                {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}));
    QCOMPARE(pulled.code, 0);
    const auto recs = records(pulled.body);
    QCOMPARE(recs.size(), size_t(13));
    QCOMPARE(QByteArray(recs.front().body.toByteArray()), QByteArray("m-7"));
    QCOMPARE(QByteArray(recs.back().body.toByteArray()), QByteArray("m-19"));

    // The master comes back as master and the slave follows it again.
    QVERIFY(startMaster(p));
    QCOMPARE(p.masterPort, masterPort);
    QCOMPARE(call(m_client, p.masterPort, sendV2("HaFail", 0, "after")).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    compareCommitLogs(p, 0, maxOffset(p.masterPort));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
    namesrv.stop();
}

void tst_HaReplication::slaveWithoutReadEnableServesPulls()
{
    // Plain master/slave mode: a slave without slaveReadEnable serves the pulls that reach it,
    // as RocketMQ 4.9.7 does (measured against 4.9.7, broker/ha/INTEROP.md): FOUND is SUCCESS
    // with the messages and the exact next offset, suggestWhichBrokerId the master (0). What
    // it does not have never moves nextBeginOffset past the requested offset (an answer past
    // what was returned is what a client skips). Controller mode refuses instead (tst_failover).
    // With a name server: the slave syncs the topic from its master (as it would in a cluster),
    // so what it answers is about reading, not an unknown topic.
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ns-noread"))));
    const quint16 nsPort = startNamesrv(namesrv, m_dir.filePath(QStringLiteral("ns-noread")));
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error()));
    const QByteArray ns = "namesrvAddr=127.0.0.1:" + QByteArray::number(nsPort) + '\n';
    Pair p;
    p.role = "ASYNC_MASTER";
    p.masterExtra = ns;
    QVERIFY(startMaster(p));
    QVERIFY(startSlave(p, ns));
    for (int i = 0; i < 10; ++i)
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaNoRead", 0, "m-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 15000));
    // GET_ALL_TOPIC_CONFIG: the topic reached the slave (the sync runs 3 s after its start).
    QTRY_VERIFY_WITH_TIMEOUT(
        call(m_client, p.slavePort, request(21)).body.contains("HaNoRead"), 20000);
    auto pull = [&](quint16 port, std::int64_t offset) {
        return call(m_client, port,
            request(11,
                {{"consumerGroup", "G_noread"}, {"topic", "HaNoRead"}, {"queueId", "0"},
                    {"queueOffset", QByteArray::number(offset)}, {"maxMsgNums", "32"},
                    {"sysFlag", "4"}, {"commitOffset", "0"}, {"suspendTimeoutMillis", "0"},
                    {"subscription", "*"}, {"subVersion", "0"}}));
    };
    auto longExt
        = [](const RemotingCommand &r, const char *key) { return r.extLong(key).value_or(-1); };
    // The slave's consume queue holds all ten (it is built from the replicated commit log).
    QTRY_COMPARE_WITH_TIMEOUT(longExt(pull(p.slavePort, 0), "maxOffset"), std::int64_t(10), 10000);

    const RemotingCommand served = pull(p.slavePort, 0);
    qInfo("the slave answered %d (%s), nextBeginOffset %lld, suggestWhichBrokerId %lld",
        served.code, served.remark.constData(),
        static_cast<long long>(longExt(served, "nextBeginOffset")),
        static_cast<long long>(longExt(served, "suggestWhichBrokerId")));
    QCOMPARE(served.code, 0); // SUCCESS
    QCOMPARE(served.remark, QByteArray("FOUND"));
    QCOMPARE(longExt(served, "nextBeginOffset"), std::int64_t(10));
    QCOMPARE(longExt(served, "minOffset"), std::int64_t(0));
    QCOMPARE(longExt(served, "maxOffset"), std::int64_t(10));
    QCOMPARE(longExt(served, "suggestWhichBrokerId"), std::int64_t(0)); // the master
    auto recs = records(served.body);
    QCOMPARE(recs.size(), size_t(10));
    for (size_t i = 0; i < recs.size(); ++i)
        QCOMPARE(QByteArray(recs[i].body.toByteArray()), "m-" + num(int(i)));

    // Part of the queue: the next offset is right after the last message returned.
    const RemotingCommand part = pull(p.slavePort, 4);
    QCOMPARE(part.code, 0);
    QCOMPARE(longExt(part, "nextBeginOffset"), std::int64_t(10));
    recs = records(part.body);
    QCOMPARE(recs.size(), size_t(6));
    QCOMPARE(QByteArray(recs.front().body.toByteArray()), QByteArray("m-4"));

    // Offsets the slave does not have (yet): nothing served, the offset stays where it was.
    const RemotingCommand atEnd = pull(p.slavePort, 10); // OFFSET_OVERFLOW_ONE
    QCOMPARE(atEnd.code, 19); // PULL_NOT_FOUND
    QCOMPARE(atEnd.remark, QByteArray("OFFSET_OVERFLOW_ONE"));
    QVERIFY(atEnd.body.isEmpty());
    QCOMPARE(longExt(atEnd, "nextBeginOffset"), std::int64_t(10));
    QCOMPARE(longExt(atEnd, "suggestWhichBrokerId"), std::int64_t(0));
    const RemotingCommand beyond = pull(p.slavePort, 25); // OFFSET_OVERFLOW_BADLY
    // A slave without offsetCheckInSlave corrects nothing: PULL_RETRY_IMMEDIATELY at 25.
    QCOMPARE(beyond.code, 20); // PULL_RETRY_IMMEDIATELY
    QCOMPARE(beyond.remark, QByteArray("OFFSET_OVERFLOW_BADLY"));
    QVERIFY(beyond.body.isEmpty());
    QCOMPARE(longExt(beyond, "nextBeginOffset"), std::int64_t(25));

    // The master serves the same, and suggests itself.
    const RemotingCommand fromMaster = pull(p.masterPort, 0);
    QCOMPARE(fromMaster.code, 0);
    QCOMPARE(longExt(fromMaster, "nextBeginOffset"), std::int64_t(10));
    QCOMPARE(records(fromMaster.body).size(), size_t(10));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
    namesrv.stop();
}

void tst_HaReplication::slaveFollowsOverIpv6()
{
    // The HA port is dual stack like the remoting port: a slave told "[::1]:<haPort>" follows
    // over IPv6 while IPv4 slaves keep working on the same port.
    if (QTcpServer probe; !probe.listen(QHostAddress::LocalHostIPv6))
        QSKIP("no IPv6 loopback on this host");
    Pair p;
    p.role = "SYNC_MASTER";
    QVERIFY(startMaster(p));
    const quint16 masterPort = p.masterPort;
    p.masterPort = 0; // haMasterAddress comes from `extra`
    QVERIFY(startSlave(p, "haMasterAddress=[::1]:" + QByteArray::number(masterPort + 1) + '\n'));
    p.masterPort = masterPort;
    QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, p.masterPort, "haConnectionCount"), 1, 10000);
    for (int i = 0; i < 20; ++i) // SYNC_MASTER: each one acknowledged by the IPv6 slave
        QCOMPARE(call(m_client, p.masterPort, sendV2("HaV6", 0, "v6-" + num(i))).code, 0);
    QVERIFY(waitCaughtUp(p, 10000));
    compareCommitLogs(p, 0, maxOffset(p.masterPort));
    const auto info = runtimeInfo(m_client, p.masterPort);
    QVERIFY(std::any_of(info.begin(), info.end(),
        [](const auto &kv) { return kv.first.startsWith("haSlaveLag_[::1]:"); }));
    QCOMPARE(runtimeInfo(m_client, p.slavePort).at("haMasterConnected"), QByteArray("true"));
    QCOMPARE(p.slave.stop(), 0);
    QCOMPARE(p.master.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_HaReplication)
#include "tst_hareplication.moc"
