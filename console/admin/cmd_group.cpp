// qrocket-admin's consumer and producer group commands: updateSubGroup, deleteSubGroup,
// consumerProgress, consumerConnection, producerConnection, consumerStatus and getConsumerConfig.

#include "clientlib/protocol/systemtopics.h"
#include "console/admin/cli.h"

#include <limits>
#include <set>

namespace qrocket::admincli {

QString versionDesc(int ordinal); // cmd_ops.cpp

namespace {

using client::admin::ConsumerRunningInfo;
using client::admin::SubscriptionGroupConfig;

const char *kGroupName = "consumer group name";

QString groupConfigText(const SubscriptionGroupConfig &c)
{
    auto b = [](bool v) { return v ? QStringLiteral("true") : QStringLiteral("false"); };
    QString text
        = QStringLiteral("SubscriptionGroupConfig [groupName=%1, consumeEnable=%2, "
                         "consumeFromMinEnable=%3, consumeBroadcastEnable=%4, retryQueueNums=%5, "
                         "retryMaxTimes=%6, brokerId=%7, whichBrokerWhenConsumeSlowly=%8, "
                         "notifyConsumerIdsChangedEnable=%9]")
              .arg(QString::fromUtf8(c.groupName), b(c.consumeEnable), b(c.consumeFromMinEnable),
                  b(c.consumeBroadcastEnable))
              .arg(c.retryQueueNums)
              .arg(c.retryMaxTimes)
              .arg(c.brokerId)
              .arg(c.whichBrokerWhenConsumeSlowly)
              .arg(b(c.notifyConsumerIdsChangedEnable));
    // RocketMQ 5's field, only when set: a group without it prints as 4.9's mqadmin does.
    if (c.consumeMessageOrderly)
        text.insert(text.size() - 1, QStringLiteral(", consumeMessageOrderly=true"));
    return text;
}

Status updateSubGroup(Context &ctx)
{
    if (ctx.has("b") == ctx.has("c"))
        return usageError(QStringLiteral("give exactly one of -b brokerAddr and -c clusterName"));
    SubscriptionGroupConfig c(ctx.bytes("g"));
    // mqadmin's defaults: no broadcast, no consume-from-min.
    auto consumeEnable = ctx.boolean("s", true);
    auto fromMin = ctx.boolean("m", false);
    auto broadcast = ctx.boolean("d", false);
    auto retryQueues = ctx.integer("q", c.retryQueueNums);
    auto retryMax = ctx.integer("r", c.retryMaxTimes);
    auto brokerId = ctx.integer("i", c.brokerId);
    auto slowly = ctx.integer("w", c.whichBrokerWhenConsumeSlowly);
    auto notify = ctx.boolean("a", c.notifyConsumerIdsChangedEnable);
    auto orderly = ctx.boolean("o", false);
    for (const Status &s : {consumeEnable.status(), fromMin.status(), broadcast.status(),
             retryQueues.status(), retryMax.status(), brokerId.status(), slowly.status(),
             notify.status(), orderly.status()}) {
        if (!s)
            return s;
    }
    c.consumeEnable = *consumeEnable;
    c.consumeFromMinEnable = *fromMin;
    c.consumeBroadcastEnable = *broadcast;
    c.retryQueueNums = static_cast<int>(*retryQueues);
    c.retryMaxTimes = static_cast<int>(*retryMax);
    c.brokerId = *brokerId;
    c.whichBrokerWhenConsumeSlowly = *slowly;
    c.notifyConsumerIdsChangedEnable = *notify;
    c.consumeMessageOrderly = *orderly;
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        if (ctx.has("b")) {
            if (Status s = admin.createOrUpdateSubscriptionGroup(ctx.bytes("b"), c); !s)
                return s;
            ctx.out().text("create subscription group to %s success.%n", {ctx.value("b")});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("address"), ctx.value("b")},
                    {QStringLiteral("status"), QStringLiteral("OK")}});
        } else {
            auto r = admin.createOrUpdateSubscriptionGroupInCluster(ctx.bytes("c"), c);
            if (!r)
                return r.error();
            if (Status s = reportFanOut(ctx, *r, "create subscription group to %s success.%n"); !s)
                return s;
        }
        ctx.out().text("%s%n", {groupConfigText(c)});
        return {};
    });
}

