// GET /metrics of real qrocket-namesrv and qrocket-broker processes: every line of both answers
// passes a strict exposition parser (tests/testlib/exposition.h) and promtool when installed;
// the put counter grows by exactly what the test sent; the per-queue lag equals what
// GET_CONSUME_STATS (qrocket-admin consumerProgress) answers; the consume queues' mapping cache
// (maxMappedConsumeQueueFiles=4 here) shows its evictions in the scrape and in runtime info; with
// aclEnable a scrape needs an ACL admin account's keys (HTTP basic auth); without the keys the
// endpoint is off.

#include "clientlib/client/litepullconsumer.h"
#include "clientlib/client/producer.h"
#include "clientlib/protocol/bodies/adminbodies.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/exposition.h"
#include "tests/testlib/httpget.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;

namespace {

const QByteArray kTopic = "MetricsTopic";
const QByteArray kGroup = "metrics-group";
constexpr int kSent = 37;
constexpr int kCqCap = 4; // maxMappedConsumeQueueFiles of the broker

const QByteArray kRules = R"(accounts:
  - accessKey: reader01
    secretKey: reader-secret
    defaultTopicPerm: SUB
    defaultGroupPerm: SUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
)";

/// The answer parsed strictly; the test fails (with the offending line) when it does not parse.
std::optional<Exposition> scrape(quint16 port, QString *error)
{
    const HttpAnswer a = httpRequest(metricsUrl(port));
    if (a.status != 200) {
        *error = QStringLiteral("GET /metrics answered %1").arg(a.status);
        return std::nullopt;
    }
    if (!a.contentType.startsWith("text/plain; version=0.0.4")) {
        *error = QStringLiteral("Content-Type %1").arg(QString::fromUtf8(a.contentType));
        return std::nullopt;
    }
    return parseExposition(a.body, error);
}

} // namespace

class tst_Metrics final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void bothAnswersAreStrictExposition();
    void promtoolAcceptsBothAnswers();
    void putCounterGrowsByWhatWasSent();
    void queueLagEqualsConsumeStats();
    void consumeQueueMappingsStayUnderTheCap();
    void unknownPathsAndMethods();
    void offByDefault();
    void aclNeedsAnAdminAccount();

private:
    QByteArray brokerConf(quint16 port, const QByteArray &store, const QByteArray &extra) const;
    client::ClientConfig clientConfig() const;

    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    DaemonProcess m_broker {QStringLiteral("qrocket-broker")};
    quint16 m_nsPort = 0;
    quint16 m_brokerPort = 0;
    quint16 m_nsMetrics = 0;
    quint16 m_brokerMetrics = 0;
    remoting::RemotingClient m_client;
};

QByteArray tst_Metrics::brokerConf(
    quint16 port, const QByteArray &store, const QByteArray &extra) const
{
    return "brokerName=broker-metrics\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
        + QByteArray::number(port) + "\nnamesrvAddr=" + localAddr(m_nsPort) + "\nstorePathRootDir="
        + store + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n" + extra;
}

client::ClientConfig tst_Metrics::clientConfig() const
{
    client::ClientConfig config;
    config.namesrvAddr = localAddr(m_nsPort);
    return config;
}

void tst_Metrics::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString dir = m_dir.path();
    // The name server through RocketMQ 5's keys, the broker through metricsPort.
    QVERIFY2(
        startOnFreePort(m_namesrv, QDir(dir).filePath(QStringLiteral("namesrv.conf")), m_nsPort,
            [&](quint16 port) {
                m_nsMetrics = freePort();
                return "listenPort=" + QByteArray::number(port) + "\nkvConfigPath="
                    + QDir(dir).filePath(QStringLiteral("kvConfig.json")).toUtf8()
                    + "\nmetricsExporterType=PROM\nmetricsPromExporterPort="
                    + QByteArray::number(m_nsMetrics) + "\n";
            }),
        qPrintable(m_namesrv.error()));
    QVERIFY2(
        startOnFreePort(m_broker, QDir(dir).filePath(QStringLiteral("broker.conf")), m_brokerPort,
            [&](quint16 port) {
                m_brokerMetrics = freePort();
                return brokerConf(port, QDir(dir).filePath(QStringLiteral("store")).toUtf8(),
                    "metricsPort=" + QByteArray::number(m_brokerMetrics)
                        + "\nmaxMappedConsumeQueueFiles=" + QByteArray::number(kCqCap) + "\n");
            }),
        qPrintable(m_broker.error()));
    QVERIFY(waitForPort(m_nsMetrics, 10000));
    QVERIFY(waitForPort(m_brokerMetrics, 10000));
    QTRY_VERIFY_WITH_TIMEOUT(m_broker.output().contains("metrics at http://127.0.0.1:"), 10000);
}

