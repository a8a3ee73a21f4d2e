// LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) over sockets against an in-process BrokerController
// (protocol.md §4.7): the exact frame bytes rocketmq-client-cpp 2.2.0 sends (JSON header and
// body, each with a trailing newline) on a raw QTcpSocket, two clients contending for the same
// queues through RemotingClients (also across the fast port: one lock table), and oneway unlock.

#include "broker/brokercontroller.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <algorithm>

using namespace qrocket;
using namespace qrocket::brokertest;
using protocol::LockBatchRequestBody;
using protocol::LockBatchResponseBody;
using protocol::MessageQueue;

namespace {

// Recorded from rocketmq-client-cpp 2.2.0 (orderly push consumer, group G_ord, topic TO).
const QByteArray kCppHeader = "{\"code\":41,\"extFields\":{\"AccessKey\":\"\",\"OnsChannel\":"
                              "\"ALIYUN\",\"Signature\":\"...\"},\"flag\":0,\"language\":\"CPP\","
                              "\"opaque\":9,\"remark\":\"\",\"version\":333}\n";
const QByteArray kCppBody = "{\"clientId\":\"127.0.0.1@24035#DEFAULT\",\"consumerGroup\":\"G_ord\","
                            "\"mqSet\":[{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":"
                            "\"TO\"}]}\n";

QByteArray rawFrame(const QByteArray &header, const QByteArray &body)
{
    QByteArray frame(8, '\0');
    qToBigEndian<quint32>(static_cast<quint32>(4 + header.size() + body.size()), frame.data());
    qToBigEndian<quint32>(static_cast<quint32>(header.size()), frame.data() + 4); // JSON
    return frame + header + body;
}

QByteArray lockBody(
    const QByteArray &clientId, std::vector<MessageQueue> mqs, const QByteArray &group = "G_ord")
{
    return LockBatchRequestBody {group, clientId, std::move(mqs)}.toJson();
}

MessageQueue mq(int queueId, const char *topic = "TO")
{
    return MessageQueue {topic, "broker-a", queueId};
}

} // namespace

class tst_LockBatch final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void cppClientFrameGetsLockOkSet();
    void twoClientsContend();
    void fastPortSharesTheLockTable();
    void onewayUnlockReleases();
    void malformedBodyIsAnError();

private:
    RemotingCommand call(const QByteArray &addr, RemotingCommand req);
    std::vector<MessageQueue> lock(
        const QByteArray &clientId, std::vector<MessageQueue> mqs, const QByteArray &addr = {});

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_addr;
    QByteArray m_fastAddr;
};

void tst_LockBatch::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // No name server: registration fails, harmless.
    brokertest::startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-a"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_addr = localAddr(m_broker->listenPort());
    m_fastAddr = localAddr(m_broker->fastListenPort());
    m_client = std::make_unique<remoting::RemotingClient>();
}

void tst_LockBatch::cleanupTestCase()
{
    m_client.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_LockBatch::call(const QByteArray &addr, RemotingCommand req)
{
    return invoke(*m_client, addr, std::move(req));
}

std::vector<MessageQueue> tst_LockBatch::lock(
    const QByteArray &clientId, std::vector<MessageQueue> mqs, const QByteArray &addr)
{
    const RemotingCommand r
        = call(addr.isEmpty() ? m_addr : addr, request(41, {}, lockBody(clientId, std::move(mqs))));
    if (r.code != 0) {
        qWarning() << "LOCK_BATCH_MQ answered" << r.code << r.remark;
        return {};
    }
    auto body = LockBatchResponseBody::fromJson(r.body);
    if (!body) {
        qWarning() << "bad LOCK_BATCH_MQ answer" << r.body;
        return {};
    }
    std::vector<MessageQueue> out = body->lockOKMQSet;
    std::sort(out.begin(), out.end());
    return out;
}

void tst_LockBatch::cppClientFrameGetsLockOkSet()
{
    QTcpSocket socket;
    socket.connectToHost(QStringLiteral("127.0.0.1"), m_broker->listenPort());
    QVERIFY(socket.waitForConnected(5000));
    socket.write(rawFrame(kCppHeader, kCppBody));
    QVERIFY(socket.waitForBytesWritten(5000));

    QByteArray in;
    quint32 total = 0;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 5000) {
        if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(500))
            continue;
        in += socket.readAll();
        if (in.size() >= 4)
            total = qFromBigEndian<quint32>(in.constData());
        if (in.size() >= 4 && in.size() >= qsizetype(total) + 4)
            break;
    }
    QVERIFY2(in.size() >= 4 && in.size() == qsizetype(total) + 4, in.constData());
    const quint32 headerWord = qFromBigEndian<quint32>(in.constData() + 4);
    QCOMPARE(headerWord >> 24, 0u); // answered in JSON, as asked
    const qsizetype headerLen = qsizetype(headerWord & 0xFFFFFF);
    const QByteArray header = in.mid(8, headerLen);
    const QByteArray body = in.mid(8 + headerLen);
    QVERIFY2(header.contains("\"code\":0"), header.constData());
    QVERIFY2(header.contains("\"opaque\":9"), header.constData());
    QVERIFY2(header.contains("\"flag\":1"), header.constData()); // response flag
    QCOMPARE(body,
        QByteArray("{\"lockOKMQSet\":[{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":"
                   "\"TO\"}]}"));

    // The same client renews: the same answer; another client is refused the queue.
    QCOMPARE(lock("127.0.0.1@24035#DEFAULT", {mq(0)}), std::vector<MessageQueue> {mq(0)});
    QVERIFY(lock("127.0.0.1@999#DEFAULT", {mq(0)}).empty());
    QCOMPARE(call(m_addr, request(42, {}, lockBody("127.0.0.1@24035#DEFAULT", {mq(0)}))).code, 0);
}

