// SQL92 subscriptions (MessageSelector.bySql) over sockets against an in-process BrokerController:
// PULL_MESSAGE with the selector in the request (flag 0x4) and from a heartbeat, the answers
// RocketMQ 4.9.7 gives while enablePropertyFilter is off and for bad selectors,
// CHECK_CLIENT_CONFIG (46), and long polling that wakes only for a message the selector takes.

#include "broker/brokercontroller.h"
#include "broker/config/brokerconfig.h"
#include "broker/filter/sqlfiltercache.h"
#include "broker/longpolling/pullrequestholdservice.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"

#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

constexpr char kTopic[] = "SqlTopic";

/// A consumer's heartbeat with one subscription of `type` to kTopic.
QByteArray heartbeat(const QByteArray &group, const QByteArray &type, const QByteArray &expression,
    std::int64_t subVersion)
{
    protocol::SubscriptionData sub;
    sub.topic = kTopic;
    sub.subString = expression;
    sub.expressionType = type;
    sub.subVersion = subVersion;
    protocol::ConsumerData consumer;
    consumer.groupName = group;
    consumer.subscriptionDataSet.push_back(sub);
    protocol::HeartbeatData hb;
    hb.clientID = "192.0.2.7@sql";
    hb.consumerDataSet.push_back(consumer);
    return hb.toJson();
}

QByteArray checkBody(const QByteArray &type, const QByteArray &expression)
{
    protocol::CheckClientRequestBody body;
    body.clientId = "192.0.2.7@sql";
    body.group = "G_check";
    protocol::SubscriptionData sub;
    sub.topic = kTopic;
    sub.subString = expression;
    sub.expressionType = type;
    body.subscriptionData = sub;
    return body.toJson();
}

/// The values of user property `a` in a pull's records, in order.
QList<QByteArray> valuesOfA(const RemotingCommand &pull)
{
    QList<QByteArray> out;
    for (const protocol::MessageRecordView &r : records(pull.body)) {
        for (const QByteArray &pair : r.properties.toByteArray().split('\x02'))
            if (pair.startsWith("a\x01"))
                out.append(pair.mid(2));
    }
    return out;
}

} // namespace

class tst_SqlFilter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void refusedWhilePropertyFilterIsOff();
    void pullWithSelectorInRequest_data();
    void pullWithSelectorInRequest();
    void badSelectorInRequest();
    void pullWithSelectorFromHeartbeat();
    void checkClientConfig_data();
    void checkClientConfig();
    void longPollWakesOnlyForAMatch();
    void retryTopicFilteredWithFilterSupportRetry();
    void cacheCompilesOnceAndDropsTheLeastRecent();

private:
    RemotingCommand call(RemotingCommand req) { return invoke(*m_client, m_addr, std::move(req)); }
    RemotingCommand pullRequest(const QByteArray &group, std::int64_t offset, int sysFlag,
        const QByteArray &expression, const QByteArray &type, std::int64_t suspendMs = 0);
    void setPropertyFilter(bool on);
    void setConfig(const char *key, bool on);

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_addr;
};

RemotingCommand tst_SqlFilter::pullRequest(const QByteArray &group, std::int64_t offset,
    int sysFlag, const QByteArray &expression, const QByteArray &type, std::int64_t suspendMs)
{
    return request(11,
        {{"consumerGroup", group}, {"topic", kTopic}, {"queueId", "0"},
            {"queueOffset", num(offset)}, {"maxMsgNums", "32"}, {"sysFlag", num(sysFlag)},
            {"commitOffset", "-1"}, {"suspendTimeoutMillis", num(suspendMs)},
            {"subscription", expression}, {"expressionType", type}, {"subVersion", "0"}});
}

void tst_SqlFilter::setPropertyFilter(bool on)
{
    setConfig("enablePropertyFilter", on);
    QCOMPARE(m_broker->context().config->enablePropertyFilter, on);
}

