// HeartbeatData parsing of the real HEART_BEAT bodies of the Java, cpp and ali-ons clients
// (tests/data/vectors/frames.jsonl, code 34), plus malformed bodies.

#include "clientlib/common/hash.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "tests/unit/protocol/goldenvectors.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::protocol;
using namespace qrocket::testing;

namespace {

// The body of the first HEART_BEAT request of `client` whose body matches `needle`.
QByteArray heartbeatBody(const QString &client, const QByteArray &needle)
{
    for (const GoldenFrame &f : loadGoldenFrames()) {
        if (f.code == 34 && f.kind == QLatin1String("request") && f.client == client
            && f.body.contains(needle))
            return f.body;
    }
    return {};
}

} // namespace

class tst_HeartbeatData final : public QObject
{
    Q_OBJECT

private slots:
    void javaConsumer()
    {
        const QByteArray body
            = heartbeatBody(QStringLiteral("java-4.9.7"), "please_rename_unique_group_name_4");
        QVERIFY(!body.isEmpty());
        auto hb = HeartbeatData::fromJson(body);
        QVERIFY2(hb, qPrintable(hb.status().message()));
        QCOMPARE(hb->clientID, QByteArray("192.0.2.2@24090#4952199033038"));
        QCOMPARE(hb->consumerDataSet.size(), std::size_t(1));
        const ConsumerData &c = hb->consumerDataSet[0];
        QCOMPARE(c.groupName, QByteArray("please_rename_unique_group_name_4"));
        QCOMPARE(c.consumeType, ConsumeType::ConsumePassively);
        QCOMPARE(c.messageModel, MessageModel::Clustering);
        QCOMPARE(c.consumeFromWhere, ConsumeFromWhere::ConsumeFromFirstOffset);
        QVERIFY(!c.unitMode);
        QCOMPARE(c.subscriptionDataSet.size(), std::size_t(2));
        const SubscriptionData &s = c.subscriptionDataSet[0];
        QCOMPARE(s.topic, QByteArray("TopicTest"));
        QCOMPARE(s.subString, QByteArray("*"));
        QCOMPARE(s.expressionType, QByteArray("TAG"));
        QCOMPARE(s.subVersion, std::int64_t(1796013490952));
        QVERIFY(s.tagsSet.empty());
        QCOMPARE(
            c.subscriptionDataSet[1].topic, QByteArray("%RETRY%please_rename_unique_group_name_4"));
        QCOMPARE(hb->producerDataSet.size(), std::size_t(1));
        QCOMPARE(hb->producerDataSet[0].groupName, QByteArray("CLIENT_INNER_PRODUCER"));
    }

    void javaProducerOnly()
    {
        const QByteArray body
            = heartbeatBody(QStringLiteral("java-4.9.7"), "BatchProducerGroupName");
        auto hb = HeartbeatData::fromJson(body);
        QVERIFY(hb);
        QVERIFY(hb->consumerDataSet.empty());
        QCOMPARE(hb->producerDataSet.size(), std::size_t(2));
    }

    void cppConsumer()
    {
        const QByteArray body = heartbeatBody(QStringLiteral("cpp-2.2.0"), "cpp_g_vec");
        QVERIFY(!body.isEmpty());
        QVERIFY(body.endsWith('\n'));
        auto hb = HeartbeatData::fromJson(body);
        QVERIFY2(hb, qPrintable(hb.status().message()));
        QCOMPARE(hb->clientID, QByteArray("127.0.0.1@23150#harness-cons-5a6eabe92a773f"));
        QVERIFY(hb->producerDataSet.empty());
        const ConsumerData &c = hb->consumerDataSet.at(0);
        QCOMPARE(c.groupName, QByteArray("cpp_g_vec"));
        QCOMPARE(c.consumeType, ConsumeType::ConsumePassively); // ordinal 1
        QCOMPARE(c.messageModel, MessageModel::Clustering); // ordinal 1
        QCOMPARE(c.consumeFromWhere, ConsumeFromWhere::ConsumeFromFirstOffset); // ordinal 4
        QCOMPARE(c.subscriptionDataSet.size(), std::size_t(2));
        for (const SubscriptionData &s : c.subscriptionDataSet) {
            QCOMPARE(s.subVersion, std::int64_t(1796013400081)); // sent as a string
            QCOMPARE(s.subString, QByteArray("*"));
            QCOMPARE(s.expressionType, QByteArray("TAG"));
        }
    }

