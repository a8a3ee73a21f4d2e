// QRocket's explain extensions on the broker (extensioncode.h kExplainGroup, kExplainCleanup,
// kExplainSend): answers built from the broker's own state, each finding naming the setting (and
// its current value) or the client that decides it. Admin requests, never on a hot path: JSON
// and QString are fine here.

#include "broker/common/brokercontext.h"
#include "broker/config/brokerconfig.h"
#include "broker/managers/brokerstats.h"
#include "broker/managers/consumermanager.h"
#include "broker/managers/consumeroffsetmanager.h"
#include "broker/managers/rebalancelockmanager.h"
#include "broker/managers/subscriptiongroupmanager.h"
#include "broker/managers/topicconfigmanager.h"
#include "broker/managers/topicvalidator.h"
#include "broker/processors/admincommon.h"
#include "broker/processors/adminprocessor.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/acl/authmodel.h"
#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "storage/messagestore.h"

#include <QDateTime>
#include <QHostAddress>

#include <algorithm>
#include <map>
#include <set>

namespace qrocket::broker {

using protocol::ExplainBody;
using protocol::RemotingCommand;
namespace verdict = protocol::explainverdict;

namespace {

QByteArray num(std::int64_t v)
{
    return QByteArray::number(v);
}

QByteArray permText(int p)
{
    QByteArray s = num(p) + " (";
    s += Perm::isReadable(p) ? "R" : "-";
    s += Perm::isWriteable(p) ? "W" : "-";
    return s + ')';
}

QByteArray percent(double ratio)
{
    return ratio < 0 ? QByteArray("unknown")
                     : num(static_cast<std::int64_t>(ratio * 100 + 0.5)) + '%';
}

RemotingCommand answer(const RemotingCommand &request, const ExplainBody &body)
{
    RemotingCommand response = makeResponse(request, toInt(ResponseCode::Success));
    response.body = body.toJson();
    return response;
}

QByteArray runtimeValue(const std::vector<std::pair<QByteArray, QByteArray>> &t, QByteArrayView key)
{
    for (const auto &[k, v] : t) {
        if (k == key)
            return v;
    }
    return {};
}

} // namespace

RemotingCommand AdminProcessor::explainGroup(const RemotingCommand &request)
{
    const QByteArray group = request.extString("consumerGroup").toByteArray();
    if (group.isEmpty())
        return makeResponse(
            request, toInt(ResponseCode::SystemError), missingFieldRemark("consumerGroup"));
    const QByteArray onlyTopic = request.extString("topic").toByteArray();
    const std::optional<protocol::SubscriptionGroupConfig> config
        = m_ctx.subscriptionGroups->find(group);
    const std::optional<ConsumerGroupInfo> live
        = m_ctx.consumers ? m_ctx.consumers->groupInfo(group) : std::nullopt;
    const QList<QByteArray> offsetTopics = m_ctx.consumerOffsets->topicsOfGroup(group);
    if (!config && !live && offsetTopics.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SubscriptionGroupNotExist),
            "subscription group [" + group
                + "] not exist: no config, no live consumer and no committed offset on this "
                  "broker");
    if (!onlyTopic.isEmpty() && !m_ctx.topics->find(onlyTopic))
        return makeResponse(
            request, toInt(ResponseCode::TopicNotExist), "topic[" + onlyTopic + "] not exist");

    ExplainBody body;
    body.question = "group";
    body.subject = group;
    body.now = QDateTime::currentMSecsSinceEpoch();
    const BrokerConfig &bc = *m_ctx.config;

    // The group's own switch and the broker's read permission.
    if (config && !config->consumeEnable)
        body.add(verdict::kBlocking, "consumeDisabled", group,
            "the subscription group has consumeEnable=false: every pull and pop is refused "
            "(NO_PERMISSION)",
            "consumeEnable", "false");
    else
        body.add(verdict::kOk, "consumeEnabled", group,
            config ? "consumeEnable is true" : "no subscription group config yet (defaults apply)",
            "consumeEnable", "true");
    if (!Perm::isReadable(bc.brokerPermission))
        body.add(verdict::kBlocking, "brokerNotReadable", bc.brokerName.toUtf8(),
            "the broker's permission has no read bit: pulls are refused (NO_PERMISSION)",
            "brokerPermission", permText(bc.brokerPermission));

