// BrokerConfig keys, defaults and validation; messageDelayLevel parsing; resources/conf files.

#include "broker/config/brokerconfig.h"
#include "broker/config/delaylevel.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;

namespace {

Properties props(const char *text)
{
    return parseProperties(QByteArrayView(text));
}

QString confDir()
{
    return QStringLiteral(QROCKET_SOURCE_DIR "/resources/conf");
}

} // namespace

class tst_BrokerConfig final : public QObject
{
    Q_OBJECT

private slots:
    void defaultsValidate()
    {
        BrokerConfig c;
        QVERIFY(c.validate());
        QCOMPARE(c.brokerClusterName, QStringLiteral("DefaultCluster"));
        QCOMPARE(c.listenPort, 10911);
        QCOMPARE(c.defaultTopicQueueNums, 8);
        QCOMPARE(c.brokerPermission, 6);
        QCOMPARE(c.registerNameServerPeriod, 30000);
        QCOMPARE(c.flushConsumerOffsetInterval, 5000);
        QCOMPARE(c.regionId, QStringLiteral("DefaultRegion"));
        QVERIFY(c.autoCreateTopicEnable);
        QVERIFY(c.autoCreateSubscriptionGroup);
        QVERIFY(c.longPollingEnable);
        QVERIFY(c.forceRegister);
        QCOMPARE(c.role(), BrokerRole::AsyncMaster);
        QVERIFY(c.isMaster());
        QVERIFY(!c.brokerIP1.isEmpty());
        QVERIFY(!c.brokerIP1.startsWith(QLatin1String("127."))
            || c.brokerIP1 == QLatin1String("127.0.0.1"));
        QCOMPARE(c.brokerIP2, c.brokerIP1);
        QCOMPARE(c.storePathRootDir, QDir::homePath() + QStringLiteral("/store"));
        QCOMPARE(c.delayLevelMillis().size(), std::size_t(18));
    }

    void appliesKeysAndReportsUnknown()
    {
        BrokerConfig c;
        QStringList unknown;
        QVERIFY(
            c.apply(props("brokerName=broker-b\nbrokerId=0\nlistenPort=20911\n"
                          "autoCreateTopicEnable=false\nnamesrvAddr=127.0.0.1:9876;10.0.0.1:9876\n"
                          "brokerIP1=127.0.0.1\nflushDiskType=SYNC_FLUSH\nnoSuchKey=1\n"),
                &unknown));
        QCOMPARE(
            unknown, (QStringList {QStringLiteral("flushDiskType"), QStringLiteral("noSuchKey")}));
        QVERIFY(c.validate());
        QCOMPARE(c.brokerName, QStringLiteral("broker-b"));
        QCOMPARE(c.listenPort, 20911);
        QVERIFY(!c.autoCreateTopicEnable);
        QCOMPARE(c.brokerAddr(), QByteArrayLiteral("127.0.0.1:20911"));
        QCOMPARE(c.namesrvAddrList(),
            (QStringList {QStringLiteral("127.0.0.1:9876"), QStringLiteral("10.0.0.1:9876")}));
    }

    void badValueNamesKeyAndLine()
    {
        BrokerConfig c;
        const Status st = c.apply(props("brokerId=0\nlongPollingEnable=yes\n"));
        QVERIFY(!st);
        QVERIFY2(
            st.message().contains(QLatin1String("longPollingEnable")), qPrintable(st.message()));
        QVERIFY2(st.message().contains(QLatin1String("line 2")), qPrintable(st.message()));
    }

    void clampsRegisterPeriod_data()
    {
        QTest::addColumn<int>("given");
        QTest::addColumn<int>("expected");
        QTest::addRow("low") << 5000 << 10000;
        QTest::addRow("inside") << 20000 << 20000;
        QTest::addRow("high") << 90000 << 60000;
    }
    void clampsRegisterPeriod()
    {
        QFETCH(int, given);
        QFETCH(int, expected);
        BrokerConfig c;
        c.registerNameServerPeriod = given;
        QVERIFY(c.validate());
        QCOMPARE(c.registerNameServerPeriod, expected);
    }

