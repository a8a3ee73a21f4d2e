// QRocket's client writes the frames Apache RocketMQ 4.9.7's Java client writes: the same
// request codes with the same extFields keys, and a heartbeat body of the same shape. A
// recording server (name server and broker on one port) answers what the client needs and
// keeps every request; they are compared with the Java client's frames captured in
// tests/data/vectors/frames.jsonl (producer, consumer and retry scenarios).

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/threads.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/json.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/requestcode.h"
#include "clienttestutil.h"
#include "loopbacklistener.h"
#include "tests/unit/protocol/goldenvectors.h"

#include <QTest>

#include <arpa/inet.h>
#include <map>
#include <mutex>
#include <netinet/in.h>
#include <set>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;
using protocol::RemotingCommand;

namespace {

/// Name server and broker on one port: answers routes, sends, pulls (one message, then none),
/// offsets and heartbeats; records every request it gets.
class RecordingServer
{
public:
    RecordingServer()
    {
        m_listen = listenOnLoopback(m_port, 8);
        m_thread = std::thread([this] { acceptLoop(); });
    }
    ~RecordingServer()
    {
        m_stop = true;
        ::shutdown(m_listen, SHUT_RDWR);
        ::close(m_listen);
        m_thread.join();
        for (std::thread &t : m_connections)
            t.join();
    }
    QByteArray address() const { return "127.0.0.1:" + QByteArray::number(m_port); }
    std::vector<RemotingCommand> requests(int code)
    {
        std::lock_guard lock(m_mutex);
        std::vector<RemotingCommand> out;
        for (const RemotingCommand &c : m_requests) {
            if (c.code == code)
                out.push_back(c);
        }
        return out;
    }
    std::vector<RemotingCommand> all()
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

private:
    void acceptLoop()
    {
        for (;;) {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                return;
            m_fds.push_back(fd);
            m_connections.emplace_back([this, fd] { serve(fd); });
        }
    }
    void serve(int fd)
    {
        QByteArray in;
        char buf[65536];
        while (!m_stop) {
            timeval tv {0, 100000};
            ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            const auto n = ::read(fd, buf, sizeof buf);
            if (n == 0)
                break;
            if (n < 0)
                continue;
            in.append(buf, n);
            for (;;) {
                RemotingCommand cmd;
                const auto r = protocol::decodeFrame(in, cmd);
                if (r.status != protocol::DecodeStatus::Ok)
                    break;
                in.remove(0, r.consumed);
                {
                    std::lock_guard lock(m_mutex);
                    m_requests.push_back(cmd);
                }
                if (cmd.isOneway())
                    continue;
                const QByteArray out = protocol::encodeFrame(answer(cmd));
                (void)::write(fd, out.constData(), static_cast<size_t>(out.size()));
            }
        }
        ::close(fd);
    }
    RemotingCommand answer(const RemotingCommand &req)
    {
        RemotingCommand r = RemotingCommand::createResponse(req, 0);
        switch (static_cast<protocol::RequestCode>(req.code)) {
        case protocol::RequestCode::GetRouteInfoByTopic:
            r.body = "{\"brokerDatas\":[{\"brokerAddrs\":{\"0\":\"" + address()
                + "\"},\"brokerName\":\"rec-broker\",\"cluster\":\"C\"}],\"filterServerTable\":{},"
                  "\"queueDatas\":[{\"brokerName\":\"rec-broker\",\"perm\":6,\"readQueueNums\":1,"
                  "\"topicSysFlag\":0,\"writeQueueNums\":1}]}";
            break;
        case protocol::RequestCode::SendMessageV2:
        case protocol::RequestCode::SendBatchMessage:
            r.setExt("msgId",
                protocol::encodeOffsetMessageId(
                    protocol::HostAddress::ipv4(0x7F000001, m_port), 0));
            r.setExt("queueId", std::int64_t(0));
            r.setExt("queueOffset", std::int64_t(0));
            break;
        case protocol::RequestCode::HeartBeat: {
            auto hb = protocol::HeartbeatData::fromJson(req.body);
            if (hb) {
                std::lock_guard lock(m_mutex);
                m_clientId = hb->clientID;
            }
            break;
        }
        case protocol::RequestCode::GetConsumerListByGroup: {
            std::lock_guard lock(m_mutex);
            r.body = "{\"consumerIdList\":[\"" + m_clientId + "\"]}";
            break;
        }
        case protocol::RequestCode::QueryConsumerOffset:
            r.code = 22; // QUERY_NOT_FOUND
            break;
        case protocol::RequestCode::GetMaxOffset:
        case protocol::RequestCode::GetMinOffset:
            r.setExt("offset", std::int64_t(0));
            break;
        case protocol::RequestCode::PullMessage: {
            r.setExt("suggestWhichBrokerId", std::int64_t(0));
            r.setExt("minOffset", std::int64_t(0));
            r.setExt("maxOffset", std::int64_t(1));
            if (req.extString("topic") == "FramesTopic" && !m_pulledOnce.exchange(true)) {
                protocol::MessageRecordInput m;
                m.topic = "FramesTopic";
                m.bornHost = protocol::HostAddress::ipv4(0x7F000001, 1);
                m.storeHost = protocol::HostAddress::ipv4(0x7F000001, m_port);
                m.body = "please retry me";
                r.body = protocol::encodeRecord(m, 0, 0, currentTimeMillis());
                r.setExt("nextBeginOffset", std::int64_t(1));
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(100)); // a short "hold"
                r.code = 19; // PULL_NOT_FOUND
                r.setExt("nextBeginOffset", req.extLong("queueOffset").value_or(0));
            }
            break;
        }
        default:
            break; // SUCCESS: unregister, send back, offsets, locks...
        }
        return r;
    }

