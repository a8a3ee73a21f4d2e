// The explain extensions (issue 29, "Explain") of real qrocket-namesrv and qrocket-broker
// processes: each test builds a situation and checks the verdict and the setting (and value) or
// client the answer names. Group: consumeEnable=false, no live consumer, two members subscribing
// differently, a queue locked by a client that is not a member, a committed offset past the end,
// POP messages in flight. Cleanup: files kept as not expired (fileReservedTime), then expired but
// waiting for deleteWhen. Send: broker and topic permission, a full disk (through the daemon's
// QROCKET_DISK_SPACE_FILE seam). Broker: live, connection closed, refused registration, never
// registered, late then expired on a name server with a short brokerChannelExpiredTime. Bad
// input answers a clear error. qrocket-admin prints the same findings. A slave: brokerRole
// blocks sends, and its send answers SERVICE_NOT_AVAILABLE. (The ACL findings: tst_explainacl.)

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/poptestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;
namespace ext = qrocket::protocol::extensioncode;
using protocol::ExplainBody;
using protocol::ExplainFinding;

namespace {

const QByteArray kBroker = "broker-explain";

/// "total free available" for the broker's disk probe: `usedPercent` of 100 GiB used.
void writeDisk(const QString &path, int usedPercent)
{
    const std::int64_t total = 100LL << 30;
    const std::int64_t free = total / 100 * (100 - usedPercent);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray::number(total) + ' ' + QByteArray::number(free) + ' '
        + QByteArray::number(free) + '\n');
}

QByteArray describe(const ExplainBody &b)
{
    return b.toJson();
}

} // namespace

class tst_Explain final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void groupBadInput();
    void groupConsumeDisabledAndNoConsumer();
    void groupSubscriptionsDiffer();
    void groupQueueLockedByGoneClient();
    void groupOffsetPastEnd();
    void groupPopInvisible();
    void sendBadInput();
    void sendPermissions();
    void cleanupNotExpired();
    void cleanupWaitingForDeleteWhen();
    void sendDiskFull();
    void brokerLiveGoneRefusedUnknown();
    void brokerLateThenExpired();
    void adminCliPrintsFindings();
    void sendOnASlave();

private:
    RemotingCommand call(RemotingCommand req)
    {
        return invoke(m_client, brokerAddr(), std::move(req));
    }
    QByteArray brokerAddr() const { return localAddr(m_brokerPort); }
    QByteArray brokerConf(quint16 port, const QByteArray &extra) const;
    bool startBroker(const QByteArray &extra);
    /// The explain answer's body; the test fails when the answer is not SUCCESS or does not parse.
    ExplainBody explain(
        remoting::RemotingClient &client, const QByteArray &addr, int code, Ext fields);
    ExplainBody explainHere(int code, Ext fields)
    {
        return explain(m_client, brokerAddr(), code, fields);
    }
    void createTopic(const QByteArray &topic, int queues, int perm = 6);
    void createGroup(const QByteArray &group, bool consumeEnable);
    void heartbeat(remoting::RemotingClient &client, const QByteArray &clientId,
        const QByteArray &group, std::initializer_list<const char *> topics);
    void send(const QByteArray &topic, int queueId, const QByteArray &body);

    QTemporaryDir m_dir;
    QString m_diskFile;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    quint16 m_nsPort = 0;
    quint16 m_brokerPort = 0;
    remoting::RemotingClient m_client;
};

QByteArray tst_Explain::brokerConf(quint16 port, const QByteArray &extra) const
{
    return "brokerName=" + kBroker + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nnamesrvAddr=" + localAddr(m_nsPort)
        + "\nstorePathRootDir=" + QDir(m_dir.path()).filePath(QStringLiteral("store")).toUtf8()
        + "\nmappedFileSizeCommitLog=65536\nmaxMessageSize=16384\nmappedFileSizeConsumeQueue=6000"
          "\ncleanResourceInterval=300\n"
        + extra;
}

bool tst_Explain::startBroker(const QByteArray &extra)
{
    return startOnFreePort(m_broker, QDir(m_dir.path()).filePath(QStringLiteral("broker.conf")),
        m_brokerPort, [&](quint16 port) { return brokerConf(port, extra); });
}

void tst_Explain::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_diskFile = QDir(m_dir.path()).filePath(QStringLiteral("disk"));
    writeDisk(m_diskFile, 10);
    qputenv("QROCKET_DISK_SPACE_FILE", QFile::encodeName(m_diskFile));
    m_nsPort = startNamesrv(m_namesrv, m_dir.path());
    QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv.error()));
    QVERIFY2(startBroker({}), qPrintable(m_broker.error()));
}