Status deleteSubGroup(Context &ctx)
{
    if (ctx.has("b") == ctx.has("c"))
        return usageError(QStringLiteral("give exactly one of -b brokerAddr and -c clusterName"));
    auto removeOffset = ctx.boolean("r", false);
    if (!removeOffset)
        return removeOffset.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        const QByteArray group = ctx.bytes("g");
        if (ctx.has("b")) {
            if (Status s = admin.deleteSubscriptionGroup(ctx.bytes("b"), group, *removeOffset); !s)
                return s;
            ctx.out().text("delete subscription group [%s] from broker [%s] success.%n",
                {group, ctx.value("b")});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("address"), ctx.value("b")},
                    {QStringLiteral("status"), QStringLiteral("OK")}});
            return {};
        }
        auto r = admin.deleteSubscriptionGroupInCluster(ctx.bytes("c"), group, *removeOffset);
        if (!r)
            return r.error();
        const QByteArray format = QStringLiteral(
            "delete subscription group [%1] from broker [%s] in cluster [%2] success.%n")
                                      .arg(QString::fromUtf8(group), ctx.value("c"))
                                      .toUtf8();
        if (Status s = reportFanOut(ctx, *r, format.constData()); !s)
            return s;
        // As mqadmin 4.9.7: the group's retry and dead-letter topics go too (when they exist).
        for (const char *prefix : {protocol::topics::kRetryPrefix, protocol::topics::kDlqPrefix}) {
            const QByteArray topic = prefix + group;
            if (auto route = admin.topicRoute(topic); !route)
                continue;
            auto deleted = admin.deleteTopic(topic, ctx.bytes("c"));
            if (!deleted)
                return deleted.error();
            if (Status s = reportFanOut(ctx, *deleted, ""); !s)
                return s;
            ctx.out().text(
                "delete topic [%s] from cluster [%s] success.%n", {topic, ctx.value("c")});
            ctx.out().text("delete topic [%s] from NameServer success.%n", {topic});
        }
        return {};
    });
}

/// setConsumeMode (RocketMQ 5's mqadmin): a group's PULL or POP mode for a topic, on one broker
/// or every master of a cluster (SET_MESSAGE_REQUEST_MODE).
Status setConsumeMode(Context &ctx)
{
    if (ctx.has("b") == ctx.has("c"))
        return usageError(QStringLiteral("give exactly one of -b brokerAddr and -c clusterName"));
    protocol::SetMessageRequestModeRequestBody mode;
    mode.topic = ctx.bytes("t").trimmed();
    mode.consumerGroup = ctx.bytes("g").trimmed();
    mode.mode = ctx.bytes("m").trimmed();
    if (mode.mode != "PULL" && mode.mode != "POP")
        return usageError(QStringLiteral("-m mode must be PULL or POP"));
    auto shareNum = ctx.integer("q", 0);
    if (!shareNum)
        return shareNum.error();
    if (*shareNum < 0 || *shareNum > std::numeric_limits<std::int32_t>::max())
        return usageError(QStringLiteral("-q popShareQueueNum must be in 0..2147483647"));
    mode.popShareQueueNum = static_cast<std::int32_t>(*shareNum);
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        if (ctx.has("b")) {
            if (Status s = admin.setMessageRequestMode(ctx.bytes("b"), mode); !s)
                return s;
            ctx.out().text("set consume mode to %s success.%n", {ctx.value("b")});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("address"), ctx.value("b")},
                    {QStringLiteral("status"), QStringLiteral("OK")}});
        } else {
            auto r = admin.setMessageRequestModeInCluster(ctx.bytes("c"), mode);
            if (!r)
                return r.error();
            if (Status s = reportFanOut(ctx, *r, "set consume mode to %s success.%n"); !s)
                return s;
        }
        ctx.out().text("topic[%s] group[%s] consume mode[%s] popShareQueueNum[%d]%n",
            {mode.topic, mode.consumerGroup, mode.mode, int(mode.popShareQueueNum)});
        ctx.out().value(QStringLiteral("topic"), QString::fromUtf8(mode.topic));
        ctx.out().value(QStringLiteral("group"), QString::fromUtf8(mode.consumerGroup));
        ctx.out().value(QStringLiteral("mode"), QString::fromUtf8(mode.mode));
        ctx.out().value(QStringLiteral("popShareQueueNum"), mode.popShareQueueNum);
        return {};
    });
}

