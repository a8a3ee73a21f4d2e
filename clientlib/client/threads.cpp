#include "clientlib/client/threads.h"

#include "clientlib/client/logging.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <pthread.h>
#include <system_error>
#include <thread>
#include <vector>

namespace qrocket::client {

namespace {

thread_local const void *t_owner = nullptr;

void nameThread(const QByteArray &name)
{
    pthread_setname_np(pthread_self(), name.left(15).constData());
}

void runGuarded(const std::function<void()> &task, const QByteArray &where)
{
    try {
        task();
    } catch (const std::exception &e) {
        qCWarning(lcClient, "%s: a task threw: %s", where.constData(), e.what());
    } catch (...) {
        qCWarning(lcClient, "%s: a task threw", where.constData());
    }
}

/// Joins `threads` when they have all left their loops within `timeout`; otherwise (a task still
/// running) detaches them: they hold their state and exit after the task. The caller's own
/// thread is always detached, never joined.
void joinOrDetach(std::vector<std::thread> &threads, std::mutex &mutex,
    std::condition_variable &exited, const int &alive, std::chrono::milliseconds timeout,
    bool selfInside)
{
    bool allGone = false;
    {
        std::unique_lock lock(mutex);
        const int floor = selfInside ? 1 : 0;
        allGone = exited.wait_for(lock, timeout, [&] { return alive <= floor; });
    }
    for (std::thread &t : threads) {
        if (!t.joinable())
            continue;
        if (allGone && t.get_id() != std::this_thread::get_id())
            t.join();
        else
            t.detach();
    }
    threads.clear();
}

} // namespace

QByteArray threadDump()
{
    QByteArray out;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    const QStringList tids = tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    auto readFile = [&](const QString &tid, const char *name) {
        QFile f(tasks.filePath(tid + u'/' + QLatin1String(name)));
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
    };
    for (const QString &tid : tids) {
        const QByteArray stat = readFile(tid, "stat");
        // "tid (comm) S ...": the state follows the last ')', comm may hold spaces or ')'.
        const qsizetype close = stat.lastIndexOf(')');
        const char state = close >= 0 && close + 2 < stat.size() ? stat.at(close + 2) : '?';
        const char *what = state == 'R'    ? "running"
            : state == 'S'                 ? "sleeping"
            : state == 'D'                 ? "disk wait"
            : state == 'T' || state == 't' ? "stopped"
            : state == 'Z'                 ? "zombie"
                                           : "other";
        QByteArray wchan = readFile(tid, "wchan");
        if (wchan.isEmpty() || wchan == "0")
            wchan = "-";
        out += '"' + readFile(tid, "comm") + "\" tid=" + tid.toLatin1() + " state=" + state + " ("
            + what + ") wchan=" + wchan + '\n';
    }
    return out;
}

std::int64_t currentTimeMillis()
{
    return QDateTime::currentMSecsSinceEpoch();
}

// ---------------------------------------------------------------------------------------------

struct WorkerPool::State
{
    QByteArray name;
    mutable std::mutex mutex;
    std::condition_variable wake;
    std::condition_variable exited;
    std::deque<std::function<void()>> queue; // guarded by mutex
    bool stopping = false; // guarded by mutex
    int alive = 0; // threads still in run(), core and extra, guarded by mutex
    int idle = 0; // threads waiting for a task, guarded by mutex
    /// Wake-ups signalled and not yet taken by a waiting thread, guarded by mutex. Tasks wake
    /// one waiting thread at a time: a thread that takes a task and leaves more behind wakes the
    /// next one when no wake-up is under way. Short tasks are then run by the threads already
    /// awake (not one futex wake and context switch per task); long ones still spread over
    /// every thread, one wake-up latency apart.
    int signalled = 0;
    int minThreads = 1;
    int maxThreads = 1;
    int nextIndex = 0; // guarded by mutex
    std::chrono::milliseconds keepAlive {60000};
    std::vector<std::thread> threads; // the core threads: the constructor and shutdown only

    /// Called with the mutex held: whether to wake one more waiting thread (after unlocking)
    /// for the queued tasks; counts the wake-up as under way.
    bool wakeOneLocked()
    {
        if (queue.empty() || idle <= signalled || signalled > 0)
            return false;
        ++signalled;
        return true;
    }

