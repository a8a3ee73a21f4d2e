// POP consumption over sockets against an in-process BrokerController (README "POP
// consumption"): redelivery with the reconsume count raised, ack, change of invisible time,
// batch ack, DLQ after the group's maximum, orderly POP, disjoint messages among consumers of one
// group, a POP group next to a PULL group, long-poll wake-up, a clean restart, 401/402/400 and
// 351/352, and the regression tests named after apache/rocketmq#7914 and #7724.
// (kill -9 is tst_popcrash.)

#include "broker/brokercontroller.h"
#include "broker/pop/popservice.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/inprocessbroker.h"
#include "tests/system/broker/poptestutil.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>
#include <thread>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

const QByteArray kBroker = "broker-pop";

} // namespace

class tst_Pop final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void popWithoutAckIsRedeliveredWithCountRaised();
    void ackedIsNeverRedelivered();
    void changeInvisibleTime();
    void batchAck();
    void dlqAfterMaxReconsumeTimes();
    void orderlyPop();
    void consumersOfOneGroupGetDisjointMessages();
    void concurrentPopsAreDisjoint();
    void popGroupAndPullGroupEachGetEverything();
    void longPollIsWokenByANewMessage();
    void longPollIsWokenByARevivedMessage();
    void stateSurvivesARestart();
    void regression_rocketmq7914_unackedNotLostOnRevive();
    void regression_rocketmq7724_ackedNeverRevived();
    void requestModeIsPersisted();
    void queryAssignmentInPopMode();
    void topicAndGroupConfig();
    void badRequestsAreRefused();
    void newGroupInMaxModeStartsAsRocketMQ53();

private:
    void startBroker();
    RemotingCommand call(RemotingCommand req, int timeoutMs = 15000);
    void createTopic(const QByteArray &topic, int queues);
    void send(
        const QByteArray &topic, int queueId, const QByteArray &body, const QByteArray &tags = {});
    PopAnswer pop(const QByteArray &group, const QByteArray &topic, int queueId, int max,
        std::int64_t invisibleMs, std::int64_t pollMs = 0, bool order = false);
    /// Pops (long polling) until `count` messages arrived or `timeoutMs` passed.
    std::vector<PoppedMessage> popUntil(const QByteArray &group, const QByteArray &topic, int count,
        std::int64_t invisibleMs, int timeoutMs);
    int ack(const QByteArray &group, const QByteArray &topic, const PoppedMessage &m);

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_addr;
};

void tst_Pop::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_client = std::make_unique<remoting::RemotingClient>();
    startBroker();
}

void tst_Pop::startBroker()
{
    brokertest::startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QString::fromUtf8(kBroker), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_addr = localAddr(m_broker->listenPort());
}

void tst_Pop::cleanupTestCase()
{
    m_client.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_Pop::call(RemotingCommand req, int timeoutMs)
{
    return invoke(*m_client, m_addr, std::move(req), timeoutMs);
}

void tst_Pop::createTopic(const QByteArray &topic, int queues)
{
    const RemotingCommand r = call(request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(queues)},
            {"writeQueueNums", num(queues)}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}}));
    QCOMPARE(r.code, 0);
}

void tst_Pop::send(
    const QByteArray &topic, int queueId, const QByteArray &body, const QByteArray &tags)
{
    const QByteArray properties = tags.isEmpty()
        ? props({{"UNIQ_KEY", body.constData()}})
        : props({{"UNIQ_KEY", body.constData()}, {"TAGS", tags.constData()}});
    const RemotingCommand r = call(sendV2(topic, queueId, body, properties));
    QVERIFY2(r.code == 0, r.remark.constData());
    // The reput thread puts the message in the consume queue just after the send is answered;
    // a pop sent before that sees fewer messages (CI saw 1 of 5). Wait for it, bounded.
    const std::int64_t queueOffset = r.extLong("queueOffset").value_or(-1);
    QVERIFY(queueOffset >= 0);
    const auto maxOffset = [&] {
        const RemotingCommand m = call(request(30, {{"topic", topic}, {"queueId", num(queueId)}}));
        return m.code == 0 ? m.extLong("offset").value_or(-1) : -1;
    };
    QTRY_VERIFY_WITH_TIMEOUT(maxOffset() > queueOffset, 5000);
}

