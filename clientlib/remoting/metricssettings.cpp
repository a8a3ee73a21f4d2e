#include "clientlib/remoting/metricssettings.h"

#include "clientlib/common/properties.h"

namespace qrocket::remoting {

namespace {

bool isProm(const QString &type)
{
    return type.compare(QLatin1String("PROM"), Qt::CaseInsensitive) == 0
        || type == QLatin1String("2");
}

bool isDisabled(const QString &type)
{
    return type.isEmpty() || type.compare(QLatin1String("DISABLE"), Qt::CaseInsensitive) == 0
        || type == QLatin1String("0");
}

} // namespace

void MetricsSettings::bind(ConfigSchema &schema)
{
    schema.add("metricsPort", &metricsPort);
    schema.add("metricsHost", &metricsHost);
    schema.add("metricsExporterType", &metricsExporterType);
    schema.add("metricsPromExporterPort", &metricsPromExporterPort);
    schema.add("metricsPromExporterHost", &metricsPromExporterHost);
    schema.add("metricsSeriesLimit", &metricsSeriesLimit);
}

Status MetricsSettings::validate() const
{
    const auto bad = [](const char *key, const QString &why) {
        return Status::invalidArgument(QStringLiteral("%1: %2").arg(QLatin1String(key), why));
    };
    if (metricsPort < 0 || metricsPort > 65535)
        return bad("metricsPort", QStringLiteral("%1 is not a port (0-65535)").arg(metricsPort));
    if (metricsPromExporterPort < 1 || metricsPromExporterPort > 65535)
        return bad("metricsPromExporterPort",
            QStringLiteral("%1 is not a port (1-65535)").arg(metricsPromExporterPort));
    if (!isProm(metricsExporterType) && !isDisabled(metricsExporterType))
        return bad("metricsExporterType",
            QStringLiteral("'%1': QRocket serves PROM (2) or DISABLE (0) only")
                .arg(metricsExporterType));
    if (QHostAddress(metricsHost).isNull())
        return bad(
            "metricsHost", QStringLiteral("'%1' is not an IPv4 or IPv6 address").arg(metricsHost));
    if (!metricsPromExporterHost.isEmpty() && QHostAddress(metricsPromExporterHost).isNull())
        return bad("metricsPromExporterHost",
            QStringLiteral("'%1' is not an IPv4 or IPv6 address").arg(metricsPromExporterHost));
    if (metricsSeriesLimit < 0)
        return bad("metricsSeriesLimit", QStringLiteral("must be >= 0"));
    return {};
}

bool MetricsSettings::enabled() const
{
    return metricsPort > 0 || isProm(metricsExporterType);
}

quint16 MetricsSettings::port() const
{
    return static_cast<quint16>(metricsPort > 0 ? metricsPort : metricsPromExporterPort);
}

QHostAddress MetricsSettings::host() const
{
    if (metricsPort <= 0 && !metricsPromExporterHost.isEmpty())
        return QHostAddress(metricsPromExporterHost);
    return QHostAddress(metricsHost);
}

} // namespace qrocket::remoting
