// Access control and TLS on the gRPC port (issue 27): an in-process broker with aclEnable=true
// answers RocketMQ 5's signed gRPC calls (the SDKs' `authorization` metadata: HMAC-SHA1 of
// x-mq-date-time, in hex) with the plain_acl.yml accounts and ACL 2.0 users the remoting port
// uses: a right signature passes (send, route, assignment, receive, ack); a wrong signature, an
// unknown key, a missing header or date, a key without the topic's or group's permission are
// answered UNAUTHORIZED, as RocketMQ 5.3's proxy answers; an account's whiteRemoteAddress lets
// its peer in unsigned; garbage headers are refused and the broker serves on. A second broker
// with tls.server.mode=enforcing serves TLS clients that trust the test CA on its gRPC port and
// fails plain clients and clients that trust another certificate; a third with
// tls.server.mode=permissive serves plain and TLS clients on its one gRPC port (grpcsniffer.h),
// knows a plain client's real address (whiteRemoteAddress), and serves on past idle and garbage
// connections; the first (disabled) fails TLS clients.

#include "broker/auth/authstore.h"
#include "broker/common/brokercontext.h"
#include "broker/grpc/grpcauth.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/remoting/remotingclient.h"
#include "tests/system/broker/brokertestutil.h"
#include "tests/system/broker/grpctestutil.h"
#include "tests/system/broker/inprocessbroker.h"
#include "tests/testlib/testcerts.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QMessageAuthenticationCode>
#include <QSaveFile>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <grpcpp/security/credentials.h>

using namespace qrocket;
using namespace qrocket::brokertest;
using namespace qrocket::grpctest;

namespace {

const QByteArray kRules = R"(accounts:
  - accessKey: grpcuser1
    secretKey: grpc-secret-1
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - GA=PUB|SUB
  - accessKey: limited01
    secretKey: limited-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - GA=SUB
  - accessKey: whiteuser
    secretKey: white-secret
    whiteRemoteAddress: 127.0.0.1
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
)";

const QByteArray kAliceAcl = R"({"subject":"User:alice","policies":[{"policyType":"Custom",
  "entries":[{"resource":"Topic:GA","actions":["Pub","Sub"],"decision":"Allow"},
             {"resource":"Group:GG","actions":["Sub"],"decision":"Allow"}]}]})";

bool writeFile(const QString &path, const QByteArray &text)
{
    QSaveFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size() && f.commit();
}

/// x-mq-date-time as the SDKs write it, `offsetSecs` from now.
std::string dateTimeNow(qint64 offsetSecs = 0)
{
    return QDateTime::currentDateTimeUtc()
        .addSecs(offsetSecs)
        .toString(QStringLiteral("yyyyMMdd'T'HHmmss'Z'"))
        .toStdString();
}

/// The SDKs' metadata: x-mq-date-time (`date`, default now) and authorization signed with
/// `secret` over it.
std::vector<std::pair<std::string, std::string>> signedMetadata(
    const std::string &accessKey, const std::string &secret, std::string date = {})
{
    if (date.empty())
        date = dateTimeNow();
    const QByteArray mac = QMessageAuthenticationCode::hash(QByteArray::fromStdString(date),
        QByteArray::fromStdString(secret), QCryptographicHash::Sha1)
                               .toHex()
                               .toUpper();
    return {{"x-mq-date-time", date},
        {"authorization",
            "MQv2-HMAC-SHA1 Credential=" + accessKey
                + ", SignedHeaders=x-mq-date-time, Signature=" + mac.toStdString()}};
}

} // namespace

class tst_GrpcAuth final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void signedCallsPass();
    void unauthenticatedCallsAreRefused();
    void streamsAreRefused();
    void missingPermissionIsRefused();
    void whiteRemoteAddressAndAcl2Users();
    void garbageHeadersAreRefused();
    void signedDateTimeIsChecked_data();
    void signedDateTimeIsChecked();
    void staleFutureAndMalformedDatesAreRefused();
    void tlsClientConnects();
    void plainClientFailsOnEnforcingPort();
    void permissivePortServesPlainAndTls();
    void disabledPortFailsTlsClients();

