#include "clientlib/common/signalwatcher.h"

#include "clientlib/common/logging.h"

#include <QSocketNotifier>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qrocket {

namespace {

volatile std::sig_atomic_t g_signalFd = -1;

extern "C" void qrocketSignalHandler(int signalNumber)
{
    const int savedErrno = errno;
    const char byte = static_cast<char>(signalNumber);
    if (g_signalFd >= 0)
        static_cast<void>(::write(g_signalFd, &byte, 1));
    errno = savedErrno;
}

} // namespace

SignalWatcher::SignalWatcher(std::initializer_list<int> signalNumbers, QObject *parent)
    : QObject(parent), m_signals(signalNumbers)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, m_fds) != 0) {
        qCWarning(lcCommon) << "socketpair failed, signals are not handled:"
                            << std::strerror(errno);
        return;
    }
    g_signalFd = m_fds[0];
    m_notifier = new QSocketNotifier(m_fds[1], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &SignalWatcher::readPending);
    struct sigaction sa = {};
    sa.sa_handler = &qrocketSignalHandler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (const int s : m_signals)
        ::sigaction(s, &sa, nullptr);
}

SignalWatcher::~SignalWatcher()
{
    for (const int s : m_signals)
        ::signal(s, SIG_DFL);
    g_signalFd = -1;
    delete m_notifier;
    for (int &fd : m_fds) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

void SignalWatcher::readPending()
{
    char buf[16];
    for (;;) {
        const ssize_t n = ::read(m_fds[1], buf, sizeof buf);
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; ++i)
            Q_EMIT received(static_cast<unsigned char>(buf[i]));
    }
}

} // namespace qrocket
