// qrocket-admin setConsumeMode as a real process against an EmbeddedCluster of two brokers: -c
// sets a group's mode on every master, -b on one, and each broker's GET_ALL_MESSAGE_REQUEST_MODE
// (Admin::allMessageRequestModes) then shows it; bad arguments are usage errors that set nothing.
// popStats lists a POP group's messages in flight on every master until they are acked.

#include "clientlib/client/admin/admin.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/simpleconsumer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace qrocket;
using namespace qrocket::admintest;

class TestAdminPop : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void setConsumeModeInCluster();
    void setConsumeModeOnOneBroker();
    void badArguments();
    void popStatsShowsInFlight();
    void cleanupTestCase();

private:
    Run at(std::initializer_list<const char *> args) { return runAt(m_ns, args); }
    /// The mode of (topic, group) on `addr`, or nullopt when the broker has none.
    std::optional<protocol::SetMessageRequestModeRequestBody> modeOf(
        const QString &addr, const QByteArray &topic, const QByteArray &group);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::Admin> m_admin;
    QString m_ns;
    QString m_addr0;
    QString m_addr1;
};

void TestAdminPop::initTestCase()
{
    QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
    EmbeddedClusterOptions o;
    o.brokerCount = 2;
    m_cluster = std::make_unique<EmbeddedCluster>(o);
    const Status s = m_cluster->start();
    QVERIFY2(s.isOk(), qPrintable(s.toString()));
    m_ns = m_cluster->namesrvAddress();
    m_addr0 = m_cluster->brokerAddress(0);
    m_addr1 = m_cluster->brokerAddress(1);
    client::AdminOptions ao;
    ao.client.namesrvAddr = m_ns.toUtf8();
    m_admin = std::make_unique<client::Admin>(ao);
    QVERIFY(m_admin->start().isOk());
}

void TestAdminPop::cleanupTestCase()
{
    m_admin.reset();
    m_cluster.reset();
}

std::optional<protocol::SetMessageRequestModeRequestBody> TestAdminPop::modeOf(
    const QString &addr, const QByteArray &topic, const QByteArray &group)
{
    auto table = m_admin->allMessageRequestModes(addr.toUtf8());
    if (!table) {
        qWarning("402: %s", qPrintable(table.error().toString()));
        return std::nullopt;
    }
    auto t = table->modes.find(topic);
    if (t == table->modes.end())
        return std::nullopt;
    auto g = t->second.find(group);
    if (g == t->second.end())
        return std::nullopt;
    return g->second;
}

void TestAdminPop::setConsumeModeInCluster()
{
    const Run r = at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopT", "-g", "PopG", "-m",
        "POP", "-q", "3"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(r.out.count(QStringLiteral("set consume mode to ")), 2);
    QVERIFY2(r.out.contains(QStringLiteral("set consume mode to %1 success.").arg(m_addr0)),
        r.describe().constData());
    QVERIFY2(r.out.contains(QStringLiteral("set consume mode to %1 success.").arg(m_addr1)),
        r.describe().constData());
    QVERIFY2(r.out.contains(
                 QStringLiteral("topic[PopT] group[PopG] consume mode[POP] popShareQueueNum[3]")),
        r.describe().constData());
    for (const QString &addr : {m_addr0, m_addr1}) {
        const auto m = modeOf(addr, "PopT", "PopG");
        QVERIFY2(m, qPrintable(addr));
        QCOMPARE(m->mode, QByteArray("POP"));
        QCOMPARE(m->popShareQueueNum, 3);
        QCOMPARE(m->topic, QByteArray("PopT"));
        QCOMPARE(m->consumerGroup, QByteArray("PopG"));
    }

    // And back to PULL.
    const Run back
        = at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopT", "-g", "PopG", "-m", "PULL"});
    QVERIFY2(back.exitCode == 0, back.describe().constData());
    for (const QString &addr : {m_addr0, m_addr1}) {
        const auto m = modeOf(addr, "PopT", "PopG");
        QVERIFY2(m, qPrintable(addr));
        QCOMPARE(m->mode, QByteArray("PULL"));
        QCOMPARE(m->popShareQueueNum, 0);
    }
}

