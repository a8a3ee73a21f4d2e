// The replication settings as the daemon loads them (BrokerStartupConfig: haListenPort =
// listenPort + 1 unless given, the role/brokerId rules, bad HA values) and the HA wire format's
// encoders (haprotocol.h).

#include "broker/brokerstartup.h"
#include "broker/ha/haprotocol.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;

class tst_HaConfig final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString write(const QByteArray &text)
    {
        const QString path = m_dir.filePath(QStringLiteral("broker-%1.properties").arg(++m_files));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
            return {};
        return path;
    }
    Status load(const QByteArray &text, BrokerStartupConfig &out)
    {
        return out.load(
            write("storePathRootDir=" + m_dir.path().toUtf8() + "/store\n" + text), {}, nullptr);
    }
    int m_files = 0;

private Q_SLOTS:
    void haListenPortFollowsListenPort()
    {
        BrokerStartupConfig c;
        QVERIFY(load("listenPort=20911\n", c));
        QCOMPARE(c.store.haListenPort, 20912);
        BrokerStartupConfig d;
        QVERIFY(load("", d));
        QCOMPARE(d.store.haListenPort, 10912);
        BrokerStartupConfig e;
        QVERIFY(load("listenPort=20911\nhaListenPort=30000\n", e));
        QCOMPARE(e.store.haListenPort, 30000);
    }

    void defaultsAreRocketMqs()
    {
        BrokerStartupConfig c;
        QVERIFY(load("", c));
        QCOMPARE(c.store.haSendHeartbeatInterval, 5000);
        QCOMPARE(c.store.haHousekeepingInterval, 20000);
        QCOMPARE(c.store.haTransferBatchSize, 32768);
        QCOMPARE(c.store.haSlaveFallbehindMax, 268435456);
        QVERIFY(c.store.haMasterAddress.isEmpty());
        QVERIFY(!c.broker.slaveReadEnable);
        const QString printed = c.print(false);
        for (const char *key : {"haListenPort=10912",
                 "haMasterAddress=", "haTransferBatchSize=", "haSlaveFallbehindMax=",
                 "haSendHeartbeatInterval=", "haHousekeepingInterval=", "slaveReadEnable=false"})
            QVERIFY2(printed.contains(QLatin1String(key)), key);
    }

    void rolesAndIds_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("slave id 1")
            << QByteArray("brokerRole=SLAVE\nbrokerId=1\n") << true << QString();
        QTest::addRow("slave id 0")
            << QByteArray("brokerRole=SLAVE\nbrokerId=0\n") << false << QStringLiteral("brokerId");
        QTest::addRow("sync master id 0")
            << QByteArray("brokerRole=SYNC_MASTER\nbrokerId=0\n") << true << QString();
        QTest::addRow("sync master id 1") << QByteArray("brokerRole=SYNC_MASTER\nbrokerId=1\n")
                                          << false << QStringLiteral("brokerId");
        QTest::addRow("async master id 2") << QByteArray("brokerRole=ASYNC_MASTER\nbrokerId=2\n")
                                           << false << QStringLiteral("brokerId");
        QTest::addRow("bad master address")
            << QByteArray("brokerRole=SLAVE\nbrokerId=1\nhaMasterAddress=nohost\n") << false
            << QStringLiteral("haMasterAddress");
        QTest::addRow("housekeeping below heartbeat")
            << QByteArray("haSendHeartbeatInterval=5000\nhaHousekeepingInterval=4000\n") << false
            << QStringLiteral("haHousekeepingInterval");
        QTest::addRow("tiny batch") << QByteArray("haTransferBatchSize=10\n") << false
                                    << QStringLiteral("haTransferBatchSize");
        QTest::addRow("fall-behind 0") << QByteArray("haSlaveFallbehindMax=0\n") << false
                                       << QStringLiteral("haSlaveFallbehindMax");
    }
    void rolesAndIds()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, ok);
        QFETCH(QString, mentions);
        BrokerStartupConfig c;
        const Status st = load(text, c);
        QCOMPARE(st.isOk(), ok);
        if (!ok)
            QVERIFY2(st.message().contains(mentions), qPrintable(st.message()));
    }

    void wireFormat()
    {
        char report[ha::kReportSize];
        ha::encodeReport(report, 0x0102030405060708LL);
        QCOMPARE(QByteArray(report, 8), QByteArray::fromHex("0102030405060708"));
        char header[ha::kHeaderSize];
        ha::encodeHeader(header, 1 << 30, 32768);
        QCOMPARE(QByteArray(header, 12), QByteArray::fromHex("000000004000000000008000"));
        const ha::TransferHeader h = ha::decodeHeader(header);
        QCOMPARE(h.startPhyOffset, std::int64_t(1) << 30);
        QCOMPARE(h.bodySize, 32768);
        // The master keeps the latest whole report and leaves a partial one for later.
        const QByteArray two = QByteArray::fromHex("00000000000000100000000000000020aabb");
        std::int64_t consumed = 0;
        QCOMPARE(ha::latestReport(two.constData(), two.size(), consumed), std::int64_t(0x20));
        QCOMPARE(consumed, std::int64_t(16));
        QCOMPARE(ha::latestReport(two.constData(), 7, consumed), std::int64_t(-1));
        QCOMPARE(consumed, std::int64_t(0));
    }
};

QTEST_APPLESS_MAIN(tst_HaConfig)
#include "tst_haconfig.moc"
