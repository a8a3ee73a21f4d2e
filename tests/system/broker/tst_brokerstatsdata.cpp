// VIEW_BROKER_STATS_DATA (315) and CLEAN_UNUSED_TOPIC (316) over sockets against an in-process
// BrokerController, as RocketMQ 4.9 answers them. The stats manager's clock is injected: the
// test moves it and takes the samples itself (tick()), so every figure is exact.

#include "broker/brokercontroller.h"
#include "broker/common/brokercontext.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/stats/brokerstatsmanager.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messagebatch.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <cmath>

using namespace qrocket;
using namespace qrocket::brokertest;
using protocol::JsonValue;

namespace {

constexpr int kViewBrokerStatsData = 315;
constexpr int kCleanUnusedTopic = 316;
constexpr std::int64_t kStart = 1'700'000'000'000; // the injected clock's first reading
constexpr std::int64_t kSecond = 1000;

const QByteArray kTopic = "TSTATS";
const QByteArray kGroup = "GSTATS";

struct Figures
{
    std::int64_t sum = -1;
    double tps = -1;
    double avgpt = -1;
};

Figures figures(const JsonValue &item)
{
    return {item["sum"].toInteger(-1), item["tps"].toDouble(-1), item["avgpt"].toDouble(-1)};
}

bool same(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class tst_BrokerStatsData final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void itemsExistBeforeTheFirstSample();
    void minuteWindowAfterSendAndPull();
    void minuteWindowKeepsSevenSamples();
    void hourAndDayWindows();
    void sendBackCounts();
    void unknownItems();
    void scheduleDeliveryCounts();
    void cleanUnusedTopic();

private:
    RemotingCommand call(RemotingCommand req);
    /// The stats of one item (SUCCESS expected): {minute, hour, day}.
    std::array<Figures, 3> view(const QByteArray &name, const QByteArray &key);
    RemotingCommand pull(std::int64_t offset, int maxMsgNums);
    /// Moves the injected clock, then takes the samples that are due.
    void advance(std::int64_t millis);

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_addr;
    std::atomic<std::int64_t> m_now {kStart};
    std::int64_t m_putBytes = 0; // what the pulls of the first test read back
    std::int64_t m_firstRecordOffset = -1;
};

void tst_BrokerStatsData::initTestCase()
{
    QVERIFY(m_dir.isValid());
    brokertest::startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-a"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    QVERIFY(m_broker->context().statsManager);
    m_addr = localAddr(m_broker->listenPort());
    m_client = std::make_unique<remoting::RemotingClient>();
    // From here on the broker's own once-a-second tick() samples only when this clock says so.
    m_broker->context().statsManager->setClock([this] { return m_now.load(); });
    m_broker->context().statsManager->tick(); // the first samples, before any item exists
}

void tst_BrokerStatsData::cleanupTestCase()
{
    m_client.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_BrokerStatsData::call(RemotingCommand req)
{
    return invoke(*m_client, m_addr, std::move(req), 15000);
}

std::array<Figures, 3> tst_BrokerStatsData::view(const QByteArray &name, const QByteArray &key)
{
    const RemotingCommand r
        = call(request(kViewBrokerStatsData, {{"statsName", name}, {"statsKey", key}}));
    [&] { QCOMPARE(r.code, 0); }();
    const auto body = protocol::parseJson(r.body);
    if (!body) {
        qWarning() << "bad JSON:" << r.body;
        return {};
    }
    const JsonValue &v = body.value();
    return {figures(v["statsMinute"]), figures(v["statsHour"]), figures(v["statsDay"])};
}

RemotingCommand tst_BrokerStatsData::pull(std::int64_t offset, int maxMsgNums)
{
    return call(request(11,
        {{"consumerGroup", kGroup}, {"topic", kTopic}, {"queueId", "0"},
            {"queueOffset", num(offset)}, {"maxMsgNums", num(maxMsgNums)}, {"sysFlag", "4"},
            {"commitOffset", "-1"}, {"suspendTimeoutMillis", "0"}, {"subscription", "*"},
            {"subVersion", "0"}}));
}

void tst_BrokerStatsData::advance(std::int64_t millis)
{
    m_now += millis;
    m_broker->context().statsManager->tick();
}

void tst_BrokerStatsData::itemsExistBeforeTheFirstSample()
{
    // 5 single sends and one batch of 3 to queue 0: 8 messages in 6 stored sends.
    for (int i = 0; i < 5; ++i)
        QCOMPARE(call(sendV2(kTopic, 0, "single " + num(i))).code, 0);
    std::vector<protocol::BatchItemView> items;
    const QByteArray p = props({{"KEYS", "k"}});
    for (const char *body : {"b1", "b2", "b3"})
        items.push_back({0, body, p});
    RemotingCommand batch = sendV2(kTopic, 0, {});
    batch.code = 320;
    batch.body = protocol::encodeBatch(items);
    QCOMPARE(call(batch).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_broker->context().store->maxOffsetInQueue(kTopic, 0), 8, 5000);

    // Two pulls of 4 by the group: all 8 messages.
    for (const std::int64_t offset : {0, 4}) {
        const RemotingCommand r = pull(offset, 4);
        QCOMPARE(r.code, 0);
        const auto recs = records(r.body);
        QCOMPARE(recs.size(), std::size_t(4));
        if (offset == 0)
            m_firstRecordOffset = recs.front().physicalOffset;
        m_putBytes += r.body.size();
    }

    // The items exist, with no sample yet: every window is zero (RocketMQ's empty snapshot).
    for (const auto &[name, key] : std::initializer_list<std::pair<QByteArray, QByteArray>> {
             {"TOPIC_PUT_NUMS", kTopic}, {"TOPIC_PUT_SIZE", kTopic},
             {"GROUP_GET_NUMS", kTopic + '@' + kGroup}, {"GROUP_GET_SIZE", kTopic + '@' + kGroup},
             {"GROUP_GET_LATENCY", "0@" + kTopic + '@' + kGroup},
             {"BROKER_PUT_NUMS", "DefaultCluster"}, {"BROKER_GET_NUMS", "DefaultCluster"}}) {
        for (const Figures &f : view(name, key)) {
            QCOMPARE(f.sum, 0);
            QCOMPARE(f.tps, 0.0);
            QCOMPARE(f.avgpt, 0.0);
        }
    }
}

void tst_BrokerStatsData::minuteWindowAfterSendAndPull()
{
    // The first minute sample of a new item comes with a zero one 10 s before it.
    advance(10 * kSecond);
    const auto puts = view("TOPIC_PUT_NUMS", kTopic);
    QCOMPARE(puts[0].sum, 8);
    QVERIFY(same(puts[0].tps, 0.8)); // 8 messages in 10 s
    QVERIFY(same(puts[0].avgpt, 8.0 / 6)); // per stored send
    QCOMPARE(puts[1].sum, 0); // the hour and day windows are sampled later
    QCOMPARE(puts[2].sum, 0);

    const auto putSize = view("TOPIC_PUT_SIZE", kTopic);
    QCOMPARE(putSize[0].sum, m_putBytes); // the pulls read back every stored byte
    QVERIFY(same(putSize[0].avgpt, m_putBytes / 6.0));

    const auto gets = view("GROUP_GET_NUMS", kTopic + '@' + kGroup);
    QCOMPARE(gets[0].sum, 8);
    QVERIFY(same(gets[0].tps, 0.8));
    QVERIFY(same(gets[0].avgpt, 4.0)); // per pull
    QCOMPARE(view("GROUP_GET_SIZE", kTopic + '@' + kGroup)[0].sum, m_putBytes);

    // The broker-wide items count messages only (no calls: avgpt 0).
    const auto brokerPut = view("BROKER_PUT_NUMS", "DefaultCluster");
    QCOMPARE(brokerPut[0].sum, 8);
    QCOMPARE(brokerPut[0].avgpt, 0.0);
    QCOMPARE(view("BROKER_GET_NUMS", "DefaultCluster")[0].sum, 8);

    // Two pulls timed: the sum is their milliseconds, avgpt the mean.
    const auto latency = view("GROUP_GET_LATENCY", "0@" + kTopic + '@' + kGroup);
    QVERIFY(latency[0].sum >= 0);
    QVERIFY(same(latency[0].avgpt, latency[0].sum / 2.0));
}

void tst_BrokerStatsData::minuteWindowKeepsSevenSamples()
{
    // Six more samples, one message before each: 7 samples from +10 s (8) to +70 s (14); the
    // zero sample has dropped out, so the window covers 60 s and 6 messages.
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(call(sendV2(kTopic, 1, "more " + num(i))).code, 0);
        advance(10 * kSecond);
    }
    const auto puts = view("TOPIC_PUT_NUMS", kTopic);
    QCOMPARE(puts[0].sum, 6);
    QVERIFY(same(puts[0].tps, 0.1));
    QVERIFY(same(puts[0].avgpt, 1.0));
    QCOMPARE(view("BROKER_PUT_NUMS", "DefaultCluster")[0].sum, 6);
    // No pull since: the group's window is flat.
    const auto gets = view("GROUP_GET_NUMS", kTopic + '@' + kGroup);
    QCOMPARE(gets[0].sum, 0);
    QCOMPARE(gets[0].tps, 0.0);
}

void tst_BrokerStatsData::hourAndDayWindows()
{
    // 10 min after the start the hour window takes its first sample (a zero one 10 min
    // before it); 1 h after the start, the day window (a zero one 1 h before).
    m_now = kStart + 600 * kSecond;
    m_broker->context().statsManager->tick();
    auto puts = view("TOPIC_PUT_NUMS", kTopic);
    QCOMPARE(puts[1].sum, 14);
    QVERIFY(same(puts[1].tps, 14.0 / 600));
    QVERIFY(same(puts[1].avgpt, 14.0 / 12));
    QCOMPARE(puts[2].sum, 0);

    m_now = kStart + 3600 * kSecond;
    m_broker->context().statsManager->tick();
    puts = view("TOPIC_PUT_NUMS", kTopic);
    QCOMPARE(puts[1].sum, 14);
    QVERIFY(same(puts[1].tps, 14.0 / 3600)); // two hour samples 50 min apart + the zero one
    QCOMPARE(puts[2].sum, 14);
    QVERIFY(same(puts[2].tps, 14.0 / 3600));
    const auto gets = view("GROUP_GET_NUMS", kTopic + '@' + kGroup);
    QCOMPARE(gets[2].sum, 8);
    QVERIFY(same(gets[2].avgpt, 4.0));
}

void tst_BrokerStatsData::sendBackCounts()
{
    // A consumer sends the first message back: SNDBCK_PUT_NUMS under its original topic, and
    // the put into the schedule topic (delay level 3) under that topic.
    QVERIFY(m_firstRecordOffset >= 0);
    const RemotingCommand back = call(request(
        36, {{"offset", num(m_firstRecordOffset)}, {"group", kGroup}, {"delayLevel", "0"}}));
    QCOMPARE(back.code, 0);
    advance(10 * kSecond);
    const auto sendBacks = view("SNDBCK_PUT_NUMS", kTopic + '@' + kGroup);
    QCOMPARE(sendBacks[0].sum, 1);
    QVERIFY(same(sendBacks[0].avgpt, 1.0));
    QCOMPARE(view("TOPIC_PUT_NUMS", "SCHEDULE_TOPIC_XXXX")[0].sum, 1);
}

void tst_BrokerStatsData::unknownItems()
{
    // RocketMQ: SYSTEM_ERROR "The stats <name> <key> not exist" for an unknown name or key.
    for (const auto &[name, key] : std::initializer_list<std::pair<QByteArray, QByteArray>> {
             {"TOPIC_PUT_NUMS", "NoSuchTopic"}, {"GROUP_GET_NUMS", kTopic + "@NoSuchGroup"},
             {"SNDBCK_PUT_NUMS", kTopic + "@NoSuchGroup"}, {"BROKER_PUT_NUMS", "OtherCluster"},
             {"NO_SUCH_STATS", kTopic}}) {
        const RemotingCommand r
            = call(request(kViewBrokerStatsData, {{"statsName", name}, {"statsKey", key}}));
        QCOMPARE(r.code, 1);
        QCOMPARE(r.remark, "The stats <" + name + "> <" + key + "> not exist");
        QVERIFY(r.body.isEmpty());
    }
    const RemotingCommand missing
        = call(request(kViewBrokerStatsData, {{"statsName", "TOPIC_PUT_NUMS"}}));
    QCOMPARE(missing.code, 1);
    QVERIFY(missing.remark.contains("statsKey"));
}

void tst_BrokerStatsData::scheduleDeliveryCounts()
{
    // A level-1 (1 s) delayed send is a put of SCHEDULE_TOPIC_XXXX; when it is delivered, a get
    // of SCHEDULE_TOPIC_XXXX by SCHEDULE_CONSUMER and a put of its real topic (4.9's default
    // enableScheduleMessageStats).
    auto exists = [this](const QByteArray &name, const QByteArray &key) {
        return call(request(kViewBrokerStatsData, {{"statsName", name}, {"statsKey", key}})).code
            == 0;
    };
    QVERIFY(!exists("TOPIC_PUT_NUMS", "TDELAY"));
    QCOMPARE(call(sendV2("TDELAY", 0, "later", props({{"DELAY", "1"}}))).code, 0);
    QVERIFY(!exists("TOPIC_PUT_NUMS", "TDELAY"));
    QTRY_VERIFY_WITH_TIMEOUT(exists("TOPIC_PUT_NUMS", "TDELAY"), 15000);
    QVERIFY(exists("GROUP_GET_NUMS", "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER"));
    QVERIFY(exists("GROUP_GET_SIZE", "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER"));
}

void tst_BrokerStatsData::cleanUnusedTopic()
{
    broker::BrokerContext &ctx = m_broker->context();
    QCOMPARE(call(sendV2("TKEEP", 0, "keep")).code, 0);
    QCOMPARE(call(sendV2("TGONE", 0, "gone")).code, 0);
    // Consume queues without a topic config: a stray topic goes; the op-half and LMQ topics stay.
    for (const char *topic : {"TSTRAY", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "%LMQ%lmq1"}) {
        storage::MessageExtBrokerInner msg;
        msg.topic = topic;
        msg.body = "x";
        msg.storeHost = ctx.storeHostAddress;
        msg.bornHost = ctx.storeHostAddress;
        QVERIFY(ctx.store->putMessageAndWait(msg).isOk());
    }
    QVERIFY(ctx.store->waitForDispatch(5000));
    for (const char *topic :
        {"TKEEP", "TGONE", "TSTRAY", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "%LMQ%lmq1"})
        QVERIFY2(ctx.store->findConsumeQueue(topic, 0), topic);
    QVERIFY(ctx.store->findConsumeQueue("SCHEDULE_TOPIC_XXXX", 2)); // the send-back's
    QVERIFY(ctx.topics->deleteTopicConfig("TGONE")); // config gone, consume queues left

    const RemotingCommand r = call(request(kCleanUnusedTopic));
    QCOMPARE(r.code, 0);
    QVERIFY(!ctx.store->findConsumeQueue("TGONE", 0));
    QVERIFY(!ctx.store->findConsumeQueue("TSTRAY", 0));
    for (const char *topic : {"TKEEP", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "%LMQ%lmq1"})
        QVERIFY2(ctx.store->findConsumeQueue(topic, 0), topic);
    QVERIFY(ctx.store->findConsumeQueue("SCHEDULE_TOPIC_XXXX", 2));
    QVERIFY(ctx.store->findConsumeQueue(kTopic, 0));
    QCOMPARE(ctx.store->maxOffsetInQueue(kTopic, 0), 8);
    // A second clean finds nothing more to drop.
    QCOMPARE(call(request(kCleanUnusedTopic)).code, 0);
    QVERIFY(ctx.store->findConsumeQueue("TKEEP", 0));
}

QTEST_GUILESS_MAIN(tst_BrokerStatsData)
#include "tst_brokerstatsdata.moc"
