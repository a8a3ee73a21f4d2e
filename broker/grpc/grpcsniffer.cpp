#include "broker/grpc/grpcsniffer.h"

#include "broker/common/logging.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <list>
#include <mutex>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace qrocket::broker::v2 {

namespace {

using Clock = std::chrono::steady_clock;

/// The content type of a TLS handshake record, the first byte a TLS client sends (a plain gRPC
/// client starts with HTTP/2's preface, "PRI * HTTP/2.0").
constexpr unsigned char kTlsHandshakeRecord = 0x16;
/// What a relay holds per direction (a TLS record is at most 16 KiB + its header).
constexpr std::size_t kRelayBufferBytes = 64 * 1024;
/// How long the listener rests after accept() fails for want of descriptors.
constexpr int kAcceptPauseMs = 100;

/// gRPC's own peer syntax: "ipv4:1.2.3.4:5", "ipv6:[::1]:5" (an IPv4-mapped address as ipv4).
std::string peerName(const sockaddr_storage &a)
{
    char host[INET6_ADDRSTRLEN] = {};
    if (a.ss_family == AF_INET) {
        const auto *in = reinterpret_cast<const sockaddr_in *>(&a);
        ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        return std::string("ipv4:") + host + ':' + std::to_string(ntohs(in->sin_port));
    }
    if (a.ss_family == AF_INET6) {
        const auto *in6 = reinterpret_cast<const sockaddr_in6 *>(&a);
        const int port = ntohs(in6->sin6_port);
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            ::inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], host, sizeof host);
            return std::string("ipv4:") + host + ':' + std::to_string(port);
        }
        ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        return std::string("ipv6:[") + host + "]:" + std::to_string(port);
    }
    return "unknown";
}

std::string localName(int fd)
{
    sockaddr_storage a {};
    socklen_t len = sizeof a;
    if (::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) != 0)
        return {};
    return peerName(a);
}

void setNoDelay(int fd)
{
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

} // namespace

struct GrpcPortSniffer::Loop
{
    enum class Kind { Listener, Wake, Pending, Relay };
    struct Handle
    {
        Kind kind;
        void *owner = nullptr;
        int side = 0;
    };
    struct Pending
    {
        int fd = -1;
        Clock::time_point deadline;
        std::string peer;
        Handle handle {Kind::Pending};
        bool dead = false;
    };
    struct Relay
    {
        int fd[2] = {-1, -1}; // 0: the client, 1: the connection to gRPC's TLS listener
        std::vector<char> buf[2]; // buf[i]: read from fd[i], to write to fd[1 - i]
        std::size_t head[2] = {0, 0}; // written from buf[i] already
        std::size_t len[2] = {0, 0}; // filled in buf[i]
        bool eof[2] = {false, false}; // fd[i] has read its peer's end
        bool shut[2] = {false, false}; // fd[i] is shut for writing
        std::uint32_t events[2] = {0, 0}; // registered with epoll
        bool connecting = true; // fd[1]'s connect() has not completed
        std::string key; // gRPC's name for fd[1] (GrpcPeers)
        Handle handle[2] = {{Kind::Relay}, {Kind::Relay}};
        bool dead = false;
    };

    Loop(GrpcPortSniffer &owner) : o(owner) { }

    GrpcPortSniffer &o;
    int epfd = -1;
    int wakeFd = -1;
    int listenFd = -1;
    grpc::Server *server = nullptr;
    int tlsPort = 0;
    std::thread thread;
    std::list<Pending> pending;
    std::list<Relay> relays;
    Handle listener {Kind::Listener};
    Handle wake {Kind::Wake};
    bool listenerPaused = false;
    Clock::time_point resumeAt;

    std::mutex mutex;
    std::condition_variable acked;
    int stage = 0; // guarded by mutex: 0 serving, 1 accepting stopped, 2 ending
    int doneStage = 0; // guarded by mutex: the stage the thread has carried out

