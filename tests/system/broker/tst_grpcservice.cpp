// RocketMQ 5's gRPC protocol served by a real qrocket-broker (issue 27, first slice): a C++ gRPC
// client (the generated stub) against grpcServerPort. QueryRoute and QueryAssignment, Telemetry
// settings, Heartbeat seen by the broker's consumer manager, send + receive + ack, FIFO groups on
// one queue, delivery-time messages through the timer, invisible-time redelivery and
// ChangeInvisibleDuration, a gRPC message read by a remoting POP and a remoting message read over
// gRPC with keys, tags and properties intact, bad input answered with the v2 codes, and clients
// that go away in the middle of a long poll or a Telemetry stream.

#include "clientlib/common/hash.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/grpctestutil.h"
#include "tests/system/broker/poptestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <set>
#include <thread>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::grpctest;
using namespace qrocket::testlib;

namespace {

const QByteArray kBroker = "broker-grpc";

std::string str(const QByteArray &b)
{
    return b.toStdString();
}

std::int64_t nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

class tst_GrpcService final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void queryRouteAndAssignment();
    void telemetrySettings();
    void heartbeatRegistersTheConsumer();
    void notifyClientTermination();
    void sendReceiveAck();
    void fifoGroupOneQueue();
    void deliveryTimeThroughTheTimer();
    void invisibleTimeRedelivery();
    void changeInvisibleDuration();
    void changeInvisibleToZero();
    void grpcToRemotingPop();
    void remotingToGrpc();
    void offsets();
    void badInput();
    void recallBeforeDue();
    void forwardToDeadLetterQueue();
    void notServedYet();
    void clientGoesAwayMidStream();

private:
    void createTopic(const QByteArray &topic, int queues);
    RemotingCommand call(RemotingCommand req, int timeoutMs = 15000)
    {
        return invoke(m_remoting, localAddr(m_port), std::move(req), timeoutMs);
    }
    /// Starts the group's POP offsets and settles what earlier cases left in the topic (a new
    /// group takes a queue from 0 while it is in memory, as RocketMQ 5.3): receives and acks
    /// until nothing is found.
    void startGroup(GrpcTestClient &c, const std::string &group, const std::string &topic)
    {
        for (int round = 0; round < 50; ++round) {
            const Received r = c.receive(group, topic, 32, 60000, 0);
            QVERIFY2(r.rpc.ok(), r.rpc.error_message().c_str());
            if (r.code == pb::MESSAGE_NOT_FOUND)
                return;
            QCOMPARE(r.code, pb::OK);
            for (const pb::Message &m : r.messages)
                QCOMPARE(c.ack(group, topic, m.system_properties().message_id(),
                              m.system_properties().receipt_handle())
                             .status()
                             .code(),
                    pb::OK);
        }
        QFAIL("the group's topic did not run dry");
    }

    QTemporaryDir m_dir;
    std::unique_ptr<DaemonProcess> m_broker;
    quint16 m_port = 0;
    quint16 m_grpcPort = 0;
    remoting::RemotingClient m_remoting;
    std::unique_ptr<GrpcTestClient> m_client;
};

void tst_GrpcService::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (!QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))))
        QSKIP("qrocket-broker not built");
    m_broker = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const QString store = m_dir.filePath(QStringLiteral("store"));
    // The gRPC port is the test's choice as well (a broker without it runs on, so each attempt
    // takes a fresh one and the port is checked below).
    const bool started = startOnFreePort(
        *m_broker, m_dir.filePath(QStringLiteral("broker.conf")), m_port, [&](quint16 p) {
            m_grpcPort = freePort();
            return "brokerName=" + kBroker
                + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nnamesrvAddr=127.0.0.1:1\nlistenPort="
                + QByteArray::number(p) + "\ngrpcServerPort=" + QByteArray::number(m_grpcPort)
                + "\nstorePathRootDir=" + store.toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
        });
    QVERIFY2(started, qPrintable(m_broker->error()));
    QVERIFY2(waitForPort(m_grpcPort, 10000), m_broker->output().constData());
    m_client = std::make_unique<GrpcTestClient>(m_grpcPort, "grpc-test-client@1");
    for (const char *t : {"GT", "GFIFO", "GDELAY", "GREDO", "GCHG", "GX1", "GX2", "GBAD", "GOFF",
             "GRECALL", "GDLQT"})
        createTopic(t, 4);
}

void tst_GrpcService::cleanupTestCase()
{
    if (!m_broker)
        return;
    // A clean stop while a long poll is held: the gRPC server finishes the stream and the broker
    // exits 0 within the stop's bound (no handler left waiting for a processor).
    grpc::Status polled;
    std::thread poller([&] { polled = m_client->receive("GGA", "GBAD", 1, 10000, 20000).rpc; });
    QTest::qWait(500);
    QElapsedTimer t;
    t.start();
    QCOMPARE(m_broker->stop(), 0);
    poller.join(); // bounded by the call's deadline
    QVERIFY2(t.elapsed() < 15000, qPrintable(QString::number(t.elapsed())));
    m_client.reset();
}

