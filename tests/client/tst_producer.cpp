// QRocket's producer against an embedded cluster of two brokers: sync/async/oneway sends, queue
// choice, auto-created topics, batches, compression, request/reply, transactions, and bad input
// (a clear error, no hang, nothing sent).

#include "clientlib/client/producerimpl.h"
#include "clientlib/protocol/messageid.h"
#include "clientlib/protocol/responsecode.h"
#include "clienttestutil.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTest>
#include <QThread>

#include <condition_variable>
#include <future>
#include <map>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_Producer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void syncSendReachesBothBrokers();
    void asyncSendsCompleteOffTheIoThread();
    void asyncToContextRunsOnItsThread();
    void onewaySendArrives();
    void unknownTopicIsCreatedThroughTbw102();
    void selectorKeepsAKeyOnOneQueue();
    void batchIsSplitAndConsumedWhole();
    void bigBodyIsCompressedAndRestored();
    void badMessagesAreRefusedBeforeTheWire();
    void unreachableNameServerFailsInBoundedTime();
    void duplicateGroupIsRefused();
    void requestGetsItsReply();
    void transactionsCommitRollbackAndCheckBack();
    void retryKeepsTheUniqueKey();
    void shutdownStopsEveryClientThread();

private:
    Result<std::vector<MessageExt>> pullAll(const QByteArray &topic);
    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Producer> m_producer;
};

void tst_Producer::initTestCase()
{
    m_cluster = startCluster(2);
    QVERIFY(m_cluster);
    QVERIFY(m_cluster->createTopic(QStringLiteral("ProducerTopic"), 4).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("ProducerTopic")).isOk());
    ProducerOptions o;
    o.group = "tst_producer";
    o.client = clientConfig(*m_cluster, "producer");
    m_producer = std::make_unique<Producer>(o);
    QVERIFY(m_producer->start().isOk());
}

void tst_Producer::cleanupTestCase()
{
    m_producer.reset();
    m_cluster.reset();
}

/// Every message of `topic` on every broker, through the client's own pull API.
Result<std::vector<MessageExt>> tst_Producer::pullAll(const QByteArray &topic)
{
    auto instance = ClientInstance::acquire(clientConfig(*m_cluster, "puller"));
    auto queues = instance->subscribeQueues(topic);
    if (!queues)
        return queues.error();
    std::vector<MessageExt> out;
    for (const MessageQueue &mq : *queues) {
        const QByteArray addr = instance->masterAddress(mq.brokerName);
        std::int64_t offset = 0;
        for (;;) {
            protocol::PullMessageRequestHeader h;
            h.consumerGroup = "tst_producer_puller";
            h.topic = topic;
            h.queueId = mq.queueId;
            h.queueOffset = offset;
            h.maxMsgNums = 32;
            h.sysFlag = protocol::PullSysFlag::Subscription;
            h.subscription = "*";
            h.expressionType = "TAG";
            std::promise<Result<PullResult>> p;
            auto f = p.get_future();
            instance->api().pullMessageAsync(addr, mq.brokerName, h, 3000,
                [&p](Result<PullResult> r) { p.set_value(std::move(r)); });
            auto r = f.get();
            if (!r)
                return r.error();
            if (r->status != PullStatus::Found)
                break;
            for (MessageExt &m : r->messages)
                out.push_back(std::move(m));
            offset = r->nextBeginOffset;
        }
    }
    return out;
}

void tst_Producer::syncSendReachesBothBrokers()
{
    std::set<QByteArray> brokers;
    for (int i = 0; i < 16; ++i) {
        auto r = m_producer->sendSync(
            Message("ProducerTopic", "TagA", "sync " + QByteArray::number(i)));
        QVERIFY_OK(r);
        QCOMPARE(r->status, SendStatus::SendOk);
        QCOMPARE(r->msgId.size(), 32); // UNIQ_KEY of an IPv4 client
        QVERIFY(protocol::decodeOffsetMessageId(r->offsetMsgId).has_value());
        brokers.insert(r->messageQueue.brokerName);
    }
    QCOMPARE(brokers.size(), std::size_t(2));
}

