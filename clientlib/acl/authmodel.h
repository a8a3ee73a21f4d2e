#pragma once

// RocketMQ 5's ACL 2.0 model (protocol.md §9), served by the broker next to plain_acl.yml:
// users and their ACLs, and the decision for one request.
//
//   User     username, password (the request's AccessKey and the secret it signs with),
//            userType Super | Normal, userStatus enable | disable.
//   Acl      subject "User:<name>", policies: policyType Custom | Default, each a list of
//            entries: resource × actions × sourceIps → decision Allow | Deny.
//   Resource "*" (anything), "Cluster:<name>", "Topic:<name>", "Group:<name>"; a name of "*" is
//            ANY, a name ending in "*" is PREFIXED, anything else LITERAL. A group named
//            "%RETRY%<g>" is the group <g> (its retry topic follows the group).
//   Actions  Pub, Sub, Create, Update, Delete, Get, List, All (All in an entry grants any).
//
// The decision (authorize()), as RocketMQ 5.3's UserAuthorizationHandler and
// AclAuthorizationHandler make it:
//   1. a Super user may do everything;
//   2. the user's Custom entries that match the resource, one of the actions and the peer
//      (an entry with sourceIps matches only peers inside one of them, IPs or CIDR ranges);
//      when none matches, the Default entries;
//   3. no matching entry: refused ("no matched policies."); else the most specific matching
//      entries decide: LITERAL over PREFIXED (a longer prefix over a shorter one) over ANY
//      over the "*" resource; among equally specific entries Deny wins ("the decision is deny.").
// RocketMQ 5.3.3's comparator meant to do the same but sorts an Allow before a Deny of equal
// rank and a shorter prefix first; QRocket does what its comment and documentation say.
//
// authChecks() names what a request needs (DefaultAuthorizationContextBuilder's table and the
// @RocketMQAction annotations of RocketMQ 5.3's request headers, for the codes QRocket serves):
// e.g. SEND_MESSAGE(_V2) Topic:<t> Pub, or Group:<g> Sub for a retry topic; PULL_MESSAGE
// Topic:<t> Sub and Group:<g> Sub; HEART_BEAT each consumer group and subscribed topic Sub;
// admin reads Get on their topic/group, or Get on Cluster:<brokerClusterName>. QRocket also
// checks SEND_REPLY_MESSAGE(_V2) as a send (RocketMQ 5.3 checks nothing for them).
//
// Values only; AuthData is published as an immutable snapshot (thread-safe to read).

#include "clientlib/common/result.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QByteArray>
#include <QHostAddress>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace qrocket::acl {

enum class UserType : std::uint8_t { Normal, Super };
enum class UserStatus : std::uint8_t { Enable, Disable };

struct AuthUser
{
    QByteArray username;
    QByteArray password;
    UserType type = UserType::Normal;
    UserStatus status = UserStatus::Enable;
    /// QRocket: made by the import of a plain_acl.yml account and not changed since. While the
    /// account is still in plain_acl.yml, that file decides for it (see aclguard.h).
    bool imported = false;
};

enum class ResourceType : std::uint8_t { Any, Cluster, Namespace, Topic, Group };
enum class ResourcePattern : std::uint8_t { Any, Literal, Prefixed };

struct Resource
{
    ResourceType type = ResourceType::Any;
    QByteArray name; // empty for ANY
    ResourcePattern pattern = ResourcePattern::Any;

    /// RocketMQ's Resource.of(key); nullopt for a blank key or an unknown type.
    static std::optional<Resource> parse(QByteArrayView key);
    static Resource topic(QByteArrayView name);
    /// "%RETRY%<g>" and "%DLQ%<g>" name the group <g>.
    static Resource group(QByteArrayView name);
    static Resource cluster(QByteArrayView name);
    /// "Topic:orders", "Topic:orders*", "Topic:*", "*".
    QByteArray key() const;
    /// Whether this (an entry's resource) covers `requested` (a LITERAL resource).
    bool matches(const Resource &requested) const;
    bool operator==(const Resource &) const = default;
};

