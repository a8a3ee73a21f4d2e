// RocketMQ 5's topic attribute message.type (issue 27) on an in-process broker: set with
// UPDATE_AND_CREATE_TOPIC's "attributes" ("+message.type=FIFO") and kept in topics.json in
// RocketMQ 5's layout (a topic without attributes is written as before); a gRPC send whose type
// (NORMAL, FIFO, DELAY, TRANSACTION) is not its topic's is answered
// MESSAGE_PROPERTY_CONFLICT_WITH_TYPE and stores nothing, as RocketMQ 5.3's proxy answers; MIXED
// and a topic without the attribute take every type; QueryRoute lists the accepted types. A FIFO
// consumer group (consumeMessageOrderly) is told so, gets one assignment per queue and pops in
// order.

#include "broker/common/brokercontext.h"
#include "broker/managers/topicattributes.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/grpctestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::grpctest;

namespace {

constexpr int kUpdateAndCreateTopic = 17;
constexpr int kGetAllTopicConfig = 21;

/// The message types a send can have, by the gRPC fields that make them.
enum class Kind { Normal, Fifo, Delay, Transaction };

pb::Message messageOf(Kind kind, const std::string &topic, const std::string &id)
{
    pb::Message m = GrpcTestClient::message(topic, id, "body of " + id);
    pb::SystemProperties *s = m.mutable_system_properties();
    switch (kind) {
    case Kind::Normal:
        break;
    case Kind::Fifo:
        s->set_message_type(pb::FIFO);
        s->set_message_group("group-1");
        break;
    case Kind::Delay: {
        s->set_message_type(pb::DELAY);
        // An hour ahead: nothing is delivered while the test runs.
        const auto at = std::chrono::system_clock::now() + std::chrono::hours(1);
        s->mutable_delivery_timestamp()->set_seconds(
            std::chrono::duration_cast<std::chrono::seconds>(at.time_since_epoch()).count());
        break;
    }
    case Kind::Transaction:
        s->set_message_type(pb::TRANSACTION);
        break;
    }
    return m;
}

} // namespace

class tst_GrpcMessageType final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void attributesAreSetKeptAndChecked_data();
    void attributesAreSetKeptAndChecked();
    void updateWithoutAttributesKeepsThem();
    void topicsJsonKeepsRocketMq5Layout();
    void textFormReadsRocketMq5Registrations();
    void sendOfEachTypeToTopicsOfEachType_data();
    void sendOfEachTypeToTopicsOfEachType();
    void routeListsTheAcceptedTypes();
    void fifoConsumerGroupPopsInOrder();
    void namespacedTopicIsSplitInAnswers();

private:
    RemotingCommand createTopic(const QByteArray &topic, const QByteArray &attributes)
    {
        RemotingCommand r = request(kUpdateAndCreateTopic,
            {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
                {"writeQueueNums", "2"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}});
        if (!attributes.isNull())
            r.setExt(QByteArrayLiteral("attributes"), attributes);
        return invoke(m_remoting, localAddr(m_broker->listenPort()), std::move(r));
    }
    std::map<QByteArray, QByteArray> attributesOf(const QByteArray &topic)
    {
        const auto config = m_broker->context().topics->find(topic);
        return config ? config->attributes : std::map<QByteArray, QByteArray> {};
    }

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    remoting::RemotingClient m_remoting;
    quint16 m_grpcPort = 0;
};

void tst_GrpcMessageType::initTestCase()
{
    QVERIFY(m_dir.isValid());
    startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-msgtype"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_grpcPort = m_broker->grpcPort();
    QVERIFY(m_grpcPort != 0);
    for (const char *type : {"NORMAL", "FIFO", "DELAY", "TRANSACTION"}) {
        const RemotingCommand r
            = createTopic(QByteArray("MT_") + type, QByteArray("+message.type=") + type);
        QVERIFY2(r.code == 0, r.remark.constData());
    }
    const RemotingCommand plain = createTopic("MT_NONE", {});
    QCOMPARE(plain.code, 0);
    // MIXED needs enableMixedMessageType (off by default, as in RocketMQ 5): refused with
    // INVALID_PARAMETER over the wire; the table takes it directly for the send tests.
    const RemotingCommand mixed = createTopic("MT_MIXED", "+message.type=MIXED");
    QCOMPARE(mixed.code, 29);
    QVERIFY2(mixed.remark.contains("enableMixedMessageType"), mixed.remark.constData());
    QVERIFY(!m_broker->context().topics->find(QByteArrayLiteral("MT_MIXED")));
    protocol::TopicConfig config(QByteArrayLiteral("MT_MIXED"), 2, 6);
    config.attributes[QByteArrayLiteral("message.type")] = QByteArrayLiteral("MIXED");
    QVERIFY(m_broker->context().topics->updateTopicConfig(config).isOk());
}

