// qrocket-bench-grpc: send throughput of one qrocket-broker daemon over RocketMQ 5's gRPC
// protocol (SendMessage, the generated stub's callback API) beside the same broker's remoting
// SEND_MESSAGE_V2 (RemotingClient::invokeAsync), in the same run, with the same body size and
// the same number of requests in flight; then the ratio. Issue 27 asks the gRPC path to stay
// within 1.5x of the remoting one. A program that prints figures; never a test.
//
//   qrocket-bench-grpc [--seconds S] [--window W] [--size BYTES] [--rounds N] [--channels C]
//                      [--receivers R] [--backlog N]
//                      [--only remoting|grpc|floor|route|receive|receive-remoting]
//
// Then receive + ack: R threads each pop 32 messages at a time from what the remoting rows sent
// and acknowledge them, over remoting (POP_MESSAGE, then the 32 ACK_MESSAGEs at once) and over
// gRPC (ReceiveMessage, then one AckMessage of 32 entries), one row each, each with a group of
// its own that starts at offset 0.
//
// --acl: the broker runs with aclEnable (one admin account in plain_acl.yml); every remoting
// request is signed (AccessKey/Signature) and every gRPC call carries the SDKs' authorization
// metadata, so both rows pay for access control as their clients would.
//
// --channels: gRPC connections the window is spread over (default 1, as RocketMQ's SDKs keep one
// per endpoint; gRPC serialises each HTTP/2 connection's work on both sides).
//
// --only: that send row alone, --rounds times, and nothing else (a profiler on the broker then
// sees one path; each row also prints how many messages it sent). --only receive (gRPC: the
// simple consumer's ReceiveMessage + AckMessage) or receive-remoting first sends --backlog
// messages over remoting (the same number in every run, so that two runs of different lengths
// subtract to the receive + ack path alone), then runs that receive row --rounds times.
//
// After the send rows, two unary rows without a store: "floor", QueryRoute with an empty topic
// name, which the service refuses at once (ILLEGAL_TOPIC): gRPC's own cost per unary call on
// this machine (plus the ACL's authentication with --acl), as the remoting benchmarks print
// their echo; and "route", QueryRoute for the bench topic, which also builds its route (from the
// one-second route cache: about 133k broker instructions a call, measured with callgrind,
// so it is no floor).
//
// Each round runs remoting then gRPC for S seconds each (the rows alternate so that neither
// always comes first on a machine whose load changes); the store flushes asynchronously.

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/poptestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QMessageAuthenticationCode>
#include <QTemporaryDir>

#include <apache/rocketmq/v2/service.grpc.pb.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <grpcpp/grpcpp.h>
#include <memory>
#include <mutex>

using namespace qrocket;
using namespace qrocket::brokertest;
namespace pb = ::apache::rocketmq::v2;
using Clock = std::chrono::steady_clock;

