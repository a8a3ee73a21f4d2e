#pragma once

// PushConsumer: RocketMQ's DefaultMQPushConsumer. The client pulls (long polling, 15 s held at
// the broker) and pushes what arrives to a listener on the consumer's own thread pool.
//
//   client::PushConsumerOptions options;
//   options.group = "orders-consumer";
//   options.client.namesrvAddr = "127.0.0.1:9876";
//   client::PushConsumer consumer(options);
//   consumer.subscribe("Orders", "TagA || TagB");
//   consumer.registerMessageListener([](const std::vector<client::MessageExt> &msgs,
//                                       client::ConsumeConcurrentlyContext &) {
//       ...;
//       return client::ConsumeConcurrentlyStatus::ConsumeSuccess;
//   });
//   consumer.start();
//
// Clustering (default): the group shares the queues (rebalance every 20 s and whenever the
// broker says the group changed), offsets live on the broker (committed every 5 s and at
// shutdown), RECONSUME_LATER sends a message back to the broker (CONSUMER_SEND_MSG_BACK; if that
// fails, a re-send to %RETRY%<group>), so retries and the DLQ (%DLQ%<group> after
// maxReconsumeTimes, 16) work as in RocketMQ. Broadcasting: every member gets every message;
// offsets in ~/.rocketmq_offsets/<clientId>/<group>/offsets.json; failed messages are not
// retried.
//
// At-least-once: the committed offset never passes a message still being processed; a crash or
// rebalance can deliver a message again (check UNIQ_KEY / msgId() to deduplicate).
//
// POP mode (clientRebalance = false and the group switched to POP on the brokers): the broker
// hands out messages (POP_MESSAGE, long polling brokerSuspendMaxTimeMillis) that stay invisible
// to the group for popInvisibleTime; a consumed message is acked (ACK_MESSAGE), one the listener
// wants later is made invisible for the next step of RocketMQ 5's POP back-off (10 s, 30 s, 1 min,
// ... 2 h by reconsume count, or delayLevelWhenNextConsume; CHANGE_MESSAGE_INVISIBLETIME). What is
// neither comes back after its invisible time with its reconsume count raised, to any member,
// and after the group's retryMaxTimes goes to %DLQ%<group>. No offsets and no queue ownership on
// the client: members never wait for one another's rebalance.
//
// Orderly listener: each queue is locked on the broker (LOCK_BATCH_MQ, renewed every 20 s) and
// consumed by one thread at a time in offset order; SuspendCurrentQueueAMoment retries the same
// messages after suspendCurrentQueueTimeMillis.
//
// Threads: listeners run on the consume pool, never on the remoting I/O thread: consumeThreadMin
// threads, growing to consumeThreadMax while batches wait with every thread busy (extra threads
// retire after 60 s idle; Java's pool, with its unbounded queue, never grows past the minimum). A
// listener may call shutdown() or destroy the consumer: the call returns without waiting for that
// listener itself, offsets of what finished are committed, and nothing runs after the listener
// returns. shutdown() from outside waits up to awaitTerminationMillis for running listeners. Every
// method is thread-safe.

#include "clientlib/client/allocatestrategy.h"
#include "clientlib/client/clientconfig.h"
#include "clientlib/client/message.h"

#include <QString>

#include <climits>
#include <functional>
#include <memory>
#include <vector>