void tst_Metrics::cleanupTestCase()
{
    for (DaemonProcess *daemon : {&m_broker, &m_namesrv}) {
        if (!daemon->isRunning())
            continue;
        const QByteArray out = daemon->output();
        QCOMPARE(daemon->stop(), 0);
        for (const char *bad : {"AddressSanitizer", "runtime error:", "ThreadSanitizer"})
            QVERIFY2(!out.contains(bad), out.right(4000).constData());
    }
}

void tst_Metrics::bothAnswersAreStrictExposition()
{
    QString error;
    const std::optional<Exposition> ns = scrape(m_nsMetrics, &error);
    QVERIFY2(ns, qPrintable(error));
    // The broker registered: the name server counts it.
    QTRY_VERIFY_WITH_TIMEOUT(
        scrape(m_nsMetrics, &error)->value("qrocket_namesrv_brokers_live") == 1.0, 15000);
    const std::optional<Exposition> ns2 = scrape(m_nsMetrics, &error);
    QVERIFY2(ns2, qPrintable(error));
    QVERIFY(ns2->value("qrocket_namesrv_registrations_total").value_or(0) >= 1);
    QVERIFY(ns2->value("qrocket_namesrv_topics").value_or(0) >= 1);
    QVERIFY(ns2->value("process_resident_memory_bytes").value_or(0) > 0);
    QCOMPARE(ns2->find("qrocket_namesrv_broker_last_update_age_seconds",
                    {{"broker", "broker-metrics"}, {"addr", localAddr(m_brokerPort)}})
                 .size(),
        1);

    const std::optional<Exposition> b = scrape(m_brokerMetrics, &error);
    QVERIFY2(b, qPrintable(error));
    // Both vocabularies and QRocket's own are there, with their types.
    for (const auto &[family, type] :
        {std::pair<const char *, const char *> {"rocketmq_producer_offset", "gauge"},
            {"rocketmq_broker_tps", "gauge"}, {"rocketmq_group_diff", "gauge"},
            {"rocketmq_messages_in_total", "counter"}, {"rocketmq_consumer_lag_messages", "gauge"},
            {"rocketmq_storage_flush_behind_bytes", "gauge"},
            {"rocketmq_storage_dispatch_behind_bytes", "gauge"},
            {"qrocket_consumer_queue_lag_messages", "gauge"},
            {"qrocket_commitlog_max_offset_bytes", "gauge"}, {"qrocket_connections", "gauge"},
            {"qrocket_remoting_refused_total", "counter"},
            {"qrocket_metrics_series_dropped", "gauge"}, {"rocketmq_processor_watermark", "gauge"},
            {"qrocket_held_pulls", "gauge"}, {"qrocket_pop_inflight_messages", "gauge"},
            {"qrocket_ha_connections", "gauge"}})
        QCOMPARE(b->types.value(family), QByteArray(type));
    QVERIFY(b->value("rocketmq_broker_tps",
        {{"cluster", "DefaultCluster"}, {"broker", "broker-metrics"}, {"brokerIP", "127.0.0.1"}}));
    QCOMPARE(
        b->value("qrocket_metrics_series_dropped", {{"kind", "topic"}}), std::optional<double>(0));
    QVERIFY(b->value("qrocket_connections")); // clients' connections (the broker dials out)
}

