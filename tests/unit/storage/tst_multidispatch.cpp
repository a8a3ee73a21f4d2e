// Multi-dispatch / light message queues (storage/core/multidispatch.h): the property parse and
// rewrite, and the store filing one commit-log record in every named queue, across a reopen
// after a crash (offsets rebuilt from the consume queues) and a deletion of a light queue.

#include "storage/core/multidispatch.h"
#include "storage/core/recordutil.h"
#include "tests/unit/storage/storetestutil.h"

#include <QDateTime>
#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_MultiDispatch : public QObject
{
    Q_OBJECT
private slots:
    void precheck();
    void parseNames();
    void parseRefusesHostileLists();
    void rewriteOffsets();
    void walkNamesAndOffsets();
    void storeFilesEveryNamedQueue();
    void batchAndNonLmqNames();
    void disabledStoresVerbatim();
    void crashRecoveryContinuesOffsets();
    void deleteLightQueueAndLimit();
    void lightQueueFilesAreSmall();
    void waitingMessagesAreNotDispatched();
    void expiredLightQueuesAreDeleted();
};

namespace {
QByteArray withProp(QByteArray props, const char *name, const QByteArray &value)
{
    if (!props.isEmpty())
        props += '\x02';
    return props + name + '\x01' + value;
}

MessageExtBrokerInner lmqMessage(
    const QByteArray &topic, int queueId, const QByteArray &body, const QByteArray &queues)
{
    MessageExtBrokerInner m = message(topic, queueId, body, "TagA");
    m.properties = withProp(m.properties, "INNER_MULTI_DISPATCH", queues);
    return m;
}

MessageStoreConfig lmqConfig(const QString &root)
{
    MessageStoreConfig c = smallConfig(root);
    c.mappedFileSizeConsumeQueue = 20 * 300000; // the default: light queues must not use it
    c.enableLmq = true;
    c.enableMultiDispatch = true;
    return c;
}

std::unique_ptr<MessageStore> openStore(const MessageStoreConfig &c)
{
    StoreOptions options;
    options.runCleanService = false;
    auto s = std::make_unique<MessageStore>(c, options);
    if (!s->open())
        return nullptr;
    return s;
}

/// The record at queue offset `i` of (topic, queueId), decoded; fails the test when absent.
QByteArray bodyAt(MessageStore &s, const QByteArray &topic, int queueId, std::int64_t i,
    QByteArray *multiOffsets = nullptr)
{
    const GetMessageResult r = s.getMessage("g", topic, queueId, i, 1);
    if (r.status != GetMessageStatus::Found || r.messages.size() != 1)
        return QByteArrayLiteral("<missing>");
    protocol::MessageRecordView rec;
    if (protocol::decodeRecord(r.messages[0], rec, true).status != protocol::RecordStatus::Ok)
        return QByteArrayLiteral("<bad>");
    if (multiOffsets)
        *multiOffsets = findProperty(rec.properties, kPropertyMultiQueueOffset).toByteArray();
    return rec.body.toByteArray();
}
} // namespace

void tst_MultiDispatch::precheck()
{
    QVERIFY(!mayHaveMultiDispatch({}));
    QVERIFY(!mayHaveMultiDispatch(properties("TagA", "k1")));
    QVERIFY(mayHaveMultiDispatch(withProp({}, "INNER_MULTI_DISPATCH", "a")));
    QVERIFY(mayHaveMultiDispatch(withProp(properties("T"), "INNER_MULTI_DISPATCH", "%LMQ%a")));
    // A false positive (the name inside a value) is for the parse to reject.
    const QByteArray fake = withProp({}, "KEYS", QByteArray("INNER_MULTI_DISPATCH\x01x"));
    QVERIFY(mayHaveMultiDispatch(fake));
    std::vector<QByteArrayView> names;
    QVERIFY(parseMultiDispatchNames(fake, "T", names).isOk());
    QVERIFY(names.empty());
}

