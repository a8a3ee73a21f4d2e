// Routes across brokers over RocketMQ 5's gRPC protocol (issue 27): one qrocket-namesrv and two
// qrocket-brokers as real processes. Each broker registers its gRPC port with the name server
// (QRocket's "grpcPort" header field), the name server gives it back in the route
// ("grpcPorts", read by the project's own route decoder), and either broker's QueryRoute lists
// the queues of both with each broker's gRPC endpoint, also for a topic it does not hold itself.
// QueryAssignment names both brokers, and a SimpleConsumer-style client that receives from each
// assignment's endpoint gets the messages sent to both. With the name server gone, QueryRoute
// answers the broker's own queues.

#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/grpctestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::grpctest;
using namespace qrocket::testlib;

namespace {

constexpr char kTopic[] = "GRT"; // 4 queues on each broker
constexpr char kTopicOnB[] = "GRB"; // 2 queues on broker B only
constexpr char kGroup[] = "GRG";

/// "name@host:port" of a route entry.
std::string where(const pb::MessageQueue &q)
{
    const pb::Address &a = q.broker().endpoints().addresses(0);
    return q.broker().name() + "@" + a.host() + ":" + std::to_string(a.port());
}

} // namespace

class tst_GrpcRoute final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void nameServerRouteCarriesGrpcPorts();
    void queryRouteListsBothBrokers();
    void queryRouteOfATopicOnTheOtherBroker();
    void queryAssignmentNamesBothBrokers();
    void simpleConsumerReceivesFromBoth();
    void withoutNameServerTheLocalRoute();

private:
    struct Broker
    {
        QByteArray name;
        quint16 port = 0;
        quint16 grpcPort = 0;
        std::unique_ptr<DaemonProcess> process;
        std::unique_ptr<GrpcTestClient> client;
    };
    bool start(Broker &b);
    void createTopic(const Broker &b, const QByteArray &topic, int queues);
    /// QueryRoute on `b` until it lists `count` queues (registrations reach the name server a
    /// little after the topics are created), bounded.
    pb::QueryRouteResponse routeWith(Broker &b, const std::string &topic, int count);
    std::string endpointOf(const Broker &b) const
    {
        return b.name.toStdString() + "@127.0.0.1:" + std::to_string(b.grpcPort);
    }

    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    quint16 m_namesrvPort = 0;
    remoting::RemotingClient m_remoting;
    Broker m_a {"broker-ra", 0, 0, nullptr, nullptr};
    Broker m_b {"broker-rb", 0, 0, nullptr, nullptr};
};

bool tst_GrpcRoute::start(Broker &b)
{
    b.process = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const QString store = m_dir.filePath(QString::fromLatin1(b.name));
    const bool started = startOnFreePort(*b.process,
        m_dir.filePath(QString::fromLatin1(b.name) + QStringLiteral(".conf")), b.port,
        [&](quint16 p) {
            b.grpcPort = freePort();
            return "brokerName=" + b.name
                + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nnamesrvAddr=127.0.0.1:"
                + QByteArray::number(m_namesrvPort) + "\nlistenPort=" + QByteArray::number(p)
                + "\ngrpcServerPort=" + QByteArray::number(b.grpcPort)
                + "\nstorePathRootDir=" + store.toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
        });
    if (!started) {
        qWarning().noquote() << b.process->error();
        return false;
    }
    if (!waitForPort(b.grpcPort, 10000)) {
        qWarning().noquote() << b.process->output();
        return false;
    }
    b.client
        = std::make_unique<GrpcTestClient>(b.grpcPort, "grpc-route-client@" + b.name.toStdString());
    return true;
}

void tst_GrpcRoute::createTopic(const Broker &b, const QByteArray &topic, int queues)
{
    const RemotingCommand r = invoke(m_remoting, localAddr(b.port),
        request(17,
            {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(queues)},
                {"writeQueueNums", num(queues)}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}}));
    QCOMPARE(r.code, 0);
}

pb::QueryRouteResponse tst_GrpcRoute::routeWith(Broker &b, const std::string &topic, int count)
{
    pb::QueryRouteResponse resp;
    const QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        pb::QueryRouteRequest req;
        req.mutable_topic()->set_name(topic);
        resp.Clear();
        auto ctx = b.client->context();
        const grpc::Status st = b.client->stub().QueryRoute(ctx.get(), req, &resp);
        if (st.ok() && resp.status().code() == pb::OK && resp.message_queues_size() == count)
            return resp;
        QTest::qWait(200);
    }
    return resp;
}

