// RocketMQ 5's ACL 2.0 model (clientlib/acl/authmodel.h): resource parsing and matching, the
// policy decision (LITERAL / PREFIXED / ANY, deny over allow, source IPs, super users, Default
// after Custom, a retry topic following its group), the request -> resource+action table, the
// wire bodies, and the import of plain_acl.yml accounts (plainimport.h).

#include "clientlib/acl/authmodel.h"
#include "clientlib/acl/plainimport.h"
#include "clientlib/protocol/bodies/authbodies.h"
#include "clientlib/protocol/bodies/popbodies.h"

#include <QTest>

using namespace qrocket;
using namespace qrocket::acl;
using protocol::RemotingCommand;

namespace {

const QHostAddress kPeer(QStringLiteral("10.1.2.3"));

PolicyEntry entry(const char *resource, Actions actions, Decision d = Decision::Allow,
    std::vector<const char *> ips = {})
{
    PolicyEntry e;
    e.resource = *Resource::parse(resource);
    e.actions = actions;
    e.decision = d;
    for (const char *ip : ips)
        e.sourceIps.push_back(*SourceIp::parse(ip));
    return e;
}

AuthData dataFor(const char *user, std::vector<PolicyEntry> custom,
    std::vector<PolicyEntry> defaults = {}, UserType type = UserType::Normal)
{
    AuthData d;
    AuthUser u;
    u.username = user;
    u.password = "secret-1234";
    u.type = type;
    d.users.emplace(u.username, u);
    AuthAcl acl;
    acl.subject = userSubject(user);
    if (!custom.empty())
        acl.policies.push_back({PolicyType::Custom, std::move(custom)});
    if (!defaults.empty())
        acl.policies.push_back({PolicyType::Default, std::move(defaults)});
    d.acls.emplace(acl.subject, std::move(acl));
    return d;
}

std::optional<QByteArray> decide(const AuthData &d, const char *user, const Resource &r, Actions a,
    const QHostAddress &peer = kPeer)
{
    return authorize(d, *d.user(user), {r, a}, peer);
}

RemotingCommand request(int code, std::vector<std::pair<QByteArray, QByteArray>> fields)
{
    RemotingCommand r = RemotingCommand::createRequest(code);
    for (auto &[k, v] : fields)
        r.setExt(k, v);
    return r;
}

} // namespace