void tst_MultiDispatch::parseNames()
{
    std::vector<QByteArrayView> names;
    const QByteArray p
        = withProp(properties("TagA"), "INNER_MULTI_DISPATCH", "%LMQ%a,%LMQ%b_1,plain-topic");
    QVERIFY(parseMultiDispatchNames(p, "T", names).isOk());
    QCOMPARE(names.size(), size_t(3));
    QCOMPARE(names[0], QByteArrayView("%LMQ%a"));
    QCOMPARE(names[1], QByteArrayView("%LMQ%b_1"));
    QCOMPARE(names[2], QByteArrayView("plain-topic"));
    QVERIFY(isLmqName(names[0]));
    QVERIFY(!isLmqName(names[2]));
    // Absent or empty: no multi-dispatch.
    QVERIFY(parseMultiDispatchNames(properties("TagA"), "T", names).isOk());
    QVERIFY(names.empty());
    QVERIFY(parseMultiDispatchNames(withProp({}, "INNER_MULTI_DISPATCH", {}), "T", names).isOk());
    QVERIFY(names.empty());
}

void tst_MultiDispatch::parseRefusesHostileLists()
{
    std::vector<QByteArrayView> names;
    auto refused = [&](const QByteArray &list, const char *why) {
        const Status s
            = parseMultiDispatchNames(withProp({}, "INNER_MULTI_DISPATCH", list), "T", names);
        if (s.isOk())
            return false;
        return s.message().contains(QLatin1String(why));
    };
    QVERIFY(refused("%LMQ%a,,%LMQ%b", "empty"));
    QVERIFY(refused("%LMQ%a,", "empty"));
    QVERIFY(refused(",%LMQ%a", "empty"));
    QVERIFY(refused("%LMQ%a/../../etc", "not a valid topic name"));
    QVERIFY(refused("%LMQ%a b", "not a valid topic name"));
    QVERIFY(refused(QByteArray("%LMQ%\xff\x00x", 8), "not a valid topic name"));
    QVERIFY(refused("%LMQ%" + QByteArray(200, 'x'), "not a valid topic name"));
    QVERIFY(refused("%LMQ%a,T", "own topic"));
    QVERIFY(refused("SCHEDULE_TOPIC_XXXX", "system topic"));
    QVERIFY(refused("rmq_sys_wheel_timer", "system topic"));
    QByteArray many;
    for (int i = 0; i < 10000; ++i)
        many += (i ? "," : "") + QByteArray::number(i);
    QVERIFY(refused(many, "more than 4096"));
}

void tst_MultiDispatch::rewriteOffsets()
{
    const std::int64_t offsets[] = {0, 17, 9000000000};
    const QByteArray in = withProp(
        withProp(properties("TagA", "k1"), "INNER_MULTI_QUEUE_OFFSET", "5,5,5"), "WAIT", "true");
    const QByteArray out = withMultiQueueOffsets(in, offsets, 3);
    QCOMPARE(findProperty(out, kPropertyMultiQueueOffset), QByteArrayView("0,17,9000000000"));
    QCOMPARE(findProperty(out, "TAGS"), QByteArrayView("TagA"));
    QCOMPARE(findProperty(out, "KEYS"), QByteArrayView("k1"));
    QCOMPARE(findProperty(out, "WAIT"), QByteArrayView("true"));
    QCOMPARE(out.count("INNER_MULTI_QUEUE_OFFSET"), 1); // the sender's one is gone
    // The scan's views point into its input: keep it alive.
    const QByteArray scanned = withProp(out, "INNER_MULTI_DISPATCH", "%LMQ%a,%LMQ%b,%LMQ%c");
    const DispatchProperties d = scanDispatchProperties(scanned);
    QCOMPARE(d.multiQueueOffset, QByteArrayView("0,17,9000000000"));
    QCOMPARE(d.multiDispatch, QByteArrayView("%LMQ%a,%LMQ%b,%LMQ%c"));
    QCOMPARE(d.tags, QByteArrayView("TagA"));
}

