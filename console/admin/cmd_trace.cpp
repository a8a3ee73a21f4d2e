// qrocket-admin's message trace command: queryMsgTraceById (mqadmin's QueryMsgTraceByIdSubCommand),
// over Admin::queryMessageTrace (QUERY_MESSAGE by msgId on the trace topic, decoded with
// clientlib/protocol/tracedata.h). Printed as mqadmin prints it: each Pub record under its own
// heading, then one block per consumer group of its SubAfter records (SubBefore and
// EndTransaction records are read but, as in mqadmin, not printed; --json lists them all).

#include "console/admin/cli.h"

#include <QJsonObject>

#include <algorithm>

namespace qrocket::admincli {

namespace {

namespace trace = protocol::trace;

constexpr const char *kTraceFormat = "%-10s %-20s %-20s %-20s %-10s %-10s%n";

Cell costCell(const trace::TraceRecord &r)
{
    return Cell(QString::number(r.costTime) + QStringLiteral("ms"), r.costTime);
}

Status queryMsgTraceById(Context &ctx, client::Admin &admin)
{
    const QByteArray msgId = ctx.bytes("i");
    auto views = admin.queryMessageTrace(msgId, ctx.bytes("t"));
    if (!views)
        return views.error();
    std::vector<QByteArray> groups; // consumer groups in the order their first record came
    for (const client::MessageTraceView &v : *views) {
        if (v.record.type == trace::TraceType::Pub) {
            Table t = ctx.out().table(QStringLiteral("pub"), kTraceFormat,
                {{"type", "#Type"}, {"group", "#ProducerGroup"}, {"clientHost", "#ClientHost"},
                    {"sendTime", "#SendTime"}, {"costTime", "#CostTimes"}, {"status", "#Status"}});
            t.row({"Pub", v.record.groupName, v.clientHost, dateTime(v.record.timestamp),
                costCell(v.record), v.status()});
            ctx.out().text("%n");
        } else if (v.record.type == trace::TraceType::SubAfter
            && std::find(groups.begin(), groups.end(), v.record.groupName) == groups.end()) {
            groups.push_back(v.record.groupName);
        }
    }
    for (const QByteArray &group : groups) {
        Table t = ctx.out().table(QStringLiteral("sub"), kTraceFormat,
            {{"type", "#Type"}, {"group", "#ConsumerGroup"}, {"clientHost", "#ClientHost"},
                {"consumeTime", "#ConsumerTime"}, {"costTime", "#CostTimes"},
                {"status", "#Status"}});
        for (const client::MessageTraceView &v : *views) {
            if (v.record.type == trace::TraceType::SubAfter && v.record.groupName == group)
                t.row({"Sub", v.record.groupName, v.clientHost, dateTime(v.record.timestamp),
                    costCell(v.record), v.status()});
        }
        ctx.out().text("%n");
    }
    for (const client::MessageTraceView &v : *views) {
        const trace::TraceRecord &r = v.record;
        QJsonObject o {{QStringLiteral("type"), QString::fromUtf8(trace::traceTypeName(r.type))},
            {QStringLiteral("timestamp"), static_cast<qint64>(r.timestamp)},
            {QStringLiteral("group"), QString::fromUtf8(r.groupName)},
            {QStringLiteral("clientHost"), QString::fromUtf8(v.clientHost)},
            {QStringLiteral("topic"), QString::fromUtf8(r.topic)},
            {QStringLiteral("msgId"), QString::fromUtf8(r.msgId)},
            {QStringLiteral("offsetMsgId"), QString::fromUtf8(r.offsetMsgId)},
            {QStringLiteral("tags"), QString::fromUtf8(r.tags)},
            {QStringLiteral("keys"), QString::fromUtf8(r.keys)},
            {QStringLiteral("storeHost"), QString::fromUtf8(r.storeHost)},
            {QStringLiteral("requestId"), QString::fromUtf8(r.requestId)},
            {QStringLiteral("costTime"), r.costTime}, {QStringLiteral("retryTimes"), r.retryTimes},
            {QStringLiteral("status"), QString::fromUtf8(v.status())}};
        if (r.type == trace::TraceType::EndTransaction)
            o.insert(QStringLiteral("transactionState"), QString::fromUtf8(r.transactionState));
        ctx.out().append(QStringLiteral("records"), o);
    }
    return {};
}

const CommandSpec kCommands[] = {
    {"queryMsgTraceById", "query a message trace",
        {{'i', "msgId", true, true, "Message Id"},
            {'t', "traceTopic", true, false,
                "The name value of message trace topic (default RMQ_SYS_TRACE_TOPIC)"}},
        withAdmin<queryMsgTraceById>},
};

} // namespace

std::span<const CommandSpec> traceCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
