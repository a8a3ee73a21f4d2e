// Timer succession with real processes (issue 26): a master with a slave holds timer messages,
// some already delivered and some still due; the master is killed -9 and the slave promoted by
// hand (stopped, restarted on its store as brokerId=0/ASYNC_MASTER, as the README's failover
// section describes). Every timer message is delivered exactly once overall, counted in the
// promoted broker's commit log (the old master's replicated deliveries and the new master's):
// none twice (the slave's copy of the master's fire mark and the inheritance scan), none lost,
// none early.

#include "clientlib/protocol/messageproperties.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

namespace {

constexpr QByteArrayView kTopic = "SuccHa";

struct Delivery
{
    std::int64_t due = 0;
    std::int64_t dequeue = 0;
};

/// F of the fire mark in the slave's saved copy of its master's checkpoint, 0 when none.
std::int64_t savedMarkFire(const QString &store)
{
    QFile f(store + QStringLiteral("/timer/master-checkpoint"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray b = f.readAll();
    if (b.size() != 96)
        return 0;
    std::uint64_t v = 0;
    for (int i = 64; i < 72; ++i)
        v = (v << 8) | static_cast<std::uint8_t>(b[i]);
    return static_cast<std::int64_t>(v);
}

/// Every timer delivery of kTopic in the first commit-log file of `store`, by UNIQ_KEY.
std::multimap<QByteArray, Delivery> deliveries(const QString &store)
{
    std::multimap<QByteArray, Delivery> out;
    const QByteArray log = readCommitLog(store, 0, kCommitLogFileSize);
    qsizetype at = 0;
    while (at < log.size()) {
        protocol::MessageRecordView rec;
        const auto r = protocol::decodeRecord(QByteArrayView(log).sliced(at), rec, false);
        if (r.status != protocol::RecordStatus::Ok || r.size <= 0)
            break;
        at += r.size;
        const QByteArrayView dequeue = protocol::findProperty(rec.properties, "TIMER_DEQUEUE_MS");
        if (rec.topic != kTopic || dequeue.isNull())
            continue;
        Delivery d;
        d.due = protocol::findProperty(rec.properties, "TIMER_DELIVER_MS").toLongLong();
        d.dequeue = dequeue.toLongLong();
        out.emplace(protocol::findProperty(rec.properties, "UNIQ_KEY").toByteArray(), d);
    }
    return out;
}

} // namespace

class tst_TimerSuccessionHa final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void promotedSlaveDeliversEachTimerMessageOnce();

private:
    std::int64_t queueMax(quint16 port, QByteArrayView topic)
    {
        const RemotingCommand r
            = call(m_client, port, request(30, {{"topic", topic.toByteArray()}, {"queueId", "0"}}));
        return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
    }
    void send(quint16 port, const QByteArray &key, std::int64_t dueMs)
    {
        const QByteArray due = QByteArray::number(dueMs);
        const RemotingCommand r = call(m_client, port,
            sendV2(kTopic.toByteArray(), 0, "body-" + key,
                props({{"UNIQ_KEY", key.constData()}, {"TIMER_DELIVER_MS", due.constData()}})));
        QCOMPARE(r.code, 0);
    }
    remoting::RemotingClient m_client;
};

void tst_TimerSuccessionHa::promotedSlaveDeliversEachTimerMessageOnce()
{
    if (!QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker")))
        || !QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-namesrv"))))
        QSKIP("qrocket-broker / qrocket-namesrv not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = startNamesrv(namesrv, dir.path());
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error()));
    const QByteArray extra = "namesrvAddr=127.0.0.1:" + QByteArray::number(nsPort) + '\n';
    const QString masterStore = dir.filePath(QStringLiteral("master"));
    const QString slaveStore = dir.filePath(QStringLiteral("slave"));
    DaemonProcess master(QStringLiteral("qrocket-broker"));
    DaemonProcess slave(QStringLiteral("qrocket-broker"));
    quint16 masterPort = 0;
    quint16 slavePort = 0;
    QVERIFY(startOnFreePort(master, masterStore + QStringLiteral(".conf"), masterPort,
        [&](quint16 port) { return brokerConf(masterStore, port, "ASYNC_MASTER", 0, extra); }));
    QVERIFY(startOnFreePort(slave, slaveStore + QStringLiteral(".conf"), slavePort,
        [&](quint16 port) { return brokerConf(slaveStore, port, "SLAVE", masterPort, extra); }));

    // Early: due in 2-3 s, delivered by the master; the slave's copy of the fire mark (synced
    // 3 s after its start, then every 10 s) goes past them.
    const auto now = [] { return QDateTime::currentMSecsSinceEpoch(); };
    std::map<QByteArray, std::int64_t> due;
    const std::int64_t t0 = now();
    for (int i = 0; i < 10; ++i) {
        const QByteArray key = "early-" + QByteArray::number(i);
        due[key] = t0 + 2000 + 100 * i;
        send(masterPort, key, due[key]);
    }
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(masterPort, kTopic), 10, 15000);
    const std::int64_t lastEarlySlot = (t0 + 2900) / 1000 * 1000 + 1000;
    QTRY_VERIFY_WITH_TIMEOUT(savedMarkFire(slaveStore) > lastEarlySlot, 30000);
    // Middle: delivered by the master after the slave's mark (found by the inheritance scan
    // unless a later mark reaches the slave first); late: still due when the master dies.
    const std::int64_t t1 = now();
    for (int i = 0; i < 10; ++i) {
        const QByteArray key = "middle-" + QByteArray::number(i);
        due[key] = t1 + 1500 + 50 * i;
        send(masterPort, key, due[key]);
    }
    for (int i = 0; i < 10; ++i) {
        const QByteArray key = "late-" + QByteArray::number(i);
        due[key] = t1 + 9000 + 100 * i;
        send(masterPort, key, due[key]);
    }
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(masterPort, kTopic), 20, 15000);
    const std::int64_t parked = queueMax(masterPort, "rmq_sys_wheel_timer");
    QCOMPARE(parked, 30);
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(slavePort, kTopic), 20, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(slavePort, "rmq_sys_wheel_timer"), parked, 15000);
    QVERIFY2(now() < t1 + 8500, "too slow: the late messages fell due before the kill");

    // The master dies; the slave is promoted by hand on its own store.
    master.kill();
    QVERIFY2(slave.stop() == 0, slave.output().right(4000).constData());
    QVERIFY(QFile::exists(slaveStore + QStringLiteral("/timer/master-checkpoint")));
    DaemonProcess promoted(QStringLiteral("qrocket-broker"));
    QVERIFY(startOnFreePort(promoted, slaveStore + QStringLiteral(".conf"), slavePort,
        [&](quint16 port) { return brokerConf(slaveStore, port, "ASYNC_MASTER", 0, extra); }));
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(slavePort, kTopic), 30, 20000);
    // Nothing more comes (a duplicate would be delivered at once, its slot being past).
    QTest::qWait(2500);
    QCOMPARE(queueMax(slavePort, kTopic), 30);
    QVERIFY2(promoted.output().contains("with the master's fire mark"),
        promoted.output().right(4000).constData());
    QVERIFY2(promoted.stop() == 0, promoted.output().right(4000).constData());

    const auto got = deliveries(slaveStore);
    for (const auto &[key, dueMs] : due) {
        QVERIFY2(got.count(key) == 1,
            qPrintable(QStringLiteral("%1 delivered %2 times")
                           .arg(QString::fromLatin1(key))
                           .arg(got.count(key))));
        const Delivery d = got.find(key)->second;
        QCOMPARE(d.due, dueMs);
        QVERIFY2(d.dequeue >= dueMs, key.constData()); // none early
    }
    QCOMPARE(got.size(), due.size());
    namesrv.stop();
}

QTEST_GUILESS_MAIN(tst_TimerSuccessionHa)
#include "tst_timersuccessionha.moc"