void tst_MultiDispatch::walkNamesAndOffsets()
{
    QList<QByteArray> seen;
    QVERIFY(forEachMultiDispatch("%LMQ%a,b", "3,4", [&](QByteArrayView n, std::int64_t o) {
        seen.append(n.toByteArray() + '=' + QByteArray::number(o));
    }));
    QCOMPARE(seen, (QList<QByteArray> {"%LMQ%a=3", "b=4"}));
    int calls = 0;
    auto count = [&](QByteArrayView, std::int64_t) { ++calls; };
    QVERIFY(!forEachMultiDispatch("a,b", "3", count));
    QVERIFY(!forEachMultiDispatch("a", "3,4", count));
    QVERIFY(!forEachMultiDispatch("a,b", "3,x", count));
    QVERIFY(!forEachMultiDispatch("a,b", "3,-1", count));
    QVERIFY(!forEachMultiDispatch("a,,b", "1,2,3", count));
    QVERIFY(!forEachMultiDispatch("a", "", count));
    QVERIFY(!forEachMultiDispatch("a", "1,", count));
    QCOMPARE(calls, 0);
}

void tst_MultiDispatch::storeFilesEveryNamedQueue()
{
    QTemporaryDir dir;
    auto s = openStore(lmqConfig(dir.path()));
    QVERIFY(s);
    const QByteArray lmqs = "%LMQ%q1,%LMQ%q2,%LMQ%q3";
    for (int i = 0; i < 5; ++i) {
        // queue 3 of the real topic: light queues are queue 0 whatever the message's queue
        const PutMessageResult r
            = s->putMessageAndWait(lmqMessage("T", 3, "m" + QByteArray::number(i), lmqs));
        QVERIFY2(r.isOk(), qPrintable(r.remark));
        QCOMPARE(r.queueOffset, i);
    }
    // Only the first light queue gets these: offsets differ per queue.
    for (int i = 0; i < 2; ++i)
        QVERIFY(s->putMessageAndWait(lmqMessage("T", 3, "only1", "%LMQ%q1")).isOk());
    QVERIFY(s->putMessageAndWait(message("T", 3, "plain")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("T", 3), 8);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%q1", 0), 7);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%q2", 0), 5);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%q3", 0), 5);
    QCOMPARE(s->lmqConsumeQueueCount(), 3);
    for (int i = 0; i < 5; ++i) {
        QByteArray offs;
        for (const char *q : {"%LMQ%q1", "%LMQ%q2", "%LMQ%q3"}) {
            QCOMPARE(bodyAt(*s, q, 0, i, &offs), "m" + QByteArray::number(i));
            QCOMPARE(offs,
                QByteArray::number(i) + ',' + QByteArray::number(i) + ',' + QByteArray::number(i));
        }
        QCOMPARE(bodyAt(*s, "T", 3, i), "m" + QByteArray::number(i));
    }
    QByteArray offs;
    QCOMPARE(bodyAt(*s, "%LMQ%q1", 0, 6, &offs), QByteArray("only1"));
    QCOMPARE(offs, QByteArray("6"));
    QCOMPARE(s->getMessage("g", "%LMQ%q2", 0, 5, 1).status, GetMessageStatus::OffsetOverflowOne);
    // A malformed list is refused whole, nothing appended.
    const std::int64_t end = s->commitLogMaxOffset();
    const PutMessageResult bad = s->putMessageAndWait(lmqMessage("T", 3, "x", "%LMQ%q1,,x"));
    QCOMPARE(bad.status, PutMessageStatus::MessageIllegal);
    QVERIFY(bad.remark.contains(QLatin1String("empty")));
    QCOMPARE(s->commitLogMaxOffset(), end);
}

