#include "clientlib/common/adaptivemutex.h"
#include "clientlib/common/hash.h"
#include "clientlib/common/properties.h"
#include "clientlib/common/result.h"
#include "clientlib/common/threadsched.h"

#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <mutex>
#include <random>
#include <sched.h>
#include <thread>
#include <vector>
#include <zlib.h>

using namespace qrocket;

class tst_Common final : public QObject
{
    Q_OBJECT

private slots:
    void statusCarriesCodeAndMessage();
    void resultHoldsValueOrError();
    void crc32MatchesKnownValues();
    void crc32MatchesZlibOnRandomLengthsAndAlignments();
    void crc32UpdateContinues();
    void javaHashMatchesJava_data();
    void javaHashMatchesJava();
    void consistentHashMatchesGuava();
    void propertiesParseJavaSyntax();
    void propertiesRoundTripThroughFormat();
    void schemaAppliesTypedValuesAndReportsUnknownKeys();
    void schemaRejectsBadValuesNamingKeyAndLine();
    void schemaPrintsEverySetting();
    void loadPropertiesFileReportsMissingFile();
    void adaptiveMutexExcludes();
    void threadHintsSetThePolicy();
};

void tst_Common::statusCarriesCodeAndMessage()
{
    Status ok;
    QVERIFY(ok.isOk());
    QCOMPARE(ok.toString(), QStringLiteral("OK"));
    Status bad = Status::corruption(QStringLiteral("bad magic at 42"));
    QVERIFY(!bad.isOk());
    QCOMPARE(bad.code(), Status::Code::Corruption);
    QCOMPARE(bad.toString(), QStringLiteral("Corruption: bad magic at 42"));
    Status copy = bad;
    QCOMPARE(copy.message(), QStringLiteral("bad magic at 42"));
}

void tst_Common::resultHoldsValueOrError()
{
    Result<int> v(7);
    QVERIFY(v.has_value());
    QCOMPARE(*v, 7);
    QVERIFY(v.status().isOk());
    Result<int> e(Status::notFound(QStringLiteral("nope")));
    QVERIFY(!e.has_value());
    QCOMPARE(e.error().code(), Status::Code::NotFound);
    QCOMPARE(e.value_or(3), 3);
}

void tst_Common::crc32MatchesKnownValues()
{
    // The standard check value of CRC-32/IEEE.
    QCOMPARE(crc32(QByteArrayView("123456789")), 0xCBF43926u);
    QCOMPARE(crc32(QByteArrayView()), 0u);
    // Masking clears the sign bit only.
    QCOMPARE(crc32Masked(QByteArrayView("123456789")), std::int32_t(0x4BF43926));
}

void tst_Common::crc32MatchesZlibOnRandomLengthsAndAlignments()
{
    qInfo() << "accelerated crc32:" << crc32IsAccelerated();
    std::mt19937 rng(20261130);
    QByteArray buf(70000, Qt::Uninitialized);
    for (char &c : buf)
        c = static_cast<char>(rng());
    auto zlibCrc = [](const char *p, qsizetype n) {
        return static_cast<std::uint32_t>(
            ::crc32(0L, reinterpret_cast<const Bytef *>(p), static_cast<uInt>(n)));
    };
    // Every length around the 16/64-byte folding boundaries at every alignment within a lane.
    for (qsizetype len = 0; len <= 300; ++len) {
        for (qsizetype align = 0; align < 17; ++align) {
            const char *p = buf.constData() + align;
            QCOMPARE(crc32(QByteArrayView(p, len)), zlibCrc(p, len));
        }
    }
    // Random lengths and offsets, including long ones.
    for (int i = 0; i < 2000; ++i) {
        const auto len = static_cast<qsizetype>(rng() % (i < 1900 ? 5000u : 65000u));
        const auto off = static_cast<qsizetype>(rng() % static_cast<unsigned>(buf.size() - len));
        const char *p = buf.constData() + off;
        QCOMPARE(crc32(QByteArrayView(p, len)), zlibCrc(p, len));
        QCOMPARE(crc32Portable(0, QByteArrayView(p, len)), zlibCrc(p, len));
    }
    // All-zero and all-ones bodies (degenerate folding inputs).
    for (char fill : {'\0', '\xff'}) {
        const QByteArray b(4096 + 48, fill);
        QCOMPARE(crc32(b), zlibCrc(b.constData(), b.size()));
    }
}