namespace {

struct Row
{
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    double seconds = 0;
    double rate() const { return seconds > 0 ? double(ok) / seconds : 0; }
};

/// Keeps `window` requests in flight for `seconds`: `issue(done)` starts one request and calls
/// done(ok) when it completes (any thread).
/// `limit` >= 0: no more than that many requests, however long it takes.
template<class Issue>
Row drive(int window, double seconds, Issue issue, std::int64_t limit = -1)
{
    struct State
    {
        std::mutex mutex;
        std::condition_variable idle;
        int inFlight = 0;
        std::atomic<std::int64_t> ok {0}, failed {0};
        std::atomic<std::int64_t> issued {0};
        Clock::time_point end;
    };
    auto st = std::make_shared<State>();
    const Clock::time_point start = Clock::now();
    st->end = start
        + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    std::function<void()> next;
    auto done = [st, &next, limit](bool ok) {
        (ok ? st->ok : st->failed).fetch_add(1, std::memory_order_relaxed);
        if ((limit < 0 && Clock::now() < st->end) || (limit >= 0 && st->issued.load() < limit)) {
            next();
            return;
        }
        std::lock_guard lock(st->mutex);
        if (--st->inFlight == 0)
            st->idle.notify_all();
    };
    next = [&issue, done, st] {
        st->issued.fetch_add(1);
        issue(done);
    };
    if (limit >= 0)
        window = int(std::min<std::int64_t>(window, limit));
    if (window == 0)
        return Row {};
    {
        std::lock_guard lock(st->mutex);
        st->inFlight = window;
    }
    for (int i = 0; i < window; ++i)
        next();
    std::unique_lock lock(st->mutex);
    // Bounded: every request has its own 15 s timeout (a limited run: 10 minutes).
    st->idle.wait_for(lock, std::chrono::duration<double>(limit >= 0 ? 600 : seconds + 30),
        [&] { return st->inFlight == 0; });
    Row r;
    r.ok = st->ok.load();
    r.failed = st->failed.load();
    r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return r;
}

pb::SendMessageRequest grpcRequest(const std::string &body, std::int64_t n)
{
    pb::SendMessageRequest req;
    pb::Message *m = req.add_messages();
    m->mutable_topic()->set_name("BenchGrpc");
    m->set_body(body);
    m->mutable_system_properties()->set_message_id("BENCH-" + std::to_string(n));
    m->mutable_system_properties()->set_tag("T");
    m->mutable_system_properties()->set_message_type(pb::NORMAL);
    return req;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qrocket-bench-grpc"));
    QLoggingCategory::setFilterRules(QStringLiteral("qrocket.*.info=false"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("gRPC vs remoting send rate of one broker"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("seconds per row"),
        QStringLiteral("s"), QStringLiteral("5")});
    parser.addOption({QStringLiteral("window"), QStringLiteral("requests in flight"),
        QStringLiteral("n"), QStringLiteral("64")});
    parser.addOption({QStringLiteral("size"), QStringLiteral("body bytes"), QStringLiteral("n"),
        QStringLiteral("1024")});
    parser.addOption({QStringLiteral("rounds"), QStringLiteral("remoting+gRPC row pairs"),
        QStringLiteral("n"), QStringLiteral("2")});
    parser.addOption({QStringLiteral("channels"), QStringLiteral("gRPC connections"),
        QStringLiteral("n"), QStringLiteral("1")});
    parser.addOption({QStringLiteral("receivers"), QStringLiteral("receive+ack threads"),
        QStringLiteral("n"), QStringLiteral("8")});
    parser.addOption({QStringLiteral("only"),
        QStringLiteral("one row: remoting, grpc, floor, route, receive, receive-remoting"),
        QStringLiteral("path")});
    parser.addOption({QStringLiteral("start-timeout"),
        QStringLiteral("seconds the broker may take to listen (a profiler's wrapper)"),
        QStringLiteral("s"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("acl"), QStringLiteral("aclEnable: signed requests")});
    parser.addOption({QStringLiteral("backlog"),
        QStringLiteral("--only receive*: messages sent (remoting) before receiving"),
        QStringLiteral("n"), QStringLiteral("50000")});
    parser.process(app);
    const bool acl = parser.isSet(QStringLiteral("acl"));
    const double seconds = std::max(0.5, parser.value(QStringLiteral("seconds")).toDouble());
    const int window = std::max(1, parser.value(QStringLiteral("window")).toInt());
    const int size = std::max(1, parser.value(QStringLiteral("size")).toInt());
    const int rounds = std::max(1, parser.value(QStringLiteral("rounds")).toInt());
    const int channels = std::max(1, parser.value(QStringLiteral("channels")).toInt());
    const int receivers = std::max(1, parser.value(QStringLiteral("receivers")).toInt());
    const QString only = parser.value(QStringLiteral("only"));
    const std::int64_t backlog
        = std::max<qint64>(1, parser.value(QStringLiteral("backlog")).toLongLong());
    // A broker started through a profiler (QROCKET_BIN_DIR naming a wrapper) takes longer.
    const int startTimeoutMs
        = std::max(10000, parser.value(QStringLiteral("start-timeout")).toInt() * 1000);
    if (!only.isEmpty() && only != QLatin1String("remoting") && only != QLatin1String("grpc")
        && only != QLatin1String("floor") && only != QLatin1String("route")
        && only != QLatin1String("receive") && only != QLatin1String("receive-remoting")) {
        std::fprintf(stderr, "--only: remoting, grpc, floor, route, receive or receive-remoting\n");
        return 1;
    }

    if (qEnvironmentVariableIsEmpty("QROCKET_BIN_DIR"))
        qputenv("QROCKET_BIN_DIR", QCoreApplication::applicationDirPath().toLocal8Bit());
    QTemporaryDir dir;
    if (!dir.isValid())
        return 1;
    testlib::DaemonProcess broker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    quint16 grpcPort = 0;
    const QString store = dir.filePath(QStringLiteral("store"));
    const QString home = dir.filePath(QStringLiteral("home"));
    static constexpr char kAk[] = "benchadmin";
    static constexpr char kSk[] = "bench-admin-secret";
    if (acl) {
        QDir().mkpath(home + QStringLiteral("/conf"));
        QFile rules(home + QStringLiteral("/conf/plain_acl.yml"));
        if (!rules.open(QIODevice::WriteOnly)
            || rules.write(QByteArray("accounts:\n  - accessKey: ") + kAk
                   + "\n    secretKey: " + kSk + "\n    admin: true\n")
                < 0)
            return 1;
    }
    // A remoting request as a client with the account sends it (nothing without --acl).
    auto sign = [acl](RemotingCommand r) {
        if (acl)
            protocol::aclSign(r, kAk, kSk);
        return r;
    };
    // The SDKs' gRPC metadata: HMAC-SHA1 of x-mq-date-time, in hex.
    const std::string dateTime = QDateTime::currentDateTimeUtc()
                                     .toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"))
                                     .toStdString();
    const std::string authorization = "MQv2-HMAC-SHA1 Credential=" + std::string(kAk)
        + ", SignedHeaders=x-mq-date-time, Signature="
        + QMessageAuthenticationCode::hash(
            QByteArray::fromStdString(dateTime), kSk, QCryptographicHash::Sha1)
              .toHex()
              .toUpper()
              .toStdString();
    auto metadata = [&](grpc::ClientContext &ctx) {
        ctx.AddMetadata("x-mq-client-id", "bench-grpc@1");
        if (acl) {
            ctx.AddMetadata("x-mq-date-time", dateTime);
            ctx.AddMetadata("authorization", authorization);
        }
    };
    auto config = [&](quint16 p) {
        grpcPort = testlib::freePort();
        return "brokerName=bench-grpc\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"
               "namesrvAddr=127.0.0.1:1\nlistenPort="
            + QByteArray::number(p) + "\ngrpcServerPort=" + QByteArray::number(grpcPort)
            + "\nstorePathRootDir=" + store.toUtf8() + "\n"
            + (acl ? "aclEnable=true\nrocketmqHome=" + home.toUtf8() + "\n" : QByteArray());
    };
    // startOnFreePort(), with the start timeout of --start-timeout.
    bool started = false;
    for (int attempt = 0; attempt < 5 && !started; ++attempt) {
        port = testlib::freePort();
        started = port >= 1026
            && broker.start(dir.filePath(QStringLiteral("broker.conf")), config(port), port, {},
                startTimeoutMs);
    }
    if (!started || !testlib::waitForPort(grpcPort, startTimeoutMs)) {
        std::fprintf(stderr, "broker did not start: %s\n", qPrintable(broker.error()));
        return 1;
    }
    remoting::RemotingClient client;
    const QByteArray addr = localAddr(port);
    for (const char *topic : {"BenchRemoting", "BenchGrpc"}) {
        auto r = client.invokeSync(addr,
            sign(request(17,
                {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "8"},
                    {"writeQueueNums", "8"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                    {"topicSysFlag", "0"}, {"order", "false"}})),
            15000);
        if (!r || r->code != 0) {
            std::fprintf(stderr, "cannot create %s\n", topic);
            return 1;
        }
    }
    std::vector<std::unique_ptr<pb::MessagingService::Stub>> stubs;
    for (int i = 0; i < channels; ++i) {
        grpc::ChannelArguments args;
        args.SetInt("qrocket.bench.channel", i); // distinct arguments: distinct connections
        stubs.push_back(pb::MessagingService::NewStub(grpc::CreateCustomChannel(
            "127.0.0.1:" + std::to_string(grpcPort), grpc::InsecureChannelCredentials(), args)));
    }
    const QByteArray body(size, 'b');
    const std::string grpcBody(static_cast<std::size_t>(size), 'b');
    std::atomic<std::int64_t> counter {0};

    auto remotingRow = [&](std::int64_t limit = -1) {
        return drive(
            window, seconds,
            [&](auto done) {
                const std::int64_t n = counter.fetch_add(1);
                RemotingCommand req = sign(sendV2("BenchRemoting", int(n % 8), body,
                    props({{"UNIQ_KEY", "BENCH-R"}, {"TAGS", "T"}})));
                client.invokeAsync(addr, std::move(req), 15000,
                    [done](Result<RemotingCommand> r) { done(r && r->code == 0); });
            },
            limit);
    };
    auto grpcRow = [&] {
        return drive(window, seconds, [&](auto done) {
            struct Call
            {
                grpc::ClientContext ctx;
                pb::SendMessageRequest req;
                pb::SendMessageResponse resp;
            };
            auto call = std::make_shared<Call>();
            metadata(call->ctx);
            call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(15));
            const std::int64_t n = counter.fetch_add(1);
            call->req = grpcRequest(grpcBody, n);
            stubs[static_cast<std::size_t>(n % channels)]->async()->SendMessage(
                &call->ctx, &call->req, &call->resp, [call, done](grpc::Status s) {
                    done(s.ok() && call->resp.status().code() == pb::OK);
                });
        });
    };

    // QueryRoute: `topic` empty is the floor of the gRPC stack on this machine (refused at once,
    // ILLEGAL_TOPIC: no processor, no store, no route); the bench topic builds its route.
    auto queryRouteRow = [&](const std::string &topic, pb::Code expected) {
        return drive(window, seconds, [&](auto done) {
            struct Call
            {
                grpc::ClientContext ctx;
                pb::QueryRouteRequest req;
                pb::QueryRouteResponse resp;
            };
            auto call = std::make_shared<Call>();
            metadata(call->ctx);
            call->ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(15));
            call->req.mutable_topic()->set_name(topic);
            const std::int64_t n = counter.fetch_add(1);
            stubs[static_cast<std::size_t>(n % channels)]->async()->QueryRoute(
                &call->ctx, &call->req, &call->resp, [call, done, expected](grpc::Status s) {
                    done(s.ok() && call->resp.status().code() == expected);
                });
        });
    };
    auto floorRow = [&] { return queryRouteRow(std::string(), pb::ILLEGAL_TOPIC); };
    auto routeRow = [&] { return queryRouteRow("BenchGrpc", pb::OK); };

    // Receive + ack, both from BenchRemoting's backlog. The gRPC group starts at offset 0 of each
    // queue (UpdateOffset; ReceiveMessage starts a new group at the end, as the proxy does).
    for (int q = 0; q < 8; ++q) {
        pb::UpdateOffsetRequest u;
        u.mutable_group()->set_name("BenchGrpcReceiver");
        u.mutable_message_queue()->mutable_topic()->set_name("BenchRemoting");
        u.mutable_message_queue()->set_id(q);
        u.set_offset(0);
        pb::UpdateOffsetResponse ur;
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(15));
        stubs[0]->UpdateOffset(&ctx, u, &ur);
    }
    auto receiveRow = [&](bool grpcPath) {
        std::atomic<std::int64_t> ok {0}, failed {0};
        const Clock::time_point start = Clock::now();
        const Clock::time_point end = start
            + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
        std::vector<std::thread> threads;
        for (int t = 0; t < receivers; ++t) {
            threads.emplace_back([&, t] {
                pb::MessagingService::Stub &stub = *stubs[static_cast<std::size_t>(t % channels)];
                while (Clock::now() < end) {
                    if (grpcPath) {
                        pb::ReceiveMessageRequest req;
                        req.mutable_group()->set_name("BenchGrpcReceiver");
                        req.mutable_message_queue()->mutable_topic()->set_name("BenchRemoting");
                        req.mutable_message_queue()->set_id(-1);
                        req.set_batch_size(32);
                        req.mutable_invisible_duration()->set_seconds(60);
                        req.mutable_long_polling_timeout()->set_seconds(1);
                        grpc::ClientContext ctx;
                        metadata(ctx);
                        ctx.set_deadline(
                            std::chrono::system_clock::now() + std::chrono::seconds(20));
                        auto reader = stub.ReceiveMessage(&ctx, req);
                        pb::AckMessageRequest ack;
                        ack.mutable_group()->set_name("BenchGrpcReceiver");
                        ack.mutable_topic()->set_name("BenchRemoting");
                        pb::ReceiveMessageResponse r;
                        while (reader->Read(&r))
                            if (r.has_message()) {
                                pb::AckMessageEntry *e = ack.add_entries();
                                e->set_message_id(r.message().system_properties().message_id());
                                e->set_receipt_handle(
                                    r.message().system_properties().receipt_handle());
                            }
                        reader->Finish();
                        if (ack.entries_size() == 0)
                            continue;
                        pb::AckMessageResponse ar;
                        grpc::ClientContext actx;
                        metadata(actx);
                        actx.set_deadline(
                            std::chrono::system_clock::now() + std::chrono::seconds(15));
                        const grpc::Status st = stub.AckMessage(&actx, ack, &ar);
                        for (const pb::AckMessageResultEntry &e : ar.entries())
                            (st.ok() && e.status().code() == pb::OK ? ok : failed).fetch_add(1);
                        if (!st.ok())
                            failed.fetch_add(ack.entries_size());
                    } else {
                        auto r = client.invokeSync(addr,
                            sign(popRequest(
                                "BenchRemotingReceiver", "BenchRemoting", -1, 32, 60000, 1000)),
                            20000);
                        if (!r)
                            continue;
                        const PopAnswer a = popAnswer(*r, "bench-grpc");
                        if (a.messages.empty())
                            continue;
                        struct Latch
                        {
                            std::mutex mutex;
                            std::condition_variable zero;
                            std::size_t left = 0;
                        } acked;
                        acked.left = a.messages.size();
                        for (const PoppedMessage &m : a.messages) {
                            client.invokeAsync(addr,
                                sign(ackRequest("BenchRemotingReceiver", "BenchRemoting", m)),
                                15000, [&](Result<RemotingCommand> ar) {
                                    (ar && ar->code == 0 ? ok : failed).fetch_add(1);
                                    std::lock_guard lock(acked.mutex);
                                    if (--acked.left == 0)
                                        acked.zero.notify_all();
                                });
                        }
                        std::unique_lock lock(acked.mutex);
                        // Bounded: each ack has its own 15 s timeout.
                        acked.zero.wait_for(
                            lock, std::chrono::seconds(30), [&] { return acked.left == 0; });
                    }
                }
            });
        }
        for (std::thread &th : threads)
            th.join();
        Row row;
        row.ok = ok.load();
        row.failed = failed.load();
        row.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return row;
    };
    std::printf("qrocket-bench-grpc: body %d B, %d in flight, %d gRPC connection(s), %.1f s per "
                "row, async flush%s\n",
        size, window, channels, seconds, acl ? ", aclEnable (signed requests)" : "");
    std::printf("%-6s %-10s %12s %10s %10s\n", "round", "path", "msgs/s", "failed", "sent");
    if (only.startsWith(QLatin1String("receive"))) {
        // A backlog of --backlog messages (the same in every run), then receive + ack alone.
        const Row sent = remotingRow(backlog);
        std::printf("backlog: %lld sent, %lld failed\n", static_cast<long long>(sent.ok),
            static_cast<long long>(sent.failed));
        for (int round = 1; round <= rounds; ++round) {
            const Row r = receiveRow(only == QLatin1String("receive"));
            std::printf("%-6d %-10s %12.0f %10lld %10lld\n", round, qPrintable(only), r.rate(),
                static_cast<long long>(r.failed), static_cast<long long>(r.ok));
        }
        broker.stop(120000);
        return 0;
    }
    if (!only.isEmpty()) {
        for (int round = 1; round <= rounds; ++round) {
            const Row r = only == QLatin1String("remoting") ? remotingRow()
                : only == QLatin1String("grpc")             ? grpcRow()
                : only == QLatin1String("floor")            ? floorRow()
                                                            : routeRow();
            std::printf("%-6d %-10s %12.0f %10lld %10lld\n", round, qPrintable(only), r.rate(),
                static_cast<long long>(r.failed), static_cast<long long>(r.ok));
        }
        broker.stop(120000);
        return 0;
    }
    double remotingSum = 0, grpcSum = 0;
    for (int round = 1; round <= rounds; ++round) {
        const bool grpcFirst = round % 2 == 0;
        for (int i = 0; i < 2; ++i) {
            const bool grpcNow = (i == 0) == grpcFirst;
            const Row r = grpcNow ? grpcRow() : remotingRow();
            (grpcNow ? grpcSum : remotingSum) += r.rate();
            std::printf("%-6d %-10s %12.0f %10lld %10lld\n", round, grpcNow ? "gRPC" : "remoting",
                r.rate(), static_cast<long long>(r.failed), static_cast<long long>(r.ok));
            std::fflush(stdout);
        }
    }
    std::printf("mean: remoting %.0f msgs/s, gRPC %.0f msgs/s, remoting/gRPC = %.2fx\n",
        remotingSum / rounds, grpcSum / rounds, grpcSum > 0 ? remotingSum / grpcSum : 0.0);
    const Row floor = floorRow();
    std::printf("%-6s %-10s %12.0f %10lld   (gRPC floor: QueryRoute of an empty topic, refused "
                "at once)\n",
        "-", "gRPC", floor.rate(), static_cast<long long>(floor.failed));
    const Row route = routeRow();
    std::printf("%-6s %-10s %12.0f %10lld   (QueryRoute of the bench topic: its route built)\n",
        "-", "gRPC", route.rate(), static_cast<long long>(route.failed));

    std::printf("receive + ack: %d threads, 32 per receive\n", receivers);
    const Row remotingReceive = receiveRow(false);
    std::printf("%-6s %-10s %12.0f %10lld\n", "-", "remoting", remotingReceive.rate(),
        static_cast<long long>(remotingReceive.failed));
    const Row grpcReceive = receiveRow(true);
    std::printf("%-6s %-10s %12.0f %10lld\n", "-", "gRPC", grpcReceive.rate(),
        static_cast<long long>(grpcReceive.failed));
    std::printf("receive + ack: remoting/gRPC = %.2fx\n",
        grpcReceive.rate() > 0 ? remotingReceive.rate() / grpcReceive.rate() : 0.0);
    broker.stop();
    return 0;
}
