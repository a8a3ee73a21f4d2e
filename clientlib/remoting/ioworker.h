#pragma once

// IoWorker / IoThreadPool: the remoting I/O threads. Internal to the remoting module.
//
// Each IoWorker is a QObject living on its own QThread (with its own event loop). Connections are
// its children and are registered with it; one housekeeping QTimer per worker expires pending
// invocations and closes idle connections of all its connections. The pool starts the threads in
// its constructor and stop() closes every connection (on its own thread), quits and joins them.

#include <QObject>
#include <QString>

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

class QThread;
class QTimer;

namespace qrocket::remoting {

class Connection;

class IoWorker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IoWorker)

public:
    explicit IoWorker(std::chrono::milliseconds sweepInterval);
    ~IoWorker() override;

    // All below: on the worker's thread.
    void addConnection(Connection *connection);
    void removeConnection(Connection *connection);
    void closeAll(const QString &reason);
    std::size_t connectionCount() const { return m_connections.size(); }
    /// On the worker's thread when it starts: scheduling hint, housekeeping timer.
    void onThreadStarted();

private:
    void sweep();

    QTimer *m_timer;
    std::vector<Connection *> m_connections;
};

class IoThreadPool
{
public:
    /// `name` names the threads ("<name>-<n>"). threads >= 1.
    IoThreadPool(const QString &name, int threads, std::chrono::milliseconds sweepInterval);
    ~IoThreadPool();
    IoThreadPool(const IoThreadPool &) = delete;
    IoThreadPool &operator=(const IoThreadPool &) = delete;

    int size() const { return static_cast<int>(m_workers.size()); }
    IoWorker *worker(int index) const { return m_workers[static_cast<std::size_t>(index)]; }
    /// Round robin; thread-safe.
    IoWorker *next();
    /// True when called on one of the pool's threads.
    bool isIoThread() const;
    /// Closes all connections, stops and joins the threads. Not from an I/O thread. Idempotent.
    void stop();

private:
    std::vector<std::unique_ptr<QThread>> m_threads;
    std::vector<IoWorker *> m_workers; // deleted on their threads when those finish
    std::atomic<unsigned> m_next {0};
    bool m_stopped = false;
};

} // namespace qrocket::remoting
