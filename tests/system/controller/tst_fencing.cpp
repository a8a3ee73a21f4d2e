// Controller mode's fencing with real processes: etcd, a name server and two qrocket-broker
// processes of one brokerName in controller mode, under SYNC sends from four threads.
//
// frozenMasterIsFenced: the follower is frozen until the master appends sends no replica
// has), then the master is frozen (SIGSTOP: a partition without root) and the follower thawed.
// The master's lease expires, the other broker is elected and takes the sends; the old master is
// thawed (SIGCONT) long after its lease expired. It refuses sends at once (its fence is a clock
// compare, not a timer it has not run yet), never acknowledges a send after its lease expired
// (every send it acknowledged lies below where the new master's epoch began, so it is on the new
// master byte for byte), steps down, cuts its commit log to the offset it shares with the new
// master's epoch history - the sends it stored after its replica's connection dropped (answered
// SLAVE_NOT_AVAILABLE), read from its files while it was frozen, are gone, and the new master's
// bytes lie there - and follows; at the end both commit logs are equal byte for byte.
//
// etcdRestartKeepsOneMaster: etcd is killed under load and started again on the same data.
// Writes pause (the master fences itself when it cannot renew), one master of a new epoch
// serves afterwards, every acknowledged send is on it and both commit logs end equal.

#include "broker/controller/elector.h"
#include "broker/controller/etcdclient.h"
#include "clientlib/protocol/bodies/habodies.h"
#include "tests/system/controller/failovertestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;
using qrocket::broker::controller::ElectionRecord;
using qrocket::broker::controller::EtcdClient;

namespace {
constexpr int kTtlSeconds = 3;
const QByteArray kMasterKey = "/qrocket/FenceCluster/broker-fence/master";
} // namespace

class TestFencing : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void frozenMasterIsFenced();
    void etcdRestartKeepsOneMaster();
    void cleanup();
    void cleanupTestCase();

private:
    bool startBroker(int i);
    std::optional<ElectionRecord> readRecord(const QByteArray &key);
    int masterIndex(); // -1: none (or etcd did not answer)
    int masterIndexAbove(std::int64_t epoch); // -1: none of a higher epoch
    /// Waits (bounded) for one master with both brokers in its SyncStateSet, taking sends.
    int waitHealthyPair();
    std::int64_t maxOffset(int i)
    {
        return runtimeLong(m_client, m_ports[i], "commitLogMaxOffset");
    }
    /// The answer code of a probe send to broker i; nullopt without an answer (its port is
    /// closed for a moment while it restarts in-process on a role change).
    std::optional<int> probeSend(int i)
    {
        remoting::RemotingClient client;
        auto r = client.invokeSync(localAddr(m_ports[i]), sendV2("Fencing", 0, "probe"), 3000);
        return r ? std::optional<int>(r->code) : std::nullopt;
    }
    bool refusesSends(int i)
    {
        const std::optional<int> code = probeSend(i);
        return code && *code != 0;
    }
    /// Waits (bounded) until broker i answers a probe send; true when it refuses it.
    bool answersWithRefusal(int i)
    {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 20000) {
            if (const std::optional<int> code = probeSend(i))
                return *code != 0;
            QTest::qWait(100);
        }
        return false;
    }
    /// Both commit logs equal up to the master's end, the follower caught up (bounded).
    void checkReplicasAgree(int master);

    QTemporaryDir m_dir;
    EtcdProcess m_etcd;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    std::array<std::unique_ptr<DaemonProcess>, 2> m_brokers;
    std::array<quint16, 2> m_ports {};
    std::array<QString, 2> m_stores;
    quint16 m_nsPort = 0;
    remoting::RemotingClient m_client;
    std::unique_ptr<EtcdClient> m_etcdClient;
};

void TestFencing::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (EtcdProcess::program().isEmpty())
        QSKIP("no etcd binary (Debian: etcd-server)");
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
    QVERIFY2(m_etcd.start(m_dir.filePath(QStringLiteral("etcd"))), qPrintable(m_etcd.error()));
    m_etcdClient = std::make_unique<EtcdClient>(QStringList {m_etcd.endpoint()}, 2000);
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ns"))));
    m_nsPort = startNamesrv(m_namesrv, m_dir.filePath(QStringLiteral("ns")));
    QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv.error()));
    for (int i = 0; i < 2; ++i) {
        m_stores[i] = m_dir.filePath(QStringLiteral("store%1").arg(i));
        m_brokers[i] = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
        QVERIFY2(startBroker(i), qPrintable(m_brokers[i]->error()));
    }
}

