// qrocket-admin's cluster and broker commands: clusterList, brokerStatus, brokerConsumeStats and
// QRocket's storeFiles and namesrvStatus.

#include "console/admin/cli.h"

#include <QDateTime>

namespace qrocket::admincli {

namespace {

const char *kBrokerAddr = "Broker address";

Status printClusterBase(Context &ctx, client::Admin &admin)
{
    auto overview = admin.clusterOverview(true);
    if (!overview)
        return overview.error();
    Table t = ctx.out().table(QStringLiteral("brokers"),
        "%-16s  %-22s  %-4s  %-22s %-16s %19s %19s %10s %5s %6s%n",
        {{"cluster", "#Cluster Name"}, {"brokerName", "#Broker Name"}, {"brokerId", "#BID"},
            {"address", "#Addr"}, {"version", "#Version"}, {"inTps", "#InTPS(LOAD)"},
            {"outTps", "#OutTPS(LOAD)"}, {"pageCacheLockTimeMills", "#PCWait(ms)"},
            {"hours", "#Hour"}, {"commitLogDiskRatio", "#SPACE"}});
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    for (const client::BrokerNode &n : overview->nodes) {
        const client::admin::BrokerRuntimeInfo &rt = n.runtimeInfo;
        const double in = rt.number("putTps");
        const double out = rt.number("getTransferedTps");
        // As mqadmin: any value counts, so a broker with no message ("0") shows its age since 1970.
        const double hours = rt.value("earliestMessageTimeStamp").isEmpty()
            ? 0.0
            : static_cast<double>(now - rt.integer("earliestMessageTimeStamp")) / 1000.0 / 3600.0;
        const double space = rt.number("commitLogDiskRatio");
        auto load = [&](double tps, const char *queue, const char *wait) {
            return Cell(QStringLiteral("%1(%2,%3ms)")
                            .arg(formatJava("%9.2f", {tps}), QString::fromUtf8(rt.value(queue)),
                                QString::fromUtf8(rt.value(wait))),
                tps);
        };
        t.row({n.cluster, n.brokerName, n.brokerId, n.address, rt.versionDesc(),
            load(in, "sendThreadPoolQueueSize", "sendThreadPoolQueueHeadWaitTimeMills"),
            load(out, "pullThreadPoolQueueSize", "pullThreadPoolQueueHeadWaitTimeMills"),
            Cell(QString::fromUtf8(rt.value("pageCacheLockTimeMills")),
                static_cast<qint64>(rt.integer("pageCacheLockTimeMills"))),
            Cell(formatJava("%2.2f", {hours}), hours), Cell(formatJava("%.4f", {space}), space)});
        if (!n.runtimeStatus)
            return n.runtimeStatus;
    }
    return {};
}

Status printClusterMore(Context &ctx, client::Admin &admin)
{
    auto overview = admin.clusterOverview(true);
    if (!overview)
        return overview.error();
    Table t = ctx.out().table(QStringLiteral("brokers"), "%-16s  %-32s %14s %14s %14s %14s%n",
        {{"cluster", "#Cluster Name"}, {"brokerName", "#Broker Name"},
            {"inTotalYest", "#InTotalYest"}, {"outTotalYest", "#OutTotalYest"},
            {"inTotalToday", "#InTotalToday"}, {"outTotalToday", "#OutTotalToday"}});
    for (const client::BrokerNode &n : overview->nodes) {
        const client::admin::BrokerRuntimeInfo &rt = n.runtimeInfo;
        auto diff = [&](const char *later, const char *earlier) {
            return rt.integer(later) - rt.integer(earlier);
        };
        t.row({n.cluster, n.brokerName,
            diff("msgPutTotalTodayMorning", "msgPutTotalYesterdayMorning"),
            diff("msgGetTotalTodayMorning", "msgGetTotalYesterdayMorning"),
            diff("msgPutTotalTodayNow", "msgPutTotalTodayMorning"),
            diff("msgGetTotalTodayNow", "msgGetTotalTodayMorning")});
        if (!n.runtimeStatus)
            return n.runtimeStatus;
    }
    return {};
}

Status clusterList(Context &ctx)
{
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        return repeatEveryInterval(ctx, [&] {
            return ctx.has("m") ? printClusterMore(ctx, admin) : printClusterBase(ctx, admin);
        });
    });
}

