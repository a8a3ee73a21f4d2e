#pragma once

// TraceDispatcher: the client's message trace writer (RocketMQ's AsyncTraceDispatcher), behind
// ProducerOptions::enableMsgTrace and PushConsumerOptions::enableMsgTrace. Internal header.
//
// The send and consume paths only append() a record: a move into a slot of a fixed ring under
// a short lock, no allocation, never a wait; when the ring is full (capacity records not yet
// sent) the record is dropped and counted. One background thread ("qrocket-trace") takes the
// records, encodes them in RocketMQ's trace format (clientlib/protocol/tracedata.h), batches up
// to kMaxBatchRecords records or kMaxBatchBytes of body per message, and sends each batch to the
// trace topic (RMQ_SYS_TRACE_TOPIC unless customised) with every record's msgId and keys as the
// message's KEYS, so QUERY_MESSAGE by msgId on the trace topic finds them. A partial batch goes
// out after flushInterval. The sender is a producer of group
// "_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>" on the owner's client instance, with
// tracing off.
//
// shutdown() sends what is still queued (bounded by the trace producer's send timeout per
// batch, and by `flushTimeout` overall), joins the thread and shuts the trace producer down:
// call it before the owner releases its client instance lease.

#include "clientlib/client/clientconfig.h"
#include "clientlib/common/status.h"
#include "clientlib/protocol/tracedata.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::client {

class Producer;

class TraceDispatcher
{
public:
    /// Sends one trace message (topic, body, keys); used instead of a producer by tests.
    using Sender
        = std::function<Status(const QByteArray &, const QByteArray &, std::vector<QByteArray>)>;

    struct Options
    {
        QByteArray ownerGroup;
        bool consumer = false;
        /// Empty: RMQ_SYS_TRACE_TOPIC.
        QByteArray traceTopic;
        ClientConfig client;
        int capacity = 2048;
        std::chrono::milliseconds flushInterval {500};
        int sendTimeoutMs = 3000;
    };

    explicit TraceDispatcher(Options options);
    /// shutdown().
    ~TraceDispatcher();
    TraceDispatcher(const TraceDispatcher &) = delete;
    TraceDispatcher &operator=(const TraceDispatcher &) = delete;

    /// Starts the trace producer (or uses `sender`) and the background thread.
    Status start(Sender sender = {});
    /// Flushes what is queued (up to `flushTimeout`), stops the thread and the trace producer.
    /// Idempotent.
    void shutdown(std::chrono::milliseconds flushTimeout = std::chrono::seconds(3));

    /// Queues `record`; false (and counted in dropped()) when full or not running. Thread-safe,
    /// never blocks for long, never allocates.
    bool append(protocol::trace::TraceRecord &&record);

    const QByteArray &traceTopic() const { return m_topic; }
    /// True for messages the dispatcher itself writes (they are never traced).
    bool isTraceTopic(const QByteArray &topic) const { return topic.startsWith(m_topic); }
    std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }
    std::uint64_t recordsSent() const { return m_recordsSent.load(std::memory_order_relaxed); }
    std::uint64_t messagesSent() const { return m_messagesSent.load(std::memory_order_relaxed); }
    std::uint64_t sendFailures() const { return m_sendFailures.load(std::memory_order_relaxed); }

    /// A request id pairing a SubBefore with its SubAfter (a client unique id, as Java's).
    static QByteArray newRequestId();

private:
    struct Batch;
    void run();
    /// Moves up to everything queued into `out`; false when stopping and nothing was queued.
    void takeQueued(std::vector<protocol::trace::TraceRecord> &out);
    void sendBatch(Batch &batch);

    const Options m_options;
    const QByteArray m_topic;
    Sender m_sender;
    std::unique_ptr<Producer> m_producer;

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::vector<protocol::trace::TraceRecord> m_ring; // guarded by m_mutex
    std::size_t m_head = 0; // guarded by m_mutex
    std::size_t m_size = 0; // guarded by m_mutex
    std::size_t m_batched = 0; // guarded by m_mutex: records the thread holds unsent
    bool m_running = false; // guarded by m_mutex
    bool m_stopping = false; // guarded by m_mutex
    std::chrono::steady_clock::time_point m_flushDeadline; // guarded by m_mutex

    std::thread m_thread;
    std::atomic<std::uint64_t> m_dropped {0};
    std::atomic<std::uint64_t> m_recordsSent {0};
    std::atomic<std::uint64_t> m_messagesSent {0};
    std::atomic<std::uint64_t> m_sendFailures {0};
};

} // namespace qrocket::client
