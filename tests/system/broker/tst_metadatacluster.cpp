// Metadata at scale with real processes (issue 30): qrocket-namesrv and two qrocket-broker
// processes of one cluster; QROCKET_SCALE_TOPICS topics (default 100,000, the size) and
// QROCKET_SCALE_GROUPS subscription groups (default half the topics) created on both brokers
// through pipelined UPDATE_AND_CREATE_TOPIC / UPDATE_AND_CREATE_SUBSCRIPTIONGROUP. Prints the
// creation rate as the table grows (at 1k, 10k, 100k existing topics), the name server's RSS and
// CPU time. Asserts: every topic and group is on both brokers and every topic in the name
// server's topic list; the name server's peak RSS stays under 300 MB; the real qrocket-admin
// topicList and clusterList finish within a bound; a broker killed (SIGKILL) and restarted
// listens within a bound and still has every topic and group. ~100 s at the default size on a
// shared 2-core machine; a quicker run by hand:
//   QROCKET_SCALE_TOPICS=20000 ctest -R '^tst_metadatacluster$' -V

#include "clientlib/protocol/json.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/metadataload.h"

#include <QDir>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <set>

using namespace qrocket;
using namespace qrocket::brokertest;
using testlib::DaemonProcess;

namespace {

constexpr int kQueues = 4;
constexpr int kWindow = 200; // requests in flight per pipeline (as qrocket-bench-metadata)
/// The target with two brokers holding the whole table.
constexpr qint64 kNamesrvRssLimitKib = 300 * 1024;

QByteArray topicName(int i)
{
    return "ScaleTopic_" + QByteArray::number(i).rightJustified(6, '0');
}

QByteArray groupName(int i)
{
    return "ScaleGroup_" + QByteArray::number(i).rightJustified(6, '0');
}

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok && v > 0 ? v : fallback;
}

/// The keys of `member` (an object) of a JSON body.
std::set<QByteArray> keysOf(const QByteArray &body, const char *member)
{
    std::set<QByteArray> out;
    auto parsed = protocol::parseJson(body);
    if (!parsed)
        return out;
    const protocol::JsonValue &table = (*parsed)[member];
    for (const auto &[key, value] : table.members())
        out.insert(key.toString());
    return out;
}

/// The strings of a JSON body's array `member` (the name server's {"topicList":[...]}).
std::set<QByteArray> stringsOf(const QByteArray &body, const char *member)
{
    std::set<QByteArray> out;
    auto parsed = protocol::parseJson(body);
    if (!parsed)
        return out;
    for (const protocol::JsonValue &v : (*parsed)[member].items())
        out.insert(v.toString());
    return out;
}

} // namespace

class tst_MetadataCluster final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void createTopicsOnBothBrokers();
    void createGroupsOnBothBrokers();
    void everythingIsOnBothBrokersAndTheNameServer();
    void nameServerRssStaysBounded();
    void adminToolsStayFast();
    void brokerKilledAndRestartedKeepsEverything();

private:
    QByteArray brokerConfig(int b, quint16 port) const;
    /// Missing names of `expected` (0 .. count) in `present`, the first few logged.
    static int missing(
        const std::set<QByteArray> &present, int count, QByteArray (*name)(int), const char *where);
    void drainOutput();

    QTemporaryDir m_dir;
    int m_topics = 0;
    int m_groups = 0;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    std::array<std::unique_ptr<DaemonProcess>, 2> m_brokers;
    std::array<quint16, 2> m_brokerPorts {};
    QByteArray m_nsAddr;
    std::unique_ptr<remoting::RemotingClient> m_client;
    qint64 m_nsCpuBefore = 0;
};

QByteArray tst_MetadataCluster::brokerConfig(int b, quint16 port) const
{
    const QString store = m_dir.filePath(QStringLiteral("store-%1").arg(b));
    return "brokerClusterName=ScaleCluster\nbrokerName=scale-" + QByteArray(1, char('a' + b))
        + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\nlistenPort=" + QByteArray::number(port)
        + "\nnamesrvAddr=" + m_nsAddr + "\nstorePathRootDir=" + store.toUtf8()
        + "\nmappedFileSizeCommitLog=16777216\nmappedFileSizeConsumeQueue=60000\n";
}

