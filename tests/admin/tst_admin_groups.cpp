// qrocket-admin's group, consumer, message and offset commands as a real process against an
// EmbeddedCluster, with producers and a live push consumer in the test process: the lag the test
// creates shows in consumerProgress, resetOffsetByTime moves the live consumer back, the message
// the test sent is found by key, id and offset, and sendMessage / consumeMessage round-trip.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>

using namespace qrocket;
using namespace qrocket::admintest;

class TestAdminGroups : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void subscriptionGroups();
    void consumerProgressShowsLag();
    void liveConsumer();
    void resetOffsetMovesLiveConsumer();
    void skipAccumulated();
    void cloneGroupOffset();
    void producerConnection();
    void queryMessages();
    void hostileUniqKeyWritesNothingOutsideItsFolder();
    void printMessages();
    void sendAndConsumeRoundTrip();
    void checkMsgSendRT();
    void statsAndBrokerConsumeStats();
    void cleanupTestCase();

private:
    Run at(std::initializer_list<const char *> args) { return runAt(m_ns, args); }
    Run at(const QStringList &args) { return runAt(m_ns, args); }
    void startConsumer();
    std::int64_t diffTotal(const char *group);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::Producer> m_producer;
    std::unique_ptr<client::PushConsumer> m_consumer;
    std::unique_ptr<client::Admin> m_admin;
    std::atomic<int> m_consumed {0};
    QString m_ns;
    QString m_addr;
    client::SendResult m_keyed; // the message sent with key "findme"
};

void TestAdminGroups::initTestCase()
{
    QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
    m_cluster = std::make_unique<EmbeddedCluster>();
    QVERIFY(m_cluster->start().isOk());
    m_ns = m_cluster->namesrvAddress();
    m_addr = m_cluster->brokerAddress(0);
    QVERIFY(at({"updateTopic", "-c", "DefaultCluster", "-t", "GT", "-r", "4", "-w", "4"}).exitCode
        == 0);
    client::ProducerOptions po;
    po.group = "PG";
    po.client.namesrvAddr = m_ns.toUtf8();
    po.client.heartbeatBrokerInterval = 1000;
    m_producer = std::make_unique<client::Producer>(po);
    QVERIFY(m_producer->start().isOk());
    for (int i = 0; i < 10; ++i) {
        auto r = m_producer->sendSync(client::Message("GT", i % 2 ? "TagOdd" : "TagEven",
            i == 3 ? QByteArray("findme") : "k" + QByteArray::number(i),
            "body-" + QByteArray::number(i)));
        QVERIFY(r.has_value());
        if (i == 3)
            m_keyed = *r;
    }
    client::AdminOptions ao;
    ao.client.namesrvAddr = m_ns.toUtf8();
    m_admin = std::make_unique<client::Admin>(ao);
    QVERIFY(m_admin->start().isOk());
}

void TestAdminGroups::cleanupTestCase()
{
    if (m_consumer)
        m_consumer->shutdown();
    m_consumer.reset();
    m_producer.reset();
    m_admin.reset();
    m_cluster.reset();
}

