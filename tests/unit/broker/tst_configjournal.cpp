// ConfigJournal and the journaled config tables (topics.json, subscriptionGroup.json): records
// and their replay, a torn tail ignored, generations retired by a full write; a change costs a
// journal record, not a rewrite of the file; what a crash leaves on disk (the files copied while
// the manager is still alive) loads back with every change; the file is rewritten after
// compactThreshold() changes; asynchronous syncs (the admin path's group commit) share one
// fdatasync and complete only once durable, with the change listener run first.

#include "broker/config/brokerconfig.h"
#include "broker/config/configfilestore.h"
#include "broker/config/configjournal.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/protocol/json.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

using namespace qrocket;
using namespace qrocket::broker;

namespace {

BrokerConfig testConfig()
{
    BrokerConfig c;
    c.brokerClusterName = QStringLiteral("DefaultCluster");
    c.brokerName = QStringLiteral("broker-a");
    return c;
}

/// The config file and its journal files in `from`, copied to `to`: what a kill -9 at this moment
/// would leave (every append is written with write(2) before the change returns).
void copyConfigFiles(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    const QDir src(from);
    for (const QString &name : src.entryList(QDir::Files))
        QVERIFY(QFile::copy(src.filePath(name), QDir(to).filePath(name)));
}

QStringList journalFiles(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral("*.journal.*")}, QDir::Files, QDir::Name);
}

} // namespace

