// qrocket-admin's message commands: queryMsgById, queryMsgByKey, queryMsgByUniqueKey,
// queryMsgByOffset, printMsg, printMsgByQueue, consumeMessage (reading as TOOLS_CONSUMER through
// Admin::pullMessages, no offset committed), sendMessage and checkMsgSendRT (a Producer).

#include "clientlib/client/producer.h"
#include "console/admin/cli.h"
#include "console/admin/messagetrack.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace qrocket::admincli {

namespace {

using client::MessageExt;
using client::admin::MessageQueue;

const char *kTopicName = "topic name";

QString mqText(const MessageQueue &mq)
{
    return QStringLiteral("MessageQueue [topic=%1, brokerName=%2, queueId=%3]")
        .arg(QString::fromUtf8(mq.topic), QString::fromUtf8(mq.brokerName))
        .arg(mq.queueId);
}

QString propertiesText(const MessageExt &m)
{
    return javaMap(m.properties().entries());
}

/// Java's MessageExt.toString() (body as Arrays.toString).
QString messageText(const MessageExt &m)
{
    QStringList bytes;
    for (char c : m.body())
        bytes << QString::number(static_cast<signed char>(c));
    return QStringLiteral("MessageExt [brokerName=%1, queueId=%2, storeSize=%3, queueOffset=%4, "
                          "sysFlag=%5, bornTimestamp=%6, bornHost=/%7, storeTimestamp=%8, "
                          "storeHost=/%9, ")
               .arg(QString::fromUtf8(m.brokerName()))
               .arg(m.queueId())
               .arg(m.storeSize())
               .arg(m.queueOffset())
               .arg(m.sysFlag())
               .arg(m.bornTimestamp())
               .arg(QString::fromUtf8(m.bornHost().toString()))
               .arg(m.storeTimestamp())
               .arg(QString::fromUtf8(m.storeHost().toString()))
        + QStringLiteral("msgId=%1, commitLogOffset=%2, bodyCRC=%3, reconsumeTimes=%4, "
                         "preparedTransactionOffset=%5, toString()=Message{topic='%6', flag=%7, "
                         "properties=%8, body=[%9], ")
              .arg(QString::fromUtf8(m.offsetMsgId()))
              .arg(m.commitLogOffset())
              .arg(m.bodyCrc())
              .arg(m.reconsumeTimes())
              .arg(m.preparedTransactionOffset())
              .arg(QString::fromUtf8(m.topic()))
              .arg(m.flag())
              .arg(propertiesText(m), bytes.join(QStringLiteral(", ")))
        + QStringLiteral("transactionId='%1'}]")
              .arg(m.transactionId().isEmpty() ? QStringLiteral("null")
                                               : QString::fromUtf8(m.transactionId()));
}

QJsonObject messageJson(const MessageExt &m, bool withBody)
{
    QJsonObject props;
    for (const auto &[k, v] : m.properties().entries())
        props.insert(QString::fromUtf8(k), QString::fromUtf8(v));
    QJsonObject o {{QStringLiteral("msgId"), QString::fromUtf8(m.msgId())},
        {QStringLiteral("offsetMsgId"), QString::fromUtf8(m.offsetMsgId())},
        {QStringLiteral("topic"), QString::fromUtf8(m.topic())},
        {QStringLiteral("brokerName"), QString::fromUtf8(m.brokerName())},
        {QStringLiteral("queueId"), m.queueId()},
        {QStringLiteral("queueOffset"), static_cast<qint64>(m.queueOffset())},
        {QStringLiteral("commitLogOffset"), static_cast<qint64>(m.commitLogOffset())},
        {QStringLiteral("tags"), QString::fromUtf8(m.tags())},
        {QStringLiteral("keys"), QString::fromUtf8(m.keys())},
        {QStringLiteral("reconsumeTimes"), m.reconsumeTimes()},
        {QStringLiteral("bornTimestamp"), static_cast<qint64>(m.bornTimestamp())},
        {QStringLiteral("storeTimestamp"), static_cast<qint64>(m.storeTimestamp())},
        {QStringLiteral("bornHost"), QString::fromUtf8(m.bornHost().toString())},
        {QStringLiteral("storeHost"), QString::fromUtf8(m.storeHost().toString())},
        {QStringLiteral("sysFlag"), m.sysFlag()}, {QStringLiteral("properties"), props}};
    if (withBody)
        o.insert(QStringLiteral("body"), QString::fromUtf8(m.body()));
    return o;
}

/// This run's private folder for message bodies (mode 0700, made by mkdtemp), or an error text.
/// mqadmin writes to /tmp/rocketmq/msgbodys/<msgId>, a shared folder and a name the producer
/// chose (its UNIQ_KEY): a producer could make an operator's query write over any file the
/// operator can write ("../../root/.bashrc", or a symlink planted in the shared folder).
const QString &bodyFolder(QString *error)
{
    static QString folder;
    static QString failure;
    if (folder.isEmpty() && failure.isEmpty()) {
        QByteArray templ
            = QFile::encodeName(QDir::tempPath() + QStringLiteral("/qrocket-msgbodys-XXXXXX"));
        if (::mkdtemp(templ.data()))
            folder = QFile::decodeName(templ);
        else
            failure = QStringLiteral("cannot create a folder in %1: %2")
                          .arg(QDir::tempPath(), QString::fromLocal8Bit(std::strerror(errno)));
    }
    *error = failure;
    return folder;
}

/// Writes a body under bodyFolder() with a name made by QRocket, never followed through a link
/// and never over an existing file. Returns the path, or "(not written: why)".
QString writeBody(const MessageExt &m)
{
    QString error;
    const QString &folder = bodyFolder(&error);
    if (folder.isEmpty())
        return QStringLiteral("(not written: %1)").arg(error);
    // The broker's offset message id is hex made from the store address and the commit-log
    // offset; anything else (a foreign broker's answer) gets the commit-log offset.
    QByteArray name = m.offsetMsgId();
    const bool hex = !name.isEmpty() && name.size() <= 64
        && std::all_of(name.cbegin(), name.cend(),
            [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); });
    if (!hex)
        name = "offset-" + QByteArray::number(m.commitLogOffset());
    const QString path = folder + QLatin1Char('/') + QString::fromLatin1(name);
    for (int n = 1;; ++n) {
        const QString candidate = n == 1 ? path : path + QLatin1Char('.') + QString::number(n);
        const int fd = ::open(QFile::encodeName(candidate).constData(),
            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno == EEXIST && n < 100)
            continue; // the same message shown twice in one run
        if (fd < 0)
            return QStringLiteral("(not written: %1)")
                .arg(QString::fromLocal8Bit(std::strerror(errno)));
        const QByteArray &body = m.body();
        qsizetype done = 0;
        while (done < body.size()) {
            const ssize_t w
                = ::write(fd, body.constData() + done, static_cast<size_t>(body.size() - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            done += w;
        }
        const int writeErrno = errno;
        ::close(fd);
        if (done != body.size())
            return QStringLiteral("(not written: %1)")
                .arg(QString::fromLocal8Bit(std::strerror(writeErrno)));
        return candidate;
    }
}

/// mqadmin's QueryMsgByIdSubCommand.printMsg: the fields, the body written to a file, then which
/// groups consumed it (messageTrackDetail).
void printMessageDetail(Context &ctx, client::Admin &admin, const MessageExt &m, bool withOffsetId)
{
    const QString bodyPath = writeBody(m);
    const auto tracks = messageTrackDetail(admin, m);
    if (ctx.out().isJson()) {
        QJsonObject o = messageJson(m, true);
        o.insert(QStringLiteral("bodyPath"), bodyPath);
        if (tracks) {
            QJsonArray a;
            for (const MessageTrack &t : *tracks)
                a.append(QJsonObject {
                    {QStringLiteral("consumerGroup"), QString::fromUtf8(t.consumerGroup)},
                    {QStringLiteral("trackType"),
                        QString::fromLatin1(MessageTrack::typeName(t.type))},
                    {QStringLiteral("exceptionDesc"),
                        t.exceptionDesc.isEmpty() ? QJsonValue() : QJsonValue(t.exceptionDesc)}});
            o.insert(QStringLiteral("tracks"), a);
        } else {
            o.insert(QStringLiteral("tracksError"), tracks.error().toString());
        }
        ctx.out().append(QStringLiteral("messages"), o);
        return;
    }
    const char *s = "%-20s %s%n";
    if (withOffsetId)
        ctx.out().text(s, {"OffsetID:", m.offsetMsgId()});
    ctx.out().text(s, {"Topic:", m.topic()});
    ctx.out().text(s, {"Tags:", QStringLiteral("[%1]").arg(QString::fromUtf8(m.tags()))});
    ctx.out().text(s, {"Keys:", QStringLiteral("[%1]").arg(QString::fromUtf8(m.keys()))});
    ctx.out().text(s, {"Queue ID:", m.queueId()});
    ctx.out().text(s, {"Queue Offset:", m.queueOffset()});
    ctx.out().text(s, {"CommitLog Offset:", m.commitLogOffset()});
    ctx.out().text(s, {"Reconsume Times:", m.reconsumeTimes()});
    ctx.out().text(s, {"Born Timestamp:", humanTime(m.bornTimestamp())});
    ctx.out().text(s, {"Store Timestamp:", humanTime(m.storeTimestamp())});
    ctx.out().text(s, {"Born Host:", m.bornHost().toString()});
    ctx.out().text(s, {"Store Host:", m.storeHost().toString()});
    ctx.out().text(s, {"System Flag:", m.sysFlag()});
    ctx.out().text(s, {"Properties:", propertiesText(m)});
    ctx.out().text(s, {"Message Body Path:", bodyPath});
    if (!tracks) {
        ctx.out().text(
            "%n%nWARN: cannot tell which groups consumed it: %s%n", {tracks.error().toString()});
    } else if (tracks->empty()) {
        ctx.out().text("%n%nWARN: No Consumer%n");
    } else {
        // mqadmin prints the tracks back to back; one per line reads better.
        ctx.out().text("%n%n");
        for (const MessageTrack &t : *tracks)
            ctx.out().text("%s%n", {t.toString()});
    }
}

client::ProducerOptions producerOptions(Context &ctx, QByteArray group);

/// queryMsgById -s true: sends each message again to its topic (mqadmin's sendMsg).
Status resendMessages(Context &ctx, client::Admin &admin, const QStringList &ids)
{
    client::ProducerOptions options = producerOptions(ctx, "ReSendMsgById");
    options.client.unitName = ctx.bytes("u");
    client::Producer producer(options);
    if (Status s = producer.start(); !s)
        return s;
    Status outcome;
    for (const QString &id : ids) {
        auto m = admin.viewMessage(id.trimmed().toUtf8());
        if (!m) {
            outcome = m.error();
            break;
        }
        client::Message copy(m->topic(), m->body());
        copy.setFlag(m->flag());
        for (const auto &[k, v] : m->properties().entries()) {
            if (k != "MIN_OFFSET" && k != "MAX_OFFSET")
                copy.setProperty(k, v);
        }
        ctx.out().text("prepare resend msg. originalMsgId=%s%n", {id});
        auto r = producer.sendSync(copy);
        if (!r) {
            outcome = r.error();
            break;
        }
        ctx.out().text(
            "SendResult [sendStatus=%s, msgId=%s, offsetMsgId=%s, messageQueue=MessageQueue "
            "[topic=%s, brokerName=%s, queueId=%s], queueOffset=%s]%n",
            {client::sendStatusName(r->status), r->msgId, r->offsetMsgId, r->messageQueue.topic,
                r->messageQueue.brokerName, r->messageQueue.queueId, r->queueOffset});
        ctx.out().append(QStringLiteral("results"),
            QJsonObject {{QStringLiteral("originalMsgId"), id},
                {QStringLiteral("sendStatus"),
                    QString::fromLatin1(client::sendStatusName(r->status))},
                {QStringLiteral("msgId"), QString::fromUtf8(r->msgId)},
                {QStringLiteral("offsetMsgId"), QString::fromUtf8(r->offsetMsgId)}});
    }
    producer.shutdown();
    return outcome;
}

Status queryMsgById(Context &ctx)
{
    if (ctx.has("g") || ctx.has("d"))
        return Status::notSupported(QStringLiteral(
            "pushing a message to a consumer (-g/-d) is not supported by qrocket-admin yet"));
    auto resend = ctx.boolean("s", false);
    if (!resend)
        return resend.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        const QStringList ids = ctx.value("i").split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (*resend)
            return resendMessages(ctx, admin, ids);
        for (const QString &id : ids) {
            auto m = admin.viewMessage(id.trimmed().toUtf8());
            if (!m)
                return m.error();
            printMessageDetail(ctx, admin, *m, true);
        }
        return {};
    });
}

