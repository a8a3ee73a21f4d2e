// Exactly-once sends (issue 28, sendDedupEnable) with real processes: qrocket-namesrv and
// qrocket-broker, and QRocket's Producer reaching both through LossyRelay (lossyrelay.h), which
// loses the broker's answer to a share of sends after the broker stored them. The producer
// retries (a cut connection: within its sendMsgTimeout; a silent loss: the application sends the
// same message again, same UNIQ_KEY). Two producers send the same messages at once on two
// connections. Every message must be stored exactly once (counted by pulling every queue), every
// acknowledgement of a message must name the same stored copy (offset msgId), also for batches
// and a partly duplicated batch, and the same after kill -9 and a restart (the window is rebuilt
// from the commit log). A control run with sendDedupEnable=false through the same relay shows
// the copies the relay makes a producer store without it.

#include "clientlib/client/producer.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/lossyrelay.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QHash>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <thread>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

namespace {

constexpr int kQueues = 4;

QByteArray keyOf(const QByteArray &prefix, int i)
{
    return prefix + QByteArray::number(i).rightJustified(6, '0');
}

client::Message keyed(const QByteArray &topic, const QByteArray &key)
{
    client::Message m(topic, "body of " + key);
    m.setProperty(protocol::MessageConst::UniqClientMessageIdKeyIdx.toByteArray(), key);
    return m;
}

/// Every acknowledgement's offset msgId per UNIQ_KEY (thread-safe).
class Acks
{
public:
    void add(const QByteArray &key, const QByteArray &offsetMsgId)
    {
        std::lock_guard lock(m_mutex);
        m_ids[key].insert(offsetMsgId);
    }
    QHash<QByteArray, QSet<QByteArray>> ids() const
    {
        std::lock_guard lock(m_mutex);
        return m_ids;
    }

private:
    mutable std::mutex m_mutex;
    QHash<QByteArray, QSet<QByteArray>> m_ids;
};

} // namespace

class tst_SendDedup final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void lostAnswersStoreEachMessageOnce();
    void partlyDuplicatedBatch();
    void simultaneousAttemptsOnTwoConnections();
    void kill9AndRestartKeepTheWindow();
    void withoutDedupTheRelayMakesCopies();
    void replicaWithTheSameCommitLogKeepsTheWindow();

private:
    QByteArray brokerConf(quint16 port, bool dedup) const;
    bool startBroker(bool dedup);
    std::unique_ptr<client::Producer> producer(const QByteArray &instance);
    /// Sends until acknowledged (at most `tries` calls of sendSync): the acknowledgement's
    /// offset msgId, or empty.
    static QByteArray sendUntilOk(client::Producer &p, const client::Message &m, int tries = 12);
    /// Two producers send keys [0, n) of `prefix` at once, each in its own order; every
    /// acknowledgement goes to `acks`. False if a message was never acknowledged.
    bool sendFromTwoProducers(
        const QByteArray &topic, const QByteArray &prefix, int n, Acks &acks, bool batches);
    RemotingCommand call(RemotingCommand req) { return invoke(m_client, localAddr(m_port), req); }
    std::int64_t maxOffset(const QByteArray &topic, int queueId);
    /// Waits until everything stored so far is in the consume queues (a sentinel without a key
    /// sent last is there), then pulls every queue: UNIQ_KEY -> the offset msgIds stored with it.
    QHash<QByteArray, QList<QByteArray>> stored(const QByteArray &topic);
    void createTopic(const QByteArray &topic);
    /// The name server (asked directly) answers a route for `topic`.
    bool routeFound(const QByteArray &topic);

    QTemporaryDir m_dir;
    QString m_store;
    std::unique_ptr<DaemonProcess> m_namesrv;
    std::unique_ptr<DaemonProcess> m_broker;
    std::unique_ptr<LossyRelay> m_brokerRelay;
    std::unique_ptr<LossyRelay> m_nsRelay;
    quint16 m_nsPort = 0;
    quint16 m_port = 0;
    remoting::RemotingClient m_client;
    Acks m_firstRun; // lostAnswersStoreEachMessageOnce's acknowledgements, checked after restart
};