void tst_SqlFilter::setConfig(const char *key, bool on)
{
    // UPDATE_BROKER_CONFIG (25): a boolean key takes effect at once.
    const QByteArray body = QByteArray(key) + '=' + (on ? "true" : "false");
    QCOMPARE(call(request(25, {}, body)).code, 0);
}

void tst_SqlFilter::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // No name server: registration fails quietly.
    startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-sql"), QStringLiteral("127.0.0.1:1"));
    QVERIFY(m_broker);
    m_addr = localAddr(m_broker->listenPort());
    m_client = std::make_unique<remoting::RemotingClient>();
    // Six messages: a = 1..6; TagA on odd a, TagB on even; `b` only on a = 6.
    for (int a = 1; a <= 6; ++a) {
        const QByteArray value = QByteArray::number(a);
        const QByteArray properties = a == 6
            ? props({{"TAGS", "TagB"}, {"a", "6"}, {"b", "it's here"}})
            : props({{"TAGS", a % 2 ? "TagA" : "TagB"}, {"a", value.constData()}});
        QCOMPARE(call(sendV2(kTopic, 0, "m" + value, properties)).code, 0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_broker->context().store->maxOffsetInQueue(kTopic, 0), 6, 5000);
}

void tst_SqlFilter::cleanupTestCase()
{
    m_client.reset();
    stopInProcessBroker(m_broker);
}

void tst_SqlFilter::refusedWhilePropertyFilterIsOff()
{
    QVERIFY(!m_broker->context().config->enablePropertyFilter); // RocketMQ's default
    const RemotingCommand p = call(pullRequest("G_sql", 0, 4, "a > 2", "SQL92"));
    QCOMPARE(p.code, 1);
    QCOMPARE(
        p.remark, QByteArray("The broker does not support consumer to filter message by SQL92"));
    const RemotingCommand check = call(request(46, {}, checkBody("SQL92", "a > 2")));
    QCOMPARE(check.code, 1);
    QCOMPARE(check.remark,
        QByteArray("The broker does not support consumer to filter message by SQL92"));
    // TAG subscriptions are untouched.
    QCOMPARE(call(request(46, {}, checkBody("TAG", "TagA"))).code, 0);
    QCOMPARE(call(pullRequest("G_sql", 0, 4, "TagA", "TAG")).code, 0);
}

void tst_SqlFilter::pullWithSelectorInRequest_data()
{
    QTest::addColumn<QByteArray>("expression");
    QTest::addColumn<QList<QByteArray>>("expected");
    using L = QList<QByteArray>;
    QTest::newRow("greater") << QByteArray("a > 4") << L {"5", "6"};
    QTest::newRow("between") << QByteArray("a BETWEEN 2 AND 4") << L {"2", "3", "4"};
    QTest::newRow("tags and number") << QByteArray("TAGS = 'TagA' AND a >= 3") << L {"3", "5"};
    QTest::newRow("in") << QByteArray("TAGS IN ('TagB') OR a = 1") << L {"1", "2", "4", "6"};
    QTest::newRow("is not null") << QByteArray("b IS NOT NULL") << L {"6"};
    QTest::newRow("string value") << QByteArray("b = 'it''s here'") << L {"6"};
    QTest::newRow("missing property") << QByteArray("c = 'x'") << L {};
    QTest::newRow("not") << QByteArray("NOT (a < 6)") << L {"6"};
}

void tst_SqlFilter::pullWithSelectorInRequest()
{
    QFETCH(QByteArray, expression);
    QFETCH(QList<QByteArray>, expected);
    setPropertyFilter(true);
    const RemotingCommand p = call(pullRequest("G_sql", 0, 4, expression, "SQL92"));
    if (expected.isEmpty()) {
        QCOMPARE(p.code, 20); // NO_MATCHED_MESSAGE: retry at nextBeginOffset
    } else {
        QCOMPARE(p.code, 0);
        QCOMPARE(valuesOfA(p), expected);
    }
    QCOMPARE(p.extString("nextBeginOffset"), QByteArrayView("6"));
    setPropertyFilter(false);
}

