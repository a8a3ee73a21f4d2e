// Two masters with a slave each (broker-a SYNC_MASTER, broker-b ASYNC_MASTER) and two name
// servers, as real processes, driven by QRocket's own client: a Producer sends continuously to a
// topic with queues on both masters and a PushConsumer group consumes it. broker-a's master is
// SIGKILLed: sends carry on on broker-b (retry, latency fault avoidance, route refresh once the
// name servers drop the dead master), the group keeps consuming broker-a's queues from its slave
// (a member that joins after the kill starts from the offsets the slave synced), and no message
// whose send returned SEND_OK is lost. Then broker-a's master restarts on its store, is master
// again, its slave follows it, and sends to its queues work again. Failures, the send outage and
// duplicates are reported with qInfo. Every wait is bounded.

#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;
using qrocket::client::MessageQueue;

namespace {

constexpr char kTopic[] = "TwoMastersTopic";
constexpr char kGroup[] = "G_two_masters";

/// One send of the producer thread, times in ms since the test's clock started.
struct SendRecord
{
    qint64 startMs;
    qint64 endMs;
    bool ok;
    QByteArray brokerName;
    QByteArray body;
    int queueId = -1;
    std::int64_t queueOffset = -1;
};

/// Sends "tm-<n>" with client::Producer::sendSync from its own thread, one every ~2 ms, until
/// stop(); keeps the outcome of every send.
class SendLoop
{
public:
    SendLoop(client::Producer &producer, const QElapsedTimer &clock)
        : m_producer(producer), m_clock(clock), m_thread([this] { run(); })
    { }
    ~SendLoop() { stop(); }
    void stop()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    std::vector<SendRecord> records() const
    {
        std::lock_guard lock(m_mutex);
        return m_records;
    }
    int okSince(qint64 ms, const QByteArray &brokerName) const
    {
        std::lock_guard lock(m_mutex);
        int n = 0;
        for (const SendRecord &r : m_records)
            n += r.ok && r.startMs >= ms && r.brokerName == brokerName;
        return n;
    }

private:
    void run()
    {
        for (int i = 0; !m_stop.load(); ++i) {
            SendRecord rec {m_clock.elapsed(), 0, false, {}, "tm-" + QByteArray::number(i)};
            auto r = m_producer.sendSync(client::Message(kTopic, "T", rec.body));
            rec.endMs = m_clock.elapsed();
            rec.ok = r && r->status == client::SendStatus::SendOk;
            if (r) {
                rec.brokerName = r->messageQueue.brokerName;
                rec.queueId = r->messageQueue.queueId;
                rec.queueOffset = r->queueOffset;
            }
            {
                std::lock_guard lock(m_mutex);
                m_records.push_back(std::move(rec));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }

    client::Producer &m_producer;
    const QElapsedTimer &m_clock;
    std::atomic<bool> m_stop {false};
    mutable std::mutex m_mutex;
    std::vector<SendRecord> m_records;
    std::thread m_thread;
};

/// What the consumer group received: deliveries per body, and broker-a's deliveries after `from`.
struct Received
{
    mutable std::mutex mutex;
    std::map<QByteArray, int> count;
    int deliveries = 0;
    std::atomic<int> ofBrokerA {0};
};

} // namespace

class tst_TwoMasters final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void masterKilledUnderClientLoad();

private:
    struct Broker
    {
        QByteArray name;
        QByteArray role;
        QString store;
        quint16 port = 0;
        std::unique_ptr<DaemonProcess> process;
    };
    bool start(Broker &b);
    client::ClientConfig clientConfig(const QByteArray &instance) const;
    client::PushConsumerOptions consumerOptions(const QByteArray &instance) const;
    std::int64_t maxOffset(quint16 port)
    {
        return runtimeLong(m_client, port, "commitLogMaxOffset");
    }

    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
    QByteArray m_namesrvAddr;
};

void tst_TwoMasters::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
}

bool tst_TwoMasters::start(Broker &b)
{
    if (!b.process)
        b.process = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const bool slave = b.role == "SLAVE";
    return startOnFreePort(*b.process, b.store + QStringLiteral(".conf"), b.port, [&](quint16 p) {
        return "brokerClusterName=TwoMasters\nbrokerName=" + b.name
            + "\nbrokerId=" + (slave ? "1" : "0") + "\nbrokerRole=" + b.role
            + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort=" + QByteArray::number(p)
            + "\nstorePathRootDir=" + b.store.toUtf8() + "\nnamesrvAddr=" + m_namesrvAddr
            + "\nmappedFileSizeCommitLog=" + QByteArray::number(kCommitLogFileSize)
            + "\nmappedFileSizeConsumeQueue=60000\nhaSendHeartbeatInterval=1000\n"
              "haHousekeepingInterval=3000\nautoCreateTopicEnable=false\n"
            // A plain-mode slave serves the pulls that reach it with or without
            // slaveReadEnable, as RocketMQ 4.9.7 does (broker/ha/INTEROP.md); set here as
            // deployments that read from their slaves set it.
            + (slave ? "slaveReadEnable=true\n" : "");
    });
}

