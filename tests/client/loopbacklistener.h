#pragma once

// A listening TCP socket on 127.0.0.1 at a port the kernel picks, for the client tests' fake
// servers (tst_clientfaults, tst_clientframes).

#include <QtGlobal>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace qrocket::clienttest {

/// The listening socket's descriptor (-1 on failure); `port` gets its port.
inline int listenOnLoopback(quint16 &port, int backlog = 8)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0
        || ::listen(fd, backlog) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    port = ntohs(addr.sin_port);
    return fd;
}

} // namespace qrocket::clienttest
