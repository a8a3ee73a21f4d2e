#include "clientlib/acl/authmodel.h"

#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"

#include <QString>

#include <algorithm>
#include <array>
#include <utility>

namespace qrocket::acl {

namespace rc = protocol;
namespace popcode = protocol::popcode;
using protocol::RemotingCommand;

namespace {

constexpr QByteArrayView kRetryPrefix = "%RETRY%";
constexpr QByteArrayView kDlqPrefix = "%DLQ%";

bool equalsIgnoreCase(QByteArrayView a, QByteArrayView b)
{
    return a.compare(b, Qt::CaseInsensitive) == 0;
}

struct ActionName
{
    Actions bit;
    const char *name;
};
constexpr std::array<ActionName, 9> kActions {
    {{action::All, "All"}, {action::Any, "Any"}, {action::Pub, "Pub"}, {action::Sub, "Sub"},
        {action::Create, "Create"}, {action::Update, "Update"}, {action::Delete, "Delete"},
        {action::Get, "Get"}, {action::List, "List"}}};

struct TypeName
{
    ResourceType type;
    const char *name;
};
constexpr std::array<TypeName, 5> kTypes {{{ResourceType::Any, "Any"},
    {ResourceType::Cluster, "Cluster"}, {ResourceType::Namespace, "Namespace"},
    {ResourceType::Topic, "Topic"}, {ResourceType::Group, "Group"}}};

const char *typeName(ResourceType t)
{
    for (const TypeName &n : kTypes)
        if (n.type == t)
            return n.name;
    return "Unknown";
}

/// An IPv4-mapped IPv6 peer as IPv4, as RocketMQ sees the peer's address text.
QHostAddress plain(const QHostAddress &a)
{
    bool ok = false;
    const quint32 v4 = a.toIPv4Address(&ok);
    return ok ? QHostAddress(v4) : a;
}

Status invalid(const char *message)
{
    return Status::invalidArgument(QString::fromLatin1(message));
}

} // namespace

// -- Resource --------------------------------------------------------------------------------

std::optional<Resource> Resource::parse(QByteArrayView key)
{
    key = key.trimmed();
    if (key.isEmpty())
        return std::nullopt;
    if (key == "*")
        return Resource {ResourceType::Any, {}, ResourcePattern::Any};
    const qsizetype colon = key.indexOf(':');
    const QByteArrayView type = colon < 0 ? key : key.first(colon);
    const QByteArrayView name = colon < 0 ? QByteArrayView() : key.sliced(colon + 1);
    std::optional<ResourceType> t;
    for (const TypeName &n : kTypes)
        if (equalsIgnoreCase(type, n.name))
            t = n.type;
    if (!t)
        return std::nullopt;
    if (name == "*")
        return Resource {*t, {}, ResourcePattern::Any};
    if (name.endsWith('*'))
        return Resource {
            *t, name.first(name.indexOf('*')).toByteArray(), ResourcePattern::Prefixed};
    return Resource {*t, name.toByteArray(), ResourcePattern::Literal};
}

Resource Resource::topic(QByteArrayView name)
{
    return {ResourceType::Topic, name.toByteArray(), ResourcePattern::Literal};
}

Resource Resource::group(QByteArrayView name)
{
    if (name.startsWith(kRetryPrefix))
        name = name.sliced(kRetryPrefix.size());
    else if (name.startsWith(kDlqPrefix))
        name = name.sliced(kDlqPrefix.size());
    return {ResourceType::Group, name.toByteArray(), ResourcePattern::Literal};
}

Resource Resource::cluster(QByteArrayView name)
{
    return {ResourceType::Cluster, name.toByteArray(), ResourcePattern::Literal};
}

QByteArray Resource::key() const
{
    if (type == ResourceType::Any)
        return QByteArrayLiteral("*");
    const QByteArray prefix = QByteArray(typeName(type)) + ':';
    switch (pattern) {
    case ResourcePattern::Any:
        return prefix + '*';
    case ResourcePattern::Prefixed:
        return prefix + name + '*';
    case ResourcePattern::Literal:
        break;
    }
    return prefix + name;
}

bool Resource::matches(const Resource &requested) const
{
    if (type == ResourceType::Any)
        return true;
    if (type != requested.type)
        return false;
    switch (pattern) {
    case ResourcePattern::Any:
        return true;
    case ResourcePattern::Literal:
        return requested.name == name;
    case ResourcePattern::Prefixed:
        return requested.name.startsWith(name);
    }
    return false;
}

// -- actions, names ------------------------------------------------------------------------

std::optional<Actions> action::parse(QByteArrayView name)
{
    for (const ActionName &a : kActions)
        if (equalsIgnoreCase(name.trimmed(), a.name))
            return a.bit;
    return std::nullopt;
}

std::vector<QByteArray> action::names(Actions actions)
{
    std::vector<QByteArray> out;
    for (const ActionName &a : kActions)
        if (actions & a.bit)
            out.emplace_back(a.name);
    return out;
}

QByteArray userTypeName(UserType t)
{
    return t == UserType::Super ? QByteArrayLiteral("Super") : QByteArrayLiteral("Normal");
}

QByteArray userStatusName(UserStatus s)
{
    return s == UserStatus::Disable ? QByteArrayLiteral("disable") : QByteArrayLiteral("enable");
}

std::optional<UserType> parseUserType(QByteArrayView name)
{
    if (equalsIgnoreCase(name, "Super"))
        return UserType::Super;
    if (equalsIgnoreCase(name, "Normal"))
        return UserType::Normal;
    return std::nullopt;
}

std::optional<UserStatus> parseUserStatus(QByteArrayView name)
{
    if (equalsIgnoreCase(name, "enable"))
        return UserStatus::Enable;
    if (equalsIgnoreCase(name, "disable"))
        return UserStatus::Disable;
    return std::nullopt;
}

QByteArray decisionName(Decision d)
{
    return d == Decision::Deny ? QByteArrayLiteral("Deny") : QByteArrayLiteral("Allow");
}

QByteArray policyTypeName(PolicyType t)
{
    return t == PolicyType::Default ? QByteArrayLiteral("Default") : QByteArrayLiteral("Custom");
}

std::optional<PolicyType> parsePolicyType(QByteArrayView name)
{
    if (equalsIgnoreCase(name, "Custom"))
        return PolicyType::Custom;
    if (equalsIgnoreCase(name, "Default"))
        return PolicyType::Default;
    return std::nullopt;
}

QByteArray userSubject(QByteArrayView username)
{
    return QByteArrayLiteral("User:") + username.toByteArray();
}

std::optional<QByteArray> subjectUser(QByteArrayView subject)
{
    const qsizetype colon = subject.indexOf(':');
    if (colon < 0 || !equalsIgnoreCase(subject.first(colon), "User"))
        return std::nullopt;
    return subject.sliced(colon + 1).toByteArray();
}

// -- SourceIp --------------------------------------------------------------------------------

std::optional<SourceIp> SourceIp::parse(QByteArrayView text)
{
    const QString t = QString::fromUtf8(text.trimmed());
    if (t.isEmpty())
        return std::nullopt;
    SourceIp ip;
    ip.text = text.trimmed().toByteArray();
    if (t.contains(u'/')) {
        const std::pair<QHostAddress, int> subnet = QHostAddress::parseSubnet(t);
        if (subnet.first.isNull() || subnet.second < 0)
            return std::nullopt;
        ip.network = plain(subnet.first);
        ip.prefixLength = subnet.second;
        if (ip.network.protocol() == QAbstractSocket::IPv4Protocol
            && subnet.first.protocol() == QAbstractSocket::IPv6Protocol)
            ip.prefixLength = std::max(0, subnet.second - 96);
        return ip;
    }
    QHostAddress a;
    if (!a.setAddress(t))
        return std::nullopt;
    ip.network = plain(a);
    ip.prefixLength = ip.network.protocol() == QAbstractSocket::IPv4Protocol ? 32 : 128;
    return ip;
}

bool SourceIp::matches(const QHostAddress &peer) const
{
    return plain(peer).isInSubnet(network, prefixLength);
}

// -- AuthAcl, AuthData -------------------------------------------------------------------------

void AuthAcl::merge(const std::vector<Policy> &update)
{
    for (const Policy &p : update) {
        auto old = std::find_if(
            policies.begin(), policies.end(), [&](const Policy &o) { return o.type == p.type; });
        if (old == policies.end()) {
            policies.push_back(p);
            continue;
        }
        for (const PolicyEntry &e : p.entries) {
            auto same = std::find_if(old->entries.begin(), old->entries.end(),
                [&](const PolicyEntry &o) { return o.resource == e.resource; });
            if (same == old->entries.end())
                old->entries.push_back(e);
            else
                *same = e;
        }
    }
}

void AuthAcl::removeEntry(PolicyType type, const Resource &resource)
{
    auto policy = std::find_if(
        policies.begin(), policies.end(), [&](const Policy &o) { return o.type == type; });
    if (policy == policies.end())
        return;
    std::erase_if(policy->entries, [&](const PolicyEntry &e) { return e.resource == resource; });
    if (policy->entries.empty())
        policies.erase(policy);
}

const AuthUser *AuthData::user(const QByteArray &username) const
{
    auto it = users.find(username);
    return it == users.end() ? nullptr : &it->second;
}

const AuthAcl *AuthData::acl(const QByteArray &subject) const
{
    auto it = acls.find(subject);
    return it == acls.end() ? nullptr : &it->second;
}

// -- wire <-> model --------------------------------------------------------------------------

protocol::UserInfo toUserInfo(const AuthUser &user)
{
    return {user.username, {}, userTypeName(user.type), userStatusName(user.status)};
}

Result<std::vector<Policy>> toPolicies(const protocol::AclInfo &info)
{
    if (info.policies.empty())
        return invalid("The policies is empty.");
    std::vector<Policy> out;
    for (const protocol::PolicyInfo &p : info.policies) {
        Policy policy;
        if (!p.policyType.isEmpty()) {
            const std::optional<PolicyType> type = parsePolicyType(p.policyType);
            if (!type)
                return invalid("The policy type is illegal.");
            policy.type = *type;
        }
        if (p.entries.empty())
            return invalid("The policy entries is empty.");
        for (const protocol::PolicyEntryInfo &e : p.entries) {
            PolicyEntry entry;
            const std::optional<Resource> resource = Resource::parse(e.resource);
            if (!resource)
                return invalid("The resource is null.");
            entry.resource = *resource;
            for (const QByteArray &name : e.actions) {
                const std::optional<Actions> a = action::parse(name);
                if (a) // RocketMQ's converter skips names it does not know
                    entry.actions |= *a;
            }
            if (!entry.actions)
                return invalid("The actions is empty.");
            if (entry.actions & action::Any)
                return invalid("The actions can not be Any.");
            for (const QByteArray &text : e.sourceIps) {
                if (text.trimmed().isEmpty())
                    return invalid("The source ip is empty.");
                const std::optional<SourceIp> ip = SourceIp::parse(text);
                if (!ip)
                    return invalid("The source ip is invalid.");
                entry.sourceIps.push_back(*ip);
            }
            if (equalsIgnoreCase(e.decision, "Allow"))
                entry.decision = Decision::Allow;
            else if (equalsIgnoreCase(e.decision, "Deny"))
                entry.decision = Decision::Deny;
            else
                return invalid("The decision is null or illegal.");
            policy.entries.push_back(std::move(entry));
        }
        out.push_back(std::move(policy));
    }
    return out;
}

protocol::AclInfo toAclInfo(const AuthAcl &acl)
{
    protocol::AclInfo info;
    info.subject = acl.subject;
    for (const Policy &p : acl.policies) {
        protocol::PolicyInfo policy;
        policy.policyType = policyTypeName(p.type);
        for (const PolicyEntry &e : p.entries) {
            protocol::PolicyEntryInfo entry;
            entry.resource = e.resource.key();
            entry.actions = action::names(e.actions);
            for (const SourceIp &ip : e.sourceIps)
                entry.sourceIps.push_back(ip.text);
            entry.decision = decisionName(e.decision);
            policy.entries.push_back(std::move(entry));
        }
        info.policies.push_back(std::move(policy));
    }
    return info;
}

// -- the decision --------------------------------------------------------------------------

namespace {

/// Higher is more specific: "*" < Type:* < Type:prefix* (longer higher) < Type:name.
std::pair<int, qsizetype> specificity(const Resource &r)
{
    if (r.type == ResourceType::Any)
        return {0, 0};
    switch (r.pattern) {
    case ResourcePattern::Any:
        return {1, 0};
    case ResourcePattern::Prefixed:
        return {2, r.name.size()};
    case ResourcePattern::Literal:
        break;
    }
    return {3, 0};
}

bool entryMatches(const PolicyEntry &e, const AuthCheck &check, const QHostAddress &peer)
{
    if (!e.resource.matches(check.resource) || !e.actions)
        return false;
    if (!(check.actions & action::Any) && !(e.actions & action::All)
        && !(e.actions & check.actions))
        return false;
    if (e.sourceIps.empty())
        return true;
    return std::any_of(e.sourceIps.begin(), e.sourceIps.end(),
        [&](const SourceIp &ip) { return ip.matches(peer); });
}

/// The deciding entry of one policy type: nullopt when none matches.
std::optional<Decision> decide(
    const AuthAcl &acl, PolicyType type, const AuthCheck &check, const QHostAddress &peer)
{
    std::optional<std::pair<int, qsizetype>> best;
    Decision decision = Decision::Allow;
    for (const Policy &p : acl.policies) {
        if (p.type != type)
            continue;
        for (const PolicyEntry &e : p.entries) {
            if (!entryMatches(e, check, peer))
                continue;
            const auto rank = specificity(e.resource);
            if (!best || rank > *best) {
                best = rank;
                decision = e.decision;
            } else if (rank == *best && e.decision == Decision::Deny) {
                decision = Decision::Deny;
            }
        }
    }
    if (!best)
        return std::nullopt;
    return decision;
}

} // namespace

std::optional<QByteArray> authorize(
    const AuthData &data, const AuthUser &user, const AuthCheck &check, const QHostAddress &peer)
{
    if (user.type == UserType::Super)
        return std::nullopt;
    const auto refuse = [&](const char *detail) {
        return userSubject(user.username) + " has no permission to access " + check.resource.key()
            + " from " + plain(peer).toString().toUtf8() + ", " + detail;
    };
    const AuthAcl *acl = data.acl(userSubject(user.username));
    if (!acl)
        return refuse("no matched policies.");
    std::optional<Decision> d = decide(*acl, PolicyType::Custom, check, peer);
    if (!d)
        d = decide(*acl, PolicyType::Default, check, peer);
    if (!d)
        return refuse("no matched policies.");
    if (*d == Decision::Deny)
        return refuse("the decision is deny.");
    return std::nullopt;
}

std::vector<AuthCheck> authChecks(const RemotingCommand &request, QByteArrayView clusterName)
{
    std::vector<AuthCheck> out;
    const auto field = [&](QByteArrayView key) { return request.extString(key); };
    const auto isRetry = [](QByteArrayView topic) { return topic.startsWith(kRetryPrefix); };
    const auto topic = [&](QByteArrayView key, Actions a) {
        const QByteArrayView t = field(key);
        if (isRetry(t))
            out.push_back({Resource::group(t), a});
        else
            out.push_back({Resource::topic(t), a});
    };
    const auto topicUnlessRetry = [&](QByteArrayView key, Actions a) {
        if (!isRetry(field(key)))
            out.push_back({Resource::topic(field(key)), a});
    };
    const auto group = [&](QByteArrayView key, Actions a) {
        out.push_back({Resource::group(field(key)), a});
    };
    const auto send = [&](QByteArrayView topicKey, QByteArrayView groupKey) {
        const QByteArrayView t = field(topicKey);
        if (!isRetry(t)) {
            out.push_back({Resource::topic(t), action::Pub});
            return;
        }
        const QByteArrayView g = field(groupKey);
        out.push_back({Resource::group(g.trimmed().isEmpty() ? t : g), action::Sub});
    };
    const auto cluster = [&](Actions a) { out.push_back({Resource::cluster(clusterName), a}); };
    using C = rc::RequestCode;
    switch (request.code) {
    case rc::toInt(C::SendMessage):
    case rc::toInt(C::SendReplyMessage):
        send("topic", "group");
        break;
    case rc::toInt(C::SendMessageV2):
    case rc::toInt(C::SendBatchMessage):
    case rc::toInt(C::SendReplyMessageV2):
        send("b", "a");
        break;
    case rc::toInt(C::EndTransaction):
        if (!field("topic").trimmed().isEmpty())
            out.push_back({Resource::topic(field("topic")), action::Pub});
        break;
    case rc::toInt(C::ConsumerSendMsgBack):
        group("group", action::Sub);
        break;
    case rc::toInt(C::PullMessage):
        topicUnlessRetry("topic", action::Sub);
        group("consumerGroup", action::Sub);
        break;
    case rc::toInt(C::QueryMessage):
        out.push_back({Resource::topic(field("topic")), action::Sub | action::Get});
        break;
    case rc::toInt(C::HeartBeat): {
        Result<protocol::HeartbeatData> data = protocol::HeartbeatData::fromJson(request.body);
        if (!data)
            break; // the processor answers the bad body; nothing named, nothing granted
        for (const protocol::ConsumerData &c : data->consumerDataSet) {
            out.push_back({Resource::group(c.groupName), action::Sub});
            for (const protocol::SubscriptionData &s : c.subscriptionDataSet)
                if (!isRetry(s.topic))
                    out.push_back({Resource::topic(s.topic), action::Sub});
        }
        break;
    }
    case rc::toInt(C::UnregisterClient):
        if (!field("consumerGroup").trimmed().isEmpty())
            group("consumerGroup", action::Sub);
        break;
    case rc::toInt(C::GetConsumerListByGroup):
        group("consumerGroup", action::Sub | action::Get);
        break;
    case rc::toInt(C::QueryConsumerOffset):
        topicUnlessRetry("topic", action::Sub | action::Get);
        group("consumerGroup", action::Sub | action::Get);
        break;
    case rc::toInt(C::UpdateConsumerOffset):
        topicUnlessRetry("topic", action::Sub | action::Update);
        group("consumerGroup", action::Sub | action::Update);
        break;
    case rc::toInt(C::LockBatchMq):
    case rc::toInt(C::UnlockBatchMq): {
        Result<protocol::LockBatchRequestBody> body
            = protocol::LockBatchRequestBody::fromJson(request.body);
        if (!body)
            break;
        out.push_back({Resource::group(body->consumerGroup), action::Sub});
        for (const protocol::MessageQueue &mq : body->mqSet)
            if (!isRetry(mq.topic))
                out.push_back({Resource::topic(mq.topic), action::Sub});
        break;
    }
    // RocketMQ 5.3's POP headers: @RocketMQAction SUB (POLLING_INFO: GET) on their
    // consumerGroup and topic; the batch ack and QUERY_ASSIGNMENT name them in the body.
    case popcode::PopMessage:
    case popcode::AckMessage:
    case popcode::PeekMessage:
    case popcode::ChangeMessageInvisibleTime:
    case popcode::Notification:
    case popcode::PopRollback:
        topic("topic", action::Sub);
        group("consumerGroup", action::Sub);
        break;
    case popcode::PollingInfo:
        topic("topic", action::Get);
        group("consumerGroup", action::Get);
        break;
    case popcode::BatchAckMessage: {
        Result<protocol::BatchAckMessageRequestBody> body
            = protocol::BatchAckMessageRequestBody::fromJson(request.body);
        if (!body)
            break; // the processor answers the bad body; nothing named, nothing granted
        for (const protocol::BatchAck &ack : body->acks) {
            out.push_back({Resource::group(ack.consumerGroup), action::Sub});
            out.push_back(
                {isRetry(ack.topic) ? Resource::group(ack.topic) : Resource::topic(ack.topic),
                    action::Sub});
        }
        break;
    }
    case popcode::QueryAssignment: {
        Result<protocol::QueryAssignmentRequestBody> body
            = protocol::QueryAssignmentRequestBody::fromJson(request.body);
        if (!body)
            break;
        out.push_back({Resource::group(body->consumerGroup), action::Sub});
        if (!isRetry(body->topic))
            out.push_back({Resource::topic(body->topic), action::Sub});
        break;
    }
    case popcode::GetTopicConfig:
        topic("topic", action::Get);
        break;
    case popcode::GetSubscriptionGroupConfig:
        group("group", action::Get);
        break;
    case popcode::GetAllMessageRequestMode:
    case 60: // GET_TIMER_CHECK_POINT
    case 61: // GET_TIMER_METRICS
        cluster(action::Get);
        break;
    case 370: // RECALL_MESSAGE: the producer's right, as 5.3's RecallMessageRequestHeader says
        out.push_back({Resource::topic(field("topic")), action::Pub});
        break;
    // The @RocketMQAction annotations of the reads QRocket serves.
    case rc::toInt(C::GetMaxOffset):
    case rc::toInt(C::GetMinOffset):
    case rc::toInt(C::GetEarliestMsgStoreTime):
    case rc::toInt(C::SearchOffsetByTimestamp):
    case rc::toInt(C::GetTopicStatsInfo):
    case rc::toInt(C::QueryTopicConsumeByWho):
    case rc::toInt(C::ViewMessageById):
        topic("topic", action::Get);
        break;
    case rc::toInt(C::GetConsumerConnectionList):
    case rc::toInt(C::GetConsumerRunningInfo):
        group("consumerGroup", action::Get);
        break;
    case rc::toInt(C::GetConsumeStats):
        group("consumerGroup", action::Get);
        if (!field("topic").isEmpty())
            topic("topic", action::Get);
        break;
    case rc::toInt(C::QueryConsumeTimeSpan):
        topic("topic", action::Get);
        group("group", action::Get);
        break;
    case rc::toInt(C::QueryConsumeQueue):
        topic("topic", action::Get);
        group("consumerGroup", action::Get);
        break;
    case rc::toInt(C::GetProducerConnectionList):
    case rc::toInt(C::GetAllProducerInfo):
    case rc::toInt(C::GetBrokerConsumeStats):
    case rc::toInt(C::ViewBrokerStatsData):
        cluster(action::Get);
        break;
    default:
        // Unchecked beyond the signature, as in 5.3.3 (no @RocketMQAction header): among them
        // GET_BROKER_CONFIG 26, GET_BROKER_HA_STATUS 907 and GET_BROKER_EPOCH_CACHE 1007.
        if (request.code >= 3001 && request.code <= 3010) // AUTH_*: Get for 3004/3005/3009/3010
            cluster(request.code == 3004 || request.code == 3005 || request.code >= 3009
                    ? action::Get
                    : action::Update);
        break;
    }
    return out;
}

} // namespace qrocket::acl
