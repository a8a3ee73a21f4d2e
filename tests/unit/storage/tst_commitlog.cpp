#include "clientlib/common/hash.h"
#include "storage/core/commitlog.h"
#include "storage/core/recordutil.h"
#include "storetestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <future>

using namespace qrocket;
using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_CommitLog final : public QObject
{
    Q_OBJECT

private slots:
    void readsGoldenExcerpt();
    void appendAssignsOffsets();
    void rollsOverWithBlankRecord();
    void rejectsIllegalMessages_data();
    void rejectsIllegalMessages();
    void preparedTransactionsTakeNoQueueOffset();
    void batchGetsConsecutiveOffsets();
    void refusesWhenNotWritable();
    void osPageCacheBusyWhenPutLockHeldTooLong();
    void findsPropertiesLikeJava();
    void dispatchScanMatchesFindProperty();
    void deferredWritesArePublishedInOrder();
};

void tst_CommitLog::readsGoldenExcerpt()
{
    const QString path = QStringLiteral("store/commitlog/00000000000000000000.first64KiB");
    const QByteArray bytes = qrocket::testing::readVectorFile(path);
    QCOMPARE(bytes.size(), 65536);
    const QJsonObject json = QJsonDocument::fromJson(
        qrocket::testing::readVectorFile(path + QStringLiteral(".messages.json")))
                                 .object();
    const QJsonArray msgs = json.value(QStringLiteral("messages")).toArray();
    int complete = 0;
    for (const QJsonValue &v : msgs) {
        const QJsonObject m = v.toObject();
        const qint64 off = m.value(QStringLiteral("file_offset")).toInteger();
        protocol::MessageRecordView rec;
        const auto d = protocol::decodeRecord(QByteArrayView(bytes).sliced(off), rec, true);
        if (!m.value(QStringLiteral("complete")).toBool()) {
            QCOMPARE(d.status, protocol::RecordStatus::Truncated);
            continue;
        }
        ++complete;
        QVERIFY2(d.status == protocol::RecordStatus::Ok, qPrintable(d.error));
        QCOMPARE(rec.totalSize, m.value(QStringLiteral("totalSize")).toInt());
        QCOMPARE(rec.physicalOffset, m.value(QStringLiteral("physicalOffset")).toInteger());
        QCOMPARE(rec.queueId, m.value(QStringLiteral("queueId")).toInt());
        QCOMPARE(rec.queueOffset, m.value(QStringLiteral("queueOffset")).toInteger());
        QCOMPARE(rec.storeTimestamp, m.value(QStringLiteral("storeTimestamp")).toInteger());
        QCOMPARE(rec.sysFlag, m.value(QStringLiteral("sysFlag")).toInt());
        QCOMPARE(rec.topic.toByteArray(), m.value(QStringLiteral("topic")).toString().toUtf8());
        const QJsonObject props = m.value(QStringLiteral("properties")).toObject();
        for (auto it = props.begin(); it != props.end(); ++it)
            QCOMPARE(findProperty(rec.properties, it.key().toUtf8()).toByteArray(),
                it.value().toString().toUtf8());
    }
    QCOMPARE(complete, json.value(QStringLiteral("messages_complete")).toInt());
}

void tst_CommitLog::appendAssignsOffsets()
{
    QTemporaryDir dir;
    const MessageStoreConfig cfg = smallConfig(dir.path());
    std::int64_t now = 1796013328661;
    CommitLog log(cfg, [&] { return now++; });
    const auto a = log.append(message("A", 0, "one"));
    const auto b = log.append(message("A", 0, "two"));
    const auto c = log.append(message("A", 1, "three"));
    QVERIFY(a.isOk() && b.isOk() && c.isOk());
    QCOMPARE(a.wroteOffset, 0);
    QCOMPARE(b.wroteOffset, a.wroteBytes);
    QCOMPARE(a.queueOffset, 0);
    QCOMPARE(b.queueOffset, 1);
    QCOMPARE(c.queueOffset, 0);
    QCOMPARE(a.storeTimestamp, 1796013328661);
    QCOMPARE(log.maxOffset(), a.wroteBytes + b.wroteBytes + c.wroteBytes);
    const SelectedRecord sel = log.select(b.wroteOffset, b.wroteBytes);
    protocol::MessageRecordView rec;
    QCOMPARE(protocol::decodeRecord(sel.bytes, rec, true).status, protocol::RecordStatus::Ok);
    QCOMPARE(rec.body.toByteArray(), QByteArray("two"));
    QCOMPARE(rec.physicalOffset, b.wroteOffset);
    QCOMPARE(log.storeTimestampAt(b.wroteOffset, b.wroteBytes), b.storeTimestamp);
}

