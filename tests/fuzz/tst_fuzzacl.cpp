// Bounded, seeded mutation fuzzing of the ACL's network-facing paths (clientlib/acl/plainacl.h):
// signed request frames, mutated as bytes, decoded as a server decodes them and checked against
// plain_acl.yml accounts; and mutants of plain_acl.yml itself. Beyond "no crash, no hang, no
// sanitizer report" each mutant must keep the guard's promises:
//   - a request the guard accepts carries a valid signature of an account's secret over what the
//     processors will read (no mutation of a signed field or the body gets through), and an admin
//     code only from an admin account;
//   - a refusal is SYSTEM_ERROR with a reason, and never contains a secret;
//   - a YAML mutant parses or fails with a message; rules that parse answer every request.
// QROCKET_FUZZ_ITERATIONS scales the loop; QROCKET_FUZZ_SEED picks another seed.

#include "clientlib/acl/plainacl.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/framecodec.h"
#include "mutator.h"

#include <QTest>

#include <vector>

using namespace qrocket;
using acl::PlainAclConfig;
using protocol::RemotingCommand;

namespace {

const QByteArray kYaml = R"(globalWhiteRemoteAddresses:
  - 192.168.0.*

accounts:
  - accessKey: fuzzuser1
    secretKey: fuzz-secret-one
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TopicA=PUB|SUB
      - TopicB=SUB
    groupPerms:
      - GroupA=SUB
      - GroupB=DENY

  - accessKey: fuzzadmin
    secretKey: fuzz-admin-secret
    admin: true
)";

const QByteArray kUser = "fuzzuser1";
const QByteArray kUserSecret = "fuzz-secret-one";
const QByteArray kAdmin = "fuzzadmin";
const QByteArray kAdminSecret = "fuzz-admin-secret";
const QHostAddress kPeer(QStringLiteral("10.1.2.3")); // in no white list

constexpr const char *kAclTokens[] = {"\"AccessKey\"", "\"Signature\"", "\"SecurityToken\"",
    "\"_UNIQUE_KEY_QUERY\"", "\"extFields\":{", "\"code\":17,", "\"b\":\"TopicB\"", "fuzzuser1",
    "fuzzadmin", "=", "==", "+/", "%RETRY%", "\"", ",", "}", "\\u0000", "\xff\xff\xff\xff"};

RemotingCommand request(int code, std::initializer_list<std::pair<const char *, QByteArray>> ext,
    const QByteArray &body = {})
{
    RemotingCommand r = RemotingCommand::createRequest(code);
    for (const auto &[k, v] : ext)
        r.setExt(k, v);
    r.body = body;
    return r;
}

/// Valid requests of each shape the guard reads, signed by the user or the admin.
std::vector<QByteArray> seedFrames()
{
    std::vector<RemotingCommand> requests;
    requests.push_back(request(310,
        {{"a", "PG"}, {"b", "TopicA"}, {"c", "TBW102"}, {"d", "4"}, {"e", "0"}, {"f", "0"},
            {"g", "1700000000000"}, {"h", "0"}, {"i", "KEYS\x01k\x02"}, {"j", "0"}, {"k", "false"}},
        "body"));
    requests.push_back(request(11,
        {{"consumerGroup", "GroupA"}, {"topic", "TopicA"}, {"queueId", "0"}, {"queueOffset", "0"},
            {"maxMsgNums", "32"}, {"sysFlag", "2"}, {"commitOffset", "0"},
            {"suspendTimeoutMillis", "0"}, {"subscription", "*"}, {"subVersion", "0"}}));
    requests.push_back(request(34, {},
        R"({"clientID":"c1","consumerDataSet":[{"groupName":"GroupA","subscriptionDataSet":[{"topic":"TopicB","subString":"*"}]}],"producerDataSet":[]})"));
    requests.push_back(request(14, {{"consumerGroup", "GroupA"}, {"topic", "TopicA"}}));
    requests.push_back(request(12,
        {{"key", "k"}, {"topic", "TopicA"}, {"maxNum", "32"}, {"beginTimestamp", "0"},
            {"endTimestamp", "1"}, {"_UNIQUE_KEY_QUERY", "false"}}));
    std::vector<QByteArray> frames;
    for (RemotingCommand &r : requests) {
        RemotingCommand byUser = r;
        protocol::aclSign(byUser, kUser, kUserSecret);
        frames.push_back(protocol::encodeFrame(byUser));
    }
    RemotingCommand create = request(17,
        {{"topic", "NewTopic"}, {"defaultTopic", "TBW102"}, {"readQueueNums", "4"},
            {"writeQueueNums", "4"}, {"perm", "6"}, {"topicFilterType", "SINGLE_TAG"}});
    RemotingCommand byAdmin = create;
    protocol::aclSign(byAdmin, kAdmin, kAdminSecret);
    frames.push_back(protocol::encodeFrame(byAdmin));
    RemotingCommand byUser = create; // admin-only code from a user: refused
    protocol::aclSign(byUser, kUser, kUserSecret, "token");
    frames.push_back(protocol::encodeFrame(byUser));
    return frames;
}