/// popStats (QRocket): each master's POP state per (group, topic): the mode, messages in flight
/// (invisible to the group now), open checkpoints and the revive backlog (in flight past their
/// invisible time, not revived yet). One broker (-b), a cluster's masters (-c) or every master.
Status popStats(Context &ctx)
{
    if (ctx.has("b") && ctx.has("c"))
        return usageError(QStringLiteral("give at most one of -b brokerAddr and -c clusterName"));
    const QByteArray group = ctx.bytes("g").trimmed();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        std::vector<std::pair<QByteArray, QByteArray>> brokers; // name, address
        if (ctx.has("b")) {
            brokers.emplace_back(ctx.bytes("b"), ctx.bytes("b"));
        } else {
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
                        .arg(ctx.has("c") ? QStringLiteral(" in cluster ") + ctx.value("c")
                                          : QString()));
        }
        Table table = ctx.out().table(QStringLiteral("groups"),
            "%-20s  %-32s  %-32s  %-5s  %-10s  %-12s  %-14s  %-14s%n",
            {{"broker", "#Broker"}, {"group", "#Group"}, {"topic", "#Topic"}, {"mode", "#Mode"},
                {"inFlight", "#InFlight"}, {"checkPoints", "#CheckPoints"},
                {"reviveBacklog", "#ReviveBacklog"}, {"nextReviveInMs", "#NextReviveIn"}});
        std::int64_t inFlight = 0;
        std::int64_t backlog = 0;
        for (const auto &[name, addr] : brokers) {
            auto stats = admin.popStats(addr, group);
            if (!stats)
                return stats.error();
            for (const protocol::PopGroupStats &g : stats->groups) {
                const std::int64_t nextIn = g.nextReviveAt > 0
                    ? std::max<std::int64_t>(0, g.nextReviveAt - stats->now)
                    : -1;
                table.row({name, g.group, g.topic, g.mode, g.inFlight, g.checkPoints,
                    g.reviveBacklog, nextIn});
            }
            inFlight += stats->inFlight;
            backlog += stats->reviveBacklog;
        }
        ctx.out().text("%nIn flight: %d  Revive backlog: %d%n", {inFlight, backlog});
        ctx.out().value(QStringLiteral("inFlight"), static_cast<qint64>(inFlight));
        ctx.out().value(QStringLiteral("reviveBacklog"), static_cast<qint64>(backlog));
        return {};
    });
}

/// Client address per queue, from each consumer's running info (consumerProgress -s true).
std::map<client::admin::MessageQueue, QString> queueOwners(
    client::Admin &admin, const QByteArray &group)
{
    std::map<client::admin::MessageQueue, QString> owners;
    auto cc = admin.consumerConnection(group);
    if (!cc)
        return owners;
    for (const client::admin::Connection &conn : cc->connectionSet) {
        auto info = admin.consumerRunningInfo(group, conn.clientId);
        if (!info)
            continue;
        const QString ip = QString::fromUtf8(conn.clientAddr).section(QLatin1Char(':'), 0, 0);
        for (const auto &[mq, pq] : info->mqTable)
            owners[mq] = ip;
    }
    return owners;
}