void tst_Explain::cleanupTestCase()
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
    qunsetenv("QROCKET_DISK_SPACE_FILE");
}

ExplainBody tst_Explain::explain(
    remoting::RemotingClient &client, const QByteArray &addr, int code, Ext fields)
{
    const RemotingCommand r = invoke(client, addr, request(code, fields));
    if (r.code != 0) {
        qWarning("explain %d answered %d: %s", code, r.code, r.remark.constData());
        return {};
    }
    Result<ExplainBody> body = ExplainBody::fromJson(r.body);
    if (!body) {
        qWarning("explain %d: bad body %s", code, r.body.constData());
        return {};
    }
    return *body;
}

void tst_Explain::createTopic(const QByteArray &topic, int queues, int perm)
{
    const RemotingCommand r = call(request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(queues)},
            {"writeQueueNums", num(queues)}, {"perm", num(perm)}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}}));
    QVERIFY2(r.code == 0, r.remark.constData());
}

void tst_Explain::createGroup(const QByteArray &group, bool consumeEnable)
{
    protocol::SubscriptionGroupConfig c(group);
    c.consumeEnable = consumeEnable;
    const RemotingCommand r = call(request(200, {}, c.toJson()));
    QVERIFY2(r.code == 0, r.remark.constData());
}

void tst_Explain::heartbeat(remoting::RemotingClient &client, const QByteArray &clientId,
    const QByteArray &group, std::initializer_list<const char *> topics)
{
    protocol::HeartbeatData hb;
    hb.clientID = clientId;
    protocol::ConsumerData c;
    c.groupName = group;
    for (const char *t : topics) {
        protocol::SubscriptionData s;
        s.topic = t;
        s.subVersion = QDateTime::currentMSecsSinceEpoch();
        c.subscriptionDataSet.push_back(s);
    }
    hb.consumerDataSet.push_back(c);
    const RemotingCommand r = invoke(client, brokerAddr(), request(34, {}, hb.toJson()));
    QVERIFY2(r.code == 0, r.remark.constData());
}

void tst_Explain::send(const QByteArray &topic, int queueId, const QByteArray &body)
{
    const RemotingCommand r
        = call(sendV2(topic, queueId, body, props({{"UNIQ_KEY", body.constData()}})));
    QVERIFY2(r.code == 0, r.remark.constData());
}

void tst_Explain::groupBadInput()
{
    RemotingCommand r = call(request(ext::kExplainGroup));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.remark.contains("consumerGroup"), r.remark.constData());
    r = call(request(ext::kExplainGroup, {{"consumerGroup", "no-such-group"}}));
    QCOMPARE(r.code, 26); // SUBSCRIPTION_GROUP_NOT_EXIST
    QVERIFY2(r.remark.contains("no-such-group"), r.remark.constData());
    createGroup("g-bad", true);
    r = call(request(ext::kExplainGroup, {{"consumerGroup", "g-bad"}, {"topic", "NoSuchTopic"}}));
    QCOMPARE(r.code, 17); // TOPIC_NOT_EXIST
    QVERIFY2(r.remark.contains("NoSuchTopic"), r.remark.constData());
    // Garbage in the fields: an answer, not a crash.
    r = call(request(ext::kExplainGroup, {{"consumerGroup", QByteArray(300, '\x01')}}));
    QCOMPARE(r.code, 26);
    QCOMPARE(call(request(ext::kExplainCleanup)).code, 0); // the broker is still there
}

void tst_Explain::groupConsumeDisabledAndNoConsumer()
{
    createGroup("g-off", false);
    const ExplainBody b = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-off"}});
    QCOMPARE(b.question, QByteArray("group"));
    QCOMPARE(b.subject, QByteArray("g-off"));
    QCOMPARE(b.verdict(), QByteArray("blocking"));
    const ExplainFinding *off = b.find("consumeDisabled");
    QVERIFY2(off, describe(b).constData());
    QCOMPARE(off->verdict, QByteArray("blocking"));
    QCOMPARE(off->setting, QByteArray("consumeEnable"));
    QCOMPARE(off->value, QByteArray("false"));
    const ExplainFinding *none = b.find("noLiveConsumer");
    QVERIFY2(none, describe(b).constData());
    QCOMPARE(none->verdict, QByteArray("blocking"));
    QCOMPARE(none->setting, QByteArray("channelExpiredTimeoutMillis"));
    QCOMPARE(none->value, QByteArray("120000"));

    // Switched back on: consumeEnable is fine, the missing consumer still blocks.
    createGroup("g-off", true);
    const ExplainBody on = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-off"}});
    QVERIFY(!on.find("consumeDisabled"));
    QVERIFY2(on.find("consumeEnabled"), describe(on).constData());
    QCOMPARE(on.find("consumeEnabled")->verdict, QByteArray("ok"));
    QVERIFY(on.find("noLiveConsumer"));
}

