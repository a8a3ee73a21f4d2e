#pragma once

// The load generator of qrocket-bench-broker and the raw floor it is measured against: one epoll
// thread drives every connection with pre-encoded JSON frames (as RocketMQ clients send them),
// patching only the opaque, and matches each answer by its opaque; FloorServer answers the same
// frames at once with a valid SEND_OK, decoding nothing but the opaque. Header-only: main.cpp is
// its one user.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/remotingcommand.h"

#include <QtGlobal>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace qrocket::bench {

using Clock = std::chrono::steady_clock;
using protocol::RemotingCommand;
/// Queues of the bench topic: connection c sends to queue c % kQueues.
inline constexpr int kQueues = 4;
/// Opaques are kOpaqueBase + slot: always 10 digits, so a slot is patched in place in the JSON.
inline constexpr int kOpaqueBase = 1000000000;

struct Figures
{
    double msgsPerSecond = 0;
    double mbPerSecond = 0;
    std::vector<std::int64_t> latencyNs; // sorted
    // Open loop: each request's round trip, from the moment the generator wrote it to its answer
    // (sorted; empty for closed-loop rows, where it equals latencyNs). latencyNs adds how late
    // the generator wrote it; this is what a synchronous send() call takes, the "send RT" of
    // RocketMQ's own benchmark.
    std::vector<std::int64_t> roundTripNs;
    // Open loop: how late the generator itself issued the p99 request (its own scheduling delay,
    // part of each latency above), -1 for closed-loop rows.
    double issueLagP99Us = -1;
    // Share of the machine's CPU time the hypervisor gave to other guests during the row
    // ("steal" in /proc/stat), -1 where unreadable. This VM shares its host: when steal is high,
    // every figure of the row (floors included) is the host's, not QRocket's.
    double stealPercent = -1;
    // Share of the machine's CPU time that was busy during the row (user, system, interrupts;
    // not idle, I/O wait or steal), -1 where unreadable: the client, the broker and everything
    // else on this machine together. An open-loop row's tail bends upward as this nears 100 %,
    // so it tells how much room a rate left (the floors' rows show what the kernel and the
    // generator take by themselves).
    double busyPercent = -1;
    int errors = 0;
    bool failed = false;
};

/// Aggregate CPU ticks from /proc/stat: idle (with I/O wait), steal and the total of all states.
struct CpuTicks
{
    std::uint64_t idle = 0;
    std::uint64_t steal = 0;
    std::uint64_t total = 0;
};

inline CpuTicks readCpuTicks()
{
    CpuTicks t;
    std::FILE *f = std::fopen("/proc/stat", "re");
    if (!f)
        return t;
    unsigned long long v[8] = {};
    if (std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
            &v[4], &v[5], &v[6], &v[7])
        == 8) {
        for (const unsigned long long x : v)
            t.total += x;
        t.idle = v[3] + v[4];
        t.steal = v[7];
    }
    std::fclose(f);
    return t;
}

/// Steal and busy shares (percent) of the CPU time since `before`; -1 each where unreadable.
inline void cpuSharesSince(const CpuTicks &before, double &stealPercent, double &busyPercent)
{
    const CpuTicks after = readCpuTicks();
    if (after.total <= before.total) {
        stealPercent = busyPercent = -1;
        return;
    }
    const double total = double(after.total - before.total);
    const double steal = double(after.steal - before.steal);
    const double idle = double(after.idle - before.idle);
    stealPercent = 100.0 * steal / total;
    busyPercent = 100.0 * (total - steal - idle) / total;
}

inline double percentileUs(const std::vector<std::int64_t> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const auto i = std::min(sorted.size() - 1, static_cast<std::size_t>(p * double(sorted.size())));
    return double(sorted[i]) / 1000.0;
}