void tst_GrpcMessageType::cleanupTestCase()
{
    stopInProcessBroker(m_broker);
}

void tst_GrpcMessageType::attributesAreSetKeptAndChecked_data()
{
    QTest::addColumn<QByteArray>("attributes");
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("type"); // the topic's message.type after it; empty: none
    QTest::addColumn<QByteArray>("remark"); // a part of the refusal

    QTest::newRow("set") << QByteArray("+message.type=FIFO") << 0 << QByteArray("FIFO")
                         << QByteArray();
    QTest::newRow("change") << QByteArray("+message.type=DELAY") << 0 << QByteArray("DELAY")
                            << QByteArray();
    QTest::newRow("unknown value") << QByteArray("+message.type=ORDERED") << 1
                                   << QByteArray("DELAY") << QByteArray("is none of");
    QTest::newRow("lower case") << QByteArray("+message.type=fifo") << 1 << QByteArray("DELAY")
                                << QByteArray("is none of");
    QTest::newRow("unsupported key") << QByteArray("+queue.type=BatchCQ") << 1
                                     << QByteArray("DELAY") << QByteArray("not supported");
    QTest::newRow("no sign") << QByteArray("message.type=FIFO") << 1 << QByteArray("DELAY")
                             << QByteArray("'+key=value' sets");
    QTest::newRow("twice") << QByteArray("+message.type=FIFO,+message.type=NORMAL") << 1
                           << QByteArray("DELAY") << QByteArray("twice");
    QTest::newRow("empty value") << QByteArray("+message.type=") << 1 << QByteArray("DELAY")
                                 << QByteArray("malformed");
    QTest::newRow("mixed refused") << QByteArray("+message.type=MIXED") << 29 << QByteArray("DELAY")
                                   << QByteArray("enableMixedMessageType");
    QTest::newRow("remove") << QByteArray("-message.type") << 0 << QByteArray() << QByteArray();
    QTest::newRow("remove again") << QByteArray("-message.type") << 1 << QByteArray()
                                  << QByteArray("is not set");
}

void tst_GrpcMessageType::attributesAreSetKeptAndChecked()
{
    // One topic through the rows, in order.
    QFETCH(QByteArray, attributes);
    QFETCH(int, code);
    QFETCH(QByteArray, type);
    QFETCH(QByteArray, remark);
    const RemotingCommand r = createTopic("MT_ALTER", attributes);
    QVERIFY2(r.code == code, r.remark.constData());
    QVERIFY2(r.remark.contains(remark), r.remark.constData());
    const auto now = attributesOf("MT_ALTER");
    if (type.isEmpty())
        QVERIFY(now.empty());
    else
        QCOMPARE(now, (std::map<QByteArray, QByteArray> {{"message.type", type}}));
}

void tst_GrpcMessageType::updateWithoutAttributesKeepsThem()
{
    // A RocketMQ 4.x tool's update (no attributes field) changes the queues, keeps the type.
    QCOMPARE(createTopic("MT_KEEP", "+message.type=TRANSACTION").code, 0);
    QCOMPARE(createTopic("MT_KEEP", {}).code, 0);
    QCOMPARE(attributesOf("MT_KEEP"),
        (std::map<QByteArray, QByteArray> {{"message.type", "TRANSACTION"}}));
    // A new topic's attributes can only be set.
    const RemotingCommand r = createTopic("MT_NEW", "-message.type");
    QCOMPARE(r.code, 1);
    QVERIFY(!m_broker->context().topics->find(QByteArrayLiteral("MT_NEW")));
}

