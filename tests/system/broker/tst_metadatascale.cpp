// Metadata at scale (issue 30): what a topic change costs on the wire and on disk.
//
// In-process name server and broker, the broker registering through a FrameTap relay that counts
// its frames: one topic change costs one incremental REGISTER_BROKER whose size does not depend
// on the table (100 vs 2,000 topics); a burst of changes while a registration is in flight
// coalesces into one follow-up; with forceRegister=false the periodic registration is skipped
// when QUERY_DATA_VERSION finds the name server current; compressedRegister sends RocketMQ's zlib
// body, which the name server takes. And a real qrocket-broker killed (SIGKILL) in the middle of
// a burst of UPDATE_AND_CREATE_TOPIC: after a restart every creation it answered is there, and
// topics.json parses.

#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/namesrvregistrar.h"
#include "clientlib/protocol/json.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/inprocessbroker.h"
#include "tests/system/broker/inprocessnamesrv.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/frametap.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <mutex>
#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using testlib::FrameTap;

namespace {

constexpr int kRegisterBroker = 103;
constexpr int kQueryDataVersion = 322;

QByteArray scaleTopic(int i)
{
    return "Scale_" + QByteArray::number(i).rightJustified(6, '0');
}

RemotingCommand createTopicRequest(const QByteArray &topic, int queues = 4)
{
    return request(17,
        {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", num(queues)},
            {"writeQueueNums", num(queues)}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
            {"topicSysFlag", "0"}, {"order", "false"}});
}

} // namespace

class tst_MetadataScale final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void incrementalRegistrationDoesNotGrowWithTheTable();
    void burstCoalescesWhileARegistrationIsInFlight();
    void queryDataVersionSkipsACurrentNameServer();
    void lateNotificationStillReachesTheNameServer();
    void nameServerThatLostTheBrokerGetsTheWholeTable();
    void compressedRegistration();
    void killDuringTopicBurstKeepsAnsweredTopics();

private:
    void startBroker(const std::function<void(broker::BrokerConfig &)> &configure = {});
    /// Nothing in flight to the name server and every registration answered.
    bool quiet();
    bool routed(const QByteArray &topic);
    void createTopics(int from, int to, int queues = 4);
    RemotingCommand callBroker(RemotingCommand req);
    /// Creates `probe` through UPDATE_AND_CREATE_TOPIC once the broker is quiet; `bytes` gets
    /// the REGISTER_BROKER bytes it cost (one frame, incremental).
    void measureOneChange(const QByteArray &probe, std::int64_t &bytes);

    QTemporaryDir m_dir;
    std::unique_ptr<namesrv::NamesrvController> m_ns;
    std::unique_ptr<FrameTap> m_tap;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<remoting::RemotingClient> m_client;
    QByteArray m_nsAddr;
    int m_run = 0;
};

void tst_MetadataScale::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // One info line per topic would drown the output.
    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    m_client = std::make_unique<remoting::RemotingClient>();
}

void tst_MetadataScale::init()
{
    startInProcessNamesrv(m_ns, m_dir.filePath(QStringLiteral("ns%1").arg(++m_run)));
    QVERIFY(m_ns);
    m_nsAddr = localAddr(m_ns->serverPort());
    m_tap = std::make_unique<FrameTap>(m_ns->serverPort());
    QVERIFY(m_tap->listen());
}

void tst_MetadataScale::cleanup()
{
    stopInProcessBroker(m_broker);
    m_tap.reset();
    if (m_ns)
        m_ns->shutdown();
    m_ns.reset();
}

void tst_MetadataScale::startBroker(const std::function<void(broker::BrokerConfig &)> &configure)
{
    startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store%1").arg(m_run)),
        QStringLiteral("broker-scale"), QStringLiteral("127.0.0.1:%1").arg(m_tap->port()),
        [&](broker::BrokerConfig &c) {
            c.registerNameServerPeriod = 60000; // no periodic registration inside a test
            if (configure)
                configure(c);
        });
    QVERIFY(m_broker);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && m_broker->registrar().registrationCount() >= 1, 10000);
}

bool tst_MetadataScale::quiet()
{
    const broker::NamesrvRegistrar &r = m_broker->registrar();
    return r.fullRegistrationsSent() + r.incrementalRegistrationsSent()
        == std::int64_t(r.registrationCount());
}

bool tst_MetadataScale::routed(const QByteArray &topic)
{
    auto answer = m_client->invokeSync(m_nsAddr, request(105, {{"topic", topic}}), 5000);
    return answer && answer->code == 0;
}

