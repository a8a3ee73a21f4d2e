#pragma once

// OffsetWaiters: puts waiting for the commit log to reach an offset, shared by SYNC_FLUSH's
// group commit (durable on disk up to X) and SYNC_MASTER's group transfer (a slave acknowledged
// X). Two kinds of waiter:
// - requests with a completion (the put path that never blocks a thread): handed in by any
//   thread with submit(), moved by the service thread into its working set with take() and
//   completed in complete(), each once: reached, expired at its deadline, or failed at shutdown;
// - blocked callers (block()): they sleep on one futex that the service bumps once per step of
//   progress (publish()), instead of one wakeup per put.
// Thread-safety: submit(), close(), queued(), pending(), block() and publish() from any thread;
// take(), complete() and oldestWaiting() from the service thread only (or from stop() after the
// service thread is joined).

#include "storage/core/storetypes.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

namespace qrocket::storage {

std::int64_t steadyNowMs();

class OffsetWaiters
{
public:
    struct Request
    {
        std::int64_t nextOffset;
        std::int64_t deadline; // steady-clock ms
        PutMessageResult result;
        PutCallback cb;
    };

    explicit OffsetWaiters(int timeoutMs) : m_timeoutMs(timeoutMs) { }
    OffsetWaiters(const OffsetWaiters &) = delete;
    OffsetWaiters &operator=(const OffsetWaiters &) = delete;

    int timeoutMs() const { return m_timeoutMs; }

    /// Queues a request due now + the timeout. False once closed: `result` and `cb` stay with
    /// the caller, who completes them itself. `wasEmpty` (optional): nothing was queued before.
    bool submit(std::int64_t nextOffset, PutMessageResult &result, PutCallback &cb,
        bool *wasEmpty = nullptr);
    /// No more submissions; false when it was closed already.
    bool close();
    bool isClosed() const;
    /// Requests handed in but not taken yet.
    std::int64_t queued() const;
    /// Requests not completed yet (queued and taken).
    std::int64_t pending() const;

    /// Service thread: moves the queued requests into the working set.
    void take();
    bool idle() const { return m_working.empty(); }
    /// The smallest offset a taken request waits for (requests arrive in offset order, so the
    /// first one), or INT64_MAX when none waits.
    std::int64_t oldestWaiting() const;
    /// Completes every taken request up to `reached` with `finish(request)`; a request past its
    /// deadline (all of them with `expireAll`) goes through `expire(request)` first.
    template<typename Expire, typename Finish>
    void complete(std::int64_t reached, bool expireAll, Expire &&expire, Finish &&finish)
    {
        const std::int64_t now = steadyNowMs();
        size_t kept = 0;
        for (size_t i = 0; i < m_working.size(); ++i) {
            Request &r = m_working[i];
            if (reached >= r.nextOffset) {
                finish(r);
            } else if (expireAll || now >= r.deadline) {
                expire(r);
                finish(r);
            } else {
                if (kept != i)
                    m_working[kept] = std::move(r);
                ++kept;
            }
        }
        m_working.erase(m_working.begin() + static_cast<std::ptrdiff_t>(kept), m_working.end());
        m_workingCount.store(static_cast<std::int64_t>(kept), std::memory_order_relaxed);
    }

    enum class BlockResult { Reached, TimedOut, ShutDown };
    /// Blocks the calling thread until `reached()` >= `target`, the timeout, or shutDown().
    template<typename Reached>
    BlockResult block(std::int64_t target, Reached &&reached)
    {
        const std::int64_t deadline = steadyNowMs() + m_timeoutMs;
        for (;;) {
            m_sleepers.fetch_add(1);
            const std::uint32_t generation = m_generation.load();
            BlockResult result = BlockResult::Reached;
            bool done = true;
            if (reached() >= target)
                result = BlockResult::Reached;
            else if (m_shutDown.load())
                result = BlockResult::ShutDown;
            else if (steadyNowMs() >= deadline)
                result = BlockResult::TimedOut;
            else
                done = false;
            if (!done)
                sleepWhile(generation, deadline);
            m_sleepers.fetch_sub(1);
            if (done)
                return result;
        }
    }
    /// Progress: blocked callers check their offset again.
    void publish();
    /// The service made its last progress: blocked callers stop waiting.
    void shutDown();

private:
    /// One futex wait while the generation is `generation`, until `deadlineMs` at most.
    void sleepWhile(std::uint32_t generation, std::int64_t deadlineMs);

    const int m_timeoutMs;
    mutable std::mutex m_mutex; // guards m_queued, m_closed
    std::vector<Request> m_queued;
    bool m_closed = false;
    std::vector<Request> m_working; // service thread only
    std::atomic<std::int64_t> m_workingCount {0};

    // block(): a generation counter used as a futex, bumped by publish().
    std::atomic<std::uint32_t> m_generation {0};
    std::atomic<int> m_sleepers {0};
    std::atomic<bool> m_shutDown {false};
};

} // namespace qrocket::storage
