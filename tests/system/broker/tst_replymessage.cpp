// SEND_REPLY_MESSAGE (324) / SEND_REPLY_MESSAGE_V2 (325) over sockets against an in-process
// BrokerController, as RocketMQ 4.9's ReplyMessageProcessor: a requester registered by a
// producer heartbeat receives PUSH_REPLY_MESSAGE_TO_CLIENT (326) with the reply header and body;
// the replier's answer and the stored copy in DefaultCluster_REPLY_TOPIC; requester unknown,
// REPLY_TO_CLIENT missing, requester answering an error, storeReplyMessageEnable=false.

#include "broker/brokercontroller.h"
#include "broker/common/brokercontext.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

const QByteArray kReplyTopic = "DefaultCluster_REPLY_TOPIC";
const QByteArray kRequesterId = "127.0.0.1@requester";

/// The requester's side: records every PUSH_REPLY_MESSAGE_TO_CLIENT and answers `answerCode`.
class PushRecorder final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder respond) override
    {
        {
            std::lock_guard lock(m_mutex);
            m_pushes.push_back(request);
        }
        respond(RemotingCommand::createResponse(request, answerCode.load()));
    }

    std::vector<RemotingCommand> pushes() const
    {
        std::lock_guard lock(m_mutex);
        return m_pushes;
    }
    std::size_t count() const { return pushes().size(); }

    std::atomic<int> answerCode {0};

private:
    mutable std::mutex m_mutex;
    std::vector<RemotingCommand> m_pushes;
};

QByteArray replyProps(const QByteArray &replyTo, const QByteArray &correlationId)
{
    QByteArray p = "MSG_TYPE\x01reply\x02"
                   "CORRELATION_ID\x01"
        + correlationId
        + "\x02TTL\x01"
          "3000";
    if (!replyTo.isNull())
        p += "\x02REPLY_TO_CLIENT\x01" + replyTo;
    return p;
}

QByteArray ext(const RemotingCommand &c, const char *key)
{
    return c.extString(key).toByteArray();
}

RemotingCommand replyV2(const QByteArray &properties, const QByteArray &body, int queueId = 0)
{
    return request(325,
        {{"a", "PG_replier"}, {"b", kReplyTopic}, {"c", "TBW102"}, {"d", "4"}, {"e", num(queueId)},
            {"f", "0"}, {"g", num(1700000000123)}, {"h", "7"}, {"i", properties}, {"j", "0"},
            {"k", "false"}},
        body);
}

} // namespace

class tst_ReplyMessage final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void replyIsPushedAndStored();
    void v1HeaderIsAccepted();
    void unknownRequesterIsSystemErrorButStored();
    void missingReplyToClient();
    void requesterAnsweringErrorFails();
    void storeDisabledAnswersZeroMsgId();
    void malformedHeaderIsSystemError();

private:
    RemotingCommand call(RemotingCommand req);
    std::int64_t maxOffset();

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_replier;
    std::unique_ptr<remoting::RemotingClient> m_requester;
    std::shared_ptr<PushRecorder> m_pushes;
    QByteArray m_addr;
};

void tst_ReplyMessage::initTestCase()
{
    QVERIFY(m_dir.isValid());
    brokertest::startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-a"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_addr = localAddr(m_broker->listenPort());
    m_replier = std::make_unique<remoting::RemotingClient>();
    m_requester = std::make_unique<remoting::RemotingClient>();
    m_pushes = std::make_shared<PushRecorder>();
    m_requester->registerProcessor(326, m_pushes);

    // The requester registers its client id through a producer heartbeat.
    protocol::HeartbeatData hb;
    hb.clientID = kRequesterId;
    hb.producerDataSet.push_back({"PG_requester"});
    auto r = m_requester->invokeSync(m_addr, request(34, {}, hb.toJson()), 5000);
    QVERIFY(r.has_value());
    QCOMPARE(r.value().code, 0);
}

