// qrocket-bench-broker: SEND_MESSAGE_V2 throughput and latency through a BrokerController
// (in-process, on loopback sockets, store in a temporary directory), first with ASYNC_FLUSH then
// with SYNC_FLUSH, over 1..64 connections with a window of requests in flight per connection
// (window 1 = synchronous senders); then pulls everything back. Each row is printed beside a
// remoting echo baseline (same server, same connections, same window, an inline echo processor)
// measured in the same run. A program that prints figures; never a test.
//
// The load generator is lean on purpose (the machine's cores are shared with the broker): one
// epoll thread drives every connection with pre-encoded JSON frames (as RocketMQ clients send
// them), patching only the opaque; a response is matched by its opaque. See LoadGenerator.
//
//   qrocket-bench-broker [--seconds S] [--window W] [--sizes 128,1024] [--connections 1,16,64]
//                        [--flush ASYNC_FLUSH,SYNC_FLUSH] [--messages N] [--no-echo]
//
// --messages N stops each row after N answers (for callgrind: instructions per send are the
// difference of two runs with different N divided by the difference of N).

#include "broker/brokercontroller.h"
#include "broker/processors/sendmessageprocessor.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTemporaryDir>

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
#include <string_view>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

using namespace qrocket;
using namespace qrocket::remoting;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kEchoCode = 9199; // QRocket extension range, bench only
constexpr int kQueues = 4;
/// Opaques are kOpaqueBase + slot: always 10 digits, so a slot is patched in place in the JSON.
constexpr int kOpaqueBase = 1000000000;

class EchoProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        RemotingCommand response = RemotingCommand::createResponse(request, 0);
        respond(std::move(response));
    }
};

RemotingCommand sendRequest(const QByteArray &topic, int queueId, int bodyBytes)
{
    RemotingCommand r = RemotingCommand::createRequest(310);
    r.setExt("a", QByteArrayLiteral("PG_bench"));
    r.setExt("b", topic);
    r.setExt("c", QByteArrayLiteral("TBW102"));
    r.setExt("d", 4);
    r.setExt("e", queueId);
    r.setExt("f", 0);
    r.setExt("g", std::int64_t(1700000000000));
    r.setExt("h", 0);
    r.setExt("i", QByteArrayLiteral("TAGS\x01TagA\x02KEYS\x01k1\x02WAIT\x01true"));
    r.body = QByteArray(bodyBytes, 'x');
    return r;
}

struct Figures
{
    double msgsPerSecond = 0;
    double mbPerSecond = 0;
    std::vector<std::int64_t> latencyNs; // sorted
    int errors = 0;
    bool failed = false;
};

double percentileUs(const std::vector<std::int64_t> &sorted, double p)
{
    if (sorted.empty())
        return 0;
    const auto i = std::min(sorted.size() - 1, static_cast<std::size_t>(p * double(sorted.size())));
    return double(sorted[i]) / 1000.0;
}

/// The decimal integer after `key` in a JSON header; -1 when absent.
long long jsonInt(std::string_view header, std::string_view key)
{
    const std::size_t at = header.find(key);
    if (at == std::string_view::npos)
        return -1;
    long long v = 0;
    for (std::size_t i = at + key.size(); i < header.size() && header[i] >= '0' && header[i] <= '9';
         ++i)
        v = v * 10 + (header[i] - '0');
    return v;
}

/// One connection: `window` slots, each with a request in flight until the row ends.
struct Connection
{
    int fd = -1;
    std::uint64_t index = 0; // in LoadGenerator::m_conns
    std::string frame; // pre-encoded request; the opaque digits are patched per slot
    std::size_t opaqueAt = 0;
    std::vector<Clock::time_point> sentAt; // per slot
    std::string out;
    std::size_t outPos = 0;
    std::vector<char> in = std::vector<char>(256 * 1024);
    std::size_t inLen = 0;
    int inFlight = 0;
    bool wantWrite = false;

