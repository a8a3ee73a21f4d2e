// explainGroup through the client Admin with a real consumer (issue 29, "Explain"): the broker
// names each live member; the Admin asks each one's running info and reports a consumer that
// stopped pulling because it holds more messages than pullThresholdForQueue (its listener is
// stuck), naming the setting, the cached count and the client id. Real qrocket-namesrv and
// qrocket-broker processes, a QRocket PushConsumer in the test.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;
using protocol::ExplainBody;
using protocol::ExplainFinding;

class tst_ExplainConsumer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void stuckListenerIsClientFlowControl();

private:
    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    quint16 m_nsPort = 0;
    quint16 m_brokerPort = 0;
    remoting::RemotingClient m_client;
};

void tst_ExplainConsumer::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_nsPort = startNamesrv(m_namesrv, m_dir.path());
    QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv.error()));
    QVERIFY2(startOnFreePort(m_broker, QDir(m_dir.path()).filePath(QStringLiteral("broker.conf")),
                 m_brokerPort,
                 [&](quint16 port) {
                     return "brokerName=broker-explain-consumer\nbrokerIP1=127.0.0.1\nbrokerIP2="
                            "127.0.0.1\nlistenPort="
                         + QByteArray::number(port) + "\nnamesrvAddr=" + localAddr(m_nsPort)
                         + "\nstorePathRootDir="
                         + QDir(m_dir.path()).filePath(QStringLiteral("store")).toUtf8()
                         + "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n";
                 }),
        qPrintable(m_broker.error()));
}

void tst_ExplainConsumer::cleanupTestCase()
{
    m_client.shutdown();
    for (DaemonProcess *daemon : {&m_broker, &m_namesrv}) {
        if (!daemon->isRunning())
            continue;
        const QByteArray out = daemon->output();
        QCOMPARE(daemon->stop(), 0);
        for (const char *bad : {"AddressSanitizer", "runtime error:", "ThreadSanitizer"})
            QVERIFY2(!out.contains(bad), out.right(4000).constData());
    }
}

void tst_ExplainConsumer::stuckListenerIsClientFlowControl()
{
    const QByteArray addr = localAddr(m_brokerPort);
    RemotingCommand r = invoke(m_client, addr,
        request(17,
            {{"topic", "ExFlow"}, {"defaultTopic", "TBW102"}, {"readQueueNums", "1"},
                {"writeQueueNums", "1"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}}));
    QVERIFY2(r.code == 0, r.remark.constData());
    constexpr int kMessages = 12;
    for (int i = 0; i < kMessages; ++i) {
        const QByteArray body = "flow-" + num(i);
        r = invoke(
            m_client, addr, sendV2("ExFlow", 0, body, props({{"UNIQ_KEY", body.constData()}})));
        QVERIFY2(r.code == 0, r.remark.constData());
    }

    // One consume thread whose listener holds the first message: the rest stay cached, over a
    // pullThresholdForQueue of 2.
    std::atomic<bool> release {false};
    std::atomic<int> entered {0};
    client::PushConsumerOptions o;
    o.group = "g-flow";
    o.client.namesrvAddr = localAddr(m_nsPort);
    o.consumeFromWhere = protocol::ConsumeFromWhere::ConsumeFromFirstOffset;
    o.consumeThreadMin = 1;
    o.consumeThreadMax = 1;
    o.pullThresholdForQueue = 2;
    client::PushConsumer consumer(o);
    QVERIFY(consumer.subscribe("ExFlow").isOk());
    consumer.registerMessageListener(
        [&](const std::vector<client::MessageExt> &, client::ConsumeConcurrentlyContext &) {
            entered.fetch_add(1);
            QElapsedTimer held; // bounded: never longer than the test
            held.start();
            while (!release.load() && held.elapsed() < 60000)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start().isOk());
    QTRY_VERIFY_WITH_TIMEOUT(entered.load() >= 1, 20000);

    client::AdminOptions ao;
    ao.client.namesrvAddr = localAddr(m_nsPort);
    client::Admin admin(ao);
    QVERIFY(admin.start().isOk());
    const auto ask = [&]() -> ExplainBody {
        Result<ExplainBody> b = admin.explainGroup(addr, "g-flow", "ExFlow", 8000);
        if (!b) {
            qWarning("explainGroup: %s", qPrintable(b.error().toString()));
            return {};
        }
        return *b;
    };
    QTRY_VERIFY_WITH_TIMEOUT(ask().find("clientFlowControl"), 20000);
    const ExplainBody b = ask();
    const ExplainFinding *member = b.find("member");
    QVERIFY2(member, b.toJson().constData());
    QCOMPARE(member->client, consumer.clientId());
    QCOMPARE(member->setting, QByteArray("lastHeartbeatAgeMillis"));
    const ExplainFinding *flow = b.find("clientFlowControl");
    QCOMPARE(flow->verdict, QByteArray("warning"));
    QCOMPARE(flow->subject, QByteArray("ExFlow:0"));
    QCOMPARE(flow->setting, QByteArray("pullThresholdForQueue"));
    QCOMPARE(flow->client, consumer.clientId());
    QVERIFY2(flow->value.endsWith(" cached > 2"), flow->value.constData());
    QVERIFY2(flow->value.split(' ').first().toInt() > 2, flow->value.constData());
    QVERIFY(!b.find("noLiveConsumer"));

    // Released: the listener drains the cache and the finding goes.
    release.store(true);
    QTRY_VERIFY_WITH_TIMEOUT(ask().find("clientNoFlowControl"), 20000);
    QVERIFY(!ask().find("clientFlowControl"));
    consumer.shutdown();
    admin.shutdown();
}

QTEST_GUILESS_MAIN(tst_ExplainConsumer)
#include "tst_explainconsumer.moc"