void tst_Common::crc32UpdateContinues()
{
    std::mt19937 rng(7);
    QByteArray buf(5000, Qt::Uninitialized);
    for (char &c : buf)
        c = static_cast<char>(rng());
    for (qsizetype split : {0, 1, 15, 16, 63, 64, 65, 1000, 4999, 5000}) {
        const std::uint32_t first = crc32(QByteArrayView(buf).first(split));
        QCOMPARE(crc32Update(first, QByteArrayView(buf).sliced(split)), crc32(buf));
    }
}

void tst_Common::javaHashMatchesJava_data()
{
    QTest::addColumn<QByteArray>("utf8");
    QTest::addColumn<int>("expected");
    // Values printed by java.lang.String.hashCode() on OpenJDK 17 (TagA/TagB also appear as
    // codeSet in real heartbeats).
    QTest::addRow("empty") << QByteArray() << 0;
    QTest::addRow("TagA") << QByteArrayLiteral("TagA") << 2598919;
    QTest::addRow("TagB") << QByteArrayLiteral("TagB") << 2598920;
    QTest::addRow("overflow") << QByteArrayLiteral("TopicTest#KEY-1234567890") << 226908523;
    // U+00E9 (2 UTF-8 bytes, 1 UTF-16 unit) and U+1F600 (4 UTF-8 bytes, 2 UTF-16 units).
    QTest::addRow("latin1") << QByteArray("\xc3\xa9") << 0xE9;
    QTest::addRow("surrogates") << QByteArray("\xf0\x9f\x98\x80") << 1772899;
}

void tst_Common::javaHashMatchesJava()
{
    QFETCH(QByteArray, utf8);
    QFETCH(int, expected);
    QCOMPARE(javaStringHash(utf8), expected);
}

void tst_Common::consistentHashMatchesGuava()
{
    // Reference values computed from the published definition of Guava's consistentHash (the
    // 64-bit LCG 2862933555777941757 * state + 1, (int)(state >>> 33) + 1 over 2^31, jump while
    // (candidate + 1) / next < buckets) by an independent big-integer script; the first rows
    // are also Guava's own compatibility values for that function.
    const int golden100[]
        = {0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83};
    for (int i = 0; i < 20; ++i)
        QCOMPARE(consistentHash(i, 100), golden100[i]);
    QCOMPARE(consistentHash(10863919174838991LL, 11), 6);
    QCOMPARE(consistentHash(2016238256797177309LL, 11), 3);
    QCOMPARE(consistentHash(1673758223894951030LL, 11), 5);
    QCOMPARE(consistentHash(2, 100001), 80343);
    QCOMPARE(consistentHash(2201, 100001), 22152);
    QCOMPARE(consistentHash(2202, 100001), 15018);
    // Negative inputs (String.hashCode() widened to long) and the extremes.
    QCOMPARE(consistentHash(-1, 8), 7);
    QCOMPARE(consistentHash(std::numeric_limits<std::int64_t>::min(), 16), 12);
    QCOMPARE(consistentHash(std::numeric_limits<std::int64_t>::max(), 16), 8);
    // The proxy's FIFO choice: consistentHash(messageGroup.hashCode(), writeQueues).
    QCOMPARE(javaStringHash("order-1"), -1207111310);
    QCOMPARE(consistentHash(javaStringHash("order-1"), 4), 3);
    QCOMPARE(consistentHash(javaStringHash("groupA"), 8), 5);
    QCOMPARE(consistentHash(javaStringHash("groupA"), 100), 86);
    QCOMPARE(consistentHash(javaStringHash("\xc3\xa9-grp"), 8), 7);
    QCOMPARE(consistentHash(javaStringHash("a-very-long-message-group-name-0123456789"), 16), 11);
    QCOMPARE(consistentHash(12345, 1), 0);
    QCOMPARE(consistentHash(12345, 0), 0);
    // Growing the bucket count moves an input only to the new bucket.
    for (std::int64_t in = -500; in < 500; ++in) {
        const int a = consistentHash(in * 7919, 9);
        const int b = consistentHash(in * 7919, 10);
        QVERIFY(b == a || b == 9);
    }
}