class tst_ConfigJournal final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        // One info line per change would drown the output of the thousands below.
        QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    }

    void recordsReplayInOrder()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.json"));
        {
            ConfigJournal j(path);
            for (int i = 0; i < 5; ++i) {
                auto ticket = j.append("r" + QByteArray::number(i));
                QVERIFY(ticket);
                QVERIFY(j.sync(*ticket));
            }
            QCOMPARE(j.recordsSinceRotate(), std::int64_t(5));
            QCOMPARE(j.rotate().value(), std::int64_t(1));
            QVERIFY(j.append("r5"));
        }
        QCOMPARE(journalFiles(dir.path()),
            (QStringList {QStringLiteral("t.json.journal.1"), QStringLiteral("t.json.journal.2")}));
        ConfigJournal again(path);
        QList<QByteArray> seen;
        auto n = again.replay([&](QByteArrayView p) {
            seen.append(p.toByteArray());
            return Status();
        });
        QCOMPARE(n.value(), std::int64_t(6));
        QCOMPARE(seen, (QList<QByteArray> {"r0", "r1", "r2", "r3", "r4", "r5"}));
        // A new run appends to a new generation, never after an old tail.
        QVERIFY(again.append("r6"));
        QVERIFY(journalFiles(dir.path()).contains(QStringLiteral("t.json.journal.3")));
        // Retiring: every generation up to the closed one goes.
        const std::int64_t closed = again.rotate().value();
        QCOMPARE(closed, std::int64_t(3));
        again.removeUpTo(closed);
        QVERIFY(journalFiles(dir.path()).isEmpty());
        QCOMPARE(again.bytesOnDisk(), qint64(0));
    }

    void asyncSyncsShareOneFdatasync()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.json"));
        std::atomic<int> completed {0};
        std::atomic<int> failed {0};
        {
            ConfigJournal j(path);
            std::vector<std::int64_t> tickets;
            for (int i = 0; i < 100; ++i)
                tickets.push_back(j.append("a" + QByteArray::number(i)).value());
            // Every record is written before the first sync starts: that sync covers them all,
            // whichever group each caller lands in.
            for (const std::int64_t ticket : tickets) {
                j.syncAsync(ticket, [&](Status st) { (st ? completed : failed).fetch_add(1); });
            }
            j.waitForAsync();
            QCOMPARE(completed.load(), 100);
            QCOMPARE(failed.load(), 0);
            QCOMPARE(j.syncCount(), std::int64_t(1));
            // A ticket already durable completes at once, on the caller's thread.
            bool atOnce = false;
            j.syncAsync(tickets.front(), [&](Status st) { atOnce = st.isOk(); });
            QVERIFY(atOnce);
            // Destroying the journal completes what is still pending.
            j.syncAsync(j.append("last").value(),
                [&](Status st) { (st ? completed : failed).fetch_add(1); });
        }
        QCOMPARE(completed.load(), 101);
        ConfigJournal reread(path);
        int records = 0;
        QVERIFY(reread.replay([&](QByteArrayView) {
            ++records;
            return Status();
        }));
        QCOMPARE(records, 101);
    }

    void asyncTopicChangesCompleteDurable()
    {
        QTemporaryDir dir;
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        std::mutex mutex;
        QList<QByteArray> notified; // guarded by mutex
        m.setChangeListener([&](const QByteArray &topic) {
            std::lock_guard lock(mutex);
            notified.append(topic);
        });
        std::atomic<int> done {0};
        std::atomic<int> failed {0};
        constexpr int kChanges = 300;
        for (int i = 0; i < kChanges; ++i) {
            const QByteArray name = "A" + QByteArray::number(i);
            m.updateTopicConfigAsync(
                TopicConfig(name, 4), [&](Status st) { (st ? done : failed).fetch_add(1); });
            QVERIFY(m.contains(name)); // in the table before it is durable
        }
        // A refused config is answered at once, without a change.
        Status refused;
        m.updateTopicConfigAsync(TopicConfig("bad topic", 4), [&](Status st) { refused = st; });
        QVERIFY(!refused.isOk());
        QVERIFY(!m.contains("bad topic"));
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), kChanges, 20000);
        QCOMPARE(failed.load(), 0);
        {
            std::lock_guard lock(mutex);
            QCOMPARE(notified.size(), kChanges); // the listener ran before each completion
        }
        // What a kill -9 now leaves loads back with every answered change.
        const QString crashed = dir.filePath(QStringLiteral("crashed/config"));
        copyConfigFiles(QFileInfo(path).absolutePath(), crashed);
        TopicConfigManager recovered(
            testConfig(), TopicConfigManager::filePath(dir.filePath(QStringLiteral("crashed"))));
        QVERIFY(recovered.load());
        QCOMPARE(recovered.encode(), m.encode());
        QVERIFY(recovered.contains("A" + QByteArray::number(kChanges - 1)));
    }

    void asyncGroupChangesCompleteDurable()
    {
        QTemporaryDir dir;
        const QString path = SubscriptionGroupManager::filePath(dir.path());
        SubscriptionGroupManager m(true, path);
        QVERIFY(m.load());
        std::atomic<int> done {0};
        std::atomic<int> failed {0};
        constexpr int kChanges = 200;
        for (int i = 0; i < kChanges; ++i) {
            m.updateAsync(protocol::SubscriptionGroupConfig {"G" + QByteArray::number(i)},
                [&](Status st) { (st ? done : failed).fetch_add(1); });
        }
        Status refused;
        m.updateAsync(protocol::SubscriptionGroupConfig {""}, [&](Status st) { refused = st; });
        QVERIFY(!refused.isOk());
        QTRY_COMPARE_WITH_TIMEOUT(done.load(), kChanges, 20000);
        QCOMPARE(failed.load(), 0);
        const QString crashed = dir.filePath(QStringLiteral("crashed/config"));
        copyConfigFiles(QFileInfo(path).absolutePath(), crashed);
        SubscriptionGroupManager recovered(
            true, SubscriptionGroupManager::filePath(dir.filePath(QStringLiteral("crashed"))));
        QVERIFY(recovered.load());
        QCOMPARE(recovered.encode(), m.encode());
        QVERIFY(recovered.find("G" + QByteArray::number(kChanges - 1)));
    }

    void tornTailIsIgnored_data()
    {
        QTest::addColumn<int>("cut"); // bytes cut off the last record
        QTest::addColumn<bool>("flipCrc");
        QTest::addRow("half a header") << 14 << false;
        QTest::addRow("half a payload") << 3 << false;
        QTest::addRow("bad crc") << 0 << true;
    }
    void tornTailIsIgnored()
    {
        QFETCH(int, cut);
        QFETCH(bool, flipCrc);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.json"));
        {
            ConfigJournal j(path);
            QVERIFY(j.append("first"));
            QVERIFY(j.append("second"));
            QVERIFY(j.append("third-record"));
        }
        const QString file = dir.filePath(QStringLiteral("t.json.journal.1"));
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray data = f.readAll();
        data.chop(cut);
        if (flipCrc)
            data[data.size() - 1] = 'X';
        QVERIFY(f.resize(0));
        QVERIFY(f.seek(0));
        QCOMPARE(f.write(data), data.size());
        f.close();
        ConfigJournal j(path);
        QList<QByteArray> seen;
        QCOMPARE(j.replay([&](QByteArrayView p) {
                      seen.append(p.toByteArray());
                      return Status();
                  }).value(),
            std::int64_t(2));
        QCOMPARE(seen, (QList<QByteArray> {"first", "second"}));
    }

    void aChangeDoesNotRewriteTheFile()
    {
        QTemporaryDir dir;
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        QVERIFY(m.updateTopicConfig(TopicConfig("First", 4)));
        // The first change writes the file (RocketMQ's tools find it at once) ...
        QVERIFY(QFile::exists(path));
        const QByteArray file = ConfigFileStore::readFile(path).value();
        QVERIFY(file.contains("\"First\""));
        // ... later ones only append to the journal.
        for (int i = 0; i < 50; ++i)
            QVERIFY(m.updateTopicConfig(TopicConfig("T" + QByteArray::number(i), 4)));
        QVERIFY(m.deleteTopicConfig("T7"));
        QCOMPARE(ConfigFileStore::readFile(path).value(), file);
        QCOMPARE(journalFiles(QFileInfo(path).absolutePath()).size(), 1);
        QVERIFY(m.journalBytes() > 0);
        // The coalesced rewrite: the file has everything, the journal is gone.
        QVERIFY(m.flushJournal());
        QVERIFY(journalFiles(QFileInfo(path).absolutePath()).isEmpty());
        TopicConfigManager reloaded(testConfig(), path);
        QVERIFY(reloaded.load());
        QCOMPARE(reloaded.encode(), m.encode());
        QVERIFY(!reloaded.contains("T7"));
        QVERIFY(reloaded.contains("T49"));
    }

    void crashLeavesEveryChange()
    {
        QTemporaryDir dir;
        const QString config = dir.filePath(QStringLiteral("config"));
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        TopicConfig order("OrderTopic", 3, 6);
        order.order = true;
        order.topicSysFlag = 2;
        order.topicFilterType = TopicFilterType::MultiTag;
        QVERIFY(m.updateTopicConfig(order));
        for (int i = 0; i < 20; ++i)
            QVERIFY(m.updateTopicConfig(TopicConfig("C" + QByteArray::number(i), i + 1)));
        QVERIFY(m.deleteTopicConfig("C3"));
        QVERIFY(m.updateTopicConfig(TopicConfig("C5", 9))); // replaced
        QVERIFY(m.createRetryTopic("G1", 1));

        const QString crashed = dir.filePath(QStringLiteral("crashed/config"));
        copyConfigFiles(config, crashed);
        // A torn record at the end, as a crash in the middle of a write leaves it.
        const QStringList journals = journalFiles(crashed);
        QCOMPARE(journals.size(), 1);
        QFile tail(QDir(crashed).filePath(journals.first()));
        QVERIFY(tail.open(QIODevice::Append));
        tail.write(ConfigJournal::encodeRecord("{\"op\":\"put\",\"name\":\"Torn\"}").left(20));
        tail.close();

        TopicConfigManager recovered(
            testConfig(), TopicConfigManager::filePath(dir.filePath(QStringLiteral("crashed"))));
        QVERIFY(recovered.load());
        QCOMPARE(recovered.encode(), m.encode());
        QCOMPARE(recovered.dataVersion(), m.dataVersion());
        QCOMPARE(*recovered.find("OrderTopic"), order);
        QCOMPARE(recovered.find("C5")->writeQueueNums, 9);
        QVERIFY(!recovered.contains("C3"));
        QVERIFY(!recovered.contains("Torn"));
        // The recovered manager writes the file on its first flush and retires the old journal.
        QVERIFY(recovered.flushJournal());
        QVERIFY(journalFiles(crashed).isEmpty());
        QVERIFY(protocol::parseJson(ConfigFileStore::readFile(recovered.path()).value()));
    }

    void subscriptionGroupsAreJournaled()
    {
        QTemporaryDir dir;
        const QString path = SubscriptionGroupManager::filePath(dir.path());
        SubscriptionGroupManager m(true, path);
        QVERIFY(m.load());
        protocol::SubscriptionGroupConfig g {"G_journal"};
        g.retryMaxTimes = 3;
        QVERIFY(m.update(g));
        const QByteArray file = ConfigFileStore::readFile(path).value();
        QVERIFY(m.findOrCreate("G_auto"));
        QVERIFY(m.remove("G_journal"));
        QVERIFY(m.update(protocol::SubscriptionGroupConfig {"G_after"}));
        QCOMPARE(ConfigFileStore::readFile(path).value(), file); // journal only
        const QString crashed = dir.filePath(QStringLiteral("crashed/config"));
        copyConfigFiles(QFileInfo(path).absolutePath(), crashed);
        SubscriptionGroupManager recovered(
            true, SubscriptionGroupManager::filePath(dir.filePath(QStringLiteral("crashed"))));
        QVERIFY(recovered.load());
        QCOMPARE(recovered.encode(), m.encode());
        QVERIFY(recovered.find("G_auto"));
        QVERIFY(!recovered.find("G_journal"));
    }

    void compactsAfterThreshold()
    {
        QTemporaryDir dir;
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        QVERIFY(m.updateTopicConfig(TopicConfig("Seed", 1)));
        const qint64 firstSize = QFileInfo(path).size();
        // 4096 journal records (the threshold while the table is smaller) rewrite the file once.
        for (int i = 0; i < 4096; ++i)
            QVERIFY(m.updateTopicConfig(TopicConfig("K" + QByteArray::number(i), 1)));
        QVERIFY2(QFileInfo(path).size() > firstSize * 50,
            qPrintable(QStringLiteral("%1 then %2").arg(firstSize).arg(QFileInfo(path).size())));
        QVERIFY(journalFiles(QFileInfo(path).absolutePath()).isEmpty());
        TopicConfigManager reloaded(testConfig(), path);
        QVERIFY(reloaded.load());
        QVERIFY(reloaded.contains("K4095"));
    }

    void concurrentChangesReplayToTheSameTable()
    {
        QTemporaryDir dir;
        const QString path = TopicConfigManager::filePath(dir.path());
        TopicConfigManager m(testConfig(), path);
        QVERIFY(m.load());
        QVERIFY(m.updateTopicConfig(TopicConfig("Seed", 1)));
        std::vector<std::thread> threads;
        std::atomic<int> failures {0};
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                // Every thread rewrites the same few names: the journal's order must be the
                // table's, or the replay ends with another thread's value.
                for (int i = 0; i < 200; ++i) {
                    TopicConfig c("Shared" + QByteArray::number(i % 5), t * 1000 + i + 1);
                    if (!m.updateTopicConfig(c))
                        ++failures;
                }
            });
        }
        for (auto &th : threads)
            th.join();
        QCOMPARE(failures.load(), 0);
        const QString crashed = dir.filePath(QStringLiteral("crashed/config"));
        copyConfigFiles(QFileInfo(path).absolutePath(), crashed);
        TopicConfigManager recovered(
            testConfig(), TopicConfigManager::filePath(dir.filePath(QStringLiteral("crashed"))));
        QVERIFY(recovered.load());
        QCOMPARE(recovered.encode(), m.encode());
    }
};

QTEST_GUILESS_MAIN(tst_ConfigJournal)
#include "tst_configjournal.moc"