    void queue(int slot, Clock::time_point now)
    {
        char digits[11];
        std::snprintf(digits, sizeof digits, "%010d", kOpaqueBase + slot);
        std::memcpy(frame.data() + opaqueAt, digits, 10);
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
            conn->sentAt.resize(static_cast<std::size_t>(window));
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
    Figures run(double seconds, std::int64_t maxMessages, qsizetype bodyBytes)
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
        const auto start = Clock::now();
        const auto deadline = start
            + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
        std::int64_t issued = 0;
        for (auto &c : m_conns) {
            for (int slot = 0; slot < m_window; ++slot, ++issued)
                c->queue(slot, start);
            flush(*c);
        }
        int inFlight = static_cast<int>(issued);
        const auto endOfWait = deadline + std::chrono::seconds(30);
        std::vector<epoll_event> events(m_conns.size());
        while (inFlight > 0 && Clock::now() < endOfWait) {
            const int n
                = ::epoll_wait(m_epoll, events.data(), static_cast<int>(events.size()), 100);
            const auto now = Clock::now();
            const bool more = now < deadline && (maxMessages == 0 || issued < maxMessages);
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
        if (inFlight > 0)
            result.failed = true;
        result.latencyNs = std::move(m_latencies);
        std::sort(result.latencyNs.begin(), result.latencyNs.end());
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
            const ssize_t n
                = ::recv(c.fd, c.in.data() + c.inLen, c.in.size() - c.inLen, MSG_DONTWAIT);
            if (n == 0)
                return false;
            if (n < 0)
                break;
            c.inLen += static_cast<std::size_t>(n);
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
            const long long code = jsonInt(header, "\"code\":");
            const long long slot = jsonInt(header, "\"opaque\":") - kOpaqueBase;
            pos += 4 + len;
            if (slot < 0 || slot >= m_window)
                return false;
            if (code != 0)
                ++errors;
            m_latencies.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(
                now - c.sentAt[static_cast<std::size_t>(slot)])
                                      .count());
            --c.inFlight;
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
    bool m_ok = true;
    int m_epoll = -1;
    std::vector<std::unique_ptr<Connection>> m_conns;
    std::vector<std::int64_t> m_latencies;
};

void printRow(const char *what, int size, int connections, int window, const Figures &r)
{
    std::printf("%-6s %5d B %3d conn x %3d  %10.0f msg/s %8.1f MB/s  p50 %7.1f p99 %7.1f "
                "p999 %8.1f max %8.1f us%s%s\n",
        what, size, connections, window, r.msgsPerSecond, r.mbPerSecond,
        percentileUs(r.latencyNs, 0.5), percentileUs(r.latencyNs, 0.99),
        percentileUs(r.latencyNs, 0.999),
        r.latencyNs.empty() ? 0.0 : double(r.latencyNs.back()) / 1000.0,
        r.errors ? qPrintable(QStringLiteral("  (%1 errors)").arg(r.errors)) : "",
        r.failed ? "  (FAILED: connection lost or answers missing)" : "");
    std::fflush(stdout);
}

/// Pulls every queue of the topic back, 32 at a time; returns msgs/s.
double pullBack(const QByteArray &address, const QByteArray &topic, std::int64_t *count)
{
    RemotingClient client;
    std::int64_t got = 0;
    const auto start = Clock::now();
    for (int q = 0; q < kQueues; ++q) {
        std::int64_t offset = 0;
        for (;;) {
            RemotingCommand pull = RemotingCommand::createRequest(11);
            pull.setExt("consumerGroup", QByteArrayLiteral("G_bench"));
            pull.setExt("topic", topic);
            pull.setExt("queueId", q);
            pull.setExt("queueOffset", offset);
            pull.setExt("maxMsgNums", 32);
            pull.setExt("sysFlag", 4);
            pull.setExt("commitOffset", 0);
            pull.setExt("suspendTimeoutMillis", 0);
            pull.setExt("subscription", QByteArrayLiteral("*"));
            pull.setExt("subVersion", 0);
            auto r = client.invokeSync(address, pull, 10000);
            if (!r || r->code != 0)
                break;
            const std::int64_t next = r->extLong("nextBeginOffset").value_or(offset);
            got += next - offset;
            offset = next;
        }
    }
    *count = got;
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    return double(got) / elapsed;
}

QList<int> intList(const QString &text)
{
    QList<int> out;
    for (const QString &part : text.split(u','))
        if (int v = part.toInt(); v > 0)
            out.append(v);
    return out;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption secondsOpt(QStringLiteral("seconds"),
        QStringLiteral("Seconds per row."), QStringLiteral("S"), QStringLiteral("1"));
    const QCommandLineOption windowOpt(QStringLiteral("window"),
        QStringLiteral("Requests in flight per connection (pipelined rows)."), QStringLiteral("W"),
        QStringLiteral("32"));
    const QCommandLineOption sizesOpt(QStringLiteral("sizes"), QStringLiteral("Body sizes."),
        QStringLiteral("LIST"), QStringLiteral("128,1024"));
    const QCommandLineOption connOpt(QStringLiteral("connections"), QStringLiteral("Connections."),
        QStringLiteral("LIST"), QStringLiteral("1,16,64"));
    const QCommandLineOption flushOpt(QStringLiteral("flush"), QStringLiteral("Flush types."),
        QStringLiteral("LIST"), QStringLiteral("ASYNC_FLUSH,SYNC_FLUSH"));
    const QCommandLineOption messagesOpt(QStringLiteral("messages"),
        QStringLiteral("Stop each row after N answers (0 = by time)."), QStringLiteral("N"),
        QStringLiteral("0"));
    const QCommandLineOption noEchoOpt(
        QStringLiteral("no-echo"), QStringLiteral("Skip the echo baseline rows."));
    const QCommandLineOption executorOpt(QStringLiteral("send-executor"),
        QStringLiteral("Where SEND_MESSAGE_V2 runs: default (the broker's choice), io (inline on "
                       "the I/O thread) or pool (the send pool)."),
        QStringLiteral("WHERE"), QStringLiteral("default"));
    const QCommandLineOption noPullOpt(
        QStringLiteral("no-pull"), QStringLiteral("Skip pulling the messages back."));
    parser.addOptions({secondsOpt, windowOpt, sizesOpt, connOpt, flushOpt, messagesOpt, noEchoOpt,
        noPullOpt, executorOpt});
    parser.process(app);
    const double seconds = parser.value(secondsOpt).toDouble();
    const int window = std::max(1, parser.value(windowOpt).toInt());
    const std::int64_t maxMessages = parser.value(messagesOpt).toLongLong();

    for (const QString &flush : parser.value(flushOpt).split(u',', Qt::SkipEmptyParts)) {
        QTemporaryDir dir;
        broker::BrokerConfig config;
        config.brokerIP1 = QStringLiteral("127.0.0.1");
        config.storePathRootDir = dir.path();
        config.namesrvAddr.clear();
        static_cast<void>(config.validate());
        config.listenPort = 0;
        storage::MessageStoreConfig storeConfig;
        storeConfig.storePathRootDir = dir.path();
        storeConfig.flushDiskType = flush;
        storeConfig.mappedFileSizeCommitLog = 256LL * 1024 * 1024;
        broker::BrokerController controller(config, storeConfig);
        if (Status st = controller.initialize(); !st) {
            std::fprintf(stderr, "initialize: %s\n", qPrintable(st.message()));
            return 1;
        }
        controller.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>(), {});
        if (const QString where = parser.value(executorOpt); where != QLatin1String("default")) {
            controller.registerProcessor(310,
                std::make_shared<broker::SendMessageProcessor>(controller.context()),
                where == QLatin1String("pool") ? controller.sendExecutor() : nullptr);
        }
        if (Status st = controller.start(); !st) {
            std::fprintf(stderr, "start: %s\n", qPrintable(st.message()));
            return 1;
        }
        const quint16 port = controller.listenPort();
        const QByteArray address = "127.0.0.1:" + QByteArray::number(port);
        std::printf("== %s, broker %s, %.1f s per row, send executor: %s\n", qPrintable(flush),
            address.constData(), seconds, qPrintable(parser.value(executorOpt)));
        for (int size : intList(parser.value(sizesOpt))) {
            const QByteArray topic = "BenchTopic" + QByteArray::number(size);
            for (int connections : intList(parser.value(connOpt))) {
                for (int w : {1, window}) {
                    if (!parser.isSet(noEchoOpt)) {
                        RemotingCommand echo = sendRequest(topic, 0, size);
                        echo.code = kEchoCode;
                        LoadGenerator load(port, echo, connections, w);
                        printRow("echo", size, connections, w,
                            load.run(seconds, maxMessages, echo.body.size()));
                    }
                    const RemotingCommand send = sendRequest(topic, 0, size);
                    LoadGenerator load(port, send, connections, w);
                    printRow("send", size, connections, w,
                        load.run(seconds, maxMessages, send.body.size()));
                }
            }
            if (parser.isSet(noPullOpt))
                continue;
            controller.context().store->waitForDispatch(10000);
            std::int64_t pulled = 0;
            const double rate = pullBack(address, topic, &pulled);
            std::printf("pull   %5d B  %lld msgs back at %.0f msg/s (%.1f MB/s)\n", size,
                static_cast<long long>(pulled), rate, rate * size / 1e6);
        }
        controller.shutdown();
    }
    return 0;
}