void tst_Metrics::promtoolAcceptsBothAnswers()
{
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty())
        QSKIP("promtool is not installed (Debian's prometheus package)");
    for (const quint16 port : {m_nsMetrics, m_brokerMetrics}) {
        const HttpAnswer a = httpRequest(metricsUrl(port));
        QCOMPARE(a.status, 200);
        QProcess p;
        p.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
        QVERIFY(p.waitForStarted(10000));
        p.write(a.body);
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        const QByteArray out = p.readAllStandardOutput() + p.readAllStandardError();
        // 0: clean. 3: lint remarks only; the one tolerated is the exporter's camelCase label
        // names (brokerIP, countOfOnlineConsumers, msgModel), which its dashboards query.
        if (p.exitCode() == 3) {
            for (const QByteArray &line : out.split('\n'))
                QVERIFY2(line.isEmpty()
                        || line.endsWith("should be written in 'snake_case' not 'camelCase'"),
                    out.constData());
        } else {
            QVERIFY2(p.exitCode() == 0, out.constData());
        }
    }
}

void tst_Metrics::putCounterGrowsByWhatWasSent()
{
    QString error;
    const std::optional<Exposition> before = scrape(m_brokerMetrics, &error);
    QVERIFY2(before, qPrintable(error));
    const QMap<QByteArray, QByteArray> topic {{"topic", kTopic}};
    const double inBefore = before->value("rocketmq_messages_in_total", topic).value_or(0);
    const double storeBefore = before->value("qrocket_store_put_messages_total").value_or(-1);
    const QMap<QByteArray, QByteArray> putOk {{"result", "PUT_OK"}};
    const double latencyBefore
        = before->value("qrocket_send_latency_seconds_count", putOk).value_or(0);
    QVERIFY(storeBefore >= 0);

    client::ProducerOptions po;
    po.group = "metrics-producer";
    po.client = clientConfig();
    client::Producer producer(po);
    QVERIFY(producer.start());
    for (int i = 0; i < kSent; ++i) {
        const Result<client::SendResult> sent
            = producer.sendSync(client::Message(kTopic, "metrics " + QByteArray::number(i)));
        QVERIFY2(sent, qPrintable(sent.status().toString()));
    }
    producer.shutdown();

    const std::optional<Exposition> after = scrape(m_brokerMetrics, &error);
    QVERIFY2(after, qPrintable(error));
    QCOMPARE(
        after->value("rocketmq_messages_in_total", topic).value_or(-1) - inBefore, double(kSent));
    QCOMPARE(
        after->value("qrocket_store_put_messages_total").value_or(-1) - storeBefore, double(kSent));
    QVERIFY(after->value("rocketmq_throughput_in_total", topic).value_or(0) > 0);
    // Each send's put is in the latency histogram once, in a bucket that counts it.
    QCOMPARE(after->value("qrocket_send_latency_seconds_count", putOk).value_or(-1) - latencyBefore,
        double(kSent));
    QCOMPARE(
        after->value("qrocket_send_latency_seconds_bucket", {{"result", "PUT_OK"}, {"le", "+Inf"}}),
        after->value("qrocket_send_latency_seconds_count", putOk));
    QCOMPARE(after->types.value("qrocket_send_latency_seconds"), QByteArray("histogram"));
    // The exporter's topic offset: the queues' max offsets summed, once the reput thread has
    // dispatched the messages to their consume queues.
    QTRY_COMPARE_WITH_TIMEOUT(
        scrape(m_brokerMetrics, &error)->value("rocketmq_producer_offset", topic).value_or(-1),
        double(kSent), 15000);
}

