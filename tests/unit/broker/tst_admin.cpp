// AdminProcessor (protocol.md §4.9): processor calls with raw RemotingCommands (several decoded
// from the captured mqadmin frames), answers compared in shape with Apache RocketMQ 4.9.7's
// recorded answers in tests/data/vectors/frames.jsonl.

#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "broker/processors/queryprocessor.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/json.h"
#include "clientlib/remoting/metricswriter.h"
#include "tests/unit/broker/brokertestutil.h"
#include "tests/unit/broker/tst_schedulefixture.h"

#include <QSet>
#include <QTest>

#include <atomic>
#include <cstdlib>

using namespace qrocket;
using namespace qrocket::broker;
using protocol::JsonValue;
using protocol::MessageProperties;
using protocol::RemotingCommand;
using testing::ExtrasFixture;

namespace {

const testing::GoldenFrame *frameById(int id)
{
    static const std::vector<testing::GoldenFrame> frames = testing::loadGoldenFrames();
    for (const auto &f : frames) {
        if (f.id == id)
            return &f;
    }
    return nullptr;
}

RemotingCommand goldenRequest(int id)
{
    RemotingCommand cmd;
    const testing::GoldenFrame *f = frameById(id);
    if (f)
        protocol::decodeFrame(f->frame, cmd);
    return cmd;
}

/// A structural signature: object keys (sorted) with their values' shapes; maps keyed by objects
/// (fastjson MessageQueue keys) as MQ<key fields> -> first value's shape; arrays by their first
/// element; all numbers alike.
QByteArray shape(const JsonValue &v)
{
    switch (v.type()) {
    case JsonValue::Type::Null:
        return "null";
    case JsonValue::Type::Bool:
        return "bool";
    case JsonValue::Type::Integer:
    case JsonValue::Type::Double:
        return "num";
    case JsonValue::Type::String:
        return "str";
    case JsonValue::Type::Array:
        return v.items().empty() ? QByteArray("[]") : "[" + shape(v.items().front()) + "]";
    case JsonValue::Type::Object:
        break;
    }
    if (!v.members().empty() && v.members().front().first.isObject())
        return "{MQ" + shape(v.members().front().first) + ":" + shape(v.members().front().second)
            + "}";
    QList<QByteArray> parts;
    for (const auto &[k, val] : v.members())
        parts.append(k.toString() + ":" + shape(val));
    std::sort(parts.begin(), parts.end());
    return "{" + parts.join(',') + "}";
}

JsonValue parse(const QByteArray &body)
{
    auto r = protocol::parseJson(body);
    return r.has_value() ? r.value() : JsonValue();
}

void putMessages(ExtrasFixture &f, const QByteArray &topic, int queues, int perQueue)
{
    MessageProperties p;
    p.set("TAGS", "TagA");
    for (int q = 0; q < queues; ++q) {
        for (int i = 0; i < perQueue; ++i)
            QVERIFY(f.put(ExtrasFixture::message(topic, q, "m", p)).isOk());
    }
}

/// Answers forwarded requests (or never, to test the timeout).
class AnsweringChannel final : public remoting::Channel
{
public:
    enum class Mode { Answer, Timeout };
    explicit AnsweringChannel(Mode mode) : m_mode(mode) { }
    std::uint64_t id() const override { return 77; }
    QByteArray remoteAddress() const override { return "127.0.0.1:45678"; }
    bool isActive() const override { return true; }
    void close() override { }
    void send(RemotingCommand cmd) override { oneways.push_back(std::move(cmd)); }
    void invokeAsync(
        RemotingCommand request, int timeoutMillis, remoting::InvokeCallback callback) override
    {
        forwarded.push_back(request);
        lastTimeout = timeoutMillis;
        if (m_mode == Mode::Timeout) {
            callback(Status::timeout(QStringLiteral("timeout")));
            return;
        }
        RemotingCommand answer = RemotingCommand::createResponse(request, 0);
        answer.body
            = R"({"jstack":"","mqTable":{},"properties":{},"statusTable":{},"subscriptionSet":[]})";
        callback(std::move(answer));
    }
    void invokeOneway(RemotingCommand request) override { oneways.push_back(std::move(request)); }