Status queryMsgByUniqueKey(Context &ctx)
{
    if (ctx.has("g") || ctx.has("d"))
        return Status::notSupported(QStringLiteral(
            "pushing a message to a consumer (-g/-d) is not supported by qrocket-admin yet"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto m = admin.queryMessageByUniqueKey(ctx.bytes("t"), ctx.bytes("i"));
        if (!m)
            return m.error();
        printMessageDetail(ctx, admin, *m, false);
        return {};
    });
}

Status queryMsgByKey(Context &ctx, client::Admin &admin)
{
    auto r = admin.queryMessageByKey(ctx.bytes("t"), ctx.bytes("k"), 64);
    if (!r)
        return r.error();
    Table t = ctx.out().table(QStringLiteral("messages"), "%-50s %4d %40d%n",
        {{"msgId", "#Message ID"}, {"queueId", "#QID"}, {"queueOffset", "#Offset"}},
        "%-50s %4s %40s%n");
    for (const MessageExt &m : r->messages)
        t.row({m.msgId(), m.queueId(), m.queueOffset()});
    return {};
}

Result<MessageQueue> queueOf(Context &ctx, const char *brokerOption, const char *queueOption)
{
    auto queueId = ctx.integer(queueOption, 0);
    if (!queueId)
        return queueId.error();
    if (*queueId < 0 || *queueId > 65535)
        return usageError(QStringLiteral("bad queue id %1").arg(*queueId));
    return MessageQueue {ctx.bytes("t"), ctx.bytes(brokerOption), static_cast<int>(*queueId)};
}