void tst_ReplyMessage::cleanupTestCase()
{
    m_replier.reset();
    m_requester.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_ReplyMessage::call(RemotingCommand req)
{
    return invoke(*m_replier, m_addr, std::move(req), 15000);
}

std::int64_t tst_ReplyMessage::maxOffset()
{
    // Consume queues are built behind the commit log: wait for what was stored so far.
    if (!m_broker->context().store->waitForDispatch(5000))
        return -1;
    const RemotingCommand r = call(request(30, {{"topic", kReplyTopic}, {"queueId", "0"}}));
    return r.code == 0 ? ext(r, "offset").toLongLong() : -1;
}

void tst_ReplyMessage::replyIsPushedAndStored()
{
    const std::int64_t before = maxOffset();
    QCOMPARE(before, 0);
    m_pushes->answerCode = 0;
    const RemotingCommand r = call(replyV2(replyProps(kRequesterId, "corr-1"), "pong"));
    QCOMPARE(r.code, 0);
    QVERIFY(r.remark.isEmpty());
    QCOMPARE(ext(r, "queueId"), QByteArray("0"));
    QCOMPARE(ext(r, "queueOffset"), QByteArray("0"));
    QCOMPARE(ext(r, "msgId").size(), qsizetype(32)); // the stored copy's offset msgId
    QCOMPARE(ext(r, "TRACE_ON"), QByteArray("true"));
    QVERIFY(r.hasExt("MSG_REGION"));
    QCOMPARE(maxOffset(), 1);

    // The push reached the requester before the replier was answered.
    QCOMPARE(m_pushes->count(), std::size_t(1));
    const RemotingCommand push = m_pushes->pushes().front();
    QCOMPARE(push.code, 326);
    QCOMPARE(push.body, QByteArray("pong"));
    QCOMPARE(ext(push, "producerGroup"), QByteArray("PG_replier"));
    QCOMPARE(ext(push, "topic"), kReplyTopic);
    QCOMPARE(ext(push, "defaultTopic"), QByteArray("TBW102"));
    QCOMPARE(ext(push, "defaultTopicQueueNums"), QByteArray("4"));
    QCOMPARE(ext(push, "queueId"), QByteArray("0"));
    QCOMPARE(ext(push, "sysFlag"), QByteArray("0"));
    QCOMPARE(ext(push, "bornTimestamp"), QByteArray("1700000000123"));
    QCOMPARE(ext(push, "flag"), QByteArray("7"));
    QCOMPARE(ext(push, "reconsumeTimes"), QByteArray("0"));
    QCOMPARE(ext(push, "unitMode"), QByteArray("false"));
    QVERIFY(ext(push, "bornHost").startsWith("/127.0.0.1:"));
    QCOMPARE(ext(push, "storeHost"), "/" + m_addr);
    QVERIFY(ext(push, "storeTimestamp").toLongLong() > 0);
    const QByteArray props = ext(push, "properties");
    QCOMPARE(protocol::findProperty(props, "CORRELATION_ID"), QByteArrayView("corr-1"));
    QCOMPARE(protocol::findProperty(props, "REPLY_TO_CLIENT"), QByteArrayView(kRequesterId));
    QCOMPARE(protocol::findProperty(props, "MSG_TYPE"), QByteArrayView("reply"));
    QVERIFY(protocol::findProperty(props, "PUSH_REPLY_TIME").toByteArray().toLongLong() > 0);

    // The stored copy keeps the properties as sent (no PUSH_REPLY_TIME, no CLUSTER).
    const RemotingCommand view = call(request(33, {{"offset", "0"}}));
    QCOMPARE(view.code, 0);
    const auto recs = records(view.body);
    QCOMPARE(recs.size(), std::size_t(1));
    QVERIFY(protocol::findProperty(recs.front().properties, "PUSH_REPLY_TIME").isNull());
    QVERIFY(protocol::findProperty(recs.front().properties, "CLUSTER").isNull());
    QCOMPARE(protocol::findProperty(recs.front().properties, "CORRELATION_ID"),
        QByteArrayView("corr-1"));
    QCOMPARE(recs.front().body, QByteArrayView("pong"));
}

void tst_ReplyMessage::v1HeaderIsAccepted()
{
    const std::size_t pushed = m_pushes->count();
    const std::int64_t before = maxOffset();
    const RemotingCommand r = call(request(324,
        {{"producerGroup", "PG_replier"}, {"topic", kReplyTopic}, {"defaultTopic", "TBW102"},
            {"defaultTopicQueueNums", "4"}, {"queueId", "-1"}, {"sysFlag", "0"},
            {"bornTimestamp", num(1700000000000)}, {"flag", "0"},
            {"properties", replyProps(kRequesterId, "corr-v1")}},
        "v1"));
    QCOMPARE(r.code, 0);
    QCOMPARE(ext(r, "queueId"), QByteArray("0")); // -1: a random queue of the one-queue topic
    QCOMPARE(ext(r, "queueOffset"), num(before));
    QCOMPARE(maxOffset(), before + 1);
    QCOMPARE(m_pushes->count(), pushed + 1);
    const RemotingCommand push = m_pushes->pushes().back();
    QCOMPARE(ext(push, "queueId"), QByteArray("-1")); // the header as sent
    QVERIFY(!push.hasExt("reconsumeTimes")); // absent in the request: absent in the push
    QVERIFY(!push.hasExt("unitMode"));
    QCOMPARE(protocol::findProperty(ext(push, "properties"), "CORRELATION_ID"),
        QByteArrayView("corr-v1"));
}

void tst_ReplyMessage::unknownRequesterIsSystemErrorButStored()
{
    const std::size_t pushed = m_pushes->count();
    const std::int64_t before = maxOffset();
    const RemotingCommand r = call(replyV2(replyProps("10.0.0.9@gone", "corr-2"), "x"));
    QCOMPARE(r.code, 1);
    QCOMPARE(
        r.remark, QByteArray("push reply message fail, channel of <10.0.0.9@gone> not found."));
    // Stored anyway, and the answer carries the stored position.
    QCOMPARE(ext(r, "queueOffset"), num(before));
    QCOMPARE(ext(r, "msgId").size(), qsizetype(32));
    QCOMPARE(maxOffset(), before + 1);
    QCOMPARE(m_pushes->count(), pushed);
}

void tst_ReplyMessage::missingReplyToClient()
{
    const RemotingCommand r = call(replyV2(replyProps(QByteArray(), "corr-3"), "x"));
    QCOMPARE(r.code, 1);
    QCOMPARE(r.remark, QByteArray("reply message properties[REPLY_TO_CLIENT] is null"));
}

void tst_ReplyMessage::requesterAnsweringErrorFails()
{
    m_pushes->answerCode = 1;
    const std::size_t pushed = m_pushes->count();
    const RemotingCommand r = call(replyV2(replyProps(kRequesterId, "corr-4"), "x"));
    m_pushes->answerCode = 0;
    QCOMPARE(r.code, 1);
    QCOMPARE(r.remark, "push reply message to " + kRequesterId + "fail.");
    QCOMPARE(m_pushes->count(), pushed + 1);
}

void tst_ReplyMessage::storeDisabledAnswersZeroMsgId()
{
    RemotingCommand update = request(25, {}, "storeReplyMessageEnable=false\n");
    QCOMPARE(call(update).code, 0);
    const std::int64_t before = maxOffset();
    const RemotingCommand r = call(replyV2(replyProps(kRequesterId, "corr-5"), "x"));
    QCOMPARE(r.code, 0);
    QCOMPARE(ext(r, "msgId"), QByteArray("0"));
    QCOMPARE(ext(r, "queueOffset"), QByteArray("0"));
    QCOMPARE(maxOffset(), before);
    // Not pushed, not stored: no position at all.
    const RemotingCommand lost = call(replyV2(replyProps("10.0.0.9@gone", "corr-6"), "x"));
    QCOMPARE(lost.code, 1);
    QVERIFY(!lost.hasExt("msgId"));
    QCOMPARE(call(request(25, {}, "storeReplyMessageEnable=true\n")).code, 0);
}

void tst_ReplyMessage::malformedHeaderIsSystemError()
{
    RemotingCommand bad = replyV2(replyProps(kRequesterId, "corr-7"), "x");
    bad.extFields.erase(std::remove_if(bad.extFields.begin(), bad.extFields.end(),
                            [](const auto &kv) { return kv.first == "b"; }),
        bad.extFields.end());
    const RemotingCommand r = call(bad);
    QCOMPARE(r.code, 1);
    QCOMPARE(r.remark, QByteArray("the custom field <b> is null"));
}

QTEST_GUILESS_MAIN(tst_ReplyMessage)
#include "tst_replymessage.moc"