void tst_GrpcRoute::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char *p : {"qrocket-broker", "qrocket-namesrv"})
        if (!QFile::exists(QDir(binDir()).filePath(QString::fromLatin1(p))))
            QSKIP("daemons not built");
    m_namesrvPort = startNamesrv(m_namesrv, m_dir.path());
    QVERIFY2(m_namesrvPort != 0, qPrintable(m_namesrv.error()));
    QVERIFY(start(m_a));
    QVERIFY(start(m_b));
    createTopic(m_a, kTopic, 4);
    createTopic(m_b, kTopic, 4);
    createTopic(m_b, kTopicOnB, 2);
}

void tst_GrpcRoute::cleanupTestCase()
{
    for (Broker *b : {&m_a, &m_b})
        if (b->process)
            QCOMPARE(b->process->stop(), 0);
    m_namesrv.stop();
}

void tst_GrpcRoute::nameServerRouteCarriesGrpcPorts()
{
    // GET_ROUTEINFO_BY_TOPIC, decoded by clientlib's TopicRouteData: both brokers, each with the
    // gRPC port it registered under its master id.
    std::optional<protocol::TopicRouteData> route;
    const QDeadlineTimer deadline(20000);
    while (!deadline.hasExpired()) {
        const RemotingCommand r
            = invoke(m_remoting, localAddr(m_namesrvPort), request(105, {{"topic", kTopic}}), 5000);
        if (r.code == 0) {
            auto decoded = protocol::TopicRouteData::fromJson(r.body);
            QVERIFY2(decoded.has_value(), r.body.constData());
            if (decoded->brokerDatas.size() == 2) {
                route = std::move(decoded).value();
                break;
            }
        }
        QTest::qWait(200);
    }
    QVERIFY(route.has_value());
    std::map<QByteArray, std::map<std::int64_t, int>> ports;
    for (const protocol::BrokerData &bd : route->brokerDatas)
        ports[bd.brokerName] = bd.grpcPorts;
    QCOMPARE(ports[m_a.name], (std::map<std::int64_t, int> {{0, m_a.grpcPort}}));
    QCOMPARE(ports[m_b.name], (std::map<std::int64_t, int> {{0, m_b.grpcPort}}));
    QCOMPARE(route->queueDatas.size(), std::size_t(2));
}

void tst_GrpcRoute::queryRouteListsBothBrokers()
{
    for (Broker *asked : {&m_a, &m_b}) {
        const pb::QueryRouteResponse resp = routeWith(*asked, kTopic, 8);
        QCOMPARE(resp.status().code(), pb::OK);
        QCOMPARE(resp.message_queues_size(), 8);
        std::map<std::string, std::set<int>> ids;
        for (const pb::MessageQueue &q : resp.message_queues()) {
            QCOMPARE(q.topic().name(), std::string(kTopic));
            QCOMPARE(q.permission(), pb::READ_WRITE);
            QCOMPARE(q.broker().id(), 0);
            QCOMPARE(q.broker().endpoints().scheme(), pb::IPv4);
            QCOMPARE(q.broker().endpoints().addresses_size(), 1);
            ids[where(q)].insert(q.id());
        }
        const std::set<int> four {0, 1, 2, 3};
        QCOMPARE(ids.size(), std::size_t(2));
        QCOMPARE(ids[endpointOf(m_a)], four);
        QCOMPARE(ids[endpointOf(m_b)], four);
    }
}

void tst_GrpcRoute::queryRouteOfATopicOnTheOtherBroker()
{
    // Broker A does not hold GRB: its route comes from the name server, B's queues only.
    const pb::QueryRouteResponse resp = routeWith(m_a, kTopicOnB, 2);
    QCOMPARE(resp.status().code(), pb::OK);
    QCOMPARE(resp.message_queues_size(), 2);
    for (const pb::MessageQueue &q : resp.message_queues())
        QCOMPARE(where(q), endpointOf(m_b));
    // A topic no broker holds.
    pb::QueryRouteRequest req;
    req.mutable_topic()->set_name("GR-nowhere");
    pb::QueryRouteResponse none;
    auto ctx = m_a.client->context();
    QVERIFY(m_a.client->stub().QueryRoute(ctx.get(), req, &none).ok());
    QCOMPARE(none.status().code(), pb::TOPIC_NOT_FOUND);
}