PopAnswer tst_Pop::pop(const QByteArray &group, const QByteArray &topic, int queueId, int max,
    std::int64_t invisibleMs, std::int64_t pollMs, bool order)
{
    return popAnswer(call(popRequest(group, topic, queueId, max, invisibleMs, pollMs, order),
                         static_cast<int>(pollMs) + 15000),
        kBroker);
}

std::vector<PoppedMessage> tst_Pop::popUntil(const QByteArray &group, const QByteArray &topic,
    int count, std::int64_t invisibleMs, int timeoutMs)
{
    std::vector<PoppedMessage> out;
    QElapsedTimer t;
    t.start();
    while (static_cast<int>(out.size()) < count && t.elapsed() < timeoutMs) {
        const std::int64_t poll
            = std::max<std::int64_t>(1, std::min<std::int64_t>(1000, timeoutMs - t.elapsed()));
        PopAnswer a = pop(group, topic, -1, 32, invisibleMs, poll);
        for (PoppedMessage &m : a.messages)
            out.push_back(std::move(m));
    }
    return out;
}

int tst_Pop::ack(const QByteArray &group, const QByteArray &topic, const PoppedMessage &m)
{
    return call(ackRequest(group, topic, m)).code;
}

void tst_Pop::popWithoutAckIsRedeliveredWithCountRaised()
{
    createTopic("TP1", 4);
    send("TP1", 1, "redeliver-me", "tagA");
    const PopAnswer first = pop("GP1", "TP1", -1, 32, 1000, 2000);
    QCOMPARE(first.code, 0);
    QCOMPARE(first.messages.size(), std::size_t(1));
    QCOMPARE(first.messages[0].body, QByteArray("redeliver-me"));
    QCOMPARE(first.messages[0].reconsumeTimes, 0);
    QCOMPARE(first.header.invisibleTime, std::int64_t(1000));
    QVERIFY(first.header.startOffsetInfo.startsWith("0 1 "));
    QCOMPARE(first.header.msgOffsetInfo, QByteArray("0 1 0"));
    // Invisible now: an immediate pop finds nothing.
    QCOMPARE(pop("GP1", "TP1", -1, 32, 1000, 0).code, 210); // POLLING_TIMEOUT

    QElapsedTimer t;
    t.start();
    const std::vector<PoppedMessage> again = popUntil("GP1", "TP1", 1, 60000, 10000);
    QCOMPARE(again.size(), std::size_t(1));
    QVERIFY2(t.elapsed() >= 500, "redelivered before its invisible time ended");
    QCOMPARE(again[0].body, QByteArray("redeliver-me"));
    QCOMPARE(again[0].topic, QByteArray("TP1"));
    QCOMPARE(again[0].reconsumeTimes, 1);
    QCOMPARE(protocol::findProperty(again[0].properties, "TAGS").toByteArray(), QByteArray("tagA"));
    QVERIFY(!protocol::findProperty(again[0].properties, "1ST_POP_TIME").isEmpty());
    const auto handle = protocol::ExtraInfo::parse(again[0].handle);
    QVERIFY(handle);
    QCOMPARE(handle->retry, '1'); // %RETRY%GP1_TP1
    QVERIFY(m_broker->context().store->maxOffsetInQueue("%RETRY%GP1_TP1", 0) == 1);
    QCOMPARE(ack("GP1", "TP1", again[0]), 0);
}