Status groupProgress(Context &ctx, client::Admin &admin, bool showClientIp)
{
    const QByteArray group = ctx.bytes("g");
    auto stats = admin.consumeStats(group);
    if (!stats)
        return stats.error();
    std::map<client::admin::MessageQueue, QString> owners;
    if (showClientIp)
        owners = queueOwners(admin, group);
    const char *format = showClientIp ? "%-64s  %-32s  %-4s  %-20s  %-20s  %-20s %-20s  %s%n"
                                      : "%-64s  %-32s  %-4s  %-20s  %-20s  %-20s  %s%n";
    std::vector<Table::Column> columns {{"topic", "#Topic"}, {"brokerName", "#Broker Name"},
        {"queueId", "#QID"}, {"brokerOffset", "#Broker Offset"},
        {"consumerOffset", "#Consumer Offset"}};
    if (showClientIp)
        columns.push_back({"clientIp", "#Client IP"});
    columns.push_back({"diff", "#Diff"});
    columns.push_back({"lastTime", "#LastTime"});
    Table t = ctx.out().table(QStringLiteral("queues"), format, columns);
    std::int64_t diffTotal = 0;
    for (const auto &[mq, w] : stats->offsetTable) {
        const std::int64_t diff = w.brokerOffset - w.consumerOffset;
        diffTotal += diff;
        std::vector<Cell> row {front(QString::fromUtf8(mq.topic), 64),
            front(QString::fromUtf8(mq.brokerName), 32), mq.queueId, w.brokerOffset,
            w.consumerOffset};
        if (showClientIp) {
            const auto it = owners.find(mq);
            row.emplace_back(it == owners.end() ? QStringLiteral("N/A") : it->second);
        }
        row.emplace_back(diff);
        row.emplace_back(w.lastTimestamp == 0 ? QStringLiteral("N/A") : dateTime(w.lastTimestamp));
        t.row(row);
    }
    ctx.out().text("%nConsume TPS: %.2f%nDiff Total: %d%n", {stats->consumeTps, diffTotal});
    ctx.out().value(QStringLiteral("consumeTps"), stats->consumeTps);
    ctx.out().value(QStringLiteral("diffTotal"), static_cast<qint64>(diffTotal));
    return {};
}

Status allGroupsProgress(Context &ctx, client::Admin &admin)
{
    auto topics = admin.topicList();
    if (!topics)
        return topics.error();
    Table t
        = ctx.out().table(QStringLiteral("groups"), "%-64s  %-6d  %-24s %-5s  %-14s  %-7d  %d%n",
            {{"group", "#Group"}, {"count", "#Count"}, {"version", "#Version"}, {"type", "#Type"},
                {"model", "#Model"}, {"tps", "#TPS"}, {"diffTotal", "#Diff Total"}},
            "%-64s  %-6s  %-24s %-5s  %-14s  %-7s  %s%n");
    for (const QByteArray &topic : *topics) {
        if (!topic.startsWith(protocol::topics::kRetryPrefix))
            continue;
        const QByteArray group = topic.mid(7);
        // As mqadmin: a group whose stats or connections cannot be read still gets its row.
        auto stats = admin.consumeStats(group);
        auto cc = admin.consumerConnection(group);
        const int count = cc ? static_cast<int>(cc->connectionSet.size()) : 0;
        QString version = QStringLiteral("OFFLINE");
        QString type;
        QString model;
        if (cc && count > 0) {
            int minVersion = std::numeric_limits<int>::max();
            for (const client::admin::Connection &c : cc->connectionSet)
                minVersion = std::min(minVersion, c.version);
            version = versionDesc(minVersion);
            type = cc->consumeType == protocol::ConsumeType::ConsumeActively
                ? QStringLiteral("PULL")
                : QStringLiteral("PUSH");
            model = QString::fromLatin1(protocol::messageModelName(cc->messageModel));
        }
        t.row({front(QString::fromUtf8(group), 64), count, version, type, model,
            stats ? static_cast<int>(stats->consumeTps) : 0,
            stats ? stats->totalLag() : std::int64_t(0)});
    }
    return {};
}

