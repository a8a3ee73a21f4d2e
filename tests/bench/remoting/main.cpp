// qrocket-bench-remoting: echo requests/s over loopback through RemotingServer/RemotingClient,
// with 1 and 8 connections and a window of requests in flight per connection, printed beside a
// raw POSIX socket echo (thread per connection, same frames, same window) measured in the same
// run. A program that prints figures; never a test.
//
//   qrocket-bench-remoting [--seconds S] [--window W] [--body B] [--server-threads T]
//   qrocket-bench-remoting --count N [--connections C]   fixed work for callgrind: each connection
//       completes exactly N requests through RemotingClient -> RemotingServer; no baseline rows.

#include "clientlib/protocol/framecodec.h"
#include "clientlib/remoting/remotingclient.h"
#include "clientlib/remoting/remotingserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QtEndian>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace qrocket;
using namespace qrocket::remoting;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kEchoCode = 1000;

struct Config
{
    double seconds = 1.0;
    int window = 128;
    int bodyBytes = 128;
    int serverThreads = 2;
    long long count = 0; // > 0: fixed number of requests per connection instead of a duration
};

struct Figure
{
    double requestsPerSecond = 0;
    qint64 frameBytes = 0;
};

RemotingCommand makeRequest(const Config &config)
{
    RemotingCommand request = RemotingCommand::createRequest(kEchoCode);
    request.setExt(QByteArrayLiteral("topic"), QByteArrayLiteral("BenchTopic"));
    request.setExt(QByteArrayLiteral("queueId"), 3);
    request.body = QByteArray(config.bodyBytes, 'b');
    return request;
}

class EchoProcessor final : public RequestProcessor
{
public:
    void processRequest(const ChannelPtr &, RemotingCommand request, Responder respond) override
    {
        RemotingCommand response;
        response.body = std::move(request.body);
        respond(std::move(response));
    }
};

// ---- QRocket remoting ---------------------------------------------------------------------

/// One connection's closed loop: keeps `window` requests in flight until the deadline.
struct Pipeline
{
    RemotingClient *client = nullptr;
    QByteArray address;
    RemotingCommand request;
    Clock::time_point deadline;
    std::atomic<long long> *completed = nullptr;
    std::atomic<int> *outstanding = nullptr;
    std::atomic<int> *errors = nullptr;
    std::atomic<long long> *toIssue = nullptr; // fixed-count mode: requests left to issue

    bool more() const { return toIssue ? toIssue->fetch_sub(1) > 0 : Clock::now() < deadline; }

    void issue()
    {
        outstanding->fetch_add(1);
        client->invokeAsync(address, request, 10000, [this](Result<RemotingCommand> result) {
            if (!result.has_value() || result->code != 0)
                errors->fetch_add(1);
            else if (toIssue || Clock::now() < deadline)
                completed->fetch_add(1, std::memory_order_relaxed);
            if (more())
                issue(); // before the decrement, so `outstanding` reaches 0 only at the end
            outstanding->fetch_sub(1);
        });
    }
};

Figure runRemoting(const Config &config, int connections)
{
    RemotingServer::Options serverOptions;
    serverOptions.listenAddress = QHostAddress::LocalHost;
    serverOptions.ioThreads = config.serverThreads;
    RemotingServer server(serverOptions);
    server.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
    if (Status status = server.start(); !status) {
        std::fprintf(stderr, "server start failed: %s\n", qPrintable(status.toString()));
        return {};
    }
    const QByteArray address = "127.0.0.1:" + QByteArray::number(server.serverPort());
    std::vector<std::unique_ptr<RemotingClient>> clients;
    for (int i = 0; i < connections; ++i) {
        clients.push_back(std::make_unique<RemotingClient>());
        // Connect first, so the measurement excludes connection setup.
        (void)clients.back()->invokeSync(address, makeRequest(config), 3000);
    }
    std::atomic<long long> completed {0};
    std::atomic<int> outstanding {0};
    std::atomic<int> errors {0};
    std::vector<Pipeline> pipelines(static_cast<std::size_t>(connections));
    std::vector<std::atomic<long long>> toIssue(static_cast<std::size_t>(connections));
    const auto start = Clock::now();
    const auto deadline = start
        + std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(config.seconds));
    for (int i = 0; i < connections; ++i) {
        Pipeline &p = pipelines[static_cast<std::size_t>(i)];
        p = Pipeline {clients[static_cast<std::size_t>(i)].get(), address, makeRequest(config),
            deadline, &completed, &outstanding, &errors};
        if (config.count > 0) {
            p.toIssue = &toIssue[static_cast<std::size_t>(i)];
            p.toIssue->store(config.count);
        }
        for (int w = 0; w < config.window; ++w) {
            if (p.more())
                p.issue();
        }
    }
    if (config.count > 0) {
        const auto limit = Clock::now() + std::chrono::seconds(600);
        while (outstanding.load() > 0 && Clock::now() < limit)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } else {
        std::this_thread::sleep_until(deadline);
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const long long done = completed.load();
    const auto drainLimit = Clock::now() + std::chrono::seconds(10);
    while (outstanding.load() > 0 && Clock::now() < drainLimit)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    clients.clear();
    server.stop();
    if (errors.load() > 0)
        std::fprintf(stderr, "  (%d failed requests)\n", errors.load());
    return {done / elapsed, protocol::encodeFrame(makeRequest(config)).size()};
}