    void aliOnsConsumer()
    {
        const QByteArray body = heartbeatBody(QStringLiteral("ali-ons-3.12.0"), "GID_aliOnsRT");
        QVERIFY(!body.isEmpty());
        auto hb = HeartbeatData::fromJson(body);
        QVERIFY2(hb, qPrintable(hb.status().message()));
        QCOMPARE(hb->clientID, QByteArray("192.0.2.2@23203"));
        const ConsumerData &c = hb->consumerDataSet.at(0);
        QCOMPARE(c.groupName, QByteArray("GID_aliOnsRT_mx2s0a6ec7753a"));
        QCOMPARE(c.consumeFromWhere, ConsumeFromWhere::ConsumeFromFirstOffset);
        const SubscriptionData &s = c.subscriptionDataSet.at(0);
        QCOMPARE(s.topic, QByteArray("AliOnsTopic"));
        QCOMPARE(s.subString, QByteArray("TagA || TagB"));
        QCOMPARE(s.tagsSet, (std::vector<QByteArray> {"TagA", "TagB"}));
        QCOMPARE(s.codeSet, (std::vector<std::int32_t> {2598919, 2598920}));
        QCOMPARE(hb->producerDataSet.at(0).groupName, QByteArray("PID_aliOnsRT_mx2s0a6ec7753a"));
    }

    void rebuildsTagsFromSubString()
    {
        // cpp sends only subString: tags and codes are rebuilt as FilterAPI does.
        auto hb = HeartbeatData::fromJson(QByteArrayView(
            "{\"clientID\":\"c\",\"consumerDataSet\":[{\"groupName\":\"G\",\"consumeType\":\"1\","
            "\"messageModel\":0,\"consumeFromWhere\":\"CONSUME_FROM_TIMESTAMP\","
            "\"subscriptionDataSet\":"
            "[{\"topic\":\"T\",\"subString\":\" TagA ||TagB|| TagA \",\"subVersion\":\"7\"}]}]}"));
        QVERIFY2(hb, qPrintable(hb.status().message()));
        const ConsumerData &c = hb->consumerDataSet.at(0);
        QCOMPARE(c.consumeType, ConsumeType::ConsumePassively);
        QCOMPARE(c.messageModel, MessageModel::Broadcasting);
        QCOMPARE(c.consumeFromWhere, ConsumeFromWhere::ConsumeFromTimestamp);
        const SubscriptionData &s = c.subscriptionDataSet.at(0);
        QCOMPARE(s.tagsSet, (std::vector<QByteArray> {"TagA", "TagB"}));
        QCOMPARE(s.codeSet,
            (std::vector<std::int32_t> {javaStringHash("TagA"), javaStringHash("TagB")}));
        QCOMPARE(s.subVersion, std::int64_t(7));
    }

    void rejectsBadBodies_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addRow("empty") << QByteArray();
        QTest::addRow("truncated") << QByteArray("{\"clientID\":\"c\",\"consumerDataSet\":[");
        QTest::addRow("array") << QByteArray("[]");
        QTest::addRow("no client id") << QByteArray("{\"consumerDataSet\":[]}");
        QTest::addRow("no group") << QByteArray("{\"clientID\":\"c\",\"consumerDataSet\":[{}]}");
        QTest::addRow("bad enum") << QByteArray("{\"clientID\":\"c\",\"consumerDataSet\":[{"
                                                "\"groupName\":\"G\",\"consumeType\":\"PUSH\"}]}");
        QTest::addRow("bad ordinal") << QByteArray(
            "{\"clientID\":\"c\",\"consumerDataSet\":[{\"groupName\":\"G\",\"messageModel\":7}]}");
        QTest::addRow("sub without topic")
            << QByteArray("{\"clientID\":\"c\",\"consumerDataSet\":[{\"groupName\":\"G\","
                          "\"subscriptionDataSet\":[{}]}]}");
        QTest::addRow("producer without group")
            << QByteArray("{\"clientID\":\"c\",\"producerDataSet\":[{}]}");
    }
    void rejectsBadBodies()
    {
        QFETCH(QByteArray, body);
        auto hb = HeartbeatData::fromJson(body);
        QVERIFY(!hb);
        QCOMPARE(hb.error().code(), Status::Code::InvalidArgument);
    }

    void writesJavaSubscriptionJson()
    {
        SubscriptionData s;
        s.topic = "T";
        s.subString = "TagA";
        s.buildTags();
        s.subVersion = 5;
        QCOMPARE(s.toJson(),
            QByteArray("{\"classFilterMode\":false,\"codeSet\":[2598919],\"expressionType\":"
                       "\"TAG\",\"subString\":\"TagA\",\"subVersion\":5,\"tagsSet\":[\"TagA\"],"
                       "\"topic\":\"T\"}"));
        QCOMPARE(QByteArray(consumeTypeName(ConsumeType::ConsumeActively)),
            QByteArray("CONSUME_ACTIVELY"));
        QCOMPARE(QByteArray(messageModelName(MessageModel::Clustering)), QByteArray("CLUSTERING"));
        QCOMPARE(QByteArray(consumeFromWhereName(ConsumeFromWhere::ConsumeFromLastOffset)),
            QByteArray("CONSUME_FROM_LAST_OFFSET"));
    }
};

QTEST_APPLESS_MAIN(tst_HeartbeatData)
#include "tst_heartbeatdata.moc"
