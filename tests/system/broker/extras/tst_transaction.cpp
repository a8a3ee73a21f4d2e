// Transactional messages over sockets against an in-process BrokerController (protocol.md §4.6,
// §8.5), with request frames shaped as the Java 4.9 TransactionMQProducer sends them: a
// SEND_MESSAGE_V2 with sysFlag PREPARED and TRAN_MSG/PGROUP/UNIQ_KEY properties, a oneway
// END_TRANSACTION, and a producer connection (heart-beaten) that receives CHECK_TRANSACTION_STATE.
// Short check intervals are configured; every wait is bounded.

#include "broker/brokercontroller.h"
#include "broker/config/brokerconfig.h"
#include "broker/transaction/transactionalmessage.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "clientlib/remoting/requestprocessor.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <mutex>
#include <vector>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

constexpr int kWaitMs = 20000;
const QByteArray kHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
const QByteArray kOpTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
const QByteArray kSysGroup = "CID_RMQ_SYS_TRANS";

/// Records the CHECK_TRANSACTION_STATE requests a producer connection receives.
class CheckCapture final : public remoting::RequestProcessor
{
public:
    void processRequest(
        const remoting::ChannelPtr &, RemotingCommand request, remoting::Responder) override
    {
        std::lock_guard lock(m_mutex);
        m_requests.push_back(std::move(request));
    }
    /// The first check whose msgId is `uniqKey`, or a command with code -1.
    RemotingCommand find(const QByteArray &uniqKey) const
    {
        std::lock_guard lock(m_mutex);
        for (const RemotingCommand &r : m_requests) {
            const QByteArray *id = r.ext("msgId");
            if (id && *id == uniqKey)
                return r;
        }
        RemotingCommand none;
        none.code = -1;
        return none;
    }

private:
    mutable std::mutex m_mutex;
    std::vector<RemotingCommand> m_requests;
};

struct SendReply
{
    int code = -1;
    std::int64_t queueOffset = -1;
    std::int64_t commitLogOffset = -1;
    QByteArray msgId;
};

} // namespace

class tst_Transaction final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void messageShapes();
    void halfIsInvisibleUntilCommit();
    void rollbackIsNeverVisible();
    void endTransactionChecksAndUnknownType();
    void checkBackThenCommitFromCheck();
    void restartKeepsCheckProgress();
    void checkedTooOftenIsDiscarded();
    void repeatedPrepareAndCommitStoreOnceWithDedup();

private:
    void startBroker(std::unique_ptr<broker::BrokerController> &out, const QString &root,
        int checkMax, QByteArray &addr);
    RemotingCommand call(RemotingCommand req, const QByteArray &addr = {});
    SendReply sendHalf(const QByteArray &topic, const QByteArray &group, const QByteArray &uniq,
        const QByteArray &addr = {});
    RemotingCommand endTransaction(const QByteArray &group, std::int64_t tranStateTableOffset,
        std::int64_t commitLogOffset, int type, bool fromCheck, const QByteArray &uniq);
    std::vector<protocol::MessageRecordView> pulled(
        const QByteArray &topic, QByteArray &keep, const QByteArray &addr = {});
    std::int64_t maxOffset(const QByteArray &topic, const QByteArray &addr = {});
    std::int64_t sysProgress(const QByteArray &topic);
    /// A producer connection of `group` (heartbeat on it) that captures checks.
    std::unique_ptr<remoting::RemotingClient> producer(const QByteArray &group,
        std::shared_ptr<CheckCapture> &capture, const QByteArray &addr = {});

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_addr;
    std::int64_t m_lastBorn = 0;
};

void tst_Transaction::startBroker(std::unique_ptr<broker::BrokerController> &out,
    const QString &root, int checkMax, QByteArray &addr)
{
    // No name server: registration fails, harmless.
    startInProcessBroker(out, root, QStringLiteral("broker-tx"), QStringLiteral("127.0.0.1:1"),
        [checkMax](broker::BrokerConfig &config) {
            config.transactionTimeOut = 300;
            config.transactionCheckInterval = 300;
            config.transactionCheckMax = checkMax;
        });
    if (out)
        addr = localAddr(out->listenPort());
}