void tst_CommitLog::rollsOverWithBlankRecord()
{
    QTemporaryDir dir;
    const MessageStoreConfig cfg = smallConfig(dir.path(), 4096);
    CommitLog log(cfg, [] { return std::int64_t(1796013328661); });
    const QByteArray body(1000, 'b');
    std::vector<PutMessageResult> rs;
    for (int i = 0; i < 5; ++i) {
        rs.push_back(log.append(message("T", 0, body)));
        QVERIFY(rs.back().isOk());
    }
    const std::int32_t size = rs[0].wroteBytes; // 91 + 1000-byte body + 1-byte topic
    const int perFile = static_cast<int>((4096 - 8) / size);
    QCOMPARE(rs[perFile].wroteOffset, 4096);
    QCOMPARE(log.files().fileCount(), 2);
    // The first file ends with a BLANK record covering the rest of it.
    MappedFilePtr first = log.files().firstFile();
    const char *blank = first->data() + static_cast<std::int64_t>(perFile) * size;
    QCOMPARE(readI32(blank), 4096 - perFile * size);
    QCOMPARE(readI32(blank + 4), protocol::kBlankMagic);
    QCOMPARE(rs[perFile].queueOffset, perFile);
    QCOMPARE(log.rollNextFile(10), 4096);
}

void tst_CommitLog::rejectsIllegalMessages_data()
{
    QTest::addColumn<QByteArray>("topic");
    QTest::addColumn<int>("bodySize");
    QTest::addColumn<int>("propSize");
    QTest::addColumn<int>("status");
    QTest::addRow("body over maxMessageSize")
        << QByteArray("T") << 16 * 1024 + 1 << 0 << int(PutMessageStatus::MessageIllegal);
    QTest::addRow("body at maxMessageSize")
        << QByteArray("T") << 16 * 1024 << 0 << int(PutMessageStatus::PutOk);
    QTest::addRow("topic 128 bytes")
        << QByteArray(128, 't') << 1 << 0 << int(PutMessageStatus::MessageIllegal);
    QTest::addRow("topic 127 bytes")
        << QByteArray(127, 't') << 1 << 0 << int(PutMessageStatus::PutOk);
    QTest::addRow("properties 32768")
        << QByteArray("T") << 1 << 32768 << int(PutMessageStatus::PropertiesSizeExceeded);
    QTest::addRow("empty topic") << QByteArray() << 1 << 0 << int(PutMessageStatus::MessageIllegal);
}

void tst_CommitLog::rejectsIllegalMessages()
{
    QFETCH(QByteArray, topic);
    QFETCH(int, bodySize);
    QFETCH(int, propSize);
    QFETCH(int, status);
    QTemporaryDir dir;
    MessageStoreConfig cfg = smallConfig(dir.path());
    CommitLog log(cfg, [] { return std::int64_t(1); });
    MessageExtBrokerInner m = message(topic, 0, QByteArray(bodySize, 'x'));
    m.properties = QByteArray(propSize, 'p');
    const PutMessageResult r = log.append(m);
    QCOMPARE(int(r.status), status);
    if (!r.isOk())
        QVERIFY(!r.remark.isEmpty());
}

void tst_CommitLog::preparedTransactionsTakeNoQueueOffset()
{
    QTemporaryDir dir;
    CommitLog log(smallConfig(dir.path()), [] { return std::int64_t(1); });
    MessageExtBrokerInner half = message("T", 0, "half");
    half.sysFlag = protocol::SysFlag::TransactionPrepared;
    QCOMPARE(log.append(half).queueOffset, 0);
    QCOMPARE(log.append(message("T", 0, "n")).queueOffset, 0);
    QCOMPARE(log.append(message("T", 0, "n")).queueOffset, 1);
}

void tst_CommitLog::batchGetsConsecutiveOffsets()
{
    QTemporaryDir dir;
    CommitLog log(smallConfig(dir.path()), [] { return std::int64_t(1); });
    QVERIFY(log.append(message("B", 3, "first")).isOk());
    std::vector<MessageExtBrokerInner> batch {
        message("B", 3, "x"), message("B", 3, "y"), message("B", 3, "z")};
    const PutMessageResult r = log.appendBatch(batch);
    QVERIFY(r.isOk());
    QCOMPARE(r.msgNum, 3);
    QCOMPARE(r.queueOffset, 1);
    QCOMPARE(r.batchOffsets.size(), 3u);
    QCOMPARE(log.append(message("B", 3, "after")).queueOffset, 4);
    batch[1].queueId = 4;
    QCOMPARE(log.appendBatch(batch).status, PutMessageStatus::MessageIllegal);
}