void tst_Pop::ackedIsNeverRedelivered()
{
    createTopic("TP2", 2);
    for (int i = 0; i < 4; ++i)
        send("TP2", i % 2, "m" + QByteArray::number(i));
    const std::vector<PoppedMessage> got = popUntil("GP2", "TP2", 4, 800, 5000);
    QCOMPARE(got.size(), std::size_t(4));
    for (const PoppedMessage &m : got)
        QCOMPARE(ack("GP2", "TP2", m), 0);
    // A second ack of the same handle is harmless.
    QCOMPARE(ack("GP2", "TP2", got[0]), 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_broker->popService()->inFlightCount(), std::int64_t(0), 5000);
    // Well past the invisible time: nothing comes back.
    const std::vector<PoppedMessage> later = popUntil("GP2", "TP2", 1, 800, 2500);
    QVERIFY(later.empty());
    QCOMPARE(m_broker->context().store->maxOffsetInQueue("%RETRY%GP2_TP2", 0), std::int64_t(0));
}

void tst_Pop::changeInvisibleTime()
{
    createTopic("TP3", 1);
    send("TP3", 0, "extend");
    send("TP3", 0, "shorten");
    PopAnswer a = pop("GP3", "TP3", 0, 2, 1000, 2000);
    QCOMPARE(a.messages.size(), std::size_t(2));
    // Extend the first to 60 s, shorten the second from 1 s to 1 ms... by giving it 1 ms.
    const RemotingCommand ext = call(changeInvisibleRequest("GP3", "TP3", a.messages[0], 60000));
    QCOMPARE(ext.code, 0);
    const QByteArray extendedHandle = changedHandle(ext, a.messages[0]);
    QVERIFY(!extendedHandle.isEmpty());
    const RemotingCommand shortened = call(changeInvisibleRequest("GP3", "TP3", a.messages[1], 1));
    QCOMPARE(shortened.code, 0);
    // The old handle of the extended message is stale now.
    QCOMPARE(call(changeInvisibleRequest("GP3", "TP3", a.messages[0], 1000)).code, 208);

    const std::vector<PoppedMessage> back = popUntil("GP3", "TP3", 1, 60000, 5000);
    QCOMPARE(back.size(), std::size_t(1));
    QCOMPARE(back[0].body, QByteArray("shorten"));
    QCOMPARE(back[0].reconsumeTimes, 1);
    // The extended one stays invisible past its first invisible time (1 s).
    QVERIFY(popUntil("GP3", "TP3", 1, 60000, 2000).empty());
    PoppedMessage extended = a.messages[0];
    extended.handle = extendedHandle;
    QCOMPARE(ack("GP3", "TP3", extended), 0);
    QCOMPARE(ack("GP3", "TP3", back[0]), 0);
}

void tst_Pop::batchAck()
{
    createTopic("TP4", 1);
    for (int i = 0; i < 5; ++i)
        send("TP4", 0, "b" + QByteArray::number(i));
    const PopAnswer a = pop("GP4", "TP4", 0, 5, 1000, 2000);
    QCOMPARE(a.messages.size(), std::size_t(5));
    protocol::BatchAckMessageRequestBody body;
    body.brokerName = kBroker;
    protocol::BatchAck b;
    b.consumerGroup = "GP4";
    b.topic = "TP4";
    b.retry = "0";
    const auto e = protocol::ExtraInfo::parse(a.messages[0].handle);
    QVERIFY(e);
    b.startOffset = e->ckQueueOffset;
    b.queueId = 0;
    b.popTime = e->popTime;
    b.invisibleTime = e->invisibleTime;
    for (const PoppedMessage &m : a.messages)
        b.offsets.push_back(m.queueOffset);
    body.acks.push_back(b);
    const QByteArray json = body.toJson();
    QVERIFY(json.contains("\"b\":\"Hw==\"")); // BitSet {0..4}.toByteArray() = [0x1f]
    const RemotingCommand r = call(request(200151,
        {{"consumerGroup", "GP4"}, {"topic", "TP4"}, {"queueId", "0"}, {"extraInfo", "x"},
            {"offset", "0"}},
        json));
    QCOMPARE(r.code, 0);
    QVERIFY(popUntil("GP4", "TP4", 1, 1000, 2500).empty());
}

