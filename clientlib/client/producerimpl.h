#pragma once

// ProducerImpl: the shared state behind Producer / TransactionProducer (see producer.h). Held
// by shared_ptr: the handle, every in-flight async send and every transaction check own it, so
// it outlives whatever still runs for it. Internal header.

#include "clientlib/client/clientinstance.h"
#include "clientlib/client/producer.h"
#include "clientlib/client/threads.h"
#include "clientlib/client/tracedispatcher.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace qrocket::client {

/// RocketMQ's Validators.checkTopic: not blank, at most 127 bytes of [%|a-zA-Z0-9_-].
Status checkTopic(const QByteArray &topic);

/// A message ready for the wire: compressed, UNIQ_KEY set, properties encoded. Built once per
/// send; every retry reuses it (the same UNIQ_KEY).
struct PreparedMessage
{
    QByteArray topic;
    QByteArray body;
    QByteArray properties;
    std::int32_t flag = 0;
    std::int32_t sysFlag = 0;
    std::optional<std::int32_t> reconsumeTimes;
    std::optional<std::int32_t> maxReconsumeTimes;
    QByteArray uniqueIds;
    bool batch = false;
    bool reply = false;
    int count = 1;
    // With enableMsgTrace only: what the Pub record needs of the message.
    QByteArray tags;
    QByteArray keys;
    int bodyLength = 0;
    protocol::trace::TraceMessageType traceType = protocol::trace::TraceMessageType::Normal;
};

class ProducerImpl final : public ProducerInner, public std::enable_shared_from_this<ProducerImpl>
{
public:
    explicit ProducerImpl(ProducerOptions options);
    ~ProducerImpl() override;

    Status start();
    /// An unregistered producer over `instance` (a consumer's re-sends to %RETRY%).
    void startInner(std::shared_ptr<ClientInstance> instance);
    void shutdown();
    bool isStarted() const { return m_started.load(); }
    const ProducerOptions &options() const { return m_options; }
    QByteArray clientId() const;
    ClientInstance *instance() const { return m_instance.get(); }

    Status validate(const Message &msg) const;
    Result<PreparedMessage> prepare(const Message &msg) const;
    Result<PreparedMessage> prepareBatch(
        const std::vector<Message> &messages, std::size_t begin, std::size_t end) const;

    // -- the send engine (sendengine.cpp) ---------------------------------------------------
    // One attempt loop for every kind of send: select a queue (the fixed one, or by fault
    // avoidance away from the last broker) -> check the deadline -> the broker's address ->
    // send -> update the broker's fault latency -> retriable? (then the next attempt). An async
    // send runs its steps on the callback pool; a sync send is the same send whose steps run on
    // the thread that waits for it; a oneway send is one attempt that does not wait.

    /// Sync: at most 1 + `retries` attempts (1 with a fixed queue) within sendMsgTimeout.
    Result<SendResult> sendPrepared(
        const PreparedMessage &msg, const std::optional<MessageQueue> &fixed, int retries);
    /// Async: `callback` runs once on the callback pool (or a helper thread once it is closed).
    void sendPreparedAsync(
        PreparedMessage msg, std::optional<MessageQueue> fixed, int retries, SendCallback callback);
    /// Oneway: an error only when no request could be handed to a connection.
    Status sendPreparedOneway(const PreparedMessage &msg, const std::optional<MessageQueue> &fixed);
    Result<std::shared_ptr<const TopicPublishInfo>> publishInfo(
        const QByteArray &topic, bool refresh);

    void setTransactionListener(TransactionListener *listener) { m_listener = listener; }
    TransactionListener *transactionListener() const { return m_listener; }
    void endTransaction(const SendResult &result, LocalTransactionState state,
        const QByteArray &uniqueKey, const QByteArray &transactionId);
    /// The EndTransaction trace record of a transaction `msg` ended (enableMsgTrace).
    void traceEndTransaction(const Message &msg, const SendResult &result,
        LocalTransactionState state, const QByteArray &brokerAddr);

    // ProducerInner
    QByteArray groupName() const override { return m_options.group; }
    void checkTransactionState(const QByteArray &brokerAddr, MessageExt halfMessage,
        const protocol::CheckTransactionStateRequestHeader &header) override;

private:
    struct Send;
    struct SyncWait;
    enum class Mode : std::uint8_t { Sync, Async, Oneway };
    std::shared_ptr<Send> newSend(
        PreparedMessage msg, std::optional<MessageQueue> fixed, int retries, Mode mode);
    void run(const std::shared_ptr<Send> &send);
    void attempt(const std::shared_ptr<Send> &send);
    /// An async send's first attempt on the calling thread when nothing in it can block (route
    /// cached, master known); false (nothing changed but the queue counter) otherwise.
    bool startOnCaller(const std::shared_ptr<Send> &send);
    /// The attempt's request (send->mq, send->addr) on the wire; `left` ms until the deadline.
    void dispatch(const std::shared_ptr<Send> &send, int left);
    void onResponse(const std::shared_ptr<Send> &send, Result<RemotingCommand> response);
    void finish(const std::shared_ptr<Send> &send, Result<SendResult> result);
    void finishWithLast(const std::shared_ptr<Send> &send);
    /// The I/O thread's hand-over of a response to where the send's next step runs.
    void deliver(std::shared_ptr<Send> send, Result<RemotingCommand> response);
    Result<SendResult> awaitSync(const std::shared_ptr<Send> &send);
    protocol::SendMessageRequestHeader header(
        const PreparedMessage &msg, const MessageQueue &queue) const;
    static bool retriable(const Status &error);
    void noteFailure(const QByteArray &topic);
    /// The Pub trace record of a finished send (enableMsgTrace).
    void tracePub(const Send &send, const SendResult &result);

    const ProducerOptions m_options;
    ClientInstance::Lease m_lease; // start() only: an inner producer uses its consumer's
    std::shared_ptr<ClientInstance> m_instance;
    std::shared_ptr<WorkerPool> m_callbacks;
    std::shared_ptr<WorkerPool> m_checks;
    FaultTolerance m_faults;
    std::atomic<bool> m_started {false};
    bool m_registered = false;
    TransactionListener *m_listener = nullptr;
    std::unique_ptr<TraceDispatcher> m_trace; // enableMsgTrace: from start() to shutdown()

    std::mutex m_inflightMutex;
    std::condition_variable m_inflightDone;
    int m_inflight = 0; // async sends not completed, guarded by m_inflightMutex
};

} // namespace qrocket::client
