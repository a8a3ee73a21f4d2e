// qrocket-admin's operations commands: offsets (resetOffsetByTime, skipAccumulatedMessage,
// cloneGroupOffset), broker write permission (wipeWritePerm, addWritePerm), store maintenance
// (deleteExpiredCommitLog, cleanExpiredCQ, cleanUnusedTopic) and statsAll.

#include "clientlib/protocol/systemtopics.h"
#include "console/admin/cli.h"

namespace qrocket::admincli {

/// MQVersion.getVersionDesc: the name of a version ordinal ("V4_9_7" for 407).
QString versionDesc(int ordinal)
{
    // From V4_0_0_SNAPSHOT (212) to V5_9_9 (611) the enum is SNAPSHOT/release pairs.
    constexpr int kV4First = 212;
    constexpr int kHigher = 612;
    if (ordinal >= kHigher)
        return QStringLiteral("HIGHER_VERSION");
    if (ordinal < kV4First)
        return QStringLiteral("V3_OR_OLDER(%1)").arg(ordinal);
    const int k = ordinal - kV4First;
    const int index = k / 2;
    return QStringLiteral("V%1_%2_%3%4")
        .arg(4 + index / 100)
        .arg((index / 10) % 10)
        .arg(index % 10)
        .arg(k % 2 == 0 ? QStringLiteral("_SNAPSHOT") : QString());
}

namespace {

void printOffsets(Context &ctx, const std::map<client::admin::MessageQueue, std::int64_t> &offsets)
{
    Table t = ctx.out().table(QStringLiteral("offsets"), "%-40s  %-40d  %-40d%n",
        {{"brokerName", "#brokerName"}, {"queueId", "#queueId"}, {"offset", "#offset"}},
        "%-40s  %-40s  %-40s%n");
    for (const auto &[mq, offset] : offsets)
        t.row({front(QString::fromUtf8(mq.brokerName), 32), mq.queueId, offset});
}

/// The group has no consumer online: commit the offsets directly (mqadmin's
/// resetOffsetByTimestampOld), printing its rollback table.
Status resetOffline(Context &ctx, client::Admin &admin, const QByteArray &topic,
    const QByteArray &group, std::int64_t timestamp, bool force)
{
    auto preview = admin.previewResetOffset(topic, group, timestamp, force);
    if (!preview)
        return preview.error();
    auto stats = admin.topicStats(topic);
    if (!stats)
        return stats.error();
    auto done = admin.resetOffsetByTimeOffline(topic, group, timestamp, force);
    if (!done)
        return done.error();
    Table t
        = ctx.out().table(QStringLiteral("rollback"), "%-20s  %-20d  %-20d  %-20d  %-20d  %-20d%n",
            {{"brokerName", "#brokerName"}, {"queueId", "#queueId"},
                {"brokerOffset", "#brokerOffset"}, {"consumerOffset", "#consumerOffset"},
                {"timestampOffset", "#timestampOffset"}, {"rollbackOffset", "#rollbackOffset"}},
            "%-20s  %-20s  %-20s  %-20s  %-20s  %-20s%n");
    for (const client::ResetOffsetPreview &p : *preview) {
        const auto it = stats->offsetTable.find(p.queue);
        t.row({front(QString::fromUtf8(p.queue.brokerName), 32), p.queue.queueId,
            it == stats->offsetTable.end() ? std::int64_t(0) : it->second.maxOffset,
            p.consumerOffset, p.timestampOffset, p.targetOffset});
    }
    return {};
}

Status resetTo(Context &ctx, std::int64_t timestamp, const QString &timestampText, bool printHeader)
{
    auto force = ctx.boolean("f", true);
    if (!force)
        return force.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        const QByteArray group = ctx.bytes("g");
        const QByteArray topic = ctx.bytes("t");
        auto offsets = admin.resetOffsetByTime(topic, group, timestamp, *force);
        if (!offsets && offsets.error().remoteCode() == 206) { // CONSUMER_NOT_ONLINE
            if (printHeader)
                ctx.out().text(
                    "rollback consumer offset by specified consumerGroup[%s], topic[%s], "
                    "force[%s], timestamp(string)[%s], timestamp(long)[%s]%n",
                    {group, topic, *force, timestampText, timestamp});
            return resetOffline(ctx, admin, topic, group, timestamp, *force);
        }
        if (!offsets)
            return offsets.error();
        if (printHeader)
            ctx.out().text("rollback consumer offset by specified group[%s], topic[%s], force[%s], "
                           "timestamp(string)[%s], timestamp(long)[%s]%n",
                {group, topic, *force, timestampText, timestamp});
        printOffsets(ctx, *offsets);
        return {};
    });
}