void tst_GrpcMessageType::topicsJsonKeepsRocketMq5Layout()
{
    // GET_ALL_TOPIC_CONFIG and topics.json: "attributes" first (fastjson's order) where set,
    // absent elsewhere (the bytes RocketMQ 4.9 writes).
    const RemotingCommand all
        = invoke(m_remoting, localAddr(m_broker->listenPort()), request(kGetAllTopicConfig, {}));
    QCOMPARE(all.code, 0);
    QVERIFY2(all.body.contains(R"("MT_FIFO":{"attributes":{"message.type":"FIFO"},"order":false,)"),
        all.body.constData());
    QVERIFY2(all.body.contains(R"("MT_NONE":{"order":false,"perm":6,)"), all.body.constData());
    const auto wrapper = protocol::TopicConfigSerializeWrapper::fromJson(all.body);
    QVERIFY(wrapper);
    QCOMPARE(wrapper->topicConfigTable.at("MT_DELAY").attributes,
        (std::map<QByteArray, QByteArray> {{"message.type", "DELAY"}}));
    QVERIFY(wrapper->topicConfigTable.at("MT_NONE").attributes.empty());

    // What the file holds decodes to the same table (a restart reads it).
    m_broker->context().topics->persist();
    QFile file(broker::TopicConfigManager::filePath(m_dir.filePath(QStringLiteral("store"))));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto fromFile = protocol::TopicConfigSerializeWrapper::fromJson(file.readAll());
    QVERIFY(fromFile);
    QCOMPARE(fromFile->topicConfigTable.at("MT_FIFO").attributes,
        (std::map<QByteArray, QByteArray> {{"message.type", "FIFO"}}));
    QCOMPARE(fromFile->topicConfigTable.at("MT_MIXED").attributes,
        (std::map<QByteArray, QByteArray> {{"message.type", "MIXED"}}));

    // Non-string attribute values are no attributes; the rest of the config still reads.
    const auto odd = protocol::TopicConfig::fromJsonValue(
        *protocol::parseJson(R"({"attributes":{"a":1,"b":"x"},"topicName":"T"})"));
    QVERIFY(odd);
    QCOMPARE(odd->attributes, (std::map<QByteArray, QByteArray> {{"b", "x"}}));
}

void tst_GrpcMessageType::textFormReadsRocketMq5Registrations()
{
    // RocketMQ 5's TopicConfig.encode() (compressed REGISTER_BROKER) appends the attributes'
    // JSON, "{}" when there are none; 4.x's has five tokens.
    auto t = protocol::TopicConfig::decodeText("T1 8 8 6 SINGLE_TAG {}");
    QVERIFY(t);
    QCOMPARE(t->writeQueueNums, 8);
    QVERIFY(t->attributes.empty());
    t = protocol::TopicConfig::decodeText(R"(T2 4 4 6 SINGLE_TAG {"message.type":"FIFO"})");
    QVERIFY(t);
    QCOMPARE(t->attributes, (std::map<QByteArray, QByteArray> {{"message.type", "FIFO"}}));
    t = protocol::TopicConfig::decodeText("T3 4 4 6 SINGLE_TAG {not json");
    QVERIFY(t); // ignored, as RocketMQ ignores it
    QVERIFY(t->attributes.empty());
    QVERIFY(protocol::TopicConfig::decodeText("T4 4 4 6 SINGLE_TAG").has_value());
    QVERIFY(!protocol::TopicConfig::decodeText("T5 4 4 6").has_value());
    QCOMPARE(protocol::TopicConfig::decodeText("T6 1 1 6 SINGLE_TAG")->encodeText(),
        QByteArray("T6 1 1 6 SINGLE_TAG"));
}

void tst_GrpcMessageType::sendOfEachTypeToTopicsOfEachType_data()
{
    QTest::addColumn<QByteArray>("topic");
    QTest::addColumn<int>("kind");
    QTest::addColumn<bool>("accepted");

    const std::vector<std::pair<const char *, Kind>> kinds {{"NORMAL", Kind::Normal},
        {"FIFO", Kind::Fifo}, {"DELAY", Kind::Delay}, {"TRANSACTION", Kind::Transaction}};
    for (const char *topicType : {"NORMAL", "FIFO", "DELAY", "TRANSACTION", "MIXED", "NONE"}) {
        for (const auto &[name, kind] : kinds) {
            const bool accepted = QByteArrayView(topicType) == "MIXED"
                || QByteArrayView(topicType) == "NONE" || QByteArrayView(topicType) == name;
            QTest::addRow("%s message to %s topic", name, topicType)
                << QByteArray("MT_") + topicType << int(kind) << accepted;
        }
    }
}