void tst_MultiDispatch::batchAndNonLmqNames()
{
    QTemporaryDir dir;
    auto s = openStore(lmqConfig(dir.path()));
    QVERIFY(s);
    std::vector<MessageExtBrokerInner> batch;
    batch.push_back(lmqMessage("T", 2, "b0", "%LMQ%x,other"));
    batch.push_back(message("T", 2, "b1"));
    batch.push_back(lmqMessage("T", 2, "b2", "%LMQ%x"));
    PutMessageResult r;
    s->putMessages(batch, [&](const PutMessageResult &done) { r = done; });
    QTRY_VERIFY_WITH_TIMEOUT(r.status != PutMessageStatus::UnknownError, 5000);
    QVERIFY2(r.isOk(), qPrintable(r.remark));
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("%LMQ%x", 0), 2);
    QCOMPARE(bodyAt(*s, "%LMQ%x", 0, 0), QByteArray("b0"));
    QCOMPARE(bodyAt(*s, "%LMQ%x", 0, 1), QByteArray("b2"));
    // A name without the prefix is filed under the message's own queue id.
    QCOMPARE(s->maxOffsetInQueue("other", 2), 1);
    QCOMPARE(bodyAt(*s, "other", 2, 0), QByteArray("b0"));
    QCOMPARE(s->lmqConsumeQueueCount(), 1);
}

void tst_MultiDispatch::disabledStoresVerbatim()
{
    QTemporaryDir dir;
    MessageStoreConfig c = lmqConfig(dir.path());
    c.enableMultiDispatch = false;
    auto s = openStore(c);
    QVERIFY(s);
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "m", "%LMQ%q1,,bad name")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->findConsumeQueue("%LMQ%q1", 0), nullptr);
    QByteArray offs = "unset";
    QCOMPARE(bodyAt(*s, "T", 0, 0, &offs), QByteArray("m"));
    QVERIFY(offs.isEmpty());
}

void tst_MultiDispatch::crashRecoveryContinuesOffsets()
{
    QTemporaryDir dir;
    const MessageStoreConfig c = lmqConfig(dir.path());
    {
        auto s = openStore(c);
        QVERIFY(s);
        for (int i = 0; i < 10; ++i)
            QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "a" + QByteArray::number(i),
                                             i % 2 ? "%LMQ%odd,%LMQ%all" : "%LMQ%all"))
                        .isOk());
        QVERIFY(s->waitForDispatch(5000));
        s->shutdown();
    }
    // As after kill -9: abort left behind, and the light queues' last units lost with the
    // consume-queue files (not flushed), so that recovery must re-dispatch them.
    QFile abortFile(dir.filePath(QStringLiteral("abort")));
    QVERIFY(abortFile.open(QIODevice::WriteOnly));
    abortFile.close();
    QVERIFY(QDir(dir.filePath(QStringLiteral("consumequeue/%LMQ%all"))).removeRecursively());
    // Not flushed: the checkpoint holds no consume-queue time.
    QVERIFY(patchFile(dir.filePath(QStringLiteral("checkpoint")), 8, QByteArray(8, '\0')));
    auto s = openStore(c);
    QVERIFY(s);
    QVERIFY(!s->recoveryReport().lastExitOk);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%all", 0), 10);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%odd", 0), 5);
    for (int i = 0; i < 3; ++i)
        QVERIFY(s->putMessageAndWait(
                     lmqMessage("T", 0, "b" + QByteArray::number(i), "%LMQ%odd,%LMQ%all,%LMQ%new"))
                    .isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("%LMQ%all", 0), 13);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%odd", 0), 8);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%new", 0), 3);
    for (int i = 0; i < 10; ++i)
        QCOMPARE(bodyAt(*s, "%LMQ%all", 0, i), "a" + QByteArray::number(i));
    for (int i = 0; i < 5; ++i)
        QCOMPARE(bodyAt(*s, "%LMQ%odd", 0, i), "a" + QByteArray::number(2 * i + 1));
    for (int i = 0; i < 3; ++i) {
        QByteArray offs;
        QCOMPARE(bodyAt(*s, "%LMQ%all", 0, 10 + i, &offs), "b" + QByteArray::number(i));
        QCOMPARE(offs,
            QByteArray::number(5 + i) + ',' + QByteArray::number(10 + i) + ','
                + QByteArray::number(i));
        QCOMPARE(bodyAt(*s, "%LMQ%odd", 0, 5 + i), "b" + QByteArray::number(i));
        QCOMPARE(bodyAt(*s, "%LMQ%new", 0, i), "b" + QByteArray::number(i));
    }
}

