#include "clientlib/remoting/executor.h"

#include "clientlib/remoting/logging.h"

#include <exception>
#include <pthread.h>
#include <utility>

namespace qrocket::remoting {

ThreadPoolExecutor::ThreadPoolExecutor(QByteArray name, int threads, std::size_t queueCapacity)
    : m_name(std::move(name)), m_capacity(queueCapacity == 0 ? 1 : queueCapacity)
{
    if (threads < 1)
        threads = 1;
    m_threads.reserve(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i)
        m_threads.emplace_back([this, i] { run(i); });
}

ThreadPoolExecutor::~ThreadPoolExecutor()
{
    shutdown();
}

bool ThreadPoolExecutor::tryExecute(std::function<void()> task)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping || m_queue.size() >= m_capacity)
            return false;
        m_queue.push_back(std::move(task));
    }
    m_wake.notify_one();
    return true;
}

void ThreadPoolExecutor::shutdown()
{
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping && m_threads.empty())
            return;
        m_stopping = true;
        dropped.swap(m_queue);
    }
    m_wake.notify_all();
    for (auto &t : m_threads) {
        if (t.joinable())
            t.join();
    }
    m_threads.clear();
    // `dropped` is destroyed here, outside the lock: unrun tasks release their captures.
}

std::size_t ThreadPoolExecutor::queuedTasks() const
{
    std::lock_guard lock(m_mutex);
    return m_queue.size();
}

void ThreadPoolExecutor::run(int index)
{
    const QByteArray threadName = (m_name + '-' + QByteArray::number(index)).left(15);
    pthread_setname_np(pthread_self(), threadName.constData());
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
            if (m_stopping)
                return;
            task = std::move(m_queue.front());
            m_queue.pop_front();
        }
        try {
            task();
        } catch (const std::exception &e) {
            qCWarning(lcRemoting, "executor %s: task threw: %s", m_name.constData(), e.what());
        } catch (...) {
            qCWarning(
                lcRemoting, "executor %s: task threw a non-standard exception", m_name.constData());
        }
    }
}

} // namespace qrocket::remoting