void tst_Explain::groupSubscriptionsDiffer()
{
    createTopic("ExA", 2);
    createTopic("ExB", 2);
    remoting::RemotingClient a;
    remoting::RemotingClient b;
    heartbeat(a, "127.0.0.1@member-a", "g-mixed", {"ExA"});
    heartbeat(b, "127.0.0.1@member-b", "g-mixed", {"ExA", "ExB"});
    const ExplainBody body = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-mixed"}});
    QCOMPARE(body.verdict(), QByteArray("blocking"));
    QVERIFY2(body.find("liveConsumers"), describe(body).constData());
    QCOMPARE(body.find("liveConsumers")->verdict, QByteArray("ok"));
    std::map<QByteArray, QByteArray> byClient;
    for (const ExplainFinding &f : body.findings) {
        if (f.kind == "subscriptionsDiffer") {
            QCOMPARE(f.verdict, QByteArray("blocking"));
            QCOMPARE(f.setting, QByteArray("subscription"));
            byClient[f.client] = f.value;
        }
    }
    QCOMPARE(byClient.size(), std::size_t(2));
    QCOMPARE(byClient["127.0.0.1@member-a"], QByteArray("ExA(TAG:*)"));
    QCOMPARE(byClient["127.0.0.1@member-b"], QByteArray("ExA(TAG:*), ExB(TAG:*)"));

    // The same subscriptions: no longer a finding.
    heartbeat(a, "127.0.0.1@member-a", "g-mixed", {"ExA", "ExB"});
    const ExplainBody same = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-mixed"}});
    QVERIFY2(!same.find("subscriptionsDiffer"), describe(same).constData());
    QVERIFY(same.find("subscriptionsSame"));
    QVERIFY(!same.find("noLiveConsumer"));
}

void tst_Explain::groupQueueLockedByGoneClient()
{
    createTopic("ExLock", 2);
    remoting::RemotingClient member;
    heartbeat(member, "127.0.0.1@live-member", "g-lock", {"ExLock"});
    // A client that is not a member of the group locks queue 1 (orderly consumption).
    protocol::LockBatchRequestBody lock;
    lock.consumerGroup = "g-lock";
    lock.clientId = "127.0.0.1@gone-client";
    lock.mqSet.push_back({"ExLock", kBroker, 1});
    RemotingCommand r = call(request(41, {}, lock.toJson()));
    QVERIFY2(r.code == 0, r.remark.constData());
    // And the member locks queue 0.
    lock.clientId = "127.0.0.1@live-member";
    lock.mqSet = {{"ExLock", kBroker, 0}};
    r = invoke(member, brokerAddr(), request(41, {}, lock.toJson()));
    QVERIFY2(r.code == 0, r.remark.constData());

    const ExplainBody b
        = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-lock"}, {"topic", "ExLock"}});
    const ExplainFinding *gone = b.find("queueLockedByGoneClient");
    QVERIFY2(gone, describe(b).constData());
    QCOMPARE(gone->verdict, QByteArray("blocking"));
    QCOMPARE(gone->subject, QByteArray("ExLock:1"));
    QCOMPARE(gone->client, QByteArray("127.0.0.1@gone-client"));
    QCOMPARE(gone->setting, QByteArray("lockMaxLiveTimeMillis"));
    QCOMPARE(gone->value, QByteArray("60000"));
    const ExplainFinding *held = b.find("queueLocked");
    QVERIFY2(held, describe(b).constData());
    QCOMPARE(held->verdict, QByteArray("info"));
    QCOMPARE(held->subject, QByteArray("ExLock:0"));
    QCOMPARE(held->client, QByteArray("127.0.0.1@live-member"));
}

