// The Admin's ACL 2.0 calls: RocketMQ 5's AUTH_* requests (3001-3010), sent as RocketMQ 5.3's
// MQClientAPIImpl sends them (headers "username" / "filter" / "subject" / "policyType" /
// "resource" / "subjectFilter" / "resourceFilter", UserInfo / AclInfo JSON bodies).

#include "clientlib/client/admin/adminops.h"

namespace qrocket::client::adminimpl {

namespace field = protocol::authfield;

namespace {

RemotingCommand authRequest(Call &call, RequestCode code,
    std::initializer_list<std::pair<const char *, QByteArray>> fields, QByteArray body = {})
{
    RemotingCommand cmd = call.api().request(toInt(code));
    for (const auto &[key, value] : fields) {
        if (!value.isEmpty())
            cmd.setExt(QByteArray(key), value);
    }
    cmd.body = std::move(body);
    return cmd;
}

Result<FanOutResult> toTarget(Call &call, const BrokerTarget &target, const RemotingCommand &cmd)
{
    auto peers = targetPeers(call, target);
    if (!peers)
        return peers.error();
    return toAllBrokers(call, *peers, [&](const Peer &) { return cmd; });
}

template<typename T>
Result<std::vector<T>> readAnswer(
    Call &call, const QByteArray &addr, RemotingCommand cmd, const char *what, bool list)
{
    if (Status s = requireName(addr, "broker address"); !s)
        return s;
    auto r = invokeBroker(call, {{}, addr}, std::move(cmd));
    if (!r)
        return r.error();
    if (r->body.isEmpty())
        return std::vector<T> {};
    if (list) {
        auto items = T::listFromJson(r->body);
        if (!items)
            return corrupt(what, items.error());
        return items;
    }
    auto one = T::fromJson(r->body);
    if (!one)
        return corrupt(what, one.error());
    return std::vector<T> {std::move(one).value()};
}

} // namespace

Result<FanOutResult> doUserChange(
    Call &call, const BrokerTarget &target, int code, const protocol::UserInfo &user)
{
    if (Status s = requireName(user.username, "username"); !s)
        return s;
    if (code == toInt(RequestCode::AuthCreateUser)) {
        if (Status s = requireName(user.password, "password"); !s)
            return s;
    }
    return toTarget(call, target,
        authRequest(call, static_cast<RequestCode>(code), {{field::kUsername, user.username}},
            user.toJson()));
}

Result<FanOutResult> doDeleteUser(Call &call, const BrokerTarget &target, const QByteArray &name)
{
    if (Status s = requireName(name, "username"); !s)
        return s;
    return toTarget(
        call, target, authRequest(call, RequestCode::AuthDeleteUser, {{field::kUsername, name}}));
}

Result<std::vector<protocol::UserInfo>> doGetUser(
    Call &call, const QByteArray &addr, const QByteArray &name)
{
    if (Status s = requireName(name, "username"); !s)
        return s;
    return readAnswer<protocol::UserInfo>(call, addr,
        authRequest(call, RequestCode::AuthGetUser, {{field::kUsername, name}}), "user", false);
}

Result<std::vector<protocol::UserInfo>> doListUsers(
    Call &call, const QByteArray &addr, const QByteArray &filter)
{
    return readAnswer<protocol::UserInfo>(call, addr,
        authRequest(call, RequestCode::AuthListUser, {{field::kFilter, filter}}), "users", true);
}

Result<FanOutResult> doAclChange(
    Call &call, const BrokerTarget &target, int code, const protocol::AclInfo &acl)
{
    if (Status s = requireName(acl.subject, "subject"); !s)
        return s;
    if (acl.policies.empty())
        return Status::invalidArgument(QStringLiteral("an ACL needs at least one policy"));
    return toTarget(call, target,
        authRequest(
            call, static_cast<RequestCode>(code), {{field::kSubject, acl.subject}}, acl.toJson()));
}

Result<FanOutResult> doDeleteAcl(Call &call, const BrokerTarget &target, const QByteArray &subject,
    const QByteArray &resource, const QByteArray &policyType)
{
    if (Status s = requireName(subject, "subject"); !s)
        return s;
    return toTarget(call, target,
        authRequest(call, RequestCode::AuthDeleteAcl,
            {{field::kSubject, subject}, {field::kPolicyType, policyType},
                {field::kResource, resource}}));
}

Result<std::vector<protocol::AclInfo>> doGetAcl(
    Call &call, const QByteArray &addr, const QByteArray &subject)
{
    if (Status s = requireName(subject, "subject"); !s)
        return s;
    return readAnswer<protocol::AclInfo>(call, addr,
        authRequest(call, RequestCode::AuthGetAcl, {{field::kSubject, subject}}), "acl", false);
}

Result<std::vector<protocol::AclInfo>> doListAcls(Call &call, const QByteArray &addr,
    const QByteArray &subjectFilter, const QByteArray &resourceFilter)
{
    return readAnswer<protocol::AclInfo>(call, addr,
        authRequest(call, RequestCode::AuthListAcl,
            {{field::kSubjectFilter, subjectFilter}, {field::kResourceFilter, resourceFilter}}),
        "acls", true);
}

} // namespace qrocket::client::adminimpl
