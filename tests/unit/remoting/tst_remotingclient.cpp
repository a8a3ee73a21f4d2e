// RemotingClient against a loopback RemotingServer: concurrency, timeouts, connection loss,
// reconnect, oneway, name-server failover, thread rules.

#include "remotingtestutil.h"

#include <QFile>
#include <QTcpServer>

#include <future>
#include <set>
#include <thread>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::remoting::test;

namespace {

RemotingClient::Options fastClientOptions()
{
    RemotingClient::Options options;
    options.sweepInterval = std::chrono::milliseconds(20);
    options.randomNameServerStart = false;
    return options;
}

/// A loopback port with nothing listening on it.
quint16 deadPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 1;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

/// Write syscalls this process has made (/proc/self/io "syscw"); -1 when unreadable.
qint64 writeSyscalls()
{
    QFile f(QStringLiteral("/proc/self/io"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("syscw:"))
            return line.mid(6).trimmed().toLongLong();
    }
    return -1;
}

} // namespace

class tst_RemotingClient : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<RemotingServer> startServer(quint16 port = 0)
    {
        RemotingServer::Options options = loopbackServerOptions();
        options.port = port;
        auto server = std::make_unique<RemotingServer>(options);
        server->registerProcessor(kEchoCode, std::make_shared<EchoProcessor>());
        server->registerProcessor(kSilentCode, m_silent);
        if (!server->start())
            return nullptr;
        return server;
    }

    std::shared_ptr<SilentProcessor> m_silent = std::make_shared<SilentProcessor>();

