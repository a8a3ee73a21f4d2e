// qrocket-admin's ACL 2.0 commands, RocketMQ 5's mqadmin names and option letters: createUser,
// updateUser, deleteUser, getUser, listUser, createAcl, updateAcl, deleteAcl, getAcl, listAcl.
// Changes go to one broker (-b) or to every broker of a cluster, masters and slaves (-c), as
// mqadmin does; reads ask one broker (-b) or each master of the cluster (-c).
// The password column of getUser/listUser is masked: a QRocket broker never answers passwords
// (RocketMQ 5.3's does). A password given with -p is warned about (visible to `ps`).

#include "console/admin/cli.h"

#include <cstdio>

namespace qrocket::admincli {

namespace {

constexpr char kUserFormat[] = "%-16s  %-22s  %-22s  %-22s%n";
constexpr char kAclFormat[] = "%-16s  %-10s  %-22s  %-20s  %-24s  %-10s%n";

Result<client::BrokerTarget> changeTarget(Context &ctx)
{
    client::BrokerTarget target;
    if (ctx.has("b"))
        target.brokerAddr = ctx.bytes("b");
    else if (ctx.has("c"))
        target.cluster = ctx.bytes("c");
    else
        return usageError(QStringLiteral("give a broker (-b) or a cluster (-c)"));
    return target;
}

/// "a, b ,c" → {"a", "b", "c"}, as mqadmin splits -r, -a and -i.
std::vector<QByteArray> list(const QByteArray &value)
{
    std::vector<QByteArray> out;
    for (const QByteArray &item : value.split(',')) {
        if (!item.trimmed().isEmpty())
            out.push_back(item.trimmed());
    }
    return out;
}

QString joined(const std::vector<QByteArray> &items)
{
    QStringList out;
    for (const QByteArray &i : items)
        out << QString::fromUtf8(i);
    return QStringLiteral("[%1]").arg(out.join(QStringLiteral(", ")));
}

void warnAboutPassword(Context &ctx)
{
    if (ctx.has("p"))
        std::fputs("qrocket-admin: warning: a password on the command line is visible to other "
                   "users of this machine (ps, shell history)\n",
            stderr);
}

Status userChange(Context &ctx, bool create)
{
    auto target = changeTarget(ctx);
    if (!target)
        return target.error();
    warnAboutPassword(ctx);
    protocol::UserInfo user {ctx.bytes("u"), ctx.bytes("p"), ctx.bytes("t"), ctx.bytes("s")};
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto r = create ? admin.createUser(*target, user) : admin.updateUser(*target, user);
        if (!r)
            return r.error();
        return reportFanOut(
            ctx, *r, create ? "create user to %s success.\n" : "update user to %s success.\n");
    });
}

Status createUser(Context &ctx)
{
    return userChange(ctx, true);
}

Status updateUser(Context &ctx)
{
    return userChange(ctx, false);
}

Status deleteUser(Context &ctx)
{
    auto target = changeTarget(ctx);
    if (!target)
        return target.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto r = admin.deleteUser(*target, ctx.bytes("u"));
        if (!r)
            return r.error();
        return reportFanOut(ctx, *r, "delete user to %s success.\n");
    });
}

/// Runs `read(admin, address)` on -b, or on each master of -c.
template<typename Read>
Status eachReadBroker(Context &ctx, Read read)
{
    auto nodes = brokersOf(ctx, false, false);
    if (!nodes)
        return nodes.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        for (const client::BrokerNode &n : *nodes) {
            if (Status s = read(admin, n.address); !s)
                return s;
        }
        return {};
    });
}

void printUsers(Context &ctx, const std::vector<protocol::UserInfo> &users)
{
    Table t = ctx.out().table(QStringLiteral("users"), kUserFormat,
        {{"username", "#UserName"}, {"password", "#Password"}, {"userType", "#UserType"},
            {"userStatus", "#UserStatus"}});
    for (const protocol::UserInfo &u : users)
        t.row({u.username, "******", u.userType, u.userStatus});
}

Status getUser(Context &ctx)
{
    return eachReadBroker(ctx, [&](client::Admin &admin, const QByteArray &addr) -> Status {
        auto users = admin.user(addr, ctx.bytes("u"));
        if (!users)
            return users.error();
        if (users->empty())
            return Status::notFound(QStringLiteral("user %1 does not exist on %2")
                                        .arg(ctx.value("u"), QString::fromUtf8(addr)));
        printUsers(ctx, *users);
        return {};
    });
}

Status listUser(Context &ctx)
{
    return eachReadBroker(ctx, [&](client::Admin &admin, const QByteArray &addr) -> Status {
        auto users = admin.listUsers(addr, ctx.bytes("f"));
        if (!users)
            return users.error();
        ctx.out().text("get user from %s success.%n", {addr});
        printUsers(ctx, *users);
        return {};
    });
}

Status aclChange(Context &ctx, bool create)
{
    auto target = changeTarget(ctx);
    if (!target)
        return target.error();
    const std::vector<QByteArray> resources = list(ctx.bytes("r"));
    if (resources.empty())
        return usageError(QStringLiteral("give the resources (-r), e.g. Topic:orders,Group:g*"));
    protocol::AclInfo acl;
    acl.subject = ctx.bytes("s");
    protocol::PolicyInfo policy;
    for (const QByteArray &r : resources)
        policy.entries.push_back({r, list(ctx.bytes("a")), list(ctx.bytes("i")), ctx.bytes("d")});
    acl.policies.push_back(std::move(policy));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto r = create ? admin.createAcl(*target, acl) : admin.updateAcl(*target, acl);
        if (!r)
            return r.error();
        return reportFanOut(
            ctx, *r, create ? "create acl to %s success.\n" : "update acl to %s success.\n");
    });
}