void tst_Explain::groupOffsetPastEnd()
{
    createTopic("ExOff", 1);
    for (int i = 0; i < 3; ++i)
        send("ExOff", 0, "off-" + num(i));
    remoting::RemotingClient member;
    heartbeat(member, "127.0.0.1@off-member", "g-off-end", {"ExOff"});
    const auto maxOffset = [&] {
        const RemotingCommand m = call(request(30, {{"topic", "ExOff"}, {"queueId", "0"}}));
        return m.code == 0 ? m.extLong("offset").value_or(-1) : -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(), std::int64_t(3), 5000);
    // UPDATE_CONSUMER_OFFSET far past the end.
    const RemotingCommand r = call(request(15,
        {{"consumerGroup", "g-off-end"}, {"topic", "ExOff"}, {"queueId", "0"},
            {"commitOffset", "1000"}}));
    QVERIFY2(r.code == 0, r.remark.constData());
    const ExplainBody b
        = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-off-end"}, {"topic", "ExOff"}});
    const ExplainFinding *past = b.find("offsetPastEnd");
    QVERIFY2(past, describe(b).constData());
    QCOMPARE(past->verdict, QByteArray("blocking"));
    QCOMPARE(past->subject, QByteArray("ExOff:0"));
    QCOMPARE(past->setting, QByteArray("committedOffset"));
    QCOMPARE(past->value, QByteArray("1000 > maxOffset 3"));

    // Committed at the end: nothing to consume, nothing blocking.
    QCOMPARE(call(request(15,
                      {{"consumerGroup", "g-off-end"}, {"topic", "ExOff"}, {"queueId", "0"},
                          {"commitOffset", "3"}}))
                 .code,
        0);
    const ExplainBody done
        = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-off-end"}, {"topic", "ExOff"}});
    QVERIFY2(!done.find("offsetPastEnd"), describe(done).constData());
    QVERIFY2(done.find("nothingToConsume"), describe(done).constData());
    QCOMPARE(done.verdict(), QByteArray("ok"));
}

void tst_Explain::groupPopInvisible()
{
    createTopic("ExPop", 1);
    createGroup("g-pop", true);
    for (int i = 0; i < 2; ++i)
        send("ExPop", 0, "pop-" + num(i));
    const auto maxOffset = [&] {
        const RemotingCommand m = call(request(30, {{"topic", "ExPop"}, {"queueId", "0"}}));
        return m.code == 0 ? m.extLong("offset").value_or(-1) : -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(), std::int64_t(2), 5000);
    const PopAnswer popped
        = popAnswer(call(popRequest("g-pop", "ExPop", -1, 8, 300000, 1000)), kBroker);
    QCOMPARE(popped.code, 0);
    QCOMPARE(popped.messages.size(), std::size_t(2));
    const ExplainBody b
        = explainHere(ext::kExplainGroup, {{"consumerGroup", "g-pop"}, {"topic", "ExPop"}});
    const ExplainFinding *invisible = b.find("popInvisible");
    QVERIFY2(invisible, describe(b).constData());
    QCOMPARE(invisible->verdict, QByteArray("warning"));
    QCOMPARE(invisible->setting, QByteArray("inFlight"));
    QVERIFY2(invisible->value.startsWith("2"), invisible->value.constData());
    QCOMPARE(invisible->subject, QByteArray("ExPop"));
}

void tst_Explain::sendBadInput()
{
    RemotingCommand r = call(request(ext::kExplainSend));
    QCOMPARE(r.code, 1);
    QVERIFY2(r.remark.contains("topic"), r.remark.constData());
    r = call(request(ext::kExplainSend, {{"topic", "NoSuchSendTopic"}}));
    QCOMPARE(r.code, 17);
    QVERIFY2(r.remark.contains("autoCreateTopicEnable=true"), r.remark.constData());
}