void tst_Transaction::initTestCase()
{
    QVERIFY(m_dir.isValid());
    startBroker(m_broker, m_dir.filePath(QStringLiteral("store")), 15, m_addr);
    QVERIFY(m_broker);
    m_client = std::make_unique<remoting::RemotingClient>();
}

void tst_Transaction::cleanupTestCase()
{
    m_client.reset();
    stopInProcessBroker(m_broker);
}

RemotingCommand tst_Transaction::call(RemotingCommand req, const QByteArray &addr)
{
    return invoke(*m_client, addr.isEmpty() ? m_addr : addr, std::move(req));
}

SendReply tst_Transaction::sendHalf(const QByteArray &topic, const QByteArray &group,
    const QByteArray &uniq, const QByteArray &addr)
{
    // Born now: a half message older than the store's fileReservedTime is discarded unchecked.
    m_lastBorn = QDateTime::currentMSecsSinceEpoch();
    // DefaultMQProducerImpl.sendMessageInTransaction: TRAN_MSG + PGROUP, sysFlag PREPARED (4).
    const QByteArray properties = "TRAN_MSG\x01true\x02PGROUP\x01" + group + "\x02UNIQ_KEY\x01"
        + uniq + "\x02WAIT\x01true\x02TAGS\x01TagTx\x02KEYS\x01k-" + uniq;
    const RemotingCommand r
        = call(request(310,
                   {{"a", group}, {"b", topic}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"}, {"f", "4"},
                       {"g", num(m_lastBorn)}, {"h", "0"}, {"i", properties}, {"j", "0"},
                       {"k", "false"}, {"m", "false"}},
                   "tx body " + uniq),
            addr);
    SendReply out;
    out.code = r.code;
    if (r.code != 0)
        return out;
    out.queueOffset = r.extLong("queueOffset").value_or(-1);
    out.msgId = r.ext("msgId") ? *r.ext("msgId") : QByteArray();
    if (auto id = protocol::decodeOffsetMessageId(out.msgId))
        out.commitLogOffset = id->commitLogOffset;
    return out;
}

RemotingCommand tst_Transaction::endTransaction(const QByteArray &group,
    std::int64_t tranStateTableOffset, std::int64_t commitLogOffset, int type, bool fromCheck,
    const QByteArray &uniq)
{
    return request(37,
        {{"producerGroup", group}, {"tranStateTableOffset", num(tranStateTableOffset)},
            {"commitLogOffset", num(commitLogOffset)}, {"commitOrRollback", num(type)},
            {"fromTransactionCheck", fromCheck ? "true" : "false"}, {"msgId", uniq},
            {"transactionId", uniq}});
}

