// QRocket's SimpleConsumer (POP) against an embedded cluster of two brokers: what a producer
// sent is received from both brokers with the broker's filter applied; acked messages stay
// settled while the unacked half comes back after its invisible time with its reconsume count
// raised; changeInvisibleDuration extends the invisible time and gives a handle that acks; two
// consumers of one group get disjoint messages; a batch ack settles many messages of both
// brokers; receiveAsync / ackAsync answer once on the callback thread, and with Unavailable when
// the consumer shuts down first; bad calls are errors.

#include "clientlib/client/producer.h"
#include "clientlib/client/simpleconsumer.h"
#include "clienttestutil.h"

#include <QElapsedTimer>
#include <QTest>

#include <mutex>
#include <pthread.h>
#include <set>

using namespace qrocket;
using namespace qrocket::client;
using namespace qrocket::clienttest;

class tst_SimpleConsumer : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void receiveAckHalfTheRestComesBack();
    void changeInvisibleDurationExtends();
    void twoConsumersOfOneGroupGetDisjointMessages();
    void batchAckSettlesEveryMessage();
    void asyncReceiveAndAck();
    void asyncCallbackAfterShutdownIsUnavailable();
    void badCallsAreErrors();

private:
    SimpleConsumerOptions options(const QByteArray &group, const QByteArray &instance) const;
    void createTopic(const QString &topic);
    void send(const QByteArray &topic, const QByteArray &tag, const QByteArray &body);
    /// Receives until `count` messages arrived or `ms` passed.
    static std::vector<MessageExt> receiveUntil(
        SimpleConsumer &c, std::size_t count, int invisibleMs, int ms);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<Producer> m_producer;
};

void tst_SimpleConsumer::initTestCase()
{
    m_cluster = startCluster(2);
    QVERIFY(m_cluster);
    ProducerOptions o;
    o.group = "tst_simple_producer";
    o.client = clientConfig(*m_cluster, "producer");
    m_producer = std::make_unique<Producer>(o);
    QVERIFY(m_producer->start().isOk());
}

void tst_SimpleConsumer::cleanupTestCase()
{
    m_producer.reset();
    m_cluster.reset();
}

SimpleConsumerOptions tst_SimpleConsumer::options(
    const QByteArray &group, const QByteArray &instance) const
{
    SimpleConsumerOptions o;
    o.group = group;
    o.client = clientConfig(*m_cluster, instance);
    o.awaitDurationMillis = 300;
    o.consumeFromFirst = true;
    return o;
}

void tst_SimpleConsumer::createTopic(const QString &topic)
{
    QVERIFY(m_cluster->createTopic(topic, 2).isOk());
    QVERIFY(m_cluster->waitForRoute(topic).isOk());
}

void tst_SimpleConsumer::send(
    const QByteArray &topic, const QByteArray &tag, const QByteArray &body)
{
    const auto r = m_producer->sendSync(Message(topic, tag, body));
    QVERIFY2(r, qPrintable(errorText(r)));
}

std::vector<MessageExt> tst_SimpleConsumer::receiveUntil(
    SimpleConsumer &c, std::size_t count, int invisibleMs, int ms)
{
    std::vector<MessageExt> all;
    QElapsedTimer t;
    t.start();
    while (all.size() < count && t.elapsed() < ms) {
        auto got = c.receive(SimpleConsumer::kMaxReceive, invisibleMs);
        if (!got) {
            qWarning("receive: %s", qPrintable(got.error().toString()));
            QTest::qWait(50);
            continue;
        }
        for (MessageExt &m : *got)
            all.push_back(std::move(m));
    }
    return all;
}

