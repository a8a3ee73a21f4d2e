#include "namesrv/namesrvcontroller.h"

#include "clientlib/acl/aclguard.h"
#include "clientlib/acl/adminauth.h"
#include "clientlib/remoting/executor.h"
#include "clientlib/remoting/metricshttpserver.h"
#include "clientlib/remoting/remotingserver.h"
#include "namesrv/defaultrequestprocessor.h"
#include "namesrv/kvconfigmanager.h"
#include "namesrv/logging.h"
#include "namesrv/namesrvmetrics.h"
#include "namesrv/routeinfomanager.h"

#include <chrono>

namespace qrocket::namesrv {

NamesrvController::NamesrvController(const NamesrvConfig &config, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_routes(std::make_unique<RouteInfoManager>())
    , m_kv(std::make_unique<KvConfigManager>(config.kvConfigPath))
{
    connect(&m_scanTimer, &QTimer::timeout, this, &NamesrvController::scanNotActiveBroker);
}

NamesrvController::~NamesrvController()
{
    shutdown();
}

Status NamesrvController::initialize()
{
    if (m_initialized)
        return {};
    const NamesrvConfig config = m_config.snapshot();
    if (Status st = config.validate(); !st.isOk())
        return st;
    if (Status st = m_kv->load(); !st.isOk())
        return Status(st.code(), QStringLiteral("cannot load KV config: %1").arg(st.message()));
    m_routes->setDeleteTopicWithBrokerRegistration(config.deleteTopicWithBrokerRegistration);
    if (config.aclEnable) {
        m_acl = std::make_shared<acl::AclGuard>(
            acl::AclGuard::defaultPath(config.aclFilePath, config.rocketmqHome));
        if (Status st = m_acl->start(); !st.isOk())
            return st;
    }

    remoting::RemotingServer::Options options;
    options.listenAddress = QHostAddress(config.listenAddress);
    options.port = static_cast<quint16>(config.listenPort);
    options.ioThreads = config.serverSelectorThreads;
    options.connection.idleTimeout
        = std::chrono::milliseconds(std::int64_t(config.serverChannelMaxIdleTimeSeconds) * 1000);
    options.connection.frameTimeout = std::chrono::milliseconds(config.serverFrameTimeoutMillis);
    options.connection.maxUnsentBytes = config.serverMaxUnsentBytes;
    options.connection.maxInflightRequests = config.serverMaxInflightRequestsPerConnection;
    options.maxConnections = config.serverMaxConnections;
    options.maxConnectionsPerAddress = config.serverMaxConnectionsPerAddress;
    options.maxPendingInputBytes = config.serverMaxPendingInputBytes;
    options.tls = config.tls;
    m_server = std::make_unique<remoting::RemotingServer>(options);

    m_writer
        = std::make_shared<remoting::ThreadPoolExecutor>(QByteArrayLiteral("NSWriter"), 1, 65536);
    m_processor = std::make_shared<DefaultRequestProcessor>(*m_routes, *m_kv, m_config);
    const QList<int> codes = DefaultRequestProcessor::requestCodes();
    for (const int code : codes) {
        if (DefaultRequestProcessor::isWriteCode(code))
            m_server->registerProcessor(code, m_processor, m_writer);
        else
            m_server->registerProcessor(code, m_processor);
    }
    connect(m_server.get(), &remoting::RemotingServer::channelClosed, this,
        [this](quint64 channelId, const QByteArray &) { onChannelClosed(channelId); });
    if (m_acl)
        m_server->processorTable().setRequestGuard(m_acl);
    m_initialized = true;
    return {};
}

Status NamesrvController::start()
{
    if (!m_initialized) {
        if (Status st = initialize(); !st.isOk())
            return st;
    }
    const NamesrvConfig config = m_config.snapshot();
    if (Status st = m_server->start(); !st.isOk()) {
        return Status(st.code(),
            QStringLiteral("cannot serve %1:%2: %3")
                .arg(config.listenAddress)
                .arg(config.listenPort)
                .arg(st.message()));
    }
    if (config.metrics.enabled()) {
        remoting::MetricsHttpServer::Options options;
        options.host = config.metrics.host();
        options.port = config.metrics.port();
        // With the ACL on, a scrape needs an admin account's accessKey/secretKey (basic auth).
        if (m_acl)
            options.authenticate = [acl = m_acl](QByteArrayView user, QByteArrayView secret) {
                return acl::isAdminCredential(*acl, user, secret);
            };
        m_metrics = std::make_unique<remoting::MetricsHttpServer>(std::move(options),
            [routes = m_routes.get(), server = m_server.get(), acl = m_acl.get()] {
                return collectNamesrvMetrics(*routes, server, acl);
            });
        if (Status st = m_metrics->start(); !st.isOk()) {
            m_server->stop();
            return st;
        }
        qCInfo(lcNamesrv).noquote() << QStringLiteral("metrics at http://%1:%2/metrics")
                                           .arg(config.metrics.host().toString())
                                           .arg(m_metrics->port());
    }
    m_scanTimer.start(std::chrono::milliseconds(config.scanNotActiveBrokerDelay));
    qCInfo(lcNamesrv).noquote() << "name server listening on" << config.listenAddress << "port"
                                << m_server->serverPort() << "; broker scan every"
                                << config.scanNotActiveBrokerInterval << "ms, expiry after"
                                << config.brokerChannelExpiredTime << "ms";
    return {};
}

void NamesrvController::shutdown()
{
    m_scanTimer.stop();
    if (m_metrics)
        m_metrics->stop();
    if (m_server && m_server->isRunning()) {
        m_server->stop();
        qCInfo(lcNamesrv) << "name server stopped";
    }
    if (m_writer)
        m_writer->shutdown();
    if (m_acl)
        m_acl->stop();
}

quint16 NamesrvController::metricsPort() const
{
    return m_metrics ? m_metrics->port() : 0;
}

quint16 NamesrvController::serverPort() const
{
    return m_server ? m_server->serverPort() : 0;
}

void NamesrvController::scanNotActiveBroker()
{
    // Interval and expiry are re-read each time, so UPDATE_NAMESRV_CONFIG takes effect.
    m_scanTimer.setInterval(std::chrono::milliseconds(m_config.scanNotActiveBrokerInterval()));
    const int removed = m_routes->scanNotActiveBroker(m_config.brokerChannelExpiredTime());
    if (removed > 0)
        qCInfo(lcNamesrvRoute) << "liveness scan removed" << removed << "broker(s)";
}

void NamesrvController::onChannelClosed(quint64 channelId)
{
    RouteInfoManager *routes = m_routes.get();
    if (!m_writer
        || !m_writer->tryExecute([routes, channelId] { routes->onChannelDestroy(channelId); }))
        routes->onChannelDestroy(channelId);
}

} // namespace qrocket::namesrv
