#pragma once

// ChannelImpl: the thread-safe Channel handed to processors and listeners (requestprocessor.h).
// Internal to the remoting module.
//
// It points at its Connection (a QObject living on one I/O thread) through a pointer guarded by
// m_mutex and cleared by Connection::close() before the Connection is deleted, so any thread may
// post work to the Connection while holding the lock. Frames sent from other threads are encoded
// on the caller's thread, appended to an outbox, and written by one posted flush per batch.
//
// In-flight accounting (server connections with ConnectionOptions::maxInflightRequests): the
// Connection counts each request it dispatches (acquireRequest, I/O thread), the request's
// Responder releases it when it answers or is destroyed unanswered (releaseRequest, any thread).
// The Connection pauses reading at the cap; the release that finds reading paused and the count
// at or below half the cap posts one resumeReading() to the Connection. Lock-free: a seq_cst
// counter and pause flag, so either the pausing thread sees the drained count or the releasing
// thread sees the pause.

#include "clientlib/remoting/requestprocessor.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

class QThread;

namespace qrocket::remoting {

class Connection;

/// A fresh request opaque (a process-wide counter, as RocketMQ's requestId).
int nextOpaque();

/// Calls and clears `callback` (if set); exceptions it throws are logged, never propagated.
void completeInvocation(InvokeCallback &callback, Result<RemotingCommand> result);

/// Owns a callback while it travels through an event queue: if the posted event is dropped (the
/// I/O thread stopped first), the destructor still completes it with Unavailable.
struct PendingCallback
{
    InvokeCallback callback;
    explicit PendingCallback(InvokeCallback cb) : callback(std::move(cb)) { }
    PendingCallback(const PendingCallback &) = delete;
    PendingCallback &operator=(const PendingCallback &) = delete;
    ~PendingCallback();
    InvokeCallback take() { return std::exchange(callback, nullptr); }
};

class ChannelImpl final : public Channel, public std::enable_shared_from_this<ChannelImpl>
{
public:
    /// `maxInflight` > 0: count requests for the in-flight cap (above).
    ChannelImpl(std::uint64_t id, QByteArray remoteAddress, Connection *connection,
        QThread *ioThread, int maxInflight = 0);

    std::uint64_t id() const override { return m_id; }
    QByteArray remoteAddress() const override;
    bool remoteHost(protocol::HostAddress &out) const override;
    bool isActive() const override;
    void close() override;
    void send(RemotingCommand cmd) override;
    bool sendEncoded(QByteArrayView frame) override;
    void invokeAsync(RemotingCommand request, int timeoutMillis, InvokeCallback callback) override;
    void invokeOneway(RemotingCommand request) override;
    void releaseRequest() override;

    /// I/O thread: one more request awaits its answer (with an in-flight cap only).
    void acquireRequest()
    {
        if (m_maxInflight > 0)
            m_inflight.fetch_add(1, std::memory_order_seq_cst);
    }
    /// I/O thread: the cap is reached (cheap: one relaxed load).
    bool inflightAtCap() const
    {
        return m_maxInflight > 0 && m_inflight.load(std::memory_order_relaxed) >= m_maxInflight;
    }
    /// I/O thread: marks reading paused; false (and unmarked) when the requests drained to the
    /// resume level meanwhile, so the caller keeps reading.
    bool markReadPaused();
    int inflight() const { return m_inflight.load(std::memory_order_relaxed); }

    /// I/O thread only: called by the Connection when it closes; later sends are dropped.
    void detach();
    /// I/O thread only: the peer address became known (client connections after connect).
    void setRemoteAddress(QByteArray address);

private:
    void flushOutbox(); // I/O thread

    const std::uint64_t m_id;
    QThread *const m_ioThread;
    const int m_maxInflight; // 0 = requests are not counted
    std::atomic<int> m_inflight {0};
    std::atomic<bool> m_readPaused {false};
    mutable std::mutex m_mutex;
    QByteArray m_remoteAddress; // guarded by m_mutex
    protocol::HostAddress m_remoteHost; // guarded by m_mutex; m_remoteAddress parsed
    bool m_remoteHostValid = false; // guarded by m_mutex
    Connection *m_connection; // guarded by m_mutex; null once closed
    QByteArray m_outbox; // guarded by m_mutex; encoded frames from other threads
    /// Guarded by m_mutex: large bodies not copied into m_outbox, each with the offset in it
    /// where it goes (its frame's head ends there).
    std::vector<std::pair<qsizetype, QByteArray>> m_outboxBodies;
    bool m_flushPosted = false; // guarded by m_mutex
};

} // namespace qrocket::remoting
