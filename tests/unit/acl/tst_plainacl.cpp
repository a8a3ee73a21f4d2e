// plain_acl.yml and the check of one request (broker/acl/plainacl.h): RocketMQ 4.9's rules and
// remarks, and where QRocket is stricter.

#include "clientlib/acl/plainacl.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/clientbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::acl;
using protocol::RemotingCommand;

namespace {

// RocketMQ 4.9's distribution sample, plus an admin, a DENY user and a white-listed one.
const QByteArray kYaml = R"(globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.*

accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      # the group should convert to retry topic
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB

  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    # if it is admin, it could access all resources
    admin: true

  - accessKey: writer01
    secretKey: writer-secret
    defaultTopicPerm: PUB
    defaultGroupPerm: DENY
)";

const QHostAddress kPeer(QStringLiteral("127.0.0.1"));

RemotingCommand sendV2(const QByteArray &topic, const QByteArray &group = "PG")
{
    RemotingCommand r = RemotingCommand::createRequest(310);
    r.setExt("a", group);
    r.setExt("b", topic);
    r.setExt("c", QByteArray("TBW102"));
    r.setExt("d", QByteArray("4"));
    r.setExt("e", QByteArray("0"));
    r.body = "body";
    return r;
}

RemotingCommand pull(const QByteArray &topic, const QByteArray &group)
{
    RemotingCommand r = RemotingCommand::createRequest(11);
    r.setExt("consumerGroup", group);
    r.setExt("topic", topic);
    r.setExt("queueId", QByteArray("0"));
    return r;
}

RemotingCommand signedBy(RemotingCommand r, const QByteArray &ak, const QByteArray &sk)
{
    protocol::aclSign(r, ak, sk);
    return r;
}

PlainAclConfig rules()
{
    Result<PlainAclConfig> c = PlainAclConfig::parse(kYaml, QStringLiteral("plain_acl.yml"));
    if (!c)
        qFatal("%s", qPrintable(c.error().message()));
    return std::move(*c);
}

QByteArray why(const std::optional<AclRefusal> &r)
{
    return r ? r->remark : QByteArray("<allowed>");
}

} // namespace

