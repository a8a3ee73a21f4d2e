// Light message queues (RocketMQ 4.9.3+ LMQ, RIP-28) with a real qrocket-broker process:
// SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE with INNER_MULTI_DISPATCH naming three %LMQ% queues, each
// pulled (topic "%LMQ%name", queue 0, no topic config) with exactly those messages at offsets
// 0..n-1 and INNER_MULTI_QUEUE_OFFSET in each; consumer offsets on a light queue; kill -9 and a
// restart, after which offsets continue without gap or repeat; a held pull on a light queue woken
// by a message to it; deletion (DELETE_TOPIC_IN_BROKER); enableLmq=false refusing the pull with
// TOPIC_NOT_EXIST; hostile INNER_MULTI_DISPATCH lists refused with MESSAGE_ILLEGAL, the broker
// still serving.

#include "clientlib/protocol/messagebatch.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

namespace {
constexpr int kTopicNotExist = 17;

/// What a process holds: resident memory, mappings, open descriptors (from /proc).
struct Footprint
{
    qint64 rssKb = -1;
    int maps = -1;
    int fds = -1;
};

Footprint footprintOf(qint64 pid)
{
    Footprint f;
    const QString proc = QStringLiteral("/proc/%1/").arg(pid);
    QFile status(proc + QStringLiteral("status"));
    if (status.open(QIODevice::ReadOnly)) {
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("VmRSS:"))
                f.rssKb = line.mid(6).trimmed().split(' ').value(0).toLongLong();
        }
    }
    QFile maps(proc + QStringLiteral("maps"));
    if (maps.open(QIODevice::ReadOnly))
        f.maps = static_cast<int>(maps.readAll().count('\n'));
    f.fds = static_cast<int>(QDir(proc + QStringLiteral("fd"))
                                 .entryList(QDir::AllEntries | QDir::NoDotAndDotDot)
                                 .size());
    return f;
}

qint64 diskUsageKb(const QString &dir)
{
    const auto [code, out] = runProgram(QStringLiteral("du"), {QStringLiteral("-sk"), dir});
    return code == 0 ? out.split('\t').value(0).toLongLong() : -1;
}
constexpr int kMessageIllegal = 13;
constexpr int kSubscriptionGroupNotExist = 26;

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray dispatchProps(const QByteArray &queues)
{
    return "TAGS\x01lmq\x02INNER_MULTI_DISPATCH\x01" + queues;
}

RemotingCommand pullRequest(
    const QByteArray &topic, std::int64_t offset, int sysFlag = 4, std::int64_t suspendMs = 0)
{
    return request(11,
        {{"consumerGroup", "GID_lmq"}, {"topic", topic}, {"queueId", "0"},
            {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", num(sysFlag)},
            {"commitOffset", "-1"}, {"suspendTimeoutMillis", num(suspendMs)}, {"subscription", "*"},
            {"subVersion", "0"}});
}
} // namespace

class tst_LmqDaemon final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sendPullCrashAndContinue();
    void heldPullWakesOnLightQueue();
    void hostileListsRefused();
    void disabledLmqRefusesPull();
    void lightQueueGroupsKeepOffsetsInTheirFile();
    void fiveThousandLightQueues();
    void lightQueuesBeyondTheMappingCap();

private:
    bool startBroker(DaemonProcess &broker, const QString &name, bool enableLmq,
        const QByteArray &extraConf = {});
    RemotingCommand call(RemotingCommand req) { return invoke(m_client, m_addr, std::move(req)); }
    /// Pulls every message of `lmq` from `from`; checks the INNER_MULTI_QUEUE_OFFSET of each
    /// names its own offset at `slot` and returns the bodies.
    QList<QByteArray> pullAll(const QByteArray &lmq, std::int64_t from, int slot);

    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
    quint16 m_port = 0;
    QByteArray m_addr;
};

