// tst_LatencyHistogram: qrocket-bench's latency buckets (clientlib/bench/latencyhistogram.h):
// every value lands in a bucket that holds it, buckets are contiguous, percentiles and interval
// differences are right, concurrent writers lose no sample.

#include "clientlib/bench/latencyhistogram.h"

#include <QTest>

#include <random>
#include <thread>
#include <vector>

using namespace qrocket::bench;

class tst_LatencyHistogram : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bucketsHoldTheirValues()
    {
        std::mt19937_64 random(7);
        for (int i = 0; i < 200000; ++i) {
            const std::uint64_t v = i < 5000 ? std::uint64_t(i) : random() >> (random() % 40 + 24);
            const int b = latencyBucket(v);
            QVERIFY2(b >= 0 && b < kLatencyBuckets, qPrintable(QString::number(v)));
            if (b == kLatencyBuckets - 1)
                continue; // clamped
            QVERIFY2(latencyBucketLow(b) <= v && v < latencyBucketHigh(b),
                qPrintable(QStringLiteral("%1 in bucket %2").arg(v).arg(b)));
            // Relative width: exact below 32 µs, then within 1/16.
            if (v >= 32)
                QVERIFY(double(latencyBucketHigh(b) - latencyBucketLow(b)) <= double(v) / 16.0);
        }
    }

    void bucketsAreContiguous()
    {
        for (int b = 0; b + 1 < kLatencyBuckets; ++b)
            QCOMPARE(latencyBucketHigh(b), latencyBucketLow(b + 1));
        QCOMPARE(latencyBucket(0), 0);
        QCOMPARE(latencyBucket(31), 31);
        QCOMPARE(latencyBucket(32), 32);
        QCOMPARE(latencyBucket(~std::uint64_t(0)), kLatencyBuckets - 1);
    }

    void percentilesOfAKnownDistribution()
    {
        LatencyRecorder rec;
        for (std::uint64_t v = 1; v <= 10000; ++v)
            rec.record(v);
        const HistogramSnapshot s = rec.snapshot();
        QCOMPARE(s.count, std::uint64_t(10000));
        QCOMPARE(s.maxMicros, std::uint64_t(10000));
        QCOMPARE(s.meanMicros(), 5000.5);
        for (double q : {0.5, 0.9, 0.99, 0.999}) {
            const double p = s.percentile(q);
            QVERIFY2(std::abs(p - q * 10000) <= q * 10000 / 16.0 + 1,
                qPrintable(QStringLiteral("p%1 = %2").arg(q).arg(p)));
        }
        QVERIFY(s.percentile(1.0) <= 10000.0);
        QCOMPARE(HistogramSnapshot().percentile(0.99), 0.0);
    }

    void intervalIsTheDifference()
    {
        LatencyRecorder rec;
        for (int i = 0; i < 100; ++i)
            rec.record(50000); // 50 ms
        const HistogramSnapshot before = rec.snapshot();
        for (int i = 0; i < 100; ++i)
            rec.record(100); // 0.1 ms
        const HistogramSnapshot interval = rec.snapshot() - before;
        QCOMPARE(interval.count, std::uint64_t(100));
        QCOMPARE(interval.sumMicros, std::uint64_t(100 * 100));
        QVERIFY(interval.percentile(0.999) < 110);
        // The interval's max comes from its own samples, not the cumulative 50 ms.
        QVERIFY2(interval.maxMicros < 110, qPrintable(QString::number(interval.maxMicros)));
        HistogramSnapshot sum = before;
        sum += interval;
        QCOMPARE(sum.count, std::uint64_t(200));
    }

    void concurrentWritersLoseNothing()
    {
        LatencyRecorder rec;
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&rec, t] {
                for (int i = 0; i < 50000; ++i)
                    rec.record(std::uint64_t(i % 1000 + t));
            });
        }
        for (std::thread &t : threads)
            t.join();
        const HistogramSnapshot s = rec.snapshot();
        QCOMPARE(s.count, std::uint64_t(200000));
        QCOMPARE(s.maxMicros, std::uint64_t(1002));
    }
};

QTEST_APPLESS_MAIN(tst_LatencyHistogram)
#include "tst_latencyhistogram.moc"