class tst_AuthModel final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void resourceParsing_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("type");
        QTest::addColumn<QByteArray>("name");
        QTest::addColumn<int>("pattern");
        QTest::addRow("any") << QByteArray("*") << int(ResourceType::Any) << QByteArray()
                             << int(ResourcePattern::Any);
        QTest::addRow("topic any") << QByteArray("Topic:*") << int(ResourceType::Topic)
                                   << QByteArray() << int(ResourcePattern::Any);
        QTest::addRow("prefixed") << QByteArray("topic:orders*") << int(ResourceType::Topic)
                                  << QByteArray("orders") << int(ResourcePattern::Prefixed);
        QTest::addRow("literal") << QByteArray("Group:g1") << int(ResourceType::Group)
                                 << QByteArray("g1") << int(ResourcePattern::Literal);
        QTest::addRow("cluster") << QByteArray("Cluster:DefaultCluster")
                                 << int(ResourceType::Cluster) << QByteArray("DefaultCluster")
                                 << int(ResourcePattern::Literal);
    }
    void resourceParsing()
    {
        QFETCH(QByteArray, key);
        const std::optional<Resource> r = Resource::parse(key);
        QFETCH(int, type);
        QFETCH(QByteArray, name);
        QFETCH(int, pattern);
        QVERIFY(r);
        QCOMPARE(int(r->type), type);
        QCOMPARE(r->name, name);
        QCOMPARE(int(r->pattern), pattern);
    }

    void badResourcesAreRefused()
    {
        QVERIFY(!Resource::parse(""));
        QVERIFY(!Resource::parse("Queue:x"));
        QVERIFY(!Resource::parse("   "));
        QCOMPARE(Resource::parse("Topic:orders*")->key(), QByteArray("Topic:orders*"));
        QCOMPARE(Resource::parse("topic:*")->key(), QByteArray("Topic:*"));
    }

    void literalPrefixedAndAny()
    {
        const AuthData d = dataFor("bob",
            {entry("Topic:orders", action::Pub), entry("Topic:pay*", action::Sub),
                entry("Group:*", action::Sub)});
        QVERIFY(!decide(d, "bob", Resource::topic("orders"), action::Pub));
        QVERIFY(decide(d, "bob", Resource::topic("orders2"), action::Pub)); // literal only
        QVERIFY(decide(d, "bob", Resource::topic("orders"), action::Sub)); // not that action
        QVERIFY(!decide(d, "bob", Resource::topic("payments"), action::Sub));
        QVERIFY(!decide(d, "bob", Resource::topic("pay"), action::Sub));
        QVERIFY(decide(d, "bob", Resource::topic("xpay"), action::Sub));
        QVERIFY(!decide(d, "bob", Resource::group("anyGroup"), action::Sub));
        QVERIFY(decide(d, "bob", Resource::cluster("c"), action::Get));
        const std::optional<QByteArray> no
            = decide(d, "bob", Resource::topic("other"), action::Pub);
        QCOMPARE(*no,
            QByteArray("User:bob has no permission to access Topic:other from 10.1.2.3, no "
                       "matched policies."));
    }

    void denyWinsOverAllow()
    {
        // The same resource allowed and denied: deny wins.
        AuthData d = dataFor(
            "bob", {entry("Topic:t", action::Pub), entry("Topic:t", action::All, Decision::Deny)});
        QCOMPARE(*decide(d, "bob", Resource::topic("t"), action::Pub),
            QByteArray("User:bob has no permission to access Topic:t from 10.1.2.3, the "
                       "decision is deny."));
        // A more specific deny under a broad allow; a more specific allow under a broad deny.
        d = dataFor("bob",
            {entry("Topic:orders*", action::Pub),
                entry("Topic:orders-secret", action::Pub, Decision::Deny),
                entry("Topic:*", action::All, Decision::Deny), entry("Topic:public", action::Pub)});
        QVERIFY(!decide(d, "bob", Resource::topic("orders-1"), action::Pub));
        QVERIFY(decide(d, "bob", Resource::topic("orders-secret"), action::Pub));
        QVERIFY(!decide(d, "bob", Resource::topic("public"), action::Pub));
        QVERIFY(decide(d, "bob", Resource::topic("misc"), action::Pub));
        // A longer prefix is more specific than a shorter one.
        d = dataFor("bob",
            {entry("Topic:a*", action::Pub, Decision::Deny), entry("Topic:ab*", action::Pub)});
        QVERIFY(!decide(d, "bob", Resource::topic("abc"), action::Pub));
        QVERIFY(decide(d, "bob", Resource::topic("ac"), action::Pub));
    }

    void sourceIps()
    {
        const AuthData d = dataFor("bob",
            {entry("Topic:t", action::Pub, Decision::Allow, {"10.1.0.0/16", "192.168.0.7"})});
        QVERIFY(!decide(d, "bob", Resource::topic("t"), action::Pub));
        QVERIFY(!decide(d, "bob", Resource::topic("t"), action::Pub,
            QHostAddress(QStringLiteral("192.168.0.7"))));
        QVERIFY(!decide(d, "bob", Resource::topic("t"), action::Pub,
            QHostAddress(QStringLiteral("::ffff:10.1.200.1")))); // IPv4-mapped peer
        QVERIFY(decide(
            d, "bob", Resource::topic("t"), action::Pub, QHostAddress(QStringLiteral("10.2.0.1"))));
        QVERIFY(!SourceIp::parse("10.1.0.0/99"));
        QVERIFY(!SourceIp::parse("not-an-ip"));
    }

    void superUserAndDefaultPolicy()
    {
        const AuthData super = dataFor("root", {}, {}, UserType::Super);
        QVERIFY(!decide(super, "root", Resource::topic("anything"), action::Delete));
        // Default entries count only when no Custom entry matches.
        const AuthData d = dataFor("bob", {entry("Topic:t", action::Pub, Decision::Deny)},
            {entry("Topic:*", action::Pub)});
        QVERIFY(decide(d, "bob", Resource::topic("t"), action::Pub));
        QVERIFY(!decide(d, "bob", Resource::topic("u"), action::Pub));
        // "All" grants every action; a request's Any matches any action.
        const AuthData all = dataFor("bob", {entry("Group:g", action::All)});
        QVERIFY(!decide(all, "bob", Resource::group("g"), action::Update));
        QVERIFY(!decide(all, "bob", Resource::group("g"), action::Any));
    }

    void retryTopicFollowsItsGroup()
    {
        const AuthData d = dataFor("bob", {entry("Group:g1", action::Sub)});
        QCOMPARE(Resource::group("%RETRY%g1"), Resource::group("g1"));
        const RemotingCommand send = request(310, {{"a", "g1"}, {"b", "%RETRY%g1"}});
        const std::vector<AuthCheck> checks = authChecks(send, "c");
        QCOMPARE(checks.size(), std::size_t(1));
        QCOMPARE(checks[0].resource, Resource::group("g1"));
        QCOMPARE(checks[0].actions, action::Sub);
        QVERIFY(!authorize(d, *d.user("bob"), checks[0], kPeer));
    }

    void requestTable()
    {
        auto checks = authChecks(request(310, {{"a", "pg"}, {"b", "orders"}}), "c");
        QCOMPARE(checks.size(), std::size_t(1));
        QCOMPARE(checks[0].resource, Resource::topic("orders"));
        QCOMPARE(checks[0].actions, action::Pub);
        checks = authChecks(request(11, {{"topic", "orders"}, {"consumerGroup", "cg"}}), "c");
        QCOMPARE(checks.size(), std::size_t(2));
        QCOMPARE(checks[1].resource, Resource::group("cg"));
        checks = authChecks(request(3001, {{"username", "x"}}), "DefaultCluster");
        QCOMPARE(checks.size(), std::size_t(1));
        QCOMPARE(checks[0].resource.key(), QByteArray("Cluster:DefaultCluster"));
        QCOMPARE(checks[0].actions, action::Update);
        QCOMPARE(authChecks(request(3010, {}), "c")[0].actions, action::Get);
        QVERIFY(authChecks(request(26, {}), "c").empty()); // unchecked, as in RocketMQ 5.3
        // GET_BROKER_HA_STATUS / GET_BROKER_EPOCH_CACHE: no header, no @RocketMQAction in 5.3.3.
        QVERIFY(authChecks(request(907, {}), "c").empty());
        QVERIFY(authChecks(request(1007, {}), "c").empty());
        // POP (RocketMQ 5.3's @RocketMQAction on the Pop*/Ack*/ChangeInvisibleTime headers).
        for (int code : {200050, 200051, 200052, 200053, 200054}) {
            checks = authChecks(request(code, {{"topic", "orders"}, {"consumerGroup", "cg"}}), "c");
            QCOMPARE(checks.size(), std::size_t(2));
            QCOMPARE(checks[0].resource, Resource::topic("orders"));
            QCOMPARE(checks[0].actions, action::Sub);
            QCOMPARE(checks[1].resource, Resource::group("cg"));
            QCOMPARE(checks[1].actions, action::Sub);
        }
        checks = authChecks(request(200055, {{"topic", "orders"}, {"consumerGroup", "cg"}}), "c");
        QCOMPARE(checks[0].actions, action::Get);
        checks = authChecks(request(370, {{"topic", "orders"}}), "c"); // RECALL_MESSAGE
        QCOMPARE(checks.size(), std::size_t(1));
        QCOMPARE(checks[0].resource, Resource::topic("orders"));
        QCOMPARE(checks[0].actions, action::Pub);
        checks = authChecks(request(351, {{"topic", "orders"}}), "c");
        QCOMPARE(checks.size(), std::size_t(1));
        QCOMPARE(checks[0].actions, action::Get);
        RemotingCommand batch = request(200151, {});
        protocol::BatchAckMessageRequestBody acks;
        acks.acks.push_back({"cg", "orders", "0", 0, 0, 0, 0, 0, {1}});
        batch.body = acks.toJson();
        checks = authChecks(batch, "c");
        QCOMPARE(checks.size(), std::size_t(2));
        QCOMPARE(checks[0].resource, Resource::group("cg"));
        QCOMPARE(checks[1].resource, Resource::topic("orders"));
    }

    void bodiesRoundTripAndValidation()
    {
        const QByteArray json = R"({"subject":"User:bob","policies":[{"policyType":"Custom",)"
                                R"("entries":[{"resource":"Topic:orders*","actions":["Pub","Sub"],)"
                                R"("sourceIps":["10.0.0.0/8"],"decision":"Allow"}]}]})";
        auto info = protocol::AclInfo::fromJson(json);
        QVERIFY(info);
        auto policies = toPolicies(*info);
        QVERIFY(policies);
        AuthAcl acl {"User:bob", *policies};
        QCOMPARE(toAclInfo(acl).toJson(), json);
        // RocketMQ's checks, with its messages.
        info->policies[0].entries[0].actions = {"Any"};
        QCOMPARE(
            toPolicies(*info).error().message(), QStringLiteral("The actions can not be Any."));
        info->policies[0].entries[0].actions = {"Pub"};
        info->policies[0].entries[0].decision = "Maybe";
        QCOMPARE(toPolicies(*info).error().message(),
            QStringLiteral("The decision is null or illegal."));
        info->policies[0].entries[0].decision = "Deny";
        info->policies[0].entries[0].sourceIps = {"300.1.1.1"};
        QCOMPARE(toPolicies(*info).error().message(), QStringLiteral("The source ip is invalid."));
        info->policies[0].entries[0].resource = "Queue:x";
        QCOMPARE(toPolicies(*info).error().message(), QStringLiteral("The resource is null."));
        QVERIFY(!protocol::AclInfo::fromJson("{\"policies\":3}"));
        // An answered user never carries the password.
        AuthUser u {"bob", "secret-1234", UserType::Super, UserStatus::Disable, false};
        const QByteArray user = toUserInfo(u).toJson();
        QCOMPARE(
            user, QByteArray(R"({"username":"bob","userType":"Super","userStatus":"disable"})"));
    }

    void mergeAndRemoveEntries()
    {
        AuthAcl acl {"User:bob", {{PolicyType::Custom, {entry("Topic:a", action::Pub)}}}};
        acl.merge({{PolicyType::Custom,
            {entry("Topic:a", action::Sub, Decision::Deny), entry("Topic:b", action::Pub)}}});
        QCOMPARE(acl.policies.size(), std::size_t(1));
        QCOMPARE(acl.policies[0].entries.size(), std::size_t(2));
        QCOMPARE(acl.policies[0].entries[0].decision, Decision::Deny);
        acl.removeEntry(PolicyType::Custom, *Resource::parse("Topic:a"));
        acl.removeEntry(PolicyType::Custom, *Resource::parse("Topic:b"));
        QVERIFY(acl.policies.empty());
    }

    void plainAccountsImport()
    {
        auto plain = PlainAclConfig::parse(R"(accounts:
  - accessKey: producer1
    secretKey: producer-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - Orders=PUB|SUB
      - Secret=DENY
    groupPerms:
      - g1=SUB
  - accessKey: admin001
    secretKey: admin-secret
    admin: true
  - accessKey: existing
    secretKey: existing-secret
)");
        if (!plain)
            QFAIL(qPrintable(plain.error().message()));
        AuthData d;
        AuthUser kept {"existing", "another-password", UserType::Normal, UserStatus::Enable, false};
        d.users.emplace(kept.username, kept);
        const std::vector<QByteArray> added = importPlainAccounts(*plain, d);
        QCOMPARE(added, (std::vector<QByteArray> {"admin001", "producer1"}));
        QCOMPARE(d.user("existing")->password, QByteArray("another-password")); // not overwritten
        QVERIFY(!d.acl("User:existing"));
        QCOMPARE(d.user("admin001")->type, UserType::Super);
        const AuthUser &p = *d.user("producer1");
        QCOMPARE(p.type, UserType::Normal);
        QCOMPARE(p.password, QByteArray("producer-secret"));
        QVERIFY(p.imported);
        QVERIFY(!decide(d, "producer1", Resource::topic("Orders"), action::Pub));
        QVERIFY(!decide(d, "producer1", Resource::topic("Orders"), action::Sub));
        QVERIFY(decide(d, "producer1", Resource::topic("Secret"), action::Sub));
        QVERIFY(decide(d, "producer1", Resource::topic("Other"), action::Pub)); // default DENY
        QVERIFY(!decide(d, "producer1", Resource::group("%RETRY%g1"), action::Sub));
        QVERIFY(!decide(d, "producer1", Resource::group("g2"), action::Sub)); // default SUB
        QVERIFY(decide(d, "producer1", Resource::group("g2"), action::Pub));
        // Importing again adds nothing.
        QVERIFY(importPlainAccounts(*plain, d).empty());
    }
};

QTEST_APPLESS_MAIN(tst_AuthModel)
#include "tst_authmodel.moc"
