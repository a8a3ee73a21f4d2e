#include "clientlib/embedded/embeddedcluster.h"

#include "broker/brokercontroller.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "clientlib/common/tsanannotations.h"
#include "clientlib/protocol/bodies/routebodies.h"
#include "clientlib/protocol/headers/namesrvheaders.h"
#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/protocol/requestcode.h"
#include "clientlib/protocol/responsecode.h"
#include "clientlib/remoting/remotingclient.h"
#include "namesrv/namesrvconfig.h"
#include "namesrv/namesrvcontroller.h"
#include "storage/core/storeconfig.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

Q_LOGGING_CATEGORY(lcEmbedded, "qrocket.embedded", QtInfoMsg)

namespace qrocket {

namespace {

using namespace std::chrono_literals;
using protocol::RemotingCommand;

constexpr int kMaxBrokers = 64;
// A valid placeholder for BrokerConfig::validate(); the real port is set afterwards.
constexpr int kPlaceholderPort = 10911;

QString localAddress(quint16 port)
{
    return QStringLiteral("127.0.0.1:%1").arg(port);
}

Status prefixed(const QString &part, const Status &st)
{
    return Status(st.code(), QStringLiteral("EmbeddedCluster: %1: %2").arg(part, st.message()));
}

/// Like QTest::qWait: processes the calling thread's events (when it has an event loop) for
/// `duration`, else sleeps.
void pauseFor(std::chrono::milliseconds duration)
{
    QDeadlineTimer timer(duration);
    if (!QCoreApplication::instance() || !QThread::currentThread()->eventDispatcher()) {
        QThread::msleep(static_cast<unsigned long>(duration.count()));
        return;
    }
    do {
        QCoreApplication::processEvents(
            QEventLoop::AllEvents, static_cast<int>(std::max<qint64>(timer.remainingTime(), 0)));
        const qint64 remaining = timer.remainingTime();
        if (remaining <= 0)
            break;
        QThread::msleep(static_cast<unsigned long>(std::min<qint64>(10, remaining)));
    } while (!timer.hasExpired());
}

/// A short description of a route for error messages: "broker-0@127.0.0.1:1234(4q) ...".
QString describe(const protocol::TopicRouteData &route)
{
    QStringList parts;
    for (const protocol::BrokerData &b : route.brokerDatas) {
        int queues = 0;
        for (const protocol::QueueData &q : route.queueDatas)
            if (q.brokerName == b.brokerName)
                queues = q.writeQueueNums;
        parts.append(QStringLiteral("%1@%2(%3q)")
                         .arg(QString::fromUtf8(b.brokerName), QString::fromUtf8(b.masterAddr()))
                         .arg(queues));
    }
    return parts.isEmpty() ? QStringLiteral("(no broker)") : parts.join(u' ');
}

} // namespace

struct EmbeddedCluster::Private : std::enable_shared_from_this<EmbeddedCluster::Private>
{
    struct Broker
    {
        QString name; // constant
        QString storePath; // guarded by stateMutex (set once by start())
        QString address; // guarded by stateMutex
        bool running = false; // guarded by stateMutex
        quint16 port = 0; // last bound port; cluster thread only
        std::unique_ptr<broker::BrokerController> controller; // cluster thread only
    };
    /// The expected state of one broker, for waitForRoute().
    struct Expected
    {
        QByteArray name;
        QByteArray address;
        bool running = false;
    };

    explicit Private(Options o) : options(std::move(o))
    {
        const int count = std::clamp(options.brokerCount, 0, kMaxBrokers);
        brokers.resize(static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i)
            brokers[static_cast<std::size_t>(i)].name
                = QStringLiteral("%1-%2").arg(options.brokerNamePrefix).arg(i);
    }

    bool onClusterThread() const { return thread.load() && QThread::currentThread() == thread; }
    Broker *slot(int index)
    {
        if (index < 0 || index >= static_cast<int>(brokers.size()))
            return nullptr;
        return &brokers[static_cast<std::size_t>(index)];
    }
    const Broker *slot(int index) const { return const_cast<Private *>(this)->slot(index); }

