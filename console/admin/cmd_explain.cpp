// QRocket's explain commands: the daemons' own answers to "why" (the explain extensions,
// clientlib/protocol/bodies/explainbodies.h), one line per finding naming the setting and its
// value or the client that decides it.
//   explainGroup -g G [-t T]   why a group does not consume (each master, or -b / -c)
//   explainCleanup             why each commit-log file is kept (each master, or -b / -c)
//   explainSend -t T [-u key] [-i ip]  why sends are refused (each master, or -b / -c)
//   explainBroker -b name      why a broker is late or gone (each name server of -n)

#include "console/admin/cli.h"

#include <functional>

namespace qrocket::admincli {

namespace {

using protocol::ExplainBody;

/// The brokers asked: -b, else the masters of -c, else every master.
Result<std::vector<std::pair<QByteArray, QByteArray>>> targetBrokers(
    Context &ctx, client::Admin &admin)
{
    std::vector<std::pair<QByteArray, QByteArray>> brokers; // name, address
    if (ctx.has("b")) {
        brokers.emplace_back(ctx.bytes("b"), ctx.bytes("b"));
        return brokers;
    }
    auto info = admin.clusterInfo();
    if (!info)
        return info.error();
    for (const auto &[name, data] : info->brokerAddrTable) {
        if (ctx.has("c") && data.cluster != ctx.bytes("c"))
            continue;
        if (!data.masterAddr().isEmpty())
            brokers.emplace_back(name, data.masterAddr());
    }
    if (brokers.empty())
        return Status::notFound(
            QStringLiteral("no master broker%1")
                .arg(ctx.has("c") ? QStringLiteral(" in cluster ") + ctx.value("c") : QString()));
    return brokers;
}

/// Asks each peer with `ask`, prints every finding; the worst verdict last. A peer's error is a
/// row of its own ("error"); the command fails only when no peer answered.
Status printExplain(Context &ctx, const char *peerHeading,
    const std::vector<std::pair<QByteArray, QByteArray>> &peers,
    const std::function<Result<ExplainBody>(const QByteArray &addr)> &ask)
{
    Table table = ctx.out().table(QStringLiteral("findings"),
        "%-20s  %-8s  %-24s  %-40s  %-28s  %-32s  %-24s  %s%n",
        {{"peer", peerHeading}, {"verdict", "#Verdict"}, {"kind", "#Kind"}, {"subject", "#Subject"},
            {"setting", "#Setting"}, {"value", "#Value"}, {"client", "#Client"},
            {"reason", "#Reason"}});
    QByteArray worst = protocol::explainverdict::kOk;
    Status lastError;
    int answered = 0;
    for (const auto &[name, addr] : peers) {
        Result<ExplainBody> body = ask(addr);
        if (!body) {
            lastError = body.error();
            table.row({name, "error", "", "", "", "", "", body.error().toString()});
            continue;
        }
        ++answered;
        for (const protocol::ExplainFinding &f : body->findings)
            table.row({name, f.verdict, f.kind, f.subject, f.setting, f.value, f.client, f.reason});
        const QByteArray v = body->verdict();
        if (protocol::explainverdict::rank(v) < protocol::explainverdict::rank(worst))
            worst = v;
    }
    if (answered == 0)
        return lastError;
    ctx.out().text("%nVerdict: %s%n", {worst});
    ctx.out().value(QStringLiteral("verdict"), QString::fromUtf8(worst));
    return {};
}

Status explainOnBrokers(Context &ctx,
    const std::function<Result<ExplainBody>(client::Admin &, const QByteArray &)> &ask)
{
    if (ctx.has("b") && ctx.has("c"))
        return usageError(QStringLiteral("give at most one of -b brokerAddr and -c clusterName"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto brokers = targetBrokers(ctx, admin);
        if (!brokers)
            return brokers.error();
        return printExplain(
            ctx, "#Broker", *brokers, [&](const QByteArray &addr) { return ask(admin, addr); });
    });
}

Status explainGroup(Context &ctx)
{
    const QByteArray group = ctx.bytes("g");
    const QByteArray topic = ctx.bytes("t");
    if (group.isEmpty())
        return usageError(QStringLiteral("-g groupName is empty"));
    return explainOnBrokers(ctx, [&](client::Admin &admin, const QByteArray &addr) {
        return admin.explainGroup(addr, group, topic, ctx.timeoutMs());
    });
}

Status explainCleanup(Context &ctx)
{
    return explainOnBrokers(ctx, [&](client::Admin &admin, const QByteArray &addr) {
        return admin.explainCleanup(addr, ctx.timeoutMs());
    });
}

Status explainSend(Context &ctx)
{
    const QByteArray topic = ctx.bytes("t");
    if (topic.isEmpty())
        return usageError(QStringLiteral("-t topic is empty"));
    const QByteArray account = ctx.bytes("u");
    const QByteArray sourceIp = ctx.bytes("i");
    return explainOnBrokers(ctx, [&](client::Admin &admin, const QByteArray &addr) {
        return admin.explainSend(addr, topic, account, sourceIp, ctx.timeoutMs());
    });
}

Status explainBroker(Context &ctx)
{
    const QByteArray brokerName = ctx.bytes("b");
    if (brokerName.isEmpty())
        return usageError(QStringLiteral("-b brokerName is empty"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        std::vector<std::pair<QByteArray, QByteArray>> servers;
        for (const QByteArray &a : ctx.clientConfig().namesrvAddr.split(';')) {
            if (!a.trimmed().isEmpty())
                servers.emplace_back(a.trimmed(), a.trimmed());
        }
        return printExplain(ctx, "#NameServer", servers, [&](const QByteArray &addr) {
            return admin.explainBroker(addr, brokerName, ctx.timeoutMs());
        });
    });
}

const CommandSpec kCommands[] = {
    {"explainGroup",
        "QRocket: why a consumer group does not consume (live consumers, subscriptions, "
        "consumeEnable, queue locks, offsets, POP in flight)",
        {{'g', "groupName", true, true, "consumer group name"},
            {'t', "topic", true, false, "only this topic (default: every topic of the group)"},
            {'b', "brokerAddr", true, false, "one broker"},
            {'c', "clusterName", true, false, "the masters of one cluster (default: every one)"}},
        explainGroup},
    {"explainCleanup",
        "QRocket: why each commit-log file is kept (fileReservedTime, deleteWhen, readers, disk "
        "ratio)",
        {{'b', "brokerAddr", true, false, "one broker"},
            {'c', "clusterName", true, false, "the masters of one cluster (default: every one)"}},
        explainCleanup},
    {"explainSend",
        "QRocket: why sends to a topic are refused (permissions, ACL rule, flow-control marks "
        "and their values)",
        {{'t', "topic", true, true, "topic name"},
            {'u', "account", true, false, "the ACL access key whose rule to show"},
            {'i', "sourceIp", true, false,
                "the producer's address an ACL 2.0 user's policies are decided for"},
            {'b', "brokerAddr", true, false, "one broker"},
            {'c', "clusterName", true, false, "the masters of one cluster (default: every one)"}},
        explainSend},
    {"explainBroker",
        "QRocket: why a broker is late or gone at the name servers (registration age, removals, "
        "refused registrations)",
        {{'b', "brokerName", true, true, "broker name"}}, explainBroker},
};

} // namespace

std::span<const CommandSpec> explainCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