void printRuntime(Context &ctx, const QByteArray &addr,
    const client::admin::BrokerRuntimeInfo &info, bool withAddr)
{
    if (ctx.out().isJson()) {
        QJsonObject o;
        for (const auto &[k, v] : info.table)
            o.insert(QString::fromUtf8(k), QString::fromUtf8(v));
        ctx.out().append(QStringLiteral("brokers"),
            QJsonObject {{QStringLiteral("address"), QString::fromUtf8(addr)},
                {QStringLiteral("runtimeInfo"), o}});
        return;
    }
    for (const auto &[k, v] : info.table) {
        if (withAddr)
            ctx.out().text("%-24s %-32s: %s%n", {addr, k, v});
        else
            ctx.out().text("%-32s: %s%n", {k, v});
    }
}

Status brokerStatus(Context &ctx)
{
    auto nodes = brokersOf(ctx, true, false);
    if (!nodes)
        return nodes.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        Status first;
        for (const client::BrokerNode &n : *nodes) {
            auto info = admin.brokerRuntimeInfo(n.address);
            if (!info) {
                if (first)
                    first = info.error();
                continue;
            }
            printRuntime(ctx, n.address, *info, !ctx.has("b"));
        }
        return first;
    });
}

Status namesrvStatus(Context &ctx)
{
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto info = admin.namesrvRuntimeInfo({});
        if (!info)
            return info.error();
        printRuntime(ctx, {}, *info, false);
        return {};
    });
}

Status brokerConsumeStats(Context &ctx)
{
    auto timeout = ctx.integer("t", ctx.timeoutMs());
    auto level = ctx.integer("l", 0);
    auto order = ctx.boolean("o", false);
    for (const Status &s : {timeout.status(), level.status(), order.status()}) {
        if (!s)
            return s;
    }
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto list = admin.brokerConsumeStats(ctx.bytes("b"), *order, static_cast<int>(*timeout));
        if (!list)
            return list.error();
        Table t = ctx.out().table(QStringLiteral("queues"),
            "%-64s  %-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s%n",
            {{"topic", "#Topic"}, {"group", "#Group"}, {"brokerName", "#Broker Name"},
                {"queueId", "#QID"}, {"brokerOffset", "#Broker Offset"},
                {"consumerOffset", "#Consumer Offset"}, {"diff", "#Diff"},
                {"lastTime", "#LastTime"}});
        for (const auto &[group, statsList] : list->groups) {
            for (const client::admin::ConsumeStats &stats : statsList) {
                for (const auto &[mq, w] : stats.offsetTable) {
                    const std::int64_t diff = w.brokerOffset - w.consumerOffset;
                    // mqadmin prints only queues below the level threshold that have a last time.
                    if (diff < *level || w.lastTimestamp <= 0)
                        continue;
                    t.row({mq.topic, group, mq.brokerName, mq.queueId, w.brokerOffset,
                        w.consumerOffset, diff, dateTime(w.lastTimestamp)});
                }
            }
        }
        ctx.out().text("%nDiff Total: %d%n", {list->totalDiff});
        ctx.out().value(QStringLiteral("diffTotal"), static_cast<qint64>(list->totalDiff));
        return {};
    });
}