void tst_MetadataScale::createTopics(int from, int to, int queues)
{
    for (int i = from; i < to; ++i) {
        QVERIFY(m_broker->context().topics->updateTopicConfig(
            broker::TopicConfig(scaleTopic(i), queues)));
        // The relay runs on this thread: keep it forwarding, or a registration in flight times
        // out on a loaded machine.
        if (i % 20 == 0)
            QCoreApplication::processEvents();
    }
}

RemotingCommand tst_MetadataScale::callBroker(RemotingCommand req)
{
    return invoke(*m_client, localAddr(m_broker->listenPort()), std::move(req));
}

void tst_MetadataScale::measureOneChange(const QByteArray &probe, std::int64_t &bytes)
{
    QTRY_VERIFY_WITH_TIMEOUT(quiet(), 10000);
    m_tap->reset();
    const std::int64_t fullBefore = m_broker->registrar().fullRegistrationsSent();
    QCOMPARE(callBroker(createTopicRequest(probe)).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(probe), 10000);
    const FrameTap::Counts c = m_tap->counts(kRegisterBroker);
    QCOMPARE(c.frames, std::int64_t(1));
    QCOMPARE(m_broker->registrar().fullRegistrationsSent(), fullBefore);
    bytes = c.bytes;
}

void tst_MetadataScale::incrementalRegistrationDoesNotGrowWithTheTable()
{
    startBroker();
    QVERIFY(m_broker);
    createTopics(0, 100);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(99)), 10000);
    std::int64_t small = 0;
    measureOneChange("Probe_A", small);
    QVERIFY(!QTest::currentTestFailed());

    createTopics(100, 2000);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(1999)), 30000);
    std::int64_t large = 0;
    measureOneChange("Probe_B", large);
    QVERIFY(!QTest::currentTestFailed());

    qInfo("one topic change: %lld bytes on the wire with 100 topics, %lld with 2,000; a full "
          "registration body of 2,000: %lld",
        static_cast<long long>(small), static_cast<long long>(large),
        static_cast<long long>(m_broker->registrar().registerBody().size()));
    // Same-length names: only the DataVersion's digits may differ.
    QVERIFY2(std::abs(large - small) <= 16,
        qPrintable(QStringLiteral("%1 vs %2").arg(small).arg(large)));
    QVERIFY(small < 2048);
    QVERIFY(m_broker->registrar().registerBody().size() > 100 * small);
    // The name server merged the single topics: the others are all still routed.
    QVERIFY(routed(scaleTopic(0)));
    QVERIFY(routed("Probe_A"));
    QVERIFY(routed("TBW102"));
}

void tst_MetadataScale::burstCoalescesWhileARegistrationIsInFlight()
{
    startBroker();
    QVERIFY(m_broker);
    m_tap->reset();
    m_tap->setHold(true); // the name server "does not answer" yet
    createTopics(0, 300);
    // The first change went out; the 299 others wait for its answer.
    QTRY_COMPARE_WITH_TIMEOUT(m_tap->counts(kRegisterBroker).frames, std::int64_t(1), 5000);
    QTest::qWait(300); // a chance for a wrong implementation to send more
    QCOMPARE(m_tap->counts(kRegisterBroker).frames, std::int64_t(1));
    m_tap->setHold(false);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(299)), 10000);
    // One follow-up carried all 299.
    QCOMPARE(m_tap->counts(kRegisterBroker).frames, std::int64_t(2));
    QCOMPARE(m_broker->registrar().incrementalRegistrationsSent(), std::int64_t(2));
    for (int i : {0, 1, 150, 298})
        QVERIFY2(routed(scaleTopic(i)), scaleTopic(i).constData());
}

