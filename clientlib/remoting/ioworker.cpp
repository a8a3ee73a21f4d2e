#include "clientlib/remoting/ioworker.h"

#include "clientlib/common/threadsched.h"
#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/connection.h"
#include "clientlib/remoting/epolldispatcher.h"
#include "clientlib/remoting/logging.h"

#include <QThread>
#include <QTimer>

#include <algorithm>
#include <memory>

namespace qrocket::remoting {

IoWorker::IoWorker(std::chrono::milliseconds sweepInterval) : m_timer(new QTimer(this))
{
    m_timer->setInterval(sweepInterval);
    connect(m_timer, &QTimer::timeout, this, &IoWorker::sweep);
}

IoWorker::~IoWorker()
{
    // Connections are children: delete them while m_connections still exists, since their
    // destructors unregister themselves (closed ones may still await their deleteLater).
    const QList<Connection *> children = findChildren<Connection *>(Qt::FindDirectChildrenOnly);
    for (Connection *connection : children)
        delete connection;
}

void IoWorker::onThreadStarted()
{
    // A send waits for its I/O thread far more often than the thread computes: ask the
    // scheduler to run it soon after it wakes (threadsched.h).
    markCurrentThreadLatencySensitive();
    m_timer->start();
}

void IoWorker::addConnection(Connection *connection)
{
    m_connections.push_back(connection);
}

void IoWorker::removeConnection(Connection *connection)
{
    const auto it = std::find(m_connections.begin(), m_connections.end(), connection);
    if (it != m_connections.end()) {
        *it = m_connections.back();
        m_connections.pop_back();
    }
}

void IoWorker::closeAll(const QString &reason)
{
    m_timer->stop();
    const std::vector<Connection *> connections = m_connections;
    for (Connection *connection : connections)
        connection->close(reason);
}

void IoWorker::sweep()
{
    const auto now = std::chrono::steady_clock::now();
    // Connections may close (and unregister) while we iterate; they are deleted later.
    const std::vector<Connection *> connections = m_connections;
    for (Connection *connection : connections)
        connection->housekeep(now);
}

namespace {

/// QROCKET_IO_DISPATCHER=qt keeps Qt's own event dispatcher on the I/O threads (to compare the
/// two in one build); anything else, or nothing, uses the epoll one.
bool useEpollDispatcher()
{
    static const bool epoll = qgetenv("QROCKET_IO_DISPATCHER") != "qt";
    return epoll;
}

} // namespace

IoThreadPool::IoThreadPool(
    const QString &name, int threads, std::chrono::milliseconds sweepInterval)
{
    threads = std::max(threads, 1);
    for (int i = 0; i < threads; ++i) {
        auto thread = std::make_unique<QThread>();
        thread->setObjectName(QStringLiteral("%1-%2").arg(name).arg(i));
        if (useEpollDispatcher()) {
            auto dispatcher = std::make_unique<EpollEventDispatcher>();
            if (dispatcher->isValid())
                thread->setEventDispatcher(dispatcher.release()); // the thread owns it
        }
        auto *worker = new IoWorker(sweepInterval);
        worker->moveToThread(thread.get());
        QObject::connect(thread.get(), &QThread::started, worker, &IoWorker::onThreadStarted);
        QObject::connect(thread.get(), &QThread::finished, worker, &QObject::deleteLater);
        thread->start();
        m_workers.push_back(worker);
        m_threads.push_back(std::move(thread));
    }
}

IoThreadPool::~IoThreadPool()
{
    stop();
}

IoWorker *IoThreadPool::next()
{
    const unsigned n = m_next.fetch_add(1, std::memory_order_relaxed);
    return m_workers[n % m_workers.size()];
}

bool IoThreadPool::isIoThread() const
{
    QThread *current = QThread::currentThread();
    return std::any_of(m_threads.begin(), m_threads.end(),
        [current](const auto &t) { return t.get() == current; });
}

void IoThreadPool::stop()
{
    if (m_stopped)
        return;
    m_stopped = true;
    if (isIoThread()) {
        qCCritical(lcRemoting, "IoThreadPool::stop() called on an I/O thread; not joining");
        for (auto &thread : m_threads) {
            thread->quit();
            (void)thread.release(); // leaked: a running QThread must not be destroyed
        }
        return;
    }
    for (IoWorker *worker : m_workers) {
        invokeOn(
            worker, [worker] { worker->closeAll(QStringLiteral("shutting down")); },
            Qt::BlockingQueuedConnection);
    }
    for (auto &thread : m_threads) {
        thread->quit();
        thread->wait();
    }
}

} // namespace qrocket::remoting
