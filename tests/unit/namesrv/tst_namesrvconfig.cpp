// NamesrvConfig / NamesrvConfigStore: -c loading, validation, GET/UPDATE_NAMESRV_CONFIG rules.

#include "clientlib/common/configkeys.h"
#include "namesrv/namesrvconfig.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::namesrv;

class tst_NamesrvConfig : public QObject
{
    Q_OBJECT

private slots:
    void defaults();
    void loadsFileAndReportsUnknownKeys();
    void configStorePathDefaultsToTheFile();
    void rejectsBadValues_data();
    void rejectsBadValues();
    void copyRebindsSchema();
    void updateRefusesBlackListedKeys();
    void updateIsAllOrNothing();
    void updatePersists();
    void propertiesTextListsEveryKey();

private:
    QString write(const QByteArray &content)
    {
        const QString path = m_dir.filePath(QStringLiteral("c%1.properties").arg(++m_n));
        QFile f(path);
        if (f.open(QIODevice::WriteOnly))
            f.write(content);
        return path;
    }
    QTemporaryDir m_dir;
    int m_n = 0;
};

void tst_NamesrvConfig::defaults()
{
    NamesrvConfig c;
    QCOMPARE(c.listenPort, 9876);
    QCOMPARE(c.listenAddress, QStringLiteral("0.0.0.0"));
    QCOMPARE(c.scanNotActiveBrokerDelay, 5000);
    QCOMPARE(c.scanNotActiveBrokerInterval, 10000);
    QCOMPARE(c.brokerChannelExpiredTime, 120000);
    QVERIFY(c.kvConfigPath.endsWith(QStringLiteral("/namesrv/kvConfig.json")));
    QVERIFY(c.validate().isOk());
    QCOMPARE(c.blackList(),
        (QStringList {QStringLiteral("configBlackList"), QStringLiteral("configStorePath"),
            QStringLiteral("kvConfigPath"), QStringLiteral("rocketmqHome")}));
}

void tst_NamesrvConfig::loadsFileAndReportsUnknownKeys()
{
    NamesrvConfig c;
    QStringList unknown;
    const Status st = loadConfigFile(
        write("# comment\nlistenPort = 19876\norderMessageEnable=true\nbogusKey=1\n"
              "brokerChannelExpiredTime: 3000\n"),
        c, &unknown);
    QVERIFY2(st.isOk(), qPrintable(st.toString()));
    QCOMPARE(c.listenPort, 19876);
    QVERIFY(c.orderMessageEnable);
    QCOMPARE(c.brokerChannelExpiredTime, 3000);
    QCOMPARE(unknown, QStringList {QStringLiteral("bogusKey")});
}

void tst_NamesrvConfig::configStorePathDefaultsToTheFile()
{
    NamesrvConfig c;
    const QString path = write("listenPort=1\n");
    QVERIFY(loadConfigFile(path, c, nullptr).isOk());
    QCOMPARE(c.configStorePath, path);
    NamesrvConfig d;
    QVERIFY(loadConfigFile(write("configStorePath=/tmp/x.properties\n"), d, nullptr).isOk());
    QCOMPARE(d.configStorePath, QStringLiteral("/tmp/x.properties"));
}

void tst_NamesrvConfig::rejectsBadValues_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("key");
    QTest::addRow("port text") << QByteArray("listenPort=x") << QStringLiteral("listenPort");
    QTest::addRow("port range") << QByteArray("listenPort=65536") << QStringLiteral("listenPort");
    QTest::addRow("address") << QByteArray("listenAddress=localhost")
                             << QStringLiteral("listenAddress");
    QTest::addRow("bool") << QByteArray("clusterTest=1") << QStringLiteral("clusterTest");
    QTest::addRow("expiry") << QByteArray("brokerChannelExpiredTime=0")
                            << QStringLiteral("brokerChannelExpiredTime");
    QTest::addRow("threads") << QByteArray("serverSelectorThreads=0")
                             << QStringLiteral("serverSelectorThreads");
    QTest::addRow("kv path") << QByteArray("kvConfigPath=") << QStringLiteral("kvConfigPath");
}