void tst_MetadataScale::queryDataVersionSkipsACurrentNameServer()
{
    startBroker([](broker::BrokerConfig &c) { c.forceRegister = false; });
    QVERIFY(m_broker);
    broker::NamesrvRegistrar &registrar = m_broker->registrar();

    // Current: one QUERY_DATA_VERSION, no REGISTER_BROKER.
    m_tap->reset();
    const std::int64_t skipped = registrar.registrationsSkipped();
    registrar.registerBrokerAll(false);
    QTRY_COMPARE_WITH_TIMEOUT(registrar.registrationsSkipped(), skipped + 1, 5000);
    QCOMPARE(m_tap->counts(kQueryDataVersion).frames, std::int64_t(1));
    QCOMPARE(m_tap->counts(kRegisterBroker).frames, std::int64_t(0));

    // An incremental registration carries the new DataVersion: still current afterwards.
    createTopics(0, 1);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(0)), 5000);
    registrar.registerBrokerAll(false);
    QTRY_COMPARE_WITH_TIMEOUT(registrar.registrationsSkipped(), skipped + 2, 5000);
    QCOMPARE(m_tap->counts(kRegisterBroker).frames, std::int64_t(1));

    // A version the name server has not seen: the query answers changed, a full registration
    // follows.
    const std::int64_t full = registrar.fullRegistrationsSent();
    m_broker->context().topics->nextDataVersion();
    registrar.registerBrokerAll(false);
    QTRY_VERIFY_WITH_TIMEOUT(registrar.fullRegistrationsSent() == full + 1 && quiet(), 5000);
    QCOMPARE(registrar.registrationsSkipped(), skipped + 2);
    QCOMPARE(m_tap->counts(kQueryDataVersion).frames, std::int64_t(3));
    QCOMPARE(m_tap->counts(kRegisterBroker).frames, std::int64_t(2));
}

void tst_MetadataScale::lateNotificationStillReachesTheNameServer()
{
    // Two changes whose notifications arrive out of order (threads): B first in the table, C's
    // registration first at the name server. B's late registration must still be taken, so it
    // carries B's own DataVersion: with the table's current one (C's, which the name server
    // already holds) RocketMQ's name server would ignore its topics.
    startBroker();
    QVERIFY(m_broker);
    broker::TopicConfigManager &topics = *m_broker->context().topics;
    broker::NamesrvRegistrar &registrar = m_broker->registrar();
    auto forward = [&registrar](const QByteArray &topic, const broker::DataVersion &version) {
        registrar.registerTopicsChanged({topic}, version);
    };
    topics.setChangeListener([](const QByteArray &) {}); // B's notification is late
    QVERIFY(topics.updateTopicConfig(broker::TopicConfig("Late_B", 2)));
    const broker::DataVersion versionB = topics.dataVersion();
    topics.setChangeListener(forward);
    QVERIFY(topics.updateTopicConfig(broker::TopicConfig("Late_C", 2)));
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed("Late_C"), 10000);
    QVERIFY(!routed("Late_B"));
    registrar.registerTopicsChanged({"Late_B"}, versionB);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed("Late_B"), 10000);
}

void tst_MetadataScale::nameServerThatLostTheBrokerGetsTheWholeTable()
{
    // The connection to the name server closes (it restarted; here the relay drops it, and the
    // name server removes the broker registered over it). The next change must not register
    // the broker with that one topic: it gets a full registration.
    startBroker();
    QVERIFY(m_broker);
    createTopics(0, 50);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(49)), 10000);
    m_tap->dropConnections();
    QTRY_VERIFY_WITH_TIMEOUT(!routed(scaleTopic(0)), 10000);
    const std::int64_t full = m_broker->registrar().fullRegistrationsSent();
    QVERIFY(m_broker->context().topics->updateTopicConfig(broker::TopicConfig("AfterDrop", 2)));
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed("AfterDrop"), 10000);
    QCOMPARE(m_broker->registrar().fullRegistrationsSent(), full + 1);
    for (int i : {0, 25, 49})
        QVERIFY2(routed(scaleTopic(i)), scaleTopic(i).constData());
    QVERIFY(routed("TBW102"));
}

void tst_MetadataScale::compressedRegistration()
{
    startBroker([](broker::BrokerConfig &c) { c.compressedRegister = true; });
    QVERIFY(m_broker);
    createTopics(0, 2000, 3);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed(scaleTopic(1999)), 30000);
    m_tap->reset();
    const std::int64_t full = m_broker->registrar().fullRegistrationsSent();
    m_broker->registrar().registerBrokerAll(true);
    QTRY_VERIFY_WITH_TIMEOUT(
        m_broker->registrar().fullRegistrationsSent() == full + 1 && quiet(), 10000);
    const FrameTap::Counts c = m_tap->counts(kRegisterBroker);
    const qsizetype json = m_broker->registrar().registerBody().size();
    qInfo("full registration of 2,000 topics: %lld bytes compressed, %lld as JSON",
        static_cast<long long>(c.bodyBytes), static_cast<long long>(json));
    QCOMPARE(c.frames, std::int64_t(1));
    QVERIFY(c.bodyBytes * 4 < json);
    // The name server decoded it: routes with the topics' queue counts.
    auto answer = m_client->invokeSync(m_nsAddr, request(105, {{"topic", scaleTopic(1234)}}), 5000);
    QVERIFY(answer && answer->code == 0);
    QVERIFY2(answer->body.contains("\"readQueueNums\":3"), answer->body.constData());
    // Incremental registrations are compressed too, and taken.
    QCOMPARE(callBroker(createTopicRequest("Probe_Z", 2)).code, 0);
    QTRY_VERIFY_WITH_TIMEOUT(quiet() && routed("Probe_Z"), 10000);
}

