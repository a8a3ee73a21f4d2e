// qrocket-admin's topic commands: topicList, topicRoute, topicStatus, topicClusterList,
// updateTopic, deleteTopic, updateTopicPerm and allocateMQ.

#include "clientlib/protocol/systemtopics.h"
#include "console/admin/cli.h"

#include <QJsonDocument>

#include <set>

namespace qrocket::admincli {

namespace {

using client::admin::MessageQueue;
using protocol::TopicRouteData;

const char *kTopicName = "topic name";

QString quoted(const QByteArray &s)
{
    return QStringLiteral("\"%1\"").arg(QString::fromUtf8(s));
}

/// The route as mqadmin prints it: fastjson's pretty format (tabs, sorted keys, integer map
/// keys unquoted).
QString routeText(const TopicRouteData &route)
{
    QString s = QStringLiteral("{\n\t\"brokerDatas\":[");
    for (std::size_t i = 0; i < route.brokerDatas.size(); ++i) {
        const protocol::BrokerData &b = route.brokerDatas[i];
        s += i ? QStringLiteral(",\n\t\t{\n") : QStringLiteral("\n\t\t{\n");
        s += QStringLiteral("\t\t\t\"brokerAddrs\":{");
        bool first = true;
        for (const auto &[id, addr] : b.brokerAddrs) {
            s += first ? QString() : QStringLiteral(",\n\t\t\t\t");
            s += QStringLiteral("%1:%2").arg(id).arg(quoted(addr));
            first = false;
        }
        s += QStringLiteral("\n\t\t\t},\n\t\t\t\"brokerName\":%1,\n\t\t\t\"cluster\":%2\n\t\t}")
                 .arg(quoted(b.brokerName), quoted(b.cluster));
    }
    s += QStringLiteral("\n\t],\n\t\"filterServerTable\":{},\n");
    if (!route.orderTopicConf.isNull())
        s += QStringLiteral("\t\"orderTopicConf\":%1,\n").arg(quoted(route.orderTopicConf));
    s += QStringLiteral("\t\"queueDatas\":[");
    for (std::size_t i = 0; i < route.queueDatas.size(); ++i) {
        const protocol::QueueData &q = route.queueDatas[i];
        s += i ? QStringLiteral(",\n\t\t{\n") : QStringLiteral("\n\t\t{\n");
        s += QStringLiteral(
            "\t\t\t\"brokerName\":%1,\n\t\t\t\"perm\":%2,\n\t\t\t\"readQueueNums\":%3,"
            "\n\t\t\t\"topicSysFlag\":%4,\n\t\t\t\"writeQueueNums\":%5\n\t\t}")
                 .arg(quoted(q.brokerName))
                 .arg(q.perm)
                 .arg(q.readQueueNums)
                 .arg(q.topicSysFlag)
                 .arg(q.writeQueueNums);
    }
    return s + QStringLiteral("\n\t]\n}\n");
}

QJsonObject routeJson(const TopicRouteData &route)
{
    QJsonArray brokers;
    for (const protocol::BrokerData &b : route.brokerDatas) {
        QJsonObject addrs;
        for (const auto &[id, addr] : b.brokerAddrs)
            addrs.insert(QString::number(id), QString::fromUtf8(addr));
        brokers.append(QJsonObject {{QStringLiteral("cluster"), QString::fromUtf8(b.cluster)},
            {QStringLiteral("brokerName"), QString::fromUtf8(b.brokerName)},
            {QStringLiteral("brokerAddrs"), addrs}});
    }
    QJsonArray queues;
    for (const protocol::QueueData &q : route.queueDatas) {
        queues.append(QJsonObject {{QStringLiteral("brokerName"), QString::fromUtf8(q.brokerName)},
            {QStringLiteral("readQueueNums"), q.readQueueNums},
            {QStringLiteral("writeQueueNums"), q.writeQueueNums}, {QStringLiteral("perm"), q.perm},
            {QStringLiteral("topicSysFlag"), q.topicSysFlag}});
    }
    QJsonObject o {
        {QStringLiteral("brokerDatas"), brokers}, {QStringLiteral("queueDatas"), queues}};
    if (!route.orderTopicConf.isNull())
        o.insert(QStringLiteral("orderTopicConf"), QString::fromUtf8(route.orderTopicConf));
    return o;
}

/// The cluster of the route's first broker (mqadmin's findTopicBelongToWhichCluster).
QByteArray clusterOfRoute(const TopicRouteData &route, const protocol::ClusterInfo &info)
{
    if (route.brokerDatas.empty())
        return {};
    const QByteArray &name = route.brokerDatas.front().brokerName;
    for (const auto &[cluster, names] : info.clusterAddrTable) {
        if (std::find(names.begin(), names.end(), name) != names.end())
            return cluster;
    }
    return {};
}

Status topicList(Context &ctx, client::Admin &admin)
{
    auto topics = admin.topicList();
    if (!topics)
        return topics.error();
    if (!ctx.has("c")) {
        for (const QByteArray &t : *topics) {
            ctx.out().text("%s%n", {t});
            ctx.out().append(QStringLiteral("topics"), QString::fromUtf8(t));
        }
        return {};
    }
    auto info = admin.clusterInfo();
    if (!info)
        return info.error();
    Table table = ctx.out().table(QStringLiteral("topics"), "%-20s  %-64s  %-64s%n",
        {{"cluster", "#Cluster Name"}, {"topic", "#Topic"}, {"group", "#Consumer Group"}},
        "%-20s  %-48s  %-48s%n");
    for (const QByteArray &t : *topics) {
        if (t.startsWith(protocol::topics::kRetryPrefix)
            || t.startsWith(protocol::topics::kDlqPrefix))
            continue;
        // As mqadmin: a topic whose route or consumers cannot be read is listed without them.
        QByteArray cluster;
        std::vector<QByteArray> groups;
        if (auto route = admin.topicRoute(t)) {
            cluster = clusterOfRoute(*route, *info);
            if (auto g = admin.topicConsumedBy(t))
                groups = std::move(g).value();
        }
        if (groups.empty())
            groups.emplace_back();
        for (const QByteArray &g : groups)
            table.row({front(QString::fromUtf8(cluster), 20), front(QString::fromUtf8(t), 64),
                front(QString::fromUtf8(g), 64)});
    }
    return {};
}

Status topicRoute(Context &ctx, client::Admin &admin)
{
    auto route = admin.topicRoute(ctx.bytes("t"));
    if (!route)
        return route.error();
    if (ctx.out().isJson()) {
        ctx.out().value(QStringLiteral("route"), routeJson(*route));
        return {};
    }
    if (!ctx.has("l")) {
        ctx.out().raw(routeText(*route));
        return {};
    }
    const char *format = "%-45s %-32s %-50s %-10s %-11s %-5s%n";
    Table t = ctx.out().table(QStringLiteral("brokers"), format,
        {{"cluster", "#ClusterName"}, {"brokerName", "#BrokerName"},
            {"brokerAddrs", "#BrokerAddrs"}, {"readQueueNums", "#ReadQueue"},
            {"writeQueueNums", "#WriteQueue"}, {"perm", "#Perm"}});
    std::vector<protocol::BrokerData> brokers = route->brokerDatas;
    std::sort(brokers.begin(), brokers.end(),
        [](const auto &a, const auto &b) { return a.brokerName < b.brokerName; });
    int totalRead = 0;
    int totalWrite = 0;
    std::set<QByteArray> names;
    for (const protocol::BrokerData &b : brokers) {
        const auto q = std::find_if(route->queueDatas.begin(), route->queueDatas.end(),
            [&](const protocol::QueueData &d) { return d.brokerName == b.brokerName; });
        if (q == route->queueDatas.end())
            continue;
        names.insert(b.brokerName);
        totalRead += q->readQueueNums;
        totalWrite += q->writeQueueNums;
        std::vector<std::pair<QByteArray, QByteArray>> addrs;
        for (const auto &[id, addr] : b.brokerAddrs)
            addrs.emplace_back(QByteArray::number(id), addr);
        t.row({b.cluster, b.brokerName, javaMap(addrs), q->readQueueNums, q->writeQueueNums,
            q->perm});
    }
    ctx.out().text("%s%n", {QString(158, QLatin1Char('-'))});
    ctx.out().text(
        format, {"Total:", static_cast<int>(names.size()), "", totalRead, totalWrite, ""});
    return {};
}

Status topicStatus(Context &ctx, client::Admin &admin)
{
    auto stats = admin.topicStats(ctx.bytes("t"));
    if (!stats)
        return stats.error();
    Table t = ctx.out().table(QStringLiteral("queues"), "%-32s  %-4d  %-20d  %-20d    %s%n",
        {{"brokerName", "#Broker Name"}, {"queueId", "#QID"}, {"minOffset", "#Min Offset"},
            {"maxOffset", "#Max Offset"}, {"lastUpdated", "#Last Updated"}});
    for (const auto &[mq, o] : stats->offsetTable) {
        t.row({front(QString::fromUtf8(mq.brokerName), 32), mq.queueId, o.minOffset, o.maxOffset,
            o.lastUpdateTimestamp > 0 ? humanTime(o.lastUpdateTimestamp) : QString()});
    }
    return {};
}

Status topicClusterList(Context &ctx, client::Admin &admin)
{
    auto route = admin.topicRoute(ctx.bytes("t"));
    if (!route)
        return route.error();
    auto info = admin.clusterInfo();
    if (!info)
        return info.error();
    std::set<QByteArray> clusters;
    for (const protocol::BrokerData &b : route->brokerDatas) {
        for (const auto &[cluster, names] : info->clusterAddrTable) {
            if (std::find(names.begin(), names.end(), b.brokerName) != names.end())
                clusters.insert(cluster);
        }
    }
    for (const QByteArray &c : clusters) {
        ctx.out().text("%s%n", {c});
        ctx.out().append(QStringLiteral("clusters"), QString::fromUtf8(c));
    }
    return {};
}

/// mqadmin 5's ", attributes={k=v, ...}" (Java's Map.toString) for `entries`; empty when there
/// are none, where mqadmin 4.9 (which QRocket's text follows) prints nothing either.
QString attributesText(const std::vector<std::pair<QByteArray, QByteArray>> &entries)
{
    if (entries.empty())
        return {};
    QStringList items;
    for (const auto &[key, value] : entries)
        items << QString::fromUtf8(key + '=' + value);
    return QStringLiteral(", attributes={%1}").arg(items.join(QStringLiteral(", ")));
}

/// An -a value ("+message.type=FIFO,-key") as mqadmin 5's updateTopic keeps it in the printed
/// TopicConfig: "+key" -> value, "-key" -> "" (printed "-key="), in the order given.
std::vector<std::pair<QByteArray, QByteArray>> modificationEntries(const QByteArray &modification)
{
    std::vector<std::pair<QByteArray, QByteArray>> entries;
    if (modification.isEmpty())
        return entries;
    for (const QByteArray &item : modification.split(',')) {
        const qsizetype eq = item.indexOf('=');
        entries.emplace_back(
            eq < 0 ? item : item.left(eq), eq < 0 ? QByteArray() : item.mid(eq + 1));
    }
    return entries;
}

/// mqadmin's TopicConfig line; `attributes` (see attributesText) end it when there are any.
QString topicConfigText(const protocol::TopicConfig &c,
    const std::vector<std::pair<QByteArray, QByteArray>> &attributes)
{
    return QStringLiteral(
               "TopicConfig [topicName=%1, readQueueNums=%2, writeQueueNums=%3, perm=%4, "
               "topicFilterType=%5, topicSysFlag=%6, order=%7")
               .arg(QString::fromUtf8(c.topicName))
               .arg(c.readQueueNums)
               .arg(c.writeQueueNums)
               .arg(permText(c.perm),
                   c.topicFilterType == protocol::TopicFilterType::SingleTag
                       ? QStringLiteral("SINGLE_TAG")
                       : QStringLiteral("MULTI_TAG"))
               .arg(c.topicSysFlag)
               .arg(c.order ? QStringLiteral("true") : QStringLiteral("false"))
        + attributesText(attributes) + QLatin1Char(']');
}

/// A topic's config as a broker keeps it, with its attributes when it has any.
QString topicConfigText(const protocol::TopicConfig &c)
{
    return topicConfigText(c, {c.attributes.begin(), c.attributes.end()});
}

Result<int> permOf(Context &ctx, int fallback)
{
    auto perm = ctx.integer("p", fallback);
    if (!perm)
        return perm.error();
    if (*perm != 2 && *perm != 4 && *perm != 6)
        return usageError(QStringLiteral("-p wants 2 (W), 4 (R) or 6 (RW), not %1").arg(*perm));
    return static_cast<int>(*perm);
}

Status updateTopic(Context &ctx)
{
    if (ctx.has("b") == ctx.has("c"))
        return usageError(QStringLiteral("give exactly one of -b brokerAddr and -c clusterName"));
    protocol::TopicConfig config(ctx.bytes("t"), 8);
    auto read = ctx.integer("r", 8);
    auto write = ctx.integer("w", 8);
    auto perm = permOf(ctx, 6);
    auto order = ctx.boolean("o", false);
    auto unit = ctx.boolean("u", false);
    auto unitSub = ctx.boolean("s", false);
    for (const Status &s : {read.status(), write.status(), perm.status(), order.status(),
             unit.status(), unitSub.status()}) {
        if (!s)
            return s;
    }
    if (*read <= 0 || *write <= 0 || *read > 1024 || *write > 1024)
        return usageError(QStringLiteral("-r and -w want 1..1024 queues"));
    config.readQueueNums = static_cast<int>(*read);
    config.writeQueueNums = static_cast<int>(*write);
    config.perm = *perm;
    config.order = *order;
    config.topicSysFlag = (*unit ? 1 : 0) | (*unitSub ? 2 : 0);
    // RocketMQ 5's attribute changes, passed through as given: the broker checks them (syntax,
    // known keys and values) and its refusal is the error printed.
    const QByteArray attributes = ctx.bytes("a");
    if (ctx.has("a"))
        ctx.out().value(QStringLiteral("attributes"), QString::fromUtf8(attributes));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        if (ctx.has("b")) {
            const QByteArray addr = ctx.bytes("b");
            if (Status s = admin.createOrUpdateTopic(addr, config, attributes); !s)
                return s;
            if (*order) {
                auto overview = admin.clusterOverview(false);
                if (!overview)
                    return overview.error();
                QByteArray brokerName;
                for (const client::BrokerNode &n : overview->nodes)
                    brokerName = n.address == addr ? n.brokerName : brokerName;
                const QByteArray orderConf
                    = brokerName + ':' + QByteArray::number(config.writeQueueNums);
                if (Status s = admin.putKvConfig("ORDER_TOPIC_CONFIG", config.topicName, orderConf);
                    !s)
                    return s;
                ctx.out().text(
                    "set broker orderConf. isOrder=%s, orderConf=[%s]%n", {true, orderConf});
            }
            ctx.out().text("create topic to %s success.%n", {addr});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("address"), QString::fromUtf8(addr)},
                    {QStringLiteral("status"), QStringLiteral("OK")}});
        } else {
            auto r = admin.createOrUpdateTopicInCluster(ctx.bytes("c"), config, attributes);
            if (!r)
                return r.error();
            if (Status s = reportFanOut(ctx, *r, "create topic to %s success.%n"); !s)
                return s;
        }
        ctx.out().text("%s%n", {topicConfigText(config, modificationEntries(attributes))});
        return {};
    });
}

