#include "clientlib/common/properties.h"
#include "storage/core/storecheckpoint.h"
#include "storage/core/storeconfig.h"
#include "storetestutil.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket::storage;
using namespace qrocket::storage::test;

class tst_StoreCheckpoint final : public QObject
{
    Q_OBJECT

private slots:
    void readsGoldenCheckpoint();
    void roundTripsThroughFile();
    void secondLockIsRefusedWithClearError();
    void configHasRocketMqKeysAndDefaults();
    void configRejectsBadValues();
};

void tst_StoreCheckpoint::readsGoldenCheckpoint()
{
    const QString path = QStringLiteral("store/checkpoint");
    const QByteArray bytes = qrocket::testing::readVectorFile(path);
    QCOMPARE(bytes.size(), StoreCheckpoint::kFileSize);
    const QJsonObject json = QJsonDocument::fromJson(
        qrocket::testing::readVectorFile(path + QStringLiteral(".decoded.json")))
                                 .object();
    std::int64_t p = 0, l = 0, i = 0;
    QVERIFY(StoreCheckpoint::parse(bytes, p, l, i));
    QCOMPARE(p, json.value(QStringLiteral("physicMsgTimestamp")).toInteger());
    QCOMPARE(l, json.value(QStringLiteral("logicsMsgTimestamp")).toInteger());
    QCOMPARE(i, json.value(QStringLiteral("indexMsgTimestamp")).toInteger());

    // And through the class, from a copy.
    QTemporaryDir dir;
    QVERIFY(QFile::copy(
        qrocket::testing::vectorPath(path), dir.filePath(QStringLiteral("checkpoint"))));
    QFile::setPermissions(
        dir.filePath(QStringLiteral("checkpoint")), QFile::ReadOwner | QFile::WriteOwner);
    StoreCheckpoint cp(dir.filePath(QStringLiteral("checkpoint")));
    QVERIFY(cp.open().isOk());
    QCOMPARE(cp.physicMsgTimestamp(), 1796013523258);
    QCOMPARE(cp.minTimestamp(false), 1796013523258 - 3000);
    QCOMPARE(cp.minTimestamp(true), 0); // index timestamp 0
}

void tst_StoreCheckpoint::roundTripsThroughFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("checkpoint"));
    {
        StoreCheckpoint cp(path);
        QVERIFY(cp.open().isOk());
        cp.setPhysicMsgTimestamp(11);
        cp.setLogicsMsgTimestamp(22);
        cp.setIndexMsgTimestamp(33);
        QVERIFY(cp.flush().isOk());
    }
    QCOMPARE(readFile(path).size(), 4096);
    StoreCheckpoint cp(path);
    QVERIFY(cp.open().isOk());
    QCOMPARE(cp.physicMsgTimestamp(), 11);
    QCOMPARE(cp.logicsMsgTimestamp(), 22);
    QCOMPARE(cp.indexMsgTimestamp(), 33);
}

void tst_StoreCheckpoint::secondLockIsRefusedWithClearError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("lock"));
    StoreLock a;
    QVERIFY(a.acquire(path).isOk());
    StoreLock b;
    const qrocket::Status s = b.acquire(path);
    QCOMPARE(s.code(), qrocket::Status::Code::Busy);
    QVERIFY(s.message().contains(QStringLiteral("another process")));
    a.release();
    QVERIFY(b.acquire(path).isOk());
}

void tst_StoreCheckpoint::configHasRocketMqKeysAndDefaults()
{
    MessageStoreConfig c;
    QCOMPARE(c.mappedFileSizeCommitLog, 1073741824);
    QCOMPARE(c.mappedFileSizeConsumeQueue, 6000000);
    QCOMPARE(c.fileReservedTime, 72);
    QCOMPARE(c.deleteWhen, QStringLiteral("04"));
    QCOMPARE(c.diskMaxUsedSpaceRatio, 75);
    QCOMPARE(c.syncFlushTimeout, 5000);
    QCOMPARE(c.maxMessageSize, 4194304);
    QCOMPARE(c.delayLevelMillis().size(), 18);
    QCOMPARE(c.delayLevelMillis().at(2), 10000);
    QVERIFY(c.validate().isOk());
    qrocket::ConfigSchema schema;
    c.bind(schema);
    const auto props = qrocket::parseProperties(
        "storePathRootDir=/tmp/"
        "x\nflushDiskType=SYNC_FLUSH\ndeleteWhen=04;16\nmappedFileSizeCommitLog=268435456\n");
    QVERIFY(schema.apply(props).isOk());
    QVERIFY(c.isSyncFlush());
    QCOMPARE(c.deleteHours(), (QList<int> {4, 16}));
    QCOMPARE(c.commitLogDir(), QStringLiteral("/tmp/x/commitlog"));
    QCOMPARE(c.mappedFileSizeCommitLog, 268435456);
}

void tst_StoreCheckpoint::configRejectsBadValues()
{
    MessageStoreConfig c;
    c.flushDiskType = QStringLiteral("SOMETIMES");
    QVERIFY(c.validate().message().contains(QStringLiteral("flushDiskType")));
    c = MessageStoreConfig();
    c.deleteWhen = QStringLiteral("25");
    QVERIFY(c.validate().message().contains(QStringLiteral("deleteWhen")));
    c = MessageStoreConfig();
    c.mappedFileSizeConsumeQueue = 1001;
    QVERIFY(!c.validate().isOk());
    c = MessageStoreConfig();
    c.messageDelayLevel = QStringLiteral("1x");
    QVERIFY(!c.validate().isOk());
}

QTEST_APPLESS_MAIN(tst_StoreCheckpoint)
#include "tst_storecheckpoint.moc"
