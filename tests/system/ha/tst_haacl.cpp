// ACL 2.0 on a master/slave pair (real qrocket-namesrv and qrocket-broker processes, both with
// aclEnable=true and the same plain_acl.yml): users and ACLs created and deleted on the master
// alone reach the slave through its SlaveSynchronize (GET_AUTH_METADATA 9102, signed with the
// slave's innerAccessKey), so a slave serves the same rules as its master and keeps them when it
// is promoted. 9102 hands out passwords: refused unsigned and to a non-admin account.

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "tests/system/ha/hatestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::hatest;
using namespace qrocket::testlib;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: producer1
    secretKey: producer-secret
    defaultTopicPerm: PUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
)";

RemotingCommand signedBy(RemotingCommand r, const QByteArray &ak, const QByteArray &sk)
{
    protocol::aclSign(r, ak, sk);
    return r;
}

RemotingCommand asAdmin(RemotingCommand r)
{
    return signedBy(std::move(r), "admin001", "admin-secret");
}

} // namespace

class tst_HaAcl final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void usersAndAclsReachTheSlave();

private:
    /// AUTH_GET_USER (3004) on `port`, asked by the plain_acl.yml admin: the user's JSON, or
    /// empty when there is no such user (or the call failed).
    QByteArray user(quint16 port, const QByteArray &name)
    {
        const RemotingCommand r
            = call(m_client, port, asAdmin(request(3004, {{"username", name}})));
        return r.code == 0 ? r.body : QByteArray();
    }
    QByteArray acl(quint16 port, const QByteArray &subject)
    {
        const RemotingCommand r
            = call(m_client, port, asAdmin(request(3009, {{"subject", subject}})));
        return r.code == 0 ? r.body : QByteArray();
    }
    remoting::RemotingClient m_client;
};

void tst_HaAcl::usersAndAclsReachTheSlave()
{
    if (!QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-broker")))
        || !QFile::exists(QDir(binDir()).filePath(QStringLiteral("qrocket-namesrv"))))
        QSKIP("qrocket-broker / qrocket-namesrv not built");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("home/conf"))));
    QSaveFile rules(dir.filePath(QStringLiteral("home/conf/plain_acl.yml")));
    QVERIFY(
        rules.open(QIODevice::WriteOnly) && rules.write(kRules) == kRules.size() && rules.commit());

    DaemonProcess namesrv(QStringLiteral("qrocket-namesrv"));
    const quint16 nsPort = startNamesrv(namesrv, dir.path());
    QVERIFY2(nsPort != 0, qPrintable(namesrv.error()));
    const QByteArray extra = "namesrvAddr=127.0.0.1:" + QByteArray::number(nsPort)
        + "\naclEnable=true\nrocketmqHome=" + dir.filePath(QStringLiteral("home")).toUtf8()
        + "\ninnerAccessKey=admin001\ninnerSecretKey=admin-secret\n";
    const QString masterStore = dir.filePath(QStringLiteral("master"));
    const QString slaveStore = dir.filePath(QStringLiteral("slave"));
    DaemonProcess master(QStringLiteral("qrocket-broker"));
    DaemonProcess slave(QStringLiteral("qrocket-broker"));
    quint16 masterPort = 0;
    quint16 slavePort = 0;
    QVERIFY(startOnFreePort(master, masterStore + QStringLiteral(".conf"), masterPort,
        [&](quint16 port) { return brokerConf(masterStore, port, "ASYNC_MASTER", 0, extra); }));
    QVERIFY(startOnFreePort(slave, slaveStore + QStringLiteral(".conf"), slavePort,
        [&](quint16 port) { return brokerConf(slaveStore, port, "SLAVE", masterPort, extra); }));

    // The whole store is for admins only.
    const int metadata = protocol::extensioncode::kGetAuthMetadata;
    // Unsigned: RocketMQ's answer to an ACL failure in the RPC hook, SYSTEM_ERROR.
    const RemotingCommand unsigned_ = call(m_client, masterPort, request(metadata));
    QCOMPARE(unsigned_.code, 1);
    QVERIFY(unsigned_.body.isEmpty());
    const RemotingCommand refused
        = call(m_client, masterPort, signedBy(request(metadata), "producer1", "producer-secret"));
    QCOMPARE(refused.code, 1); // ACL 1.0's refusal, as RocketMQ 4.9 answers it
    QVERIFY2(refused.remark.contains("Need admin permission"), refused.remark.constData());
    QVERIFY(refused.body.isEmpty());

    // Users and an ACL made on the master only.
    QCOMPARE(call(m_client, masterPort,
                 asAdmin(request(3001, {{"username", "root"}},
                     R"({"password":"root-secret","userType":"Super"})")))
                 .code,
        0);
    QCOMPARE(call(m_client, masterPort,
                 signedBy(request(3001, {{"username", "alice"}}, R"({"password":"alice-secret"})"),
                     "root", "root-secret"))
                 .code,
        0);
    const QByteArray aliceAcl = R"({"subject":"User:alice","policies":[{"policyType":"Custom",
      "entries":[{"resource":"Topic:orders*","actions":["Pub"],"decision":"Allow"}]}]})";
    QCOMPARE(
        call(m_client, masterPort,
            signedBy(request(3006, {{"subject", "User:alice"}}, aliceAcl), "root", "root-secret"))
            .code,
        0);
    const RemotingCommand all = call(m_client, masterPort, asAdmin(request(metadata)));
    QCOMPARE(all.code, 0);
    QVERIFY(all.body.contains("alice-secret"));

    // The slave copies them (its first sync runs 3 s after start, then every 10 s) and checks
    // signatures with them: alice's own signature is accepted by the slave.
    QTRY_VERIFY_WITH_TIMEOUT(!user(slavePort, "alice").isEmpty(), 20000);
    QVERIFY(!user(slavePort, "root").isEmpty());
    QVERIFY(acl(slavePort, "User:alice").contains("Topic:orders*"));
    QVERIFY(!user(slavePort, "alice").contains("alice-secret"));
    const RemotingCommand aliceOnSlave = call(m_client, slavePort,
        signedBy(request(3004, {{"username", "alice"}}), "alice", "alice-secret"));
    QCOMPARE(aliceOnSlave.code, 16); // signature accepted; 3004 is for super users only
    QVERIFY2(aliceOnSlave.remark.contains("super users only"), aliceOnSlave.remark.constData());
    QVERIFY(QFile::exists(slaveStore + QStringLiteral("/config/auth.json")));

    // A deletion on the master reaches the slave too.
    QCOMPARE(call(m_client, masterPort,
                 signedBy(request(3003, {{"username", "alice"}}), "root", "root-secret"))
                 .code,
        0);
    QTRY_VERIFY_WITH_TIMEOUT(user(slavePort, "alice").isEmpty(), 20000);
    QVERIFY(!user(slavePort, "root").isEmpty());

    QVERIFY2(slave.stop() == 0, slave.output().right(4000).constData());
    QVERIFY2(master.stop() == 0, master.output().right(4000).constData());
    QVERIFY(!slave.output().contains("root-secret"));
    QVERIFY(!master.output().contains("root-secret"));
    namesrv.stop();
}

QTEST_GUILESS_MAIN(tst_HaAcl)
#include "tst_haacl.moc"
