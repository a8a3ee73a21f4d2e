// SubscriptionGroupManager: defaults, pre-seeded groups, subscriptionGroup.json from RocketMQ
// 4.9.7, auto-create, update/remove, persistence.

#include "broker/managers/subscriptiongroupmanager.h"
#include "tests/unit/broker/brokertestutil.h"

#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::broker;
using namespace qrocket::testing;

class tst_SubscriptionGroupManager final : public QObject
{
    Q_OBJECT

private slots:
    void defaultsAndSeeds()
    {
        QTemporaryDir dir;
        SubscriptionGroupManager m(true, SubscriptionGroupManager::filePath(dir.path()));
        QVERIFY(m.load());
        for (const char *g :
            {"TOOLS_CONSUMER", "FILTERSRV_CONSUMER", "SELF_TEST_C_GROUP", "CID_ONS-HTTP-PROXY",
                "CID_ONSAPI_PULL", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER"})
            QVERIFY2(m.find(g), g);
        QCOMPARE(m.groups().size(), std::size_t(7));
        const protocol::SubscriptionGroupConfig d {"G"};
        QVERIFY(d.consumeEnable);
        QVERIFY(d.consumeFromMinEnable);
        QVERIFY(d.consumeBroadcastEnable);
        QVERIFY(d.notifyConsumerIdsChangedEnable);
        QCOMPARE(d.retryQueueNums, 1);
        QCOMPARE(d.retryMaxTimes, 16);
        QCOMPARE(d.brokerId, std::int64_t(0));
        QCOMPARE(d.whichBrokerWhenConsumeSlowly, std::int64_t(1));
        QCOMPARE(d.toJson(),
            QByteArray("{\"brokerId\":0,\"consumeBroadcastEnable\":true,\"consumeEnable\":true,"
                       "\"consumeFromMinEnable\":true,\"groupName\":\"G\","
                       "\"notifyConsumerIdsChangedEnable\":true,\"retryMaxTimes\":16,"
                       "\"retryQueueNums\":1,\"whichBrokerWhenConsumeSlowly\":1}"));
    }

    void loadsRocketMqFile()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("subscriptionGroup.json"));
        SubscriptionGroupManager m(true, SubscriptionGroupManager::filePath(dir.path()));
        QVERIFY(m.load());
        QCOMPARE(m.groups().size(), std::size_t(13));
        QCOMPARE(m.dataVersion().counter, std::int64_t(6));
        QCOMPARE(m.dataVersion().timestamp, std::int64_t(1796013491634));
        const auto g = m.find("GID_aliOnsRT_mx2s0a6ec7753a");
        QVERIFY(g);
        QCOMPARE(*g, protocol::SubscriptionGroupConfig("GID_aliOnsRT_mx2s0a6ec7753a"));
        QVERIFY(m.find("")); // RocketMQ recorded an empty group name; it loads as is
    }

    void autoCreate()
    {
        QTemporaryDir dir;
        SubscriptionGroupManager on(true, SubscriptionGroupManager::filePath(dir.path()));
        const auto before = on.dataVersion().counter;
        const auto g = on.findOrCreate("NewGroup");
        QVERIFY(g);
        QCOMPARE(g->groupName, QByteArray("NewGroup"));
        QCOMPARE(g->retryMaxTimes, 16);
        QCOMPARE(on.dataVersion().counter, before + 1);
        QVERIFY(QFile::exists(on.path()));
        QVERIFY(!on.findOrCreate("bad group"));
        QVERIFY(!on.findOrCreate(""));

        QTemporaryDir dir2;
        SubscriptionGroupManager off(false, SubscriptionGroupManager::filePath(dir2.path()));
        QVERIFY(!off.findOrCreate("NewGroup"));
        QVERIFY(off.findOrCreate("CID_RMQ_SYS_TRANS")); // system groups are always created
        QVERIFY(off.findOrCreate("TOOLS_CONSUMER"));
    }

    void lightQueueGroupsAreNotStored()
    {
        // enableLmq (RocketMQ 4.9.7's LmqSubscriptionGroupManager): a "%LMQ%" group reads as the
        // defaults even without auto-create, and neither a read nor an update stores it.
        QTemporaryDir dir;
        SubscriptionGroupManager lmq(false, SubscriptionGroupManager::filePath(dir.path()), true);
        QVERIFY(lmq.load());
        const auto before = lmq.dataVersion().counter;
        const auto g = lmq.findOrCreate("%LMQ%room-1");
        QVERIFY(g);
        QCOMPARE(g->groupName, QByteArray("%LMQ%room-1"));
        QVERIFY(g->consumeEnable);
        protocol::SubscriptionGroupConfig changed {"%LMQ%room-1"};
        changed.consumeEnable = false;
        QVERIFY(lmq.update(changed));
        QVERIFY(!lmq.find("%LMQ%room-1"));
        QVERIFY(lmq.findOrCreate("%LMQ%room-1")->consumeEnable);
        QCOMPARE(lmq.dataVersion().counter, before);
        QCOMPARE(lmq.groups().size(), std::size_t(7)); // the seeds only
        QVERIFY(!lmq.findOrCreate("PlainGroup")); // other groups as before (no auto-create)

        // Without enableLmq the name is an ordinary group: auto-created and stored.
        QTemporaryDir dir2;
        SubscriptionGroupManager plain(true, SubscriptionGroupManager::filePath(dir2.path()));
        QVERIFY(plain.findOrCreate("%LMQ%room-1"));
        QVERIFY(plain.find("%LMQ%room-1"));
    }