void TestAdminGroups::startConsumer()
{
    client::PushConsumerOptions co;
    co.group = "GC";
    co.client.namesrvAddr = m_ns.toUtf8();
    co.client.heartbeatBrokerInterval = 1000;
    co.client.persistConsumerOffsetInterval = 300;
    co.consumeFromWhere = protocol::ConsumeFromWhere::ConsumeFromFirstOffset;
    m_consumer = std::make_unique<client::PushConsumer>(co);
    QVERIFY(m_consumer->subscribe("GT", "*").isOk());
    m_consumer->registerMessageListener(
        [this](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            m_consumed += static_cast<int>(msgs.size());
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(m_consumer->start().isOk());
}

std::int64_t TestAdminGroups::diffTotal(const char *group)
{
    const Run r = at({"consumerProgress", "-g", group});
    const QString line = lineStartingWith(r, QStringLiteral("Diff"));
    return line.isNull() ? -1 : fields(line).last().toLongLong();
}

void TestAdminGroups::subscriptionGroups()
{
    Run r = at({"updateSubGroup", "-c", "DefaultCluster", "-g", "SG", "-r", "5", "-q", "2"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(QStringLiteral("create subscription group to %1 success.").arg(m_addr)));
    QVERIFY(r.out.contains(QLatin1String("retryQueueNums=2, retryMaxTimes=5")));
    r = at({"getConsumerConfig", "-g", "SG"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().first(),
        QStringLiteral(
            "=============================DefaultCluster:broker-0============================="));
    QCOMPARE(
        fields(lineStartingWith(r, QStringLiteral("retryMaxTimes"))).last(), QStringLiteral("5"));
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("consumeBroadcastEnable"))).last(),
        QStringLiteral("false"));
    QVERIFY(lineStartingWith(r, QStringLiteral("consumeMessageOrderly")).isNull());
    // RocketMQ 5's FIFO group flag (mqadmin 5's -o): printed and stored only when set.
    r = at({"updateSubGroup", "-c", "DefaultCluster", "-g", "SG", "-o", "true"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(QLatin1String("consumeMessageOrderly=true]")));
    r = at({"getConsumerConfig", "-g", "SG"});
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("consumeMessageOrderly"))).last(),
        QStringLiteral("true"));
    r = at({"updateSubGroup", "-c", "DefaultCluster", "-g", "SG", "-o", "maybe"});
    QCOMPARE(r.exitCode, 2); // a usage error
    QVERIFY(r.err.contains(QLatin1String("-o,--consumeMessageOrderly wants true or false")));
    r = at({"deleteSubGroup", "-c", "DefaultCluster", "-g", "SG"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(QStringLiteral(
        "delete subscription group [SG] from broker [%1] in cluster [DefaultCluster] success.")
                                 .arg(m_addr)));
    r = at({"getConsumerConfig", "-g", "SG"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains(QLatin1String("subscription group SG is not on any broker")));
}

void TestAdminGroups::consumerProgressShowsLag()
{
    startConsumer();
    QTRY_VERIFY_WITH_TIMEOUT(m_consumed.load() >= 10, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(0), 10000);
    m_consumer->shutdown(); // commits its offsets
    m_consumer.reset();
    for (int i = 0; i < 7; ++i)
        QVERIFY(m_producer->sendSync(client::Message("GT", "lag-" + QByteArray::number(i)))
                    .has_value());
    // The broker's consume queues follow its commit log asynchronously (the reput service), so
    // the broker offsets reach the 7 messages a moment after the sends return.
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(7), 5000);
    Run r = at({"consumerProgress", "-g", "GC"});
    QVERIFY(r.out.startsWith(QLatin1String("#Topic ")));
    std::int64_t rowsDiff = 0;
    for (const QString &l : r.lines()) {
        const QStringList f = fields(l);
        if (f.value(0) == QLatin1String("GT"))
            rowsDiff += f.value(5).toLongLong(); // broker offset - consumer offset per queue
    }
    QCOMPARE(rowsDiff, std::int64_t(7));
    r = at({"consumerProgress", "-g", "GC", "--json"});
    QCOMPARE(
        QJsonDocument::fromJson(r.out.toUtf8()).object().value(QStringLiteral("diffTotal")).toInt(),
        7);
    r = at({"consumerProgress"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QStringList all = fields(lineStartingWith(r, QStringLiteral("GC")));
    QCOMPARE(all.value(1), QStringLiteral("0")); // no connection
    QCOMPARE(all.value(2), QStringLiteral("OFFLINE"));
    QCOMPARE(all.last(), QStringLiteral("7"));
}

void TestAdminGroups::liveConsumer()
{
    m_consumed = 0;
    startConsumer();
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(0), 15000);
    const QString clientId = QString::fromUtf8(m_consumer->clientId());
    Run r = at({"consumerConnection", "-g", "GC"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(fields(lineStartingWith(r, clientId)).value(2), QStringLiteral("CPP"));
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("GT"))), argv({"GT", "*"}));
    QVERIFY(
        r.out.contains(QLatin1String("ConsumeType: CONSUME_PASSIVELY\nMessageModel: "
                                     "CLUSTERING\nConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET")));
    r = at({"consumerStatus", "-g", "GC"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(fields(lineStartingWith(r, QStringLiteral("1"))).value(1), clientId);
    QVERIFY(r.out.contains(QLatin1String("Same subscription in the same group of consumer")));
    QVERIFY(r.out.contains(QLatin1String("Rebalance OK")));
    r = at(argv({"consumerStatus", "-g", "GC", "-i"}) << clientId);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(QLatin1String("#Consumer Properties#\n")));
    QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("\\n\\d{3} Topic: GT "))),
        qPrintable(r.out));
    QVERIFY(r.out.contains(QLatin1String("#Consumer RT&TPS#")));
    r = at({"consumerProgress", "-g", "GC", "-s", "true"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.lines().first().contains(QLatin1String("#Client IP")));
    QCOMPARE(
        fields(lineStartingWith(r, QStringLiteral("GT"))).value(5), QStringLiteral("127.0.0.1"));
}

