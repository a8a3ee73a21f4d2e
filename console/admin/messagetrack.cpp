// mqadmin's messageTrackDetail (see messagetrack.h).

#include "console/admin/messagetrack.h"

#include <algorithm>

namespace qrocket::admincli {

namespace {

constexpr int kConsumerNotOnline = 206;

QString describe(const Status &st)
{
    if (st.remoteCode() >= 0)
        return QStringLiteral("CODE:%1 DESC:%2").arg(st.remoteCode()).arg(st.message());
    return st.toString();
}

/// RocketMQ's consumed(): the group's committed offset of the message's queue on the master
/// that stored it is past the message.
Result<bool> consumed(client::Admin &admin, const client::MessageExt &msg, const QByteArray &group,
    const protocol::ClusterInfo &cluster)
{
    auto stats = admin.consumeStats(group);
    if (!stats)
        return stats.error();
    const QByteArray storeHost = msg.storeHost().toString();
    for (const auto &[mq, offsets] : stats->offsetTable) {
        if (mq.topic != msg.topic() || mq.queueId != msg.queueId())
            continue;
        const auto broker = cluster.brokerAddrTable.find(mq.brokerName);
        if (broker == cluster.brokerAddrTable.end())
            continue;
        const auto master = broker->second.brokerAddrs.find(0);
        if (master != broker->second.brokerAddrs.end() && master->second == storeHost
            && offsets.consumerOffset > msg.queueOffset())
            return true;
    }
    return false;
}

} // namespace

const char *MessageTrack::typeName(Type t)
{
    switch (t) {
    case Type::Consumed:
        return "CONSUMED";
    case Type::ConsumedButFiltered:
        return "CONSUMED_BUT_FILTERED";
    case Type::Pull:
        return "PULL";
    case Type::NotConsumeYet:
        return "NOT_CONSUME_YET";
    case Type::NotOnline:
        return "NOT_ONLINE";
    case Type::Unknown:
        break;
    }
    return "UNKNOWN";
}

QString MessageTrack::toString() const
{
    return QStringLiteral("MessageTrack [consumerGroup=%1, trackType=%2, exceptionDesc=%3]")
        .arg(QString::fromUtf8(consumerGroup), QString::fromLatin1(typeName(type)),
            exceptionDesc.isEmpty() ? QStringLiteral("null") : exceptionDesc);
}

Result<std::vector<MessageTrack>> messageTrackDetail(
    client::Admin &admin, const client::MessageExt &msg)
{
    auto groups = admin.topicConsumedBy(msg.topic());
    if (!groups)
        return groups.error();
    std::vector<MessageTrack> out;
    if (groups->empty())
        return out;
    auto cluster = admin.clusterInfo();
    for (const QByteArray &group : *groups) {
        MessageTrack mt;
        mt.consumerGroup = group;
        auto cc = admin.consumerConnection(group);
        if (!cc) {
            if (cc.error().remoteCode() == kConsumerNotOnline)
                mt.type = MessageTrack::Type::NotOnline;
            mt.exceptionDesc = describe(cc.error());
            out.push_back(std::move(mt));
            continue;
        }
        if (cc->consumeType == protocol::ConsumeType::ConsumeActively) {
            mt.type = MessageTrack::Type::Pull;
            out.push_back(std::move(mt));
            continue;
        }
        if (!cluster) {
            mt.exceptionDesc = describe(cluster.error());
            out.push_back(std::move(mt));
            continue;
        }
        auto done = consumed(admin, msg, group, *cluster);
        if (!done) {
            if (done.error().remoteCode() == kConsumerNotOnline)
                mt.type = MessageTrack::Type::NotOnline;
            mt.exceptionDesc = describe(done.error());
        } else if (!*done) {
            mt.type = MessageTrack::Type::NotConsumeYet;
        } else {
            mt.type = MessageTrack::Type::Consumed;
            const auto sub = cc->subscriptionTable.find(msg.topic());
            if (sub != cc->subscriptionTable.end()) {
                const auto &tags = sub->second.tagsSet;
                const bool takes = tags.empty()
                    || std::find(tags.begin(), tags.end(), msg.tags()) != tags.end()
                    || std::find(tags.begin(), tags.end(), QByteArrayLiteral("*")) != tags.end();
                if (!takes)
                    mt.type = MessageTrack::Type::ConsumedButFiltered;
            }
        }
        out.push_back(std::move(mt));
    }
    return out;
}

} // namespace qrocket::admincli
