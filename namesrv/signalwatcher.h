#pragma once

// SignalWatcher: turns Unix signals (SIGTERM, SIGINT...) into a Qt signal on the thread that owns
// the watcher. The handler only write()s the signal number to a socketpair (async-signal-safe); a
// QSocketNotifier on the other end emits received() from the event loop.
//
// One watcher per process (the handler uses a process-wide descriptor). Destroying it restores
// the default dispositions.

#include <QObject>

#include <initializer_list>
#include <vector>

class QSocketNotifier;

namespace qrocket::namesrv {

class SignalWatcher : public QObject
{
    Q_OBJECT

public:
    explicit SignalWatcher(std::initializer_list<int> signalNumbers, QObject *parent = nullptr);
    ~SignalWatcher() override;
    bool isValid() const { return m_notifier != nullptr; }

signals:
    void received(int signalNumber);

private:
    void readPending();

    std::vector<int> m_signals;
    int m_fds[2] = {-1, -1};
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace qrocket::namesrv