void tst_SimpleConsumer::receiveAckHalfTheRestComesBack()
{
    createTopic(QStringLiteral("SimpleT1"));
    std::set<QByteArray> sent;
    for (int i = 0; i < 10; ++i) {
        const QByteArray body = "a" + QByteArray::number(i);
        send("SimpleT1", "TagA", body);
        sent.insert(body);
        send("SimpleT1", "TagB", "b" + QByteArray::number(i)); // filtered out by the broker
    }
    SimpleConsumer c(options("GSimple1", "c1"));
    QVERIFY(c.subscribe("SimpleT1", MessageSelector::byTag("TagA")).isOk());
    QVERIFY(c.start().isOk());

    constexpr int kInvisible = 3000;
    QElapsedTimer sinceFirst;
    sinceFirst.start();
    std::vector<MessageExt> first = receiveUntil(c, 10, kInvisible, 2500);
    QCOMPARE(first.size(), std::size_t(10));
    std::set<QByteArray> bodies;
    std::set<QByteArray> brokers;
    for (const MessageExt &m : first) {
        QCOMPARE(m.tags(), QByteArray("TagA"));
        QCOMPARE(m.reconsumeTimes(), 0);
        QVERIFY(!SimpleConsumer::receiptHandle(m).isEmpty());
        bodies.insert(m.body());
        brokers.insert(m.brokerName());
    }
    QCOMPARE(bodies, sent);
    QCOMPARE(brokers.size(), std::size_t(2)); // both brokers of the route were popped

    std::set<QByteArray> unacked;
    for (std::size_t i = 0; i < first.size(); ++i) {
        if (i % 2 == 0) {
            const Status s = c.ack(first[i]);
            QVERIFY2(s.isOk(), qPrintable(s.toString()));
        } else {
            unacked.insert(first[i].body());
        }
    }

    // The unacked half comes back, not before its invisible time, with its count raised.
    std::vector<MessageExt> again = receiveUntil(c, 5, 60000, 20000);
    QCOMPARE(again.size(), std::size_t(5));
    QVERIFY2(sinceFirst.elapsed() >= kInvisible - 500, "redelivered before the invisible time");
    std::set<QByteArray> back;
    for (const MessageExt &m : again) {
        QCOMPARE(m.topic(), QByteArray("SimpleT1"));
        QCOMPARE(m.reconsumeTimes(), 1);
        back.insert(m.body());
        const Status s = c.ack(m); // a retry message's handle (POP_CK from the broker) acks too
        QVERIFY2(s.isOk(), qPrintable(s.toString()));
    }
    QCOMPARE(back, unacked);

    // Everything settled: nothing comes back well after the invisible time.
    QTest::qWait(kInvisible);
    QVERIFY(receiveUntil(c, 1, 60000, 1500).empty());
    c.shutdown();
}

void tst_SimpleConsumer::changeInvisibleDurationExtends()
{
    createTopic(QStringLiteral("SimpleT2"));
    send("SimpleT2", "T", "extend-me");
    SimpleConsumer c(options("GSimple2", "c2"));
    QVERIFY(c.subscribe("SimpleT2").isOk());
    QVERIFY(c.start().isOk());
    std::vector<MessageExt> got = receiveUntil(c, 1, 1000, 5000);
    QCOMPARE(got.size(), std::size_t(1));
    MessageExt m = got[0];
    const QByteArray oldHandle = SimpleConsumer::receiptHandle(m);
    Status s = c.changeInvisibleDuration(m, 5000);
    QVERIFY2(s.isOk(), qPrintable(s.toString()));
    QVERIFY(SimpleConsumer::receiptHandle(m) != oldHandle);

    // Without the change it would be back after 1 s; with it, not within 3 s.
    QVERIFY(receiveUntil(c, 1, 1000, 3000).empty());
    s = c.ack(m);
    QVERIFY2(s.isOk(), qPrintable(s.toString()));
    // Acked with the new handle: it never comes back.
    QVERIFY(receiveUntil(c, 1, 1000, 3500).empty());

    // A change of a message that is not in flight any more is the broker's error.
    s = c.changeInvisibleDuration(m, 1000);
    QVERIFY(!s.isOk());
    QCOMPARE(s.remoteCode(), 208); // NO_MESSAGE
}