void tst_SqlFilter::badSelectorInRequest()
{
    setPropertyFilter(true);
    RemotingCommand p = call(pullRequest("G_sql", 0, 4, "a >", "SQL92"));
    QCOMPARE(p.code, 23); // SUBSCRIPTION_PARSE_FAILED
    QVERIFY2(p.remark.startsWith("parse the consumer's subscription failed"), p.remark.constData());
    p = call(pullRequest("G_sql", 0, 4, "a > 1", "XPATH")); // no such filter type
    QCOMPARE(p.code, 23);
    setPropertyFilter(false);
}

void tst_SqlFilter::pullWithSelectorFromHeartbeat()
{
    setPropertyFilter(true);
    QCOMPARE(call(request(34, {}, heartbeat("G_hb_sql", "SQL92", "a = 2 OR a = 5", 10))).code, 0);
    RemotingCommand p = call(pullRequest("G_hb_sql", 0, 0, {}, {})); // no 0x4: the heartbeat's
    QCOMPARE(p.code, 0);
    QCOMPARE(valuesOfA(p), (QList<QByteArray> {"2", "5"}));
    // A selector that does not compile is registered (the heartbeat succeeds), but pulls get
    // FILTER_DATA_NOT_EXIST, as from RocketMQ.
    QCOMPARE(call(request(34, {}, heartbeat("G_hb_bad", "SQL92", "a = = 2", 10))).code, 0);
    p = call(pullRequest("G_hb_bad", 0, 0, {}, {}));
    QCOMPARE(p.code, 27);
    // Off again: the registered SQL92 subscription is refused.
    setPropertyFilter(false);
    p = call(pullRequest("G_hb_sql", 0, 0, {}, {}));
    QCOMPARE(p.code, 1);
}

void tst_SqlFilter::checkClientConfig_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("code");
    QTest::newRow("sql92") << checkBody("SQL92", "a IS NOT NULL AND TAGS <> 'x'") << 0;
    QTest::newRow("bad sql92") << checkBody("SQL92", "a IN ()") << 23;
    QTest::newRow("unknown type") << checkBody("XPATH", "/a") << 23;
    QTest::newRow("tag") << checkBody("TAG", "TagA || TagB") << 0;
    QTest::newRow("no subscription") << QByteArray("{\"clientId\":\"c\",\"group\":\"g\"}") << 0;
    QTest::newRow("no body") << QByteArray() << 0;
    QTest::newRow("not json") << QByteArray("{\"clientId\":") << 1;
}

void tst_SqlFilter::checkClientConfig()
{
    QFETCH(QByteArray, body);
    QFETCH(int, code);
    setPropertyFilter(true);
    const RemotingCommand r = call(request(46, {}, body));
    QCOMPARE(r.code, code);
    if (code == 23)
        QVERIFY(!r.remark.isEmpty()); // says what is wrong with the selector
    setPropertyFilter(false);
}

