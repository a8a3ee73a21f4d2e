// Controller mode's SyncStateSet with three replicas, real processes: etcd, a name server and
// three qrocket-broker processes of one brokerName (haMaxTimeSlaveNotCatchup 3 s, lease 3 s).
// Under SYNC sends from four threads:
//   - every replica joins the set; a send is acknowledged only once both followers have it;
//   - one follower is frozen (SIGSTOP), later SIGKILLed: while etcd still lists it in the set,
//     no send is acknowledged (they wait, or answer SLAVE_NOT_AVAILABLE once its connection is
//     gone); after haMaxTimeSlaveNotCatchup it leaves the set in etcd and sends are
//     acknowledged again (the times are printed);
//   - thawed, or started again, it rejoins the set;
//   - the master is SIGKILLed: a set member is elected, and every acknowledged send is on it at
//     the offset its msgId names, byte for byte (RTO printed).

#include "broker/controller/elector.h"
#include "broker/controller/etcdclient.h"
#include "tests/system/controller/failovertestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;
using qrocket::broker::controller::ElectionRecord;
using qrocket::broker::controller::EtcdClient;

namespace {

constexpr int kTtlSeconds = 3;
constexpr int kNotCatchupMs = 3000;
constexpr int kBrokers = 3;
const QByteArray kStateKey = "/qrocket/SsCluster/broker-ss/state";
const QByteArray kMasterKey = "/qrocket/SsCluster/broker-ss/master";

} // namespace

class TestSyncStateSet : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void laggingReplicaLeavesAndRejoins();
    void cleanup();
    void cleanupTestCase();

private:
    bool startBroker(int i);
    std::optional<ElectionRecord> readRecord(const QByteArray &key)
    {
        return readElectionRecord(*m_etcdClient, key);
    }
    int indexOf(const QByteArray &addr) const
    {
        for (int i = 0; i < kBrokers; ++i)
            if (addr == localAddr(m_ports[i]))
                return i;
        return -1;
    }
    std::int64_t maxOffset(int i)
    {
        return runtimeLong(m_client, m_ports[i], "commitLogMaxOffset");
    }

    QTemporaryDir m_dir;
    EtcdProcess m_etcd;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    std::array<std::unique_ptr<DaemonProcess>, kBrokers> m_brokers;
    std::vector<quint16> m_ports = std::vector<quint16>(kBrokers, 0);
    std::array<QString, kBrokers> m_stores;
    quint16 m_nsPort = 0;
    remoting::RemotingClient m_client;
    std::unique_ptr<EtcdClient> m_etcdClient;
};

void TestSyncStateSet::initTestCase()
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
    for (int i = 0; i < kBrokers; ++i) {
        m_stores[i] = m_dir.filePath(QStringLiteral("store%1").arg(i));
        m_brokers[i] = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
        QVERIFY2(startBroker(i), qPrintable(m_brokers[i]->error()));
    }
}

void TestSyncStateSet::cleanup()
{
    if (!QTest::currentTestFailed())
        return;
    for (int i = 0; i < kBrokers; ++i)
        if (m_brokers[i])
            qInfo("broker %d (port %u) said:\n%s", i, m_ports[i],
                m_brokers[i]->output().right(8000).constData());
}

void TestSyncStateSet::cleanupTestCase()
{
    for (auto &b : m_brokers)
        if (b)
            b->stop(20000);
    m_namesrv.stop();
    m_etcd.kill();
}

bool TestSyncStateSet::startBroker(int i)
{
    const QString conf = m_stores[i] + QStringLiteral(".conf");
    return startOnFreePort(*m_brokers[i], conf, m_ports[i], [&](quint16 port) {
        return controllerBrokerConf("SsCluster", "broker-ss", port, m_nsPort, m_stores[i],
                   m_etcd.endpoint(), kTtlSeconds, kCommitLogFileSize)
            + "haMaxTimeSlaveNotCatchup=" + QByteArray::number(kNotCatchupMs) + '\n';
    });
}

