#pragma once

// Access control on the gRPC port (aclEnable=true): the broker's own AclGuard (plain_acl.yml
// accounts and ACL 2.0 users), so a gRPC client has the accounts, permissions and white lists a
// remoting client has. Two steps, as RocketMQ 5.3's proxy takes them:
//
//  1. Authentication, once per RPC (GuardedMessagingService wraps every handler): the SDKs'
//     `authorization` metadata,
//        MQv2-HMAC-SHA1 Credential=<accessKey>, SignedHeaders=x-mq-date-time, Signature=<hex>
//     where <hex> is HMAC-SHA1(secret, value of x-mq-date-time) in hex (any case). The secret is
//     the plain_acl.yml account's secretKey, or the ACL 2.0 user's password (the same precedence
//     as the guard: an ACL 2.0 user unless it is an untouched import of an account the file still
//     defines). A peer in globalWhiteRemoteAddresses needs no header; an account whose
//     whiteRemoteAddress matches the peer needs no valid signature (remoting's rules). A call
//     that must be signed is refused when its x-mq-date-time is not a date or is more than
//     grpcAuthMaxClockSkewSeconds (900) away from the broker's clock: a captured call is not
//     replayable past that (RocketMQ 5.3's proxy does not check the age; signed-request schemes
//     such as S3's refuse at 15 minutes). It is checked before the signature is computed.
//  2. Authorization, per internal request (MessagingServiceImpl::invoke): the request is signed
//     with the caller's key, as a remoting client signs, and put to the guard before dispatch; the
//     same request then passes the processor table's guard. QueryAssignment, which makes no
//     internal request, is checked as a POP of its topic by its group; QueryRoute needs
//     authentication only (remoting's route query names no resource either).
//
// Either refusal answers the RPC's response status UNAUTHORIZED (40100) with the reason, gRPC
// status OK, as the proxy's ResponseBuilder does for its AuthenticationException and
// AuthorizationException (it has no FORBIDDEN for ACL). Nothing here logs or answers a secret.
// Thread-safe: the guard's rules are immutable snapshots.

#include "clientlib/protocol/remotingcommand.h"
#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>

#include <cstdint>
#include <optional>
#include <string>

namespace grpc {
class CallbackServerContext;
}

namespace qrocket::acl {
class AclGuard;
struct AclAccount;
class PlainAclConfig;
} // namespace qrocket::acl

namespace qrocket::broker::v2 {

class GrpcPeers;

/// The code MessagingServiceImpl::invoke() completes a call with when the guard refused its
/// internal request (codeOfRemoting: UNAUTHORIZED).
inline constexpr int kUnauthorizedCode = -2;

/// Who an RPC's caller is (empty: no authorization header, or ACL off).
struct GrpcCredential
{
    QByteArray accessKey;
    QByteArray secretKey;
};

/// x-mq-date-time ("yyyyMMdd'T'HHmmss'Z'", UTC, as the SDKs send it) in seconds since the epoch;
/// nullopt when it is not that form or not a date.
std::optional<std::int64_t> parseSignedDateTime(QByteArrayView value);
/// Why a signed call's x-mq-date-time is refused at `nowSecs` (nullopt: fresh enough): not a
/// date, or more than `maxSkewSeconds` before or after it (0: not checked at all, as before). The
/// signature covers the date only, so without this a captured call could be replayed forever.
std::optional<std::string> checkSignedDateTime(
    QByteArrayView value, std::int64_t nowSecs, int maxSkewSeconds);

/// The parts of an `authorization` value; nullopt when it is not the SDKs' form.
struct AuthorizationHeader
{
    QByteArray accessKey; // Credential=, up to the first '/'
    QByteArray signatureHex; // Signature=
};
std::optional<AuthorizationHeader> parseAuthorization(QByteArrayView value);

class GrpcAuth
{
public:
    /// `guard` null: ACL is off and every check passes. `maxClockSkewSeconds`: how far a signed
    /// call's x-mq-date-time may be from the broker's clock (grpcAuthMaxClockSkewSeconds; 0: any).
    /// `peers`: the real addresses behind the permissive port's sniffer (grpcpeers.h), or null.
    explicit GrpcAuth(
        const acl::AclGuard *guard, int maxClockSkewSeconds = 900, const GrpcPeers *peers = nullptr)
        : m_guard(guard), m_maxClockSkewSeconds(maxClockSkewSeconds), m_peers(peers)
    { }

    bool enabled() const { return m_guard != nullptr; }

    /// Step 1 for a call: nullopt when it may go on, else the proxy's reason.
    std::optional<std::string> authenticate(const grpc::CallbackServerContext *context) const;
    /// The caller's key and secret, to sign its internal requests (authenticate() has checked
    /// the signature of this call already).
    GrpcCredential credentialOf(const grpc::CallbackServerContext *context) const;
    /// Step 2: signs `request` with `who` (when it has a key) and asks the guard; nullopt: allowed.
    std::optional<QByteArray> authorize(const remoting::Channel &channel, const GrpcCredential &who,
        protocol::RemotingCommand &request) const;

private:
    /// The secret of `accessKey` (nullopt: unknown); `reason` set for a known key that may not
    /// sign in (a disabled ACL 2.0 user); `plainAccount` set when the guard decides the key by
    /// plain_acl.yml (whose whiteRemoteAddress then applies), null for an ACL 2.0 user.
    /// `rules` is the snapshot the caller holds (`plainAccount` points into it).
    std::optional<QByteArray> secretOf(const acl::PlainAclConfig &rules,
        const QByteArray &accessKey, std::string *reason,
        const acl::AclAccount **plainAccount) const;

    const acl::AclGuard *m_guard;
    const int m_maxClockSkewSeconds;
    const GrpcPeers *m_peers;
};

} // namespace qrocket::broker::v2
