#include "clientlib/common/configkeys.h"

#include <initializer_list>

namespace qrocket {

namespace {

bool containsAny(QStringView key, std::initializer_list<const char *> words)
{
    for (const char *w : words) {
        if (key.contains(QLatin1String(w), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

bool endsWithAny(QStringView key, std::initializer_list<const char *> suffixes)
{
    for (const char *s : suffixes) {
        if (key.endsWith(QLatin1String(s), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace

QString remoteConfigRefusal(QStringView key, const QStringList &daemonKeys)
{
    if (key.startsWith(QLatin1String("tls."), Qt::CaseInsensitive)
        || key.startsWith(QLatin1String("acl"), Qt::CaseInsensitive) || isSecretConfigKey(key)
        || containsAny(key, {"accessKey", "whiteRemote", "allowed", "auth"}))
        return QStringLiteral("a security key");
    if (key.startsWith(QLatin1String("storePath")) || key == QLatin1String("configBlackList")
        || endsWithAny(key, {"Path", "Dir", "Home", "File"}))
        return QStringLiteral("a path");
    if (endsWithAny(key, {"Addr", "Address", "Addresses", "Endpoints", "IP1", "IP2", "Host"}))
        return QStringLiteral("an address");
    if (endsWithAny(key, {"Port"}))
        return QStringLiteral("a port");
    // Whether and where GET /metrics is served (metricsExporterType, metricsSeriesLimit, ...).
    if (key.startsWith(QLatin1String("metrics")))
        return QStringLiteral("a metrics endpoint key");
    if (key.endsWith(QLatin1String("Role")) || key.contains(QLatin1String("ControllerMode"))
        || daemonKeys.contains(key))
        return QStringLiteral("a role or identity key");
    return {};
}

bool isSecretConfigKey(QStringView key)
{
    return containsAny(key, {"secret", "password", "token", "credential", "privateKey"});
}

QString blackListRemark(QStringView key, const QString &why)
{
    QString remark = QStringLiteral("Can not update config in black list: ") + key.toString();
    if (!why.isEmpty())
        remark += QStringLiteral(" (") + why + QStringLiteral(", set only in the config file)");
    return remark;
}

} // namespace qrocket