void tst_SimpleConsumer::twoConsumersOfOneGroupGetDisjointMessages()
{
    createTopic(QStringLiteral("SimpleT3"));
    std::set<QByteArray> sent;
    for (int i = 0; i < 40; ++i) {
        const QByteArray body = "d" + QByteArray::number(i);
        send("SimpleT3", "T", body);
        sent.insert(body);
    }
    SimpleConsumer a(options("GSimple3", "ca"));
    SimpleConsumer b(options("GSimple3", "cb"));
    QVERIFY(a.subscribe("SimpleT3").isOk());
    QVERIFY(b.subscribe("SimpleT3").isOk());
    QVERIFY(a.start().isOk());
    QVERIFY(b.start().isOk());
    QVERIFY(a.clientId() != b.clientId());

    std::multiset<QByteArray> all;
    std::size_t fromA = 0;
    std::size_t fromB = 0;
    QElapsedTimer t;
    t.start();
    while (all.size() < sent.size() && t.elapsed() < 15000) {
        auto ra = a.receive(4, 60000);
        QVERIFY2(ra, qPrintable(errorText(ra)));
        for (const MessageExt &m : *ra)
            all.insert(m.body());
        fromA += ra->size();
        auto rb = b.receive(4, 60000);
        QVERIFY2(rb, qPrintable(errorText(rb)));
        for (const MessageExt &m : *rb)
            all.insert(m.body());
        fromB += rb->size();
    }
    QCOMPARE(all.size(), sent.size());
    QCOMPARE(std::set<QByteArray>(all.begin(), all.end()), sent); // no message twice
    QVERIFY(fromA > 0);
    QVERIFY(fromB > 0);
}

void tst_SimpleConsumer::batchAckSettlesEveryMessage()
{
    createTopic(QStringLiteral("SimpleT5"));
    std::set<QByteArray> sent;
    for (int i = 0; i < 24; ++i) {
        const QByteArray body = "batch" + QByteArray::number(i);
        send("SimpleT5", "T", body);
        sent.insert(body);
    }
    SimpleConsumer c(options("GSimple5", "c5b"));
    QVERIFY(c.subscribe("SimpleT5").isOk());
    QVERIFY(c.start().isOk());
    constexpr int kInvisible = 2000;
    std::vector<MessageExt> got = receiveUntil(c, sent.size(), kInvisible, 5000);
    QCOMPARE(got.size(), sent.size());
    std::set<QByteArray> brokers;
    for (const MessageExt &m : got)
        brokers.insert(m.brokerName());
    QCOMPARE(brokers.size(), std::size_t(2));

    // One of them acked alone first: in the batch it is no longer in flight, which is no error.
    QVERIFY(c.ack(got.front()).isOk());
    const Status s = c.ack(got);
    QVERIFY2(s.isOk(), qPrintable(s.toString()));

    // Every message settled: none comes back after the invisible time.
    QTest::qWait(kInvisible + 500);
    QVERIFY(receiveUntil(c, 1, 60000, 2000).empty());

    // A message without a receipt handle fails the whole call before anything is sent.
    std::vector<MessageExt> bad {MessageExt()};
    QCOMPARE(c.ack(bad).code(), Status::Code::InvalidArgument);
}

void tst_SimpleConsumer::asyncReceiveAndAck()
{
    createTopic(QStringLiteral("SimpleT6"));
    std::set<QByteArray> sent;
    for (int i = 0; i < 8; ++i) {
        const QByteArray body = "async" + QByteArray::number(i);
        send("SimpleT6", "T", body);
        sent.insert(body);
    }
    SimpleConsumer c(options("GSimple6a", "c6a"));
    QVERIFY(c.subscribe("SimpleT6").isOk());
    QVERIFY(c.start().isOk());

    std::mutex mutex;
    std::vector<MessageExt> received;
    std::vector<QString> threads;
    int receiveCalls = 0;
    int acksOk = 0;
    int acksFailed = 0;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 10000) {
        {
            std::lock_guard lock(mutex);
            if (received.size() >= sent.size())
                break;
        }
        int before = 0;
        {
            std::lock_guard lock(mutex);
            before = receiveCalls;
        }
        c.receiveAsync(SimpleConsumer::kMaxReceive, 60000, [&](Result<std::vector<MessageExt>> r) {
            std::lock_guard lock(mutex);
            ++receiveCalls;
            char name[16] = {};
            pthread_getname_np(pthread_self(), name, sizeof name);
            threads.push_back(QString::fromLatin1(name));
            if (r) {
                for (MessageExt &m : *r)
                    received.push_back(std::move(m));
            }
        });
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                std::lock_guard lock(mutex);
                return receiveCalls > before;
            }(),
            5000);
    }
    std::vector<MessageExt> all;
    {
        std::lock_guard lock(mutex);
        all = received;
        for (const QString &name : threads)
            QVERIFY2(name.startsWith(QLatin1String("qrocket-simple")), qPrintable(name));
    }
    QCOMPARE(all.size(), sent.size());
    std::set<QByteArray> bodies;
    for (const MessageExt &m : all)
        bodies.insert(m.body());
    QCOMPARE(bodies, sent);

    for (const MessageExt &m : all) {
        c.ackAsync(m, [&](Status s) {
            std::lock_guard lock(mutex);
            (s.isOk() ? acksOk : acksFailed) += 1;
        });
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return acksOk + acksFailed == int(all.size());
        }(),
        5000);
    QCOMPARE(acksFailed, 0);
    // A repeated ack has nothing left to settle: OK (idempotent, the broker's rule), answered
    // through the same callback path.
    Status again;
    bool answered = false;
    c.ackAsync(all.front(), [&](Status s) {
        std::lock_guard lock(mutex);
        again = s;
        answered = true;
    });
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return answered;
        }(),
        5000);
    {
        std::lock_guard lock(mutex);
        QVERIFY2(again.isOk(), qPrintable(again.toString()));
    }
}