void tst_Explain::sendPermissions()
{
    createTopic("ExSend", 2);
    ExplainBody b = explainHere(ext::kExplainSend, {{"topic", "ExSend"}});
    QCOMPARE(b.question, QByteArray("send"));
    QCOMPARE(b.verdict(), QByteArray("ok"));
    QVERIFY2(b.find("brokerWriteable"), describe(b).constData());
    QCOMPARE(b.find("aclDisabled")->setting, QByteArray("aclEnable"));
    const ExplainFinding *pc = b.find("osPageCacheBusy");
    QVERIFY2(pc, describe(b).constData());
    QCOMPARE(pc->setting, QByteArray("osPageCacheBusyTimeOutMills"));
    QCOMPARE(pc->value, QByteArray("1000"));
    const ExplainFinding *queue = b.find("sendQueue");
    QVERIFY2(queue, describe(b).constData());
    QCOMPARE(queue->setting, QByteArray("sendThreadPoolQueueCapacity"));
    QCOMPARE(queue->value, QByteArray("0/10000"));
    QCOMPARE(b.find("diskSpace")->value, QByteArray("90% (commit log 10%, consume queue 10%)"));

    // The broker made read-only (brokerPermission 4): producers are steered away.
    RemotingCommand r = call(request(25, {}, "brokerPermission=4\n"));
    QVERIFY2(r.code == 0, r.remark.constData());
    b = explainHere(ext::kExplainSend, {{"topic", "ExSend"}});
    const ExplainFinding *ro = b.find("brokerNotWriteable");
    QVERIFY2(ro, describe(b).constData());
    QCOMPARE(ro->verdict, QByteArray("warning"));
    QCOMPARE(ro->setting, QByteArray("brokerPermission"));
    QCOMPARE(ro->value, QByteArray("4 (R-)"));
    r = call(request(25, {}, "brokerPermission=6\n"));
    QVERIFY2(r.code == 0, r.remark.constData());

    // Sends refused until a time to come; half messages refused.
    const std::int64_t later = QDateTime::currentMSecsSinceEpoch() + 3600 * 1000;
    r = call(request(25, {},
        "startAcceptSendRequestTimeStamp=" + num(later) + "\nrejectTransactionMessage=true\n"));
    QVERIFY2(r.code == 0, r.remark.constData());
    b = explainHere(ext::kExplainSend, {{"topic", "ExSend"}});
    const ExplainFinding *notYet = b.find("notAcceptingYet");
    QVERIFY2(notYet, describe(b).constData());
    QCOMPARE(notYet->verdict, QByteArray("blocking"));
    QCOMPARE(notYet->setting, QByteArray("startAcceptSendRequestTimeStamp"));
    QCOMPARE(notYet->value, num(later));
    const ExplainFinding *tx = b.find("rejectTransactionMessage");
    QVERIFY2(tx, describe(b).constData());
    QCOMPARE(tx->verdict, QByteArray("warning"));
    QCOMPARE(tx->value, QByteArray("true"));
    QCOMPARE(call(sendV2("ExSend", 0, "early", props({{"UNIQ_KEY", "early"}}))).code, 1);
    r = call(
        request(25, {}, "startAcceptSendRequestTimeStamp=0\nrejectTransactionMessage=false\n"));
    QVERIFY2(r.code == 0, r.remark.constData());
    b = explainHere(ext::kExplainSend, {{"topic", "ExSend"}});
    QVERIFY2(
        !b.find("notAcceptingYet") && !b.find("rejectTransactionMessage"), describe(b).constData());

    // A topic without the write bit.
    createTopic("ExSendRo", 2, 4);
    b = explainHere(ext::kExplainSend, {{"topic", "ExSendRo"}});
    const ExplainFinding *topicRo = b.find("topicNotWriteable");
    QVERIFY2(topicRo, describe(b).constData());
    QCOMPARE(topicRo->setting, QByteArray("perm"));
    QCOMPARE(topicRo->value, QByteArray("4 (R-)"));
    QVERIFY(b.find("brokerWriteable"));
}

void tst_Explain::cleanupNotExpired()
{
    // 64 KiB commit-log files: a few dozen 4 KiB messages fill several.
    createTopic("ExClean", 1);
    const QByteArray filler(4000, 'x');
    for (int i = 0; i < 40; ++i)
        send("ExClean", 0, num(i) + filler);
    const ExplainBody b = explainHere(ext::kExplainCleanup, {});
    QCOMPARE(b.question, QByteArray("cleanup"));
    int notExpired = 0;
    int current = 0;
    for (const ExplainFinding &f : b.findings) {
        if (f.kind == "notExpired") {
            ++notExpired;
            QCOMPARE(f.setting, QByteArray("fileReservedTime"));
            QCOMPARE(f.value, QByteArray("72 h"));
            QVERIFY2(f.subject.contains("commitlog"), f.subject.constData());
        } else if (f.kind == "currentFile") {
            ++current;
        }
    }
    QVERIFY2(notExpired >= 2, describe(b).constData());
    QCOMPARE(current, 1);
    const ExplainFinding *disk = b.find("diskRatio");
    QVERIFY2(disk, describe(b).constData());
    QCOMPARE(disk->setting, QByteArray("diskMaxUsedSpaceRatio"));
    QCOMPARE(disk->value, QByteArray("10% used, mark 75%"));
}

