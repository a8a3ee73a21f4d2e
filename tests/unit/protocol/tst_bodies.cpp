// Request/response bodies (protocol.md §3, §4.3, §4.4, §4.7) against captured frames and store
// files: REGISTER_BROKER (incl. bodyCrc32 and the compressed form), routes, cluster info, topic
// lists, KV tables, heartbeats from Java/cpp/ali-ons, consumer id lists.

#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/compression.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "goldenvectors.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;
using qrocket::testing::GoldenFrame;

namespace {

struct Decoded
{
    GoldenFrame frame;
    RemotingCommand cmd;
};

std::vector<Decoded> framesFor(int code, bool responses)
{
    std::vector<Decoded> out;
    for (const GoldenFrame &f : qrocket::testing::loadGoldenFrames()) {
        const bool isResponse = f.kind == QLatin1String("response");
        if (isResponse != responses || (responses ? f.requestCode : f.code) != code)
            continue;
        if (responses && f.code != 0)
            continue;
        Decoded d {f, {}};
        if (decodeFrame(f.frame, d.cmd).status == DecodeStatus::Ok)
            out.push_back(std::move(d));
    }
    return out;
}

void appendChunk(QByteArray &out, QByteArrayView chunk)
{
    char len[4];
    writeI32(len, static_cast<std::int32_t>(chunk.size()));
    out.append(len, 4);
    out.append(chunk.data(), chunk.size());
}

/// What RegisterBrokerBody::fromJson gave when it read the whole document as one tree.
std::optional<RegisterBrokerBody> registerBodyByTree(const QByteArray &json)
{
    auto tree = parseJson(json);
    if (!tree || !tree->isObject())
        return std::nullopt;
    auto filters = bodyjson::stringList(
        (*tree)["filterServerList"], "RegisterBrokerBody", "filterServerList");
    const JsonValue &w = (*tree)["topicConfigSerializeWrapper"];
    auto wrapper = w.isNull() ? Result<TopicConfigSerializeWrapper>(TopicConfigSerializeWrapper {})
                              : TopicConfigSerializeWrapper::fromJsonValue(w);
    if (!filters || !wrapper)
        return std::nullopt;
    RegisterBrokerBody b;
    b.filterServerList = *filters;
    b.topicConfigSerializeWrapper = *wrapper;
    return b;
}

} // namespace

class tst_Bodies : public QObject
{
    Q_OBJECT

private slots:
    void registerBroker()
    {
        const auto frames = framesFor(103, false);
        QCOMPARE(frames.size(), std::size_t(4));
        for (const Decoded &d : frames) {
            const auto header = RegisterBrokerRequestHeader::decode(d.cmd);
            QVERIFY(header.has_value());
            QCOMPARE(crc32Masked(d.cmd.body), header->bodyCrc32);
            const auto body = RegisterBrokerBody::decode(d.cmd.body, header->compressed);
            QVERIFY2(body.has_value(), qPrintable(body.status().toString()));
            const auto &table = body->topicConfigSerializeWrapper.topicConfigTable;
            QVERIFY(table.size() >= 8);
            QCOMPARE(table.at("SCHEDULE_TOPIC_XXXX").readQueueNums, 18);
            QCOMPARE(table.at("DefaultCluster").perm, 7);
            QCOMPARE(table.at("TBW102").topicFilterType, TopicFilterType::SingleTag);
            QVERIFY(body->topicConfigSerializeWrapper.dataVersion.timestamp > 1700000000000LL);
            QVERIFY(body->filterServerList.empty());
            // Our JSON reads back to the same value.
            QCOMPARE(RegisterBrokerBody::fromJson(body->toJson()).value(), *body);
            // The compressed form keeps everything but sysFlag/order (TopicConfig.encode()).
            const QByteArray packed = body->encodeCompressed().value();
            QCOMPARE(quint8(packed[0]), quint8(0x78));
            const auto unpacked = RegisterBrokerBody::decode(packed, true);
            QVERIFY2(unpacked.has_value(), qPrintable(unpacked.status().toString()));
            QCOMPARE(unpacked->topicConfigSerializeWrapper.dataVersion,
                body->topicConfigSerializeWrapper.dataVersion);
            QCOMPARE(unpacked->topicConfigSerializeWrapper.topicConfigTable.size(), table.size());
            for (const auto &[name, config] : table) {
                const TopicConfig &u
                    = unpacked->topicConfigSerializeWrapper.topicConfigTable.at(name);
                QCOMPARE(u.topicName, config.topicName);
                QCOMPARE(u.readQueueNums, config.readQueueNums);
                QCOMPARE(u.writeQueueNums, config.writeQueueNums);
                QCOMPARE(u.perm, config.perm);
                QCOMPARE(u.topicFilterType, config.topicFilterType);
            }
        }
        const auto responses = framesFor(103, true);
        QVERIFY(!responses.empty());
        for (const Decoded &d : responses) {
            QVERIFY(RegisterBrokerResponseHeader::decode(d.cmd).has_value());
            if (!d.cmd.body.isEmpty())
                QVERIFY(KVTable::fromJson(d.cmd.body).has_value());
        }
    }