void tst_NamesrvConfig::rejectsBadValues()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, key);
    NamesrvConfig c;
    const Status st = loadConfigFile(write(content), c, nullptr);
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().contains(key), qPrintable(st.message()));
    QVERIFY(!loadConfigFile(m_dir.filePath(QStringLiteral("missing")), c, nullptr).isOk());
}

void tst_NamesrvConfig::copyRebindsSchema()
{
    NamesrvConfig a;
    NamesrvConfig b = a;
    QVERIFY(b.schema().set(QStringLiteral("listenPort"), QStringLiteral("1234")).isOk());
    QCOMPARE(b.listenPort, 1234);
    QCOMPARE(a.listenPort, 9876);
    QCOMPARE(b.schema().value(QStringLiteral("listenPort")), QStringLiteral("1234"));
    a = b;
    QCOMPARE(a.schema().value(QStringLiteral("listenPort")), QStringLiteral("1234"));
}

void tst_NamesrvConfig::updateRefusesBlackListedKeys()
{
    NamesrvConfig c;
    c.configStorePath.clear();
    NamesrvConfigStore store(c);
    QString error;
    QCOMPARE(store.update("kvConfigPath=/tmp/x\n", &error),
        NamesrvConfigStore::UpdateError::BlackListed);
    QVERIFY(error.contains(QStringLiteral("kvConfigPath")));
    QCOMPARE(store.update("orderMessageEnable=true\nrocketmqHome=/x\n", &error),
        NamesrvConfigStore::UpdateError::BlackListed);
    QVERIFY(!store.orderMessageEnable());
}

void tst_NamesrvConfig::updateIsAllOrNothing()
{
    NamesrvConfig c;
    c.configStorePath.clear();
    NamesrvConfigStore store(c);
    QString error;
    QCOMPARE(store.update("orderMessageEnable=true\nbrokerChannelExpiredTime=bad\n", &error),
        NamesrvConfigStore::UpdateError::Invalid);
    QVERIFY(!store.orderMessageEnable());
    QCOMPARE(store.update("orderMessageEnable=true\nnope=1\n", &error),
        NamesrvConfigStore::UpdateError::Invalid);
    QVERIFY(!store.orderMessageEnable());
    QCOMPARE(store.update("scanNotActiveBrokerInterval=0\n", &error),
        NamesrvConfigStore::UpdateError::Invalid);
    QCOMPARE(store.scanNotActiveBrokerInterval(), 10000);
    QCOMPARE(store.update("orderMessageEnable=true\nbrokerChannelExpiredTime=5000\n", &error),
        NamesrvConfigStore::UpdateError::None);
    QVERIFY(store.orderMessageEnable());
    QCOMPARE(store.brokerChannelExpiredTime(), 5000);
}

void tst_NamesrvConfig::updatePersists()
{
    NamesrvConfig c;
    c.configStorePath = m_dir.filePath(QStringLiteral("store/namesrv.properties"));
    NamesrvConfigStore store(c);
    QString error;
    QCOMPARE(store.update("clusterTest=true\n", &error), NamesrvConfigStore::UpdateError::None);
    NamesrvConfig reloaded;
    QVERIFY(loadConfigFile(c.configStorePath, reloaded, nullptr).isOk());
    QVERIFY(reloaded.clusterTest);
}

void tst_NamesrvConfig::propertiesTextListsEveryKey()
{
    NamesrvConfig c;
    NamesrvConfigStore store(c);
    const QByteArray text = store.propertiesText();
    const auto entries = c.schema().entries();
    int secrets = 0;
    for (const auto &[k, v] : entries) {
        // Secrets (tls.server.keyPassword, ...) are never listed, everything else is.
        const bool secret = isSecretConfigKey(k);
        secrets += secret;
        QVERIFY2(text.contains(k.toUtf8() + '=') != secret, qPrintable(k));
    }
    QVERIFY(secrets > 0);
    QVERIFY(text.contains("listenPort=9876\n"));
}

QTEST_APPLESS_MAIN(tst_NamesrvConfig)
#include "tst_namesrvconfig.moc"