void tst_Explain::cleanupWaitingForDeleteWhen()
{
    // Restarted with fileReservedTime=0 (every full file expired) and a deleteWhen hour twelve
    // hours away; the disk at 10 % is below diskMaxUsedSpaceRatio, so nothing deletes them.
    QCOMPARE(m_broker.stop(), 0);
    const int hour = (QDateTime::currentDateTime().time().hour() + 12) % 24;
    const QByteArray deleteWhen = QByteArray::number(hour).rightJustified(2, '0');
    QVERIFY2(startBroker("fileReservedTime=0\ndeleteWhen=" + deleteWhen + "\n"),
        qPrintable(m_broker.error()));
    const ExplainBody b = explainHere(ext::kExplainCleanup, {});
    int waiting = 0;
    for (const ExplainFinding &f : b.findings) {
        QVERIFY2(f.kind != "notExpired", describe(b).constData());
        if (f.kind == "waitingDeleteWhen") {
            ++waiting;
            QCOMPARE(f.setting, QByteArray("deleteWhen"));
            QCOMPARE(f.value, deleteWhen);
        }
    }
    QVERIFY2(waiting >= 2, describe(b).constData());
}

void tst_Explain::sendDiskFull()
{
    // 95 % used: above diskSpaceWarningLevelRatio (90), the store refuses writes.
    writeDisk(m_diskFile, 95);
    QTRY_VERIFY_WITH_TIMEOUT(
        explainHere(ext::kExplainSend, {{"topic", "ExSend"}}).find("diskFull"), 10000);
    const ExplainBody b = explainHere(ext::kExplainSend, {{"topic", "ExSend"}});
    const ExplainFinding *full = b.find("diskFull");
    QVERIFY2(full, describe(b).constData());
    QCOMPARE(full->verdict, QByteArray("blocking"));
    QCOMPARE(full->setting, QByteArray("diskSpaceWarningLevelRatio"));
    QVERIFY2(full->value.startsWith("90% (commit log 95%"), full->value.constData());
    QCOMPARE(b.verdict(), QByteArray("blocking"));
    // And a send is indeed refused.
    const RemotingCommand r
        = call(sendV2("ExSend", 0, "refused", props({{"UNIQ_KEY", "refused"}})));
    QCOMPARE(r.code, 14); // SERVICE_NOT_AVAILABLE
    writeDisk(m_diskFile, 10);
    QTRY_VERIFY_WITH_TIMEOUT(
        !explainHere(ext::kExplainSend, {{"topic", "ExSend"}}).find("diskFull"), 10000);
}

