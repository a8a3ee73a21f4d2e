// explainSend's ACL findings (issue 29, "Explain") on a real qrocket-broker with aclEnable: the
// plain_acl.yml rule that decides for an account (topicPerms, defaultTopicPerm, admin, unknown
// key), and an ACL 2.0 user's decision (disabled, Super, its own policies from a named producer
// address), checked against what the broker does with that user's send. explainSend is an admin
// request under ACL.

#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/explainbodies.h"
#include "clientlib/protocol/extensioncode.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/testlib/daemonprocess.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <tuple>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::testlib;
namespace ext = qrocket::protocol::extensioncode;
using protocol::ExplainBody;
using protocol::ExplainFinding;

namespace {

QByteArray describe(const ExplainBody &b)
{
    return b.toJson();
}

} // namespace

class tst_ExplainAcl final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_nsPort = startNamesrv(m_namesrv, m_dir.path());
        QVERIFY2(m_nsPort != 0, qPrintable(m_namesrv.error()));
    }
    void cleanupTestCase()
    {
        m_client.shutdown();
        QCOMPARE(m_namesrv.stop(), 0);
    }
    void sendAclRuleOfAnAccount();

private:
    QTemporaryDir m_dir;
    DaemonProcess m_namesrv {QStringLiteral("qrocket-namesrv")};
    quint16 m_nsPort = 0;
    remoting::RemotingClient m_client;
};

