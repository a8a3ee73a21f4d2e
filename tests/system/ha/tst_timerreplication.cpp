// Timer messages on a master/slave pair (real qrocket-broker processes): the parked
// rmq_sys_wheel_timer record and, when due, the delivered message reach the slave through the
// commit log like any record; the slave keeps no wheel of its own (it never delivers).

#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

class tst_TimerReplication final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parkedAndDeliveredMessagesReachTheSlave();

private:
    std::int64_t queueMax(quint16 port, const QByteArray &topic)
    {
        const RemotingCommand r
            = call(m_client, port, request(30, {{"topic", topic}, {"queueId", "0"}}));
        return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
    }
    remoting::RemotingClient m_client;
};

void tst_TimerReplication::parkedAndDeliveredMessagesReachTheSlave()
{
    if (!QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))))
        QSKIP("qrocket-broker not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString masterStore = dir.filePath(QStringLiteral("master"));
    const QString slaveStore = dir.filePath(QStringLiteral("slave"));
    DaemonProcess master(QStringLiteral("qrocket-broker"));
    DaemonProcess slave(QStringLiteral("qrocket-broker"));
    quint16 masterPort = 0;
    quint16 slavePort = 0;
    QVERIFY(startOnFreePort(master, masterStore + QStringLiteral(".conf"), masterPort,
        [&](quint16 port) { return brokerConf(masterStore, port, "ASYNC_MASTER"); }));
    QVERIFY(startOnFreePort(slave, slaveStore + QStringLiteral(".conf"), slavePort,
        [&](quint16 port) { return brokerConf(slaveStore, port, "SLAVE", masterPort); }));

    QCOMPARE(
        call(m_client, masterPort, sendV2("TimerHa", 0, "first", props({{"UNIQ_KEY", "F"}}))).code,
        0);
    const RemotingCommand sent = call(m_client, masterPort,
        sendV2("TimerHa", 0, "later", props({{"UNIQ_KEY", "L"}, {"TIMER_DELAY_MS", "2500"}})));
    QCOMPARE(sent.code, 0);
    // The parked record is on the slave before it is due; the delivery follows it there.
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(slavePort, "rmq_sys_wheel_timer"), 1, 8000);
    QCOMPARE(queueMax(slavePort, "TimerHa"), 1);
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(masterPort, "TimerHa"), 2, 8000);
    QTRY_COMPARE_WITH_TIMEOUT(queueMax(slavePort, "TimerHa"), 2, 8000);
    // The slave never fires: it has no timer store.
    const RemotingCommand cp = call(m_client, slavePort, request(60));
    QCOMPARE(cp.code, 1);
    QCOMPARE(cp.remark, QByteArray("The checkpoint is null"));
    QTest::qWait(1500);
    QCOMPARE(queueMax(slavePort, "TimerHa"), 2);
    QVERIFY2(slave.stop() == 0, slave.output().right(4000).constData());
    QVERIFY2(master.stop() == 0, master.output().right(4000).constData());
}

QTEST_GUILESS_MAIN(tst_TimerReplication)
#include "tst_timerreplication.moc"