/// The decimal integer after `key` in a JSON header; -1 when absent.
inline long long jsonInt(std::string_view header, std::string_view key, std::size_t &hint)
{
    // The load generator shares the machine's two cores with the broker, so its own cost per
    // answer counts: first the position where the previous answer had the key (`hint`), then
    // memmem (SIMD in glibc), not string_view::find.
    std::size_t at = hint;
    if (at + key.size() > header.size() || header.compare(at, key.size(), key) != 0) {
        const void *found = ::memmem(header.data(), header.size(), key.data(), key.size());
        if (!found)
            return -1;
        at = static_cast<std::size_t>(static_cast<const char *>(found) - header.data());
        hint = at;
    }
    long long v = 0;
    for (std::size_t i = at + key.size(); i < header.size() && header[i] >= '0' && header[i] <= '9';
         ++i)
        v = v * 10 + (header[i] - '0');
    return v;
}

/// A request whose properties carry UNIQ_KEY=kUniqKeyMark + 16 hex digits gets a fresh key on
/// every send (the digits are patched in place, like the opaque).
inline constexpr char kUniqKeyMark[] = "QRBENCHUNIQ";
inline std::atomic<std::uint64_t> &uniqSequence()
{
    static std::atomic<std::uint64_t> seq {1};
    return seq;
}

/// One connection: `window` slots, each with a request in flight until the row ends.
struct Connection
{
    int fd = -1;
    std::uint64_t index = 0; // in LoadGenerator::m_conns
    std::string frame; // pre-encoded request; the opaque digits are patched per slot
    std::size_t opaqueAt = 0;
    /// Where the 16 hex digits after kUniqKeyMark are (npos: the request has no UNIQ_KEY to
    /// vary): every send gets a UNIQ_KEY no other send of the process had (--dedup rows).
    std::size_t uniqAt = std::string::npos;
    std::vector<Clock::time_point> sentAt; // per slot: when it was due (open loop) or written
    std::vector<Clock::time_point> wroteAt; // per slot, open loop only: when it was written
    std::string out;
    std::size_t outPos = 0;
    std::vector<char> in = std::vector<char>(256 * 1024);
    std::size_t inLen = 0;
    int inFlight = 0;
    bool wantWrite = false;
    std::vector<int> freeSlots; // open loop only

    void queue(int slot, Clock::time_point now)
    {
        // The opaque's 10 digits, written in place (snprintf cost ~870 instructions a send).
        unsigned v = static_cast<unsigned>(kOpaqueBase + slot);
        for (int i = 9; i >= 0; --i, v /= 10)
            frame[opaqueAt + static_cast<std::size_t>(i)] = static_cast<char>('0' + v % 10);
        if (uniqAt != std::string::npos) {
            std::uint64_t k = uniqSequence().fetch_add(1, std::memory_order_relaxed);
            for (int i = 15; i >= 0; --i, k >>= 4)
                frame[uniqAt + static_cast<std::size_t>(i)] = "0123456789ABCDEF"[k & 15];
        }
        out.append(frame);
        sentAt[static_cast<std::size_t>(slot)] = now;
        ++inFlight;
    }
};