namespace qrocket::client {

using protocol::ConsumeFromWhere;
using protocol::MessageModel;

enum class ConsumeConcurrentlyStatus : std::uint8_t { ConsumeSuccess, ReconsumeLater };
enum class ConsumeOrderlyStatus : std::uint8_t { Success, SuspendCurrentQueueAMoment };

struct ConsumeConcurrentlyContext
{
    MessageQueue messageQueue;
    /// 0: the broker picks (3 + reconsumeTimes); < 0: straight to the DLQ.
    int delayLevelWhenNextConsume = 0;
    /// With ConsumeSuccess: messages after this index are sent back (partial success).
    int ackIndex = INT_MAX;
};

struct ConsumeOrderlyContext
{
    MessageQueue messageQueue;
    bool autoCommit = true;
    /// -1: the consumer's suspendCurrentQueueTimeMillis.
    std::int64_t suspendCurrentQueueTimeMillis = -1;
};

using ConcurrentListener = std::function<ConsumeConcurrentlyStatus(
    const std::vector<MessageExt> &, ConsumeConcurrentlyContext &)>;
using OrderlyListener
    = std::function<ConsumeOrderlyStatus(const std::vector<MessageExt> &, ConsumeOrderlyContext &)>;

/// A subscription: a tag expression ("*", "TagA || TagB") or an SQL92 one (the broker must run
/// with enablePropertyFilter=true).
struct MessageSelector
{
    QByteArray type = QByteArrayLiteral("TAG");
    QByteArray expression = QByteArrayLiteral("*");
    static MessageSelector byTag(QByteArray expression) { return {"TAG", std::move(expression)}; }
    static MessageSelector bySql(QByteArray expression) { return {"SQL92", std::move(expression)}; }
};

struct PushConsumerOptions
{
    QByteArray group;
    ClientConfig client;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::ConsumeFromLastOffset;
    /// CONSUME_FROM_TIMESTAMP's start, yyyyMMddHHmmss local time; empty: half an hour ago.
    QByteArray consumeTimestamp;
    AllocateStrategy allocateStrategy = AllocateStrategy::Averagely;
    int consumeThreadMin = 20;
    int consumeThreadMax = 20;
    int pullThresholdForQueue = 1000;
    /// MiB buffered per queue before pulling pauses.
    int pullThresholdSizeForQueue = 100;
    int consumeConcurrentlyMaxSpan = 2000;
    int pullBatchSize = 32;
    int consumeMessageBatchMaxSize = 1;
    int pullInterval = 0;
    /// -1: 16 for a concurrent listener, unlimited for an orderly one.
    int maxReconsumeTimes = -1;
    int suspendCurrentQueueTimeMillis = 1000;
    /// How long the broker may hold a pull (brokerSuspendMaxTimeMillis).
    int brokerSuspendMaxTimeMillis = 15000;
    /// Client-side timeout of a held pull (consumerTimeoutMillisWhenSuspend).
    int consumerTimeoutMillisWhenSuspend = 30000;
    int pullTimeDelayMillsWhenException = 3000;
    bool postSubscriptionWhenPull = false;
    int awaitTerminationMillisWhenShutdown = 3000;
    /// Broadcasting offsets' folder; empty: ~/.rocketmq_offsets.
    QString offsetStoreDir;
    /// false (RocketMQ 5's setClientRebalance(false)): the brokers assign the queues
    /// (QUERY_ASSIGNMENT), each in the mode the group has there (`qrocket-admin setConsumeMode`):
    /// PULL queues are pulled as above, POP queues popped (see "POP mode" above). Concurrent
    /// clustering listeners only; orderly and broadcasting consumers always rebalance here.
    bool clientRebalance = true;
    /// POP mode: how long a popped message stays invisible to the group before the broker hands
    /// it out again (the listener should finish well within it).
    int popInvisibleTime = 60000;
    /// POP mode: messages per POP_MESSAGE (1..32).
    int popBatchNums = 32;
    /// POP mode: popped messages not yet acked (per assignment) before popping pauses.
    int popThresholdForQueue = 96;
    /// Message traces (RocketMQ's enableMsgTrace): SubBefore and SubAfter records around each
    /// call of a concurrent or orderly listener (not in POP mode), in RocketMQ's trace format,
    /// batched and sent off the consume threads by a background producer (tracedispatcher.h).
    bool enableMsgTrace = false;
    /// The topic traces go to; empty: RMQ_SYS_TRACE_TOPIC (the broker's msgTraceTopicName).
    QByteArray customizedTraceTopic;
};

class PushConsumerImpl;

class PushConsumer
{
public:
    explicit PushConsumer(PushConsumerOptions options);
    /// shutdown().
    ~PushConsumer();
    PushConsumer(const PushConsumer &) = delete;
    PushConsumer &operator=(const PushConsumer &) = delete;

    /// Before or after start(). InvalidArgument for a bad topic or expression.
    Status subscribe(
        const QByteArray &topic, const QByteArray &tagExpression = QByteArrayLiteral("*"));
    Status subscribe(const QByteArray &topic, const MessageSelector &selector);
    void unsubscribe(const QByteArray &topic);
    void registerMessageListener(ConcurrentListener listener);
    void registerMessageListener(OrderlyListener listener);

    /// Checks the options, subscriptions (SQL92 ones with every broker, CHECK_CLIENT_CONFIG) and
    /// listener, registers with the client instance, heartbeats and rebalances at once.
    Status start();
    void shutdown();
    bool isStarted() const;
    /// Stops pulling (what is buffered is still consumed) / starts again.
    void suspend();
    void resume();

    const PushConsumerOptions &options() const;
    QByteArray clientId() const;
    /// The queues this member owns now.
    std::vector<MessageQueue> assignedQueues() const;
    /// The consumer's current offsets (next message to consume) of `topic` (all when empty).
    std::map<MessageQueue, std::int64_t> committedOffsets(const QByteArray &topic = {}) const;

private:
    std::shared_ptr<PushConsumerImpl> m_impl;
};

} // namespace qrocket::client
