// TRANSACTION messages over RocketMQ 5's gRPC protocol (issue 27) against a real qrocket-broker:
// a half message is not receivable until EndTransaction COMMIT (then exactly once) and never
// after ROLLBACK; an orphaned transaction is checked through the producer's Telemetry stream
// (RecoverOrphanedTransactionCommand) and resolved by EndTransaction from SOURCE_SERVER_CHECK;
// forged, malformed and mismatched transaction ids answer INVALID_TRANSACTION_ID and resolve
// nothing. The broker checks every second with a 1 s transaction timeout (broker.conf).

#include "tests/system/broker/grpctestutil.h"
#include "tests/system/broker/poptestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::grpctest;
using namespace qrocket::testlib;

namespace {

pb::Message transactional(const std::string &topic, const std::string &id, const std::string &body)
{
    pb::Message m = GrpcTestClient::message(topic, id, body, "TagT");
    m.mutable_system_properties()->set_message_type(pb::TRANSACTION);
    return m;
}

} // namespace

class tst_GrpcTransaction final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void commit();
    void rollback();
    void orphanCheckThroughTelemetry();
    void badTransactionIds();
    void checkAfterTheStreamWentAway();

private:
    void createTopic(const QByteArray &topic);
    RemotingCommand call(RemotingCommand req, int timeoutMs = 15000)
    {
        return invoke(m_remoting, localAddr(m_port), std::move(req), timeoutMs);
    }
    pb::EndTransactionResponse end(GrpcTestClient &c, const std::string &topic,
        const std::string &messageId, const std::string &transactionId,
        pb::TransactionResolution resolution, pb::TransactionSource source = pb::SOURCE_CLIENT)
    {
        pb::EndTransactionRequest req;
        req.mutable_topic()->set_name(topic);
        req.set_message_id(messageId);
        req.set_transaction_id(transactionId);
        req.set_resolution(resolution);
        req.set_source(source);
        pb::EndTransactionResponse resp;
        auto ctx = c.context();
        const grpc::Status st = c.stub().EndTransaction(ctx.get(), req, &resp);
        if (!st.ok())
            resp.mutable_status()->set_message("rpc failed: " + st.error_message());
        return resp;
    }
    /// Sends one TRANSACTION message; returns its transaction id.
    std::string sendHalf(const std::string &topic, const std::string &id, const std::string &body)
    {
        const pb::SendMessageResponse sent = m_client->send({transactional(topic, id, body)});
        if (sent.status().code() != pb::OK || sent.entries_size() != 1)
            return {};
        return sent.entries(0).transaction_id();
    }

    QTemporaryDir m_dir;
    std::unique_ptr<DaemonProcess> m_broker;
    quint16 m_port = 0;
    quint16 m_grpcPort = 0;
    remoting::RemotingClient m_remoting;
    std::unique_ptr<GrpcTestClient> m_client;
};

void tst_GrpcTransaction::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (!QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))))
        QSKIP("qrocket-broker not built");
    m_broker = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    const QString store = m_dir.filePath(QStringLiteral("store"));
    const bool started = startOnFreePort(
        *m_broker, m_dir.filePath(QStringLiteral("broker.conf")), m_port, [&](quint16 p) {
            m_grpcPort = freePort();
            return "brokerName=broker-grpc-tx\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"
                   "namesrvAddr=127.0.0.1:1\nlistenPort="
                + QByteArray::number(p) + "\ngrpcServerPort=" + QByteArray::number(m_grpcPort)
                + "\nstorePathRootDir=" + store.toUtf8()
                + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n"
                  "transactionCheckInterval=1000\ntransactionTimeOut=1000\n";
        });
    QVERIFY2(started, qPrintable(m_broker->error()));
    QVERIFY2(waitForPort(m_grpcPort, 10000), m_broker->output().constData());
    m_client = std::make_unique<GrpcTestClient>(m_grpcPort, "grpc-tx-client@1");
    for (const char *t : {"GTXC", "GTXR", "GTXO", "GTXB", "GTXG"})
        createTopic(t);
}

void tst_GrpcTransaction::cleanupTestCase()
{
    if (m_broker)
        QCOMPARE(m_broker->stop(), 0);
    m_client.reset();
}

void tst_GrpcTransaction::createTopic(const QByteArray &topic)
{
    const RemotingCommand r = call(request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"},
            {"writeQueueNums", "4"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}}));
    QCOMPARE(r.code, 0);
}