Status consumerProgress(Context &ctx)
{
    auto showIp = ctx.boolean("s", false);
    if (!showIp)
        return showIp.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        return ctx.has("g") ? groupProgress(ctx, admin, *showIp) : allGroupsProgress(ctx, admin);
    });
}

Status consumerConnection(Context &ctx, client::Admin &admin)
{
    auto cc = admin.consumerConnection(ctx.bytes("g"));
    if (!cc)
        return cc.error();
    Table t = ctx.out().table(QStringLiteral("connections"), "%-36s %-22s %-10s %s%n",
        {{"clientId", "#ClientId"}, {"clientAddr", "#ClientAddr"}, {"language", "#Language"},
            {"version", "#Version"}});
    for (const client::admin::Connection &c : cc->connectionSet) {
        t.row({c.clientId, c.clientAddr, c.language, versionDesc(c.version)});
    }
    ctx.out().text("%nBelow is subscription:\n");
    Table s = ctx.out().table(QStringLiteral("subscriptions"), "%-20s %s%n",
        {{"topic", "#Topic"}, {"subExpression", "#SubExpression"}});
    for (const auto &[topic, sd] : cc->subscriptionTable)
        s.row({sd.topic, sd.subString});
    const QString type = QString::fromLatin1(protocol::consumeTypeName(cc->consumeType));
    const QString model = QString::fromLatin1(protocol::messageModelName(cc->messageModel));
    const QString from = QString::fromLatin1(protocol::consumeFromWhereName(cc->consumeFromWhere));
    ctx.out().text(
        "\nConsumeType: %s%nMessageModel: %s%nConsumeFromWhere: %s%n", {type, model, from});
    ctx.out().value(QStringLiteral("consumeType"), type);
    ctx.out().value(QStringLiteral("messageModel"), model);
    ctx.out().value(QStringLiteral("consumeFromWhere"), from);
    return {};
}

Status producerConnection(Context &ctx, client::Admin &admin)
{
    auto pc = admin.producerConnection(ctx.bytes("g"), ctx.bytes("t"));
    if (!pc)
        return pc.error();
    Table t = ctx.out().table(QStringLiteral("connections"), "%04d  %-32s %-22s %-8s %s%n",
        {{"index", ""}, {"clientId", ""}, {"clientAddr", ""}, {"language", ""}, {"version", ""}},
        "");
    int i = 1;
    for (const client::admin::Connection &c : pc->connectionSet)
        t.row({i++, c.clientId, c.clientAddr, c.language, versionDesc(c.version)});
    return {};
}