std::vector<protocol::MessageRecordView> tst_Transaction::pulled(
    const QByteArray &topic, QByteArray &keep, const QByteArray &addr)
{
    const RemotingCommand p = call(
        request(11,
            {{"consumerGroup", "CG_tx"}, {"topic", topic}, {"queueId", "0"}, {"queueOffset", "0"},
                {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "-1"},
                {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}),
        addr);
    keep = p.code == 0 ? p.body : QByteArray();
    return records(keep);
}

std::int64_t tst_Transaction::maxOffset(const QByteArray &topic, const QByteArray &addr)
{
    const RemotingCommand r = call(request(30, {{"topic", topic}, {"queueId", "0"}}), addr);
    return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
}

std::int64_t tst_Transaction::sysProgress(const QByteArray &topic)
{
    const RemotingCommand r
        = call(request(14, {{"consumerGroup", kSysGroup}, {"topic", topic}, {"queueId", "0"}}));
    return r.code == 0 ? r.extLong("offset").value_or(-1) : -1;
}

std::unique_ptr<remoting::RemotingClient> tst_Transaction::producer(
    const QByteArray &group, std::shared_ptr<CheckCapture> &capture, const QByteArray &addr)
{
    auto client = std::make_unique<remoting::RemotingClient>();
    capture = std::make_shared<CheckCapture>();
    client->registerProcessor(39, capture);
    protocol::HeartbeatData hb;
    hb.clientID = "127.0.0.1@tx-" + group;
    hb.producerDataSet.push_back({group});
    auto r = client->invokeSync(addr.isEmpty() ? m_addr : addr, request(34, {}, hb.toJson()), 5000);
    if (!r || r->code != 0) {
        qWarning() << "heartbeat failed";
        return {};
    }
    return client;
}

void tst_Transaction::messageShapes()
{
    namespace tx = broker::transaction;
    storage::MessageExtBrokerInner m;
    m.topic = "T";
    m.queueId = 3;
    m.sysFlag = 0x4 | 0x1; // PREPARED, compressed
    m.body = "b";
    m.properties = "TRAN_MSG\x01true\x02PGROUP\x01PG\x02TAGS\x01"
                   "a";
    QVERIFY(tx::isHalfMessageSend(m.properties));
    QVERIFY(tx::isHalfMessageSend("TRAN_MSG\x01TRUE"));
    QVERIFY(!tx::isHalfMessageSend("TRAN_MSG\x01"
                                   "false"));
    tx::toHalfMessage(m);
    QCOMPARE(m.topic, QByteArray("RMQ_SYS_TRANS_HALF_TOPIC"));
    QCOMPARE(m.queueId, 0);
    QCOMPARE(m.sysFlag, 0x1);
    QCOMPARE(protocol::findProperty(m.properties, "REAL_TOPIC"), QByteArrayView("T"));
    QCOMPARE(protocol::findProperty(m.properties, "REAL_QID"), QByteArrayView("3"));

    protocol::MessageRecordInput in;
    in.topic = m.topic;
    in.sysFlag = m.sysFlag;
    in.body = m.body;
    in.properties = m.properties;
    in.bodyCrc = crc32Masked(in.body);
    const QByteArray record = protocol::encodeRecord(in, 7, 1000, 5);
    const auto half = tx::HalfMessage::decode(record);
    QVERIFY(half.has_value());
    QCOMPARE(half->queueOffset, 7);
    QCOMPARE(half->commitLogOffset, 1000);
    auto committed = tx::committedMessage(*half);
    QVERIFY(committed.has_value());
    QCOMPARE(committed->topic, QByteArray("T"));
    QCOMPARE(committed->queueId, 3);
    QCOMPARE(committed->sysFlag, 0x8 | 0x1);
    QCOMPARE(committed->preparedTransactionOffset, 1000);
    QVERIFY(!committed->waitStoreMsgOk);
    QCOMPARE(committed->properties, m.properties); // RocketMQ writes the half's string

    const auto op = tx::opMessage(2, 7, protocol::HostAddress::ipv4(0x7f000001, 10911), 42);
    QCOMPARE(op.topic, QByteArray("RMQ_SYS_TRANS_OP_HALF_TOPIC"));
    QCOMPARE(op.queueId, 2);
    QCOMPARE(op.body, QByteArray("7"));
    QCOMPARE(op.sysFlag, 0);
    QCOMPARE(protocol::findProperty(op.properties, "TAGS"), QByteArrayView("d"));
    QCOMPARE(op.bornTimestamp, 42);

    const QByteArray checkBody = tx::checkStateBody(*half);
    const auto bodyRecs = records(checkBody);
    QCOMPARE(bodyRecs.size(), std::size_t(1));
    QCOMPARE(bodyRecs[0].topic, QByteArrayView("T"));
    QCOMPARE(bodyRecs[0].queueId, 3);
    QCOMPARE(bodyRecs[0].queueOffset, 7);
    QCOMPARE(bodyRecs[0].physicalOffset, 1000);
}

void tst_Transaction::halfIsInvisibleUntilCommit()
{
    const QByteArray topic = "TxCommit";
    const SendReply half = sendHalf(topic, "PG_plain", "UNIQ-C1");
    QCOMPARE(half.code, 0);
    QCOMPARE(half.queueOffset, 0); // the half queue's offset
    QVERIFY(half.commitLogOffset >= 0);
    QCOMPARE(maxOffset(topic), 0); // nothing in the real topic
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(kHalfTopic), 1, kWaitMs);
    QByteArray keep;
    QVERIFY(pulled(topic, keep).empty());

    // The half record: RocketMQ's shape.
    const RemotingCommand view = call(request(33, {{"offset", num(half.commitLogOffset)}}));
    QCOMPARE(view.code, 0);
    const auto halfRecs = records(view.body);
    QCOMPARE(halfRecs.size(), std::size_t(1));
    QCOMPARE(halfRecs[0].topic, QByteArrayView(kHalfTopic));
    QCOMPARE(halfRecs[0].queueId, 0);
    QCOMPARE(halfRecs[0].sysFlag & 0xC, 0); // NOT type
    QCOMPARE(protocol::findProperty(halfRecs[0].properties, "REAL_TOPIC"), QByteArrayView(topic));
    QCOMPARE(protocol::findProperty(halfRecs[0].properties, "REAL_QID"), QByteArrayView("0"));

    // The Java producer's oneway END_TRANSACTION, COMMIT.
    m_client->invokeOneway(m_addr,
        endTransaction("PG_plain", half.queueOffset, half.commitLogOffset, 8, false, "UNIQ-C1"));
    QTRY_COMPARE_WITH_TIMEOUT(pulled(topic, keep).size(), std::size_t(1), kWaitMs);
    const auto recs = pulled(topic, keep);
    QCOMPARE(recs.size(), std::size_t(1));
    const protocol::MessageRecordView &m = recs[0];
    QCOMPARE(m.body, QByteArrayView("tx body UNIQ-C1"));
    QCOMPARE(m.sysFlag & 0xC, 8); // COMMIT
    QCOMPARE(m.preparedTransactionOffset, half.commitLogOffset);
    QCOMPARE(m.bornTimestamp, m_lastBorn);
    QCOMPARE(protocol::findProperty(m.properties, "UNIQ_KEY"), QByteArrayView("UNIQ-C1"));
    QCOMPARE(protocol::findProperty(m.properties, "TAGS"), QByteArrayView("TagTx"));
    QCOMPARE(protocol::findProperty(m.properties, "KEYS"), QByteArrayView("k-UNIQ-C1"));
    QCOMPARE(protocol::findProperty(m.properties, "PGROUP"), QByteArrayView("PG_plain"));
    // The op record (no topic config, as in RocketMQ: its queue is only read by the broker).
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(kOpTopic), 1, kWaitMs);

    // A two-way END_TRANSACTION gets RocketMQ's checks and remarks.
    const RemotingCommand wrongGroup = call(
        endTransaction("PG_other", half.queueOffset, half.commitLogOffset, 8, false, "UNIQ-C1"));
    QCOMPARE(wrongGroup.code, 1);
    QCOMPARE(wrongGroup.remark, QByteArray("The producer group wrong"));
}

