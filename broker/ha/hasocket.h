#pragma once

// Small POSIX socket helpers of the HA stream (broker/ha only): non-blocking TCP descriptors
// driven by poll() with bounded waits, so that no peer can block a thread for longer than the
// caller allows. Nothing here allocates per call.

#include "clientlib/common/result.h"

#include <QByteArray>

#include <atomic>
#include <cstdint>
#include <sys/uio.h>

namespace qrocket::broker::ha {

/// Owns a descriptor; closes it on destruction.
class SocketFd
{
public:
    SocketFd() = default;
    explicit SocketFd(int fd) : m_fd(fd) { }
    ~SocketFd() { reset(); }
    SocketFd(SocketFd &&o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
    SocketFd &operator=(SocketFd &&o) noexcept;
    SocketFd(const SocketFd &) = delete;
    SocketFd &operator=(const SocketFd &) = delete;

    int get() const { return m_fd; }
    bool isValid() const { return m_fd >= 0; }
    void reset(int fd = -1);
    /// Gives the descriptor up (the caller closes it).
    int release()
    {
        const int fd = m_fd;
        m_fd = -1;
        return fd;
    }

private:
    int m_fd = -1;
};

/// A listening socket on every address, dual stack as the broker's remoting port: [::]:port
/// with IPv4 peers as v4-mapped addresses, or 0.0.0.0:port on a host without IPv6 (0: any free
/// port); non-blocking, SO_REUSEADDR. With `ip` (a numeric IPv4 or IPv6 address), a socket of
/// that family bound to it only.
Result<SocketFd> listenTcp(quint16 port, const QByteArray &ip = {}, int backlog = 128);
/// The local port of a bound socket.
quint16 localPort(int fd);
/// "ip:port" of the peer ("[v6]:port" for an IPv6 one; a v4-mapped peer prints as IPv4).
QByteArray peerName(int fd);
/// "ip:port" of this end, in peerName()'s form (what the peer's peerName() prints).
QByteArray localName(int fd);
/// Connects to "host:port" (an IPv4 or IPv6 address, "[v6]:port", or a resolvable name; the
/// first address it resolves to) within `timeoutMs`; the
/// socket is non-blocking, TCP_NODELAY.
Result<SocketFd> connectTcp(const QByteArray &hostPort, int timeoutMs);
/// Sets O_NONBLOCK, TCP_NODELAY and keep-alive on an accepted socket.
void prepareAccepted(int fd);

/// Sends every byte of `iov` (advanced in place), waiting for the socket at most `timeoutMs`
/// in total and giving up early when `abort` becomes true. IoError/Timeout otherwise.
Status sendAll(int fd, iovec *iov, int iovCount, int timeoutMs, const std::atomic<bool> &abort);

/// Waits up to `timeoutMs` for `fd` to become readable: 1 readable (or hung up), 0 timeout,
/// -1 error.
int waitReadable(int fd, int timeoutMs);

} // namespace qrocket::broker::ha