Status queryMsgByOffset(Context &ctx)
{
    auto mq = queueOf(ctx, "b", "i");
    auto offset = ctx.integer("o", 0);
    if (!mq)
        return mq.error();
    if (!offset)
        return offset.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto m = admin.messageAt(*mq, *offset);
        if (!m)
            return m.error();
        printMessageDetail(ctx, admin, *m, true);
        return {};
    });
}

struct ReadOptions
{
    QByteArray subExpression = "*";
    bool printBody = true;
    bool printMessages = true;
    std::int64_t limit = std::numeric_limits<std::int64_t>::max(); // messages per run
    std::map<QByteArray, std::int64_t> *tagCounts = nullptr;
    bool consumeOk = false; // consumeMessage's "Consume ok" line before each batch
};

/// Reads [from, to) of `mq` in batches of 32 and prints each message as mqadmin's printMsg does.
Status readQueue(Context &ctx, client::Admin &admin, const MessageQueue &mq, std::int64_t from,
    std::int64_t to, const ReadOptions &o)
{
    std::int64_t offset = from;
    std::int64_t printed = 0;
    while (offset < to && printed < o.limit) {
        const int batch
            = static_cast<int>(std::min<std::int64_t>({32, to - offset, o.limit - printed}));
        auto pulled = admin.pullMessages(mq, offset, batch, o.subExpression);
        if (!pulled)
            return pulled.error();
        const std::int64_t next = pulled->nextBeginOffset;
        const QString status = QString::fromLatin1(client::pullStatusName(pulled->status));
        if (pulled->status == client::PullStatus::Found) {
            if (o.consumeOk)
                ctx.out().text("Consume ok\n");
            for (const MessageExt &m : pulled->messages) {
                if (m.queueOffset() >= to || printed >= o.limit)
                    break;
                ++printed;
                if (o.tagCounts && !m.tags().trimmed().isEmpty())
                    ++(*o.tagCounts)[m.tags()];
                if (!o.printMessages)
                    continue;
                ctx.out().text("MSGID: %s %s BODY: %s%n",
                    {m.msgId(), messageText(m),
                        o.printBody ? QString::fromUtf8(m.body())
                                    : QStringLiteral("NOT PRINT BODY")});
                ctx.out().append(QStringLiteral("messages"), messageJson(m, o.printBody));
            }
        } else if (pulled->status == client::PullStatus::NoMatchedMsg) {
            ctx.out().text("%s no matched msg. status=%s, offset=%s%n", {mqText(mq), status, next});
        } else {
            ctx.out().text(
                "%s print msg finished. status=%s, offset=%s%n", {mqText(mq), status, next});
            break;
        }
        if (next <= offset)
            break; // the broker did not move on: stop rather than spin
        offset = next;
    }
    return {};
}

