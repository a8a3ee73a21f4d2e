// tst_HaBodies: RocketMQ 5's replication status bodies (clientlib/protocol/bodies/habodies.h):
// HARuntimeInfo (GET_BROKER_HA_STATUS 907) and EpochEntryCache (GET_BROKER_EPOCH_CACHE 1007)
// round-trip, are written in fastjson's field order with RocketMQ's field names, and are read
// from the shape a Java broker sends (any field order, unknown fields, Long.MAX_VALUE ends).

#include "clientlib/protocol/bodies/habodies.h"
#include "clientlib/protocol/requestcode.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;

namespace {

template<typename T>
void roundTrip(const T &value)
{
    const QByteArray json = value.toJson();
    const Result<T> back = T::fromJson(json);
    QVERIFY2(back.has_value(), back ? "" : qPrintable(back.error().toString()));
    QVERIFY2(*back == value, json.constData());
}

HARuntimeInfo masterInfo()
{
    HARuntimeInfo info;
    info.master = true;
    info.masterCommitLogMaxOffset = 1048576;
    info.inSyncSlaveNums = 1;
    HAConnectionRuntimeInfo a;
    a.addr = "127.0.0.1:53412";
    a.slaveAckOffset = 1048000;
    a.diff = 576;
    a.inSync = true;
    a.transferredByteInSecond = 4096;
    a.transferFromWhere = 1048000;
    HAConnectionRuntimeInfo b;
    b.addr = "10.0.0.7:40000";
    b.slaveAckOffset = 0;
    b.diff = 1048576;
    info.haConnectionInfo = {a, b};
    return info;
}

} // namespace

class tst_HaBodies : public QObject
{
    Q_OBJECT

private slots:
    void codes()
    {
        QCOMPARE(toInt(RequestCode::GetBrokerHaStatus), 907);
        QCOMPARE(toInt(RequestCode::GetBrokerEpochCache), 1007);
        QCOMPARE(QByteArray(requestCodeName(907)), QByteArray("GET_BROKER_HA_STATUS"));
        QCOMPARE(QByteArray(requestCodeName(1007)), QByteArray("GET_BROKER_EPOCH_CACHE"));
    }

    void haRuntimeInfoRoundTrips()
    {
        roundTrip(masterInfo());
        HARuntimeInfo slave;
        slave.haClientRuntimeInfo.masterAddr = "127.0.0.1:10912";
        slave.haClientRuntimeInfo.maxOffset = 2048;
        slave.haClientRuntimeInfo.lastReadTimestamp = 1700000000123;
        slave.haClientRuntimeInfo.lastWriteTimestamp = 1700000000456;
        slave.haClientRuntimeInfo.transferredByteInSecond = 10;
        slave.haClientRuntimeInfo.masterFlushOffset = 1024;
        roundTrip(slave);
        roundTrip(HARuntimeInfo {});
    }

    void haRuntimeInfoWritesFastjsonOrder()
    {
        HARuntimeInfo info = masterInfo();
        info.haConnectionInfo.resize(1);
        QCOMPARE(info.toJson(),
            QByteArray(R"({"haClientRuntimeInfo":{"lastReadTimestamp":0,"lastWriteTimestamp":0,)"
                       R"("masterFlushOffset":0,"maxOffset":0,"transferredByteInSecond":0},)"
                       R"("haConnectionInfo":[{"addr":"127.0.0.1:53412","diff":576,"inSync":true,)"
                       R"("slaveAckOffset":1048000,"transferFromWhere":1048000,)"
                       R"("transferredByteInSecond":4096}],"inSyncSlaveNums":1,"master":true,)"
                       R"("masterCommitLogMaxOffset":1048576})"));
    }

