// ConsumerOffsetManager and DelayOffsetManager: RocketMQ 4.9.7 files with unquoted int keys,
// commit/query, group/topic queries and removal, persistence round trips, .bak fallback.

#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
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

    void lightQueueGroupsInTheFlatTable()
    {
        // enableLmq (RocketMQ 4.9.7's LmqConsumerOffsetManager): a "%LMQ%" group has one offset
        // per topic, whatever the queue id, in "lmqOffsetTable" of lmqConsumerOffset.json.
        QTemporaryDir dir;
        const QString path = ConsumerOffsetManager::lmqFilePath(dir.path());
        QVERIFY(path.endsWith(QStringLiteral("/config/lmqConsumerOffset.json")));
        QByteArray encoded;
        {
            ConsumerOffsetManager m(path, true);
            QVERIFY(m.commit("%LMQ%q1", "%LMQ%q1", 0, 5));
            QVERIFY(m.commit("%LMQ%q1", "%LMQ%q1", 3, 7)); // the queue id is not kept
            QVERIFY(m.commit("GID_plain", "%LMQ%q1", 0, 2)); // an ordinary group: per queue
            QVERIFY(m.commit("GID_plain", "T", 1, 9));
            QVERIFY(!m.commit("%LMQ%q2", "%LMQ%q2", 0, -1));
            QCOMPARE(m.query("%LMQ%q1", "%LMQ%q1", 0), std::int64_t(7));
            QCOMPARE(m.query("%LMQ%q1", "%LMQ%q1", 5), std::int64_t(7));
            QCOMPARE(m.query("%LMQ%q1", "%LMQ%q1"), (ConsumerOffsetManager::QueueOffsets {{0, 7}}));
            QCOMPARE(m.query("%LMQ%q2", "%LMQ%q2", 0), std::int64_t(-1));
            QCOMPARE(m.groupsOfTopic("%LMQ%q1"), (QList<QByteArray> {"%LMQ%q1", "GID_plain"}));
            QCOMPARE(m.topicsOfGroup("%LMQ%q1"), QList<QByteArray> {"%LMQ%q1"});
            m.cloneOffsets("%LMQ%q1", "%LMQ%q3", "%LMQ%q1");
            QCOMPARE(m.query("%LMQ%q3", "%LMQ%q1", 0), std::int64_t(7));
            QVERIFY(m.persist());
            encoded = m.encode();
        }
        QCOMPARE(encoded,
            QByteArray(R"({"offsetTable":{"%LMQ%q1@GID_plain":{"0":2},"T@GID_plain":{"1":9}},)"
                       R"("lmqOffsetTable":{"%LMQ%q1@%LMQ%q1":7,"%LMQ%q1@%LMQ%q3":7}})"));
        ConsumerOffsetManager again(path, true);
        QVERIFY(again.load());
        QCOMPARE(again.encode(), encoded);
        again.removeTopic("%LMQ%q1");
        QCOMPARE(again.keys(), QList<QByteArray> {"T@GID_plain"});

        // The file as a 4.9.7 broker writes it (fastjson: sorted fields, unquoted int keys).
        ConsumerOffsetManager java(path, true);
        QVERIFY(java.decode(QByteArrayView(R"({"lmqOffsetTable":{"%LMQ%a@%LMQ%a":11},)"
                                           R"("offsetTable":{"T@G":{0:3,1:4}}})")));
        QCOMPARE(java.query("%LMQ%a", "%LMQ%a", 0), std::int64_t(11));
        QCOMPARE(java.query("G", "T", 1), std::int64_t(4));
        for (const char *bad : {R"({"offsetTable":{},"lmqOffsetTable":[1]})",
                 R"({"offsetTable":{},"lmqOffsetTable":{"%LMQ%a@%LMQ%a":"x"}})"}) {
            ConsumerOffsetManager d(path, true);
            QVERIFY2(!d.decode(QByteArrayView(bad)), bad);
        }
    }

    void enableLmqTurnedOnAndOffKeepsOffsets()
    {
        QTemporaryDir dir;
        const QString root = dir.path();
        QVERIFY(QDir().mkpath(root + QStringLiteral("/config")));
        // Without enableLmq a light-queue group is an ordinary one (queue 0), in
        // consumerOffset.json.
        QCOMPARE(ConsumerOffsetManager::fileToLoad(root, true),
            ConsumerOffsetManager::lmqFilePath(root)); // nothing yet: its own
        {
            ConsumerOffsetManager off(ConsumerOffsetManager::filePath(root), false);
            QVERIFY(off.commit("%LMQ%q", "%LMQ%q", 0, 4));
            QVERIFY(off.commit("G", "T", 2, 8));
            QVERIFY(off.persist());
            QVERIFY(!off.encode().contains("lmqOffsetTable"));
        }
        // Turned on: the older setting's file is the only one, so it is read; its entries go
        // where an enableLmq broker keeps them.
        const QString from = ConsumerOffsetManager::fileToLoad(root, true);
        QCOMPARE(from, ConsumerOffsetManager::filePath(root));
        ConsumerOffsetManager on(ConsumerOffsetManager::lmqFilePath(root), true);
        {
            ConsumerOffsetManager previous(from, true);
            QVERIFY(previous.load());
            QVERIFY(on.decode(previous.encode()));
        }
        QCOMPARE(on.query("%LMQ%q", "%LMQ%q", 7), std::int64_t(4));
        QVERIFY(on.encode().contains(R"("lmqOffsetTable":{"%LMQ%q@%LMQ%q":4})"));
        QVERIFY(on.commit("%LMQ%q", "%LMQ%q", 0, 6));
        // The file of each setting carries a newer time than the other's when it was written last.
        QFile old(ConsumerOffsetManager::filePath(root));
        QVERIFY(old.open(QIODevice::ReadWrite));
        QVERIFY(old.setFileTime(
            QDateTime::currentDateTime().addSecs(-60), QFileDevice::FileModificationTime));
        old.close();
        QVERIFY(on.persist());
        QCOMPARE(ConsumerOffsetManager::fileToLoad(root, true), on.path());
        // Turned off again: the lmq file is newer, so it is read; the flat offset is queue 0.
        QCOMPARE(ConsumerOffsetManager::fileToLoad(root, false), on.path());
        ConsumerOffsetManager offAgain(ConsumerOffsetManager::filePath(root), false);
        QVERIFY(offAgain.decode(on.encode()));
        QCOMPARE(
            offAgain.query("%LMQ%q", "%LMQ%q"), (ConsumerOffsetManager::QueueOffsets {{0, 6}}));
        QCOMPARE(offAgain.query("G", "T", 2), std::int64_t(8));
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
