#include "storage/core/indexfile.h"
#include "storage/core/indexservice.h"
#include "storetestutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_IndexFile final : public QObject
{
    Q_OBJECT

private slots:
    void hashesMatchGoldenIndex();
    void putAndSelectFollowChains();
    void fullFileReportsFalse();
    void serviceRollsFilesAndQueriesNewestFirst();
    void serviceSkipsAlreadyIndexedOffsets();
    void serviceDeletesFilesPastCheckpointAfterCrash();
};

void tst_IndexFile::hashesMatchGoldenIndex()
{
    const QJsonObject json = QJsonDocument::fromJson(
        qrocket::testing::readVectorFile(QStringLiteral("store/index.sample.json")))
                                 .object();
    const QJsonArray samples = json.value(QStringLiteral("slot_samples")).toArray();
    QVERIFY(!samples.isEmpty());
    for (const QJsonValue &v : samples) {
        const QJsonObject s = v.toObject();
        const QByteArray key = s.value(QStringLiteral("key")).toString().toUtf8();
        QCOMPARE(IndexFile::keyHash(key), s.value(QStringLiteral("keyHash")).toInteger());
        QCOMPARE(IndexFile::keyHash(key) % 5000000, s.value(QStringLiteral("slot")).toInteger());
    }
    // Header layout of the golden file.
    const QByteArray header
        = QByteArray::fromHex(json.value(QStringLiteral("header_hex")).toString().toLatin1());
    QCOMPARE(header.size(), IndexFile::kHeaderSize);
    QCOMPARE(qrocket::readI64(header.constData()), 1796013328661);
    QCOMPARE(qrocket::readI32(header.constData() + 36), 1405);
}

void tst_IndexFile::putAndSelectFollowChains()
{
    QTemporaryDir dir;
    auto f = IndexFile::create(dir.filePath(QStringLiteral("idx")), 4, 100, 0, 0);
    QVERIFY(f.has_value());
    IndexFile &idx = **f;
    QCOMPARE(idx.indexCount(), 1);
    const std::int64_t t0 = 1796013328661;
    QVERIFY(idx.putKey("T#a", 100, t0));
    QVERIFY(idx.putKey("T#b", 200, t0 + 5000));
    QVERIFY(idx.putKey("T#a", 300, t0 + 10000));
    QCOMPARE(idx.indexCount(), 4);
    QCOMPARE(idx.beginTimestamp(), t0);
    QCOMPARE(idx.endPhyOffset(), 300);
    std::vector<std::int64_t> out;
    idx.selectPhyOffsets(out, "T#a", 10, 0, t0 + 20000);
    QCOMPARE(out, (std::vector<std::int64_t> {300, 100}));
    out.clear();
    idx.selectPhyOffsets(out, "T#a", 1, 0, t0 + 20000);
    QCOMPARE(out.size(), 1u);
    out.clear();
    idx.selectPhyOffsets(out, "T#a", 10, t0 + 9000, t0 + 20000); // time range excludes the first
    QCOMPARE(out, (std::vector<std::int64_t> {300}));
    out.clear();
    idx.selectPhyOffsets(out, "T#zzz", 10, 0, t0 + 20000);
    QVERIFY(out.empty());
}

void tst_IndexFile::fullFileReportsFalse()
{
    QTemporaryDir dir;
    auto f = IndexFile::create(dir.filePath(QStringLiteral("idx")), 4, 3, 0, 0);
    QVERIFY(f.has_value());
    QVERIFY((*f)->putKey("T#a", 1, 1000));
    QVERIFY((*f)->putKey("T#b", 2, 1000));
    QVERIFY((*f)->isFull());
    QVERIFY(!(*f)->putKey("T#c", 3, 1000));
}

static DispatchRequest request(
    std::int64_t offset, const char *keys, const char *uniq, std::int64_t ts)
{
    DispatchRequest r;
    r.topic = "Topic";
    r.commitLogOffset = offset;
    r.keys = QByteArrayView(keys);
    r.uniqKey = QByteArrayView(uniq);
    r.storeTimestamp = ts;
    return r;
}

void tst_IndexFile::serviceRollsFilesAndQueriesNewestFirst()
{
    QTemporaryDir dir;
    std::int64_t now = 1796013328000;
    IndexService svc(dir.path(), 8, 5, [&] { return now++; });
    for (int i = 0; i < 6; ++i)
        QVERIFY(svc.buildIndex(request(i * 100, i % 2 ? "odd k" : "even k", "", 1796013328661 + i))
                    .isOk());
    QVERIFY(svc.fileCount() >= 2);
    const auto q = svc.query("Topic", "k", 32, 0, 1796013329000);
    QCOMPARE(q.phyOffsets.size(), 6u);
    QCOMPARE(q.phyOffsets.front(), 500);
    QCOMPARE(svc.query("Topic", "odd", 32, 0, 1796013329000).phyOffsets.size(), 3u);
    QCOMPARE(svc.query("Other", "odd", 32, 0, 1796013329000).phyOffsets.size(), 0u);
}

void tst_IndexFile::serviceSkipsAlreadyIndexedOffsets()
{
    QTemporaryDir dir;
    IndexService svc(dir.path(), 8, 100, [] { return std::int64_t(1796013328000); });
    QVERIFY(svc.buildIndex(request(100, "a", "U1", 1796013328661)).isOk());
    QVERIFY(
        svc.buildIndex(request(50, "a", "U0", 1796013328661)).isOk()); // below end offset: skipped
    QCOMPARE(svc.query("Topic", "a", 32, 0, 1796013329000).phyOffsets.size(), 1u);
    QCOMPARE(svc.query("Topic", "U1", 32, 0, 1796013329000).phyOffsets.size(), 1u);
}

void tst_IndexFile::serviceDeletesFilesPastCheckpointAfterCrash()
{
    QTemporaryDir dir;
    {
        IndexService svc(dir.path(), 8, 100, [] { return std::int64_t(1796013328000); });
        QVERIFY(svc.buildIndex(request(100, "a", "", 1796013328661)).isOk());
    }
    IndexService crashed(dir.path(), 8, 100, [] { return std::int64_t(1796013328000); });
    auto r = crashed.load(false, 1796013328000); // checkpoint older than the file's end
    QVERIFY(r.has_value());
    QCOMPARE(r->deletedFiles, 1);
    QCOMPARE(r->rebuildFromPhyOffset, 100);
    QCOMPARE(crashed.fileCount(), 0);
}

QTEST_APPLESS_MAIN(tst_IndexFile)
#include "tst_indexfile.moc"