void TestFencing::cleanupTestCase()
{
    for (auto &b : m_brokers)
        if (b)
            b->stop(20000); // resumes a paused one first
    m_namesrv.stop();
    m_etcd.kill();
}

void TestFencing::cleanup()
{
    if (!QTest::currentTestFailed())
        return;
    for (int i = 0; i < 2; ++i)
        if (m_brokers[i])
            qInfo("broker %d (port %u) said:\n%s", i, m_ports[i],
                m_brokers[i]->output().right(6000).constData());
    qInfo("etcd said:\n%s", m_etcd.output().right(3000).constData());
}

bool TestFencing::startBroker(int i)
{
    const QString conf = m_stores[i] + QStringLiteral(".conf");
    return startOnFreePort(*m_brokers[i], conf, m_ports[i], [&](quint16 port) {
        return controllerBrokerConf("FenceCluster", "broker-fence", port, m_nsPort, m_stores[i],
            m_etcd.endpoint(), kTtlSeconds, kCommitLogFileSize);
    });
}

std::optional<ElectionRecord> TestFencing::readRecord(const QByteArray &key)
{
    return readElectionRecord(*m_etcdClient, key);
}

int TestFencing::masterIndex()
{
    const auto rec = readRecord(kMasterKey);
    if (!rec)
        return -1;
    for (int i = 0; i < 2; ++i)
        if (rec->masterAddr == localAddr(m_ports[i]))
            return i;
    return -1;
}

int TestFencing::masterIndexAbove(std::int64_t epoch)
{
    const auto rec = readRecord(kMasterKey);
    if (!rec || rec->epoch <= epoch)
        return -1;
    for (int i = 0; i < 2; ++i)
        if (rec->masterAddr == localAddr(m_ports[i]))
            return i;
    return -1;
}

int TestFencing::waitHealthyPair()
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 40000) {
        const auto rec = readRecord(kMasterKey);
        const int m = masterIndex();
        if (rec && m >= 0 && rec->syncStateSet.size() == 2
            && call(m_client, m_ports[m], sendV2("Fencing", 0, "probe")).code == 0)
            return m;
        QTest::qWait(200);
    }
    return -1;
}

void TestFencing::checkReplicasAgree(int master)
{
    const int f = 1 - master;
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset(master) > 0 && maxOffset(f) == maxOffset(master), 30000);
    const std::int64_t end = maxOffset(master);
    const QByteArray a = readCommitLog(m_stores[master], 0, end);
    const QByteArray b = readCommitLog(m_stores[f], 0, end);
    QCOMPARE(a.size(), qsizetype(end));
    QVERIFY2(a == b, "the replicas' commit logs differ");
}

