// Controller mode's election against a real etcd process: one master among the candidates, a
// new master with a higher epoch when the old one's lease goes, only members of the last
// SyncStateSet may win, a master whose etcd stops answering fences itself before its lease can
// expire, and the epoch history (EpochFile) with the truncation point a returning replica cuts
// its log at. Each elector is in-process (the brokers' wiring is tested elsewhere).

#include "broker/controller/elector.h"
#include "broker/controller/epochfile.h"
#include "broker/controller/etcdclient.h"
#include "tests/testlib/etcdprocess.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace qrocket;
using namespace qrocket::broker::controller;
using qrocket::testlib::EtcdProcess;

namespace {

constexpr int kTtlSeconds = 2;

/// One broker's election state: its epoch file and elector.
struct Node
{
    Node(const QString &dir, const QString &endpoint, const QByteArray &brokerName,
        const QByteArray &addr)
        : epochs(EpochFile::filePath(dir))
    {
        QVERIFY(epochs.load().isOk());
        ElectorOptions o;
        o.clusterName = "C";
        o.brokerName = brokerName;
        o.brokerAddr = addr;
        o.haAddr = addr + "-ha";
        o.leaseTtlSeconds = kTtlSeconds;
        o.pollIntervalMs = 100;
        o.fenceMarginMs = 300;
        elector = std::make_unique<Elector>(
            std::make_unique<EtcdClient>(QStringList {endpoint}, 500), o, [this] { return logEnd; },
            epochs);
    }
    bool isMaster() const { return elector->role() == Elector::Role::Master; }

    std::int64_t logEnd = 0;
    EpochFile epochs;
    std::unique_ptr<Elector> elector;
};

} // namespace

class TestElector : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void epochFileHistory();
    void truncationPoint();
    void electionPicksOne();
    void masterLossElectsTheSyncedReplica();
    void onlyTheSyncStateSetMayWin();
    void resignHandsOverAtOnce();
    void frozenEtcdFencesTheMasterFirst();
    void cleanupTestCase();

private:
    /// Starts two nodes on brokerName `name` and waits until one is master, the other follows.
    void startPair(const QByteArray &name, std::unique_ptr<Node> &a, std::unique_ptr<Node> &b);
    QString dir(const QString &name) { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    EtcdProcess m_etcd;
};

void TestElector::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char *d :
        {"etcd", "a1", "b1", "a2", "b2", "a3", "b3", "a3bis", "a4", "b4", "a5", "b5", "ef"})
        QVERIFY(QDir().mkpath(dir(QString::fromLatin1(d))));
    if (EtcdProcess::program().isEmpty())
        QSKIP("no etcd binary (Debian: etcd-server)");
    QVERIFY2(m_etcd.start(dir(QStringLiteral("etcd"))), qPrintable(m_etcd.error()));
}

void TestElector::cleanupTestCase()
{
    m_etcd.kill();
}

void TestElector::epochFileHistory()
{
    const QString path = EpochFile::filePath(dir(QStringLiteral("ef")));
    {
        EpochFile f(path);
        QVERIFY(f.load().isOk());
        QVERIFY(f.entries().empty());
        QVERIFY(f.append(1, 0).isOk());
        QVERIFY(f.append(2, 1000).isOk());
        QVERIFY(f.append(3, 5000).isOk());
        QCOMPARE(f.lastEpoch(), 3);
        QCOMPARE(f.append(0, 1).code(), Status::Code::InvalidArgument);
    }
    EpochFile g(path);
    QVERIFY(g.load().isOk());
    QCOMPARE(g.entries(), (std::vector<EpochEntry> {{1, 0}, {2, 1000}, {3, 5000}}));
    // An epoch raised again from an earlier point replaces what came after it.
    QVERIFY(g.append(3, 2000).isOk());
    QCOMPARE(g.entries(), (std::vector<EpochEntry> {{1, 0}, {2, 1000}, {3, 2000}}));
    QVERIFY(g.truncateFrom(1000).isOk());
    QCOMPARE(g.entries(), (std::vector<EpochEntry> {{1, 0}}));
    QFile bad(path);
    QVERIFY(bad.open(QIODevice::WriteOnly | QIODevice::Truncate));
    bad.write("1 0\n2 x\n");
    bad.close();
    EpochFile h(path);
    QCOMPARE(h.load().code(), Status::Code::Corruption);
    QVERIFY(bad.open(QIODevice::WriteOnly | QIODevice::Truncate));
    bad.write("2 100\n1 200\n"); // epochs backwards
    bad.close();
    QCOMPARE(h.load().code(), Status::Code::Corruption);
}