/// ConsumerRunningInfo.formatString().
void printRunningInfo(Context &ctx, const ConsumerRunningInfo &info)
{
    ctx.out().text("#Consumer Properties#\n");
    for (const auto &[k, v] : info.properties)
        ctx.out().text("%-40s: %s%n", {k, v});
    ctx.out().text("\n\n#Consumer Subscription#\n");
    int i = 0;
    for (const protocol::SubscriptionData &sd : info.subscriptionSet)
        ctx.out().text("%03d Topic: %-40s ClassFilter: %-8s SubExpression: %s%n",
            {++i, sd.topic, sd.classFilterMode, sd.subString});
    ctx.out().text("\n\n#Consumer Offset#\n");
    Table offsets = ctx.out().table(QStringLiteral("offsets"), "%-32s  %-32s  %-4d  %-20d%n",
        {{"topic", "#Topic"}, {"brokerName", "#Broker Name"}, {"queueId", "#QID"},
            {"consumerOffset", "#Consumer Offset"}},
        "%-64s  %-32s  %-4s  %-20s%n");
    for (const auto &[mq, pq] : info.mqTable)
        offsets.row({mq.topic, mq.brokerName, mq.queueId, pq.commitOffset});
    ctx.out().text("\n\n#Consumer MQ Detail#\n");
    ctx.out().text(
        "%-64s  %-32s  %-4s  %-20s%n", {"#Topic", "#Broker Name", "#QID", "#ProcessQueueInfo"});
    for (const auto &[mq, pq] : info.mqTable) {
        const QString detail
            = QStringLiteral(
                  "ProcessQueueInfo [commitOffset=%1, cachedMsgMinOffset=%2, "
                  "cachedMsgMaxOffset=%3, "
                  "cachedMsgCount=%4, cachedMsgSizeInMiB=%5, transactionMsgMinOffset=%6, "
                  "transactionMsgMaxOffset=%7, transactionMsgCount=%8, locked=%9, ")
                  .arg(pq.commitOffset)
                  .arg(pq.cachedMsgMinOffset)
                  .arg(pq.cachedMsgMaxOffset)
                  .arg(pq.cachedMsgCount)
                  .arg(pq.cachedMsgSizeInMiB)
                  .arg(pq.transactionMsgMinOffset)
                  .arg(pq.transactionMsgMaxOffset)
                  .arg(pq.transactionMsgCount)
                  .arg(pq.locked ? QStringLiteral("true") : QStringLiteral("false"))
            + QStringLiteral(
                "tryUnlockTimes=%1, lastLockTimestamp=%2, droped=%3, lastPullTimestamp=%4, "
                "lastConsumeTimestamp=%5]")
                  .arg(pq.tryUnlockTimes)
                  .arg(humanTime(pq.lastLockTimestamp))
                  .arg(pq.dropped ? QStringLiteral("true") : QStringLiteral("false"))
                  .arg(humanTime(pq.lastPullTimestamp), humanTime(pq.lastConsumeTimestamp));
        ctx.out().text("%-64s  %-32s  %-4d  %s%n", {mq.topic, mq.brokerName, mq.queueId, detail});
    }
    ctx.out().text("\n\n#Consumer RT&TPS#\n");
    Table rates = ctx.out().table(QStringLiteral("rates"),
        "%-32s  %14.2f %14.2f %14.2f %14.2f %18.2f %25d%n",
        {{"topic", "#Topic"}, {"pullRT", "#Pull RT"}, {"pullTPS", "#Pull TPS"},
            {"consumeRT", "#Consume RT"}, {"consumeOKTPS", "#ConsumeOK TPS"},
            {"consumeFailedTPS", "#ConsumeFailed TPS"},
            {"consumeFailedMsgs", "#ConsumeFailedMsgsInHour"}},
        "%-64s  %14s %14s %14s %14s %18s %25s%n");
    for (const auto &[topic, st] : info.statusTable)
        rates.row({topic, st.pullRT, st.pullTPS, st.consumeRT, st.consumeOKTPS, st.consumeFailedTPS,
            st.consumeFailedMsgs});
    if (!info.jstack.isEmpty())
        ctx.out().text("\n\n#Consumer jstack#\n%s", {info.jstack});
    if (ctx.out().isJson()) {
        QJsonObject props;
        for (const auto &[k, v] : info.properties)
            props.insert(QString::fromUtf8(k), QString::fromUtf8(v));
        ctx.out().value(QStringLiteral("properties"), props);
        QJsonArray subs;
        for (const protocol::SubscriptionData &sd : info.subscriptionSet)
            subs.append(QJsonObject {{QStringLiteral("topic"), QString::fromUtf8(sd.topic)},
                {QStringLiteral("subExpression"), QString::fromUtf8(sd.subString)}});
        ctx.out().value(QStringLiteral("subscriptions"), subs);
    }
}