void tst_LockBatch::twoClientsContend()
{
    const std::vector<MessageQueue> all {mq(0), mq(1), mq(2), mq(3)};
    QCOMPARE(lock("A", {mq(0), mq(1)}), (std::vector<MessageQueue> {mq(0), mq(1)}));
    // B wants everything: gets the two free queues only.
    QCOMPARE(lock("B", all), (std::vector<MessageQueue> {mq(2), mq(3)}));
    // A again asks for all: keeps its own, not B's.
    QCOMPARE(lock("A", all), (std::vector<MessageQueue> {mq(0), mq(1)}));

    // B cannot release A's locks.
    QCOMPARE(call(m_addr, request(42, {}, lockBody("B", {mq(0), mq(1)}))).code, 0);
    QVERIFY(lock("B", {mq(0)}).empty());
    // A releases queue 0: B takes it at once.
    const RemotingCommand unlock = call(m_addr, request(42, {}, lockBody("A", {mq(0)})));
    QCOMPARE(unlock.code, 0);
    QVERIFY(unlock.body.isEmpty());
    QCOMPARE(lock("B", all), (std::vector<MessageQueue> {mq(0), mq(2), mq(3)}));
    QCOMPARE(lock("A", all), std::vector<MessageQueue> {mq(1)});

    // Another group is a separate table.
    const RemotingCommand other = call(m_addr, request(41, {}, lockBody("A", all, "G_other")));
    QCOMPARE(other.code, 0);
    QCOMPARE(LockBatchResponseBody::fromJson(other.body)->lockOKMQSet.size(), all.size());

    for (const char *client : {"A", "B"})
        QCOMPARE(call(m_addr, request(42, {}, lockBody(client, all))).code, 0);
    QCOMPARE(call(m_addr, request(42, {}, lockBody("A", all, "G_other"))).code, 0);
}

void tst_LockBatch::fastPortSharesTheLockTable()
{
    QCOMPARE(lock("A", {mq(5)}), std::vector<MessageQueue> {mq(5)});
    QVERIFY(lock("B", {mq(5)}, m_fastAddr).empty());
    QCOMPARE(lock("A", {mq(5)}, m_fastAddr), std::vector<MessageQueue> {mq(5)});
    QCOMPARE(call(m_fastAddr, request(42, {}, lockBody("A", {mq(5)}))).code, 0);
    QCOMPARE(lock("B", {mq(5)}), std::vector<MessageQueue> {mq(5)});
    QCOMPARE(call(m_addr, request(42, {}, lockBody("B", {mq(5)}))).code, 0);
}

void tst_LockBatch::onewayUnlockReleases()
{
    QCOMPARE(lock("A", {mq(6)}), std::vector<MessageQueue> {mq(6)});
    RemotingCommand unlock = request(42, {}, lockBody("A", {mq(6)}));
    m_client->invokeOneway(m_addr, std::move(unlock));
    // Bounded wait for the oneway request to be processed: B gets the queue.
    QTRY_COMPARE_WITH_TIMEOUT(lock("B", {mq(6)}), std::vector<MessageQueue> {mq(6)}, 5000);
    QCOMPARE(call(m_addr, request(42, {}, lockBody("B", {mq(6)}))).code, 0);
}

void tst_LockBatch::malformedBodyIsAnError()
{
    for (int code : {41, 42}) {
        for (const QByteArray &body :
            {QByteArray(), QByteArray("{"), QByteArray("{\"clientId\":\"A\",\"mqSet\":[]}")}) {
            const RemotingCommand r = call(m_addr, request(code, {}, body));
            QCOMPARE(r.code, 1);
            QVERIFY(!r.remark.isEmpty());
        }
    }
    // The connection still works afterwards.
    QCOMPARE(lock("A", {mq(7)}), std::vector<MessageQueue> {mq(7)});
}

QTEST_GUILESS_MAIN(tst_LockBatch)
#include "tst_lockbatch.moc"