    // RegisterBrokerBody::fromJson reads the topic table topic by topic (no tree of the whole
    // document); every form the tolerant reader takes must give what the tree gives, and every
    // body the tree rejects must still be rejected.
    void registerBodyForms_data()
    {
        QTest::addColumn<QByteArray>("json");
        const QByteArray topic
            = "{\"topicName\":\"T1\",\"readQueueNums\":3,\"writeQueueNums\":5,\"perm\":6,"
              "\"topicFilterType\":\"MULTI_TAG\",\"topicSysFlag\":1,\"order\":true,"
              "\"attributes\":{\"message.type\":\"FIFO\"}}";
        const QByteArray dv = "{\"counter\":7,\"timestamp\":1700000000123}";
        QTest::addRow("plain") << QByteArray("{\"filterServerList\":[\"a:1\"],"
                                             "\"topicConfigSerializeWrapper\":{\"dataVersion\":"
            + dv + ",\"topicConfigTable\":{\"T1\":" + topic + ",\"T2\":{\"readQueueNums\":1}}}}");
        QTest::addRow("spaces, wrapper first") << QByteArray(
            "{ \n \"topicConfigSerializeWrapper\" : { \"topicConfigTable\" : { "
            "\"T1\" : "
            + topic + " } , \"dataVersion\" : " + dv + " } ,\r\n\t\"filterServerList\" : [ ] } ");
        QTest::addRow("single quotes, trailing commas, unknown members")
            << QByteArray("{'extra':{\"x\":[1,\"]}\"]},'topicConfigSerializeWrapper':"
                          "{'topicConfigTable':{'T\\u00e9':{'readQueueNums':2,},},'y':null,},}");
        QTest::addRow("escaped names")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"a\\\"b\\\\c\":"
                          "{\"perm\":2}}}}");
        QTest::addRow("unquoted key (tree's path)")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{7:{}}}}");
        QTest::addRow("duplicate topic (last wins)")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"T\":{\"perm\":"
                          "2},\"T\":{\"perm\":4}}}}");
        QTest::addRow("duplicate table (tree's path)")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"A\":{}},"
                          "\"topicConfigTable\":{\"B\":{}}}}");
        QTest::addRow("null wrapper") << QByteArray("{\"topicConfigSerializeWrapper\":null}");
        QTest::addRow("empty") << QByteArray("{}");
        // Rejected by the tree: rejected here too.
        QTest::addRow("bad: missing value")
            << QByteArray("{\"x\":,\"topicConfigSerializeWrapper\":{}}");
        QTest::addRow("bad: unbalanced unknown member")
            << QByteArray("{\"x\":[1},\"topicConfigSerializeWrapper\":{}}");
        QTest::addRow("bad: topic not an object")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"T\":[]}}}");
        QTest::addRow("bad: negative queues")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"T\":{"
                          "\"readQueueNums\":-1}}}}");
        QTest::addRow("bad: dataVersion") << QByteArray(
            "{\"topicConfigSerializeWrapper\":{\"dataVersion\":[],\"topicConfigTable\":{}}}");
        QTest::addRow("bad: filter list") << QByteArray("{\"filterServerList\":{}}");
        QTest::addRow("bad: trailing text") << QByteArray("{\"filterServerList\":[]} x");
        QTest::addRow("bad: unterminated") << QByteArray(
            "{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"T\":{\"perm\":2}");
        QTest::addRow("bad: unterminated string")
            << QByteArray("{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":{\"T");
    }

    void registerBodyForms()
    {
        QFETCH(QByteArray, json);
        const std::optional<RegisterBrokerBody> expected = registerBodyByTree(json);
        const auto body = RegisterBrokerBody::fromJson(json);
        QCOMPARE(body.has_value(), expected.has_value());
        if (expected)
            QCOMPARE(*body, *expected);
    }

    // Mutated bodies (bytes replaced, inserted, removed; a fixed seed): the topic-by-topic read
    // and the tree agree on each, accepted or not.
    void registerBodyMutations()
    {
        const QByteArray seed = "{\"filterServerList\":[\"a:1\"],\"topicConfigSerializeWrapper\":"
                                "{\"dataVersion\":{\"counter\":7,\"timestamp\":1},"
                                "\"topicConfigTable\":{\"T1\":{\"topicName\":\"T1\","
                                "\"readQueueNums\":3,\"perm\":6,\"attributes\":{\"k\":\"v\"}},"
                                "'T2':{\"order\":true,},\"T\\u00e9\":{}}}}";
        const char alphabet[] = "{}[]:,\"'\\ 0a-ntu";
        std::uint32_t state = 12345;
        const auto next = [&state] {
            state = state * 1664525u + 1013904223u;
            return state >> 8;
        };
        int accepted = 0;
        for (int i = 0; i < 20000; ++i) {
            QByteArray json = seed;
            for (int k = 1 + int(next() % 3); k > 0; --k) {
                const qsizetype at = qsizetype(next() % std::uint32_t(json.size()));
                const char c = alphabet[next() % (sizeof alphabet - 1)];
                switch (next() % 3) {
                case 0:
                    json[at] = c;
                    break;
                case 1:
                    json.insert(at, c);
                    break;
                default:
                    json.remove(at, 1);
                }
            }
            const std::optional<RegisterBrokerBody> expected = registerBodyByTree(json);
            const auto body = RegisterBrokerBody::fromJson(json);
            QVERIFY2(body.has_value() == expected.has_value(), json.constData());
            if (expected) {
                QVERIFY2(*body == *expected, json.constData());
                ++accepted;
            }
        }
        QVERIFY(accepted > 1000); // not only rejections
    }

    void registerBodyOfManyTopics()
    {
        RegisterBrokerBody b;
        b.filterServerList = {"f:1"};
        for (int i = 0; i < 5000; ++i) {
            TopicConfig t("Many_" + QByteArray::number(i), 1 + i % 16);
            if (i % 7 == 0)
                t.attributes["message.type"] = "DELAY";
            b.topicConfigSerializeWrapper.topicConfigTable[t.topicName] = t;
        }
        const auto back = RegisterBrokerBody::fromJson(b.toJson());
        QVERIFY2(back.has_value(), qPrintable(back.status().toString()));
        QCOMPARE(*back, b);
    }

    void compressedRegisterHandWritten()
    {
        // protocol.md §3.1: zlib( i32 n1, DataVersion JSON, i32 count, {i32 len, "name r w perm
        // filter"}*, i32 n2, filterServerList JSON ).
        QByteArray plain;
        appendChunk(plain, "{\"counter\":3,\"timestamp\":1796013276532}");
        char count[4];
        writeI32(count, 2);
        plain.append(count, 4);
        appendChunk(plain, "TopicA 8 4 6 SINGLE_TAG");
        appendChunk(plain, "TopicB 1 1 2 MULTI_TAG");
        appendChunk(plain, "[\"10.0.0.1:1\"]");
        const QByteArray packed = zlibCompress(plain, 9).value();
        const auto body = RegisterBrokerBody::decodeCompressed(packed);
        QVERIFY2(body.has_value(), qPrintable(body.status().toString()));
        QCOMPARE(body->topicConfigSerializeWrapper.dataVersion.counter, std::int64_t(3));
        const TopicConfig &a = body->topicConfigSerializeWrapper.topicConfigTable.at("TopicA");
        QCOMPARE(a.readQueueNums, 8);
        QCOMPARE(a.writeQueueNums, 4);
        QCOMPARE(a.perm, 6);
        QCOMPARE(body->topicConfigSerializeWrapper.topicConfigTable.at("TopicB").topicFilterType,
            TopicFilterType::MultiTag);
        QCOMPARE(body->filterServerList, std::vector<QByteArray> {"10.0.0.1:1"});
        // Our encoder produces the same plaintext (topics in name order).
        QCOMPARE(zlibDecompress(body->encodeCompressed().value()).value(), plain);

        // Damaged variants are errors, not crashes.
        QVERIFY(!RegisterBrokerBody::decodeCompressed(packed.left(packed.size() - 3)).has_value());
        QVERIFY(!RegisterBrokerBody::decodeCompressed("garbage").has_value());
        for (qsizetype cut = 0; cut < plain.size(); cut += 3)
            QVERIFY(!RegisterBrokerBody::decodeCompressed(zlibCompress(plain.left(cut)).value())
                         .has_value());
        QByteArray badCount = plain;
        writeI32(badCount.data() + 4 + 39, 1000);
        QVERIFY(!RegisterBrokerBody::decodeCompressed(zlibCompress(badCount).value()).has_value());
        QVERIFY(!RegisterBrokerBody::decodeCompressed(packed, 16).has_value()); // inflate cap
    }

    void routes()
    {
        const auto frames = framesFor(105, true);
        QVERIFY(frames.size() >= 20);
        int identical = 0;
        for (const Decoded &d : frames) {
            const auto route = TopicRouteData::fromJson(d.cmd.body);
            QVERIFY2(route.has_value(), qPrintable(route.status().toString()));
            QCOMPARE(route->brokerDatas.size(), std::size_t(1));
            QCOMPARE(route->brokerDatas[0].masterAddr(), QByteArray("127.0.0.1:20911"));
            QCOMPARE(route->brokerDatas[0].cluster, QByteArray("DefaultCluster"));
            QVERIFY(!route->queueDatas.empty());
            QVERIFY(route->queueDatas[0].perm & Perm::Write);
            QCOMPARE(TopicRouteData::fromJson(route->toJson()).value(), *route);
            // For the standard-JSON answers (requester version >= 401) our writer is
            // byte-identical.
            if (d.cmd.body.contains("{\"0\":")) {
                QCOMPARE(route->toJson(), d.cmd.body);
                ++identical;
            }
        }
        QVERIFY(identical > 5);
    }

    // QRocket's name server adds "grpcPorts" to a broker's data (issue 27). RocketMQ's captured
    // routes, with that field added in both forms they use (standard JSON and fastjson's
    // unquoted integer keys), still decode to the same route, plus the ports; the writer puts
    // the field last, and the route reads back equal.
    void routesWithGrpcPorts()
    {
        const auto frames = framesFor(105, true);
        QVERIFY(frames.size() >= 20);
        int unquoted = 0;
        for (const Decoded &d : frames) {
            const auto plain = TopicRouteData::fromJson(d.cmd.body);
            QVERIFY(plain.has_value());
            const QByteArray anchor = "\"cluster\":\"DefaultCluster\"";
            QVERIFY(d.cmd.body.contains(anchor));
            const bool fastjson = d.cmd.body.contains("{0:");
            unquoted += fastjson ? 1 : 0;
            QByteArray extended = d.cmd.body;
            extended.replace(anchor,
                anchor + (fastjson ? ",\"grpcPorts\":{0:8081}" : ",\"grpcPorts\":{\"0\":8081}"));
            const auto route = TopicRouteData::fromJson(extended);
            QVERIFY2(route.has_value(), qPrintable(route.status().toString()));
            TopicRouteData expected = *plain;
            expected.brokerDatas[0].grpcPorts[0] = 8081;
            QCOMPARE(*route, expected);
            QCOMPARE(TopicRouteData::fromJson(route->toJson()).value(), expected);
            if (!fastjson)
                QCOMPARE(route->toJson(), extended);
            // Without ports nothing is written: RocketMQ's bytes.
            QVERIFY(!plain->toJson().contains("grpcPorts"));
        }
        QVERIFY(unquoted >= 1);
        // A malformed extension is left out, never a reason to refuse the route.
        const QByteArray base = frames.front().cmd.body;
        for (const QByteArray &bad :
            {QByteArray("\"x\""), QByteArray("[8081]"), QByteArray("{\"0\":\"x\"}"),
                QByteArray("{\"0\":70000}"), QByteArray("{\"a\":8081}"), QByteArray("null")}) {
            QByteArray json = base;
            json.replace("\"cluster\":", "\"grpcPorts\":" + bad + ",\"cluster\":");
            const auto route = TopicRouteData::fromJson(json);
            QVERIFY2(route.has_value(), bad.constData());
            QVERIFY2(route->brokerDatas[0].grpcPorts.empty(), bad.constData());
        }
    }

    void clusterInfoTopicListKv()
    {
        const auto clusters = framesFor(106, true);
        QVERIFY(!clusters.empty());
        for (const Decoded &d : clusters) {
            const auto info = ClusterInfo::fromJson(d.cmd.body);
            QVERIFY(info.has_value());
            QCOMPARE(info->brokerAddrTable.at("broker-a").brokerAddrs.at(0),
                QByteArray("127.0.0.1:20911"));
            QCOMPARE(
                info->clusterAddrTable.at("DefaultCluster"), std::vector<QByteArray> {"broker-a"});
            QCOMPARE(ClusterInfo::fromJson(info->toJson()).value(), *info);
        }
        const auto lists = framesFor(206, true);
        QCOMPARE(lists.size(), std::size_t(1));
        const auto topics = TopicList::fromJson(lists[0].cmd.body);
        QVERIFY(topics.has_value());
        QVERIFY(std::find(topics->topicList.begin(), topics->topicList.end(), QByteArray("TBW102"))
            != topics->topicList.end());
        QVERIFY(topics->brokerAddr.isNull());
        QCOMPARE(TopicList::fromJson(topics->toJson()).value(), *topics);
        for (const Decoded &d : framesFor(28, true)) {
            const auto kv = KVTable::fromJson(d.cmd.body);
            QVERIFY(kv.has_value());
            QVERIFY(kv->table.count("msgPutTotalTodayNow"));
            QCOMPARE(KVTable::fromJson(kv->toJson()).value(), *kv);
        }
        const auto kvFile
            = qrocket::testing::readVectorFile(QStringLiteral("store/namesrv/kvConfig.json"));
        QVERIFY(parseJson(kvFile).has_value());
    }

    void topicsJson()
    {
        const auto wrapper = TopicConfigSerializeWrapper::fromJson(
            qrocket::testing::readVectorFile(QStringLiteral("store/config/topics.json")));
        QVERIFY(wrapper.has_value());
        QCOMPARE(wrapper->dataVersion.counter, std::int64_t(14));
        QCOMPARE(wrapper->topicConfigTable.at("TopicTest").writeQueueNums, 4);
        QCOMPARE(TopicConfigSerializeWrapper::fromJson(wrapper->toJson()).value(), *wrapper);
        TopicConfig t;
        t.topicName = "T";
        QCOMPARE(t.toJson(),
            QByteArray(
                "{\"order\":false,\"perm\":6,\"readQueueNums\":16,\"topicFilterType\":"
                "\"SINGLE_TAG\",\"topicName\":\"T\",\"topicSysFlag\":0,\"writeQueueNums\":16}"));
        QCOMPARE((DataVersion {5, 6}).toJson(), QByteArray("{\"counter\":5,\"timestamp\":6}"));
        QCOMPARE(TopicConfig::decodeText("T 1 2 6 SINGLE_TAG")->writeQueueNums, 2);
        QVERIFY(!TopicConfig::decodeText("T 1 2 6").has_value());
        QVERIFY(!TopicConfig::decodeText("T x 2 6 SINGLE_TAG").has_value());
    }

    void heartbeats()
    {
        int java = 0;
        int cpp = 0;
        int ons = 0;
        for (const Decoded &d : framesFor(34, false)) {
            const auto hb = HeartbeatData::fromJson(d.cmd.body);
            QVERIFY2(hb.has_value(), qPrintable(hb.status().toString()));
            QVERIFY(!hb->clientID.isEmpty());
            for (const ConsumerData &c : hb->consumerDataSet) {
                QCOMPARE(c.consumeType, ConsumeType::ConsumePassively);
                QCOMPARE(c.messageModel, MessageModel::Clustering);
                QVERIFY(!c.subscriptionDataSet.empty());
                for (const SubscriptionData &s : c.subscriptionDataSet)
                    QVERIFY(s.subVersion > 1700000000000LL);
            }
            QCOMPARE(HeartbeatData::fromJson(hb->toJson()).value(), *hb);
            if (d.frame.client == QLatin1String("cpp-2.2.0")) {
                QCOMPARE(hb->consumerDataSet[0].consumeFromWhere,
                    ConsumeFromWhere::ConsumeFromFirstOffset);
                QCOMPARE(hb->consumerDataSet[0].subscriptionDataSet[0].expressionType,
                    QByteArray("TAG"));
                ++cpp;
            } else if (d.frame.client == QLatin1String("ali-ons-3.12.0")) {
                if (!hb->consumerDataSet.empty()) {
                    const SubscriptionData &s = hb->consumerDataSet[0].subscriptionDataSet[0];
                    QCOMPARE(s.tagsSet, (std::vector<QByteArray> {"TagA", "TagB"}));
                    QCOMPARE(s.codeSet, (std::vector<std::int32_t> {2598919, 2598920}));
                    QCOMPARE(hb->producerDataSet[0].groupName,
                        QByteArray("PID_aliOnsRT_mx2s0a6ec7753a"));
                }
                ++ons;
            } else {
                ++java;
            }
        }
        QVERIFY(java > 0 && cpp > 0 && ons > 0);
        // Enum names are written, ordinals read.
        const auto hb
            = HeartbeatData::fromJson("{\"clientID\":\"c\",\"consumerDataSet\":[{"
                                      "\"consumeFromWhere\":\"5\",\"consumeType\":0,"
                                      "\"groupName\":\"G\",\"messageModel\":\"BROADCASTING\"}]}");
        QVERIFY(hb.has_value());
        QCOMPARE(hb->consumerDataSet[0].consumeFromWhere, ConsumeFromWhere::ConsumeFromTimestamp);
        QCOMPARE(hb->consumerDataSet[0].consumeType, ConsumeType::ConsumeActively);
        QCOMPARE(hb->consumerDataSet[0].messageModel, MessageModel::Broadcasting);
        QVERIFY(hb->toJson().contains("\"consumeFromWhere\":\"CONSUME_FROM_TIMESTAMP\""));
        const auto bad
            = HeartbeatData::fromJson("{\"clientID\":\"c\",\"consumerDataSet\":[{\"groupName\":"
                                      "\"G\",\"messageModel\":\"SOMETIMES\"}]}");
        QVERIFY(!bad.has_value());
        QVERIFY(bad.error().message().contains(QLatin1String("messageModel")));
    }

    void consumerIdsAndLocks()
    {
        const auto frames = framesFor(38, true);
        QVERIFY(!frames.empty());
        for (const Decoded &d : frames) {
            const auto ids = ConsumerIdList::fromJson(d.cmd.body);
            QVERIFY(ids.has_value());
            QCOMPARE(ids->consumerIdList.size(), std::size_t(1));
            QCOMPARE(ids->toJson(), d.cmd.body); // byte-identical to the broker's
        }
        LockBatchRequestBody req {"G", "client", {{"T", "b", 0}, {"T", "b", 1}}};
        QCOMPARE(req.toJson(),
            QByteArray(
                "{\"clientId\":\"client\",\"consumerGroup\":\"G\",\"mqSet\":[{\"brokerName\":"
                "\"b\",\"queueId\":0,\"topic\":\"T\"},{\"brokerName\":\"b\",\"queueId\":1,"
                "\"topic\":\"T\"}]}"));
        QCOMPARE(LockBatchRequestBody::fromJson(req.toJson()).value(), req);
        LockBatchResponseBody resp {{{"T", "b", 1}}};
        QCOMPARE(LockBatchResponseBody::fromJson(resp.toJson()).value(), resp);
    }

    void checkClientRequest()
    {
        // The CHECK_CLIENT_CONFIG body of a Java 4.9.7 consumer subscribed with
        // MessageSelector.bySql (fastjson: keys sorted).
        const QByteArray java
            = "{\"clientId\":\"10.0.0.5@4242\",\"group\":\"G_sql\",\"subscriptionData\":{"
              "\"classFilterMode\":false,\"codeSet\":[],\"expressionType\":\"SQL92\","
              "\"subString\":\"a > 5 AND TAGS IN ('x')\",\"subVersion\":1700000000000,"
              "\"tagsSet\":[],\"topic\":\"T\"}}";
        auto body = CheckClientRequestBody::fromJson(java);
        QVERIFY(body.has_value());
        QCOMPARE(body->clientId, QByteArray("10.0.0.5@4242"));
        QCOMPARE(body->group, QByteArray("G_sql"));
        QVERIFY(body->subscriptionData.has_value());
        QCOMPARE(body->subscriptionData->expressionType, QByteArray("SQL92"));
        QCOMPARE(body->subscriptionData->subString, QByteArray("a > 5 AND TAGS IN ('x')"));
        QCOMPARE(body->subscriptionData->subVersion, 1700000000000);
        QCOMPARE(body->toJson(), java); // what a QRocket client sends
        auto none = CheckClientRequestBody::fromJson("{\"clientId\":\"c\",\"group\":\"g\"}");
        QVERIFY(none.has_value());
        QVERIFY(!none->subscriptionData.has_value());
        QVERIFY(!CheckClientRequestBody::fromJson("[1]").has_value());
        QVERIFY(!CheckClientRequestBody::fromJson("{\"subscriptionData\":{\"subString\":\"a\"}}")
                     .has_value()); // no topic
    }

    void wrongShapes_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("field");
        QTest::addRow("route-queueDatas")
            << QByteArray("{\"queueDatas\":{}}") << QStringLiteral("queueDatas");
        QTest::addRow("route-brokerAddrs") << QByteArray("{\"brokerDatas\":[{\"brokerAddrs\":[]}]}")
                                           << QStringLiteral("brokerAddrs");
        QTest::addRow("route-brokerAddrs-key")
            << QByteArray("{\"brokerDatas\":[{\"brokerAddrs\":{\"x\":\"a\"}}]}")
            << QStringLiteral("brokerAddrs");
        QTest::addRow("route-array") << QByteArray("[]") << QStringLiteral("not a JSON object");
        QTest::addRow("route-invalid")
            << QByteArray("{\"brokerDatas\":") << QStringLiteral("at byte");
        QTest::addRow("route-filter") << QByteArray("{\"filterServerTable\":{\"a\":1}}")
                                      << QStringLiteral("filterServerTable");
    }

    void wrongShapes()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, field);
        const auto r = TopicRouteData::fromJson(json);
        QVERIFY(!r.has_value());
        QVERIFY2(r.error().message().contains(field), qPrintable(r.error().message()));
        QVERIFY(!ClusterInfo::fromJson("{\"clusterAddrTable\":{\"c\":\"b\"}}").has_value());
        QVERIFY(!KVTable::fromJson("{\"table\":[]}").has_value());
        QVERIFY(!TopicList::fromJson("{\"topicList\":{}}").has_value());
        QVERIFY(!RegisterBrokerBody::fromJson(
            "{\"topicConfigSerializeWrapper\":{\"topicConfigTable\":[]}}")
                     .has_value());
        QVERIFY(!ConsumerIdList::fromJson("{\"consumerIdList\":7}").has_value());
    }
};

QTEST_APPLESS_MAIN(tst_Bodies)
#include "tst_bodies.moc"
