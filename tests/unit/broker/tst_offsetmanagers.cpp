// ConsumerOffsetManager and DelayOffsetManager: RocketMQ 4.9.7 files with unquoted int keys,
// commit/query, group/topic queries and removal, persistence round trips, .bak fallback.

#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <thread>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::testing;

class tst_OffsetManagers final : public QObject
{
    Q_OBJECT

private slots:
    void loadsRocketMqConsumerOffsets()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("consumerOffset.json"));
        ConsumerOffsetManager m(ConsumerOffsetManager::filePath(dir.path()));
        QVERIFY(m.load());
        QCOMPARE(m.keys().size(), 9);
        for (int q = 0; q < 4; ++q)
            QCOMPARE(
                m.query("please_rename_unique_group_name_4", "TopicTest", q), std::int64_t(250));
        QCOMPARE(m.query("op_retry_group", "RetryTopicJ", 2), std::int64_t(3));
        QCOMPARE(m.query("GID_aliOnsRT_mx2s0a6ec7753a", "%RETRY%GID_aliOnsRT_mx2s0a6ec7753a", 0),
            std::int64_t(-1)); // stored -1 reads as "none"
        QCOMPARE(m.query("op_retry_group", "RetryTopicJ", 4), std::int64_t(-1));
        QCOMPARE(m.query("nobody", "TopicTest", 0), std::int64_t(-1));
        const auto all = m.query("cpp_g_vec", "CppTopic");
        QCOMPARE(all, (ConsumerOffsetManager::QueueOffsets {{0, 5}, {1, 5}, {2, 5}, {3, 5}}));
        QCOMPARE(
            m.groupsOfTopic("TopicTest"), QList<QByteArray> {"please_rename_unique_group_name_4"});
        QCOMPARE(m.topicsOfGroup("op_retry_group"),
            (QList<QByteArray> {"%RETRY%op_retry_group", "RetryTopicJ"}));
    }

    void slaveSyncMergesLikePutAll()
    {
        // RocketMQ 4.9.7's SlaveSynchronize puts the master's table into the slave's (putAll):
        // the master's keys replace the slave's whole, keys only the slave has stay.
        QTemporaryDir dir;
        ConsumerOffsetManager m(ConsumerOffsetManager::filePath(dir.path()));
        QVERIFY(m.commit("G_both", "T", 0, 5));
        QVERIFY(m.commit("G_both", "T", 3, 9)); // the master's entry has no queue 3
        QVERIFY(m.commit("G_slave_only", "T", 1, 42));
        QVERIFY(m.mergeFrom(QByteArrayView(R"({"offsetTable":{"T@G_both":{0:7,1:8},)"
                                           R"("T@G_master":{2:3}}})")));
        QCOMPARE(m.query("G_both", "T"), (ConsumerOffsetManager::QueueOffsets {{0, 7}, {1, 8}}));
        QCOMPARE(m.query("G_master", "T", 2), std::int64_t(3));
        QCOMPARE(m.query("G_slave_only", "T", 1), std::int64_t(42));
        // A body that does not decode changes nothing.
        QVERIFY(!m.mergeFrom(QByteArrayView("{\"offsetTable\":{\"T@G_both\":{0:")));
        QCOMPARE(m.query("G_both", "T", 0), std::int64_t(7));
        QCOMPARE(m.keys().size(), 3);
        // decode() (loading the file) still replaces the table.
        QVERIFY(m.decode(QByteArrayView(R"({"offsetTable":{"T@G_master":{2:4}}})")));
        QCOMPARE(m.keys(), QList<QByteArray> {"T@G_master"});
    }

    void commitQueryAndReload()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("consumerOffset.json"));
        const QString path = ConsumerOffsetManager::filePath(dir.path());
        QByteArray encoded;
        {
            ConsumerOffsetManager m(path);
            QVERIFY(m.load());
            QVERIFY(m.commit("G", "T", 0, 10));
            QVERIFY(m.commit("G", "T", 3, 7));
            QVERIFY(m.commit("G", "T", 0, 12));
            QVERIFY(!m.commit("G", "T", 1, -1)); // ali-ons "no offset"
            QVERIFY(!m.commit("G", "T", -1, 5));
            QCOMPARE(m.query("G", "T", 0), std::int64_t(12));
            QCOMPARE(m.query("G", "T", 1), std::int64_t(-1));
            QVERIFY(m.persist());
            encoded = m.encode();
        }
        QVERIFY(encoded.contains("\"T@G\":{\"0\":12,\"3\":7}"));
        QVERIFY(QFile::exists(path + QStringLiteral(".bak")));
        ConsumerOffsetManager m(path);
        QVERIFY(m.load());
        QCOMPARE(m.encode(), encoded);
        QCOMPARE(m.query("G", "T", 3), std::int64_t(7));
        QCOMPARE(m.query("please_rename_unique_group_name_4", "TopicTest", 1), std::int64_t(250));
    }

    void removal()
    {
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.path() + QStringLiteral("/file"), "x"));
        // The parent "directory" is a file: persisting fails.
        ConsumerOffsetManager m(dir.path() + QStringLiteral("/file/consumerOffset.json"));
        m.commit("G1", "T1", 0, 1);
        m.commit("G1", "T2", 0, 2);
        m.commit("G2", "T1", 0, 3);
        m.commit("G2", "%RETRY%G2", 0, 4);
        m.cloneOffsets("G1", "G3", "T1");
        QCOMPARE(m.query("G3", "T1", 0), std::int64_t(1));
        QCOMPARE(m.groupsOfTopic("T1"), (QList<QByteArray> {"G1", "G2", "G3"}));
        m.removeGroup("G1");
        QCOMPARE(m.topicsOfGroup("G1"), QList<QByteArray>());
        QCOMPARE(m.query("G2", "T1", 0), std::int64_t(3));
        m.removeTopic("T1");
        QCOMPARE(m.groupsOfTopic("T1"), QList<QByteArray>());
        m.remove("G2", "%RETRY%G2");
        QCOMPARE(m.keys(), QList<QByteArray>());
        QVERIFY(!m.persist()); // unwritable path: an error, not a crash
    }

    void corruptOffsetsFallBack()
    {
        QTemporaryDir dir;
        const QString path = ConsumerOffsetManager::filePath(dir.path());
        {
            ConsumerOffsetManager m(path);
            m.commit("G", "T", 0, 1);
            QVERIFY(m.persist());
            m.commit("G", "T", 0, 2);
            QVERIFY(m.persist());
        }
        QVERIFY(writeFile(path, "{\"offsetTable\":{\"T@G\":{0:"));
        ConsumerOffsetManager m(path);
        QVERIFY(m.load());
        QCOMPARE(m.query("G", "T", 0), std::int64_t(1));

        for (const char *bad :
            {"{\"offsetTable\":{\"T@G\":{\"x\":1}}}", "{\"offsetTable\":{\"T@G\":5}}",
                "{\"offsetTable\":{\"T@G\":{\"0\":\"a\"}}}", "{}"}) {
            ConsumerOffsetManager d(path);
            QVERIFY2(!d.decode(QByteArrayView(bad)), bad);
        }
    }

    void concurrentCommitsAndPersist()
    {
        QTemporaryDir dir;
        ConsumerOffsetManager m(ConsumerOffsetManager::filePath(dir.path()));
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                for (int i = 1; i <= 500; ++i) {
                    m.commit("G" + QByteArray::number(t), "T", i % 8, i);
                    if (i % 100 == 0)
                        m.persist();
                    (void)m.query("G0", "T", 1);
                }
            });
        }
        for (auto &th : threads)
            th.join();
        QVERIFY(m.persist());
        ConsumerOffsetManager again(m.path());
        QVERIFY(again.load());
        for (int t = 0; t < 4; ++t)
            QCOMPARE(again.query("G" + QByteArray::number(t), "T", 500 % 8), std::int64_t(500));
        QCOMPARE(again.encode(), m.encode());
    }

    void loadsRocketMqDelayOffsets()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("delayOffset.json"));
        DelayOffsetManager m(DelayOffsetManager::filePath(dir.path()));
        QVERIFY(m.load());
        QCOMPARE(m.table(), (std::map<int, std::int64_t> {{3, 110}, {4, 2}, {5, 1}}));
        QCOMPARE(m.offset(3), std::int64_t(110));
        QCOMPARE(m.offset(1), std::int64_t(0));
        m.setOffset(1, 9);
        m.setOffset(3, 111);
        QVERIFY(m.persist());
        QCOMPARE(m.encode(), QByteArray("{\"offsetTable\":{\"1\":9,\"3\":111,\"4\":2,\"5\":1}}"));
        DelayOffsetManager again(m.path());
        QVERIFY(again.load());
        QCOMPARE(again.table(), m.table());
    }

    void corruptDelayOffsetsFallBack()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("delayOffset.json"));
        const QString path = DelayOffsetManager::filePath(dir.path());
        QVERIFY(QFile::copy(path, path + QStringLiteral(".bak")));
        QVERIFY(writeFile(path, "{\"offsetTable\":{0:1}}")); // level 0 does not exist
        DelayOffsetManager m(path);
        QVERIFY(m.load());
        QCOMPARE(m.offset(3), std::int64_t(110));
        QVERIFY(writeFile(path + QStringLiteral(".bak"), "nonsense"));
        DelayOffsetManager bad(path);
        QCOMPARE(bad.load().code(), Status::Code::Corruption);
        QVERIFY(bad.table().empty());
    }
};

QTEST_APPLESS_MAIN(tst_OffsetManagers)
#include "tst_offsetmanagers.moc"