Status resetOffsetByTime(Context &ctx)
{
    if (ctx.has("c"))
        return Status::notSupported(
            QStringLiteral("-c (reset a C++ client's offsets) is not supported by qrocket-admin"));
    const QString text = ctx.value("s");
    // As mqadmin: "now" is the end of each queue (-1), not the current time.
    auto timestamp
        = text == QLatin1String("now") ? Result<std::int64_t>(-1) : ctx.timestamp("s", 0);
    if (!timestamp)
        return timestamp.error();
    return resetTo(ctx, *timestamp, text, true);
}

Status skipAccumulatedMessage(Context &ctx)
{
    return resetTo(ctx, -1, QStringLiteral("-1"), false);
}

Status cloneGroupOffset(Context &ctx)
{
    auto offline = ctx.boolean("o", false);
    if (!offline)
        return offline.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto r = admin.cloneGroupOffset(ctx.bytes("s"), ctx.bytes("d"), ctx.bytes("t"), *offline);
        if (!r)
            return r.error();
        if (Status s = reportFanOut(ctx, *r, ""); !s)
            return s;
        ctx.out().text("clone group offset success. srcGroup[%s], destGroup=[%s], topic[%s]%n",
            {ctx.value("s"), ctx.value("d"), ctx.value("t")});
        return {};
    });
}

Status writePerm(Context &ctx, bool add)
{
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        const QByteArray broker = ctx.bytes("b");
        auto r = add ? admin.addWritePerm(broker) : admin.wipeWritePerm(broker);
        if (!r)
            return r.error();
        const char *verb = add ? "add" : "wipe";
        for (const client::BrokerOutcome &o : r->outcomes) {
            if (o.status)
                ctx.out().text("%s write perm of broker[%s] in name server[%s] OK, %d%n",
                    {verb, broker, o.address, o.topicCount});
            else
                ctx.out().text("%s write perm of broker[%s] in name server[%s] Failed%n",
                    {verb, broker, o.address});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("nameServer"), QString::fromUtf8(o.address)},
                    {QStringLiteral("status"),
                        o.status ? QStringLiteral("OK") : describe(o.status)},
                    {QStringLiteral("topicCount"), o.topicCount}});
        }
        return r->status();
    });
}

Status wipeWritePerm(Context &ctx)
{
    return writePerm(ctx, false);
}

Status addWritePerm(Context &ctx)
{
    return writePerm(ctx, true);
}

using Maintenance
    = Result<client::FanOutResult> (client::Admin::*)(const client::BrokerTarget &, int);

Status maintenance(Context &ctx, Maintenance call)
{
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        client::BrokerTarget target;
        target.brokerAddr = ctx.bytes("b");
        target.cluster = ctx.bytes("c");
        auto r = ((admin).*call)(target, client::Admin::kDefaultTimeout);
        if (!r)
            return r.error();
        Status s = reportFanOut(ctx, *r, "");
        // mqadmin prints "success" or "false" (without a newline); one line here.
        ctx.out().text("%s%n", {s ? "success" : "false"});
        return s;
    });
}

Status deleteExpiredCommitLog(Context &ctx)
{
    return maintenance(ctx, &client::Admin::deleteExpiredCommitLog);
}

Status cleanExpiredCQ(Context &ctx)
{
    return maintenance(ctx, &client::Admin::cleanExpiredConsumeQueue);
}

Status cleanUnusedTopic(Context &ctx)
{
    return maintenance(ctx, &client::Admin::cleanUnusedTopic);
}

/// StatsAllSubCommand.compute24HourSum.
std::int64_t daySum(const client::admin::BrokerStatsData &d)
{
    for (std::int64_t sum : {d.statsDay.sum, d.statsHour.sum, d.statsMinute.sum}) {
        if (sum != 0)
            return sum;
    }
    return 0;
}

void statsOfTopic(client::Admin &admin, Table &t, const QByteArray &topic, bool activeOnly)
{
    // As mqadmin: stats a broker cannot give count as zero.
    auto route = admin.topicRoute(topic);
    if (!route)
        return;
    auto groups = admin.topicConsumedBy(topic);
    double inTps = 0;
    std::int64_t inToday = 0;
    for (const protocol::BrokerData &b : route->brokerDatas) {
        if (b.masterAddr().isEmpty())
            continue;
        if (auto d = admin.brokerStatsData(b.masterAddr(), "TOPIC_PUT_NUMS", topic)) {
            inTps += d->statsMinute.tps;
            inToday += daySum(*d);
        }
    }
    if (!groups || groups->empty()) {
        if (!activeOnly || inToday > 0)
            t.row({front(QString::fromUtf8(topic), 64), "", std::int64_t(0), inTps,
                Cell(QString(), QJsonValue()), inToday, "NO_CONSUMER"});
        return;
    }
    for (const QByteArray &group : *groups) {
        double outTps = 0;
        std::int64_t outToday = 0;
        for (const protocol::BrokerData &b : route->brokerDatas) {
            if (b.masterAddr().isEmpty())
                continue;
            if (auto d
                = admin.brokerStatsData(b.masterAddr(), "GROUP_GET_NUMS", topic + '@' + group)) {
                outTps += d->statsMinute.tps;
                outToday += daySum(*d);
            }
        }
        std::int64_t accumulate = 0;
        if (auto stats = admin.consumeStats(group, topic))
            accumulate = std::max<std::int64_t>(stats->totalLag(), 0);
        if (!activeOnly || inToday > 0 || outToday > 0)
            t.row({front(QString::fromUtf8(topic), 64), front(QString::fromUtf8(group), 64),
                accumulate, inTps, outTps, inToday, outToday});
    }
}