void tst_Producer::asyncSendsCompleteOffTheIoThread()
{
    constexpr int kCount = 300;
    std::mutex mutex;
    std::condition_variable cv;
    int done = 0;
    int failed = 0;
    std::atomic<int> onIoThread {0};
    for (int i = 0; i < kCount; ++i) {
        m_producer->sendAsync(
            Message("ProducerTopic", "async " + QByteArray::number(i)), [&](Result<SendResult> r) {
                if (QThread::currentThread()->objectName().startsWith(
                        QLatin1String("qrocket-cli-io")))
                    ++onIoThread;
                std::lock_guard lock(mutex);
                if (!r || r->status != SendStatus::SendOk)
                    ++failed;
                ++done;
                cv.notify_all();
            });
    }
    std::unique_lock lock(mutex);
    QVERIFY(cv.wait_for(lock, std::chrono::seconds(20), [&] { return done == kCount; }));
    QCOMPARE(failed, 0);
    QCOMPARE(onIoThread.load(), 0);
}

void tst_Producer::asyncToContextRunsOnItsThread()
{
    QObject context;
    bool called = false;
    bool onMyThread = false;
    m_producer->sendAsync(
        Message("ProducerTopic", "to context"), &context, [&](Result<SendResult> r) {
            called = r.has_value();
            onMyThread = QThread::currentThread() == context.thread();
        });
    QTRY_VERIFY_WITH_TIMEOUT(called, 5000);
    QVERIFY(onMyThread);
}

void tst_Producer::onewaySendArrives()
{
    const QByteArray body = "oneway " + QByteArray::number(QDateTime::currentMSecsSinceEpoch());
    QVERIFY(m_producer->sendOneway(Message("ProducerTopic", body)).isOk());
    QVERIFY(waitFor(
        [&] {
            auto all = pullAll("ProducerTopic");
            return all && std::any_of(all->begin(), all->end(), [&](const MessageExt &m) {
                return m.body() == body;
            });
        },
        5000));
}

void tst_Producer::unknownTopicIsCreatedThroughTbw102()
{
    auto r = m_producer->sendSync(Message("AutoCreatedByClient", "first"));
    QVERIFY_OK(r);
    QCOMPARE(r->status, SendStatus::SendOk);
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("AutoCreatedByClient"), std::chrono::seconds(10))
                .isOk()
        || m_cluster->topicRoute(QStringLiteral("AutoCreatedByClient")).has_value());
}

void tst_Producer::selectorKeepsAKeyOnOneQueue()
{
    std::set<int> queues;
    std::set<QByteArray> brokers;
    for (int i = 0; i < 10; ++i) {
        auto r = m_producer->sendSync(
            Message("ProducerTopic", "order-42 step " + QByteArray::number(i)),
            selectors::byHash("order-42"));
        QVERIFY_OK(r);
        queues.insert(r->messageQueue.queueId);
        brokers.insert(r->messageQueue.brokerName);
    }
    QCOMPARE(queues.size(), std::size_t(1));
    QCOMPARE(brokers.size(), std::size_t(1));
}