    void haRuntimeInfoReadsJavasShape()
    {
        // A slave's answer as a Java broker writes it: fields in another order, a field QRocket
        // does not know, no connections.
        const auto info = HARuntimeInfo::fromJson(
            R"({"master":false,"inSyncSlaveNums":0,"masterCommitLogMaxOffset":0,)"
            R"("haConnectionInfo":[],"haClientRuntimeInfo":{"masterAddr":"192.168.1.2:10912",)"
            R"("maxOffset":987654321,"lastReadTimestamp":1700000000001,)"
            R"("lastWriteTimestamp":1700000000002,"masterFlushOffset":55,)"
            R"("transferredByteInSecond":7,"activated":true},"futureField":{"x":1}})");
        QVERIFY(info.has_value());
        QVERIFY(!info->master);
        QVERIFY(info->haConnectionInfo.empty());
        QCOMPARE(info->haClientRuntimeInfo.masterAddr, QByteArray("192.168.1.2:10912"));
        QCOMPARE(info->haClientRuntimeInfo.maxOffset, 987654321);
        QCOMPARE(info->haClientRuntimeInfo.lastReadTimestamp, 1700000000001);
        QCOMPARE(info->haClientRuntimeInfo.lastWriteTimestamp, 1700000000002);
        QCOMPARE(info->haClientRuntimeInfo.masterFlushOffset, 55);
        QCOMPARE(info->haClientRuntimeInfo.transferredByteInSecond, 7);
        // Wrong shapes are errors, not silently empty.
        QVERIFY(!HARuntimeInfo::fromJson("[]").has_value());
        QVERIFY(!HARuntimeInfo::fromJson(R"({"haConnectionInfo":{}})").has_value());
        QVERIFY(!HARuntimeInfo::fromJson(R"({"haConnectionInfo":[1]})").has_value());
        QVERIFY(!HARuntimeInfo::fromJson(R"({"haClientRuntimeInfo":[]})").has_value());
        QVERIFY(!HARuntimeInfo::fromJson("{").has_value());
    }

    void epochEntryCacheRoundTrips()
    {
        EpochEntryCache c;
        c.clusterName = "DefaultCluster";
        c.brokerName = "broker-a";
        c.brokerId = 1;
        c.maxOffset = 4096;
        c.epochList = {{1, 0, 1000}, {2, 1000, std::numeric_limits<std::int64_t>::max()}};
        roundTrip(c);
        roundTrip(EpochEntryCache {});
        QCOMPARE(c.toJson(),
            QByteArray(R"({"brokerId":1,"brokerName":"broker-a","clusterName":"DefaultCluster",)"
                       R"("epochList":[{"endOffset":1000,"epoch":1,"startOffset":0},)"
                       R"({"endOffset":9223372036854775807,"epoch":2,"startOffset":1000}],)"
                       R"("maxOffset":4096})"));
    }

    void epochEntryCacheCarriesTheElectionInControllerMode()
    {
        // QRocket's fields (the console's election view): written only when there is a master,
        // so a plain broker's body stays RocketMQ's (the round trip above).
        EpochEntryCache c;
        c.brokerName = "b";
        c.epochList = {{2, 0, std::numeric_limits<std::int64_t>::max()}};
        c.maxOffset = 10;
        c.masterAddr = "127.0.0.1:10911";
        c.syncStateSet = {"127.0.0.1:10911", "127.0.0.1:10921"};
        roundTrip(c);
        QCOMPARE(c.toJson(),
            QByteArray(
                R"({"brokerId":0,"brokerName":"b","clusterName":"",)"
                R"("epochList":[{"endOffset":9223372036854775807,"epoch":2,"startOffset":0}],)"
                R"("masterAddr":"127.0.0.1:10911","maxOffset":10,)"
                R"("syncStateSet":["127.0.0.1:10911","127.0.0.1:10921"]})"));
        QVERIFY(!EpochEntryCache::fromJson(R"({"syncStateSet":{}})").has_value());
    }

    void epochEntryCacheReadsJavasShape()
    {
        // An entry without endOffset is open (Java's default Long.MAX_VALUE).
        const auto c = EpochEntryCache::fromJson(
            R"({"maxOffset":77,"epochList":[{"epoch":3,"startOffset":10}],"brokerId":0,)"
            R"("clusterName":"C","brokerName":"b","extra":null})");
        QVERIFY(c.has_value());
        QCOMPARE(c->epochList.size(), std::size_t(1));
        QCOMPARE(c->epochList[0].epoch, 3);
        QCOMPARE(c->epochList[0].startOffset, 10);
        QCOMPARE(c->epochList[0].endOffset, std::numeric_limits<std::int64_t>::max());
        QCOMPARE(c->maxOffset, 77);
        QCOMPARE(c->brokerName, QByteArray("b"));
        QVERIFY(!EpochEntryCache::fromJson(R"({"epochList":{}})").has_value());
        QVERIFY(!EpochEntryCache::fromJson(R"({"epochList":["x"]})").has_value());
    }

    void epochEntryToStringIsJavas()
    {
        QCOMPARE(EpochEntryInfo({2, 100, 300}).toString(),
            QByteArray("EpochEntry{epoch=2, startOffset=100, endOffset=300}"));
    }
};

QTEST_GUILESS_MAIN(tst_HaBodies)
#include "tst_habodies.moc"
