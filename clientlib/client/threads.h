#pragma once

// The client's own threads: WorkerPool (consume pools, callback pools) and Scheduler (timers:
// route refresh, heartbeats, rebalance, offset commits, delayed pulls).
//
// Both may be shut down and destroyed from one of their own threads, which is exactly what a
// user does who shuts a consumer down from inside its message listener (rocketmq-client-cpp
// #335/#286, rocketmq-clients #1334/#521 crash or abort there). Their state lives in a shared
// block the threads hold too: a shutdown from inside never joins its own thread; that thread
// finishes the task it is running and then exits by itself, detached. A shutdown from outside
// waits for the running tasks up to its timeout and joins; threads still busy after it are
// detached, never killed. Either way the call returns in bounded time, and no task starts after
// it. Tasks that throw are caught and logged.
//
// Anything a task uses must outlive the task: capture a shared_ptr (or a weak_ptr checked
// first), never a raw pointer to an object that shutdown might destroy.

#include <QByteArray>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace qrocket::client {

class WorkerPool
{
public:
    /// `threads` named "<name>-<n>" (truncated to 15 bytes, the OS limit).
    WorkerPool(QByteArray name, int threads);
    /// `minThreads` always, and up to `maxThreads` while tasks wait with every thread busy; a
    /// thread above `minThreads` retires after `keepAlive` without a task.
    WorkerPool(QByteArray name, int minThreads, int maxThreads,
        std::chrono::milliseconds keepAlive = std::chrono::seconds(60));
    /// shutdown(3 s).
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    /// Queues `task`; false once shut down. Thread-safe.
    bool execute(std::function<void()> task);
    /// Queues every task at once (one lock, and only as many waiting threads woken as there are
    /// tasks): a consumer hands a pulled batch over this way. false once shut down.
    bool executeAll(std::vector<std::function<void()>> tasks);
    /// Stops accepting tasks, drops the queued ones, waits up to `timeout` for the running ones.
    /// Idempotent.
    void shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(3));
    /// True on one of this pool's threads.
    bool isCurrentThread() const;
    std::size_t queuedTasks() const;
    /// Threads running now (minThreads up to maxThreads).
    int threadCount() const;

    struct State;

private:
    std::shared_ptr<State> m_state;
};

class Scheduler
{
public:
    using TaskId = std::uint64_t;

    explicit Scheduler(QByteArray name);
    /// shutdown(3 s).
    ~Scheduler();
    Scheduler(const Scheduler &) = delete;
    Scheduler &operator=(const Scheduler &) = delete;

    /// Runs `task` once after `delay`; 0 when shut down.
    TaskId schedule(std::chrono::milliseconds delay, std::function<void()> task);
    /// Runs `task` after `initialDelay`, then `period` after each run ends (fixed delay, so a
    /// slow run never piles up).
    TaskId scheduleWithFixedDelay(std::chrono::milliseconds initialDelay,
        std::chrono::milliseconds period, std::function<void()> task);
    TaskId post(std::function<void()> task)
    {
        return schedule(std::chrono::milliseconds(0), std::move(task));
    }
    /// Removes a task that has not started (a running one finishes; a periodic one is not
    /// rescheduled).
    void cancel(TaskId id);
    /// Drops every pending task and waits up to `timeout` for the running one. Idempotent.
    void shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(3));
    bool isCurrentThread() const;

    struct State;

private:
    std::shared_ptr<State> m_state;
};

/// The process's threads, one line each: "name" tid=N state=S (what) wchan=F, from /proc (the
/// jstack of GET_CONSUMER_RUNNING_INFO; native threads have no Java stacks to show).
QByteArray threadDump();

/// Milliseconds since the epoch (System.currentTimeMillis).
std::int64_t currentTimeMillis();

} // namespace qrocket::client