    void run();
    int timeoutMs() const;
    void acceptAll();
    void sniff(Pending &p);
    void dropPending(Pending &p);
    void startRelay(int clientFd, const std::string &peer);
    void pump(Relay &r, std::uint32_t events, int side);
    bool pumpOnce(Relay &r);
    void updateInterest(Relay &r);
    void closeRelay(Relay &r);
    void sweep();
};

GrpcPortSniffer::GrpcPortSniffer(GrpcSnifferOptions options, GrpcPeers &peers)
    : m_options(std::move(options)), m_peers(peers)
{ }

GrpcPortSniffer::~GrpcPortSniffer()
{
    stop();
}

Status GrpcPortSniffer::listen()
{
    addrinfo hints {};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    const std::string port = std::to_string(m_options.port);
    QByteArray host = m_options.bindHost;
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    addrinfo *found = nullptr;
    if (const int rc
        = ::getaddrinfo(host.isEmpty() ? nullptr : host.constData(), port.c_str(), &hints, &found);
        rc != 0)
        return Status::ioError(QStringLiteral("gRPC port: cannot resolve %1: %2")
                                   .arg(QString::fromLatin1(m_options.bindHost),
                                       QString::fromLocal8Bit(::gai_strerror(rc))));
    int err = 0;
    for (addrinfo *a = found; a && m_listenFd < 0; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        const int one = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
            err = errno;
            ::close(fd);
            continue;
        }
        m_listenFd = fd;
    }
    ::freeaddrinfo(found);
    if (m_listenFd < 0)
        return Status::ioError(QStringLiteral("gRPC port: cannot listen on %1:%2: %3")
                                   .arg(QString::fromLatin1(m_options.bindHost))
                                   .arg(m_options.port)
                                   .arg(QString::fromLocal8Bit(std::strerror(err))));
    sockaddr_storage bound {};
    socklen_t len = sizeof bound;
    ::getsockname(m_listenFd, reinterpret_cast<sockaddr *>(&bound), &len);
    m_port = bound.ss_family == AF_INET6
        ? ntohs(reinterpret_cast<const sockaddr_in6 *>(&bound)->sin6_port)
        : ntohs(reinterpret_cast<const sockaddr_in *>(&bound)->sin_port);
    return Status::ok();
}

void GrpcPortSniffer::start(grpc::Server *server, int tlsPort)
{
    if (m_loop || m_listenFd < 0)
        return;
    m_loop = std::make_unique<Loop>(*this);
    Loop &l = *m_loop;
    l.server = server;
    l.tlsPort = tlsPort;
    l.epfd = ::epoll_create1(EPOLL_CLOEXEC);
    l.wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    l.listenFd = std::exchange(m_listenFd, -1);
    epoll_event ev {};
    ev.events = EPOLLIN;
    ev.data.ptr = &l.listener;
    ::epoll_ctl(l.epfd, EPOLL_CTL_ADD, l.listenFd, &ev);
    ev.data.ptr = &l.wake;
    ::epoll_ctl(l.epfd, EPOLL_CTL_ADD, l.wakeFd, &ev);
    l.thread = std::thread([&l] { l.run(); });
}

void GrpcPortSniffer::stopAccepting()
{
    if (!m_loop) {
        closeFd(m_listenFd);
        return;
    }
    Loop &l = *m_loop;
    std::unique_lock lock(l.mutex);
    l.stage = std::max(l.stage, 1);
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(l.wakeFd, &one, sizeof one);
    l.acked.wait(lock, [&l] { return l.doneStage >= 1; });
}

