// tst_Admin: every call of client::Admin (clientlib/client/admin/admin.h) against an
// EmbeddedCluster with two brokers, in its blocking and asynchronous forms, and its errors: an
// unknown topic, an unreachable name server, a stopped broker, a stock-RocketMQ-like peer without
// QRocket's extensions, and async calls still queued at shutdown.
//
// A consumer is played by a raw RemotingClient that heartbeats as group kConsumerGroup and
// answers the GET_CONSUMER_RUNNING_INFO the broker forwards to it, so the consumer-side calls
// are tested without depending on the push consumer.

#include "admintestutil.h"
#include "clientlib/client/admin/admin.h"
#include "clientlib/client/producer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/headers/consumerheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/remotingclient.h"
#include "clientlib/remoting/remotingserver.h"

#include <QElapsedTimer>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>

using namespace std::chrono_literals;
using namespace qrocket;
using client::Admin;
using protocol::MessageQueue;
using protocol::RemotingCommand;
using protocol::RequestCode;
using protocol::ResponseCode;
using protocol::toInt;

namespace {

const QByteArray kTopic = QByteArrayLiteral("AdminTopic");
const QByteArray kProducerGroup = QByteArrayLiteral("AdminPG");
const QByteArray kConsumerGroup = QByteArrayLiteral("AdminCG");
const QByteArray kFakeClientId = QByteArrayLiteral("127.0.0.1@admin-test-consumer");
constexpr int kMessages = 20;

} // namespace

using namespace admintest;

class tst_Admin : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void clusterInfoAndOverview();
    void brokerLiveness();
    void topicsCreateListRouteConfig();
    void topicStatsAfterSends();
    void messageQueries();
    void subscriptionGroups();
    void consumerSide();
    void consumeStatsAndReset();
    void producerConnection();
    void brokerConfigAndStats();
    void nameServerConfigAndKv();
    void writePermission();
    void maintenance();
    void asyncForms();
    void deleteTopic();
    void unknownTopic();
    void badArguments();
    void extensionsOnStockPeer();
    void unreachableNameServer();
    void queuedCallsAtShutdown();
    void destroyedFromItsCallback();
    void stoppedBroker();

private:
    QByteArray brokerAddr(int i) const { return m_cluster->brokerAddress(i).toUtf8(); }

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Admin> m_admin;
    std::unique_ptr<client::Producer> m_producer;
    std::unique_ptr<remoting::RemotingClient> m_fakeConsumer;
    std::vector<client::SendResult> m_sent;
};

void tst_Admin::initTestCase()
{
    EmbeddedClusterOptions options;
    options.brokerCount = 2;
    m_cluster = std::make_unique<EmbeddedCluster>(options);
    const Status st = m_cluster->start();
    QVERIFY2(st.isOk(), qPrintable(st.toString()));
    m_admin = std::make_unique<Admin>(adminOptions(m_cluster->namesrvAddress()));
    QVERIFY(m_admin->start().isOk());
    QVERIFY(m_admin->isStarted());
    QVERIFY(!m_admin->clientId().isEmpty());
}

void tst_Admin::cleanupTestCase()
{
    if (m_producer)
        m_producer->shutdown();
    if (m_fakeConsumer)
        m_fakeConsumer->shutdown();
    m_admin.reset();
    m_cluster.reset();
}

void tst_Admin::clusterInfoAndOverview()
{
    auto info = m_admin->clusterInfo();
    QVERIFY2(info.has_value(), qPrintable(info.status().toString()));
    QCOMPARE(info->clusterAddrTable.at("DefaultCluster").size(), std::size_t(2));
    QCOMPARE(info->brokerAddrTable.at("broker-1").masterAddr(), brokerAddr(1));

    auto overview = m_admin->clusterOverview(true);
    QVERIFY2(overview.has_value(), qPrintable(overview.status().toString()));
    QCOMPARE(overview->nodes.size(), std::size_t(2));
    QCOMPARE(overview->nodes[0].brokerName, QByteArray("broker-0"));
    QCOMPARE(overview->nodes[1].address, brokerAddr(1));
    for (const client::BrokerNode &n : overview->nodes) {
        QVERIFY2(n.runtimeStatus.isOk(), qPrintable(n.runtimeStatus.toString()));
        QCOMPARE(n.runtimeInfo.versionDesc(), QByteArray("V4_9_7"));
        QVERIFY(n.runtimeInfo.integer("bootTimestamp") > 0);
    }
    auto runtime = m_admin->brokerRuntimeInfo(brokerAddr(0));
    QVERIFY2(runtime.has_value(), qPrintable(runtime.status().toString()));
    QVERIFY(!runtime->value("commitLogMaxOffset").isNull());
}

void tst_Admin::brokerLiveness()
{
    auto live = m_admin->brokerLiveness();
    QVERIFY2(live.has_value(), qPrintable(live.status().toString()));
    QCOMPARE(live->brokers.size(), std::size_t(2));
    QVERIFY(live->now > 0);
    for (const auto &b : live->brokers) {
        QCOMPARE(b.clusterName, QByteArray("DefaultCluster"));
        QVERIFY(b.ageMillis >= 0 && b.ageMillis < 60000);
    }
}