Status storeFiles(Context &ctx)
{
    auto nodes = brokersOf(ctx, true, true);
    if (!nodes)
        return nodes.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        // Every broker first, so that a stock broker's refusal prints no heading.
        std::vector<std::pair<QByteArray, client::admin::StoreFiles>> all;
        for (const client::BrokerNode &n : *nodes) {
            auto files = admin.storeFiles(n.address);
            if (!files)
                return files.error();
            all.emplace_back(n.address, std::move(files).value());
        }
        Table t
            = ctx.out().table(QStringLiteral("files"), "%-22s  %-48s %14s  %-23s %10s  %-23s  %s%n",
                {{"broker", "#Broker"}, {"file", "#File"}, {"size", "#Size"},
                    {"lastModified", "#Last Modified"}, {"ageHours", "#Age(h)"},
                    {"expiresAt", "#Expires"}, {"reasonKept", "#Kept Because"}});
        for (const auto &[address, files] : all) {
            for (const client::admin::StoreFile &f : files.files) {
                const double ageHours = static_cast<double>(f.ageMillis) / 3600000.0;
                t.row({address, f.path, f.size, humanTime(f.lastModified),
                    Cell(formatJava("%.2f", {ageHours}), ageHours),
                    f.expiresAt > 0 ? Cell(humanTime(f.expiresAt), static_cast<qint64>(f.expiresAt))
                                    : Cell("-"),
                    f.reasonKept});
            }
        }
        for (const auto &[address, files] : all) {
            ctx.out().text(
                "%-22s  commitLog offsets %d..%d, disk %s used%s, fileReservedTime %dh%s%n",
                {address, files.commitLogMinOffset, files.commitLogMaxOffset,
                    files.diskRatio < 0 ? QStringLiteral("?")
                                        : formatJava("%.1f%%", {files.diskRatio * 100}),
                    files.diskFull ? QStringLiteral(" (FULL)") : QString(),
                    files.fileReservedTimeHours,
                    files.refuseReason.isEmpty() ? QString()
                                                 : QStringLiteral(", refusing writes: ")
                            + QString::fromUtf8(files.refuseReason)});
            ctx.out().append(QStringLiteral("brokers"),
                QJsonObject {{QStringLiteral("address"), QString::fromUtf8(address)},
                    {QStringLiteral("commitLogMinOffset"),
                        static_cast<qint64>(files.commitLogMinOffset)},
                    {QStringLiteral("commitLogMaxOffset"),
                        static_cast<qint64>(files.commitLogMaxOffset)},
                    {QStringLiteral("diskRatio"), files.diskRatio},
                    {QStringLiteral("diskFull"), files.diskFull},
                    {QStringLiteral("fileReservedTimeHours"), files.fileReservedTimeHours},
                    {QStringLiteral("refuseReason"), QString::fromUtf8(files.refuseReason)}});
        }
        return {};
    });
}

const CommandSpec kCommands[] = {
    {"clusterList", "List all of clusters",
        {{'m', "moreStats", false, false, "Print more stats"},
            {'i', "interval", true, false, "specify intervals numbers, it is in seconds"}},
        clusterList},
    {"brokerStatus", "Fetch broker runtime status data",
        {{'b', "brokerAddr", true, false, kBrokerAddr},
            {'c', "clusterName", true, false, "which cluster"}},
        brokerStatus},
    {"namesrvStatus",
        "QRocket: the name server's runtime data (RSS, topics, live brokers, registrations)", {},
        namesrvStatus},
    {"brokerConsumeStats", "Fetch broker consume stats data",
        {{'b', "brokerAddr", true, true, kBrokerAddr},
            {'t', "timeoutMillis", true, false, "request timeout Millis"},
            {'l', "level", true, false, "threshold of print diff"},
            {'o', "order", true, false, "order topic"}},
        brokerConsumeStats},
    {"storeFiles",
        "QRocket: a broker's commit-log files with size, age, expiry and why each is kept",
        {{'b', "brokerAddr", true, false, kBrokerAddr},
            {'c', "clusterName", true, false, "every broker of this cluster (default: all)"}},
        storeFiles},
};

} // namespace

std::span<const CommandSpec> clusterCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