void GrpcPortSniffer::stop()
{
    closeFd(m_listenFd);
    if (!m_loop)
        return;
    Loop &l = *m_loop;
    {
        std::lock_guard lock(l.mutex);
        l.stage = 2;
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(l.wakeFd, &one, sizeof one);
    if (l.thread.joinable())
        l.thread.join();
    closeFd(l.wakeFd);
    closeFd(l.epfd);
    m_loop.reset();
}

int GrpcPortSniffer::Loop::timeoutMs() const
{
    Clock::time_point next = Clock::time_point::max();
    for (const Pending &p : pending)
        if (!p.dead) {
            next = p.deadline; // the oldest: every wait is as long
            break;
        }
    if (listenerPaused)
        next = std::min(next, resumeAt);
    if (next == Clock::time_point::max())
        return -1;
    const auto ms
        = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    return int(std::clamp<long long>(ms + 1, 0, 60000));
}

void GrpcPortSniffer::Loop::run()
{
    std::vector<epoll_event> events(64);
    int seenStage = 0;
    for (;;) {
        const int n = ::epoll_wait(epfd, events.data(), int(events.size()), timeoutMs());
        if (n < 0 && errno != EINTR) {
            qCWarning(lcBroker, "gRPC port: epoll_wait: %s", std::strerror(errno));
            break;
        }
        for (int i = 0; i < n; ++i) {
            auto *h = static_cast<Handle *>(events[i].data.ptr);
            switch (h->kind) {
            case Kind::Listener:
                acceptAll();
                break;
            case Kind::Wake: {
                std::uint64_t v = 0;
                [[maybe_unused]] const ssize_t r = ::read(wakeFd, &v, sizeof v);
                break;
            }
            case Kind::Pending:
                if (auto *p = static_cast<Pending *>(h->owner); !p->dead)
                    sniff(*p);
                break;
            case Kind::Relay:
                if (auto *r = static_cast<Relay *>(h->owner); !r->dead)
                    pump(*r, events[i].events, h->side);
                break;
            }
        }
        const Clock::time_point now = Clock::now();
        for (Pending &p : pending) {
            if (p.dead)
                continue;
            if (p.deadline > now)
                break;
            o.m_counters.timedOut.fetch_add(1, std::memory_order_relaxed);
            dropPending(p);
        }
        if (listenerPaused && now >= resumeAt && listenFd >= 0) {
            listenerPaused = false;
            epoll_event ev {};
            ev.events = EPOLLIN;
            ev.data.ptr = &listener;
            ::epoll_ctl(epfd, EPOLL_CTL_MOD, listenFd, &ev);
        }
        int want = 0;
        {
            std::lock_guard lock(mutex);
            want = stage;
        }
        if (want >= 1 && seenStage < 1) {
            // No connection reaches the server from here on.
            ::epoll_ctl(epfd, EPOLL_CTL_DEL, listenFd, nullptr);
            closeFd(listenFd);
            for (Pending &p : pending)
                if (!p.dead)
                    dropPending(p);
            seenStage = 1;
        }
        if (want >= 2) {
            for (Relay &r : relays)
                if (!r.dead)
                    closeRelay(r);
            sweep();
            break;
        }
        sweep();
        if (seenStage >= 1) {
            std::lock_guard lock(mutex);
            if (doneStage < 1) {
                doneStage = 1;
                acked.notify_all();
            }
        }
    }
    closeFd(listenFd);
    for (Pending &p : pending)
        if (!p.dead)
            dropPending(p);
    for (Relay &r : relays)
        if (!r.dead)
            closeRelay(r);
    sweep();
    std::lock_guard lock(mutex);
    doneStage = 2;
    acked.notify_all();
}

void GrpcPortSniffer::Loop::acceptAll()
{
    for (;;) {
        sockaddr_storage from {};
        socklen_t len = sizeof from;
        const int fd = ::accept4(
            listenFd, reinterpret_cast<sockaddr *>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                // EMFILE and the like: rest, or the level-triggered listener spins.
                static std::atomic<std::int64_t> lastLog {0};
                const std::int64_t s = std::chrono::duration_cast<std::chrono::seconds>(
                    Clock::now().time_since_epoch())
                                           .count();
                if (lastLog.exchange(s) != s)
                    qCWarning(lcBroker, "gRPC port: accept: %s", std::strerror(errno));
                listenerPaused = true;
                resumeAt = Clock::now() + std::chrono::milliseconds(kAcceptPauseMs);
                epoll_event ev {};
                ev.data.ptr = &listener;
                ::epoll_ctl(epfd, EPOLL_CTL_MOD, listenFd, &ev);
            }
            return;
        }
        o.m_counters.accepted.fetch_add(1, std::memory_order_relaxed);
        setNoDelay(fd);
        // The cap: the connection that has waited longest makes room.
        if (o.m_counters.pending.load(std::memory_order_relaxed) >= o.m_options.maxPending) {
            for (Pending &p : pending)
                if (!p.dead) {
                    o.m_counters.evicted.fetch_add(1, std::memory_order_relaxed);
                    dropPending(p);
                    break;
                }
        }
        Pending &p = pending.emplace_back();
        p.fd = fd;
        p.peer = peerName(from);
        p.deadline = Clock::now() + std::chrono::milliseconds(o.m_options.sniffTimeoutMs);
        p.handle.owner = &p;
        epoll_event ev {};
        ev.events = EPOLLIN;
        ev.data.ptr = &p.handle;
        ::epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
        o.m_counters.pending.fetch_add(1, std::memory_order_relaxed);
    }
}