void tst_Admin::topicsCreateListRouteConfig()
{
    protocol::TopicConfig config(kTopic, 4);
    auto created = m_admin->createOrUpdateTopicInCluster("DefaultCluster", config);
    QVERIFY2(created.has_value(), qPrintable(created.status().toString()));
    QCOMPARE(created->outcomes.size(), std::size_t(2));
    QVERIFY2(created->isOk(), qPrintable(created->status().toString()));
    QTRY_VERIFY_WITH_TIMEOUT(m_admin->topicRoute(kTopic).has_value()
            && m_admin->topicRoute(kTopic)->queueDatas.size() == 2,
        10000);
    auto route = m_admin->topicRoute(kTopic);
    QCOMPARE(route->queueDatas[0].writeQueueNums, 4);

    auto all = m_admin->topicList();
    QVERIFY2(all.has_value(), qPrintable(all.status().toString()));
    QVERIFY(std::find(all->begin(), all->end(), kTopic) != all->end());
    auto byCluster = m_admin->topicListByCluster("DefaultCluster");
    QVERIFY2(byCluster.has_value(), qPrintable(byCluster.status().toString()));
    QVERIFY(std::find(byCluster->begin(), byCluster->end(), kTopic) != byCluster->end());
    auto system = m_admin->systemTopicList();
    QVERIFY2(system.has_value(), qPrintable(system.status().toString()));
    QVERIFY(
        std::find(system->begin(), system->end(), QByteArray("DefaultCluster")) != system->end());
    QVERIFY(std::find(system->begin(), system->end(), QByteArray("broker-0")) != system->end());

    auto one = m_admin->topicConfig(brokerAddr(1), kTopic);
    QVERIFY2(one.has_value(), qPrintable(one.status().toString()));
    QCOMPARE(one->readQueueNums, 4);
    QCOMPARE(one->perm, protocol::Perm::Read | protocol::Perm::Write);
    auto wrapper = m_admin->allTopicConfig(brokerAddr(0));
    QVERIFY2(wrapper.has_value(), qPrintable(wrapper.status().toString()));
    QVERIFY(wrapper->topicConfigTable.count(kTopic));
    QCOMPARE(
        m_admin->topicConfig(brokerAddr(0), "NoSuchTopic").status().code(), Status::Code::NotFound);

    // Update on one broker: 6 queues there only.
    protocol::TopicConfig wider(kTopic, 6);
    QVERIFY(m_admin->createOrUpdateTopic(brokerAddr(0), wider).isOk());
    QCOMPARE(m_admin->topicConfig(brokerAddr(0), kTopic)->writeQueueNums, 6);
    QVERIFY(m_admin->createOrUpdateTopic(brokerAddr(0), config).isOk());
    QTRY_VERIFY_WITH_TIMEOUT(m_cluster->waitForRoute(QString::fromUtf8(kTopic), 1s).isOk(), 10000);
}

void tst_Admin::topicStatsAfterSends()
{
    client::ProducerOptions po;
    po.group = kProducerGroup;
    po.client.namesrvAddr = m_cluster->namesrvAddress().toUtf8();
    m_producer = std::make_unique<client::Producer>(po);
    QVERIFY(m_producer->start().isOk());
    for (int i = 0; i < kMessages; ++i) {
        client::Message msg(kTopic, "TagA", "key-" + QByteArray::number(i) + " shared-key",
            "admin body " + QByteArray::number(i));
        auto r = m_producer->sendSync(std::move(msg));
        QVERIFY2(r.has_value(), qPrintable(r.status().toString()));
        m_sent.push_back(*r);
    }
    // The consume queues follow the commit log asynchronously.
    auto total = [&] {
        auto stats = m_admin->topicStats(kTopic);
        if (!stats)
            return std::int64_t(-1);
        std::int64_t sum = 0;
        for (const auto &[mq, o] : stats->offsetTable)
            sum += o.maxOffset - o.minOffset;
        return sum;
    };
    QTRY_COMPARE_WITH_TIMEOUT(total(), std::int64_t(kMessages), 10000);
    auto stats = m_admin->topicStats(kTopic);
    QCOMPARE(stats->offsetTable.size(), std::size_t(8));
    const auto &sample = stats->offsetTable.at(m_sent[0].messageQueue);
    QVERIFY(sample.maxOffset > 0);
    QVERIFY(sample.lastUpdateTimestamp > 0);
}

