// tst_TraceDispatcher: the client's trace writer (clientlib/client/tracedispatcher.h) with a
// fake sender: records are batched (at most 100 per trace message, keys = msgIds and message
// keys), a partial batch goes out after the flush interval, the queue is bounded (appends past
// it are dropped and counted, never wait for a slow sender), and shutdown flushes what is left.

#include "clientlib/client/tracedispatcher.h"

#include <QElapsedTimer>
#include <QTest>

#include <condition_variable>
#include <mutex>

using namespace qrocket;
using namespace qrocket::client;
using protocol::trace::TraceRecord;
using protocol::trace::TraceType;

namespace {

TraceRecord pubRecord(int i)
{
    TraceRecord r;
    r.type = TraceType::Pub;
    r.timestamp = 1700000000000 + i;
    r.regionId = "DefaultRegion";
    r.groupName = "G";
    r.topic = "T";
    r.msgId = "MSG" + QByteArray::number(i);
    r.keys = "key" + QByteArray::number(i);
    r.storeHost = "127.0.0.1:10911";
    return r;
}

struct Sent
{
    QByteArray topic;
    QByteArray body;
    std::vector<QByteArray> keys;
};

/// A sender that records what it is given and can be held (a slow broker).
struct FakeSender
{
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<Sent> sent; // guarded by mutex
    bool hold = false; // guarded by mutex
    int calls = 0; // guarded by mutex

    TraceDispatcher::Sender sender()
    {
        return
            [this](const QByteArray &topic, const QByteArray &body, std::vector<QByteArray> keys) {
                std::unique_lock lock(mutex);
                ++calls;
                cv.notify_all();
                cv.wait(lock, [&] { return !hold; });
                sent.push_back({topic, body, std::move(keys)});
                return Status();
            };
    }
    std::size_t count()
    {
        std::lock_guard lock(mutex);
        return sent.size();
    }
};

TraceDispatcher::Options options(int capacity, int flushMs)
{
    TraceDispatcher::Options o;
    o.ownerGroup = "G";
    o.capacity = capacity;
    o.flushInterval = std::chrono::milliseconds(flushMs);
    return o;
}

} // namespace

class tst_TraceDispatcher : public QObject
{
    Q_OBJECT

private slots:
    void batchesOfAHundred()
    {
        FakeSender fake;
        TraceDispatcher d(options(1000, 60000)); // no timed flush: only full batches and shutdown
        QVERIFY(d.start(fake.sender()));
        for (int i = 0; i < 250; ++i)
            QVERIFY(d.append(pubRecord(i)));
        // Two full batches go out at once, whatever the thread took at a time; the rest waits
        // for the flush interval (a minute here) or shutdown.
        QTRY_COMPARE_WITH_TIMEOUT(fake.count(), std::size_t(2), 10000);
        QTest::qWait(50);
        QCOMPARE(fake.count(), std::size_t(2));
        d.shutdown();
        QCOMPARE(fake.count(), std::size_t(3));
        QCOMPARE(d.recordsSent(), std::uint64_t(250));
        QCOMPARE(d.messagesSent(), std::uint64_t(3));
        QCOMPARE(d.dropped(), std::uint64_t(0));
        int next = 0;
        for (const Sent &s : fake.sent) {
            QCOMPARE(s.topic, QByteArray("RMQ_SYS_TRACE_TOPIC"));
            const std::vector<TraceRecord> records = protocol::trace::decodeRecords(s.body);
            QVERIFY(records.size() <= 100);
            // Every record's msgId and key is a key of its message, each once.
            QCOMPARE(s.keys.size(), records.size() * 2);
            for (const TraceRecord &r : records) {
                QVERIFY(r == pubRecord(next));
                QVERIFY(std::find(s.keys.begin(), s.keys.end(), r.msgId) != s.keys.end());
                QVERIFY(std::find(s.keys.begin(), s.keys.end(), r.keys) != s.keys.end());
                ++next;
            }
        }
        QCOMPARE(next, 250);
    }

    void partialBatchAfterFlushInterval()
    {
        FakeSender fake;
        TraceDispatcher::Options o = options(100, 50);
        o.traceTopic = "MyTraces";
        TraceDispatcher d(o);
        QVERIFY(d.start(fake.sender()));
        QVERIFY(d.append(pubRecord(1)));
        QTRY_COMPARE_WITH_TIMEOUT(fake.count(), std::size_t(1), 5000);
        QCOMPARE(fake.sent[0].topic, QByteArray("MyTraces"));
        QVERIFY(d.isTraceTopic("MyTraces"));
        QVERIFY(!d.isTraceTopic("Orders"));
        d.shutdown();
    }

    void boundedAndNeverWaits()
    {
        FakeSender fake;
        fake.hold = true;
        TraceDispatcher d(options(10, 10));
        QVERIFY(d.start(fake.sender()));
        QVERIFY(d.append(pubRecord(0)));
        {
            // The dispatcher thread is now stuck in the sender with record 0.
            std::unique_lock lock(fake.mutex);
            QVERIFY(
                fake.cv.wait_for(lock, std::chrono::seconds(10), [&] { return fake.calls > 0; }));
        }
        QElapsedTimer t;
        t.start();
        int accepted = 0;
        for (int i = 1; i <= 25; ++i)
            accepted += d.append(pubRecord(i)) ? 1 : 0;
        QVERIFY2(t.elapsed() < 1000, "append waited for the stuck sender");
        QCOMPARE(accepted, 10);
        QCOMPARE(d.dropped(), std::uint64_t(15));
        {
            std::lock_guard lock(fake.mutex);
            fake.hold = false;
        }
        fake.cv.notify_all();
        d.shutdown();
        QCOMPARE(d.recordsSent(), std::uint64_t(11));
        // Closed: appends are refused and counted.
        QVERIFY(!d.append(pubRecord(99)));
        QCOMPARE(d.dropped(), std::uint64_t(16));
    }

    void failedSendsAreCounted()
    {
        TraceDispatcher d(options(10, 10));
        QVERIFY(d.start([](const QByteArray &, const QByteArray &, std::vector<QByteArray>) {
            return Status::unavailable(QStringLiteral("no route"));
        }));
        QVERIFY(d.append(pubRecord(1)));
        QTRY_COMPARE_WITH_TIMEOUT(d.sendFailures(), std::uint64_t(1), 5000);
        d.shutdown();
        QCOMPARE(d.recordsSent(), std::uint64_t(0));
    }

    void requestIdsAreUnique()
    {
        const QByteArray a = TraceDispatcher::newRequestId();
        const QByteArray b = TraceDispatcher::newRequestId();
        QVERIFY(!a.isEmpty());
        QVERIFY(a != b);
    }
};

QTEST_GUILESS_MAIN(tst_TraceDispatcher)
#include "tst_tracedispatcher.moc"