void tst_MetadataCluster::drainOutput()
{
    // Keeps the daemons' pipes read (and their output for a failure report).
    m_namesrv.output();
    for (auto &b : m_brokers) {
        if (b)
            b->output();
    }
}

int tst_MetadataCluster::missing(
    const std::set<QByteArray> &present, int count, QByteArray (*name)(int), const char *where)
{
    int n = 0;
    for (int i = 0; i < count; ++i) {
        if (!present.contains(name(i)) && ++n <= 5)
            qWarning("%s lacks %s", where, name(i).constData());
    }
    return n;
}

void tst_MetadataCluster::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    m_topics = envInt("QROCKET_SCALE_TOPICS", 100000);
    m_groups = envInt("QROCKET_SCALE_GROUPS", m_topics / 2);
    qInfo("%d topics (%d queues each) and %d subscription groups on each of two brokers", m_topics,
        kQueues, m_groups);
    const quint16 nsPort = testlib::startNamesrv(m_namesrv, m_dir.path());
    QVERIFY2(nsPort != 0, qPrintable(m_namesrv.error()));
    m_nsAddr = localAddr(nsPort);
    for (int b = 0; b < 2; ++b) {
        m_brokers[b] = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
        QVERIFY(testlib::startOnFreePort(*m_brokers[b],
            m_dir.filePath(QStringLiteral("broker-%1.conf").arg(b)), m_brokerPorts[b],
            [&](quint16 port) { return brokerConfig(b, port); }));
    }
    m_client = std::make_unique<remoting::RemotingClient>();
    // Both brokers registered: the cluster lists both.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const RemotingCommand info = invoke(*m_client, m_nsAddr, request(106), 5000);
            return info.code == 0 && info.body.contains("scale-a") && info.body.contains("scale-b");
        }(),
        20000);
    m_nsCpuBefore = testlib::cpuMs(m_namesrv.pid());
    qInfo(
        "name server before: RSS %.1f MB", testlib::statusKib(m_namesrv.pid(), "VmRSS:") / 1024.0);
}

void tst_MetadataCluster::cleanupTestCase()
{
    if (m_client)
        m_client->shutdown();
    for (auto &b : m_brokers) {
        if (b && b->isRunning())
            b->stop();
    }
    if (m_namesrv.isRunning())
        m_namesrv.stop();
}

void tst_MetadataCluster::createTopicsOnBothBrokers()
{
    // Topic i goes to both brokers (request 2i to a, 2i + 1 to b), in chunks of 1,000 topics so
    // that the rate can be told as the table grows.
    const std::array<QByteArray, 2> addrs {
        localAddr(m_brokerPorts[0]), localAddr(m_brokerPorts[1])};
    constexpr int kChunk = 1000;
    QElapsedTimer total;
    total.start();
    qInfo("%10s %14s %10s %12s", "existing", "creations/s", "ns RSS MB", "ns CPU s");
    for (int from = 0; from < m_topics; from += kChunk) {
        const int n = std::min(kChunk, m_topics - from);
        const testlib::PipelineResult r = testlib::pipeline(
            *m_client, 2 * n, kWindow,
            [&](int i) {
                return std::make_pair(
                    addrs[i % 2], testlib::createTopicRequest(topicName(from + i / 2), kQueues));
            },
            120000);
        drainOutput();
        QVERIFY2(r.finished, "creations timed out");
        QVERIFY2(r.failed == 0, r.firstFailure.constData());
        // The rate of the 1,000 creations made with 0, 1k, 10k, 100k topics existing and of the
        // last 1,000.
        if (from == 0 || from == 1000 || from == 10000 || from == 100000 || from + n == m_topics)
            qInfo("%10d %14.0f %10.1f %12.1f", from,
                2 * n * 1000.0 / std::max<qint64>(1, r.elapsedMs),
                testlib::statusKib(m_namesrv.pid(), "VmRSS:") / 1024.0,
                (testlib::cpuMs(m_namesrv.pid()) - m_nsCpuBefore) / 1000.0);
    }
    qInfo("%d topics on two brokers in %.1f s: %.0f creations/s overall", m_topics,
        total.elapsed() / 1000.0, 2.0 * m_topics * 1000.0 / std::max<qint64>(1, total.elapsed()));
}

