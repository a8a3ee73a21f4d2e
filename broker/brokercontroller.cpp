#include "broker/brokercontroller.h"

#include "broker/auth/authstore.h"
#include "broker/common/brokercodes.h"
#include "broker/common/logging.h"
#include "broker/config/brokerconfiguration.h"
#include "broker/config/delaylevel.h"
#include "broker/dedup/senddeduprebuild.h"
#include "broker/dedup/senddeduptable.h"
#include "broker/filter/sqlfiltercache.h"
#include "broker/grpc/grpcserver.h"
#include "broker/ha/haclient.h"
#include "broker/ha/haservice.h"
#include "broker/ha/slavesynchronize.h"
#include "broker/longpolling/pullrequestholdservice.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/delayoffsetmanager.h"
#include "broker/managers/producermanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/metrics/brokermetrics.h"
#include "broker/namesrvregistrar.h"
#include "broker/pop/popprocessor.h"
#include "broker/pop/popservice.h"
#include "broker/pop/requestmodemanager.h"
#include "broker/processors/authprocessor.h"
#include "broker/processors/clientmanageprocessor.h"
#include "broker/processors/consumermanageprocessor.h"
#include "broker/processors/extrasregistry.h"
#include "broker/processors/pullmessageprocessor.h"
#include "broker/processors/queryprocessor.h"
#include "broker/processors/sendbackprocessor.h"
#include "broker/processors/sendmessageprocessor.h"
#include "broker/schedule/schedulemessageservice.h"
#include "broker/stats/brokerstatsmanager.h"
#include "broker/timer/timermessagestore.h"
#include "broker/timer/timerprocessor.h"
#include "broker/transaction/endtransactionprocessor.h"
#include "broker/transaction/transactionalmessageservice.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/acl/adminauth.h"
#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/metricshttpserver.h"
#include "clientlib/remoting/remotingserver.h"
#include "storage/messagestore.h"

#include <QDateTime>

#include <chrono>

