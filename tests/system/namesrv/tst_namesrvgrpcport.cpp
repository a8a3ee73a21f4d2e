// The real qrocket-namesrv against hostile values of QRocket's REGISTER_BROKER "grpcPort" header
// field: only an integer in 1..65535 puts a gRPC endpoint in the broker's routes (grpcPorts);
// anything else is ignored as if absent, logged at a bounded rate, and the daemon keeps serving.

#include "rawclient.h"
#include "tests/testlib/daemonprocess.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::testing;

namespace {

constexpr int kRegisterBrokerReq = 1; // recorded REGISTER_BROKER: broker-a, id 0, TBW102
constexpr int kGetRouteInfo = 105;

} // namespace

class tst_NamesrvGrpcPort : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void onlyPortNumbersReachTheRoute_data();
    void onlyPortNumbersReachTheRoute();
    void badValuesAreNamedEscapedAndCutShort();
    void floodOfBadValuesIsLoggedAtABoundedRate();

private:
    /// Registers broker-a with `grpcPort` (the field left out when null) and answers the code.
    int registerWith(RawClient &client, const QByteArray &grpcPort);
    /// broker-a's grpcPorts in TBW102's route: {} when the field is absent; nullopt on failure.
    std::optional<QJsonObject> routedPorts(RawClient &client);

    QTemporaryDir m_dir;
    std::unique_ptr<testlib::DaemonProcess> m_namesrv;
    quint16 m_port = 0;
};

void tst_NamesrvGrpcPort::initTestCase()
{
    QROCKET_REQUIRE_VECTORS();
    QVERIFY(m_dir.isValid());
    m_namesrv = std::make_unique<testlib::DaemonProcess>(QStringLiteral("qrocket-namesrv"));
    m_port = testlib::startNamesrv(*m_namesrv, m_dir.path());
    QVERIFY2(m_port != 0, qPrintable(m_namesrv->error()));
}

void tst_NamesrvGrpcPort::cleanupTestCase()
{
    if (m_namesrv)
        QCOMPARE(m_namesrv->stop(), 0);
}

int tst_NamesrvGrpcPort::registerWith(RawClient &client, const QByteArray &grpcPort)
{
    RemotingCommand reg = recordedCommand(kRegisterBrokerReq);
    if (!grpcPort.isNull())
        reg.setExt("grpcPort", grpcPort);
    const auto resp = client.call(reg);
    return resp ? resp->code : -1;
}

std::optional<QJsonObject> tst_NamesrvGrpcPort::routedPorts(RawClient &client)
{
    const auto resp = client.call(request(kGetRouteInfo, {{"topic", "TBW102"}}));
    if (!resp || resp->code != 0)
        return std::nullopt;
    const QJsonArray brokers = QJsonDocument::fromJson(resp->body)
                                   .object()
                                   .value(QLatin1String("brokerDatas"))
                                   .toArray();
    if (brokers.size() != 1)
        return std::nullopt;
    return brokers.at(0).toObject().value(QLatin1String("grpcPorts")).toObject();
}

void tst_NamesrvGrpcPort::onlyPortNumbersReachTheRoute_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<int>("routed"); // 0: no gRPC endpoint in the route

    QTest::newRow("absent") << QByteArray() << 0;
    QTest::newRow("valid") << QByteArray("8081") << 8081;
    QTest::newRow("lowest") << QByteArray("1") << 1;
    QTest::newRow("highest") << QByteArray("65535") << 65535;
    QTest::newRow("plus sign, as Java's Long.parseLong") << QByteArray("+9876") << 9876;
    QTest::newRow("empty") << QByteArray("") << 0;
    QTest::newRow("garbage") << QByteArray("abc") << 0;
    QTest::newRow("trailing garbage") << QByteArray("8081x") << 0;
    QTest::newRow("leading space") << QByteArray(" 8081") << 0;
    QTest::newRow("hex") << QByteArray("0x1f91") << 0;
    QTest::newRow("decimal point") << QByteArray("8081.0") << 0;
    QTest::newRow("zero") << QByteArray("0") << 0;
    QTest::newRow("negative") << QByteArray("-8081") << 0;
    QTest::newRow("just above") << QByteArray("65536") << 0;
    QTest::newRow("huge") << QByteArray("4294975377") << 0; // 2^32 + 8081: no wrap to 8081
    QTest::newRow("int64 overflow") << QByteArray("99999999999999999999999") << 0;
    QTest::newRow("binary") << QByteArray("\x00\xff\n80", 5) << 0;
    QTest::newRow("long") << QByteArray(4000, '7') << 0;
}