void tst_Producer::batchIsSplitAndConsumedWhole()
{
    ProducerOptions o = m_producer->options();
    o.group = "tst_producer_batch";
    o.maxMessageSize = 64 * 1024; // 100 x 2 KiB cannot go in one request
    Producer small(o);
    QVERIFY(small.start().isOk());
    std::vector<Message> batch;
    for (int i = 0; i < 100; ++i)
        batch.emplace_back(
            "BatchTopicClient", QByteArray(2000, char('a' + i % 26)) + QByteArray::number(i));
    QVERIFY(m_cluster->createTopic(QStringLiteral("BatchTopicClient"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("BatchTopicClient")).isOk());
    auto r = small.sendBatch(batch);
    QVERIFY_OK(r);
    QVERIFY(r->size() >= 4);
    int ids = 0;
    for (const SendResult &s : *r)
        ids += static_cast<int>(s.msgId.count(',') + 1);
    QCOMPARE(ids, 100);
    Result<std::vector<MessageExt>> all = std::vector<MessageExt>();
    QVERIFY(waitFor(
        [&] {
            all = pullAll("BatchTopicClient");
            return all && all->size() >= 100;
        },
        5000));
    QCOMPARE(static_cast<int>(all->size()), 100);
    // Mixed topics and delay levels are refused.
    std::vector<Message> mixed {Message("BatchTopicClient", "a"), Message("ProducerTopic", "b")};
    QCOMPARE(small.sendBatch(mixed).error().code(), Status::Code::InvalidArgument);
}

void tst_Producer::bigBodyIsCompressedAndRestored()
{
    QByteArray body;
    for (int i = 0; i < 8000; ++i)
        body += "compressible line " + QByteArray::number(i % 50) + '\n';
    QVERIFY(m_cluster->createTopic(QStringLiteral("CompressTopic"), 1).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("CompressTopic")).isOk());
    auto r = m_producer->sendSync(Message("CompressTopic", body));
    QVERIFY_OK(r);
    // The broker's dispatch to its consume queue trails the send a little.
    Result<std::vector<MessageExt>> all = std::vector<MessageExt>();
    QVERIFY(waitFor(
        [&] {
            all = pullAll("CompressTopic");
            return all && !all->empty();
        },
        5000));
    QCOMPARE(all->size(), std::size_t(1));
    QCOMPARE(all->front().body(), body);
    QVERIFY(all->front().sysFlag() & protocol::SysFlag::Compressed);
    QVERIFY(all->front().storeSize() < body.size() / 4);
}

void tst_Producer::badMessagesAreRefusedBeforeTheWire()
{
    QCOMPARE(m_producer->sendSync(Message("", "x")).error().code(), Status::Code::InvalidArgument);
    QCOMPARE(m_producer->sendSync(Message("bad topic!", "x")).error().code(),
        Status::Code::InvalidArgument);
    QCOMPARE(m_producer->sendSync(Message(QByteArray(128, 't'), "x")).error().code(),
        Status::Code::InvalidArgument);
    QCOMPARE(
        m_producer->sendSync(Message("TBW102", "x")).error().code(), Status::Code::InvalidArgument);
    QCOMPARE(m_producer->sendSync(Message("SCHEDULE_TOPIC_XXXX", "x")).error().code(),
        Status::Code::InvalidArgument);
    QCOMPARE(m_producer->sendSync(Message("ProducerTopic", "")).error().code(),
        Status::Code::InvalidArgument);
    const auto big
        = m_producer->sendSync(Message("ProducerTopic", QByteArray(4 * 1024 * 1024 + 1, 'x')));
    QCOMPARE(big.error().code(), Status::Code::InvalidArgument);
    QVERIFY(big.error().message().contains(QLatin1String("4194304")));
    QCOMPARE(m_producer->sendOneway(Message("", "x")).code(), Status::Code::InvalidArgument);
    // The callback runs on another thread: hand its outcome over through a mutex (TSan).
    std::mutex mutex;
    bool called = false;
    Status asyncError;
    m_producer->sendAsync(Message("", "x"), [&](Result<SendResult> r) {
        std::lock_guard lock(mutex);
        asyncError = r.error();
        called = true;
    });
    QVERIFY(waitFor(
        [&] {
            std::lock_guard lock(mutex);
            return called;
        },
        3000));
    std::lock_guard lock(mutex);
    QCOMPARE(asyncError.code(), Status::Code::InvalidArgument);
    // Exactly 4 MiB is allowed (and compressed on the way).
    auto limit = m_producer->sendSync(Message("ProducerTopic", QByteArray(4 * 1024 * 1024, 'x')));
    QVERIFY_OK(limit);
}

void tst_Producer::unreachableNameServerFailsInBoundedTime()
{
    ProducerOptions o;
    o.group = "tst_producer_nowhere";
    o.client.namesrvAddr = "127.0.0.1:1";
    o.client.instanceName = "nowhere";
    Producer p(o);
    QVERIFY(p.start().isOk());
    QElapsedTimer t;
    t.start();
    auto r = p.sendSync(Message("ProducerTopic", "x"));
    QVERIFY(!r);
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    ProducerOptions none;
    none.group = "g";
    none.client.namesrvAddr.clear();
    qunsetenv("NAMESRV_ADDR");
    Producer q(none);
    QCOMPARE(q.start().code(), Status::Code::InvalidArgument);
    // Sending without start() is an error, not a crash.
    QVERIFY(!q.sendSync(Message("ProducerTopic", "x")));
}

