#pragma once

// RocketMQ's request signature (AclClientRPCHook / AclSigner, protocol.md §9.1), shared by the
// broker and name server that check it and every QRocket program that signs:
//   Signature = Base64(HMAC-SHA1(secretKey, values of every ext field but Signature, ordered by
//               key, then the body)).
// ali-ons and rocketmq-client-cpp sign the same way (ali-ons's OnsChannel is just another ext
// field). Pure functions, thread-safe; no allocation per field (the MAC is fed piece by piece).

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QByteArrayView>

namespace qrocket::protocol {

inline constexpr QByteArrayView kAclAccessKey = "AccessKey";
inline constexpr QByteArrayView kAclSignature = "Signature";
inline constexpr QByteArrayView kAclSecurityToken = "SecurityToken";
inline constexpr QByteArrayView kAclUniqueKeyQuery = "_UNIQUE_KEY_QUERY";

/// The signature of `request` with `secretKey`; `skip` (if not empty) is left out of the content
/// too (the broker leaves _UNIQUE_KEY_QUERY out; a Java 4.9 client signed it). With duplicated
/// ext keys the last value counts, as in Java's HashMap.
QByteArray aclSignature(
    QByteArrayView secretKey, const RemotingCommand &request, QByteArrayView skip = {});

/// Sets AccessKey (and SecurityToken when not empty), then Signature, as AclClientRPCHook does.
void aclSign(RemotingCommand &request, const QByteArray &accessKey, const QByteArray &secretKey,
    const QByteArray &securityToken = {});

/// Compares two byte strings in time that depends on their lengths only.
bool constantTimeEquals(QByteArrayView a, QByteArrayView b);

} // namespace qrocket::protocol
