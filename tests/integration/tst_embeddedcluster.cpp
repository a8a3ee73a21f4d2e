// tst_EmbeddedCluster: QRocket::embedded as an application's test would use it: two brokers and
// a name server on port 0, routes for a created topic, raw blocking sends from the test thread,
// a broker stopped and started again on its store, clean destruction, and bad options.

#include "broker/config/brokerconfig.h"
#include "clientlib/embedded/embeddedcluster.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/headers/sendheaders.h"
#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/core/storeconfig.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace std::chrono_literals;
using qrocket::EmbeddedCluster;
using qrocket::EmbeddedClusterOptions;
using qrocket::Status;
using qrocket::protocol::RemotingCommand;
using qrocket::protocol::RequestCode;
using qrocket::protocol::ResponseCode;
using qrocket::protocol::toInt;

namespace {

const QString kTopic = QStringLiteral("EmbeddedTopic");

int threadCount()
{
    return static_cast<int>(QDir(QStringLiteral("/proc/self/task"))
                                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                .size());
}

/// A SEND_MESSAGE_V2 request for `topic`/`queueId`.
RemotingCommand sendRequest(const QString &topic, int queueId, const QByteArray &body)
{
    RemotingCommand request = RemotingCommand::createRequest(toInt(RequestCode::SendMessageV2));
    qrocket::protocol::SendMessageRequestHeader header;
    header.producerGroup = QByteArrayLiteral("PG_embedded");
    header.topic = topic.toUtf8();
    header.defaultTopic = QByteArrayLiteral("TBW102");
    header.defaultTopicQueueNums = 4;
    header.queueId = queueId;
    header.bornTimestamp = QDateTime::currentMSecsSinceEpoch();
    header.properties = QByteArrayLiteral("TAGS\x01tagA\x02WAIT\x01true");
    header.encode(request);
    request.body = body;
    return request;
}

/// Blocking send from the calling thread; the response code (or -1 with a warning).
int blockingSend(qrocket::remoting::RemotingClient &client, const QString &address,
    const QString &topic, int queueId, const QByteArray &body)
{
    auto response = client.invokeSync(address.toUtf8(), sendRequest(topic, queueId, body), 5000);
    if (!response) {
        qWarning().noquote() << "send to" << address << "failed:" << response.error().message();
        return -1;
    }
    if (response->code != 0)
        qWarning().noquote() << "send to" << address << "answered" << response->code
                             << response->remark;
    return response->code;
}

/// GET_MAX_OFFSET of `topic`/`queueId` on `address`; -1 on failure. The consume queue follows the
/// commit log asynchronously (the reput service), so callers poll it (QTRY_COMPARE).
qint64 maxOffset(qrocket::remoting::RemotingClient &client, const QString &address,
    const QString &topic, int queueId)
{
    RemotingCommand request = RemotingCommand::createRequest(toInt(RequestCode::GetMaxOffset));
    request.setExt(QByteArrayLiteral("topic"), topic.toUtf8());
    request.setExt(QByteArrayLiteral("queueId"), std::int64_t(queueId));
    auto response = client.invokeSync(address.toUtf8(), std::move(request), 5000);
    if (!response || response->code != 0)
        return -1;
    return response->extString("offset").toLongLong();
}

bool routeLists(const qrocket::protocol::TopicRouteData &route, const QString &brokerName)
{
    for (const auto &q : route.queueDatas)
        if (q.brokerName == brokerName.toUtf8())
            return true;
    for (const auto &b : route.brokerDatas)
        if (b.brokerName == brokerName.toUtf8())
            return true;
    return false;
}

} // namespace

class tst_EmbeddedCluster : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void rejectsBadOptions_data();
    void rejectsBadOptions();
    void rejectsUnwritableStoreRoot();
    void startsTwoBrokersWithRoutes();
    void blockingSendsFromTheTestThread();
    void stopBrokerDropsItsRoute();
    void startBrokerBringsItBackWithItsData();
    void destructionRemovesStoreAndThreads();
    void keepsAGivenRootWithSyncFlush();