void tst_GrpcRoute::queryAssignmentNamesBothBrokers()
{
    pb::QueryAssignmentRequest req;
    req.mutable_topic()->set_name(kTopic);
    req.mutable_group()->set_name(kGroup);
    pb::QueryAssignmentResponse resp;
    auto ctx = m_b.client->context();
    QVERIFY(m_b.client->stub().QueryAssignment(ctx.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::OK);
    std::set<std::string> brokers;
    for (const pb::Assignment &a : resp.assignments()) {
        QCOMPARE(a.message_queue().id(), -1);
        QCOMPARE(a.message_queue().permission(), pb::READ_WRITE);
        brokers.insert(where(a.message_queue()));
    }
    QCOMPARE(brokers, (std::set<std::string> {endpointOf(m_a), endpointOf(m_b)}));
}

void tst_GrpcRoute::simpleConsumerReceivesFromBoth()
{
    // The group's POP offsets start before anything is sent (a new group in memory reads from 0).
    for (Broker *b : {&m_a, &m_b})
        QCOMPARE(b->client->receive(kGroup, kTopic, 32, 30000, 0).code, pb::MESSAGE_NOT_FOUND);
    // A producer sends to each broker through the endpoint the route names for it.
    const pb::QueryRouteResponse route = routeWith(m_a, kTopic, 8);
    QCOMPARE(route.message_queues_size(), 8);
    std::map<std::string, GrpcTestClient *> byEndpoint {
        {endpointOf(m_a), m_a.client.get()}, {endpointOf(m_b), m_b.client.get()}};
    std::set<std::string> sent;
    for (int i = 0; i < 10; ++i) {
        const pb::MessageQueue &q = route.message_queues(i % 8);
        GrpcTestClient *c = byEndpoint.at(where(q));
        const std::string body = q.broker().name() + "-" + std::to_string(i);
        const pb::SendMessageResponse r
            = c->send({GrpcTestClient::message(kTopic, "ID-R-" + std::to_string(i), body)});
        QCOMPARE(r.status().code(), pb::OK);
        sent.insert(body);
    }
    // The consumer asks one broker for its assignments and receives from every one of them.
    pb::QueryAssignmentRequest req;
    req.mutable_topic()->set_name(kTopic);
    req.mutable_group()->set_name(kGroup);
    pb::QueryAssignmentResponse assignments;
    auto ctx = m_a.client->context();
    QVERIFY(m_a.client->stub().QueryAssignment(ctx.get(), req, &assignments).ok());
    QCOMPARE(assignments.assignments_size(), 2);
    std::set<std::string> received;
    std::set<std::string> fromBrokers;
    const QDeadlineTimer deadline(30000);
    while (received.size() < sent.size() && !deadline.hasExpired()) {
        for (const pb::Assignment &a : assignments.assignments()) {
            GrpcTestClient *c = byEndpoint.at(where(a.message_queue()));
            const Received r = c->receive(kGroup, kTopic, 32, 30000, 1000);
            for (const pb::Message &m : r.messages) {
                received.insert(m.body());
                fromBrokers.insert(a.message_queue().broker().name());
                QCOMPARE(c->ack(kGroup, kTopic, m.system_properties().message_id(),
                              m.system_properties().receipt_handle())
                             .status()
                             .code(),
                    pb::OK);
            }
        }
    }
    QCOMPARE(received, sent);
    QCOMPARE(fromBrokers, (std::set<std::string> {"broker-ra", "broker-rb"}));
}

void tst_GrpcRoute::withoutNameServerTheLocalRoute()
{
    QCOMPARE(m_namesrv.stop(), 0);
    // The name server refuses connections now: each broker answers its own queues.
    for (Broker *asked : {&m_a, &m_b}) {
        const pb::QueryRouteResponse resp = routeWith(*asked, kTopic, 4);
        QCOMPARE(resp.status().code(), pb::OK);
        QCOMPARE(resp.message_queues_size(), 4);
        for (const pb::MessageQueue &q : resp.message_queues())
            QCOMPARE(where(q), endpointOf(*asked));
    }
    // A topic only the other broker held is unknown to this one.
    pb::QueryRouteRequest req;
    req.mutable_topic()->set_name(kTopicOnB);
    pb::QueryRouteResponse resp;
    auto ctx = m_a.client->context();
    QVERIFY(m_a.client->stub().QueryRoute(ctx.get(), req, &resp).ok());
    QCOMPARE(resp.status().code(), pb::TOPIC_NOT_FOUND);
}

QTEST_GUILESS_MAIN(tst_GrpcRoute)
#include "tst_grpcroute.moc"