    void updateRemoveAndReload()
    {
        QTemporaryDir dir;
        copyGoldenConfig(dir, QStringLiteral("subscriptionGroup.json"));
        const QString path = SubscriptionGroupManager::filePath(dir.path());
        protocol::SubscriptionGroupConfig c {"Custom"};
        c.retryQueueNums = 2;
        c.retryMaxTimes = 3;
        c.consumeEnable = false;
        c.consumeBroadcastEnable = false;
        c.whichBrokerWhenConsumeSlowly = 2;
        {
            SubscriptionGroupManager m(true, path);
            QVERIFY(m.load());
            QVERIFY(m.update(c));
            QVERIFY(m.remove("cpp_g_vec"));
            QVERIFY(!m.remove("cpp_g_vec"));
            QCOMPARE(m.dataVersion().counter, std::int64_t(8));
            QVERIFY(!m.update(protocol::SubscriptionGroupConfig("bad name")));
        }
        SubscriptionGroupManager m(true, path);
        QVERIFY(m.load());
        QCOMPARE(*m.find("Custom"), c);
        QVERIFY(!m.find("cpp_g_vec"));
        QCOMPARE(m.dataVersion().counter, std::int64_t(8));
        QCOMPARE(m.groups().size(), std::size_t(13));
    }

    void corruptFileFallsBackToBackup()
    {
        QTemporaryDir dir;
        const QString path = SubscriptionGroupManager::filePath(dir.path());
        {
            SubscriptionGroupManager m(true, path);
            m.findOrCreate("A");
            m.findOrCreate("B");
        }
        QVERIFY(writeFile(path, "{\"subscriptionGroupTable\":"));
        SubscriptionGroupManager m(true, path);
        QVERIFY(m.load());
        QVERIFY(m.find("A"));
        QVERIFY(!m.find("B"));
    }

    void slaveReplacesTableFromMaster()
    {
        QTemporaryDir masterDir;
        copyGoldenConfig(masterDir, QStringLiteral("subscriptionGroup.json"));
        SubscriptionGroupManager master(true, SubscriptionGroupManager::filePath(masterDir.path()));
        QVERIFY(master.load());
        QTemporaryDir slaveDir;
        SubscriptionGroupManager slave(true, SubscriptionGroupManager::filePath(slaveDir.path()));
        slave.findOrCreate("OnlyOnSlave");
        QVERIFY(!slave.replaceFrom("[]"));
        QVERIFY(slave.find("OnlyOnSlave"));
        QVERIFY(slave.replaceFrom(master.encode()));
        QVERIFY(!slave.find("OnlyOnSlave"));
        QCOMPARE(slave.encode(), master.encode());
        SubscriptionGroupManager reloaded(true, slave.path());
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.encode(), master.encode());
    }

    void preparedBodyFollowsEveryChange()
    {
        // GET_ALL_SUBSCRIPTIONGROUP_CONFIG answers preparedBody(): encode()'s bytes after every
        // kind of change, the same buffer while nothing changes.
        QTemporaryDir dir;
        SubscriptionGroupManager m(true, SubscriptionGroupManager::filePath(dir.path()));
        QTemporaryDir masterDir;
        copyGoldenConfig(masterDir, QStringLiteral("subscriptionGroup.json"));
        SubscriptionGroupManager master(true, SubscriptionGroupManager::filePath(masterDir.path()));
        QVERIFY(master.load());
        auto check = [&](const char *what) {
            const QByteArray prepared = m.preparedBody();
            if (prepared != m.encode())
                return QByteArray(what) + ": prepared body differs from a fresh encode";
            if (m.preparedBody().constData() != prepared.constData())
                return QByteArray(what) + ": encoded again without a change";
            return QByteArray();
        };
        (void)m.preparedBody();
        QVERIFY(m.load());
        QCOMPARE(check("load"), QByteArray());
        QVERIFY(m.findOrCreate("Auto"));
        QCOMPARE(check("auto-create"), QByteArray());
        QVERIFY(m.preparedBody().contains("\"Auto\":{"));
        protocol::SubscriptionGroupConfig c {"G"};
        QVERIFY(m.update(c));
        QCOMPARE(check("create"), QByteArray());
        c.retryMaxTimes = 3;
        QVERIFY(m.update(c));
        QCOMPARE(check("update"), QByteArray());
        QVERIFY(m.preparedBody().contains("\"retryMaxTimes\":3"));
        QVERIFY(m.remove("G"));
        QCOMPARE(check("delete"), QByteArray());
        QVERIFY(!m.preparedBody().contains("\"G\":{"));
        QVERIFY(m.replaceFrom(master.encode()));
        QCOMPARE(check("slave sync"), QByteArray());
        QCOMPARE(m.preparedBody(), master.encode());
        QVERIFY(m.update(protocol::SubscriptionGroupConfig {"Journaled"}));
        SubscriptionGroupManager reloaded(true, m.path());
        (void)reloaded.preparedBody();
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.preparedBody(), m.preparedBody());
    }

    void parsesUpdateBody()
    {
        auto c = protocol::SubscriptionGroupConfig::fromJson(
            QByteArrayView("{\"groupName\":\"G2\",\"retryQueueNums\":3,\"consumeEnable\":false,"
                           "\"unknownKey\":1}"));
        QVERIFY(c);
        QCOMPARE(c->groupName, QByteArray("G2"));
        QCOMPARE(c->retryQueueNums, 3);
        QVERIFY(!c->consumeEnable);
        QCOMPARE(c->retryMaxTimes, 16);
        QVERIFY(!protocol::SubscriptionGroupConfig::fromJson(QByteArrayView("[1,2")));
        QVERIFY(!protocol::SubscriptionGroupConfig::fromJson(QByteArrayView("[]")));
    }
};

QTEST_APPLESS_MAIN(tst_SubscriptionGroupManager)
#include "tst_subscriptiongroupmanager.moc"