private:
    int m_baselineThreads = 0;
    std::unique_ptr<EmbeddedCluster> m_cluster;
    int m_sentToSecond = 0; // messages stored in broker-1's queue 0
};

void tst_EmbeddedCluster::initTestCase()
{
    m_baselineThreads = threadCount();
    QVERIFY(m_baselineThreads > 0);
}

void tst_EmbeddedCluster::rejectsBadOptions_data()
{
    QTest::addColumn<int>("brokers");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("expected");
    QTest::addRow("zero brokers") << 0 << QStringLiteral("broker")
                                  << QStringLiteral("brokerCount must be 1..64 (got 0)");
    QTest::addRow("too many brokers")
        << 65 << QStringLiteral("broker") << QStringLiteral("brokerCount must be 1..64 (got 65)");
    QTest::addRow("bad broker name") << 1 << QStringLiteral("no spaces")
                                     << QStringLiteral("brokerName: 'no spaces-0' must match");
}

void tst_EmbeddedCluster::rejectsBadOptions()
{
    QFETCH(int, brokers);
    QFETCH(QString, prefix);
    QFETCH(QString, expected);
    EmbeddedClusterOptions options;
    options.brokerCount = brokers;
    options.brokerNamePrefix = prefix;
    QString root;
    {
        EmbeddedCluster cluster(options);
        const Status st = cluster.start();
        QVERIFY(!st.isOk());
        QVERIFY2(st.message().contains(expected), qPrintable(st.message()));
        QVERIFY(!cluster.isRunning());
        QVERIFY(!cluster.start().isOk()); // once only
        root = cluster.storeRoot();
    }
    if (!root.isEmpty())
        QVERIFY2(!QFileInfo::exists(root), qPrintable(root)); // a failed start cleans up too
}

void tst_EmbeddedCluster::rejectsUnwritableStoreRoot()
{
    // A root below a regular file can never be created (whatever the user, root included).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("plain-file"));
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    EmbeddedClusterOptions options;
    options.storeRoot = QDir(file).filePath(QStringLiteral("store"));
    EmbeddedCluster cluster(options);
    const Status st = cluster.start();
    QCOMPARE(st.code(), Status::Code::IoError);
    QVERIFY2(st.message().contains(QStringLiteral("cannot create the store root")),
        qPrintable(st.message()));
    QVERIFY(cluster.namesrvAddress().isEmpty());
}

void tst_EmbeddedCluster::startsTwoBrokersWithRoutes()
{
    EmbeddedClusterOptions options;
    options.brokerCount = 2;
    options.clusterName = QStringLiteral("EmbeddedCluster");
    m_cluster = std::make_unique<EmbeddedCluster>(options);
    QCOMPARE(m_cluster->brokerCount(), 2);
    QCOMPARE(m_cluster->brokerName(1), QStringLiteral("broker-1"));
    const Status st = m_cluster->start();
    QVERIFY2(st.isOk(), qPrintable(st.message()));
    QVERIFY(m_cluster->isRunning());

    QVERIFY(m_cluster->namesrvAddress().startsWith(QStringLiteral("127.0.0.1:")));
    QVERIFY(!m_cluster->namesrvAddress().endsWith(QStringLiteral(":0")));
    for (int i = 0; i < 2; ++i) {
        QVERIFY(m_cluster->isBrokerRunning(i));
        QVERIFY(m_cluster->brokerAddress(i).startsWith(QStringLiteral("127.0.0.1:")));
        QVERIFY(QFileInfo(m_cluster->brokerStorePath(i)).isDir());
        QVERIFY(m_cluster->brokerStorePath(i).startsWith(m_cluster->storeRoot()));
    }
    QVERIFY(m_cluster->brokerAddress(0) != m_cluster->brokerAddress(1));
    QVERIFY(m_cluster->brokerName(2).isEmpty());

    QCOMPARE(m_cluster->topicRoute(kTopic).error().code(), Status::Code::NotFound);
    QVERIFY(m_cluster->createTopic(kTopic, 4).isOk());
    QElapsedTimer timer;
    timer.start();
    const Status routed = m_cluster->waitForRoute(kTopic, 10s);
    QVERIFY2(routed.isOk(), qPrintable(routed.message()));
    qInfo() << "route for both brokers after" << timer.elapsed() << "ms";

    const auto route = m_cluster->topicRoute(kTopic);
    QVERIFY2(route.has_value(), qPrintable(route.status().message()));
    QCOMPARE(route->brokerDatas.size(), std::size_t(2));
    for (const auto &q : route->queueDatas)
        QCOMPARE(q.writeQueueNums, 4);
    for (const auto &b : route->brokerDatas)
        QCOMPARE(b.cluster, QByteArrayLiteral("EmbeddedCluster"));

    QCOMPARE(m_cluster->createTopic(QStringLiteral("bad topic"), 4).code(),
        Status::Code::InvalidArgument);
    QCOMPARE(m_cluster->createTopic(kTopic, 0).code(), Status::Code::InvalidArgument);
}