Status consumerStatus(Context &ctx, client::Admin &admin)
{
    const QByteArray group = ctx.bytes("g");
    const bool jstack = ctx.has("s");
    if (ctx.has("i")) {
        auto info = admin.consumerRunningInfo(group, ctx.bytes("i"), jstack);
        if (!info)
            return info.error();
        printRunningInfo(ctx, *info);
        return {};
    }
    auto cc = admin.consumerConnection(group);
    if (!cc)
        return cc.error();
    // mqadmin writes each running info to a file "<now>/<clientId>"; qrocket-admin prints the
    // summary only (use -i <clientId> for one consumer's details).
    Table t = ctx.out().table(QStringLiteral("consumers"), "%-10d %-40s %-20s %s%n",
        {{"index", "#Index"}, {"clientId", "#ClientId"}, {"version", "#Version"},
            {"runningInfo", "#ConsumerRunningInfoFile"}},
        "%-10s %-40s %-20s %s%n");
    std::map<QByteArray, ConsumerRunningInfo> infos;
    int i = 1;
    Status first;
    for (const client::admin::Connection &c : cc->connectionSet) {
        auto info = admin.consumerRunningInfo(group, c.clientId, jstack);
        if (!info) {
            if (first)
                first = info.error();
            continue;
        }
        infos[c.clientId] = *info;
        t.row({i++, c.clientId, versionDesc(c.version),
            QStringLiteral("(qrocket-admin consumerStatus -g %1 -i %2)")
                .arg(QString::fromUtf8(group), QString::fromUtf8(c.clientId))});
    }
    if (!infos.empty()) {
        bool subSame = true;
        std::set<client::admin::MessageQueue> seen;
        bool rebalanceOk = true;
        for (const auto &[id, info] : infos) {
            subSame = subSame && info.subscriptionSet == infos.begin()->second.subscriptionSet;
            for (const auto &[mq, pq] : info.mqTable)
                rebalanceOk = seen.insert(mq).second && rebalanceOk;
        }
        rebalanceOk = rebalanceOk && subSame;
        if (subSame)
            ctx.out().text("%n%nSame subscription in the same group of consumer%n%nRebalance %s%n",
                {rebalanceOk ? "OK" : "Failed"});
        else
            ctx.out().text("%n%nWARN: Different subscription in the same group of consumer!!!%n");
        ctx.out().value(QStringLiteral("sameSubscription"), subSame);
        ctx.out().value(QStringLiteral("rebalanceOk"), rebalanceOk);
    }
    return first;
}

Status getConsumerConfig(Context &ctx, client::Admin &admin)
{
    auto overview = admin.clusterOverview(false);
    if (!overview)
        return overview.error();
    const QByteArray group = ctx.bytes("g");
    bool found = false;
    for (const auto &[brokerName, data] : overview->info.brokerAddrTable) {
        QByteArray addr = data.masterAddr();
        if (addr.isEmpty() && !data.brokerAddrs.empty())
            addr = data.brokerAddrs.begin()->second;
        auto all = admin.allSubscriptionGroups(addr);
        if (!all)
            return all.error();
        const auto it = all->subscriptionGroupTable.find(group);
        if (it == all->subscriptionGroupTable.end())
            continue;
        found = true;
        const SubscriptionGroupConfig &c = it->second;
        ctx.out().text("=============================%s:%s=============================\n",
            {data.cluster, brokerName});
        std::vector<std::pair<const char *, Cell>> fields {{"groupName", c.groupName},
            {"consumeEnable", c.consumeEnable}, {"consumeFromMinEnable", c.consumeFromMinEnable},
            {"consumeBroadcastEnable", c.consumeBroadcastEnable},
            {"retryQueueNums", c.retryQueueNums}, {"retryMaxTimes", c.retryMaxTimes},
            {"brokerId", c.brokerId},
            {"whichBrokerWhenConsumeSlowly", c.whichBrokerWhenConsumeSlowly},
            {"notifyConsumerIdsChangedEnable", c.notifyConsumerIdsChangedEnable}};
        // RocketMQ 5's FIFO flag, where mqadmin 5 lists it; only when set (4.9's output else).
        if (c.consumeMessageOrderly)
            fields.insert(fields.begin() + 4, {"consumeMessageOrderly", true});
        QJsonObject o {{QStringLiteral("cluster"), QString::fromUtf8(data.cluster)},
            {QStringLiteral("brokerName"), QString::fromUtf8(brokerName)}};
        for (const auto &[name, value] : fields) {
            ctx.out().text("%s%-40s=  %s\n", {"", name, value});
            o.insert(QString::fromLatin1(name), value.json);
        }
        ctx.out().append(QStringLiteral("configs"), o);
    }
    if (!found)
        return Status::notFound(QStringLiteral("subscription group %1 is not on any broker")
                                    .arg(QString::fromUtf8(group)));
    return {};
}

