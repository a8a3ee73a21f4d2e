#include "broker/ha/hasocket.h"

#include <QByteArray>

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qrocket::broker::ha {

namespace {

std::int64_t steadyMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

QString errnoText(const char *what)
{
    return QStringLiteral("%1: %2").arg(
        QLatin1String(what), QString::fromLocal8Bit(::strerror(errno)));
}

void setOptions(int fd)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
}

Result<SocketFd> listenTcpOn(quint16 port, const QByteArray &ip, int backlog)
{
    sockaddr_storage addr {};
    socklen_t len = 0;
    auto *in4 = reinterpret_cast<sockaddr_in *>(&addr);
    auto *in6 = reinterpret_cast<sockaddr_in6 *>(&addr);
    if (::inet_pton(AF_INET, ip.constData(), &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        len = sizeof *in4;
    } else if (::inet_pton(AF_INET6, ip.constData(), &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        len = sizeof *in6;
    } else {
        return Status::invalidArgument(
            QStringLiteral("'%1' is not an IP address").arg(QString::fromUtf8(ip)));
    }
    SocketFd fd(::socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.isValid())
        return Status::ioError(errnoText("socket"));
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (addr.ss_family == AF_INET6)
        ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (::bind(fd.get(), reinterpret_cast<const sockaddr *>(&addr), len) != 0)
        return Status::ioError(errnoText("bind"));
    if (::listen(fd.get(), backlog) != 0)
        return Status::ioError(errnoText("listen"));
    return fd;
}

} // namespace

SocketFd &SocketFd::operator=(SocketFd &&o) noexcept
{
    if (this != &o) {
        reset(o.m_fd);
        o.m_fd = -1;
    }
    return *this;
}

void SocketFd::reset(int fd)
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
}

Result<SocketFd> listenTcp(quint16 port, const QByteArray &ip, int backlog)
{
    if (!ip.isEmpty())
        return listenTcpOn(port, ip, backlog);
    // Dual stack like the broker's remoting port (QHostAddress::Any): [::]:port taking IPv4 as
    // v4-mapped addresses; 0.0.0.0:port on a host without IPv6.
    SocketFd fd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    const bool v6 = fd.isValid();
    if (!v6 && errno != EAFNOSUPPORT)
        return Status::ioError(errnoText("socket"));
    if (!v6)
        fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.isValid())
        return Status::ioError(errnoText("socket"));
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc = 0;
    if (v6) {
        const int zero = 0;
        if (::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0)
            return Status::ioError(errnoText("setsockopt(IPV6_V6ONLY)"));
        sockaddr_in6 addr {};
        addr.sin6_family = AF_INET6;
        addr.sin6_port = htons(port);
        addr.sin6_addr = in6addr_any;
        rc = ::bind(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
    } else {
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(port);
        addr.sin_addr.s_addr = htonl(INADDR_ANY);
        rc = ::bind(fd.get(), reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
    }
    if (rc != 0)
        return Status::ioError(errnoText("bind"));
    if (::listen(fd.get(), backlog) != 0)
        return Status::ioError(errnoText("listen"));
    return fd;
}

quint16 localPort(int fd)
{
    sockaddr_storage addr {};
    socklen_t len = sizeof addr;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
        return 0;
    if (addr.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<const sockaddr_in6 *>(&addr)->sin6_port);
    if (addr.ss_family == AF_INET)
        return ntohs(reinterpret_cast<const sockaddr_in *>(&addr)->sin_port);
    return 0;
}

namespace {
QByteArray socketName(int fd, bool peer)
{
    sockaddr_storage addr {};
    socklen_t len = sizeof addr;
    const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr *>(&addr), &len)
                        : ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
    if (rc != 0)
        return QByteArrayLiteral("?");
    char ip[INET6_ADDRSTRLEN] = {};
    if (addr.ss_family == AF_INET) {
        const auto *in = reinterpret_cast<const sockaddr_in *>(&addr);
        ::inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        return QByteArray(ip) + ':' + QByteArray::number(ntohs(in->sin_port));
    }
    if (addr.ss_family != AF_INET6)
        return QByteArrayLiteral("?");
    const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&addr);
    const QByteArray port = QByteArray::number(ntohs(in6->sin6_port));
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) { // an IPv4 peer on the dual-stack socket
        ::inet_ntop(AF_INET, in6->sin6_addr.s6_addr + 12, ip, sizeof ip);
        return QByteArray(ip) + ':' + port;
    }
    ::inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
    return '[' + QByteArray(ip) + "]:" + port;
}
} // namespace