void TestAdminGroups::resetOffsetMovesLiveConsumer()
{
    const int before = m_consumed.load();
    QVERIFY(before >= 7); // the 7 messages of the lag
    // Back to the first message (timestamp 0): the live consumer gets all 17 messages again.
    const Run r = at({"resetOffsetByTime", "-g", "GC", "-t", "GT", "-s", "0"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.startsWith(
        QLatin1String("rollback consumer offset by specified group[GC], topic[GT], force[true], "
                      "timestamp(string)[0], timestamp(long)[0]")));
    int rows = 0;
    for (const QString &l : r.lines()) {
        if (l.startsWith(QLatin1String("broker-0"))) {
            ++rows;
            QCOMPARE(fields(l).value(2), QStringLiteral("0"));
        }
    }
    QCOMPARE(rows, 4);
    QTRY_VERIFY_WITH_TIMEOUT(m_consumed.load() >= before + 17, 15000);
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(0), 10000);
}

void TestAdminGroups::skipAccumulated()
{
    m_consumer->shutdown();
    m_consumer.reset();
    for (int i = 0; i < 3; ++i)
        QVERIFY(m_producer->sendSync(client::Message("GT", QByteArray("skip"))).has_value());
    QTRY_COMPARE_WITH_TIMEOUT(
        diffTotal("GC"), std::int64_t(3), 5000); // see consumerProgressShowsLag
    // With no consumer online mqadmin falls back to committing the offsets itself and prints its
    // rollback table; the broker may still list the consumer that just left, then the reset goes
    // through it and prints the offsets table.
    const Run r = at({"skipAccumulatedMessage", "-g", "GC", "-t", "GT"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QString heading = r.lines().value(0);
    QVERIFY2(fields(heading).mid(0, 3) == argv({"#brokerName", "#queueId", "#brokerOffset"})
            || fields(heading) == argv({"#brokerName", "#queueId", "#offset"}),
        qPrintable(r.out));
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(0), 10000);
}

void TestAdminGroups::cloneGroupOffset()
{
    const Run r = at({"cloneGroupOffset", "-s", "GC", "-d", "GC2", "-t", "GT", "-o", "true"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(
        r.lines(), argv({"clone group offset success. srcGroup[GC], destGroup=[GC2], topic[GT]"}));
    auto source = m_admin->consumeStats("GC", "GT");
    auto copy = m_admin->consumeStats("GC2", "GT");
    QVERIFY(source.has_value());
    QVERIFY(copy.has_value());
    QCOMPARE(copy->totalConsumerOffset(), source->totalConsumerOffset());
    QCOMPARE(copy->totalConsumerOffset(), std::int64_t(20));
}

void TestAdminGroups::producerConnection()
{
    // The producer's heartbeat (every second) registers group PG with the broker.
    QTRY_VERIFY_WITH_TIMEOUT(at({"producerConnection", "-g", "PG", "-t", "GT"})
                                 .out.contains(QString::fromUtf8(m_producer->clientId())),
        10000);
    const Run r = at({"producerConnection", "-g", "PG", "-t", "GT"});
    const QStringList f = fields(r.lines().first());
    QCOMPARE(f.value(0), QStringLiteral("0001"));
    QCOMPARE(f.value(1), QString::fromUtf8(m_producer->clientId()));
    QCOMPARE(f.value(3), QStringLiteral("CPP"));
}

void TestAdminGroups::queryMessages()
{
    const QString msgId = QString::fromUtf8(m_keyed.msgId);
    Run r = at({"queryMsgByKey", "-t", "GT", "-k", "findme"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().size(), 2);
    QCOMPARE(fields(r.lines()[1]),
        QStringList({msgId, QString::number(m_keyed.messageQueue.queueId),
            QString::number(m_keyed.queueOffset)}));

    r = at(argv({"queryMsgByUniqueKey", "-t", "GT", "-i"}) << msgId);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().value(2), QStringLiteral("Keys:                [findme]"));
    QCOMPARE(r.lines().value(1), QStringLiteral("Tags:                [TagOdd]"));

    // GC, online and caught up, has consumed it (mqadmin's messageTrackDetail).
    if (!m_consumer)
        startConsumer();
    QTRY_COMPARE_WITH_TIMEOUT(diffTotal("GC"), std::int64_t(0), 15000);
    r = at(argv({"queryMsgById", "-i"}) << QString::fromUtf8(m_keyed.offsetMsgId));
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.lines().contains(QStringLiteral(
                 "MessageTrack [consumerGroup=GC, trackType=CONSUMED, exceptionDesc=null]")),
        r.describe().constData());
    const Run json
        = at(argv({"queryMsgById", "--json", "-i"}) << QString::fromUtf8(m_keyed.offsetMsgId));
    QVERIFY2(json.exitCode == 0, json.describe().constData());
    QVERIFY2(json.out.contains(QStringLiteral("\"trackType\": \"CONSUMED\"")),
        json.describe().constData());
    QCOMPARE(r.lines().value(0),
        QStringLiteral("OffsetID:            %1").arg(QString::fromUtf8(m_keyed.offsetMsgId)));
    QCOMPARE(r.lines().value(1), QStringLiteral("Topic:               GT"));
    const QString bodyPath = fields(lineStartingWith(r, QStringLiteral("Message"))).last();
    QFile body(bodyPath);
    QVERIFY2(body.open(QIODevice::ReadOnly), qPrintable(bodyPath));
    QCOMPARE(body.readAll(), QByteArray("body-3"));

    r = at({"queryMsgByOffset", "-t", "GT", "-b", "broker-0", "-i",
        qPrintable(QString::number(m_keyed.messageQueue.queueId)), "-o",
        qPrintable(QString::number(m_keyed.queueOffset))});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().value(3), QStringLiteral("Keys:                [findme]"));

    r = at({"queryMsgByKey", "-t", "GT", "-k", "nothing-has-this-key"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().size(), 1); // the heading only
    r = at({"queryMsgByUniqueKey", "-t", "GT", "-i", "0123456789ABCDEF0123456789ABCDEF"});
    QCOMPARE(r.exitCode, 1);
}

void TestAdminGroups::hostileUniqKeyWritesNothingOutsideItsFolder()
{
    // mqadmin writes a queried body to /tmp/rocketmq/msgbodys/<msgId>, and the msgId shown is
    // the producer's UNIQ_KEY: a producer could make an operator's query write any file.
    QTemporaryDir victim;
    QVERIFY(victim.isValid());
    const QString target = victim.filePath(QStringLiteral("pwned"));
    const QByteArray hostile = "../../../../../../.." + QFile::encodeName(target);
    client::Message msg("EvilT", "TagEvil", "evil", "evil-body");
    msg.setProperty(protocol::MessageConst::UniqClientMessageIdKeyIdx.toByteArray(), hostile);
    auto sent = m_producer->sendSync(msg);
    QVERIFY(sent.has_value());
    QCOMPARE(sent->msgId, hostile);
    for (const QStringList &args : {QStringList {QStringLiteral("queryMsgById"),
                                        QStringLiteral("-i"), QString::fromUtf8(sent->offsetMsgId)},
             QStringList {QStringLiteral("queryMsgByUniqueKey"), QStringLiteral("-t"),
                 QStringLiteral("EvilT"), QStringLiteral("-i"), QString::fromUtf8(hostile)}}) {
        const Run r = at(args);
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY(!QFile::exists(target));
        const QString bodyPath = fields(lineStartingWith(r, QStringLiteral("Message"))).last();
        const QFileInfo info(bodyPath);
        QVERIFY2(info.dir().dirName().startsWith(QStringLiteral("qrocket-msgbodys-")),
            qPrintable(bodyPath));
        QCOMPARE(QFileInfo(info.absolutePath()).dir().absolutePath(),
            QFileInfo(QDir::tempPath()).absoluteFilePath());
        QCOMPARE(QFileInfo(info.absolutePath()).permissions()
                & (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteOther),
            QFileDevice::Permissions());
        QFile body(bodyPath);
        QVERIFY2(body.open(QIODevice::ReadOnly), qPrintable(bodyPath));
        QCOMPARE(body.readAll(), QByteArray("evil-body"));
        QVERIFY(!bodyPath.contains(QStringLiteral("..")));
    }
}

void TestAdminGroups::printMessages()
{
    Run r = at({"printMsg", "-t", "GT"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("MSGID: ")), 20);
    QCOMPARE(r.out.count(QLatin1String("minOffset=")), 4);
    QVERIFY(r.out.contains(QLatin1String("BODY: body-3\n")));
    r = at({"printMsg", "-t", "GT", "-s", "TagOdd", "-d", "false"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("MSGID: ")), 5);
    QCOMPARE(r.out.count(QLatin1String("BODY: NOT PRINT BODY")), 5);
    // -b/-e go through SEARCH_OFFSET_BY_TIMESTAMP: from now on nothing, from 0 everything.
    const QString now = QString::number(QDateTime::currentMSecsSinceEpoch() + 1000);
    r = at(argv({"printMsg", "-t", "GT", "-b"}) << now);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("MSGID: ")), 0);
    r = at(argv({"printMsg", "-t", "GT", "-b", "0", "-e"}) << now);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QLatin1String("MSGID: ")), 20);
    const QString queue = QString::number(m_keyed.messageQueue.queueId);
    r = at(argv({"printMsgByQueue", "-t", "GT", "-a", "broker-0", "-f", "true", "-p", "true", "-i"})
        << queue);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.out.contains(QLatin1String("Tag: TagOdd")));
    QVERIFY(r.out.contains(QLatin1String("MSGID: ")));
}