void TestElector::truncationPoint()
{
    using H = std::vector<EpochEntry>;
    // The old master wrote on in epoch 2 past where the new master (epoch 3) started.
    QCOMPARE(
        EpochFile::truncationPoint(H {{1, 0}, {2, 100}}, 900, H {{1, 0}, {2, 100}, {3, 500}}, 800),
        std::optional<std::int64_t>(500));
    // The follower is behind within the shared epoch: nothing to cut (its own end).
    QCOMPARE(
        EpochFile::truncationPoint(H {{1, 0}, {2, 100}}, 300, H {{1, 0}, {2, 100}, {3, 500}}, 800),
        std::optional<std::int64_t>(300));
    // Its epoch 2 never made it to the new master (different start): back to epoch 1's end.
    QCOMPARE(EpochFile::truncationPoint(H {{1, 0}, {2, 400}}, 900, H {{1, 0}, {3, 250}}, 800),
        std::optional<std::int64_t>(250));
    QCOMPARE(EpochFile::truncationPoint(H {}, 70, H {{1, 0}}, 50), std::optional<std::int64_t>(50));
    QCOMPARE(EpochFile::truncationPoint(H {{5, 0}}, 70, H {{1, 0}}, 50), std::nullopt);
}

void TestElector::startPair(
    const QByteArray &name, std::unique_ptr<Node> &a, std::unique_ptr<Node> &b)
{
    const QString n = QString::fromLatin1(name);
    a = std::make_unique<Node>(
        dir(QStringLiteral("a") + n), m_etcd.endpoint(), "broker" + name, "127.0.0.1:1" + name);
    b = std::make_unique<Node>(
        dir(QStringLiteral("b") + n), m_etcd.endpoint(), "broker" + name, "127.0.0.1:2" + name);
    a->elector->start();
    b->elector->start();
    QVERIFY(QTest::qWaitFor(
        [&] {
            return (a->isMaster() && b->elector->role() == Elector::Role::Follower)
                || (b->isMaster() && a->elector->role() == Elector::Role::Follower);
        },
        10000));
}

void TestElector::electionPicksOne()
{
    std::unique_ptr<Node> a;
    std::unique_ptr<Node> b;
    startPair("1", a, b);
    Node &master = a->isMaster() ? *a : *b;
    Node &follower = a->isMaster() ? *b : *a;
    QCOMPARE(master.elector->epoch(), 1);
    QVERIFY(master.elector->writesAllowed());
    QVERIFY(!follower.elector->writesAllowed());
    QCOMPARE(follower.elector->record().masterAddr, master.elector->record().masterAddr);
    QCOMPARE(follower.elector->record().masterHaAddr, master.elector->record().masterAddr + "-ha");
    QCOMPARE(master.epochs.entries(), (std::vector<EpochEntry> {{1, 0}}));
    QVERIFY(follower.epochs.entries().empty());
    // Stable: for three lease periods nothing changes (keep-alives work).
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 3 * kTtlSeconds * 1000) {
        QVERIFY(master.isMaster() && master.elector->writesAllowed());
        QVERIFY(!follower.isMaster() && !follower.elector->writesAllowed());
        QTest::qWait(50);
    }
    QCOMPARE(master.elector->epoch(), 1);
}

void TestElector::masterLossElectsTheSyncedReplica()
{
    std::unique_ptr<Node> a;
    std::unique_ptr<Node> b;
    startPair("2", a, b);
    std::unique_ptr<Node> &master = a->isMaster() ? a : b;
    std::unique_ptr<Node> &follower = a->isMaster() ? b : a;
    std::optional<bool> recorded;
    master->elector->setSyncStateSet(
        {QByteArray("127.0.0.1:12"), QByteArray("127.0.0.1:22")}, [&](bool ok) { recorded = ok; });
    QVERIFY(QTest::qWaitFor([&] { return recorded.has_value(); }, 5000));
    QVERIFY(*recorded);
    follower->logEnd = 4242; // where its epoch will start
    // The master's process dies: nobody revokes its lease; etcd expires it after the TTL.
    QSignalSpy won(follower->elector.get(), &Elector::becameMaster);
    QElapsedTimer clock;
    clock.start();
    master.reset();
    QVERIFY(won.wait(4 * kTtlSeconds * 1000));
    const qint64 took = clock.elapsed();
    qInfo("new master elected %lld ms after the old one died (lease TTL %d s)", took, kTtlSeconds);
    QVERIFY(took <= (kTtlSeconds + 2) * 1000);
    QCOMPARE(follower->elector->epoch(), 2);
    QCOMPARE(follower->epochs.entries(), (std::vector<EpochEntry> {{2, 4242}}));
    QCOMPARE(follower->elector->record().epochs, (std::vector<EpochEntry> {{1, 0}, {2, 4242}}));
    QVERIFY(follower->elector->writesAllowed());
}

