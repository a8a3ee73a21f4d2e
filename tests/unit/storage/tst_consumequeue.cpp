#include "storage/core/consumequeue.h"
#include "storetestutil.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_ConsumeQueue final : public QObject
{
    Q_OBJECT

private slots:
    void readsGoldenExcerpts_data();
    void readsGoldenExcerpts();
    void appendsAndReadsUnits();
    void skipsDuplicatesAndFillsPlaceholders();
    void rollsIntoNextFile();
    void recoverStopsAtZeroedUnitAndReportsDamage();
    void truncateDirtyLogicFilesDropsUnitsPastOffset();
    void deleteExpiredFilesKeepsLast();
};

void tst_ConsumeQueue::readsGoldenExcerpts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("topic");
    QTest::addColumn<int>("queueId");
    QTest::addRow("TopicTest/0") << QStringLiteral("TopicTest-0-00000000000000000000.first4000")
                                 << QStringLiteral("TopicTest") << 0;
    QTest::addRow("SCHEDULE_TOPIC_XXXX/2")
        << QStringLiteral("SCHEDULE_TOPIC_XXXX-2-00000000000000000000.first4000")
        << QStringLiteral("SCHEDULE_TOPIC_XXXX") << 2;
}

void tst_ConsumeQueue::readsGoldenExcerpts()
{
    QFETCH(QString, name);
    QFETCH(QString, topic);
    QFETCH(int, queueId);
    const QString src = QStringLiteral("store/consumequeue/") + name;
    const QByteArray bytes = qrocket::testing::readVectorFile(src);
    QCOMPARE(bytes.size(), 4000);
    const QJsonObject json
        = QJsonDocument::fromJson(qrocket::testing::readVectorFile(src + QStringLiteral(".json")))
              .object();
    QJsonArray entries;
    for (const QJsonValue &v : json.value(QStringLiteral("entries")).toArray())
        if (!v.toObject().value(QStringLiteral("empty")).toBool())
            entries.append(v);
    QVERIFY(!entries.isEmpty());

    QTemporaryDir dir;
    const QString qdir = dir.path() + u'/' + topic + u'/' + QString::number(queueId);
    QVERIFY(QDir().mkpath(qdir));
    QFile out(qdir + QStringLiteral("/00000000000000000000"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes);
    out.close();

    ConsumeQueue cq(topic.toUtf8(), queueId, dir.path(), 4000);
    QVERIFY(cq.load().isOk());
    const ConsumeQueue::RecoverResult r = cq.recover();
    QVERIFY2(!r.damaged, qPrintable(r.detail));
    const qint64 expectedUnits = std::min<qint64>(entries.size(), 200);
    QCOMPARE(cq.maxOffsetInQueue(), expectedUnits);
    QCOMPARE(r.units, expectedUnits);
    for (const QJsonValue &v : entries) {
        const QJsonObject e = v.toObject();
        ConsumeQueue::Unit u;
        QVERIFY(cq.unit(e.value(QStringLiteral("index")).toInteger(), u));
        QCOMPARE(u.commitLogOffset, e.value(QStringLiteral("commitLogOffset")).toInteger());
        QCOMPARE(u.size, e.value(QStringLiteral("size")).toInt());
        QCOMPARE(u.tagsCode, e.value(QStringLiteral("tagsCode")).toInteger());
    }
    if (topic == QLatin1String("SCHEDULE_TOPIC_XXXX")) {
        ConsumeQueue::Unit first;
        QVERIFY(cq.unit(0, first));
        QCOMPARE(first.tagsCode, 1796013414338); // delivery time, not a tag hash
    }
}

void tst_ConsumeQueue::appendsAndReadsUnits()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 1, dir.path(), 20 * 10);
    for (int i = 0; i < 5; ++i)
        QVERIFY(cq.putUnit(1000 + i * 100, 100, 7 + i, i).isOk());
    QCOMPARE(cq.maxOffsetInQueue(), 5);
    QCOMPARE(cq.minOffsetInQueue(), 0);
    QCOMPARE(cq.maxPhysicOffset(), 1500);
    ConsumeQueue::Unit u;
    QVERIFY(cq.unit(3, u));
    QCOMPARE(u.commitLogOffset, 1300);
    QCOMPARE(u.tagsCode, 10);
    QVERIFY(!cq.unit(5, u));
    const auto buf = cq.indexBuffer(2);
    QCOMPARE(buf.bytes.size(), 3 * 20);
    QVERIFY(QFile::exists(dir.path() + QStringLiteral("/T/1/00000000000000000000")));
}

