// qrocket-admin's output layout against mqadmin 4.9.7's: the captures in tests/data/mqadmin (see
// its README.md) were taken from the real mqadmin against an Apache RocketMQ 4.9.7 cluster; here
// the same commands run against an EmbeddedCluster set up alike (topic AdminT1 with 4 queues,
// messages with keys key1..3, group AdminG1 online). Values differ, so what is compared is the
// layout users' scripts depend on:
//   Heading   the first "#..." heading line is identical, and every column start mqadmin's data
//             rows share is a column start in ours;
//   Labels    the label column of "Label:   value" outputs, line by line;
//   Separator the ':' or '=' column of key/value listings;
//   Shape     whole lines with addresses, broker names and numbers masked.

#include "clientlib/client/producer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "tests/admin/admintestutil.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

#include <atomic>
#include <map>
#include <set>

using namespace qrocket;
using namespace qrocket::admintest;

namespace {

enum class Kind { Heading, Labels, Separator, Shape };

QStringList captureLines(const QString &name)
{
    QFile f(qEnvironmentVariable("QROCKET_MQADMIN_CAPTURES") + QLatin1Char('/') + name
        + QStringLiteral(".txt"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
}

/// The heading (first line starting with '#') and the data rows after it, up to a blank line.
std::pair<QString, QStringList> table(const QStringList &lines)
{
    qsizetype i = 0;
    while (i < lines.size() && !lines[i].startsWith(QLatin1Char('#')))
        ++i;
    if (i == lines.size())
        return {};
    QStringList rows;
    for (qsizetype j = i + 1; j < lines.size() && !lines[j].trimmed().isEmpty(); ++j)
        rows << lines[j];
    return {lines[i], rows};
}

/// Positions where a field starts (a non-space after a space, or at 0).
std::set<qsizetype> starts(const QString &line)
{
    std::set<qsizetype> s;
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line[i] != QLatin1Char(' ') && (i == 0 || line[i - 1] == QLatin1Char(' ')))
            s.insert(i);
    }
    return s;
}

QString mask(QString line)
{
    static const QRegularExpression addr(QStringLiteral("\\d+\\.\\d+\\.\\d+\\.\\d+:\\d+"));
    static const QRegularExpression broker(QStringLiteral("broker-[a-z0-9]+"));
    static const QRegularExpression digits(QStringLiteral("\\d+"));
    line.replace(addr, QStringLiteral("ADDR"));
    line.replace(broker, QStringLiteral("BROKER"));
    line.replace(digits, QStringLiteral("0"));
    return line.trimmed();
}

QStringList nonEmpty(const QStringList &lines)
{
    QStringList out;
    for (const QString &l : lines) {
        if (!l.trimmed().isEmpty())
            out << l;
    }
    return out;
}

} // namespace

class TestAdminLayout : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void compare_data();
    void compare();
    void cleanupTestCase();

private:
    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<client::PushConsumer> m_consumer;
    std::atomic<int> m_consumed {0};
    QString m_ns;
    QMap<QString, QString> m_vars;
};

