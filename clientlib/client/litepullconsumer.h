#pragma once

// LitePullConsumer: RocketMQ's DefaultLitePullConsumer. The application polls; the consumer
// pulls in the background for the queues it owns (subscribe: rebalanced across the group like a
// push consumer; assign: exactly the queues given) and buffers what arrives.
//
//   client::LitePullConsumer consumer(options);
//   consumer.subscribe("Orders", "*");
//   consumer.start();
//   for (;;) {
//       std::vector<client::MessageExt> msgs = consumer.poll(1000);   // at most 1 s
//       ...
//       consumer.commitSync();        // or autoCommit (default): every autoCommitIntervalMillis
//   }
//
// Offsets: what poll() returned counts as consumed; commitSync() (or the auto commit on the next
// poll after the interval) stores the next offset of every owned queue on the broker
// (clustering) or in the local file (broadcasting). seek*() move a queue's next poll; messages
// already buffered for it are dropped. Thread-safe; poll() blocks only the calling thread, never
// longer than its timeout.

#include "clientlib/client/allocatestrategy.h"
#include "clientlib/client/clientconfig.h"
#include "clientlib/client/message.h"
#include "clientlib/client/pushconsumer.h"

#include <map>
#include <memory>
#include <vector>

namespace qrocket::client {

struct LitePullConsumerOptions
{
    QByteArray group;
    ClientConfig client;
    MessageModel messageModel = MessageModel::Clustering;
    ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::ConsumeFromLastOffset;
    QByteArray consumeTimestamp; // yyyyMMddHHmmss; empty: half an hour ago
    AllocateStrategy allocateStrategy = AllocateStrategy::Averagely;
    bool autoCommit = true;
    int autoCommitIntervalMillis = 5000;
    int pullBatchSize = 10;
    int pullThresholdForQueue = 1000;
    int pullThresholdForAll = 10000;
    /// Most messages one poll() returns.
    int pollBatchSize = 32;
    int brokerSuspendMaxTimeMillis = 20000;
    int consumerTimeoutMillisWhenSuspend = 30000;
    int pullTimeDelayMillsWhenException = 1000;
    QString offsetStoreDir;
};

class LitePullConsumerImpl;

class LitePullConsumer
{
public:
    explicit LitePullConsumer(LitePullConsumerOptions options);
    ~LitePullConsumer();
    LitePullConsumer(const LitePullConsumer &) = delete;
    LitePullConsumer &operator=(const LitePullConsumer &) = delete;

    Status subscribe(
        const QByteArray &topic, const QByteArray &tagExpression = QByteArrayLiteral("*"));
    Status subscribe(const QByteArray &topic, const MessageSelector &selector);
    void unsubscribe(const QByteArray &topic);
    /// Manual assignment instead of subscribe(): exactly these queues (replaces the previous).
    Status assign(const std::vector<MessageQueue> &queues);

    Status start();
    void shutdown();
    bool isStarted() const;

    /// Up to pollBatchSize messages, waiting at most `timeoutMillis` for the first.
    std::vector<MessageExt> poll(int timeoutMillis = 5000);
    /// Next poll of `mq` starts at `offset` (InvalidArgument when `mq` is not owned, or the
    /// offset outside [min, max]).
    Status seek(const MessageQueue &mq, std::int64_t offset);
    Status seekToBegin(const MessageQueue &mq);
    Status seekToEnd(const MessageQueue &mq);
    /// The offset of the first message stored at or after `timestamp` (ms since the epoch).
    Result<std::int64_t> offsetForTimestamp(const MessageQueue &mq, std::int64_t timestamp);
    /// The offset committed for `mq` on the broker (or file); -1 when none.
    Result<std::int64_t> committed(const MessageQueue &mq);
    /// Commits the consumed offsets of every owned queue now, and waits for the broker.
    Status commitSync();
    void pause(const std::vector<MessageQueue> &queues);
    void resume(const std::vector<MessageQueue> &queues);
    /// The readable queues of `topic`.
    Result<std::vector<MessageQueue>> fetchMessageQueues(const QByteArray &topic);
    std::vector<MessageQueue> assignment() const;
    QByteArray clientId() const;

private:
    std::shared_ptr<LitePullConsumerImpl> m_impl;
};

} // namespace qrocket::client
