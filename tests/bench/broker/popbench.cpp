// qrocket-bench-pop: the consume rate of POP + BATCH_ACK against PULL on the same backlog, in one
// run, through an in-process BrokerController on loopback sockets (store in a temporary
// directory). The backlog (--messages, --size bytes each, over 4 queues) is written straight into
// the store; then --consumers threads, each with its own connection,
//   pull: PULL_MESSAGE 32 at a time, one queue per thread (a PULL group's rebalance), and
//   pop:  POP_MESSAGE 32 at a time from any queue (queueId -1), each answer settled with one
//         BATCH_ACK_MESSAGE (what a RocketMQ 5 SimpleConsumer does with a batch),
// until every message was consumed once. Prints messages per second for each and the ratio.
// A program that prints figures; never a test.
//
//   qrocket-bench-pop [--messages N] [--size B] [--consumers C]

#include "broker/brokercontroller.h"
#include "broker/managers/topicconfigmanager.h"
#include "clientlib/protocol/bodies/popbodies.h"
#include "clientlib/protocol/headers/popheaders.h"
#include "clientlib/remoting/remotingclient.h"
#include "storage/messagestore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <atomic>
#include <cstdio>
#include <map>
#include <thread>
#include <vector>

using namespace qrocket;
using protocol::RemotingCommand;