Status deleteTopic(Context &ctx, client::Admin &admin)
{
    const QByteArray topic = ctx.bytes("t");
    const QByteArray cluster = ctx.bytes("c");
    auto r = admin.deleteTopic(topic, cluster);
    if (!r)
        return r.error();
    Status s = reportFanOut(ctx, *r, "");
    if (!s)
        return s;
    ctx.out().text("delete topic [%s] from cluster [%s] success.%n", {topic, cluster});
    ctx.out().text("delete topic [%s] from NameServer success.%n", {topic});
    return {};
}

Status updateTopicPerm(Context &ctx)
{
    auto perm = permOf(ctx, 6);
    if (!perm)
        return perm.error();
    if (!ctx.has("b") && !ctx.has("c"))
        return usageError(QStringLiteral("give a broker (-b) or a cluster (-c)"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        const QByteArray topic = ctx.bytes("t");
        auto route = admin.topicRoute(topic);
        if (!route)
            return route.error();
        bool any = false;
        for (const protocol::BrokerData &b : route->brokerDatas) {
            const QByteArray master = b.masterAddr();
            if (master.isEmpty() || (ctx.has("b") && master != ctx.bytes("b"))
                || (!ctx.has("b") && b.cluster != ctx.bytes("c")))
                continue;
            any = true;
            auto config = admin.topicConfig(master, topic);
            if (!config)
                return config.error();
            const int old = config->perm;
            if (old == *perm) {
                ctx.out().text("new perm equals to the old one!%n");
                continue;
            }
            config->perm = *perm;
            if (Status s = admin.createOrUpdateTopic(master, *config); !s)
                return s;
            ctx.out().text(
                "update topic perm from %s to %s in %s success.%n", {old, *perm, master});
            ctx.out().append(QStringLiteral("results"),
                QJsonObject {{QStringLiteral("address"), QString::fromUtf8(master)},
                    {QStringLiteral("oldPerm"), old}, {QStringLiteral("perm"), *perm}});
            if (ctx.has("b"))
                ctx.out().text("%s.%n", {topicConfigText(*config)});
        }
        if (!any)
            return Status::notFound(ctx.has("b")
                    ? QStringLiteral("broker %1 is not a master serving topic %2")
                          .arg(ctx.value("b"), QString::fromUtf8(topic))
                    : QStringLiteral("no master of cluster %1 serves topic %2")
                          .arg(ctx.value("c"), QString::fromUtf8(topic)));
        return {};
    });
}