void tst_GrpcService::createTopic(const QByteArray &topic, int queues)
{
    const RemotingCommand r = call(request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(queues)},
            {"writeQueueNums", num(queues)}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}}));
    QCOMPARE(r.code, 0);
}

void tst_GrpcService::queryRouteAndAssignment()
{
    pb::QueryRouteRequest req;
    req.mutable_topic()->set_name("GT");
    pb::QueryRouteResponse resp;
    auto ctx = m_client->context();
    QVERIFY(m_client->stub().QueryRoute(ctx.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::OK);
    QCOMPARE(resp.message_queues_size(), 4);
    std::set<int> ids;
    for (const pb::MessageQueue &q : resp.message_queues()) {
        ids.insert(q.id());
        QCOMPARE(q.topic().name(), std::string("GT"));
        QCOMPARE(q.permission(), pb::READ_WRITE);
        QCOMPARE(q.broker().name(), str(kBroker));
        QCOMPARE(q.broker().endpoints().scheme(), pb::IPv4);
        QCOMPARE(q.broker().endpoints().addresses_size(), 1);
        QCOMPARE(q.broker().endpoints().addresses(0).host(), std::string("127.0.0.1"));
        QCOMPARE(q.broker().endpoints().addresses(0).port(), int(m_grpcPort));
        QVERIFY(q.accept_message_types_size() >= 1);
    }
    QCOMPARE(ids, (std::set<int> {0, 1, 2, 3}));

    req.mutable_topic()->set_name("NoSuchTopic");
    resp.Clear();
    auto ctx2 = m_client->context();
    QVERIFY(m_client->stub().QueryRoute(ctx2.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::TOPIC_NOT_FOUND);
    QCOMPARE(resp.message_queues_size(), 0);

    pb::QueryAssignmentRequest a;
    a.mutable_topic()->set_name("GT");
    a.mutable_group()->set_name("GG");
    pb::QueryAssignmentResponse ar;
    auto ctx3 = m_client->context();
    QVERIFY(m_client->stub().QueryAssignment(ctx3.get(), a, &ar).ok());
    QCOMPARE(ar.status().code(), pb::OK);
    QCOMPARE(ar.assignments_size(), 1);
    QCOMPARE(ar.assignments(0).message_queue().id(), -1);
    QCOMPARE(ar.assignments(0).message_queue().broker().endpoints().addresses(0).port(),
        int(m_grpcPort));
}

void tst_GrpcService::telemetrySettings()
{
    auto ctx = m_client->context();
    auto stream = m_client->stub().Telemetry(ctx.get());
    pb::TelemetryCommand producer;
    producer.mutable_settings()->set_client_type(pb::PRODUCER);
    producer.mutable_settings()->mutable_publishing()->add_topics()->set_name("GT");
    producer.mutable_settings()->mutable_user_agent()->set_language(pb::CPP);
    QVERIFY(stream->Write(producer));
    pb::TelemetryCommand answer;
    QVERIFY(stream->Read(&answer));
    QCOMPARE(answer.status().code(), pb::OK);
    QVERIFY(answer.has_settings());
    QCOMPARE(answer.settings().publishing().max_body_size(), 4 * 1024 * 1024);
    QCOMPARE(answer.settings().publishing().topics(0).name(), std::string("GT"));
    QCOMPARE(answer.settings().backoff_policy().max_attempts(), 3);
    QVERIFY(answer.settings().backoff_policy().has_exponential_backoff());

    pb::TelemetryCommand consumer;
    pb::Settings *s = consumer.mutable_settings();
    s->set_client_type(pb::SIMPLE_CONSUMER);
    s->mutable_subscription()->mutable_group()->set_name("GG");
    pb::SubscriptionEntry *e = s->mutable_subscription()->add_subscriptions();
    e->mutable_topic()->set_name("GT");
    e->mutable_expression()->set_type(pb::TAG);
    e->mutable_expression()->set_expression("*");
    QVERIFY(stream->Write(consumer));
    QVERIFY(stream->Read(&answer));
    QCOMPARE(answer.status().code(), pb::OK);
    QCOMPARE(answer.settings().subscription().receive_batch_size(), 32);
    QCOMPARE(answer.settings().subscription().long_polling_timeout().seconds(), 20);
    QCOMPARE(answer.settings().backoff_policy().max_attempts(), 17); // retryMaxTimes 16 + 1
    // The proxy's CUSTOMIZED list: the delay levels from the first (1s 5s 10s ... 2h).
    const pb::CustomizedBackoff &next = answer.settings().backoff_policy().customized_backoff();
    QCOMPARE(next.next_size(), 18);
    QCOMPARE(next.next(0).seconds(), 1);
    QCOMPARE(next.next(2).seconds(), 10);
    QVERIFY(stream->WritesDone());
    QVERIFY(stream->Finish().ok());
}

void tst_GrpcService::heartbeatRegistersTheConsumer()
{
    pb::HeartbeatRequest req;
    req.mutable_group()->set_name("GG");
    req.set_client_type(pb::SIMPLE_CONSUMER);
    pb::HeartbeatResponse resp;
    auto ctx = m_client->context();
    QVERIFY(m_client->stub().Heartbeat(ctx.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::OK);
    // The broker's consumer manager has the gRPC client, as for a remoting client
    // (GET_CONSUMER_CONNECTION_LIST, what qrocket-admin consumerConnection asks).
    const RemotingCommand r = call(request(203, {{"consumerGroup", "GG"}}));
    QCOMPARE(r.code, 0);
    QVERIFY2(r.body.contains("grpc-test-client@1"), r.body.constData());
    QVERIFY2(r.body.contains("\"GT\""), r.body.constData());

    // Without a client id: the v2 code for it.
    grpc::ClientContext bare;
    bare.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(15));
    resp.Clear();
    QVERIFY(m_client->stub().Heartbeat(&bare, req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::CLIENT_ID_REQUIRED);
}

void tst_GrpcService::notifyClientTermination()
{
    GrpcTestClient c(m_grpcPort, "grpc-term-client@2");
    pb::HeartbeatRequest hb;
    hb.mutable_group()->set_name("GGT");
    hb.set_client_type(pb::SIMPLE_CONSUMER);
    pb::HeartbeatResponse hbResp;
    auto ctx = c.context();
    QVERIFY(c.stub().Heartbeat(ctx.get(), hb, &hbResp).ok());
    QCOMPARE(hbResp.status().code(), pb::OK);
    QVERIFY(call(request(203, {{"consumerGroup", "GGT"}})).body.contains("grpc-term-client@2"));

    pb::NotifyClientTerminationRequest req;
    req.mutable_group()->set_name("GGT");
    pb::NotifyClientTerminationResponse resp;
    auto ctx2 = c.context();
    QVERIFY(c.stub().NotifyClientTermination(ctx2.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::OK);
    // Gone from the broker's consumer manager (no consumer left: CONSUMER_NOT_ONLINE, 206).
    const RemotingCommand after = call(request(203, {{"consumerGroup", "GGT"}}));
    QVERIFY2(!after.body.contains("grpc-term-client@2"), after.body.constData());
}

void tst_GrpcService::sendReceiveAck()
{
    startGroup(*m_client, "GG", "GT");
    const pb::SendMessageResponse sent = m_client->send({GrpcTestClient::message(
        "GT", "ID-SRA-1", "hello grpc", "TagA", {"k1", "k2"}, {{"color", "red"}, {"size", "7"}})});
    QCOMPARE(sent.status().code(), pb::OK);
    QCOMPARE(sent.entries_size(), 1);
    QCOMPARE(sent.entries(0).message_id(), std::string("ID-SRA-1"));
    QVERIFY(sent.entries(0).offset() >= 0);

    const Received r = m_client->receive("GG", "GT", 32, 30000, 5000);
    QVERIFY(r.rpc.ok());
    QCOMPARE(r.code, pb::OK);
    QVERIFY(r.deliveryTimestamp);
    QCOMPARE(int(r.messages.size()), 1);
    const pb::Message &m = r.messages[0];
    QCOMPARE(m.topic().name(), std::string("GT"));
    QCOMPARE(m.body(), std::string("hello grpc"));
    QCOMPARE(m.system_properties().message_id(), std::string("ID-SRA-1"));
    QCOMPARE(m.system_properties().tag(), std::string("TagA"));
    QCOMPARE(int(m.system_properties().keys_size()), 2);
    QCOMPARE(m.system_properties().keys(1), std::string("k2"));
    QCOMPARE(m.user_properties().at("color"), std::string("red"));
    QCOMPARE(m.user_properties().at("size"), std::string("7"));
    QCOMPARE(int(m.user_properties().size()), 2);
    QCOMPARE(m.system_properties().message_type(), pb::NORMAL);
    QCOMPARE(m.system_properties().delivery_attempt(), 1);
    QCOMPARE(m.system_properties().body_digest().type(), pb::MD5);
    QCOMPARE(m.system_properties().body_digest().checksum(),
        str(QCryptographicHash::hash("hello grpc", QCryptographicHash::Md5).toHex().toUpper()));
    QVERIFY(!m.system_properties().receipt_handle().empty());

    const pb::AckMessageResponse acked = m_client->ack(
        "GG", "GT", m.system_properties().message_id(), m.system_properties().receipt_handle());
    QCOMPARE(acked.status().code(), pb::OK);
    QCOMPARE(acked.entries(0).status().code(), pb::OK);
    // Acked: not delivered again.
    const Received again = m_client->receive("GG", "GT", 32, 30000, 1000);
    QCOMPARE(again.code, pb::MESSAGE_NOT_FOUND);
    QVERIFY(again.messages.empty());
}

void tst_GrpcService::fifoGroupOneQueue()
{
    startGroup(*m_client, "GGF", "GFIFO");
    for (int i = 0; i < 6; ++i) {
        pb::Message m = GrpcTestClient::message("GFIFO", "ID-F-" + std::to_string(i), "f");
        m.mutable_system_properties()->set_message_type(pb::FIFO);
        m.mutable_system_properties()->set_message_group("order-42");
        QCOMPARE(m_client->send({m}).status().code(), pb::OK);
    }
    const std::vector<pb::Message> got = m_client->receiveUntil("GGF", "GFIFO", 6, 30000, 20000);
    QCOMPARE(int(got.size()), 6);
    std::set<int> queues;
    for (const pb::Message &m : got) {
        queues.insert(m.system_properties().queue_id());
        QCOMPARE(m.system_properties().message_group(), std::string("order-42"));
        QCOMPARE(m.system_properties().message_type(), pb::FIFO);
    }
    QCOMPARE(int(queues.size()), 1);
    // The proxy's queue: Hashing.consistentHash("order-42".hashCode(), 4 writable queues).
    QCOMPARE(*queues.begin(), consistentHash(javaStringHash("order-42"), 4));
}

void tst_GrpcService::deliveryTimeThroughTheTimer()
{
    startGroup(*m_client, "GGD", "GDELAY");
    const std::int64_t deliverAt = nowMs() + 3000;
    pb::Message m = GrpcTestClient::message("GDELAY", "ID-D-1", "later");
    m.mutable_system_properties()->set_message_type(pb::DELAY);
    m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(deliverAt / 1000);
    m.mutable_system_properties()->mutable_delivery_timestamp()->set_nanos(
        int((deliverAt % 1000) * 1000000));
    QCOMPARE(m_client->send({m}).status().code(), pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GGD", "GDELAY", 1, 30000, 25000);
    const std::int64_t receivedAt = nowMs();
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].body(), std::string("later"));
    QCOMPARE(got[0].system_properties().message_type(), pb::DELAY);
    // Not before its time (the timer's precision: 1 s slots).
    QVERIFY2(receivedAt >= deliverAt - 1000, qPrintable(QString::number(deliverAt - receivedAt)));
}

void tst_GrpcService::invisibleTimeRedelivery()
{
    startGroup(*m_client, "GGR", "GREDO");
    QCOMPARE(m_client->send({GrpcTestClient::message("GREDO", "ID-R-1", "again")}).status().code(),
        pb::OK);
    const std::vector<pb::Message> first = m_client->receiveUntil("GGR", "GREDO", 1, 2000, 15000);
    QCOMPARE(int(first.size()), 1);
    QCOMPARE(first[0].system_properties().delivery_attempt(), 1);
    // Not acked: back after its 2 s invisible time, with the next attempt number.
    const std::vector<pb::Message> second = m_client->receiveUntil("GGR", "GREDO", 1, 30000, 40000);
    QCOMPARE(int(second.size()), 1);
    const pb::Message &m = second[0];
    QCOMPARE(m.system_properties().message_id(), std::string("ID-R-1"));
    QCOMPARE(m.topic().name(), std::string("GREDO"));
    QCOMPARE(m.body(), std::string("again"));
    QCOMPARE(m.system_properties().delivery_attempt(), 2);
    QCOMPARE(m_client->ack("GGR", "GREDO", "ID-R-1", m.system_properties().receipt_handle())
                 .status()
                 .code(),
        pb::OK);
    QCOMPARE(m_client->receive("GGR", "GREDO", 32, 30000, 3000).code, pb::MESSAGE_NOT_FOUND);
}

void tst_GrpcService::changeInvisibleDuration()
{
    startGroup(*m_client, "GGC", "GCHG");
    QCOMPARE(m_client->send({GrpcTestClient::message("GCHG", "ID-C-1", "change")}).status().code(),
        pb::OK);
    const std::vector<pb::Message> first = m_client->receiveUntil("GGC", "GCHG", 1, 60000, 15000);
    QCOMPARE(int(first.size()), 1);
    const std::string handle = first[0].system_properties().receipt_handle();
    const pb::ChangeInvisibleDurationResponse changed
        = m_client->changeInvisible("GGC", "GCHG", "ID-C-1", handle, 1000);
    QCOMPARE(changed.status().code(), pb::OK);
    QVERIFY(!changed.receipt_handle().empty());
    QVERIFY(changed.receipt_handle() != handle);
    // 60 s became 1 s: it comes back well before the first invisible time would have ended.
    QElapsedTimer t;
    t.start();
    const std::vector<pb::Message> second = m_client->receiveUntil("GGC", "GCHG", 1, 30000, 40000);
    QCOMPARE(int(second.size()), 1);
    QVERIFY(t.elapsed() < 55000);
    QCOMPARE(second[0].system_properties().message_id(), std::string("ID-C-1"));
    QCOMPARE(m_client->ack("GGC", "GCHG", "ID-C-1", second[0].system_properties().receipt_handle())
                 .status()
                 .code(),
        pb::OK);
}

void tst_GrpcService::changeInvisibleToZero()
{
    // rocketmq-client-nodejs 1.0.8's PushConsumer nacks a failed message with an invisible time
    // of 0 (it ignores the CUSTOMIZED backoff it is given); RocketMQ 5.3's proxy accepts 0 and
    // the message is visible again at once. Refused, the SDK retried forever and never shut down.
    startGroup(*m_client, "GGZ", "GCHG");
    QCOMPARE(m_client->send({GrpcTestClient::message("GCHG", "ID-Z-1", "zero")}).status().code(),
        pb::OK);
    const std::vector<pb::Message> first = m_client->receiveUntil("GGZ", "GCHG", 1, 60000, 15000);
    QCOMPARE(int(first.size()), 1);
    const pb::ChangeInvisibleDurationResponse changed = m_client->changeInvisible(
        "GGZ", "GCHG", "ID-Z-1", first[0].system_properties().receipt_handle(), 0);
    QCOMPARE(changed.status().code(), pb::OK);
    QVERIFY(!changed.receipt_handle().empty());
    QElapsedTimer t;
    t.start();
    const std::vector<pb::Message> second = m_client->receiveUntil("GGZ", "GCHG", 1, 30000, 15000);
    QCOMPARE(int(second.size()), 1);
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(second[0].system_properties().message_id(), std::string("ID-Z-1"));
    QCOMPARE(second[0].system_properties().delivery_attempt(), 2);
    QCOMPARE(m_client->ack("GGZ", "GCHG", "ID-Z-1", second[0].system_properties().receipt_handle())
                 .status()
                 .code(),
        pb::OK);
    // Past the proxy's 12 hour maximum: refused.
    QCOMPARE(m_client
                 ->changeInvisible("GGZ", "GCHG", "ID-Z-1",
                     second[0].system_properties().receipt_handle(), 13LL * 3600 * 1000)
                 .status()
                 .code(),
        pb::ILLEGAL_INVISIBLE_TIME);
}

void tst_GrpcService::grpcToRemotingPop()
{
    QCOMPARE(m_client
                 ->send({GrpcTestClient::message(
                     "GX1", "ID-X-1", "to remoting", "TagX", {"kx", "ky"}, {{"origin", "grpc"}})})
                 .status()
                 .code(),
        pb::OK);
    std::vector<PoppedMessage> got;
    QElapsedTimer t;
    t.start();
    while (got.empty() && t.elapsed() < 15000) {
        PopAnswer a
            = popAnswer(call(popRequest("GRX", "GX1", -1, 32, 30000, 1000), 20000), kBroker);
        got = std::move(a.messages);
    }
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].body, QByteArray("to remoting"));
    const auto p = protocol::MessageProperties::parse(got[0].properties);
    QCOMPARE(p.value("TAGS"), QByteArray("TagX"));
    QCOMPARE(p.value("KEYS"), QByteArray("kx ky"));
    QCOMPARE(p.value("UNIQ_KEY"), QByteArray("ID-X-1"));
    QCOMPARE(p.value("origin"), QByteArray("grpc"));
    QCOMPARE(call(ackRequest("GRX", "GX1", got[0])).code, 0);
}

void tst_GrpcService::remotingToGrpc()
{
    startGroup(*m_client, "GGX", "GX2");
    const RemotingCommand r = call(sendV2("GX2", 1, "from remoting",
        props({{"UNIQ_KEY", "ID-X-2"}, {"TAGS", "TagR"}, {"KEYS", "r1 r2"}, {"origin", "remoting"},
            {"WAIT", "true"}})));
    QCOMPARE(r.code, 0);
    const std::vector<pb::Message> got = m_client->receiveUntil("GGX", "GX2", 1, 30000, 15000);
    QCOMPARE(int(got.size()), 1);
    const pb::Message &m = got[0];
    QCOMPARE(m.body(), std::string("from remoting"));
    QCOMPARE(m.system_properties().message_id(), std::string("ID-X-2"));
    QCOMPARE(m.system_properties().tag(), std::string("TagR"));
    QCOMPARE(int(m.system_properties().keys_size()), 2);
    QCOMPARE(m.system_properties().keys(0), std::string("r1"));
    QCOMPARE(m.user_properties().at("origin"), std::string("remoting"));
    QVERIFY(!m.user_properties().contains("WAIT")); // a system property, not the user's
    QCOMPARE(m.system_properties().queue_id(), 1);
    QCOMPARE(m_client->ack("GGX", "GX2", "ID-X-2", m.system_properties().receipt_handle())
                 .status()
                 .code(),
        pb::OK);
}

void tst_GrpcService::offsets()
{
    for (int i = 0; i < 3; ++i)
        QCOMPARE(m_client->send({GrpcTestClient::message("GOFF", "ID-O-" + std::to_string(i), "o")})
                     .status()
                     .code(),
            pb::OK);
    auto queryOffset = [&](int queueId, pb::QueryOffsetPolicy policy) {
        pb::QueryOffsetRequest req;
        req.mutable_message_queue()->mutable_topic()->set_name("GOFF");
        req.mutable_message_queue()->set_id(queueId);
        req.set_query_offset_policy(policy);
        if (policy == pb::TIMESTAMP)
            req.mutable_timestamp()->set_seconds(nowMs() / 1000 - 3600);
        pb::QueryOffsetResponse resp;
        auto ctx = m_client->context();
        m_client->stub().QueryOffset(ctx.get(), req, &resp);
        return resp;
    };
    // Round robin over the 4 queues: 3 messages in all (the consume queues follow the sends
    // within moments: bounded wait).
    std::int64_t total = 0;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            total = 0;
            for (int q = 0; q < 4; ++q)
                total += queryOffset(q, pb::END).offset();
            return total == 3;
        }(),
        5000);
    for (int q = 0; q < 4; ++q) {
        const pb::QueryOffsetResponse begin = queryOffset(q, pb::BEGINNING);
        QCOMPARE(begin.status().code(), pb::OK);
        QCOMPARE(begin.offset(), std::int64_t {0});
        const pb::QueryOffsetResponse hourAgo = queryOffset(q, pb::TIMESTAMP);
        QCOMPARE(hourAgo.status().code(), pb::OK);
        QCOMPARE(hourAgo.offset(), std::int64_t {0});
    }
    QCOMPARE(queryOffset(9, pb::END).status().code(), pb::BAD_REQUEST);

    pb::UpdateOffsetRequest update;
    update.mutable_group()->set_name("GGO");
    update.mutable_message_queue()->mutable_topic()->set_name("GOFF");
    update.mutable_message_queue()->set_id(1);
    update.set_offset(1);
    pb::UpdateOffsetResponse updated;
    auto ctx = m_client->context();
    QVERIFY(m_client->stub().UpdateOffset(ctx.get(), update, &updated).ok());
    QCOMPARE(updated.status().code(), pb::OK);
    // The same offset table remoting consumers use (QUERY_CONSUMER_OFFSET over remoting).
    const RemotingCommand r
        = call(request(14, {{"consumerGroup", "GGO"}, {"topic", "GOFF"}, {"queueId", "1"}}));
    QCOMPARE(r.code, 0);
    QCOMPARE(r.extLong("offset").value_or(-1), std::int64_t {1});

    pb::GetOffsetRequest get;
    get.mutable_group()->set_name("GGO");
    *get.mutable_message_queue() = update.message_queue();
    pb::GetOffsetResponse got;
    auto ctx2 = m_client->context();
    QVERIFY(m_client->stub().GetOffset(ctx2.get(), get, &got).ok());
    QCOMPARE(got.status().code(), pb::OK);
    QCOMPARE(got.offset(), std::int64_t {1});

    update.set_offset(-1);
    updated.Clear();
    auto ctx3 = m_client->context();
    QVERIFY(m_client->stub().UpdateOffset(ctx3.get(), update, &updated).ok());
    QCOMPARE(updated.status().code(), pb::ILLEGAL_OFFSET);
    get.mutable_message_queue()->mutable_topic()->set_name("NoSuchTopic");
    got.Clear();
    auto ctx4 = m_client->context();
    QVERIFY(m_client->stub().GetOffset(ctx4.get(), get, &got).ok());
    QCOMPARE(got.status().code(), pb::TOPIC_NOT_FOUND);
}

