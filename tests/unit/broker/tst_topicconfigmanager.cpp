// TopicConfigManager: system topics, topics.json from RocketMQ 4.9.7, persistence, auto-create,
// retry/DLQ topics, validation, change notification.

#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::testing;

namespace {

BrokerConfig testConfig()
{
    BrokerConfig c;
    c.brokerClusterName = QStringLiteral("DefaultCluster");
    c.brokerName = QStringLiteral("broker-a");
    return c;
}

} // namespace

class tst_TopicConfigManager final : public QObject
{
    Q_OBJECT

private slots:
    void createsSystemTopics()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QVERIFY(m.load());
        const auto tbw = m.find("TBW102");
        QVERIFY(tbw);
        QCOMPARE(tbw->perm, 7);
        QCOMPARE(tbw->readQueueNums, 8);
        QCOMPARE(tbw->writeQueueNums, 8);
        QCOMPARE(m.find("SELF_TEST_TOPIC")->writeQueueNums, 1);
        QCOMPARE(m.find("BenchmarkTest")->writeQueueNums, 1024);
        QCOMPARE(m.find("DefaultCluster")->perm, 7);
        QCOMPARE(m.find("DefaultCluster")->writeQueueNums, 16);
        QCOMPARE(m.find("broker-a")->perm, 7);
        QCOMPARE(m.find("broker-a")->writeQueueNums, 1);
        QCOMPARE(m.find("OFFSET_MOVED_EVENT")->writeQueueNums, 1);
        QCOMPARE(m.find("SCHEDULE_TOPIC_XXXX")->writeQueueNums, 18);
        QCOMPARE(m.find("DefaultCluster_REPLY_TOPIC")->writeQueueNums, 1);
        QVERIFY(!m.contains("RMQ_SYS_TRACE_TOPIC"));
        QVERIFY(m.isSystemTopic("DefaultCluster"));
        QVERIFY(m.isSystemTopic("broker-a"));
        QVERIFY(m.isSystemTopic("TBW102"));
        QVERIFY(m.isSystemTopic("rmq_sys_anything"));
        QVERIFY(!m.isSystemTopic("TopicTest"));
    }

    void systemTopicSwitches()
    {
        BrokerConfig c = testConfig();
        c.autoCreateTopicEnable = false;
        c.clusterTopicEnable = false;
        c.brokerTopicEnable = false;
        c.traceTopicEnable = true;
        c.defaultTopicQueueNums = 4;
        QTemporaryDir dir;
        TopicConfigManager m(c, TopicConfigManager::filePath(dir.path()));
        QVERIFY(!m.contains("TBW102"));
        QCOMPARE(m.find("DefaultCluster")->perm, 1);
        QCOMPARE(m.find("broker-a")->perm, 1);
        QVERIFY(m.contains("RMQ_SYS_TRACE_TOPIC"));
    }

    void loadsRocketMqFile()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("topics.json"));
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QVERIFY(m.load());
        QCOMPARE(m.topics().size(), std::size_t(22));
        QCOMPARE(m.dataVersion().counter, std::int64_t(14));
        QCOMPARE(m.dataVersion().timestamp, std::int64_t(1796013491638));
        const auto t = m.find("TopicTest");
        QVERIFY(t);
        QCOMPARE(t->readQueueNums, 4);
        QCOMPARE(t->writeQueueNums, 4);
        QCOMPARE(t->perm, 6);
        QCOMPARE(t->topicFilterType, TopicFilterType::SingleTag);
        QVERIFY(!t->order);
        QCOMPARE(m.find("%RETRY%cpp_g_vec")->writeQueueNums, 1);
        QCOMPARE(m.find("RMQ_SYS_TRANS_HALF_TOPIC")->writeQueueNums, 1);
    }

    void persistAndReload()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("topics.json"));
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfig custom("OrderTopic", 3, 6);
        custom.order = true;
        custom.topicFilterType = TopicFilterType::MultiTag;
        custom.topicSysFlag = 2;
        DataVersion version;
        {
            TopicConfigManager m(testConfig(), path);
            QVERIFY(m.load());
            QVERIFY(m.updateTopicConfig(custom));
            version = m.dataVersion();
            QCOMPARE(version.counter, std::int64_t(15));
        }
        QVERIFY(QFile::exists(path + QStringLiteral(".bak")));
        TopicConfigManager again(testConfig(), path);
        QVERIFY(again.load());
        QCOMPARE(again.topics().size(), std::size_t(23));
        QCOMPARE(*again.find("OrderTopic"), custom);
        QCOMPARE(again.dataVersion(), version);
        TopicConfigManager third(testConfig(), path);
        QVERIFY(third.load());
        QCOMPARE(third.encode(), again.encode());
    }

    void corruptFileFallsBackToBackup()
    {
        QTemporaryDir dir;
        const QString path = TopicConfigManager::filePath(dir.path());
        {
            TopicConfigManager m(testConfig(), path);
            QVERIFY(m.updateTopicConfig(TopicConfig("First", 2)));
            QVERIFY(m.updateTopicConfig(TopicConfig("Second", 2)));
        }
        QVERIFY(writeFile(path, "{\"topicConfigTable\":{\"broken\":"));
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        QVERIFY(m.contains("First"));
        QVERIFY(!m.contains("Second")); // the backup is one write behind
        QVERIFY(!m.contains("broken"));

        QVERIFY(writeFile(path + QStringLiteral(".bak"), "[]"));
        TopicConfigManager bad(testConfig(), path);
        const Status st = bad.load();
        QCOMPARE(st.code(), Status::Code::Corruption);
    }

    void autoCreateInheritsFromTbw102()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QList<QByteArray> notified;
        m.setChangeListener([&](const QByteArray &t) { notified.append(t); });
        const auto before = m.dataVersion();
        auto c = m.createTopicInSendMessageMethod("NewTopic", "TBW102", "127.0.0.1:5555", 4, 0);
        QVERIFY(c);
        QCOMPARE(c->writeQueueNums, 4);
        QCOMPARE(c->readQueueNums, 4);
        QCOMPARE(c->perm, 6); // TBW102's 7 without INHERIT
        QCOMPARE(m.dataVersion().counter, before.counter + 1);
        QCOMPARE(notified, QList<QByteArray> {"NewTopic"});
        QVERIFY(QFile::exists(m.path()));

        // Capped by the template's queue count; existing topics come back unchanged.
        auto big = m.createTopicInSendMessageMethod("BigTopic", "TBW102", "", 64, 0);
        QCOMPARE(big->writeQueueNums, 8);
        auto again = m.createTopicInSendMessageMethod("NewTopic", "TBW102", "", 8, 0);
        QCOMPARE(again->writeQueueNums, 4);
        QCOMPARE(notified.size(), 2);
    }

    void autoCreateRefused()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        // Template without INHERIT.
        QVERIFY(m.updateTopicConfig(TopicConfig("Plain", 4, 6)));
        auto r = m.createTopicInSendMessageMethod("X1", "Plain", "", 4, 0);
        QVERIFY(!r);
        QCOMPARE(r.error().code(), Status::Code::NotFound);
        // Missing template.
        QCOMPARE(m.createTopicInSendMessageMethod("X2", "Nope", "", 4, 0).error().code(),
            Status::Code::NotFound);
        // Bad name.
        QCOMPARE(m.createTopicInSendMessageMethod("bad topic", "TBW102", "", 4, 0).error().code(),
            Status::Code::InvalidArgument);
        QVERIFY(!m.contains("X1"));

        // autoCreateTopicEnable off but TBW102 still in an old topics.json: no auto-create.
        BrokerConfig off = testConfig();
        off.autoCreateTopicEnable = false;
        {
            TopicConfigManager on(testConfig(), TopicConfigManager::filePath(dir.path()));
            QVERIFY(on.persist());
        }
        TopicConfigManager m2(off, TopicConfigManager::filePath(dir.path()));
        QVERIFY(m2.load());
        QVERIFY(m2.contains("TBW102"));
        QVERIFY(!m2.createTopicInSendMessageMethod("X3", "TBW102", "", 4, 0));
    }

    void retryAndDlqTopics()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        int calls = 0;
        m.setChangeListener([&](const QByteArray &) { ++calls; });
        const TopicConfig retry = m.createRetryTopic("G1", 1).value();
        QCOMPARE(retry.topicName, QByteArray("%RETRY%G1"));
        QCOMPARE(retry.writeQueueNums, 1);
        QCOMPARE(retry.readQueueNums, 1);
        QCOMPARE(retry.perm, 6);
        QCOMPARE(calls, 1);
        m.createRetryTopic("G1", 3); // exists: unchanged, no notification
        QCOMPARE(m.find("%RETRY%G1")->writeQueueNums, 1);
        QCOMPARE(calls, 1);
        const TopicConfig dlq = m.createDlqTopic("G1").value();
        // A group whose retry topic could be no topic creates nothing (RocketMQ 5: <= 120).
        QVERIFY(m.createRetryTopic(QByteArray(120, 'g'), 1));
        const auto tooLong = m.createRetryTopic(QByteArray(121, 'g'), 1);
        QVERIFY(!tooLong);
        QVERIFY(tooLong.error().message().contains(QStringLiteral("120")));
        QVERIFY(!m.createDlqTopic(QByteArray(200, 'g')));
        QVERIFY(!m.createTopicInSendMessageBackMethod("%RETRY%../x", 1, 6));
        QVERIFY(!m.find("%RETRY%" + QByteArray(121, 'g')));
        QCOMPARE(dlq.topicName, QByteArray("%DLQ%G1"));
        QCOMPARE(dlq.writeQueueNums, 1);
        QCOMPARE(dlq.perm, 6);
        QCOMPARE(calls, 3); // %RETRY%G1, %DLQ%G1 and the 120-character group's retry topic
        QVERIFY(topics::isRetryTopic("%RETRY%G1"));
        QVERIFY(topics::isDlqTopic("%DLQ%G1"));
    }

    void validation_data()
    {
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<bool>("valid");
        QTest::addRow("plain") << QByteArray("Topic_A-1") << true;
        QTest::addRow("retry") << QByteArray("%RETRY%g|x") << true;
        QTest::addRow("127") << QByteArray(127, 'a') << true;
        QTest::addRow("128") << QByteArray(128, 'a') << false;
        QTest::addRow("empty") << QByteArray() << false;
        QTest::addRow("space") << QByteArray("a b") << false;
        QTest::addRow("dot") << QByteArray("a.b") << false;
        QTest::addRow("at") << QByteArray("a@b") << false;
        QTest::addRow("utf8") << QByteArray("t\xc3\xa9") << false;
    }
    void validation()
    {
        QFETCH(QByteArray, name);
        QFETCH(bool, valid);
        QCOMPARE(bool(topics::validateTopic(name)), valid);
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QCOMPARE(bool(m.updateTopicConfig(TopicConfig(name, 4))), valid);
        QVERIFY(topics::validateGroup(QByteArray(120, 'g')));
        QVERIFY(!topics::validateGroup(QByteArray(121, 'g')));
        QVERIFY(topics::isNotAllowedSendTopic("SCHEDULE_TOPIC_XXXX"));
        QVERIFY(topics::isNotAllowedSendTopic("RMQ_SYS_TRANS_HALF_TOPIC"));
        // RocketMQ 4.9.7 NOT_ALLOWED_SEND_TOPIC_SET: the producer refuses these too.
        QVERIFY(topics::isNotAllowedSendTopic("SELF_TEST_TOPIC"));
        QVERIFY(topics::isNotAllowedSendTopic("OFFSET_MOVED_EVENT"));
        QVERIFY(topics::isNotAllowedSendTopic("TRANS_CHECK_MAX_TIME_TOPIC"));
        QVERIFY(!topics::isNotAllowedSendTopic("TBW102"));
    }

    void rejectsBadQueueCounts()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        TopicConfig c("T", 4);
        c.writeQueueNums = -1;
        QCOMPARE(m.updateTopicConfig(c).code(), Status::Code::InvalidArgument);
    }

    void deleteTopic()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QVERIFY(m.updateTopicConfig(TopicConfig("Gone", 4)));
        QList<QByteArray> notified;
        m.setChangeListener([&](const QByteArray &t) { notified.append(t); });
        const auto v = m.dataVersion().counter;
        QVERIFY(m.deleteTopicConfig("Gone"));
        QVERIFY(!m.contains("Gone"));
        QCOMPARE(m.dataVersion().counter, v + 1);
        QVERIFY(!m.deleteTopicConfig("Gone"));
        QCOMPARE(notified, QList<QByteArray> {"Gone"});
        TopicConfigManager reloaded(testConfig(), m.path());
        QVERIFY(reloaded.load());
        QVERIFY(!reloaded.contains("Gone"));
    }

    void slaveReplacesTableFromMaster()
    {
        QTemporaryDir masterDir;
        copyGoldenConfig(masterDir, QStringLiteral("topics.json"));
        TopicConfigManager master(testConfig(), TopicConfigManager::filePath(masterDir.path()));
        QVERIFY(master.load());
        QTemporaryDir slaveDir;
        TopicConfigManager slave(testConfig(), TopicConfigManager::filePath(slaveDir.path()));
        QVERIFY(slave.updateTopicConfig(TopicConfig("OnlyOnSlave", 2)));
        QList<QByteArray> notified;
        slave.setChangeListener([&](const QByteArray &t) { notified.append(t); });
        QVERIFY(!slave.replaceFrom("{\"topicConfigTable\":"));
        QVERIFY(slave.contains("OnlyOnSlave"));
        QVERIFY(slave.replaceFrom(master.encode()));
        QVERIFY(!slave.contains("OnlyOnSlave"));
        QCOMPARE(slave.encode(), master.encode());
        QCOMPARE(notified, QList<QByteArray> {QByteArray()});
        TopicConfigManager reloaded(testConfig(), slave.path());
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.dataVersion(), master.dataVersion());
    }

    void concurrentAutoCreateCreatesOnce()
    {
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        std::atomic<int> notified {0};
        m.setChangeListener([&](const QByteArray &) { ++notified; });
        std::vector<std::thread> threads;
        std::atomic<int> ok {0};
        for (int t = 0; t < 8; ++t) {
            threads.emplace_back([&, t] {
                for (int i = 0; i < 20; ++i) {
                    const QByteArray topic = "Race" + QByteArray::number(i % 4);
                    if (m.createTopicInSendMessageMethod(topic, "TBW102", "", 4, 0))
                        ++ok;
                    m.createRetryTopic("G" + QByteArray::number((i + t) % 3), 1);
                    (void)m.find(topic);
                    (void)m.encode();
                }
            });
        }
        for (auto &th : threads)
            th.join();
        QCOMPARE(ok.load(), 160);
        QCOMPARE(notified.load(), 7); // 4 topics + 3 retry topics, each created once
        TopicConfigManager reloaded(testConfig(), m.path());
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.encode(), m.encode());
    }

    void preparedBodyFollowsEveryChange()
    {
        // GET_ALL_TOPIC_CONFIG answers preparedBody(): the same bytes as encode() after every kind
        // of change, and (no change in between) the same buffer, not a new encode.
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QTemporaryDir otherDir;
        TopicConfigManager other(testConfig(), TopicConfigManager::filePath(otherDir.path()));
        QVERIFY(other.updateTopicConfig(TopicConfig("FromMaster", 3)));
        int checks = 0;
        auto check = [&](const char *what) {
            const QByteArray prepared = m.preparedBody();
            if (prepared != m.encode())
                return QByteArray(what) + ": prepared body differs from a fresh encode";
            if (m.preparedBody().constData() != prepared.constData())
                return QByteArray(what) + ": encoded again without a change";
            ++checks;
            return QByteArray();
        };
        const QByteArray initial = m.preparedBody();
        QVERIFY(m.load());
        QCOMPARE(check("load"), QByteArray());
        QVERIFY(m.updateTopicConfig(TopicConfig("T1", 4)));
        QCOMPARE(check("create"), QByteArray());
        QVERIFY(m.preparedBody().contains("\"T1\":{"));
        TopicConfig updated("T1", 8);
        updated.perm = 4;
        QVERIFY(m.updateTopicConfig(updated));
        QCOMPARE(check("update"), QByteArray());
        QVERIFY(m.preparedBody().contains("\"perm\":4,\"readQueueNums\":8"));
        QVERIFY(m.createTopicInSendMessageMethod("Auto", "TBW102", "", 4, 0));
        QCOMPARE(check("auto-create"), QByteArray());
        QVERIFY(m.createRetryTopic("G", 1));
        QCOMPARE(check("retry topic"), QByteArray());
        QVERIFY(m.updateOrderTopics({"T1"}));
        QCOMPARE(check("order topics"), QByteArray());
        QVERIFY(m.preparedBody().contains("\"T1\":{\"order\":true"));
        const QByteArray beforeVersion = m.preparedBody();
        m.nextDataVersion();
        QCOMPARE(check("data version"), QByteArray());
        QVERIFY(m.preparedBody() != beforeVersion);
        QVERIFY(m.deleteTopicConfig("T1"));
        QCOMPARE(check("delete"), QByteArray());
        QVERIFY(!m.preparedBody().contains("\"T1\""));
        QVERIFY(!m.deleteTopicConfig("T1"));
        QCOMPARE(check("delete of a missing topic"), QByteArray());
        QVERIFY(m.replaceFrom(other.encode()));
        QCOMPARE(check("slave sync"), QByteArray());
        QCOMPARE(m.preparedBody(), other.encode());
        QVERIFY(!m.decode("{\"topicConfigTable\":")); // not JSON: nothing changes
        QCOMPARE(check("failed decode"), QByteArray());
        QVERIFY(initial != m.preparedBody());

        // A restart: the file plus the journal's changes, replayed.
        QVERIFY(m.updateTopicConfig(TopicConfig("Journaled", 2)));
        TopicConfigManager reloaded(testConfig(), m.path());
        (void)reloaded.preparedBody(); // prepared before load: load must invalidate it
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.preparedBody(), reloaded.encode());
        QCOMPARE(reloaded.preparedBody(), m.preparedBody());
        QCOMPARE(checks, 11);
    }

    void preparedBodyUnderConcurrentChanges()
    {
        // Readers take the prepared body while writers create topics: every body a reader gets is
        // a complete table (it parses and holds the topics that existed when it was asked for).
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        QVERIFY(m.load());
        std::atomic<bool> stop {false};
        std::atomic<int> bad {0};
        std::vector<std::thread> readers;
        for (int r = 0; r < 3; ++r) {
            readers.emplace_back([&] {
                while (!stop.load()) {
                    const std::size_t before = m.topics().size();
                    const QByteArray body = m.preparedBody();
                    auto parsed = protocol::parseJson(body);
                    if (!parsed || (*parsed)["topicConfigTable"].members().size() < before)
                        ++bad;
                }
            });
        }
        for (int i = 0; i < 300; ++i)
            QVERIFY(m.updateTopicConfig(TopicConfig("C" + QByteArray::number(i), 1)));
        stop = true;
        for (auto &t : readers)
            t.join();
        QCOMPARE(bad.load(), 0);
        QCOMPARE(m.preparedBody(), m.encode());
    }

    void encodeShape()
    {
        TopicConfig c("T", 4);
        QCOMPARE(c.toJson(),
            QByteArray("{\"order\":false,\"perm\":6,\"readQueueNums\":4,\"topicFilterType\":"
                       "\"SINGLE_TAG\",\"topicName\":\"T\",\"topicSysFlag\":0,"
                       "\"writeQueueNums\":4}"));
        QCOMPARE((DataVersion {7, 5}).toJson(), QByteArray("{\"counter\":7,\"timestamp\":5}"));
        QTemporaryDir dir;
        TopicConfigManager m(testConfig(), TopicConfigManager::filePath(dir.path()));
        const QByteArray all = m.encode();
        QVERIFY(all.startsWith("{\"dataVersion\":{\"counter\":0,\"timestamp\":"));
        QVERIFY(all.contains("\"topicConfigTable\":{"));
        QVERIFY(all.contains("\"TBW102\":{\"order\":false,\"perm\":7,"));
    }
};

QTEST_APPLESS_MAIN(tst_TopicConfigManager)
#include "tst_topicconfigmanager.moc"