void tst_Admin::messageQueries()
{
    QVERIFY(!m_sent.empty());
    const client::SendResult &first = m_sent[0];
    auto viewed = m_admin->viewMessage(first.offsetMsgId);
    QVERIFY2(viewed.has_value(), qPrintable(viewed.status().toString()));
    QCOMPARE(viewed->body(), QByteArray("admin body 0"));
    QCOMPARE(viewed->topic(), kTopic);

    // The index is written by the dispatcher, asynchronously too.
    QTRY_VERIFY_WITH_TIMEOUT(m_admin->queryMessageByKey(kTopic, "key-3").has_value()
            && m_admin->queryMessageByKey(kTopic, "key-3")->messages.size() == 1,
        10000);
    auto byKey = m_admin->queryMessageByKey(kTopic, "key-3");
    QCOMPARE(byKey->messages[0].body(), QByteArray("admin body 3"));
    auto shared = m_admin->queryMessageByKey(kTopic, "shared-key");
    QVERIFY2(shared.has_value(), qPrintable(shared.status().toString()));
    QCOMPARE(shared->messages.size(), std::size_t(kMessages)); // from both brokers
    auto none = m_admin->queryMessageByKey(kTopic, "no-such-key");
    QVERIFY2(none.has_value(), qPrintable(none.status().toString()));
    QVERIFY(none->messages.empty());

    auto byUnique = m_admin->queryMessageByUniqueKey(kTopic, m_sent[5].msgId);
    QVERIFY2(byUnique.has_value(), qPrintable(byUnique.status().toString()));
    QCOMPARE(byUnique->body(), QByteArray("admin body 5"));
    QCOMPARE(m_admin->queryMessageByUniqueKey(kTopic, "00000000000000000000000000000000")
                 .status()
                 .code(),
        Status::Code::NotFound);

    // A user's msgId: the offset id or the UNIQ_KEY, either works.
    auto byOffsetId = m_admin->messageById(kTopic, m_sent[6].offsetMsgId);
    QVERIFY2(byOffsetId.has_value(), qPrintable(byOffsetId.status().toString()));
    QCOMPARE(byOffsetId->body(), QByteArray("admin body 6"));
    Waiter<Result<client::MessageExt>> byUniqueId;
    m_admin->messageByIdAsync(kTopic, m_sent[6].msgId, byUniqueId.callback());
    QVERIFY(byUniqueId.wait());
    QVERIFY2(byUniqueId.value().has_value(), qPrintable(byUniqueId.value().status().toString()));
    QCOMPARE(byUniqueId.value()->body(), QByteArray("admin body 6"));

    auto at = m_admin->messageAt(m_sent[7].messageQueue, m_sent[7].queueOffset);
    QVERIFY2(at.has_value(), qPrintable(at.status().toString()));
    QCOMPARE(at->body(), QByteArray("admin body 7"));
    QCOMPARE(at->queueOffset(), m_sent[7].queueOffset);
    auto beyond = m_admin->messageAt(m_sent[7].messageQueue, 100000);
    QCOMPARE(beyond.status().code(), Status::Code::NotFound);

    QCOMPARE(m_admin->viewMessage("not-an-id").status().code(), Status::Code::InvalidArgument);
}

void tst_Admin::subscriptionGroups()
{
    client::admin::SubscriptionGroupConfig g("AdminGroupX");
    g.retryMaxTimes = 5;
    auto created = m_admin->createOrUpdateSubscriptionGroupInCluster("DefaultCluster", g);
    QVERIFY2(created.has_value() && created->isOk(),
        qPrintable(created ? created->status().toString() : created.status().toString()));
    QCOMPARE(created->outcomes.size(), std::size_t(2));
    auto all = m_admin->allSubscriptionGroups(brokerAddr(1));
    QVERIFY2(all.has_value(), qPrintable(all.status().toString()));
    QVERIFY(all->subscriptionGroupTable.count("AdminGroupX"));
    QCOMPARE(all->subscriptionGroupTable.at("AdminGroupX").retryMaxTimes, 5);
    QVERIFY(all->dataVersion.timestamp > 0);

    g.retryMaxTimes = 7;
    QVERIFY(m_admin->createOrUpdateSubscriptionGroup(brokerAddr(0), g).isOk());
    QCOMPARE(m_admin->allSubscriptionGroups(brokerAddr(0))
                 ->subscriptionGroupTable.at("AdminGroupX")
                 .retryMaxTimes,
        7);

    QVERIFY(m_admin->deleteSubscriptionGroup(brokerAddr(0), "AdminGroupX", true).isOk());
    QVERIFY(!m_admin->allSubscriptionGroups(brokerAddr(0))
                 ->subscriptionGroupTable.count("AdminGroupX"));
    auto removed = m_admin->deleteSubscriptionGroupInCluster("DefaultCluster", "AdminGroupX");
    QVERIFY(removed.has_value() && removed->isOk());
    QVERIFY(!m_admin->allSubscriptionGroups(brokerAddr(1))
                 ->subscriptionGroupTable.count("AdminGroupX"));
}