QByteArray secretOf(QByteArrayView accessKey)
{
    if (accessKey == kUser)
        return kUserSecret;
    if (accessKey == kAdmin)
        return kAdminSecret;
    return {};
}

/// The guard's promises for one decoded request; QVERIFY-style failures name the frame.
bool keepsPromises(const PlainAclConfig &rules, const RemotingCommand &cmd, QString &why)
{
    const std::optional<acl::AclRefusal> no = rules.check(kPeer, cmd);
    if (no) {
        if (no->code != 1 || no->remark.isEmpty()) {
            why = QStringLiteral("refusal without SYSTEM_ERROR and a reason");
            return false;
        }
        for (const QByteArray &secret : {kUserSecret, kAdminSecret}) {
            if (no->remark.contains(secret)) {
                why = QStringLiteral("a refusal names a secret: ") + QString::fromUtf8(no->remark);
                return false;
            }
        }
        return true;
    }
    // Accepted: the processors will read exactly what the account signed.
    const QByteArrayView accessKey = cmd.extString(protocol::kAclAccessKey);
    const QByteArray secret = secretOf(accessKey);
    if (secret.isEmpty()) {
        why = QStringLiteral("accepted without a known AccessKey");
        return false;
    }
    const QByteArrayView signature = cmd.extString(protocol::kAclSignature);
    const bool signedAsBroker = protocol::constantTimeEquals(
        signature, protocol::aclSignature(secret, cmd, protocol::kAclUniqueKeyQuery));
    const bool signedAsJava
        = protocol::constantTimeEquals(signature, protocol::aclSignature(secret, cmd));
    if (!signedAsBroker && !signedAsJava) {
        why = QStringLiteral("accepted a request whose signature does not verify");
        return false;
    }
    if (acl::isAdminCode(cmd.code) && accessKey != kAdmin) {
        why = QStringLiteral("admin code %1 accepted from a non-admin").arg(cmd.code);
        return false;
    }
    return true;
}

} // namespace

class tst_FuzzAcl : public QObject
{
    Q_OBJECT

private:
    int m_iterations = 0;
    quint32 m_seed = 0;
    std::optional<PlainAclConfig> m_rules;

private slots:
    void initTestCase()
    {
        const auto budget = fuzz::FuzzBudget::fromEnvironment(60000, 20261203);
        m_iterations = budget.iterations;
        m_seed = budget.seed;
        qInfo("seed %u, %d frame mutants", m_seed, m_iterations);
        auto rules = PlainAclConfig::parse(kYaml);
        QVERIFY2(rules.has_value(), qPrintable(rules.status().toString()));
        m_rules = std::move(*rules);
    }

    void seedsAreAnsweredAsTheRulesSay()
    {
        // 0..4 the user's own resources, 5 the admin's topic creation: accepted; 6 refused.
        const std::vector<QByteArray> frames = seedFrames();
        for (std::size_t i = 0; i < frames.size(); ++i) {
            RemotingCommand cmd;
            QCOMPARE(protocol::decodeFrame(frames[i], cmd).status, protocol::DecodeStatus::Ok);
            QString why;
            QVERIFY2(keepsPromises(*m_rules, cmd, why), qPrintable(why));
            QCOMPARE(m_rules->check(kPeer, cmd).has_value(), i == frames.size() - 1);
        }
    }

    void hostileSignatureFields()
    {
        RemotingCommand base = request(310, {{"a", "PG"}, {"b", "TopicA"}}, "body");
        const QByteArray huge(1 << 20, 'A'); // 1 MiB
        const std::vector<std::pair<QByteArray, QByteArray>> cases = {
            {kUser, huge}, // a 1 MiB signature
            {huge, "c2lnbmF0dXJl"}, // a 1 MiB access key
            {kUser, QByteArray()}, // an empty signature
            {kUser, "not base64 at all!"}, {QByteArray(), "c2lnbmF0dXJl"},
            {QByteArray("fuzzuser1\0x", 11), "c2lnbmF0dXJl"}, // an embedded NUL
        };
        for (const auto &[key, signature] : cases) {
            RemotingCommand cmd = base;
            cmd.setExt(protocol::kAclAccessKey.toByteArray(), key);
            cmd.setExt(protocol::kAclSignature.toByteArray(), signature);
            // Through the wire, as a server sees it.
            RemotingCommand decoded;
            QCOMPARE(protocol::decodeFrame(protocol::encodeFrame(cmd), decoded).status,
                protocol::DecodeStatus::Ok);
            const auto no = m_rules->check(kPeer, decoded);
            QVERIFY(no.has_value());
            QVERIFY(no->remark.size() < 4096); // the refusal does not echo the field back
            QString why;
            QVERIFY2(keepsPromises(*m_rules, decoded, why), qPrintable(why));
        }
        // A signed request with the signature duplicated: refused (which value would count?).
        RemotingCommand dup = base;
        protocol::aclSign(dup, kUser, kUserSecret);
        dup.extFields.emplace_back(protocol::kAclSignature.toByteArray(),
            dup.extString(protocol::kAclSignature).toByteArray());
        QVERIFY(m_rules->check(kPeer, dup).has_value());
    }

