// tst_AdminBodies: the admin API's body parsers (clientlib/client/admin/adminbodies.h) over the
// bodies Apache RocketMQ 4.9.7 itself answered to mqadmin (tests/data/vectors/frames.jsonl), over
// the shapes QRocket's broker and name server write, and over malformed bodies: each of those
// is a clear InvalidArgument naming the body, never a crash or a partial value.

#include "clientlib/client/admin/adminbodies.h"
#include "clientlib/client/clientapi.h"
#include "clientlib/client/message.h"
#include "tests/unit/protocol/goldenvectors.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace qrocket;
using namespace qrocket::client::admin;
using qrocket::protocol::MessageQueue;

namespace {

/// The response body of the golden frame `id` (a failed test when it is not there).
QByteArray goldenBody(int id, int expectedRequestCode)
{
    static const std::vector<testing::GoldenFrame> frames = testing::loadGoldenFrames();
    for (const testing::GoldenFrame &f : frames) {
        if (f.id == id) {
            if (f.requestCode != expectedRequestCode)
                qWarning(
                    "frame %d answers request %d, not %d", id, f.requestCode, expectedRequestCode);
            return f.body;
        }
    }
    qWarning("golden frame %d not found", id);
    return {};
}

const testing::GoldenFrame *goldenFrame(int id)
{
    static const std::vector<testing::GoldenFrame> frames = testing::loadGoldenFrames();
    for (const testing::GoldenFrame &f : frames) {
        if (f.id == id)
            return &f;
    }
    return nullptr;
}

MessageQueue mq(const char *topic, const char *broker, int queueId)
{
    return MessageQueue {QByteArray(topic), QByteArray(broker), queueId};
}

} // namespace