const CommandSpec kCommands[] = {
    {"updateSubGroup", "Update or create subscription group",
        {{'b', "brokerAddr", true, false, "create subscription group to which broker"},
            {'c', "clusterName", true, false, "create subscription group to which cluster"},
            {'g', "groupName", true, true, kGroupName},
            {'s', "consumeEnable", true, false, "consume enable"},
            {'m', "consumeFromMinEnable", true, false, "from min offset"},
            {'d', "consumeBroadcastEnable", true, false, "broadcast"},
            {'q', "retryQueueNums", true, false, "retry queue nums"},
            {'r', "retryMaxTimes", true, false, "retry max times"},
            {'i', "brokerId", true, false, "consumer from which broker id"},
            {'w', "whichBrokerWhenConsumeSlowly", true, false,
                "which broker id when consume slowly"},
            {'a', "notifyConsumerIdsChanged", true, false, "notify consumerId changed"},
            {'o', "consumeMessageOrderly", true, false, "consume message orderly"}},
        updateSubGroup},
    {"deleteSubGroup", "Delete subscription group from broker.",
        {{'b', "brokerAddr", true, false, "delete subscription group from which broker"},
            {'c', "clusterName", true, false, "delete subscription group from which cluster"},
            {'g', "groupName", true, true, "subscription group name"},
            {'r', "removeOffset", true, false, "remove offset"}},
        deleteSubGroup},
    {"setConsumeMode", "Set consume message mode. pull/pop etc.",
        {{'b', "brokerAddr", true, false, "create subscription group to which broker"},
            {'c', "clusterName", true, false, "create subscription group to which cluster"},
            {'t', "topicName", true, true, "topic name"},
            {'g', "groupName", true, true, kGroupName},
            {'m', "mode", true, true, "consume mode. PULL/POP"},
            {'q', "popShareQueueNum", true, false, "num of queue which share in pop mode"}},
        setConsumeMode},
    {"popStats", "QRocket: POP mode, messages in flight and revive backlog per group and topic",
        {{'b', "brokerAddr", true, false, "one broker"},
            {'c', "clusterName", true, false, "the masters of one cluster (default: every one)"},
            {'g', "groupName", true, false, "one group (default: every one)"}},
        popStats},
    {"consumerProgress", "Query consumers's progress, speed",
        {{'g', "groupName", true, false, kGroupName},
            {'s', "showClientIP", true, false, "Show Client IP per Queue"}},
        consumerProgress},
    {"consumerConnection", "Query consumer's socket connection, client version and subscription",
        {{'g', "consumerGroup", true, true, kGroupName},
            {'b', "brokerAddr", true, false, "broker address (accepted; every broker is asked)"}},
        withAdmin<consumerConnection>},
    {"producerConnection", "Query producer's socket connection and client version",
        {{'g', "producerGroup", true, true, "producer group name"},
            {'t', "topic", true, true, "topic name"}},
        withAdmin<producerConnection>},
    {"consumerStatus", "Query consumer's internal data structure",
        {{'g', "consumerGroup", true, true, kGroupName},
            {'i', "clientId", true, false, "The consumer's client id"},
            {'b', "brokerAddr", true, false, "broker address (accepted; every broker is asked)"},
            {'s', "jstack", false, false, "Run jstack command in the consumer progress"}},
        withAdmin<consumerStatus>},
    {"getConsumerConfig", "Get consumer config by subscription group name!",
        {{'g', "groupName", true, true, "subscription group name"}}, withAdmin<getConsumerConfig>},
};

} // namespace

std::span<const CommandSpec> groupCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