void TestSyncStateSet::laggingReplicaLeavesAndRejoins()
{
    // One master; both followers join its SyncStateSet.
    int m = -1;
    QTRY_VERIFY_WITH_TIMEOUT(m >= 0
            || (m =
                       [&] {
                           const auto rec = readRecord(kMasterKey);
                           return rec ? indexOf(rec->masterAddr) : -1;
                       }())
                >= 0,
        20000);
    std::optional<ElectionRecord> state;
    QTRY_VERIFY_WITH_TIMEOUT(
        (state = readRecord(kStateKey)) && state->syncStateSet.size() == kBrokers, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(
        call(m_client, m_ports[m], sendV2("SyncSet", 0, "probe")).code == 0, 15000);
    const int f1 = (m + 1) % kBrokers;
    const int f2 = (m + 2) % kBrokers;
    const QByteArray f1Addr = localAddr(m_ports[f1]);

    // Every replica of the set has each acknowledged send: both followers' logs reach the
    // master's end as it was at an acknowledgement.
    FailoverProducer producer(m_ports, "ss", 4, "SyncSet");
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBy(m) > 100, 15000);

    // A follower is frozen (SIGSTOP: its HA connection stays open, it acknowledges nothing),
    // then thawed; later one is killed (SIGKILL), then started again. Each time: until etcd
    // records it out of the set nothing is acknowledged (only sends in flight at that moment
    // may still be, with its acknowledgement taken before): the other follower's
    // acknowledgements do not suffice. After haMaxTimeSlaveNotCatchup it is out and sends are
    // acknowledged again; back, it rejoins.
    for (const bool freeze : {true, false}) {
        const char *how = freeze ? "frozen (SIGSTOP)" : "SIGKILLed";
        const std::int64_t stoppedAt = steadyMs();
        if (freeze)
            m_brokers[f1]->pause();
        else
            m_brokers[f1]->kill();
        std::int64_t lastSeenInSet = stoppedAt; // send time of the last read still listing it
        std::int64_t removedSeenAt = -1;
        while (steadyMs() - stoppedAt < 30000) {
            const std::int64_t sentAt = steadyMs();
            const auto rec = readRecord(kStateKey);
            if (rec && !rec->inSyncStateSet(f1Addr)) {
                removedSeenAt = steadyMs();
                state = rec;
                break;
            }
            if (rec)
                lastSeenInSet = sentAt;
            QTest::qWait(50);
        }
        if (freeze && removedSeenAt < 0)
            m_brokers[f1]->resume();
        QVERIFY2(removedSeenAt > 0, "the stopped follower never left the SyncStateSet");
        QCOMPARE(state->syncStateSet.size(), std::size_t(2));
        QVERIFY(state->inSyncStateSet(localAddr(m_ports[m])));
        QVERIFY(state->inSyncStateSet(localAddr(m_ports[f2])));
        constexpr std::int64_t kInFlightMs = 300;
        int ackedWhileListed = 0;
        for (const AckedAt &a : producer.acked())
            if (a.atMs > stoppedAt + kInFlightMs && a.atMs < lastSeenInSet)
                ++ackedWhileListed;
        QCOMPARE(ackedWhileListed, 0);
        const int refusedBefore = producer.refused();
        // A send straight to the master (the producer's threads may sit in a send to the
        // frozen follower meanwhile): acknowledged at once now.
        std::int64_t probedAt = -1;
        QTRY_VERIFY_WITH_TIMEOUT(call(m_client, m_ports[m], sendV2("SyncSet", 0, "probe")).code == 0
                && (probedAt = steadyMs()) > 0,
            10000);
        QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBySince(m, removedSeenAt) > 50, 15000);
        std::int64_t resumedAt = -1;
        for (const AckedAt &a : producer.acked())
            if (a.atMs > lastSeenInSet && (resumedAt < 0 || a.atMs < resumedAt))
                resumedAt = a.atMs;
        qInfo("follower %s: out of the SyncStateSet in etcd after %lld ms (between %lld and "
              "%lld ms; haMaxTimeSlaveNotCatchup %d ms), a send to the master acknowledged "
              "after %lld ms, the producer's again after %lld ms, "
              "%d sends refused or timed out so far (waiting sends complete once it is out), "
              "none acknowledged while it was listed",
            how, static_cast<long long>(removedSeenAt - stoppedAt),
            static_cast<long long>(lastSeenInSet - stoppedAt),
            static_cast<long long>(removedSeenAt - stoppedAt), kNotCatchupMs,
            static_cast<long long>(probedAt - stoppedAt),
            static_cast<long long>(resumedAt - stoppedAt), refusedBefore);
        // Counted from the last poll (every 500 ms) at which the follower had caught up.
        QVERIFY(removedSeenAt - stoppedAt >= kNotCatchupMs - 600);

        // It comes back (same port: its name in the set) and rejoins under the sends.
        const std::int64_t backAt = steadyMs();
        if (freeze) {
            m_brokers[f1]->resume();
        } else {
            QVERIFY2(startBroker(f1), qPrintable(m_brokers[f1]->error()));
            QCOMPARE(localAddr(m_ports[f1]), f1Addr);
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            (state = readRecord(kStateKey)) && state->syncStateSet.size() == kBrokers, 30000);
        QVERIFY(state->inSyncStateSet(f1Addr));
        const std::int64_t rejoinedAt = steadyMs();
        qInfo("follower %s: back in the SyncStateSet %lld ms after it was %s", how,
            static_cast<long long>(rejoinedAt - backAt), freeze ? "thawed" : "restarted");
        QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBySince(m, rejoinedAt) > 50, 15000);
    }

    // The master dies: one of the set is elected and has every acknowledged send.
    const std::int64_t masterKilledAt = steadyMs();
    m_brokers[m]->kill();
    int next = -1;
    QTRY_VERIFY_WITH_TIMEOUT(next >= 0
            || (next =
                       [&] {
                           const auto rec = readRecord(kMasterKey);
                           return rec && rec->epoch > state->epoch ? indexOf(rec->masterAddr) : -1;
                       }())
                >= 0,
        30000);
    QVERIFY(next != m);
    QTRY_VERIFY_WITH_TIMEOUT(producer.ackedBy(next) > 20, 30000);
    producer.stop();
    const std::vector<AckedAt> acked = producer.acked();
    std::int64_t firstOnNew = -1;
    for (const AckedAt &a : acked)
        if (a.broker == next && a.atMs > masterKilledAt && (firstOnNew < 0 || a.atMs < firstOnNew))
            firstOnNew = a.atMs;
    std::int64_t end = -1;
    QTRY_VERIFY_WITH_TIMEOUT((end = maxOffset(next)) > 0, 10000);
    const QString missing = missingAcked(m_stores[next], end, acked);
    QVERIFY2(missing.isEmpty(), qPrintable(missing));
    // "Every replica of the set": what the old master acknowledged is on the other survivor
    // too (both followers were members), not only on the one elected.
    const int other = 3 - m - next;
    std::vector<AckedAt> byOld;
    for (const AckedAt &a : acked)
        if (a.broker == m)
            byOld.push_back(a);
    std::int64_t otherEnd = -1;
    QTRY_VERIFY_WITH_TIMEOUT((otherEnd = maxOffset(other)) > 0, 10000);
    const QString missingOnOther = missingAcked(m_stores[other], otherEnd, byOld);
    QVERIFY2(missingOnOther.isEmpty(), qPrintable(missingOnOther));
    qInfo(
        "master SIGKILLed: broker %d elected, RTO %lld ms (kill to the first acknowledged send "
        "on it); %zu acknowledged sends all on the new master, byte for byte, and the %zu the old "
        "master acknowledged also on the other follower; %d refused in all",
        next, static_cast<long long>(firstOnNew - masterKilledAt), acked.size(), byOld.size(),
        producer.refused());
    QVERIFY(firstOnNew - masterKilledAt < 15000);
}

QTEST_GUILESS_MAIN(TestSyncStateSet)
#include "tst_syncstateset.moc"
