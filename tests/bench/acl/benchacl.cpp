// qrocket-bench-acl: the cost of the broker's access check of one signed 1 KiB SEND_MESSAGE_V2
// (AclGuard::check: signature + permission), for a plain_acl.yml account (ACL 1.0), an ACL 2.0
// normal user whose ACL has 20 entries (a PREFIXED allow decides) and an ACL 2.0 super user,
// next to the signature alone and the HMAC-SHA1 digest from each backend (libcrypto, loaded at
// run time, and QCryptographicHash: hmacsha1.h). Rates per CPU second, best of 5 rounds. Prints
// figures, never a test.
//
//   qrocket-bench-acl [seconds-per-case, default 1]

#include "clientlib/acl/aclguard.h"
#include "clientlib/acl/plainimport.h"
#include "clientlib/protocol/aclsignature.h"
#include "clientlib/protocol/hmacsha1.h"
#include "clientlib/protocol/requestcode.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>
#include <ctime>
#include <functional>

using namespace qrocket;
using namespace qrocket::acl;
using protocol::RemotingCommand;

namespace {

volatile std::uint64_t g_sink = 0;

qint64 cpuNanos()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<qint64>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

double measure(double seconds, const std::function<void()> &op)
{
    for (int i = 0; i < 1000; ++i)
        op();
    double best = 0;
    const qint64 budget = static_cast<qint64>(seconds * 1e9 / 5);
    for (int round = 0; round < 5; ++round) {
        const qint64 start = cpuNanos();
        std::uint64_t ops = 0;
        qint64 elapsed = 0;
        do {
            for (int i = 0; i < 100; ++i)
                op();
            ops += 100;
            elapsed = cpuNanos() - start;
        } while (elapsed < budget);
        best = std::max(best, static_cast<double>(ops) * 1e9 / static_cast<double>(elapsed));
    }
    return best;
}

/// A peer at 10.1.2.3 that never sends anything.
class PeerChannel final : public remoting::Channel
{
public:
    std::uint64_t id() const override { return 1; }
    QByteArray remoteAddress() const override { return QByteArrayLiteral("10.1.2.3:40000"); }
    bool isActive() const override { return true; }
    void close() override { }
    void send(RemotingCommand) override { }
    void invokeAsync(RemotingCommand, int, remoting::InvokeCallback) override { }
    void invokeOneway(RemotingCommand) override { }
};

RemotingCommand send(const QByteArray &ak, const QByteArray &sk)
{
    RemotingCommand r = RemotingCommand::createRequest(toInt(protocol::RequestCode::SendMessageV2));
    for (const auto &[k, v] : std::initializer_list<std::pair<const char *, const char *>> {
             {"a", "please_rename_unique_group_name"}, {"b", "orders-eu-1"}, {"c", "TBW102"},
             {"d", "4"}, {"e", "3"}, {"f", "0"}, {"g", "1796013328622"}, {"h", "0"},
             {"i", "KEYS\x01OrderID188\x02TAGS\x01TagA"}, {"j", "0"}, {"k", "false"},
             {"m", "false"}})
        r.setExt(QByteArray(k), QByteArray(v));
    r.body = QByteArray(1024, 'x');
    protocol::aclSign(r, ak, sk);
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const double seconds = argc > 1 ? std::max(0.1, std::atof(argv[1])) : 1.0;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plain_acl.yml"));
    QFile f(path);
    const QByteArray yaml = "accounts:\n  - accessKey: plainuser\n    secretKey: plain-secret\n"
                            "    defaultTopicPerm: PUB\n";
    if (!f.open(QIODevice::WriteOnly) || f.write(yaml) != yaml.size())
        return 1;
    f.close();
    AclGuard guard(path);
    if (Status s = guard.start(); !s) {
        std::fprintf(stderr, "%s\n", qPrintable(s.message()));
        return 1;
    }
    auto data = std::make_shared<AuthData>();
    data->users.emplace(
        "alice", AuthUser {"alice", "alice-secret", UserType::Normal, UserStatus::Enable, false});
    data->users.emplace(
        "root", AuthUser {"root", "root-secret", UserType::Super, UserStatus::Enable, false});
    AuthAcl acl {"User:alice", {{PolicyType::Custom, {}}}};
    for (int i = 0; i < 19; ++i)
        acl.policies[0].entries.push_back({*Resource::parse("Topic:other-" + QByteArray::number(i)),
            action::Pub, {}, Decision::Allow});
    acl.policies[0].entries.push_back(
        {*Resource::parse("Topic:orders-*"), action::Pub, {}, Decision::Allow});
    data->acls.emplace(acl.subject, acl);
    guard.setClusterName("DefaultCluster");
    guard.setAuthData(data);

    const PeerChannel peer;
    const RemotingCommand v1 = send("plainuser", "plain-secret");
    const RemotingCommand v2 = send("alice", "alice-secret");
    const RemotingCommand super = send("root", "root-secret");
    if (guard.check(peer, v1) || guard.check(peer, v2) || guard.check(peer, super)) {
        std::fprintf(stderr, "a request was refused\n");
        return 1;
    }
    const double sig = measure(seconds, [&] {
        g_sink = g_sink
            + static_cast<std::uint64_t>(protocol::aclSignature("alice-secret", v2).size());
    });
    const double r1
        = measure(seconds, [&] { g_sink = g_sink + guard.check(peer, v1).has_value(); });
    const double r2
        = measure(seconds, [&] { g_sink = g_sink + guard.check(peer, v2).has_value(); });
    const double rs
        = measure(seconds, [&] { g_sink = g_sink + guard.check(peer, super).has_value(); });
    // The digest alone, each backend, over what a signed 1 KiB send feeds it.
    const auto hmacOf = [&](protocol::HmacSha1::Backend backend) {
        return measure(seconds, [&] {
            protocol::HmacSha1 mac("alice-secret", backend);
            for (const auto &field : v2.extFields)
                mac.addData(field.second);
            mac.addData(v2.body);
            g_sink = g_sink + mac.result()[0];
        });
    };
    const double hmacAuto = hmacOf(protocol::HmacSha1::Backend::Auto);
    const double hmacQt = hmacOf(protocol::HmacSha1::Backend::Qt);
    std::printf("access check of a signed 1 KiB SEND_MESSAGE_V2, per CPU second:\n");
    std::printf("  %-44s %10.0f /s  %6.2f us\n",
        qPrintable(QStringLiteral("HMAC-SHA1 only, %1 (in use)")
                       .arg(QLatin1String(protocol::HmacSha1::autoBackendName()))),
        hmacAuto, 1e6 / hmacAuto);
    std::printf("  %-44s %10.0f /s  %6.2f us\n", "HMAC-SHA1 only, QCryptographicHash (baseline)",
        hmacQt, 1e6 / hmacQt);
    std::printf(
        "  %-44s %10.0f /s  %6.2f us\n", "signature only (HMAC-SHA1 + Base64)", sig, 1e6 / sig);
    std::printf("  %-44s %10.0f /s  %6.2f us\n", "ACL 1.0 account (plain_acl.yml)", r1, 1e6 / r1);
    std::printf("  %-44s %10.0f /s  %6.2f us\n", "ACL 2.0 normal user, 20 entries", r2, 1e6 / r2);
    std::printf("  %-44s %10.0f /s  %6.2f us\n", "ACL 2.0 super user", rs, 1e6 / rs);
    guard.stop();
    return 0;
}
