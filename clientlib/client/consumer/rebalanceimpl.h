#pragma once

// RebalanceImpl: what the push and the lite-pull consumer share of RocketMQ's rebalance (its
// RebalanceImpl): the subscriptions and each subscribed topic's readable queues, which of them
// this member owns (allocation), the process-queue diff after each allocation, where a queue new
// to this member starts (ConsumeFromWhere) and the orderly queue locks on the brokers. What a
// queue won or lost means is the consumer's (RebalancePushImpl / RebalanceLitePullImpl in
// RocketMQ): the hooks below, which each consumer implements over its own queue table.
//
// Threads: rebalance() on the instance's rebalance thread, one call at a time; the rest is
// thread-safe (the subscriptions have their own mutex, the hooks take the consumer's).

#include "clientlib/client/allocatestrategy.h"
#include "clientlib/client/clientinstance.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/consumer/pullapiwrapper.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace qrocket::client {

struct RebalanceSettings
{
    QByteArray group;
    protocol::MessageModel messageModel = protocol::MessageModel::Clustering;
    AllocateStrategy allocateStrategy = AllocateStrategy::Averagely;
    protocol::ConsumeFromWhere consumeFromWhere = protocol::ConsumeFromWhere::ConsumeFromLastOffset;
    /// CONSUME_FROM_TIMESTAMP's start, yyyyMMddHHmmss local time; empty: half an hour before
    /// the consumer started.
    QByteArray consumeTimestamp;
};

bool isRetryTopic(const QByteArray &topic);

/// Where a queue without a stored offset starts (RocketMQ 4.9.7's computePullFromWhere, the same
/// for push and lite pull): `stored` is the offset store's answer (>= 0: that offset; -1: none;
/// other: the store could not be asked, -1 back). LAST_OFFSET (and its deprecated variants): the
/// queue's max offset, 0 for a retry topic; FIRST_OFFSET: 0 (the broker moves a pull below its
/// min offset up to it); TIMESTAMP: the offset of `timestampMillis`, the max offset for a retry
/// topic. `maxOffset` / `searchOffset` ask the broker and answer -1 when they cannot.
std::int64_t startOffset(protocol::ConsumeFromWhere where, const MessageQueue &mq,
    std::int64_t stored, std::int64_t timestampMillis,
    const std::function<std::int64_t()> &maxOffset,
    const std::function<std::int64_t(std::int64_t)> &searchOffset);

/// The process-queue diff of `topic` (the first half of RocketMQ's updateProcessQueueTable):
/// erases from `table` the queues of `topic` that are not in `wanted` or that `goes(value)` gives
/// up, and returns them; `added` gets the queues of `wanted` that are not in the table.
template<class Value, class Goes>
std::vector<std::pair<MessageQueue, Value>> diffQueueTable(std::map<MessageQueue, Value> &table,
    const QByteArray &topic, const std::set<MessageQueue> &wanted, Goes goes,
    std::vector<MessageQueue> &added)
{
    std::vector<std::pair<MessageQueue, Value>> removed;
    for (auto it = table.begin(); it != table.end();) {
        if (it->first.topic == topic && (!wanted.count(it->first) || goes(it->second))) {
            removed.emplace_back(it->first, std::move(it->second));
            it = table.erase(it);
        } else {
            ++it;
        }
    }
    for (const MessageQueue &mq : wanted) {
        if (!table.count(mq))
            added.push_back(mq);
    }
    return removed;
}

class RebalanceImpl
{
public:
    explicit RebalanceImpl(RebalanceSettings settings);
    virtual ~RebalanceImpl();
    RebalanceImpl(const RebalanceImpl &) = delete;
    RebalanceImpl &operator=(const RebalanceImpl &) = delete;

    const RebalanceSettings &rebalanceSettings() const { return m_settings; }

    // -- subscriptions ---------------------------------------------------------------------
    void putSubscription(protocol::SubscriptionData sub);
    void removeSubscription(const QByteArray &topic);
    void clearSubscriptions();
    std::optional<protocol::SubscriptionData> subscription(const QByteArray &topic) const;
    std::vector<protocol::SubscriptionData> subscriptions() const;
    std::vector<QByteArray> subscriptionTopics() const;
    bool hasSubscription(const QByteArray &topic) const;
    bool hasSubscriptions() const;
    /// The consumer's heartbeat entry (its subscriptions and settings).
    protocol::ConsumerData buildConsumerData(protocol::ConsumeType type) const;
    /// Keeps the readable queues of a subscribed topic (ignored for others); true when they
    /// changed.
    bool updateTopicQueues(const QByteArray &topic, const std::vector<MessageQueue> &queues);