void tst_MetadataScale::killDuringTopicBurstKeepsAnsweredTopics()
{
    const QString store = m_dir.filePath(QStringLiteral("crash-store"));
    const QString conf = m_dir.filePath(QStringLiteral("crash.conf"));
    auto config = [&](quint16 port) {
        return "brokerName=broker-crash\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort="
            + QByteArray::number(port) + "\nstorePathRootDir=" + store.toUtf8()
            + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
    };
    testlib::DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY(testlib::startOnFreePort(broker, conf, port, config));
    const QByteArray addr = localAddr(port);

    // 200 creations in flight; the broker dies after at least 1,500 answers.
    constexpr int kTotal = 20000; // far more than are answered by the kill, even at 30,000/s
    constexpr int kWindow = 200;
    std::mutex mutex;
    std::set<QByteArray> answered; // guarded by mutex
    std::atomic<int> next {0};
    std::atomic<int> finished {0};
    std::function<void()> sendNext = [&] {
        const int i = next.fetch_add(1);
        if (i >= kTotal)
            return;
        const QByteArray topic = scaleTopic(i);
        m_client->invokeAsync(
            addr, createTopicRequest(topic), 15000, [&, topic](Result<RemotingCommand> r) {
                if (r && r->code == 0) {
                    std::lock_guard lock(mutex);
                    answered.insert(topic);
                }
                finished.fetch_add(1);
                if (r)
                    sendNext();
            });
    };
    for (int i = 0; i < kWindow; ++i)
        sendNext();
    QTRY_VERIFY_WITH_TIMEOUT(finished.load() >= 1500, 60000);
    broker.kill();
    // Every request still in flight fails with the connection; nothing new is sent after that.
    QTRY_COMPARE_WITH_TIMEOUT(finished.load(), std::min(next.load(), kTotal), 20000);
    std::set<QByteArray> acknowledged;
    {
        std::lock_guard lock(mutex);
        acknowledged = answered;
    }
    QVERIFY(acknowledged.size() >= 1500);
    QVERIFY2(acknowledged.size() < std::size_t(kTotal), "the kill came after the burst");

    // What the crash left: topics.json parses (or its backup, which is what load() then takes).
    const QString topicsJson = store + QStringLiteral("/config/topics.json");
    QFile file(topicsJson);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY2(protocol::parseJson(file.readAll()).has_value(), "torn topics.json");
    file.close();

    testlib::DaemonProcess restarted(QStringLiteral("qrocket-broker"));
    quint16 port2 = 0;
    QVERIFY(testlib::startOnFreePort(restarted, conf, port2, config));
    const RemotingCommand all = invoke(*m_client, localAddr(port2), request(21));
    QCOMPARE(all.code, 0);
    auto parsed = protocol::parseJson(all.body);
    QVERIFY(parsed.has_value());
    const protocol::JsonValue &table = (*parsed)["topicConfigTable"];
    QVERIFY(table.isObject());
    std::set<QByteArray> present;
    for (const auto &[key, value] : table.members())
        present.insert(key.toString());
    int missing = 0;
    for (const QByteArray &topic : acknowledged) {
        if (!present.contains(topic) && ++missing <= 5)
            qWarning("acknowledged but lost: %s", topic.constData());
    }
    QCOMPARE(missing, 0);
    qInfo("%zu creations answered before the kill, all present after the restart",
        acknowledged.size());

    // A clean stop writes the whole file and retires the journal.
    QCOMPARE(restarted.stop(), 0);
    QFile after(topicsJson);
    QVERIFY(after.open(QIODevice::ReadOnly));
    auto written = protocol::parseJson(after.readAll());
    QVERIFY(written.has_value());
    for (const QByteArray &topic : acknowledged)
        QVERIFY2(!(*written)["topicConfigTable"][topic].isNull(), topic.constData());
    QVERIFY(QDir(store + QStringLiteral("/config"))
                .entryList({QStringLiteral("topics.json.journal.*")}, QDir::Files)
                .isEmpty());
}

QTEST_GUILESS_MAIN(tst_MetadataScale)
#include "tst_metadatascale.moc"