using Actions = std::uint16_t;
namespace action {
inline constexpr Actions All = 1 << 0;
inline constexpr Actions Any = 1 << 1; // a request's "any action" (RocketMQ's Action.ANY)
inline constexpr Actions Pub = 1 << 2;
inline constexpr Actions Sub = 1 << 3;
inline constexpr Actions Create = 1 << 4;
inline constexpr Actions Update = 1 << 5;
inline constexpr Actions Delete = 1 << 6;
inline constexpr Actions Get = 1 << 7;
inline constexpr Actions List = 1 << 8;
/// "Pub", "sub", ... (any case); nullopt for an unknown name.
std::optional<Actions> parse(QByteArrayView name);
/// RocketMQ's names of the bits set, in its order ("All", "Pub", ...).
std::vector<QByteArray> names(Actions actions);
} // namespace action

enum class Decision : std::uint8_t { Allow, Deny };
enum class PolicyType : std::uint8_t { Custom, Default };

/// One sourceIps item: an address or a CIDR range.
struct SourceIp
{
    QByteArray text;
    QHostAddress network;
    int prefixLength = -1;
    static std::optional<SourceIp> parse(QByteArrayView text);
    bool matches(const QHostAddress &peer) const;
};

struct PolicyEntry
{
    Resource resource;
    Actions actions = 0;
    std::vector<SourceIp> sourceIps; // none: every peer
    Decision decision = Decision::Allow;
};

struct Policy
{
    PolicyType type = PolicyType::Custom;
    std::vector<PolicyEntry> entries;
};

struct AuthAcl
{
    QByteArray subject; // "User:<name>"
    std::vector<Policy> policies;

    /// RocketMQ's Acl.updatePolicy: each policy merges into the one of its type; an entry with
    /// the resource of an existing one replaces its actions, sourceIps and decision.
    void merge(const std::vector<Policy> &policies);
    /// Removes the entry of `resource` from the policy of `type`, and the policy once empty.
    void removeEntry(PolicyType type, const Resource &resource);
};

/// Every user and ACL; an immutable snapshot once published.
struct AuthData
{
    std::map<QByteArray, AuthUser> users; // by username
    std::map<QByteArray, AuthAcl> acls; // by subject ("User:<name>")

    const AuthUser *user(const QByteArray &username) const;
    const AuthAcl *acl(const QByteArray &subject) const;
};

/// "User:<name>".
QByteArray userSubject(QByteArrayView username);
/// The username of a "User:<name>" subject (type in any case); nullopt for any other subject.
std::optional<QByteArray> subjectUser(QByteArrayView subject);

// -- the wire bodies (authbodies.h) to the model and back, with RocketMQ 5.3's checks ---------

/// UserType/UserStatus names as RocketMQ writes them ("Super", "enable").
QByteArray userTypeName(UserType t);
QByteArray userStatusName(UserStatus s);
std::optional<UserType> parseUserType(QByteArrayView name);
std::optional<UserStatus> parseUserStatus(QByteArrayView name);
QByteArray decisionName(Decision d);
QByteArray policyTypeName(PolicyType t);
std::optional<PolicyType> parsePolicyType(QByteArrayView name);

/// A user as answered by AUTH_GET_USER / AUTH_LIST_USER: never with its password.
protocol::UserInfo toUserInfo(const AuthUser &user);
/// The policies of an AclInfo, checked as RocketMQ's AuthorizationMetadataManager checks
/// them; InvalidArgument with RocketMQ's message ("The resource is null.", ...).
Result<std::vector<Policy>> toPolicies(const protocol::AclInfo &info);
protocol::AclInfo toAclInfo(const AuthAcl &acl);

// -- the decision --------------------------------------------------------------------------

/// One thing a request needs: a LITERAL resource and the actions of which one must be granted.
struct AuthCheck
{
    Resource resource;
    Actions actions = 0;
};

/// What `request` needs; empty when RocketMQ 5.3 checks nothing for its code.
std::vector<AuthCheck> authChecks(
    const protocol::RemotingCommand &request, QByteArrayView clusterName);

/// nullopt when `user` may do `check` from `peer`; else RocketMQ's refusal text
/// ("User:bob has no permission to access Topic:t from 10.0.0.1, no matched policies.").
std::optional<QByteArray> authorize(
    const AuthData &data, const AuthUser &user, const AuthCheck &check, const QHostAddress &peer);

} // namespace qrocket::acl