void tst_Producer::duplicateGroupIsRefused()
{
    ProducerOptions o = m_producer->options();
    Producer twin(o);
    QCOMPARE(twin.start().code(), Status::Code::InvalidArgument);
}

void tst_Producer::requestGetsItsReply()
{
    QVERIFY(m_cluster->createTopic(QStringLiteral("RequestTopic"), 2).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("RequestTopic")).isOk());
    PushConsumerOptions co;
    co.group = "tst_replier";
    co.client = clientConfig(*m_cluster, "replier");
    co.consumeFromWhere = ConsumeFromWhere::ConsumeFromFirstOffset;
    ProducerOptions po;
    po.group = "tst_reply_producer";
    po.client = co.client;
    auto replier = std::make_shared<Producer>(po);
    QVERIFY(replier->start().isOk());
    PushConsumer consumer(co);
    QVERIFY(consumer.subscribe("RequestTopic").isOk());
    consumer.registerMessageListener(
        [replier](const std::vector<MessageExt> &msgs, ConsumeConcurrentlyContext &) {
            for (const MessageExt &m : msgs) {
                auto reply = Producer::createReplyMessage(m, "re: " + m.body());
                if (reply)
                    (void)replier->sendSync(*reply);
            }
            return ConsumeConcurrentlyStatus::ConsumeSuccess;
        });
    QVERIFY(consumer.start().isOk());
    auto r = m_producer->request(Message("RequestTopic", "ping"), 10000);
    QVERIFY_OK(r);
    QCOMPARE(r->body(), QByteArray("re: ping"));
    // Nobody answers on a topic without consumers: a timeout within the bound.
    QVERIFY(m_cluster->createTopic(QStringLiteral("NobodyAnswers"), 1).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("NobodyAnswers")).isOk());
    QElapsedTimer t;
    t.start();
    auto silent = m_producer->request(Message("NobodyAnswers", "hello?"), 800);
    QCOMPARE(silent.error().code(), Status::Code::Timeout);
    QVERIFY(t.elapsed() < 3000);
    consumer.shutdown();
    replier->shutdown();
}

namespace {
class Listener final : public TransactionListener
{
public:
    std::atomic<int> checks {0};
    LocalTransactionState executeLocalTransaction(const Message &msg, void *) override
    {
        if (msg.body() == "commit")
            return LocalTransactionState::CommitMessage;
        if (msg.body() == "rollback")
            return LocalTransactionState::RollbackMessage;
        return LocalTransactionState::Unknown;
    }
    LocalTransactionState checkLocalTransaction(const MessageExt &) override
    {
        ++checks;
        return LocalTransactionState::CommitMessage;
    }
};
} // namespace

void tst_Producer::transactionsCommitRollbackAndCheckBack()
{
    QVERIFY(m_cluster->createTopic(QStringLiteral("TxTopic"), 1).isOk());
    QVERIFY(m_cluster->waitForRoute(QStringLiteral("TxTopic")).isOk());
    Listener listener;
    ProducerOptions o;
    o.group = "tst_tx_producer";
    o.client = clientConfig(*m_cluster, "tx");
    TransactionProducer tx(o, &listener);
    QVERIFY(tx.start().isOk());
    for (const char *body : {"commit", "rollback", "unknown"}) {
        auto r = tx.sendMessageInTransaction(Message("TxTopic", body));
        QVERIFY_OK(r);
        QCOMPARE(r->sendResult.status, SendStatus::SendOk);
    }
    // commit is visible at once; unknown after the broker's check-back; rollback never.
    QVERIFY(waitFor(
        [&] {
            auto all = pullAll("TxTopic");
            return all && all->size() == 2;
        },
        15000));
    QVERIFY(listener.checks.load() >= 1);
    auto all = pullAll("TxTopic");
    QVERIFY(all);
    std::set<QByteArray> bodies;
    for (const MessageExt &m : *all)
        bodies.insert(m.body());
    QCOMPARE(bodies, (std::set<QByteArray> {"commit", "unknown"}));
}