void GrpcPortSniffer::Loop::dropPending(Pending &p)
{
    ::epoll_ctl(epfd, EPOLL_CTL_DEL, p.fd, nullptr);
    closeFd(p.fd);
    p.dead = true;
    o.m_counters.pending.fetch_sub(1, std::memory_order_relaxed);
}

void GrpcPortSniffer::Loop::sniff(Pending &p)
{
    unsigned char first = 0;
    ssize_t got = 0;
    do {
        got = ::recv(p.fd, &first, 1, MSG_PEEK | MSG_DONTWAIT);
    } while (got < 0 && errno == EINTR);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (got <= 0) {
        o.m_counters.closedEarly.fetch_add(1, std::memory_order_relaxed);
        dropPending(p);
        return;
    }
    ::epoll_ctl(epfd, EPOLL_CTL_DEL, p.fd, nullptr);
    const int fd = std::exchange(p.fd, -1);
    p.dead = true;
    o.m_counters.pending.fetch_sub(1, std::memory_order_relaxed);
    if (first == kTlsHandshakeRecord) {
        o.m_counters.tls.fetch_add(1, std::memory_order_relaxed);
        startRelay(fd, p.peer);
        return;
    }
    // gRPC calls this caller "fd:N" from now on; the name is set before its first request.
    o.m_counters.plain.fetch_add(1, std::memory_order_relaxed);
    o.m_peers.set("fd:" + std::to_string(fd), p.peer);
    grpc::AddInsecureChannelFromFd(server, fd);
}

void GrpcPortSniffer::Loop::startRelay(int clientFd, const std::string &peer)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        ::close(clientFd);
        return;
    }
    setNoDelay(fd);
    sockaddr_in to {};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    to.sin_port = htons(quint16(tlsPort));
    const int rc = ::connect(fd, reinterpret_cast<const sockaddr *>(&to), sizeof to);
    if (rc != 0 && errno != EINPROGRESS) {
        qCWarning(lcBroker, "gRPC port: cannot reach the TLS listener: %s", std::strerror(errno));
        ::close(fd);
        ::close(clientFd);
        return;
    }
    Relay &r = relays.emplace_back();
    r.fd[0] = clientFd;
    r.fd[1] = fd;
    r.connecting = rc != 0;
    r.key = localName(fd);
    for (int side : {0, 1}) {
        r.buf[side].resize(kRelayBufferBytes);
        r.handle[side].owner = &r;
        r.handle[side].side = side;
        epoll_event ev {};
        ev.data.ptr = &r.handle[side];
        ::epoll_ctl(epfd, EPOLL_CTL_ADD, r.fd[side], &ev);
    }
    o.m_peers.set(r.key, peer);
    o.m_counters.relays.fetch_add(1, std::memory_order_relaxed);
    pump(r, 0, 0);
}