void TestAdminGroups::sendAndConsumeRoundTrip()
{
    Run sent = at({"sendMessage", "-t", "GT", "-p", "round-trip-body", "-k", "rt", "-c", "RT", "-b",
        "broker-0", "-i", "2", "--json"});
    QVERIFY2(sent.exitCode == 0, sent.describe().constData());
    const QJsonObject doc = QJsonDocument::fromJson(sent.out.toUtf8()).object();
    const QJsonObject result = doc.value(QStringLiteral("results")).toArray().first().toObject();
    QCOMPARE(result.value(QStringLiteral("sendStatus")).toString(), QStringLiteral("SEND_OK"));
    QCOMPARE(result.value(QStringLiteral("queueId")).toInt(), 2);
    const QString offset = QString::number(doc.value(QStringLiteral("queueOffset")).toInteger());
    // The send is acknowledged once the commit log has the message; its consume-queue entry
    // (what consumeMessage's range reads) is dispatched right after, asynchronously.
    const QStringList consume
        = argv({"consumeMessage", "-t", "GT", "-b", "broker-0", "-i", "2", "-c", "1", "-o"})
        << offset;
    Run consumed;
    QTRY_VERIFY_WITH_TIMEOUT(
        (consumed = at(consume)).out.contains(QLatin1String("Consume ok")), 5000);
    QVERIFY2(consumed.exitCode == 0, consumed.describe().constData());
    QCOMPARE(consumed.out.count(QLatin1String("MSGID: ")), 1);
    QVERIFY(consumed.out.contains(
        QStringLiteral("MSGID: %1 ").arg(result.value(QStringLiteral("msgId")).toString())));
    QVERIFY(consumed.out.contains(QLatin1String("BODY: round-trip-body")));
    const Run three = at({"consumeMessage", "-t", "GT", "-c", "3"});
    QVERIFY2(three.exitCode == 0, three.describe().constData());
    QCOMPARE(three.out.count(QLatin1String("MSGID: ")), 3);
    const Run bad = at({"consumeMessage", "-t", "GT", "-i", "1"});
    QCOMPARE(bad.exitCode, 2);
}

void TestAdminGroups::checkMsgSendRT()
{
    const Run r = at({"checkMsgSendRT", "-t", "GT", "-a", "5", "-s", "64"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.lines().size(), 7);
    for (const QString &l : r.lines().mid(1, 5))
        QCOMPARE(fields(l).value(2), QStringLiteral("true"));
    QVERIFY(r.lines().last().startsWith(QLatin1String("Avg RT: ")));
}

void TestAdminGroups::statsAndBrokerConsumeStats()
{
    Run r = at({"statsAll", "-t", "GT"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QLatin1String(" GC ")), qPrintable(r.out));
    r = at(argv({"brokerConsumeStats", "-b"}) << m_addr);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY(r.lines().first().startsWith(QLatin1String("#Topic ")));
    bool groupRow = false;
    for (const QString &l : r.lines())
        groupRow = groupRow
            || (fields(l).value(0) == QLatin1String("GT")
                && fields(l).value(1) == QLatin1String("GC"));
    QVERIFY2(groupRow, qPrintable(r.out));
    QVERIFY(r.lines().last().startsWith(QLatin1String("Diff Total: ")));
}

QTEST_GUILESS_MAIN(TestAdminGroups)
#include "tst_admin_groups.moc"