bool tst_LmqDaemon::startBroker(
    DaemonProcess &broker, const QString &name, bool enableLmq, const QByteArray &extraConf)
{
    const QString store = m_dir.filePath(name);
    const QByteArray conf = "brokerName=broker-lmq\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"
                            "storePathRootDir="
        + store.toUtf8()
        + "\nmappedFileSizeCommitLog=16777216\nenableMultiDispatch=true\nenableLmq="
        + (enableLmq ? "true" : "false") + "\n" + extraConf;
    m_port = 0;
    const bool ok = startOnFreePort(broker, m_dir.filePath(name + QStringLiteral(".conf")), m_port,
        [&](quint16 p) { return conf + "listenPort=" + num(p) + "\n"; });
    m_addr = localAddr(m_port);
    return ok;
}

QList<QByteArray> tst_LmqDaemon::pullAll(const QByteArray &lmq, std::int64_t from, int slot)
{
    QList<QByteArray> bodies;
    std::int64_t next = from;
    for (int round = 0; round < 100; ++round) {
        const RemotingCommand r = call(pullRequest(lmq, next));
        if (r.code != 0)
            break;
        for (const protocol::MessageRecordView &rec : records(r.body)) {
            const QByteArrayView offs
                = protocol::findProperty(rec.properties, "INNER_MULTI_QUEUE_OFFSET");
            const QList<QByteArray> parts = offs.toByteArray().split(',');
            if (slot >= parts.size() || parts[slot] != num(from + bodies.size())) {
                qWarning() << "message" << rec.body << "of" << lmq << "has offsets" << offs
                           << "expected" << from + bodies.size() << "at" << slot;
                bodies.append("<bad offset>");
            } else {
                bodies.append(rec.body.toByteArray());
            }
        }
        next = r.extLong("nextBeginOffset").value_or(next);
    }
    return bodies;
}

void tst_LmqDaemon::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void tst_LmqDaemon::sendPullCrashAndContinue()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(startBroker(broker, QStringLiteral("crash"), true), qPrintable(broker.error()));
    const QByteArray lmqs = "%LMQ%a,%LMQ%b,%LMQ%c";
    QList<QByteArray> expected;
    for (int i = 0; i < 5; ++i) {
        const QByteArray body = "single-" + num(i);
        QCOMPARE(call(sendV2("LmqTopic", 0, body, dispatchProps(lmqs))).code, 0);
        expected.append(body);
    }
    // A batch: each message names the queues itself.
    std::vector<protocol::BatchItemView> items;
    const QByteArray p = dispatchProps(lmqs);
    for (const char *b : {"batch-0", "batch-1", "batch-2"}) {
        items.push_back({0, b, p});
        expected.append(b);
    }
    RemotingCommand batch = sendV2("LmqTopic", 0, {});
    batch.code = 320;
    batch.body = protocol::encodeBatch(items);
    QCOMPARE(call(batch).code, 0);
    QCOMPARE(call(sendV2("LmqTopic", 0, "plain")).code, 0); // the real topic only

    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", "%LMQ%c"}, {"queueId", "0"}})).extLong("offset").value_or(-1),
        8, 5000);
    for (int slot = 0; slot < 3; ++slot)
        QCOMPARE(pullAll(lmqs.split(',')[slot], 0, slot), expected);
    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", "LmqTopic"}, {"queueId", "0"}})).extLong("offset").value_or(-1),
        9, 5000);
    QCOMPARE(call(pullRequest("%LMQ%a", 8)).code, 19); // PULL_NOT_FOUND at the end

    // Consumer offsets on a light queue.
    QCOMPARE(call(request(15,
                      {{"consumerGroup", "GID_lmq"}, {"topic", "%LMQ%a"}, {"queueId", "0"},
                          {"commitOffset", "5"}}))
                 .code,
        0);
    const RemotingCommand q
        = call(request(14, {{"consumerGroup", "GID_lmq"}, {"topic", "%LMQ%a"}, {"queueId", "0"}}));
    QCOMPARE(q.code, 0);
    QCOMPARE(q.extLong("offset"), 5);

    // kill -9 and a restart on the same store: each light queue continues at 8.
    broker.kill();
    QVERIFY2(startBroker(broker, QStringLiteral("crash"), true), qPrintable(broker.error()));
    QList<QByteArray> more;
    for (int i = 0; i < 3; ++i) {
        const QByteArray body = "after-" + num(i);
        QCOMPARE(call(sendV2("LmqTopic", 0, body, dispatchProps(lmqs))).code, 0);
        more.append(body);
    }
    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", "%LMQ%b"}, {"queueId", "0"}})).extLong("offset").value_or(-1),
        11, 5000);
    for (int slot = 0; slot < 3; ++slot)
        QCOMPARE(pullAll(lmqs.split(',')[slot], 0, slot), expected + more);

    // DELETE_TOPIC_IN_BROKER on a light queue: gone, and the next message starts it at 0.
    QCOMPARE(call(request(215, {{"topic", "%LMQ%c"}})).code, 0);
    QCOMPARE(call(request(30, {{"topic", "%LMQ%c"}, {"queueId", "0"}})).extLong("offset"), 0);
    QCOMPARE(call(sendV2("LmqTopic", 0, "reborn", dispatchProps("%LMQ%c"))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", "%LMQ%c"}, {"queueId", "0"}})).extLong("offset").value_or(-1),
        1, 5000);
    QCOMPARE(pullAll("%LMQ%c", 0, 0), QList<QByteArray> {"reborn"});
    QCOMPARE(broker.stop(), 0);
}

