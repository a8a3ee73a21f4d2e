#include "clientlib/remoting/epolldispatcher.h"

#include "clientlib/common/tsanannotations.h"
#include "clientlib/remoting/logging.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QTimerEvent>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace qrocket::remoting {

namespace {

constexpr int kMaxEvents = 64;

quint32 epollBits(QSocketNotifier::Type type)
{
    switch (type) {
    case QSocketNotifier::Read:
        return EPOLLIN;
    case QSocketNotifier::Write:
        return EPOLLOUT;
    case QSocketNotifier::Exception:
        return EPOLLPRI;
    }
    return 0;
}

/// Which notifier types a ready descriptor activates. Errors and hang-ups wake readers and
/// writers alike (as poll does), so each learns of them from its own read or write.
bool wakes(QSocketNotifier::Type type, quint32 ready)
{
    switch (type) {
    case QSocketNotifier::Read:
        return ready & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP);
    case QSocketNotifier::Write:
        return ready & (EPOLLOUT | EPOLLHUP | EPOLLERR);
    case QSocketNotifier::Exception:
        return ready & EPOLLPRI;
    }
    return false;
}

} // namespace

EpollEventDispatcher::EpollEventDispatcher(QObject *parent) : QAbstractEventDispatcher(parent)
{
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (m_epoll < 0 || m_wakeFd < 0) {
        qCWarning(lcRemoting, "epoll event dispatcher unavailable: %s", std::strerror(errno));
        return;
    }
    epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.fd = m_wakeFd;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_wakeFd, &ev) != 0) {
        qCWarning(lcRemoting, "epoll event dispatcher unavailable: %s", std::strerror(errno));
        ::close(m_wakeFd);
        m_wakeFd = -1;
    }
}

EpollEventDispatcher::~EpollEventDispatcher()
{
    // QThread::exit() calls interrupt() under the thread's mutex, which the finishing thread
    // takes before it deletes its dispatcher; TSan cannot see that (uninstrumented) mutex.
    tsanAcquire(this);
    if (m_wakeFd >= 0)
        ::close(m_wakeFd);
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool EpollEventDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
    m_interrupt.store(false, std::memory_order_relaxed);
    emit awake();
    QCoreApplication::sendPostedEvents();

    const bool includeTimers = !(flags & QEventLoop::X11ExcludeTimers);
    const bool includeNotifiers = !(flags & QEventLoop::ExcludeSocketNotifiers);
    // Events posted while the ones above ran (or from other threads since) left a wake-up in
    // the eventfd, so blocking below returns at once for them: no need to ask Qt's thread data.
    const bool canWait = (flags & QEventLoop::WaitForMoreEvents)
        && !m_interrupt.load(std::memory_order_relaxed) && includeNotifiers;
    if (canWait)
        emit aboutToBlock();
    if (m_interrupt.load(std::memory_order_relaxed))
        return false;

    epoll_event events[kMaxEvents];
    int n = ::epoll_wait(m_epoll, events, kMaxEvents, waitTimeout(canWait, includeTimers));
    if (n < 0) {
        if (errno != EINTR)
            qCWarning(lcRemoting, "epoll_wait: %s", std::strerror(errno));
        n = 0;
    }
    int activated = 0;
    for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == m_wakeFd) {
            drainWakeFd();
            continue;
        }
        if (!includeNotifiers || fd < 0 || static_cast<std::size_t>(fd) >= m_fds.size())
            continue; // level triggered: an excluded descriptor reports again next pass
        for (QSocketNotifier *notifier : m_fds[static_cast<std::size_t>(fd)].byType) {
            if (notifier && wakes(notifier->type(), events[i].events))
                m_pending.push_back(notifier);
        }
    }
    if (includeNotifiers)
        activated += activateSocketNotifiers();
    if (includeTimers)
        activated += activateTimers();
    return activated > 0;
}

int EpollEventDispatcher::activateSocketNotifiers()
{
    int activated = 0;
    while (m_pendingHead < m_pending.size()) {
        QSocketNotifier *notifier = std::exchange(m_pending[m_pendingHead++], nullptr);
        if (!notifier)
            continue; // unregistered by an earlier activation
        QEvent event(QEvent::SockAct);
        QCoreApplication::sendEvent(notifier, &event);
        ++activated;
    }
    m_pending.clear();
    m_pendingHead = 0;
    return activated;
}

void EpollEventDispatcher::drainWakeFd()
{
    eventfd_t value = 0;
    (void)::eventfd_read(m_wakeFd, &value);
    // After the read: a wakeUp() from now on writes again, and the events it announces are
    // posted before it, so this pass's caller (the next sendPostedEvents) or the next write
    // covers them.
    m_wakeUps.store(0, std::memory_order_release);
}

void EpollEventDispatcher::wakeUp()
{
    int expected = 0;
    if (m_wakeUps.compare_exchange_strong(expected, 1, std::memory_order_acq_rel))
        (void)::eventfd_write(m_wakeFd, 1);
}

void EpollEventDispatcher::interrupt()
{
    m_interrupt.store(true, std::memory_order_relaxed);
    wakeUp();
    tsanRelease(this);
}

