#pragma once

// Producer: RocketMQ's DefaultMQProducer, and TransactionProducer (TransactionMQProducer).
//
//   client::ProducerOptions options;
//   options.group = "orders-producer";
//   options.client.namesrvAddr = "127.0.0.1:9876";
//   client::Producer producer(options);
//   if (Status s = producer.start(); !s) { ... }
//   Result<client::SendResult> r = producer.sendSync(client::Message("Orders", "TagA", "hello"));
//   producer.sendAsync(msg, [](Result<client::SendResult> r) { ... });   // on a callback thread
//   producer.sendAsync(msg, this, [this](Result<client::SendResult> r) { ... }); // on this's
//   thread producer.sendOneway(msg);
//
// Sends, as the Java client does: the route from the name server (cached, refreshed every
// pollNameServerInterval and after a failure; an unknown topic is sent through TBW102's brokers,
// which create it when autoCreateTopicEnable is on), a queue chosen round robin with latency
// fault avoidance (topicpublishinfo.h), retries on another broker (retryTimesWhenSendFailed for
// sync, retryTimesWhenSendAsyncFailed for async sends; oneway and queue-chosen sends are tried
// once) for a transport failure or SYSTEM_ERROR, SERVICE_NOT_AVAILABLE, TOPIC_NOT_EXIST,
// NO_PERMISSION, NO_BUYER_ID or NOT_IN_CURRENT_UNIT, all within sendMsgTimeout; and, with
// retryAnotherBrokerWhenNotStoreOK, also after FLUSH_DISK_TIMEOUT / FLUSH_SLAVE_TIMEOUT /
// SLAVE_NOT_AVAILABLE.
//
// Idempotent retries (beyond RocketMQ's client): a message gets its UNIQ_KEY once, before the
// first attempt, and every retry of it carries the same UNIQ_KEY, so a broker (or a consumer)
// that deduplicates by it drops the copies a timed-out-but-stored attempt leaves behind.
//
// Before anything goes on the wire a message is checked: a topic (legal characters, at most 127
// bytes, not TBW102), a non-empty body of at most maxMessageSize bytes (4 MiB), properties that
// fit; a bad one is an InvalidArgument naming the problem. Bodies of compressMsgBodyOverHowmuch
// bytes and more are zlib-compressed.
//
// Threads: every method is thread-safe. Sync sends block the caller (not allowed on the remoting
// I/O thread, where no user code runs anyway). Async callbacks run on the producer's callback
// pool (or the context object's thread), never on an I/O thread; a callback may send, shut the
// producer down or destroy it. shutdown() is bounded: in-flight async sends complete (with
// their outcome or Unavailable) before it returns, or within its timeout.

#include "clientlib/client/clientconfig.h"
#include "clientlib/client/sendresult.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <memory>
#include <vector>

namespace qrocket::client {

struct ProducerOptions
{
    QByteArray group = QByteArrayLiteral("DEFAULT_PRODUCER");
    ClientConfig client;
    int sendMsgTimeout = 3000;
    int compressMsgBodyOverHowmuch = 4096;
    int compressLevel = 5;
    int retryTimesWhenSendFailed = 2;
    int retryTimesWhenSendAsyncFailed = 2;
    bool retryAnotherBrokerWhenNotStoreOK = false;
    int maxMessageSize = 4 * 1024 * 1024;
    /// Queues a topic gets when a send creates it.
    int defaultTopicQueueNums = 4;
    QByteArray createTopicKey = QByteArrayLiteral("TBW102");
    /// Latency fault avoidance. The Java client defaults to off; QRocket's to on: a broker that
    /// just failed is skipped instead of costing every send that picks one of its queues.
    bool sendLatencyFaultEnable = true;
    /// Threads that run async-send callbacks.
    int callbackThreads = 2;
    /// Message traces (RocketMQ's enableMsgTrace): a Pub record per sync or async send that the
    /// broker answered (EndTransaction per transaction end), in RocketMQ's trace format, queued
    /// (at most 2048 unsent, more are dropped) and sent in batches by a background producer of
    /// the same client instance, off the send path (tracedispatcher.h). Oneway and batch sends
    /// are not traced (the Java client traces neither).
    bool enableMsgTrace = false;
    /// The topic traces go to; empty: RMQ_SYS_TRACE_TOPIC (the broker's msgTraceTopicName).
    QByteArray customizedTraceTopic;
};

/// Picks the queue of a send (ordered messages: same key, same queue).
using MessageQueueSelector
    = std::function<MessageQueue(const std::vector<MessageQueue> &, const Message &)>;
namespace selectors {
/// The queue at hash(key) % size, Java's SelectMessageQueueByHash over String.hashCode.
MessageQueueSelector byHash(QByteArray key);
MessageQueueSelector random();
} // namespace selectors

class ProducerImpl;

class Producer
{
public:
    explicit Producer(ProducerOptions options = {});
    /// shutdown().
    virtual ~Producer();
    Producer(const Producer &) = delete;
    Producer &operator=(const Producer &) = delete;

