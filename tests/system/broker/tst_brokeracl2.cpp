// ACL 2.0 on a broker with aclEnable=true, over a socket with raw signed frames: a plain_acl.yml
// admin creates an ACL 2.0 super user through AUTH_CREATE_USER (3001); that super user creates
// a normal user and its ACL (3001, 3006); the normal user's signed sends are allowed for a
// PREFIXED topic and refused, with RocketMQ 5's code and remark, for another topic and for a
// Deny entry; the admin codes are refused to it; no answer carries a password; the store is on
// disk and the plain_acl.yml accounts were imported at start.

#include "broker/auth/authstore.h"
#include "broker/processors/authprocessor.h"
#include "brokertestutil.h"
#include "clientlib/acl/aclguard.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "inprocessbroker.h"

#include <QDir>
#include <QFile>
#include <QSaveFile>
#include <QTemporaryDir>
#include <QTest>

using namespace qrocket;
using namespace qrocket::brokertest;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: producer1
    secretKey: producer-secret
    defaultTopicPerm: DENY
    topicPerms:
      - Orders=PUB|SUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
)";

const QByteArray kAliceAcl = R"({"subject":"User:alice","policies":[{"policyType":"Custom",
  "entries":[{"resource":"Topic:orders*","actions":["Pub"],"decision":"Allow"},
             {"resource":"Topic:orders-secret","actions":["Pub"],"decision":"Deny"},
             {"resource":"Group:g1","actions":["Sub"],"decision":"Allow"}]}]})";

RemotingCommand signedBy(RemotingCommand r, const QByteArray &ak, const QByteArray &sk)
{
    protocol::aclSign(r, ak, sk);
    return r;
}

} // namespace