    int m_listen = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop {false};
    std::atomic<bool> m_pulledOnce {false};
    std::thread m_thread;
    std::vector<std::thread> m_connections;
    std::vector<int> m_fds;
    std::mutex m_mutex;
    std::vector<RemotingCommand> m_requests;
    QByteArray m_clientId;
};

std::set<QByteArray> extKeys(const RemotingCommand &c)
{
    std::set<QByteArray> keys;
    for (const auto &[k, v] : c.extFields) {
        if (k != "AccessKey" && k != "Signature")
            keys.insert(k);
    }
    return keys;
}

QByteArray join(const std::set<QByteArray> &s)
{
    QByteArray out;
    for (const QByteArray &k : s)
        out += (out.isEmpty() ? "" : ",") + k;
    return out;
}

/// The key structure of a JSON value: "a{b,c[{d}]}"-like, values ignored.
QByteArray shape(const protocol::JsonValue &v)
{
    if (v.isObject()) {
        std::map<QByteArray, QByteArray> members;
        for (const auto &[k, val] : v.members())
            members[k.toString()] = shape(val);
        QByteArray out = "{";
        for (const auto &[k, s] : members)
            out += k + s + ';';
        return out + '}';
    }
    if (v.isArray())
        return v.items().empty() ? QByteArray("[]") : '[' + shape(v.items().front()) + ']';
    return QByteArray();
}

} // namespace

class tst_ClientFrames : public QObject
{
    Q_OBJECT

private slots:
    void framesMatchTheJavaClient();
    void everyRequestPassesTheOneHook();
    void asyncSendsFromSeveralThreads();
};

