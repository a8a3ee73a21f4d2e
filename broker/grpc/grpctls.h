#pragma once

// TLS on the gRPC port, from the remoting ports' keys and files (tls.server.*, tlssettings.h).
// gRPC's C++ server cannot sniff the first byte of a connection the way the remoting server does,
// so one port cannot serve TLS and plain clients at once:
//   tls.server.mode=disabled    the gRPC port is plain;
//   tls.server.mode=enforcing   the gRPC port is TLS only (a plain client's handshake fails);
//   tls.server.mode=permissive  the gRPC port stays plain (no client that works today breaks when
//                               the remoting ports go permissive); the start logs that gRPC TLS
//                               needs enforcing.
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

/// The credentials of the gRPC port for `settings` (insecure ones unless enforcing); an error
/// naming the key and file when enforcing and a file does not load.
Result<std::shared_ptr<grpc::ServerCredentials>> grpcServerCredentials(
    const remoting::TlsSettings &settings, bool *tls);

} // namespace qrocket::broker::v2
