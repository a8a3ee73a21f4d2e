// qrocket-admin's configuration commands: getBrokerConfig, updateBrokerConfig, getNamesrvConfig,
// updateNamesrvConfig, updateKvConfig and deleteKvConfig.

#include "console/admin/cli.h"

namespace qrocket::admincli {

namespace {

void printProperties(Context &ctx, const QString &heading, const QByteArray &addr,
    const client::admin::ConfigProperties &config)
{
    ctx.out().raw(heading);
    QJsonObject o;
    for (const auto &[k, v] : config.entries) {
        ctx.out().text("%-50s=  %s\n", {k, v});
        o.insert(k, v);
    }
    ctx.out().append(QStringLiteral("configs"),
        QJsonObject {
            {QStringLiteral("address"), QString::fromUtf8(addr)}, {QStringLiteral("config"), o}});
}

Status getBrokerConfig(Context &ctx, client::Admin &admin)
{
    if (ctx.has("b")) {
        auto config = admin.brokerConfig(ctx.bytes("b"));
        if (!config)
            return config.error();
        printProperties(ctx, QStringLiteral("============%1============\n").arg(ctx.value("b")),
            ctx.bytes("b"), *config);
        ctx.out().text("%n");
        return {};
    }
    auto nodes = brokersOf(ctx, true, false);
    if (!nodes)
        return nodes.error();
    QByteArray master;
    for (const client::BrokerNode &n : *nodes) {
        auto config = admin.brokerConfig(n.address);
        if (!config)
            return config.error();
        if (n.brokerId == 0)
            master = n.address;
        const QString heading = n.brokerId == 0
            ? QStringLiteral("============Master: %1============\n")
                  .arg(QString::fromUtf8(n.address))
            : QStringLiteral("============My Master: %1=====Slave: %2============\n")
                  .arg(QString::fromUtf8(master), QString::fromUtf8(n.address));
        printProperties(ctx, heading, n.address, *config);
        ctx.out().text("%n");
    }
    return {};
}

Status updateBrokerConfig(Context &ctx)
{
    if (!ctx.has("b") && !ctx.has("c"))
        return usageError(QStringLiteral("give a broker (-b) or a cluster (-c)"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        client::BrokerTarget target;
        if (ctx.has("b"))
            target.brokerAddr = ctx.bytes("b");
        else
            target.cluster = ctx.bytes("c");
        auto r = admin.updateBrokerConfig(target, {{ctx.value("k"), ctx.value("v")}});
        if (!r)
            return r.error();
        return reportFanOut(ctx, *r, "update broker config success, %s\n");
    });
}

std::vector<QByteArray> givenNameServers(Context &ctx)
{
    std::vector<QByteArray> servers;
    for (const QByteArray &s : ctx.clientConfig().namesrvAddr.split(';')) {
        if (!s.trimmed().isEmpty())
            servers.push_back(s.trimmed());
    }
    return servers;
}

Status getNamesrvConfig(Context &ctx, client::Admin &admin)
{
    auto configs = admin.nameServerConfig(givenNameServers(ctx));
    if (!configs)
        return configs.error();
    for (const auto &[addr, config] : *configs)
        printProperties(ctx,
            QStringLiteral("============%1============\n").arg(QString::fromUtf8(addr)), addr,
            config);
    return {};
}

Status updateNamesrvConfig(Context &ctx, client::Admin &admin)
{
    const std::vector<QByteArray> servers = givenNameServers(ctx);
    auto r = admin.updateNameServerConfig({{ctx.value("k"), ctx.value("v")}}, servers);
    if (!r)
        return r.error();
    if (Status s = reportFanOut(ctx, *r, ""); !s)
        return s;
    QStringList list;
    for (const QByteArray &s : servers)
        list << QString::fromUtf8(s);
    ctx.out().text("update name server config success!%s\n%s : %s\n",
        {QStringLiteral("[%1]").arg(list.join(QStringLiteral(", "))), ctx.value("k"),
            ctx.value("v")});
    return {};
}

Status updateKvConfig(Context &ctx, client::Admin &admin)
{
    if (Status s = admin.putKvConfig(ctx.bytes("s"), ctx.bytes("k"), ctx.bytes("v")); !s)
        return s;
    ctx.out().text("create or update kv config to namespace success.%n");
    ctx.out().value(QStringLiteral("status"), QStringLiteral("OK"));
    return {};
}

Status deleteKvConfig(Context &ctx, client::Admin &admin)
{
    if (Status s = admin.deleteKvConfig(ctx.bytes("s"), ctx.bytes("k")); !s)
        return s;
    ctx.out().text("delete kv config from namespace success.%n");
    ctx.out().value(QStringLiteral("status"), QStringLiteral("OK"));
    return {};
}

const CommandSpec kCommands[] = {
    {"getBrokerConfig", "Get broker config by cluster or special broker!",
        {{'b', "brokerAddr", true, false, "get which broker"},
            {'c', "clusterName", true, false, "get which cluster"}},
        withAdmin<getBrokerConfig>},
    {"updateBrokerConfig", "Update broker's config",
        {{'b', "brokerAddr", true, false, "update which broker"},
            {'c', "clusterName", true, false, "update which cluster"},
            {'k', "key", true, true, "config key"}, {'v', "value", true, true, "config value"}},
        updateBrokerConfig},
    {"getNamesrvConfig", "Get configs of name server.", {}, withAdmin<getNamesrvConfig>},
    {"updateNamesrvConfig", "Update configs of name server.",
        {{'k', "key", true, true, "config key"}, {'v', "value", true, true, "config value"}},
        withAdmin<updateNamesrvConfig>},
    {"updateKvConfig", "Create or update KV config.",
        {{'s', "namespace", true, true, "set the namespace"},
            {'k', "key", true, true, "set the key name"},
            {'v', "value", true, true, "set the key value"}},
        withAdmin<updateKvConfig>},
    {"deleteKvConfig", "Delete KV config.",
        {{'s', "namespace", true, true, "set the namespace"},
            {'k', "key", true, true, "set the key name"}},
        withAdmin<deleteKvConfig>},
};

} // namespace

std::span<const CommandSpec> configCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