/// The queue's [min, max) offsets, narrowed by -b/-e (or -s/-e) timestamps when given.
Result<std::pair<std::int64_t, std::int64_t>> queueRange(Context &ctx, client::Admin &admin,
    const MessageQueue &mq, const client::admin::TopicOffset &offsets, const char *beginOption,
    const char *endOption)
{
    std::int64_t from = offsets.minOffset;
    std::int64_t to = offsets.maxOffset;
    for (const auto &[option, target] :
        {std::pair {beginOption, &from}, std::pair {endOption, &to}}) {
        if (!ctx.has(option))
            continue;
        auto t = ctx.timestamp(option, 0);
        if (!t)
            return t.error();
        auto found = admin.searchOffset(mq, *t);
        if (!found)
            return found.error();
        *target = *found;
    }
    return std::pair {from, to};
}

Status printMsg(Context &ctx)
{
    auto body = ctx.boolean("d", true);
    if (!body)
        return body.error();
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto stats = admin.topicStats(ctx.bytes("t"));
        if (!stats)
            return stats.error();
        ReadOptions o;
        o.subExpression = ctx.bytes("s", "*");
        o.printBody = *body;
        for (const auto &[mq, offsets] : stats->offsetTable) {
            auto range = queueRange(ctx, admin, mq, offsets, "b", "e");
            if (!range)
                return range.error();
            ctx.out().text(
                "minOffset=%s, maxOffset=%s, %s%n", {range->first, range->second, mqText(mq)});
            if (Status s = readQueue(ctx, admin, mq, range->first, range->second, o); !s)
                return s;
            ctx.out().text("--------------------------------------------------------\n");
        }
        return {};
    });
}

