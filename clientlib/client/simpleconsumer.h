#pragma once

// SimpleConsumer: RocketMQ 5's SimpleConsumer over remoting POP (README "POP consumption"). The
// broker, not the client, decides who gets which message: receive() pops (POP_MESSAGE) from the
// master brokers of the subscribed topics in turn, long polling up to awaitDurationMillis; what
// it returns stays invisible to the group for the invisible duration, during which the
// application ack()s it (ACK_MESSAGE) or extends it (CHANGE_MESSAGE_INVISIBLETIME). A message not
// acked in time is delivered again, to any consumer of the group, with its reconsume count
// raised (after the group's maximum it goes to %DLQ%<group>).
//
//   client::SimpleConsumer consumer({.group = "G", .client = {.namesrvAddr = "127.0.0.1:9876"}});
//   consumer.subscribe("Orders", client::MessageSelector::byTag("TagA || TagB"));
//   consumer.start();
//   auto msgs = consumer.receive(16, 30000);        // up to 16, invisible for 30 s
//   for (client::MessageExt &m : *msgs) {
//       ...;                                        // or consumer.changeInvisibleDuration(m, ms)
//       consumer.ack(m);
//   }
//
// Each message carries its receipt handle in the POP_CK property (receiptHandle()); ack and
// changeInvisibleDuration need the message as receive() (or the last changeInvisibleDuration)
// returned it. One receive() asks one broker: with several brokers a call may come back empty
// while another broker holds messages; the next call asks the next broker.
//
// Threads: every method is thread-safe. The blocking ones block the calling thread (never the
// remoting I/O thread, where RemotingClient refuses blocking calls): receive() at most
// awaitDurationMillis + the client's mqClientApiTimeout, ack() and changeInvisibleDuration() at
// most mqClientApiTimeout. receiveAsync() and ackAsync() return at once (a route the client has
// not cached yet is fetched first, on the calling thread) and call their callback exactly once,
// on the consumer's callback thread ("qrocket-simple-1", callbackThreads of them): with the
// answer, or with an error (Unavailable) when shutdown() came first. Route refresh and
// heartbeats run on the client instance's threads.
//
// Batch ack: ack(messages) settles many messages with one BATCH_ACK_MESSAGE (200151) per broker
// (RocketMQ 5.3's body: one bit set per queue and pop), as RocketMQ 5's SDKs' ack of a list.

#include "clientlib/client/clientconfig.h"
#include "clientlib/client/message.h"
#include "clientlib/client/pushconsumer.h"

#include <functional>
#include <memory>
#include <vector>

namespace qrocket::client {

struct SimpleConsumerOptions
{
    QByteArray group;
    ClientConfig client;
    /// The long-polling time of one receive (POP_MESSAGE's pollTime); 0 answers at once.
    int awaitDurationMillis = 5000;
    /// Where a group that never consumed a queue starts (POP_MESSAGE's initMode): false at the
    /// queue's end (ConsumeInitMode MAX), true at its first message (MIN).
    bool consumeFromFirst = false;
    /// Threads that run receiveAsync() / ackAsync() callbacks.
    int callbackThreads = 1;
};

class SimpleConsumerImpl;

class SimpleConsumer
{
public:
    /// The largest maxMessages of one receive (the broker's limit).
    static constexpr int kMaxReceive = 32;

    explicit SimpleConsumer(SimpleConsumerOptions options);
    ~SimpleConsumer();
    SimpleConsumer(const SimpleConsumer &) = delete;
    SimpleConsumer &operator=(const SimpleConsumer &) = delete;

    /// TAG or SQL92 filter (the broker filters). Before or after start(); after, a topic the
    /// name server has no route of is refused (the name server's error).
    Status subscribe(const QByteArray &topic, const MessageSelector &selector = {});
    void unsubscribe(const QByteArray &topic);

    /// Fails (and stays stopped) when a subscribed topic has no route, as RocketMQ 5's SDKs.
    Status start();
    void shutdown();
    bool isStarted() const;

    /// Up to `maxMessages` (1..32) messages of the subscribed topics, invisible to the group for
    /// `invisibleDurationMillis` (1 ms .. 7 days). Empty when the broker asked had
    /// none within awaitDurationMillis. Errors: not started or nothing subscribed
    /// (InvalidArgument), no route, transport, or the broker's error (Status::remote).
    Result<std::vector<MessageExt>> receive(int maxMessages, int invisibleDurationMillis);
    /// Settles `message`: it is never delivered to the group again. Remote NO_MESSAGE (208) when
    /// its invisible time ended before the ack (it is, or will be, delivered again).
    Status ack(const MessageExt &message);
    /// Makes `message` invisible for `invisibleDurationMillis` from now and gives it its new
    /// receipt handle (the old one no longer acks it). Remote NO_MESSAGE (208) when it is no
    /// longer in flight.
    Status changeInvisibleDuration(MessageExt &message, int invisibleDurationMillis);

    /// Settles every message of `messages` with one BATCH_ACK_MESSAGE per broker. A message
    /// that is no longer in flight is skipped by the broker (as RocketMQ 5.3), not an error; the
    /// first transport or broker error is returned (the other brokers' acks are still sent).
    /// Messages without a receipt handle are InvalidArgument before anything is sent.
    Status ack(const std::vector<MessageExt> &messages);

    using ReceiveCallback = std::function<void(Result<std::vector<MessageExt>>)>;
    using StatusCallback = std::function<void(Status)>;
    /// receive() without blocking for the answer (see Threads above).
    void receiveAsync(int maxMessages, int invisibleDurationMillis, ReceiveCallback callback);
    /// ack() without blocking for the answer (see Threads above).
    void ackAsync(const MessageExt &message, StatusCallback callback);

    /// The receipt handle of a received message (its POP_CK property); empty for any other.
    static QByteArray receiptHandle(const MessageExt &message);
    QByteArray clientId() const;

private:
    std::shared_ptr<SimpleConsumerImpl> m_impl;
};

} // namespace qrocket::client