private Q_SLOTS:
    void thousandConcurrentRequestsOverEightConnections()
    {
        auto server = startServer();
        QVERIFY(server);
        constexpr int kClients = 8;
        constexpr int kRequests = 1000;
        std::atomic<int> answered {0};
        std::atomic<int> wrong {0};
        std::vector<std::unique_ptr<RemotingClient>> clients;
        for (int i = 0; i < kClients; ++i)
            clients.push_back(std::make_unique<RemotingClient>(fastClientOptions()));
        for (int i = 0; i < kRequests; ++i) {
            const QByteArray seq = QByteArray::number(i);
            RemotingCommand request = makeRequest(kEchoCode, "body-" + seq);
            request.setExt(QByteArrayLiteral("seq"), seq);
            clients[std::size_t(i % kClients)]->invokeAsync(
                addressOf(*server), request, 10000, [&, seq](Result<RemotingCommand> result) {
                    if (!result.has_value() || result->code != 0
                        || result->extString("seq") != QByteArrayView(seq)
                        || result->body != "body-" + seq || !result->isResponse()) {
                        ++wrong;
                    }
                    ++answered;
                });
        }
        QTRY_COMPARE_WITH_TIMEOUT(answered.load(), kRequests, 20000);
        QCOMPARE(wrong.load(), 0);
        QCOMPARE(server->connectionCount(), kClients);
        clients.clear();
    }

    void sustainedLargeResponsesKeepTheReadBufferBounded()
    {
        // Responses of an odd size, many in flight: most reads end inside a frame, so the read
        // buffer keeps a partial frame from turn to turn. It once grew by doubling on every such
        // turn (capacity() counts space the buffer had already handed back at its front) until
        // the process ran out of address space; now its size follows the frames.
        auto server = startServer();
        QVERIFY(server);
        RemotingClient client(fastClientOptions());
        const QByteArray body(200 * 1024 + 3, 'b');
        constexpr int kTotal = 400;
        constexpr int kWindow = 32;
        const qint64 vmBefore = vmPeakKiB();
        std::atomic<int> sent {0};
        std::atomic<int> answered {0};
        std::atomic<int> wrong {0};
        std::function<void()> sendOne = [&] {
            if (sent.fetch_add(1) >= kTotal)
                return;
            client.invokeAsync(addressOf(*server), makeRequest(kEchoCode, body), 20000,
                [&](Result<RemotingCommand> result) {
                    if (!result.has_value() || result->body.size() != body.size())
                        ++wrong;
                    sendOne();
                    ++answered; // last: the test may return (and destroy sendOne) right after
                });
        };
        for (int i = 0; i < kWindow; ++i)
            sendOne();
        QTRY_COMPARE_WITH_TIMEOUT(answered.load(), kTotal, 60000);
        QCOMPARE(wrong.load(), 0);
        const qint64 grownMiB = (vmPeakKiB() - vmBefore) / 1024;
        qInfo("VmPeak grew by %lld MiB for %d MiB of responses", grownMiB,
            int(qint64(kTotal) * body.size() >> 20));
        QVERIFY2(grownMiB < 512, qPrintable(QStringLiteral("VmPeak grew by %1 MiB").arg(grownMiB)));
    }

    void requestsQueuedTogetherLeaveInOneWrite()
    {
        // Requests that other threads queued while the I/O thread was busy are drained as one
        // batch and go out corked: one write() per connection for the batch, not one per
        // request (each loopback write costs about what the frame does, on both ends).
        if (writeSyscalls() < 0)
            QSKIP("no /proc/self/io on this system");
        auto server = startServer();
        QVERIFY(server);
        RemotingClient client(fastClientOptions());
        QVERIFY(client.invokeSync(addressOf(*server), makeRequest(kEchoCode), 5000).has_value());
        // Hold the I/O thread inside a callback while the batch is queued.
        std::promise<void> entered;
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        client.invokeAsync(addressOf(*server), makeRequest(kEchoCode), 5000, [&, released](auto) {
            entered.set_value();
            released.wait_for(std::chrono::seconds(10));
        });
        QCOMPARE(
            entered.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
        constexpr int kBatch = 64;
        const int callsBefore = m_silent->calls.load();
        ResultSink sink;
        const qint64 writesBefore = writeSyscalls();
        for (int i = 0; i < kBatch; ++i)
            client.invokeAsync(addressOf(*server), makeRequest(kSilentCode, QByteArray(100, 'x')),
                1000, sink.callback());
        release.set_value();
        QTRY_COMPARE_WITH_TIMEOUT(m_silent->calls.load() - callsBefore, kBatch, 10000);
        const qint64 writes = writeSyscalls() - writesBefore;
        qInfo("%d queued requests: %lld write syscalls in the process", kBatch, writes);
        // One socket write plus a few event-loop wake-ups (eventfd writes); one write per
        // request would be at least kBatch.
        QVERIFY2(writes < kBatch / 4, qPrintable(QString::number(writes)));
        // Every one of them still completes (the silent server never answers: timeouts).
        QTRY_COMPARE_WITH_TIMEOUT(sink.count(), kBatch, 10000);
        for (int i = 0; i < kBatch; ++i)
            QCOMPARE(sink.at(i).error().code(), Status::Code::Timeout);
    }

    void invokeSyncRefusedOnIoThread()
    {
        auto server = startServer();
        ResultSink sink;
        RemotingClient client(fastClientOptions());
        std::atomic<int> code {-1};
        client.invokeAsync(
            addressOf(*server), makeRequest(kEchoCode), 3000, [&](Result<RemotingCommand>) {
                auto nested = client.invokeSync(addressOf(*server), makeRequest(kEchoCode), 1000);
                code = int(nested.status().code());
            });
        QTRY_COMPARE_WITH_TIMEOUT(code.load(), int(Status::Code::Internal), 5000);
    }

    void timesOutWhenProcessorNeverAnswers()
    {
        auto server = startServer();
        RemotingClient client(fastClientOptions());
        QVERIFY(client.invokeSync(addressOf(*server), makeRequest(kEchoCode), 3000).has_value());
        const int before = m_silent->calls.load();
        QElapsedTimer timer;
        timer.start();
        auto result = client.invokeSync(addressOf(*server), makeRequest(kSilentCode), 300);
        const qint64 elapsed = timer.elapsed();
        QVERIFY(!result.has_value());
        QCOMPARE(result.error().code(), Status::Code::Timeout);
        QVERIFY2(elapsed >= 290 && elapsed < 1500, qPrintable(QString::number(elapsed)));
        QCOMPARE(m_silent->calls.load(), before + 1);
        // The connection stays usable; a late response would simply be dropped.
        QVERIFY(client.invokeSync(addressOf(*server), makeRequest(kEchoCode), 3000).has_value());
    }

    void connectionLossFailsPendingWithUnavailable()
    {
        ResultSink sink;
        auto server = startServer();
        RemotingClient client(fastClientOptions());
        const int before = m_silent->calls.load();
        client.invokeAsync(addressOf(*server), makeRequest(kSilentCode), 30000, sink.callback());
        client.invokeAsync(addressOf(*server), makeRequest(kSilentCode), 30000, sink.callback());
        // Both requests are at the server (pending on the client) when the connection goes.
        QTRY_COMPARE_WITH_TIMEOUT(m_silent->calls.load(), before + 2, 3000);
        server->stop();
        QTRY_COMPARE_WITH_TIMEOUT(sink.count(), 2, 3000);
        QCOMPARE(sink.at(0).error().code(), Status::Code::Unavailable);
        QCOMPARE(sink.at(1).error().code(), Status::Code::Unavailable);
    }

    void reconnectsAfterServerRestart()
    {
        auto server = startServer();
        const quint16 port = server->serverPort();
        const QByteArray address = addressOf(*server);
        RemotingClient client(fastClientOptions());
        QVERIFY(client.invokeSync(address, makeRequest(kEchoCode), 3000).has_value());
        server->stop();
        auto down = client.invokeSync(address, makeRequest(kEchoCode), 3000);
        QVERIFY(!down.has_value());
        QCOMPARE(down.error().code(), Status::Code::Unavailable);
        server = startServer(port);
        QVERIFY(server);
        auto up = client.invokeSync(address, makeRequest(kEchoCode, "again"), 3000);
        QVERIFY2(up.has_value(), qPrintable(up.status().toString()));
        QCOMPARE(up->body, QByteArray("again"));
    }

    void onewayReachesProcessor()
    {
        std::atomic<int> seen {0};
        auto server = startServer();
        server->registerProcessor(kCountCode,
            std::make_shared<FunctionProcessor>(
                [&](const ChannelPtr &, RemotingCommand request, Responder) {
                    if (request.isOneway() && request.body == "fire")
                        ++seen;
                }));
        RemotingClient client(fastClientOptions());
        for (int i = 0; i < 3; ++i)
            client.invokeOneway(addressOf(*server), makeRequest(kCountCode, "fire"));
        QTRY_COMPARE_WITH_TIMEOUT(seen.load(), 3, 3000);
    }

    void failsFastOnBadOrDeadAddress()
    {
        RemotingClient client(fastClientOptions());
        auto bad = client.invokeSync("no-port-here", makeRequest(kEchoCode), 1000);
        QCOMPARE(bad.error().code(), Status::Code::InvalidArgument);
        const QByteArray dead = "127.0.0.1:" + QByteArray::number(deadPort());
        QElapsedTimer timer;
        timer.start();
        auto refused = client.invokeSync(dead, makeRequest(kEchoCode), 3000);
        QCOMPARE(refused.error().code(), Status::Code::Unavailable);
        QVERIFY(timer.elapsed() < 2000);
    }

    void nameServerFailover()
    {
        auto server = startServer();
        const QByteArray dead = "127.0.0.1:" + QByteArray::number(deadPort());
        RemotingClient client(fastClientOptions());
        QVERIFY(!client.invokeNameServerSync(makeRequest(kEchoCode), 1000).has_value());
        client.setNameServerAddresses(dead + ";" + addressOf(*server));
        QCOMPARE(client.currentNameServer(), dead);
        auto result = client.invokeNameServerSync(makeRequest(kEchoCode, "ns"), 3000);
        QVERIFY2(result.has_value(), qPrintable(result.status().toString()));
        QCOMPARE(result->body, QByteArray("ns"));
        QCOMPARE(client.currentNameServer(), addressOf(*server));
        // The working one stays current.
        QVERIFY(client.invokeNameServerSync(makeRequest(kEchoCode), 3000).has_value());
        QCOMPARE(client.currentNameServer(), addressOf(*server));
        // All dead: Unavailable after trying each once.
        client.setNameServerAddresses(dead + ";" + dead);
        auto none = client.invokeNameServerSync(makeRequest(kEchoCode), 3000);
        QCOMPARE(none.error().code(), Status::Code::Unavailable);
    }

    void binaryHeaderRoundTrip()
    {
        auto server = startServer();
        RemotingClient client(fastClientOptions());
        RemotingCommand request = makeRequest(kEchoCode, "bin");
        request.serializeType = protocol::SerializeType::RocketMQ;
        request.setExt(QByteArrayLiteral("seq"), QByteArrayLiteral("b"));
        auto result = client.invokeSync(addressOf(*server), request, 3000);
        QVERIFY(result.has_value());
        QCOMPARE(result->serializeType, protocol::SerializeType::RocketMQ);
        QCOMPARE(result->extString("seq"), QByteArrayView("b"));
    }

    void channelClosedSignalOnClientSide()
    {
        QList<QByteArray> closed;
        QObject context;
        auto server = startServer();
        RemotingClient client(fastClientOptions());
        connect(&client, &RemotingClient::channelClosed, &context,
            [&](quint64, const QByteArray &address) { closed.append(address); });
        QVERIFY(client.invokeSync(addressOf(*server), makeRequest(kEchoCode), 3000).has_value());
        const QByteArray address = addressOf(*server);
        server->stop();
        QTRY_COMPARE_WITH_TIMEOUT(closed.size(), 1, 3000);
        QCOMPARE(closed.first(), address);
    }

    void shutdownCompletesPendingAndLaterCalls()
    {
        ResultSink sink;
        auto server = startServer();
        auto client = std::make_unique<RemotingClient>(fastClientOptions());
        client->invokeAsync(addressOf(*server), makeRequest(kSilentCode), 30000, sink.callback());
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 1, 3000);
        client->shutdown();
        QCOMPARE(sink.count(), 1);
        QCOMPARE(sink.at(0).error().code(), Status::Code::Unavailable);
        client->invokeAsync(addressOf(*server), makeRequest(kEchoCode), 1000, sink.callback());
        QCOMPARE(sink.count(), 2);
        QCOMPARE(sink.at(1).error().code(), Status::Code::Unavailable);
        client.reset();
        QTRY_COMPARE_WITH_TIMEOUT(server->connectionCount(), 0, 3000);
    }

    void closesOnGarbageFromServer()
    {
        // A "server" that answers every connection with bytes that are not a frame.
        QTcpServer fake;
        QVERIFY(fake.listen(QHostAddress::LocalHost, 0));
        connect(&fake, &QTcpServer::newConnection, &fake, [&fake] {
            while (QTcpSocket *socket = fake.nextPendingConnection())
                socket->write(QByteArray::fromHex("00000010ff000004") + QByteArray(12, 'x'));
        });
        ResultSink sink;
        RemotingClient client(fastClientOptions());
        client.invokeAsync("127.0.0.1:" + QByteArray::number(fake.serverPort()),
            makeRequest(kEchoCode), 5000, sink.callback());
        QTRY_COMPARE_WITH_TIMEOUT(sink.count(), 1, 5000); // the loop runs `fake` meanwhile
        QCOMPARE(sink.at(0).error().code(), Status::Code::Unavailable);
        QVERIFY2(sink.at(0).error().message().contains(QLatin1String("invalid frame")),
            qPrintable(sink.at(0).error().message()));
    }

    void concurrentCallersFromManyThreads()
    {
        auto server = startServer();
        RemotingClient client(fastClientOptions());
        std::atomic<int> ok {0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                for (int i = 0; i < 50; ++i) {
                    const QByteArray body = QByteArray::number(t * 1000 + i);
                    auto result
                        = client.invokeSync(addressOf(*server), makeRequest(kEchoCode, body), 5000);
                    if (result.has_value() && result->body == body)
                        ++ok;
                }
            });
        }
        for (auto &thread : threads)
            thread.join();
        QCOMPARE(ok.load(), 200);
    }
};

QTEST_GUILESS_MAIN(tst_RemotingClient)
#include "tst_remotingclient.moc"
