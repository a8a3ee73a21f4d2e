#pragma once

// TLS settings under RocketMQ's property names (TlsSystemConfig); tlsconfig.h builds Qt's TLS
// configurations from them (Qt Core only here: config structs include this).
//
//   TlsSettings tls;                         // bound into a daemon's ConfigSchema with bind()
//   tls.loadConfigFile();                    // tls.config.file, as RocketMQ's TlsHelper reads it
//   auto server = TlsServerContext::create(tls);      // RemotingServer::start() does this
//   auto client = clientTlsConfiguration(tls);        // RemotingClient does this
//
// Keys (in a daemon's -c file, and in the properties file named by tls.config.file, whose values
// win over the -c file's for every key but tls.server.mode and tls.enable, as in RocketMQ):
//   tls.server.mode              disabled | permissive | enforcing. A server sniffs the first byte
//                                of each connection (0x16: a TLS handshake record): permissive
//                                serves TLS and plain clients, enforcing closes plain ones,
//                                disabled never starts TLS.
//   tls.server.certPath          PEM certificate (chain) of the server
//   tls.server.keyPath           PEM private key (PKCS#8 or traditional; RSA or EC)
//   tls.server.keyPassword       its passphrase when encrypted (a secret: never printed)
//   tls.server.trustCertPath     PEM CA certificates client certificates must chain to
//   tls.server.need.client.auth  none | optional (asked for, not required) | require
//   tls.server.authClient        accepted for RocketMQ's files; a required client certificate is
//                                always verified here
//   tls.enable                   client side: connect with TLS
//   tls.client.certPath / tls.client.keyPath / tls.client.keyPassword   the client's certificate
//   tls.client.trustCertPath     PEM CAs the server certificate must chain to (default: the
//                                system's)
//   tls.client.authServer        verify the server's certificate and host name
//   tls.test.mode.enable         client: skip verification of the server (RocketMQ's test mode)
//   tls.config.file              default /etc/rocketmq/tls.properties, read when it exists
//
// Deliberate differences from RocketMQ 4.9, where RocketMQ was unsafe by default:
// tls.server.mode defaults to disabled (RocketMQ: permissive with a self-signed certificate made
// at start, which authenticates nothing), permissive and enforcing need a certificate and key
// (no test certificate is made up), a client verifies the server unless told otherwise
// (RocketMQ: tls.client.authServer=false, tls.test.mode.enable=true, i.e. no verification).

#include "clientlib/common/result.h"

#include <QString>

namespace qrocket {
class ConfigSchema;
}

namespace qrocket::remoting {

enum class TlsMode { Disabled, Permissive, Enforcing };

/// "disabled" / "permissive" / "enforcing" (any case); InvalidArgument otherwise.
Result<TlsMode> parseTlsMode(const QString &text);
const char *tlsModeName(TlsMode mode);

struct TlsSettings
{
    QString serverMode = QStringLiteral("disabled");
    QString configFile = QStringLiteral("/etc/rocketmq/tls.properties");
    bool testModeEnable = false;
    QString serverNeedClientAuth = QStringLiteral("none");
    QString serverCertPath;
    QString serverKeyPath;
    QString serverKeyPassword;
    QString serverTrustCertPath;
    bool serverAuthClient = false;
    bool enable = false;
    QString clientCertPath;
    QString clientKeyPath;
    QString clientKeyPassword;
    QString clientTrustCertPath;
    bool clientAuthServer = true;

    /// Adds every key above to `schema` (the fields must outlive it).
    void bind(ConfigSchema &schema);
    /// Applies tls.config.file when it exists (a missing default file is not an error; a missing
    /// file that was named explicitly is). IoError/InvalidArgument naming the file otherwise.
    Status loadConfigFile();
    /// The server mode (InvalidArgument naming tls.server.mode when unknown).
    Result<TlsMode> mode() const { return parseTlsMode(serverMode); }
    /// tls.server.mode and tls.server.need.client.auth are known values.
    Status validate() const;
};

} // namespace qrocket::remoting