void tst_LmqDaemon::heldPullWakesOnLightQueue()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(startBroker(broker, QStringLiteral("wake"), true), qPrintable(broker.error()));
    QCOMPARE(call(sendV2("WakeTopic", 1, "first", dispatchProps("%LMQ%wake"))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(call(request(30, {{"topic", "%LMQ%wake"}, {"queueId", "0"}}))
                                  .extLong("offset")
                                  .value_or(-1),
        1, 5000);
    // A pull at the end with SUSPEND (sysFlag 2|4), held up to 30 s.
    std::atomic<int> code {-2};
    QByteArray body;
    m_client.invokeAsync(
        m_addr, pullRequest("%LMQ%wake", 1, 6, 30000), 40000, [&](Result<RemotingCommand> r) {
            if (r) {
                body = r->body;
                code = r->code;
            } else {
                code = -1;
            }
        });
    QCOMPARE(call(request(28)).code, 0); // the pull was read before this answer
    QCOMPARE(code.load(), -2);
    QElapsedTimer held;
    held.start();
    QCOMPARE(call(sendV2("WakeTopic", 1, "second", dispatchProps("%LMQ%wake"))).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(code.load() != -2, 10000);
    QCOMPARE(code.load(), 0);
    QVERIFY2(held.elapsed() < 5000, "woken by the arrival, not the suspend timeout");
    const auto recs = records(body);
    QCOMPARE(recs.size(), std::size_t(1));
    QCOMPARE(recs[0].body, QByteArrayView("second"));
    QCOMPARE(protocol::findProperty(recs[0].properties, "INNER_MULTI_QUEUE_OFFSET"),
        QByteArrayView("1"));

    // A light queue that does not exist yet (a subscriber before the first message): held at
    // offset 0 and woken by the message that creates it.
    std::atomic<int> freshCode {-2};
    QByteArray freshBody;
    m_client.invokeAsync(
        m_addr, pullRequest("%LMQ%fresh", 0, 6, 30000), 40000, [&](Result<RemotingCommand> r) {
            if (r) {
                freshBody = r->body;
                freshCode = r->code;
            } else {
                freshCode = -1;
            }
        });
    QCOMPARE(call(request(28)).code, 0);
    QCOMPARE(freshCode.load(), -2);
    held.restart();
    QCOMPARE(call(sendV2("WakeTopic", 2, "third", dispatchProps("%LMQ%wake,%LMQ%fresh"))).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(freshCode.load() != -2, 10000);
    QCOMPARE(freshCode.load(), 0);
    QVERIFY2(held.elapsed() < 5000, "woken by the arrival, not the suspend timeout");
    const auto fresh = records(freshBody);
    QCOMPARE(fresh.size(), std::size_t(1));
    QCOMPARE(fresh[0].body, QByteArrayView("third"));
    QCOMPARE(protocol::findProperty(fresh[0].properties, "INNER_MULTI_QUEUE_OFFSET"),
        QByteArrayView("2,0"));
    QCOMPARE(broker.stop(), 0);
}

void tst_LmqDaemon::hostileListsRefused()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(startBroker(broker, QStringLiteral("hostile"), true), qPrintable(broker.error()));
    QByteArray many;
    for (int i = 0; i < 10000; ++i)
        many += i ? ",x" : "x";
    QByteArray manyLmq;
    for (int i = 0; i < 10000; ++i)
        manyLmq += (i ? ",%LMQ%" : "%LMQ%") + num(i);
    const QList<std::pair<QByteArray, QByteArray>> cases {
        {"%LMQ%a,,%LMQ%b", "empty"},
        {",", "empty"},
        {"%LMQ%a,", "empty"},
        {"%LMQ%../../x", "not a valid topic name"},
        {"%LMQ%a b", "not a valid topic name"},
        {"%LMQ%" + QByteArray(300, 'z'), "not a valid topic name"},
        {"HostileTopic", "own topic"},
        {many, "more than 4096"},
        {manyLmq, "properties"},
    };
    for (const auto &[list, why] : cases) {
        const RemotingCommand r = call(sendV2("HostileTopic", 0, "x", dispatchProps(list)));
        QVERIFY2(r.code == kMessageIllegal && r.remark.contains(why),
            qPrintable(QStringLiteral("%1 for %2...: %3")
                           .arg(r.code)
                           .arg(QString::fromLatin1(list.left(40)))
                           .arg(QString::fromUtf8(r.remark))));
    }
    // Nothing stored, nothing created, and the broker serves on.
    QCOMPARE(call(sendV2("HostileTopic", 0, "fine", dispatchProps("%LMQ%ok"))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", "%LMQ%ok"}, {"queueId", "0"}})).extLong("offset").value_or(-1),
        1, 5000);
    // (Light queues are filed first, the message's own queue right after.)
    QTRY_COMPARE_WITH_TIMEOUT(call(request(30, {{"topic", "HostileTopic"}, {"queueId", "0"}}))
                                  .extLong("offset")
                                  .value_or(-1),
        1, 5000);
    QCOMPARE(call(pullRequest("%LMQ%a", 0)).code, 19); // no such light queue: nothing found
    QCOMPARE(broker.stop(), 0);
}

void tst_LmqDaemon::disabledLmqRefusesPull()
{
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(startBroker(broker, QStringLiteral("off"), false), qPrintable(broker.error()));
    const RemotingCommand r = call(pullRequest("%LMQ%a", 0));
    QCOMPARE(r.code, kTopicNotExist);
    QVERIFY2(r.remark.contains("not exist"), r.remark.constData());
    QCOMPARE(broker.stop(), 0);
}

void tst_LmqDaemon::lightQueueGroupsKeepOffsetsInTheirFile()
{
    // RocketMQ's MQTT gateway consumes each light queue as a group of the same name. With
    // enableLmq such a group is never stored (not even with auto-create off) and its offset is one
    // number in lmqConsumerOffset.json's lmqOffsetTable, as RocketMQ 4.9.7 keeps it.
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    const QByteArray conf = "autoCreateSubscriptionGroup=false\n";
    QVERIFY2(startBroker(broker, QStringLiteral("groups"), true, conf), qPrintable(broker.error()));
    const QByteArray room = "%LMQ%room";
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call(sendV2("LmqTopic", 0, "m" + num(i), dispatchProps(room))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        call(request(30, {{"topic", room}, {"queueId", "0"}})).extLong("offset").value_or(-1), 3,
        5000);
    RemotingCommand pull = pullRequest(room, 0);
    pull.setExt("consumerGroup", room);
    QCOMPARE(call(pull).code, 0); // the group reads as the defaults
    QCOMPARE(call(pullRequest(room, 0)).code, kSubscriptionGroupNotExist); // GID_lmq: not created
    QCOMPARE(call(request(15,
                      {{"consumerGroup", room}, {"topic", room}, {"queueId", "0"},
                          {"commitOffset", "2"}}))
                 .code,
        0);
    QCOMPARE(broker.stop(), 0);

    const QString config = m_dir.filePath(QStringLiteral("groups/config/"));
    const QByteArray offsets = readFile(config + QStringLiteral("lmqConsumerOffset.json"));
    QVERIFY2(
        offsets.contains(R"("lmqOffsetTable":{"%LMQ%room@%LMQ%room":2})"), offsets.constData());
    QVERIFY(!readFile(config + QStringLiteral("subscriptionGroup.json")).contains(room));

    QVERIFY2(startBroker(broker, QStringLiteral("groups"), true, conf), qPrintable(broker.error()));
    const RemotingCommand q
        = call(request(14, {{"consumerGroup", room}, {"topic", room}, {"queueId", "0"}}));
    QCOMPARE(q.code, 0);
    QCOMPARE(q.extLong("offset"), 2);
    QCOMPARE(broker.stop(), 0);
}

void tst_LmqDaemon::fiveThousandLightQueues()
{
    // Five messages, each to 1,000 new light queues: 5,000 consume queues of 80 KB files (6 MB
    // each at mappedFileSizeConsumeQueue's default would preallocate 30 GB).
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(startBroker(broker, QStringLiteral("many"), true), qPrintable(broker.error()));
    QCOMPARE(call(sendV2("ManyTopic", 0, "warm-up")).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(call(request(30, {{"topic", "ManyTopic"}, {"queueId", "0"}}))
                                  .extLong("offset")
                                  .value_or(-1),
        1, 5000);
    const Footprint before = footprintOf(broker.pid());
    QElapsedTimer timer;
    timer.start();
    for (int m = 0; m < 5; ++m) {
        QByteArray names;
        for (int i = 0; i < 1000; ++i)
            names += (i ? ",%LMQ%many" : "%LMQ%many") + num(m * 1000 + i);
        const RemotingCommand r
            = call(sendV2("ManyTopic", 0, "to-1000-" + num(m), dispatchProps(names)));
        QVERIFY2(r.code == 0, r.remark.constData());
    }
    QTRY_COMPARE_WITH_TIMEOUT(call(request(30, {{"topic", "ManyTopic"}, {"queueId", "0"}}))
                                  .extLong("offset")
                                  .value_or(-1),
        6, 60000);
    const qint64 filedMs = timer.elapsed();
    // Each of the first message's 1,000 light queues holds it at offset 0.
    for (int i = 0; i < 1000; ++i) {
        const RemotingCommand r = call(pullRequest("%LMQ%many" + num(i), 0));
        QCOMPARE(r.code, 0);
        const auto recs = records(r.body);
        QCOMPARE(recs.size(), std::size_t(1));
        QCOMPARE(recs[0].body, QByteArrayView("to-1000-0"));
    }
    const Footprint after = footprintOf(broker.pid());
    const qint64 cqKb = diskUsageKb(m_dir.filePath(QStringLiteral("many/consumequeue")));
    qInfo().noquote() << QStringLiteral(
        "5,000 light queues filed in %1 ms: broker RSS %2 -> %3 MB, mappings %4 -> %5, open fds "
        "%6 -> %7, consumequeue/ on disk %8 MB")
                             .arg(filedMs)
                             .arg(before.rssKb / 1024.0, 0, 'f', 1)
                             .arg(after.rssKb / 1024.0, 0, 'f', 1)
                             .arg(before.maps)
                             .arg(after.maps)
                             .arg(before.fds)
                             .arg(after.fds)
                             .arg(cqKb / 1024.0, 0, 'f', 1);
    // One mapping and one descriptor per light queue's file while they fit in the mapping cache
    // (maxMappedConsumeQueueFiles: half of ulimit -n by default, 10,000 here), 80 KB of disk each.
    QVERIFY(after.maps - before.maps >= 5000 && after.maps - before.maps < 5500);
    QVERIFY(after.fds - before.fds >= 5000 && after.fds - before.fds < 5500);
    // (du also counts two 4 KB directories per queue, and the topic's own 6 MB file.)
    QVERIFY(cqKb < 5000 * (80 + 8) + 16 * 1024);
    QVERIFY(after.rssKb - before.rssKb < 200 * 1024);
    // A clean stop flushes every consume-queue file (one syncfs for all): measured, bounded.
    QElapsedTimer stopTimer;
    stopTimer.start();
    const int stopped = broker.stop(60000);
    qInfo().noquote() << QStringLiteral("clean stop with 5,000 light queues: %1 ms (exit %2)")
                             .arg(stopTimer.elapsed())
                             .arg(stopped);
    QCOMPARE(stopped, 0);
}

void tst_LmqDaemon::lightQueuesBeyondTheMappingCap()
{
    // 3,000 light queues, at most 128 consume-queue files mapped: the broker's descriptors stay
    // near the cap while every queue is filed and pulled, and again after a restart.
    constexpr int kCap = 128;
    constexpr int kQueues = 3000;
    const QByteArray extra = "maxMappedConsumeQueueFiles=" + num(kCap) + "\n";
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    QVERIFY2(
        startBroker(broker, QStringLiteral("capped"), true, extra), qPrintable(broker.error()));
    QCOMPARE(call(sendV2("CapTopic", 0, "warm-up")).code, 0);
    const Footprint before = footprintOf(broker.pid());
    for (int m = 0; m < kQueues / 1000; ++m) {
        QByteArray names;
        for (int i = 0; i < 1000; ++i)
            names += (i ? ",%LMQ%cap" : "%LMQ%cap") + num(m * 1000 + i);
        const RemotingCommand r
            = call(sendV2("CapTopic", 0, "cap-" + num(m), dispatchProps(names)));
        QVERIFY2(r.code == 0, r.remark.constData());
    }
    auto everyQueuePulls = [&] {
        for (int q = 0; q < kQueues; ++q) {
            const RemotingCommand r = call(pullRequest("%LMQ%cap" + num(q), 0));
            const auto recs = records(r.body);
            if (r.code != 0 || recs.size() != 1 || recs[0].body != "cap-" + num(q / 1000)) {
                qWarning() << "light queue" << q << "answered" << r.code << recs.size();
                return false;
            }
        }
        return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(call(pullRequest("%LMQ%cap" + num(kQueues - 1), 0)).code == 0, 30000);
    QVERIFY(everyQueuePulls());
    const Footprint after = footprintOf(broker.pid());
    qInfo().noquote() << QStringLiteral("%1 light queues, cap %2: open fds %3 -> %4, mappings "
                                        "%5 -> %6")
                             .arg(kQueues)
                             .arg(kCap)
                             .arg(before.fds)
                             .arg(after.fds)
                             .arg(before.maps)
                             .arg(after.maps);
    QVERIFY2(after.fds - before.fds <= kCap + 32, num(after.fds).constData());
    QVERIFY(after.maps - before.maps <= kCap + 64);
    QCOMPARE(broker.stop(60000), 0);
    // Restarted on the same store: still bounded, still all there.
    QVERIFY2(
        startBroker(broker, QStringLiteral("capped"), true, extra), qPrintable(broker.error()));
    QVERIFY(everyQueuePulls());
    const Footprint restarted = footprintOf(broker.pid());
    QVERIFY(restarted.fds - before.fds <= kCap + 32);
    QCOMPARE(broker.stop(60000), 0);
}

QTEST_GUILESS_MAIN(tst_LmqDaemon)
#include "tst_lmqdaemon.moc"