namespace {

constexpr int kQueues = 4;
const QByteArray kTopic = "BenchPop";

int countRecords(const QByteArray &body, std::vector<std::int64_t> *offsets = nullptr)
{
    int n = 0;
    qsizetype at = 0;
    while (at < body.size()) {
        protocol::MessageRecordView v;
        const auto r = protocol::decodeRecord(QByteArrayView(body).sliced(at), v, false);
        if (r.status != protocol::RecordStatus::Ok)
            break;
        if (offsets)
            offsets->push_back(v.queueOffset);
        at += r.size;
        ++n;
    }
    return n;
}

double pullAll(const QByteArray &addr, int consumers)
{
    std::atomic<std::int64_t> total {0};
    QElapsedTimer t;
    t.start();
    std::vector<std::thread> threads;
    for (int c = 0; c < consumers; ++c) {
        threads.emplace_back([&, c] {
            remoting::RemotingClient client;
            for (int q = c; q < kQueues; q += consumers) {
                std::int64_t offset = 0;
                for (;;) {
                    RemotingCommand r = RemotingCommand::createRequest(11);
                    r.setExt("consumerGroup", QByteArray("bench_pull"));
                    r.setExt("topic", kTopic);
                    r.setExt("queueId", QByteArray::number(q));
                    r.setExt("queueOffset", QByteArray::number(offset));
                    r.setExt("maxMsgNums", QByteArray("32"));
                    r.setExt("sysFlag", QByteArray("4"));
                    r.setExt("commitOffset", QByteArray("0"));
                    r.setExt("suspendTimeoutMillis", QByteArray("0"));
                    r.setExt("subscription", QByteArray("*"));
                    r.setExt("subVersion", QByteArray("0"));
                    r.setExt("expressionType", QByteArray("TAG"));
                    auto answer = client.invokeSync(addr, std::move(r), 30000);
                    if (!answer || answer->code != 0)
                        break;
                    const int n = countRecords(answer->body);
                    if (n == 0)
                        break;
                    total += n;
                    offset = answer->extLong("nextBeginOffset").value_or(offset + n);
                }
            }
        });
    }
    for (std::thread &th : threads)
        th.join();
    const double secs = t.nsecsElapsed() / 1e9;
    std::printf("pull     %8lld messages in %6.2f s: %10.0f msg/s\n",
        static_cast<long long>(total.load()), secs, total.load() / secs);
    return total.load() / secs;
}

double popAll(const QByteArray &addr, const QByteArray &brokerName, int consumers, int messages)
{
    std::atomic<std::int64_t> total {0};
    std::atomic<int> emptyAnswers {0};
    QElapsedTimer t;
    t.start();
    std::vector<std::thread> threads;
    for (int c = 0; c < consumers; ++c) {
        threads.emplace_back([&] {
            remoting::RemotingClient client;
            while (total.load() < messages && emptyAnswers.load() < 1000) {
                protocol::PopMessageRequestHeader h;
                h.consumerGroup = "bench_pop";
                h.topic = kTopic;
                h.queueId = -1;
                h.maxMsgNums = 32;
                h.invisibleTime = 60000;
                h.pollTime = 0;
                h.bornTime = QDateTime::currentMSecsSinceEpoch();
                h.initMode = protocol::ConsumeInitMode::Min;
                RemotingCommand r = RemotingCommand::createRequest(200050);
                h.encode(r);
                auto answer = client.invokeSync(addr, std::move(r), 30000);
                if (!answer || answer->code != 0) {
                    ++emptyAnswers;
                    continue;
                }
                auto ph = protocol::PopMessageResponseHeader::decode(*answer);
                auto starts
                    = ph ? protocol::parseStartOffsetInfo(ph->startOffsetInfo) : std::nullopt;
                auto msgs = ph ? protocol::parseMsgOffsetInfo(ph->msgOffsetInfo) : std::nullopt;
                if (!starts || !msgs)
                    break;
                protocol::BatchAckMessageRequestBody body;
                body.brokerName = brokerName;
                int n = 0;
                for (std::size_t i = 0; i < msgs->size() && i < starts->size(); ++i) {
                    protocol::BatchAck a;
                    a.consumerGroup = "bench_pop";
                    a.topic = kTopic;
                    a.retry = QByteArray(1, (*msgs)[i].retry);
                    a.startOffset = (*starts)[i].value;
                    a.queueId = (*msgs)[i].queueId;
                    a.popTime = ph->popTime;
                    a.invisibleTime = ph->invisibleTime;
                    a.offsets = (*msgs)[i].offsets;
                    n += static_cast<int>(a.offsets.size());
                    body.acks.push_back(std::move(a));
                }
                RemotingCommand ack = RemotingCommand::createRequest(200151);
                ack.body = body.toJson();
                auto acked = client.invokeSync(addr, std::move(ack), 30000);
                if (!acked || acked->code != 0)
                    break;
                total += n;
            }
        });
    }
    for (std::thread &th : threads)
        th.join();
    const double secs = t.nsecsElapsed() / 1e9;
    std::printf("pop+ack  %8lld messages in %6.2f s: %10.0f msg/s\n",
        static_cast<long long>(total.load()), secs, total.load() / secs);
    return total.load() / secs;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("messages"), QStringLiteral("backlog size"),
        QStringLiteral("N"), QStringLiteral("200000")});
    parser.addOption({QStringLiteral("size"), QStringLiteral("body bytes"), QStringLiteral("B"),
        QStringLiteral("128")});
    parser.addOption({QStringLiteral("consumers"), QStringLiteral("consumer threads"),
        QStringLiteral("C"), QStringLiteral("4")});
    parser.process(app);
    const int messages = std::max(1, parser.value(QStringLiteral("messages")).toInt());
    const int size = std::max(1, parser.value(QStringLiteral("size")).toInt());
    const int consumers = std::clamp(parser.value(QStringLiteral("consumers")).toInt(), 1, kQueues);

    QTemporaryDir dir;
    broker::BrokerConfig config;
    config.brokerIP1 = QStringLiteral("127.0.0.1");
    config.brokerIP2 = QStringLiteral("127.0.0.1");
    config.brokerName = QStringLiteral("bench-pop");
    config.namesrvAddr = QStringLiteral("127.0.0.1:1");
    config.storePathRootDir = dir.filePath(QStringLiteral("store"));
    config.listenPort = 0;
    storage::MessageStoreConfig storeConfig;
    storeConfig.storePathRootDir = config.storePathRootDir;
    broker::BrokerController controller(config, storeConfig);
    if (Status st = controller.initialize(); !st) {
        std::fprintf(stderr, "initialize: %s\n", qPrintable(st.message()));
        return 1;
    }
    if (Status st = controller.start(); !st) {
        std::fprintf(stderr, "start: %s\n", qPrintable(st.message()));
        return 1;
    }
    static_cast<void>(
        controller.context().topics->updateTopicConfig(protocol::TopicConfig(kTopic, kQueues)));
    storage::MessageStore &store = *controller.context().store;
    storage::MessageExtBrokerInner inner;
    inner.topic = kTopic;
    inner.body = QByteArray(size, 'x');
    inner.bornTimestamp = QDateTime::currentMSecsSinceEpoch();
    inner.storeHost = controller.context().storeHostAddress;
    inner.bornHost = inner.storeHost;
    inner.waitStoreMsgOk = false;
    for (int i = 0; i < messages; ++i) {
        inner.queueId = i % kQueues;
        store.putMessage(inner, [](const storage::PutMessageResult &) {});
    }
    if (!store.waitForDispatch(120000)) {
        std::fprintf(stderr, "the backlog was not dispatched in time\n");
        return 1;
    }
    std::printf("backlog: %d messages of %d bytes over %d queues, %d consumer threads\n", messages,
        size, kQueues, consumers);
    const QByteArray addr = "127.0.0.1:" + QByteArray::number(controller.listenPort());
    const double pull = pullAll(addr, consumers);
    const double pop = popAll(addr, "bench-pop", consumers, messages);
    std::printf("pop+ack / pull: %.0f %%\n", pull > 0 ? 100.0 * pop / pull : 0.0);
    controller.shutdown();
    return 0;
}