void tst_MultiDispatch::deleteLightQueueAndLimit()
{
    QTemporaryDir dir;
    MessageStoreConfig c = lmqConfig(dir.path());
    c.maxLmqConsumeQueueNum = 2;
    auto s = openStore(c);
    QVERIFY(s);
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "1", "%LMQ%a,%LMQ%b,%LMQ%c")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->lmqConsumeQueueCount(), 3);
    // More than the limit: refused as RocketMQ's LMQ_CONSUME_QUEUE_NUM_EXCEEDED; others pass.
    const PutMessageResult refused = s->putMessageAndWait(lmqMessage("T", 0, "2", "%LMQ%a"));
    QCOMPARE(refused.status, PutMessageStatus::UnknownError);
    QVERIFY(refused.remark.startsWith(QLatin1String("[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]")));
    QVERIFY(s->putMessageAndWait(message("T", 0, "plain")).isOk());
    // Deleting one brings the count back under the limit; the queue starts again at 0.
    QCOMPARE(s->deleteTopics({"%LMQ%c"}), 1);
    QCOMPARE(s->lmqConsumeQueueCount(), 2);
    QVERIFY(!QDir(dir.filePath(QStringLiteral("consumequeue/%LMQ%c/0"))).exists());
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "3", "%LMQ%a,%LMQ%c")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("%LMQ%a", 0), 2);
    QCOMPARE(s->maxOffsetInQueue("%LMQ%c", 0), 1);
    QCOMPARE(bodyAt(*s, "%LMQ%c", 0, 0), QByteArray("3"));
}

void tst_MultiDispatch::lightQueueFilesAreSmall()
{
    QTemporaryDir dir;
    auto s = openStore(lmqConfig(dir.path()));
    QVERIFY(s);
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "m", "%LMQ%small")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    const QString cqDir = dir.filePath(QStringLiteral("consumequeue"));
    const QFileInfo lmq(cqDir + QStringLiteral("/%LMQ%small/0/00000000000000000000"));
    const QFileInfo own(cqDir + QStringLiteral("/T/0/00000000000000000000"));
    QCOMPARE(lmq.size(), qint64(kLmqConsumeQueueFileSize));
    QCOMPARE(own.size(), qint64(20 * 300000));
    // Reopened, the small file loads at its own size.
    s.reset();
    s = openStore(lmqConfig(dir.path()));
    QVERIFY(s);
    QCOMPARE(bodyAt(*s, "%LMQ%small", 0, 0), QByteArray("m"));
}

