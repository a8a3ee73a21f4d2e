// BrokerStats: the runtime-info counters RocketMQ 4.9 keeps in StoreStatsService and
// BrokerStats (rates over 10/60/600 one-second samples, midnight records, Java number text).

#include "broker/managers/brokerstats.h"

#include <QTest>

using qrocket::broker::BrokerStats;

namespace {

/// The runtime-info value of `key`, "<absent>" when it is not listed.
QByteArray infoValue(const BrokerStats &s, const QByteArray &key)
{
    for (const auto &[k, v] : s.runtimeInfo())
        if (k == key)
            return v;
    return QByteArray("<absent>");
}

} // namespace

class tst_BrokerStats final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void javaDoubleText_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QByteArray>("text");
        QTest::addRow("zero") << 0.0 << QByteArray("0.0");
        QTest::addRow("integral") << 5.0 << QByteArray("5.0");
        QTest::addRow("fraction") << 12.5 << QByteArray("12.5");
        QTest::addRow("third") << 1.0 / 3 << QByteArray("0.3333333333333333");
        QTest::addRow("large") << 1e7 << QByteArray("1.0E7");
        QTest::addRow("small") << 1e-4 << QByteArray("1.0E-4");
        QTest::addRow("negative") << -1.0 << QByteArray("-1.0");
    }
    void javaDoubleText()
    {
        QFETCH(double, value);
        QFETCH(QByteArray, text);
        QCOMPARE(BrokerStats::javaDouble(value), text);
    }

    void ratesNeedEnoughSamples()
    {
        BrokerStats s;
        const auto info = [&s](const QByteArray &key) { return infoValue(s, key); };
        // One sample a second; 5 puts and 2 transferred messages a second, one found and one
        // missed read a second.
        for (int i = 0; i <= 10; ++i) {
            s.sample(1000 * i, 5 * i, 2 * i);
            if (i < 10) {
                s.onGetMessage(true, 3);
                s.onGetMessage(false, 1);
            }
            if (i < 10) {
                QCOMPARE(info("putTps"), QByteArray("  "));
                QCOMPARE(info("getTotalTps"), QByteArray("0.0 0.0 0.0"));
            }
        }
        QCOMPARE(info("putTps"), QByteArray("5.0  "));
        QCOMPARE(info("getTransferedTps"), QByteArray("2.0  "));
        QCOMPARE(info("getFoundTps"), QByteArray("1.0  "));
        QCOMPARE(info("getMissTps"), QByteArray("1.0  "));
        QCOMPARE(info("getTotalTps"), QByteArray("2.0 0.0 0.0"));
        QCOMPARE(info("getMessageEntireTimeMax"), QByteArray("3"));
        // 601 samples kept: the 600 s window is there once they span it.
        for (int i = 11; i <= 700; ++i)
            s.sample(1000 * i, 5 * i, 2 * i);
        QCOMPARE(info("putTps"), QByteArray("5.0 5.0 5.0"));
    }

    void morningRecords()
    {
        BrokerStats s;
        const auto info = [&s](const QByteArray &key) { return infoValue(s, key); };
        QCOMPARE(info("msgPutTotalTodayMorning"), QByteArray("0"));
        s.recordMorning(100, 40);
        QCOMPARE(info("msgPutTotalTodayMorning"), QByteArray("100"));
        QCOMPARE(info("msgGetTotalTodayMorning"), QByteArray("40"));
        QCOMPARE(info("msgPutTotalYesterdayMorning"), QByteArray("0"));
        s.recordMorning(250, 90);
        QCOMPARE(info("msgPutTotalYesterdayMorning"), QByteArray("100"));
        QCOMPARE(info("msgGetTotalYesterdayMorning"), QByteArray("40"));
        QCOMPARE(info("msgPutTotalTodayMorning"), QByteArray("250"));
        // No executor probes: queues print 0 with RocketMQ's default capacities.
        QCOMPARE(info("sendThreadPoolQueueSize"), QByteArray("0"));
        QCOMPARE(info("pullThreadPoolQueueCapacity"), QByteArray("100000"));
    }
};

QTEST_GUILESS_MAIN(tst_BrokerStats)
#include "tst_brokerstats.moc"
