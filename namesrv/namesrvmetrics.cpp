#include "namesrv/namesrvmetrics.h"

#include "clientlib/acl/aclguard.h"
#include "clientlib/remoting/metricswriter.h"
#include "clientlib/remoting/remotingserver.h"
#include "namesrv/routeinfomanager.h"

namespace qrocket::namesrv {

using remoting::MetricsWriter;
using remoting::MetricType;

QByteArray collectNamesrvMetrics(const RouteInfoManager &routes,
    const remoting::RemotingServer *server, const acl::AclGuard *acl)
{
    MetricsWriter w;
    w.declare(
        "qrocket_namesrv_brokers_live", MetricType::Gauge, "Brokers registered and not expired.");
    w.declare("qrocket_namesrv_broker_last_update_age_seconds", MetricType::Gauge,
        "Seconds since the broker's last registration or data-version query.");
    w.declare("qrocket_namesrv_topics", MetricType::Gauge, "Topics with a route.");
    w.declare("qrocket_namesrv_registrations_total", MetricType::Counter,
        "REGISTER_BROKER requests handled since start.");
    w.declare("qrocket_acl_refusals_total", MetricType::Counter, "Requests the ACL refused.");

    const QList<BrokerLiveness> live = routes.brokerLiveness();
    w.add("qrocket_namesrv_brokers_live", {}, static_cast<double>(live.size()));
    for (const BrokerLiveness &b : live)
        w.add("qrocket_namesrv_broker_last_update_age_seconds",
            {{"cluster", b.clusterName}, {"broker", b.brokerName},
                {"broker_id", QByteArray::number(b.brokerId)}, {"addr", b.brokerAddr}},
            static_cast<double>(b.ageMs) / 1000.0);
    w.add("qrocket_namesrv_topics", {}, routes.topicCount());
    w.add("qrocket_namesrv_registrations_total", {}, static_cast<double>(routes.registrations()));
    if (server)
        remoting::writeRemotingServerMetrics(w, server->stats(), "Open client connections.");
    if (acl)
        w.add("qrocket_acl_refusals_total", {}, static_cast<double>(acl->refusals()));
    remoting::writeProcessMetrics(w);
    return w.text();
}

} // namespace qrocket::namesrv
