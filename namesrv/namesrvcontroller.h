#pragma once

// NamesrvController: wires the name server together (RocketMQ's NamesrvController):
// RouteInfoManager + KvConfigManager + config store behind a RemotingServer, with the liveness
// scan as a QTimer.
//
//   NamesrvController controller(config);
//   if (Status st = controller.initialize(); !st) ...   // loads kvConfig.json, registers codes
//   if (Status st = controller.start(); !st) ...        // listens (port 0 = any, see serverPort())
//   ...
//   controller.shutdown();                              // also done by the destructor
//
// Threads: lives on the thread that creates it, which needs an event loop for the scan timer.
// Read requests run inline on the remoting I/O threads; requests that change state run in order
// on one worker thread ("NSWriter"), which also handles connection closes, so a broker's
// registration and the close of its connection are applied in the order they happened.

#include "clientlib/common/status.h"
#include "namesrv/namesrvconfig.h"

#include <QObject>
#include <QTimer>

#include <memory>

namespace qrocket::remoting {
class MetricsHttpServer;
class RemotingServer;
class ThreadPoolExecutor;
} // namespace qrocket::remoting

namespace qrocket::acl {
class AclGuard;
} // namespace qrocket::acl

namespace qrocket::namesrv {

class DefaultRequestProcessor;
class KvConfigManager;
class RouteInfoManager;

class NamesrvController : public QObject
{
    Q_OBJECT

public:
    explicit NamesrvController(const NamesrvConfig &config, QObject *parent = nullptr);
    ~NamesrvController() override;

    Status initialize();
    Status start();
    void shutdown();

    /// The bound port once started (the configured one, or the chosen one for listenPort=0).
    quint16 serverPort() const;
    /// The port of GET /metrics once started (metricsPort / metricsExporterType=PROM), else 0.
    quint16 metricsPort() const;
    RouteInfoManager &routeInfoManager() { return *m_routes; }
    KvConfigManager &kvConfigManager() { return *m_kv; }
    NamesrvConfigStore &configStore() { return m_config; }
    remoting::RemotingServer *remotingServer() { return m_server.get(); }

private:
    void scanNotActiveBroker();
    void onChannelClosed(quint64 channelId);

    NamesrvConfigStore m_config;
    std::unique_ptr<RouteInfoManager> m_routes;
    std::unique_ptr<KvConfigManager> m_kv;
    std::shared_ptr<DefaultRequestProcessor> m_processor;
    std::shared_ptr<remoting::ThreadPoolExecutor> m_writer;
    std::shared_ptr<acl::AclGuard> m_acl; // aclEnable only
    std::unique_ptr<remoting::RemotingServer> m_server;
    std::unique_ptr<remoting::MetricsHttpServer> m_metrics; // when enabled
    QTimer m_scanTimer;
    bool m_initialized = false;
};

} // namespace qrocket::namesrv