QByteArray peerName(int fd)
{
    return socketName(fd, true);
}

QByteArray localName(int fd)
{
    return socketName(fd, false);
}

void prepareAccepted(int fd)
{
    setOptions(fd);
}

Result<SocketFd> connectTcp(const QByteArray &hostPort, int timeoutMs)
{
    const qsizetype colon = hostPort.lastIndexOf(':');
    bool ok = false;
    const int port = colon > 0 ? hostPort.mid(colon + 1).toInt(&ok) : 0;
    if (!ok || port <= 0 || port > 65535)
        return Status::invalidArgument(
            QStringLiteral("'%1' is not host:port").arg(QString::fromUtf8(hostPort)));
    QByteArray host = hostPort.left(colon);
    if (host.startsWith('[')
        && host.endsWith(']')) // "[::1]:10912"; RocketMQ also takes "::1:10912"
        host = host.mid(1, host.size() - 2);
    addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo *res = nullptr;
    const QByteArray service = QByteArray::number(port);
    if (host.isEmpty() || ::getaddrinfo(host.constData(), service.constData(), &hints, &res) != 0
        || !res)
        return Status::ioError(QStringLiteral("cannot resolve '%1'").arg(QString::fromUtf8(host)));
    sockaddr_storage addr {};
    const socklen_t addrLen
        = static_cast<socklen_t>(std::min<size_t>(res->ai_addrlen, sizeof addr));
    std::memcpy(&addr, res->ai_addr, addrLen);
    const int family = res->ai_family;
    ::freeaddrinfo(res);
    SocketFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.isValid())
        return Status::ioError(errnoText("socket"));
    setOptions(fd.get());
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&addr), addrLen) != 0) {
        if (errno != EINPROGRESS)
            return Status::ioError(errnoText("connect"));
        pollfd p {fd.get(), POLLOUT, 0};
        const int rc = ::poll(&p, 1, timeoutMs);
        if (rc == 0)
            return Status::timeout(QStringLiteral("connect timed out after %1 ms").arg(timeoutMs));
        int err = 0;
        socklen_t len = sizeof err;
        if (rc < 0 || ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            errno = err != 0 ? err : errno;
            return Status::ioError(errnoText("connect"));
        }
    }
    return fd;
}

Status sendAll(int fd, iovec *iov, int iovCount, int timeoutMs, const std::atomic<bool> &abort)
{
    const std::int64_t deadline = steadyMs() + timeoutMs;
    while (iovCount > 0) {
        if (abort.load(std::memory_order_acquire))
            return Status::unavailable(QStringLiteral("connection closed"));
        msghdr msg {};
        msg.msg_iov = iov;
        msg.msg_iovlen = static_cast<size_t>(iovCount);
        const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return Status::ioError(errnoText("send"));
            const std::int64_t left = deadline - steadyMs();
            if (left <= 0)
                return Status::timeout(
                    QStringLiteral("peer took nothing for %1 ms").arg(timeoutMs));
            pollfd p {fd, POLLOUT, 0};
            // Short slices: `abort` is looked at least every 100 ms.
            if (::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 100))) < 0
                && errno != EINTR)
                return Status::ioError(errnoText("poll"));
            continue;
        }
        size_t sent = static_cast<size_t>(n);
        while (iovCount > 0 && sent >= iov->iov_len) {
            sent -= iov->iov_len;
            ++iov;
            --iovCount;
        }
        if (iovCount > 0) {
            iov->iov_base = static_cast<char *>(iov->iov_base) + sent;
            iov->iov_len -= sent;
        }
    }
    return {};
}

int waitReadable(int fd, int timeoutMs)
{
    pollfd p {fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, timeoutMs);
    if (rc < 0)
        return errno == EINTR ? 0 : -1;
    return rc > 0 ? 1 : 0;
}

} // namespace qrocket::broker::ha