Status allocateMQ(Context &ctx, client::Admin &admin)
{
    auto route = admin.topicRoute(ctx.bytes("t"));
    if (!route)
        return route.error();
    const QStringList ips = ctx.value("i").split(QLatin1Char(','), Qt::SkipEmptyParts);
    if (ips.isEmpty())
        return usageError(QStringLiteral("-i wants a comma-separated list of client ids"));
    // The readable queues of the route (MQClientInstance.topicRouteData2TopicSubscribeInfo).
    std::set<MessageQueue> all;
    for (const protocol::QueueData &q : route->queueDatas) {
        if (q.perm & 4) {
            for (int i = 0; i < q.readQueueNums; ++i)
                all.insert(MessageQueue {ctx.bytes("t"), q.brokerName, i});
        }
    }
    const std::vector<MessageQueue> mqs(all.begin(), all.end());
    const int size = static_cast<int>(mqs.size());
    const int cids = static_cast<int>(ips.size());
    QJsonObject result;
    for (int index = 0; index < cids; ++index) {
        // AllocateMessageQueueAveragely.
        const int mod = size % cids;
        const int average
            = size <= cids ? 1 : (mod > 0 && index < mod ? size / cids + 1 : size / cids);
        const int start = (mod > 0 && index < mod) ? index * average : index * average + mod;
        const int range = std::min(average, size - start);
        QJsonArray queues;
        for (int i = 0; i < range; ++i) {
            const MessageQueue &mq = mqs[static_cast<std::size_t>((start + i) % size)];
            queues.append(
                QJsonObject {{QStringLiteral("brokerName"), QString::fromUtf8(mq.brokerName)},
                    {QStringLiteral("queueId"), mq.queueId},
                    {QStringLiteral("topic"), QString::fromUtf8(mq.topic)}});
        }
        result.insert(ips[index], queues);
    }
    const QJsonObject doc {{QStringLiteral("result"), result}};
    ctx.out().value(QStringLiteral("result"), result);
    ctx.out().text("%s%n", {QString::fromUtf8(QJsonDocument(doc).toJson(QJsonDocument::Compact))});
    return {};
}