client::ClientConfig tst_TwoMasters::clientConfig(const QByteArray &instance) const
{
    client::ClientConfig c;
    c.namesrvAddr = m_namesrvAddr;
    c.clientIP = "127.0.0.1";
    c.instanceName = instance;
    c.pollNameServerInterval = 1000;
    c.heartbeatBrokerInterval = 1000;
    c.persistConsumerOffsetInterval = 1000;
    return c;
}

client::PushConsumerOptions tst_TwoMasters::consumerOptions(const QByteArray &instance) const
{
    client::PushConsumerOptions o;
    o.group = kGroup;
    o.client = clientConfig(instance);
    o.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = o.consumeThreadMax = 4;
    o.brokerSuspendMaxTimeMillis = 1000;
    o.consumerTimeoutMillisWhenSuspend = 3000;
    o.pullTimeDelayMillsWhenException = 500;
    return o;
}

void tst_TwoMasters::masterKilledUnderClientLoad()
{
    QElapsedTimer clock;
    clock.start();
    DaemonProcess ns1(QStringLiteral("qrocket-namesrv")), ns2(QStringLiteral("qrocket-namesrv"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ns1"))));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ns2"))));
    const quint16 nsPort1 = startNamesrv(ns1, m_dir.filePath(QStringLiteral("ns1")));
    const quint16 nsPort2 = startNamesrv(ns2, m_dir.filePath(QStringLiteral("ns2")));
    QVERIFY2(nsPort1 != 0 && nsPort2 != 0, qPrintable(ns1.error() + ns2.error()));
    m_namesrvAddr = localAddr(nsPort1) + ';' + localAddr(nsPort2);

    Broker a {"broker-a", "SYNC_MASTER", m_dir.filePath(QStringLiteral("a")), 0, nullptr};
    Broker b {"broker-b", "ASYNC_MASTER", m_dir.filePath(QStringLiteral("b")), 0, nullptr};
    Broker as {"broker-a", "SLAVE", m_dir.filePath(QStringLiteral("a-s")), 0, nullptr};
    Broker bs {"broker-b", "SLAVE", m_dir.filePath(QStringLiteral("b-s")), 0, nullptr};
    QVERIFY(start(a));
    QVERIFY(start(b));
    // The topic on both masters before the slaves start: their first metadata sync has it.
    for (const Broker *m : {&a, &b}) {
        const RemotingCommand created = call(m_client, m->port,
            request(17,
                {{"topic", kTopic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"},
                    {"writeQueueNums", "4"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                    {"topicSysFlag", "0"}, {"order", "false"}}));
        QCOMPARE(created.code, 0);
    }
    QVERIFY(start(as));
    QVERIFY(start(bs));
    for (const Broker *m : {&a, &b})
        QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, m->port, "haConnectionCount"), 1, 15000);

    Received received;
    const auto listener = [&received](const std::vector<client::MessageExt> &msgs,
                              client::ConsumeConcurrentlyContext &) {
        std::lock_guard lock(received.mutex);
        for (const client::MessageExt &m : msgs) {
            ++received.count[m.body()];
            ++received.deliveries;
            if (m.brokerName() == "broker-a")
                ++received.ofBrokerA;
        }
        return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
    };
    client::PushConsumer first(consumerOptions("tm-consumer-1"));
    QVERIFY(first.subscribe(kTopic, "*").isOk());
    first.registerMessageListener(listener);
    const Status started = first.start();
    QVERIFY2(started.isOk(), qPrintable(started.toString()));

    client::ProducerOptions po;
    po.group = "PG_two_masters";
    po.client = clientConfig("tm-producer");
    client::Producer producer(po);
    QVERIFY(producer.start().isOk());
    SendLoop sends(producer, clock);

    // Both masters take sends and the group consumes from both; the offsets it commits to
    // broker-a reach broker-a's slave with the slave's metadata sync (every 10 s).
    QTRY_VERIFY_WITH_TIMEOUT(
        sends.okSince(0, "broker-a") > 50 && sends.okSince(0, "broker-b") > 50, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(received.ofBrokerA.load() > 50, 15000);
    const auto slaveOffsetsOfA = [&] {
        std::int64_t sum = 0;
        for (int q = 0; q < 4; ++q)
            sum += std::max<std::int64_t>(0,
                call(m_client, as.port,
                    request(
                        14, {{"consumerGroup", kGroup}, {"topic", kTopic}, {"queueId", num(q)}}))
                    .extLong("offset")
                    .value_or(0));
        return sum;
    };
    QTRY_VERIFY_WITH_TIMEOUT(slaveOffsetsOfA() > 0, 25000);

    // A backlog on broker-a that only its slave can serve: the member stops pulling, sends go on,
    // and the master dies with the member's offsets on the slave as of its last sync.
    first.suspend();
    const qint64 suspendedAt = clock.elapsed();
    QTRY_VERIFY_WITH_TIMEOUT(sends.okSince(suspendedAt, "broker-a") >= 30, 10000);
    const int aBeforeKill = received.ofBrokerA.load();
    const std::int64_t slaveOffsetsAtKill = slaveOffsetsOfA();
    const qint64 killedAt = clock.elapsed();
    a.process->kill();
    qInfo("broker-a's master SIGKILLed at %lld ms", static_cast<long long>(killedAt));

    // The producer's view drops broker-a once the name servers have dropped its master.
    qint64 routeDroppedMs = -1;
    QElapsedTimer waitRoute;
    waitRoute.start();
    while (routeDroppedMs < 0 && waitRoute.elapsed() < 10000) {
        const auto queues = producer.fetchPublishMessageQueues(kTopic);
        if (queues && std::none_of(queues->begin(), queues->end(), [](const MessageQueue &q) {
                return q.brokerName == "broker-a";
            }))
            routeDroppedMs = clock.elapsed() - killedAt;
        else
            QTest::qWait(20);
    }
    QVERIFY2(routeDroppedMs >= 0, "the producer still lists broker-a's queues 10 s after the kill");
    QTRY_VERIFY_WITH_TIMEOUT(sends.okSince(killedAt + routeDroppedMs, "broker-b") > 100, 10000);

    // A second member joins now: the rebalance hands it some of broker-a's queues, whose offsets
    // it reads from the slave; the first member resumes and pulls its backlog from the slave.
    client::PushConsumer second(consumerOptions("tm-consumer-2"));
    QVERIFY(second.subscribe(kTopic, "*").isOk());
    second.registerMessageListener(listener);
    QVERIFY(second.start().isOk());
    first.resume();
    const auto ackedOfA = [&](qint64 until) {
        std::vector<QByteArray> out;
        for (const SendRecord &r : sends.records())
            if (r.ok && r.brokerName == "broker-a" && r.startMs < until)
                out.push_back(r.body);
        return out;
    };
    const std::vector<QByteArray> ackedBeforeKill = ackedOfA(killedAt);
    const auto allReceived = [&](const std::vector<QByteArray> &bodies) {
        std::lock_guard lock(received.mutex);
        return std::all_of(bodies.begin(), bodies.end(),
            [&](const QByteArray &body) { return received.count.count(body) != 0; });
    };
    // Waits (bounded) until every body of `bodies` was consumed; else names what was not.
    const auto waitReceived = [&](const std::vector<QByteArray> &bodies, int ms) {
        QElapsedTimer t;
        t.start();
        while (!allReceived(bodies)) {
            if (t.elapsed() > ms) {
                std::lock_guard lock(received.mutex);
                int missing = 0;
                for (const SendRecord &r : sends.records())
                    if (r.ok && !received.count.count(r.body) && ++missing <= 5)
                        qWarning("not consumed: %s, sent to %s/%d at queue offset %lld",
                            r.body.constData(), r.brokerName.constData(), r.queueId,
                            static_cast<long long>(r.queueOffset));
                qWarning("%d acknowledged sends of the producer thread not consumed", missing);
                return false;
            }
            QTest::qWait(50);
        }
        return true;
    };
    QVERIFY(waitReceived(ackedBeforeKill, 20000));
    const int fromSlave = received.ofBrokerA.load() - aBeforeKill;
    QVERIFY2(fromSlave > 0, "nothing of broker-a consumed while its master was down");
    const auto queuesOfTopic = [](const client::PushConsumer &c) {
        const auto all = c.assignedQueues();
        return std::count_if(
            all.begin(), all.end(), [](const MessageQueue &q) { return q.topic == kTopic; });
    };
    // The group commits broker-a's offsets to the slave now (RocketMQ 4.9.7's client: any
    // broker of the name when the route has no master).
    QTRY_VERIFY_WITH_TIMEOUT(slaveOffsetsOfA() > slaveOffsetsAtKill, 10000);
    qInfo("members' queues of the topic after the second joined: %lld and %lld",
        static_cast<long long>(queuesOfTopic(first)),
        static_cast<long long>(queuesOfTopic(second)));

    // broker-a's master restarts on its store and port: master again, its slave follows.
    const quint16 oldPort = a.port;
    QVERIFY(start(a));
    QCOMPARE(a.port, oldPort);
    const qint64 restartedAt = clock.elapsed();
    QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, a.port, "haConnectionCount"), 1, 15000);
    QCOMPARE(runtimeInfo(m_client, a.port).at("brokerRole"), QByteArray("SYNC_MASTER"));
    // The producer keeps avoiding broker-a (a failed send isolates a broker for 600 s, as in
    // RocketMQ); a send to one of its queues goes through once the route has its master again.
    std::vector<QByteArray> sentToA;
    QElapsedTimer waitA;
    waitA.start();
    while (sentToA.size() < 20 && waitA.elapsed() < 15000) {
        const QByteArray body = "tm-restarted-" + QByteArray::number(sentToA.size());
        auto r = producer.sendSync(
            client::Message(kTopic, "T", body), MessageQueue {kTopic, "broker-a", 0});
        if (r && r->status == client::SendStatus::SendOk)
            sentToA.push_back(body);
        else
            QTest::qWait(100);
    }
    QCOMPARE(sentToA.size(), size_t(20));
    const qint64 resumedMs = clock.elapsed() - restartedAt;
    sends.stop();

    // Every SEND_OK is consumed (at least once). Recovery: the longest stretch without a
    // SEND_OK completing, from 1 s before the kill to 5 s after it; no send that started once
    // a failed one could have timed out (sendMsgTimeout after the kill) fails.
    const std::vector<SendRecord> all = sends.records();
    std::vector<QByteArray> acked = sentToA;
    int failed = 0, failedAfterKill = 0, okA = 0, okB = 0, lateFailures = 0;
    qint64 lastFailure = -1, maxLatencyAfterKill = 0, longestGap = 0;
    qint64 previousOk = killedAt - 1000;
    for (const SendRecord &r : all) {
        if (r.ok) {
            acked.push_back(r.body);
            (r.brokerName == "broker-a" ? okA : okB) += 1;
            if (r.endMs >= previousOk && r.endMs <= killedAt + 5000) {
                longestGap = std::max(longestGap, r.endMs - previousOk);
                previousOk = r.endMs;
            }
        } else {
            ++failed;
            failedAfterKill += r.endMs >= killedAt;
            lateFailures += r.startMs > killedAt + po.sendMsgTimeout;
            lastFailure = std::max(lastFailure, r.endMs);
        }
        if (r.endMs >= killedAt)
            maxLatencyAfterKill = std::max(maxLatencyAfterKill, r.endMs - r.startMs);
    }
    QVERIFY(waitReceived(acked, 20000));
    int duplicates = 0, deliveries = 0;
    size_t distinct = 0;
    {
        std::lock_guard lock(received.mutex);
        for (const auto &[body, n] : received.count)
            duplicates += n - 1;
        deliveries = received.deliveries;
        distinct = received.count.size();
    }
    qInfo("sends: %zu, SEND_OK %zu (broker-a %d, broker-b %d, %zu to broker-a after its restart),"
          " failed %d (%d after the kill)",
        all.size() + sentToA.size(), acked.size(), okA, okB, sentToA.size(), failed,
        failedAfterKill);
    qInfo("recovery: longest time without a SEND_OK around the kill %lld ms, slowest send after"
          " it %lld ms, last failure %lld ms after it, producer route without broker-a %lld ms"
          " after it; sends to broker-a's queue worked %lld ms after its restart",
        static_cast<long long>(longestGap), static_cast<long long>(maxLatencyAfterKill),
        static_cast<long long>(lastFailure < killedAt ? -1 : lastFailure - killedAt),
        static_cast<long long>(routeDroppedMs), static_cast<long long>(resumedMs));
    qInfo("consumed: %d deliveries of %zu distinct messages, %d duplicates; %d of broker-a's"
          " consumed from its slave while its master was down",
        deliveries, distinct, duplicates, fromSlave);
    QCOMPARE(lateFailures, 0);

    // broker-a's slave has every byte of its restarted master.
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset(as.port) == maxOffset(a.port), 15000);
    const std::int64_t end = maxOffset(a.port);
    QVERIFY(end > 0);
    QVERIFY(readCommitLog(a.store, 0, end) == readCommitLog(as.store, 0, end));

    second.shutdown();
    first.shutdown();
    producer.shutdown();
    for (Broker *broker : {&as, &bs, &a, &b}) {
        QCOMPARE(broker->process->stop(), 0);
        const QByteArray out = broker->process->output();
        for (const char *bad : {"AddressSanitizer", "LeakSanitizer", "runtime error:"})
            QVERIFY2(!out.contains(bad), out.right(4000).constData());
    }
    ns1.stop();
    ns2.stop();
}

QTEST_GUILESS_MAIN(tst_TwoMasters)
#include "tst_twomasters.moc"