    // Live members and their subscriptions.
    std::set<QByteArray> liveClients;
    if (!live || live->channels.empty()) {
        body.add(verdict::kBlocking, "noLiveConsumer", group,
            "no consumer of the group has sent a heartbeat within the channel expiry; nothing "
            "pulls",
            "channelExpiredTimeoutMillis", num(kChannelExpiredTimeoutMs));
    } else {
        body.add(verdict::kOk, "liveConsumers", group,
            num(static_cast<std::int64_t>(live->channels.size())) + " live consumer(s)",
            "channelExpiredTimeoutMillis", num(kChannelExpiredTimeoutMs));
        std::map<QByteArray, std::vector<QByteArray>> bySubscription; // subs -> client ids
        for (const ClientChannelInfo &c : live->channels) {
            liveClients.insert(c.clientId);
            bySubscription[c.subscriptions].push_back(c.clientId);
            // Each member by its client id: the Admin asks each one's running info (its own
            // flow control) through this broker.
            body.add(verdict::kInfo, "member", group,
                "a live member, " + QByteArray(protocol::languageName(c.language)) + " version "
                    + num(c.version),
                "lastHeartbeatAgeMillis",
                num(std::max<std::int64_t>(body.now - c.lastUpdateTimestamp, 0)), c.clientId);
        }
        if (bySubscription.size() > 1) {
            for (const auto &[subs, clients] : bySubscription) {
                for (const QByteArray &client : clients)
                    body.add(verdict::kBlocking, "subscriptionsDiffer", group,
                        "the group's members subscribe differently; the broker keeps one "
                        "subscription per topic (the last heartbeat's) and rebalancing "
                        "assigns queues to members that filter them out",
                        "subscription", subs.isEmpty() ? QByteArray("(none)") : subs, client);
            }
        } else {
            body.add(verdict::kOk, "subscriptionsSame", group, "every member subscribes the same",
                "subscription", bySubscription.begin()->first);
        }
    }

    // The topics to look at: the one asked for, else the subscribed and the committed ones.
    std::set<QByteArray> topics;
    if (!onlyTopic.isEmpty()) {
        topics.insert(onlyTopic);
    } else {
        if (live) {
            for (const auto &[topic, sub] : live->subscriptions)
                topics.insert(topic);
        }
        for (const QByteArray &t : offsetTopics)
            topics.insert(t);
    }
    if (!onlyTopic.isEmpty() && live && !live->channels.empty()
        && !live->subscriptions.contains(onlyTopic))
        body.add(verdict::kBlocking, "notSubscribed", onlyTopic,
            "no live member of the group subscribes this topic", "subscription",
            "(not subscribed)");

    const QByteArray brokerName = bc.brokerName.toUtf8();
    const RebalanceLockManager *locks = m_ctx.rebalanceLocks.get();
    std::int64_t totalLag = 0;
    for (const QByteArray &topic : topics) {
        const std::optional<TopicConfig> tc = m_ctx.topics->find(topic);
        if (!tc) {
            body.add(verdict::kBlocking, "topicNotExist", topic,
                "the group subscribes or has offsets on a topic this broker does not have", "topic",
                topic);
            continue;
        }
        if (!Perm::isReadable(tc->perm))
            body.add(verdict::kBlocking, "topicNotReadable", topic,
                "the topic's permission has no read bit: pulls are refused (NO_PERMISSION)", "perm",
                permText(tc->perm));
        std::int64_t lag = 0;
        for (int q = 0; q < tc->readQueueNums; ++q) {
            const QByteArray queue = topic + ':' + num(q);
            const std::int64_t committed = m_ctx.consumerOffsets->query(group, topic, q);
            const std::int64_t maxOffset
                = std::max<std::int64_t>(m_ctx.store->maxOffsetInQueue(topic, q), 0);
            const std::int64_t minOffset
                = std::max<std::int64_t>(m_ctx.store->minOffsetInQueue(topic, q), 0);
            if (committed > maxOffset) {
                body.add(verdict::kBlocking, "offsetPastEnd", queue,
                    "the committed offset is past the queue's max offset: pulls answer "
                    "OFFSET_OVERFLOW until it is reset (resetOffsetByTime)",
                    "committedOffset", num(committed) + " > maxOffset " + num(maxOffset));
            } else if (committed >= 0 && committed < minOffset) {
                body.add(verdict::kWarning, "offsetBeforeMin", queue,
                    "the committed offset is before the queue's min offset (the messages were "
                    "deleted); the next pull moves it to the min offset",
                    "committedOffset", num(committed) + " < minOffset " + num(minOffset));
            }
            if (committed >= 0)
                lag += std::max<std::int64_t>(maxOffset - committed, 0);
            if (!locks)
                continue;
            const QByteArray holder = locks->holder(group, {topic, brokerName, q});
            if (holder.isEmpty())
                continue;
            const bool held = locks->isLockedBy(group, {topic, brokerName, q}, holder);
            if (!held)
                body.add(verdict::kInfo, "queueLockExpired", queue,
                    "the orderly lock of this queue expired; any member may take it",
                    "lockMaxLiveTimeMillis", num(locks->lockMaxLiveTimeMs()), holder);
            else if (!liveClients.contains(holder))
                body.add(verdict::kBlocking, "queueLockedByGoneClient", queue,
                    "the queue is locked by a client that is not a live member of the group; "
                    "no other member can consume it orderly until the lock expires",
                    "lockMaxLiveTimeMillis", num(locks->lockMaxLiveTimeMs()), holder);
            else
                body.add(verdict::kInfo, "queueLocked", queue,
                    "the queue is locked (orderly consumption) by this client; the other "
                    "members leave it to it",
                    "lockMaxLiveTimeMillis", num(locks->lockMaxLiveTimeMs()), holder);
        }
        totalLag += lag;
        body.add(verdict::kInfo, "lag", topic,
            "messages between the committed offsets and the max offsets", "lag", num(lag));
    }

