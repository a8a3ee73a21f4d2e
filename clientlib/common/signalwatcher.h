#pragma once

// SignalWatcher: Unix signals (SIGTERM, SIGINT) as a Qt signal on the owning thread (style.md §2):
// the handler only write()s the signal number to a socketpair; a QSocketNotifier on the other end
// emits received() from the event loop. One watcher per process; destroying it restores the
// default dispositions. Used by both daemons' main().

#include <QObject>

#include <initializer_list>
#include <vector>

class QSocketNotifier;

namespace qrocket {

class SignalWatcher final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SignalWatcher)

public:
    explicit SignalWatcher(std::initializer_list<int> signalNumbers, QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    void received(int signalNumber);

private:
    void readPending();

    std::vector<int> m_signals;
    int m_fds[2] = {-1, -1};
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace qrocket