void TestFencing::frozenMasterIsFenced()
{
    const int m = waitHealthyPair();
    QVERIFY2(m >= 0, "no master with a SyncStateSet of two taking sends");
    const int s = 1 - m;
    const auto before = readRecord(kMasterKey);
    QVERIFY(before);

    FailoverProducer producer(m_ports, "stop", 4, "Fencing");
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBy(m) > 100, 15000);
    // The follower is frozen first, until the master drops its silent HA connection and
    // appends sends no replica has (answered SLAVE_NOT_AVAILABLE: not acknowledged); then the
    // master is frozen and the follower thawed: it is elected with a shorter log, and the old
    // master must cut.
    m_brokers[s]->pause();
    QTRY_VERIFY_WITH_TIMEOUT(runtimeLong(m_client, m_ports[m], "haConnectionCount") == 0, 15000);
    const std::int64_t droppedAt = maxOffset(m);
    std::int64_t grownTo = 0; // latched: the old master's log reached at least this
    QTRY_VERIFY_WITH_TIMEOUT((grownTo = std::max(grownTo, maxOffset(m))) > droppedAt, 15000);
    m_brokers[m]->pause();
    const std::int64_t stoppedAt = steadyMs();
    m_brokers[s]->resume();
    // The lease runs out at etcd; the other broker is elected and takes the sends.
    QTRY_VERIFY_WITH_TIMEOUT(masterIndex() == s, 10 * kTtlSeconds * 1000);
    const std::int64_t electedSeenAt = steadyMs();
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBy(s) > 50, 20000);
    const auto after = readRecord(kMasterKey);
    QVERIFY(after && after->epoch > before->epoch && !after->epochs.empty());
    const std::int64_t newEpochStart = after->epochs.back().startOffset;
    // The new master had at most what was streamed before the connection dropped; what the
    // old master appended after that is its unreplicated tail. Read from its files while it is
    // still frozen (the page cache holds what it wrote).
    QVERIFY2(newEpochStart <= droppedAt,
        qPrintable(QStringLiteral("new epoch at %1, connection dropped at %2")
                       .arg(newEpochStart)
                       .arg(droppedAt)));
    const QByteArray oldTail = readCommitLog(m_stores[m], newEpochStart, grownTo);
    QCOMPARE(oldTail.size(), qsizetype(grownTo - newEpochStart));
    // Thawed well after its lease expired (the election proves it did).
    QVERIFY(steadyMs() - stoppedAt > kTtlSeconds * 1000);
    const std::int64_t resumedAt = steadyMs();
    m_brokers[m]->resume();
    // It refuses at once: the first send it reads after the thaw is fenced by the clock.
    QVERIFY2(refusesSends(m), "the thawed old master acknowledged a send");
    // It steps down and follows: caught up with the new master while sends go on.
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset(m) > newEpochStart, 30000);
    QTest::qWait(300);
    producer.stop();
    const std::vector<AckedAt> acked = producer.acked();
    QCOMPARE(masterIndex(), s);

    int byOldAfterThaw = 0;
    int byOld = 0;
    for (const AckedAt &a : acked) {
        if (a.broker != m)
            continue;
        ++byOld;
        // Whatever the old master acknowledged was replicated before the new epoch began.
        QVERIFY2(a.offset < newEpochStart,
            qPrintable(QStringLiteral("old master acknowledged offset %1, the new epoch began "
                                      "at %2")
                           .arg(a.offset)
                           .arg(newEpochStart)));
        if (a.atMs >= resumedAt)
            ++byOldAfterThaw;
    }
    qInfo("SIGSTOP of the master: new master seen after %lld ms, epoch %lld from offset %lld; "
          "thawed after %lld ms; %zu sends acknowledged (%d by the old master, %d of them "
          "arriving after the thaw, all below the new epoch)",
        static_cast<long long>(electedSeenAt - stoppedAt), static_cast<long long>(after->epoch),
        static_cast<long long>(newEpochStart), static_cast<long long>(resumedAt - stoppedAt),
        acked.size(), byOld, byOldAfterThaw);

    // RPO 0: every acknowledged send is on the new master, byte for byte.
    const std::int64_t end = maxOffset(s);
    const QString missing = missingAcked(m_stores[s], end, acked);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));

    // The old master notices it was fenced, sees the new master on its next poll, cuts its
    // commit log to the new epoch's start and restarts in-process as a follower (its port is
    // closed meanwhile: wait for it, then it must refuse sends).
    const auto follows = [&] {
        const QByteArray out = m_brokers[m]->output();
        const qsizetype fenced = out.indexOf("fenced");
        return fenced >= 0 && out.indexOf("controller: running as slave of", fenced) >= 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(follows(), 20000);
    QVERIFY(answersWithRefusal(m));
    const QByteArray out = m_brokers[m]->output();
    const qsizetype cut = out.indexOf("cutting the commit log from");
    QVERIFY2(cut >= 0, out.right(3000).constData());
    const QByteArray line = out.mid(cut, out.indexOf('\n', cut) - cut);
    qInfo("old master: %s (%lld bytes appended after its replica's connection dropped)",
        line.constData(), static_cast<long long>(grownTo - droppedAt));
    QVERIFY2(line.contains(" to " + QByteArray::number(newEpochStart) + " "), line.constData());
    const std::int64_t cutFrom = line.mid(QByteArrayView("cutting the commit log from ").size())
                                     .split(' ')
                                     .value(0)
                                     .toLongLong();
    QVERIFY2(cutFrom >= grownTo, line.constData());
    checkReplicasAgree(s);
    // The unreplicated tail is gone from the old master: where it lay, it holds the new
    // master's bytes (or nothing, past the new master's end), byte for byte.
    const QByteArray nowThere = readCommitLog(m_stores[m], newEpochStart, grownTo);
    QCOMPARE(nowThere, readCommitLog(m_stores[s], newEpochStart, grownTo));
    QVERIFY(nowThere != oldTail);

    // What qrocket-admin getBrokerEpoch / haStatus read (GET_BROKER_EPOCH_CACHE 1007,
    // GET_BROKER_HA_STATUS 907): both replicas hold the election's history, the last epoch
    // open from the new master's start; the new master streams to one replica, which follows
    // it. Asked until the follower's replication state settles (bounded).
    for (int i : {s, m}) {
        const RemotingCommand r = call(m_client, m_ports[i], RemotingCommand::createRequest(1007));
        QCOMPARE(r.code, 0);
        const auto cache = protocol::EpochEntryCache::fromJson(r.body);
        QVERIFY2(cache.has_value(), r.body.constData());
        QCOMPARE(cache->brokerName, QByteArray("broker-fence"));
        QCOMPARE(cache->epochList.size(), after->epochs.size());
        for (std::size_t e = 0; e < after->epochs.size(); ++e) {
            QCOMPARE(std::int64_t(cache->epochList[e].epoch), after->epochs[e].epoch);
            QCOMPARE(cache->epochList[e].startOffset, after->epochs[e].startOffset);
        }
        QCOMPARE(cache->epochList.back().endOffset, std::numeric_limits<std::int64_t>::max());
    }
    const auto ha = [&](int i) {
        const RemotingCommand r = call(m_client, m_ports[i], RemotingCommand::createRequest(907));
        return r.code == 0
            ? protocol::HARuntimeInfo::fromJson(r.body)
            : Result<protocol::HARuntimeInfo>(Status::unavailable(QString::fromUtf8(r.remark)));
    };
    QTRY_VERIFY_WITH_TIMEOUT(ha(s) && ha(s)->master && ha(s)->haConnectionInfo.size() == 1
            && ha(s)->inSyncSlaveNums == 1,
        15000);
    const auto follower = ha(m);
    QVERIFY(follower && !follower->master);
    QCOMPARE(follower->haClientRuntimeInfo.masterAddr, after->masterHaAddr);
}

