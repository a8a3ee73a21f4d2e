#pragma once

// The name server's GET /metrics answer (clientlib/remoting/metricshttpserver.h serves it):
//
//   qrocket_namesrv_brokers_live                  brokers registered and not expired
//   qrocket_namesrv_broker_last_update_age_seconds{cluster,broker,broker_id,addr}
//                                                 since each one's last registration
//   qrocket_namesrv_topics                        topics with a route
//   qrocket_namesrv_registrations_total           REGISTER_BROKER requests handled
//   qrocket_connections, qrocket_connection_limit, qrocket_remoting_refused_total{reason},
//   qrocket_acl_refusals_total (aclEnable), process_resident_memory_bytes, process_open_fds
//
// Built on the metrics thread from the route table's snapshot (its read lock, briefly).

#include <QByteArray>

namespace qrocket::remoting {
class RemotingServer;
}
namespace qrocket::acl {
class AclGuard;
}

namespace qrocket::namesrv {

class RouteInfoManager;

QByteArray collectNamesrvMetrics(const RouteInfoManager &routes,
    const remoting::RemotingServer *server, const acl::AclGuard *acl);

} // namespace qrocket::namesrv
