#include "clientlib/client/clientconfig.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QNetworkInterface>

#include <chrono>
#include <map>
#include <mutex>

namespace qrocket::client {

QByteArray ClientConfig::resolvedNamesrvAddr() const
{
    if (!namesrvAddr.isEmpty())
        return namesrvAddr;
    return qgetenv("NAMESRV_ADDR");
}

QByteArray ClientConfig::resolvedClientIP() const
{
    return clientIP.isEmpty() ? localAddress() : clientIP;
}

QByteArray ClientConfig::resolvedInstanceName() const
{
    if (instanceName != "DEFAULT" || !instanceNameToPid)
        return instanceName;
    // One value per process and name-server list: objects that keep the default share one
    // ClientInstance per cluster (Java 4.9.7 gives each object its own), and objects talking to
    // different clusters never share one by accident.
    static std::mutex mutex;
    static std::map<QByteArray, QByteArray> names;
    std::lock_guard lock(mutex);
    QByteArray &name = names[resolvedNamesrvAddr()];
    if (name.isEmpty()) {
        const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch())
                               .count();
        name = QByteArray::number(QCoreApplication::applicationPid()) + '#'
            + QByteArray::number(static_cast<qint64>(nanos));
    }
    return name;
}

QByteArray ClientConfig::buildClientId() const
{
    QByteArray id = resolvedClientIP() + '@' + resolvedInstanceName();
    if (!unitName.isEmpty())
        id += '@' + unitName;
    return id;
}

QByteArray ClientConfig::tlsKey() const
{
    if (!tls.enable)
        return {};
    const QStringList parts {tls.configFile, tls.clientTrustCertPath, tls.clientCertPath,
        tls.clientKeyPath, tls.clientAuthServer ? QStringLiteral("verify") : QString(),
        tls.testModeEnable ? QStringLiteral("test") : QString()};
    return "tls:" + parts.join(QLatin1Char('|')).toUtf8();
}

QByteArray ClientConfig::localAddress()
{
    static const QByteArray address = [] {
        for (const QHostAddress &a : QNetworkInterface::allAddresses()) {
            if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback()
                && !a.isLinkLocal())
                return a.toString().toLatin1();
        }
        return QByteArray("127.0.0.1");
    }();
    return address;
}

} // namespace qrocket::client
