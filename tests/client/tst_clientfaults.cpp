// The client against faults, with real processes where it matters: a broker SIGKILLed while a
// producer sends (sends keep succeeding on the other broker within the retry budget), a dead
// first name server, a "broker" that answers garbage, closes mid-frame, answers a pull with a
// corrupt body or never answers: a clear error in bounded time, never a hang or a crash.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/adminheaders.h"
#include "clientlib/protocol/requestcode.h"
#include "clienttestutil.h"
#include "loopbacklistener.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <future>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;
using qrocket::testlib::DaemonProcess;

namespace {

/// A TCP "broker" on 127.0.0.1 that reads one request and misbehaves in the chosen way.
class FakeBroker
{
public:
    enum class Mode { Garbage, HalfFrameThenClose, CorruptPullBody, Silent };

    explicit FakeBroker(Mode mode) : m_mode(mode)
    {
        m_listen = listenOnLoopback(m_port, 4);
        m_thread = std::thread([this] { serve(); });
    }
    ~FakeBroker()
    {
        m_stop = true;
        ::shutdown(m_listen, SHUT_RDWR);
        ::close(m_listen);
        m_thread.join();
    }
    QByteArray address() const { return "127.0.0.1:" + QByteArray::number(m_port); }

private:
    void serve()
    {
        while (!m_stop) {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                return;
            QByteArray in;
            protocol::RemotingCommand request;
            char buf[4096];
            for (;;) {
                const auto n = ::read(fd, buf, sizeof buf);
                if (n <= 0)
                    break;
                in.append(buf, n);
                if (protocol::decodeFrame(in, request).status == protocol::DecodeStatus::Ok)
                    break;
            }
            answer(fd, request);
            if (m_mode == Mode::Silent) {
                // Hold the connection open and say nothing until the test ends.
                while (!m_stop && ::read(fd, buf, sizeof buf) > 0) { }
            }
            ::close(fd);
        }
    }
    void answer(int fd, const protocol::RemotingCommand &request)
    {
        QByteArray out;
        switch (m_mode) {
        case Mode::Garbage:
            out = QByteArray(64, char(0xFF));
            break;
        case Mode::HalfFrameThenClose: {
            const QByteArray frame
                = protocol::encodeFrame(protocol::RemotingCommand::createResponse(request, 0));
            out = frame.left(frame.size() / 2);
            break;
        }
        case Mode::CorruptPullBody: {
            protocol::RemotingCommand r = protocol::RemotingCommand::createResponse(request, 0);
            r.setExt("suggestWhichBrokerId", std::int64_t(0));
            r.setExt("nextBeginOffset", std::int64_t(1));
            r.setExt("minOffset", std::int64_t(0));
            r.setExt("maxOffset", std::int64_t(1));
            r.body = QByteArray("\x00\x00\x00\x40not a stored message at all, just bytes", 44);
            out = protocol::encodeFrame(r);
            break;
        }
        case Mode::Silent:
            return;
        }
        (void)::write(fd, out.constData(), static_cast<size_t>(out.size()));
    }

    Mode m_mode;
    int m_listen = -1;
    quint16 m_port = 0;
    std::atomic<bool> m_stop {false};
    std::thread m_thread;
};

} // namespace

class tst_ClientFaults : public QObject
{
    Q_OBJECT

private slots:
    void sendsSurviveABrokerKilled();
    void deadFirstNameServerIsSkipped();
    void misbehavingBrokerGivesAClearError_data();
    void misbehavingBrokerGivesAClearError();
    void consumerListSkipsADeadBroker();
};