/// A closed loop over `connections` sockets driven by one epoll thread (this one).
class LoadGenerator
{
public:
    LoadGenerator(quint16 port, const RemotingCommand &request, int connections, int window)
        : m_window(window)
    {
        for (int c = 0; c < connections; ++c) {
            auto conn = std::make_unique<Connection>();
            conn->index = static_cast<std::uint64_t>(c);
            RemotingCommand r = request;
            r.setExt("e", c % kQueues);
            r.opaque = kOpaqueBase;
            const QByteArray frame = protocol::encodeFrame(r);
            conn->frame.assign(frame.constData(), static_cast<std::size_t>(frame.size()));
            conn->opaqueAt = conn->frame.find("\"opaque\":1000000000");
            if (conn->opaqueAt == std::string::npos) {
                m_ok = false;
                return;
            }
            conn->opaqueAt += 9;
            if (const std::size_t mark = conn->frame.find(kUniqKeyMark); mark != std::string::npos)
                conn->uniqAt = mark + sizeof kUniqKeyMark - 1;
            conn->sentAt.resize(static_cast<std::size_t>(window));
            conn->wroteAt.resize(static_cast<std::size_t>(window));
            conn->fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in addr {};
            addr.sin_family = AF_INET;
            addr.sin_port = htons(port);
            addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (::connect(conn->fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
                std::perror("connect");
                m_ok = false;
                return;
            }
            const int one = 1;
            ::setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            m_conns.push_back(std::move(conn));
        }
    }
    ~LoadGenerator()
    {
        for (auto &c : m_conns)
            ::close(c->fd);
        if (m_epoll >= 0)
            ::close(m_epoll);
    }

    /// Runs until `seconds` pass or `maxMessages` answers arrive (0 = no limit).
    /// With `rate` > 0 the loop is open: requests are issued on a fixed schedule of `rate` per
    /// second (round robin over connections with a free slot), and each latency counts from the
    /// request's scheduled time, so a stalled broker shows as latency, not as a lower rate.
    Figures run(double seconds, std::int64_t maxMessages, qsizetype bodyBytes, double rate = 0)
    {
        Figures result;
        if (!m_ok || !warmUp()) {
            result.failed = true;
            return result;
        }
        m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
        for (std::size_t i = 0; i < m_conns.size(); ++i) {
            epoll_event ev {};
            ev.events = EPOLLIN;
            ev.data.u64 = i;
            ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_conns[i]->fd, &ev);
        }
        m_latencies.reserve(1 << 20);
        m_issueLagNs.reserve(rate > 0 ? 1 << 20 : 0);
        m_roundTrips.reserve(rate > 0 ? 1 << 20 : 0);
        const CpuTicks ticksAtStart = readCpuTicks();
        const auto start = Clock::now();
        const auto deadline = start
            + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
        std::int64_t issued = 0;
        m_openLoop = rate > 0;
        for (auto &c : m_conns) {
            if (m_openLoop) {
                for (int slot = m_window - 1; slot >= 0; --slot)
                    c->freeSlots.push_back(slot);
                continue;
            }
            for (int slot = 0; slot < m_window; ++slot, ++issued)
                c->queue(slot, start);
            flush(*c);
        }
        int inFlight = static_cast<int>(issued);
        std::size_t nextConn = 0;
        const auto interval = std::chrono::duration<double>(m_openLoop ? 1.0 / rate : 0.0);
        const auto endOfWait = deadline + std::chrono::seconds(30);
        std::vector<epoll_event> events(m_conns.size());
        const auto wantMore = [&](Clock::time_point t) {
            return t < deadline && (maxMessages == 0 || issued < maxMessages);
        };
        while (
            (inFlight > 0 || (m_openLoop && wantMore(Clock::now()))) && Clock::now() < endOfWait) {
            if (m_openLoop) {
                // Issue everything that is due, each stamped with its scheduled time.
                const auto now = Clock::now();
                for (;;) {
                    const auto due = start
                        + std::chrono::duration_cast<Clock::duration>(interval * double(issued));
                    if (due > now || !wantMore(due))
                        break;
                    Connection *free = nullptr;
                    for (std::size_t k = 0; k < m_conns.size() && !free; ++k) {
                        Connection &c = *m_conns[(nextConn + k) % m_conns.size()];
                        if (!c.freeSlots.empty())
                            free = &c;
                    }
                    if (!free)
                        break; // every slot busy: the debt is issued (late) as answers free them
                    nextConn = (free->index + 1) % m_conns.size();
                    const int slot = free->freeSlots.back();
                    free->freeSlots.pop_back();
                    free->queue(slot, due);
                    const auto wrote = Clock::now();
                    free->wroteAt[static_cast<std::size_t>(slot)] = wrote;
                    m_issueLagNs.push_back((wrote - due).count());
                    ++issued;
                    ++inFlight;
                    flush(*free);
                }
            }
            const int n = waitForEvents(events, m_openLoop ? 50'000 : 100'000'000);
            const auto now = Clock::now();
            const bool more = !m_openLoop && wantMore(now);
            for (int e = 0; e < n; ++e) {
                Connection &c = *m_conns[events[static_cast<std::size_t>(e)].data.u64];
                if (events[static_cast<std::size_t>(e)].events & EPOLLOUT)
                    flush(c);
                if (!(events[static_cast<std::size_t>(e)].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                    continue;
                const int before = c.inFlight;
                if (!readAnswers(c, now, more, issued, maxMessages, result.errors)) {
                    result.failed = true;
                    return result;
                }
                inFlight += c.inFlight - before;
                flush(c);
            }
        }
        const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
        cpuSharesSince(ticksAtStart, result.stealPercent, result.busyPercent);
        if (inFlight > 0)
            result.failed = true;
        if (!m_issueLagNs.empty()) {
            std::sort(m_issueLagNs.begin(), m_issueLagNs.end());
            result.issueLagP99Us = percentileUs(m_issueLagNs, 0.99);
        }
        result.latencyNs = std::move(m_latencies);
        std::sort(result.latencyNs.begin(), result.latencyNs.end());
        result.roundTripNs = std::move(m_roundTrips);
        std::sort(result.roundTripNs.begin(), result.roundTripNs.end());
        result.msgsPerSecond = double(result.latencyNs.size()) / elapsed;
        result.mbPerSecond = result.msgsPerSecond * double(bodyBytes) / 1e6;
        return result;
    }

private:
    /// One blocking request per connection (connects the broker side, creates the topic).
    bool warmUp()
    {
        for (auto &c : m_conns) {
            if (::write(c->fd, c->frame.data(), c->frame.size())
                != static_cast<ssize_t>(c->frame.size()))
                return false;
            std::uint32_t len = 0;
            if (::recv(c->fd, &len, 4, MSG_WAITALL) != 4)
                return false;
            std::vector<char> rest(ntohl(len));
            if (::recv(c->fd, rest.data(), rest.size(), MSG_WAITALL)
                != static_cast<ssize_t>(rest.size()))
                return false;
        }
        return true;
    }

    /// epoll_pwait2 (a timeout finer than 1 ms, for the open loop's schedule), or epoll_wait
    /// where the kernel or valgrind does not know it (ENOSYS).
    int waitForEvents(std::vector<epoll_event> &events, long timeoutNs)
    {
        const int max = static_cast<int>(events.size());
        if (!m_noPwait2) {
            timespec wait {0, timeoutNs};
            const int n = ::epoll_pwait2(m_epoll, events.data(), max, &wait, nullptr);
            if (n >= 0 || errno != ENOSYS)
                return n;
            m_noPwait2 = true;
        }
        return ::epoll_wait(m_epoll, events.data(), max, static_cast<int>(timeoutNs / 1'000'000));
    }

    void flush(Connection &c)
    {
        while (c.outPos < c.out.size()) {
            const ssize_t n = ::send(c.fd, c.out.data() + c.outPos, c.out.size() - c.outPos,
                MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n <= 0)
                break;
            c.outPos += static_cast<std::size_t>(n);
        }
        if (c.outPos == c.out.size()) {
            c.out.clear();
            c.outPos = 0;
        }
        const bool want = c.outPos < c.out.size();
        if (want != c.wantWrite) {
            c.wantWrite = want;
            epoll_event ev {};
            ev.events = EPOLLIN | (want ? EPOLLOUT : 0u);
            ev.data.u64 = c.index;
            ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, c.fd, &ev);
        }
    }

    bool readAnswers(Connection &c, Clock::time_point now, bool more, std::int64_t &issued,
        std::int64_t maxMessages, int &errors)
    {
        for (;;) {
            if (c.inLen == c.in.size())
                c.in.resize(c.in.size() * 2);
            const std::size_t room = c.in.size() - c.inLen;
            const ssize_t n = ::recv(c.fd, c.in.data() + c.inLen, room, MSG_DONTWAIT);
            if (n == 0)
                return false;
            if (n < 0)
                break;
            c.inLen += static_cast<std::size_t>(n);
            // A read that did not fill the buffer took all there was: stop, as Netty's read loop
            // does (epoll is level triggered, so what arrives later reports again), instead of
            // paying a second recv() per answer only to hear EAGAIN.
            if (static_cast<std::size_t>(n) < room)
                break;
        }
        std::size_t pos = 0;
        while (c.inLen - pos >= 8) {
            std::uint32_t len = 0;
            std::uint32_t headerField = 0;
            std::memcpy(&len, c.in.data() + pos, 4);
            std::memcpy(&headerField, c.in.data() + pos + 4, 4);
            len = ntohl(len);
            const std::size_t headerLen = ntohl(headerField) & 0xFFFFFFu;
            if (c.inLen - pos < 4 + std::size_t(len))
                break;
            const std::string_view header(c.in.data() + pos + 8, headerLen);
            const long long code = jsonInt(header, "\"code\":", m_codeAt);
            const long long slot = jsonInt(header, "\"opaque\":", m_opaqueAt) - kOpaqueBase;
            pos += 4 + len;
            if (slot < 0 || slot >= m_window)
                return false;
            if (code != 0)
                ++errors;
            m_latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                now - c.sentAt[static_cast<std::size_t>(slot)])
                                      .count());
            --c.inFlight;
            if (m_openLoop) {
                m_roundTrips.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                    now - c.wroteAt[static_cast<std::size_t>(slot)])
                                           .count());
                c.freeSlots.push_back(static_cast<int>(slot));
                continue;
            }
            if (more && (maxMessages == 0 || issued < maxMessages)) {
                c.queue(static_cast<int>(slot), now);
                ++issued;
            }
        }
        std::memmove(c.in.data(), c.in.data() + pos, c.inLen - pos);
        c.inLen -= pos;
        return true;
    }

    int m_window;
    std::size_t m_codeAt = 0; // where the last answer had "code": and "opaque":
    std::size_t m_opaqueAt = 0;
    bool m_openLoop = false;
    bool m_noPwait2 = false;
    bool m_ok = true;
    int m_epoll = -1;
    std::vector<std::unique_ptr<Connection>> m_conns;
    std::vector<std::int64_t> m_latencies;
    std::vector<std::int64_t> m_issueLagNs; // open loop: actual minus scheduled send time
    std::vector<std::int64_t> m_roundTrips; // open loop: answer time minus actual send time
};