    // -- rebalance -------------------------------------------------------------------------
    /// Allocates every subscribed topic's queues anew and applies the diff (one call at a time).
    void rebalance();
    /// Where `mq` starts when this member takes it: its stored offset, else by ConsumeFromWhere
    /// (startOffset); -1 when it cannot be told now.
    std::int64_t computePullFromWhere(const MessageQueue &mq);

    // -- orderly locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ at the queue's master) ---------------
    bool lock(const MessageQueue &mq);
    /// Renews the lock of every queue of `queues` (one request per broker) and marks each
    /// process queue locked or not.
    void lockAll(const std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> &queues);
    /// Releases the locks of `queues` (one request per broker; `oneway`: no answer awaited).
    void unlockAll(const std::vector<MessageQueue> &queues, bool oneway = false);

protected:
    /// At start, over `instance`: the offset store of the message model, loaded (broadcasting:
    /// the file below `offsetStoreDir`), and the pull wrapper.
    Status startRebalance(std::shared_ptr<ClientInstance> instance, const QString &offsetStoreDir,
        std::int64_t startMillis);

    struct QueueDiff
    {
        std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> removed;
        std::vector<MessageQueue> added;
    };
    enum class Added : std::uint8_t { Yes, No, LockMissed };

    /// Under the consumer's lock: takes out of its table the queues of `topic` that are not
    /// `wanted` (diffQueueTable) and names the new ones.
    virtual QueueDiff takeQueueDiff(
        const QByteArray &topic, const std::set<MessageQueue> &wanted, std::int64_t now)
        = 0;
    /// A queue given up (already out of the table, its process queue dropped).
    virtual void removeUnnecessaryMessageQueue(
        const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &pq)
        = 0;
    /// A queue won: start pulling it.
    virtual Added addMessageQueue(const MessageQueue &mq, std::int64_t now) = 0;
    /// Some queue could not be locked (its previous owner still holds it).
    virtual void lockMissed() { }
    /// After every topic: queues of topics no longer subscribed.
    virtual void truncateQueuesNotOfSubscribedTopics() { }
    /// false: the brokers assign `topic`'s queues (QUERY_ASSIGNMENT, RocketMQ 5's
    /// clientRebalance=false), each in PULL or POP mode.
    virtual bool clientRebalance(const QByteArray &topic) const
    {
        (void)topic;
        return true;
    }
    /// The POP-mode assignments of `topic` (queue id -1: any queue of that broker) the brokers
    /// gave this member; true when they changed.
    virtual bool updatePopQueueTable(const QByteArray &topic, const std::set<MessageQueue> &wanted)
    {
        (void)topic;
        (void)wanted;
        return false;
    }

    std::unique_ptr<OffsetStore> m_offsets; // set by startRebalance
    std::unique_ptr<PullAPIWrapper> m_pullApi; // set by startRebalance

private:
    /// One LOCK/UNLOCK_BATCH_MQ body per broker of `queues` whose master is known, with its
    /// address.
    std::vector<std::pair<QByteArray, protocol::LockBatchRequestBody>> lockBodies(
        const std::vector<MessageQueue> &queues) const;
    void rebalanceTopic(const QByteArray &topic);
    /// QUERY_ASSIGNMENT at every master of `all`; false when none of them assigns (a RocketMQ
    /// 4.x broker): the client allocates instead.
    bool rebalanceByBroker(const QByteArray &topic, const std::vector<MessageQueue> &all);
    bool updateProcessQueueTable(const QByteArray &topic, const std::vector<MessageQueue> &mine);
    std::int64_t consumeTimestampMillis() const;

    const RebalanceSettings m_settings;
    std::shared_ptr<ClientInstance> m_client;
    std::int64_t m_startMillis = 0;
    mutable std::mutex m_subscriptionMutex;
    std::map<QByteArray, protocol::SubscriptionData> m_subscriptions; // guarded
    std::map<QByteArray, std::vector<MessageQueue>> m_topicQueues; // guarded
    std::mutex m_rebalanceMutex; // one rebalance at a time
};

} // namespace qrocket::client