    // POP: messages handed out and invisible until acked or revived.
    if (m_ctx.popStats) {
        const protocol::PopStatsBody pop = m_ctx.popStats(group);
        for (const protocol::PopGroupStats &g : pop.groups) {
            if (g.group != group || (!onlyTopic.isEmpty() && !g.topic.endsWith(onlyTopic)))
                continue;
            if (g.inFlight > 0)
                body.add(verdict::kWarning, "popInvisible", g.topic,
                    "messages popped and neither acked nor revived: invisible to every consumer "
                    "until their invisibleTime ends",
                    "inFlight",
                    num(g.inFlight)
                        + (g.nextReviveAt > 0 ? ", next visible at " + num(g.nextReviveAt)
                                              : QByteArray()));
            if (g.reviveBacklog > 0)
                body.add(verdict::kWarning, "popReviveBacklog", g.topic,
                    "messages past their invisible time not revived yet", "reviveBacklog",
                    num(g.reviveBacklog));
            if (g.mode == "POP")
                body.add(verdict::kInfo, "popMode", g.topic,
                    "the group is switched to POP on this topic (setConsumeMode)", "consumeMode",
                    g.mode);
        }
    }

    // The broker's own flow control of pulls: the pull executor's queue.
    if (m_ctx.stats) {
        const auto rt = m_ctx.stats->runtimeInfo();
        const std::int64_t size = runtimeValue(rt, "pullThreadPoolQueueSize").toLongLong();
        const std::int64_t capacity = runtimeValue(rt, "pullThreadPoolQueueCapacity").toLongLong();
        body.add(capacity > 0 && size >= capacity ? verdict::kBlocking : verdict::kOk, "pullQueue",
            brokerName,
            "the pull executor's queue; when full, pulls answer SYSTEM_BUSY ([OVERLOAD])",
            "pullThreadPoolQueueCapacity", num(size) + "/" + num(capacity));
    }
    if (!topics.empty() && totalLag == 0 && body.verdict() != verdict::kBlocking)
        body.add(verdict::kInfo, "nothingToConsume", group,
            "every committed offset equals its queue's max offset: nothing is waiting", "lag", "0");
    return answer(request, body);
}