Status printMsgByQueue(Context &ctx)
{
    auto mq = queueOf(ctx, "a", "i");
    auto print = ctx.boolean("p", false);
    auto body = ctx.boolean("d", false);
    auto calculate = ctx.boolean("f", false);
    for (const Status &s : {mq.status(), print.status(), body.status(), calculate.status()}) {
        if (!s)
            return s;
    }
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto stats = admin.topicStats(mq->topic);
        if (!stats)
            return stats.error();
        const auto it = stats->offsetTable.find(*mq);
        if (it == stats->offsetTable.end())
            return Status::notFound(QStringLiteral("%1 does not exist").arg(mqText(*mq)));
        auto range = queueRange(ctx, admin, *mq, it->second, "b", "e");
        if (!range)
            return range.error();
        std::map<QByteArray, std::int64_t> counts;
        ReadOptions o;
        o.subExpression = ctx.bytes("s", "*");
        o.printBody = *body;
        o.printMessages = *print;
        o.tagCounts = &counts;
        if (Status s = readQueue(ctx, admin, *mq, range->first, range->second, o); !s)
            return s;
        if (*calculate) {
            std::vector<std::pair<QByteArray, std::int64_t>> sorted(counts.begin(), counts.end());
            std::stable_sort(sorted.begin(), sorted.end(),
                [](const auto &a, const auto &b) { return a.second > b.second; });
            Table t = ctx.out().table(
                QStringLiteral("tags"), "Tag: %-30s Count: %s%n", {{"tag", ""}, {"count", ""}}, "");
            for (const auto &[tag, count] : sorted)
                t.row({tag, count});
        }
        return {};
    });
}