    void roles()
    {
        BrokerConfig slave;
        slave.brokerRole = QStringLiteral("SLAVE");
        slave.brokerId = 0;
        QVERIFY(!slave.validate());
        slave.brokerId = 1;
        QVERIFY(slave.validate());
        QCOMPARE(slave.role(), BrokerRole::Slave);
        QVERIFY(!slave.isMaster());

        BrokerConfig master;
        master.brokerRole = QStringLiteral("SYNC_MASTER");
        master.brokerId = 3;
        const Status wrongId = master.validate();
        QVERIFY(!wrongId);
        QVERIFY2(
            wrongId.message().contains(QLatin1String("brokerId")), qPrintable(wrongId.message()));
        master.brokerId = 0;
        QVERIFY(master.validate());
        QCOMPARE(master.role(), BrokerRole::SyncMaster);

        // Controller mode: the election sets role and id, whatever the file says.
        BrokerConfig elected;
        elected.enableControllerMode = true;
        elected.etcdEndpoints = QStringLiteral("http://127.0.0.1:2379,http://127.0.0.2:2379");
        elected.brokerRole = QStringLiteral("SLAVE");
        elected.brokerId = 0;
        QVERIFY(elected.validate());
        elected.brokerRole = QStringLiteral("SYNC_MASTER");
        elected.brokerId = 2;
        QVERIFY(elected.validate());

        BrokerConfig bad;
        bad.brokerRole = QStringLiteral("MASTER");
        const Status st = bad.validate();
        QVERIFY(!st);
        QVERIFY(st.message().contains(QLatin1String("brokerRole")));
    }