void tst_Admin::consumerSide()
{
    // Before any consumer: the group's %RETRY% topic has no route.
    auto offline = m_admin->consumerConnection(kConsumerGroup);
    QVERIFY(!offline.has_value());
    QCOMPARE(offline.error().code(), Status::Code::RemoteError);

    // A consumer: heartbeats to both brokers and answers running-info requests.
    m_fakeConsumer = std::make_unique<remoting::RemotingClient>();
    m_fakeConsumer->registerProcessor(
        toInt(RequestCode::GetConsumerRunningInfo), std::make_shared<RunningInfoProcessor>());
    for (RequestCode oneway :
        {RequestCode::NotifyConsumerIdsChanged, RequestCode::ResetConsumerClientOffset})
        m_fakeConsumer->registerProcessor(toInt(oneway), std::make_shared<IgnoreProcessor>());
    protocol::HeartbeatData hb;
    hb.clientID = kFakeClientId;
    protocol::ConsumerData cd;
    cd.groupName = kConsumerGroup;
    protocol::SubscriptionData sub;
    sub.topic = kTopic;
    sub.subVersion = 1;
    cd.subscriptionDataSet.push_back(sub);
    hb.consumerDataSet.push_back(cd);
    for (int i = 0; i < 2; ++i) {
        RemotingCommand cmd = RemotingCommand::createRequest(toInt(RequestCode::HeartBeat));
        cmd.body = hb.toJson();
        auto r = m_fakeConsumer->invokeSync(brokerAddr(i), std::move(cmd), 3000);
        QVERIFY2(r.has_value() && r->code == 0, "heartbeat failed");
    }
    // The brokers register the group's retry topic with the name server.
    QTRY_VERIFY_WITH_TIMEOUT(m_admin->consumerConnection(kConsumerGroup).has_value(), 15000);
    auto conn = m_admin->consumerConnection(kConsumerGroup);
    QCOMPARE(conn->connectionSet.size(), std::size_t(1));
    QCOMPARE(conn->connectionSet[0].clientId, kFakeClientId);
    QVERIFY(conn->subscriptionTable.count(kTopic));
    QCOMPARE(conn->messageModel, protocol::MessageModel::Clustering);

    auto info = m_admin->consumerRunningInfo(kConsumerGroup, kFakeClientId);
    QVERIFY2(info.has_value(), qPrintable(info.status().toString()));
    QVERIFY(info->isPushConsumer());
    QCOMPARE(info->mqTable.size(), std::size_t(1));
    QCOMPARE(info->statusTable.at(kTopic).consumeOKTPS, 1.5);
    auto unknownClient = m_admin->consumerRunningInfo(kConsumerGroup, "nobody@here");
    QVERIFY(!unknownClient.has_value());
    QCOMPARE(unknownClient.error().code(), Status::Code::RemoteError);

    auto who = m_admin->topicConsumedBy(kTopic);
    QVERIFY2(who.has_value(), qPrintable(who.status().toString()));
    QVERIFY(std::find(who->begin(), who->end(), kConsumerGroup) != who->end());
}