void tst_Metrics::queueLagEqualsConsumeStats()
{
    // Consume some of the topic with a group, then commit what was polled.
    client::LitePullConsumerOptions co;
    co.group = kGroup;
    co.client = clientConfig();
    co.autoCommit = false;
    co.consumeFromWhere = client::ConsumeFromWhere::ConsumeFromFirstOffset;
    client::LitePullConsumer consumer(co);
    QVERIFY(consumer.subscribe(kTopic));
    QVERIFY(consumer.start());
    std::size_t got = 0;
    QElapsedTimer timer;
    timer.start();
    while (got < 5 && timer.elapsed() < 30000)
        got += consumer.poll(1000).size();
    QVERIFY(got >= 5);
    QVERIFY(consumer.commitSync());
    consumer.shutdown();

    // GET_CONSUME_STATS, what qrocket-admin consumerProgress prints, then the scrape: nothing is
    // sent or consumed in between.
    std::optional<protocol::ConsumeStats> stats;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const RemotingCommand r = invoke(m_client, localAddr(m_brokerPort),
                request(208, {{"consumerGroup", kGroup}, {"topic", kTopic}}));
            if (r.code != 0)
                return false;
            auto parsed = protocol::ConsumeStats::fromJson(r.body);
            if (!parsed)
                return false;
            std::int64_t committed = 0;
            for (const auto &[mq, o] : parsed->offsetTable)
                committed += o.consumerOffset;
            stats = *parsed;
            return committed > 0;
        }(),
        15000);
    QString error;
    const std::optional<Exposition> e = scrape(m_brokerMetrics, &error);
    QVERIFY2(e, qPrintable(error));
    std::int64_t totalLag = 0;
    for (const auto &[mq, o] : stats->offsetTable) {
        const std::optional<double> lag = e->value("qrocket_consumer_queue_lag_messages",
            {{"group", kGroup}, {"topic", kTopic}, {"queue", QByteArray::number(mq.queueId)}});
        QVERIFY2(lag, qPrintable(QStringLiteral("no lag series for queue %1").arg(mq.queueId)));
        QCOMPARE(*lag, double(o.brokerOffset - o.consumerOffset));
        totalLag += o.brokerOffset - o.consumerOffset;
    }
    QCOMPARE(e->find("qrocket_consumer_queue_lag_messages", {{"group", kGroup}, {"topic", kTopic}})
                 .size(),
        qsizetype(stats->offsetTable.size()));
    QVERIFY(totalLag > 0 && totalLag < kSent);
    // The same sum in both vocabularies.
    QCOMPARE(e->value("rocketmq_consumer_lag_messages",
                 {{"consumer_group", kGroup}, {"topic", kTopic}, {"is_retry", "false"}}),
        std::optional<double>(double(totalLag)));
    QCOMPARE(e->value("rocketmq_group_diff", {{"group", kGroup}, {"topic", kTopic}}),
        std::optional<double>(double(totalLag)));
    QVERIFY(
        e->value("rocketmq_consumer_lag_latency", {{"consumer_group", kGroup}}).value_or(-1) >= 0);
    QVERIFY(e->value("rocketmq_messages_out_total", {{"consumer_group", kGroup}, {"topic", kTopic}})
                .value_or(0)
        >= 5);
    // Every series apache/rocketmq-exporter's rocketmq_exporter_overview.json dashboard queries
    // has samples once something was sent and consumed.
    for (const char *family : {"rocketmq_broker_tps", "rocketmq_broker_qps",
             "rocketmq_consumer_offset", "rocketmq_consumer_message_size",
             "rocketmq_producer_offset", "rocketmq_consumer_tps", "rocketmq_producer_message_size",
             "rocketmq_producer_tps", "rocketmq_group_get_latency_by_storetime"})
        QVERIFY2(!e->find(family).isEmpty(), family);
}