    void mutatedFrames()
    {
        const std::vector<QByteArray> seeds = seedFrames();
        fuzz::Mutator mutator(m_seed, kAclTokens);
        int decoded = 0;
        int accepted = 0;
        for (int i = 0; i < m_iterations; ++i) {
            const QByteArray &seed = seeds[mutator.bounded(quint32(seeds.size()))];
            const QByteArray mutant = mutator.mutate(seed, seeds);
            RemotingCommand cmd;
            if (protocol::decodeFrame(mutant, cmd).status != protocol::DecodeStatus::Ok)
                continue;
            ++decoded;
            QString why;
            if (!keepsPromises(*m_rules, cmd, why))
                QFAIL(qPrintable(QStringLiteral("mutant %1 (%2): %3")
                                     .arg(i)
                                     .arg(QString::fromLatin1(mutant.toBase64()), why)));
            accepted += !m_rules->check(kPeer, cmd).has_value();
        }
        qInfo("%d of %d mutants decoded, %d accepted", decoded, m_iterations, accepted);
        QVERIFY(decoded > m_iterations / 20); // the mutants reach the guard
    }

    void mutatedFields()
    {
        // Structured mutants (the byte mutants above mostly break the JSON header): one ext
        // value or key, the body or the code changed, a field dropped or duplicated, then
        // through the wire. Only a change to what no signature covers (the code of a non-admin
        // request) may still be accepted.
        std::vector<RemotingCommand> seeds;
        for (const QByteArray &f : seedFrames()) {
            RemotingCommand cmd;
            QCOMPARE(protocol::decodeFrame(f, cmd).status, protocol::DecodeStatus::Ok);
            seeds.push_back(std::move(cmd));
        }
        fuzz::Mutator mutator(m_seed + 2, kAclTokens);
        const std::vector<QByteArray> pool = {"TopicA", "GroupA", "fuzzuser1", "%RETRY%GroupB"};
        int accepted = 0;
        for (int i = 0; i < m_iterations; ++i) {
            RemotingCommand cmd = seeds[mutator.bounded(quint32(seeds.size()))];
            const auto n = quint32(cmd.extFields.size());
            auto &field = cmd.extFields[mutator.bounded(n)];
            switch (mutator.bounded(6)) {
            case 0:
                field.second = mutator.mutate(field.second, pool);
                break;
            case 1:
                field.first = mutator.mutate(field.first, pool);
                break;
            case 2:
                cmd.body = mutator.mutate(cmd.body, pool);
                break;
            case 3:
                cmd.extFields.erase(cmd.extFields.begin() + mutator.bounded(n));
                break;
            case 4:
                cmd.extFields.push_back(field);
                break;
            default:
                cmd.code = int(mutator.bounded(400));
                break;
            }
            RemotingCommand wire;
            if (protocol::decodeFrame(protocol::encodeFrame(cmd), wire).status
                != protocol::DecodeStatus::Ok)
                continue;
            QString why;
            if (!keepsPromises(*m_rules, wire, why))
                QFAIL(qPrintable(QStringLiteral("field mutant %1: %2").arg(i).arg(why)));
            accepted += !m_rules->check(kPeer, wire).has_value();
        }
        qInfo("%d of %d field mutants accepted", accepted, m_iterations);
    }

    void mutatedYaml()
    {
        fuzz::Mutator mutator(m_seed + 1);
        const std::vector<QByteArray> pool = {kYaml};
        const std::vector<QByteArray> frames = seedFrames();
        std::vector<RemotingCommand> requests(frames.size());
        for (std::size_t i = 0; i < frames.size(); ++i)
            QCOMPARE(
                protocol::decodeFrame(frames[i], requests[i]).status, protocol::DecodeStatus::Ok);
        int parsed = 0;
        const int rounds = std::max(200, m_iterations / 20);
        for (int i = 0; i < rounds; ++i) {
            const QByteArray text = mutator.mutate(kYaml, pool);
            auto rules = PlainAclConfig::parse(text);
            if (!rules) {
                QVERIFY(!rules.status().message().isEmpty());
                continue;
            }
            ++parsed;
            for (const RemotingCommand &r : requests)
                (void)rules->check(kPeer, r); // answers, whatever the rules now say
        }
        qInfo("%d of %d YAML mutants parsed", parsed, rounds);
    }
};

QTEST_GUILESS_MAIN(tst_FuzzAcl)
#include "tst_fuzzacl.moc"