RemotingCommand AdminProcessor::explainCleanup(const RemotingCommand &request)
{
    const storage::StoreStats st = m_ctx.store->stats();
    const storage::MessageStoreConfig &sc = m_ctx.store->config();
    ExplainBody body;
    body.question = "cleanup";
    body.now = QDateTime::currentMSecsSinceEpoch();
    const int hour = QDateTime::fromMSecsSinceEpoch(body.now).time().hour();
    const bool deleteHour = sc.deleteHours().contains(hour);
    // As the clean service decides: either partition above the mark, or one unmeasured.
    const double worstRatio = st.diskRatio < 0 || st.consumeQueueDiskRatio < 0
        ? -1
        : std::max(st.diskRatio, st.consumeQueueDiskRatio);
    const bool aboveMark = worstRatio < 0 || worstRatio * 100 > sc.diskMaxUsedSpaceRatio;
    const QByteArray diskValue = percent(st.diskRatio) + " used"
        + (st.consumeQueueDiskRatio != st.diskRatio
                ? " (consume queue " + percent(st.consumeQueueDiskRatio) + ')'
                : QByteArray())
        + ", mark " + num(sc.diskMaxUsedSpaceRatio) + '%';
    body.add(aboveMark ? verdict::kInfo : verdict::kOk, "diskRatio", "commitlog",
        aboveMark ? "a store partition is above diskMaxUsedSpaceRatio (or unmeasured): expired "
                    "files are deleted at any hour"
                  : "both store partitions are below diskMaxUsedSpaceRatio: expired files wait "
                    "for a deleteWhen hour",
        "diskMaxUsedSpaceRatio", diskValue);
    if (st.diskRatio >= 0 && st.diskRatio * 100 > sc.diskSpaceCleanForciblyRatio)
        body.add(verdict::kInfo, "cleanForcibly", "commitlog",
            "above diskSpaceCleanForciblyRatio: the oldest files go even when not expired",
            "diskSpaceCleanForciblyRatio", num(sc.diskSpaceCleanForciblyRatio));
    for (const storage::StoreFileStatus &f : st.commitLogFiles) {
        const QByteArray path = f.path.toUtf8();
        using Kept = storage::StoreFileStatus::Kept;
        if (f.kept == Kept::Current) {
            body.add(verdict::kInfo, "currentFile", path, "the file being written is never deleted",
                "mappedFileSizeCommitLog", num(f.size));
        } else if (body.now < f.expiresAt) {
            body.add(verdict::kInfo, "notExpired", path,
                "younger than fileReservedTime; expires at " + num(f.expiresAt), "fileReservedTime",
                num(sc.fileReservedTime) + " h");
        } else if (f.kept == Kept::Held) {
            body.add(verdict::kInfo, "readerHolds", path,
                "expired, but a reader still maps it; destroyed after "
                "destroyMapedFileIntervalForcibly",
                "destroyMapedFileIntervalForcibly", num(sc.destroyMapedFileIntervalForcibly));
        } else if (!deleteHour && !aboveMark) {
            body.add(verdict::kInfo, "waitingDeleteWhen", path,
                "expired; deleted at the next deleteWhen hour (now " + num(hour)
                    + ") or when the disk passes diskMaxUsedSpaceRatio (" + diskValue + ")",
                "deleteWhen", sc.deleteWhen.toUtf8());
        } else {
            body.add(verdict::kInfo, "deletingSoon", path,
                "expired and deletable now; the clean service deletes at most "
                "deleteFileBatchMax files per pass",
                "deleteFileBatchMax", num(sc.deleteFileBatchMax));
        }
    }
    return answer(request, body);
}