// ---- raw POSIX baseline ---------------------------------------------------------------------

bool writeAll(int fd, const char *data, std::size_t size)
{
    while (size > 0) {
        const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

/// Splits complete frames off the front of `buffer`; returns how many.
int takeFrames(std::vector<char> &buffer, std::size_t &used, std::size_t &frameBytesOut)
{
    int frames = 0;
    std::size_t pos = 0;
    while (used - pos >= 4) {
        const auto length = static_cast<std::size_t>(qFromBigEndian<qint32>(buffer.data() + pos));
        if (used - pos < 4 + length)
            break;
        pos += 4 + length;
        ++frames;
    }
    frameBytesOut = pos;
    return frames;
}

void rawEchoServe(int fd)
{
    std::vector<char> buffer(1 << 20);
    std::size_t used = 0;
    for (;;) {
        const ssize_t n = ::recv(fd, buffer.data() + used, buffer.size() - used, 0);
        if (n <= 0)
            break;
        used += static_cast<std::size_t>(n);
        std::size_t frameBytes = 0;
        if (takeFrames(buffer, used, frameBytes) > 0) {
            if (!writeAll(fd, buffer.data(), frameBytes))
                break;
            std::memmove(buffer.data(), buffer.data() + frameBytes, used - frameBytes);
            used -= frameBytes;
        }
    }
    ::close(fd);
}

void rawClient(quint16 port, const QByteArray &frame, int window, Clock::time_point deadline,
    std::atomic<long long> &completed)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return;
    }
    QByteArray burst;
    for (int i = 0; i < window; ++i)
        burst += frame;
    writeAll(fd, burst.constData(), static_cast<std::size_t>(burst.size()));
    int outstanding = window;
    std::vector<char> buffer(1 << 20);
    std::size_t used = 0;
    long long local = 0;
    QByteArray out;
    while (outstanding > 0) {
        const ssize_t n = ::recv(fd, buffer.data() + used, buffer.size() - used, 0);
        if (n <= 0)
            break;
        used += static_cast<std::size_t>(n);
        std::size_t frameBytes = 0;
        const int frames = takeFrames(buffer, used, frameBytes);
        std::memmove(buffer.data(), buffer.data() + frameBytes, used - frameBytes);
        used -= frameBytes;
        outstanding -= frames;
        if (Clock::now() < deadline) {
            local += frames;
            out.resize(0);
            for (int i = 0; i < frames; ++i)
                out += frame;
            writeAll(fd, out.constData(), static_cast<std::size_t>(out.size()));
            outstanding += frames;
        }
    }
    completed.fetch_add(local);
    ::close(fd);
}

/// Raw clients against a RemotingServer: isolates the server's cost.
Figure runRawAgainstServer(const Config &config, int connections)
{
    RemotingServer::Options serverOptions;
    serverOptions.listenAddress = QHostAddress::LocalHost;
    serverOptions.ioThreads = config.serverThreads;
    RemotingServer server(serverOptions);
    server.registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
    if (Status status = server.start(); !status)
        return {};
    const QByteArray frame = protocol::encodeFrame(makeRequest(config));
    std::atomic<long long> completed {0};
    const auto start = Clock::now();
    const auto deadline = start
        + std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(config.seconds));
    std::vector<std::thread> clients;
    for (int i = 0; i < connections; ++i) {
        clients.emplace_back(
            rawClient, server.serverPort(), frame, config.window, deadline, std::ref(completed));
    }
    for (auto &t : clients)
        t.join();
    const double elapsed = std::chrono::duration<double>(deadline - start).count();
    return {completed.load() / elapsed, frame.size()};
}

