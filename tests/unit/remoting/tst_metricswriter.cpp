// The /metrics building blocks: MetricsWriter's text (escaping, one HELP/TYPE per family,
// families together, counters' _total, histograms, values) read back by the strict parser of
// tests/testlib/exposition.h, and MetricsHttpServer's answers over loopback (200, 404, 405,
// 401 and basic auth).

#include "clientlib/remoting/metricshttpserver.h"
#include "clientlib/remoting/metricswriter.h"
#include "tests/testlib/exposition.h"
#include "tests/testlib/httpget.h"

#include <QTest>

#include <array>
#include <atomic>
#include <cmath>
#include <limits>

using namespace qrocket;
using namespace qrocket::remoting;
using namespace qrocket::testlib;

class tst_MetricsWriter final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void escapesLabelValuesAndHelp()
    {
        QCOMPARE(MetricsWriter::escapeLabelValue("a\\b\"c\nd"), QByteArray("a\\\\b\\\"c\\nd"));
        QCOMPARE(
            MetricsWriter::escapeLabelValue("plain %RETRY%g@t"), QByteArray("plain %RETRY%g@t"));
        QCOMPARE(MetricsWriter::escapeHelp("x\\y\nz \"q\""), QByteArray("x\\\\y\\nz \"q\""));

        // Whatever a topic or group is called, the text reads back to the same value.
        const QByteArray nasty("t\\\"\n}{,=\" x");
        MetricsWriter w;
        QVERIFY(w.declare("m_total", MetricType::Counter, "help with \\ and \n newline"));
        w.add("m_total", {{"topic", nasty}, {"queue", "0"}}, 3);
        const QByteArray text = w.text();
        QVERIFY2(!text.contains("\n}{"), text.constData()); // the newline was escaped
        QString error;
        const std::optional<Exposition> e = parseExposition(text, &error);
        QVERIFY2(e, qPrintable(error + QLatin1Char('\n') + QString::fromUtf8(text)));
        QCOMPARE(e->value("m_total", {{"topic", nasty}}), std::optional<double>(3));
    }

    void oneHelpAndTypePerFamilyAndFamiliesTogether()
    {
        MetricsWriter w;
        QVERIFY(w.declare("a", MetricType::Gauge, "first"));
        QVERIFY(w.declare("b_total", MetricType::Counter, "second"));
        QVERIFY(w.declare("a", MetricType::Counter, "again")); // ignored
        w.add("a", {{"k", "1"}}, 1);
        w.add("b_total", {}, 2);
        w.add("a", {{"k", "2"}}, 3); // interleaved
        const QByteArray text = w.text();
        QCOMPARE(text.count("# TYPE a gauge\n"), 1);
        QCOMPARE(text.count("# HELP a "), 1);
        QCOMPARE(text,
            QByteArray("# HELP a first\n# TYPE a gauge\na{k=\"1\"} 1\na{k=\"2\"} 3\n"
                       "# HELP b_total second\n# TYPE b_total counter\nb_total 2\n"));
        QString error;
        QVERIFY2(parseExposition(text, &error), qPrintable(error));
    }

    void refusesBadNamesAndCountersWithoutTotal()
    {
        MetricsWriter w;
        QVERIFY(!w.declare("1bad", MetricType::Gauge, "x"));
        QVERIFY(!w.declare("bad-name", MetricType::Gauge, "x"));
        QVERIFY(w.declare("requests", MetricType::Counter, "no _total: written as a gauge"));
        QVERIFY(w.declare("g", MetricType::Gauge, "x"));
        w.add("g", {{"bad-label", "v"}}, 1);
        w.add("g", {{"__reserved", "v"}}, 1);
        w.add("undeclared", {}, 1);
        w.add("requests", {}, 7);
        QCOMPARE(w.droppedSamples(), 3);
        const QByteArray text = w.text();
        QVERIFY(text.contains("# TYPE requests gauge\n"));
        QVERIFY(!text.contains("bad-label"));
        QVERIFY(!text.contains("__reserved"));
        QString error;
        QVERIFY2(parseExposition(text, &error), qPrintable(error));
    }

    void valuesAsPrometheusReadsThem()
    {
        QCOMPARE(MetricsWriter::formatValue(0), QByteArray("0"));
        QCOMPARE(MetricsWriter::formatValue(-42), QByteArray("-42"));
        QCOMPARE(MetricsWriter::formatValue(1234567890123.0), QByteArray("1234567890123"));
        QCOMPARE(MetricsWriter::formatValue(0.25), QByteArray("0.25"));
        QCOMPARE(MetricsWriter::formatValue(std::numeric_limits<double>::quiet_NaN()),
            QByteArray("NaN"));
        QCOMPARE(MetricsWriter::formatValue(std::numeric_limits<double>::infinity()),
            QByteArray("+Inf"));
        QCOMPARE(MetricsWriter::formatValue(-std::numeric_limits<double>::infinity()),
            QByteArray("-Inf"));
        QCOMPARE(MetricsWriter::formatValue(1e300).toDouble(), 1e300);
    }

    void histogramBucketsSumAndCount()
    {
        MetricsWriter w;
        QVERIFY(w.declare("lat_seconds", MetricType::Histogram, "latency"));
        const std::array<double, 3> bounds {0.001, 0.01, 0.1};
        const std::array<std::uint64_t, 4> counts {2, 3, 0, 1};
        w.addHistogram("lat_seconds", {{"code", "0"}}, bounds, counts, 0.5);
        const QByteArray text = w.text();
        QString error;
        const std::optional<Exposition> e = parseExposition(text, &error);
        QVERIFY2(e, qPrintable(error + QLatin1Char('\n') + QString::fromUtf8(text)));
        QCOMPARE(e->value("lat_seconds_bucket", {{"le", "0.001"}}), std::optional<double>(2));
        QCOMPARE(e->value("lat_seconds_bucket", {{"le", "0.01"}}), std::optional<double>(5));
        QCOMPARE(e->value("lat_seconds_bucket", {{"le", "0.10000000000000001"}}),
            std::optional<double>(5));
        QCOMPARE(e->value("lat_seconds_bucket", {{"le", "+Inf"}}), std::optional<double>(6));
        QCOMPARE(e->value("lat_seconds_count"), std::optional<double>(6));
        QCOMPARE(e->value("lat_seconds_sum"), std::optional<double>(0.5));
        // A wrong number of counts is refused, not written.
        w.addHistogram("lat_seconds", {{"code", "1"}}, bounds, std::span(counts).first(2), 0);
        QCOMPARE(w.droppedSamples(), 1);
    }

    void strictParserRefusesBrokenText()
    {
        QString error;
        for (const char *bad : {"x 1", "# TYPE x gauge\nx{a=\"1\"} 1\nx{a=\"1\"} 2\n",
                 "# TYPE x counter\nx 1\n", "x 1\n", "# TYPE x gauge\nx{a=\"\\t\"} 1\n",
                 "# TYPE x gauge\n# TYPE y gauge\nx 1\ny 1\nx{a=\"2\"} 1\n",
                 "# TYPE x gauge\nx one\n", "# TYPE x gauge\n# TYPE x gauge\nx 1\n",
                 "# TYPE x gauge\nx{a=\"1\",a=\"2\"} 1\n"})
            QVERIFY2(!parseExposition(QByteArray(bad), &error), bad);
    }

    void basicAuthHeader()
    {
        QByteArray user;
        QByteArray password;
        QVERIFY(MetricsHttpServer::parseBasicAuth(
            "Basic " + QByteArray("rocketmq2:12345:678").toBase64(), &user, &password));
        QCOMPARE(user, QByteArray("rocketmq2"));
        QCOMPARE(password, QByteArray("12345:678"));
        QVERIFY(!MetricsHttpServer::parseBasicAuth("Bearer abc", &user, &password));
        QVERIFY(!MetricsHttpServer::parseBasicAuth("Basic !!!", &user, &password));
        QVERIFY(!MetricsHttpServer::parseBasicAuth(
            "Basic " + QByteArray("nocolon").toBase64(), &user, &password));
    }

    void serverAnswersOnLoopback()
    {
        std::atomic<int> collected {0};
        MetricsHttpServer server({}, [&] {
            ++collected;
            return QByteArray("# HELP up x\n# TYPE up gauge\nup 1\n");
        });
        QVERIFY(server.start());
        QVERIFY(server.port() != 0);
        const HttpAnswer ok = httpRequest(metricsUrl(server.port()));
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.body, QByteArray("# HELP up x\n# TYPE up gauge\nup 1\n"));
        QVERIFY2(
            ok.contentType.startsWith("text/plain; version=0.0.4"), ok.contentType.constData());
        QCOMPARE(httpRequest(metricsUrl(server.port(), QStringLiteral("/"))).status, 404);
        QCOMPARE(httpRequest(metricsUrl(server.port(), QStringLiteral("/metrics/x"))).status, 404);
        QCOMPARE(httpRequest(metricsUrl(server.port()), "POST").status, 405);
        QCOMPARE(collected.load(), 1); // only the GET built an answer
        QCOMPARE(server.scrapes(), std::uint64_t(1));
        server.stop();
        QCOMPARE(server.port(), quint16(0));
    }

    void serverAsksForCredentials()
    {
        MetricsHttpServer::Options options;
        options.authenticate = [](QByteArrayView user, QByteArrayView secret) {
            return user == "admin-key" && secret == "admin-secret";
        };
        MetricsHttpServer server(options, [] { return QByteArray("# TYPE up gauge\nup 1\n"); });
        QVERIFY(server.start());
        const HttpAnswer none = httpRequest(metricsUrl(server.port()));
        QCOMPARE(none.status, 401);
        QVERIFY2(none.wwwAuthenticate.startsWith("Basic"), none.wwwAuthenticate.constData());
        QVERIFY(!none.body.contains("up 1"));
        QCOMPARE(httpRequest(metricsUrl(server.port()), "GET", "admin-key", "wrong").status, 401);
        QCOMPARE(
            httpRequest(metricsUrl(server.port()), "GET", "admin-key", "admin-secret").status, 200);
        QCOMPARE(server.unauthorized(), std::uint64_t(2));
    }

    void busyPortIsAnError()
    {
        MetricsHttpServer first({}, [] { return QByteArray(); });
        QVERIFY(first.start());
        MetricsHttpServer::Options options;
        options.port = first.port();
        MetricsHttpServer second(options, [] { return QByteArray(); });
        const Status st = second.start();
        QVERIFY(!st);
        QVERIFY2(st.message().contains(QString::number(first.port())), qPrintable(st.message()));
    }
};

QTEST_GUILESS_MAIN(tst_MetricsWriter)
#include "tst_metricswriter.moc"