Status statsAll(Context &ctx, client::Admin &admin)
{
    auto topics = admin.topicList();
    if (!topics)
        return topics.error();
    if (ctx.has("t") && std::find(topics->begin(), topics->end(), ctx.bytes("t")) == topics->end())
        return Status::notFound(QStringLiteral("topic %1 does not exist").arg(ctx.value("t")));
    Table t
        = ctx.out().table(QStringLiteral("stats"), "%-64s  %-64s %12d %11.2f %11.2f %14d %14d%n",
            {{"topic", "#Topic"}, {"group", "#Consumer Group"}, {"accumulation", "#Accumulation"},
                {"inTps", "#InTPS"}, {"outTps", "#OutTPS"}, {"inMsg24Hour", "#InMsg24Hour"},
                {"outMsg24Hour", "#OutMsg24Hour"}},
            "%-64s  %-64s %12s %11s %11s %14s %14s%n");
    for (const QByteArray &topic : *topics) {
        if (topic.startsWith(protocol::topics::kRetryPrefix)
            || topic.startsWith(protocol::topics::kDlqPrefix))
            continue;
        if (ctx.has("t") && topic != ctx.bytes("t"))
            continue;
        statsOfTopic(admin, t, topic, ctx.has("a"));
    }
    return {};
}

const char *kGroupText = "set the consumer group";
const char *kTopicText = "set the topic";
const char *kForceText = "set the force rollback by timestamp switch[true|false]";

const CommandSpec kCommands[] = {
    {"resetOffsetByTime", "Reset consumer offset by timestamp(without client restart).",
        {{'g', "group", true, true, kGroupText}, {'t', "topic", true, true, kTopicText},
            {'s', "timestamp", true, true,
                "set the timestamp[now|currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'f', "force", true, false, kForceText},
            {'c', "cplus", false, false, "reset c++ client offset (not supported)"}},
        resetOffsetByTime},
    {"skipAccumulatedMessage", "Skip all messages that are accumulated (not consumed) currently",
        {{'g', "group", true, true, kGroupText}, {'t', "topic", true, true, kTopicText},
            {'f', "force", true, false, kForceText}},
        skipAccumulatedMessage},
    {"cloneGroupOffset", "clone offset from other group.",
        {{'s', "srcGroup", true, true, "set source consumer group"},
            {'d', "destGroup", true, true, "set destination consumer group"},
            {'t', "topic", true, true, "set the topic"},
            {'o', "offline", true, false, "the group or the topic is offline"}},
        cloneGroupOffset},
    {"wipeWritePerm", "Wipe write perm of broker in all name server you defined in the -n param",
        {{'b', "brokerName", true, true, "broker name"}}, wipeWritePerm},
    {"addWritePerm", "Add write perm of broker in all name server you defined in the -n param",
        {{'b', "brokerName", true, true, "broker name"}}, addWritePerm},
    {"deleteExpiredCommitLog", "Delete expired CommitLog files",
        {{'b', "brokerAddr", true, false, "Broker address"},
            {'c', "cluster", true, false, "clustername"}},
        deleteExpiredCommitLog},
    {"cleanExpiredCQ", "Clean expired ConsumeQueue on broker.",
        {{'b', "brokerAddr", true, false, "Broker address"},
            {'c', "cluster", true, false, "clustername"}},
        cleanExpiredCQ},
    {"cleanUnusedTopic", "Clean unused topic on broker.",
        {{'b', "brokerAddr", true, false, "Broker address"},
            {'c', "cluster", true, false, "cluster name"}},
        cleanUnusedTopic},
    {"statsAll", "Topic and Consumer tps stats",
        {{'a', "activeTopic", false, false, "print active topic only"},
            {'t', "topic", true, false, "print select topic only"}},
        withAdmin<statsAll>},
};

} // namespace

std::span<const CommandSpec> opsCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