    std::vector<RemotingCommand> forwarded;
    std::vector<RemotingCommand> oneways;
    int lastTimeout = 0;

private:
    Mode m_mode;
};

void registerConsumer(ExtrasFixture &f, const remoting::ChannelPtr &channel,
    const QByteArray &group, const QByteArray &topic)
{
    ConsumerData data;
    data.groupName = group;
    SubscriptionData sub;
    sub.topic = topic;
    sub.subString = "*";
    data.subscriptionDataSet.push_back(sub);
    ClientChannelInfo info;
    info.channel = channel;
    info.clientId = "192.0.2.2@1234";
    info.version = 407;
    f.consumers->registerConsumer(data, info);
}

} // namespace

class tst_Admin : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(frameById(10), "golden frames not found (QROCKET_VECTORS_DIR)");
    }

    void runtimeInfoHasTheKeysMqadminReads()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(9));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        const JsonValue ours = parse(resp->body);
        QVERIFY(ours["table"].isObject());
        QSet<QByteArray> keys;
        for (const auto &[k, v] : ours["table"].members()) {
            QVERIFY2(v.isString(), k.toString().constData());
            keys.insert(k.toString());
        }
        for (int id : {10, 267}) {
            const JsonValue golden = parse(frameById(id)->body);
            for (const auto &[k, v] : golden["table"].members()) {
                const QByteArray key = k.toString();
                if (key.startsWith("commitLogDiskRatio_")) {
                    QVERIFY(std::any_of(keys.begin(), keys.end(),
                        [](const QByteArray &o) { return o.startsWith("commitLogDiskRatio_"); }));
                    continue;
                }
                if (key.startsWith("scheduleMessageOffset_"))
                    continue; // only for levels with messages
                QVERIFY2(keys.contains(key), key.constData());
            }
        }
        QCOMPARE(ours["table"]["brokerVersionDesc"].toString(), QByteArray("V4_9_7"));
        QCOMPARE(ours["table"]["commitLogMinOffset"].toString(),
            QByteArray::number(f.store->commitLogMinOffset()));
        QVERIFY(ours["table"]["runtime"].toString().startsWith("[ 0 days"));
        QVERIFY(ours["table"]["putTps"].toString().split(' ').size() >= 1);
        // QRocket's memory keys: the broker runs in this process, so its RSS is this process's.
        const qint64 rss = ours["table"]["processRssBytes"].toString().toLongLong();
        const qint64 peak = ours["table"]["processPeakRssBytes"].toString().toLongLong();
        const remoting::ProcessMemory now = remoting::readProcessMemory();
        QVERIFY2(rss > 1024 * 1024, resp->body.constData());
        QVERIFY(rss <= peak);
        QVERIFY(peak <= now.peakRssBytes);
        QVERIFY(std::abs(rss - now.rssBytes) < 64 * 1024 * 1024);
    }

    void topicStatsMatchesRecordedShape()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        putMessages(f, "TopicTest", 4, 3);
        TopicConfig tc("TopicTest", 4);
        QVERIFY(f.topics->updateTopicConfig(tc));
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(252));
        QCOMPARE(resp->code, 0);
        const JsonValue ours = parse(resp->body);
        QCOMPARE(shape(ours), shape(parse(frameById(253)->body)));
        QCOMPARE(ours["offsetTable"].members().size(), std::size_t(4));
        const auto &[key, value] = ours["offsetTable"].members().front();
        QCOMPARE(key["brokerName"].toString(), QByteArray("broker-a"));
        QCOMPARE(key["topic"].toString(), QByteArray("TopicTest"));
        QCOMPARE(value["maxOffset"].toInteger(), 3);
        QCOMPARE(value["minOffset"].toInteger(), 0);
        QVERIFY(value["lastUpdateTimestamp"].toInteger() > 0);

        const auto missing
            = ExtrasFixture::call(p, ExtrasFixture::request(202, {{"topic", "Nope"}}));
        QCOMPARE(missing->code, 17);
    }

    void consumeStatsMatchesRecordedShape()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        const QByteArray group = "please_rename_unique_group_name_4";
        putMessages(f, "TopicTest", 4, 2);
        QVERIFY(f.topics->updateTopicConfig(TopicConfig("TopicTest", 4)));
        f.topics->createRetryTopic(group, 1);
        for (int q = 0; q < 4; ++q)
            f.offsets->commit(group, "TopicTest", q, 2);
        f.offsets->commit(group, "%RETRY%" + group, 0, 0);
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(260));
        QCOMPARE(resp->code, 0);
        const JsonValue ours = parse(resp->body);
        QCOMPARE(shape(ours), shape(parse(frameById(261)->body)));
        QCOMPARE(ours["offsetTable"].members().size(), std::size_t(5));
        for (const auto &[k, v] : ours["offsetTable"].members()) {
            if (k["topic"].toString() == "TopicTest") {
                QCOMPARE(v["brokerOffset"].toInteger(), 2);
                QCOMPARE(v["consumerOffset"].toInteger(), 2);
                QVERIFY(v["lastTimestamp"].toInteger() > 0);
            }
        }
    }

    void updateTopicFromRecordedRequest()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const RemotingCommand req = goldenRequest(21);
        QCOMPARE(req.code, 17);
        const auto resp = ExtrasFixture::call(p, req);
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->remark, QByteArray("not set any response code"));
        QCOMPARE(resp->opaque, req.opaque);
        const auto tc = f.topics->find("VecTopic");
        QVERIFY(tc);
        QCOMPARE(tc->readQueueNums, 4);
        QCOMPARE(tc->writeQueueNums, 4);
        QCOMPARE(tc->perm, 6);
        QVERIFY(f.registerCalls.load() >= 1);

        const auto all = ExtrasFixture::call(p, ExtrasFixture::request(21));
        QCOMPARE(all->code, 0);
        QVERIFY(parse(all->body)["topicConfigTable"]["VecTopic"].isObject());
        QVERIFY(parse(all->body)["dataVersion"].isObject());

        const auto del
            = ExtrasFixture::call(p, ExtrasFixture::request(215, {{"topic", "VecTopic"}}));
        QCOMPARE(del->code, 0);
        QVERIFY(!f.topics->contains("VecTopic"));
    }

    void updateTopicRejects_data()
    {
        QTest::addColumn<QByteArray>("topic");
        QTest::addRow("system topic") << QByteArray("SCHEDULE_TOPIC_XXXX");
        QTest::addRow("TBW102") << QByteArray("TBW102");
        QTest::addRow("cluster name") << QByteArray("DefaultCluster");
        QTest::addRow("bad chars") << QByteArray("a b");
        QTest::addRow("too long") << QByteArray(128, 'x');
    }
    void updateTopicRejects()
    {
        QFETCH(QByteArray, topic);
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p,
            ExtrasFixture::request(17,
                {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"},
                    {"writeQueueNums", "4"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}}));
        QCOMPARE(resp->code, 1);
        QVERIFY(!resp->remark.isEmpty());
        const auto missing
            = ExtrasFixture::call(p, ExtrasFixture::request(17, {{"topic", "Fine"}}));
        QCOMPARE(missing->code, 1);
    }

    void consumerConnectionOfflineIs206AsRecorded()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(282));
        QCOMPARE(resp->code, 206);
        const testing::GoldenFrame *golden = frameById(283);
        QVERIFY(golden->header.contains("\"remark\":\"" + resp->remark + "\""));
    }

    void consumerConnectionOnline()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        auto channel = std::make_shared<testing::FakeChannel>();
        registerConsumer(f, channel, "G", "TopicTest");
        AdminProcessor p(f.ctx);
        const auto resp
            = ExtrasFixture::call(p, ExtrasFixture::request(203, {{"consumerGroup", "G"}}));
        QCOMPARE(resp->code, 0);
        const JsonValue body = parse(resp->body);
        QCOMPARE(shape(body["connectionSet"]),
            QByteArray("[{clientAddr:str,clientId:str,language:str,version:num}]"));
        QCOMPARE(body["connectionSet"].items().front()["clientId"].toString(),
            QByteArray("192.0.2.2@1234"));
        QCOMPARE(body["consumeType"].toString(), QByteArray("CONSUME_PASSIVELY"));
        QCOMPARE(body["messageModel"].toString(), QByteArray("CLUSTERING"));
        QVERIFY(body["subscriptionTable"]["TopicTest"].isObject());
        QCOMPARE(body["subscriptionTable"]["TopicTest"]["subString"].toString(), QByteArray("*"));

        const auto producers
            = ExtrasFixture::call(p, ExtrasFixture::request(204, {{"producerGroup", "PG"}}));
        QCOMPARE(producers->code, 1);
        ClientChannelInfo pinfo;
        pinfo.channel = channel;
        pinfo.clientId = "p1";
        f.producers->registerProducer("PG", pinfo);
        const auto producers2
            = ExtrasFixture::call(p, ExtrasFixture::request(204, {{"producerGroup", "PG"}}));
        QCOMPARE(producers2->code, 0);
        QCOMPARE(shape(parse(producers2->body)),
            QByteArray("{connectionSet:[{clientAddr:str,clientId:str,language:str,version:num}]}"));
    }

    void topicConsumeByWhoAsRecorded()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        f.offsets->commit("please_rename_unique_group_name_4", "TopicTest", 0, 5);
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(280));
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->body, frameById(281)->body);
    }

    void subscriptionGroupsAndOffsetTables()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        RemotingCommand create = ExtrasFixture::request(200);
        create.body
            = R"({"groupName":"NewG","retryMaxTimes":3,"retryQueueNums":1,"consumeEnable":true})";
        QCOMPARE(ExtrasFixture::call(p, create)->code, 0);
        QCOMPARE(f.groups->find("NewG")->retryMaxTimes, 3);
        const auto all = ExtrasFixture::call(p, ExtrasFixture::request(201));
        QVERIFY(parse(all->body)["subscriptionGroupTable"]["NewG"].isObject());
        f.offsets->commit("NewG", "T", 0, 9);
        const auto offs = ExtrasFixture::call(p, ExtrasFixture::request(43));
        QCOMPARE(parse(offs->body)["offsetTable"]["T@NewG"]["0"].toInteger(), 9);
        f.delays->setOffset(3, 12);
        const auto delays = ExtrasFixture::call(p, ExtrasFixture::request(45));
        QCOMPARE(parse(delays->body)["offsetTable"]["3"].toInteger(), 12);
        const auto del = ExtrasFixture::call(
            p, ExtrasFixture::request(207, {{"groupName", "NewG"}, {"removeOffset", "true"}}));
        QCOMPARE(del->code, 0);
        QVERIFY(!f.groups->find("NewG"));
        QCOMPARE(f.offsets->query("NewG", "T", 0), -1);
        RemotingCommand bad = ExtrasFixture::request(200);
        bad.body = "{not json";
        QCOMPARE(ExtrasFixture::call(p, bad)->code, 1);
    }

    void brokerConfigGetAndUpdate()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const auto get = ExtrasFixture::call(p, goldenRequest(26));
        QCOMPARE(get->code, 0);
        QVERIFY(get->body.contains("brokerName=broker-a\n"));
        QVERIFY(get->body.contains("autoCreateTopicEnable=true\n"));
        QVERIFY(get->body.contains("maxMessageSize="));
        const JsonValue v1 = parse(get->ext("version") ? *get->ext("version") : QByteArray());
        QCOMPARE(shape(v1), shape(parse(*goldenRequestResponseVersion())));

        RemotingCommand update = ExtrasFixture::request(25);
        update.body = "autoCreateTopicEnable=false\n";
        QCOMPARE(ExtrasFixture::call(p, update)->code, 0);
        QVERIFY(!f.config.autoCreateTopicEnable);
        RemotingCommand rename = ExtrasFixture::request(25);
        rename.body = "regionId=OtherRegion\ndefaultTopicQueueNums=5\n";
        const auto renamed = ExtrasFixture::call(p, rename);
        QCOMPARE(renamed->code, 0);
        QVERIFY(renamed->remark.isEmpty()); // RocketMQ answers SUCCESS without a remark
        // A text key is taken for the next start (shown at once); a number applies now.
        QCOMPARE(f.config.regionId, QStringLiteral("DefaultRegion"));
        QCOMPARE(f.config.defaultTopicQueueNums, 5);
        // The broker's identity is never renamed by a request.
        rename.body = "brokerName=other\n";
        QCOMPARE(ExtrasFixture::call(p, rename)->code, 16);
        const auto get2 = ExtrasFixture::call(p, ExtrasFixture::request(26));
        QVERIFY(get2->body.contains("autoCreateTopicEnable=false\n"));
        QVERIFY(get2->body.contains("regionId=OtherRegion\n"));
        QVERIFY(get2->body.contains("brokerName=broker-a\n"));
        QVERIFY(get2->body.contains("defaultTopicQueueNums=5\n"));
        QVERIFY(parse(*get2->ext("version"))["counter"].toInteger() > v1["counter"].toInteger());
    }

    void resetOffsetPushesToClients()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        putMessages(f, "RT", 2, 4);
        QVERIFY(f.topics->updateTopicConfig(TopicConfig("RT", 2)));
        f.offsets->commit("RG", "RT", 0, 4);
        f.offsets->commit("RG", "RT", 1, 4);
        AdminProcessor p(f.ctx);
        const auto req = ExtrasFixture::request(
            222, {{"topic", "RT"}, {"group", "RG"}, {"timestamp", "0"}, {"isForce", "true"}});
        QCOMPARE(ExtrasFixture::call(p, req)->code, 206); // nobody online

        auto channel = std::make_shared<AnsweringChannel>(AnsweringChannel::Mode::Answer);
        registerConsumer(f, channel, "RG", "RT");
        const auto resp = ExtrasFixture::call(p, req);
        QCOMPARE(resp->code, 0);
        QCOMPARE(channel->oneways.size(), std::size_t(1));
        const RemotingCommand &push = channel->oneways.front();
        QCOMPARE(push.code, 220);
        QCOMPARE(push.extString("group"), QByteArrayView("RG"));
        const JsonValue body = parse(push.body);
        QCOMPARE(body["offsetTable"].members().size(), std::size_t(2));
        QVERIFY(body["offsetTable"].members().front().first.isObject());
        QCOMPARE(body["offsetTable"].members().front().second.toInteger(), 0);
        QCOMPARE(f.offsets->query("RG", "RT", 0), 0);
    }

    void consumerRunningInfoIsForwarded()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        const auto req = ExtrasFixture::request(307,
            {{"consumerGroup", "FG"}, {"clientId", "192.0.2.2@1234"}, {"jstackEnable", "false"}});
        QCOMPARE(ExtrasFixture::call(p, req)->code, 1); // not connected

        auto answering = std::make_shared<AnsweringChannel>(AnsweringChannel::Mode::Answer);
        registerConsumer(f, answering, "FG", "T");
        const auto resp = ExtrasFixture::call(p, req);
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        QCOMPARE(resp->opaque, req.opaque);
        QVERIFY(resp->isResponse());
        QVERIFY(resp->body.contains("subscriptionSet"));
        QCOMPARE(answering->forwarded.size(), std::size_t(1));
        QCOMPARE(answering->forwarded.front().code, 307);
        QCOMPARE(answering->forwarded.front().extString("jstackEnable"), QByteArrayView("false"));
        QCOMPARE(answering->lastTimeout, AdminProcessor::kForwardTimeoutMillis);

        ExtrasFixture f2;
        QVERIFY(f2.open());
        AdminProcessor p2(f2.ctx);
        registerConsumer(
            f2, std::make_shared<AnsweringChannel>(AnsweringChannel::Mode::Timeout), "FG", "T");
        QCOMPARE(ExtrasFixture::call(p2, req)->code, 207);
    }

    void storeFilesExtension()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        putMessages(f, "T", 1, 1);
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(
            p, ExtrasFixture::request(protocol::extensioncode::kGetStoreFiles));
        QCOMPARE(resp->code, 0);
        const JsonValue body = parse(resp->body);
        QVERIFY(body["files"].isArray());
        QVERIFY(!body["files"].items().empty());
        QCOMPARE(shape(body["files"].items().front()),
            QByteArray(
                "{ageMillis:num,expiresAt:num,lastModified:num,path:str,reasonKept:str,size:num}"));
        QVERIFY(body["commitLogMaxOffset"].toInteger() > 0);
        QCOMPARE(body["fileReservedTimeHours"].toInteger(), 72);
    }

    // The runtime info and storeFiles report the clean service's own measure: a commit-log
    // partition with a large reserve for root, 97 % used as df counts it (37 % as
    // (total - free) / total), and a consume-queue partition of its own at 30 %; then the
    // release, and a partition that cannot be measured.
    void runtimeInfoReportsTheCleanServicesFigure()
    {
        ExtrasFixture f;
        constexpr std::int64_t unit = 100LL * 1024 * 1024;
        const auto partition = [](std::int64_t used) {
            storage::DiskSpace d;
            d.total = 2519 * unit;
            d.free = (2519 - used) * unit;
            d.available = d.free - 1563 * unit;
            return d;
        };
        const QString cqDir = f.dir.path() + QStringLiteral("/consumequeue");
        std::atomic<std::int64_t> commitLogUsed {927}; // -1: cannot be measured
        f.disk = [partition, cqDir, &commitLogUsed](const QString &path) {
            if (path == cqDir)
                return partition(282);
            return commitLogUsed.load() < 0 ? storage::DiskSpace {}
                                            : partition(commitLogUsed.load());
        };
        QVERIFY(f.open());
        QCOMPARE(f.store->config().consumeQueueDir(), cqDir);
        f.store->cleanService().run();
        QCOMPARE(f.store->cleanService().lastDiskRatio(), 0.97);
        AdminProcessor p(f.ctx);
        const auto resp = ExtrasFixture::call(p, goldenRequest(9));
        QVERIFY(resp);
        QCOMPARE(resp->code, 0);
        const JsonValue t = parse(resp->body)["table"];
        QCOMPARE(t["commitLogDiskRatio"].toString(), QByteArray("0.97"));
        QCOMPARE(t["commitLogDiskRatio_" + f.store->config().commitLogDir().toUtf8()].toString(),
            QByteArray("0.97"));
        QCOMPARE(t["consumeQueueDiskRatio"].toString(), QByteArray("0.3"));
        QCOMPARE(t["diskFull"].toString(), QByteArray("true"));
        QCOMPARE(
            t["commitLogDirCapacity"].toString(), QByteArray("Total : 246.0 GiB, Free : 2.8 GiB."));
        // The mark that decided, as the broker logged it (QRocket's key; RocketMQ has none).
        QCOMPARE(t["diskFullReason"].toString(), f.store->stats().refuseReason.toUtf8());
        QVERIFY2(t["diskFullReason"].toString().contains("commit-log partition ("
                     + f.store->config().commitLogDir().toUtf8()
                     + ") at 97.0% used > diskSpaceWarningLevelRatio 90%"),
            t["diskFullReason"].toString().constData());

        const auto files = ExtrasFixture::call(
            p, ExtrasFixture::request(protocol::extensioncode::kGetStoreFiles));
        QCOMPARE(files->code, 0);
        const JsonValue body = parse(files->body);
        QCOMPARE(body["diskRatio"].toDouble(), 0.97);
        QVERIFY(body["diskFull"].toBool());
        QVERIFY2(
            body["refuseReason"].toString().contains("97.0% used > diskSpaceWarningLevelRatio 90%"),
            body["refuseReason"].toString().constData());

        // Released: the same figure everywhere, no reason left.
        commitLogUsed = 282;
        QVERIFY(!f.store->cleanService().run().diskFull);
        const JsonValue freed = parse(ExtrasFixture::call(p, goldenRequest(9))->body)["table"];
        QCOMPARE(freed["commitLogDiskRatio"].toString(), QByteArray("0.3"));
        QCOMPARE(freed["diskFull"].toString(), QByteArray("false"));
        QVERIFY(!freed.find("diskFullReason"));

        // Unknown (RocketMQ's -1 when the path does not exist): the ratio says so, and there is
        // no capacity line, as RocketMQ leaves it out; never a made-up figure.
        commitLogUsed = -1;
        QVERIFY(!f.store->cleanService().run().diskFull);
        const JsonValue unknown = parse(ExtrasFixture::call(p, goldenRequest(9))->body)["table"];
        QCOMPARE(unknown["commitLogDiskRatio"].toString(), QByteArray("-1.0"));
        QCOMPARE(unknown["consumeQueueDiskRatio"].toString(), QByteArray("0.3"));
        QVERIFY(!unknown.find("commitLogDirCapacity"));
    }

    void housekeepingAndUnknownCodes()
    {
        ExtrasFixture f;
        QVERIFY(f.open());
        AdminProcessor p(f.ctx);
        QCOMPARE(ExtrasFixture::call(p, ExtrasFixture::request(329))->code, 0);
        QCOMPARE(ExtrasFixture::call(p, ExtrasFixture::request(306))->code, 0);
        const auto sys = ExtrasFixture::call(p, ExtrasFixture::request(305));
        QCOMPARE(sys->code, 0);
        bool hasSchedule = false;
        const JsonValue topicList = parse(sys->body); // keep the tree alive while iterating
        for (const JsonValue &t : topicList["topicList"].items())
            hasSchedule |= t.toString() == "SCHEDULE_TOPIC_XXXX";
        QVERIFY(hasSchedule);
        QCOMPARE(ExtrasFixture::call(p, ExtrasFixture::request(9999))->code, 3);
        // Malformed requests get an answer, never a crash.
        for (int code : AdminProcessor::requestCodes()) {
            if (code == toInt(RequestCode::UpdateAndCreateSubscriptionGroup)
                || code == toInt(RequestCode::UpdateBrokerConfig))
                continue;
            const auto r = ExtrasFixture::call(p, ExtrasFixture::request(code));
            QVERIFY2(r.has_value(), qPrintable(QString::number(code)));
        }
    }

    void recordedRequestsGetRecordedCodesAndShapes()
    {
        // Every mqadmin / client request to the broker's admin and query processors in
        // frames.jsonl, replayed against a broker holding similar state: same response code, and
        // for JSON bodies the same top-level keys.
        ExtrasFixture f;
        QVERIFY(f.open());
        putMessages(f, "TopicTest", 4, 2);
        QVERIFY(f.topics->updateTopicConfig(TopicConfig("TopicTest", 4)));
        for (int q = 0; q < 4; ++q)
            f.offsets->commit("please_rename_unique_group_name_4", "TopicTest", q, 2);
        MessageProperties keyed;
        keyed.set("KEYS", "vkey1");
        keyed.set("TAGS", "TagV");
        QVERIFY(f.put(ExtrasFixture::message("VecTopic", 1, "hello golden vector", keyed)).isOk());
        AdminProcessor admin(f.ctx);
        QueryProcessor query(f.ctx);
        int replayed = 0;
        for (int id : {9, 21, 26, 110, 145, 252, 260, 265, 270, 280, 282}) {
            const testing::GoldenFrame *req = frameById(id);
            QVERIFY(req);
            const RemotingCommand cmd = goldenRequest(id);
            const testing::GoldenFrame *golden = nullptr;
            for (int rid = id + 1; rid < id + 6 && !golden; ++rid) {
                const testing::GoldenFrame *c = frameById(rid);
                if (c && c->kind == QLatin1String("response") && c->requestCode == cmd.code
                    && c->opaque == cmd.opaque)
                    golden = c;
            }
            QVERIFY2(golden, qPrintable(QString::number(id)));
            const auto resp = ExtrasFixture::call(
                cmd.code == 12 ? static_cast<remoting::RequestProcessor &>(query) : admin, cmd);
            QVERIFY(resp);
            QVERIFY(resp->isResponse());
            QCOMPARE(resp->opaque, cmd.opaque);
            QVERIFY2(resp->code == golden->code,
                qPrintable(QStringLiteral("frame %1: code %2, recorded %3 (%4)")
                               .arg(id)
                               .arg(resp->code)
                               .arg(golden->code)
                               .arg(QString::fromUtf8(resp->remark))));
            if (golden->body.startsWith('{')) {
                const JsonValue ours = parse(resp->body);
                const JsonValue theirs = parse(golden->body);
                QVERIFY(ours.isObject());
                QList<QByteArray> a, b;
                for (const auto &m : ours.members())
                    a.append(m.first.toString());
                for (const auto &m : theirs.members())
                    b.append(m.first.toString());
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                QCOMPARE(a, b);
            }
            if (cmd.code == 12)
                QVERIFY(resp->hasExt("indexLastUpdateTimestamp")
                    && resp->hasExt("indexLastUpdatePhyoffset"));
            ++replayed;
        }
        QCOMPARE(replayed, 11);
    }

private:
    static const QByteArray *goldenRequestResponseVersion()
    {
        static RemotingCommand golden;
        protocol::decodeFrame(frameById(28)->frame, golden);
        return golden.ext("version");
    }
};

QTEST_GUILESS_MAIN(tst_Admin)
#include "tst_admin.moc"