void tst_GrpcService::badInput()
{
    // Unknown topic.
    QCOMPARE(
        m_client->send({GrpcTestClient::message("NoSuchTopic", "ID-B-1", "x")}).status().code(),
        pb::TOPIC_NOT_FOUND);
    const Received unknown = m_client->receive("GGB", "NoSuchTopic", 1, 10000, 0);
    QVERIFY(unknown.rpc.ok());
    QCOMPARE(unknown.code, pb::TOPIC_NOT_FOUND);
    // A body over the broker's maxMessageSize (4 MiB).
    QCOMPARE(m_client
                 ->send({GrpcTestClient::message(
                     "GBAD", "ID-B-2", std::string(4 * 1024 * 1024 + 1, 'x'))})
                 .status()
                 .code(),
        pb::MESSAGE_BODY_TOO_LARGE);
    // A user property with a system name, no message id.
    QCOMPARE(
        m_client->send({GrpcTestClient::message("GBAD", "ID-B-3", "x", {}, {}, {{"KEYS", "k"}})})
            .status()
            .code(),
        pb::ILLEGAL_MESSAGE_PROPERTY_KEY);
    QCOMPARE(m_client->send({GrpcTestClient::message("GBAD", "", "x")}).status().code(),
        pb::ILLEGAL_MESSAGE_ID);
    QCOMPARE(m_client->send({}).status().code(), pb::MESSAGE_CORRUPTED);
    // Malformed receipt handles.
    const pb::AckMessageResponse ack = m_client->ack("GGB", "GBAD", "ID-B-4", "not a handle");
    QCOMPARE(ack.status().code(), pb::INVALID_RECEIPT_HANDLE);
    QCOMPARE(ack.entries(0).status().code(), pb::INVALID_RECEIPT_HANDLE);
    QCOMPARE(m_client->changeInvisible("GGB", "GBAD", "ID-B-4", "1 2 x", 1000).status().code(),
        pb::INVALID_RECEIPT_HANDLE);
    QCOMPARE(m_client->changeInvisible("GGB", "GBAD", "ID-B-4", "0 1 2 3 0 b 1 5", -1000)
                 .status()
                 .code(),
        pb::ILLEGAL_INVISIBLE_TIME);
    // A receive without a group.
    QCOMPARE(m_client->receive("", "GBAD", 1, 10000, 0).code, pb::ILLEGAL_CONSUMER_GROUP);
}

