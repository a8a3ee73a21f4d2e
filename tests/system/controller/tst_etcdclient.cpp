// EtcdClient against a real etcd process on loopback: leases (grant, keep-alive, revoke,
// expiry), the conditional writes the election uses, and the errors a caller must see (an
// endpoint nobody listens on, a frozen etcd, an unknown lease), each within its bound.

#include "broker/controller/etcdclient.h"
#include "tests/testlib/daemonprocess.h"
#include "tests/testlib/etcdprocess.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <optional>

using namespace qrocket;
using namespace qrocket::broker::controller;
using qrocket::testlib::EtcdProcess;

namespace {

constexpr int kWaitMs = 15000; // the bound on any one call in these tests

/// Runs one asynchronous call to completion (bounded by kWaitMs) and returns its result.
template<typename T, typename Start>
std::optional<T> await(Start &&start)
{
    std::optional<T> out;
    QEventLoop loop;
    QTimer guard;
    guard.setSingleShot(true);
    QObject::connect(&guard, &QTimer::timeout, &loop, &QEventLoop::quit);
    guard.start(kWaitMs);
    start([&](T r) {
        out.emplace(std::move(r));
        loop.quit();
    });
    if (!out)
        loop.exec();
    return out;
}

} // namespace

class TestEtcdClient : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void parseEndpoints();
    void leaseLifecycle();
    void createIfAbsentIsExclusive();
    void leaseExpiryDeletesItsKey();
    void modRevisionGuards();
    void deadEndpointFailsOverOrFails();
    void frozenEtcdTimesOut();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    EtcdProcess m_etcd;
};

void TestEtcdClient::initTestCase()
{
    if (EtcdProcess::program().isEmpty())
        QSKIP("no etcd binary (Debian: etcd-server)");
    QVERIFY(m_dir.isValid());
    QVERIFY2(m_etcd.start(m_dir.filePath(QStringLiteral("etcd"))), qPrintable(m_etcd.error()));
}

void TestEtcdClient::cleanupTestCase()
{
    m_etcd.kill();
}

void TestEtcdClient::parseEndpoints()
{
    auto two = EtcdClient::parseEndpoints(
        QStringLiteral(" http://127.0.0.1:2379, http://10.0.0.2:2380/;http://h:1"));
    QVERIFY(two.has_value());
    QCOMPARE(*two,
        QStringList({QStringLiteral("http://127.0.0.1:2379"),
            QStringLiteral("http://10.0.0.2:2380"), QStringLiteral("http://h:1")}));
    for (const char *bad :
        {"", " , ", "127.0.0.1:2379", "https://h:1", "http://h", "http://h:1/v3"}) {
        auto r = EtcdClient::parseEndpoints(QString::fromLatin1(bad));
        QVERIFY2(!r.has_value(), bad);
        QCOMPARE(r.error().code(), Status::Code::InvalidArgument);
    }
}

void TestEtcdClient::leaseLifecycle()
{
    EtcdClient etcd({m_etcd.endpoint()}, 3000);
    auto lease = await<Result<EtcdLease>>([&](auto cb) { etcd.grantLease(5, cb); });
    QVERIFY(lease && lease->has_value());
    const std::int64_t id = (*lease)->id;
    QVERIFY(id != 0);
    QCOMPARE((*lease)->ttl, 5);

    auto renewed = await<Result<EtcdLease>>([&](auto cb) { etcd.keepAlive(id, cb); });
    QVERIFY(renewed);
    QVERIFY2(renewed->has_value(), qPrintable(renewed->status().message()));
    QCOMPARE((*renewed)->id, id);
    QCOMPARE((*renewed)->ttl, 5);

    auto revoked = await<Status>([&](auto cb) { etcd.revokeLease(id, cb); });
    QVERIFY(revoked);
    QVERIFY2(revoked->isOk(), qPrintable(revoked->message()));

    // A revoked lease cannot be kept alive, nor revoked twice: both say NotFound.
    auto dead = await<Result<EtcdLease>>([&](auto cb) { etcd.keepAlive(id, cb); });
    QVERIFY(dead && !dead->has_value());
    QCOMPARE(dead->error().code(), Status::Code::NotFound);
    auto again = await<Status>([&](auto cb) { etcd.revokeLease(id, cb); });
    QVERIFY(again);
    QCOMPARE(again->code(), Status::Code::NotFound);
}