void tst_Transaction::rollbackIsNeverVisible()
{
    const QByteArray topic = "TxRollback";
    const SendReply half = sendHalf(topic, "PG_plain", "UNIQ-R1");
    QCOMPARE(half.code, 0);
    const std::int64_t opsBefore = maxOffset(kOpTopic);
    const RemotingCommand r = call(
        endTransaction("PG_plain", half.queueOffset, half.commitLogOffset, 12, false, "UNIQ-R1"));
    QCOMPARE(r.code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(kOpTopic), opsBefore + 1, kWaitMs);
    // A plain message sent afterwards is the only one the topic ever shows.
    QCOMPARE(call(sendV2(topic, 0, "plain after rollback")).code, 0);
    QByteArray keep;
    QTRY_COMPARE_WITH_TIMEOUT(pulled(topic, keep).size(), std::size_t(1), kWaitMs);
    QCOMPARE(pulled(topic, keep).front().body, QByteArrayView("plain after rollback"));
    // Once the check service has passed the rolled-back half, still only that one.
    const std::int64_t halfMax = maxOffset(kHalfTopic);
    QTRY_VERIFY_WITH_TIMEOUT(sysProgress(kHalfTopic) >= halfMax, kWaitMs);
    QCOMPARE(pulled(topic, keep).size(), std::size_t(1));
}