void tst_ClientFrames::framesMatchTheJavaClient()
{
    QROCKET_REQUIRE_VECTORS();
    // The Java client's keys per code, from its producer, consumer and retry runs.
    std::map<int, std::set<QByteArray>> java;
    QByteArray javaHeartbeatShape;
    for (const testing::GoldenFrame &f : testing::loadGoldenFrames()) {
        if (f.client != QLatin1String("java-4.9.7") || f.kind == QLatin1String("response"))
            continue;
        if (!f.scenario.startsWith(QLatin1String("java-")))
            continue;
        RemotingCommand c;
        protocol::decodeFrame(f.frame, c);
        java[f.code] = extKeys(c);
        if (f.code == 34 && f.scenario == QLatin1String("java-consumer")) {
            auto v = protocol::parseJson(f.body);
            QVERIFY(v);
            javaHeartbeatShape = shape(*v);
        }
    }
    QVERIFY(java.size() >= 9);

    RecordingServer server;
    ClientConfig config;
    config.namesrvAddr = server.address();
    config.clientIP = "127.0.0.1";
    config.instanceName = "frames";
    config.persistConsumerOffsetInterval = 300;
    ProducerOptions po;
    po.group = "frames_producer";
    po.client = config;
    Producer producer(po);
    QVERIFY(producer.start().isOk());
    QVERIFY_OK(producer.sendSync(Message("FramesTopic", "TagA", "key1", "hello")));
    QVERIFY_OK(producer.sendBatch({Message("FramesTopic", "one"), Message("FramesTopic", "two")}));

    PushConsumerOptions co;
    co.group = "frames_consumer";
    co.client = config;
    co.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    PushConsumer consumer(co);
    consumer.subscribe("FramesTopic");
    std::atomic<int> deliveries {0};
    consumer.registerMessageListener(
        [&](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
            ++deliveries;
            return ConsumeConcurrentlyStatus::ReconsumeLater; // -> CONSUMER_SEND_MSG_BACK
        });
    QVERIFY(consumer.start().isOk());
    const bool sawAll = waitFor([&] { return !server.requests(36).empty(); }, 10000);
    if (!sawAll) {
        for (int code : {105, 310, 320, 34, 38, 14, 11, 36, 15, 35, 30, 31})
            qInfo("code %d: %zu requests", code, server.requests(code).size());
        qInfo("deliveries %d", deliveries.load());
    }
    QVERIFY(sawAll);
    consumer.shutdown();
    producer.shutdown();

    int compared = 0;
    for (int code : {105, 310, 320, 34, 38, 14, 11, 36, 15, 35}) {
        const auto ours = server.requests(code);
        QVERIFY2(
            !ours.empty(), qPrintable(QStringLiteral("the client sent no request %1").arg(code)));
        QVERIFY2(java.count(code), qPrintable(QStringLiteral("no Java frame for %1").arg(code)));
        // Our frames of a code all carry the same keys; compare the fullest one.
        std::set<QByteArray> keys;
        for (const RemotingCommand &c : ours) {
            const auto k = extKeys(c);
            if (k.size() > keys.size())
                keys = k;
        }
        std::set<QByteArray> expected = java[code];
        if (code == 35) {
            // UNREGISTER_CLIENT: Java's captured ones come from producers; a consumer's names
            // its consumerGroup instead.
            keys.erase("consumerGroup");
            expected.erase("producerGroup");
            keys.erase("producerGroup");
        }
        QVERIFY2(keys == expected,
            qPrintable(
                QStringLiteral("code %1: ours %2, Java %3")
                    .arg(code)
                    .arg(QString::fromLatin1(join(keys)), QString::fromLatin1(join(expected)))));
        ++compared;
    }
    // The heartbeat body has the Java client's shape (field names, nesting).
    const auto heartbeats = server.requests(34);
    QByteArray ourShape;
    for (const RemotingCommand &h : heartbeats) {
        auto v = protocol::parseJson(h.body);
        QVERIFY(v);
        if ((*v)["consumerDataSet"].isArray() && !(*v)["consumerDataSet"].items().empty())
            ourShape = shape(*v);
    }
    QCOMPARE(ourShape, javaHeartbeatShape);
    qInfo("%d request codes and the heartbeat body match the Java 4.9.7 client", compared);
}