    void rejectsBadValues_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("key");
        QTest::addRow("brokerName")
            << QByteArray("brokerName=bad name") << QStringLiteral("brokerName");
        QTest::addRow("port") << QByteArray("listenPort=70000") << QStringLiteral("listenPort");
        QTest::addRow("ip") << QByteArray("brokerIP1=not-an-ip") << QStringLiteral("brokerIP1");
        QTest::addRow("queues") << QByteArray("defaultTopicQueueNums=0")
                                << QStringLiteral("defaultTopicQueueNums");
        QTest::addRow("namesrv") << QByteArray("namesrvAddr=host-without-port")
                                 << QStringLiteral("namesrvAddr");
        QTest::addRow("delay") << QByteArray("messageDelayLevel=1s 5x")
                               << QStringLiteral("messageDelayLevel");
        QTest::addRow("io threads")
            << QByteArray("serverSelectorThreads=0") << QStringLiteral("serverSelectorThreads");
        QTest::addRow("send pool") << QByteArray("sendMessageThreadPoolNums=-1")
                                   << QStringLiteral("sendMessageThreadPoolNums");
        QTest::addRow("admin pool") << QByteArray("adminBrokerThreadPoolNums=0")
                                    << QStringLiteral("adminBrokerThreadPoolNums");
        QTest::addRow("dedup window")
            << QByteArray("sendDedupWindowSeconds=0") << QStringLiteral("sendDedupWindowSeconds");
        QTest::addRow("dedup cap") << QByteArray("sendDedupMaxKeysPerTopic=0")
                                   << QStringLiteral("sendDedupMaxKeysPerTopic");
        QTest::addRow("controller without etcd")
            << QByteArray("enableControllerMode=true") << QStringLiteral("etcdEndpoints");
        QTest::addRow("etcd endpoint")
            << QByteArray("enableControllerMode=true\netcdEndpoints=127.0.0.1:2379")
            << QStringLiteral("etcdEndpoints");
        QTest::addRow("lease ttl") << QByteArray("enableControllerMode=true\netcdEndpoints="
                                                 "http://127.0.0.1:2379\netcdLeaseTtlSeconds=1")
                                   << QStringLiteral("etcdLeaseTtlSeconds");
    }
    void rejectsBadValues()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, key);
        BrokerConfig c;
        QVERIFY(c.apply(parseProperties(text)));
        const Status st = c.validate();
        QVERIFY(!st);
        QVERIFY2(st.message().contains(key), qPrintable(st.message()));
    }

    void delayLevels()
    {
        auto d = parseMessageDelayLevel(QLatin1String(kDefaultMessageDelayLevel));
        QVERIFY(d);
        const std::vector<std::int64_t> expected
            = {1000, 5000, 10000, 30000, 60000, 120000, 180000, 240000, 300000, 360000, 420000,
                480000, 540000, 600000, 1200000, 1800000, 3600000, 7200000};
        QCOMPARE(*d, expected);
        auto custom = parseMessageDelayLevel(u"  2s  3m 1h 1d ");
        QVERIFY(custom);
        QCOMPARE(*custom, (std::vector<std::int64_t> {2000, 180000, 3600000, 86400000}));
        QVERIFY(!parseMessageDelayLevel(u""));
        QVERIFY(!parseMessageDelayLevel(u"5"));
        QVERIFY(!parseMessageDelayLevel(u"xs"));
        QVERIFY(!parseMessageDelayLevel(u"-1s"));
        QVERIFY(!parseMessageDelayLevel(u"99999999999999999d"));
    }

    void sharedStoreKeys()
    {
        BrokerConfig c;
        ConfigSchema s;
        c.bind(s, false);
        QVERIFY(!s.contains(QStringLiteral("storePathRootDir")));
        QVERIFY(!s.contains(QStringLiteral("brokerRole")));
        QVERIFY(!s.contains(QStringLiteral("messageDelayLevel")));
        QVERIFY(s.contains(QStringLiteral("brokerName")));
        c.setSharedStoreKeys(
            QStringLiteral("/tmp/x"), QStringLiteral("SLAVE"), QStringLiteral("1s"));
        c.brokerId = 2;
        QVERIFY(c.validate());
        QCOMPARE(c.role(), BrokerRole::Slave);
        QCOMPARE(c.delayLevelMillis(), std::vector<std::int64_t> {1000});
        QVERIFY(BrokerConfig::isSharedStoreKey(QStringLiteral("brokerRole")));
    }

    void propertiesRoundTrip()
    {
        BrokerConfig a;
        a.brokerName = QStringLiteral("broker-x");
        a.shortPollingTimeMills = 1234;
        a.traceTopicEnable = true;
        BrokerConfig b;
        QStringList unknown;
        QVERIFY(b.apply(parseProperties(a.toProperties()), &unknown));
        QVERIFY(unknown.isEmpty());
        QCOMPARE(b.schema().print(), a.schema().print());
        QVERIFY(a.schema().print(true).contains(QLatin1String("brokerName=broker-x")));
        QVERIFY(!a.schema().print(true).contains(QLatin1String("shortPollingTimeMills")));
    }

    // resources/conf/broker.conf lists every key (as key= or #key=) with the default.
    void brokerConfListsEveryKey()
    {
        QFile f(confDir() + QStringLiteral("/broker.conf"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        static const QRegularExpression line(
            QStringLiteral("^#?([A-Za-z0-9.]+)=(.*)$"), QRegularExpression::MultilineOption);
        QHash<QString, QString> fileDefaults;
        for (auto it = line.globalMatch(text); it.hasNext();) {
            const auto m = it.next();
            fileDefaults.insert(m.captured(1), m.captured(2));
        }
        BrokerConfig defaults;
        const QSet<QString> hostDependent
            = {QStringLiteral("rocketmqHome"), QStringLiteral("namesrvAddr"),
                QStringLiteral("brokerName"), QStringLiteral("brokerIP1"),
                QStringLiteral("brokerIP2"), QStringLiteral("storePathRootDir")};
        for (const auto &[key, value] : defaults.schema().entries()) {
            QVERIFY2(fileDefaults.contains(key),
                qPrintable(key + QStringLiteral(" missing in broker.conf")));
            if (!hostDependent.contains(key))
                QCOMPARE(fileDefaults.value(key), value);
        }
        // The file itself loads (store keys are reported as unknown to BrokerConfig alone).
        auto loaded = loadPropertiesFile(f.fileName());
        QVERIFY(loaded);
        BrokerConfig c;
        QVERIFY(c.apply(*loaded));
        QVERIFY(c.validate());
        QCOMPARE(c.brokerName, QStringLiteral("broker-a"));
    }

    void clusterSamplesLoad_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("slave");
        for (const char *layout : {"2m-noslave", "2m-2s-sync", "2m-2s-async"}) {
            QDir dir(confDir() + u'/' + QLatin1String(layout));
            const auto files = dir.entryList({QStringLiteral("*.properties")}, QDir::Files);
            QVERIFY(files.size() >= 2);
            for (const QString &name : files)
                QTest::addRow("%s/%s", layout, qPrintable(name))
                    << dir.filePath(name) << name.endsWith(QLatin1String("-s.properties"));
        }
    }
    void clusterSamplesLoad()
    {
        QFETCH(QString, file);
        QFETCH(bool, slave);
        auto loaded = loadPropertiesFile(file);
        QVERIFY(loaded);
        BrokerConfig c;
        QStringList unknown;
        QVERIFY(c.apply(*loaded, &unknown));
        const Status st = c.validate();
        QVERIFY2(st, qPrintable(st.message()));
        QCOMPARE(c.role() == BrokerRole::Slave, slave);
        QCOMPARE(c.brokerId > 0, slave);
    }
};

QTEST_APPLESS_MAIN(tst_BrokerConfig)
#include "tst_brokerconfig.moc"