void tst_Admin::consumeStatsAndReset()
{
    // Commit offset 1 on every queue of broker-0, 0 on broker-1's (a reset needs an offset on
    // every queue: "consumer group not exist" otherwise, as in RocketMQ).
    for (int b = 0; b < 2; ++b) {
        for (int q = 0; q < 4; ++q) {
            protocol::UpdateConsumerOffsetRequestHeader h;
            h.consumerGroup = kConsumerGroup;
            h.topic = kTopic;
            h.queueId = q;
            h.commitOffset = b == 0 ? 1 : 0;
            RemotingCommand cmd
                = RemotingCommand::createRequest(toInt(RequestCode::UpdateConsumerOffset));
            h.encode(cmd);
            auto r = m_fakeConsumer->invokeSync(brokerAddr(b), std::move(cmd), 3000);
            QVERIFY(r.has_value() && r->code == 0);
        }
    }
    auto stats = m_admin->consumeStats(kConsumerGroup, kTopic);
    QVERIFY2(stats.has_value(), qPrintable(stats.status().toString()));
    std::int64_t brokerTotal = 0;
    for (const auto &[mq, o] : stats->offsetTable) {
        if (mq.topic == kTopic)
            brokerTotal += o.brokerOffset;
    }
    QCOMPARE(brokerTotal, std::int64_t(kMessages));
    const MessageQueue q0 {kTopic, "broker-0", 0};
    QCOMPARE(stats->offsetTable.at(q0).consumerOffset, 1);
    QVERIFY(stats->totalLag() >= kMessages - 4 - 4);
    auto stats2 = m_admin->consumeStats(kConsumerGroup);
    QVERIFY2(stats2.has_value(), qPrintable(stats2.status().toString()));

    // Dry run to the beginning: every queue back to 0.
    auto preview = m_admin->previewResetOffset(kTopic, kConsumerGroup, 0, true);
    QVERIFY2(preview.has_value(), qPrintable(preview.status().toString()));
    QCOMPARE(preview->size(), std::size_t(8));
    for (const client::ResetOffsetPreview &p : *preview) {
        QCOMPARE(p.targetOffset, p.timestampOffset);
        if (p.queue == q0)
            QCOMPARE(p.consumerOffset, 1);
    }
    // To the end (-1), not forced: a queue never moves forward past... the broker's rule.
    auto toEnd = m_admin->previewResetOffset(kTopic, kConsumerGroup, -1, false);
    QVERIFY2(toEnd.has_value(), qPrintable(toEnd.status().toString()));
    for (const client::ResetOffsetPreview &p : *toEnd) {
        if (p.consumerOffset >= 0 && p.timestampOffset >= p.consumerOffset)
            QCOMPARE(p.targetOffset, p.consumerOffset);
    }

    // The real reset (the consumer is online through its heartbeat connection).
    auto reset = m_admin->resetOffsetByTime(kTopic, kConsumerGroup, 0, true);
    QVERIFY2(reset.has_value(), qPrintable(reset.status().toString()));
    QCOMPARE(reset->at(q0), 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_admin->consumeStats(kConsumerGroup, kTopic)->offsetTable.at(q0).consumerOffset,
        std::int64_t(0), 5000);

    // A group nobody consumes: the brokers refuse, with CONSUMER_NOT_ONLINE.
    auto offline = m_admin->resetOffsetByTime(kTopic, "NobodyGroup", 0, true);
    QVERIFY(!offline.has_value());
    QCOMPARE(offline.error().code(), Status::Code::RemoteError);
    QVERIFY2(offline.error().message().contains(QLatin1String("broker-")),
        qPrintable(offline.error().message()));
    // (SYSTEM_ERROR "consumer group not exist": it has no offsets, RocketMQ's first check.)
    QCOMPARE(offline.error().remoteCode(), toInt(ResponseCode::SystemError));

    // ... which the offline reset does by committing the offsets itself.
    const QByteArray offlineGroup = QByteArrayLiteral("AdminOfflineGroup");
    auto moved = m_admin->resetOffsetByTimeOffline(kTopic, offlineGroup, -1, true);
    QVERIFY2(moved.has_value(), qPrintable(moved.status().toString()));
    QCOMPARE(moved->size(), std::size_t(8));
    auto after = m_admin->consumeStats(offlineGroup, kTopic);
    QVERIFY2(after.has_value(), qPrintable(after.status().toString()));
    for (const auto &[mq, o] : after->offsetTable) {
        if (mq.topic == kTopic) {
            QCOMPARE(o.consumerOffset, moved->at(mq));
            QCOMPARE(o.consumerOffset, o.brokerOffset); // reset to the end: no lag
        }
    }
    // With offsets but no consumer online: CONSUMER_NOT_ONLINE, the CLI's cue to fall back.
    auto notOnline = m_admin->resetOffsetByTime(kTopic, offlineGroup, 0, true);
    QVERIFY(!notOnline.has_value());
    QVERIFY2(notOnline.error().remoteCode() == toInt(ResponseCode::ConsumerNotOnline),
        qPrintable(notOnline.error().toString()));

    // The offline reset commits on empty queues too (the broker reports offset 0 there for a
    // group without offsets): without it, every later online reset finds no offset on them.
    const QByteArray emptyTopic = QByteArrayLiteral("AdminEmptyTopic");
    auto created = m_admin->createOrUpdateTopicInCluster(
        "DefaultCluster", protocol::TopicConfig(emptyTopic, 2));
    QVERIFY2(created.has_value() && created->isOk(),
        qPrintable(created ? created->status().toString() : created.status().toString()));
    QTRY_VERIFY_WITH_TIMEOUT(m_admin->topicRoute(emptyTopic).has_value()
            && m_admin->topicRoute(emptyTopic)->queueDatas.size() == 2,
        10000);
    auto emptyMoved = m_admin->resetOffsetByTimeOffline(emptyTopic, offlineGroup, -1, true);
    QVERIFY2(emptyMoved.has_value(), qPrintable(emptyMoved.status().toString()));
    QCOMPARE(emptyMoved->size(), std::size_t(4));
    auto emptyNotOnline = m_admin->resetOffsetByTime(emptyTopic, offlineGroup, 0, true);
    QVERIFY(!emptyNotOnline.has_value());
    QVERIFY2(emptyNotOnline.error().remoteCode() == toInt(ResponseCode::ConsumerNotOnline),
        qPrintable(emptyNotOnline.error().toString()));
}

void tst_Admin::producerConnection()
{
    // The producer heartbeats every broker about a second after it starts.
    QTRY_VERIFY_WITH_TIMEOUT(
        m_admin->producerConnection(kProducerGroup, kTopic).has_value(), 10000);
    auto pc = m_admin->producerConnection(kProducerGroup, kTopic);
    QCOMPARE(pc->connectionSet.size(), std::size_t(1));
    QCOMPARE(pc->connectionSet[0].clientId, m_producer->clientId());
    QCOMPARE(pc->connectionSet[0].language, QByteArray("CPP"));
    QVERIFY(!m_admin->producerConnection("NoSuchProducerGroup", kTopic).has_value());
}