namespace qrocket::broker {

using namespace std::chrono_literals;

BrokerController::BrokerController(
    const BrokerConfig &config, const storage::MessageStoreConfig &storeConfig, QObject *parent)
    : QObject(parent), m_config(config), m_storeConfig(storeConfig)
{
    m_ctx.config = &m_config;
}

BrokerController::~BrokerController()
{
    shutdown();
}

Status BrokerController::loadManagers()
{
    const QString root = m_storeConfig.storePathRootDir;
    m_topics = std::make_unique<TopicConfigManager>(m_config, TopicConfigManager::filePath(root));
    const bool lmq = m_storeConfig.enableLmq;
    m_groups = std::make_unique<SubscriptionGroupManager>(
        m_config.autoCreateSubscriptionGroup, SubscriptionGroupManager::filePath(root), lmq);
    // With enableLmq the offsets live in lmqConsumerOffset.json (RocketMQ 4.9.7's file then);
    // the other file is read instead when it is the newer one (enableLmq just turned on or off).
    const QString offsetsFile
        = lmq ? ConsumerOffsetManager::lmqFilePath(root) : ConsumerOffsetManager::filePath(root);
    m_consumerOffsets = std::make_unique<ConsumerOffsetManager>(offsetsFile, lmq);
    const QString offsetsFrom = ConsumerOffsetManager::fileToLoad(root, lmq);
    m_delayOffsets = std::make_unique<DelayOffsetManager>(DelayOffsetManager::filePath(root));
    if (Status st = m_topics->load(); !st)
        return st;
    if (Status st = m_groups->load(); !st)
        return st;
    if (offsetsFrom == offsetsFile) {
        if (Status st = m_consumerOffsets->load(); !st)
            return st;
    } else {
        qCInfo(lcBroker).noquote() << "consumer offsets: loading" << offsetsFrom << "(newer than"
                                   << offsetsFile << "or that one missing; enableLmq changed)";
        ConsumerOffsetManager previous(offsetsFrom, lmq);
        if (Status st = previous.load(); !st)
            return st;
        if (Status st = m_consumerOffsets->decode(previous.encode()); !st)
            return st;
    }
    if (Status st = m_delayOffsets->load(); !st)
        return st;
    m_consumers = std::make_unique<ConsumerManager>(m_config.channelExpiredTimeout);
    m_producers = std::make_unique<ProducerManager>(m_config.channelExpiredTimeout);
    m_ctx.topics = m_topics.get();
    m_ctx.subscriptionGroups = m_groups.get();
    m_ctx.consumerOffsets = m_consumerOffsets.get();
    m_ctx.delayOffsets = m_delayOffsets.get();
    m_ctx.consumers = m_consumers.get();
    m_ctx.producers = m_producers.get();
    return {};
}

Status BrokerController::startAuthStore()
{
    // ACL 2.0 (RocketMQ 5's users and ACLs): one store, loaded, then the plain_acl.yml accounts
    // it lacks imported (as RocketMQ 5's migration does); the guard decides with each snapshot.
    m_authStore = std::make_unique<AuthStore>(AuthStore::filePath(m_storeConfig.storePathRootDir));
    if (Status st = m_authStore->load(); !st)
        return st;
    if (Status st = m_authStore->importPlain(*m_acl->rules()); !st)
        return st;
    m_acl->setClusterName(m_config.brokerClusterName.toUtf8());
    m_authStore->setPublisher([acl = m_acl](std::shared_ptr<const qrocket::acl::AuthData> data) {
        acl->setAuthData(std::move(data));
    });
    m_ctx.authStore = m_authStore.get();
    return {};
}

Status BrokerController::initialize()
{
    if (m_initialized)
        return {};
    if (m_config.aclEnable) {
        // First: a broker whose ACL cannot load must not open its store or ports.
        m_acl = std::make_shared<qrocket::acl::AclGuard>(
            qrocket::acl::AclGuard::defaultPath(m_config.aclFilePath, m_config.rocketmqHome));
        if (Status st = m_acl->start(); !st)
            return st;
        m_ctx.acl = m_acl.get();
        if (Status st = startAuthStore(); !st)
            return st;
    }
    if (Status st = loadManagers(); !st)
        return st;

    m_sendPool = std::make_shared<remoting::ThreadPoolExecutor>(
        "SendMsg", std::max(1, m_config.sendMessageThreadPoolNums), 10000);
    m_pullPool = std::make_shared<remoting::ThreadPoolExecutor>(
        "PullMsg", std::max(1, m_config.pullMessageThreadPoolNums), 100000);
    m_clientPool = std::make_shared<remoting::ThreadPoolExecutor>("ClientManage", 2, 50000);
    m_adminPool = std::make_shared<remoting::ThreadPoolExecutor>(
        "Admin", std::max(1, m_config.adminBrokerThreadPoolNums), 10000);

    m_pullProcessor = std::make_shared<PullMessageProcessor>(m_ctx);
    m_pullHold = std::make_unique<PullRequestHoldService>(
        [pool = m_pullPool, processor = m_pullProcessor](HeldPull &&pull) {
            auto shared = std::make_shared<HeldPull>(std::move(pull));
            if (!pool->tryExecute(
                    [processor, shared] { processor->executeWakeup(std::move(*shared)); })) {
                shared->respond(makeReply(shared->request, toInt(ResponseCode::SystemBusy),
                    "[OVERLOAD]system busy, start flow control for a while"));
            }
        },
        [this](QByteArrayView topic, int queueId) {
            return m_store ? m_store->maxOffsetInQueue(topic, queueId) : 0;
        });
    m_ctx.pullHold = m_pullHold.get();
    m_sqlFilters = std::make_unique<filter::SqlFilterCache>();
    m_ctx.sqlFilters = m_sqlFilters.get();

    if (m_config.listenPort > 0) { // known before start(): the schedule service reads it
        m_ctx.storeHost = m_config.brokerAddr();
        protocol::HostAddress::parse(m_ctx.storeHost, m_ctx.storeHostAddress);
    }
    storage::StoreOptions storeOptions;
    storeOptions.diskSpace = m_diskSpaceProbe;
    m_store = std::make_unique<storage::MessageStore>(m_storeConfig, std::move(storeOptions));
    if (m_writeGate)
        m_store->setWriteGate(m_writeGate);
    m_ctx.store = m_store.get();
    m_configuration
        = std::make_unique<BrokerConfiguration>(m_config, m_storeConfig, m_config.configFilePath);
    m_ctx.configuration = m_configuration.get();
    m_stats = std::make_unique<BrokerStats>();
    m_stats->setQueueProbes(
        [pool = m_sendPool] { return static_cast<std::int64_t>(pool->queuedTasks()); },
        static_cast<std::int64_t>(m_sendPool->capacity()),
        [pool = m_pullPool] { return static_cast<std::int64_t>(pool->queuedTasks()); },
        static_cast<std::int64_t>(m_pullPool->capacity()));
    m_ctx.stats = m_stats.get();
    m_statsManager = std::make_unique<BrokerStatsManager>(m_config.brokerClusterName.toUtf8());
    m_ctx.statsManager = m_statsManager.get();
    m_schedule = std::make_unique<ScheduleMessageService>(m_ctx);
    // rmq_sys_wheel_timer units carry TIMER_OUT_MS, SCHEDULE_TOPIC_XXXX ones their due time.
    m_store->setTagsCodeResolver(
        TimerMessageStore::wrapTagsCodeResolver(m_schedule->tagsCodeResolver()));
    m_ctx.schedule = m_schedule.get();
    m_requestModes = std::make_unique<pop::RequestModeManager>(
        pop::RequestModeManager::filePath(m_storeConfig.storePathRootDir));
    if (Status st = m_requestModes->load(); !st)
        return st;
    m_pop = std::make_unique<pop::PopService>(
        m_ctx, pop::PopService::snapshotPath(m_storeConfig.storePathRootDir));
    m_ctx.popStats = [pop = m_pop.get()](const QByteArray &group) { return pop->stats(group); };
    m_store->setArrivalListener(
        [hold = m_pullHold.get(), popHold = &m_pop->hold()](QByteArrayView topic, int queueId,
            std::int64_t queueOffset, std::int64_t tagsCode, std::int64_t,
            QByteArrayView properties) {
            hold->notifyMessageArriving(topic, queueId, queueOffset, tagsCode, properties);
            popHold->notifyArrival(topic); // one atomic load when no pop is parked
        });
    if (m_config.isMaster()) {
        m_haService = std::make_unique<ha::HAService>(
            *m_store, m_storeConfig, QStringList {m_config.brokerIP1, m_config.brokerIP2});
        m_haService->setTls(m_config.tls); // tls.server.* apply to the HA port too
        m_store->setAppendObserver([ha = m_haService.get()] { ha->wakeup(); });
    }
    if (Status st = m_store->open(); !st)
        return st;
    m_ctx.haService = m_haService.get();
    rebuildSendDedupWindow();
    if (m_storeConfig.timerWheelEnable && m_config.isMaster() && !m_storeConfig.isSlave()) {
        TimerStoreOptions timerOptions;
        timerOptions.dir = m_storeConfig.storePathRootDir + QStringLiteral("/timer");
        timerOptions.rules = timer::rulesOf(m_storeConfig);
        timerOptions.logFileSize = m_storeConfig.mappedFileSizeTimerLog;
        timerOptions.flushIntervalMs = m_storeConfig.timerFlushIntervalMs;
        timerOptions.storeHost = [ctx = &m_ctx] { return ctx->storeHostAddress; };
        m_timer = std::make_unique<TimerMessageStore>(*m_store, std::move(timerOptions));
        if (Status st = m_timer->open(); !st)
            return st;
    } else if (m_storeConfig.timerWheelEnable) {
        // A slave's wheel (from a time it was master) is stale: a promotion inherits instead.
        timer::discardOwnWheel(m_storeConfig.storePathRootDir + QStringLiteral("/timer"));
    }
    m_ctx.timer = m_timer.get();
    m_ctx.registerBrokerAllNow = [this] { registerBrokerAllNow(); };
    // A created or updated topic goes to the name servers alone (registerIncrementBrokerData); a
    // deleted one, or a table replaced from the master, in a full registration.
    m_topics->setChangeListener([this](const QByteArray &topic, const DataVersion &version) {
        if (!topic.isEmpty() && m_topics->contains(topic))
            m_registrar->registerTopicsChanged({topic}, version);
        else
            registerBrokerAllNow();
    });

    remoting::RemotingServerOptions options;
    options.port = static_cast<quint16>(std::max(0, m_config.listenPort));
    options.ioThreads = m_config.serverSelectorThreads;
    options.maxConnections = m_config.serverMaxConnections;
    options.maxConnectionsPerAddress = m_config.serverMaxConnectionsPerAddress;
    options.maxPendingInputBytes = m_config.serverMaxPendingInputBytes;
    options.connection.idleTimeout
        = std::chrono::seconds(std::max(0, m_config.serverChannelMaxIdleTimeSeconds));
    options.connection.frameTimeout
        = std::chrono::milliseconds(std::max<std::int64_t>(0, m_config.serverFrameTimeoutMillis));
    options.connection.maxUnsentBytes = m_config.serverMaxUnsentBytes;
    options.connection.maxInflightRequests
        = std::max(0, m_config.serverMaxInflightRequestsPerConnection);
    options.tls = m_config.tls;
    m_server = std::make_unique<remoting::RemotingServer>(options);
    options.port = options.port > 2 ? static_cast<quint16>(options.port - 2) : 0;
    options.ioThreads = 1;
    m_fastServer = std::make_unique<remoting::RemotingServer>(options);
    for (remoting::RemotingServer *server : {m_server.get(), m_fastServer.get()})
        connect(server, &remoting::RemotingServer::channelClosed, this,
            [this](quint64 channelId, const QByteArray &) { onChannelClosed(channelId); });
    m_ctx.remotingStats = [main = m_server.get(), fast = m_fastServer.get()] {
        remoting::RemotingServerStats stats = main->stats();
        stats += fast->stats();
        return stats;
    };
    m_transactions = std::make_shared<TransactionalMessageService>(m_ctx);
    createProcessors();
    if (m_acl) {
        m_server->processorTable().setRequestGuard(m_acl);
        m_fastServer->processorTable().setRequestGuard(m_acl);
    }

    m_registrar = std::make_unique<NamesrvRegistrar>(m_ctx);
    m_registrar->setNameServers(m_config.namesrvAddr.toUtf8());
    if (!m_config.isMaster()) {
        // haMasterAddress wins; else the master's HA address from the registration answer.
        const QByteArray fixed = m_storeConfig.haMasterAddress.toUtf8();
        m_haClient = std::make_unique<ha::HAClient>(
            *m_store, m_storeConfig, [fixed, registrar = m_registrar.get()] {
                return fixed.isEmpty() ? registrar->masterHaServerAddr() : fixed;
            });
        m_haClient->setTls(m_config.tls); // tls.enable: TLS to the master's HA port
        m_ctx.haClient = m_haClient.get();
        m_slaveSync = std::make_unique<ha::SlaveSynchronize>(
            m_ctx, [registrar = m_registrar.get()] { return registrar->masterAddr(); });
    }
    m_initialized = true;
    return {};
}

void BrokerController::createProcessors()
{
    auto send = std::make_shared<SendMessageProcessor>(m_ctx);
    for (int code : {toInt(RequestCode::SendMessage), toInt(RequestCode::SendMessageV2),
             toInt(RequestCode::SendBatchMessage)})
        registerProcessor(code, send, m_sendPool);
    registerProcessor(toInt(RequestCode::PullMessage), m_pullProcessor, m_pullPool);
    registerProcessor(toInt(RequestCode::EndTransaction),
        std::make_shared<EndTransactionProcessor>(m_ctx, *m_transactions), m_sendPool);
    auto client = std::make_shared<ClientManageProcessor>(m_ctx);
    for (int code : {toInt(RequestCode::HeartBeat), toInt(RequestCode::UnregisterClient),
             toInt(RequestCode::GetConsumerListByGroup), toInt(RequestCode::CheckClientConfig)})
        registerProcessor(code, client, m_clientPool);
    auto consumer = std::make_shared<ConsumerManageProcessor>(m_ctx);
    for (int code : {toInt(RequestCode::QueryConsumerOffset),
             toInt(RequestCode::UpdateConsumerOffset), toInt(RequestCode::GetMaxOffset),
             toInt(RequestCode::GetMinOffset), toInt(RequestCode::SearchOffsetByTimestamp),
             toInt(RequestCode::GetEarliestMsgStoreTime)})
        registerProcessor(code, consumer, {});
    registerProcessor(toInt(RequestCode::ConsumerSendMsgBack),
        std::make_shared<SendBackProcessor>(m_ctx), m_sendPool);
    auto query = std::make_shared<QueryProcessor>(m_ctx);
    registerProcessor(toInt(RequestCode::QueryMessage), query, m_pullPool);
    registerProcessor(toInt(RequestCode::ViewMessageById), query, m_pullPool);
    auto timerProcessor = std::make_shared<TimerProcessor>(m_ctx, m_timer.get());
    for (int code : {timer::kRecallMessage, timer::kGetTimerCheckPoint, timer::kGetTimerMetrics})
        registerProcessor(code, timerProcessor, m_adminPool);
    registerExtraProcessors(*m_server, m_ctx, m_adminPool);
    registerExtraProcessors(*m_fastServer, m_ctx, m_adminPool);
    auto popProcessor
        = std::make_shared<pop::PopProcessor>(m_ctx, *m_pop, *m_requestModes, m_pullPool);
    popProcessor->attach();
    for (int code : pop::PopProcessor::requestCodes())
        registerProcessor(code, popProcessor, m_pullPool);
    auto auth = std::make_shared<AuthProcessor>(m_authStore.get());
    for (int code : AuthProcessor::requestCodes())
        registerProcessor(code, auth, m_adminPool);
}

void BrokerController::registerProcessor(
    int requestCode, remoting::RequestProcessorPtr processor, remoting::ExecutorPtr executor)
{
    m_server->registerProcessor(requestCode, processor, executor);
    m_fastServer->registerProcessor(requestCode, std::move(processor), std::move(executor));
}

void BrokerController::setDefaultProcessor(
    remoting::RequestProcessorPtr processor, remoting::ExecutorPtr executor)
{
    m_server->setDefaultProcessor(processor, executor);
    m_fastServer->setDefaultProcessor(std::move(processor), std::move(executor));
}

remoting::ExecutorPtr BrokerController::adminExecutor() const
{
    return m_adminPool;
}

remoting::ExecutorPtr BrokerController::sendExecutor() const
{
    return m_sendPool;
}

Status BrokerController::start()
{
    if (!m_initialized)
        return Status::internal(QStringLiteral("BrokerController::start() before initialize()"));
    if (m_started)
        return {};
    // Before any request: the in-flight POP state comes back from the revive log first.
    if (m_config.isMaster())
        if (Status st = m_pop->recover(); !st)
            return st;
    if (Status st = startMetrics(); !st)
        return st;
    if (Status st = m_server->start(); !st)
        return Status::ioError(
            QStringLiteral("cannot serve port %1: %2").arg(m_config.listenPort).arg(st.message()));
    if (Status st = m_fastServer->start(); !st) {
        m_server->stop();
        return Status::ioError(QStringLiteral("cannot serve the fast port %1: %2")
                                   .arg(m_fastServer->options().port)
                                   .arg(st.message()));
    }
    if (m_haService) {
        // listenPort 0 (tests): any free port, as for the remoting servers.
        const auto haPort = static_cast<quint16>(
            m_config.listenPort == 0 ? 0 : std::max(0, m_storeConfig.haListenPort));
        if (Status st = m_haService->start(haPort, m_config.haListenAddress()); !st) {
            m_server->stop();
            m_fastServer->stop();
            return st;
        }
    }
    // listenPort 0 (in-process tests, the embedded cluster): gRPC on any free port too.
    const bool anyPort = m_config.listenPort == 0;
    m_config.listenPort = m_server->serverPort();
    const QByteArray brokerAddr = m_config.brokerAddr();
    m_ctx.storeHost = brokerAddr;
    if (!protocol::HostAddress::parse(brokerAddr, m_ctx.storeHostAddress))
        qCWarning(lcBroker) << "brokerIP1 is not an IP address:" << brokerAddr;
    // RocketMQ registers brokerIP2:haListenPort for every broker (a slave's is never used).
    const int haPort = m_haService ? m_haService->port() : m_storeConfig.haListenPort;
    m_registrar->setBrokerAddresses(
        brokerAddr, m_config.brokerIP2.toUtf8() + ':' + QByteArray::number(haPort));
    startGrpc(anyPort);
    if (m_haClient)
        m_haClient->start();
    if (m_slaveSync) {
        m_slaveSyncTimer.setInterval(3s);
        connect(&m_slaveSyncTimer, &QTimer::timeout, this, [this] {
            m_slaveSyncTimer.setInterval(10s);
            m_slaveSync->syncAll();
        });
        m_slaveSyncTimer.start();
    }
    m_pullHold->start();
    m_pop->startServices(m_config.isMaster());
    m_schedule->start();
    if (m_timer)
        m_timer->start();
    m_transactions->start();

    m_registerTimer.setInterval(std::chrono::milliseconds(m_config.registerNameServerPeriod));
    connect(&m_registerTimer, &QTimer::timeout, this,
        [this] { m_registrar->registerBrokerAll(m_config.forceRegister); });
    m_offsetTimer.setInterval(std::chrono::milliseconds(m_config.flushConsumerOffsetInterval));
    connect(&m_offsetTimer, &QTimer::timeout, this, [this] {
        if (Status st = m_consumerOffsets->persist(); !st)
            qCWarning(lcBrokerOffset).noquote() << "persist consumer offsets:" << st.message();
        // The coalesced rewrite of topics.json and subscriptionGroup.json: their changes are
        // journaled (durable) as they happen; the files follow on this timer.
        static_cast<void>(m_topics->flushJournal());
        static_cast<void>(m_groups->flushJournal());
    });
    m_delayOffsetTimer.setInterval(std::chrono::milliseconds(m_config.flushDelayOffsetInterval));
    connect(&m_delayOffsetTimer, &QTimer::timeout, this, [this] {
        if (Status st = m_delayOffsets->persist(); !st)
            qCWarning(lcBrokerOffset).noquote() << "persist delay offsets:" << st.message();
    });
    m_clientScanTimer.setInterval(10s);
    connect(&m_clientScanTimer, &QTimer::timeout, this, &BrokerController::scanClients);
    m_statsSampleTimer.setInterval(1s);
    connect(&m_statsSampleTimer, &QTimer::timeout, this, &BrokerController::sampleStats);
    for (QTimer *t : {&m_registerTimer, &m_offsetTimer, &m_delayOffsetTimer, &m_clientScanTimer,
             &m_statsSampleTimer})
        t->start();
    sampleStats();
    m_statsMorningTimer.setSingleShot(true);
    connect(&m_statsMorningTimer, &QTimer::timeout, this, [this] {
        const storage::StoreStats st = m_store->stats();
        m_stats->recordMorning(st.putMessageTotal, st.getMessageTotal);
        armMorningRecord();
    });
    armMorningRecord();
    m_registrar->registerBrokerAll(true);
    m_started = true;
    qCInfo(lcBroker).noquote() << "broker" << m_config.brokerName << "started at" << brokerAddr
                               << "(fast port" << m_fastServer->serverPort() << "), cluster"
                               << m_config.brokerClusterName << "name servers"
                               << (m_config.namesrvAddr.isEmpty() ? QStringLiteral("(none)")
                                                                  : m_config.namesrvAddr);
    return {};
}

void BrokerController::registerBrokerAllNow()
{
    if (m_registerPending.exchange(true))
        return;
    invokeOn(
        this,
        [this] {
            m_registerPending = false;
            if (m_started && !m_shutdown)
                m_registrar->registerBrokerAll(true);
        },
        Qt::QueuedConnection);
}

void BrokerController::onChannelClosed(quint64 channelId)
{
    if (!m_consumers)
        return;
    for (const ConsumerManager::Removal &r : m_consumers->channelClosed(channelId)) {
        qCInfo(lcBrokerClient) << "consumer" << r.clientId << "of group" << r.group
                               << "disconnected";
        if (!r.groupRemoved)
            notifyConsumerIdsChanged(m_ctx, r.group);
    }
    m_producers->channelClosed(channelId);
}

void BrokerController::scanClients()
{
    for (const ConsumerManager::Removal &r : m_consumers->scanExpired()) {
        qCInfo(lcBrokerClient) << "consumer" << r.clientId << "of group" << r.group
                               << "expired (no heartbeat)";
        if (!r.groupRemoved)
            notifyConsumerIdsChanged(m_ctx, r.group);
    }
    m_producers->scanExpired();
    m_sendDedup->expire(QDateTime::currentMSecsSinceEpoch(),
        {std::int64_t(m_config.sendDedupWindowSeconds) * 1000, m_config.sendDedupMaxKeysPerTopic});
}

void BrokerController::rebuildSendDedupWindow()
{
    m_sendDedup = std::make_unique<SendDedupTable>();
    m_ctx.sendDedup = m_sendDedup.get();
    if (!m_config.sendDedupEnable)
        return;
    const SendDedupRebuild r = rebuildSendDedup(*m_sendDedup, *m_store,
        QDateTime::currentMSecsSinceEpoch(),
        {std::int64_t(m_config.sendDedupWindowSeconds) * 1000, m_config.sendDedupMaxKeysPerTopic});
    qCInfo(lcBroker).noquote() << QStringLiteral(
        "send dedup window rebuilt: %1 keys from %2 records of the commit log [%3, %4)")
                                      .arg(r.keys)
                                      .arg(r.scannedRecords)
                                      .arg(r.fromOffset)
                                      .arg(r.toOffset);
}

void BrokerController::persistOffsets()
{
    if (m_consumerOffsets)
        if (Status st = m_consumerOffsets->persist(); !st)
            qCWarning(lcBrokerOffset).noquote() << "persist consumer offsets:" << st.message();
    if (m_delayOffsets)
        if (Status st = m_delayOffsets->persist(); !st)
            qCWarning(lcBrokerOffset).noquote() << "persist delay offsets:" << st.message();
    if (m_topics)
        static_cast<void>(m_topics->persist());
    if (m_groups)
        static_cast<void>(m_groups->persist());
}

void BrokerController::sampleStats()
{
    const storage::StoreStats st = m_store->stats();
    m_stats->sample(QDateTime::currentMSecsSinceEpoch(), st.putMessageTotal, st.getMessageTotal);
    m_statsManager->tick(); // its 10 s / 10 min / 1 h samples, when due
}

void BrokerController::armMorningRecord()
{
    // RocketMQ runs BrokerStats.record() at the next local midnight, then every 24 h.
    const QDateTime now = QDateTime::currentDateTime();
    const QDateTime midnight(now.date().addDays(1), QTime(0, 0));
    m_statsMorningTimer.start(
        std::chrono::milliseconds(std::max<qint64>(now.msecsTo(midnight), 1)));
}

void BrokerController::shutdown()
{
    if (m_shutdown || !m_initialized) {
        m_shutdown = true;
        return;
    }
    m_shutdown = true;
    for (QTimer *t : {&m_registerTimer, &m_offsetTimer, &m_delayOffsetTimer, &m_clientScanTimer,
             &m_statsSampleTimer, &m_statsMorningTimer, &m_slaveSyncTimer})
        t->stop();
    if (m_slaveSync)
        m_slaveSync->shutdown();
    if (m_started)
        m_registrar->unregisterBrokerAll(3000);
    m_registrar->shutdown();
    if (m_metricsServer)
        m_metricsServer->stop(); // before what a scrape reads goes away
    if (m_grpc)
        m_grpc->stop(); // before the processors its calls reach
    m_server->stop();
    m_fastServer->stop();
    if (m_acl)
        m_acl->stop();
    // Before the store: the slave stops appending, the master's waiting puts fail at the
    // store's shutdown (FLUSH_SLAVE_TIMEOUT) instead of waiting for a slave it no longer serves.
    if (m_haClient)
        m_haClient->stop();
    if (m_haService)
        m_haService->stop();
    m_pullHold->shutdown();
    m_pop->shutdown(); // before the store: its revive thread writes to it
    m_schedule->stop();
    if (m_timer)
        m_timer->stop();
    m_transactions->stop();
    for (auto &pool : {m_sendPool, m_pullPool, m_clientPool, m_adminPool})
        pool->shutdown();
    m_store->shutdown();
    persistOffsets();
    qCInfo(lcBroker) << "broker" << m_config.brokerName << "stopped";
}

quint16 BrokerController::listenPort() const
{
    return m_server ? m_server->serverPort() : 0;
}

void BrokerController::startGrpc(bool anyPort)
{
    if (m_config.grpcServerPort <= 0)
        return;
    v2::GrpcServerOptions o;
    o.port = anyPort ? 0 : m_config.grpcServerPort;
    o.advertisedHost = m_config.brokerIP1.toUtf8();
    o.brokerName = m_config.brokerName.toUtf8();
    o.maxBodySize = m_storeConfig.maxMessageSize;
    o.authMaxClockSkewSeconds = m_config.grpcAuthMaxClockSkewSeconds;
    o.tls = m_config.tls; // tls.server.* apply to the gRPC port too (grpctls.h)
    if (auto levels = parseMessageDelayLevel(m_config.messageDelayLevel))
        o.retryDelaysMs = *levels;
    // Routes across brokers: the name servers' route, with each broker's registered gRPC port.
    o.routeLookup = [registrar = m_registrar.get(), timeout = 2000](
                        const QByteArray &topic, v2::GrpcServerOptions::RouteDone done) {
        registrar->queryRoute(topic, timeout, std::move(done));
    };
    m_grpc = std::make_unique<v2::GrpcServer>(std::move(o), m_server->processorTable(), m_ctx);
    // The remoting ports are the broker's contract; a gRPC port already taken (another broker
    // on this host with the default 8081) is reported and the broker serves without it.
    if (Status st = m_grpc->start(); !st) {
        qCWarning(lcBroker).noquote() << st.message() << "- the broker runs without gRPC";
        m_grpc.reset();
        return;
    }
    m_registrar->setGrpcPort(m_grpc->port());
}

quint16 BrokerController::grpcPort() const
{
    return m_grpc ? m_grpc->port() : 0;
}

Status BrokerController::startMetrics()
{
    const remoting::MetricsSettings &settings = m_config.metrics;
    if (!settings.enabled())
        return {};
    BrokerMetrics::Sources sources;
    // RocketMQ 5's processor names for rocketmq_processor_watermark.
    sources.executors = {{"send", m_sendPool.get()}, {"pull", m_pullPool.get()},
        {"client_manager", m_clientPool.get()}, {"admin", m_adminPool.get()}};
    sources.pop = m_pop.get();
    m_metrics = std::make_unique<BrokerMetrics>(m_ctx, settings.metricsSeriesLimit, sources);
    remoting::MetricsHttpServer::Options options;
    options.host = settings.host();
    options.port = settings.port();
    // With the ACL on, a scrape needs an admin account's accessKey/secretKey (basic auth).
    if (m_acl)
        options.authenticate = [acl = m_acl](QByteArrayView user, QByteArrayView secret) {
            return qrocket::acl::isAdminCredential(*acl, user, secret);
        };
    m_metricsServer = std::make_unique<remoting::MetricsHttpServer>(
        std::move(options), [metrics = m_metrics.get()] { return metrics->collect(); });
    if (Status st = m_metricsServer->start(); !st)
        return st;
    qCInfo(lcBroker).noquote() << QStringLiteral("metrics at http://%1:%2/metrics%3")
                                      .arg(settings.host().toString())
                                      .arg(m_metricsServer->port())
                                      .arg(m_acl ? QStringLiteral(
                                               " (basic auth: an ACL admin account)")
                                                 : QString());
    return {};
}

quint16 BrokerController::metricsPort() const
{
    return m_metricsServer ? m_metricsServer->port() : 0;
}

quint16 BrokerController::haListenPort() const
{
    return m_haService ? m_haService->port() : 0;
}

quint16 BrokerController::fastListenPort() const
{
    return m_fastServer ? m_fastServer->serverPort() : 0;
}

} // namespace qrocket::broker