void tst_GrpcTransaction::commit()
{
    // A new group reads from 0 while the queue is in memory: nothing is there yet.
    QCOMPARE(m_client->receive("GTXCG", "GTXC", 32, 30000, 0).code, pb::MESSAGE_NOT_FOUND);
    const std::string tid = sendHalf("GTXC", "ID-TX-C1", "half body");
    QVERIFY(!tid.empty());
    // A half message: not receivable.
    const Received before = m_client->receive("GTXCG", "GTXC", 32, 30000, 1500);
    QVERIFY2(before.messages.empty(), before.message.c_str());

    const pb::EndTransactionResponse r = end(*m_client, "GTXC", "ID-TX-C1", tid, pb::COMMIT);
    QCOMPARE(r.status().code(), pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GTXCG", "GTXC", 2, 60000, 4000);
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].system_properties().message_id(), std::string("ID-TX-C1"));
    QCOMPARE(got[0].body(), std::string("half body"));
    QCOMPARE(got[0].system_properties().tag(), std::string("TagT"));
    QCOMPARE(got[0].topic().name(), std::string("GTXC"));
}

void tst_GrpcTransaction::rollback()
{
    QCOMPARE(m_client->receive("GTXRG", "GTXR", 32, 30000, 0).code, pb::MESSAGE_NOT_FOUND);
    const std::string tid = sendHalf("GTXR", "ID-TX-R1", "rolled back");
    QVERIFY(!tid.empty());
    QCOMPARE(end(*m_client, "GTXR", "ID-TX-R1", tid, pb::ROLLBACK).status().code(), pb::OK);
    // Never delivered, also not after the broker's check passes (1 s interval).
    const std::vector<pb::Message> got = m_client->receiveUntil("GTXRG", "GTXR", 1, 60000, 4000);
    QVERIFY(got.empty());
}

void tst_GrpcTransaction::orphanCheckThroughTelemetry()
{
    GrpcTestClient producer(m_grpcPort, "grpc-tx-producer@1");
    auto tctx = producer.context(60000);
    auto stream = producer.stub().Telemetry(tctx.get());
    pb::TelemetryCommand settings;
    settings.mutable_settings()->set_client_type(pb::PRODUCER);
    settings.mutable_settings()->mutable_publishing()->add_topics()->set_name("GTXO");
    QVERIFY(stream->Write(settings));
    pb::TelemetryCommand in;
    QVERIFY(stream->Read(&in));
    QCOMPARE(in.status().code(), pb::OK);
    QVERIFY(in.has_settings());

    QCOMPARE(m_client->receive("GTXOG", "GTXO", 32, 30000, 0).code, pb::MESSAGE_NOT_FOUND);
    const std::string sentTid = sendHalf("GTXO", "ID-TX-O1", "orphan");
    QVERIFY(!sentTid.empty());
    // Not ended: within the check interval and timeout (1 s each) the broker asks the
    // producer's stream (bounded by the stream's deadline).
    QElapsedTimer t;
    t.start();
    QVERIFY(stream->Read(&in));
    QVERIFY(in.has_recover_orphaned_transaction_command());
    QVERIFY2(t.elapsed() < 20000, qPrintable(QString::number(t.elapsed())));
    const pb::RecoverOrphanedTransactionCommand &cmd = in.recover_orphaned_transaction_command();
    QCOMPARE(cmd.message().system_properties().message_id(), std::string("ID-TX-O1"));
    QCOMPARE(cmd.message().topic().name(), std::string("GTXO"));
    QCOMPARE(cmd.message().body(), std::string("orphan"));
    QCOMPARE(cmd.message().system_properties().message_type(), pb::TRANSACTION);
    QVERIFY(!cmd.transaction_id().empty());
    // Still not receivable.
    QVERIFY(m_client->receive("GTXOG", "GTXO", 32, 30000, 0).messages.empty());

    QCOMPARE(
        end(producer, "GTXO", "ID-TX-O1", cmd.transaction_id(), pb::COMMIT, pb::SOURCE_SERVER_CHECK)
            .status()
            .code(),
        pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GTXOG", "GTXO", 2, 60000, 4000);
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].system_properties().message_id(), std::string("ID-TX-O1"));
    QCOMPARE(got[0].body(), std::string("orphan"));
    QVERIFY(stream->WritesDone());
    // Checks may still be on their way: read them off until the server ends the stream.
    while (stream->Read(&in)) { }
    QVERIFY(stream->Finish().ok());
}