void tst_MetadataCluster::createGroupsOnBothBrokers()
{
    const std::array<QByteArray, 2> addrs {
        localAddr(m_brokerPorts[0]), localAddr(m_brokerPorts[1])};
    const testlib::PipelineResult r = testlib::pipeline(
        *m_client, 2 * m_groups, kWindow,
        [&](int i) {
            return std::make_pair(addrs[i % 2], testlib::createGroupRequest(groupName(i / 2)));
        },
        10 * 60 * 1000);
    drainOutput();
    QVERIFY2(r.finished, "creations timed out");
    QVERIFY2(r.failed == 0, r.firstFailure.constData());
    qInfo("%d subscription groups on two brokers in %.1f s: %.0f creations/s", m_groups,
        r.elapsedMs / 1000.0, 2.0 * m_groups * 1000.0 / std::max<qint64>(1, r.elapsedMs));
}

void tst_MetadataCluster::everythingIsOnBothBrokersAndTheNameServer()
{
    for (int b = 0; b < 2; ++b) {
        const QByteArray addr = localAddr(m_brokerPorts[b]);
        const RemotingCommand topics = invoke(*m_client, addr, request(21), 60000);
        QCOMPARE(topics.code, 0);
        QCOMPARE(
            missing(keysOf(topics.body, "topicConfigTable"), m_topics, topicName, addr.constData()),
            0);
        const RemotingCommand groups = invoke(*m_client, addr, request(201), 60000);
        QCOMPARE(groups.code, 0);
        QCOMPARE(missing(keysOf(groups.body, "subscriptionGroupTable"), m_groups, groupName,
                     addr.constData()),
            0);
    }
    // The name server has every topic once the last registrations arrived (bounded).
    QElapsedTimer t;
    t.start();
    int lacking = -1;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const RemotingCommand list = invoke(*m_client, m_nsAddr, request(206), 60000);
            if (list.code != 0)
                return false;
            const std::set<QByteArray> present = stringsOf(list.body, "topicList");
            lacking = 0;
            for (int i = 0; i < m_topics; ++i)
                lacking += present.contains(topicName(i)) ? 0 : 1;
            return lacking == 0;
        }(),
        60000);
    qInfo("name server lists every topic %.1f s after the last creation was checked",
        t.elapsed() / 1000.0);
    // And routes the last one to both brokers.
    const RemotingCommand route
        = invoke(*m_client, m_nsAddr, request(105, {{"topic", topicName(m_topics - 1)}}));
    QCOMPARE(route.code, 0);
    QVERIFY2(
        route.body.contains("scale-a") && route.body.contains("scale-b"), route.body.constData());
}

void tst_MetadataCluster::nameServerRssStaysBounded()
{
    const qint64 pid = m_namesrv.pid();
    const qint64 peak = testlib::statusKib(pid, "VmHWM:");
    const qint64 now = testlib::statusKib(pid, "VmRSS:");
    qInfo("name server: RSS now %.1f MB, peak (VmHWM) %.1f MB; CPU %.1f s since the brokers "
          "registered; brokers' peak RSS %.1f / %.1f MB",
        now / 1024.0, peak / 1024.0, (testlib::cpuMs(pid) - m_nsCpuBefore) / 1000.0,
        testlib::statusKib(m_brokers[0]->pid(), "VmHWM:") / 1024.0,
        testlib::statusKib(m_brokers[1]->pid(), "VmHWM:") / 1024.0);
    QVERIFY(peak > 0);
    QVERIFY2(peak < kNamesrvRssLimitKib, qPrintable(QStringLiteral("%1 KiB").arg(peak)));
}

