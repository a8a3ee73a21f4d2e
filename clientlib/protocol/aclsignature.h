#pragma once

// RocketMQ's request signature (AclClientRPCHook / AclSigner, protocol.md §9.1), shared by the
// broker and name server that check it and every QRocket program that signs:
//   Signature = Base64(HMAC-SHA1(secretKey, values of every ext field but Signature, ordered by
//               key, then the body)).
// ali-ons and rocketmq-client-cpp sign the same way (ali-ons's OnsChannel is just another ext
// field). Pure functions, thread-safe; no allocation per field (the MAC is fed piece by piece; the
// digest is libcrypto's when it loads, hmacsha1.h).

#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QByteArrayView>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace qrocket::protocol {

inline constexpr QByteArrayView kAclAccessKey = "AccessKey";
inline constexpr QByteArrayView kAclSignature = "Signature";
inline constexpr QByteArrayView kAclSecurityToken = "SecurityToken";
inline constexpr QByteArrayView kAclUniqueKeyQuery = "_UNIQUE_KEY_QUERY";

/// A request's ext fields in the order the signature reads them: by key, equal keys in arrival
/// order. Made once per check and shared by the duplicate test and the signatures (a broker may
/// compute two); no allocation up to kInline fields.
class ExtFieldOrder
{
public:
    explicit ExtFieldOrder(const RemotingCommand &request);
    ExtFieldOrder(const ExtFieldOrder &) = delete;
    ExtFieldOrder &operator=(const ExtFieldOrder &) = delete;

    /// The first key (in key order) that the request carries twice, or nullptr.
    const QByteArray *duplicate() const;
    const RemotingCommand &request() const { return m_request; }
    std::span<const std::uint32_t> indexes() const { return m_order; }

private:
    static constexpr std::size_t kInline = 48;
    const RemotingCommand &m_request;
    std::array<std::uint32_t, kInline> m_inline;
    std::vector<std::uint32_t> m_heap; // more than kInline fields
    std::span<std::uint32_t> m_order;
};

/// The signature of `request` with `secretKey`; `skip` (if not empty) is left out of the content
/// too (the broker leaves _UNIQUE_KEY_QUERY out; a Java 4.9 client signed it). With duplicated
/// ext keys the last value counts, as in Java's HashMap.
QByteArray aclSignature(
    QByteArrayView secretKey, const RemotingCommand &request, QByteArrayView skip = {});
QByteArray aclSignature(
    QByteArrayView secretKey, const ExtFieldOrder &order, QByteArrayView skip = {});

/// Sets AccessKey (and SecurityToken when not empty), then Signature, as AclClientRPCHook does.
void aclSign(RemotingCommand &request, const QByteArray &accessKey, const QByteArray &secretKey,
    const QByteArray &securityToken = {});

/// Compares two byte strings in time that depends on their lengths only.
bool constantTimeEquals(QByteArrayView a, QByteArrayView b);

} // namespace qrocket::protocol