void tst_ConsumeQueue::skipsDuplicatesAndFillsPlaceholders()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 10);
    QVERIFY(cq.putUnit(5000, 50, 0, 13).isOk()); // first unit at index 13: file starts at 10
    QCOMPARE(cq.maxOffsetInQueue(), 14);
    QCOMPARE(cq.minOffsetInQueue(), 13);
    QCOMPARE(cq.files().firstFile()->fileFromOffset(), 200);
    ConsumeQueue::Unit u;
    QVERIFY(cq.unit(11, u));
    QCOMPARE(u.size, 0x7FFFFFFF); // placeholder
    QVERIFY(cq.putUnit(5000, 50, 0, 13).isOk()); // re-dispatch: ignored
    QCOMPARE(cq.maxOffsetInQueue(), 14);
}

void tst_ConsumeQueue::rollsIntoNextFile()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 9; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    QCOMPARE(cq.files().fileCount(), 3);
    QCOMPARE(cq.maxOffsetInQueue(), 9);
    QCOMPARE(cq.indexBuffer(2).bytes.size(), 40); // up to the end of the first file
    QCOMPARE(cq.rollNextFile(2), 4);
}

void tst_ConsumeQueue::recoverStopsAtZeroedUnitAndReportsDamage()
{
    QTemporaryDir dir;
    {
        ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
        for (int i = 0; i < 10; ++i)
            QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    }
    // Zero the middle file (units 4..7).
    QVERIFY(patchFile(
        dir.path() + QStringLiteral("/T/0/00000000000000000080"), 0, QByteArray(80, '\0')));
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    QVERIFY(cq.load().isOk());
    const auto r = cq.recover();
    QVERIFY(r.damaged);
    QVERIFY2(r.detail.contains(QStringLiteral("index 4")), qPrintable(r.detail));
    QCOMPARE(r.units, 4);
    QCOMPARE(cq.maxOffsetInQueue(), 4);
    QCOMPARE(cq.maxPhysicOffset(), 40);
    QVERIFY(r.discardedBytes > 0);
}

void tst_ConsumeQueue::truncateDirtyLogicFilesDropsUnitsPastOffset()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 10; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    cq.truncateDirtyLogicFiles(45); // units with offset >= 45: 5..9
    QCOMPARE(cq.maxOffsetInQueue(), 5);
    QCOMPARE(cq.maxPhysicOffset(), 50);
    cq.truncateDirtyLogicFiles(40);
    QCOMPARE(cq.maxOffsetInQueue(), 4);
    QCOMPARE(cq.files().fileCount(), 1);
    cq.truncateDirtyLogicFiles(0);
    QCOMPARE(cq.maxOffsetInQueue(), 0);
    QCOMPARE(cq.maxPhysicOffset(), -1);
}

void tst_ConsumeQueue::deleteExpiredFilesKeepsLast()
{
    QTemporaryDir dir;
    ConsumeQueue cq("T", 0, dir.path(), 20 * 4);
    for (int i = 0; i < 10; ++i)
        QVERIFY(cq.putUnit(i * 10, 10, 0, i).isOk());
    // Files hold units 0-3 (data ends at 40), 4-7 (ends at 80) and 8-9.
    QCOMPARE(cq.deleteExpiredFiles(85), 2);
    QCOMPARE(cq.minOffsetInQueue(), 9); // first unit at or past offset 85
    QCOMPARE(cq.deleteExpiredFiles(1000), 0); // never the last file
    QCOMPARE(cq.files().fileCount(), 1);
}

QTEST_APPLESS_MAIN(tst_ConsumeQueue)
#include "tst_consumequeue.moc"
