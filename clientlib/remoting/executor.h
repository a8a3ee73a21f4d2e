#pragma once

// Executors run request processors off the I/O threads (RocketMQ's send/pull/admin pools).
// A null ExecutorPtr in a processor registration means "inline on the connection's I/O thread".

#include <QByteArray>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace qrocket::remoting {

class Executor
{
public:
    virtual ~Executor() = default;
    /// Queues `task`; false when it cannot be accepted (queue full or shut down). The caller then
    /// answers SYSTEM_BUSY. Thread-safe.
    virtual bool tryExecute(std::function<void()> task) = 0;
};
using ExecutorPtr = std::shared_ptr<Executor>;

/// A fixed set of named worker threads over one bounded FIFO queue. Tasks that throw are caught
/// and logged. Destruction (or shutdown()) drops queued tasks unrun and joins the workers; it
/// must not happen on one of the pool's own threads.
class ThreadPoolExecutor final : public Executor
{
public:
    /// `name` names the threads ("<name>-<n>", truncated to the OS limit of 15 bytes).
    ThreadPoolExecutor(QByteArray name, int threads, std::size_t queueCapacity);
    ~ThreadPoolExecutor() override;
    ThreadPoolExecutor(const ThreadPoolExecutor &) = delete;
    ThreadPoolExecutor &operator=(const ThreadPoolExecutor &) = delete;

    bool tryExecute(std::function<void()> task) override;
    void shutdown();

    std::size_t queuedTasks() const;
    std::size_t capacity() const { return m_capacity; }
    const QByteArray &name() const { return m_name; }

private:
    void run(int index);

    const QByteArray m_name;
    const std::size_t m_capacity;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_queue; // guarded by m_mutex
    bool m_stopping = false; // guarded by m_mutex
    std::vector<std::thread> m_threads;
};

} // namespace qrocket::remoting