void tst_Common::propertiesParseJavaSyntax()
{
    const QByteArray text = "# comment\n"
                            "! also a comment\n"
                            "brokerClusterName = DefaultCluster\n"
                            "brokerName:broker-a\n"
                            "brokerId 0\n"
                            "  deleteWhen=04\n"
                            "messageDelayLevel=1s 5s \\\n"
                            "    10s\n"
                            "path=C\\:\\\\store\\tx\n"
                            "unicode=\\u0041\\u00e9\r\n"
                            "empty=\n";
    const Properties p = parseProperties(text);
    QCOMPARE(p.size(), 8);
    QCOMPARE(p[0].key, QStringLiteral("brokerClusterName"));
    QCOMPARE(p[0].value, QStringLiteral("DefaultCluster"));
    QCOMPARE(p[0].line, 3);
    QCOMPARE(p[1].value, QStringLiteral("broker-a"));
    QCOMPARE(p[2].key, QStringLiteral("brokerId"));
    QCOMPARE(p[2].value, QStringLiteral("0"));
    QCOMPARE(p[3].value, QStringLiteral("04"));
    QCOMPARE(p[4].value, QStringLiteral("1s 5s 10s"));
    QCOMPARE(p[5].value, QStringLiteral("C:\\store\tx"));
    QCOMPARE(p[6].value, QString(QStringLiteral("A") + QChar(0xE9)));
    QCOMPARE(p[7].key, QStringLiteral("empty"));
    QVERIFY(p[7].value.isEmpty());
}

void tst_Common::propertiesRoundTripThroughFormat()
{
    const QList<std::pair<QString, QString>> in = {
        {QStringLiteral("a=b"), QStringLiteral(" leading space")},
        {QStringLiteral("path"), QStringLiteral("C:\\x\ty")},
        {QStringLiteral("plain"), QStringLiteral("v")},
    };
    const Properties out = parseProperties(formatProperties(in));
    QCOMPARE(out.size(), in.size());
    for (int i = 0; i < in.size(); ++i) {
        QCOMPARE(out[i].key, in[i].first);
        QCOMPARE(out[i].value, in[i].second);
    }
}

namespace {
struct SampleConfig
{
    int listenPort = 9876;
    std::int64_t fileReservedTime = 72;
    bool autoCreateTopicEnable = true;
    double ratio = 0.75;
    QString name = QStringLiteral("broker-a");

    void bind(ConfigSchema &s)
    {
        s.add("listenPort", &listenPort, true);
        s.add("fileReservedTime", &fileReservedTime);
        s.add("autoCreateTopicEnable", &autoCreateTopicEnable, true);
        s.add("ratio", &ratio);
        s.add("brokerName", &name, true);
    }
};
} // namespace

void tst_Common::schemaAppliesTypedValuesAndReportsUnknownKeys()
{
    SampleConfig c;
    ConfigSchema s;
    c.bind(s);
    QStringList unknown;
    const Status st = s.apply(parseProperties("listenPort=10911\nfileReservedTime=48\n"
                                              "autoCreateTopicEnable=FALSE\nratio=0.9\n"
                                              "brokerName= b \nnoSuchKey=1\nlistenPort=10912\n"),
        &unknown);
    QVERIFY2(st.isOk(), qPrintable(st.toString()));
    QCOMPARE(c.listenPort, 10912); // last one wins
    QCOMPARE(c.fileReservedTime, std::int64_t(48));
    QCOMPARE(c.autoCreateTopicEnable, false);
    QCOMPARE(c.ratio, 0.9);
    QCOMPARE(c.name, QStringLiteral("b"));
    QCOMPARE(unknown, QStringList {QStringLiteral("noSuchKey")});
    QCOMPARE(s.set(QStringLiteral("nope"), QStringLiteral("1")).code(), Status::Code::NotFound);
}