void tst_CommitLog::osPageCacheBusyWhenPutLockHeldTooLong()
{
    QTemporaryDir dir;
    std::atomic<std::int64_t> now {1796013328000};
    MessageStoreConfig cfg = smallConfig(dir.path());
    cfg.osPageCacheBusyTimeOutMills = 1000;
    CommitLog log(cfg, [&] { return now.load(); });
    QVERIFY(log.append(message("T", 0, "x")).isOk());
    {
        CommitLog::TEST_PutLockHold held = log.TEST_holdPutLock();
        now += 1001;
        const PutMessageResult busy = log.append(message("T", 0, "x"));
        QCOMPARE(busy.status, PutMessageStatus::OsPageCacheBusy);
        QVERIFY2(busy.remark.contains(QStringLiteral("1001 ms")), qPrintable(busy.remark));
        QCOMPARE(log.appendBatch({message("T", 0, "x")}).status, PutMessageStatus::OsPageCacheBusy);
        // Held exactly the timeout: not busy, the put waits for the lock and succeeds.
        now -= 1;
        auto waiting
            = std::async(std::launch::async, [&] { return log.append(message("T", 0, "y")); });
        held.release();
        const PutMessageResult r = waiting.get();
        QCOMPARE(r.status, PutMessageStatus::PutOk);
        QCOMPARE(r.queueOffset, 1);
    }
    now += 5000; // the lock is free: no age at all
    QVERIFY(log.append(message("T", 0, "x")).isOk());
}

void tst_CommitLog::refusesWhenNotWritable()
{
    QTemporaryDir dir;
    CommitLog log(smallConfig(dir.path()), [] { return std::int64_t(1); });
    log.setWritable(false, QStringLiteral("because"));
    const auto r = log.append(message("T", 0, "x"));
    QCOMPARE(r.status, PutMessageStatus::ServiceNotAvailable);
    QCOMPARE(r.remark, QStringLiteral("because"));
}

void tst_CommitLog::findsPropertiesLikeJava()
{
    const QByteArray p("TAGS\x01TagA\x02KEYS\x01k1 k2\x02\x01novalue\x02"
                       "empty\x01\x02"
                       "TAGS\x01TagB\x02",
        47);
    QCOMPARE(findProperty(p, "TAGS").toByteArray(), QByteArray("TagB")); // last wins
    QCOMPARE(findProperty(p, "KEYS").toByteArray(), QByteArray("k1 k2"));
    QVERIFY(findProperty(p, "empty").isEmpty());
    QVERIFY(findProperty(p, "missing").isEmpty());
    // No trailing separator, a segment without \x01, a name that is a prefix of another.
    const QByteArray q("noseparator\x02TAGSX\x01x\x02TAGS\x01last");
    QCOMPARE(findProperty(q, "TAGS").toByteArray(), QByteArray("last"));
    QCOMPARE(findProperty(q, "TAGSX").toByteArray(), QByteArray("x"));
    QVERIFY(findProperty(q, "TAG").isEmpty());
    QVERIFY(findProperty(q, "noseparator").isEmpty());
    QVERIFY(findProperty(QByteArrayView(), "TAGS").isEmpty());
    QCOMPARE(findProperty(QByteArrayView("A\x01"
                                         "1"),
                 "A")
                 .toByteArray(),
        QByteArray("1"));
}

// The dispatcher's one-pass scan finds exactly what findProperty finds for each of its names, on
// the Java client's real property strings and on random texts built from the separators, the
// names it looks for, near-misses (prefixes, longer names) and other bytes.
void tst_CommitLog::dispatchScanMatchesFindProperty()
{
    const auto check = [](QByteArrayView text) {
        const DispatchProperties p = scanDispatchProperties(text);
        QCOMPARE(p.tags.toByteArray(), findProperty(text, kPropertyTags).toByteArray());
        QCOMPARE(p.keys.toByteArray(), findProperty(text, kPropertyKeys).toByteArray());
        QCOMPARE(p.uniqKey.toByteArray(), findProperty(text, kPropertyUniqKey).toByteArray());
        // Views into the text itself, as the index and consume queue expect.
        if (!p.tags.isEmpty())
            QVERIFY(p.tags.data() >= text.data() && p.tags.data() < text.data() + text.size());
    };
    check(QByteArrayView("KEYS\x01order-1 order-2\x02UNIQ_KEY\x01"
                         "7F0000010B5C18B4AAC2730B42E80000\x02WAIT\x01true\x02TAGS\x01TagA"));
    check(QByteArrayView("TAGS\x01\x02KEYS\x01k\x02TAGS\x01x\x02UNIQ_KEY\x01u\x02TAGS\x01\x02"));
    check(QByteArrayView());
    const char *pieces[] = {"TAGS", "KEYS", "UNIQ_KEY", "TAG", "TAGSS", "UNIQ_KE", "KEYSX", "a",
        "bc", "\x01", "\x02", "\x01\x01", "\x02\x02", "v1", "WAIT"};
    quint32 seed = 20261130;
    const auto next = [&seed] {
        seed = seed * 1664525u + 1013904223u; // deterministic LCG: failures reproduce
        return seed >> 8;
    };
    for (int round = 0; round < 20'000; ++round) {
        QByteArray text;
        const int n = static_cast<int>(next() % 12);
        for (int i = 0; i < n; ++i)
            text.append(pieces[next() % (sizeof pieces / sizeof pieces[0])]);
        check(text);
        if (QTest::currentTestFailed()) {
            qWarning() << "failing text:" << text.toHex(' ');
            return;
        }
    }
}