void tst_Admin::brokerConfigAndStats()
{
    auto config = m_admin->brokerConfig(brokerAddr(0));
    QVERIFY2(config.has_value(), qPrintable(config.status().toString()));
    QCOMPARE(config->value(u"brokerName"), QStringLiteral("broker-0"));
    const std::int64_t counter = config->version.counter;

    auto updated = m_admin->updateBrokerConfig({QByteArray(), brokerAddr(0)},
        {{QStringLiteral("fileReservedTime"), QStringLiteral("36")}});
    QVERIFY2(updated.has_value() && updated->isOk(),
        qPrintable(updated ? updated->status().toString() : updated.status().toString()));
    auto again = m_admin->brokerConfig(brokerAddr(0));
    QCOMPARE(again->value(u"fileReservedTime"), QStringLiteral("36"));
    QVERIFY(again->version.counter > counter);
    QVERIFY(!m_admin->updateBrokerConfig({"DefaultCluster", {}}, {}).has_value()); // nothing to set

    auto files = m_admin->storeFiles(brokerAddr(0));
    QVERIFY2(files.has_value(), qPrintable(files.status().toString()));
    QVERIFY(!files->files.empty());
    QVERIFY(files->commitLogMaxOffset > 0);
    QVERIFY(files->fileReservedTimeHours > 0);

    auto puts = m_admin->brokerStatsData(brokerAddr(0), "TOPIC_PUT_NUMS", kTopic);
    QVERIFY2(puts.has_value(), qPrintable(puts.status().toString()));
    auto nostats = m_admin->brokerStatsData(brokerAddr(0), "TOPIC_PUT_NUMS", "NoSuchTopic");
    QVERIFY(!nostats.has_value());
    QCOMPARE(nostats.error().remoteCode(), toInt(ResponseCode::SystemError));
}

void tst_Admin::nameServerConfigAndKv()
{
    auto config = m_admin->nameServerConfig();
    QVERIFY2(config.has_value(), qPrintable(config.status().toString()));
    QCOMPARE(config->size(), std::size_t(1));
    QVERIFY(!config->begin()->second.entries.empty());

    auto update = m_admin->updateNameServerConfig(
        {{QStringLiteral("orderMessageEnable"), QStringLiteral("true")}});
    QVERIFY2(update.has_value() && update->isOk(),
        qPrintable(update ? update->status().toString() : update.status().toString()));
    QCOMPARE(m_admin->nameServerConfig()->begin()->second.value(u"orderMessageEnable"),
        QStringLiteral("true"));
    // A refused key is the name server's error, with its code.
    auto refused = m_admin->updateNameServerConfig(
        {{QStringLiteral("kvConfigPath"), QStringLiteral("/tmp/x")}});
    QVERIFY(refused.has_value());
    QVERIFY(!refused->isOk());
    QCOMPARE(refused->status().code(), Status::Code::RemoteError);

    QVERIFY(m_admin->putKvConfig("ADMIN_NS", "k1", "v1").isOk());
    QCOMPARE(m_admin->kvConfig("ADMIN_NS", "k1").value_or({}), QByteArray("v1"));
    auto list = m_admin->kvList("ADMIN_NS");
    QVERIFY2(list.has_value(), qPrintable(list.status().toString()));
    QCOMPARE(list->at("k1"), QByteArray("v1"));
    QVERIFY(m_admin->deleteKvConfig("ADMIN_NS", "k1").isOk());
    QCOMPARE(m_admin->kvConfig("ADMIN_NS", "k1").status().code(), Status::Code::NotFound);
    QVERIFY(m_admin->kvList("ADMIN_NS_EMPTY")->empty());
}

void tst_Admin::writePermission()
{
    auto wiped = m_admin->wipeWritePerm("broker-1");
    QVERIFY2(wiped.has_value() && wiped->isOk(),
        qPrintable(wiped ? wiped->status().toString() : wiped.status().toString()));
    QCOMPARE(wiped->outcomes.size(), std::size_t(1));
    QVERIFY(wiped->outcomes[0].topicCount > 0);
    auto route = m_admin->topicRoute(kTopic);
    QVERIFY(route.has_value());
    for (const auto &q : route->queueDatas) {
        if (q.brokerName == "broker-1")
            QVERIFY(!protocol::Perm::isWriteable(q.perm));
    }
    auto added = m_admin->addWritePerm("broker-1");
    QVERIFY2(added.has_value() && added->isOk(),
        qPrintable(added ? added->status().toString() : added.status().toString()));
    QVERIFY(added->outcomes[0].topicCount > 0);
}

void tst_Admin::maintenance()
{
    const client::BrokerTarget cluster {"DefaultCluster", {}};
    for (auto call : {&Admin::deleteExpiredCommitLog, &Admin::cleanExpiredConsumeQueue,
             &Admin::cleanUnusedTopic}) {
        auto r = (m_admin.get()->*call)(cluster, Admin::kDefaultTimeout);
        QVERIFY2(r.has_value() && r->isOk(),
            qPrintable(r ? r->status().toString() : r.status().toString()));
        QCOMPARE(r->outcomes.size(), std::size_t(2));
    }
    auto one = m_admin->deleteExpiredCommitLog({{}, brokerAddr(1)});
    QVERIFY(one.has_value() && one->isOk());
    QCOMPARE(one->outcomes.size(), std::size_t(1));
    auto unknown = m_admin->cleanUnusedTopic({"NoSuchCluster", {}});
    QCOMPARE(unknown.status().code(), Status::Code::NotFound);
}