void tst_GrpcService::recallBeforeDue()
{
    startGroup(*m_client, "GGRC", "GRECALL");
    const auto delayed = [](const std::string &id, std::int64_t deliverAt) {
        pb::Message m = GrpcTestClient::message("GRECALL", id, id);
        m.mutable_system_properties()->set_message_type(pb::DELAY);
        m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(deliverAt / 1000);
        m.mutable_system_properties()->mutable_delivery_timestamp()->set_nanos(
            int((deliverAt % 1000) * 1000000));
        return m;
    };
    const auto recall = [&](const std::string &handle) {
        pb::RecallMessageRequest req;
        req.mutable_topic()->set_name("GRECALL");
        req.set_recall_handle(handle);
        pb::RecallMessageResponse resp;
        auto ctx = m_client->context();
        const grpc::Status st = m_client->stub().RecallMessage(ctx.get(), req, &resp);
        if (!st.ok())
            resp.mutable_status()->set_code(pb::CODE_UNSPECIFIED);
        return resp;
    };
    const std::int64_t due = nowMs() + 4000;
    const pb::SendMessageResponse sent
        = m_client->send({delayed("ID-RC-1", due), delayed("ID-RC-2", due)});
    QCOMPARE(sent.status().code(), pb::OK);
    QCOMPARE(sent.entries_size(), 2);
    const std::string handle1 = sent.entries(0).recall_handle();
    const std::string handle2 = sent.entries(1).recall_handle();
    QVERIFY(!handle1.empty() && !handle2.empty() && handle1 != handle2);
    // recallMessageEnable is off by default, as in RocketMQ 5.3: FORBIDDEN until it is on.
    QCOMPARE(recall(handle1).status().code(), pb::FORBIDDEN);
    QCOMPARE(call(request(25, {}, "recallMessageEnable=true\n")).code, 0);
    const pb::RecallMessageResponse recalled = recall(handle1);
    QCOMPARE(recalled.status().code(), pb::OK);
    QCOMPARE(recalled.message_id(), std::string("ID-RC-1"));
    // The other one comes when due; the recalled one never.
    std::vector<pb::Message> got = m_client->receiveUntil("GGRC", "GRECALL", 1, 30000, 25000);
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].system_properties().message_id(), std::string("ID-RC-2"));
    const Received more = m_client->receive("GGRC", "GRECALL", 16, 30000, 2500);
    QCOMPARE(more.code, pb::MESSAGE_NOT_FOUND);
    // Delivered already: too late to recall. A handle that is not one: refused, not served.
    QVERIFY(recall(handle2).status().code() != pb::OK);
    QVERIFY(recall("not-a-recall-handle").status().code() != pb::OK);
    QCOMPARE(recall("").status().code(), pb::BAD_REQUEST);
}