// SYNC_FLUSH with pwrite: appends are buffered (offsets assigned, maxOffset() counts them, readers
// do not see them) until writePending() writes and publishes them, across a file roll and past the
// buffer limit (where a put writes its record itself, published in order all the same).
void tst_CommitLog::deferredWritesArePublishedInOrder()
{
    QCOMPARE(MappedFile::syncWriteMethod(), MappedFile::SyncWriteMethod::Pwrite);
    QTemporaryDir dir;
    constexpr std::int64_t kFile = 1024 * 1024;
    MessageStoreConfig cfg = smallConfig(dir.path(), kFile);
    cfg.flushDiskType = QStringLiteral("SYNC_FLUSH");
    std::int64_t now = 1796013328661;
    CommitLog log(cfg, [&] { return now++; });
    QVERIFY(log.defersWrites());
    int listened = 0;
    log.setAppendListener([&] { ++listened; });

    const PutMessageResult first = log.append(message("A", 0, "one"));
    QVERIFY(first.isOk());
    QCOMPARE(log.maxOffset(), first.wroteBytes);
    QCOMPARE(log.unwrittenBytes(), first.wroteBytes);
    QVERIFY(!log.select(first.wroteOffset, first.wroteBytes).isValid());
    QCOMPARE(listened, 0);
    log.writePending();
    QCOMPARE(listened, 1);
    QCOMPARE(log.unwrittenBytes(), 0);
    QVERIFY(log.select(first.wroteOffset, first.wroteBytes).isValid());
    // In the file itself, not only in the mapping.
    QCOMPARE(readFile(dir.path() + QStringLiteral("/commitlog/00000000000000000000"))
                 .left(first.wroteBytes),
        log.select(0, first.wroteBytes).bytes.toByteArray());

    // Past one file and past the buffer limit without a single writePending().
    std::vector<PutMessageResult> puts {first};
    while (log.maxOffset() < CommitLog::kMaxUnwrittenBytes + 2 * kFile) {
        puts.push_back(log.append(message("A", 0, QByteArray(1000, char('a' + puts.size() % 26)))));
        QVERIFY(puts.back().isOk());
    }
    QCOMPARE(log.maxOffset(), puts.back().wroteOffset + puts.back().wroteBytes);
    QVERIFY(log.unwrittenBytes() >= CommitLog::kMaxUnwrittenBytes);
    QVERIFY(log.unwrittenBytes() < log.maxOffset() - first.wroteBytes); // some wrote themselves
    QVERIFY(!log.select(puts[1].wroteOffset, puts[1].wroteBytes).isValid());
    QVERIFY(!log.select(puts.back().wroteOffset, puts.back().wroteBytes).isValid());
    log.writePending();
    QCOMPARE(log.unwrittenBytes(), 0);
    QVERIFY(log.files().fileCount() > 10);
    for (size_t i = 0; i < puts.size(); ++i) {
        const SelectedRecord sel = log.select(puts[i].wroteOffset, puts[i].wroteBytes);
        QVERIFY(sel.isValid());
        protocol::MessageRecordView rec;
        QCOMPARE(protocol::decodeRecord(sel.bytes, rec, true).status, protocol::RecordStatus::Ok);
        QCOMPARE(rec.physicalOffset, puts[i].wroteOffset);
        QCOMPARE(rec.queueOffset, static_cast<std::int64_t>(i));
    }
    // Every full file ends with its BLANK record, published with it.
    const auto files = log.files().files();
    for (size_t i = 0; i + 1 < files.size(); ++i) {
        QCOMPARE(files[i]->wrotePosition(), kFile);
        QVERIFY(files[i]->storeTimestamp() > 0);
    }
}

QTEST_APPLESS_MAIN(tst_CommitLog)
#include "tst_commitlog.moc"