void tst_SimpleConsumer::asyncCallbackAfterShutdownIsUnavailable()
{
    createTopic(QStringLiteral("SimpleT7"));
    SimpleConsumerOptions o = options("GSimple7", "c7");
    o.awaitDurationMillis = 20000; // the pop long-polls an empty topic until shutdown ends it
    SimpleConsumer c(o);
    QVERIFY(c.subscribe("SimpleT7").isOk());

    // Not started: answered at once, on the caller's thread, with the reason.
    int calls = 0;
    Status first;
    c.receiveAsync(1, 1000, [&](Result<std::vector<MessageExt>> r) {
        ++calls;
        first = r ? Status() : r.error();
    });
    QCOMPARE(calls, 1);
    QCOMPARE(first.code(), Status::Code::InvalidArgument);

    QVERIFY(c.start().isOk());
    std::mutex mutex;
    int pending = 0;
    Status last;
    c.receiveAsync(1, 1000, [&](Result<std::vector<MessageExt>> r) {
        std::lock_guard lock(mutex);
        ++pending;
        last = r ? Status() : r.error();
    });
    QTest::qWait(200); // the pop is held by the broker's long polling
    QElapsedTimer t;
    t.start();
    c.shutdown();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return pending > 0;
        }(),
        5000);
    QVERIFY2(t.elapsed() < 5000, "shutdown waited for the long poll");
    QTest::qWait(300); // a second answer would come now
    std::lock_guard lock(mutex);
    QCOMPARE(pending, 1);
    QVERIFY(!last.isOk());
}

void tst_SimpleConsumer::badCallsAreErrors()
{
    SimpleConsumer c(options("GSimple4", "c4"));
    QVERIFY(!c.receive(1, 1000)); // not started
    QVERIFY(!c.subscribe("bad topic!").isOk());
    QVERIFY(!c.subscribe("SimpleT1", MessageSelector {"XPATH", "x"}).isOk());
    QVERIFY(c.start().isOk());
    auto none = c.receive(1, 1000);
    QVERIFY(!none); // nothing subscribed
    QCOMPARE(none.error().code(), Status::Code::InvalidArgument);
    QVERIFY(c.subscribe("SimpleT1").isOk());
    QVERIFY(!c.subscribe("SimpleNoSuchTopic").isOk()); // no route: refused after start
    QCOMPARE(c.receive(0, 1000).error().code(), Status::Code::InvalidArgument);
    QCOMPARE(c.receive(33, 1000).error().code(), Status::Code::InvalidArgument);
    QCOMPARE(c.receive(1, 0).error().code(), Status::Code::InvalidArgument);
    MessageExt plain;
    QCOMPARE(c.ack(plain).code(), Status::Code::InvalidArgument);
    QCOMPARE(c.changeInvisibleDuration(plain, 1000).code(), Status::Code::InvalidArgument);
    SimpleConsumerOptions noGroup = options("", "c5");
    SimpleConsumer d(noGroup);
    QVERIFY(!d.start().isOk());
    SimpleConsumer e(options("GSimple6", "c6"));
    QVERIFY(e.subscribe("SimpleNoSuchTopic").isOk());
    QVERIFY(!e.start().isOk()); // no route: not started
    QVERIFY(!e.isStarted());
}

QTEST_GUILESS_MAIN(tst_SimpleConsumer)
#include "tst_simpleconsumer.moc"
