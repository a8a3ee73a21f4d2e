#pragma once

// Settings every producer, consumer and admin object of a process shares through its
// ClientInstance (RocketMQ's ClientConfig), with the Java client's names and defaults.
//
// The client id is "<clientIP>@<instanceName>[@<unitName>]"; an instance name of "DEFAULT" is
// replaced by "<pid>#<nanoTime>" as the Java client does, so two processes on one host never
// share an id. Objects with equal client ids and name servers share one ClientInstance (one
// connection per broker, one set of timers); the default name is one per process and cluster.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/tlssettings.h"

#include <QByteArray>

namespace qrocket::client {

struct ClientConfig
{
    /// "host:port;host:port". Empty: the NAMESRV_ADDR environment variable.
    QByteArray namesrvAddr;
    /// Empty: the first non-loopback IPv4 address of the host (127.0.0.1 when none).
    QByteArray clientIP;
    QByteArray instanceName = QByteArrayLiteral("DEFAULT");
    QByteArray unitName;
    /// Route refresh period (pollNameServerInterval).
    int pollNameServerInterval = 30000;
    /// Heartbeat period to every broker (heartbeatBrokerInterval).
    int heartbeatBrokerInterval = 30000;
    /// How often consumers commit their offsets (persistConsumerOffsetInterval).
    int persistConsumerOffsetInterval = 5000;
    /// Timeout of the client's own requests (routes, heartbeats, offsets).
    int mqClientApiTimeout = 3000;
    /// Replace an instance name of "DEFAULT" by "<pid>#<nanoTime>" (every object but a
    /// broadcasting consumer, whose local offset file path must stay the same across runs).
    bool instanceNameToPid = true;
    /// The language and version written into every request header.
    protocol::LanguageCode language = protocol::LanguageCode::Cpp;
    /// ACL credentials (RocketMQ's SessionCredentials / AclClientRPCHook): with an accessKey,
    /// every request this client sends is signed (clientlib/protocol/aclsignature.h). Objects
    /// with different access keys never share a client instance.
    QByteArray accessKey;
    QByteArray secretKey;
    QByteArray securityToken;
    /// TLS (RocketMQ's tls.enable, tls.client.*, tls.config.file;
    /// clientlib/remoting/tlssettings.h): with tls.enable every connection of the instance uses TLS
    /// and verifies the server's certificate unless tls.client.authServer is false. Certificate
    /// files that do not load fail every request with the reason; a failed handshake fails it with
    /// the certificate errors. Objects with different TLS settings never share a client instance.
    remoting::TlsSettings tls;
    /// What tells TLS settings apart in the instance registry ("" without TLS).
    QByteArray tlsKey() const;

    /// namesrvAddr, or NAMESRV_ADDR when empty.
    QByteArray resolvedNamesrvAddr() const;
    /// clientIP, or the detected address.
    QByteArray resolvedClientIP() const;
    /// The instance name with "DEFAULT" replaced by "<pid>#<nanoTime>" (one per process and
    /// name-server list, so objects of one cluster share an instance and two clusters never do).
    QByteArray resolvedInstanceName() const;
    QByteArray buildClientId() const;

    /// The host's first non-loopback IPv4 address, else 127.0.0.1 (detected once).
    static QByteArray localAddress();
};

} // namespace qrocket::client