void tst_Admin::asyncForms()
{
    Waiter<Result<protocol::ClusterInfo>> info;
    m_admin->clusterInfoAsync(info.callback());
    QVERIFY(info.wait());
    QVERIFY2(info.value().has_value(), qPrintable(info.value().status().toString()));
    QVERIFY(info.thread() != QThread::currentThread());
    QCOMPARE(info.calls(), 1);

    Waiter<Result<client::admin::TopicStatsTable>> stats;
    m_admin->topicStatsAsync(kTopic, stats.callback());
    QVERIFY(stats.wait());
    QVERIFY(stats.value().has_value());
    QCOMPARE(stats.value()->offsetTable.size(), std::size_t(8));

    Waiter<Status> put;
    m_admin->putKvConfigAsync("ADMIN_NS", "async", "yes", put.callback());
    QVERIFY(put.wait());
    QVERIFY(put.value().isOk());

    Waiter<Result<protocol::TopicRouteData>> missing;
    m_admin->topicRouteAsync("NoSuchTopicAsync", missing.callback());
    QVERIFY(missing.wait());
    QCOMPARE(missing.value().status().remoteCode(), toInt(ResponseCode::TopicNotExist));

    // Many at once, from a callback too.
    std::atomic<int> done {0};
    for (int i = 0; i < 20; ++i) {
        m_admin->brokerRuntimeInfoAsync(
            brokerAddr(i % 2), [&](Result<client::admin::BrokerRuntimeInfo> r) {
                if (r.has_value())
                    m_admin->topicListAsync([&](Result<std::vector<QByteArray>> l) {
                        if (l.has_value())
                            done++;
                    });
            });
    }
    QTRY_COMPARE_WITH_TIMEOUT(done.load(), 20, 10000);
}

void tst_Admin::deleteTopic()
{
    auto deleted = m_admin->deleteTopic(kTopic, "DefaultCluster");
    QVERIFY2(deleted.has_value() && deleted->isOk(),
        qPrintable(deleted ? deleted->status().toString() : deleted.status().toString()));
    QCOMPARE(deleted->outcomes.size(), std::size_t(3)); // two brokers, one name server
    QCOMPARE(m_admin->topicRoute(kTopic).status().remoteCode(), toInt(ResponseCode::TopicNotExist));
    QCOMPARE(m_admin->topicConfig(brokerAddr(0), kTopic).status().code(), Status::Code::NotFound);
    // It stays gone after the brokers' next registration.
    QTest::qWait(2500);
    QCOMPARE(m_admin->topicRoute(kTopic).status().remoteCode(), toInt(ResponseCode::TopicNotExist));
}

void tst_Admin::unknownTopic()
{
    for (const auto &r :
        {m_admin->topicRoute("NoSuchTopic").status(), m_admin->topicStats("NoSuchTopic").status(),
            m_admin->topicConsumedBy("NoSuchTopic").status(),
            m_admin->queryMessageByKey("NoSuchTopic", "k").status(),
            m_admin->resetOffsetByTime("NoSuchTopic", kConsumerGroup, 0).status()}) {
        QCOMPARE(r.code(), Status::Code::RemoteError);
        QCOMPARE(r.remoteCode(), toInt(ResponseCode::TopicNotExist));
        QVERIFY2(r.message().contains(QLatin1String("TOPIC_NOT_EXIST")), qPrintable(r.message()));
    }
}

void tst_Admin::badArguments()
{
    QCOMPARE(m_admin->topicRoute("").status().code(), Status::Code::InvalidArgument);
    QCOMPARE(m_admin->createOrUpdateTopic(brokerAddr(0), protocol::TopicConfig()).code(),
        Status::Code::InvalidArgument);
    QCOMPARE(m_admin->kvConfig("", "k").status().code(), Status::Code::InvalidArgument);
    QCOMPARE(m_admin->consumeStats("").status().code(), Status::Code::InvalidArgument);
    QCOMPARE(m_admin->createOrUpdateTopicInCluster("NoSuchCluster", protocol::TopicConfig("T"))
                 .status()
                 .code(),
        Status::Code::NotFound);
    // A broker's own refusal keeps its code and remark.
    const Status system
        = m_admin->createOrUpdateTopic(brokerAddr(0), protocol::TopicConfig("DefaultCluster"));
    QCOMPARE(system.remoteCode(), toInt(ResponseCode::SystemError));
    QVERIFY2(system.message().contains(QLatin1String("conflict with system topic")),
        qPrintable(system.message()));

    Admin notStarted(adminOptions(m_cluster->namesrvAddress()));
    QCOMPARE(notStarted.clusterInfo().status().code(), Status::Code::Unavailable);
    Waiter<Result<protocol::ClusterInfo>> w;
    notStarted.clusterInfoAsync(w.callback());
    QVERIFY(w.wait(1s));
    QCOMPARE(w.value().status().code(), Status::Code::Unavailable);
}

void tst_Admin::extensionsOnStockPeer()
{
    remoting::RemotingServerOptions so;
    so.listenAddress = QHostAddress::LocalHost;
    remoting::RemotingServer stock(so);
    stock.setDefaultProcessor(std::make_shared<StockPeerProcessor>());
    QVERIFY(stock.start().isOk());
    const QByteArray addr = "127.0.0.1:" + QByteArray::number(stock.serverPort());

    auto files = m_admin->storeFiles(addr);
    QCOMPARE(files.status().code(), Status::Code::NotSupported);
    QVERIFY2(files.status().message().contains(QLatin1String("not supported by this broker")),
        qPrintable(files.status().message()));

    auto live = m_admin->brokerLiveness(addr, 1000);
    QCOMPARE(live.status().code(), Status::Code::NotSupported);
    QVERIFY2(live.status().message().contains(QLatin1String("not supported by this name server")),
        qPrintable(live.status().message()));
    stock.stop();
}