void tst_ClientFaults::sendsSurviveABrokerKilled()
{
    QTemporaryDir dir;
    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = testlib::startNamesrv(namesrv, dir.path());
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error()));
    const QByteArray nsAddr = "127.0.0.1:" + QByteArray::number(nsPort);
    DaemonProcess brokers[2] {DaemonProcess(QStringLiteral("qrocket-broker")),
        DaemonProcess(QStringLiteral("qrocket-broker"))};
    quint16 brokerPorts[2] {0, 0};
    for (int i = 0; i < 2; ++i) {
        quint16 &port = brokerPorts[i];
        const QString store = dir.filePath(QStringLiteral("broker-%1").arg(i));
        const QByteArray name = "broker-" + QByteArray::number(i);
        QVERIFY2(
            testlib::startOnFreePort(brokers[i], dir.filePath(QStringLiteral("b%1.conf").arg(i)),
                port,
                [&](quint16 p) {
                    return "brokerName=" + name + "\nbrokerIP1=127.0.0.1\nnamesrvAddr=" + nsAddr
                        + "\nlistenPort=" + QByteArray::number(p)
                        + "\nstorePathRootDir=" + store.toUtf8()
                        + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n"
                          "autoCreateTopicEnable=true\n";
                }),
            qPrintable(brokers[i].error()));
    }
    ProducerOptions o;
    o.group = "tst_faults_producer";
    o.client.namesrvAddr = nsAddr;
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = "faults";
    Producer producer(o);
    QVERIFY(producer.start().isOk());
    // The topic on both brokers (UPDATE_AND_CREATE_TOPIC to each), then its route.
    auto instance = ClientInstance::acquire(o.client);
    for (int i = 0; i < 2; ++i) {
        const QByteArray addr = "127.0.0.1:" + QByteArray::number(brokerPorts[i]);
        protocol::CreateTopicRequestHeader h;
        h.topic = "FaultTopic";
        h.defaultTopic = "TBW102";
        h.readQueueNums = h.writeQueueNums = 4;
        h.perm = 6;
        h.topicFilterType = "SINGLE_TAG";
        QVERIFY_OK(ClientApi::expectSuccess(instance->api().invokeSync(addr,
            instance->api().request(
                protocol::toInt(protocol::RequestCode::UpdateAndCreateTopic), h),
            3000)));
    }
    QVERIFY(waitFor(
        [&] {
            auto route = instance->refreshTopicRoute("FaultTopic");
            return route && route->brokerDatas.size() == 2;
        },
        20000));
    int ok = 0;
    int failed = 0;
    QByteArray firstError;
    QElapsedTimer t;
    t.start();
    bool killed = false;
    std::set<QByteArray> afterKill;
    while (t.elapsed() < 4000) {
        if (!killed && t.elapsed() > 1000) {
            brokers[1].kill();
            killed = true;
        }
        auto r = producer.sendSync(Message("FaultTopic", "m" + QByteArray::number(ok + failed)));
        if (r && r->status == SendStatus::SendOk) {
            ++ok;
            if (killed)
                afterKill.insert(r->messageQueue.brokerName);
        } else {
            ++failed;
            if (firstError.isEmpty())
                firstError
                    = r ? QByteArray(sendStatusName(r->status)) : r.error().message().toUtf8();
        }
    }
    qInfo("with broker-1 SIGKILLed after 1 s: %d sends OK, %d failed (%s)", ok, failed,
        firstError.constData());
    QCOMPARE(failed, 0);
    QVERIFY(ok > 50);
    QCOMPARE(afterKill, (std::set<QByteArray> {"broker-0"}));
    producer.shutdown();
    brokers[0].stop();
    namesrv.stop();
}

void tst_ClientFaults::deadFirstNameServerIsSkipped()
{
    auto cluster = startCluster(1);
    QVERIFY(cluster);
    QVERIFY(cluster->createTopic(QStringLiteral("NsFailover"), 1).isOk());
    QVERIFY(cluster->waitForRoute(QStringLiteral("NsFailover")).isOk());
    const quint16 dead = testlib::freePort();
    ProducerOptions o;
    o.group = "tst_ns_failover";
    o.client.namesrvAddr
        = "127.0.0.1:" + QByteArray::number(dead) + ";" + cluster->namesrvAddress().toUtf8();
    o.client.clientIP = "127.0.0.1";
    o.client.instanceName = "nsfailover";
    Producer producer(o);
    QVERIFY(producer.start().isOk());
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 5; ++i)
        QVERIFY_OK(producer.sendSync(Message("NsFailover", "x")));
    QVERIFY(t.elapsed() < 5000);
}