const CommandSpec kCommands[] = {
    {"topicList", "Fetch all topic list from name server",
        {{'c', "clusterModel", false, false, "clusterModel"}}, withAdmin<topicList>},
    {"topicRoute", "Examine topic route info",
        {{'t', "topic", true, true, kTopicName},
            {'l', "list", false, false, "Use list format to print data"}},
        withAdmin<topicRoute>},
    {"topicStatus", "Examine topic Status info", {{'t', "topic", true, true, kTopicName}},
        withAdmin<topicStatus>},
    {"topicClusterList", "get cluster info for topic", {{'t', "topic", true, true, kTopicName}},
        withAdmin<topicClusterList>},
    {"updateTopic", "Update or create topic",
        {{'b', "brokerAddr", true, false, "create topic to which broker"},
            {'c', "clusterName", true, false, "create topic to which cluster"},
            {'a', "attributes", true, false,
                "RocketMQ 5 topic attributes to change, comma-separated: +key=value sets, -key "
                "removes (+message.type=FIFO; keys: message.type)"},
            {'t', "topic", true, true, kTopicName},
            {'r', "readQueueNums", true, false, "set read queue nums (default 8)"},
            {'w', "writeQueueNums", true, false, "set write queue nums (default 8)"},
            {'p', "perm", true, false, "set topic's permission(2|4|6), intro[2:W 4:R; 6:RW]"},
            {'o', "order", true, false, "set topic's order(true|false)"},
            {'u', "unit", true, false, "is unit topic (true|false)"},
            {'s', "hasUnitSub", true, false, "has unit sub (true|false)"}},
        updateTopic},
    {"deleteTopic", "Delete topic from broker and NameServer.",
        {{'t', "topic", true, true, kTopicName},
            {'c', "clusterName", true, true, "delete topic from which cluster"}},
        withAdmin<deleteTopic>},
    {"updateTopicPerm", "Update topic perm",
        {{'b', "brokerAddr", true, false, "create topic to which broker"},
            {'c', "clusterName", true, false, "create topic to which cluster"},
            {'t', "topic", true, true, kTopicName},
            {'p', "perm", true, true, "set topic's permission(2|4|6), intro[2:W; 4:R; 6:RW]"}},
        updateTopicPerm},
    {"allocateMQ", "Allocate MQ",
        {{'t', "topic", true, true, kTopicName}, {'i', "ipList", true, true, "ipList"}},
        withAdmin<allocateMQ>},
};

} // namespace

std::span<const CommandSpec> topicCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
