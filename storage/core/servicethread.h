#pragma once

// ServiceThread: a std::thread running `loop` until stop(); waitFor() sleeps up to an interval
// but returns early on wakeup() or stop() (RocketMQ's ServiceThread.waitForRunning).

#include "clientlib/common/threadsched.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <pthread.h>
#include <thread>

namespace qrocket::storage {

class ServiceThread
{
public:
    ServiceThread() = default;
    ~ServiceThread() { stop(); }
    ServiceThread(const ServiceThread &) = delete;
    ServiceThread &operator=(const ServiceThread &) = delete;

    enum class Priority { Normal, Background, Idle };

    /// `name` (at most 15 characters) shows in top, perf and gdb. Background services (their
    /// work can wait a few milliseconds) run as SCHED_BATCH: their wake-ups do not preempt the
    /// I/O threads. Idle services (work that nobody waits for: pre-faulting, the async flush
    /// and the consume-queue flush) run as SCHED_IDLE: any other thread that wakes preempts
    /// them (clientlib/common/threadsched.h).
    void start(std::function<void()> loop, const char *name = nullptr,
        Priority priority = Priority::Normal)
    {
        m_stopping = false;
        m_thread = std::thread([loop = std::move(loop), priority] {
            if (priority == Priority::Background)
                markCurrentThreadBackground();
            else if (priority == Priority::Idle)
                markCurrentThreadIdle();
            loop();
        });
        if (name)
            ::pthread_setname_np(m_thread.native_handle(), name);
    }
    void stop()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_cv.notify_all();
        if (m_thread.joinable())
            m_thread.join();
    }
    bool isStopping() const { return m_stopping.load(std::memory_order_acquire); }
    bool isRunning() const { return m_thread.joinable(); }

    void wakeup()
    {
        // seq_cst pair with waitFor(): either the waiter's predicate sees m_notified, or we see
        // m_waiting and notify under the lock.
        // A wakeup already pending costs nothing more: the hot path (one call per append) stays
        // free of syscalls while the service is busy. A lost race only delays to the timeout.
        if (m_notified.load(std::memory_order_relaxed))
            return;
        if (!m_notified.exchange(true) && m_waiting.load()) {
            std::lock_guard lock(m_mutex);
            m_cv.notify_one();
        }
    }
    /// Sleeps up to `timeout` unless woken; returns at once if a wakeup is pending.
    void waitFor(std::chrono::milliseconds timeout)
    {
        if (m_notified.exchange(false))
            return;
        std::unique_lock lock(m_mutex);
        m_waiting.store(true);
        m_cv.wait_for(lock, timeout, [this] { return m_notified.load() || m_stopping.load(); });
        m_waiting.store(false);
        m_notified.store(false);
    }

    /// Sleeps `timeout` (or until stop()) without being woken by wakeup(): wakeups meanwhile
    /// cost the caller one relaxed load and make the next waitFor() return at once. For a
    /// service that is busy, so that producers never pay for a futex wake per item.
    void nap(std::chrono::milliseconds timeout)
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait_for(lock, timeout, [this] { return m_stopping.load(); });
    }

    /// Sleeps until `ready()` holds, `deadline` passes or stop(), for a service that wakes on a
    /// condition of its own; whoever makes `ready()` true calls notify().
    template<typename Ready>
    void sleepUntil(std::chrono::steady_clock::time_point deadline, Ready &&ready)
    {
        std::unique_lock lock(m_mutex);
        m_cv.wait_until(lock, deadline, [&] { return ready() || m_stopping.load(); });
    }
    /// Wakes a sleepUntil() to check its condition again. Taking the lock orders this after a
    /// check in progress, so the wakeup cannot fall between its check and its sleep.
    void notify()
    {
        {
            std::lock_guard lock(m_mutex);
        }
        m_cv.notify_one();
    }

private:
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::atomic<bool> m_stopping {false};
    std::atomic<bool> m_waiting {false};
    std::atomic<bool> m_notified {false};
};

} // namespace qrocket::storage
