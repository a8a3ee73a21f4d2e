// setResource() (broker/grpc/grpcconvert.h): how the broker names a topic or group in its gRPC
// answers, split as RocketMQ 5.3.3's proxy splits it (NamespaceUtil's getNamespaceFromResource
// and withoutNamespace): "ns%name" into resource_namespace and name, retry and DLQ prefixes kept
// on the name, system names and names without a namespace whole. hostText(): HostAddress's text,
// built without its temporaries, with or without the port.

#include "broker/grpc/grpcconvert.h"

#include <QTest>

using namespace qrocket::broker::v2;

class tst_GrpcConvert final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resourceSplitsTheNamespace_data();
    void resourceSplitsTheNamespace();
    void resourceClearsAnOldNamespace();
    void hostTextMatchesHostAddress();
};

void tst_GrpcConvert::resourceSplitsTheNamespace_data()
{
    QTest::addColumn<QByteArray>("full");
    QTest::addColumn<QByteArray>("ns");
    QTest::addColumn<QByteArray>("name");
    QTest::newRow("namespaced topic")
        << QByteArray("MQ_INST_1%Orders") << QByteArray("MQ_INST_1") << QByteArray("Orders");
    QTest::newRow("no namespace") << QByteArray("Orders") << QByteArray() << QByteArray("Orders");
    QTest::newRow("empty") << QByteArray() << QByteArray() << QByteArray();
    QTest::newRow("retry, namespaced")
        << QByteArray("%RETRY%ns1%GID_A") << QByteArray("ns1") << QByteArray("%RETRY%GID_A");
    QTest::newRow("dlq, namespaced")
        << QByteArray("%DLQ%ns1%GID_A") << QByteArray("ns1") << QByteArray("%DLQ%GID_A");
    QTest::newRow("retry, no namespace")
        << QByteArray("%RETRY%GID_A") << QByteArray() << QByteArray("%RETRY%GID_A");
    // Only the first '%' splits.
    QTest::newRow("two separators") << QByteArray("a%b%c") << QByteArray("a") << QByteArray("b%c");
    // A '%' at the start is no namespace (LMQ's "%LMQ%..."), nor one right after a prefix.
    QTest::newRow("lmq") << QByteArray("%LMQ%q1") << QByteArray() << QByteArray("%LMQ%q1");
    QTest::newRow("retry then %") << QByteArray("%RETRY%%x") << QByteArray()
                                  << QByteArray("%RETRY%%x");
    // System names are never split.
    QTest::newRow("rmq_sys_ topic")
        << QByteArray("rmq_sys_a%b") << QByteArray() << QByteArray("rmq_sys_a%b");
    QTest::newRow("system group") << QByteArray("CID_RMQ_SYS_a%b") << QByteArray()
                                  << QByteArray("CID_RMQ_SYS_a%b");
}

void tst_GrpcConvert::resourceSplitsTheNamespace()
{
    QFETCH(QByteArray, full);
    QFETCH(QByteArray, ns);
    QFETCH(QByteArray, name);
    pb::Resource r;
    setResource(&r, full);
    QCOMPARE(QByteArray::fromStdString(r.resource_namespace()), ns);
    QCOMPARE(QByteArray::fromStdString(r.name()), name);
}

void tst_GrpcConvert::resourceClearsAnOldNamespace()
{
    pb::Resource r;
    r.set_resource_namespace("old");
    setResource(&r, "Plain");
    QVERIFY(r.resource_namespace().empty());
    QCOMPARE(r.name(), std::string("Plain"));
}

void tst_GrpcConvert::hostTextMatchesHostAddress()
{
    using qrocket::protocol::HostAddress;
    for (const char *text : {"127.0.0.1:10911", "0.0.0.0:0", "255.255.255.255:65535",
             "10.2.33.144:8081", "[::1]:10911", "[2001:db8::8:1]:7"}) {
        HostAddress h;
        QVERIFY2(HostAddress::parse(text, h), text);
        QCOMPARE(QByteArray::fromStdString(hostText(h, true)), h.toString());
        const QByteArray full(text);
        QByteArray bare = full.left(full.lastIndexOf(':'));
        if (bare.startsWith('['))
            bare = bare.mid(1, bare.size() - 2);
        QCOMPARE(QByteArray::fromStdString(hostText(h, false)), bare);
    }
}

QTEST_GUILESS_MAIN(tst_GrpcConvert)
#include "tst_grpcconvert.moc"
