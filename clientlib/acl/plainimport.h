#pragma once

// The import of plain_acl.yml accounts into the ACL 2.0 model at start, as RocketMQ 5.3's
// AuthMigrator migrates ACL 1.0 (migrateAuthFromV1Enabled):
//   - each account whose accessKey is not a user yet becomes one: username = accessKey,
//     password = secretKey, admin: true → Super, else Normal, enabled. A user that exists is
//     left as it is (and so is its ACL), whatever the file says now;
//   - topicPerms / groupPerms become a Custom policy: one LITERAL Topic:<t> / Group:<g> entry
//     each, PUB → [Pub], SUB → [Sub], PUB|SUB → [Pub, Sub] Allow, DENY → [All] Deny;
//   - defaultTopicPerm / defaultGroupPerm become a Default policy on Topic:* / Group:* (the
//     same mapping; an unset default is DENY, which decides as RocketMQ's "no entry" does).
// whiteRemoteAddress and globalWhiteRemoteAddresses are not imported, as RocketMQ does not
// import them: ACL 2.0 has no unsigned access, and a sourceIps entry would restrict the account
// to those addresses instead. They keep working through plain_acl.yml (aclguard.h).
// Imported users are marked AuthUser::imported. Pure function.

#include "clientlib/acl/authmodel.h"
#include "clientlib/acl/plainacl.h"

namespace qrocket::acl {

/// Adds the accounts of `config` that `data` lacks; returns their names (sorted).
std::vector<QByteArray> importPlainAccounts(const PlainAclConfig &config, AuthData &data);

} // namespace qrocket::acl
