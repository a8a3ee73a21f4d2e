#pragma once

// The /metrics endpoint's settings, shared by the broker's and the name server's config files:
//
//   metricsPort=0                 QRocket: the port of GET /metrics; 0 (the default): no endpoint
//   metricsHost=127.0.0.1         QRocket: the address it listens on (loopback unless changed)
//   metricsExporterType=DISABLE   RocketMQ 5: PROM (or 2) serves /metrics on
//   metricsPromExporterPort=5557    metricsPromExporterPort, and on metricsPromExporterHost when
//   metricsPromExporterHost=        set (else metricsHost). OTLP_GRPC / LOG (1 / 3) are refused.
//   metricsSeriesLimit=2000       QRocket: per-topic and per-group series are written for at
//                                 most this many topics and topic@group pairs (per-queue lag
//                                 for 16 times as many queues); the rest are counted in
//                                 qrocket_metrics_series_dropped
//
// metricsPort wins over the RocketMQ 5 keys when both are set. Unlike RocketMQ 5 (all
// interfaces), an empty host means loopback: every open port is reachable by an attacker, so
// exposing the figures is an operator's explicit choice.

#include "clientlib/common/status.h"

#include <QHostAddress>
#include <QString>

namespace qrocket {
class ConfigSchema;
}

namespace qrocket::remoting {

struct MetricsSettings
{
    int metricsPort = 0;
    QString metricsHost = QStringLiteral("127.0.0.1");
    QString metricsExporterType = QStringLiteral("DISABLE");
    int metricsPromExporterPort = 5557;
    QString metricsPromExporterHost;
    int metricsSeriesLimit = 2000;

    void bind(ConfigSchema &schema);
    /// InvalidArgument naming the key for a port out of range, an unknown exporter type, an
    /// address that does not parse, a negative series limit.
    Status validate() const;
    /// Whether an endpoint is to be served (metricsPort > 0 or the PROM exporter type).
    bool enabled() const;
    /// The port and address to listen on (valid once validate() passed and enabled()).
    quint16 port() const;
    QHostAddress host() const;
};

} // namespace qrocket::remoting