void tst_Metrics::consumeQueueMappingsStayUnderTheCap()
{
    // 16 queues written, then read back, through a cap of 4 mapped consume-queue files: the cache
    // must evict (and map again), and never hold more than the cap.
    constexpr int kTopics = 4;
    constexpr int kQueues = 4;
    for (int round = 0; round < 2; ++round) {
        for (int t = 0; t < kTopics; ++t) {
            for (int q = 0; q < kQueues; ++q) {
                const RemotingCommand r = invoke(m_client, localAddr(m_brokerPort),
                    sendV2("MetricsCq" + QByteArray::number(t), q, "cq " + QByteArray::number(q)));
                QCOMPARE(r.code, 0);
            }
        }
    }
    // Dispatched: every queue holds its two messages (each answer maps or hits a queue file).
    for (int t = 0; t < kTopics; ++t) {
        for (int q = 0; q < kQueues; ++q) {
            QTRY_COMPARE_WITH_TIMEOUT(invoke(m_client, localAddr(m_brokerPort),
                                          request(30,
                                              {{"topic", "MetricsCq" + QByteArray::number(t)},
                                                  {"queueId", QByteArray::number(q)}}))
                                          .extString("offset")
                                          .toByteArray(),
                QByteArray("2"), 15000);
        }
    }

    QString error;
    const std::optional<Exposition> e = scrape(m_brokerMetrics, &error);
    QVERIFY2(e, qPrintable(error));
    for (const auto &[family, type] :
        {std::pair<const char *, const char *> {"qrocket_consumequeue_mapped_files", "gauge"},
            {"qrocket_consumequeue_mapped_files_limit", "gauge"},
            {"qrocket_consumequeue_mapping_hits_total", "counter"},
            {"qrocket_consumequeue_mapping_misses_total", "counter"},
            {"qrocket_consumequeue_mapping_evictions_total", "counter"}})
        QCOMPARE(e->types.value(family), QByteArray(type));
    QCOMPARE(e->value("qrocket_consumequeue_mapped_files_limit"), std::optional<double>(kCqCap));
    const double mapped = e->value("qrocket_consumequeue_mapped_files").value_or(-1);
    QVERIFY2(mapped >= 1 && mapped <= kCqCap, qPrintable(QString::number(mapped)));
    const double evictions = e->value("qrocket_consumequeue_mapping_evictions_total").value_or(-1);
    const double misses = e->value("qrocket_consumequeue_mapping_misses_total").value_or(-1);
    QVERIFY2(evictions > 0, qPrintable(QString::number(evictions)));
    // 16 files, each mapped at least once, most of them twice (evicted in between).
    QVERIFY2(misses > kTopics * kQueues, qPrintable(QString::number(misses)));
    QVERIFY(e->value("qrocket_consumequeue_mapping_hits_total").value_or(-1) > 0);

    // The same figures in GET_BROKER_RUNTIME_INFO (nothing was sent or read in between).
    const RemotingCommand r = invoke(m_client, localAddr(m_brokerPort), request(28));
    QCOMPARE(r.code, 0);
    const Result<protocol::KVTable> kv = protocol::KVTable::fromJson(r.body);
    QVERIFY(kv);
    const auto number = [&](const char *key) {
        const auto it = kv->table.find(QByteArray(key));
        return it == kv->table.end() ? -1.0 : it->second.toDouble();
    };
    QCOMPARE(number("consumeQueueMappedFilesMax"), double(kCqCap));
    QVERIFY(number("consumeQueueMappedFiles") >= 1 && number("consumeQueueMappedFiles") <= kCqCap);
    QVERIFY(number("consumeQueueMappingEvictions") >= evictions);
    QVERIFY(number("consumeQueueMappingMisses") >= misses);
    QVERIFY(number("consumeQueueMappingHits") > 0);
    qInfo().noquote() << QStringLiteral("cap %1: mapped %2, misses %3, evictions %4, hits %5")
                             .arg(kCqCap)
                             .arg(mapped)
                             .arg(misses)
                             .arg(evictions)
                             .arg(number("consumeQueueMappingHits"));
}

void tst_Metrics::unknownPathsAndMethods()
{
    for (const quint16 port : {m_nsMetrics, m_brokerMetrics}) {
        QCOMPARE(httpRequest(metricsUrl(port, QStringLiteral("/"))).status, 404);
        QCOMPARE(httpRequest(metricsUrl(port, QStringLiteral("/admin"))).status, 404);
        QCOMPARE(httpRequest(metricsUrl(port), "DELETE").status, 405);
    }
}