QByteArray tst_SendDedup::brokerConf(quint16 port, bool dedup) const
{
    return "brokerName=broker-dedup\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nnamesrvAddr=127.0.0.1:" + QByteArray::number(m_nsPort)
        + "\nstorePathRootDir=" + m_store.toUtf8()
        + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n"
        + "sendDedupEnable=" + (dedup ? "true" : "false") + "\nsendDedupWindowSeconds=600\n";
}

bool tst_SendDedup::startBroker(bool dedup)
{
    const quint16 wanted = m_port;
    const bool ok = startOnFreePort(*m_broker, m_dir.filePath(QStringLiteral("broker.conf")),
        m_port, [&](quint16 p) { return brokerConf(p, dedup); });
    // The relays were made for this port: a restart must get it back.
    return ok && (wanted == 0 || wanted == m_port);
}

void tst_SendDedup::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_store = m_dir.filePath(QStringLiteral("store"));
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
    m_namesrv = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-namesrv"));
    m_nsPort = startNamesrv(*m_namesrv, m_dir.path());
    QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv->error()));
    m_broker = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    QVERIFY(startBroker(true));
    // Every 5th send's answer is lost with its connection, every 13th silently.
    m_brokerRelay = std::make_unique<LossyRelay>(m_port, RelayPolicy {5, 13, {}, {}});
    QVERIFY(m_brokerRelay->port() != 0);
    m_nsRelay = std::make_unique<LossyRelay>(m_nsPort,
        RelayPolicy {
            0, 0, "\"" + localAddr(m_port) + "\"", "\"" + localAddr(m_brokerRelay->port()) + "\""});
    QVERIFY(m_nsRelay->port() != 0);
}

void tst_SendDedup::cleanupTestCase()
{
    m_brokerRelay.reset();
    m_nsRelay.reset();
    if (m_broker)
        m_broker->stop();
    if (m_namesrv)
        m_namesrv->stop();
}

std::unique_ptr<client::Producer> tst_SendDedup::producer(const QByteArray &instance)
{
    client::ProducerOptions o;
    o.group = "dedup-producer-" + instance;
    o.client.namesrvAddr = localAddr(m_nsRelay->port());
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = instance; // one client instance, one connection each
    o.sendMsgTimeout = 1500;
    o.retryTimesWhenSendFailed = 4;
    o.sendLatencyFaultEnable = false; // one broker: never skip it
    auto p = std::make_unique<client::Producer>(o);
    if (!p->start())
        return {};
    return p;
}

QByteArray tst_SendDedup::sendUntilOk(client::Producer &p, const client::Message &m, int tries)
{
    QString last;
    for (int i = 0; i < tries; ++i) {
        Result<client::SendResult> r = p.sendSync(m);
        if (r && r->status == client::SendStatus::SendOk)
            return r->offsetMsgId;
        last = r ? QStringLiteral("status %1").arg(int(r->status)) : r.status().toString();
    }
    qWarning().noquote() << "never acknowledged:" << m.uniqueKey() << last;
    return {};
}

bool tst_SendDedup::sendFromTwoProducers(
    const QByteArray &topic, const QByteArray &prefix, int n, Acks &acks, bool batches)
{
    std::atomic<int> failures {0};
    auto run = [&](const QByteArray &instance, bool reverse) {
        std::unique_ptr<client::Producer> p = producer(instance);
        if (!p) {
            ++failures;
            return;
        }
        for (int j = 0; j < n; ++j) {
            const int i = reverse ? n - 1 - j : j;
            if (batches && i % 10 == 0 && i + 3 <= n && !reverse) {
                // A batch of three (the reverse sender sends them one by one).
                std::vector<client::Message> batch;
                for (int b = 0; b < 3; ++b)
                    batch.push_back(keyed(topic, keyOf(prefix, i + b)));
                bool ok = false;
                for (int t = 0; t < 8 && !ok; ++t) {
                    Result<std::vector<client::SendResult>> r = p->sendBatch(batch);
                    if (r && r->size() == 1 && r->front().status == client::SendStatus::SendOk) {
                        const QList<QByteArray> ids = r->front().offsetMsgId.split(',');
                        ok = ids.size() == 3;
                        for (int b = 0; ok && b < 3; ++b)
                            acks.add(keyOf(prefix, i + b), ids[b]);
                    }
                }
                if (!ok)
                    ++failures;
                j += 2;
                continue;
            }
            const QByteArray key = keyOf(prefix, i);
            const QByteArray id = sendUntilOk(*p, keyed(topic, key));
            if (id.isEmpty())
                ++failures;
            else
                acks.add(key, id);
        }
        p->shutdown();
    };
    std::thread a(run, QByteArray("dedupA"), false);
    std::thread b(run, QByteArray("dedupB"), true);
    a.join();
    b.join();
    return failures.load() == 0;
}

