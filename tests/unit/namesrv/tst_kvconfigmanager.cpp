// KvConfigManager: namespaced KV store persisted atomically to kvConfig.json (protocol.md §3.7,
// §7.6).

#include "namesrv/kvconfigmanager.h"
#include "tests/testlib/vectors.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::namesrv;

class tst_KvConfigManager : public QObject
{
    Q_OBJECT

private slots:
    void putGetDeleteList();
    void persistsAndReloads();
    void writesBackupOnSecondPersist();
    void loadFallsBackToBackup();
    void loadsRocketMqFile();
    void missingFileIsEmpty();
    void corruptFileWithoutBackupIsAnError();
    void encodesEscapes();

private:
    static void writeFile(const QString &path, const QByteArray &data)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(data);
    }
    static QByteArray readFile(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
};

void tst_KvConfigManager::putGetDeleteList()
{
    KvConfigManager kv;
    QVERIFY(kv.put("ns", "k1", "v1").isOk());
    QVERIFY(kv.put("ns", "k2", "v2").isOk());
    QVERIFY(kv.put("ns", "k1", "v1b").isOk());
    QCOMPARE(kv.value("ns", "k1").value_or(""), QByteArray("v1b"));
    QVERIFY(!kv.value("ns", "nope"));
    QVERIFY(!kv.value("other", "k1"));
    QCOMPARE(kv.list("ns")->size(), size_t(2));
    QVERIFY(kv.remove("ns", "k1").isOk());
    QVERIFY(kv.remove("ns", "k1").isOk()); // absent: no-op
    QVERIFY(!kv.value("ns", "k1"));
    QVERIFY(kv.remove("ns", "k2").isOk());
    QVERIFY(!kv.list("ns"));
}

void tst_KvConfigManager::persistsAndReloads()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sub/kvConfig.json"));
    {
        KvConfigManager kv(path);
        QVERIFY(kv.load().isOk());
        QVERIFY(kv.put("ORDER_TOPIC_CONFIG", "TopicA", "broker-a:4").isOk());
        QVERIFY(kv.put("ns2", "k", "v").isOk());
    }
    QCOMPARE(readFile(path),
        QByteArray(R"({"configTable":{"ORDER_TOPIC_CONFIG":{"TopicA":"broker-a:4"},)"
                   R"("ns2":{"k":"v"}}})"));
    KvConfigManager again(path);
    QVERIFY(again.load().isOk());
    QCOMPARE(again.value("ORDER_TOPIC_CONFIG", "TopicA").value_or(""), QByteArray("broker-a:4"));
    QCOMPARE(again.value("ns2", "k").value_or(""), QByteArray("v"));
    QVERIFY(!QFile::exists(path + QStringLiteral(".tmp")));
}

void tst_KvConfigManager::writesBackupOnSecondPersist()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kvConfig.json"));
    KvConfigManager kv(path);
    QVERIFY(kv.put("ns", "a", "1").isOk());
    const QByteArray first = readFile(path);
    QVERIFY(kv.put("ns", "b", "2").isOk());
    QCOMPARE(readFile(path + QStringLiteral(".bak")), first);
    QVERIFY(readFile(path).contains("\"b\":\"2\""));
}

void tst_KvConfigManager::loadFallsBackToBackup()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kvConfig.json"));
    writeFile(path + QStringLiteral(".bak"), R"({"configTable":{"ns":{"k":"fromBak"}}})");
    // Torn main file.
    writeFile(path, R"({"configTable":{"ns":{"k":"fr)");
    KvConfigManager kv(path);
    QVERIFY(kv.load().isOk());
    QCOMPARE(kv.value("ns", "k").value_or(""), QByteArray("fromBak"));
    // Missing main file (crash between the two renames).
    QFile::remove(path);
    KvConfigManager kv2(path);
    QVERIFY(kv2.load().isOk());
    QCOMPARE(kv2.value("ns", "k").value_or(""), QByteArray("fromBak"));
}

void tst_KvConfigManager::loadsRocketMqFile()
{
    KvConfigManager kv(qrocket::testing::vectorPath(QStringLiteral("store/namesrv/kvConfig.json")));
    QVERIFY(kv.load().isOk());
    QCOMPARE(kv.value("VEC_NAMESPACE", "vecKey").value_or(""), QByteArray("vecValue"));
    // Our encoder writes the same bytes RocketMQ wrote.
    QCOMPARE(KvConfigManager::encode({{"VEC_NAMESPACE", {{"vecKey", "vecValue"}}}}),
        qrocket::testing::readVectorFile(QStringLiteral("store/namesrv/kvConfig.json")));
}

void tst_KvConfigManager::missingFileIsEmpty()
{
    QTemporaryDir dir;
    KvConfigManager kv(dir.filePath(QStringLiteral("none.json")));
    QVERIFY(kv.load().isOk());
    QVERIFY(!kv.list("any"));
}

void tst_KvConfigManager::corruptFileWithoutBackupIsAnError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kvConfig.json"));
    writeFile(path, "garbage");
    KvConfigManager kv(path);
    const Status st = kv.load();
    QVERIFY(!st.isOk());
    QVERIFY(st.message().contains(path));
}

void tst_KvConfigManager::encodesEscapes()
{
    const QByteArray json = KvConfigManager::encode({{"n\"s", {{"k\n", "v\\\x01"}}}});
    QCOMPARE(json, QByteArray(R"({"configTable":{"n\"s":{"k\n":"v\\\u0001"}}})"));
    auto back = KvConfigManager::decode(json);
    QVERIFY(back.has_value());
    QCOMPARE(back->at("n\"s").at("k\n"), QByteArray("v\\\x01"));
}

QTEST_APPLESS_MAIN(tst_KvConfigManager)
#include "tst_kvconfigmanager.moc"