class tst_BrokerAcl2 final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home/conf"))));
        QSaveFile f(m_dir.filePath(QStringLiteral("home/conf/plain_acl.yml")));
        QVERIFY(f.open(QIODevice::WriteOnly) && f.write(kRules) == kRules.size() && f.commit());
        startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
            QStringLiteral("broker-acl2"), QStringLiteral("127.0.0.1:1"),
            [this](broker::BrokerConfig &c) {
                c.aclEnable = true;
                c.rocketmqHome = m_dir.filePath(QStringLiteral("home"));
            });
        QVERIFY(m_broker);
        m_addr = localAddr(m_broker->listenPort());
    }

    void cleanupTestCase() { stopInProcessBroker(m_broker); }

    void superUserCreatesUserAndAcl()
    {
        // A plain_acl.yml admin creates the ACL 2.0 super user "root"...
        RemotingCommand r = call(signedBy(request(3001, {{"username", "root"}},
                                              R"({"password":"root-secret","userType":"Super"})"),
            "admin001", "admin-secret"));
        QCOMPARE(r.code, 0);
        // ... which creates the normal user alice and her ACL.
        r = call(signedBy(request(3001, {{"username", "alice"}}, R"({"password":"alice-secret"})"),
            "root", "root-secret"));
        QCOMPARE(r.code, 0);
        r = call(signedBy(request(3001, {{"username", "alice"}}, R"({"password":"again-secret"})"),
            "root", "root-secret"));
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark, QByteArray("The user is existed"));
        r = call(
            signedBy(request(3006, {{"subject", "User:alice"}}, kAliceAcl), "root", "root-secret"));
        QCOMPARE(r.code, 0);
        // What RocketMQ 5's mqadmin getAcl shows.
        r = call(signedBy(request(3009, {{"subject", "User:alice"}}), "root", "root-secret"));
        QCOMPARE(r.code, 0);
        auto acl = protocol::AclInfo::fromJson(r.body);
        QVERIFY(acl);
        QCOMPARE(acl->policies.at(0).entries.size(), std::size_t(3));
        QCOMPARE(acl->policies[0].entries[0].resource, QByteArray("Topic:orders*"));
        // The store is on disk, private to the broker.
        const QString file = broker::AuthStore::filePath(m_dir.filePath(QStringLiteral("store")));
        QVERIFY(QFile::exists(file));
        QVERIFY(!(QFile::permissions(file) & QFileDevice::ReadOther));
    }

    void prefixedTopicAllowedOthersRefused()
    {
        const auto send = [&](const QByteArray &topic, const QByteArray &secret) {
            return call(signedBy(sendV2(topic, 0, "hello"), "alice", secret));
        };
        QCOMPARE(send("orders-1", "alice-secret").code, 0);
        RemotingCommand r = send("other", "alice-secret");
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark,
            QByteArray("User:alice has no permission to access Topic:other from 127.0.0.1, no "
                       "matched policies."));
        r = send("orders-secret", "alice-secret");
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark,
            QByteArray("User:alice has no permission to access Topic:orders-secret from "
                       "127.0.0.1, the decision is deny."));
        r = send("orders-1", "wrong-secret");
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark, QByteArray("check signature failed."));
        // The ACL 1.0 account still works as before.
        QCOMPARE(call(signedBy(sendV2("Orders", 0, "v1"), "producer1", "producer-secret")).code, 0);
    }

    void adminCodesAreForSuperUsersOnly()
    {
        for (int code : {3001, 3005, 3006, 3010, 17}) {
            const RemotingCommand r
                = call(signedBy(request(code, {{"username", "mallory"}, {"subject", "User:alice"}}),
                    "alice", "alice-secret"));
            QCOMPARE(r.code, 16);
            QVERIFY2(r.remark.startsWith("User:alice has no permission to access Cluster:"),
                r.remark.constData());
            QVERIFY2(r.remark.contains("is for super users only"), r.remark.constData());
        }
        // A plain_acl.yml non-admin account is refused as ACL 1.0 refuses it.
        const RemotingCommand r = call(signedBy(request(3005), "producer1", "producer-secret"));
        QCOMPARE(r.code, 1);
        QVERIFY(r.remark.contains("Need admin permission for request code=3005"));
    }

    void haStatusAndEpochCacheNeedOnlyAUser()
    {
        // GET_BROKER_HA_STATUS 907 / GET_BROKER_EPOCH_CACHE 1007 (mqadmin haStatus /
        // getBrokerEpoch): no request header, so RocketMQ 5.3.3 builds no authorization context
        // for them - any authenticated user may ask, with or without a policy. Same here: alice
        // has policies on topics and a group only, producer1 is a non-admin ACL 1.0 account.
        for (int code : {907, 1007}) {
            RemotingCommand r = call(signedBy(request(code), "alice", "alice-secret"));
            QVERIFY2(r.code == 0, r.remark.constData());
            QVERIFY(!r.body.isEmpty());
            r = call(signedBy(request(code), "producer1", "producer-secret"));
            QVERIFY2(r.code == 0, r.remark.constData());
            r = call(signedBy(request(code), "alice", "wrong-secret"));
            QCOMPARE(r.code, 16);
            QCOMPARE(r.remark, QByteArray("check signature failed."));
            r = call(request(code)); // unsigned
            QVERIFY2(r.code != 0, r.remark.constData());
        }
    }

    void noPasswordInAnyAnswer()
    {
        RemotingCommand r = call(signedBy(request(3005), "root", "root-secret"));
        QCOMPARE(r.code, 0);
        auto users = protocol::UserInfo::listFromJson(r.body);
        QVERIFY(users);
        QStringList names;
        for (const protocol::UserInfo &u : *users) {
            names << QString::fromUtf8(u.username);
            QVERIFY(u.password.isEmpty());
        }
        // The plain_acl.yml accounts were imported at start.
        QCOMPARE(names,
            (QStringList {QStringLiteral("admin001"), QStringLiteral("alice"),
                QStringLiteral("producer1"), QStringLiteral("root")}));
        for (const char *secret : {"secret", "admin-secret", "producer-secret"})
            QVERIFY(!r.body.contains(secret));
        r = call(signedBy(request(3004, {{"username", "alice"}}), "root", "root-secret"));
        QCOMPARE(r.code, 0);
        QCOMPARE(r.body,
            QByteArray(R"({"username":"alice","userType":"Normal","userStatus":"enable"})"));
        r = call(signedBy(request(3004, {{"username", " "}}), "root", "root-secret"));
        QCOMPARE(r.code, 29);
        QCOMPARE(r.remark, QByteArray("The username is blank"));
    }

    void disabledUserIsRefusedAndDeletedUserGone()
    {
        RemotingCommand r
            = call(signedBy(request(3002, {{"username", "alice"}}, R"({"userStatus":"disable"})"),
                "root", "root-secret"));
        QCOMPARE(r.code, 0);
        r = call(signedBy(sendV2("orders-1", 0, "x"), "alice", "alice-secret"));
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark, QByteArray("User:alice is disabled."));
        // Deleting a policy entry, then the user: alice becomes unknown (ACL 1.0's answer).
        r = call(signedBy(request(3008, {{"subject", "User:alice"}, {"resource", "Group:g1"}}),
            "root", "root-secret"));
        QCOMPARE(r.code, 0);
        r = call(signedBy(request(3003, {{"username", "alice"}}), "root", "root-secret"));
        QCOMPARE(r.code, 0);
        r = call(signedBy(sendV2("orders-1", 0, "x"), "alice", "alice-secret"));
        QCOMPARE(r.code, 1);
        QVERIFY(r.remark.contains("No acl config for alice"));
        r = call(signedBy(request(3009, {{"subject", "User:alice"}}), "root", "root-secret"));
        QCOMPARE(r.code, 16);
        QCOMPARE(r.remark, QByteArray("The subject is not exist."));
    }

    void refusedWithoutAcl()
    {
        // aclEnable=false: no store, and nobody may create a user for the day ACL is turned on.
        broker::AuthProcessor off(nullptr);
        const RemotingCommand r = off.handle(
            request(3001, {{"username", "root"}}, R"({"password":"x","userType":"Super"})"));
        QCOMPARE(r.code, 16);
        QVERIFY(r.remark.contains("aclEnable=true"));
        QCOMPARE(off.handle(request(3011)).code, 3); // REQUEST_CODE_NOT_SUPPORTED
    }

private:
    RemotingCommand call(RemotingCommand r) { return invoke(m_client, m_addr, std::move(r)); }

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    QByteArray m_addr;
    remoting::RemotingClient m_client;
};

QTEST_GUILESS_MAIN(tst_BrokerAcl2)
#include "tst_brokeracl2.moc"
