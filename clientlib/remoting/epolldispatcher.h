#pragma once

// EpollEventDispatcher: the event dispatcher of the remoting I/O threads. Internal to the
// remoting module.
//
// Qt's own dispatchers on Linux (glib's main loop, or QEventDispatcherUNIX) build a poll() set
// of every socket notifier on each pass: with 20 connections on a thread that is 20 fd lookups,
// wait-queue insertions and removals in the kernel per wake-up, plus glib's source bookkeeping,
// for what is usually one ready socket. This one keeps the notifiers in an epoll set (changed
// only when a notifier is enabled or disabled) and wakes through an eventfd, so a pass costs one
// epoll_wait() whatever the number of connections.
//
// It implements QAbstractEventDispatcher fully: posted events (QCoreApplication::sendPostedEvents
// on each pass, woken by postEvent's wakeUp()), socket notifiers (read, write, exception; level
// triggered, like poll), timers of every type (millisecond precision on the steady clock),
// interrupt(), and the awake()/aboutToBlock() signals. Not thread-safe except wakeUp() and
// interrupt(), as Qt requires: everything else runs on the thread it is installed on
// (QThread::setEventDispatcher before the thread starts).

#include <QAbstractEventDispatcher>

#include <atomic>
#include <chrono>
#include <vector>

namespace qrocket::remoting {

class EpollEventDispatcher final : public QAbstractEventDispatcher
{
    Q_OBJECT

public:
    explicit EpollEventDispatcher(QObject *parent = nullptr);
    ~EpollEventDispatcher() override;

    /// False when epoll or the eventfd could not be created (the process is out of descriptors);
    /// the caller then keeps Qt's default dispatcher.
    bool isValid() const { return m_epoll >= 0 && m_wakeFd >= 0; }

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;

    void registerSocketNotifier(QSocketNotifier *notifier) override;
    void unregisterSocketNotifier(QSocketNotifier *notifier) override;

    void registerTimer(
        int timerId, qint64 interval, Qt::TimerType timerType, QObject *object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject *object) override;
    QList<TimerInfo> registeredTimers(QObject *object) const override;
    int remainingTime(int timerId) override;

    void wakeUp() override;
    void interrupt() override;

private:
    using Clock = std::chrono::steady_clock;

    struct Timer
    {
        int id;
        qint64 intervalMs;
        Qt::TimerType type;
        QObject *object;
        Clock::time_point due;
    };
    /// The notifiers of one descriptor, indexed by QSocketNotifier::Type (Read, Write,
    /// Exception), and the epoll events registered for them.
    struct FdNotifiers
    {
        QSocketNotifier *byType[3] = {nullptr, nullptr, nullptr};
        quint32 events = 0;
    };

    std::vector<Timer>::iterator findTimer(int timerId);
    void updateEpoll(int fd, FdNotifiers &entry);
    void drainWakeFd();
    /// epoll_wait's timeout: 0 when it must not block, -1 without timers, else ms to the next.
    int waitTimeout(bool canWait, bool includeTimers) const;
    int activateTimers();
    int activateSocketNotifiers();

    int m_epoll = -1;
    int m_wakeFd = -1;
    std::atomic<int> m_wakeUps {0}; // 1 while the eventfd holds an unread wake-up
    std::atomic<bool> m_interrupt {false};
    std::vector<FdNotifiers> m_fds; // indexed by descriptor
    std::vector<Timer> m_timers;
    // Notifiers found ready and not yet activated (nested event loops continue this list);
    // unregistering one blanks its entries.
    std::vector<QSocketNotifier *> m_pending;
    std::size_t m_pendingHead = 0;
};

} // namespace qrocket::remoting