void tst_Explain::brokerLiveGoneRefusedUnknown()
{
    const QByteArray ns = localAddr(m_nsPort);
    // The real broker: registered, live.
    QTRY_VERIFY_WITH_TIMEOUT(
        explain(m_client, ns, ext::kExplainBroker, {{"brokerName", kBroker}}).find("live"), 15000);
    ExplainBody b = explain(m_client, ns, ext::kExplainBroker, {{"brokerName", kBroker}});
    const ExplainFinding *live = b.find("live");
    QCOMPARE(live->verdict, QByteArray("ok"));
    QCOMPARE(live->setting, QByteArray("brokerChannelExpiredTime"));
    QVERIFY2(live->value.endsWith(" ms ago of 120000 ms"), live->value.constData());
    // The restart before this test: its first process unregistered (a clean stop) and has
    // registered again since.
    const ExplainFinding *before = b.find("unregistered");
    QVERIFY2(before, describe(b).constData());
    QVERIFY2(before->reason.contains("UNREGISTER_BROKER"), before->reason.constData());
    if (before->subject.startsWith(brokerAddr() + ' ')) // the same port again
        QCOMPARE(before->verdict, QByteArray("info"));

    // A broker that registers over its own connection, which then closes.
    {
        remoting::RemotingClient fake;
        const RemotingCommand r = invoke(fake, ns,
            request(103,
                {{"brokerName", "broker-fake"}, {"brokerAddr", "127.0.0.1:1"},
                    {"clusterName", "DefaultCluster"}, {"haServerAddr", "127.0.0.1:2"},
                    {"brokerId", "0"}}));
        QVERIFY2(r.code == 0, r.remark.constData());
        QVERIFY(explain(m_client, ns, ext::kExplainBroker, {{"brokerName", "broker-fake"}})
                    .find("live"));
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        explain(m_client, ns, ext::kExplainBroker, {{"brokerName", "broker-fake"}})
            .find("connectionClosed"),
        10000);
    b = explain(m_client, ns, ext::kExplainBroker, {{"brokerName", "broker-fake"}});
    QCOMPARE(b.find("connectionClosed")->verdict, QByteArray("blocking"));
    QCOMPARE(b.find("connectionClosed")->subject, QByteArray("127.0.0.1:1 (brokerId 0)"));
    QVERIFY(!b.find("live"));

    // A registration refused for its body's checksum.
    const RemotingCommand bad = invoke(m_client, ns,
        request(103,
            {{"brokerName", "broker-badcrc"}, {"brokerAddr", "127.0.0.1:3"},
                {"clusterName", "DefaultCluster"}, {"haServerAddr", "127.0.0.1:4"},
                {"brokerId", "0"}, {"bodyCrc32", "12345"}},
            "{\"topicConfigSerializeWrapper\":{}}"));
    QCOMPARE(bad.code, 1);
    b = explain(m_client, ns, ext::kExplainBroker, {{"brokerName", "broker-badcrc"}});
    const ExplainFinding *refused = b.find("registrationRefused");
    QVERIFY2(refused, describe(b).constData());
    QCOMPARE(refused->verdict, QByteArray("warning"));
    QVERIFY2(refused->reason.contains("crc32 not match"), refused->reason.constData());
    QCOMPARE(refused->subject, QByteArray("127.0.0.1:3"));

    // Never seen.
    b = explain(m_client, ns, ext::kExplainBroker, {{"brokerName", "broker-nobody"}});
    QCOMPARE(b.findings.size(), std::size_t(1));
    QCOMPARE(b.findings[0].kind, QByteArray("neverRegistered"));
    QCOMPARE(b.verdict(), QByteArray("blocking"));
    // No name at all: an error.
    const RemotingCommand missing = invoke(m_client, ns, request(ext::kExplainBroker));
    QCOMPARE(missing.code, 1);
    QVERIFY2(missing.remark.contains("brokerName"), missing.remark.constData());
}