void tst_GrpcMessageType::sendOfEachTypeToTopicsOfEachType()
{
    QFETCH(QByteArray, topic);
    QFETCH(int, kind);
    QFETCH(bool, accepted);
    static int sent = 0;
    const std::string id = "MSGTYPE-" + std::to_string(++sent);
    GrpcTestClient c(m_grpcPort, "msgtype@1");
    const storage::MessageStore *store = m_broker->context().store;
    QVERIFY(store);
    const std::int64_t before = store->commitLogMaxOffset();
    const pb::SendMessageResponse r = c.send({messageOf(Kind(kind), topic.toStdString(), id)});
    if (accepted) {
        QVERIFY2(r.status().code() == pb::OK, r.status().message().c_str());
        QCOMPARE(r.entries_size(), 1);
        QVERIFY(store->commitLogMaxOffset() > before);
        return;
    }
    QVERIFY2(
        r.status().code() == pb::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, r.status().message().c_str());
    QCOMPARE(r.entries_size(), 0);
    QCOMPARE(store->commitLogMaxOffset(), before); // nothing stored
    // The message names both types.
    const std::string topicType = topic.mid(3).toStdString();
    QVERIFY2(r.status().message().find("takes " + topicType + " messages") != std::string::npos,
        r.status().message().c_str());
}

void tst_GrpcMessageType::routeListsTheAcceptedTypes()
{
    GrpcTestClient c(m_grpcPort, "msgtype-route@1");
    auto typesOf = [&](const std::string &topic) {
        pb::QueryRouteRequest req;
        req.mutable_topic()->set_name(topic);
        pb::QueryRouteResponse resp;
        auto ctx = c.context();
        std::vector<int> types;
        if (!c.stub().QueryRoute(ctx.get(), req, &resp).ok() || resp.message_queues_size() == 0)
            return types;
        for (const int t : resp.message_queues(0).accept_message_types())
            types.push_back(t);
        return types;
    };
    QCOMPARE(typesOf("MT_FIFO"), std::vector<int> {pb::FIFO});
    QCOMPARE(typesOf("MT_TRANSACTION"), std::vector<int> {pb::TRANSACTION});
    const std::vector<int> every {pb::NORMAL, pb::FIFO, pb::DELAY, pb::TRANSACTION};
    QCOMPARE(typesOf("MT_MIXED"), every);
    QCOMPARE(typesOf("MT_NONE"), every);
}

void tst_GrpcMessageType::fifoConsumerGroupPopsInOrder()
{
    // RocketMQ 5's FIFO group: consumeMessageOrderly on its subscription group (mqadmin 5's
    // updateSubGroup -o true sends this body).
    protocol::SubscriptionGroupConfig group("GGO");
    group.consumeMessageOrderly = true;
    QVERIFY(group.toJson().contains("\"consumeMessageOrderly\":true"));
    QCOMPARE(invoke(m_remoting, localAddr(m_broker->listenPort()), request(200, {}, group.toJson()))
                 .code,
        0);
    QCOMPARE(createTopic("MT_ORDER", {}).code, 0);
    auto client = std::make_unique<GrpcTestClient>(m_grpcPort, "fifo-client@1");

    // The settings it gets through Telemetry say FIFO (another group's do not).
    auto ctx = client->context();
    auto stream = client->stub().Telemetry(ctx.get());
    for (const char *name : {"GGO", "GG"}) {
        pb::TelemetryCommand consumer;
        pb::Settings *s = consumer.mutable_settings();
        s->set_client_type(pb::SIMPLE_CONSUMER);
        s->mutable_subscription()->mutable_group()->set_name(name);
        QVERIFY(stream->Write(consumer));
        pb::TelemetryCommand answer;
        QVERIFY(stream->Read(&answer));
        QCOMPARE(answer.settings().subscription().fifo(), std::string(name) == "GGO");
    }
    QVERIFY(stream->WritesDone());
    QVERIFY(stream->Finish().ok());

    // QueryAssignment: one assignment per queue for a FIFO group, as RocketMQ 5.3's proxy.
    pb::QueryAssignmentRequest a;
    a.mutable_topic()->set_name("MT_ORDER");
    a.mutable_group()->set_name("GGO");
    pb::QueryAssignmentResponse ar;
    auto ctx2 = client->context();
    QVERIFY(client->stub().QueryAssignment(ctx2.get(), a, &ar).ok());
    QCOMPARE(ar.status().code(), pb::OK);
    std::set<int> ids;
    for (const pb::Assignment &x : ar.assignments())
        ids.insert(x.message_queue().id());
    QCOMPARE(ids, (std::set<int> {0, 1}));

    // A new topic: the new group starts at its first message (RocketMQ 5.3's rule).
    for (int i = 0; i < 5; ++i) {
        pb::Message m = GrpcTestClient::message(
            "MT_ORDER", "ID-O-" + std::to_string(i), "o-" + std::to_string(i));
        m.mutable_system_properties()->set_message_type(pb::FIFO);
        m.mutable_system_properties()->set_message_group("order-7");
        QCOMPARE(client->send({m}).status().code(), pb::OK);
    }
    const auto receiveOne = [&](std::int64_t invisibleMs) {
        return client->receive("GGO", "MT_ORDER", 1, invisibleMs, 1000);
    };
    const auto ackOf = [&](const pb::Message &m) {
        return client
            ->ack("GGO", "MT_ORDER", m.system_properties().message_id(),
                m.system_properties().receipt_handle())
            .status()
            .code();
    };
    Received r = receiveOne(30000);
    QCOMPARE(int(r.messages.size()), 1);
    QCOMPARE(r.messages[0].body(), std::string("o-0"));
    // o-0 is in flight: its queue gives nothing more until it is acknowledged.
    QCOMPARE(receiveOne(30000).code, pb::MESSAGE_NOT_FOUND);
    QCOMPARE(ackOf(r.messages[0]), pb::OK);
    r = receiveOne(2000);
    QCOMPARE(int(r.messages.size()), 1);
    QCOMPARE(r.messages[0].body(), std::string("o-1"));
    QCOMPARE(r.messages[0].system_properties().delivery_attempt(), 1);
    // Not acknowledged within its 2 s: o-1 comes again, before anything after it.
    std::vector<pb::Message> again;
    QElapsedTimer t;
    t.start();
    while (again.empty() && t.elapsed() < 30000) {
        Received x = receiveOne(30000);
        for (pb::Message &m : x.messages)
            again.push_back(std::move(m));
    }
    QCOMPARE(int(again.size()), 1);
    QCOMPARE(again[0].body(), std::string("o-1"));
    QCOMPARE(again[0].system_properties().delivery_attempt(), 2);
    QCOMPARE(ackOf(again[0]), pb::OK);
    // The rest, in order.
    std::vector<std::string> rest;
    t.restart();
    while (rest.size() < 3 && t.elapsed() < 30000) {
        Received x = client->receive("GGO", "MT_ORDER", 32, 30000, 1000);
        for (const pb::Message &m : x.messages) {
            rest.push_back(m.body());
            QCOMPARE(ackOf(m), pb::OK);
        }
    }
    QCOMPARE(rest, (std::vector<std::string> {"o-2", "o-3", "o-4"}));
    QCOMPARE(client->receive("GGO", "MT_ORDER", 32, 30000, 1000).code, pb::MESSAGE_NOT_FOUND);
}