class tst_PlainAcl final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesRocketmqSample()
    {
        const PlainAclConfig c = rules();
        QCOMPARE(c.accounts().size(), std::size_t(3));
        QCOMPARE(c.globalWhiteCount(), std::size_t(2));
        const AclAccount &a = c.accounts().at("RocketMQ");
        QCOMPARE(a.defaultTopicPerm, perm::Deny);
        QCOMPARE(a.defaultGroupPerm, perm::Sub);
        QCOMPARE(a.resourcePerms.at("topicB"), std::uint8_t(perm::Pub | perm::Sub));
        QCOMPARE(a.resourcePerms.at("%RETRY%groupA"), perm::Deny);
        QVERIFY(c.accounts().at("rocketmq2").admin);
    }

    void badFilesSayWhyAndWhere_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << QByteArray("accounts:\n  - accessKey: [unclosed\n")
                                << QStringLiteral("line");
        QTest::newRow("short key")
            << QByteArray("accounts:\n  - accessKey: abc\n    secretKey: 12345678\n")
            << QStringLiteral("longer than 6");
        QTest::newRow("duplicate")
            << QByteArray("accounts:\n  - accessKey: abcdefgh\n    secretKey: 12345678\n"
                          "  - accessKey: abcdefgh\n    secretKey: 87654321\n")
            << QStringLiteral("defined twice");
        QTest::newRow("perm") << QByteArray("accounts:\n  - accessKey: abcdefgh\n    secretKey: "
                                            "12345678\n    defaultTopicPerm: WRITE\n")
                              << QStringLiteral("defaultTopicPerm");
        QTest::newRow("topic perm")
            << QByteArray("accounts:\n  - accessKey: abcdefgh\n    secretKey: 12345678\n"
                          "    topicPerms:\n      - topicA\n")
            << QStringLiteral("line 5");
        QTest::newRow("pattern") << QByteArray("globalWhiteRemoteAddresses:\n  - 300.1.1.1\n")
                                 << QStringLiteral("line 2");
        QTest::newRow("not a map") << QByteArray("- a\n- b\n") << QStringLiteral("not a map");
    }
    void badFilesSayWhyAndWhere()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QString, expected);
        const Result<PlainAclConfig> c = PlainAclConfig::parse(yaml, QStringLiteral("f.yml"));
        QVERIFY(!c);
        QVERIFY2(c.error().message().contains(expected), qPrintable(c.error().message()));
        // No secret in the message.
        QVERIFY(!c.error().message().contains(QStringLiteral("12345678")));
    }

    void emptyFileHasNoAccount()
    {
        const Result<PlainAclConfig> c = PlainAclConfig::parse("");
        QVERIFY(c);
        QVERIFY(c->accounts().empty());
        QCOMPARE(why(c->check(kPeer, signedBy(sendV2("T"), "RocketMQ", "12345678"))),
            QByteArray("org.apache.rocketmq.acl.common.AclException: No acl config for RocketMQ"));
    }

    void signatureChecks()
    {
        const PlainAclConfig c = rules();
        const QByteArray prefix = "org.apache.rocketmq.acl.common.AclException: ";
        // Signed right, topicB is PUB|SUB.
        QCOMPARE(why(c.check(kPeer, signedBy(sendV2("topicB"), "RocketMQ", "12345678"))),
            QByteArray("<allowed>"));
        // Unsigned.
        QCOMPARE(why(c.check(kPeer, sendV2("topicB"))), prefix + "No accessKey is configured");
        // Unknown key.
        QCOMPARE(why(c.check(kPeer, signedBy(sendV2("topicB"), "nobody99", "12345678"))),
            prefix + "No acl config for nobody99");
        // Wrong secret.
        QCOMPARE(why(c.check(kPeer, signedBy(sendV2("topicB"), "RocketMQ", "87654321"))),
            prefix + "Check signature failed for accessKey=RocketMQ");
        // Tampered body, tampered field, altered signature, a field added after signing.
        RemotingCommand r = signedBy(sendV2("topicB"), "RocketMQ", "12345678");
        RemotingCommand t = r;
        t.body = "bodY";
        QVERIFY(c.check(kPeer, t));
        t = r;
        t.setExt("b", QByteArray("topicC"));
        QVERIFY(c.check(kPeer, t));
        t = r;
        QByteArray sig = *t.ext("Signature");
        sig[0] = sig[0] == 'A' ? 'B' : 'A';
        t.setExt("Signature", sig);
        QVERIFY(c.check(kPeer, t));
        t = r;
        t.setExt("e", QByteArray("3"));
        QVERIFY(c.check(kPeer, t));
        // A duplicated field (signed value and read value could differ).
        t = r;
        t.extFields.insert(t.extFields.begin(), {QByteArray("b"), QByteArray("topicA")});
        QVERIFY(why(c.check(kPeer, t)).contains("Duplicated request field b"));
        // A 1 MiB signature is just wrong.
        t = r;
        t.setExt("Signature", QByteArray(1 << 20, 'x'));
        QVERIFY(c.check(kPeer, t));
    }

    void permissions()
    {
        const PlainAclConfig c = rules();
        const QByteArray prefix = "org.apache.rocketmq.acl.common.AclException: ";
        const auto as = [&](RemotingCommand r) {
            return why(c.check(kPeer, signedBy(std::move(r), "RocketMQ", "12345678")));
        };
        QCOMPARE(as(sendV2("topicA")), prefix + "No default permission for topic:topicA");
        QCOMPARE(as(sendV2("topicC")), prefix + "No default permission for topic:topicC");
        QCOMPARE(as(sendV2("other")), prefix + "No default permission for topic:other");
        QCOMPARE(as(pull("topicC", "groupC")), QByteArray("<allowed>"));
        QCOMPARE(as(pull("topicC", "groupA")), prefix + "No default permission for group:groupA");
        QCOMPARE(as(pull("topicC", "anyGroup")), QByteArray("<allowed>")); // defaultGroupPerm SUB
        // A consumer's retry send needs the group (its %RETRY% topic), not PUB on a topic.
        QCOMPARE(as(sendV2("%RETRY%groupC", "groupC")), QByteArray("<allowed>"));
        QCOMPARE(as(sendV2("%RETRY%groupA", "groupA")),
            prefix + "No default permission for group:groupA");
        // Trace records go through whatever the topic permissions say.
        QCOMPARE(as(sendV2("RMQ_SYS_TRACE_TOPIC")), QByteArray("<allowed>"));
        // Batches are checked too (RocketMQ 4.9 checked no SEND_BATCH_MESSAGE).
        RemotingCommand batch = sendV2("topicA");
        batch.code = 320;
        QCOMPARE(as(batch), prefix + "No default permission for topic:topicA");
        // HEART_BEAT names every subscribed topic and the group.
        protocol::HeartbeatData hb;
        hb.clientID = "127.0.0.1@1";
        protocol::ConsumerData cd;
        cd.groupName = "groupC";
        protocol::SubscriptionData sd;
        sd.topic = "topicA";
        cd.subscriptionDataSet.push_back(sd);
        hb.consumerDataSet.push_back(cd);
        RemotingCommand beat = RemotingCommand::createRequest(34);
        beat.body = hb.toJson();
        QCOMPARE(as(beat), prefix + "No default permission for topic:topicA");
        // PUB only: cannot pull; DENY group.
        const auto writer = [&](RemotingCommand r) {
            return why(c.check(kPeer, signedBy(std::move(r), "writer01", "writer-secret")));
        };
        QCOMPARE(writer(sendV2("anything")), QByteArray("<allowed>"));
        QCOMPARE(
            writer(pull("anything", "g")), prefix + "No default permission for topic:anything");
    }

    void popCodesNeedWhatPullNeeds()
    {
        // RocketMQ 5's POP codes (which 4.9's file predates) are consuming: SUB on the topic
        // and the group, like PULL_MESSAGE; the batch ack and QUERY_ASSIGNMENT name them in
        // their bodies; switching a group to POP (401) is for admins.
        const PlainAclConfig c = rules();
        const QByteArray prefix = "org.apache.rocketmq.acl.common.AclException: ";
        const auto as = [&](RemotingCommand r) {
            return why(c.check(kPeer, signedBy(std::move(r), "RocketMQ", "12345678")));
        };
        for (int code : {200050, 200051, 200052, 200053, 200054, 200055, 200056}) {
            RemotingCommand ok = pull("topicC", "groupC");
            ok.code = code;
            QCOMPARE(as(ok), QByteArray("<allowed>"));
            RemotingCommand topicDenied = pull("topicA", "groupC");
            topicDenied.code = code;
            QCOMPARE(as(topicDenied), prefix + "No default permission for topic:topicA");
            RemotingCommand groupDenied = pull("topicC", "groupA");
            groupDenied.code = code;
            QCOMPARE(as(groupDenied), prefix + "No default permission for group:groupA");
        }
        protocol::BatchAckMessageRequestBody acks;
        acks.acks.push_back({"groupC", "topicC", "0", 0, 0, 0, 0, 0, {1}});
        acks.acks.push_back({"groupA", "topicC", "0", 0, 0, 0, 0, 0, {2}});
        RemotingCommand batch = RemotingCommand::createRequest(200151);
        batch.body = acks.toJson();
        QCOMPARE(as(batch), prefix + "No default permission for group:groupA");
        protocol::QueryAssignmentRequestBody query;
        query.topic = "topicA";
        query.consumerGroup = "groupC";
        RemotingCommand assignment = RemotingCommand::createRequest(400);
        assignment.body = query.toJson();
        QCOMPARE(as(assignment), prefix + "No default permission for topic:topicA");
        QVERIFY(isAdminCode(401));
        RemotingCommand recall = RemotingCommand::createRequest(370); // RECALL_MESSAGE: PUB
        recall.setExt("topic", QByteArray("topicC"));
        QCOMPARE(as(recall), prefix + "No default permission for topic:topicC");
    }

    void adminCodes()
    {
        const PlainAclConfig c = rules();
        for (int code : {17, 25, 215, 200, 207, 222, 314, 50, 51, 52, 53, 54, 306, 316, 329, 309,
                 318, 100, 102, 205, 327, 216, 103, 104, 33, 3001, 3010}) {
            RemotingCommand r = RemotingCommand::createRequest(code);
            r.setExt("topic", QByteArray("topicB"));
            QCOMPARE(why(c.check(kPeer, signedBy(r, "RocketMQ", "12345678"))),
                "org.apache.rocketmq.acl.common.AclException: Need admin permission for request "
                "code="
                    + QByteArray::number(code) + ", but accessKey=RocketMQ is not");
            QCOMPARE(
                why(c.check(kPeer, signedBy(r, "rocketmq2", "12345678"))), QByteArray("<allowed>"));
        }
        // Reading is not admin-only: statistics, and the replication state (907 haStatus, 1007
        // getBrokerEpoch, unchecked by RocketMQ 5.3.3's ACL).
        for (int code : {202, 907, 1007}) {
            QVERIFY(!isAdminCode(code));
            const RemotingCommand read = RemotingCommand::createRequest(code);
            QCOMPARE(why(c.check(kPeer, signedBy(read, "RocketMQ", "12345678"))),
                QByteArray("<allowed>"));
        }
    }

    void whiteAddresses()
    {
        const PlainAclConfig c = rules();
        // Global white list: no key needed.
        QCOMPARE(why(c.check(QHostAddress(QStringLiteral("10.10.103.7")), sendV2("topicA"))),
            QByteArray("<allowed>"));
        QCOMPARE(why(c.check(QHostAddress(QStringLiteral("::ffff:192.168.0.9")), sendV2("topicA"))),
            QByteArray("<allowed>"));
        // An account's white address skips the signature (RocketMQ's rule), not the key.
        RemotingCommand r = sendV2("topicA");
        r.setExt("AccessKey", QByteArray("rocketmq2"));
        QCOMPARE(
            why(c.check(QHostAddress(QStringLiteral("192.168.1.20")), r)), QByteArray("<allowed>"));
        QVERIFY(c.check(QHostAddress(QStringLiteral("192.168.2.20")), r));
    }

    void permissionBits()
    {
        QCOMPARE(perm::parse(u"PUB|SUB"), std::optional<std::uint8_t>(perm::Pub | perm::Sub));
        QCOMPARE(perm::parse(u"SUB|PUB"), std::optional<std::uint8_t>(perm::Pub | perm::Sub));
        QVERIFY(!perm::parse(u"pub"));
        QVERIFY(perm::allows(perm::Pub, perm::Pub | perm::Sub));
        QVERIFY(!perm::allows(perm::Pub, perm::Sub));
        QVERIFY(!perm::allows(perm::Sub, perm::Deny | perm::Sub));
        QVERIFY(perm::allows(perm::Any, perm::Sub));
    }
};

QTEST_GUILESS_MAIN(tst_PlainAcl)
#include "tst_plainacl.moc"