void tst_MetadataCluster::adminToolsStayFast()
{
    // Bounds: at 100,000 topics on two brokers, measured on a shared 2-core machine (load
    // average 12): topicList 0.27-0.38 s, clusterList 0.02-0.5 s. 5 s plus 1 ms per 100 topics
    // leaves a busier machine room while a cost per topic per request (a route lookup per topic,
    // a quadratic walk) would still fail it.
    const int boundMs = 5000 + m_topics / 100;
    const QString admin = QDir(testlib::binDir()).filePath(QStringLiteral("qrocket-admin"));
    const QString ns = QString::fromLatin1(m_nsAddr);
    {
        QElapsedTimer t;
        t.start();
        auto [code, out] = testlib::runProgram(
            admin, {QStringLiteral("topicList"), QStringLiteral("-n"), ns}, 4 * boundMs);
        const qint64 ms = t.elapsed();
        QCOMPARE(code, 0);
        int found = 0;
        for (const QByteArray &line : out.split('\n'))
            found += line.trimmed().startsWith("ScaleTopic_") ? 1 : 0;
        QCOMPARE(found, m_topics);
        qInfo("qrocket-admin topicList: %d topics in %lld ms (bound %d ms)", found,
            static_cast<long long>(ms), boundMs);
        QVERIFY(ms < boundMs);
    }
    {
        QElapsedTimer t;
        t.start();
        auto [code, out] = testlib::runProgram(
            admin, {QStringLiteral("clusterList"), QStringLiteral("-n"), ns}, 4 * boundMs);
        const qint64 ms = t.elapsed();
        QCOMPARE(code, 0);
        QVERIFY2(out.contains("scale-a") && out.contains("scale-b"), out.constData());
        qInfo("qrocket-admin clusterList: %lld ms (bound %d ms)", static_cast<long long>(ms),
            boundMs);
        QVERIFY(ms < boundMs);
    }
    drainOutput();
}

void tst_MetadataCluster::brokerKilledAndRestartedKeepsEverything()
{
    // SIGKILL: no clean shutdown writes the tables; the restart loads what the journal kept.
    m_brokers[0]->kill();
    auto restarted = std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker"));
    QElapsedTimer t;
    t.start();
    // The same port first (the name server knows that address), a fresh one if it is taken.
    QVERIFY(testlib::startOnFreePort(*restarted, m_dir.filePath(QStringLiteral("broker-0.conf")),
        m_brokerPorts[0], [&](quint16 port) { return brokerConfig(0, port); }));
    const qint64 listenMs = t.elapsed();
    m_brokers[0] = std::move(restarted);
    // The target is 2 s at 100,000 topics and 50,000 groups: measured 1.7 s on a shared
    // 2-core machine, 4.1 s when its load average was 12. The bound (9 s at that size) keeps CI's
    // busy machines from failing it while a start-up that re-registers or re-parses per topic
    // (tens of seconds) still fails.
    const int boundMs = 5000 + m_topics / 25;
    qInfo("broker restarted after kill -9 with %d topics and %d groups: listening after %lld ms "
          "(bound %d ms)",
        m_topics, m_groups, static_cast<long long>(listenMs), boundMs);
    QVERIFY(listenMs < boundMs);

    const QByteArray addr = localAddr(m_brokerPorts[0]);
    const RemotingCommand topics = invoke(*m_client, addr, request(21), 60000);
    QCOMPARE(topics.code, 0);
    QCOMPARE(
        missing(keysOf(topics.body, "topicConfigTable"), m_topics, topicName, addr.constData()), 0);
    const RemotingCommand groups = invoke(*m_client, addr, request(201), 60000);
    QCOMPARE(groups.code, 0);
    QCOMPARE(missing(keysOf(groups.body, "subscriptionGroupTable"), m_groups, groupName,
                 addr.constData()),
        0);
    // And it registers again: the cluster lists it.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const RemotingCommand info = invoke(*m_client, m_nsAddr, request(106), 5000);
            return info.code == 0 && info.body.contains(addr);
        }(),
        30000);
    drainOutput();
}

QTEST_GUILESS_MAIN(tst_MetadataCluster)
#include "tst_metadatacluster.moc"