void tst_GrpcMessageType::namespacedTopicIsSplitInAnswers()
{
    // A topic of namespace "ns1" as RocketMQ 4 clients name it on the wire ("ns1%NS_T"): the
    // messages received carry it as RocketMQ 5.3.3's proxy answers, namespace and name apart;
    // QueryRoute answers with the Resource it was asked for.
    QCOMPARE(createTopic("ns1%NS_T", {}).code, 0);
    auto client = std::make_unique<GrpcTestClient>(m_grpcPort, "ns-client@1");
    // The group's first receive (nothing yet) places it on the queues.
    QCOMPARE(client->receive("ns1%NS_G", "ns1%NS_T", 1, 1000, 100).messages.size(), 0u);
    QCOMPARE(client->send({GrpcTestClient::message("ns1%NS_T", "ID-NS-1", "namespaced")})
                 .status()
                 .code(),
        pb::OK);
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("ns1%NS_T");
    pb::QueryRouteResponse routed;
    auto ctx = client->context();
    QVERIFY(client->stub().QueryRoute(ctx.get(), route, &routed).ok());
    QCOMPARE(routed.status().code(), pb::OK);
    QVERIFY(routed.message_queues_size() > 0);
    QCOMPARE(routed.message_queues(0).topic().name(), std::string("ns1%NS_T"));
    QVERIFY(routed.message_queues(0).topic().resource_namespace().empty());

    // First delivery, then the redelivery (from the group's retry topic) once it is not acked.
    for (int round = 0; round < 2; ++round) {
        Received r;
        QElapsedTimer waited;
        waited.start();
        while (r.messages.empty() && waited.elapsed() < 15000)
            r = client->receive("ns1%NS_G", "ns1%NS_T", 1, 1000, 1000);
        QCOMPARE(r.messages.size(), 1u);
        const pb::Resource &topic = r.messages[0].topic();
        QCOMPARE(topic.resource_namespace(), std::string("ns1"));
        QCOMPARE(topic.name(), std::string("NS_T"));
        QCOMPARE(r.messages[0].body(), std::string("namespaced"));
        QCOMPARE(r.messages[0].system_properties().delivery_attempt(), round + 1);
    }
}

QTEST_GUILESS_MAIN(tst_GrpcMessageType)
#include "tst_grpcmessagetype.moc"