class tst_AdminBodies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(testing::vectorsProblem().isEmpty(), qPrintable(testing::vectorsProblem()));
    }

    // -- golden bodies (Apache RocketMQ 4.9.7) ---------------------------------------------

    void topicStatsFromRocketMQ()
    {
        auto t = TopicStatsTable::fromJson(goldenBody(253, 202));
        QVERIFY2(t.has_value(), qPrintable(t.status().toString()));
        QCOMPARE(t->offsetTable.size(), std::size_t(4));
        const TopicOffset &q3 = t->offsetTable.at(mq("TopicTest", "broker-a", 3));
        QCOMPARE(q3.minOffset, 0);
        QCOMPARE(q3.maxOffset, 250);
        QCOMPARE(q3.lastUpdateTimestamp, Q_INT64_C(1796013486494));
        QCOMPARE(t->offsetTable.at(mq("TopicTest", "broker-a", 2)).lastUpdateTimestamp,
            Q_INT64_C(1796013486492));
    }

    void consumeStatsFromRocketMQ()
    {
        auto c = ConsumeStats::fromJson(goldenBody(261, 208));
        QVERIFY2(c.has_value(), qPrintable(c.status().toString()));
        QCOMPARE(c->offsetTable.size(), std::size_t(5));
        QVERIFY(qAbs(c->consumeTps - 16.666666666666668) < 1e-9);
        const OffsetWrapper &q0 = c->offsetTable.at(mq("TopicTest", "broker-a", 0));
        QCOMPARE(q0.brokerOffset, 250);
        QCOMPARE(q0.consumerOffset, 250);
        QCOMPARE(q0.lastTimestamp, Q_INT64_C(1796013486495));
        QCOMPARE(q0.lag(), 0);
        QVERIFY(
            c->offsetTable.count(mq("%RETRY%please_rename_unique_group_name_4", "broker-a", 0)));
        QCOMPARE(c->totalBrokerOffset(), 1000);
        QCOMPARE(c->totalConsumerOffset(), 1000);
        QCOMPARE(c->totalLag(), 0);
    }

    void groupListFromRocketMQ()
    {
        auto g = GroupList::fromJson(goldenBody(281, 300));
        QVERIFY2(g.has_value(), qPrintable(g.status().toString()));
        QCOMPARE(g->groupList, std::vector<QByteArray> {"please_rename_unique_group_name_4"});
    }

    void runtimeInfoFromRocketMQ_data()
    {
        QTest::addColumn<int>("frame");
        QTest::addColumn<qint64>("putTotal");
        QTest::addRow("clusterList, idle broker") << 10 << qint64(0);
        QTest::addRow("brokerStatus, after the scenarios") << 267 << qint64(1292);
    }
    void runtimeInfoFromRocketMQ()
    {
        QFETCH(int, frame);
        QFETCH(qint64, putTotal);
        auto info = BrokerRuntimeInfo::fromJson(goldenBody(frame, 28));
        QVERIFY2(info.has_value(), qPrintable(info.status().toString()));
        QCOMPARE(info->versionDesc(), QByteArray("V4_9_7"));
        QCOMPARE(info->integer("brokerVersion"), 407);
        QCOMPARE(info->integer("msgPutTotalTodayNow"), putTotal);
        QCOMPARE(info->number("commitLogDiskRatio"), 0.23);
        // "0.0  " (trailing blanks) and "0.0 0.0 " (one rate per window) read as numbers.
        QCOMPARE(info->number("getFoundTps", -1), 0.0);
        QCOMPARE(info->integer("noSuchKey", -7), -7);
        QVERIFY(info->value("noSuchKey").isNull());
    }

    void brokerConfigFromRocketMQ()
    {
        const testing::GoldenFrame *f = goldenFrame(28);
        QVERIFY(f);
        ConfigProperties p = ConfigProperties::fromText(f->body);
        QVERIFY(p.entries.size() > 100);
        QCOMPARE(p.value(u"brokerName"), QStringLiteral("broker-a"));
        QCOMPARE(p.value(u"namesrvAddr"), QStringLiteral("127.0.0.1:19876"));
        QCOMPARE(p.value(u"messageDelayLevel"),
            QStringLiteral("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"));
        QVERIFY(p.contains(u"storePathRootDir"));
        QVERIFY(!p.contains(u"noSuchKey"));
        // The response header's version is a DataVersion.
        const QJsonObject header = QJsonDocument::fromJson(f->header).object();
        const QByteArray version = header.value(QLatin1String("extFields"))
                                       .toObject()
                                       .value(QLatin1String("version"))
                                       .toString()
                                       .toUtf8();
        auto v = protocol::DataVersion::fromJson(version);
        QVERIFY2(v.has_value(), qPrintable(v.status().toString()));
        QCOMPARE(v->timestamp, Q_INT64_C(1796013276648));
    }

    void nameServerConfigFromRocketMQ()
    {
        ConfigProperties p = ConfigProperties::fromText(goldenBody(34, 319));
        QCOMPARE(p.value(u"listenPort"), QStringLiteral("19876"));
        QCOMPARE(p.value(u"orderMessageEnable"), QStringLiteral("false"));
        QCOMPARE(p.entries.size(), std::size_t(20));
    }

    void propertiesRoundTrip()
    {
        const std::vector<std::pair<QString, QString>> entries {
            {QStringLiteral("brokerPermission"), QStringLiteral("4")},
            {QStringLiteral("odd key"), QStringLiteral("a=b:c\\d")}};
        ConfigProperties back = ConfigProperties::fromText(ConfigProperties::toText(entries));
        QCOMPARE(back.entries, entries);
    }

    void topicListAndClusterFromRocketMQ()
    {
        auto list = protocol::TopicList::fromJson(goldenBody(15, 206));
        QVERIFY(list.has_value());
        QCOMPARE(list->topicList.size(), std::size_t(8));
        auto cluster = protocol::ClusterInfo::fromJson(goldenBody(7, 106));
        QVERIFY2(cluster.has_value(), qPrintable(cluster.status().toString()));
        QCOMPARE(
            cluster->brokerAddrTable.at("broker-a").masterAddr(), QByteArray("127.0.0.1:20911"));
    }

    void queryAndViewBodiesFromRocketMQ()
    {
        auto query = client::MessageExt::decodeAll(goldenBody(271, 12), "broker-a");
        QVERIFY2(query.has_value(), qPrintable(query.status().toString()));
        QCOMPARE(query->size(), std::size_t(1));
        QCOMPARE(query->front().keys(), QByteArray("vkey1"));
        QCOMPARE(query->front().topic(), QByteArray("VecTopic"));
        auto view = client::MessageExt::decodeAll(goldenBody(277, 33), "broker-a");
        QVERIFY2(view.has_value(), qPrintable(view.status().toString()));
        QCOMPARE(view->size(), std::size_t(1));
        QCOMPARE(view->front().commitLogOffset(), 79765);
        QCOMPARE(view->front().body(), QByteArray("Hello RocketMQ 0"));
    }

    void consumerNotOnlineFromRocketMQ()
    {
        // GET_CONSUMER_CONNECTION_LIST of a stopped group: 206, which the admin reports with its
        // code so the CLI can tell "offline" from a failure.
        const testing::GoldenFrame *f = goldenFrame(283);
        QVERIFY(f);
        protocol::RemotingCommand response;
        response.code = f->code;
        response.flag = f->flag;
        const Status s = client::ClientApi::responseStatus(response);
        QCOMPARE(s.code(), Status::Code::RemoteError);
        QCOMPARE(s.remoteCode(), 206);
        QVERIFY2(
            s.message().contains(QLatin1String("CONSUMER_NOT_ONLINE")), qPrintable(s.message()));
    }

    // -- QRocket's shapes (standard JSON, enum names), and other writers ------------------

    void consumerConnection()
    {
        const QByteArray body
            = "{\"connectionSet\":[{\"clientAddr\":\"127.0.0.1:5000\",\"clientId\":\"10.0.0.1@1#"
              "2\",\"language\":\"CPP\",\"version\":409},"
              "{\"clientAddr\":\"127.0.0.1:5001\",\"clientId\":\"10.0.0.2@3#4\",\"language\":0,"
              "\"version\":\"407\"}],"
              "\"consumeFromWhere\":\"CONSUME_FROM_FIRST_OFFSET\",\"consumeType\":\"CONSUME_"
              "PASSIVELY\",\"messageModel\":\"BROADCASTING\","
              "\"subscriptionTable\":{\"T\":{\"classFilterMode\":false,\"codeSet\":[2598919],"
              "\"expressionType\":\"TAG\",\"subString\":\"TagA\",\"subVersion\":1700000000000,"
              "\"tagsSet\":[\"TagA\"],\"topic\":\"T\"}}}";
        auto c = ConsumerConnection::fromJson(body);
        QVERIFY2(c.has_value(), qPrintable(c.status().toString()));
        QCOMPARE(c->connectionSet.size(), std::size_t(2));
        QCOMPARE(c->connectionSet[0].clientId, QByteArray("10.0.0.1@1#2"));
        QCOMPARE(c->connectionSet[0].language, QByteArray("CPP"));
        QCOMPARE(c->connectionSet[0].version, 409);
        QCOMPARE(c->connectionSet[1].language, QByteArray("JAVA")); // ordinal 0
        QCOMPARE(c->connectionSet[1].version, 407); // number as a string
        QCOMPARE(c->consumeFromWhere, protocol::ConsumeFromWhere::ConsumeFromFirstOffset);
        QCOMPARE(c->messageModel, protocol::MessageModel::Broadcasting);
        QCOMPARE(c->subscriptionTable.at("T").subString, QByteArray("TagA"));
        // Ordinals (a non-fastjson writer) read too.
        auto ordinals = ConsumerConnection::fromJson(
            "{\"consumeType\":0,\"messageModel\":\"1\",\"consumeFromWhere\":5}");
        QVERIFY2(ordinals.has_value(), qPrintable(ordinals.status().toString()));
        QCOMPARE(ordinals->consumeType, protocol::ConsumeType::ConsumeActively);
        QCOMPARE(ordinals->messageModel, protocol::MessageModel::Clustering);
        QCOMPARE(ordinals->consumeFromWhere, protocol::ConsumeFromWhere::ConsumeFromTimestamp);
    }

    void producerConnection()
    {
        auto p = ProducerConnection::fromJson(
            "{\"connectionSet\":[{\"clientAddr\":\"127.0.0.1:6000\",\"clientId\":\"c1\","
            "\"language\":\"JAVA\",\"version\":407}]}");
        QVERIFY2(p.has_value(), qPrintable(p.status().toString()));
        QCOMPARE(p->connectionSet.size(), std::size_t(1));
        QCOMPARE(p->connectionSet[0].clientAddr, QByteArray("127.0.0.1:6000"));
    }

    void resetOffsetBody()
    {
        // fastjson's object keys, and a standard writer's quoted ones.
        auto r = ResetOffsetBody::fromJson(
            "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":1,\"topic\":\"T\"}:42,\"{"
            "\\\"brokerName\\\":\\\"b\\\",\\\"queueId\\\":2,\\\"topic\\\":\\\"T\\\"}\":\"7\"}}");
        QVERIFY2(r.has_value(), qPrintable(r.status().toString()));
        QCOMPARE(r->offsetTable.size(), std::size_t(2));
        QCOMPARE(r->offsetTable.at(mq("T", "b", 1)), 42);
        QCOMPARE(r->offsetTable.at(mq("T", "b", 2)), 7);
    }

    void subscriptionGroups()
    {
        SubscriptionGroupConfig g("G1");
        g.retryMaxTimes = 3;
        g.consumeBroadcastEnable = false;
        const QByteArray json = g.toJson();
        QVERIFY(json.startsWith("{\"brokerId\":0,\"consumeBroadcastEnable\":false,"));
        auto back = SubscriptionGroupConfig::fromJsonValue(*protocol::parseJson(json));
        QVERIFY(back.has_value());
        QCOMPARE(*back, g);
        auto w = SubscriptionGroupWrapper::fromJson(
            "{\"dataVersion\":{\"counter\":3,\"timestamp\":17},\"subscriptionGroupTable\":{\"G1\":"
            + json + ",\"TOOLS_CONSUMER\":{\"retryQueueNums\":\"1\"}}}");
        QVERIFY2(w.has_value(), qPrintable(w.status().toString()));
        QCOMPARE(w->dataVersion.counter, 3);
        QCOMPARE(w->subscriptionGroupTable.size(), std::size_t(2));
        QCOMPARE(w->subscriptionGroupTable.at("G1"), g);
        // A missing groupName is the table key; missing fields keep RocketMQ's defaults.
        QCOMPARE(
            w->subscriptionGroupTable.at("TOOLS_CONSUMER").groupName, QByteArray("TOOLS_CONSUMER"));
        QCOMPARE(w->subscriptionGroupTable.at("TOOLS_CONSUMER").retryMaxTimes, 16);
    }

    void consumerRunningInfo()
    {
        const QByteArray body
            = "{\"jstack\":\"\",\"mqTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:{"
              "\"cachedMsgCount\":3,\"cachedMsgMaxOffset\":12,\"cachedMsgMinOffset\":10,"
              "\"cachedMsgSizeInMiB\":0,\"commitOffset\":10,\"droped\":false,"
              "\"lastConsumeTimestamp\":1700000000500,\"lastLockTimestamp\":0,"
              "\"lastPullTimestamp\":1700000000400,\"locked\":true,\"transactionMsgCount\":0,"
              "\"transactionMsgMaxOffset\":0,\"transactionMsgMinOffset\":0,\"tryUnlockTimes\":0}},"
              "\"properties\":{\"PROP_CONSUME_TYPE\":\"CONSUME_PASSIVELY\",\"PROP_CONSUMEORDERLY\":"
              "\"true\",\"PROP_CLIENT_VERSION\":\"V4_9_7\"},"
              "\"statusTable\":{\"T\":{\"consumeFailedMsgs\":2,\"consumeFailedTPS\":0.5,"
              "\"consumeOKTPS\":10.25,\"consumeRT\":1.5,\"pullRT\":3.0,\"pullTPS\":20.0}},"
              "\"subscriptionSet\":[{\"classFilterMode\":false,\"codeSet\":[],\"expressionType\":"
              "\"TAG\",\"subString\":\"*\",\"subVersion\":1,\"tagsSet\":[],\"topic\":\"T\"}]}";
        auto info = ConsumerRunningInfo::fromJson(body);
        QVERIFY2(info.has_value(), qPrintable(info.status().toString()));
        QVERIFY(info->isPushConsumer());
        QVERIFY(info->isOrderly());
        QCOMPARE(info->subscriptionSet.size(), std::size_t(1));
        const ProcessQueueInfo &pq = info->mqTable.at(mq("T", "b", 0));
        QCOMPARE(pq.cachedMsgCount, 3);
        QCOMPARE(pq.commitOffset, 10);
        QVERIFY(pq.locked);
        QCOMPARE(info->statusTable.at("T").consumeOKTPS, 10.25);
        QCOMPARE(info->statusTable.at("T").consumeFailedMsgs, 2);
    }

    void brokerStatsData()
    {
        auto d = BrokerStatsData::fromJson(
            "{\"statsDay\":{\"avgpt\":0.0,\"sum\":100,\"tps\":0.01},\"statsHour\":{\"avgpt\":1.5,"
            "\"sum\":60,\"tps\":0.5},\"statsMinute\":{\"avgpt\":2.0,\"sum\":6,\"tps\":0.1}}");
        QVERIFY2(d.has_value(), qPrintable(d.status().toString()));
        QCOMPARE(d->statsDay.sum, 100);
        QCOMPARE(d->statsHour.avgpt, 1.5);
        QCOMPARE(d->statsMinute.tps, 0.1);
    }

    void extensions()
    {
        // The bodies documented in extensioncode.h.
        auto l = BrokerLiveness::fromJson(
            "{\"brokerChannelExpiredTime\":120000,\"brokers\":[{\"ageMillis\":1234,\"brokerAddr\":"
            "\"ip:port\",\"brokerId\":0,\"brokerName\":\"broker-a\",\"clusterName\":"
            "\"DefaultCluster\",\"dataVersion\":{\"counter\":3,\"timestamp\":1700000000000},"
            "\"haServerAddr\":\"ip:port\",\"lastUpdateTimestamp\":1700000001234}],\"now\":"
            "1700000002468}");
        QVERIFY2(l.has_value(), qPrintable(l.status().toString()));
        QCOMPARE(l->brokerChannelExpiredTime, 120000);
        QCOMPARE(l->brokers.size(), std::size_t(1));
        QCOMPARE(l->brokers[0].ageMillis, 1234);
        QCOMPARE(l->brokers[0].dataVersion.counter, 3);
        QCOMPARE(l->now, Q_INT64_C(1700000002468));
        auto s = StoreFiles::fromJson(
            "{\"commitLogMaxOffset\":123,\"commitLogMinOffset\":0,\"diskFull\":false,\"diskRatio\":"
            "0.23,\"fileReservedTimeHours\":72,\"files\":[{\"ageMillis\":5000,\"expiresAt\":"
            "1700259200000,\"lastModified\":1700000000000,\"path\":\"/store/commitlog/"
            "00000000000000000000\",\"reasonKept\":\"not "
            "expired\",\"size\":1073741824}],\"now\":1700000005000,\"refuseReason\":\"\"}");
        QVERIFY2(s.has_value(), qPrintable(s.status().toString()));
        QCOMPARE(s->commitLogMaxOffset, 123);
        QCOMPARE(s->diskRatio, 0.23);
        QCOMPARE(s->fileReservedTimeHours, 72);
        QCOMPARE(s->files.size(), std::size_t(1));
        QCOMPARE(s->files[0].size, Q_INT64_C(1073741824));
        QCOMPARE(s->files[0].reasonKept, QByteArray("not expired"));
    }

    void emptyObjectsKeepDefaults()
    {
        QVERIFY(TopicStatsTable::fromJson("{}")->offsetTable.empty());
        QCOMPARE(ConsumeStats::fromJson("{}")->consumeTps, 0.0);
        QVERIFY(ConsumerConnection::fromJson("{}")->connectionSet.empty());
        QCOMPARE(StoreFiles::fromJson("{}")->diskRatio, -1.0);
        QVERIFY(ConsumerRunningInfo::fromJson("{}")->properties.empty());
    }

    // -- malformed bodies ------------------------------------------------------------------

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("parser");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("mentions");
        const QByteArray stats = "TopicStatsTable";
        QTest::addRow("empty") << stats << QByteArray() << QStringLiteral("TopicStatsTable");
        QTest::addRow("not JSON") << stats << QByteArray("hello")
                                  << QStringLiteral("TopicStatsTable");
        QTest::addRow("array") << stats << QByteArray("[1,2]")
                               << QStringLiteral("not a JSON object");
        QTest::addRow("truncated golden")
            << stats << goldenBody(253, 202).left(200) << QStringLiteral("TopicStatsTable");
        QTest::addRow("offsetTable array")
            << stats << QByteArray("{\"offsetTable\":[1]}") << QStringLiteral("offsetTable");
        QTest::addRow("key not a queue") << stats << QByteArray("{\"offsetTable\":{\"x\":{}}}")
                                         << QStringLiteral("not a MessageQueue");
        QTest::addRow("value not an object")
            << stats
            << QByteArray(
                   "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:5}}")
            << QStringLiteral("offsetTable");
        QTest::addRow("consume stats truncated")
            << QByteArray("ConsumeStats") << goldenBody(261, 208).left(300)
            << QStringLiteral("ConsumeStats");
        QTest::addRow("reset value object")
            << QByteArray("ResetOffsetBody")
            << QByteArray(
                   "{\"offsetTable\":{{\"brokerName\":\"b\",\"queueId\":0,\"topic\":\"T\"}:{}}}")
            << QStringLiteral("offsetTable");
        QTest::addRow("groupList object")
            << QByteArray("GroupList") << QByteArray("{\"groupList\":{}}")
            << QStringLiteral("groupList");
        QTest::addRow("connectionSet object")
            << QByteArray("ConsumerConnection") << QByteArray("{\"connectionSet\":{}}")
            << QStringLiteral("connectionSet");
        QTest::addRow("connection not object")
            << QByteArray("ProducerConnection") << QByteArray("{\"connectionSet\":[1]}")
            << QStringLiteral("Connection");
        QTest::addRow("unknown enum")
            << QByteArray("ConsumerConnection") << QByteArray("{\"messageModel\":\"SOMETIMES\"}")
            << QStringLiteral("messageModel");
        QTest::addRow("subscription without topic")
            << QByteArray("ConsumerConnection")
            << QByteArray("{\"subscriptionTable\":{\"T\":{\"subString\":\"*\"}}}")
            << QStringLiteral("subscriptionTable");
        QTest::addRow("group table array") << QByteArray("SubscriptionGroupWrapper")
                                           << QByteArray("{\"subscriptionGroupTable\":[]}")
                                           << QStringLiteral("subscriptionGroupTable");
        QTest::addRow("running info mqTable array")
            << QByteArray("ConsumerRunningInfo") << QByteArray("{\"mqTable\":[]}")
            << QStringLiteral("mqTable");
        QTest::addRow("running info status not object")
            << QByteArray("ConsumerRunningInfo") << QByteArray("{\"statusTable\":{\"T\":1}}")
            << QStringLiteral("statusTable");
        QTest::addRow("stats item array")
            << QByteArray("BrokerStatsData") << QByteArray("{\"statsDay\":[]}")
            << QStringLiteral("statsDay");
        QTest::addRow("runtime table array")
            << QByteArray("BrokerRuntimeInfo") << QByteArray("{\"table\":[]}")
            << QStringLiteral("BrokerRuntimeInfo");
        QTest::addRow("liveness brokers object")
            << QByteArray("BrokerLiveness") << QByteArray("{\"brokers\":{}}")
            << QStringLiteral("brokers");
        QTest::addRow("liveness broker scalar")
            << QByteArray("BrokerLiveness") << QByteArray("{\"brokers\":[3]}")
            << QStringLiteral("brokers");
        QTest::addRow("store files scalar")
            << QByteArray("StoreFiles") << QByteArray("{\"files\":[\"x\"]}")
            << QStringLiteral("files");
        QTest::addRow("deep nesting")
            << QByteArray("ConsumeStats") << QByteArray(200, '[') << QStringLiteral("ConsumeStats");
        QTest::addRow("binary") << QByteArray("StoreFiles") << QByteArray("\x00\xff\xfe{", 4)
                                << QStringLiteral("StoreFiles");
    }
    void malformed()
    {
        QFETCH(QByteArray, parser);
        QFETCH(QByteArray, body);
        QFETCH(QString, mentions);
        Status s;
        if (parser == "TopicStatsTable")
            s = TopicStatsTable::fromJson(body).status();
        else if (parser == "ConsumeStats")
            s = ConsumeStats::fromJson(body).status();
        else if (parser == "ResetOffsetBody")
            s = ResetOffsetBody::fromJson(body).status();
        else if (parser == "GroupList")
            s = GroupList::fromJson(body).status();
        else if (parser == "ConsumerConnection")
            s = ConsumerConnection::fromJson(body).status();
        else if (parser == "ProducerConnection")
            s = ProducerConnection::fromJson(body).status();
        else if (parser == "SubscriptionGroupWrapper")
            s = SubscriptionGroupWrapper::fromJson(body).status();
        else if (parser == "ConsumerRunningInfo")
            s = ConsumerRunningInfo::fromJson(body).status();
        else if (parser == "BrokerStatsData")
            s = BrokerStatsData::fromJson(body).status();
        else if (parser == "BrokerRuntimeInfo")
            s = BrokerRuntimeInfo::fromJson(body).status();
        else if (parser == "BrokerLiveness")
            s = BrokerLiveness::fromJson(body).status();
        else if (parser == "StoreFiles")
            s = StoreFiles::fromJson(body).status();
        else
            QFAIL("unknown parser");
        QVERIFY2(!s.isOk(), "a malformed body was accepted");
        QCOMPARE(s.code(), Status::Code::InvalidArgument);
        QVERIFY2(s.message().contains(mentions), qPrintable(s.message()));
    }
};

QTEST_GUILESS_MAIN(tst_AdminBodies)
#include "tst_adminbodies.moc"