void tst_Pop::dlqAfterMaxReconsumeTimes()
{
    createTopic("TP5", 1);
    protocol::SubscriptionGroupConfig group("GP5");
    group.retryMaxTimes = 2;
    QCOMPARE(call(request(200, {}, group.toJson())).code, 0);
    send("TP5", 0, "poison");
    // Delivered 1 + retryMaxTimes times, never acked, then to %DLQ%GP5.
    std::vector<int> counts;
    for (int i = 0; i < 3; ++i) {
        const std::vector<PoppedMessage> got = popUntil("GP5", "TP5", 1, 300, 8000);
        QCOMPARE(got.size(), std::size_t(1));
        counts.push_back(got[0].reconsumeTimes);
    }
    QCOMPARE(counts, (std::vector<int> {0, 1, 2}));
    storage::MessageStore *store = m_broker->context().store;
    QTRY_COMPARE_WITH_TIMEOUT(store->maxOffsetInQueue("%DLQ%GP5", 0), std::int64_t(1), 8000);
    const storage::GetMessageResult dlq = store->getMessage("x", "%DLQ%GP5", 0, 0, 1);
    QCOMPARE(dlq.messageCount(), 1);
    protocol::MessageRecordView v;
    QCOMPARE(protocol::decodeRecord(dlq.messages[0], v, true).status, protocol::RecordStatus::Ok);
    QCOMPARE(v.body.toByteArray(), QByteArray("poison"));
    QCOMPARE(protocol::findProperty(v.properties, "RETRY_TOPIC").toByteArray(), QByteArray("TP5"));
    QVERIFY(popUntil("GP5", "TP5", 1, 300, 1500).empty());
}

void tst_Pop::orderlyPop()
{
    createTopic("TP6", 1);
    for (int i = 0; i < 3; ++i)
        send("TP6", 0, "o" + QByteArray::number(i));
    PopAnswer a = pop("GP6", "TP6", 0, 1, 800, 1000, true);
    QCOMPARE(a.messages.size(), std::size_t(1));
    QCOMPARE(a.messages[0].body, QByteArray("o0"));
    QCOMPARE(a.header.reviveQid, 999);
    QCOMPARE(a.header.orderCountInfo, QByteArray("0 0 0"));
    // o0 is in flight: the queue hands out nothing else.
    QCOMPARE(pop("GP6", "TP6", 0, 1, 800, 0, true).code, 210);
    QCOMPARE(ack("GP6", "TP6", a.messages[0]), 0);
    a = pop("GP6", "TP6", 0, 1, 800, 1000, true);
    QCOMPARE(a.messages.size(), std::size_t(1));
    QCOMPARE(a.messages[0].body, QByteArray("o1"));
    // Not acked: after its invisible time o1 comes again (count 1), never o2 before it.
    PopAnswer again;
    QElapsedTimer t;
    t.start();
    while (again.messages.empty() && t.elapsed() < 8000)
        again = pop("GP6", "TP6", 0, 1, 800, 1000, true);
    QCOMPARE(again.messages.size(), std::size_t(1));
    QCOMPARE(again.messages[0].body, QByteArray("o1"));
    QCOMPARE(again.messages[0].reconsumeTimes, 1);
    QCOMPARE(again.header.orderCountInfo, QByteArray("0 0 1"));
    QCOMPARE(ack("GP6", "TP6", again.messages[0]), 0);
    a = pop("GP6", "TP6", 0, 1, 800, 1000, true);
    QCOMPARE(a.messages.size(), std::size_t(1));
    QCOMPARE(a.messages[0].body, QByteArray("o2"));
    QCOMPARE(ack("GP6", "TP6", a.messages[0]), 0);
}

