#pragma once

// PushConsumerImpl: the state behind PushConsumer (see pushconsumer.h). Held by shared_ptr:
// the handle, the instance's registration (weak), and every pull and consume task own it, so a
// listener that destroys the handle does not pull the floor from under itself. Internal header.
//
// Threads: rebalance on the instance's rebalance thread; pulls are issued and their results
// handled on the consumer's "qrocket-pull" scheduler; listeners on the consume pool.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/client/sendresult.h"
#include "clientlib/client/threads.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace qrocket::client {

class ProducerImpl;

class PushConsumerImpl final : public ConsumerInner,
                               public std::enable_shared_from_this<PushConsumerImpl>
{
public:
    explicit PushConsumerImpl(PushConsumerOptions options);
    ~PushConsumerImpl() override;

    Status subscribe(const QByteArray &topic, const MessageSelector &selector);
    void unsubscribe(const QByteArray &topic);
    void setListener(ConcurrentListener listener);
    void setListener(OrderlyListener listener);
    Status start();
    void shutdown();
    bool isStarted() const { return m_started.load(); }
    void suspend() { m_paused = true; }
    void resume() { m_paused = false; }
    const PushConsumerOptions &options() const { return m_options; }
    QByteArray clientId() const;
    std::vector<MessageQueue> assignedQueues() const;
    std::map<MessageQueue, std::int64_t> committedOffsets(const QByteArray &topic) const;

    // ConsumerInner
    QByteArray groupName() const override { return m_options.group; }
    protocol::ConsumerData consumerData() const override;
    std::vector<QByteArray> subscribedTopics() const override;
    void updateTopicSubscribeInfo(
        const QByteArray &topic, const std::vector<MessageQueue> &queues) override;
    void doRebalance() override;
    void persistConsumerOffset() override;
    void resetOffset(
        const QByteArray &topic, const std::map<MessageQueue, std::int64_t> &offsets) override;
    std::map<MessageQueue, std::int64_t> consumerOffsets(const QByteArray &topic) override;
    QByteArray runningInfoJson(const QByteArray &jstack) override;
    QByteArray consumeMessageDirectly(const MessageExt &msg, const QByteArray &brokerName) override;

private:
    struct PullRequest
    {
        MessageQueue mq;
        std::shared_ptr<ProcessQueue> pq;
        std::int64_t nextOffset = 0;
        bool previouslyLocked = false;
    };
    struct TopicStats
    {
        std::atomic<std::int64_t> pulled {0};
        std::atomic<std::int64_t> consumedOk {0};
        std::atomic<std::int64_t> consumedFailed {0};
        std::atomic<std::int64_t> consumeRtTotalMs {0};
        std::atomic<std::int64_t> pulls {0};
        std::atomic<std::int64_t> pullRtTotalMs {0};
    };

    bool orderly() const { return static_cast<bool>(m_orderlyListener); }
    int maxReconsumeTimes() const;
    std::int64_t consumeTimestampMillis() const;

    // rebalance (rebalance thread)
    void rebalanceTopic(const QByteArray &topic);
    bool updateProcessQueueTable(
        const QByteArray &topic, const std::vector<MessageQueue> &assigned);
    std::int64_t computePullFromWhere(const MessageQueue &mq);
    void removeUnnecessaryQueue(const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &pq);
    void unlockWhenIdle(MessageQueue mq, std::shared_ptr<ProcessQueue> pq, int attempt);
    bool lockQueue(const MessageQueue &mq);
    void lockAll();
    void unlockAll();

    // pulling (pull thread)
    void executePullLater(PullRequest request, int delayMs);
    void executePull(PullRequest request);
    void onPullResult(PullRequest request, Result<PullResult> result);
    std::int64_t pullFromWhichNode(const MessageQueue &mq) const;

    // consuming (consume pool)
    void dispatchConcurrently(const std::vector<MessageExt> &msgs,
        const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq);
    void consumeConcurrently(
        std::vector<MessageExt> msgs, std::shared_ptr<ProcessQueue> pq, MessageQueue mq);
    void consumeOrderly(std::shared_ptr<ProcessQueue> pq, MessageQueue mq);
    void submitOrderlyLater(
        const std::shared_ptr<ProcessQueue> &pq, const MessageQueue &mq, int delayMs);
    bool sendMessageBack(const MessageExt &msg, int delayLevel);
    void prepareForListener(std::vector<MessageExt> &msgs) const;
    TopicStats &stats(const QByteArray &topic);

    const PushConsumerOptions m_options;
    ClientInstance::Lease m_lease;
    std::shared_ptr<ClientInstance> m_instance; // m_lease's
    std::unique_ptr<OffsetStore> m_offsets;
    std::shared_ptr<WorkerPool> m_consumePool;
    std::unique_ptr<Scheduler> m_pullScheduler;
    std::shared_ptr<ProducerImpl> m_retryProducer;
    ConcurrentListener m_concurrentListener;
    OrderlyListener m_orderlyListener;
    std::atomic<bool> m_started {false};
    std::atomic<bool> m_stopping {false};
    std::atomic<bool> m_paused {false};
    std::int64_t m_startTimestamp = 0;
    QByteArray m_retryTopic;

    mutable std::mutex m_mutex;
    std::map<QByteArray, protocol::SubscriptionData> m_subscriptions; // guarded by m_mutex
    std::map<QByteArray, std::vector<MessageQueue>> m_topicQueues; // guarded by m_mutex
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> m_processQueues; // guarded by m_mutex
    std::map<MessageQueue, std::int64_t> m_pullFromWhichNode; // guarded by m_mutex
    std::map<QByteArray, std::unique_ptr<TopicStats>> m_stats; // guarded by m_mutex
    std::mutex m_rebalanceMutex; // one rebalance at a time
    std::map<MessageQueue, std::shared_ptr<std::mutex>> m_orderlyLocks; // guarded by m_mutex
};

} // namespace qrocket::client