    /// A core thread waits for work forever; an extra one (above minThreads) retires after
    /// keepAlive without a task, as ThreadPoolExecutor's non-core threads do.
    void run(int index, bool core)
    {
        nameThread(name + '-' + QByteArray::number(index));
        t_owner = this;
        std::unique_lock lock(mutex);
        for (;;) {
            ++idle;
            bool woke = true;
            while (!stopping && queue.empty()) {
                const bool timedOut = core
                    ? (wake.wait(lock), false)
                    : wake.wait_for(lock, keepAlive) == std::cv_status::timeout;
                // Whatever woke it (the signal, a spurious wake-up, the time-out), the signal
                // under way counts as taken: it can never stay pending and block the next one.
                if (signalled > 0)
                    --signalled;
                if (timedOut && !stopping && queue.empty()) {
                    woke = false;
                    break;
                }
            }
            --idle;
            if (!woke || stopping)
                break;
            std::function<void()> task = std::move(queue.front());
            queue.pop_front();
            const bool wakeNext = wakeOneLocked();
            lock.unlock();
            if (wakeNext)
                wake.notify_one();
            runGuarded(task, name);
            task = nullptr; // captured state released outside the lock
            lock.lock();
        }
        --alive;
        exited.notify_all();
    }
};

WorkerPool::WorkerPool(QByteArray name, int threads) : WorkerPool(std::move(name), threads, threads)
{ }

WorkerPool::WorkerPool(
    QByteArray name, int minThreads, int maxThreads, std::chrono::milliseconds keepAlive)
    : m_state(std::make_shared<State>())
{
    m_state->name = std::move(name);
    m_state->minThreads = minThreads < 1 ? 1 : minThreads;
    m_state->maxThreads = std::max(m_state->minThreads, maxThreads);
    m_state->keepAlive = keepAlive;
    m_state->alive = m_state->minThreads;
    m_state->nextIndex = m_state->minThreads;
    for (int i = 0; i < m_state->minThreads; ++i)
        m_state->threads.emplace_back([state = m_state, i] { state->run(i + 1, true); });
}

WorkerPool::~WorkerPool()
{
    shutdown();
}

namespace {

/// More queued tasks than waiting threads, and room to grow: up to `atMost` more threads
/// (detached; they count in `alive`, which shutdown waits for), one per task no waiting thread
/// will take. Called with the state's mutex held.
void growLocked(const std::shared_ptr<WorkerPool::State> &state, int atMost)
{
    WorkerPool::State &s = *state;
    for (int started = 0;
         started<atMost &&int(s.queue.size())> s.idle + started && s.alive < s.maxThreads;
         ++started) {
        try {
            const int index = ++s.nextIndex;
            std::thread([state, index] { state->run(index, false); }).detach();
            ++s.alive;
        } catch (const std::system_error &e) {
            qCWarning(
                lcClient, "%s: cannot start another thread: %s", s.name.constData(), e.what());
            return;
        }
    }
}

} // namespace

bool WorkerPool::execute(std::function<void()> task)
{
    // A task may destroy this pool as soon as it is queued (a shutdown from inside): the state
    // is kept alive here for the signal after the unlock.
    const std::shared_ptr<State> state = m_state;
    bool wakeNext = false;
    {
        std::lock_guard lock(state->mutex);
        if (state->stopping)
            return false;
        state->queue.push_back(std::move(task));
        growLocked(state, 1);
        wakeNext = state->wakeOneLocked();
    }
    // Signalled after the unlock, so the woken thread does not run into the mutex held here.
    if (wakeNext)
        state->wake.notify_one();
    return true;
}

bool WorkerPool::executeAll(std::vector<std::function<void()>> tasks)
{
    if (tasks.empty())
        return true;
    const std::shared_ptr<State> state = m_state; // as in execute(): the pool may go first
    bool wakeNext = false;
    {
        std::lock_guard lock(state->mutex);
        if (state->stopping)
            return false; // the tasks' captures die with the vector, outside the lock
        for (std::function<void()> &t : tasks)
            state->queue.push_back(std::move(t));
        growLocked(state, static_cast<int>(tasks.size()));
        // One waiting thread; it wakes the next while tasks are left (State::signalled).
        wakeNext = state->wakeOneLocked();
    }
    if (wakeNext)
        state->wake.notify_one();
    return true;
}

void WorkerPool::shutdown(std::chrono::milliseconds timeout)
{
    std::deque<std::function<void()>> dropped;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->stopping && m_state->threads.empty())
            return;
        m_state->stopping = true;
        dropped.swap(m_state->queue);
        m_state->wake.notify_all();
    }
    dropped.clear(); // their captures die here, outside the lock
    joinOrDetach(m_state->threads, m_state->mutex, m_state->exited, m_state->alive, timeout,
        isCurrentThread());
}

