// TraceDispatcher (tracedispatcher.h): the bounded record ring, the batching thread and the
// trace producer.

#include "clientlib/client/tracedispatcher.h"

#include "clientlib/client/logging.h"
#include "clientlib/client/producer.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/systemtopics.h"

#include <QCoreApplication>

#include <algorithm>
#include <pthread.h>

namespace qrocket::client {

namespace trace = protocol::trace;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kTraceMaxMessageSize = 128000; // Java's AsyncTraceDispatcher maxMsgSize
/// The KEYS property must stay well inside a property block's 32 KiB.
constexpr qsizetype kMaxBatchKeyBytes = 16000;

std::atomic<int> g_traceProducers {0};

} // namespace

struct TraceDispatcher::Batch
{
    QByteArray body;
    std::vector<QByteArray> keys;
    qsizetype keyBytes = 0;
    int records = 0;
    Clock::time_point started;

    bool empty() const { return records == 0; }
    bool full() const
    {
        return records >= trace::kMaxBatchRecords || body.size() >= trace::kMaxBatchBytes
            || keyBytes >= kMaxBatchKeyBytes;
    }
};

TraceDispatcher::TraceDispatcher(Options options)
    : m_options(std::move(options))
    , m_topic(m_options.traceTopic.isEmpty() ? QByteArray(protocol::topics::kTrace)
                                             : m_options.traceTopic)
{ }

TraceDispatcher::~TraceDispatcher()
{
    shutdown();
}

QByteArray TraceDispatcher::newRequestId()
{
    static protocol::UniqueIdGenerator ids(nullptr, QCoreApplication::applicationPid());
    return ids.next();
}

Status TraceDispatcher::start(Sender sender)
{
    std::lock_guard lock(m_mutex);
    if (m_running || m_stopping)
        return Status();
    if (m_options.capacity <= 0)
        return Status::invalidArgument(QStringLiteral("trace queue capacity must be positive"));
    if (!sender) {
        ProducerOptions po;
        po.group = QByteArray(trace::kGroupNamePrefix) + '-' + m_options.ownerGroup
            + (m_options.consumer ? "-CONSUME-" : "-PRODUCE-")
            + QByteArray::number(g_traceProducers.fetch_add(1) + 1);
        po.client = m_options.client;
        po.sendMsgTimeout = m_options.sendTimeoutMs;
        po.retryTimesWhenSendFailed = 1;
        po.maxMessageSize = kTraceMaxMessageSize;
        po.callbackThreads = 1;
        m_producer = std::make_unique<Producer>(std::move(po));
        if (Status s = m_producer->start(); !s) {
            m_producer.reset();
            return s;
        }
        Producer *producer = m_producer.get();
        sender = [producer](const QByteArray &topic, const QByteArray &body,
                     std::vector<QByteArray> keys) {
            Message msg(topic, body);
            msg.setKeys(keys);
            return producer->sendSync(std::move(msg)).status();
        };
    }
    m_sender = std::move(sender);
    m_ring.resize(static_cast<std::size_t>(m_options.capacity));
    m_running = true;
    m_thread = std::thread([this] { run(); });
    return Status();
}

void TraceDispatcher::shutdown(std::chrono::milliseconds flushTimeout)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_running)
            return;
        m_running = false;
        m_stopping = true;
        m_flushDeadline = Clock::now() + flushTimeout;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
    if (m_producer)
        m_producer->shutdown();
    m_producer.reset();
    qCDebug(lcClient,
        "trace dispatcher of %s stopped: %llu records sent in %llu messages, %llu "
        "dropped, %llu failed sends",
        m_options.ownerGroup.constData(), static_cast<unsigned long long>(recordsSent()),
        static_cast<unsigned long long>(messagesSent()), static_cast<unsigned long long>(dropped()),
        static_cast<unsigned long long>(sendFailures()));
}

bool TraceDispatcher::append(trace::TraceRecord &&record)
{
    bool wake = false;
    {
        std::lock_guard lock(m_mutex);
        if (!m_running || m_size == m_ring.size()) {
            m_dropped.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        m_ring[(m_head + m_size) % m_ring.size()] = std::move(record);
        ++m_size;
        // A full batch is ready (with what the thread holds unsent): wake it now.
        wake = m_size + m_batched == static_cast<std::size_t>(trace::kMaxBatchRecords);
    }
    if (wake)
        m_wake.notify_one();
    return true;
}

void TraceDispatcher::takeQueued(std::vector<trace::TraceRecord> &out)
{
    // Called with m_mutex held.
    for (; m_size > 0; --m_size) {
        out.push_back(std::move(m_ring[m_head]));
        m_ring[m_head] = trace::TraceRecord();
        m_head = (m_head + 1) % m_ring.size();
    }
}

void TraceDispatcher::sendBatch(Batch &batch)
{
    if (batch.empty())
        return;
    std::sort(batch.keys.begin(), batch.keys.end());
    batch.keys.erase(std::unique(batch.keys.begin(), batch.keys.end()), batch.keys.end());
    const Status s = m_sender(m_topic, batch.body, std::move(batch.keys));
    if (s) {
        m_recordsSent.fetch_add(
            static_cast<std::uint64_t>(batch.records), std::memory_order_relaxed);
        m_messagesSent.fetch_add(1, std::memory_order_relaxed);
    } else {
        const std::uint64_t n = m_sendFailures.fetch_add(1, std::memory_order_relaxed);
        if (n % 100 == 0)
            qCWarning(lcClient,
                "trace data of %s to %s not sent (%d records; %llu failures so "
                "far): %s",
                m_options.ownerGroup.constData(), m_topic.constData(), batch.records,
                static_cast<unsigned long long>(n + 1), qPrintable(s.toString()));
    }
    batch = Batch();
}

void TraceDispatcher::run()
{
    pthread_setname_np(pthread_self(), "qrocket-trace");
    std::vector<trace::TraceRecord> taken;
    taken.reserve(m_ring.size());
    Batch batch;
    for (;;) {
        bool stopping = false;
        bool pastDeadline = false;
        {
            std::unique_lock lock(m_mutex);
            const Clock::time_point wakeAt
                = (batch.empty() ? Clock::now() : batch.started) + m_options.flushInterval;
            m_batched = static_cast<std::size_t>(batch.records);
            m_wake.wait_until(lock, wakeAt, [&] {
                return m_stopping
                    || m_size + m_batched >= static_cast<std::size_t>(trace::kMaxBatchRecords);
            });
            stopping = m_stopping;
            pastDeadline = stopping && Clock::now() >= m_flushDeadline;
            if (pastDeadline) {
                m_dropped.fetch_add(
                    m_size + static_cast<std::size_t>(batch.records), std::memory_order_relaxed);
                m_size = 0;
            } else {
                takeQueued(taken);
            }
        }
        if (pastDeadline)
            return;
        for (trace::TraceRecord &r : taken) {
            if (batch.empty())
                batch.started = Clock::now();
            const qsizetype keysBefore = static_cast<qsizetype>(batch.keys.size());
            trace::appendRecord(batch.body, r);
            trace::appendTraceKeys(batch.keys, r);
            for (auto k = batch.keys.begin() + keysBefore; k != batch.keys.end(); ++k)
                batch.keyBytes += k->size() + 1;
            ++batch.records;
            if (batch.full())
                sendBatch(batch);
        }
        const bool drained = taken.empty();
        taken.clear();
        if (!batch.empty() && (stopping || Clock::now() >= batch.started + m_options.flushInterval))
            sendBatch(batch);
        if (stopping && drained)
            return;
    }
}

} // namespace qrocket::client
