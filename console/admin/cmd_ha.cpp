// qrocket-admin's replication commands, RocketMQ 5's mqadmin haStatus (GET_BROKER_HA_STATUS) and
// getBrokerEpoch (GET_BROKER_EPOCH_CACHE), printed as mqadmin prints them; haStatus -i repeats
// every -i seconds, as mqadmin's. getBrokerEpoch's -b takes a broker address
// ("ip:port") as well as mqadmin's broker name (every replica of that name).

#include "console/admin/cli.h"

namespace qrocket::admincli {

namespace {

QJsonObject connectionJson(const client::admin::HAConnectionRuntimeInfo &c)
{
    return {{QStringLiteral("addr"), QString::fromUtf8(c.addr)},
        {QStringLiteral("slaveAckOffset"), static_cast<qint64>(c.slaveAckOffset)},
        {QStringLiteral("diff"), static_cast<qint64>(c.diff)}, {QStringLiteral("inSync"), c.inSync},
        {QStringLiteral("transferredByteInSecond"), static_cast<qint64>(c.transferredByteInSecond)},
        {QStringLiteral("transferFromWhere"), static_cast<qint64>(c.transferFromWhere)}};
}

void printHaStatus(
    Context &ctx, const QByteArray &address, const client::admin::HARuntimeInfo &info)
{
    Output &out = ctx.out();
    if (info.master) {
        out.text("%n#MasterAddr\t%s%n#MasterCommitLogMaxOffset\t%d%n#SlaveNum\t%d%n"
                 "#InSyncSlaveNum\t%d%n",
            {address, info.masterCommitLogMaxOffset,
                static_cast<std::int64_t>(info.haConnectionInfo.size()), info.inSyncSlaveNums});
        out.text("%-32s  %-16s %16s %16s %16s %16s%n",
            {"#SlaveAddr", "#SlaveAckOffset", "#Diff", "#TransferSpeed(KB/s)", "#Status",
                "#TransferFromWhere"});
        QJsonArray slaves;
        for (const client::admin::HAConnectionRuntimeInfo &c : info.haConnectionInfo) {
            out.text("%-32s  %-16d %16d %16.2f %16s %16d%n",
                {c.addr, c.slaveAckOffset, c.diff,
                    static_cast<double>(c.transferredByteInSecond) / 1024.0,
                    c.inSync ? "OK" : "Fall Behind", c.transferFromWhere});
            slaves.append(connectionJson(c));
        }
        out.append(QStringLiteral("brokers"),
            QJsonObject {{QStringLiteral("brokerAddr"), QString::fromUtf8(address)},
                {QStringLiteral("master"), true},
                {QStringLiteral("masterCommitLogMaxOffset"),
                    static_cast<qint64>(info.masterCommitLogMaxOffset)},
                {QStringLiteral("inSyncSlaveNums"), info.inSyncSlaveNums},
                {QStringLiteral("haConnectionInfo"), slaves}});
        return;
    }
    const client::admin::HAClientRuntimeInfo &c = info.haClientRuntimeInfo;
    out.text("%n#MasterAddr\t%s%n",
        {c.masterAddr.isEmpty() ? QStringLiteral("null") : QString::fromUtf8(c.masterAddr)});
    out.text("#CommitLogMaxOffset\t%d%n", {c.maxOffset});
    out.text(
        "#TransferSpeed(KB/s)\t%.2f%n", {static_cast<double>(c.transferredByteInSecond) / 1024.0});
    out.text("#LastReadTime\t%s%n", {humanTime(c.lastReadTimestamp)});
    out.text("#LastWriteTime\t%s%n", {humanTime(c.lastWriteTimestamp)});
    out.text("#MasterFlushOffset\t%s%n", {c.masterFlushOffset});
    out.append(QStringLiteral("brokers"),
        QJsonObject {{QStringLiteral("brokerAddr"), QString::fromUtf8(address)},
            {QStringLiteral("master"), false},
            {QStringLiteral("masterAddr"), QString::fromUtf8(c.masterAddr)},
            {QStringLiteral("maxOffset"), static_cast<qint64>(c.maxOffset)},
            {QStringLiteral("transferredByteInSecond"),
                static_cast<qint64>(c.transferredByteInSecond)},
            {QStringLiteral("lastReadTimestamp"), static_cast<qint64>(c.lastReadTimestamp)},
            {QStringLiteral("lastWriteTimestamp"), static_cast<qint64>(c.lastWriteTimestamp)},
            {QStringLiteral("masterFlushOffset"), static_cast<qint64>(c.masterFlushOffset)}});
}

Status haStatus(Context &ctx)
{
    // mqadmin: -b one broker, else every master of cluster -c.
    auto nodes = brokersOf(ctx, false, false);
    if (!nodes)
        return nodes.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        return repeatEveryInterval(ctx, [&]() -> Status {
            for (const client::BrokerNode &n : *nodes) {
                auto info = admin.brokerHaStatus(n.address, ctx.timeoutMs());
                if (!info)
                    return info.error();
                printHaStatus(ctx, n.address, *info);
            }
            return {};
        });
    });
}