bool GrpcPortSniffer::Loop::pumpOnce(Relay &r)
{
    bool progressed = false;
    for (int i : {0, 1}) {
        const int from = r.fd[i];
        const int to = r.fd[1 - i];
        if (!r.eof[i] && r.len[i] < r.buf[i].size() && !(i == 1 && r.connecting)) {
            const ssize_t n = ::recv(
                from, r.buf[i].data() + r.len[i], r.buf[i].size() - r.len[i], MSG_DONTWAIT);
            if (n > 0) {
                r.len[i] += std::size_t(n);
                progressed = true;
            } else if (n == 0) {
                r.eof[i] = true;
                progressed = true;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closeRelay(r);
                return false;
            }
        }
        if (!r.connecting && r.head[i] < r.len[i]) {
            const ssize_t n = ::send(
                to, r.buf[i].data() + r.head[i], r.len[i] - r.head[i], MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n > 0) {
                r.head[i] += std::size_t(n);
                if (r.head[i] == r.len[i])
                    r.head[i] = r.len[i] = 0;
                progressed = true;
            } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                closeRelay(r);
                return false;
            }
        }
        if (r.eof[i] && r.len[i] == 0 && !r.shut[1 - i] && !r.connecting) {
            ::shutdown(to, SHUT_WR);
            r.shut[1 - i] = true;
            progressed = true;
        }
    }
    return progressed;
}

void GrpcPortSniffer::Loop::pump(Relay &r, std::uint32_t events, int side)
{
    if (r.connecting && side == 1 && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(r.fd[1], SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            qCWarning(lcBroker, "gRPC port: cannot reach the TLS listener: %s", std::strerror(err));
            closeRelay(r);
            return;
        }
        r.connecting = false;
        events &= ~std::uint32_t(EPOLLOUT | EPOLLHUP | EPOLLERR);
    }
    // A few rounds while data moves (a read may make a write possible and back).
    for (int round = 0; round < 4 && !r.dead; ++round)
        if (!pumpOnce(r))
            break;
    if (r.dead)
        return;
    // Both ways ended, or a side is gone (reset, or shut both ways): the connection is over;
    // what is still buffered for a gone side cannot be delivered.
    const bool over = r.eof[0] && r.eof[1] && r.len[0] == 0 && r.len[1] == 0;
    if (over || (events & (EPOLLERR | EPOLLHUP))) {
        closeRelay(r);
        return;
    }
    updateInterest(r);
}

void GrpcPortSniffer::Loop::updateInterest(Relay &r)
{
    for (int i : {0, 1}) {
        std::uint32_t want = 0;
        if (!r.eof[i] && r.len[i] < r.buf[i].size() && !(i == 1 && r.connecting))
            want |= EPOLLIN;
        if (i == 1 && r.connecting)
            want |= EPOLLOUT;
        else if (!r.connecting && r.head[1 - i] < r.len[1 - i])
            want |= EPOLLOUT;
        if (want != r.events[i]) {
            epoll_event ev {};
            ev.events = want;
            ev.data.ptr = &r.handle[i];
            ::epoll_ctl(epfd, EPOLL_CTL_MOD, r.fd[i], &ev);
            r.events[i] = want;
        }
    }
}

void GrpcPortSniffer::Loop::closeRelay(Relay &r)
{
    for (int &fd : r.fd) {
        if (fd >= 0)
            ::epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr);
        closeFd(fd);
    }
    o.m_peers.erase(r.key);
    r.dead = true;
    o.m_counters.relays.fetch_sub(1, std::memory_order_relaxed);
}

void GrpcPortSniffer::Loop::sweep()
{
    pending.remove_if([](const Pending &p) { return p.dead; });
    relays.remove_if([](const Relay &r) { return r.dead; });
}

} // namespace qrocket::broker::v2