void tst_ExplainAcl::sendAclRuleOfAnAccount()
{
    // A second broker with aclEnable: explainSend names the rule that decides for an account.
    const QString rules = QDir(m_dir.path()).filePath(QStringLiteral("plain_acl.yml"));
    {
        QFile f(rules);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("accounts:\n"
                "  - accessKey: producer1\n    secretKey: producer-secret\n"
                "    defaultTopicPerm: DENY\n    defaultGroupPerm: SUB\n"
                "    topicPerms:\n      - Orders=PUB|SUB\n"
                "  - accessKey: admin001\n    secretKey: admin-secret\n    admin: true\n");
    }
    DaemonProcess aclBroker(QStringLiteral("qrocket-broker"));
    quint16 port = 0;
    QVERIFY2(
        startOnFreePort(aclBroker, QDir(m_dir.path()).filePath(QStringLiteral("acl.conf")), port,
            [&](quint16 p) {
                return "brokerName=broker-explain-acl\nbrokerIP1=127.0.0.1\nbrokerIP2=127.0.0."
                       "1\nlistenPort="
                    + QByteArray::number(p) + "\nnamesrvAddr=" + localAddr(m_nsPort)
                    + "\nstorePathRootDir="
                    + QDir(m_dir.path()).filePath(QStringLiteral("aclstore")).toUtf8()
                    + "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536"
                      "\naclEnable=true\naclFilePath="
                    + rules.toUtf8() + "\n";
            }),
        qPrintable(aclBroker.error()));
    const QByteArray addr = localAddr(port);
    const auto asAdmin = [&](RemotingCommand r) {
        protocol::aclSign(r, "admin001", "admin-secret");
        return invoke(m_client, addr, std::move(r));
    };
    for (const char *topic : {"Orders", "Other"}) {
        const RemotingCommand r = asAdmin(request(17,
            {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "1"},
                {"writeQueueNums", "1"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}}));
        QVERIFY2(r.code == 0, r.remark.constData());
    }
    const auto explainAs
        = [&](const QByteArray &topic, const QByteArray &account, const QByteArray &sourceIp = {}) {
              RemotingCommand r = account.isEmpty()
                  ? asAdmin(request(ext::kExplainSend, {{"topic", topic}}))
                  : sourceIp.isEmpty()
                  ? asAdmin(request(ext::kExplainSend, {{"topic", topic}, {"accessKey", account}}))
                  : asAdmin(request(ext::kExplainSend,
                      {{"topic", topic}, {"accessKey", account}, {"sourceIp", sourceIp}}));
              if (r.code != 0) {
                  qWarning("explainSend answered %d: %s", r.code, r.remark.constData());
                  return ExplainBody {};
              }
              Result<ExplainBody> b = ExplainBody::fromJson(r.body);
              return b ? *b : ExplainBody {};
          };

    ExplainBody b = explainAs("Orders", "producer1");
    const ExplainFinding *allows = b.find("aclAllows");
    QVERIFY2(allows, describe(b).constData());
    QCOMPARE(allows->verdict, QByteArray("ok"));
    QCOMPARE(allows->setting, QByteArray("topicPerms[Orders]"));
    QCOMPARE(allows->value, QByteArray("PUB|SUB"));
    QCOMPARE(allows->client, QByteArray("producer1"));

    b = explainAs("Other", "producer1");
    const ExplainFinding *denies = b.find("aclDenies");
    QVERIFY2(denies, describe(b).constData());
    QCOMPARE(denies->verdict, QByteArray("blocking"));
    QCOMPARE(denies->setting, QByteArray("defaultTopicPerm"));
    QCOMPARE(denies->value, QByteArray("DENY"));
    QCOMPARE(b.verdict(), QByteArray("blocking"));

    b = explainAs("Other", "nobody99");
    QVERIFY2(b.find("aclUnknownKey"), describe(b).constData());
    QCOMPARE(b.find("aclUnknownKey")->verdict, QByteArray("blocking"));
    b = explainAs("Other", {});
    QVERIFY2(b.find("aclNoKey"), describe(b).constData());
    b = explainAs("Other", "admin001");
    QVERIFY2(b.find("aclAdmin"), describe(b).constData());

    // ACL 2.0 users (created as RocketMQ 5's mqadmin does, codes 3001/3006): the answer is the
    // decision of the user's own policies, for the producer's address when one is named.
    const auto auth
        = [&](int code, const char *field, const QByteArray &value, const QByteArray &json) {
              const RemotingCommand r = asAdmin(request(code, {{field, value}}, json));
              QVERIFY2(r.code == 0, r.remark.constData());
          };
    auth(3001, "username", "root", R"({"password":"root-secret","userType":"Super"})");
    auth(3001, "username", "alice", R"({"password":"alice-secret"})");
    auth(3001, "username", "bob", R"({"password":"bob-secret","userStatus":"disable"})");
    auth(3006, "subject", "User:alice",
        R"({"subject":"User:alice","policies":[{"policyType":"Custom","entries":[)"
        R"({"resource":"Topic:Orders","actions":["Pub"],"sourceIps":["10.1.0.0/16"],)"
        R"("decision":"Allow"},{"resource":"Topic:Other","actions":["Pub"],"decision":"Deny"}]}]})");
    b = explainAs("Orders", "alice", "10.1.2.3");
    const ExplainFinding *v2allows = b.find("acl2Allows");
    QVERIFY2(v2allows, describe(b).constData());
    QCOMPARE(v2allows->setting, QByteArray("acl"));
    QCOMPARE(v2allows->value, QByteArray("User:alice"));
    QVERIFY2(v2allows->reason.contains("from 10.1.2.3"), v2allows->reason.constData());
    // The same user from an address its Allow entry does not name: no policy matches.
    b = explainAs("Orders", "alice", "192.168.7.7");
    QVERIFY2(b.find("acl2Denies"), describe(b).constData());
    QVERIFY2(b.find("acl2Denies")->reason.contains("no matched policies"),
        b.find("acl2Denies")->reason.constData());
    b = explainAs("Orders", "alice"); // no address: only entries for every address match
    QVERIFY2(b.find("acl2Denies"), describe(b).constData());
    b = explainAs("Other", "alice", "10.1.2.3");
    QVERIFY2(b.find("acl2Denies"), describe(b).constData());
    QVERIFY2(b.find("acl2Denies")->reason.contains("the decision is deny"),
        b.find("acl2Denies")->reason.constData());
    QCOMPARE(b.verdict(), QByteArray("blocking"));
    b = explainAs("Other", "root");
    QVERIFY2(b.find("acl2Super"), describe(b).constData());
    QCOMPARE(b.find("acl2Super")->verdict, QByteArray("ok"));
    b = explainAs("Orders", "bob", "10.1.2.3");
    QVERIFY2(b.find("acl2UserDisabled"), describe(b).constData());
    QCOMPARE(b.find("acl2UserDisabled")->value, QByteArray("disable"));
    // What explainSend says matches what the broker does: alice's signed send from this
    // (loopback) address is refused, as her only Allow entry names 10.1.0.0/16.
    RemotingCommand aliceSend = request(310,
        {{"a", "Orders"}, {"b", "TBW102"}, {"c", "4"}, {"d", "0"}, {"e", "0"}, {"f", "0"},
            {"g", "0"}, {"h", "0"}, {"i", ""}, {"j", "0"}, {"k", "false"}});
    aliceSend.body = "hello";
    protocol::aclSign(aliceSend, "alice", "alice-secret");
    const RemotingCommand refused = invoke(m_client, addr, std::move(aliceSend));
    QCOMPARE(refused.code, 16);
    QVERIFY2(refused.remark.contains("no matched policies"), refused.remark.constData());

    // explainSend shows any account's rule: an admin request. A plain account is refused, and
    // so is an unsigned request.
    RemotingCommand plain = request(ext::kExplainSend, {{"topic", "Orders"}});
    protocol::aclSign(plain, "producer1", "producer-secret");
    RemotingCommand r = invoke(m_client, addr, std::move(plain));
    QVERIFY2(r.code != 0 && r.remark.contains("Need admin permission"), r.remark.constData());
    r = invoke(m_client, addr, request(ext::kExplainSend, {{"topic", "Orders"}}));
    QVERIFY2(r.code != 0, r.remark.constData());

    // A sourceIp that is not an address is refused (INVALID_PARAMETER, 29), never read as "every
    // address"; the remark names at most 64 of its bytes.
    for (const QByteArray &ip : {QByteArray("not-an-ip"), QByteArray("999.1.2.3"),
             QByteArray("10.1.2.3/16"), QByteArray(4096, 'x')}) {
        r = asAdmin(request(
            ext::kExplainSend, {{"topic", "Orders"}, {"accessKey", "alice"}, {"sourceIp", ip}}));
        QCOMPARE(r.code, 29);
        QVERIFY2(r.remark.contains("is not an IPv4 or IPv6 address") && r.remark.size() < 200,
            r.remark.constData());
    }
    // qrocket-admin explainSend -u -i: the same decision through the Admin API.
    const auto cli = [&](const char *ip) {
        return runProgram(QDir(binDir()).filePath(QStringLiteral("qrocket-admin")),
            {QStringLiteral("explainSend"), QStringLiteral("-t"), QStringLiteral("Orders"),
                QStringLiteral("-u"), QStringLiteral("alice"), QStringLiteral("-i"),
                QString::fromLatin1(ip), QStringLiteral("-b"), QString::fromUtf8(addr),
                QStringLiteral("-n"), QString::fromUtf8(localAddr(m_nsPort)),
                QStringLiteral("--accessKey"), QStringLiteral("admin001"),
                QStringLiteral("--secretKey"), QStringLiteral("admin-secret")},
            20000);
    };
    auto [code, out] = cli("10.1.2.3");
    QVERIFY2(
        code == 0 && out.contains("acl2Allows") && out.contains("from 10.1.2.3"), out.constData());
    std::tie(code, out) = cli("192.168.7.7");
    QVERIFY2(code == 0 && out.contains("acl2Denies"), out.constData());
    std::tie(code, out) = cli("no-address");
    QVERIFY2(code != 0 && out.contains("not an IPv4 or IPv6 address"), out.constData());
    QCOMPARE(aclBroker.stop(), 0);
}

QTEST_GUILESS_MAIN(tst_ExplainAcl)
#include "tst_explainacl.moc"