bool WorkerPool::isCurrentThread() const
{
    return t_owner == m_state.get();
}

std::size_t WorkerPool::queuedTasks() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->queue.size();
}

int WorkerPool::threadCount() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->alive;
}

// ---------------------------------------------------------------------------------------------

struct Scheduler::State
{
    using Clock = std::chrono::steady_clock;
    struct Entry
    {
        TaskId id = 0;
        std::chrono::milliseconds period {0}; // 0 = once
        std::shared_ptr<std::function<void()>> task;
    };

    QByteArray name;
    std::mutex mutex;
    std::condition_variable wake;
    std::condition_variable exited;
    std::multimap<Clock::time_point, Entry> pending; // guarded by mutex
    TaskId nextId = 1; // guarded by mutex
    TaskId runningId = 0; // guarded by mutex
    bool cancelRunning = false; // guarded by mutex
    bool stopping = false; // guarded by mutex
    int alive = 1; // guarded by mutex
    std::vector<std::thread> threads;

    void run()
    {
        nameThread(name);
        t_owner = this;
        std::unique_lock lock(mutex);
        for (;;) {
            if (stopping)
                break;
            if (pending.empty()) {
                wake.wait(lock);
                continue;
            }
            const auto first = pending.begin();
            if (first->first > Clock::now()) {
                // A copy: the entry may be erased (cancel, shutdown) while we wait.
                const Clock::time_point at = first->first;
                wake.wait_until(lock, at);
                continue;
            }
            Entry entry = std::move(first->second);
            pending.erase(first);
            runningId = entry.id;
            cancelRunning = false;
            lock.unlock();
            runGuarded(*entry.task, name);
            lock.lock();
            runningId = 0;
            if (entry.period.count() > 0 && !cancelRunning && !stopping) {
                const auto at = Clock::now() + entry.period;
                pending.emplace(at, std::move(entry));
            } else {
                lock.unlock();
                entry.task.reset(); // captures released outside the lock
                lock.lock();
            }
        }
        --alive;
        exited.notify_all();
    }
};

Scheduler::Scheduler(QByteArray name) : m_state(std::make_shared<State>())
{
    m_state->name = std::move(name);
    m_state->threads.emplace_back([state = m_state] { state->run(); });
}

Scheduler::~Scheduler()
{
    shutdown();
}

Scheduler::TaskId Scheduler::schedule(std::chrono::milliseconds delay, std::function<void()> task)
{
    return scheduleWithFixedDelay(delay, std::chrono::milliseconds(0), std::move(task));
}

Scheduler::TaskId Scheduler::scheduleWithFixedDelay(std::chrono::milliseconds initialDelay,
    std::chrono::milliseconds period, std::function<void()> task)
{
    std::lock_guard lock(m_state->mutex);
    if (m_state->stopping)
        return 0;
    const TaskId id = m_state->nextId++;
    State::Entry e;
    e.id = id;
    e.period = period;
    e.task = std::make_shared<std::function<void()>>(std::move(task));
    const auto at = State::Clock::now() + initialDelay;
    const bool earliest = m_state->pending.empty() || at < m_state->pending.begin()->first;
    m_state->pending.emplace(at, std::move(e));
    if (earliest)
        m_state->wake.notify_all();
    return id;
}

void Scheduler::cancel(TaskId id)
{
    std::shared_ptr<std::function<void()>> dropped;
    std::lock_guard lock(m_state->mutex);
    if (m_state->runningId == id)
        m_state->cancelRunning = true;
    for (auto it = m_state->pending.begin(); it != m_state->pending.end(); ++it) {
        if (it->second.id == id) {
            dropped = std::move(it->second.task);
            m_state->pending.erase(it);
            break;
        }
    }
}

void Scheduler::shutdown(std::chrono::milliseconds timeout)
{
    std::multimap<State::Clock::time_point, State::Entry> dropped;
    {
        std::lock_guard lock(m_state->mutex);
        if (m_state->stopping && m_state->threads.empty())
            return;
        m_state->stopping = true;
        dropped.swap(m_state->pending);
        m_state->wake.notify_all();
    }
    dropped.clear();
    joinOrDetach(m_state->threads, m_state->mutex, m_state->exited, m_state->alive, timeout,
        isCurrentThread());
}

bool Scheduler::isCurrentThread() const
{
    return t_owner == m_state.get();
}

} // namespace qrocket::client