void TestEtcdClient::createIfAbsentIsExclusive()
{
    EtcdClient a({m_etcd.endpoint()}, 3000);
    EtcdClient b({m_etcd.endpoint()}, 3000);
    auto la = await<Result<EtcdLease>>([&](auto cb) { a.grantLease(10, cb); });
    auto lb = await<Result<EtcdLease>>([&](auto cb) { b.grantLease(10, cb); });
    QVERIFY(la && la->has_value() && lb && lb->has_value());
    const QByteArray key = "/qrocket/c/b/exclusive";

    auto first = await<Result<EtcdTxnResult>>(
        [&](auto cb) { a.createIfAbsent(key, "from-a", (*la)->id, cb); });
    QVERIFY(first && first->has_value());
    QVERIFY((*first)->succeeded);
    auto second = await<Result<EtcdTxnResult>>(
        [&](auto cb) { b.createIfAbsent(key, "from-b", (*lb)->id, cb); });
    QVERIFY(second && second->has_value());
    QVERIFY(!(*second)->succeeded);
    QVERIFY((*second)->current.has_value());
    QCOMPARE((*second)->current->value, QByteArray("from-a"));
    QCOMPARE((*second)->current->lease, (*la)->id);

    auto got = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { b.get(key, cb); });
    QVERIFY(got && got->has_value() && (*got)->has_value());
    QCOMPARE((**got)->value, QByteArray("from-a"));
    QCOMPARE((**got)->key, key);

    // Revoking a's lease deletes the key at once; then b can create it.
    auto revoked = await<Status>([&](auto cb) { a.revokeLease((*la)->id, cb); });
    QVERIFY(revoked && revoked->isOk());
    auto gone = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { b.get(key, cb); });
    QVERIFY(gone && gone->has_value() && !(*gone)->has_value());
    auto third = await<Result<EtcdTxnResult>>(
        [&](auto cb) { b.createIfAbsent(key, "from-b", (*lb)->id, cb); });
    QVERIFY(third && third->has_value() && (*third)->succeeded);
    auto removed = await<Result<std::int64_t>>([&](auto cb) { b.remove(key, cb); });
    QVERIFY(removed && removed->has_value());
    QCOMPARE(**removed, 1);
}

void TestEtcdClient::leaseExpiryDeletesItsKey()
{
    EtcdClient etcd({m_etcd.endpoint()}, 3000);
    auto lease = await<Result<EtcdLease>>([&](auto cb) { etcd.grantLease(1, cb); });
    QVERIFY(lease && lease->has_value());
    const QByteArray key = "/qrocket/c/b/expiring";
    auto created = await<Result<EtcdTxnResult>>(
        [&](auto cb) { etcd.createIfAbsent(key, "x", (*lease)->id, cb); });
    QVERIFY(created && created->has_value() && (*created)->succeeded);
    // No keep-alive: etcd expires the lease (TTL 1 s; etcd may round a short TTL up to its
    // minimum) and deletes the key. Bounded by 10 s.
    QElapsedTimer clock;
    clock.start();
    bool gone = false;
    while (!gone && clock.elapsed() < 10000) {
        auto got = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { etcd.get(key, cb); });
        QVERIFY(got && got->has_value());
        gone = !(*got)->has_value();
        if (!gone)
            QTest::qWait(100);
    }
    QVERIFY2(gone, "the key outlived its lease by 10 s");
    auto dead = await<Result<EtcdLease>>([&](auto cb) { etcd.keepAlive((*lease)->id, cb); });
    QVERIFY(dead && !dead->has_value());
    QCOMPARE(dead->error().code(), Status::Code::NotFound);
}