void tst_GrpcTransaction::badTransactionIds()
{
    QCOMPARE(m_client->receive("GTXBG", "GTXB", 32, 30000, 0).code, pb::MESSAGE_NOT_FOUND);
    const std::string tid = sendHalf("GTXB", "ID-TX-B1", "bad ids");
    QVERIFY(tid.size() > 4);
    std::string otherLength = tid;
    otherLength.pop_back();
    std::string notHex = tid;
    notHex.back() = 'z';
    std::string offsetZero = tid;
    for (std::size_t i = 2; i < 18; ++i)
        offsetZero[i] = '0';
    std::string huge = tid;
    for (std::size_t i = 2; i < 18; ++i)
        huge[i] = i == 2 ? '7' : 'f';
    std::string negative = tid;
    negative[2] = 'f';
    std::string otherQueueOffset = tid;
    otherQueueOffset.back() = otherQueueOffset.back() == '1' ? '2' : '1';
    for (const std::string &bad : {std::string(), std::string("garbage"), otherLength, notHex,
             offsetZero, huge, negative, otherQueueOffset, std::string(tid.size(), 'T')}) {
        for (const pb::TransactionResolution res : {pb::COMMIT, pb::ROLLBACK}) {
            const pb::EndTransactionResponse r = end(*m_client, "GTXB", "ID-TX-B1", bad, res);
            QVERIFY2(r.status().code() == pb::INVALID_TRANSACTION_ID,
                (bad + ": " + r.status().message()).c_str());
        }
    }
    // The right id with another message id or another topic resolves nothing either.
    QCOMPARE(end(*m_client, "GTXB", "ID-TX-UNKNOWN", tid, pb::COMMIT).status().code(),
        pb::INVALID_TRANSACTION_ID);
    QCOMPARE(end(*m_client, "GTXC", "ID-TX-B1", tid, pb::COMMIT).status().code(),
        pb::INVALID_TRANSACTION_ID);
    QVERIFY(m_client->receive("GTXBG", "GTXB", 32, 30000, 1000).messages.empty());
    QVERIFY(m_broker->isRunning());
    // The broker serves on: the real id commits the message, once.
    QCOMPARE(end(*m_client, "GTXB", "ID-TX-B1", tid, pb::COMMIT).status().code(), pb::OK);
    const std::vector<pb::Message> got = m_client->receiveUntil("GTXBG", "GTXB", 2, 60000, 4000);
    QCOMPARE(int(got.size()), 1);
    QCOMPARE(got[0].system_properties().message_id(), std::string("ID-TX-B1"));
}

void tst_GrpcTransaction::checkAfterTheStreamWentAway()
{
    // A producer whose Telemetry stream was cancelled: the checks the broker sends meanwhile
    // are dropped (no hang, the broker serves on), and the stream it opens next gets them.
    GrpcTestClient producer(m_grpcPort, "grpc-tx-producer@2");
    pb::TelemetryCommand settings;
    settings.mutable_settings()->set_client_type(pb::PRODUCER);
    settings.mutable_settings()->mutable_publishing()->add_topics()->set_name("GTXG");
    pb::TelemetryCommand in;
    {
        auto ctx = producer.context(30000);
        auto stream = producer.stub().Telemetry(ctx.get());
        QVERIFY(stream->Write(settings));
        QVERIFY(stream->Read(&in));
        QCOMPARE(in.status().code(), pb::OK);
        ctx->TryCancel();
        QCOMPARE(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
    }
    QVERIFY(!sendHalf("GTXG", "ID-TX-G1", "gone").empty());
    QTest::qWait(2500); // two check passes with nobody to ask
    QVERIFY(m_broker->isRunning());
    QCOMPARE(
        m_client->send({GrpcTestClient::message("GTXB", "ID-TX-G0", "served")}).status().code(),
        pb::OK);

    auto ctx = producer.context(60000);
    auto stream = producer.stub().Telemetry(ctx.get());
    QVERIFY(stream->Write(settings));
    // The settings answer and the checks come in either order.
    std::string tid;
    for (int i = 0; i < 20 && tid.empty(); ++i) {
        QVERIFY(stream->Read(&in));
        if (in.has_recover_orphaned_transaction_command()) {
            QCOMPARE(in.recover_orphaned_transaction_command()
                         .message()
                         .system_properties()
                         .message_id(),
                std::string("ID-TX-G1"));
            tid = in.recover_orphaned_transaction_command().transaction_id();
        }
    }
    QVERIFY(!tid.empty());
    QCOMPARE(end(producer, "GTXG", "ID-TX-G1", tid, pb::ROLLBACK, pb::SOURCE_SERVER_CHECK)
                 .status()
                 .code(),
        pb::OK);
    ctx->TryCancel();
    while (stream->Read(&in)) { }
    stream->Finish();
    QVERIFY(m_client->receiveUntil("GTXGG", "GTXG", 1, 60000, 2500).empty());
}

QTEST_GUILESS_MAIN(tst_GrpcTransaction)
#include "tst_grpctransaction.moc"
