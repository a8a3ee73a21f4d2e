// tst_BenchTool: qrocket-bench (clientlib/bench) as a user runs it, as a process against an
// EmbeddedCluster: each mode's report lines parse (RocketMQ benchmark's fields plus the
// percentiles), --json is one document with the right counts, -q / --quantity bound a run,
// and bad options or an unreachable name server give one line and a non-zero exit, quickly.

#include "../client/clienttestutil.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

using namespace qrocket;

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    bool finished = false;
};

QString benchPath()
{
    // ctest sets QROCKET_BIN_DIR; run by hand, the tests' folder sits beside bin/.
    const QString dir = qEnvironmentVariable(
        "QROCKET_BIN_DIR", QCoreApplication::applicationDirPath() + QStringLiteral("/../bin"));
    return dir + QStringLiteral("/qrocket-bench");
}

Run runBench(const QStringList &args, int timeoutMs = 60000)
{
    QProcess p;
    p.start(benchPath(), args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QJsonObject jsonOf(const Run &r)
{
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.back()).object();
}

} // namespace

class tst_BenchTool : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<EmbeddedCluster> m_cluster;
    QString m_ns;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QFile::exists(benchPath()), qPrintable(benchPath()));
        m_cluster = clienttest::startCluster(1);
        QVERIFY(m_cluster);
        m_ns = m_cluster->namesrvAddress();
        QVERIFY_OK(m_cluster->createTopic(QStringLiteral("BenchT"), 4));
        QVERIFY_OK(m_cluster->waitForRoute(QStringLiteral("BenchT")));
    }
    void cleanupTestCase() { m_cluster.reset(); }

    void producerLinesParse()
    {
        const Run r = runBench({QStringLiteral("producer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-w"),
            QStringLiteral("4"), QStringLiteral("-s"), QStringLiteral("256"), QStringLiteral("-k"),
            QStringLiteral("true"), QStringLiteral("-l"), QStringLiteral("3"),
            QStringLiteral("--duration"), QStringLiteral("3"), QStringLiteral("--interval"),
            QStringLiteral("1")});
        QVERIFY2(r.finished && r.exitCode == 0, r.err.constData());
        // RocketMQ's benchmark line, then the percentiles it lacks.
        static const QRegularExpression line(QStringLiteral(
            R"(^Current Time: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} Send TPS: (\d+) Max RT\(ms\): \d+ )"
            R"(Average RT\(ms\): +[\d.]+ Send Failed: (\d+) Response Failed: (\d+) )"
            R"(p50\(ms\): ([\d.]+) p99\(ms\): ([\d.]+) p999\(ms\): ([\d.]+)$)"));
        int lines = 0;
        for (const QByteArray &l : r.out.split('\n')) {
            const auto m = line.match(QString::fromUtf8(l));
            if (!m.hasMatch())
                continue;
            ++lines;
            QVERIFY2(m.captured(1).toLongLong() > 0, l.constData());
            QCOMPARE(m.captured(2), QStringLiteral("0"));
            QCOMPARE(m.captured(3), QStringLiteral("0"));
            QVERIFY(m.captured(4).toDouble() <= m.captured(5).toDouble());
            QVERIFY(m.captured(5).toDouble() <= m.captured(6).toDouble());
        }
        QVERIFY2(lines >= 2, r.out.constData());
        QVERIFY2(r.out.contains("[Complete] Send Total: "), r.out.constData());
    }

    void producerQuantityAndJson()
    {
        const Run r = runBench(
            {QStringLiteral("producer"), QStringLiteral("-n"), m_ns, QStringLiteral("-t"),
                QStringLiteral("BenchT"), QStringLiteral("-w"), QStringLiteral("4"),
                QStringLiteral("-q"), QStringLiteral("2000"), QStringLiteral("--json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.err.constData());
        const QJsonObject o = jsonOf(r);
        QCOMPARE(o.value(QStringLiteral("requests")).toInteger(), 2000);
        QCOMPARE(o.value(QStringLiteral("messages")).toInteger(), 2000);
        QCOMPARE(o.value(QStringLiteral("sendFailed")).toInteger(), 0);
        const QJsonObject lat = o.value(QStringLiteral("latency")).toObject();
        QCOMPARE(lat.value(QStringLiteral("count")).toInteger(), 2000);
        QVERIFY(lat.value(QStringLiteral("p50Ms")).toDouble() > 0);
        QVERIFY(lat.value(QStringLiteral("p99Ms")).toDouble()
            <= lat.value(QStringLiteral("maxMs")).toDouble());
        // With --json, stdout is the document alone; the header line went to stderr.
        QCOMPARE(r.out.trimmed().count('\n'), 0);
        QVERIFY(r.err.contains("topic: BenchT"));
    }

    void asyncOnewayAndBatch()
    {
        const Run async = runBench({QStringLiteral("producer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-y"),
            QStringLiteral("true"), QStringLiteral("--window"), QStringLiteral("64"),
            QStringLiteral("-q"), QStringLiteral("3000"), QStringLiteral("--json")});
        QVERIFY2(async.finished && async.exitCode == 0, async.err.constData());
        QCOMPARE(jsonOf(async).value(QStringLiteral("requests")).toInteger(), 3000);
        QCOMPARE(jsonOf(async).value(QStringLiteral("sendFailed")).toInteger(), 0);

        const Run oneway = runBench({QStringLiteral("producer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-o"),
            QStringLiteral("true"), QStringLiteral("-w"), QStringLiteral("2"), QStringLiteral("-q"),
            QStringLiteral("1000"), QStringLiteral("--json")});
        QVERIFY2(oneway.finished && oneway.exitCode == 0, oneway.err.constData());
        QCOMPARE(jsonOf(oneway).value(QStringLiteral("requests")).toInteger(), 1000);

        const Run batch = runBench({QStringLiteral("producer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-b"),
            QStringLiteral("8"), QStringLiteral("-w"), QStringLiteral("2"), QStringLiteral("-q"),
            QStringLiteral("100"), QStringLiteral("--json")});
        QVERIFY2(batch.finished && batch.exitCode == 0, batch.err.constData());
        QCOMPARE(jsonOf(batch).value(QStringLiteral("requests")).toInteger(), 100);
        QCOMPARE(jsonOf(batch).value(QStringLiteral("messages")).toInteger(), 800);
    }

    void consumerReadsWhatWasSent()
    {
        // A fresh group from the first offset reads at least what the tests above stored
        // (2000 + 3000 + 800 acknowledged; the oneway and duration rows add more).
        const Run r = runBench({QStringLiteral("consumer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-g"),
            QStringLiteral("bench_tool_group"), QStringLiteral("--from"), QStringLiteral("first"),
            QStringLiteral("--quantity"), QStringLiteral("5800"), QStringLiteral("--interval"),
            QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.err.constData());
        const QJsonObject o = jsonOf(r);
        QVERIFY2(o.value(QStringLiteral("consumed")).toInteger() >= 5800, r.out.constData());
        QCOMPARE(o.value(QStringLiteral("failed")).toInteger(), 0);
        const QJsonObject b2c = o.value(QStringLiteral("bornToConsumer")).toObject();
        QVERIFY(b2c.value(QStringLiteral("count")).toInteger() >= 5800);
        static const QRegularExpression line(QStringLiteral(
            R"(Current Time: \S+ \S+ TPS: \d+ FAIL: \d+ AVG\(B2C\) RT\(ms\): +[\d.]+ AVG\(S2C\) RT\(ms\): +[\d.]+ )"
            R"(MAX\(B2C\) RT\(ms\): \d+ MAX\(S2C\) RT\(ms\): \d+ p50\(B2C\)\(ms\): [\d.]+)"));
        // Interval lines (if the run lasted a second) go to stderr with --json; the start line too.
        QVERIFY2(r.err.contains("Consumer Started."), r.err.constData());
        for (const QByteArray &l : r.err.split('\n')) {
            if (l.startsWith("Current Time:"))
                QVERIFY2(line.match(QString::fromUtf8(l)).hasMatch(), l.constData());
        }
    }

    void popConsumerReadsWhatWasSent()
    {
        // POP (SimpleConsumer receive + ack) of a fresh group from the first offset: at least
        // what the producer rows stored, every message acked.
        const Run r = runBench({QStringLiteral("popconsumer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-g"),
            QStringLiteral("bench_tool_pop_group"), QStringLiteral("--from"),
            QStringLiteral("first"), QStringLiteral("--await"), QStringLiteral("200"),
            QStringLiteral("--quantity"), QStringLiteral("5800"), QStringLiteral("--interval"),
            QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.err.constData());
        const QJsonObject o = jsonOf(r);
        QCOMPARE(o.value(QStringLiteral("mode")).toString(), QStringLiteral("popconsumer"));
        QVERIFY2(o.value(QStringLiteral("consumed")).toInteger() >= 5800, r.out.constData());
        QCOMPARE(o.value(QStringLiteral("failed")).toInteger(), 0);
        QVERIFY(o.value(QStringLiteral("tps")).toDouble() > 0);
        QVERIFY2(r.err.contains("PopConsumer Started."), r.err.constData());
        static const QRegularExpression line(QStringLiteral(
            R"(Current Time: \S+ \S+ TPS: \d+ FAIL: \d+ AVG\(B2C\) RT\(ms\): +[\d.]+ AVG\(S2C\) RT\(ms\): +[\d.]+ )"
            R"(MAX\(B2C\) RT\(ms\): \d+ MAX\(S2C\) RT\(ms\): \d+ p50\(B2C\)\(ms\): [\d.]+)"));
        for (const QByteArray &l : r.err.split('\n')) {
            if (l.startsWith("Current Time:"))
                QVERIFY2(line.match(QString::fromUtf8(l)).hasMatch(), l.constData());
        }
    }

    void transactionProducer()
    {
        const Run r = runBench({QStringLiteral("tproducer"), QStringLiteral("-n"), m_ns,
            QStringLiteral("-t"), QStringLiteral("BenchT"), QStringLiteral("-w"),
            QStringLiteral("2"), QStringLiteral("-s"), QStringLiteral("64"), QStringLiteral("-q"),
            QStringLiteral("200"), QStringLiteral("-sr"), QStringLiteral("0.5"),
            QStringLiteral("--json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.err.constData());
        const QJsonObject o = jsonOf(r);
        QCOMPARE(o.value(QStringLiteral("sent")).toInteger(), 200);
        QCOMPARE(o.value(QStringLiteral("sendFailed")).toInteger(), 0);
        QCOMPARE(o.value(QStringLiteral("unexpectedChecks")).toInteger(), 0);
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("no mode") << QStringList() << 2 << QByteArray("usage: qrocket-bench");
        QTest::newRow("unknown mode")
            << QStringList {QStringLiteral("blast")} << 2 << QByteArray("unknown mode \"blast\"");
        QTest::newRow("unknown option")
            << QStringList {QStringLiteral("producer"), QStringLiteral("--frobnicate")} << 2
            << QByteArray("Unknown option 'frobnicate'");
        QTest::newRow("bad number") << QStringList {QStringLiteral("producer"),
            QStringLiteral("-w"), QStringLiteral("lots")}
                                    << 2 << QByteArray("-w \"lots\": expected an integer");
        QTest::newRow("bad boolean") << QStringList {QStringLiteral("producer"),
            QStringLiteral("-k"), QStringLiteral("maybe")}
                                     << 2 << QByteArray("-k \"maybe\": expected true or false");
        QTest::newRow("no trace in popconsumer")
            << QStringList {QStringLiteral("popconsumer"), QStringLiteral("-m"),
                   QStringLiteral("true")}
            << 2 << QByteArray("-m (message trace) is not supported by this mode");
        // Accepted by the producer: it goes on to the name server (unreachable here).
        QTest::newRow("trace accepted") << QStringList {QStringLiteral("producer"),
            QStringLiteral("-m"), QStringLiteral("true"), QStringLiteral("-n"),
            QStringLiteral("127.0.0.1:1"), QStringLiteral("--duration"), QStringLiteral("30")}
                                        << 1 << QByteArray("topic BenchmarkTest: Unavailable");
        QTest::newRow("pop batch over 32") << QStringList {QStringLiteral("popconsumer"),
            QStringLiteral("-b"),
            QStringLiteral("33")} << 2 << QByteArray("-b \"33\": expected an integer in [1, 32]");
        QTest::newRow("exclusive modes") << QStringList {QStringLiteral("producer"),
            QStringLiteral("-y"), QStringLiteral("true"), QStringLiteral("-o"),
            QStringLiteral("true")} << 2 << QByteArray("exclusive");
        QTest::newRow("bad rates")
            << QStringList {QStringLiteral("tproducer"), QStringLiteral("-sr"),
                   QStringLiteral("0.7"), QStringLiteral("-su"), QStringLiteral("0.7")}
            << 2 << QByteArray("must not exceed 1");
        QTest::newRow("unreachable name server") << QStringList {QStringLiteral("producer"),
            QStringLiteral("-n"), QStringLiteral("127.0.0.1:1"), QStringLiteral("--duration"),
            QStringLiteral("30")} << 1 << QByteArray("topic BenchmarkTest: Unavailable");
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QByteArray, message);
        QElapsedTimer t;
        t.start();
        const Run r = runBench(args, 20000);
        QVERIFY(r.finished);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message), r.err.constData());
        QVERIFY2(t.elapsed() < 10000, "a bad run must end quickly, not retry");
    }
};

QTEST_GUILESS_MAIN(tst_BenchTool)
#include "tst_benchtool.moc"