void tst_EmbeddedCluster::blockingSendsFromTheTestThread()
{
    QVERIFY(m_cluster);
    // invokeSync blocks this thread until the broker answers: the brokers run on the cluster's
    // own thread, so every call completes (on the test thread they would all time out).
    qrocket::remoting::RemotingClient client;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 20; ++i) {
        QCOMPARE(blockingSend(client, m_cluster->brokerAddress(0), kTopic, 0, "first"), 0);
        QCOMPARE(blockingSend(client, m_cluster->brokerAddress(1), kTopic, 0, "second"), 0);
        ++m_sentToSecond;
    }
    qInfo() << "40 blocking sends in" << timer.elapsed() << "ms";
    QTRY_COMPARE_WITH_TIMEOUT(
        maxOffset(client, m_cluster->brokerAddress(1), kTopic, 0), qint64(m_sentToSecond), 5000);
    // The test thread sleeping does not stall the brokers either.
    QThread::msleep(300);
    QCOMPARE(blockingSend(client, m_cluster->brokerAddress(0), kTopic, 1, "after a sleep"), 0);
}

void tst_EmbeddedCluster::stopBrokerDropsItsRoute()
{
    QVERIFY(m_cluster);
    const QString stoppedAddress = m_cluster->brokerAddress(1);
    QElapsedTimer timer;
    timer.start();
    QVERIFY(m_cluster->stopBroker(1).isOk());
    QVERIFY(!m_cluster->isBrokerRunning(1));
    QCOMPARE(m_cluster->brokerAddress(1), stoppedAddress); // the last address stays readable
    QVERIFY(m_cluster->stopBroker(1).isOk()); // already stopped: fine
    const Status routed = m_cluster->waitForRoute(kTopic, 15s);
    QVERIFY2(routed.isOk(), qPrintable(routed.message()));
    qInfo() << "route without broker-1 after" << timer.elapsed() << "ms";

    const auto route = m_cluster->topicRoute(kTopic);
    QVERIFY(route.has_value());
    QVERIFY(!routeLists(*route, QStringLiteral("broker-1")));
    QVERIFY(routeLists(*route, QStringLiteral("broker-0")));

    qrocket::remoting::RemotingClient client;
    QCOMPARE(blockingSend(client, m_cluster->brokerAddress(0), kTopic, 0, "still up"), 0);
    auto refused = client.invokeSync(stoppedAddress.toUtf8(), sendRequest(kTopic, 0, "x"), 2000);
    QVERIFY(!refused.has_value());

    QCOMPARE(m_cluster->stopBroker(7).code(), Status::Code::InvalidArgument);
    QVERIFY(m_cluster->createTopic(QStringLiteral("OnlyOnBroker0"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("OnlyOnBroker0"), 10s).isOk());
}

void tst_EmbeddedCluster::startBrokerBringsItBackWithItsData()
{
    QVERIFY(m_cluster);
    const QString oldAddress = m_cluster->brokerAddress(1);
    QVERIFY(QFileInfo(m_cluster->brokerStorePath(1)).isDir()); // the store stayed
    const Status started = m_cluster->startBroker(1);
    QVERIFY2(started.isOk(), qPrintable(started.message()));
    QVERIFY(m_cluster->isBrokerRunning(1));
    QVERIFY(m_cluster->startBroker(1).isOk()); // already running: fine
    qInfo().noquote() << "broker-1 restarted at" << m_cluster->brokerAddress(1) << "(was"
                      << oldAddress << ")";
    const Status routed = m_cluster->waitForRoute(kTopic, 10s);
    QVERIFY2(routed.isOk(), qPrintable(routed.message()));

    qrocket::remoting::RemotingClient client;
    QTRY_COMPARE_WITH_TIMEOUT(
        maxOffset(client, m_cluster->brokerAddress(1), kTopic, 0), qint64(m_sentToSecond), 5000);
    QCOMPARE(blockingSend(client, m_cluster->brokerAddress(1), kTopic, 0, "after restart"), 0);
    QTRY_COMPARE_WITH_TIMEOUT(maxOffset(client, m_cluster->brokerAddress(1), kTopic, 0),
        qint64(m_sentToSecond + 1), 5000);
}

void tst_EmbeddedCluster::destructionRemovesStoreAndThreads()
{
    QVERIFY(m_cluster);
    const QString root = m_cluster->storeRoot();
    QVERIFY(QFileInfo(root).isDir());
    QVERIFY(threadCount() > m_baselineThreads);
    QElapsedTimer timer;
    timer.start();
    m_cluster.reset();
    qInfo() << "destroyed in" << timer.elapsed() << "ms";
    QVERIFY2(!QFileInfo::exists(root), qPrintable(root));
    // Joined threads leave /proc/self/task at once; allow the kernel a moment.
    QTRY_VERIFY_WITH_TIMEOUT(threadCount() <= m_baselineThreads, 5000);
}

void tst_EmbeddedCluster::keepsAGivenRootWithSyncFlush()
{
    QTemporaryDir parent;
    QVERIFY(parent.isValid());
    const QString root = parent.filePath(QStringLiteral("given/store"));
    EmbeddedClusterOptions options;
    options.storeRoot = root;
    options.flushMode = qrocket::FlushMode::Sync;
    options.brokerNamePrefix = QStringLiteral("sync");
    // The callback runs on the cluster thread: it records, the test thread checks.
    QString flushType;
    QString configuredName;
    int configuredIndex = -1;
    Status reentry;
    EmbeddedCluster *self = nullptr;
    options.configureBroker = [&](int index, qrocket::broker::BrokerConfig &config,
                                  qrocket::storage::MessageStoreConfig &storeConfig) {
        configuredIndex = index;
        configuredName = config.brokerName;
        flushType = storeConfig.flushDiskType;
        config.defaultTopicQueueNums = 2;
        reentry = self->createTopic(QStringLiteral("Reentrant"), 1); // refused on its thread
    };
    {
        EmbeddedCluster cluster(options);
        self = &cluster;
        const Status st = cluster.start();
        QVERIFY2(st.isOk(), qPrintable(st.message()));
        QCOMPARE(configuredIndex, 0);
        QCOMPARE(configuredName, QStringLiteral("sync-0"));
        QCOMPARE(flushType, QStringLiteral("SYNC_FLUSH"));
        QCOMPARE(reentry.code(), Status::Code::Internal);
        QCOMPARE(cluster.storeRoot(), root);
        QCOMPARE(cluster.brokerStorePath(0), QDir(root).filePath(QStringLiteral("sync-0")));

        // autoCreateTopicEnable (default): a send to an unknown topic creates it.
        qrocket::remoting::RemotingClient client;
        QCOMPARE(blockingSend(
                     client, cluster.brokerAddress(0), QStringLiteral("AutoCreated"), 0, "synced"),
            0);
        QTRY_COMPARE_WITH_TIMEOUT(
            maxOffset(client, cluster.brokerAddress(0), QStringLiteral("AutoCreated"), 0),
            qint64(1), 5000);
    }
    QVERIFY(QFileInfo(QDir(root).filePath(QStringLiteral("sync-0/commitlog"))).isDir());
    QTRY_VERIFY_WITH_TIMEOUT(threadCount() <= m_baselineThreads, 5000);
}

QTEST_GUILESS_MAIN(tst_EmbeddedCluster)
#include "tst_embeddedcluster.moc"
