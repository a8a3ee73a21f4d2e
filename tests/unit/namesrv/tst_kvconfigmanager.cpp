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
    void refusesPutsOverTheCaps();
    void capsCountReplacementsAndRemovals();

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

void tst_KvConfigManager::refusesPutsOverTheCaps()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("kvConfig.json"));
    KvConfigManager kv(path);
    KvConfigManager::Limits limits;
    limits.maxNamespaces = 2;
    limits.maxEntries = 3;
    limits.maxKeyBytes = 16;
    limits.maxValueBytes = 32;
    limits.maxTotalBytes = 1000;
    QVERIFY(kv.put("ns1", "k", "v", limits).isOk());

    const auto refused = [&](const QByteArray &ns, const QByteArray &key, const QByteArray &value,
                             const char *limitKey) {
        const QByteArray fileBefore = readFile(path);
        const Status st = kv.put(ns, key, value, limits);
        if (st.code() != Status::Code::InvalidArgument
            || !st.message().contains(QLatin1String(limitKey))
            || !st.message().contains(QLatin1String("nothing stored"))) {
            qWarning("%s", qPrintable(st.toString()));
            return false;
        }
        return !kv.value(ns, key).has_value() && readFile(path) == fileBefore;
    };
    QVERIFY(refused("ns1", QByteArray(17, 'k'), "v", "kvConfigMaxKeyBytes"));
    QVERIFY(refused(QByteArray(17, 'n'), "k", "v", "kvConfigMaxKeyBytes"));
    QVERIFY(refused("ns1", "big", QByteArray(33, 'v'), "kvConfigMaxValueBytes"));
    QVERIFY(kv.put("ns1", "k2", "v", limits).isOk());
    QVERIFY(kv.put("ns1", "k3", "v", limits).isOk());
    QVERIFY(refused("ns1", "k4", "v", "kvConfigMaxEntries"));
    QVERIFY(kv.put("ns2", "k", "v", limits).isOk());
    QVERIFY(refused("ns3", "k", "v", "kvConfigMaxNamespaces"));
    QVERIFY(!kv.list("ns3"));
    // At the limits exactly: stored.
    QVERIFY(kv.put("ns2", QByteArray(16, 'k'), QByteArray(32, 'v'), limits).isOk());

    // Without limits (the default) nothing is refused.
    QVERIFY(kv.put("ns3", QByteArray(5000, 'k'), QByteArray(100000, 'v')).isOk());
}

void tst_KvConfigManager::capsCountReplacementsAndRemovals()
{
    KvConfigManager kv;
    KvConfigManager::Limits limits;
    limits.maxEntries = 2;
    limits.maxTotalBytes = 100;
    QVERIFY(kv.put("ns", "a", QByteArray(40, 'x'), limits).isOk()); // 41 bytes
    QVERIFY(kv.put("ns", "b", QByteArray(40, 'x'), limits).isOk()); // 82
    QCOMPARE(kv.totalBytes(), std::int64_t(82));
    // Replacing is not a new entry; the size difference counts.
    QVERIFY(kv.put("ns", "a", QByteArray(50, 'y'), limits).isOk()); // 92
    QCOMPARE(kv.totalBytes(), std::int64_t(92));
    const Status st = kv.put("ns", "b", QByteArray(60, 'z'), limits); // would be 112
    QCOMPARE(st.code(), Status::Code::InvalidArgument);
    QVERIFY(st.message().contains(QLatin1String("kvConfigMaxTotalBytes")));
    QCOMPARE(kv.value("ns", "b").value_or(""), QByteArray(40, 'x'));
    QCOMPARE(kv.put("ns", "c", "v", limits).code(), Status::Code::InvalidArgument);
    // A removal frees its entry and bytes.
    QVERIFY(kv.remove("ns", "a").isOk());
    QCOMPARE(kv.totalBytes(), std::int64_t(41));
    QVERIFY(kv.put("ns", "c", QByteArray(58, 'c'), limits).isOk()); // 100: at the cap
    QCOMPARE(kv.totalBytes(), std::int64_t(100));
}

QTEST_APPLESS_MAIN(tst_KvConfigManager)
#include "tst_kvconfigmanager.moc"