void tst_SqlFilter::longPollWakesOnlyForAMatch()
{
    setPropertyFilter(true);
    const std::int64_t from = m_broker->context().store->maxOffsetInQueue(kTopic, 0);
    std::atomic<int> code {-1};
    QByteArray firstA;
    m_client->invokeAsync(m_addr, pullRequest("G_lp_sql", from, 6, "a = 100", "SQL92", 15000),
        20000, [&](Result<RemotingCommand> r) {
            if (r && r->code == 0 && !valuesOfA(*r).isEmpty())
                firstA = valuesOfA(*r).front();
            code = r ? r->code : -2;
        });
    QTRY_COMPARE_WITH_TIMEOUT(m_broker->context().pullHold->heldCount(), 1, 5000);
    // A message the selector refuses is dispatched; the pull stays held.
    QCOMPARE(call(sendV2(kTopic, 0, "no", props({{"a", "99"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(
        m_broker->context().store->maxOffsetInQueue(kTopic, 0), from + 1, 5000);
    QVERIFY(m_broker->context().store->waitForDispatch(5000));
    QCOMPARE(m_broker->context().pullHold->heldCount(), 1);
    QCOMPARE(code.load(), -1);
    // The one it takes wakes it, and only that message comes back.
    QCOMPARE(call(sendV2(kTopic, 0, "yes", props({{"a", "100"}}))).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(code.load() != -1, 5000);
    QCOMPARE(code.load(), 0);
    QCOMPARE(firstA, QByteArray("100"));
    setPropertyFilter(false);
}

void tst_SqlFilter::retryTopicFilteredWithFilterSupportRetry()
{
    // Group G_rt subscribes kTopic with "a >= 5"; its retry topic holds two messages sent back
    // from kTopic (RETRY_TOPIC) with a = 1 and a = 7, and one from elsewhere.
    setPropertyFilter(true);
    QCOMPARE(call(request(34, {}, heartbeat("G_rt", "SQL92", "a >= 5", 10))).code, 0);
    const QByteArray retry = "%RETRY%G_rt";
    QVERIFY(m_broker->context().topics->contains(retry));
    QCOMPARE(call(sendV2(retry, 0, "r1", props({{"RETRY_TOPIC", kTopic}, {"a", "1"}}))).code, 0);
    QCOMPARE(call(sendV2(retry, 0, "r7", props({{"RETRY_TOPIC", kTopic}, {"a", "7"}}))).code, 0);
    QCOMPARE(
        call(sendV2(retry, 0, "rx", props({{"RETRY_TOPIC", "Elsewhere"}, {"a", "2"}}))).code, 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_broker->context().store->maxOffsetInQueue(retry, 0), 3, 5000);
    // The retry topic's own subscription is "*" by tag, from the request (flag 0x4).
    const auto pullRetry = [&] {
        return call(request(11,
            {{"consumerGroup", "G_rt"}, {"topic", retry}, {"queueId", "0"}, {"queueOffset", "0"},
                {"maxMsgNums", "32"}, {"sysFlag", "4"}, {"commitOffset", "-1"},
                {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}));
    };
    RemotingCommand p = pullRetry(); // off (RocketMQ's default): everything comes back
    QCOMPARE(p.code, 0);
    QCOMPARE(valuesOfA(p), (QList<QByteArray> {"1", "7", "2"}));
    setConfig("filterSupportRetry", true);
    p = pullRetry();
    QCOMPARE(p.code, 0);
    QCOMPARE(valuesOfA(p), (QList<QByteArray> {"7", "2"}));
    setConfig("filterSupportRetry", false);
    setPropertyFilter(false);
}

void tst_SqlFilter::cacheCompilesOnceAndDropsTheLeastRecent()
{
    broker::filter::SqlFilterCache cache(2);
    const auto a = cache.get("a > 1");
    QVERIFY(a.has_value());
    QCOMPARE(cache.get("a > 1").value().get(), a.value().get()); // compiled once
    const auto bad = cache.get("a >");
    QVERIFY(!bad.has_value());
    QCOMPARE(cache.get("a >").error().message(), bad.error().message()); // errors are kept too
    QCOMPARE(cache.size(), std::size_t(2));
    QVERIFY(cache.get("a > 1").has_value()); // "a >" is now the least recent
    QVERIFY(cache.get("b = 'x'").has_value()); // full: "a >" goes
    QCOMPARE(cache.size(), std::size_t(2));
    QCOMPARE(cache.get("a > 1").value().get(), a.value().get()); // still the same
    QVERIFY(cache.get("a > 1").value()->matches("a\x01"
                                                "2"));
    QVERIFY(!cache.forSubscription("XPATH", "a > 1").has_value());
    QVERIFY(cache.forSubscription("SQL92", "a > 1").has_value());
}

QTEST_GUILESS_MAIN(tst_SqlFilter)
#include "tst_sqlfilter.moc"