Status consumeMessage(Context &ctx)
{
    if (ctx.has("i") && !ctx.has("b"))
        return usageError(QStringLiteral("set the broker name (-b) before the queue id (-i)"));
    if (ctx.has("o") && !ctx.has("i"))
        return usageError(QStringLiteral("set the queue id (-i) before the offset (-o)"));
    auto count = ctx.integer("c", 128);
    auto start = ctx.integer("o", 0);
    auto begin = ctx.timestamp("s", 0);
    auto end = ctx.timestamp("e", 0);
    for (const Status &s : {count.status(), start.status(), begin.status(), end.status()}) {
        if (!s)
            return s;
    }
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
    if (*count <= 0)
        return usageError(QStringLiteral("-c wants a positive number of messages"));
    if (*begin > now || *end > now)
        return usageError(QStringLiteral("the begin and end timestamps must be before now"));
    if (ctx.has("e") && *begin > *end)
        return usageError(
            QStringLiteral("the begin timestamp must not be after the end timestamp"));
    return ctx.withAdmin([&](client::Admin &admin) -> Status {
        auto stats = admin.topicStats(ctx.bytes("t"));
        if (!stats)
            return stats.error();
        ReadOptions o;
        o.consumeOk = true;
        std::int64_t left = *count;
        for (const auto &[mq, offsets] : stats->offsetTable) {
            if (left <= 0)
                break;
            if (ctx.has("b")
                && (mq.brokerName != ctx.bytes("b") || mq.queueId != ctx.value("i").toInt()))
                continue;
            auto range = queueRange(ctx, admin, mq, offsets, "s", "e");
            if (!range)
                return range.error();
            auto [from, to] = *range;
            if (ctx.has("o")) {
                if (*start >= to) {
                    ctx.out().text("%s no matched msg, offset=%s\n", {mqText(mq), *start});
                    return {};
                }
                from = std::max(from, *start);
            }
            if (to - from > left) {
                ctx.out().text(
                    "The older %d message of the %d queue will be provided\n", {left, mq.queueId});
                to = from + left;
            }
            left -= to - from;
            if (Status s = readQueue(ctx, admin, mq, from, to, o); !s)
                return s;
        }
        return {};
    });
}

client::ProducerOptions producerOptions(Context &ctx, QByteArray group)
{
    client::ProducerOptions options;
    options.group = std::move(group);
    options.client = ctx.clientConfig();
    options.sendMsgTimeout = ctx.timeoutMs();
    options.retryTimesWhenSendFailed = 0; // one clear outcome per send, bounded in time
    return options;
}