/// The replicas getBrokerEpoch asks: -b an address, or every replica of broker name -b, or
/// every broker of cluster -c (mqadmin's fetchMasterAndSlaveAddrBy*).
Result<std::vector<QByteArray>> epochTargets(Context &ctx)
{
    const QByteArray b = ctx.bytes("b");
    if (b.contains(':'))
        return std::vector<QByteArray> {b};
    if (b.isEmpty() && !ctx.has("c"))
        return usageError(QStringLiteral("give a broker (-b) or a cluster (-c)"));
    return ctx.withAdmin([&](client::Admin &admin) -> Result<std::vector<QByteArray>> {
        auto overview = admin.clusterOverview(false, ctx.timeoutMs());
        if (!overview)
            return overview.error();
        const QByteArray cluster = ctx.bytes("c");
        std::vector<QByteArray> out;
        for (const client::BrokerNode &n : overview->nodes)
            if (b.isEmpty() ? n.cluster == cluster : n.brokerName == b)
                out.push_back(n.address);
        if (out.empty())
            return Status::notFound(b.isEmpty()
                    ? QStringLiteral("cluster %1 has no broker").arg(QString::fromUtf8(cluster))
                    : QStringLiteral("broker %1 is not registered").arg(QString::fromUtf8(b)));
        return out;
    });
}

Status getBrokerEpoch(Context &ctx)
{
    auto targets = epochTargets(ctx);
    if (!targets)
        return targets.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        for (const QByteArray &address : *targets) {
            auto cache = admin.brokerEpochCache(address, ctx.timeoutMs());
            if (!cache)
                return cache.error();
            ctx.out().text("%n#clusterName\t%s%n#brokerName\t%s%n#brokerAddr\t%s%n#brokerId\t%d",
                {cache->clusterName, cache->brokerName, address, cache->brokerId});
            QJsonArray epochs;
            for (std::size_t i = 0; i < cache->epochList.size(); ++i) {
                client::admin::EpochEntryInfo e = cache->epochList[i];
                if (i + 1 == cache->epochList.size())
                    e.endOffset = cache->maxOffset; // as mqadmin prints the open epoch
                ctx.out().text("%n#Epoch: %s", {e.toString()});
                epochs.append(QJsonObject {{QStringLiteral("epoch"), e.epoch},
                    {QStringLiteral("startOffset"), static_cast<qint64>(e.startOffset)},
                    {QStringLiteral("endOffset"), static_cast<qint64>(e.endOffset)}});
            }
            ctx.out().text("%n");
            ctx.out().append(QStringLiteral("brokers"),
                QJsonObject {{QStringLiteral("clusterName"), QString::fromUtf8(cache->clusterName)},
                    {QStringLiteral("brokerName"), QString::fromUtf8(cache->brokerName)},
                    {QStringLiteral("brokerAddr"), QString::fromUtf8(address)},
                    {QStringLiteral("brokerId"), static_cast<qint64>(cache->brokerId)},
                    {QStringLiteral("maxOffset"), static_cast<qint64>(cache->maxOffset)},
                    {QStringLiteral("epochList"), epochs}});
        }
        return {};
    });
}

const CommandSpec kCommands[] = {
    {"haStatus", "Fetch ha runtime status data.",
        {{'c', "clusterName", true, false, "which cluster"},
            {'b', "brokerAddr", true, false, "which broker to fetch"},
            {'i', "interval", true, false, "the interval in seconds to fetch again"}},
        haStatus},
    {"getBrokerEpoch", "Fetch broker epoch entries.",
        {{'c', "clusterName", true, false, "which cluster"},
            {'b', "brokerName", true, false,
                "which broker to fetch (a broker name, or QRocket: one address ip:port)"}},
        getBrokerEpoch},
};

} // namespace

std::span<const CommandSpec> haCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