private:
    std::unique_ptr<GrpcTestClient> client(
        const std::string &accessKey, const std::string &secret, const std::string &id)
    {
        auto c = std::make_unique<GrpcTestClient>(m_grpcPort, id);
        c->setExtraMetadata(signedMetadata(accessKey, secret));
        return c;
    }
    RemotingCommand adminCall(RemotingCommand r)
    {
        protocol::aclSign(r, "admin001", "admin-secret");
        return invoke(m_remoting, localAddr(m_broker->listenPort()), std::move(r));
    }
    void startTlsBroker();
    void startPermissiveBroker();
    /// The broker's TLS mode and the test CA's server certificate (encrypted key).
    void useServerCertificate(broker::BrokerConfig &c, const char *mode) const
    {
        c.tls.serverMode = QString::fromLatin1(mode);
        c.tls.configFile.clear();
        c.tls.serverCertPath = m_certs.serverCert;
        c.tls.serverKeyPath = m_certs.serverKeyEncrypted;
        c.tls.serverKeyPassword = QString::fromLatin1(testlib::TestCerts::kKeyPassword);
    }

    QTemporaryDir m_dir;
    std::unique_ptr<broker::BrokerController> m_broker;
    std::unique_ptr<broker::BrokerController> m_tlsBroker;
    std::unique_ptr<broker::BrokerController> m_permissiveBroker;
    testlib::TestCerts m_certs;
    quint16 m_grpcPort = 0;
    remoting::RemotingClient m_remoting;
};

void tst_GrpcAuth::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home/conf"))));
    QVERIFY(writeFile(m_dir.filePath(QStringLiteral("home/conf/plain_acl.yml")), kRules));
    startInProcessBroker(m_broker, m_dir.filePath(QStringLiteral("store")),
        QStringLiteral("broker-grpcauth"), QStringLiteral("127.0.0.1:1"),
        [this](broker::BrokerConfig &c) {
            c.aclEnable = true;
            c.rocketmqHome = m_dir.filePath(QStringLiteral("home"));
        });
    QVERIFY(m_broker);
    m_grpcPort = m_broker->grpcPort();
    QVERIFY(m_grpcPort != 0);
    for (const QByteArray &topic : {QByteArray("GA"), QByteArray("GB")}) {
        const RemotingCommand r = adminCall(request(17,
            {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
                {"writeQueueNums", "2"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}}));
        QCOMPARE(r.code, 0);
    }
    // ACL 2.0 users: alice (GA and GG allowed by her ACL), bob (disabled).
    broker::AuthStore *store = m_broker->context().authStore;
    QVERIFY(store);
    protocol::UserInfo alice;
    alice.username = "alice";
    alice.password = "alice-password";
    alice.userType = "Normal";
    QVERIFY2(store->createUser(alice).isOk(), "alice");
    const Result<protocol::AclInfo> acl = protocol::AclInfo::fromJson(kAliceAcl);
    QVERIFY(acl);
    QVERIFY2(store->putAcl("User:alice", *acl).isOk(), "alice's acl");
    protocol::UserInfo bob;
    bob.username = "bob";
    bob.password = "bob-password";
    bob.userStatus = "disable";
    QVERIFY2(store->createUser(bob).isOk(), "bob");
    startTlsBroker();
}

void tst_GrpcAuth::cleanupTestCase()
{
    stopInProcessBroker(m_permissiveBroker);
    stopInProcessBroker(m_tlsBroker);
    stopInProcessBroker(m_broker);
}