void TestAdminLayout::initTestCase()
{
    QVERIFY2(QFile::exists(adminPath()), qPrintable(adminPath()));
    QVERIFY2(!captureLines(QStringLiteral("clusterList")).isEmpty(),
        "no mqadmin captures (QROCKET_MQADMIN_CAPTURES)");
    m_cluster = std::make_unique<EmbeddedCluster>();
    QVERIFY(m_cluster->start().isOk());
    m_ns = m_cluster->namesrvAddress();
    QVERIFY(
        runAt(m_ns, {"updateTopic", "-c", "DefaultCluster", "-t", "AdminT1", "-r", "4", "-w", "4"})
            .exitCode
        == 0);
    client::ProducerOptions po;
    po.group = "LayoutProducer";
    po.client.namesrvAddr = m_ns.toUtf8();
    client::Producer producer(po);
    QVERIFY(producer.start().isOk());
    client::SendResult first;
    // One message per queue, so that the consumer commits an offset on every queue (a reset
    // fails on a queue the group has no offset for, as on RocketMQ's broker).
    for (int i = 1; i <= 4; ++i) {
        const protocol::MessageQueue queue {"AdminT1", "broker-0", i - 1};
        auto r = producer.sendSync(client::Message("AdminT1", "TagA", "key" + QByteArray::number(i),
                                       "hello-" + QByteArray::number(i)),
            queue);
        QVERIFY(r.has_value());
        if (i == 1)
            first = *r;
    }
    producer.shutdown();
    m_vars[QStringLiteral("{ADDR}")] = m_cluster->brokerAddress(0);
    m_vars[QStringLiteral("{UNIQ}")] = QString::fromUtf8(first.msgId);
    m_vars[QStringLiteral("{OFFSETID}")] = QString::fromUtf8(first.offsetMsgId);
    m_vars[QStringLiteral("{QID}")] = QString::number(first.messageQueue.queueId);
    m_vars[QStringLiteral("{QOFFSET}")] = QString::number(first.queueOffset);

    client::PushConsumerOptions co;
    co.group = "AdminG1";
    co.client.namesrvAddr = m_ns.toUtf8();
    co.client.heartbeatBrokerInterval = 1000;
    co.client.persistConsumerOffsetInterval = 500;
    co.consumeFromWhere = protocol::ConsumeFromWhere::ConsumeFromFirstOffset;
    m_consumer = std::make_unique<client::PushConsumer>(co);
    QVERIFY(m_consumer->subscribe("AdminT1", "*").isOk());
    m_consumer->registerMessageListener(
        [this](const std::vector<client::MessageExt> &msgs, client::ConsumeConcurrentlyContext &) {
            m_consumed += static_cast<int>(msgs.size());
            return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(m_consumer->start().isOk());
    QTRY_VERIFY_WITH_TIMEOUT(m_consumed.load() >= 4, 15000);
    // The consumer's offsets reach the broker: every queue of AdminT1 has a last time, no lag.
    auto committed = [this] {
        const Run r = runAt(m_ns, {"consumerProgress", "-g", "AdminG1"});
        int queues = 0;
        for (const QString &l : r.lines())
            queues += l.startsWith(QLatin1String("AdminT1 ")) && !l.endsWith(QLatin1String("N/A"))
                ? 1
                : 0;
        return queues == 4 && r.out.contains(QLatin1String("Diff Total: 0"));
    };
    QTRY_VERIFY_WITH_TIMEOUT(committed(), 15000);
}

void TestAdminLayout::cleanupTestCase()
{
    if (m_consumer)
        m_consumer->shutdown();
    m_consumer.reset();
    m_cluster.reset();
}

void TestAdminLayout::compare_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("separator");
    auto row = [](const char *capture, QStringList args, Kind kind, const char *separator = "") {
        QTest::newRow(capture) << QString::fromUtf8(capture) << args << static_cast<int>(kind)
                               << QString::fromUtf8(separator);
    };
    row("clusterList", argv({"clusterList"}), Kind::Heading);
    row("clusterList-m", argv({"clusterList", "-m"}), Kind::Heading);
    row("brokerStatus", argv({"brokerStatus", "-b", "{ADDR}"}), Kind::Separator, ":");
    row("topicList-c", argv({"topicList", "-c"}), Kind::Heading);
    row("topicRoute", argv({"topicRoute", "-t", "AdminT1"}), Kind::Shape);
    row("topicRoute-l", argv({"topicRoute", "-t", "AdminT1", "-l"}), Kind::Heading);
    row("topicStatus", argv({"topicStatus", "-t", "AdminT1"}), Kind::Heading);
    row("topicClusterList", argv({"topicClusterList", "-t", "AdminT1"}), Kind::Shape);
    row("consumerProgress", argv({"consumerProgress"}), Kind::Heading);
    row("consumerProgress-g", argv({"consumerProgress", "-g", "AdminG1"}), Kind::Heading);
    row("consumerConnection", argv({"consumerConnection", "-g", "AdminG1"}), Kind::Heading);
    row("consumerStatus", argv({"consumerStatus", "-g", "AdminG1"}), Kind::Heading);
    row("brokerConsumeStats", argv({"brokerConsumeStats", "-b", "{ADDR}"}), Kind::Heading);
    row("getBrokerConfig", argv({"getBrokerConfig", "-b", "{ADDR}"}), Kind::Separator, "=");
    row("getNamesrvConfig", argv({"getNamesrvConfig"}), Kind::Separator, "=");
    row("getConsumerConfig", argv({"getConsumerConfig", "-g", "AdminG1"}), Kind::Separator, "=");
    row("queryMsgByKey", argv({"queryMsgByKey", "-t", "AdminT1", "-k", "key1"}), Kind::Heading);
    row("queryMsgById", argv({"queryMsgById", "-i", "{OFFSETID}"}), Kind::Labels);
    row("queryMsgByUniqueKey", argv({"queryMsgByUniqueKey", "-t", "AdminT1", "-i", "{UNIQ}"}),
        Kind::Labels);
    row("queryMsgByOffset",
        argv({"queryMsgByOffset", "-t", "AdminT1", "-b", "broker-0", "-i", "{QID}", "-o",
            "{QOFFSET}"}),
        Kind::Labels);
    row("statsAll", argv({"statsAll", "-t", "AdminT1"}), Kind::Heading);
    row("sendMessage",
        argv({"sendMessage", "-t", "AdminT1", "-p", "capture", "-k", "capkey", "-c", "TagB"}),
        Kind::Heading);
    row("checkMsgSendRT", argv({"checkMsgSendRT", "-t", "AdminT1", "-a", "3"}), Kind::Heading);
    row("updateTopic",
        argv({"updateTopic", "-c", "DefaultCluster", "-t", "AdminT2", "-r", "2", "-w", "2"}),
        Kind::Shape);
    row("updateSubGroup", argv({"updateSubGroup", "-c", "DefaultCluster", "-g", "AdminG2"}),
        Kind::Shape);
    row("resetOffsetByTime",
        argv({"resetOffsetByTime", "-g", "AdminG1", "-t", "AdminT1", "-s", "now"}), Kind::Heading);
    row("skipAccumulatedMessage",
        argv({"skipAccumulatedMessage", "-g", "AdminG1", "-t", "AdminT1"}), Kind::Heading);
    row("cloneGroupOffset",
        argv({"cloneGroupOffset", "-s", "AdminG1", "-d", "AdminG3", "-t", "AdminT1"}), Kind::Shape);
    row("printMsgByQueue",
        argv({"printMsgByQueue", "-t", "AdminT1", "-a", "broker-0", "-i", "{QID}", "-f", "true"}),
        Kind::Separator, "Count:");
    row("updateKvConfig", argv({"updateKvConfig", "-s", "AdminNS", "-k", "k1", "-v", "v1"}),
        Kind::Shape);
    row("deleteKvConfig", argv({"deleteKvConfig", "-s", "AdminNS", "-k", "k1"}), Kind::Shape);
    row("wipeWritePerm", argv({"wipeWritePerm", "-b", "broker-0"}), Kind::Shape);
    row("addWritePerm", argv({"addWritePerm", "-b", "broker-0"}), Kind::Shape);
    row("deleteTopic", argv({"deleteTopic", "-c", "DefaultCluster", "-t", "AdminT2"}), Kind::Shape);
}

void TestAdminLayout::compare()
{
    QFETCH(QString, capture);
    QFETCH(QStringList, args);
    QFETCH(int, kind);
    QFETCH(QString, separator);
    for (QString &a : args)
        a = m_vars.value(a, a);
    const QStringList theirs = captureLines(capture);
    QVERIFY2(!theirs.isEmpty(), qPrintable(capture + QStringLiteral(": no capture")));
    const Run r = runAt(m_ns, args);
    QVERIFY2(r.exitCode == 0, r.describe().constData());
    const QStringList ours = r.out.split(QLatin1Char('\n'));
    switch (static_cast<Kind>(kind)) {
    case Kind::Heading: {
        const auto [theirHeading, theirRows] = table(theirs);
        const auto [ourHeading, ourRows] = table(ours);
        QCOMPARE(ourHeading, theirHeading);
        QVERIFY2(theirRows.isEmpty() || !ourRows.isEmpty(), r.describe().constData());
        std::set<qsizetype> shared;
        for (qsizetype i = 0; i < theirRows.size(); ++i) {
            const std::set<qsizetype> s = starts(theirRows[i]);
            if (i == 0) {
                shared = s;
                continue;
            }
            std::set<qsizetype> both;
            std::set_intersection(
                shared.begin(), shared.end(), s.begin(), s.end(), std::inserter(both, both.end()));
            shared = both;
        }
        // Only the starts of left-aligned columns (their heading starts there too): right-aligned
        // and overflowing values move with their width.
        std::set<qsizetype> columns;
        const std::set<qsizetype> headed = starts(theirHeading);
        std::set_intersection(shared.begin(), shared.end(), headed.begin(), headed.end(),
            std::inserter(columns, columns.end()));
        for (const QString &row : ourRows) {
            const std::set<qsizetype> s = starts(row);
            for (qsizetype p : columns)
                QVERIFY2(s.count(p),
                    qPrintable(QStringLiteral("column at %1 missing in\n%2\nmqadmin:\n%3")
                                   .arg(p)
                                   .arg(row, theirRows.first())));
        }
        break;
    }
    case Kind::Labels: {
        auto labels = [](const QStringList &lines) {
            QStringList l;
            for (const QString &line : lines) {
                if (line.size() > 20 && line.at(20) == QLatin1Char(' ')
                    && line.left(20).trimmed().endsWith(QLatin1Char(':')))
                    l << line.left(21);
            }
            return l;
        };
        QCOMPARE(labels(ours), labels(theirs));
        QVERIFY(labels(ours).size() >= 14);
        break;
    }
    case Kind::Separator: {
        // The separator sits at the key column's width after every key shorter than it.
        auto column = [&](const QStringList &lines) {
            std::map<qsizetype, int> at;
            for (const QString &l : lines) {
                const qsizetype p = l.indexOf(separator);
                if (p > 0 && !l.startsWith(QLatin1Char('=')) && l.left(p).trimmed().size() < p)
                    ++at[p];
            }
            return at;
        };
        const auto theirColumns = column(theirs);
        const auto ourColumns = column(ours);
        QCOMPARE(theirColumns.size(), std::size_t(1));
        QCOMPARE(ourColumns.size(), std::size_t(1));
        QCOMPARE(ourColumns.begin()->first, theirColumns.begin()->first);
        break;
    }
    case Kind::Shape: {
        QStringList a;
        QStringList b;
        for (const QString &l : nonEmpty(ours))
            a << mask(l);
        for (const QString &l : nonEmpty(theirs))
            b << mask(l);
        QCOMPARE(a, b);
        break;
    }
    }
}

QTEST_GUILESS_MAIN(TestAdminLayout)
#include "tst_admin_layout.moc"
