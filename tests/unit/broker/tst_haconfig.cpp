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
        QTest::addRow("allowed list") << QByteArray("haAllowedAddresses=10.0.0.1;192.168.1.{1,2},"
                                                    "2001:db8::*\n")
                                      << true << QString();
        QTest::addRow("allowed everyone")
            << QByteArray("haAllowedAddresses=*\n") << true << QString();
        QTest::addRow("allowed bad pattern")
            << QByteArray("haAllowedAddresses=10.0.0.1;10.0.0.300\n") << false
            << QStringLiteral("haAllowedAddresses: address pattern '10.0.0.300'");
        QTest::addRow("allowed host name") << QByteArray("haAllowedAddresses=slave-host\n") << false
                                           << QStringLiteral("haAllowedAddresses");
        QTest::addRow("max connections 0")
            << QByteArray("haMaxConnections=0\n") << false << QStringLiteral("haMaxConnections");
        QTest::addRow("max connections 2")
            << QByteArray("haMaxConnections=2\n") << true << QString();
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

    void haSecurityDefaults()
    {
        BrokerStartupConfig c;
        QVERIFY(load("", c));
        QVERIFY(c.store.haAllowedAddresses.isEmpty());
        QCOMPARE(c.store.haMaxConnections, 16);
        const QString printed = c.print(false);
        QVERIFY(printed.contains(QLatin1String("haAllowedAddresses=")));
        QVERIFY(printed.contains(QLatin1String("haMaxConnections=16")));
        QVERIFY(c.print(true).contains(QLatin1String("haAllowedAddresses=")));
    }

    // The HA port binds to brokerIP2 when it names an address; every address when brokerIP2 is
    // the detected default or a wildcard.
    void haListenAddress()
    {
        // On a host without another interface the detected address is 127.0.0.1 itself.
        const QString loopback = BrokerConfig::localIpv4Address() == QLatin1String("127.0.0.1")
            ? QString()
            : QStringLiteral("127.0.0.1");
        BrokerStartupConfig detected;
        QVERIFY(load("", detected));
        QCOMPARE(detected.broker.haListenAddress(), QString());
        BrokerStartupConfig both;
        QVERIFY(load("brokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n", both));
        QCOMPARE(both.broker.haListenAddress(), loopback);
        BrokerStartupConfig two;
        QVERIFY(load("brokerIP1=127.0.0.1\nbrokerIP2=::1\n", two));
        QCOMPARE(two.broker.haListenAddress(), QStringLiteral("::1"));
        BrokerStartupConfig emptyTwo; // an empty brokerIP2 follows brokerIP1
        QVERIFY(load("brokerIP1=127.0.0.1\nbrokerIP2=\n", emptyTwo));
        QCOMPARE(emptyTwo.broker.haListenAddress(), loopback);
        BrokerStartupConfig wildcard;
        QVERIFY(load("brokerIP1=127.0.0.1\nbrokerIP2=0.0.0.0\n", wildcard));
        QCOMPARE(wildcard.broker.haListenAddress(), QString());
        BrokerStartupConfig onlyOne; // brokerIP2 (the HA address slaves are told) stays detected
        QVERIFY(load("brokerIP1=127.0.0.1\n", onlyOne));
        QCOMPARE(onlyOne.broker.haListenAddress(), QString());
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