void TestAdminPop::setConsumeModeOnOneBroker()
{
    const QByteArray addr1 = m_addr1.toUtf8();
    const Run r = at(
        {"setConsumeMode", "-b", addr1.constData(), "-t", "PopOne", "-g", "PopG1", "-m", "POP"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QStringLiteral("set consume mode to %1 success.").arg(m_addr1)),
        r.describe().constData());
    const auto one = modeOf(m_addr1, "PopOne", "PopG1");
    QVERIFY(one);
    QCOMPARE(one->mode, QByteArray("POP"));
    QCOMPARE(one->popShareQueueNum, 0);
    QVERIFY(!modeOf(m_addr0, "PopOne", "PopG1")); // only the broker named
}

void TestAdminPop::badArguments()
{
    // A mode that is neither PULL nor POP, no target, both targets, a negative share count.
    for (const Run &r :
        {at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopBad", "-g", "G", "-m", "PUSH"}),
            at({"setConsumeMode", "-t", "PopBad", "-g", "G", "-m", "POP"}),
            at({"setConsumeMode", "-c", "DefaultCluster", "-b", "127.0.0.1:1", "-t", "PopBad", "-g",
                "G", "-m", "POP"}),
            at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopBad", "-g", "G", "-m", "POP",
                "-q", "-1"}),
            at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopBad", "-m", "POP"})}) {
        QVERIFY2(r.finished && r.exitCode == 2, r.describe().constData());
    }
    QVERIFY(!modeOf(m_addr0, "PopBad", "G"));
    QVERIFY(!modeOf(m_addr1, "PopBad", "G"));
}

void TestAdminPop::popStatsShowsInFlight()
{
    QVERIFY(m_cluster->createTopic(QStringLiteral("PopStatsT"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("PopStatsT")).isOk());
    const Run set = at({"setConsumeMode", "-c", "DefaultCluster", "-t", "PopStatsT", "-g",
        "PopStatsG", "-m", "POP"});
    QVERIFY2(set.exitCode == 0, set.describe().constData());
    client::ClientConfig cc;
    cc.namesrvAddr = m_ns.toUtf8();
    cc.clientIP = "127.0.0.1";
    client::ProducerOptions po;
    po.group = "PopStatsP";
    po.client = cc;
    client::Producer producer(po);
    QVERIFY(producer.start().isOk());
    constexpr int kCount = 6;
    for (int i = 0; i < kCount; ++i)
        QVERIFY(producer.sendSync(client::Message("PopStatsT", QByteArray::number(i))));
    client::SimpleConsumerOptions so;
    so.group = "PopStatsG";
    so.client = cc;
    so.awaitDurationMillis = 300;
    so.consumeFromFirst = true;
    client::SimpleConsumer consumer(so);
    QVERIFY(consumer.subscribe("PopStatsT").isOk());
    QVERIFY(consumer.start().isOk());
    std::vector<client::MessageExt> got;
    QElapsedTimer t;
    t.start();
    while (got.size() < std::size_t(kCount) && t.elapsed() < 15000) {
        auto r = consumer.receive(client::SimpleConsumer::kMaxReceive, 60000);
        if (r)
            got.insert(got.end(), r->begin(), r->end());
    }
    QCOMPARE(got.size(), std::size_t(kCount));

    Run r = at({"popStats", "-g", "PopStatsG"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QVERIFY2(r.out.contains(QStringLiteral("#InFlight")), r.describe().constData());
    QVERIFY2(r.out.contains(QStringLiteral("In flight: %1  Revive backlog: 0").arg(kCount)),
        r.describe().constData());
    int rows = 0;
    for (const QString &line : r.lines())
        if (line.contains(QStringLiteral("PopStatsG")) && line.contains(QStringLiteral("POP")))
            ++rows;
    QCOMPARE(rows, 2); // one per master
    r = at({"popStats", "-g", "PopStatsG", "--json"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(doc.value(QStringLiteral("inFlight")).toInteger(), kCount);

    for (const client::MessageExt &m : got)
        QVERIFY(consumer.ack(m).isOk());
    r = at({"popStats", "-g", "PopStatsG", "--json"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8())
                 .object()
                 .value(QStringLiteral("inFlight"))
                 .toInteger(),
        0);
    // Another group sees none of it.
    r = at({"popStats", "-g", "NoSuchPopGroup", "--json"});
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8())
                 .object()
                 .value(QStringLiteral("groups"))
                 .toArray()
                 .size(),
        0);
}

QTEST_GUILESS_MAIN(TestAdminPop)
#include "tst_admin_pop.moc"
