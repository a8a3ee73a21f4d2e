#include "broker/processors/authprocessor.h"

#include "broker/auth/authstore.h"
#include "broker/common/logging.h"
#include "broker/processors/admincommon.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/extensioncode.h"

namespace qrocket::broker {

using protocol::RemotingCommand;
namespace field = protocol::authfield;

namespace {

constexpr int kFirst = toInt(RequestCode::AuthCreateUser);
constexpr int kLast = toInt(RequestCode::AuthListAcl);

RemotingCommand answer(const RemotingCommand &request, const Status &st)
{
    if (st)
        return makeResponse(request, toInt(ResponseCode::Success));
    if (st.code() == Status::Code::InvalidArgument)
        return makeResponse(request, toInt(ResponseCode::NoPermission), st.message().toUtf8());
    return makeResponse(request, toInt(ResponseCode::SystemError),
        QByteArrayLiteral("An system error occurred, please try again later."));
}

RemotingCommand withBody(const RemotingCommand &request, QByteArray body)
{
    RemotingCommand r = makeResponse(request, toInt(ResponseCode::Success));
    r.body = std::move(body);
    return r;
}

bool contains(const QByteArray &value, const QByteArray &filter)
{
    return filter.trimmed().isEmpty() || value.contains(filter);
}

} // namespace

std::vector<int> AuthProcessor::requestCodes()
{
    std::vector<int> codes;
    for (int c = kFirst; c <= kLast; ++c)
        codes.push_back(c);
    codes.push_back(protocol::extensioncode::kGetAuthMetadata);
    return codes;
}

void AuthProcessor::processRequest(
    const remoting::ChannelPtr &channel, RemotingCommand request, remoting::Responder respond)
{
    RemotingCommand response = handle(request, channel ? channel->remoteAddress() : QByteArray());
    if (!request.isOneway())
        respond(std::move(response));
}

RemotingCommand AuthProcessor::handle(const RemotingCommand &request, const QByteArray &peer)
{
    const int code = request.code;
    const bool metadata = code == protocol::extensioncode::kGetAuthMetadata;
    if ((code < kFirst || code > kLast) && !metadata)
        return makeResponse(request, toInt(ResponseCode::RequestCodeNotSupported),
            "request type " + QByteArray::number(code) + " not supported");
    if (!m_store)
        return makeResponse(request, toInt(ResponseCode::NoPermission),
            QByteArrayLiteral("ACL 2.0 users and ACLs are served only with aclEnable=true"));
    if (metadata) // a slave copying this store (admin only: the AclGuard checked it)
        return withBody(request, AuthStore::encode(*m_store->data()));
    const QByteArray username = request.extString(field::kUsername).toByteArray();
    const QByteArray subject = request.extString(field::kSubject).toByteArray();
    const auto logged = [&](const Status &st, const char *what, const QByteArray &who) {
        if (st)
            qCInfo(lcBroker).noquote()
                << "ACL 2.0:" << what << QString::fromUtf8(who) << "by" << QString::fromUtf8(peer);
        return answer(request, st);
    };

    switch (code) {
    case toInt(RequestCode::AuthCreateUser):
    case toInt(RequestCode::AuthUpdateUser): {
        if (username.trimmed().isEmpty())
            return makeResponse(request, toInt(ResponseCode::InvalidParameter),
                QByteArrayLiteral("The username is blank"));
        auto info = request.body.isEmpty() ? Result<protocol::UserInfo>(protocol::UserInfo {})
                                           : protocol::UserInfo::fromJson(request.body);
        if (!info)
            return makeResponse(request, toInt(ResponseCode::InvalidParameter),
                "The body of user does not decode: " + info.error().message().toUtf8());
        info->username = username;
        if (code == toInt(RequestCode::AuthCreateUser))
            return logged(m_store->createUser(*info), "created user", username);
        return logged(m_store->updateUser(*info), "updated user", username);
    }
    case toInt(RequestCode::AuthDeleteUser):
        return logged(m_store->deleteUser(username), "deleted user", username);
    case toInt(RequestCode::AuthGetUser): {
        if (username.trimmed().isEmpty())
            return makeResponse(request, toInt(ResponseCode::InvalidParameter),
                QByteArrayLiteral("The username is blank"));
        const auto data = m_store->data();
        const acl::AuthUser *user = data->user(username);
        if (!user)
            return makeResponse(request, toInt(ResponseCode::Success));
        return withBody(request, acl::toUserInfo(*user).toJson());
    }
    case toInt(RequestCode::AuthListUser): {
        const QByteArray filter = request.extString(field::kFilter).toByteArray();
        std::vector<protocol::UserInfo> users;
        for (const auto &[name, user] : m_store->data()->users)
            if (contains(name, filter))
                users.push_back(acl::toUserInfo(user));
        if (users.empty())
            return makeResponse(request, toInt(ResponseCode::Success));
        return withBody(request, protocol::UserInfo::listToJson(users));
    }
    case toInt(RequestCode::AuthCreateAcl):
    case toInt(RequestCode::AuthUpdateAcl): {
        auto info = protocol::AclInfo::fromJson(request.body);
        if (request.body.isEmpty() || !info || info->policies.empty())
            return makeResponse(request, toInt(ResponseCode::SystemError),
                QByteArrayLiteral("The body of acl is null"));
        const QByteArray who = info->subject.isEmpty() ? subject : info->subject;
        return logged(m_store->putAcl(subject, *info),
            code == toInt(RequestCode::AuthCreateAcl) ? "created acl of" : "updated acl of", who);
    }
    case toInt(RequestCode::AuthDeleteAcl):
        return logged(
            m_store->deleteAcl(subject, request.extString(field::kPolicyType).toByteArray(),
                request.extString(field::kResource).toByteArray()),
            "deleted acl of", subject);
    case toInt(RequestCode::AuthGetAcl): {
        const auto data = m_store->data();
        const std::optional<QByteArray> name = acl::subjectUser(subject);
        if (!name || !data->user(*name))
            return answer(
                request, Status::invalidArgument(QStringLiteral("The subject is not exist.")));
        const acl::AuthAcl *a = data->acl(acl::userSubject(*name));
        if (!a)
            return makeResponse(request, toInt(ResponseCode::Success));
        return withBody(request, acl::toAclInfo(*a).toJson());
    }
    default: { // AUTH_LIST_ACL
        const QByteArray subjectFilter = request.extString(field::kSubjectFilter).toByteArray();
        const QByteArray resourceFilter = request.extString(field::kResourceFilter).toByteArray();
        std::vector<protocol::AclInfo> acls;
        for (const auto &[key, a] : m_store->data()->acls) {
            if (!contains(key, subjectFilter))
                continue;
            protocol::AclInfo info = acl::toAclInfo(a);
            for (protocol::PolicyInfo &p : info.policies)
                std::erase_if(p.entries, [&](const protocol::PolicyEntryInfo &e) {
                    return !contains(e.resource, resourceFilter);
                });
            std::erase_if(
                info.policies, [](const protocol::PolicyInfo &p) { return p.entries.empty(); });
            if (!info.policies.empty())
                acls.push_back(std::move(info));
        }
        if (acls.empty())
            return makeResponse(request, toInt(ResponseCode::Success));
        return withBody(request, protocol::AclInfo::listToJson(acls));
    }
    }
}

} // namespace qrocket::broker