void tst_ClientFrames::everyRequestPassesTheOneHook()
{
    // ClientInstance::outgoingRequestHook is the one place that sees every request a client
    // sends (with credentials it signs them): route lookups, sync / async / oneway / batch
    // sends, heartbeats, unregistrations and Admin calls all carry its fields.
    RecordingServer server;
    ClientConfig config;
    config.namesrvAddr = server.address();
    config.clientIP = "127.0.0.1";
    config.instanceName = "hook";
    config.accessKey = "hookAccessKey";
    config.secretKey = "hookSecretKey";
    ProducerOptions po;
    po.group = "hook_producer";
    po.client = config;
    Producer producer(po);
    QVERIFY(producer.start().isOk());
    QVERIFY_OK(producer.sendSync(Message("HookTopic", "sync")));
    std::atomic<bool> asyncDone {false};
    producer.sendAsync(Message("HookTopic", "async"), [&](Result<SendResult> r) {
        QVERIFY(r.has_value());
        asyncDone = true;
    });
    QVERIFY(waitFor([&] { return asyncDone.load(); }, 10000));
    QVERIFY(producer.sendOneway(Message("HookTopic", "oneway")).isOk());
    QVERIFY_OK(producer.sendBatch({Message("HookTopic", "one"), Message("HookTopic", "two")}));
    QVERIFY(waitFor([&] { return !server.requests(34).empty(); }, 10000)); // a heartbeat
    {
        AdminOptions ao;
        ao.client = config;
        Admin admin(ao);
        QVERIFY(admin.start().isOk());
        QVERIFY_OK(admin.topicRoute("HookTopic"));
        (void)admin.topicStats("HookTopic"); // GET_TOPIC_STATS_INFO at the broker
    }
    producer.shutdown(); // UNREGISTER_CLIENT
    std::set<int> codes;
    for (const RemotingCommand &c : server.all()) {
        codes.insert(c.code);
        QVERIFY2(!c.extString("AccessKey").isEmpty() && !c.extString("Signature").isEmpty(),
            qPrintable(QStringLiteral("request %1 passed no hook").arg(c.code)));
    }
    for (int code : {105, 310, 320, 34, 35, 202})
        QVERIFY2(codes.count(code), qPrintable(QStringLiteral("no request %1").arg(code)));
}

void tst_ClientFrames::asyncSendsFromSeveralThreads()
{
    // With the route cached an async send's request goes out from its caller's thread; the
    // callbacks still run on the producer's pool only, once each, with every send answered, and
    // each request carries its own UNIQ_KEY and a complete V2 header (a TSan target).
    RecordingServer server;
    ProducerOptions po;
    po.group = "async_threads_producer";
    po.client.namesrvAddr = server.address();
    po.client.clientIP = "127.0.0.1";
    po.client.instanceName = "asyncthreads";
    Producer producer(po);
    QVERIFY(producer.start().isOk());
    QVERIFY_OK(producer.sendSync(Message("AsyncTopic", "route"))); // the route, cached
    constexpr int kThreads = 4;
    constexpr int kPerThread = 100;
    std::mutex mutex;
    std::set<std::thread::id> callers;
    std::set<std::thread::id> callbackThreads;
    std::set<QByteArray> msgIds;
    int ok = 0;
    int failed = 0;
    std::vector<std::thread> senders;
    for (int t = 0; t < kThreads; ++t) {
        senders.emplace_back([&] {
            {
                std::lock_guard lock(mutex);
                callers.insert(std::this_thread::get_id());
            }
            for (int i = 0; i < kPerThread; ++i) {
                producer.sendAsync(Message("AsyncTopic", "async"), [&](Result<SendResult> r) {
                    std::lock_guard lock(mutex);
                    callbackThreads.insert(std::this_thread::get_id());
                    if (r && r->status == SendStatus::SendOk) {
                        ++ok;
                        msgIds.insert(r->msgId);
                    } else {
                        ++failed;
                    }
                });
            }
        });
    }
    for (std::thread &t : senders)
        t.join();
    QVERIFY(waitFor(
        [&] {
            std::lock_guard lock(mutex);
            return ok + failed == kThreads * kPerThread;
        },
        10000));
    std::lock_guard lock(mutex);
    QCOMPARE(failed, 0);
    QCOMPARE(ok, kThreads * kPerThread);
    QCOMPARE(static_cast<int>(msgIds.size()), kThreads * kPerThread);
    for (const std::thread::id &id : callbackThreads)
        QVERIFY(!callers.count(id) && id != std::this_thread::get_id());
    int sends = 0;
    for (const RemotingCommand &c : server.requests(310)) {
        QVERIFY(c.extString("b") == "AsyncTopic");
        if (c.body != "async")
            continue;
        ++sends;
        for (const char *key : {"a", "c", "d", "e", "f", "g", "h", "i", "j", "k", "m", "n"})
            QVERIFY2(c.hasExt(QByteArrayView(key, 1)), key);
        QVERIFY(msgIds.count(protocol::findProperty(c.extString("i"), "UNIQ_KEY").toByteArray()));
    }
    QCOMPARE(sends, kThreads * kPerThread);
}

QTEST_GUILESS_MAIN(tst_ClientFrames)
#include "tst_clientframes.moc"
