#include "clientlib/acl/plainimport.h"

#include <algorithm>

namespace qrocket::acl {

namespace {

constexpr QByteArrayView kRetryPrefix = "%RETRY%";

PolicyEntry entryFor(Resource resource, std::uint8_t p)
{
    PolicyEntry e;
    e.resource = std::move(resource);
    if (p & perm::Deny) {
        e.actions = action::All;
        e.decision = Decision::Deny;
        return e;
    }
    if (p & perm::Pub)
        e.actions |= action::Pub;
    if (p & perm::Sub)
        e.actions |= action::Sub;
    if (!e.actions)
        e.actions = action::All; // RocketMQ: anything else is All
    e.decision = Decision::Allow;
    return e;
}

AuthAcl aclFor(const AclAccount &account)
{
    AuthAcl acl;
    acl.subject = userSubject(account.accessKey);
    Policy custom {PolicyType::Custom, {}};
    // Sorted, so that the same file always gives the same store.
    std::vector<std::pair<QByteArray, std::uint8_t>> perms(
        account.resourcePerms.begin(), account.resourcePerms.end());
    std::sort(perms.begin(), perms.end());
    for (const auto &[name, p] : perms) {
        custom.entries.push_back(entryFor(
            name.startsWith(kRetryPrefix) ? Resource::group(name) : Resource::topic(name), p));
    }
    if (!custom.entries.empty())
        acl.policies.push_back(std::move(custom));
    Policy defaults {PolicyType::Default, {}};
    defaults.entries.push_back(entryFor(
        Resource {ResourceType::Topic, {}, ResourcePattern::Any}, account.defaultTopicPerm));
    defaults.entries.push_back(entryFor(
        Resource {ResourceType::Group, {}, ResourcePattern::Any}, account.defaultGroupPerm));
    acl.policies.push_back(std::move(defaults));
    return acl;
}

} // namespace

std::vector<QByteArray> importPlainAccounts(const PlainAclConfig &config, AuthData &data)
{
    std::vector<QByteArray> added;
    for (const auto &[accessKey, account] : config.accounts()) {
        if (data.users.contains(accessKey))
            continue;
        AuthUser user;
        user.username = accessKey;
        user.password = account.secretKey;
        user.type = account.admin ? UserType::Super : UserType::Normal;
        user.imported = true;
        data.users.emplace(accessKey, std::move(user));
        AuthAcl acl = aclFor(account);
        data.acls.insert_or_assign(acl.subject, std::move(acl));
        added.push_back(accessKey);
    }
    std::sort(added.begin(), added.end());
    return added;
}

} // namespace qrocket::acl