void tst_Transaction::endTransactionChecksAndUnknownType()
{
    const SendReply half = sendHalf("TxChecks", "PG_plain", "UNIQ-K1");
    QCOMPARE(half.code, 0);
    RemotingCommand r = call(endTransaction(
        "PG_plain", half.queueOffset + 100, half.commitLogOffset, 8, false, "UNIQ-K1"));
    QCOMPARE(r.code, 1);
    QCOMPARE(r.remark, QByteArray("The transaction state table offset wrong"));
    r = call(endTransaction("PG_plain", half.queueOffset, 1LL << 40, 8, false, "UNIQ-K1"));
    QCOMPARE(r.code, 1);
    QCOMPARE(r.remark, QByteArray("Find prepared transaction message failed"));
    RemotingCommand missing = request(37, {{"producerGroup", "PG_plain"}});
    r = call(std::move(missing));
    QCOMPARE(r.code, 1);
    // Type 0 (UNKNOW): RocketMQ answers nothing; a two-way request times out, so send it oneway
    // and then see that a later request on the same connection is answered normally.
    m_client->invokeOneway(m_addr,
        endTransaction("PG_plain", half.queueOffset, half.commitLogOffset, 0, false, "UNIQ-K1"));
    QCOMPARE(maxOffset("TxChecks"), 0);
    r = call(
        endTransaction("PG_plain", half.queueOffset, half.commitLogOffset, 12, false, "UNIQ-K1"));
    QCOMPARE(r.code, 0);
    QCOMPARE(maxOffset("TxChecks"), 0);
}