std::int64_t tst_SendDedup::maxOffset(const QByteArray &topic, int queueId)
{
    const RemotingCommand r = call(request(30, {{"topic", topic}, {"queueId", num(queueId)}}));
    return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
}

void tst_SendDedup::createTopic(const QByteArray &topic)
{
    const RemotingCommand r = call(request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(kQueues)},
            {"writeQueueNums", num(kQueues)}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}}));
    QCOMPARE(r.code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(routeFound(topic), 15000);
}

bool tst_SendDedup::routeFound(const QByteArray &topic)
{
    auto route = m_client.invokeSync(localAddr(m_nsPort), request(105, {{"topic", topic}}), 5000);
    return route.has_value() && route->code == 0;
}

QHash<QByteArray, QList<QByteArray>> tst_SendDedup::stored(const QByteArray &topic)
{
    QHash<QByteArray, QList<QByteArray>> out;
    const RemotingCommand sentinel = call(sendV2(topic, 0, "sentinel"));
    if (sentinel.code != 0) {
        qWarning() << "sentinel send failed:" << sentinel.code << sentinel.remark;
        return out;
    }
    const std::int64_t at = sentinel.extLong("queueOffset").value_or(-1);
    QElapsedTimer timer;
    timer.start();
    while (maxOffset(topic, 0) <= at && timer.elapsed() < 15000)
        QTest::qWait(20);
    for (int q = 0; q < kQueues; ++q) {
        const std::int64_t end = maxOffset(topic, q);
        for (std::int64_t offset = 0; offset < end;) {
            const RemotingCommand p = call(request(11,
                {{"consumerGroup", "G_count"}, {"topic", topic}, {"queueId", num(q)},
                    {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", "4"},
                    {"commitOffset", "0"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
                    {"subVersion", "0"}}));
            const auto recs = records(p.body);
            if (p.code != 0 || recs.empty()) {
                qWarning() << "pull" << topic << q << offset << "of" << end << "answered" << p.code
                           << p.remark << recs.size() << "records";
                break;
            }
            for (const protocol::MessageRecordView &r : recs) {
                const QByteArray key = protocol::findProperty(
                    r.properties, protocol::MessageConst::UniqClientMessageIdKeyIdx)
                                           .toByteArray();
                if (!key.isEmpty())
                    out[key].append(protocol::encodeOffsetMessageId(r.storeHost, r.physicalOffset));
                offset = r.queueOffset + 1;
            }
        }
    }
    return out;
}

void tst_SendDedup::lostAnswersStoreEachMessageOnce()
{
    const QByteArray topic = "DedupTopic";
    createTopic(topic);
    constexpr int kMessages = 120;
    QVERIFY(sendFromTwoProducers(topic, "K", kMessages, m_firstRun, true));
    const RelayCounts &c = m_brokerRelay->counts();
    qInfo("relay: %d sends, %d answers lost with the connection, %d silently", c.sends.load(),
        c.cut.load(), c.silenced.load());
    QVERIFY(c.cut.load() > 0 && c.silenced.load() > 0);

    const auto copies = stored(topic);
    QCOMPARE(copies.size(), kMessages);
    const auto acks = m_firstRun.ids();
    QCOMPARE(acks.size(), kMessages);
    for (int i = 0; i < kMessages; ++i) {
        const QByteArray key = keyOf("K", i);
        QVERIFY2(copies.value(key).size() == 1, key.constData());
        // Both producers' acknowledgements name the one stored copy.
        QVERIFY2(acks.value(key) == QSet<QByteArray> {copies.value(key).front()}, key.constData());
    }
}

void tst_SendDedup::partlyDuplicatedBatch()
{
    // K000000 is stored; a batch of it and two new messages stores the two, and its answer names
    // each message's copy in order: the first attempt's for K000000, the new ones for the rest.
    const QByteArray topic = "DedupTopic";
    std::unique_ptr<client::Producer> p = producer("dedupBatch");
    QVERIFY(p);
    const std::vector<client::Message> batch {
        keyed(topic, keyOf("K", 0)), keyed(topic, "NEW-1"), keyed(topic, "NEW-2")};
    QList<QByteArray> first;
    for (int t = 0; t < 8 && first.isEmpty(); ++t) {
        Result<std::vector<client::SendResult>> r = p->sendBatch(batch);
        if (r && r->size() == 1 && r->front().status == client::SendStatus::SendOk)
            first = r->front().offsetMsgId.split(',');
    }
    QCOMPARE(first.size(), 3);
    const auto copies = stored(topic);
    QCOMPARE(copies.value(keyOf("K", 0)).size(), 1);
    QCOMPARE(first[0], copies.value(keyOf("K", 0)).front());
    QCOMPARE(copies.value("NEW-1"), QList<QByteArray> {first[1]});
    QCOMPARE(copies.value("NEW-2"), QList<QByteArray> {first[2]});
    // Sent again: all three are duplicates; nothing is stored, the same ids come back.
    QList<QByteArray> again;
    for (int t = 0; t < 8 && again.isEmpty(); ++t) {
        Result<std::vector<client::SendResult>> r = p->sendBatch(batch);
        if (r && r->size() == 1 && r->front().status == client::SendStatus::SendOk)
            again = r->front().offsetMsgId.split(',');
    }
    QCOMPARE(again, first);
    QCOMPARE(stored(topic).size(), copies.size());
    p->shutdown();
}

void tst_SendDedup::simultaneousAttemptsOnTwoConnections()
{
    // Two connections send each message at the same moment (straight to the broker, two
    // threads in step): one copy is stored, and both answers name it (the later attempt waits
    // for the earlier one's put when it finds the key being stored).
    const QByteArray topic = "DedupTopic";
    constexpr int kMessages = 300;
    std::vector<std::vector<QByteArray>> ids(2, std::vector<QByteArray>(kMessages));
    std::atomic<int> ready {0};
    auto run = [&](int side) {
        remoting::RemotingClient client;
        ++ready;
        while (ready.load() < 2)
            std::this_thread::yield();
        for (int i = 0; i < kMessages; ++i) {
            const QByteArray key = keyOf("SIM", i);
            auto r = client.invokeSync(localAddr(m_port),
                sendV2(topic, (i + side) % kQueues, "simultaneous",
                    props({{"UNIQ_KEY", key.constData()}, {"WAIT", "true"}})),
                15000);
            if (r && r->code == 0)
                ids[std::size_t(side)][std::size_t(i)] = r->extString("msgId").toByteArray();
        }
    };
    std::thread a(run, 0);
    std::thread b(run, 1);
    a.join();
    b.join();
    const auto copies = stored(topic);
    for (int i = 0; i < kMessages; ++i) {
        const QByteArray key = keyOf("SIM", i);
        QVERIFY2(copies.value(key).size() == 1, key.constData());
        QCOMPARE(ids[0][std::size_t(i)], copies.value(key).front());
        QCOMPARE(ids[1][std::size_t(i)], copies.value(key).front());
    }
}

void tst_SendDedup::kill9AndRestartKeepTheWindow()
{
    const QByteArray topic = "DedupTopic";
    const auto before = stored(topic);
    QVERIFY(!before.isEmpty());
    m_broker->kill();
    QVERIFY2(startBroker(true), "the broker did not come back on its port");
    QTRY_VERIFY_WITH_TIMEOUT(m_broker->output().contains("send dedup window rebuilt"), 5000);
    // The killed broker's connection closing makes the name server drop its routes (at a moment
    // of its own): the producers must not look the topic up before the restarted broker has
    // registered again.
    QTRY_VERIFY_WITH_TIMEOUT(m_broker->output().contains("registered with name server"), 15000);
    QTRY_VERIFY_WITH_TIMEOUT(routeFound(topic), 15000);
    // Every message of the first run again, through the same lossy relay: nothing new stored,
    // every acknowledgement names the copy stored before the crash.
    Acks again;
    QVERIFY(sendFromTwoProducers(topic, "K", 120, again, false));
    const auto after = stored(topic);
    QCOMPARE(after.size(), before.size());
    for (auto it = before.cbegin(); it != before.cend(); ++it)
        QVERIFY2(after.value(it.key()) == it.value(), it.key().constData());
    const auto acks = again.ids();
    for (auto it = acks.cbegin(); it != acks.cend(); ++it)
        QVERIFY2(
            it.value() == QSet<QByteArray> {before.value(it.key()).front()}, it.key().constData());
}

void tst_SendDedup::withoutDedupTheRelayMakesCopies()
{
    // The control: the same relay and producers with sendDedupEnable=false (changed at run time
    // with UPDATE_BROKER_CONFIG) store copies of the messages whose answer was lost.
    const RemotingCommand off = call(request(25, {}, "sendDedupEnable=false\n"));
    QCOMPARE(off.code, 0);
    const QByteArray topic = "NoDedupTopic";
    createTopic(topic);
    Acks acks;
    QVERIFY(sendFromTwoProducers(topic, "C", 60, acks, false));
    const auto copies = stored(topic);
    QCOMPARE(copies.size(), 60);
    int extra = 0;
    for (const auto &list : copies)
        extra += int(list.size()) - 1;
    qInfo("without dedup: %d extra copies of 60 messages sent by two producers", extra);
    QVERIFY(extra >= 60); // every message at least twice (two producers), plus retries
    QCOMPARE(call(request(25, {}, "sendDedupEnable=true\n")).code, 0);
}

namespace {

bool copyTree(const QString &from, const QString &to)
{
    QDir source(from);
    if (!QDir().mkpath(to))
        return false;
    for (const QFileInfo &e :
        source.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden)) {
        const QString target = QDir(to).filePath(e.fileName());
        if (e.isDir() ? !copyTree(e.filePath(), target) : !QFile::copy(e.filePath(), target))
            return false;
    }
    return true;
}

} // namespace

void tst_SendDedup::replicaWithTheSameCommitLogKeepsTheWindow()
{
    // A switch to a replica: another broker (another address) starts on a copy of this one's
    // store, as a slave's commit log is. Every message sent again is answered with the copy
    // the first broker stored (its msgId names the first broker), and nothing is stored.
    const QByteArray topic = "DedupTopic";
    const auto before = stored(topic);
    QVERIFY(before.size() >= 120);
    QCOMPARE(m_broker->stop(), 0);
    const QString replicaStore = m_dir.filePath(QStringLiteral("replica-store"));
    QVERIFY(copyTree(m_store, replicaStore));
    QFile::remove(QDir(replicaStore).filePath(QStringLiteral("lock")));
    DaemonProcess replica(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(startOnFreePort(
        replica, m_dir.filePath(QStringLiteral("replica.conf")), port, [&](quint16 p) {
            QByteArray conf = brokerConf(p, true);
            conf.replace(m_store.toUtf8(), replicaStore.toUtf8());
            return conf;
        }));
    QVERIFY(port != m_port);
    const quint16 first = m_port;
    m_port = port; // call() and stored() now ask the replica
    for (int i = 0; i < 120; ++i) {
        const QByteArray key = keyOf("K", i);
        const RemotingCommand r = call(sendV2(
            topic, i % kQueues, "again", props({{"UNIQ_KEY", key.constData()}, {"WAIT", "true"}})));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.extString("msgId").toByteArray(), before.value(key).front());
    }
    const auto after = stored(topic);
    m_port = first;
    QCOMPARE(after.size(), before.size());
    for (auto it = before.cbegin(); it != before.cend(); ++it)
        QVERIFY2(after.value(it.key()) == it.value(), it.key().constData());
    QCOMPARE(replica.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_SendDedup)
#include "tst_senddedup.moc"