Status sendMessage(Context &ctx)
{
    if (ctx.has("i") && !ctx.has("b"))
        return usageError(
            QStringLiteral("the broker name (-b) must be set if the queue is chosen"));
    if (ctx.has("m"))
        return Status::notSupported(
            QStringLiteral("message trace (-m) is not supported by qrocket-admin yet"));
    auto queueId = ctx.integer("i", -1);
    if (!queueId)
        return queueId.error();
    client::Producer producer(producerOptions(ctx, "SEND_MESSAGE_COMMAND"));
    if (Status s = producer.start(); !s)
        return s;
    client::Message msg(ctx.bytes("t"), ctx.bytes("c"), ctx.bytes("k"), ctx.bytes("p"));
    Result<client::SendResult> r = *queueId >= 0
        ? producer.sendSync(
            msg, MessageQueue {ctx.bytes("t"), ctx.bytes("b"), static_cast<int>(*queueId)})
        : producer.sendSync(msg);
    producer.shutdown();
    if (!r)
        return r.error();
    Table t = ctx.out().table(QStringLiteral("results"), "%-32s  %-4s  %-20s    %s%n",
        {{"brokerName", "#Broker Name"}, {"queueId", "#QID"}, {"sendStatus", "#Send Result"},
            {"msgId", "#MsgId"}});
    t.row({r->messageQueue.brokerName, r->messageQueue.queueId, client::sendStatusName(r->status),
        r->msgId});
    ctx.out().value(QStringLiteral("offsetMsgId"), QString::fromUtf8(r->offsetMsgId));
    ctx.out().value(QStringLiteral("queueOffset"), static_cast<qint64>(r->queueOffset));
    return {};
}

Status checkMsgSendRT(Context &ctx)
{
    auto amount = ctx.integer("a", 100);
    auto size = ctx.integer("s", 128);
    if (!amount)
        return amount.error();
    if (!size)
        return size.error();
    if (*amount <= 0 || *size <= 0 || *size > 4 * 1024 * 1024)
        return usageError(
            QStringLiteral("-a wants a positive count and -s a size of 1..4194304 bytes"));
    client::Producer producer(
        producerOptions(ctx, QByteArray::number(QDateTime::currentMSecsSinceEpoch())));
    if (Status s = producer.start(); !s)
        return s;
    auto queues = producer.fetchPublishMessageQueues(ctx.bytes("t"));
    if (!queues) {
        producer.shutdown();
        return queues.error();
    }
    if (queues->empty()) {
        producer.shutdown();
        return Status::notFound(
            QStringLiteral("topic %1 has no writable queue").arg(ctx.value("t")));
    }
    Table t = ctx.out().table(QStringLiteral("sends"), "%-32s  %-4s  %-20s    %s%n",
        {{"brokerName", "#Broker Name"}, {"queueId", "#QID"}, {"sendResult", "#Send Result"},
            {"rt", "#RT"}});
    const client::Message msg(ctx.bytes("t"), QByteArray(static_cast<qsizetype>(*size), 'a'));
    std::int64_t elapsed = 0;
    int failures = 0;
    for (std::int64_t i = 0; i < *amount; ++i) {
        const MessageQueue &mq = (*queues)[static_cast<std::size_t>(i) % queues->size()];
        QElapsedTimer timer;
        timer.start();
        const bool ok = producer.sendSync(msg, mq).has_value();
        const std::int64_t rt = timer.elapsed();
        failures += ok ? 0 : 1;
        if (i != 0)
            elapsed += rt; // as mqadmin: the first send (route lookup, connect) is not counted
        t.row({mq.brokerName, mq.queueId, ok, rt});
    }
    producer.shutdown();
    const double avg
        = *amount > 1 ? static_cast<double>(elapsed) / static_cast<double>(*amount - 1) : 0.0;
    ctx.out().text("Avg RT: %.2f%n", {avg});
    ctx.out().value(QStringLiteral("avgRT"), avg);
    if (failures > 0)
        return Status::unavailable(
            QStringLiteral("%1 of %2 sends failed").arg(failures).arg(*amount));
    return {};
}