void TestFencing::etcdRestartKeepsOneMaster()
{
    const int m = waitHealthyPair();
    QVERIFY2(m >= 0, "no master with a SyncStateSet of two taking sends");
    const auto before = readRecord(kMasterKey);
    QVERIFY(before);
    FailoverProducer producer(m_ports, "etcd", 4, "Fencing");
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBy(m) > 100, 15000);
    m_etcd.kill();
    const std::int64_t killedAt = steadyMs();
    // Without etcd the master cannot renew: it fences itself within the TTL.
    QTRY_VERIFY_WITH_TIMEOUT(refusesSends(m) && refusesSends(1 - m), 3 * kTtlSeconds * 1000);
    const std::int64_t fencedAt = steadyMs();
    QTest::qWait(kTtlSeconds * 1000);
    const int ackedWhileDown
        = producer.ackedBySince(0, fencedAt + 500) + producer.ackedBySince(1, fencedAt + 500);
    QVERIFY2(m_etcd.start(m_dir.filePath(QStringLiteral("etcd"))), qPrintable(m_etcd.error()));
    const std::int64_t restartedAt = steadyMs();
    // One master again, of a new epoch; the sends resume there. etcd restores the leases it
    // held and renews them when its member leads again, so right after the restart it still
    // names the fenced master under its old lease and epoch, until that broker sees its address
    // under a lease it gave up and revokes it (its next poll; measured: present for up to
    // ~50 ms, then absent for ~250 ms until the campaign). Waiting for "any master" saw that
    // stale record, then none, then the new one - and QTRY evaluates its condition again after
    // its loop, so a condition that goes true, false, true fails it, reported as a timeout
    // (what made this case fail 2 runs of 3). Hence the new epoch, latched once seen.
    int now = -1;
    QTRY_VERIFY_WITH_TIMEOUT(now >= 0 || (now = masterIndexAbove(before->epoch)) >= 0, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBySince(now, restartedAt) > 50, 30000);
    const std::int64_t resumedAt = steadyMs();
    producer.stop();
    QCOMPARE(masterIndex(), now);
    QVERIFY2(answersWithRefusal(1 - now), "two brokers take sends");
    const std::vector<AckedAt> acked = producer.acked();
    qInfo("etcd killed: both brokers refused after %lld ms; %d sends acknowledged while etcd was "
          "down; restarted after %lld ms; master now broker %d (was %d); sends resumed %lld ms "
          "after the restart; %zu sends acknowledged",
        static_cast<long long>(fencedAt - killedAt), ackedWhileDown,
        static_cast<long long>(restartedAt - killedAt), now, m,
        static_cast<long long>(resumedAt - restartedAt), acked.size());
    QCOMPARE(ackedWhileDown, 0);
    // When the fenced master itself won again, the acknowledgements counted above can come from
    // the controller it ran before its in-process restart as master (its port closed for a
    // moment, seen once in 5 runs): wait for an answer.
    std::int64_t end = -1;
    QTRY_VERIFY_WITH_TIMEOUT(end >= 0 || (end = maxOffset(now)) >= 0, 10000);
    const QString missing = missingAcked(m_stores[now], end, acked);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    checkReplicasAgree(now);
}

QTEST_GUILESS_MAIN(TestFencing)
#include "tst_fencing.moc"