Status createAcl(Context &ctx)
{
    return aclChange(ctx, true);
}

Status updateAcl(Context &ctx)
{
    return aclChange(ctx, false);
}

Status deleteAcl(Context &ctx)
{
    auto target = changeTarget(ctx);
    if (!target)
        return target.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto r = admin.deleteAcl(*target, ctx.bytes("s"), ctx.bytes("r"));
        if (!r)
            return r.error();
        return reportFanOut(ctx, *r, "delete acl to %s success.\n");
    });
}

void printAcls(Context &ctx, const std::vector<protocol::AclInfo> &acls)
{
    Table t = ctx.out().table(QStringLiteral("acls"), kAclFormat,
        {{"subject", "#Subject"}, {"policyType", "#PolicyType"}, {"resource", "#Resource"},
            {"actions", "#Actions"}, {"sourceIps", "#SourceIp"}, {"decision", "#Decision"}});
    for (const protocol::AclInfo &a : acls) {
        if (a.policies.empty())
            t.row({a.subject, "", "", "", "", ""});
        for (const protocol::PolicyInfo &p : a.policies)
            for (const protocol::PolicyEntryInfo &e : p.entries)
                t.row({a.subject, p.policyType, e.resource, joined(e.actions), joined(e.sourceIps),
                    e.decision});
    }
}

Status getAcl(Context &ctx)
{
    return eachReadBroker(ctx, [&](client::Admin &admin, const QByteArray &addr) -> Status {
        auto acls = admin.acl(addr, ctx.bytes("s"));
        if (!acls)
            return acls.error();
        if (acls->empty())
            return Status::notFound(
                QStringLiteral("no acl of %1 on %2").arg(ctx.value("s"), QString::fromUtf8(addr)));
        printAcls(ctx, *acls);
        return {};
    });
}

Status listAcl(Context &ctx)
{
    return eachReadBroker(ctx, [&](client::Admin &admin, const QByteArray &addr) -> Status {
        auto acls = admin.listAcls(addr, ctx.bytes("s"), ctx.bytes("r"));
        if (!acls)
            return acls.error();
        printAcls(ctx, *acls);
        return {};
    });
}

const OptionSpec kBroker {'b', "brokerAddr", true, false, "the broker to ask"};
const OptionSpec kCluster {'c', "clusterName", true, false, "every broker of this cluster"};

const CommandSpec kCommands[] = {
    {"createUser", "Create user to cluster.",
        {kCluster, kBroker, {'u', "username", true, true, "the username of user to create."},
            {'p', "password", true, true, "the password of user to create"},
            {'t', "userType", true, false, "the userType of user to create (Super, Normal)"}},
        createUser},
    {"updateUser", "Update user to cluster.",
        {kCluster, kBroker, {'u', "username", true, true, "the username of user to update."},
            {'p', "password", true, false, "the password of user to update"},
            {'t', "userType", true, false, "the userType of user to update"},
            {'s', "userStatus", true, false, "the userStatus of user to update (enable, disable)"}},
        updateUser},
    {"deleteUser", "Delete user from cluster.",
        {kCluster, kBroker, {'u', "username", true, true, "the username of user to delete."}},
        deleteUser},
    {"getUser", "Get user from cluster.",
        {kBroker, kCluster, {'u', "username", true, true, "the username of user to get"}}, getUser},
    {"listUser", "List user from cluster.",
        {kBroker, kCluster, {'f', "filter", true, false, "the filter to list users"}}, listUser},
    {"createAcl", "Create acl to cluster.",
        {kCluster, kBroker, {'s', "subject", true, true, "the subject of acl to create."},
            {'r', "resources", true, true, "the resources of acl to create"},
            {'a', "actions", true, true, "the actions of acl to create"},
            {'i', "sourceIp", true, false, "the sourceIps of acl to create"},
            {'d', "decision", true, true, "the decision of acl to create"}},
        createAcl},
    {"updateAcl", "Update acl to cluster.",
        {kCluster, kBroker, {'s', "subject", true, true, "the subject of acl to update."},
            {'r', "resources", true, true, "the resources of acl to update"},
            {'a', "actions", true, true, "the actions of acl to update"},
            {'d', "decision", true, true, "the decision of acl to update"},
            {'i', "sourceIp", true, false, "the sourceIps of acl to update"}},
        updateAcl},
    {"deleteAcl", "Delete acl from cluster.",
        {kCluster, kBroker, {'s', "subject", true, true, "the subject of acl to delete."},
            {'r', "resources", true, false, "the resources of acl to delete"}},
        deleteAcl},
    {"getAcl", "Get acl from cluster.",
        {kBroker, kCluster, {'s', "subject", true, true, "the subject of acl to get"}}, getAcl},
    {"listAcl", "List acl from cluster.",
        {kBroker, kCluster, {'s', "subject", true, false, "the subject of acl to filter."},
            {'r', "resource", true, false, "the resource of acl to filter."}},
        listAcl},
};

} // namespace

std::span<const CommandSpec> authCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