RemotingCommand AdminProcessor::explainSend(const RemotingCommand &request)
{
    const QByteArray topic = request.extString("topic").toByteArray();
    if (topic.isEmpty())
        return makeResponse(request, toInt(ResponseCode::SystemError), missingFieldRemark("topic"));
    // sourceIp (the producer's address the ACL 2.0 decision is for) is an IPv4 or IPv6 address:
    // anything else is refused rather than read as "every address".
    if (const QByteArray ip = request.extString("sourceIp").toByteArray();
        !ip.isEmpty() && QHostAddress(QString::fromLatin1(ip)).isNull())
        return makeResponse(request, toInt(ResponseCode::InvalidParameter),
            "sourceIp[" + ip.left(64) + "] is not an IPv4 or IPv6 address");
    const BrokerConfig &bc = *m_ctx.config;
    const std::optional<TopicConfig> tc = m_ctx.topics->find(topic);
    if (!tc)
        return makeResponse(request, toInt(ResponseCode::TopicNotExist),
            "topic[" + topic + "] not exist (autoCreateTopicEnable="
                + (bc.autoCreateTopicEnable ? "true" : "false") + ")");
    ExplainBody body;
    body.question = "send";
    body.subject = topic;
    body.now = QDateTime::currentMSecsSinceEpoch();
    const QByteArray brokerName = bc.brokerName.toUtf8();

    if (bc.startAcceptSendRequestTimeStamp > body.now)
        body.add(verdict::kBlocking, "notAcceptingYet", brokerName,
            "sends are refused (SYSTEM_ERROR) until this time", "startAcceptSendRequestTimeStamp",
            num(bc.startAcceptSendRequestTimeStamp));
    if (!bc.isMaster())
        body.add(verdict::kBlocking, "slave", brokerName,
            "a slave stores no sends (SERVICE_NOT_AVAILABLE)", "brokerRole",
            brokerRoleName(bc.role()));
    if (!Perm::isWriteable(bc.brokerPermission))
        body.add(tc->order ? verdict::kBlocking : verdict::kWarning, "brokerNotWriteable",
            brokerName,
            tc->order ? "the broker has no write bit: sends to this order topic answer "
                        "NO_PERMISSION"
                      : "the broker has no write bit: producers stop choosing it from the routes",
            "brokerPermission", permText(bc.brokerPermission));
    else
        body.add(verdict::kOk, "brokerWriteable", brokerName, "the broker accepts writes",
            "brokerPermission", permText(bc.brokerPermission));
    if (topics::isNotAllowedSendTopic(topic))
        body.add(verdict::kBlocking, "sendForbiddenTopic", topic,
            "a system topic clients may not send to (NO_PERMISSION)", "topic", topic);
    if (!Perm::isWriteable(tc->perm))
        body.add(verdict::kWarning, "topicNotWriteable", topic,
            "the topic has no write bit: its route tells producers not to send here", "perm",
            permText(tc->perm));
    else
        body.add(verdict::kOk, "topicWriteable", topic, "the topic's permission allows writes",
            "perm", permText(tc->perm));
    if (bc.rejectTransactionMessage)
        body.add(verdict::kWarning, "rejectTransactionMessage", brokerName,
            "transactional half messages are refused (NO_PERMISSION)", "rejectTransactionMessage",
            "true");

    // The store: disk full, and the page-cache busy mark.
    const storage::StoreStats st = m_ctx.store->stats();
    const storage::MessageStoreConfig &sc = m_ctx.store->config();
    if (st.diskFull)
        body.add(verdict::kBlocking, "diskFull", brokerName,
            "the store refuses writes (SERVICE_NOT_AVAILABLE): "
                + (st.refuseReason.isEmpty() ? QByteArray("disk full") : st.refuseReason.toUtf8()),
            "diskSpaceWarningLevelRatio",
            num(sc.diskSpaceWarningLevelRatio) + "% (commit log " + percent(st.diskRatio)
                + ", consume queue " + percent(st.consumeQueueDiskRatio) + ")");
    else
        body.add(verdict::kOk, "diskSpace", brokerName,
            "both partitions at or below diskSpaceWarningLevelRatio", "diskSpaceWarningLevelRatio",
            num(sc.diskSpaceWarningLevelRatio) + "% (commit log " + percent(st.diskRatio)
                + ", consume queue " + percent(st.consumeQueueDiskRatio) + ")");
    body.add(verdict::kInfo, "osPageCacheBusy", brokerName,
        "a put finding the commit-log lock held longer than this answers [PC_SYNCHRONIZED] "
        "broker busy",
        "osPageCacheBusyTimeOutMills", num(sc.osPageCacheBusyTimeOutMills));
    if (m_ctx.stats) {
        const auto rt = m_ctx.stats->runtimeInfo();
        const std::int64_t size = runtimeValue(rt, "sendThreadPoolQueueSize").toLongLong();
        const std::int64_t capacity = runtimeValue(rt, "sendThreadPoolQueueCapacity").toLongLong();
        body.add(capacity > 0 && size >= capacity ? verdict::kBlocking : verdict::kOk, "sendQueue",
            brokerName,
            "the send executor's queue; when full, sends answer SYSTEM_BUSY ([OVERLOAD])",
            "sendThreadPoolQueueCapacity", num(size) + "/" + num(capacity));
    }
    body.add(verdict::kInfo, "waitTimeMillsInSendQueue", brokerName,
        "QRocket does not expire queued sends by age ([TIMEOUT_CLEAN_QUEUE] is never answered); "
        "only a full send queue refuses",
        "waitTimeMillsInSendQueue", "not applied");

    // ACL: the rule that decides for one access key.
    explainSendAcl(request, topic, body);
    return answer(request, body);
}