    Status checkOptions() const;
    Status prepareStoreRoot(); // opMutex held
    /// Runs `task` on the cluster thread and waits at most `timeout` (default operationTimeout)
    /// for it. opMutex held.
    Status run(std::function<Status()> task, std::chrono::milliseconds timeout = {});
    void stopLocked(); // opMutex held

    // Cluster thread only.
    Status startAll();
    Status startNamesrv();
    Status startBroker(int index, quint16 port);
    void stopBroker(int index);
    Status stopAll();
    Status createTopic(const QByteArray &topic, int queueNums);

    std::vector<Expected> expected() const;
    /// Every running broker in `route` at its address with write queues, no stopped one.
    bool routeMatches(const protocol::TopicRouteData &route) const;

    const Options options;
    std::mutex opMutex; // serialises start/stop/stopBroker/startBroker/createTopic
    mutable std::mutex stateMutex;
    bool startCalled = false; // guarded by opMutex
    bool running = false; // guarded by stateMutex
    QString root; // written once by start() before the cluster thread starts; then read-only
    QString namesrvAddress; // guarded by stateMutex
    std::shared_ptr<remoting::RemotingClient> client; // guarded by stateMutex
    std::vector<Broker> brokers; // the size is constant; fields as marked
    std::unique_ptr<QTemporaryDir> tempDir; // guarded by opMutex
    std::atomic<QThread *> thread {nullptr}; // written under opMutex
    QObject *context = nullptr; // lives on `thread`; guarded by opMutex
    std::unique_ptr<namesrv::NamesrvController> namesrv; // cluster thread only
};

Status EmbeddedCluster::Private::checkOptions() const
{
    if (options.brokerCount < 1 || options.brokerCount > kMaxBrokers)
        return Status::invalidArgument(
            QStringLiteral("EmbeddedCluster: brokerCount must be 1..%1 (got %2)")
                .arg(kMaxBrokers)
                .arg(options.brokerCount));
    if (options.operationTimeout < 100ms)
        return Status::invalidArgument(
            QStringLiteral("EmbeddedCluster: operationTimeout must be at least 100 ms"));
    if (!QCoreApplication::instance())
        return Status::internal(
            QStringLiteral("EmbeddedCluster: start() needs a QCoreApplication (the cluster thread "
                           "runs an event loop)"));
    return {};
}

Status EmbeddedCluster::Private::prepareStoreRoot()
{
    QString path;
    if (options.storeRoot.isEmpty()) {
        tempDir = std::make_unique<QTemporaryDir>(
            QDir(QDir::tempPath()).filePath(QStringLiteral("qrocket-embedded-XXXXXX")));
        if (!tempDir->isValid())
            return Status::ioError(
                QStringLiteral("EmbeddedCluster: cannot create a temporary store under %1: %2")
                    .arg(QDir::tempPath(), tempDir->errorString()));
        path = tempDir->path();
    } else {
        path = QDir(options.storeRoot).absolutePath();
        if (!QDir().mkpath(path))
            return Status::ioError(
                QStringLiteral("EmbeddedCluster: cannot create the store root '%1'").arg(path));
        // Root ignores permission bits: a real write is the only reliable check.
        QFile probe(QDir(path).filePath(QStringLiteral(".qrocket-write-probe")));
        if (!probe.open(QIODevice::WriteOnly) || probe.write("x", 1) != 1)
            return Status::ioError(
                QStringLiteral("EmbeddedCluster: the store root '%1' is not writable: %2")
                    .arg(path, probe.errorString()));
        probe.close();
        probe.remove();
    }
    std::lock_guard lock(stateMutex);
    root = path;
    for (Broker &b : brokers)
        b.storePath = QDir(path).filePath(b.name);
    return {};
}

Status EmbeddedCluster::Private::run(
    std::function<Status()> task, std::chrono::milliseconds timeout)
{
    if (timeout <= 0ms)
        timeout = options.operationTimeout;
    struct Call
    {
        std::mutex mutex;
        std::condition_variable done;
        bool finished = false;
        Status status;
    };
    if (!context)
        return Status::internal(
            QStringLiteral("EmbeddedCluster: the cluster thread is not running"));
    auto call = std::make_shared<Call>();
    const bool posted = invokeOn(
        context,
        [call, task = std::move(task)] {
            Status st = task();
            std::lock_guard lock(call->mutex);
            call->status = std::move(st);
            call->finished = true;
            call->done.notify_all();
        },
        Qt::QueuedConnection);
    if (!posted)
        return Status::internal(QStringLiteral("EmbeddedCluster: cannot post to its thread"));
    std::unique_lock lock(call->mutex);
    if (!call->done.wait_for(lock, timeout, [&] { return call->finished; }))
        return Status::timeout(
            QStringLiteral("EmbeddedCluster: the cluster thread did not answer within %1 ms")
                .arg(timeout.count()));
    return call->status;
}

Status EmbeddedCluster::Private::startAll()
{
    {
        remoting::RemotingClientOptions clientOptions;
        clientOptions.threadName = QStringLiteral("qrocket-emb-cli");
        auto created = std::make_shared<remoting::RemotingClient>(clientOptions);
        std::lock_guard lock(stateMutex);
        client = std::move(created);
    }
    if (Status st = startNamesrv(); !st)
        return st;
    for (int i = 0; i < static_cast<int>(brokers.size()); ++i)
        if (Status st = startBroker(i, 0); !st)
            return st;
    return {};
}

Status EmbeddedCluster::Private::startNamesrv()
{
    namesrv::NamesrvConfig config;
    const QString dir = QDir(root).filePath(QStringLiteral("namesrv"));
    config.listenAddress = QStringLiteral("127.0.0.1");
    config.listenPort = 0;
    config.kvConfigPath = QDir(dir).filePath(QStringLiteral("kvConfig.json"));
    config.configStorePath = QDir(dir).filePath(QStringLiteral("namesrv.properties"));
    config.serverSelectorThreads = 2;
    if (options.shortTimers) {
        config.scanNotActiveBrokerDelay = 500;
        config.scanNotActiveBrokerInterval = 1000;
        config.brokerChannelExpiredTime = 10000;
    }
    if (options.configureNamesrv)
        options.configureNamesrv(config);
    config.listenPort = 0;
    if (Status st = config.validate(); !st)
        return prefixed(QStringLiteral("name server"), st);
    auto controller = std::make_unique<namesrv::NamesrvController>(config);
    if (Status st = controller->initialize(); !st)
        return prefixed(QStringLiteral("name server"), st);
    if (Status st = controller->start(); !st)
        return prefixed(QStringLiteral("name server"), st);
    const QString address
        = QStringLiteral("%1:%2").arg(config.listenAddress).arg(controller->serverPort());
    namesrv = std::move(controller);
    std::lock_guard lock(stateMutex);
    namesrvAddress = address;
    return {};
}

Status EmbeddedCluster::Private::startBroker(int index, quint16 port)
{
    Broker &b = *slot(index);
    QString storePath;
    QString nameServer;
    {
        std::lock_guard lock(stateMutex);
        storePath = b.storePath;
        nameServer = namesrvAddress;
    }
    broker::BrokerConfig config;
    config.brokerIP1 = QStringLiteral("127.0.0.1");
    config.brokerIP2 = QStringLiteral("127.0.0.1");
    config.brokerName = b.name;
    config.brokerClusterName = options.clusterName;
    config.namesrvAddr = nameServer;
    config.autoCreateTopicEnable = options.autoCreateTopicEnable;
    if (options.shortTimers)
        config.registerNameServerPeriod = 2000;
    storage::MessageStoreConfig storeConfig;
    storeConfig.storePathRootDir = storePath;
    storeConfig.flushDiskType = options.flushMode == FlushMode::Sync
        ? QStringLiteral("SYNC_FLUSH")
        : QStringLiteral("ASYNC_FLUSH");
    if (options.smallFiles) {
        storeConfig.mappedFileSizeCommitLog = 16 * 1024 * 1024;
        storeConfig.mappedFileSizeConsumeQueue = 2000 * 20;
        storeConfig.maxHashSlotNum = 5000;
        storeConfig.maxIndexNum = 20000;
    }
    if (options.configureBroker)
        options.configureBroker(index, config, storeConfig);
    // One store root and role for both configs, as the daemon's shared keys keep them.
    config.storePathRootDir = storeConfig.storePathRootDir;
    storeConfig.brokerRole = config.brokerRole;
    storeConfig.messageDelayLevel = config.messageDelayLevel;
    const int period = config.registerNameServerPeriod;
    config.listenPort = kPlaceholderPort;
    if (Status st = config.validate(); !st)
        return prefixed(b.name, st);
    if (Status st = storeConfig.validate(); !st)
        return prefixed(b.name, st);
    config.registerNameServerPeriod = std::clamp(period, 100, 60000); // below validate()'s 10 s
    config.listenPort = port;
    if (!QDir().mkpath(storeConfig.storePathRootDir))
        return prefixed(b.name,
            Status::ioError(
                QStringLiteral("cannot create the store '%1'").arg(storeConfig.storePathRootDir)));

    auto controller = std::make_unique<broker::BrokerController>(config, storeConfig);
    if (options.diskSpace)
        controller->setDiskSpaceProbe(options.diskSpace(index));
    if (Status st = controller->initialize(); !st)
        return prefixed(b.name, st);
    if (Status st = controller->start(); !st) {
        controller.reset();
        if (port != 0 && st.code() == Status::Code::IoError) {
            qCInfo(lcEmbedded).noquote() << b.name << "cannot listen on its old port" << port
                                         << "again (" << st.message() << "), using a new one";
            return startBroker(index, 0);
        }
        return prefixed(b.name, st);
    }
    b.port = controller->listenPort();
    b.controller = std::move(controller);
    std::lock_guard lock(stateMutex);
    b.address = localAddress(b.port);
    b.running = true;
    return {};
}

void EmbeddedCluster::Private::stopBroker(int index)
{
    Broker &b = *slot(index);
    if (b.controller) {
        b.controller->shutdown();
        b.controller.reset();
    }
    std::lock_guard lock(stateMutex);
    b.running = false;
}

Status EmbeddedCluster::Private::stopAll()
{
    for (int i = 0; i < static_cast<int>(brokers.size()); ++i)
        stopBroker(i);
    if (namesrv) {
        namesrv->shutdown();
        namesrv.reset();
    }
    std::shared_ptr<remoting::RemotingClient> last;
    {
        std::lock_guard lock(stateMutex);
        last = std::move(client);
    }
    if (last)
        last->shutdown(); // a topicRoute() holding a copy fails fast from now on
    return {};
}

Status EmbeddedCluster::Private::createTopic(const QByteArray &topic, int queueNums)
{
    int created = 0;
    for (Broker &b : brokers) {
        if (!b.controller)
            continue;
        broker::BrokerContext &ctx = b.controller->context();
        if (ctx.topics->isSystemTopic(topic))
            return Status::invalidArgument(QStringLiteral("EmbeddedCluster: '%1' is a system topic")
                                               .arg(QString::fromUtf8(topic)));
        // The change listener re-registers the broker at once (coalesced, on this thread).
        if (Status st = ctx.topics->updateTopicConfig(broker::TopicConfig(topic, queueNums)); !st)
            return prefixed(b.name, st);
        b.controller->registerBrokerAllNow();
        ++created;
    }
    if (created == 0)
        return Status::unavailable(QStringLiteral("EmbeddedCluster: no broker is running"));
    return {};
}

void EmbeddedCluster::Private::stopLocked()
{
    QThread *t = thread.load();
    if (!t) {
        std::lock_guard lock(stateMutex);
        running = false;
        return;
    }
    // Twice the usual bound: an earlier operation that timed out may still be ahead in the queue.
    // The thread is only told to quit once stopAll() ran, so no controller outlives its loop.
    const Status st = run(
        [self = shared_from_this()] { return self->stopAll(); }, 2 * options.operationTimeout);
    bool finished = false;
    if (st) {
        t->quit();
        finished = t->wait(QDeadlineTimer(options.operationTimeout));
    }
    if (finished) {
        delete context; // a plain QObject of a finished thread
        delete t;
    } else {
        // Destroying a running QThread aborts the process: leak it, and keep the store it uses.
        qCCritical(lcEmbedded).noquote()
            << "EmbeddedCluster: the cluster thread did not stop in time (" << st.message()
            << "); leaking it and keeping the store" << root;
        if (tempDir)
            tempDir->setAutoRemove(false);
    }
    context = nullptr;
    thread = nullptr;
    std::lock_guard lock(stateMutex);
    running = false;
    for (Broker &b : brokers)
        b.running = false;
}

std::vector<EmbeddedCluster::Private::Expected> EmbeddedCluster::Private::expected() const
{
    std::vector<Expected> out;
    std::lock_guard lock(stateMutex);
    for (const Broker &b : brokers)
        out.push_back({b.name.toUtf8(), b.address.toUtf8(), b.running});
    return out;
}

bool EmbeddedCluster::Private::routeMatches(const protocol::TopicRouteData &route) const
{
    for (const Expected &e : expected()) {
        bool listed = false;
        bool atAddress = false;
        bool writable = false;
        for (const protocol::BrokerData &b : route.brokerDatas)
            if (b.brokerName == e.name) {
                listed = true;
                atAddress = b.masterAddr() == e.address;
            }
        for (const protocol::QueueData &q : route.queueDatas)
            if (q.brokerName == e.name) {
                listed = true;
                writable = q.writeQueueNums > 0;
            }
        if (e.running ? !(atAddress && writable) : listed)
            return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------------

EmbeddedCluster::EmbeddedCluster(Options options) : d(std::make_shared<Private>(std::move(options)))
{ }

EmbeddedCluster::~EmbeddedCluster()
{
    stop();
    std::lock_guard lock(d->opMutex);
    d->tempDir.reset(); // removes a temporary store (unless stopLocked() had to keep it)
}

Status EmbeddedCluster::start()
{
    if (d->onClusterThread())
        return Status::internal(
            QStringLiteral("EmbeddedCluster::start() called on the cluster's own thread"));
    std::lock_guard lock(d->opMutex);
    if (d->startCalled)
        return Status::internal(QStringLiteral("EmbeddedCluster::start() may be called once"));
    d->startCalled = true;
    if (Status st = d->checkOptions(); !st)
        return st;
    if (Status st = d->prepareStoreRoot(); !st)
        return st;

    auto *t = new QThread;
    t->setObjectName(QStringLiteral("qrocket-embedded"));
    d->context = new QObject;
    d->context->moveToThread(t);
    t->start();
    d->thread = t;

    const Status st = d->run([self = d] { return self->startAll(); });
    if (!st) {
        d->stopLocked();
        return st;
    }
    {
        std::lock_guard state(d->stateMutex);
        d->running = true;
    }
    // A broker's first registration with the name server is asynchronous: return once the name
    // server lists every broker, so a cluster that says it started is one clients can use.
    if (Status registered = waitForRegistrations(); !registered) {
        d->stopLocked();
        return registered;
    }
    qCInfo(lcEmbedded).noquote() << "EmbeddedCluster" << d->options.clusterName << "started:"
                                 << "name server" << d->namesrvAddress << "," << d->brokers.size()
                                 << "broker(s), store" << d->root;
    return {};
}

void EmbeddedCluster::stop()
{
    if (d->onClusterThread()) {
        qCWarning(lcEmbedded) << "EmbeddedCluster::stop() called on the cluster's own thread";
        return;
    }
    std::lock_guard lock(d->opMutex);
    d->stopLocked();
}

bool EmbeddedCluster::isRunning() const
{
    std::lock_guard lock(d->stateMutex);
    return d->running;
}

QString EmbeddedCluster::namesrvAddress() const
{
    std::lock_guard lock(d->stateMutex);
    return d->namesrvAddress;
}

QString EmbeddedCluster::clusterName() const
{
    return d->options.clusterName;
}

QString EmbeddedCluster::storeRoot() const
{
    std::lock_guard lock(d->stateMutex);
    return d->root.isEmpty() ? d->options.storeRoot : d->root;
}

int EmbeddedCluster::brokerCount() const
{
    return d->options.brokerCount;
}

QString EmbeddedCluster::brokerName(int index) const
{
    const Private::Broker *b = d->slot(index);
    return b ? b->name : QString();
}

QString EmbeddedCluster::brokerAddress(int index) const
{
    std::lock_guard lock(d->stateMutex);
    const Private::Broker *b = d->slot(index);
    return b ? b->address : QString();
}

QString EmbeddedCluster::brokerStorePath(int index) const
{
    std::lock_guard lock(d->stateMutex);
    const Private::Broker *b = d->slot(index);
    return b ? b->storePath : QString();
}

bool EmbeddedCluster::isBrokerRunning(int index) const
{
    std::lock_guard lock(d->stateMutex);
    const Private::Broker *b = d->slot(index);
    return b && b->running;
}

Status EmbeddedCluster::stopBroker(int index)
{
    if (d->onClusterThread())
        return Status::internal(
            QStringLiteral("EmbeddedCluster::stopBroker() called on the cluster's own thread"));
    if (!d->slot(index))
        return Status::invalidArgument(QStringLiteral("EmbeddedCluster: no broker %1 (%2 brokers)")
                                           .arg(index)
                                           .arg(brokerCount()));
    std::lock_guard lock(d->opMutex);
    if (!isRunning())
        return Status::unavailable(QStringLiteral("EmbeddedCluster: not running"));
    return d->run([self = d, index] {
        self->stopBroker(index);
        return Status();
    });
}

Status EmbeddedCluster::startBroker(int index)
{
    if (d->onClusterThread())
        return Status::internal(
            QStringLiteral("EmbeddedCluster::startBroker() called on the cluster's own thread"));
    if (!d->slot(index))
        return Status::invalidArgument(QStringLiteral("EmbeddedCluster: no broker %1 (%2 brokers)")
                                           .arg(index)
                                           .arg(brokerCount()));
    std::lock_guard lock(d->opMutex);
    if (!isRunning())
        return Status::unavailable(QStringLiteral("EmbeddedCluster: not running"));
    return d->run([self = d, index] {
        const Private::Broker &b = *self->slot(index);
        if (b.controller)
            return Status();
        return self->startBroker(index, b.port);
    });
}

Status EmbeddedCluster::createTopic(const QString &topic, int queueNums)
{
    if (d->onClusterThread())
        return Status::internal(
            QStringLiteral("EmbeddedCluster::createTopic() called on the cluster's own thread"));
    const QByteArray name = topic.toUtf8();
    if (Status st = broker::topics::validateTopic(name); !st)
        return Status::invalidArgument(QStringLiteral("EmbeddedCluster: %1").arg(st.message()));
    if (queueNums < 1 || queueNums > 1024)
        return Status::invalidArgument(
            QStringLiteral("EmbeddedCluster: queueNums must be 1..1024 (got %1)").arg(queueNums));
    std::lock_guard lock(d->opMutex);
    if (!isRunning())
        return Status::unavailable(QStringLiteral("EmbeddedCluster: not running"));
    return d->run([self = d, name, queueNums] { return self->createTopic(name, queueNums); });
}

Result<protocol::TopicRouteData> EmbeddedCluster::topicRoute(
    const QString &topic, std::chrono::milliseconds timeout) const
{
    std::shared_ptr<remoting::RemotingClient> client;
    QByteArray address;
    {
        std::lock_guard lock(d->stateMutex);
        client = d->client;
        address = d->namesrvAddress.toUtf8();
    }
    if (!client || address.isEmpty())
        return Status::unavailable(QStringLiteral("EmbeddedCluster: not running"));
    RemotingCommand request = RemotingCommand::createRequest(
        protocol::toInt(protocol::RequestCode::GetRouteInfoByTopic));
    protocol::GetRouteInfoRequestHeader header;
    header.topic = topic.toUtf8();
    header.encode(request);
    const int millis = static_cast<int>(std::clamp<std::int64_t>(timeout.count(), 1, 600000));
    Result<RemotingCommand> response = client->invokeSync(address, std::move(request), millis);
    if (!response)
        return response.error();
    if (response->code == protocol::toInt(protocol::ResponseCode::TopicNotExist))
        return Status::notFound(
            QStringLiteral("the name server has no route for topic '%1'").arg(topic));
    if (response->code != protocol::toInt(protocol::ResponseCode::Success))
        return Status::internal(QStringLiteral("GET_ROUTEINFO_BY_TOPIC answered code %1: %2")
                                    .arg(response->code)
                                    .arg(QString::fromUtf8(response->remark)));
    return protocol::TopicRouteData::fromJson(response->body);
}

Status EmbeddedCluster::waitForRegistrations()
{
    std::shared_ptr<remoting::RemotingClient> client;
    QByteArray address;
    {
        std::lock_guard lock(d->stateMutex);
        client = d->client;
        address = d->namesrvAddress.toUtf8();
    }
    const QDeadlineTimer deadline(d->options.operationTimeout);
    QString last = QStringLiteral("no answer yet");
    while (client && !address.isEmpty()) {
        const int millis = static_cast<int>(std::clamp<qint64>(deadline.remainingTime(), 1, 3000));
        auto response = client->invokeSync(address,
            RemotingCommand::createRequest(
                protocol::toInt(protocol::RequestCode::GetBrokerClusterInfo)),
            millis);
        if (response && response->code == protocol::toInt(protocol::ResponseCode::Success)) {
            auto info = protocol::ClusterInfo::fromJson(response->body);
            if (info) {
                const auto expected = d->expected();
                const bool all = std::all_of(
                    expected.begin(), expected.end(), [&](const Private::Expected &e) {
                        return info->brokerAddrTable.count(e.name) > 0;
                    });
                if (all)
                    return {};
                last = QStringLiteral("%1 of %2 brokers registered")
                           .arg(info->brokerAddrTable.size())
                           .arg(expected.size());
            }
        } else if (!response) {
            last = response.error().message();
        }
        if (deadline.hasExpired())
            break;
        pauseFor(std::min<std::chrono::milliseconds>(
            20ms, std::chrono::milliseconds(std::max<qint64>(deadline.remainingTime(), 0))));
    }
    return Status::timeout(
        QStringLiteral("EmbeddedCluster: the brokers did not all register with the name server "
                       "within %1 ms (%2)")
            .arg(d->options.operationTimeout.count())
            .arg(last));
}

Status EmbeddedCluster::waitForRoute(const QString &topic, std::chrono::milliseconds timeout)
{
    if (d->onClusterThread())
        return Status::internal(
            QStringLiteral("EmbeddedCluster::waitForRoute() called on the cluster's own thread"));
    if (!isRunning())
        return Status::unavailable(QStringLiteral("EmbeddedCluster: not running"));
    const QDeadlineTimer deadline(timeout);
    QString last = QStringLiteral("no answer yet");
    for (;;) {
        const auto remaining
            = std::chrono::milliseconds(std::max<qint64>(deadline.remainingTime(), 1));
        const Result<protocol::TopicRouteData> route
            = topicRoute(topic, std::min<std::chrono::milliseconds>(remaining, 3s));
        if (route) {
            const bool matches = d->routeMatches(*route);
            if (matches)
                return {};
            last = describe(*route);
        } else {
            last = route.error().message();
        }
        if (deadline.hasExpired())
            break;
        pauseFor(std::min<std::chrono::milliseconds>(
            50ms, std::chrono::milliseconds(std::max<qint64>(deadline.remainingTime(), 0))));
    }
    QStringList want;
    for (const Private::Expected &e : d->expected())
        if (e.running)
            want.append(QStringLiteral("%1@%2").arg(
                QString::fromUtf8(e.name), QString::fromUtf8(e.address)));
    return Status::timeout(
        QStringLiteral("EmbeddedCluster: the route of '%1' did not match the cluster within %2 "
                       "ms: want %3, last seen %4")
            .arg(topic)
            .arg(timeout.count())
            .arg(want.join(u' '), last));
}

} // namespace qrocket