void tst_Producer::retryKeepsTheUniqueKey()
{
    // A prepared message keeps its UNIQ_KEY whatever is done with it afterwards.
    ProducerImpl impl(m_producer->options());
    auto p = impl.prepare(Message("ProducerTopic", "idempotent"));
    QVERIFY(p);
    QVERIFY(!p->uniqueIds.isEmpty());
    QVERIFY(p->properties.contains(p->uniqueIds));
    Message withKey("ProducerTopic", "mine");
    withKey.setProperty("UNIQ_KEY", "MYOWNKEY");
    auto q = impl.prepare(withKey);
    QVERIFY(q);
    QCOMPARE(q->uniqueIds, QByteArray("MYOWNKEY"));
}

namespace {

/// This process's client threads by thread id: those whose name (/proc/self/task/*/comm, which
/// Linux truncates to 15 bytes) is one the client library gives.
std::map<QString, QByteArray> clientThreads()
{
    static const QByteArrayList kNames {"qrocket-cli-io", "qrocket-timer", "qrocket-rebal",
        "qrocket-cb", "qrocket-send", "qrocket-txcheck"};
    std::map<QString, QByteArray> threads;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (!comm.open(QIODevice::ReadOnly))
            continue; // the thread ended meanwhile
        const QByteArray name = comm.readAll().trimmed();
        for (const QByteArray &known : kNames) {
            if (name.startsWith(known.left(15)))
                threads[tid] = name;
        }
    }
    return threads;
}

} // namespace

void tst_Producer::shutdownStopsEveryClientThread()
{
    // A producer of its own client id: the last user of its ClientInstance. Async sends make a
    // callback thread and the I/O thread hold the instance last, the case that once left the
    // instance's threads running after shutdown() returned.
    ProducerOptions o;
    o.group = "tst_producer_lease";
    o.client = clientConfig(*m_cluster, "lease");
    for (int round = 0; round < 2; ++round) { // the second round needs a new instance
        const std::map<QString, QByteArray> before = clientThreads();
        auto producer = std::make_unique<Producer>(o);
        QVERIFY_OK(producer->start());
        // This producer's and its instance's threads (I/O, timer, rebalance, 2 callback, send,
        // check): each names itself once running, so wait (bounded) for the names to show.
        std::map<QString, QByteArray> started;
        const auto newThreads = [&] {
            started.clear();
            for (const auto &[tid, name] : clientThreads()) {
                if (!before.contains(tid))
                    started[tid] = name;
            }
            return started.size();
        };
        QTRY_VERIFY_WITH_TIMEOUT(newThreads() >= 7, 5000);
        std::promise<Result<SendResult>> last;
        constexpr int kCount = 50;
        std::atomic<int> done {0};
        for (int i = 0; i < kCount; ++i) {
            producer->sendAsync(Message("ProducerTopic", "lease"), [&](Result<SendResult> r) {
                if (++done == kCount)
                    last.set_value(std::move(r));
            });
        }
        auto future = last.get_future();
        QVERIFY(future.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
        QVERIFY_OK(future.get());
        producer->shutdown();
        // Every one of those threads has finished its work now; the kernel thread under a QThread
        // ends a moment after QThread::wait() returns (Qt detaches it), hence a short bound. Before
        // the lease they all ran until the producer object was destroyed.
        QStringList running;
        const auto stillRunning = [&] {
            running.clear();
            for (const auto &[tid, name] : started) {
                if (QFileInfo::exists(QStringLiteral("/proc/self/task/") + tid))
                    running << QString::fromLatin1(name);
            }
            return running.size();
        };
        const QDeadlineTimer deadline(2000);
        while (stillRunning() != 0 && !deadline.hasExpired())
            QThread::msleep(10);
        QVERIFY2(running.isEmpty(),
            qPrintable(QStringLiteral("round %1: still running after shutdown: %2")
                           .arg(round)
                           .arg(running.join(QStringLiteral(", ")))));
    }
}

QTEST_GUILESS_MAIN(tst_Producer)
#include "tst_producer.moc"