void tst_Admin::unreachableNameServer()
{
    Admin lost(adminOptions(QStringLiteral("127.0.0.1:1")));
    QVERIFY(lost.start().isOk());
    QElapsedTimer t;
    t.start();
    auto info = lost.clusterInfo(1500);
    QVERIFY(!info.has_value());
    QVERIFY2(info.error().code() == Status::Code::Unavailable
            || info.error().code() == Status::Code::Timeout,
        qPrintable(info.error().toString()));
    QVERIFY2(t.elapsed() < 3000, "the call was not bounded by its timeout");
    QVERIFY(!lost.topicStats(kTopic, 1500).has_value());
    QVERIFY(!lost.putKvConfig("N", "k", "v", 1500).isOk());
}

void tst_Admin::queuedCallsAtShutdown()
{
    // A name server that never answers: each call takes its whole timeout.
    remoting::RemotingServerOptions so;
    so.listenAddress = QHostAddress::LocalHost;
    remoting::RemotingServer silent(so);
    silent.setDefaultProcessor(std::make_shared<IgnoreProcessor>());
    QVERIFY(silent.start().isOk());
    auto options = adminOptions(QStringLiteral("127.0.0.1:%1").arg(silent.serverPort()));
    options.callbackThreads = 1;
    auto admin = std::make_unique<Admin>(options);
    QVERIFY(admin->start().isOk());
    std::atomic<int> calls {0};
    std::atomic<int> dropped {0};
    std::atomic<int> timedOut {0};
    for (int i = 0; i < 6; ++i) {
        admin->clusterInfoAsync(
            [&](Result<protocol::ClusterInfo> r) {
                calls++;
                if (!r.has_value() && r.error().code() == Status::Code::Unavailable
                    && r.error().message().contains(QLatin1String("shut down")))
                    dropped++;
                if (!r.has_value() && r.error().code() == Status::Code::Timeout)
                    timedOut++;
            },
            1500);
    }
    QTest::qWait(100); // the first one runs
    QElapsedTimer t;
    t.start();
    admin->shutdown();
    QVERIFY2(t.elapsed() < 4000, "shutdown was not bounded");
    // The running call ends with its timeout; the five queued behind it never ran.
    QTRY_COMPARE_WITH_TIMEOUT(calls.load(), 6, 5000);
    QCOMPARE(dropped.load(), 5);
    QCOMPARE(timedOut.load(), 1);
    // After shutdown: at once, Unavailable.
    Waiter<Result<protocol::ClusterInfo>> late;
    admin->clusterInfoAsync(late.callback());
    QVERIFY(late.wait(1s));
    QCOMPARE(late.value().status().code(), Status::Code::Unavailable);
    admin.reset();
    QCOMPARE(calls.load(), 6); // exactly once each
}

void tst_Admin::destroyedFromItsCallback()
{
    // The last owner lets go on the admin's own pool thread: no self-join, no crash.
    auto *admin = new Admin(adminOptions(m_cluster->namesrvAddress()));
    QVERIFY(admin->start().isOk());
    std::atomic<bool> ran {false};
    admin->clusterInfoAsync([&ran, admin](Result<protocol::ClusterInfo> r) {
        ran = r.has_value();
        delete admin;
    });
    QTRY_VERIFY_WITH_TIMEOUT(ran.load(), 5000);
}

void tst_Admin::stoppedBroker()
{
    const QByteArray stopped = brokerAddr(1);
    QVERIFY(m_cluster->stopBroker(1).isOk());
    QElapsedTimer t;
    t.start();
    auto runtime = m_admin->brokerRuntimeInfo(stopped, 2000);
    QVERIFY(!runtime.has_value());
    QVERIFY2(runtime.error().code() == Status::Code::Unavailable
            || runtime.error().code() == Status::Code::Timeout,
        qPrintable(runtime.error().toString()));
    QVERIFY(t.elapsed() < 3500);
    QVERIFY2(runtime.error().message().contains(QString::fromUtf8(stopped)),
        qPrintable(runtime.error().message()));
    // A fan-out over an explicit dead address reports it, next to the live one.
    auto mixed = m_admin->deleteExpiredCommitLog({{}, stopped}, 2000);
    QVERIFY(mixed.has_value());
    QVERIFY(!mixed->isOk());
    // The cluster drops it (it unregistered): the overview shows one broker.
    QTRY_COMPARE_WITH_TIMEOUT(m_admin->clusterOverview(false)->nodes.size(), std::size_t(1), 10000);
    auto overview = m_admin->clusterOverview(true);
    QVERIFY(overview.has_value());
    QVERIFY(overview->nodes[0].runtimeStatus.isOk());
}

QTEST_GUILESS_MAIN(tst_Admin)
#include "tst_admin.moc"