void tst_Metrics::offByDefault()
{
    // Every daemon's defaults, as -p prints them.
    for (const char *daemon : {"qrocket-namesrv", "qrocket-broker"}) {
        const auto [code, out]
            = runProgram(QDir(binDir()).filePath(QLatin1String(daemon)), {QStringLiteral("-p")});
        QCOMPARE(code, 0);
        for (const char *line :
            {"metricsPort=0\n", "metricsExporterType=DISABLE\n", "metricsHost=127.0.0.1\n"})
            QVERIFY2(out.contains(line), out.constData());
    }
    // A name server without the keys serves no endpoint.
    DaemonProcess plain(QStringLiteral("qrocket-namesrv"));
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("plain")));
    const quint16 port = startNamesrv(plain, m_dir.filePath(QStringLiteral("plain")));
    QVERIFY2(port != 0, qPrintable(plain.error()));
    QVERIFY(!plain.output().contains("metrics at"));
    QCOMPARE(plain.stop(), 0);
}

void tst_Metrics::aclNeedsAnAdminAccount()
{
    const QString rules = m_dir.filePath(QStringLiteral("plain_acl.yml"));
    {
        QFile f(rules);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kRules);
    }
    DaemonProcess ns(QStringLiteral("qrocket-namesrv"));
    quint16 nsPort = 0;
    quint16 nsMetrics = 0;
    QVERIFY2(startOnFreePort(ns, m_dir.filePath(QStringLiteral("namesrv-acl.conf")), nsPort,
                 [&](quint16 p) {
                     nsMetrics = freePort();
                     return "listenPort=" + QByteArray::number(p) + "\nkvConfigPath="
                         + m_dir.filePath(QStringLiteral("kv-acl.json")).toUtf8()
                         + "\naclEnable=true\naclFilePath=" + rules.toUtf8()
                         + "\nmetricsPort=" + QByteArray::number(nsMetrics) + "\n";
                 }),
        qPrintable(ns.error()));
    DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 brokerPort = 0;
    quint16 brokerMetrics = 0;
    QVERIFY2(startOnFreePort(broker, m_dir.filePath(QStringLiteral("broker-acl.conf")), brokerPort,
                 [&](quint16 p) {
                     brokerMetrics = freePort();
                     return brokerConf(p, m_dir.filePath(QStringLiteral("store-acl")).toUtf8(),
                         "aclEnable=true\naclFilePath=" + rules.toUtf8() + "\nmetricsPort="
                             + QByteArray::number(brokerMetrics) + "\nmetricsSeriesLimit=1\n");
                 }),
        qPrintable(broker.error()));
    QVERIFY(waitForPort(nsMetrics, 10000));
    QVERIFY(waitForPort(brokerMetrics, 10000));
    for (const quint16 port : {nsMetrics, brokerMetrics}) {
        const HttpAnswer none = httpRequest(metricsUrl(port));
        QCOMPARE(none.status, 401);
        QVERIFY(none.wwwAuthenticate.startsWith("Basic"));
        QVERIFY(!none.body.contains("qrocket_"));
        QCOMPARE(httpRequest(metricsUrl(port), "GET", "reader01", "reader-secret").status, 401);
        QCOMPARE(httpRequest(metricsUrl(port), "GET", "admin001", "wrong-secret").status, 401);
        const HttpAnswer admin = httpRequest(metricsUrl(port), "GET", "admin001", "admin-secret");
        QCOMPARE(admin.status, 200);
        QString error;
        const std::optional<Exposition> e = parseExposition(admin.body, &error);
        QVERIFY2(e, qPrintable(error));
        QVERIFY(e->value("qrocket_acl_refusals_total"));
        if (port != brokerMetrics)
            continue;
        // metricsSeriesLimit=1: one topic's series, the other system topics counted as left out.
        QSet<QByteArray> topics;
        for (const char *family : {"rocketmq_producer_offset", "rocketmq_topic_retry_offset",
                 "rocketmq_topic_dlq_offset", "rocketmq_messages_in_total"})
            for (const ExpositionSample &s : e->find(family))
                topics.insert(s.labels.value("topic", s.labels.value("group")));
        QCOMPARE(topics.size(), 1);
        const double dropped
            = e->value("qrocket_metrics_series_dropped", {{"kind", "topic"}}).value_or(0);
        QVERIFY2(dropped >= 5, qPrintable(QString::number(dropped))); // the system topics
    }
    QCOMPARE(broker.stop(), 0);
    QCOMPARE(ns.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_Metrics)
#include "tst_metrics.moc"
