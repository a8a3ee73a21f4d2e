#pragma once

// The configuration keys a daemon never changes because a request asked (UPDATE_BROKER_CONFIG 25,
// UPDATE_NAMESRV_CONFIG 318), whatever its configBlackList says, and the keys whose values it
// never prints (GET_BROKER_CONFIG 26, GET_NAMESRV_CONFIG 319).
//
// A request may come from anyone who reaches the port. A remote change of where the daemon keeps
// its files, which addresses and ports it uses, which role and identity it has or how it
// authenticates is a takeover (RocketMQ's CVE-2023-33246 and CVE-2023-37582 both came through
// these requests), so such keys are read from the config file only. The rules below cover the
// keys by their names' shape as well as by name, so a key added later (`metricsPort`,
// `etcdEndpoints`, `tls.server.certPath`, `innerSecretKey`) is protected from the start.
//
// Pure functions, thread-safe.

#include <QString>
#include <QStringList>
#include <QStringView>

namespace qrocket {

/// Why `key` may not be set by a request: empty when it may. `daemonKeys` are the daemon's own
/// identity keys (e.g. brokerName, brokerRole) that no shape rule names.
QString remoteConfigRefusal(QStringView key, const QStringList &daemonKeys);

/// Keys whose values are secrets (secret keys, passwords, tokens, credentials): never printed.
bool isSecretConfigKey(QStringView key);

/// The remark of a refused update, starting with RocketMQ's own words so that tools matching
/// them keep working: "Can not update config in black list: <key> (<why>)".
QString blackListRemark(QStringView key, const QString &why);

} // namespace qrocket
