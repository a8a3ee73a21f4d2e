#pragma once

// RocketMQ 4.9's plain ACL (protocol.md §9): the accounts of `plain_acl.yml` and the check of one
// signed request against them, as the Java client's AclClientRPCHook, ali-ons, rocketmq-client-
// cpp's SessionCredentials and the Java 5 remoting client sign it.
//
//   Result<PlainAclConfig> acl = PlainAclConfig::load(path);       // yaml-cpp; errors name line
//   std::optional<AclRefusal> no = acl->check(peer, request);      // nullopt: allowed
//
// The check, in RocketMQ's order:
//   1. the peer matches a globalWhiteRemoteAddresses pattern: allowed;
//   2. no AccessKey: refused; an unknown one: refused;
//   3. the peer matches the account's whiteRemoteAddress: allowed without a signature;
//   4. the Signature (clientlib/protocol/aclsignature.h) over everything but _UNIQUE_KEY_QUERY,
//      compared in constant time; a Java 4.9 client's QUERY_MESSAGE, signed with
//      _UNIQUE_KEY_QUERY included, is accepted too; a request with a duplicated ext key is
//      refused (its signed value and the value a processor reads could differ);
//   5. sends to RMQ_SYS_TRACE_TOPIC (message traces) are allowed;
//   6. admin codes need `admin: true`; each resource the request names (its topics PUB or SUB,
//      its group as %RETRY%<group> SUB) needs the account's permission for it: the explicit
//      topicPerms / groupPerms entry, else defaultTopicPerm / defaultGroupPerm; DENY never passes.
// A refusal is 1 SYSTEM_ERROR with "org.apache.rocketmq.acl.common.AclException: <why>", the
// code and text RocketMQ's broker answers; no refusal names a secret.
//
// Stricter than RocketMQ 4.9, which let any account do these: every destructive or security
// request is admin-only (kAdminCodes: topic, group and offset changes, config updates, cleanups,
// ACL requests, CONSUME_MESSAGE_DIRECTLY, VIEW_MESSAGE_BY_ID, the name server's KV, permission and
// topic deletions, broker registration); LOCK/UNLOCK_BATCH_MQ, GET/QUERY_CONSUMER_OFFSET and the
// consumer list need the group (RocketMQ checked none).
//
// Immutable after load(): check() is thread-safe and allocation-light (no JSON tree but for
// HEART_BEAT bodies, whose subscriptions name the topics).

#include "clientlib/common/addresspattern.h"
#include "clientlib/common/result.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace qrocket::acl {

/// RocketMQ's Permission bits.
namespace perm {
inline constexpr std::uint8_t Deny = 1;
inline constexpr std::uint8_t Any = 1 << 1;
inline constexpr std::uint8_t Pub = 1 << 2;
inline constexpr std::uint8_t Sub = 1 << 3;
/// "PUB", "SUB", "PUB|SUB", "SUB|PUB", "DENY" (case as written); nullopt for anything else.
std::optional<std::uint8_t> parse(QStringView text);
/// Permission.checkPermission: DENY owned never passes; ANY needs PUB or SUB.
bool allows(std::uint8_t needed, std::uint8_t owned);
} // namespace perm

/// The response to a refused request.
struct AclRefusal
{
    int code = 1; // SYSTEM_ERROR, as RocketMQ's broker answers an AclException
    QByteArray remark;
};

struct AclAccount
{
    QByteArray accessKey;
    QByteArray secretKey;
    std::vector<AddressPattern> whiteRemoteAddress; // may bypass the signature
    bool admin = false;
    std::uint8_t defaultTopicPerm = perm::Deny;
    std::uint8_t defaultGroupPerm = perm::Deny;
    /// topicPerms by topic; groupPerms by "%RETRY%<group>", as RocketMQ keeps them.
    std::unordered_map<QByteArray, std::uint8_t> resourcePerms;
};

class PlainAclConfig
{
public:
    /// Parses plain_acl.yml text. InvalidArgument naming the line and the entry for YAML that
    /// does not parse, an account without accessKey/secretKey, keys of 6 characters or fewer
    /// (RocketMQ's rule), a duplicated accessKey, an unknown permission, a bad address pattern.
    static Result<PlainAclConfig> parse(const QByteArray &yaml, const QString &source = {});
    /// Reads and parses a file (IoError when it cannot be read).
    static Result<PlainAclConfig> load(const QString &path);

    std::optional<AclRefusal> check(
        const QHostAddress &peer, const protocol::RemotingCommand &request) const;

    const std::unordered_map<QByteArray, AclAccount> &accounts() const { return m_accounts; }
    std::size_t globalWhiteCount() const { return m_globalWhite.size(); }
    /// Whether `peer` matches a globalWhiteRemoteAddresses pattern (allowed without a check).
    bool isGloballyWhite(const QHostAddress &peer) const;

private:
    std::vector<AddressPattern> m_globalWhite;
    std::unordered_map<QByteArray, AclAccount> m_accounts;
};

/// Whether the request's Signature is the request (`order`, whose duplicate() the caller has
/// refused: a signed value and the value a processor reads could differ) signed with `secret`,
/// compared in constant time: without _UNIQUE_KEY_QUERY in the content (RocketMQ's broker), or
/// with it (a Java 4.9 client's QUERY_MESSAGE).
bool signatureMatches(const protocol::ExtFieldOrder &order, QByteArrayView secret);

/// Codes only an admin account may send (see the file comment).
bool isAdminCode(int requestCode);

/// The resources a request needs and the permission it needs on each (PlainAccessValidator's
/// parse, plus QRocket's group checks); groups as "%RETRY%<group>".
std::vector<std::pair<QByteArray, std::uint8_t>> neededResources(
    const protocol::RemotingCommand &request);

} // namespace qrocket::acl
