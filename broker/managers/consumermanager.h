#pragma once

// ConsumerManager: the live consumers of each group, from HEART_BEAT (protocol.md §4.3):
// per group the channels (client id, language, version, last heartbeat), the group's consume
// type, message model and consume-from-where, and the subscriptions by topic.
//
// The manager only records; the caller acts on what its methods return:
// - registerConsumer() reports whether a channel joined the group or the subscribed topic set
//   changed; then the caller sends NOTIFY_CONSUMER_IDS_CHANGED (40, oneway) to channels(group)
//   when the group's notifyConsumerIdsChangedEnable is on.
// - unregisterConsumer(), channelClosed() and scanExpired() report the groups whose membership
//   changed and that still have members (to notify), as RocketMQ does on a close.
//
// Thread-safety: every method may be called from any thread (one mutex). No channel method is
// called under the lock except close() in scanExpired() (Channel methods only post work).

#include "broker/managers/clientchannelinfo.h"
#include "clientlib/protocol/bodies/clientbodies.h"

#include <QByteArray>
#include <QList>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace qrocket::broker {

// The heartbeat's model is the protocol's, shared with the clients that write it.
using protocol::ConsumeFromWhere;
using protocol::ConsumerData;
using protocol::ConsumeType;
using protocol::HeartbeatData;
using protocol::MessageModel;
using protocol::ProducerData;
using protocol::SubscriptionData;

/// A snapshot of one group (GET_CONSUMER_CONNECTION_LIST, ConsumerConnection body).
struct ConsumerGroupInfo
{
    QByteArray groupName;
    ConsumeType consumeType = ConsumeType::ConsumePassively;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::ConsumeFromLastOffset;
    std::vector<ClientChannelInfo> channels; // sorted by clientId
    std::map<QByteArray, SubscriptionData> subscriptions; // by topic
    std::int64_t lastUpdateTimestamp = 0;
};

class ConsumerManager
{
public:
    using Clock = std::function<std::int64_t()>; // ms since the epoch

    struct RegisterResult
    {
        bool newChannel = false; // the channel was not in the group before
        bool subscriptionChanged = false; // a topic was added or removed
        /// NOTIFY_CONSUMER_IDS_CHANGED is due (RocketMQ's CHANGE event).
        bool changed() const { return newChannel || subscriptionChanged; }
    };

    struct Removal
    {
        QByteArray group;
        QByteArray clientId;
        bool groupRemoved = false; // no member left: the group is gone
    };

    explicit ConsumerManager(
        std::int64_t channelExpiredTimeoutMs = kChannelExpiredTimeoutMs, Clock clock = {});
    ConsumerManager(const ConsumerManager &) = delete;
    ConsumerManager &operator=(const ConsumerManager &) = delete;

    /// Records a heartbeat of `info.channel` for `data.groupName`. A subscription whose subVersion
    /// is newer replaces the stored one (not a "change": same topics); topics missing from the
    /// heartbeat are dropped.
    RegisterResult registerConsumer(const ConsumerData &data, ClientChannelInfo info);
    /// UNREGISTER_CLIENT: removes the group's channels with this client id (and `channel` if
    /// given). nullopt when nothing was removed.
    std::optional<Removal> unregisterConsumer(
        QByteArrayView group, QByteArrayView clientId, const remoting::ChannelPtr &channel = {});
    /// The channel closed: removes it from every group. One Removal per removed member.
    std::vector<Removal> channelClosed(const remoting::ChannelPtr &channel);
    std::vector<Removal> channelClosed(std::uint64_t channelId);
    /// Removes (and closes) channels whose last heartbeat is older than the expiry. One Removal
    /// per removed member.
    std::vector<Removal> scanExpired();

    /// The client ids of the group, sorted (GET_CONSUMER_LIST_BY_GROUP: heartbeat clientID
    /// verbatim). Empty when the group is unknown.
    QList<QByteArray> consumerIds(QByteArrayView group) const;
    std::vector<remoting::ChannelPtr> channels(QByteArrayView group) const;
    /// The group's channel of that client (GET_CONSUMER_RUNNING_INFO forwarding), or null.
    remoting::ChannelPtr findChannel(QByteArrayView group, QByteArrayView clientId) const;
    std::optional<SubscriptionData> findSubscription(
        QByteArrayView group, QByteArrayView topic) const;
    std::optional<ConsumerGroupInfo> groupInfo(QByteArrayView group) const;
    /// Online groups subscribing the topic, sorted (QUERY_TOPIC_CONSUME_BY_WHO).
    QList<QByteArray> groupsSubscribing(QByteArrayView topic) const;
    QList<QByteArray> groups() const;

private:
    struct Group
    {
        ConsumerGroupInfo info;
        std::map<std::uint64_t, ClientChannelInfo> channels; // by channel id
    };
    static ConsumerGroupInfo snapshot(const Group &g);
    std::vector<Removal> removeWhere(
        const std::function<bool(const ClientChannelInfo &)> &pred, bool closeChannels);

    const std::int64_t m_expiry;
    const Clock m_clock;
    mutable std::mutex m_mutex;
    std::map<QByteArray, Group> m_groups; // guarded by m_mutex
};

} // namespace qrocket::broker
