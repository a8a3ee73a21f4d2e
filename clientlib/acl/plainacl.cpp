#include "clientlib/acl/plainacl.h"

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/protocol/popcodes.h"
#include "clientlib/protocol/requestcode.h"

#include <QFile>

#include <algorithm>
#include <yaml-cpp/yaml.h>

namespace qrocket::acl {

namespace rc = protocol;
namespace popcode = protocol::popcode;
using protocol::RemotingCommand;

namespace perm {

std::optional<std::uint8_t> parse(QStringView text)
{
    const QString t = text.trimmed().toString();
    if (t == QLatin1String("PUB"))
        return Pub;
    if (t == QLatin1String("SUB"))
        return Sub;
    if (t == QLatin1String("PUB|SUB") || t == QLatin1String("SUB|PUB"))
        return static_cast<std::uint8_t>(Pub | Sub);
    if (t == QLatin1String("DENY"))
        return Deny;
    return std::nullopt;
}

bool allows(std::uint8_t needed, std::uint8_t owned)
{
    if (owned & Deny)
        return false;
    if (needed & Any)
        return (owned & (Pub | Sub)) != 0;
    return (needed & owned) != 0;
}

} // namespace perm

namespace {

constexpr QByteArrayView kRetryPrefix = "%RETRY%";
constexpr QByteArrayView kTraceTopic = "RMQ_SYS_TRACE_TOPIC";

AclRefusal refusal(const QByteArray &why)
{
    return {1, QByteArrayLiteral("org.apache.rocketmq.acl.common.AclException: ") + why};
}

QString at(const YAML::Node &node, const QString &source)
{
    const YAML::Mark m = node.Mark();
    return QStringLiteral("%1line %2")
        .arg(source.isEmpty() ? QString() : source + u':')
        .arg(m.line + 1);
}

QString text(const YAML::Node &node)
{
    return node && node.IsScalar() ? QString::fromStdString(node.Scalar()) : QString();
}

/// One whiteRemoteAddress / globalWhiteRemoteAddresses entry; commas separate several (RocketMQ's
/// MultipleRemoteAddressStrategy); blank matches nothing.
Status addPatterns(const QString &value, std::vector<AddressPattern> &out)
{
    Result<std::vector<AddressPattern>> list = AddressPattern::parseList(value);
    if (!list)
        return list.error();
    for (AddressPattern &p : *list)
        out.push_back(std::move(p));
    return {};
}

bool matchesAny(const std::vector<AddressPattern> &patterns, const QHostAddress &peer)
{
    return AddressPattern::matchesAny(patterns, peer);
}

QByteArray retryTopic(QByteArrayView group)
{
    return kRetryPrefix.toByteArray() + group.toByteArray();
}

QByteArray printResource(const QByteArray &resource)
{
    if (resource.startsWith(kRetryPrefix))
        return "group:" + resource.mid(kRetryPrefix.size());
    return "topic:" + resource;
}

} // namespace

Result<PlainAclConfig> PlainAclConfig::parse(const QByteArray &yaml, const QString &source)
{
    YAML::Node root;
    try {
        root = YAML::Load(yaml.toStdString());
    } catch (const YAML::Exception &e) {
        return Status::invalidArgument(QStringLiteral("%1%2").arg(
            source.isEmpty() ? QString() : source + u':', QString::fromStdString(e.what())));
    }
    PlainAclConfig config;
    if (!root || root.IsNull())
        return config; // an empty file: no account, no white list
    if (!root.IsMap())
        return Status::invalidArgument(
            QStringLiteral("%1: the file is not a map of globalWhiteRemoteAddresses and accounts")
                .arg(at(root, source)));
    try {
        if (const YAML::Node global = root["globalWhiteRemoteAddresses"]; global) {
            if (!global.IsSequence() && !global.IsNull())
                return Status::invalidArgument(
                    QStringLiteral("%1: globalWhiteRemoteAddresses must be a list")
                        .arg(at(global, source)));
            for (const YAML::Node &entry : global) {
                if (Status s = addPatterns(text(entry), config.m_globalWhite); !s)
                    return Status::invalidArgument(
                        QStringLiteral("%1: %2").arg(at(entry, source), s.message()));
            }
        }
        const YAML::Node accounts = root["accounts"];
        if (accounts && !accounts.IsSequence() && !accounts.IsNull())
            return Status::invalidArgument(
                QStringLiteral("%1: accounts must be a list").arg(at(accounts, source)));
        for (const YAML::Node &a : accounts) {
            const auto bad = [&](const QString &why) {
                return Status::invalidArgument(QStringLiteral("%1: %2").arg(at(a, source), why));
            };
            if (!a.IsMap())
                return bad(QStringLiteral("an account must be a map"));
            AclAccount account;
            account.accessKey = text(a["accessKey"]).toUtf8();
            account.secretKey = text(a["secretKey"]).toUtf8();
            // RocketMQ's checkPlainAccessConfig: both longer than 6 characters.
            if (account.accessKey.size() <= 6 || account.secretKey.size() <= 6)
                return bad(QStringLiteral("accessKey %1: accessKey and secretKey must be longer "
                                          "than 6 characters")
                               .arg(QString::fromUtf8(account.accessKey)));
            if (config.m_accounts.contains(account.accessKey))
                return bad(QStringLiteral("accessKey %1 is defined twice")
                               .arg(QString::fromUtf8(account.accessKey)));
            if (Status s = addPatterns(text(a["whiteRemoteAddress"]), account.whiteRemoteAddress);
                !s)
                return bad(QStringLiteral("whiteRemoteAddress: %1").arg(s.message()));
            const QString admin = text(a["admin"]).trimmed().toLower();
            if (!admin.isEmpty() && admin != QLatin1String("true")
                && admin != QLatin1String("false"))
                return bad(QStringLiteral("admin must be true or false, not '%1'").arg(admin));
            account.admin = admin == QLatin1String("true");
            for (const auto &[key, field] :
                {std::pair {"defaultTopicPerm", &account.defaultTopicPerm},
                    std::pair {"defaultGroupPerm", &account.defaultGroupPerm}}) {
                const QString value = text(a[key]);
                if (value.trimmed().isEmpty())
                    continue; // RocketMQ: none given is DENY
                const std::optional<std::uint8_t> p = perm::parse(value);
                if (!p)
                    return bad(QStringLiteral("%1: '%2' is not DENY, PUB, SUB or PUB|SUB")
                                   .arg(QLatin1String(key), value));
                *field = *p;
            }
            for (const auto &[key, isGroup] :
                {std::pair {"topicPerms", false}, std::pair {"groupPerms", true}}) {
                const YAML::Node list = a[key];
                if (!list || list.IsNull())
                    continue;
                if (!list.IsSequence())
                    return bad(QStringLiteral("%1 must be a list").arg(QLatin1String(key)));
                for (const YAML::Node &entry : list) {
                    const QString item = text(entry);
                    const qsizetype eq = item.indexOf(u'=');
                    const std::optional<std::uint8_t> p
                        = eq > 0 ? perm::parse(QStringView(item).mid(eq + 1)) : std::nullopt;
                    if (!p)
                        return Status::invalidArgument(
                            QStringLiteral("%1: %2 entry '%3' is not <name>=DENY|PUB|SUB|PUB|SUB")
                                .arg(at(entry, source), QLatin1String(key), item));
                    const QByteArray name = item.left(eq).trimmed().toUtf8();
                    account.resourcePerms[isGroup ? retryTopic(name) : name] = *p;
                }
            }
            config.m_accounts.emplace(account.accessKey, std::move(account));
        }
    } catch (const YAML::Exception &e) {
        return Status::invalidArgument(QStringLiteral("%1%2").arg(
            source.isEmpty() ? QString() : source + u':', QString::fromStdString(e.what())));
    }
    return config;
}

Result<PlainAclConfig> PlainAclConfig::load(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return Status::ioError(QStringLiteral("%1: %2").arg(path, f.errorString()));
    return parse(f.readAll(), path);
}

bool isAdminCode(int code)
{
    switch (code) {
    // RocketMQ 4.9's Permission.ADMIN_CODE
    case rc::toInt(rc::RequestCode::UpdateAndCreateTopic):
    case rc::toInt(rc::RequestCode::UpdateBrokerConfig):
    case rc::toInt(rc::RequestCode::DeleteTopicInBroker):
    case rc::toInt(rc::RequestCode::UpdateAndCreateSubscriptionGroup):
    case rc::toInt(rc::RequestCode::DeleteSubscriptionGroup):
    // QRocket: everything else that changes or deletes state, or reads what is not one's own
    case rc::toInt(rc::RequestCode::TriggerDeleteFiles):
    case rc::toInt(rc::RequestCode::ViewMessageById):
    case rc::toInt(rc::RequestCode::UpdateAndCreateAclConfig):
    case rc::toInt(rc::RequestCode::DeleteAclConfig):
    case rc::toInt(rc::RequestCode::GetBrokerClusterAclInfo):
    case rc::toInt(rc::RequestCode::UpdateGlobalWhiteAddrsConfig):
    case 54: // GET_BROKER_CLUSTER_ACL_CONFIG
    case rc::toInt(rc::RequestCode::WipeWritePermOfBroker):
    case rc::toInt(rc::RequestCode::ResetConsumerOffsetInBroker):
    case rc::toInt(rc::RequestCode::DeleteTopicInNamesrv):
    case rc::toInt(rc::RequestCode::InvokeBrokerToResetOffset):
    case rc::toInt(rc::RequestCode::CleanExpiredConsumeQueue):
    case rc::toInt(rc::RequestCode::ConsumeMessageDirectly):
    case rc::toInt(rc::RequestCode::CloneGroupOffset):
    case rc::toInt(rc::RequestCode::CleanUnusedTopic):
    case rc::toInt(rc::RequestCode::UpdateNamesrvConfig):
    case rc::toInt(rc::RequestCode::AddWritePermOfBroker):
    case rc::toInt(rc::RequestCode::DeleteExpiredCommitLog):
    case 100: // PUT_KV_CONFIG
    case 102: // DELETE_KV_CONFIG
    case popcode::SetMessageRequestMode: // a group's PULL/POP switch, persisted
    case 103: // REGISTER_BROKER
    case 104: // UNREGISTER_BROKER
    case protocol::extensioncode::kGetAuthMetadata: // every user's password
    case protocol::extensioncode::kExplainSend: // any account's rule
        return true;
    default:
        return code >= 3001 && code <= 3010; // RocketMQ 5's AUTH_* user and ACL requests
    }
}

std::vector<std::pair<QByteArray, std::uint8_t>> neededResources(const RemotingCommand &request)
{
    std::vector<std::pair<QByteArray, std::uint8_t>> out;
    const auto add = [&](QByteArrayView resource, std::uint8_t p) {
        out.emplace_back(resource.toByteArray(), p);
    };
    const auto group
        = [&](QByteArrayView key) { add(retryTopic(request.extString(key)), perm::Sub); };
    switch (request.code) {
    case rc::toInt(rc::RequestCode::SendMessage):
    case rc::toInt(rc::RequestCode::SendMessageV2):
    case rc::toInt(rc::RequestCode::SendBatchMessage): // unchecked in RocketMQ 4.9
    case rc::toInt(rc::RequestCode::SendReplyMessage):
    case rc::toInt(rc::RequestCode::SendReplyMessageV2): {
        const bool v2 = request.hasExt("b");
        const QByteArrayView topic = request.extString(v2 ? "b" : "topic");
        if (topic.startsWith(kRetryPrefix)) {
            // A consumer's retry: the group its retry topic names (the producer group field
            // of a retry send is the consumer group in RocketMQ's clients).
            add(topic, perm::Sub);
        } else {
            add(topic, perm::Pub);
        }
        break;
    }
    case rc::toInt(rc::RequestCode::ConsumerSendMsgBack):
        group("group");
        break;
    case rc::toInt(rc::RequestCode::PullMessage):
        add(request.extString("topic"), perm::Sub);
        group("consumerGroup");
        break;
    case rc::toInt(rc::RequestCode::QueryMessage):
        add(request.extString("topic"), perm::Sub);
        break;
    case protocol::extensioncode::kExplainGroup: // its members' client ids: the group's own
        group("consumerGroup");
        break;
    // RocketMQ 5's POP (which 4.9's file predates): consuming, as PULL_MESSAGE.
    case popcode::PopMessage:
    case popcode::AckMessage:
    case popcode::PeekMessage:
    case popcode::ChangeMessageInvisibleTime:
    case popcode::Notification:
    case popcode::PollingInfo:
    case popcode::PopRollback:
        add(request.extString("topic"), perm::Sub);
        group("consumerGroup");
        break;
    case popcode::BatchAckMessage: {
        Result<protocol::BatchAckMessageRequestBody> body
            = protocol::BatchAckMessageRequestBody::fromJson(request.body);
        if (!body)
            break; // the processor answers the bad body; nothing named, nothing granted
        for (const protocol::BatchAck &ack : body->acks) {
            add(ack.topic, perm::Sub);
            add(retryTopic(ack.consumerGroup), perm::Sub);
        }
        break;
    }
    case popcode::QueryAssignment: {
        Result<protocol::QueryAssignmentRequestBody> body
            = protocol::QueryAssignmentRequestBody::fromJson(request.body);
        if (!body)
            break;
        add(body->topic, perm::Sub);
        add(retryTopic(body->consumerGroup), perm::Sub);
        break;
    }
    case popcode::GetTopicConfig:
        add(request.extString("topic"), perm::Sub);
        break;
    case 370: // RECALL_MESSAGE (RocketMQ 5): cancelling a timer message is the producer's
        add(request.extString("topic"), perm::Pub);
        break;
    case popcode::GetSubscriptionGroupConfig:
        group("group");
        break;
    case rc::toInt(rc::RequestCode::HeartBeat): {
        Result<protocol::HeartbeatData> data = protocol::HeartbeatData::fromJson(request.body);
        if (!data)
            break; // the processor answers the bad body; nothing named, nothing granted
        for (const protocol::ConsumerData &c : data->consumerDataSet) {
            add(retryTopic(c.groupName), perm::Sub);
            for (const protocol::SubscriptionData &s : c.subscriptionDataSet)
                add(s.topic, perm::Sub);
        }
        break;
    }
    case rc::toInt(rc::RequestCode::UnregisterClient):
    case rc::toInt(rc::RequestCode::GetConsumerListByGroup):
        group("consumerGroup");
        break;
    case rc::toInt(rc::RequestCode::UpdateConsumerOffset):
    case rc::toInt(rc::RequestCode::QueryConsumerOffset): // QRocket: reading it needs the group too
        group("consumerGroup");
        add(request.extString("topic"), perm::Sub);
        break;
    case rc::toInt(rc::RequestCode::LockBatchMq):
    case rc::toInt(rc::RequestCode::UnlockBatchMq): {
        Result<protocol::LockBatchRequestBody> body
            = protocol::LockBatchRequestBody::fromJson(request.body);
        if (body)
            add(retryTopic(body->consumerGroup), perm::Sub);
        break;
    }
    default:
        break;
    }
    return out;
}

bool PlainAclConfig::isGloballyWhite(const QHostAddress &peer) const
{
    return matchesAny(m_globalWhite, peer);
}

bool signatureMatches(const protocol::ExtFieldOrder &order, QByteArrayView secret)
{
    const RemotingCommand &request = order.request();
    const QByteArray *signature = request.ext(protocol::kAclSignature);
    return signature
        && (protocol::constantTimeEquals(
                *signature, protocol::aclSignature(secret, order, protocol::kAclUniqueKeyQuery))
            || (request.hasExt(protocol::kAclUniqueKeyQuery)
                && protocol::constantTimeEquals(
                    *signature, protocol::aclSignature(secret, order))));
}

std::optional<AclRefusal> PlainAclConfig::check(
    const QHostAddress &peer, const RemotingCommand &request) const
{
    if (matchesAny(m_globalWhite, peer))
        return std::nullopt;
    const QByteArray *accessKey = request.ext(protocol::kAclAccessKey);
    if (!accessKey || accessKey->isEmpty())
        return refusal("No accessKey is configured");
    const auto it = m_accounts.find(*accessKey);
    if (it == m_accounts.end())
        return refusal("No acl config for " + accessKey->left(128));
    const AclAccount &account = it->second;
    if (matchesAny(account.whiteRemoteAddress, peer))
        return std::nullopt;

    // One value per key: a signed value and the value a processor reads must be the same.
    const protocol::ExtFieldOrder order(request);
    if (const QByteArray *key = order.duplicate())
        return refusal(
            "Duplicated request field " + key->left(128) + " for accessKey=" + account.accessKey);
    if (!signatureMatches(order, account.secretKey))
        return refusal("Check signature failed for accessKey=" + account.accessKey);

    const std::vector<std::pair<QByteArray, std::uint8_t>> needed = neededResources(request);
    // Message traces (RocketMQ skips the check for a send to the trace topic).
    if (needed.size() == 1 && needed.front().first == kTraceTopic
        && needed.front().second == perm::Pub)
        return std::nullopt;
    if (isAdminCode(request.code) && !account.admin)
        return refusal("Need admin permission for request code=" + QByteArray::number(request.code)
            + ", but accessKey=" + account.accessKey + " is not");
    if (account.admin && account.resourcePerms.empty())
        return std::nullopt; // RocketMQ: an admin without explicit perms may do everything
    for (const auto &[resource, need] : needed) {
        const auto own = account.resourcePerms.find(resource);
        const bool isGroup = resource.startsWith(kRetryPrefix);
        const std::uint8_t owned = own != account.resourcePerms.end()
            ? own->second
            : (isGroup ? account.defaultGroupPerm : account.defaultTopicPerm);
        if (!perm::allows(need, owned))
            return refusal("No default permission for " + printResource(resource));
    }
    return std::nullopt;
}

} // namespace qrocket::acl
