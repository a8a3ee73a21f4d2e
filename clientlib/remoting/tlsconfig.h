#pragma once

// TLS settings under RocketMQ's property names (TlsSystemConfig), and what the remoting server
// and client build from them with Qt's TLS backend (OpenSSL).
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
//
// TlsServerContext is thread-safe: every I/O thread asks it for the configuration of a new
// connection; it checks the files' modification times at most once a second and reloads them when
// they changed (a file that does not load keeps the last good configuration, logged).

#include "clientlib/common/result.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSslConfiguration>
#include <QString>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>

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

/// False when Qt has no working TLS backend; `why` then says what to install.
bool tlsAvailable(QString *why);

class TlsServerContext
{
public:
    /// Reads the files of `settings` (tls.config.file included). Fails with a message naming the
    /// key and file when the mode is unknown, TLS is unavailable, or a file does not load.
    static Result<std::shared_ptr<TlsServerContext>> create(TlsSettings settings);

    TlsMode mode() const { return m_mode; }
    /// The configuration of a new server connection (reloaded files included). Any thread.
    QSslConfiguration configuration();
    /// How many times changed files were loaded since start.
    std::int64_t reloads() const { return m_reloads.load(std::memory_order_relaxed); }

private:
    struct Stamp
    {
        QDateTime modified;
        qint64 size = -1;
        bool operator==(const Stamp &) const = default;
    };
    explicit TlsServerContext(TlsSettings settings, TlsMode mode);
    Result<QSslConfiguration> load() const;
    std::array<Stamp, 3> stamps() const;

    const TlsSettings m_settings;
    const TlsMode m_mode;
    std::mutex m_mutex;
    QSslConfiguration m_config; // guarded by m_mutex
    std::array<Stamp, 3> m_stamps; // guarded by m_mutex
    QElapsedTimer m_lastCheck; // guarded by m_mutex
    std::atomic<std::int64_t> m_reloads {0};
};

/// A client's TLS configuration from tls.client.* and tls.test.mode.enable. Fails naming the key
/// and file when a file does not load or TLS is unavailable.
Result<QSslConfiguration> clientTlsConfiguration(const TlsSettings &settings);

} // namespace qrocket::remoting