// Issue 30: a light queue whose messages all went with the commit-log files that held them is
// deleted by the clean-up that deleted those files (files, directories, its next offset), as
// RocketMQ's cleanExpiredConsumerQueue; queues with a message left stay, and a deleted one
// named again starts at 0, also across a clean stop and a crash.
void tst_MultiDispatch::expiredLightQueuesAreDeleted()
{
    QTemporaryDir dir;
    MessageStoreConfig c = lmqConfig(dir.path());
    c.mappedFileSizeCommitLog = 4096; // three 1 KB messages a file
    c.maxMessageSize = 2048;
    std::atomic<std::int64_t> now {QDateTime::currentMSecsSinceEpoch()};
    StoreOptions options;
    options.runCleanService = false;
    options.clock = [&now] { return now.load(); };
    auto s = std::make_unique<MessageStore>(c, options);
    QVERIFY(s->open().isOk());
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "old", "%LMQ%old,%LMQ%kept")).isOk());
    for (int i = 0; i < 12; ++i)
        QVERIFY(s->putMessageAndWait(message("T", 0, QByteArray(1000, 'x'))).isOk());
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "new", "%LMQ%kept,%LMQ%fresh")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->lmqConsumeQueueCount(), 3);
    const QString cq = dir.filePath(QStringLiteral("consumequeue/"));
    QVERIFY(QDir(cq + QStringLiteral("%LMQ%old/0")).exists());
    // Five days on, a manual clean-up deletes every commit-log file but the last.
    now += 5LL * 24 * 3600 * 1000;
    s->cleanService().requestManualDelete();
    for (int i = 0; i < 20 && s->commitLogMinOffset() == 0; ++i)
        s->cleanService().run();
    QVERIFY(s->commitLogMinOffset() > 0);
    QCOMPARE(s->lmqConsumeQueueCount(), 2);
    QVERIFY(!s->findConsumeQueue("%LMQ%old", 0));
    QVERIFY(!QDir(cq + QStringLiteral("%LMQ%old")).exists());
    QCOMPARE(s->maxOffsetInQueue("%LMQ%kept", 0), 2);
    QCOMPARE(bodyAt(*s, "%LMQ%kept", 0, 1), QByteArray("new"));
    QCOMPARE(bodyAt(*s, "%LMQ%fresh", 0, 0), QByteArray("new"));
    // Named again: a new queue from offset 0.
    QVERIFY(s->putMessageAndWait(lmqMessage("T", 0, "again", "%LMQ%old")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("%LMQ%old", 0), 1);
    QCOMPARE(bodyAt(*s, "%LMQ%old", 0, 0), QByteArray("again"));
    // A run with nothing expired deletes nothing.
    QCOMPARE(s->deleteExpiredLightQueues(s->commitLogMinOffset()), 0);
    // The deleted queue's object outlives it for the grace period (readers may still hold its
    // pointer), then the next clean-up frees it.
    QCOMPARE(s->retiredQueueCount(), 1);
    QCOMPARE(s->releaseRetiredQueues(), 0);
    now += MessageStore::kRetiredQueueGraceMs - 1000;
    QCOMPARE(s->releaseRetiredQueues(), 0);
    now += 2000;
    QCOMPARE(s->releaseRetiredQueues(), 1); // what the clean-up thread calls after each run
    QCOMPARE(s->retiredQueueCount(), 0);
    for (const bool crash : {false, true}) {
        s.reset();
        if (crash) {
            QFile abort(dir.filePath(QStringLiteral("abort")));
            QVERIFY(abort.open(QIODevice::WriteOnly));
        }
        s = std::make_unique<MessageStore>(c, options);
        QVERIFY(s->open().isOk());
        QVERIFY(s->waitForDispatch(5000));
        QVERIFY(s->waitForQueueRecovery(5000)); // counted as they are found
        QCOMPARE(s->lmqConsumeQueueCount(), 3);
        QCOMPARE(s->maxOffsetInQueue("%LMQ%old", 0), 1);
        QCOMPARE(bodyAt(*s, "%LMQ%old", 0, 0), QByteArray("again"));
        QCOMPARE(s->maxOffsetInQueue("%LMQ%kept", 0), 2);
    }
}

void tst_MultiDispatch::waitingMessagesAreNotDispatched()
{
    // A delayed, timer or half message waits in a system topic: it is filed in the named queues
    // at its re-put to the real topic, once, not also while it waits.
    QTemporaryDir dir;
    auto s = openStore(lmqConfig(dir.path()));
    QVERIFY(s);
    for (const char *holding :
        {"SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC", "rmq_sys_wheel_timer"}) {
        const PutMessageResult r = s->putMessageAndWait(lmqMessage(holding, 0, "w", "%LMQ%w"));
        QVERIFY2(r.isOk(), qPrintable(r.remark));
    }
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->findConsumeQueue("%LMQ%w", 0), nullptr);
    QCOMPARE(s->lmqConsumeQueueCount(), 0);
    // The re-put (the real topic, the same properties) is.
    QVERIFY(s->putMessageAndWait(lmqMessage("Real", 0, "w", "%LMQ%w")).isOk());
    QVERIFY(s->waitForDispatch(5000));
    QCOMPARE(s->maxOffsetInQueue("%LMQ%w", 0), 1);
}

QTEST_GUILESS_MAIN(tst_MultiDispatch)
#include "tst_multidispatch.moc"
