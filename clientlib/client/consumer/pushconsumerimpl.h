#pragma once

// PushConsumerImpl: the state behind PushConsumer (see pushconsumer.h). Held by shared_ptr:
// the handle, the instance's registration (weak), and every pull and consume task own it, so a
// listener that destroys the handle does not pull the floor from under itself. Internal header.
//
// Its parts, along RocketMQ's seams: the rebalance (RebalanceImpl, this class's push hooks in
// pushrebalance.cpp), the pull request and answer (PullAPIWrapper), the listener side
// (ConcurrentConsumeService / OrderlyConsumeService).
//
// Threads: rebalance on the instance's rebalance thread; pulls are issued and their results
// handled on the consumer's "qrocket-pull" scheduler; listeners on the consume pool.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/consumer/consumeservice.h"
#include "clientlib/client/consumer/offsetstore.h"
#include "clientlib/client/consumer/popconsumeservice.h"
#include "clientlib/client/consumer/processqueue.h"
#include "clientlib/client/consumer/pullapiwrapper.h"
#include "clientlib/client/consumer/rebalanceimpl.h"
#include "clientlib/client/innerproducer.h"
#include "clientlib/client/pushconsumer.h"
#include "clientlib/client/sendresult.h"
#include "clientlib/client/threads.h"
#include "clientlib/client/tracedispatcher.h"

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace qrocket::client {

class PushConsumerImpl final : public ConsumerInner,
                               public RebalanceImpl,
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
    friend class ConsumeService;
    friend class ConcurrentConsumeService;
    friend class OrderlyConsumeService;
    friend class PopConsumeService;

    struct PullRequest
    {
        MessageQueue mq;
        std::shared_ptr<ProcessQueue> pq;
        std::int64_t nextOffset = 0;
        bool previouslyLocked = false;
    };
    struct PopRequest
    {
        MessageQueue mq; // queue id -1: any queue of the broker
        std::shared_ptr<PopProcessQueue> pq;
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
    bool lockedOrderly() const
    {
        return orderly() && m_options.messageModel == MessageModel::Clustering;
    }
    int maxReconsumeTimes() const;
    Status checkOptions() const;
    Status checkSql92Subscriptions(const std::vector<protocol::SubscriptionData> &subs);

    // rebalance hooks (pushrebalance.cpp; rebalance thread)
    QueueDiff takeQueueDiff(
        const QByteArray &topic, const std::set<MessageQueue> &wanted, std::int64_t now) override;
    void removeUnnecessaryMessageQueue(
        const MessageQueue &mq, const std::shared_ptr<ProcessQueue> &pq) override;
    Added addMessageQueue(const MessageQueue &mq, std::int64_t now) override;
    void lockMissed() override;
    void truncateQueuesNotOfSubscribedTopics() override;
    bool clientRebalance(const QByteArray &topic) const override;
    bool updatePopQueueTable(
        const QByteArray &topic, const std::set<MessageQueue> &wanted) override;
    void unlockWhenIdle(MessageQueue mq, std::shared_ptr<ProcessQueue> pq, int attempt);
    std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> processQueues() const;

    // pulling (pull thread)
    void executePullLater(PullRequest request, int delayMs);
    void executePull(PullRequest request);
    void onPullResult(PullRequest request, Result<PullResult> result);
    void onPullError(PullRequest request, const Status &error);

    // popping (poppush.cpp; pull thread)
    void executePopLater(PopRequest request, int delayMs);
    void executePop(PopRequest request);
    void onPopResult(PopRequest request, Result<RemotingCommand> result);
    void onPopError(PopRequest request, const Status &error);
    /// ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME of a popped message, not awaited.
    void popAck(const MessageExt &msg);
    void popLater(const MessageExt &msg, int invisibleMillis);
    void dropPopQueues();

    // consuming (consume pool)
    bool sendMessageBack(const MessageExt &msg, int delayLevel);
    TopicStats &stats(const QByteArray &topic);

    const PushConsumerOptions m_options;
    ClientInstance::Lease m_lease;
    std::shared_ptr<ClientInstance> m_instance; // m_lease's
    std::shared_ptr<WorkerPool> m_consumePool;
    std::unique_ptr<Scheduler> m_pullScheduler;
    std::unique_ptr<InnerProducer> m_retryProducer;
    std::unique_ptr<TraceDispatcher> m_trace; // enableMsgTrace: from start() to shutdown()
    std::shared_ptr<ConsumeService> m_consumeService;
    std::shared_ptr<PopConsumeService> m_popConsumeService; // when the brokers may assign POP
    ConcurrentListener m_concurrentListener;
    OrderlyListener m_orderlyListener;
    std::atomic<bool> m_started {false};
    std::atomic<bool> m_stopping {false};
    std::atomic<bool> m_paused {false};
    std::int64_t m_startTimestamp = 0;
    QByteArray m_retryTopic;

    mutable std::mutex m_mutex;
    std::map<MessageQueue, std::shared_ptr<ProcessQueue>> m_processQueues; // guarded by m_mutex
    std::map<MessageQueue, std::shared_ptr<PopProcessQueue>> m_popQueues; // guarded by m_mutex
    std::map<QByteArray, std::unique_ptr<TopicStats>> m_stats; // guarded by m_mutex
};

} // namespace qrocket::client