    /// Registers the group with the client instance and starts it. InvalidArgument for a bad
    /// option or a group already registered in this process under the same client id.
    Status start();
    /// Unregisters from every broker; in-flight async sends complete first (bounded).
    void shutdown();
    bool isStarted() const;
    const ProducerOptions &options() const;
    /// The client id ("ip@instance") the producer registered under.
    QByteArray clientId() const;

    Result<SendResult> sendSync(Message msg);
    Result<SendResult> sendSync(Message msg, const MessageQueue &queue);
    Result<SendResult> sendSync(Message msg, const MessageQueueSelector &selector);
    void sendAsync(Message msg, SendCallback callback);
    void sendAsync(Message msg, const MessageQueue &queue, SendCallback callback);
    /// The callback runs on `context`'s thread (dropped if `context` is destroyed first).
    void sendAsync(Message msg, QObject *context, SendCallback callback);
    /// Fire and forget: an error only when it could not even be handed to a connection.
    Status sendOneway(Message msg);
    /// One topic, no delay level; split into as few SEND_BATCH_MESSAGE requests as the size
    /// limit allows, sent in order. One result per request sent; an error after some were sent
    /// says how many.
    Result<std::vector<SendResult>> sendBatch(std::vector<Message> messages);

    /// Request/reply (RocketMQ 4.6+): sends `msg` and waits for the reply a consumer sends
    /// with createReplyMessage(). The whole exchange is bounded by `timeoutMs`.
    Result<MessageExt> request(Message msg, int timeoutMs = 3000);
    /// The reply a consumer sends for `request` (to <CLUSTER>_REPLY_TOPIC); InvalidArgument
    /// when `request` was not sent by request().
    static Result<Message> createReplyMessage(const MessageExt &request, QByteArray body);

    /// The writable queues of `topic` (for a selector of one's own).
    Result<std::vector<MessageQueue>> fetchPublishMessageQueues(const QByteArray &topic);

protected:
    std::shared_ptr<ProducerImpl> m_impl;
};

enum class LocalTransactionState : std::uint8_t { CommitMessage, RollbackMessage, Unknown };
const char *localTransactionStateName(LocalTransactionState state);

struct TransactionSendResult
{
    SendResult sendResult;
    LocalTransactionState localTransactionState = LocalTransactionState::Unknown;
};

/// executeLocalTransaction runs on the sending thread right after the half message is stored;
/// checkLocalTransaction on the producer's check pool when the broker asks
/// (CHECK_TRANSACTION_STATE) about a half message left Unknown. Both may be called concurrently
/// for different messages.
class TransactionListener
{
public:
    virtual ~TransactionListener() = default;
    virtual LocalTransactionState executeLocalTransaction(const Message &msg, void *arg) = 0;
    virtual LocalTransactionState checkLocalTransaction(const MessageExt &msg) = 0;
};

class TransactionProducer : public Producer
{
public:
    /// `listener` must outlive the producer's shutdown.
    TransactionProducer(ProducerOptions options, TransactionListener *listener);
    /// Half message, local transaction, END_TRANSACTION (oneway, as Java). An error when the
    /// half message could not be stored (no local transaction ran then).
    Result<TransactionSendResult> sendMessageInTransaction(Message msg, void *arg = nullptr);
};

} // namespace qrocket::client