const CommandSpec kCommands[] = {
    {"queryMsgById", "Query Message by Id",
        {{'i', "msgId", true, true, "Message Id (offset msgId; several comma-separated)"},
            {'g', "consumerGroup", true, false, "consumer group name (push: not supported yet)"},
            {'d', "clientId", true, false, "The consumer's client id (push: not supported yet)"},
            {'s', "sendMessage", true, false, "resend message (true|false)"},
            {'u', "unitName", true, false, "unit name"}},
        queryMsgById},
    {"queryMsgByKey", "Query Message by Key",
        {{'t', "topic", true, true, kTopicName}, {'k', "msgKey", true, true, "Message Key"}},
        withAdmin<queryMsgByKey>},
    {"queryMsgByUniqueKey", "Query Message by Unique key",
        {{'i', "msgId", true, true, "Message Id"},
            {'g', "consumerGroup", true, false, "consumer group name (push: not supported yet)"},
            {'d', "clientId", true, false, "The consumer's client id (push: not supported yet)"},
            {'t', "topic", true, true, "The topic of msg"},
            {'a', "showAll", false, false,
                "Print all message, the limit is 32 (prints the earliest)"}},
        queryMsgByUniqueKey},
    {"queryMsgByOffset", "Query Message by offset",
        {{'t', "topic", true, true, kTopicName}, {'b', "brokerName", true, true, "Broker Name"},
            {'i', "queueId", true, true, "Queue Id"}, {'o', "offset", true, true, "Queue Offset"}},
        queryMsgByOffset},
    {"printMsg", "Print Message Detail",
        {{'t', "topic", true, true, kTopicName},
            {'c', "charsetName", true, false, "CharsetName(eg: UTF-8,GBK) (UTF-8 only)"},
            {'s', "subExpression", true, false, "Subscribe Expression(eg: TagA || TagB)"},
            {'b', "beginTimestamp", true, false,
                "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'e', "endTimestamp", true, false,
                "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'d', "printBody", true, false, "print body (default true)"}},
        printMsg},
    {"printMsgByQueue", "Print Message Detail",
        {{'t', "topic", true, true, kTopicName}, {'a', "brokerName", true, true, "broker name"},
            {'i', "queueId", true, true, "queue id"},
            {'c', "charsetName", true, false, "CharsetName(eg: UTF-8,GBK) (UTF-8 only)"},
            {'s', "subExpression", true, false, "Subscribe Expression(eg: TagA || TagB)"},
            {'b', "beginTimestamp", true, false,
                "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'e', "endTimestamp", true, false,
                "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'p', "printMsg", true, false, "print msg. eg: true | false(default)"},
            {'d', "printBody", true, false, "print body. eg: true | false(default)"},
            {'f', "calculate", true, false, "calculate by tag. eg: true | false(default)"}},
        printMsgByQueue},
    {"consumeMessage", "Consume message",
        {{'t', "topic", true, true, "Topic name"}, {'b', "brokerName", true, false, "Broker name"},
            {'i', "queueId", true, false, "Queue Id"}, {'o', "offset", true, false, "Queue offset"},
            {'g', "consumerGroup", true, false, "Consumer group name (nothing is committed)"},
            {'s', "beginTimestamp", true, false,
                "Begin timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'e', "endTimestamp", true, false,
                "End timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]"},
            {'c', "MessageNumber", true, false, "Number of message to be consumed (default 128)"}},
        consumeMessage},
    {"sendMessage", "Send a message",
        {{'t', "topic", true, true, "Topic name"},
            {'p', "body", true, true, "UTF-8 string format of the message body"},
            {'k', "key", true, false, "Message keys"}, {'c', "tags", true, false, "Message tags"},
            {'b', "broker", true, false, "Send message to target broker"},
            {'i', "qid", true, false, "Send message to target queue"},
            {'m', "msgTraceEnable", true, false, "Message Trace Enable (not supported yet)"}},
        sendMessage},
    {"checkMsgSendRT", "check message send response time",
        {{'t', "topic", true, true, kTopicName},
            {'a', "amount", true, false, "message amount | default 100"},
            {'s', "size", true, false, "message size | default 128 Byte"}},
        checkMsgSendRT},
};

} // namespace

std::span<const CommandSpec> messageCommands()
{
    return kCommands;
}

} // namespace qrocket::admincli