void tst_Common::schemaRejectsBadValuesNamingKeyAndLine()
{
    SampleConfig c;
    ConfigSchema s;
    c.bind(s);
    Status st = s.apply(parseProperties("brokerName=x\n\nlistenPort=ten\n"));
    QCOMPARE(st.code(), Status::Code::InvalidArgument);
    QVERIFY(st.message().contains(QStringLiteral("line 3")));
    QVERIFY(st.message().contains(QStringLiteral("listenPort")));
    QVERIFY(st.message().contains(QStringLiteral("ten")));
    QCOMPARE(c.listenPort, 9876); // unchanged
    st = s.apply(parseProperties("autoCreateTopicEnable=yes\n"));
    QCOMPARE(st.code(), Status::Code::InvalidArgument);
    QCOMPARE(c.autoCreateTopicEnable, true);
}

void tst_Common::schemaPrintsEverySetting()
{
    SampleConfig c;
    ConfigSchema s;
    c.bind(s);
    QCOMPARE(s.print(),
        QStringLiteral("listenPort=9876\nfileReservedTime=72\nautoCreateTopicEnable=true\n"
                       "ratio=0.75\nbrokerName=broker-a\n"));
    QCOMPARE(s.print(true),
        QStringLiteral("listenPort=9876\nautoCreateTopicEnable=true\nbrokerName=broker-a\n"));
    QCOMPARE(s.value(QStringLiteral("fileReservedTime")), QStringLiteral("72"));
    QVERIFY(s.value(QStringLiteral("missing")).isNull());
}

void tst_Common::loadPropertiesFileReportsMissingFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto r = loadPropertiesFile(dir.filePath(QStringLiteral("absent.conf")));
    QVERIFY(!r.has_value());
    QCOMPARE(r.error().code(), Status::Code::IoError);
    QVERIFY(r.error().message().contains(QStringLiteral("absent.conf")));
}

void tst_Common::adaptiveMutexExcludes()
{
    AdaptiveMutex m;
    QVERIFY(m.try_lock());
    QVERIFY(!m.try_lock()); // not recursive
    m.unlock();
    // Four threads, a non-atomic read-modify-write under the lock: no update is lost, and no
    // two holders overlap.
    std::int64_t counter = 0;
    int holders = 0;
    bool overlapped = false;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 100'000; ++i) {
                std::lock_guard lock(m);
                if (++holders != 1)
                    overlapped = true;
                counter = counter + 1;
                --holders;
            }
        });
    for (auto &t : threads)
        t.join();
    QVERIFY(!overlapped);
    QCOMPARE(counter, 400'000);
}

void tst_Common::threadHintsSetThePolicy()
{
    if (qgetenv("QROCKET_THREAD_HINTS") == "off")
        QSKIP("QROCKET_THREAD_HINTS=off");
    // Each hint on a thread of its own (a thread cannot leave SCHED_IDLE without privilege).
    const auto policyAfter = [](bool (*hint)()) {
        int policy = -1;
        bool applied = false;
        std::thread([&] {
            applied = hint();
            policy = ::sched_getscheduler(0);
        }).join();
        return std::pair(applied, policy);
    };
    const auto [batchApplied, batch] = policyAfter(&markCurrentThreadBackground);
    QVERIFY(batchApplied); // plain user rights: works unprivileged on any Linux
    QCOMPARE(batch, SCHED_BATCH);
    const auto [idleApplied, idle] = policyAfter(&markCurrentThreadIdle);
    QVERIFY(idleApplied);
    QCOMPARE(idle, SCHED_IDLE);
    QCOMPARE(::sched_getscheduler(0), SCHED_OTHER); // this thread kept its policy
}

QTEST_APPLESS_MAIN(tst_Common)
#include "tst_common.moc"