void tst_Explain::brokerLateThenExpired()
{
    // A second name server expiring brokers after 4 s, scanning every 200 ms.
    DaemonProcess ns2(QStringLiteral("qrocket-namesrv"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    quint16 port = 0;
    QVERIFY2(startOnFreePort(ns2, QDir(dir.path()).filePath(QStringLiteral("namesrv.conf")), port,
                 [&](quint16 p) {
                     return "listenPort=" + QByteArray::number(p) + "\nkvConfigPath="
                         + QDir(dir.path()).filePath(QStringLiteral("kv.json")).toUtf8()
                         + "\nbrokerChannelExpiredTime=4000\nscanNotActiveBrokerInterval=200\n";
                 }),
        qPrintable(ns2.error()));
    const QByteArray addr = localAddr(port);
    remoting::RemotingClient silent; // registers once, then says nothing, connection kept
    const RemotingCommand r = invoke(silent, addr,
        request(103,
            {{"brokerName", "broker-silent"}, {"brokerAddr", "127.0.0.1:5"},
                {"clusterName", "DefaultCluster"}, {"haServerAddr", "127.0.0.1:6"},
                {"brokerId", "0"}}));
    QVERIFY2(r.code == 0, r.remark.constData());
    const auto ask = [&] {
        return explain(m_client, addr, ext::kExplainBroker, {{"brokerName", "broker-silent"}});
    };
    QCOMPARE(ask().findings.at(0).kind, QByteArray("live"));
    // Past half the expiry: late.
    QTRY_VERIFY_WITH_TIMEOUT(ask().find("late") || ask().find("expired"), 10000);
    const ExplainBody late = ask();
    if (const ExplainFinding *f = late.find("late")) {
        QCOMPARE(f->verdict, QByteArray("warning"));
        QCOMPARE(f->setting, QByteArray("brokerChannelExpiredTime"));
        QVERIFY2(f->value.endsWith(" ms ago of 4000 ms"), f->value.constData());
    }
    // Past the expiry: removed by the scan, with the setting that decided.
    QTRY_VERIFY_WITH_TIMEOUT(ask().find("expired"), 10000);
    const ExplainBody gone = ask();
    const ExplainFinding *expired = gone.find("expired");
    QCOMPARE(expired->verdict, QByteArray("blocking"));
    QCOMPARE(expired->setting, QByteArray("brokerChannelExpiredTime"));
    QVERIFY2(expired->value.startsWith("4000 ms; removed "), expired->value.constData());
    QVERIFY2(
        expired->reason.contains("brokerChannelExpiredTime 4000 ms"), expired->reason.constData());
    QVERIFY(!gone.find("live"));
    QCOMPARE(ns2.stop(), 0);
}

void tst_Explain::adminCliPrintsFindings()
{
    const QString admin = QDir(binDir()).filePath(QStringLiteral("qrocket-admin"));
    const QString ns = QString::fromUtf8(localAddr(m_nsPort));
    createGroup("g-cli", false);
    auto [code, out] = runProgram(admin,
        {QStringLiteral("explainGroup"), QStringLiteral("-g"), QStringLiteral("g-cli"),
            QStringLiteral("-n"), ns},
        20000);
    QVERIFY2(code == 0, out.constData());
    QVERIFY2(out.contains("consumeDisabled"), out.constData());
    QVERIFY2(out.contains("consumeEnable"), out.constData());
    QVERIFY2(out.contains("Verdict: blocking"), out.constData());
    QVERIFY2(out.contains(kBroker), out.constData());

    auto [jcode, json] = runProgram(admin,
        {QStringLiteral("explainSend"), QStringLiteral("-t"), QStringLiteral("ExSend"),
            QStringLiteral("-n"), ns, QStringLiteral("--json")},
        20000);
    QVERIFY2(jcode == 0, json.constData());
    QVERIFY2(json.contains("\"osPageCacheBusyTimeOutMills\""), json.constData());
    QVERIFY2(json.contains("\"verdict\""), json.constData());

    auto [bcode, bout] = runProgram(admin,
        {QStringLiteral("explainBroker"), QStringLiteral("-b"), QString::fromUtf8(kBroker),
            QStringLiteral("-n"), ns},
        20000);
    QVERIFY2(bcode == 0, bout.constData());
    QVERIFY2(bout.contains("brokerChannelExpiredTime"), bout.constData());

    // An unknown group on the only broker: the command fails with the broker's error.
    auto [ucode, uout] = runProgram(admin,
        {QStringLiteral("explainGroup"), QStringLiteral("-g"), QStringLiteral("no-such"),
            QStringLiteral("-n"), ns},
        20000);
    QCOMPARE(ucode, 1);
    QVERIFY2(uout.contains("not exist"), uout.constData());
}

void tst_Explain::sendOnASlave()
{
    // A slave of this test's master (same brokerName, brokerId 1): explainSend names brokerRole,
    // and the slave's own answer to a send is the refusal it predicts.
    createTopic("ExSlave", 1);
    DaemonProcess slave(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    const QByteArray store = QDir(m_dir.path()).filePath(QStringLiteral("slavestore")).toUtf8();
    QVERIFY2(startOnFreePort(slave, QDir(m_dir.path()).filePath(QStringLiteral("slave.conf")), port,
                 [&](quint16 p) {
                     return brokerConf(p, "brokerId=1\nbrokerRole=SLAVE\n")
                         .replace("storePathRootDir=", "storePathRootDir=" + store + "\n#");
                 }),
        qPrintable(slave.error()));
    const QByteArray addr = localAddr(port);
    // The topic comes from the master, as a slave's config sync brings it.
    ExplainBody b;
    QTRY_VERIFY_WITH_TIMEOUT(
        invoke(m_client, addr, request(ext::kExplainSend, {{"topic", "ExSlave"}})).code == 0,
        30000);
    b = explain(m_client, addr, ext::kExplainSend, {{"topic", "ExSlave"}});
    const ExplainFinding *role = b.find("slave");
    QVERIFY2(role, describe(b).constData());
    QCOMPARE(role->verdict, QByteArray("blocking"));
    QCOMPARE(role->setting, QByteArray("brokerRole"));
    QCOMPARE(role->value, QByteArray("SLAVE"));
    QCOMPARE(b.verdict(), QByteArray("blocking"));
    RemotingCommand send = request(310,
        {{"a", "ExSlave"}, {"b", "TBW102"}, {"c", "1"}, {"d", "0"}, {"e", "0"}, {"f", "0"},
            {"g", "0"}, {"h", "0"}, {"i", ""}, {"j", "0"}, {"k", "false"}});
    send.body = "to a slave";
    const RemotingCommand r = invoke(m_client, addr, std::move(send));
    QCOMPARE(r.code, 14); // SERVICE_NOT_AVAILABLE, as the finding says
    QCOMPARE(slave.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_Explain)
#include "tst_explain.moc"