void TestElector::onlyTheSyncStateSetMayWin()
{
    std::unique_ptr<Node> a;
    std::unique_ptr<Node> b;
    startPair("3", a, b);
    const bool aWasMaster = a->isMaster();
    std::unique_ptr<Node> &master = aWasMaster ? a : b;
    std::unique_ptr<Node> &follower = aWasMaster ? b : a;
    const QByteArray masterAddr = master->elector->record().masterAddr;
    // The SyncStateSet is {master} only (the follower never caught up): losing the master
    // leaves the brokerName without one rather than with a replica that may lack acked data.
    master.reset();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 3 * kTtlSeconds * 1000) {
        QVERIFY(!follower->isMaster());
        QTest::qWait(50);
    }
    // The old master comes back (same address, its epoch file kept): it wins epoch 2.
    auto back
        = std::make_unique<Node>(dir(aWasMaster ? QStringLiteral("a3") : QStringLiteral("b3")),
            m_etcd.endpoint(), "broker3", masterAddr);
    back->elector->start();
    QVERIFY(QTest::qWaitFor([&] { return back->isMaster(); }, 5000));
    QCOMPARE(back->elector->epoch(), 2);
    QCOMPARE(back->epochs.entries(), (std::vector<EpochEntry> {{1, 0}, {2, 0}}));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return follower->elector->role() == Elector::Role::Follower
                && follower->elector->record().epoch == 2;
        },
        5000));
}

void TestElector::resignHandsOverAtOnce()
{
    std::unique_ptr<Node> a;
    std::unique_ptr<Node> b;
    startPair("4", a, b);
    std::unique_ptr<Node> &master = a->isMaster() ? a : b;
    std::unique_ptr<Node> &follower = a->isMaster() ? b : a;
    std::optional<bool> recorded;
    master->elector->setSyncStateSet(
        {a.get() == follower.get() ? QByteArray("127.0.0.1:14") : QByteArray("127.0.0.1:24")},
        [&](bool ok) { recorded = ok; });
    QVERIFY(QTest::qWaitFor([&] { return recorded.has_value(); }, 5000));
    QVERIFY(*recorded);
    QSignalSpy won(follower->elector.get(), &Elector::becameMaster);
    QElapsedTimer clock;
    clock.start();
    master->elector->stop(true);
    QVERIFY(!master->elector->writesAllowed());
    QVERIFY(won.wait(5000));
    qInfo("handed over %lld ms after resigning", clock.elapsed());
    QVERIFY(clock.elapsed() < kTtlSeconds * 1000); // no waiting for the lease to expire
    QCOMPARE(follower->elector->epoch(), 2);
}

void TestElector::frozenEtcdFencesTheMasterFirst()
{
    std::unique_ptr<Node> a;
    std::unique_ptr<Node> b;
    startPair("5", a, b);
    Node &master = a->isMaster() ? *a : *b;
    QSignalSpy fenced(master.elector.get(), &Elector::fenced);
    QElapsedTimer clock;
    clock.start();
    m_etcd.pause(); // no keep-alive is answered from now on; etcd's clock runs on
    // The lease was renewed at most a third of the TTL ago: the master must stop within
    // the TTL of the freeze, before etcd could expire its lease and let another broker win.
    QVERIFY(
        QTest::qWaitFor([&] { return !master.elector->writesAllowed(); }, 3 * kTtlSeconds * 1000));
    const qint64 took = clock.elapsed();
    // writesAllowed() turns false by itself once the lease deadline passes (any thread may ask);
    // the fence timer (20 ms) then runs on this thread and says so with fenced().
    QTRY_COMPARE_WITH_TIMEOUT(fenced.count(), 1, 1000);
    qInfo("master fenced %lld ms after etcd froze (lease TTL %d s)", took, kTtlSeconds);
    QVERIFY(took < kTtlSeconds * 1000);
    QTest::qWait(kTtlSeconds * 1000); // frozen past the lease's expiry
    QVERIFY(!a->elector->writesAllowed() && !b->elector->writesAllowed());
    m_etcd.resume();
    // Thawed: etcd expires the old lease; exactly one master again, with a higher epoch.
    QVERIFY(
        QTest::qWaitFor([&] { return a->isMaster() || b->isMaster(); }, 4 * kTtlSeconds * 1000));
    QTest::qWait(500);
    QVERIFY(a->isMaster() != b->isMaster());
    Node &now = a->isMaster() ? *a : *b;
    QCOMPARE(now.elector->epoch(), 2);
    QVERIFY(QTest::qWaitFor([&] { return now.elector->writesAllowed(); }, 2000));
}

QTEST_GUILESS_MAIN(TestElector)
#include "tst_elector.moc"
