#pragma once

// The bodies of RocketMQ 5's ACL 2.0 requests (AUTH_CREATE_USER 3001 ... AUTH_LIST_ACL 3010,
// protocol.md §9), as RocketMQ 5.3's UserInfo and AclInfo serialise them:
//
//   UserInfo  {"username":"alice","password":"...","userType":"Super|Normal",
//              "userStatus":"enable|disable"}                 (absent members: not given)
//   AclInfo   {"subject":"User:alice","policies":[{"policyType":"Custom|Default",
//              "entries":[{"resource":"Topic:orders*","actions":["Pub","Sub"],
//                          "sourceIps":["10.0.0.0/8"],"decision":"Allow|Deny"}]}]}
//
// AUTH_GET_USER / AUTH_GET_ACL answer one of them (no body: not found), AUTH_LIST_USER /
// AUTH_LIST_ACL a JSON array of them (no body: none). The headers are plain ext fields:
//   3001-3004 "username"; 3005 "filter"; 3006, 3007, 3009 "subject";
//   3008 "subject", "policyType", "resource"; 3010 "subjectFilter", "resourceFilter".
//
// These are the wire values as text; clientlib/acl/authmodel.h turns them into checked rules.
// A QRocket broker never sends a password back (UserInfo::password stays empty in answers).

#include "clientlib/common/result.h"

#include <QByteArray>

#include <vector>

namespace qrocket::protocol {

namespace authfield {
inline constexpr char kUsername[] = "username";
inline constexpr char kFilter[] = "filter";
inline constexpr char kSubject[] = "subject";
inline constexpr char kPolicyType[] = "policyType";
inline constexpr char kResource[] = "resource";
inline constexpr char kSubjectFilter[] = "subjectFilter";
inline constexpr char kResourceFilter[] = "resourceFilter";
} // namespace authfield

struct UserInfo
{
    QByteArray username;
    QByteArray password;
    QByteArray userType; // "Super" / "Normal" (any case), empty: not given
    QByteArray userStatus; // "enable" / "disable" (any case), empty: not given

    /// Members that are empty are left out.
    QByteArray toJson() const;
    static Result<UserInfo> fromJson(QByteArrayView json);
    static QByteArray listToJson(const std::vector<UserInfo> &users);
    static Result<std::vector<UserInfo>> listFromJson(QByteArrayView json);
    bool operator==(const UserInfo &) const = default;
};

struct PolicyEntryInfo
{
    QByteArray resource; // "Topic:orders", "Group:g*", "Cluster:*", "*"
    std::vector<QByteArray> actions; // "Pub", "Sub", "Create", ..., "All"
    std::vector<QByteArray> sourceIps; // IPs or CIDR ranges; none: from anywhere
    QByteArray decision; // "Allow" / "Deny"
    bool operator==(const PolicyEntryInfo &) const = default;
};

struct PolicyInfo
{
    QByteArray policyType; // "Custom" / "Default"; empty: Custom
    std::vector<PolicyEntryInfo> entries;
    bool operator==(const PolicyInfo &) const = default;
};

struct AclInfo
{
    QByteArray subject; // "User:alice"
    std::vector<PolicyInfo> policies;

    QByteArray toJson() const;
    static Result<AclInfo> fromJson(QByteArrayView json);
    static QByteArray listToJson(const std::vector<AclInfo> &acls);
    static Result<std::vector<AclInfo>> listFromJson(QByteArrayView json);
    bool operator==(const AclInfo &) const = default;
};

class JsonWriter;
class JsonValue;
/// The same, inside a larger document (the broker's store file).
void writeUserInfo(JsonWriter &w, const UserInfo &u);
void writeAclInfo(JsonWriter &w, const AclInfo &a);
Result<UserInfo> readUserInfo(const JsonValue &v);
Result<AclInfo> readAclInfo(const JsonValue &v);

} // namespace qrocket::protocol