/// The zero-work floor: a plain epoll server on one thread, no storage, that answers every frame
/// it reads (the generator sends SEND_MESSAGE_V2) at once with a valid SEND_OK response as a
/// broker writes it (code 0; msgId, queueId, queueOffset, MSG_REGION, TRACE_ON), carrying the
/// request's opaque and a queue offset counted per connection. Nothing is decoded beyond the
/// length prefix and the opaque digits, nothing allocated per frame: the response is encoded once
/// and only its fixed-width digits are patched. The rows it serves show the most any broker could
/// reach with this generator on this machine (loopback TCP and the syscalls alone).
class FloorServer
{
public:
    FloorServer()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr {};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
            || ::listen(m_listen, 1024) != 0
            || ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
            std::perror("floor server");
            return;
        }
        m_port = ntohs(addr.sin_port);
        // SEND_OK as the broker's send processor answers it. The queue offset starts at
        // kOpaqueBase so that it stays 10 digits wide (patched in place, like the opaque).
        RemotingCommand ok;
        ok.markResponse();
        ok.code = 0;
        ok.opaque = kOpaqueBase;
        ok.setExt(
            QByteArrayLiteral("msgId"), QByteArrayLiteral("7F00000100002A9F0000000000000000"));
        ok.setExt(QByteArrayLiteral("queueId"), 0);
        ok.setExt(QByteArrayLiteral("queueOffset"), std::int64_t(kOpaqueBase));
        ok.setExt(QByteArrayLiteral("MSG_REGION"), QByteArrayLiteral("DefaultRegion"));
        ok.setExt(QByteArrayLiteral("TRACE_ON"), QByteArrayLiteral("true"));
        const QByteArray frame = protocol::encodeFrame(ok);
        m_response.assign(frame.constData(), static_cast<std::size_t>(frame.size()));
        m_opaqueAt = m_response.find("\"opaque\":" + std::to_string(kOpaqueBase));
        m_offsetAt = m_response.find("\"queueOffset\":\"" + std::to_string(kOpaqueBase));
        if (m_opaqueAt == std::string::npos || m_offsetAt == std::string::npos) {
            std::fprintf(stderr, "floor server: unexpected SEND_OK encoding\n");
            return;
        }
        m_opaqueAt += 9;
        m_offsetAt += 15;
        m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
        epoll_event ev {};
        ev.events = EPOLLIN;
        ev.data.u64 = ~std::uint64_t(0);
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, m_listen, &ev);
        m_thread = std::thread([this] { loop(); });
    }
    ~FloorServer()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        for (auto &p : m_peers)
            ::close(p.fd);
        ::close(m_epoll);
        ::close(m_listen);
    }
    quint16 port() const { return m_port; }