void tst_GrpcAuth::signedCallsPass()
{
    auto c = client("grpcuser1", "grpc-secret-1", "grpcauth-ok@1");
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("GA");
    pb::QueryRouteResponse routed;
    auto ctx = c->context();
    QVERIFY(c->stub().QueryRoute(ctx.get(), route, &routed).ok());
    QCOMPARE(routed.status().code(), pb::OK);
    QCOMPARE(routed.message_queues_size(), 2);

    pb::QueryAssignmentRequest assign;
    assign.mutable_topic()->set_name("GA");
    assign.mutable_group()->set_name("GG");
    pb::QueryAssignmentResponse assigned;
    ctx = c->context();
    QVERIFY(c->stub().QueryAssignment(ctx.get(), assign, &assigned).ok());
    QCOMPARE(assigned.status().code(), pb::OK);
    QCOMPARE(assigned.assignments_size(), 1);

    const pb::SendMessageResponse sent
        = c->send({GrpcTestClient::message("GA", "AUTH-OK-1", "signed body", "t")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
    QCOMPARE(sent.entries_size(), 1);

    const std::vector<pb::Message> got = c->receiveUntil("GG", "GA", 1, 30000, 15000);
    QCOMPARE(got.size(), std::size_t(1));
    QCOMPARE(got[0].body(), std::string("signed body"));
    const pb::AckMessageResponse acked = c->ack("GG", "GA", got[0].system_properties().message_id(),
        got[0].system_properties().receipt_handle());
    QVERIFY2(acked.status().code() == pb::OK, acked.status().message().c_str());
}

void tst_GrpcAuth::unauthenticatedCallsAreRefused()
{
    struct Case
    {
        const char *name;
        std::vector<std::pair<std::string, std::string>> metadata;
        std::string message;
    };
    std::vector<Case> cases;
    cases.push_back(
        {"wrong secret", signedMetadata("grpcuser1", "not-the-secret"), "check signature failed."});
    cases.push_back(
        {"unknown key", signedMetadata("nobody01", "whatever"), "User:nobody01 is not found."});
    cases.push_back({"no header", {}, "username cannot be null."});
    auto noDate = signedMetadata("grpcuser1", "grpc-secret-1");
    noDate.erase(noDate.begin());
    cases.push_back({"no date", noDate, "datetime is null."});
    // Signed over another date than the one sent (a fresh one: a stale one is refused first).
    auto otherDate = signedMetadata("grpcuser1", "grpc-secret-1");
    otherDate[0].second = dateTimeNow(-60);
    cases.push_back({"other date", otherDate, "check signature failed."});
    cases.push_back(
        {"disabled ACL 2.0 user", signedMetadata("bob", "bob-password"), "User:bob is disabled."});
    for (const Case &k : cases) {
        GrpcTestClient c(m_grpcPort, "grpcauth-refused@1");
        c.setExtraMetadata(k.metadata);
        const pb::SendMessageResponse sent
            = c.send({GrpcTestClient::message("GA", "AUTH-NO-1", "refused")});
        QVERIFY2(sent.status().code() == pb::UNAUTHORIZED,
            (std::string(k.name) + ": " + sent.status().message()).c_str());
        QCOMPARE(sent.status().message(), k.message);
        QCOMPARE(sent.entries_size(), 0);
        pb::QueryRouteRequest route;
        route.mutable_topic()->set_name("GA");
        pb::QueryRouteResponse routed;
        auto ctx = c.context();
        QVERIFY(c.stub().QueryRoute(ctx.get(), route, &routed).ok());
        QCOMPARE(routed.status().code(), pb::UNAUTHORIZED);
        QCOMPARE(routed.message_queues_size(), 0);
    }
}

void tst_GrpcAuth::streamsAreRefused()
{
    GrpcTestClient c(m_grpcPort, "grpcauth-stream@1");
    c.setExtraMetadata(signedMetadata("grpcuser1", "wrong-secret"));
    const Received r = c.receive("GG", "GA", 8, 30000, 1000);
    QVERIFY2(r.rpc.ok(), r.rpc.error_message().c_str());
    QCOMPARE(r.code, pb::UNAUTHORIZED);
    QCOMPARE(r.message, std::string("check signature failed."));
    QVERIFY(r.messages.empty());

    auto ctx = c.context();
    auto stream = c.stub().Telemetry(ctx.get());
    pb::TelemetryCommand settings;
    settings.mutable_settings()->set_client_type(pb::SIMPLE_CONSUMER);
    stream->Write(settings);
    pb::TelemetryCommand answer;
    QVERIFY(stream->Read(&answer));
    QCOMPARE(answer.status().code(), pb::UNAUTHORIZED);
    QVERIFY(!stream->Read(&answer)); // the stream ends
    stream->WritesDone();
    QVERIFY(stream->Finish().ok());
}

void tst_GrpcAuth::missingPermissionIsRefused()
{
    // limited01 may consume GA but not publish to it, and has no group.
    auto limited = client("limited01", "limited-secret", "grpcauth-limited@1");
    const pb::SendMessageResponse sent
        = limited->send({GrpcTestClient::message("GA", "AUTH-PERM-1", "not allowed")});
    QVERIFY2(sent.status().code() == pb::UNAUTHORIZED, sent.status().message().c_str());
    QVERIFY(!sent.status().message().empty());
    pb::QueryAssignmentRequest assign;
    assign.mutable_topic()->set_name("GA");
    assign.mutable_group()->set_name("GG");
    pb::QueryAssignmentResponse assigned;
    auto ctx = limited->context();
    QVERIFY(limited->stub().QueryAssignment(ctx.get(), assign, &assigned).ok());
    QCOMPARE(assigned.status().code(), pb::UNAUTHORIZED);
    QCOMPARE(assigned.assignments_size(), 0);
    const Received r = limited->receive("GG", "GA", 8, 30000, 0);
    QVERIFY2(r.rpc.ok(), r.rpc.error_message().c_str());
    QCOMPARE(r.code, pb::UNAUTHORIZED);

    // grpcuser1's topics are GA only.
    auto user = client("grpcuser1", "grpc-secret-1", "grpcauth-gb@1");
    const pb::SendMessageResponse other
        = user->send({GrpcTestClient::message("GB", "AUTH-PERM-2", "GB is denied")});
    QVERIFY2(other.status().code() == pb::UNAUTHORIZED, other.status().message().c_str());
}

void tst_GrpcAuth::whiteRemoteAddressAndAcl2Users()
{
    // whiteRemoteAddress 127.0.0.1: the account's peer needs no valid signature (remoting's rule).
    auto white = client("whiteuser", "any-secret-at-all", "grpcauth-white@1");
    const pb::SendMessageResponse sent
        = white->send({GrpcTestClient::message("GB", "AUTH-WHITE-1", "white")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());

    // An ACL 2.0 user: her password signs, her ACL decides.
    auto alice = client("alice", "alice-password", "grpcauth-alice@1");
    const pb::SendMessageResponse ok
        = alice->send({GrpcTestClient::message("GA", "AUTH-ALICE-1", "alice")});
    QVERIFY2(ok.status().code() == pb::OK, ok.status().message().c_str());
    const pb::SendMessageResponse denied
        = alice->send({GrpcTestClient::message("GB", "AUTH-ALICE-2", "alice")});
    QVERIFY2(denied.status().code() == pb::UNAUTHORIZED, denied.status().message().c_str());
    QVERIFY2(denied.status().message().find("alice") != std::string::npos,
        denied.status().message().c_str());
    auto wrong = client("alice", "not-her-password", "grpcauth-alice@2");
    QCOMPARE(wrong->send({GrpcTestClient::message("GA", "AUTH-ALICE-3", "x")}).status().code(),
        pb::UNAUTHORIZED);

    // Once its ACL 2.0 import is changed, ACL 2.0 decides for whiteuser (aclguard.h): the file's
    // whiteRemoteAddress no longer lets a wrong signature in, the new password signs.
    protocol::UserInfo changed;
    changed.username = "whiteuser";
    changed.password = "white-password-2";
    changed.userType = "Super";
    QVERIFY(m_broker->context().authStore->updateUser(changed).isOk());
    const pb::SendMessageResponse unsigned2
        = white->send({GrpcTestClient::message("GB", "AUTH-WHITE-2", "white")});
    QCOMPARE(unsigned2.status().code(), pb::UNAUTHORIZED);
    QCOMPARE(unsigned2.status().message(), std::string("check signature failed."));
    auto resigned = client("whiteuser", "white-password-2", "grpcauth-white@2");
    const pb::SendMessageResponse ok2
        = resigned->send({GrpcTestClient::message("GB", "AUTH-WHITE-3", "white")});
    QVERIFY2(ok2.status().code() == pb::OK, ok2.status().message().c_str());
}

void tst_GrpcAuth::garbageHeadersAreRefused()
{
    const std::string date = dateTimeNow();
    const std::string longKey(3000, 'k'); // under gRPC's 8 KiB metadata limit
    const std::vector<std::string> garbage = {"", "MQv2-HMAC-SHA1", " ", "x y", "a b=c",
        "MQv2-HMAC-SHA1 Credential", "MQv2-HMAC-SHA1 Credential=", "MQv2-HMAC-SHA1 ,,,,",
        "MQv2-HMAC-SHA1 Credential=grpcuser1", "MQv2-HMAC-SHA1 Credential=grpcuser1, Signature=",
        "MQv2-HMAC-SHA1 Credential=grpcuser1, Signature=zz",
        "MQv2-HMAC-SHA1 Credential=grpcuser1, Signature=ABC",
        "MQv2-HMAC-SHA1 Credential=grpcuser1, Signature=" + std::string(40, 'G'),
        "MQv2-HMAC-SHA1 Credential=grpcuser1, Signature=" + std::string(4000, 'A'),
        "MQv2-HMAC-SHA1 Credential=/grpcuser1, Signature=00",
        "MQv2-HMAC-SHA1 Credential=" + longKey + ", Signature=00", "= = = =",
        "MQv2-HMAC-SHA1 Credential==, Signature==, =", "MQv2-HMAC-SHA1 Credential=%00\\x01"};
    for (const std::string &value : garbage) {
        GrpcTestClient c(m_grpcPort, "grpcauth-garbage@1");
        c.setExtraMetadata({{"x-mq-date-time", date}, {"authorization", value}});
        const pb::SendMessageResponse sent
            = c.send({GrpcTestClient::message("GA", "AUTH-GARBAGE", "garbage")});
        QVERIFY2(sent.status().code() == pb::UNAUTHORIZED,
            (value.substr(0, 80) + " -> " + sent.status().message()).c_str());
    }
    // The broker serves on.
    auto c = client("grpcuser1", "grpc-secret-1", "grpcauth-after@1");
    const pb::SendMessageResponse sent
        = c->send({GrpcTestClient::message("GA", "AUTH-AFTER-1", "after garbage")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
}

void tst_GrpcAuth::startTlsBroker()
{
    const QString error = testlib::generateTestCerts(m_dir.path(), m_certs);
    if (!error.isEmpty()) {
        qWarning().noquote() << "no test certificates, the TLS cases skip:" << error;
        return;
    }
    startInProcessBroker(m_tlsBroker, m_dir.filePath(QStringLiteral("tls-store")),
        QStringLiteral("broker-grpctls"), QStringLiteral("127.0.0.1:1"),
        [this](broker::BrokerConfig &c) { useServerCertificate(c, "enforcing"); });
    QVERIFY(m_tlsBroker);
    QVERIFY(m_tlsBroker->grpcPort() != 0);
    startPermissiveBroker();
}

void tst_GrpcAuth::startPermissiveBroker()
{
    startInProcessBroker(m_permissiveBroker, m_dir.filePath(QStringLiteral("permissive-store")),
        QStringLiteral("broker-grpcpermissive"), QStringLiteral("127.0.0.1:1"),
        [this](broker::BrokerConfig &c) {
            c.aclEnable = true;
            c.rocketmqHome = m_dir.filePath(QStringLiteral("home"));
            useServerCertificate(c, "permissive");
        });
    QVERIFY(m_permissiveBroker);
    QVERIFY(m_permissiveBroker->grpcPort() != 0);
    for (const QByteArray &topic : {QByteArray("GA"), QByteArray("GB")}) {
        RemotingCommand r = request(17,
            {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", "2"},
                {"writeQueueNums", "2"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"},
                {"topicSysFlag", "0"}, {"order", "false"}});
        protocol::aclSign(r, "admin001", "admin-secret");
        QCOMPARE(
            invoke(m_remoting, localAddr(m_permissiveBroker->listenPort()), std::move(r)).code, 0);
    }
}

namespace {

std::string readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

std::shared_ptr<grpc::Channel> tlsChannel(quint16 port, const QString &trusted)
{
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = readAll(trusted);
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    return grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(port), grpc::SslCredentials(options), args);
}

} // namespace

void tst_GrpcAuth::signedDateTimeIsChecked_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("offset"); // now - the value's time
    QTest::addColumn<int>("maxSkew");
    QTest::addColumn<QByteArray>("refusal"); // empty: accepted; else a part of the reason

    QTest::newRow("now") << QByteArray("20261207T023000Z") << qint64(0) << 900 << QByteArray();
    QTest::newRow("900 s behind") << QByteArray("20261207T021500Z") << qint64(900) << 900
                                  << QByteArray();
    QTest::newRow("901 s behind") << QByteArray("20261207T021459Z") << qint64(901) << 900
                                  << QByteArray("is 901 s behind the broker's clock");
    QTest::newRow("900 s ahead") << QByteArray("20261207T024500Z") << qint64(-900) << 900
                                 << QByteArray();
    QTest::newRow("901 s ahead") << QByteArray("20261207T024501Z") << qint64(-901) << 900
                                 << QByteArray("is 901 s ahead of the broker's clock");
    QTest::newRow("a year old") << QByteArray("20251207T023000Z") << qint64(365 * 86400) << 900
                                << QByteArray("grpcAuthMaxClockSkewSeconds=900");
    QTest::newRow("a year old, unchecked")
        << QByteArray("20251207T023000Z") << qint64(365 * 86400) << 0 << QByteArray();
    QTest::newRow("leap day") << QByteArray("20280229T000000Z") << qint64(0) << 900 << QByteArray();
    for (const char *bad : {"", "20261207T023000", "20261207 023000Z", "2026-12-07T02:30:00Z",
             "20261307T023000Z", "20261232T023000Z", "20270229T000000Z", "20261207T243000Z",
             "20261207T026000Z", "20261207T023060Z", "2026120+T023000Z", "20261207T023000z",
             "20261207T023000ZZ", "\xff\xfe"})
        QTest::newRow(bad) << QByteArray(bad) << qint64(0) << 900
                           << QByteArray("datetime is not yyyyMMdd'T'HHmmss'Z' (UTC).");
    QTest::newRow("garbage, unchecked") << QByteArray("garbage") << qint64(0) << 0 << QByteArray();
}

void tst_GrpcAuth::signedDateTimeIsChecked()
{
    QFETCH(QByteArray, value);
    QFETCH(qint64, offset);
    QFETCH(int, maxSkew);
    QFETCH(QByteArray, refusal);
    const std::optional<std::int64_t> at = broker::v2::parseSignedDateTime(value);
    if (refusal.startsWith("datetime is not")) {
        QVERIFY(!at);
    } else {
        QVERIFY(at || maxSkew == 0);
        if (at) // the same instant QDateTime reads
            QCOMPARE(*at,
                QDateTime(QDate::fromString(QString::fromLatin1(value.left(8)), u"yyyyMMdd"),
                    QTime::fromString(QString::fromLatin1(value.mid(9, 6)), u"HHmmss"), Qt::UTC)
                    .toSecsSinceEpoch());
    }
    const std::int64_t now = at ? *at + offset : 0;
    const std::optional<std::string> no = broker::v2::checkSignedDateTime(value, now, maxSkew);
    if (refusal.isEmpty()) {
        QVERIFY2(!no, no->c_str());
    } else {
        QVERIFY(no);
        QVERIFY2(no->find(refusal.toStdString()) != std::string::npos, no->c_str());
    }
}

void tst_GrpcAuth::staleFutureAndMalformedDatesAreRefused()
{
    // Rightly signed over the date sent, but a date too far from the broker's clock (default
    // grpcAuthMaxClockSkewSeconds=900) or not a date: refused before anything is stored.
    struct Case
    {
        const char *name;
        std::string date;
        std::string reason; // empty: accepted
    };
    const std::vector<Case> cases {
        {"10 minutes old", dateTimeNow(-600), {}},
        {"10 minutes ahead", dateTimeNow(600), {}},
        {"an hour old (replayed)", dateTimeNow(-3600), " s behind the broker's clock"},
        {"a day old", dateTimeNow(-86400), " s behind the broker's clock"},
        {"an hour ahead", dateTimeNow(3600), " s ahead of the broker's clock"},
        {"year 2000", "20000101T000000Z", " s behind the broker's clock"},
        {"ISO with dashes", "2026-12-07T02:30:00Z", "datetime is not yyyyMMdd'T'HHmmss'Z'"},
        {"month 13", "20261307T000000Z", "datetime is not yyyyMMdd'T'HHmmss'Z'"},
        {"garbage", "not-a-date", "datetime is not yyyyMMdd'T'HHmmss'Z'"},
    };
    int accepted = 0;
    for (const Case &k : cases) {
        GrpcTestClient c(m_grpcPort, "grpcauth-date@1");
        c.setExtraMetadata(signedMetadata("grpcuser1", "grpc-secret-1", k.date));
        const pb::SendMessageResponse sent = c.send({GrpcTestClient::message(
            "GA", "AUTH-DATE-" + std::to_string(accepted), "dated " + std::string(k.name))});
        const std::string what = std::string(k.name) + ": " + sent.status().message();
        if (k.reason.empty()) {
            QVERIFY2(sent.status().code() == pb::OK, what.c_str());
            ++accepted;
            continue;
        }
        QVERIFY2(sent.status().code() == pb::UNAUTHORIZED, what.c_str());
        QVERIFY2(sent.status().message().find(k.reason) != std::string::npos, what.c_str());
        QCOMPARE(sent.entries_size(), 0);
        // Streams too.
        const Received r = c.receive("GG", "GA", 8, 30000, 0);
        QVERIFY2(r.rpc.ok(), r.rpc.error_message().c_str());
        QCOMPARE(r.code, pb::UNAUTHORIZED);
        QVERIFY2(r.message.find(k.reason) != std::string::npos, r.message.c_str());
    }
    QCOMPARE(accepted, 2);
}

void tst_GrpcAuth::tlsClientConnects()
{
    if (!m_tlsBroker)
        QSKIP("no TLS broker");
    GrpcTestClient c(tlsChannel(m_tlsBroker->grpcPort(), m_certs.caCert), "grpctls-ok@1");
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("NO-SUCH-TOPIC");
    pb::QueryRouteResponse routed;
    auto ctx = c.context();
    const grpc::Status st = c.stub().QueryRoute(ctx.get(), route, &routed);
    QVERIFY2(st.ok(), st.error_message().c_str());
    QCOMPARE(routed.status().code(), pb::TOPIC_NOT_FOUND);
    // A client trusting another certificate does not get through.
    GrpcTestClient rogue(tlsChannel(m_tlsBroker->grpcPort(), m_certs.rogueCert), "grpctls-no@1");
    auto ctx2 = rogue.context(5000);
    QVERIFY(!rogue.stub().QueryRoute(ctx2.get(), route, &routed).ok());
}

void tst_GrpcAuth::plainClientFailsOnEnforcingPort()
{
    if (!m_tlsBroker)
        QSKIP("no TLS broker");
    GrpcTestClient c(m_tlsBroker->grpcPort(), "grpctls-plain@1");
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("GA");
    pb::QueryRouteResponse routed;
    auto ctx = c.context(5000);
    const grpc::Status st = c.stub().QueryRoute(ctx.get(), route, &routed);
    QVERIFY(!st.ok());
    QVERIFY2(st.error_code() == grpc::StatusCode::UNAVAILABLE
            || st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED,
        st.error_message().c_str());
    QCOMPARE(routed.message_queues_size(), 0);
    // The TLS port still serves TLS clients afterwards.
    GrpcTestClient tls(tlsChannel(m_tlsBroker->grpcPort(), m_certs.caCert), "grpctls-ok@2");
    auto ctx2 = tls.context();
    QVERIFY(tls.stub().QueryRoute(ctx2.get(), route, &routed).ok());
}

void tst_GrpcAuth::permissivePortServesPlainAndTls()
{
    if (!m_permissiveBroker)
        QSKIP("no permissive broker");
    const quint16 port = m_permissiveBroker->grpcPort();
    // Idle and garbage connections on the port do not hold anyone up.
    QTcpSocket idle;
    idle.connectToHost(QStringLiteral("127.0.0.1"), port);
    QVERIFY(idle.waitForConnected(5000));
    QTcpSocket garbage;
    garbage.connectToHost(QStringLiteral("127.0.0.1"), port);
    QVERIFY(garbage.waitForConnected(5000));
    garbage.write(QByteArray(1, '\x16') + QByteArray(300, 'g'));
    QVERIFY(garbage.waitForBytesWritten(5000));

    // A plain client: whiteuser's whiteRemoteAddress (127.0.0.1) matches, so the broker knows
    // its real address although gRPC got the connection as a descriptor.
    auto white = std::make_unique<GrpcTestClient>(port, "grpcperm-white@1");
    white->setExtraMetadata(signedMetadata("whiteuser", "any-secret-at-all"));
    pb::SendMessageResponse sent
        = white->send({GrpcTestClient::message("GB", "PERM-WHITE-1", "plain")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
    // A signed plain client.
    auto plain = std::make_unique<GrpcTestClient>(port, "grpcperm-plain@1");
    plain->setExtraMetadata(signedMetadata("grpcuser1", "grpc-secret-1"));
    sent = plain->send({GrpcTestClient::message("GA", "PERM-PLAIN-1", "plain")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
    // A TLS client on the same port, signed; then the whitelisted one over TLS.
    GrpcTestClient tls(tlsChannel(port, m_certs.caCert), "grpcperm-tls@1");
    tls.setExtraMetadata(signedMetadata("grpcuser1", "grpc-secret-1"));
    sent = tls.send({GrpcTestClient::message("GA", "PERM-TLS-1", "tls")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
    GrpcTestClient tlsWhite(tlsChannel(port, m_certs.caCert), "grpcperm-tls@2");
    tlsWhite.setExtraMetadata(signedMetadata("whiteuser", "any-secret-at-all"));
    sent = tlsWhite.send({GrpcTestClient::message("GB", "PERM-TLS-2", "tls")});
    QVERIFY2(sent.status().code() == pb::OK, sent.status().message().c_str());
    // A wrong signature is still refused on either.
    auto wrong = std::make_unique<GrpcTestClient>(port, "grpcperm-wrong@1");
    wrong->setExtraMetadata(signedMetadata("grpcuser1", "not-the-secret"));
    QCOMPARE(wrong->send({GrpcTestClient::message("GA", "PERM-WRONG-1", "x")}).status().code(),
        pb::UNAUTHORIZED);
    // A client that trusts another certificate does not get through.
    GrpcTestClient rogue(tlsChannel(port, m_certs.rogueCert), "grpcperm-rogue@1");
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("GA");
    pb::QueryRouteResponse routed;
    auto ctx = rogue.context(5000);
    QVERIFY(!rogue.stub().QueryRoute(ctx.get(), route, &routed).ok());
    // The garbage connection was closed (its TLS handshake failed).
    if (garbage.state() == QAbstractSocket::ConnectedState)
        garbage.waitForDisconnected(10000);
    QCOMPARE(garbage.state(), QAbstractSocket::UnconnectedState);
}

void tst_GrpcAuth::disabledPortFailsTlsClients()
{
    if (!m_tlsBroker)
        QSKIP("no test certificates");
    // tls.server.mode=disabled (the first broker): plain only.
    GrpcTestClient tls(tlsChannel(m_grpcPort, m_certs.caCert), "grpcplain-tls@1");
    pb::QueryRouteRequest route;
    route.mutable_topic()->set_name("GA");
    pb::QueryRouteResponse routed;
    auto ctx = tls.context(5000);
    QVERIFY(!tls.stub().QueryRoute(ctx.get(), route, &routed).ok());
}

QTEST_GUILESS_MAIN(tst_GrpcAuth)
#include "tst_grpcauth.moc"
