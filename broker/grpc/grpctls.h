#pragma once

// TLS on the gRPC port, from the remoting ports' keys and files (tls.server.*, tlssettings.h).
//   tls.server.mode=disabled    the gRPC port is plain;
//   tls.server.mode=enforcing   the gRPC port is TLS only (a plain client's handshake fails);
//   tls.server.mode=permissive  plain and TLS clients share the port, as on the remoting ports:
//                               grpc++ binds a port as either, so the broker owns the socket and
//                               sniffs each connection's first byte (grpcsniffer.h); gRPC's TLS
//                               listener is then an internal one on 127.0.0.1.
// The certificate, key (tls.server.keyPassword decrypts it), trust file and
// tls.server.need.client.auth (none / optional: asked for, not verified / require: verified
// against tls.server.trustCertPath) are read once at start: unlike the remoting ports, a
// replaced certificate takes effect at the broker's next start.

#include "clientlib/common/result.h"
#include "clientlib/remoting/tlssettings.h"

#include <memory>

namespace grpc {
class ServerCredentials;
}

namespace qrocket::broker::v2 {

struct GrpcTlsSetup
{
    remoting::TlsMode mode = remoting::TlsMode::Disabled;
    /// TLS credentials (enforcing, permissive) or insecure ones (disabled).
    std::shared_ptr<grpc::ServerCredentials> credentials;
};

/// The gRPC port's mode and credentials for `settings`; an error naming the key and file when
/// TLS is on and a file does not load.
Result<GrpcTlsSetup> grpcServerCredentials(const remoting::TlsSettings &settings);

} // namespace qrocket::broker::v2