void tst_GrpcService::forwardToDeadLetterQueue()
{
    startGroup(*m_client, "GGDL", "GDLQT");
    QCOMPARE(
        m_client->send({GrpcTestClient::message("GDLQT", "ID-DL-1", "poison")}).status().code(),
        pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GGDL", "GDLQT", 1, 3000, 15000);
    QCOMPARE(int(got.size()), 1);
    const auto forward = [&](const std::string &handle) {
        pb::ForwardMessageToDeadLetterQueueRequest req;
        req.mutable_group()->set_name("GGDL");
        req.mutable_topic()->set_name("GDLQT");
        req.set_receipt_handle(handle);
        req.set_message_id("ID-DL-1");
        req.set_delivery_attempt(1);
        req.set_max_delivery_attempts(16);
        pb::ForwardMessageToDeadLetterQueueResponse resp;
        auto ctx = m_client->context();
        const grpc::Status st
            = m_client->stub().ForwardMessageToDeadLetterQueue(ctx.get(), req, &resp);
        return st.ok() ? resp.status().code() : pb::CODE_UNSPECIFIED;
    };
    QCOMPARE(forward(got[0].system_properties().receipt_handle()), pb::OK);
    // In the group's DLQ, with its id, and acknowledged: not back after its 3 s invisible time.
    const auto dlqMax = [&] {
        const RemotingCommand r = call(request(30, {{"topic", "%DLQ%GGDL"}, {"queueId", "0"}}));
        return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(dlqMax(), std::int64_t(1), 5000);
    const Received again = m_client->receive("GGDL", "GDLQT", 16, 30000, 5000);
    QCOMPARE(again.code, pb::MESSAGE_NOT_FOUND);
    QCOMPARE(forward("0 0 0 0 0 b 0"), pb::INVALID_RECEIPT_HANDLE);
    QCOMPARE(forward("garbage"), pb::INVALID_RECEIPT_HANDLE);
}

void tst_GrpcService::notServedYet()
{
    // EndTransaction is served (tst_grpctransaction): a request without a topic or with a
    // transaction id it never returned is refused with the proxy's codes.
    pb::EndTransactionRequest end;
    pb::EndTransactionResponse endResp;
    auto ctx2 = m_client->context();
    QVERIFY(m_client->stub().EndTransaction(ctx2.get(), end, &endResp).ok());
    QCOMPARE(endResp.status().code(), pb::ILLEGAL_TOPIC);
    end.mutable_topic()->set_name("GT");
    end.set_message_id("ID-NONE");
    end.set_transaction_id("not-an-id");
    end.set_resolution(pb::COMMIT);
    auto ctx4 = m_client->context();
    QVERIFY(m_client->stub().EndTransaction(ctx4.get(), end, &endResp).ok());
    QCOMPARE(endResp.status().code(), pb::INVALID_TRANSACTION_ID);

    pb::PullMessageRequest pull;
    auto ctx3 = m_client->context();
    auto reader = m_client->stub().PullMessage(ctx3.get(), pull);
    pb::PullMessageResponse pr;
    QVERIFY(!reader->Read(&pr));
    QCOMPARE(reader->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

void tst_GrpcService::clientGoesAwayMidStream()
{
    startGroup(*m_client, "GGA", "GBAD");
    // A long poll (15 s) whose client cancels after 300 ms, and a Telemetry stream whose
    // client cancels without closing it: both end at once, and the broker serves on.
    for (int round = 0; round < 3; ++round) {
        pb::ReceiveMessageRequest req;
        req.mutable_group()->set_name("GGA");
        req.mutable_message_queue()->mutable_topic()->set_name("GBAD");
        req.set_batch_size(1);
        GrpcTestClient::setMs(req.mutable_invisible_duration(), 10000);
        GrpcTestClient::setMs(req.mutable_long_polling_timeout(), 15000);
        auto ctx = m_client->context(30000);
        QElapsedTimer t;
        t.start();
        auto reader = m_client->stub().ReceiveMessage(ctx.get(), req);
        std::thread canceller([&ctx] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            ctx->TryCancel();
        });
        pb::ReceiveMessageResponse r;
        while (reader->Read(&r)) { }
        const grpc::Status st = reader->Finish();
        canceller.join();
        QCOMPARE(st.error_code(), grpc::StatusCode::CANCELLED);
        QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));

        auto tctx = m_client->context(30000);
        auto stream = m_client->stub().Telemetry(tctx.get());
        pb::TelemetryCommand c;
        c.mutable_settings()->set_client_type(pb::PRODUCER);
        c.mutable_settings()->mutable_publishing()->add_topics()->set_name("GBAD");
        QVERIFY(stream->Write(c));
        QVERIFY(stream->Read(&c));
        tctx->TryCancel();
        QCOMPARE(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
    }
    QVERIFY(m_broker->isRunning());
    // Served on: a message sent now is received (the cancelled polls took nothing of it).
    QCOMPARE(m_client->send({GrpcTestClient::message("GBAD", "ID-A-1", "after")}).status().code(),
        pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GGA", "GBAD", 1, 30000, 15000);
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].system_properties().message_id(), std::string("ID-A-1"));
}

QTEST_GUILESS_MAIN(tst_GrpcService)
#include "tst_grpcservice.moc"