void AdminProcessor::explainSendAcl(
    const RemotingCommand &request, const QByteArray &topic, ExplainBody &body) const
{
    const QByteArray accessKey = request.extString("accessKey").toByteArray();
    const acl::AclGuard *guard = m_ctx.acl;
    if (!m_ctx.config->aclEnable || !guard) {
        body.add(verdict::kOk, "aclDisabled", topic, "no access control on this broker",
            "aclEnable", "false");
        return;
    }
    if (accessKey.isEmpty()) {
        body.add(verdict::kInfo, "aclNoKey", topic,
            "aclEnable is true; name an access key (accessKey) to see the rule that decides for "
            "it",
            "aclEnable", "true");
        return;
    }
    const std::shared_ptr<const acl::PlainAclConfig> rules = guard->rules();
    const acl::AclAccount *found = nullptr;
    if (rules) {
        if (const auto it = rules->accounts().find(accessKey); it != rules->accounts().end())
            found = &it->second;
    }
    // As AclGuard::check decides: an ACL 2.0 user, unless an untouched import of an account the
    // file still defines.
    const std::shared_ptr<const acl::AuthData> v2 = guard->authData();
    if (const acl::AuthUser *user = v2 ? v2->user(accessKey) : nullptr;
        user && (!user->imported || !found)) {
        explainSendAcl2(request, topic, *v2, *user, body);
        return;
    }
    if (!found) {
        body.add(verdict::kBlocking, "aclUnknownKey", topic,
            "no account with this access key: the ACL refuses its requests", "accessKey", accessKey,
            accessKey);
        return;
    }
    const acl::AclAccount &account = *found;
    if (account.admin && account.resourcePerms.empty()) {
        body.add(verdict::kOk, "aclAdmin", topic,
            "an admin account without explicit permissions may do everything", "admin", "true",
            accessKey);
        return;
    }
    const auto own = account.resourcePerms.find(topic);
    const bool explicitPerm = own != account.resourcePerms.end();
    const std::uint8_t owned = explicitPerm ? own->second : account.defaultTopicPerm;
    const QByteArray setting = explicitPerm ? "topicPerms[" + topic + "]" : "defaultTopicPerm";
    QByteArray value;
    if (owned & acl::perm::Deny)
        value = "DENY";
    else if ((owned & acl::perm::Pub) && (owned & acl::perm::Sub))
        value = "PUB|SUB";
    else if (owned & acl::perm::Pub)
        value = "PUB";
    else if (owned & acl::perm::Sub)
        value = "SUB";
    else
        value = num(owned);
    if (acl::perm::allows(acl::perm::Pub, owned))
        body.add(verdict::kOk, "aclAllows", topic, "the account may publish to the topic", setting,
            value, accessKey);
    else
        body.add(verdict::kBlocking, "aclDenies", topic,
            "the account may not publish to the topic: the ACL refuses its sends", setting, value,
            accessKey);
}

void AdminProcessor::explainSendAcl2(const RemotingCommand &request, const QByteArray &topic,
    const acl::AuthData &data, const acl::AuthUser &user, ExplainBody &body) const
{
    const QByteArray &name = user.username;
    if (user.status == acl::UserStatus::Disable) {
        body.add(verdict::kBlocking, "acl2UserDisabled", topic,
            "the ACL 2.0 user is disabled: every request answers NO_PERMISSION", "userStatus",
            acl::userStatusName(user.status), name);
        return;
    }
    if (user.type == acl::UserType::Super) {
        body.add(verdict::kOk, "acl2Super", topic, "an ACL 2.0 super user may do everything",
            "userType", acl::userTypeName(user.type), name);
        return;
    }
    // The producer's address decides entries limited to sourceIps: the request's sourceIp, else
    // 0.0.0.0 (only entries for every address, or without sourceIps, match it).
    QHostAddress peer(QString::fromLatin1(request.extString("sourceIp")));
    if (peer.isNull())
        peer = QHostAddress(QHostAddress::AnyIPv4);
    const acl::AuthCheck check {acl::Resource::topic(topic), acl::action::Pub};
    const QByteArray subject = acl::userSubject(name);
    if (std::optional<QByteArray> no = acl::authorize(data, user, check, peer))
        body.add(verdict::kBlocking, "acl2Denies", topic,
            "the ACL refuses its sends (NO_PERMISSION): " + *no, "acl", subject, name);
    else
        body.add(verdict::kOk, "acl2Allows", topic,
            "its ACL allows Pub on " + check.resource.key() + " from " + peer.toString().toUtf8()
                + " (qrocket-admin getAcl -s " + subject + " shows the policies)",
            "acl", subject, name);
}

} // namespace qrocket::broker