void tst_Pop::consumersOfOneGroupGetDisjointMessages()
{
    createTopic("TP7", 1);
    constexpr int kCount = 60;
    for (int i = 0; i < kCount; ++i)
        send("TP7", 0, "d" + QByteArray::number(i));
    // Four consumers (own connections) take turns popping the one queue.
    std::vector<std::unique_ptr<remoting::RemotingClient>> consumers;
    for (int i = 0; i < 4; ++i)
        consumers.push_back(std::make_unique<remoting::RemotingClient>());
    std::multiset<QByteArray> seen;
    for (int round = 0; round < 100 && static_cast<int>(seen.size()) < kCount; ++round) {
        auto &c = consumers[static_cast<std::size_t>(round) % consumers.size()];
        const PopAnswer a
            = popAnswer(invoke(*c, m_addr, popRequest("GP7", "TP7", 0, 7, 60000, 0)), kBroker);
        for (const PoppedMessage &m : a.messages)
            seen.insert(m.body);
    }
    QCOMPARE(static_cast<int>(seen.size()), kCount);
    QCOMPARE(static_cast<int>(std::set<QByteArray>(seen.begin(), seen.end()).size()), kCount);
}

void tst_Pop::concurrentPopsAreDisjoint()
{
    createTopic("TP8", 2);
    constexpr int kCount = 200;
    for (int i = 0; i < kCount; ++i)
        send("TP8", i % 2, "c" + QByteArray::number(i));
    std::mutex mutex;
    std::vector<QByteArray> seen;
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&] {
            remoting::RemotingClient client;
            for (int round = 0; round < 200; ++round) {
                {
                    std::lock_guard lock(mutex);
                    if (static_cast<int>(seen.size()) >= kCount)
                        return;
                }
                auto r
                    = client.invokeSync(m_addr, popRequest("GP8", "TP8", -1, 5, 60000, 0), 15000);
                if (!r)
                    continue;
                const PopAnswer a = popAnswer(*r, kBroker);
                std::lock_guard lock(mutex);
                for (const PoppedMessage &m : a.messages)
                    seen.push_back(m.body);
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    QCOMPARE(static_cast<int>(seen.size()), kCount);
    QCOMPARE(static_cast<int>(std::set<QByteArray>(seen.begin(), seen.end()).size()), kCount);
}

void tst_Pop::popGroupAndPullGroupEachGetEverything()
{
    createTopic("TP9", 1);
    constexpr int kCount = 10;
    for (int i = 0; i < kCount; ++i)
        send("TP9", 0, "e" + QByteArray::number(i));
    const std::vector<PoppedMessage> popped = popUntil("GP9", "TP9", kCount, 60000, 5000);
    QCOMPARE(static_cast<int>(popped.size()), kCount);
    for (const PoppedMessage &m : popped)
        QCOMPARE(ack("GP9", "TP9", m), 0);
    const RemotingCommand pulled = call(request(11,
        {{"consumerGroup", "GPULL9"}, {"topic", "TP9"}, {"queueId", "0"}, {"queueOffset", "0"},
            {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "0"},
            {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"},
            {"expressionType", "TAG"}}));
    QCOMPARE(pulled.code, 0);
    QCOMPARE(static_cast<int>(records(pulled.body).size()), kCount);
}

void tst_Pop::longPollIsWokenByANewMessage()
{
    createTopic("TP10", 2);
    QElapsedTimer t;
    std::atomic<qint64> answeredAt {-1};
    PopAnswer answer;
    t.start();
    std::thread poller([&] {
        remoting::RemotingClient client;
        auto r = client.invokeSync(m_addr, popRequest("GP10", "TP10", -1, 1, 60000, 8000), 20000);
        answeredAt = t.elapsed();
        if (r)
            answer = popAnswer(*r, kBroker);
    });
    // Parked: POLLING_INFO sees it.
    QTRY_VERIFY_WITH_TIMEOUT(m_broker->popService()->hold().heldCount("TP10") == 1, 5000);
    const qint64 sentAt = t.elapsed();
    send("TP10", 1, "wake");
    poller.join();
    QCOMPARE(answer.code, 0);
    QCOMPARE(answer.messages.size(), std::size_t(1));
    const qint64 latency = answeredAt - sentAt;
    qInfo("long-poll wake-up latency: %lld ms", static_cast<long long>(latency));
    QVERIFY2(latency < 1000, qPrintable(QString::number(latency)));
}

void tst_Pop::longPollIsWokenByARevivedMessage()
{
    createTopic("TP11", 1);
    send("TP11", 0, "revive-wakes");
    QCOMPARE(pop("GP11", "TP11", 0, 1, 1000, 1000).messages.size(), std::size_t(1));
    QElapsedTimer t;
    t.start();
    // Parked before the invisible time ends; the revived copy (to the retry topic) wakes it.
    const PopAnswer a = pop("GP11", "TP11", 0, 1, 60000, 8000);
    QCOMPARE(a.messages.size(), std::size_t(1));
    QCOMPARE(a.messages[0].reconsumeTimes, 1);
    QVERIFY2(t.elapsed() < 4000, qPrintable(QString::number(t.elapsed())));
}

void tst_Pop::stateSurvivesARestart()
{
    createTopic("TP12", 1);
    for (int i = 0; i < 4; ++i)
        send("TP12", 0, "r" + QByteArray::number(i));
    const PopAnswer a = pop("GP12", "TP12", 0, 4, 2000, 1000);
    QCOMPARE(a.messages.size(), std::size_t(4));
    QCOMPARE(ack("GP12", "TP12", a.messages[0]), 0);
    QCOMPARE(ack("GP12", "TP12", a.messages[2]), 0);
    // Earlier tests left messages in flight with a long invisible time: the same count comes back.
    const std::int64_t inFlight = m_broker->popService()->inFlightCount();
    stopInProcessBroker(m_broker);
    startBroker();
    QCOMPARE(m_broker->popService()->inFlightCount(), inFlight);
    const std::vector<PoppedMessage> back = popUntil("GP12", "TP12", 2, 60000, 8000);
    std::set<QByteArray> bodies;
    for (const PoppedMessage &m : back)
        bodies.insert(m.body);
    QCOMPARE(bodies, (std::set<QByteArray> {"r1", "r3"}));
    QVERIFY(popUntil("GP12", "TP12", 1, 60000, 1500).empty());
}

void tst_Pop::regression_rocketmq7914_unackedNotLostOnRevive()
{
    // apache/rocketmq#7914: popped, unacked messages were lost when the revive progress moved
    // past checkpoints whose retry copies were not written. Here: many checkpoints, a restart
    // while they are in flight (and while some expire), and every unacked message must come
    // back exactly once per expiry, the acked ones never.
    createTopic("TP13", 2);
    constexpr int kCount = 40;
    for (int i = 0; i < kCount; ++i)
        send("TP13", i % 2, "u" + QByteArray::number(i));
    std::vector<PoppedMessage> got;
    while (static_cast<int>(got.size()) < kCount) {
        const PopAnswer a = pop("GP13", "TP13", -1, 3, 1500, 1000);
        QVERIFY(a.code == 0);
        got.insert(got.end(), a.messages.begin(), a.messages.end());
    }
    std::set<QByteArray> acked;
    for (std::size_t i = 0; i < got.size(); i += 3) {
        QCOMPARE(ack("GP13", "TP13", got[i]), 0);
        acked.insert(got[i].body);
    }
    stopInProcessBroker(m_broker);
    startBroker();
    const std::vector<PoppedMessage> back
        = popUntil("GP13", "TP13", kCount - static_cast<int>(acked.size()), 60000, 15000);
    std::multiset<QByteArray> bodies;
    for (const PoppedMessage &m : back) {
        QVERIFY2(!acked.count(m.body), m.body.constData());
        bodies.insert(m.body);
    }
    QCOMPARE(static_cast<int>(bodies.size()), kCount - static_cast<int>(acked.size()));
    QCOMPARE(std::set<QByteArray>(bodies.begin(), bodies.end()).size(), bodies.size());
}

void tst_Pop::regression_rocketmq7724_ackedNeverRevived()
{
    // apache/rocketmq#7724: an acked message was revived (delivered twice). Acks race the
    // revive here: each ack that answers SUCCESS must keep its message away for good, each that
    // answers NO_MESSAGE (too late) must see it come back once.
    createTopic("TP14", 1);
    constexpr int kCount = 32;
    for (int i = 0; i < kCount; ++i)
        send("TP14", 0, "k" + QByteArray::number(i));
    QTRY_COMPARE_WITH_TIMEOUT(
        m_broker->context().store->maxOffsetInQueue("TP14", 0), std::int64_t(kCount), 5000);
    const PopAnswer a = pop("GP14", "TP14", 0, 32, 300, 1000);
    QCOMPARE(static_cast<int>(a.messages.size()), 32);
    const std::vector<PoppedMessage> &got = a.messages;
    // Acks spread over [200 ms, ~400 ms] after the pop: around the end of the invisible time,
    // while the revive runs.
    QTest::qWait(200);
    std::set<QByteArray> acked;
    std::set<QByteArray> late;
    for (const PoppedMessage &m : got) {
        QTest::qWait(6);
        const int code = ack("GP14", "TP14", m);
        QVERIFY2(code == 0 || code == 208, qPrintable(QString::number(code)));
        (code == 0 ? acked : late).insert(m.body);
    }
    qInfo("acked in time: %zu, too late: %zu", acked.size(), late.size());
    const std::vector<PoppedMessage> back
        = popUntil("GP14", "TP14", static_cast<int>(late.size()), 60000, 8000);
    std::multiset<QByteArray> bodies;
    for (const PoppedMessage &m : back) {
        QVERIFY2(!acked.count(m.body),
            qPrintable(QStringLiteral("%1 reconsume %2 handle %3")
                           .arg(QString::fromUtf8(m.body))
                           .arg(m.reconsumeTimes)
                           .arg(QString::fromUtf8(m.handle))));
        bodies.insert(m.body);
    }
    QCOMPARE(std::set<QByteArray>(bodies.begin(), bodies.end()), late);
    QCOMPARE(bodies.size(), late.size());
    const std::vector<PoppedMessage> extra = popUntil("GP14", "TP14", 1, 60000, 1000);
    for (const PoppedMessage &m : extra)
        qWarning("extra: %s reconsume %d acked %d late %d", m.body.constData(), m.reconsumeTimes,
            int(acked.count(m.body)), int(late.count(m.body)));
    QVERIFY(extra.empty());
}

void tst_Pop::requestModeIsPersisted()
{
    protocol::SetMessageRequestModeRequestBody mode;
    mode.topic = "TP15";
    mode.consumerGroup = "GP15";
    mode.mode = "POP";
    mode.popShareQueueNum = 0;
    QCOMPARE(call(request(401, {}, mode.toJson())).code, 0);
    stopInProcessBroker(m_broker);
    startBroker();
    const RemotingCommand all = call(request(402));
    QCOMPARE(all.code, 0);
    auto table = protocol::MessageRequestModeTable::fromJson(all.body);
    QVERIFY(table);
    QCOMPARE(table->modes["TP15"]["GP15"].mode, QByteArray("POP"));
    mode.topic = "%RETRY%GP15";
    QCOMPARE(call(request(401, {}, mode.toJson())).code, 16); // NO_PERMISSION
}

void tst_Pop::queryAssignmentInPopMode()
{
    createTopic("TP15", 3);
    // A heartbeat makes the client a member of GP15.
    protocol::HeartbeatData hb;
    hb.clientID = "client-a";
    protocol::ConsumerData cd;
    cd.groupName = "GP15";
    cd.consumeType = protocol::ConsumeType::ConsumePassively;
    cd.messageModel = protocol::MessageModel::Clustering;
    hb.consumerDataSet.push_back(cd);
    QCOMPARE(call(request(34, {}, hb.toJson())).code, 0);
    protocol::QueryAssignmentRequestBody q;
    q.topic = "TP15";
    q.consumerGroup = "GP15";
    q.clientId = "client-a";
    q.strategyName = "AVG";
    const RemotingCommand r = call(request(400, {}, q.toJson()));
    QCOMPARE(r.code, 0);
    auto body = protocol::QueryAssignmentResponseBody::fromJson(r.body);
    QVERIFY2(body, r.body.constData());
    QCOMPARE(body->messageQueueAssignments.size(), std::size_t(1)); // one MQ with queueId -1
    QCOMPARE(body->messageQueueAssignments[0].messageQueue.queueId, -1);
    QCOMPARE(body->messageQueueAssignments[0].mode, QByteArray("POP"));
}

void tst_Pop::topicAndGroupConfig()
{
    createTopic("TP16", 3);
    RemotingCommand r = call(request(351, {{"topic", "TP16"}}));
    QCOMPARE(r.code, 0);
    QVERIFY(r.body.contains("\"readQueueNums\":3"));
    QCOMPARE(call(request(351, {{"topic", "NoSuchTopic16"}})).code, 17);
    r = call(request(352, {{"group", "GP16"}}));
    QCOMPARE(r.code, 0);
    QVERIFY(r.body.contains("\"groupName\":\"GP16\""));
}

void tst_Pop::badRequestsAreRefused()
{
    createTopic("TP17", 1);
    QCOMPARE(pop("GP17", "NoSuchTopic17", -1, 1, 1000).code, 17);
    QCOMPARE(pop("GP17", "TP17", 5, 1, 1000).code, 29); // queueId out of range
    QCOMPARE(pop("GP17", "TP17", 0, 33, 1000).code, 29); // more than 32
    RemotingCommand missing = RemotingCommand::createRequest(200050);
    missing.setExt("topic", "TP17");
    QCOMPARE(call(missing).code, 1);
    PoppedMessage bogus;
    bogus.handle = "not a handle";
    QCOMPARE(ack("GP17", "TP17", bogus), 13);
    send("TP17", 0, "x");
    QTRY_COMPARE_WITH_TIMEOUT(
        m_broker->context().store->maxOffsetInQueue("TP17", 0), std::int64_t(1), 5000);
    bogus.handle = "0 1 1000 0 0 broker-pop 0 0";
    QCOMPARE(ack("GP17", "TP17", bogus), 0); // a checkpoint that does not exist: nothing to do
    QCOMPARE(call(request(200151, {}, "{not json")).code, 208);
}

void tst_Pop::newGroupInMaxModeStartsAsRocketMQ53()
{
    // The mode RocketMQ 5's proxy and SDKs pop with (MAX). A queue that still starts at 0 and is
    // in memory is handed out whole (initPopOffsetByCheckMsgInMem, default true), as RocketMQ
    // 5.3 does: a SimpleConsumer started after its producer gets the messages.
    createTopic("TPInit", 1);
    for (int i = 0; i < 5; ++i)
        send("TPInit", 0, "init-" + QByteArray::number(i));
    const auto popMax = [&](const QByteArray &group) {
        return popAnswer(call(popRequest(group, "TPInit", 0, 32, 60000, 0, false, {},
                             protocol::ConsumeInitMode::Max)),
            kBroker);
    };
    PopAnswer whole = popMax("GPInitA");
    QCOMPARE(whole.code, 0);
    QCOMPARE(whole.messages.size(), std::size_t(5));
    QCOMPARE(whole.messages.front().body, QByteArray("init-0"));
    // Without the in-memory rule a new group starts at the queue's last message.
    QCOMPARE(call(request(25, {}, "initPopOffsetByCheckMsgInMem=false\n")).code, 0);
    PopAnswer last = popMax("GPInitB");
    QCOMPARE(call(request(25, {}, "initPopOffsetByCheckMsgInMem=true\n")).code, 0);
    QCOMPARE(last.code, 0);
    QCOMPARE(last.messages.size(), std::size_t(1));
    QCOMPARE(last.messages.front().body, QByteArray("init-4"));
    // Both positions are committed: the next pop of each group finds nothing new.
    QCOMPARE(popMax("GPInitA").code, 210);
    QCOMPARE(popMax("GPInitB").code, 210);
}

QTEST_GUILESS_MAIN(tst_Pop)
#include "tst_pop.moc"