void tst_ClientFaults::misbehavingBrokerGivesAClearError_data()
{
    QTest::addColumn<int>("mode");
    QTest::addRow("garbage") << int(FakeBroker::Mode::Garbage);
    QTest::addRow("half frame then close") << int(FakeBroker::Mode::HalfFrameThenClose);
    QTest::addRow("corrupt pull body") << int(FakeBroker::Mode::CorruptPullBody);
    QTest::addRow("never answers") << int(FakeBroker::Mode::Silent);
}

void tst_ClientFaults::misbehavingBrokerGivesAClearError()
{
    QFETCH(int, mode);
    FakeBroker fake(static_cast<FakeBroker::Mode>(mode));
    ClientConfig config;
    config.namesrvAddr = "127.0.0.1:1";
    config.instanceName = "fake" + QByteArray::number(mode);
    auto instance = ClientInstance::acquire(config);
    protocol::PullMessageRequestHeader h;
    h.consumerGroup = "g";
    h.topic = "T";
    h.maxMsgNums = 32;
    h.sysFlag = protocol::PullSysFlag::Subscription;
    h.subscription = "*";
    std::promise<Result<PullResult>> done;
    auto f = done.get_future();
    QElapsedTimer t;
    t.start();
    instance->api().pullMessageAsync(fake.address(), "fake", h, 1500,
        [&done](Result<PullResult> r) { done.set_value(std::move(r)); });
    QVERIFY(f.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
    const Result<PullResult> r = f.get();
    QVERIFY(!r);
    qInfo(
        "%s after %lld ms", qPrintable(r.error().toString()), static_cast<long long>(t.elapsed()));
    QVERIFY(t.elapsed() < 3000);
    // The instance is still fine: a blocking call to the same address fails the same way.
    auto again = instance->api().invokeSync(fake.address(),
        instance->api().request(protocol::toInt(protocol::RequestCode::HeartBeat)), 1000);
    if (mode != int(FakeBroker::Mode::CorruptPullBody))
        QVERIFY(!again);
}

void tst_ClientFaults::consumerListSkipsADeadBroker()
{
    // A rebalance asks a broker of the topic for the group's members. When the first broker of
    // the cached route has just gone away (its route entry lives until the next route poll), the
    // next one answers instead: the rebalance is not skipped, so the dead broker's queues are not
    // kept by everybody until the next 20 s rebalance.
    auto cluster = startCluster(2);
    QVERIFY(cluster);
    QVERIFY(cluster->createTopic(QStringLiteral("ListT"), 4));
    QVERIFY(cluster->waitForRoute(QStringLiteral("ListT")));
    PushConsumerOptions co;
    co.group = "list_group";
    co.client = clientConfig(*cluster, "member");
    PushConsumer member(co);
    QVERIFY(member.subscribe("ListT", "*"));
    member.registerMessageListener(
        [](const std::vector<MessageExt> &, ConsumeConcurrentlyContext &) {
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(member.start());

    ClientConfig config = clientConfig(*cluster, "asker");
    config.pollNameServerInterval = 600000; // keeps the route it has for the whole test
    auto asker = ClientInstance::acquire(config);
    QVERIFY(waitFor(
        [&] {
            auto ids = asker->consumerIdList("ListT", "list_group");
            return ids && ids->size() == 1;
        },
        10000));
    const std::vector<QByteArray> addresses = asker->brokerAddressesOf("ListT");
    QCOMPARE(addresses.size(), std::size_t(2));
    int first = -1;
    for (int i = 0; i < cluster->brokerCount(); ++i) {
        if (cluster->brokerAddress(i).toUtf8() == addresses.front())
            first = i;
    }
    QVERIFY(first >= 0);
    QVERIFY(cluster->stopBroker(first));

    QElapsedTimer t;
    t.start();
    auto ids = asker->consumerIdList("ListT", "list_group");
    QVERIFY2(ids, ids ? "" : qPrintable(errorText(ids.error())));
    QCOMPARE(ids->size(), std::size_t(1));
    QCOMPARE(ids->front(), member.clientId());
    qInfo("members from the second broker in %lld ms", static_cast<long long>(t.elapsed()));
    QVERIFY(t.elapsed() < 3000);
    member.shutdown();
}

QTEST_GUILESS_MAIN(tst_ClientFaults)
#include "tst_clientfaults.moc"