private:
    struct Peer
    {
        int fd = -1;
        std::vector<char> in = std::vector<char>(256 * 1024);
        std::size_t inLen = 0;
        std::string out;
        std::uint64_t queueOffset = 0;
    };

    void loop()
    {
        std::vector<epoll_event> events(256);
        m_peers.reserve(4096); // stable addresses: epoll carries indexes, not pointers
        while (!m_stop) {
            const int n = ::epoll_wait(m_epoll, events.data(), int(events.size()), 50);
            for (int e = 0; e < n; ++e) {
                const std::uint64_t id = events[std::size_t(e)].data.u64;
                if (id == ~std::uint64_t(0)) {
                    const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
                    if (fd < 0 || m_peers.size() == m_peers.capacity()) {
                        if (fd >= 0)
                            ::close(fd);
                        continue;
                    }
                    const int one = 1;
                    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    m_peers.push_back(Peer {});
                    m_peers.back().fd = fd;
                    epoll_event ev {};
                    ev.events = EPOLLIN;
                    ev.data.u64 = m_peers.size() - 1;
                    ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &ev);
                    continue;
                }
                serve(m_peers[id]);
            }
        }
    }

    void serve(Peer &p)
    {
        if (p.fd < 0)
            return;
        if (p.inLen == p.in.size())
            p.in.resize(p.in.size() * 2);
        const ssize_t n = ::recv(p.fd, p.in.data() + p.inLen, p.in.size() - p.inLen, MSG_DONTWAIT);
        if (n <= 0) {
            if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, p.fd, nullptr);
                ::close(p.fd);
                p.fd = -1;
            }
            return;
        }
        p.inLen += std::size_t(n);
        std::size_t pos = 0;
        p.out.clear();
        while (p.inLen - pos >= 8) {
            std::uint32_t len = 0;
            std::uint32_t headerField = 0;
            std::memcpy(&len, p.in.data() + pos, 4);
            std::memcpy(&headerField, p.in.data() + pos + 4, 4);
            len = ntohl(len);
            if (p.inLen - pos < 4 + std::size_t(len))
                break;
            const std::string_view header(p.in.data() + pos + 8, ntohl(headerField) & 0xFFFFFFu);
            const std::size_t at = header.find("\"opaque\":");
            p.out.append(m_response);
            char *response = p.out.data() + p.out.size() - m_response.size();
            if (at != std::string_view::npos && header.size() >= at + 19)
                std::memcpy(response + m_opaqueAt, header.data() + at + 9, 10);
            std::uint64_t v = kOpaqueBase + p.queueOffset++ % kOpaqueBase;
            for (int i = 9; i >= 0; --i, v /= 10)
                response[m_offsetAt + std::size_t(i)] = static_cast<char>('0' + v % 10);
            pos += 4 + len;
        }
        std::memmove(p.in.data(), p.in.data() + pos, p.inLen - pos);
        p.inLen -= pos;
        std::size_t done = 0;
        while (done < p.out.size()) { // the client reads eagerly: a blocking finish is fine here
            const ssize_t w = ::send(p.fd, p.out.data() + done, p.out.size() - done, MSG_NOSIGNAL);
            if (w <= 0)
                break;
            done += std::size_t(w);
        }
    }

    int m_listen = -1;
    int m_epoll = -1;
    quint16 m_port = 0;
    std::string m_response;
    std::size_t m_opaqueAt = 0;
    std::size_t m_offsetAt = 0;
    std::vector<Peer> m_peers;
    std::atomic<bool> m_stop {false};
    std::thread m_thread;
};

} // namespace qrocket::bench