Figure runRaw(const Config &config, int connections)
{
    const QByteArray frame = protocol::encodeFrame(makeRequest(config));
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0
        || ::listen(listener, 64) != 0
        || ::getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
        std::perror("raw listener");
        ::close(listener);
        return {};
    }
    const quint16 port = ntohs(addr.sin_port);
    std::vector<std::thread> servers;
    std::thread acceptor([&] {
        for (int i = 0; i < connections; ++i) {
            const int fd = ::accept(listener, nullptr, nullptr);
            if (fd < 0)
                return;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            servers.emplace_back(rawEchoServe, fd);
        }
    });
    std::atomic<long long> completed {0};
    const auto start = Clock::now();
    const auto deadline = start
        + std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(config.seconds));
    std::vector<std::thread> clients;
    for (int i = 0; i < connections; ++i)
        clients.emplace_back(rawClient, port, frame, config.window, deadline, std::ref(completed));
    for (auto &t : clients)
        t.join();
    const double elapsed = std::chrono::duration<double>(deadline - start).count();
    acceptor.join();
    for (auto &t : servers)
        t.join();
    ::close(listener);
    return {completed.load() / elapsed, frame.size()};
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench-remoting"));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Remoting echo requests/s over loopback beside a raw-socket echo."));
    parser.addHelpOption();
    const QCommandLineOption secondsOption(QStringLiteral("seconds"),
        QStringLiteral("Seconds per measurement (default 1)."), QStringLiteral("s"),
        QStringLiteral("1"));
    const QCommandLineOption windowOption(QStringLiteral("window"),
        QStringLiteral("Requests in flight per connection (128)."), QStringLiteral("n"),
        QStringLiteral("128"));
    const QCommandLineOption bodyOption(QStringLiteral("body"),
        QStringLiteral("Request body bytes (128)."), QStringLiteral("bytes"),
        QStringLiteral("128"));
    const QCommandLineOption threadsOption(QStringLiteral("server-threads"),
        QStringLiteral("Server I/O threads (2)."), QStringLiteral("n"), QStringLiteral("2"));
    const QCommandLineOption countOption(QStringLiteral("count"),
        QStringLiteral("Fixed work for callgrind: N requests per connection, qrocket rows only."),
        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption connectionsOption(QStringLiteral("connections"),
        QStringLiteral("With --count: connections (1)."), QStringLiteral("n"), QStringLiteral("1"));
    parser.addOptions(
        {secondsOption, windowOption, bodyOption, threadsOption, countOption, connectionsOption});
    parser.process(app);

    Config config;
    bool ok = true;
    config.seconds = parser.value(secondsOption).toDouble(&ok);
    if (!ok || config.seconds <= 0 || config.seconds > 600)
        config.seconds = 1.0;
    config.window = std::clamp(parser.value(windowOption).toInt(), 1, 100000);
    config.bodyBytes = std::clamp(parser.value(bodyOption).toInt(), 0, 4 * 1024 * 1024);
    config.serverThreads = std::clamp(parser.value(threadsOption).toInt(), 1, 64);
    config.count = std::max(parser.value(countOption).toLongLong(), 0LL);
    if (config.count > 0) {
        const int connections = std::clamp(parser.value(connectionsOption).toInt(), 1, 64);
        const Figure f = runRemoting(config, connections);
        std::printf("qrocket fixed count: %d connections x %lld requests, window %d: %.0f "
                    "requests/s\n",
            connections, config.count, config.window, f.requestsPerSecond);
        return 0;
    }

    std::printf("remoting echo over loopback: body %d B, window %d per connection, %.1f s each, "
                "%d server I/O threads, %u cores\n",
        config.bodyBytes, config.window, config.seconds, config.serverThreads,
        std::thread::hardware_concurrency());
    if (FILE *load = std::fopen("/proc/loadavg", "r")) {
        char text[128] = {};
        if (std::fgets(text, sizeof text, load))
            std::printf("load average at start: %s", text); // figures mean little on a busy host
        std::fclose(load);
    }
    std::printf("rows: qrocket = RemotingClient -> RemotingServer; raw->server = plain POSIX "
                "clients -> RemotingServer; baseline = POSIX client -> POSIX echo server\n");
    std::printf("%-12s %6s %14s %14s %10s\n", "", "conns", "requests/s", "baseline/s", "ratio");
    // QROCKET_BENCH_ONLY=qrocket runs only the RemotingClient -> RemotingServer rows (profiling).
    const bool onlyQRocket = qgetenv("QROCKET_BENCH_ONLY") == "qrocket";
    for (int connections : {1, 8}) {
        const Figure remoting = runRemoting(config, connections);
        const Figure raw = onlyQRocket ? Figure() : runRaw(config, connections);
        const Figure mixed = onlyQRocket ? Figure() : runRawAgainstServer(config, connections);
        std::printf("%-12s %6d %14.0f %14.0f %9.2fx   (frame %lld B)\n", "qrocket", connections,
            remoting.requestsPerSecond, raw.requestsPerSecond,
            raw.requestsPerSecond > 0 ? remoting.requestsPerSecond / raw.requestsPerSecond : 0.0,
            static_cast<long long>(remoting.frameBytes));
        std::printf("%-12s %6d %14.0f %14.0f %9.2fx\n", "raw->server", connections,
            mixed.requestsPerSecond, raw.requestsPerSecond,
            raw.requestsPerSecond > 0 ? mixed.requestsPerSecond / raw.requestsPerSecond : 0.0);
        std::fflush(stdout);
    }
    return 0;
}
