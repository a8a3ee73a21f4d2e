// The sample cluster layouts resources/conf/2m-2s-sync and 2m-2s-async, started as written: each
// file's text as it is, followed only by the keys its comment says to set when the brokers share
// one machine (listenPort, storePathRootDir, namesrvAddr, and loopback brokerIP1/2), and a 64 MiB
// commit-log file instead of the default 1 GiB: the store preallocates its files, and four
// brokers' gigabytes are more than a shared CI disk may have free. Two name
// servers; each slave must find its own master through them, each master must have its slave,
// and sends must work on both masters, also after one master is killed.

#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

class tst_ClusterLayouts final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void layoutStartsAsWritten_data();
    void layoutStartsAsWritten();

private:
    QTemporaryDir m_dir;
    remoting::RemotingClient m_client;
};

void tst_ClusterLayouts::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker"))),
        "qrocket-broker not built");
}

void tst_ClusterLayouts::layoutStartsAsWritten_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<bool>("sync");
    QTest::addRow("2m-2s-sync") << QStringLiteral("2m-2s-sync") << true;
    QTest::addRow("2m-2s-async") << QStringLiteral("2m-2s-async") << false;
}

void tst_ClusterLayouts::layoutStartsAsWritten()
{
    QFETCH(QString, layout);
    QFETCH(bool, sync);
    const QString root = m_dir.filePath(layout);
    DaemonProcess ns1(QStringLiteral("qrocket-namesrv")), ns2(QStringLiteral("qrocket-namesrv"));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/ns1")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/ns2")));
    const quint16 nsPort1 = startNamesrv(ns1, root + QStringLiteral("/ns1"));
    const quint16 nsPort2 = startNamesrv(ns2, root + QStringLiteral("/ns2"));
    QVERIFY(nsPort1 != 0 && nsPort2 != 0);
    const QByteArray namesrvAddr
        = "127.0.0.1:" + QByteArray::number(nsPort1) + ";127.0.0.1:" + QByteArray::number(nsPort2);

    // Masters first: a slave learns its master's HA address from its first registration.
    const QStringList files = {QStringLiteral("broker-a"), QStringLiteral("broker-b"),
        QStringLiteral("broker-a-s"), QStringLiteral("broker-b-s")};
    std::vector<std::unique_ptr<DaemonProcess>> brokers;
    std::map<QString, quint16> ports;
    for (const QString &name : files) {
        QFile f(QStringLiteral(QROCKET_SOURCE_DIR "/resources/conf/") + layout + u'/' + name
            + QStringLiteral(".properties"));
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        const QByteArray asWritten = f.readAll();
        brokers.push_back(std::make_unique<DaemonProcess>(QStringLiteral("qrocket-broker")));
        quint16 port = 0;
        const QString store = root + u'/' + name;
        QVERIFY(startOnFreePort(
            *brokers.back(), store + QStringLiteral(".properties"), port, [&](quint16 p) {
                return asWritten + "\nlistenPort=" + QByteArray::number(p)
                    + "\nstorePathRootDir=" + store.toUtf8() + "\nnamesrvAddr=" + namesrvAddr
                    + "\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0.1\n"
                    + "mapedFileSizeCommitLog=67108864\n";
            }));
        ports[name] = port;
    }
    // Each master has its slave, and each slave follows its own master.
    for (const char *pair : {"broker-a", "broker-b"}) {
        const QString master = QLatin1String(pair);
        const quint16 mp = ports[master];
        const quint16 sp = ports[master + QStringLiteral("-s")];
        QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, mp, "haConnectionCount"), 1, 15000);
        QCOMPARE(runtimeInfo(m_client, sp).at("haMasterAddress"),
            "127.0.0.1:" + QByteArray::number(mp + 1));
        QCOMPARE(runtimeInfo(m_client, mp).at("brokerRole"),
            sync ? QByteArray("SYNC_MASTER") : QByteArray("ASYNC_MASTER"));
        for (int i = 0; i < 10; ++i) {
            const auto r = call(m_client, mp, sendV2("LayoutTopic", 0, "m" + num(i)));
            QVERIFY2(r.code == 0, r.remark.constData());
        }
        QTRY_COMPARE_WITH_TIMEOUT(runtimeLong(m_client, sp, "commitLogMaxOffset"),
            runtimeLong(m_client, mp, "commitLogMaxOffset"), 10000);
    }
    // One master dies: the other one keeps taking sends.
    brokers[0]->kill();
    for (int i = 0; i < 10; ++i) {
        const auto r
            = call(m_client, ports[QStringLiteral("broker-b")], sendV2("LayoutTopic", 0, "b"));
        QVERIFY2(r.code == 0, r.remark.constData());
    }
    for (auto &b : brokers)
        if (b->isRunning())
            QCOMPARE(b->stop(), 0);
    ns1.stop();
    ns2.stop();
    QVERIFY(QDir(root).removeRecursively()); // the next layout's brokers need the space
}

QTEST_GUILESS_MAIN(tst_ClusterLayouts)
#include "tst_clusterlayouts.moc"