void EpollEventDispatcher::registerSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = static_cast<int>(notifier->socket());
    const int type = static_cast<int>(notifier->type());
    if (fd < 0 || type < 0 || type > 2)
        return;
    if (static_cast<std::size_t>(fd) >= m_fds.size())
        m_fds.resize(static_cast<std::size_t>(fd) + 1);
    FdNotifiers &entry = m_fds[static_cast<std::size_t>(fd)];
    if (entry.byType[type] && entry.byType[type] != notifier)
        qCWarning(
            lcRemoting, "socket notifier: descriptor %d already has one of type %d", fd, type);
    entry.byType[type] = notifier;
    updateEpoll(fd, entry);
}

void EpollEventDispatcher::unregisterSocketNotifier(QSocketNotifier *notifier)
{
    std::replace(m_pending.begin() + static_cast<std::ptrdiff_t>(m_pendingHead), m_pending.end(),
        notifier, static_cast<QSocketNotifier *>(nullptr));
    const int fd = static_cast<int>(notifier->socket());
    const int type = static_cast<int>(notifier->type());
    if (fd < 0 || static_cast<std::size_t>(fd) >= m_fds.size() || type < 0 || type > 2)
        return;
    FdNotifiers &entry = m_fds[static_cast<std::size_t>(fd)];
    if (entry.byType[type] != notifier)
        return;
    entry.byType[type] = nullptr;
    updateEpoll(fd, entry);
}

void EpollEventDispatcher::updateEpoll(int fd, FdNotifiers &entry)
{
    quint32 wanted = 0;
    for (QSocketNotifier *notifier : entry.byType)
        if (notifier)
            wanted |= epollBits(notifier->type());
    if (wanted == entry.events)
        return;
    epoll_event ev {};
    ev.events = wanted;
    ev.data.fd = fd;
    int rc = 0;
    if (wanted == 0) {
        // The descriptor may be closed already (the kernel then dropped it from the set).
        rc = ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, &ev);
        if (rc != 0 && (errno == EBADF || errno == ENOENT))
            rc = 0;
    } else {
        // A descriptor number the set still holds (MOD) or one closed and reused since (ADD).
        rc = ::epoll_ctl(m_epoll, entry.events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
        if (rc != 0 && errno == ENOENT)
            rc = ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
        else if (rc != 0 && errno == EEXIST)
            rc = ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &ev);
    }
    if (rc != 0) {
        qCWarning(lcRemoting, "epoll_ctl on descriptor %d: %s", fd, std::strerror(errno));
        return;
    }
    entry.events = wanted;
}

void EpollEventDispatcher::registerTimer(
    int timerId, qint64 interval, Qt::TimerType timerType, QObject *object)
{
    if (timerId <= 0 || interval < 0 || !object)
        return;
    m_timers.push_back(
        {timerId, interval, timerType, object, Clock::now() + std::chrono::milliseconds(interval)});
}

std::vector<EpollEventDispatcher::Timer>::iterator EpollEventDispatcher::findTimer(int timerId)
{
    return std::find_if(
        m_timers.begin(), m_timers.end(), [timerId](const Timer &t) { return t.id == timerId; });
}

bool EpollEventDispatcher::unregisterTimer(int timerId)
{
    const auto it = findTimer(timerId);
    if (it == m_timers.end())
        return false;
    m_timers.erase(it);
    return true;
}

bool EpollEventDispatcher::unregisterTimers(QObject *object)
{
    const auto before = m_timers.size();
    std::erase_if(m_timers, [object](const Timer &t) { return t.object == object; });
    return m_timers.size() != before;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollEventDispatcher::registeredTimers(
    QObject *object) const
{
    QList<TimerInfo> list;
    for (const Timer &t : m_timers)
        if (t.object == object)
            list.append(TimerInfo(t.id, static_cast<int>(t.intervalMs), t.type));
    return list;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    const auto it = findTimer(timerId);
    if (it == m_timers.end())
        return -1;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(it->due - Clock::now()).count();
    return static_cast<int>(std::max<qint64>(left, 0));
}

int EpollEventDispatcher::waitTimeout(bool canWait, bool includeTimers) const
{
    if (!canWait)
        return 0;
    if (!includeTimers || m_timers.empty())
        return -1;
    Clock::time_point next = Clock::time_point::max();
    for (const Timer &t : m_timers)
        next = std::min(next, t.due);
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
    return static_cast<int>(std::clamp<qint64>(left, 0, 24 * 3600 * 1000));
}

int EpollEventDispatcher::activateTimers()
{
    if (m_timers.empty())
        return 0;
    const Clock::time_point now = Clock::now();
    // Collect first: handlers register and unregister timers (single shots kill themselves).
    std::vector<int> due;
    for (const Timer &t : m_timers)
        if (t.due <= now)
            due.push_back(t.id);
    int activated = 0;
    for (const int id : due) {
        const auto it = findTimer(id);
        if (it == m_timers.end() || it->due > now)
            continue; // unregistered, or re-registered, by an earlier handler
        // Rescheduled before the event: a nested event loop in the handler must not fire it
        // again at once. A timer that fell behind skips the missed beats instead of bursting.
        const auto interval = std::chrono::milliseconds(it->intervalMs);
        it->due += interval;
        if (it->due <= now)
            it->due = now + interval;
        QObject *object = it->object;
        QTimerEvent event(id);
        QCoreApplication::sendEvent(object, &event);
        ++activated;
    }
    return activated;
}

} // namespace qrocket::remoting
