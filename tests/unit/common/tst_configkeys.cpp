// The keys no request may change and the keys never printed (clientlib/common/configkeys.h).

#include "clientlib/common/configkeys.h"
#include "clientlib/common/properties.h"

#include <QTest>

using namespace qrocket;

class tst_ConfigKeys final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refused_data()
    {
        QTest::addColumn<QString>("key");
        // Both daemons' paths, addresses, ports, roles and security keys, and keys of the same
        // shape that a later version may add.
        for (const char *key : {"storePathRootDir", "storePathCommitLog", "brokerConfigPath",
                 "rocketmqHome", "configBlackList", "configStorePath", "kvConfigPath",
                 "namesrvAddr", "haMasterAddress", "listenAddress", "haAllowedAddresses",
                 "etcdEndpoints", "brokerIP1", "brokerIP2", "listenPort", "haListenPort",
                 "metricsPort", "metricsHost", "metricsPromExporterHost", "metricsPromExporterPort",
                 "metricsExporterType", "metricsSeriesLimit", "grpcServerPort", "brokerRole",
                 "enableControllerMode", "aclEnable", "aclFilePath", "tls.server.mode",
                 "tls.server.keyPassword", "tls.config.file", "tls.server.certPath",
                 "tls.server.keyPath", "tls.server.trustCertPath", "tls.server.need.client.auth",
                 "tls.server.authClient", "tls.enable", "tls.client.certPath", "tls.client.keyPath",
                 "tls.client.keyPassword", "tls.client.trustCertPath", "tls.client.authServer",
                 "tls.test.mode.enable", "accessKey", "innerAccessKey", "innerSecretKey",
                 "secretKey", "securityToken", "grpcAuthMaxClockSkewSeconds"})
            QTest::newRow(key) << QString::fromLatin1(key);
    }
    void refused()
    {
        QFETCH(QString, key);
        QVERIFY2(!remoteConfigRefusal(key, {}).isEmpty(), qPrintable(key));
    }

    void allowed_data()
    {
        QTest::addColumn<QString>("key");
        // What operators change at run time with mqadmin updateBrokerConfig.
        for (const char *key : {"brokerPermission", "defaultTopicQueueNums", "fileReservedTime",
                 "deleteWhen", "diskMaxUsedSpaceRatio", "flushDiskType", "messageDelayLevel",
                 "autoCreateTopicEnable", "autoCreateSubscriptionGroup", "msgTraceTopicName",
                 "traceTopicEnable", "regionId", "warmMapedFileEnable",
                 "accessMessageInMemoryMaxRatio", "maxTransferBytesOnMessageInDisk",
                 "startAcceptSendRequestTimeStamp", "orderMessageEnable", "clusterTest",
                 "brokerChannelExpiredTime", "productEnvName", "sendDedupEnable",
                 "sendDedupWindowSeconds", "sendDedupMaxKeysPerTopic"})
            QTest::newRow(key) << QString::fromLatin1(key);
    }
    void allowed()
    {
        QFETCH(QString, key);
        QVERIFY2(remoteConfigRefusal(key, {}).isEmpty(), qPrintable(remoteConfigRefusal(key, {})));
    }

    void daemonIdentityKeys()
    {
        const QStringList identity {QStringLiteral("brokerName"), QStringLiteral("brokerId")};
        QVERIFY(!remoteConfigRefusal(u"brokerName", identity).isEmpty());
        QVERIFY(!remoteConfigRefusal(u"brokerId", identity).isEmpty());
        QVERIFY(remoteConfigRefusal(u"brokerName", {}).isEmpty());
    }

    void secrets()
    {
        for (const char *key : {"secretKey", "innerSecretKey", "tls.server.keyPassword",
                 "securityToken", "etcdCredentials"})
            QVERIFY2(isSecretConfigKey(QString::fromLatin1(key)), key);
        for (const char *key : {"accessKey", "brokerName", "tls.server.keyPath", "namesrvAddr"})
            QVERIFY2(!isSecretConfigKey(QString::fromLatin1(key)), key);
    }

    void printNeverShowsASecret()
    {
        QString accessKey = QStringLiteral("admin001");
        QString secret = QStringLiteral("s3cr3t-value");
        QString empty;
        ConfigSchema schema;
        schema.add("innerAccessKey", &accessKey);
        schema.add("innerSecretKey", &secret);
        schema.add("tls.server.keyPassword", &empty);
        const QString printed = schema.print();
        QVERIFY(printed.contains(QStringLiteral("innerAccessKey=admin001\n")));
        QVERIFY(printed.contains(QStringLiteral("innerSecretKey=******\n")));
        QVERIFY(printed.contains(QStringLiteral("tls.server.keyPassword=\n"))); // unset: says so
        QVERIFY(!printed.contains(secret));
    }

    void remarkStartsWithRocketmqWords()
    {
        const QString r = blackListRemark(u"storePathRootDir", QStringLiteral("a path"));
        QVERIFY(
            r.startsWith(QStringLiteral("Can not update config in black list: storePathRootDir")));
        QVERIFY(r.contains(QStringLiteral("a path")));
        QCOMPARE(
            blackListRemark(u"x", {}), QStringLiteral("Can not update config in black list: x"));
    }
};

QTEST_GUILESS_MAIN(tst_ConfigKeys)
#include "tst_configkeys.moc"