void tst_NamesrvGrpcPort::onlyPortNumbersReachTheRoute()
{
    QFETCH(QByteArray, value);
    QFETCH(int, routed);
    RawClient client;
    QVERIFY(client.connectTo(m_port));
    // A valid port first: a bad value must take it away again, not leave the previous one.
    QCOMPARE(registerWith(client, "7777"), 0);
    QCOMPARE(routedPorts(client), std::optional(QJsonObject {{QStringLiteral("0"), 7777}}));

    QCOMPARE(registerWith(client, value), 0); // the registration itself is accepted
    const auto ports = routedPorts(client);
    QVERIFY(ports);
    if (routed == 0)
        QVERIFY2(ports->isEmpty(), QJsonDocument(*ports).toJson().constData());
    else
        QCOMPARE(*ports, (QJsonObject {{QStringLiteral("0"), routed}}));
    QVERIFY(m_namesrv->isRunning());
}

void tst_NamesrvGrpcPort::badValuesAreNamedEscapedAndCutShort()
{
    RawClient client;
    QVERIFY(client.connectTo(m_port));
    // The warnings are rate-limited (earlier rows may have used this second's burst): send until
    // the expected line shows up, bounded.
    auto logged = [&](const QByteArray &value, const QByteArray &expected) {
        QDeadlineTimer deadline(5000);
        while (!deadline.hasExpired()) {
            if (registerWith(client, value) != 0)
                return false;
            if (QTest::qWaitFor([&] { return m_namesrv->output().contains(expected); }, 300))
                return true;
        }
        return false;
    };
    QVERIFY2(logged(QByteArray("\x00\xff\n80", 5), R"(grpcPort "%00%FF%0A80" is not a port)"),
        m_namesrv->output().right(2000).constData());
    QVERIFY(
        logged(QByteArray(4000, '7'), "grpcPort \"" + QByteArray(32, '7') + "\" is not a port"));
    QVERIFY(!m_namesrv->output().contains(QByteArray(33, '7')));
    QVERIFY(logged("65536", "127.0.0.1:20911): grpcPort \"65536\" is not a port"));
}

void tst_NamesrvGrpcPort::floodOfBadValuesIsLoggedAtABoundedRate()
{
    RawClient client;
    QVERIFY(client.connectTo(m_port));
    auto warnings = [this] { return m_namesrv->output().count("is not a port"); };
    const qsizetype before = warnings();
    QElapsedTimer elapsed;
    elapsed.start();
    constexpr int kFlood = 400;
    for (int i = 0; i < kFlood; ++i)
        QCOMPARE(registerWith(client, "-" + QByteArray::number(i)), 0);
    const qint64 seconds = elapsed.elapsed() / 1000 + 1;
    // Still serving, with no endpoint for the last (bad) value.
    QCOMPARE(routedPorts(client), std::optional(QJsonObject()));
    QCOMPARE(registerWith(client, "8081"), 0);
    QCOMPARE(routedPorts(client), std::optional(QJsonObject {{QStringLiteral("0"), 8081}}));
    // At most a burst of 5 per second (LogRateLimiter's default), and at least one.
    QTRY_VERIFY_WITH_TIMEOUT(warnings() > before, 5000);
    const qsizetype logged = warnings() - before;
    QVERIFY2(logged <= 5 * (seconds + 1),
        qPrintable(QStringLiteral("%1 warnings in %2 s").arg(logged).arg(seconds)));
    QVERIFY(m_namesrv->isRunning());
}

QTEST_GUILESS_MAIN(tst_NamesrvGrpcPort)
#include "tst_namesrvgrpcport.moc"