void tst_Transaction::checkBackThenCommitFromCheck()
{
    std::shared_ptr<CheckCapture> capture;
    auto producerClient = producer("PG_chk", capture);
    QVERIFY(producerClient);
    const QByteArray topic = "TxCheck";
    const SendReply half = sendHalf(topic, "PG_chk", "UNIQ-CHK1");
    QCOMPARE(half.code, 0);

    QTRY_VERIFY_WITH_TIMEOUT(capture->find("UNIQ-CHK1").code == 39, kWaitMs);
    const RemotingCommand check = capture->find("UNIQ-CHK1");
    QVERIFY(check.isOneway());
    QCOMPARE(*check.ext("transactionId"), QByteArray("UNIQ-CHK1"));
    const std::int64_t tranStateTableOffset = check.extLong("tranStateTableOffset").value_or(-1);
    const std::int64_t commitLogOffset = check.extLong("commitLogOffset").value_or(-1);
    QVERIFY(tranStateTableOffset > half.queueOffset); // the re-put copy
    QVERIFY(commitLogOffset > half.commitLogOffset);
    const auto offsetId = protocol::decodeOffsetMessageId(*check.ext("offsetMsgId"));
    QVERIFY(offsetId.has_value());
    QCOMPARE(offsetId->commitLogOffset, commitLogOffset);
    const auto body = records(check.body);
    QCOMPARE(body.size(), std::size_t(1));
    QCOMPARE(body[0].topic, QByteArrayView(topic));
    QCOMPARE(body[0].queueId, 0);
    QCOMPARE(body[0].queueOffset, tranStateTableOffset);
    QCOMPARE(body[0].physicalOffset, commitLogOffset);
    QCOMPARE(body[0].body, QByteArrayView("tx body UNIQ-CHK1"));
    QCOMPARE(
        protocol::findProperty(body[0].properties, "TRANSACTION_CHECK_TIMES"), QByteArrayView("1"));
    QByteArray keep;
    QVERIFY(pulled(topic, keep).empty());

    // The producer's answer: END_TRANSACTION on its own connection, fromTransactionCheck=true.
    producerClient->invokeOneway(m_addr,
        endTransaction("PG_chk", tranStateTableOffset, commitLogOffset, 8, true, "UNIQ-CHK1"));
    QTRY_VERIFY_WITH_TIMEOUT(!pulled(topic, keep).empty(), kWaitMs);
    const auto recs = pulled(topic, keep);
    QCOMPARE(protocol::findProperty(recs[0].properties, "UNIQ_KEY"), QByteArrayView("UNIQ-CHK1"));
    QCOMPARE(recs[0].sysFlag & 0xC, 8);
    // The check service then moves past everything (half and op progress at their ends).
    const std::int64_t halfMax = maxOffset(kHalfTopic);
    QTRY_VERIFY_WITH_TIMEOUT(sysProgress(kHalfTopic) >= halfMax, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(sysProgress(kOpTopic), maxOffset(kOpTopic), kWaitMs);
}

void tst_Transaction::restartKeepsCheckProgress()
{
    const std::int64_t halfProgress = sysProgress(kHalfTopic);
    const std::int64_t opProgress = sysProgress(kOpTopic);
    QVERIFY(halfProgress > 0);
    QVERIFY(opProgress > 0);
    m_client.reset();
    stopInProcessBroker(m_broker);
    startBroker(m_broker, m_dir.filePath(QStringLiteral("store")), 15, m_addr);
    QVERIFY(m_broker);
    m_client = std::make_unique<remoting::RemotingClient>();
    QCOMPARE(sysProgress(kHalfTopic), halfProgress);
    QCOMPARE(sysProgress(kOpTopic), opProgress);

    // A new unresolved half is checked; nothing below the kept progress is checked again.
    std::shared_ptr<CheckCapture> capture;
    auto producerClient = producer("PG_chk", capture);
    QVERIFY(producerClient);
    const SendReply half = sendHalf("TxCheck", "PG_chk", "UNIQ-CHK2");
    QCOMPARE(half.code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(capture->find("UNIQ-CHK2").code == 39, kWaitMs);
    QCOMPARE(capture->find("UNIQ-CHK1").code, -1);
    const RemotingCommand check = capture->find("UNIQ-CHK2");
    producerClient->invokeOneway(m_addr,
        endTransaction("PG_chk", check.extLong("tranStateTableOffset").value_or(-1),
            check.extLong("commitLogOffset").value_or(-1), 12, true, "UNIQ-CHK2"));
    const std::int64_t opsBefore = opProgress;
    QTRY_VERIFY_WITH_TIMEOUT(sysProgress(kOpTopic) > opsBefore, kWaitMs);
}

void tst_Transaction::checkedTooOftenIsDiscarded()
{
    // A second broker with transactionCheckMax 1: the second pass discards.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::unique_ptr<broker::BrokerController> other;
    QByteArray addr;
    startBroker(other, dir.filePath(QStringLiteral("store")), 1, addr);
    QVERIFY(other);
    std::shared_ptr<CheckCapture> capture;
    auto producerClient = producer("PG_dis", capture, addr);
    QVERIFY(producerClient);
    const SendReply half = sendHalf("TxDiscard", "PG_dis", "UNIQ-D1", addr);
    QCOMPARE(half.code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(capture->find("UNIQ-D1").code == 39, kWaitMs);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset("TRANS_CHECK_MAX_TIME_TOPIC", addr), 1, kWaitMs);
    QByteArray keep;
    const auto recs = pulled("TRANS_CHECK_MAX_TIME_TOPIC", keep, addr);
    QCOMPARE(recs.size(), std::size_t(1));
    QCOMPARE(protocol::findProperty(recs[0].properties, "UNIQ_KEY"), QByteArrayView("UNIQ-D1"));
    QCOMPARE(
        protocol::findProperty(recs[0].properties, "TRANSACTION_CHECK_TIMES"), QByteArrayView("1"));
    QCOMPARE(maxOffset("TxDiscard", addr), 0);
    producerClient.reset();
    other->shutdown();
}

void tst_Transaction::repeatedPrepareAndCommitStoreOnceWithDedup()
{
    // sendDedupEnable: a prepare sent again (its answer lost) finds its first half, and COMMITs
    // repeated for that half (the producer's, a check's answer, a retry) store one message.
    m_broker->context().config->sendDedupEnable = true;
    const QByteArray topic = "TxDedup";
    const SendReply half = sendHalf(topic, "PG_plain", "UNIQ-D1");
    QCOMPARE(half.code, 0);
    const SendReply again = sendHalf(topic, "PG_plain", "UNIQ-D1");
    QCOMPARE(again.code, 0);
    QCOMPARE(again.commitLogOffset, half.commitLogOffset);
    QCOMPARE(again.queueOffset, half.queueOffset);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call(endTransaction(
                          "PG_plain", half.queueOffset, half.commitLogOffset, 8, i == 1, "UNIQ-D1"))
                     .code,
            0);
    QVERIFY(m_broker->context().store->waitForDispatch(kWaitMs));
    QCOMPARE(maxOffset(topic), 1);
    QByteArray keep;
    const auto recs = pulled(topic, keep);
    QCOMPARE(recs.size(), std::size_t(1));
    QCOMPARE(protocol::findProperty(recs[0].properties, "UNIQ_KEY"), QByteArrayView("UNIQ-D1"));
    m_broker->context().config->sendDedupEnable = false;
}

QTEST_GUILESS_MAIN(tst_Transaction)
#include "tst_transaction.moc"