void TestEtcdClient::modRevisionGuards()
{
    EtcdClient etcd({m_etcd.endpoint()}, 3000);
    const QByteArray key = "/qrocket/c/b/state";
    auto created
        = await<Result<EtcdTxnResult>>([&](auto cb) { etcd.createIfAbsent(key, "v1", 0, cb); });
    QVERIFY(created && created->has_value() && (*created)->succeeded);
    auto got = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { etcd.get(key, cb); });
    QVERIFY(got && got->has_value() && (*got)->has_value());
    const std::int64_t rev1 = (**got)->modRevision;
    QCOMPARE(rev1, (*created)->revision);

    auto updated = await<Result<EtcdTxnResult>>(
        [&](auto cb) { etcd.putIfModRevision(key, "v2", 0, rev1, cb); });
    QVERIFY(updated && updated->has_value() && (*updated)->succeeded);
    // A writer still holding rev1 loses, and sees the current value.
    auto stale = await<Result<EtcdTxnResult>>(
        [&](auto cb) { etcd.putIfModRevision(key, "v3", 0, rev1, cb); });
    QVERIFY(stale && stale->has_value() && !(*stale)->succeeded);
    QVERIFY((*stale)->current.has_value());
    QCOMPARE((*stale)->current->value, QByteArray("v2"));
    const std::int64_t rev2 = (*stale)->current->modRevision;
    QVERIFY(rev2 > rev1);

    auto staleDelete
        = await<Result<EtcdTxnResult>>([&](auto cb) { etcd.removeIfModRevision(key, rev1, cb); });
    QVERIFY(staleDelete && staleDelete->has_value() && !(*staleDelete)->succeeded);
    auto del
        = await<Result<EtcdTxnResult>>([&](auto cb) { etcd.removeIfModRevision(key, rev2, cb); });
    QVERIFY(del && del->has_value() && (*del)->succeeded);

    // list(): every key under a prefix, in key order, nothing beside it.
    for (const char *k : {"/qrocket/c/r/b", "/qrocket/c/r/a", "/qrocket/c/s/x"}) {
        auto done = await<Status>([&](auto cb) { etcd.put(k, k, 0, cb); });
        QVERIFY(done && done->isOk());
    }
    auto listed = await<Result<std::vector<EtcdKeyValue>>>(
        [&](auto cb) { etcd.list("/qrocket/c/r/", cb); });
    QVERIFY(listed && listed->has_value());
    QCOMPARE((*listed)->size(), std::size_t(2));
    QCOMPARE((*listed)->at(0).key, QByteArray("/qrocket/c/r/a"));
    QCOMPARE((*listed)->at(1).value, QByteArray("/qrocket/c/r/b"));

    auto put = await<Status>([&](auto cb) { etcd.put(key, "plain", 0, cb); });
    QVERIFY(put && put->isOk());
    auto removed = await<Result<std::int64_t>>([&](auto cb) { etcd.remove(key, cb); });
    QVERIFY(removed && removed->has_value());
    QCOMPARE(**removed, 1);
    auto none = await<Result<std::int64_t>>([&](auto cb) { etcd.remove(key, cb); });
    QVERIFY(none && none->has_value());
    QCOMPARE(**none, 0);
}

void TestEtcdClient::deadEndpointFailsOverOrFails()
{
    const quint16 deadPort = qrocket::testlib::freePort(); // nothing listens there
    const QString dead = QStringLiteral("http://127.0.0.1:%1").arg(deadPort);
    {
        EtcdClient only({dead}, 2000);
        QElapsedTimer clock;
        clock.start();
        auto r = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { only.get("k", cb); });
        QVERIFY(r && !r->has_value());
        QCOMPARE(r->error().code(), Status::Code::Unavailable);
        QVERIFY2(r->error().message().contains(dead), qPrintable(r->error().message()));
        QVERIFY(clock.elapsed() < 2500);
    }
    // The dead endpoint first: the request moves on to the live one, which then serves.
    EtcdClient two({dead, m_etcd.endpoint()}, 2000);
    auto lease = await<Result<EtcdLease>>([&](auto cb) { two.grantLease(5, cb); });
    QVERIFY(lease);
    QVERIFY2(lease->has_value(), qPrintable(lease->status().message()));
    auto revoked = await<Status>([&](auto cb) { two.revokeLease((*lease)->id, cb); });
    QVERIFY(revoked && revoked->isOk());
}

void TestEtcdClient::frozenEtcdTimesOut()
{
    EtcdClient etcd({m_etcd.endpoint()}, 1000);
    auto warm = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { etcd.get("k", cb); });
    QVERIFY(warm && warm->has_value()); // a kept-alive connection exists
    m_etcd.pause();
    QElapsedTimer clock;
    clock.start();
    auto r = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { etcd.get("k", cb); });
    const qint64 took = clock.elapsed();
    m_etcd.resume();
    QVERIFY(r && !r->has_value());
    QCOMPARE(r->error().code(), Status::Code::Timeout);
    QVERIFY2(took >= 900 && took < 3000, qPrintable(QString::number(took)));
    // Thawed, the same client serves again.
    auto after = await<Result<std::optional<EtcdKeyValue>>>([&](auto cb) { etcd.get("k", cb); });
    QVERIFY(after);
    QVERIFY2(after->has_value(), qPrintable(after->status().message()));
}

QTEST_GUILESS_MAIN(TestEtcdClient)
#include "tst_etcdclient.moc"
