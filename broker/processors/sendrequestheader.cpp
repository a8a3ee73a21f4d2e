#include "broker/processors/sendrequestheader.h"

#include "broker/brokercodes.h"
#include "clientlib/protocol/messageproperties.h"

#include <array>
#include <cstring>
#include <limits>
#include <string_view>

namespace qrocket::broker {

namespace {

// Field indexes; the V2 key of field i is the letter 'a' + i.
enum Field : int {
    ProducerGroup,
    Topic,
    DefaultTopic,
    DefaultTopicQueueNums,
    QueueId,
    SysFlag,
    BornTimestamp,
    Flag,
    Properties,
    ReconsumeTimes,
    UnitMode,
    MaxReconsumeTimes,
    Batch,
    FieldCount,
};
constexpr int kRequiredCount = Properties; // fields 0..7 are required, in this order

constexpr std::array<std::string_view, FieldCount> kV1Names {"producerGroup", "topic",
    "defaultTopic", "defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp", "flag",
    "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch"};
constexpr std::array<std::string_view, FieldCount> kV2Names {
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"};

int fieldIndex(const QByteArray &key, bool v2)
{
    if (v2) {
        const char c = key.size() == 1 ? key.at(0) : '\0';
        return c >= 'a' && c < 'a' + FieldCount ? c - 'a' : -1;
    }
    const std::string_view k(key.constData(), static_cast<std::size_t>(key.size()));
    for (int i = 0; i < FieldCount; ++i) {
        if (kV1Names[static_cast<std::size_t>(i)] == k)
            return i;
    }
    return -1;
}

std::optional<std::int32_t> toInt(const QByteArray *raw)
{
    if (!raw)
        return std::nullopt;
    const auto v = protocol::parseJavaLong(*raw);
    if (!v || *v < std::numeric_limits<std::int32_t>::min()
        || *v > std::numeric_limits<std::int32_t>::max())
        return std::nullopt;
    return static_cast<std::int32_t>(*v);
}

QByteArray missing(std::string_view name)
{
    QByteArray out = QByteArrayLiteral("the custom field <");
    out.append(name.data(), static_cast<qsizetype>(name.size()));
    out.append("> is null");
    return out;
}

} // namespace

std::optional<SendRequestHeader> SendRequestHeader::decode(
    const protocol::RemotingCommand &request, QByteArray *error)
{
    const bool v2 = request.code == toInt(RequestCode::SendMessageV2)
        || request.code == toInt(RequestCode::SendBatchMessage);
    // One pass over the ext fields (the first of duplicate keys wins, as RemotingCommand::ext).
    std::array<const QByteArray *, FieldCount> raw {};
    for (const auto &[key, value] : request.extFields) {
        const int i = fieldIndex(key, v2);
        if (i >= 0 && !raw[static_cast<std::size_t>(i)])
            raw[static_cast<std::size_t>(i)] = &value;
    }
    for (int i = 0; i < kRequiredCount; ++i) {
        if (!raw[static_cast<std::size_t>(i)]) {
            *error = missing((v2 ? kV2Names : kV1Names)[static_cast<std::size_t>(i)]);
            return std::nullopt;
        }
    }
    SendRequestHeader h;
    // Copies share the request's bytes (no allocation).
    h.producerGroup = *raw[ProducerGroup];
    h.topic = *raw[Topic];
    h.defaultTopic = *raw[DefaultTopic];
    const auto queueNums = toInt(raw[DefaultTopicQueueNums]);
    const auto queueId = toInt(raw[QueueId]);
    const auto sysFlag = toInt(raw[SysFlag]);
    const auto born = protocol::parseJavaLong(*raw[BornTimestamp]);
    const auto flag = toInt(raw[Flag]);
    if (!queueNums || !queueId || !sysFlag || !born || !flag) {
        *error
            = QByteArrayLiteral("malformed send message header: a numeric field is not a number");
        return std::nullopt;
    }
    h.defaultTopicQueueNums = *queueNums;
    h.queueId = *queueId;
    h.sysFlag = *sysFlag;
    h.bornTimestamp = *born;
    h.flag = *flag;
    if (raw[Properties])
        h.properties = *raw[Properties];
    h.reconsumeTimes = toInt(raw[ReconsumeTimes]).value_or(0);
    h.unitMode = raw[UnitMode] && protocol::parseJavaBoolean(*raw[UnitMode]);
    h.maxReconsumeTimes = toInt(raw[MaxReconsumeTimes]);
    h.batch = request.code == toInt(RequestCode::SendBatchMessage)
        || (raw[Batch] && protocol::parseJavaBoolean(*raw[Batch]));
    return h;
}

SendProperties prepareSendProperties(QByteArray &props, QByteArrayView cluster)
{
    namespace mc = protocol::MessageConst;
    using protocol::kNameValueSeparator;
    using protocol::kPropertySeparator;
    const char *const p = props.constData();
    const qsizetype n = props.size();
    QByteArrayView wait, tran, delay;
    // The WAIT and CLUSTER segments to drop, [start, end); more than fit here, or an empty
    // segment (which a rewrite drops too), leave the rewrite to replaceProperties.
    std::array<std::pair<qsizetype, qsizetype>, 4> drops;
    std::size_t dropCount = 0;
    bool rewrite = false;
    bool simple = true;
    for (qsizetype start = 0; start < n;) {
        const auto *sepAt = static_cast<const char *>(
            std::memchr(p + start, kPropertySeparator, static_cast<std::size_t>(n - start)));
        const qsizetype end = sepAt ? sepAt - p : n;
        simple = simple && end > start;
        const auto *eq = static_cast<const char *>(
            std::memchr(p + start, kNameValueSeparator, static_cast<std::size_t>(end - start)));
        if (eq && eq > p + start && eq < p + end - 1) { // a valid "name\x01value" segment
            const QByteArrayView name(p + start, eq - (p + start));
            const QByteArrayView value(eq + 1, p + end - (eq + 1));
            const bool isWait = name == mc::WaitStoreMsgOk;
            if (isWait || name == mc::Cluster) {
                if (isWait)
                    wait = value;
                rewrite = true;
                if (dropCount < drops.size())
                    drops[dropCount] = {start, end};
                simple = simple && dropCount < drops.size();
                ++dropCount;
            } else if (name == mc::TransactionPrepared) {
                tran = value;
            } else if (name == mc::DelayTimeLevel) {
                delay = value;
            }
        }
        start = end + 1;
    }
    SendProperties out;
    out.waitStoreMsgOk = wait.isNull() || wait.compare("false", Qt::CaseInsensitive) != 0;
    out.transactionPrepared = !tran.isNull() && tran.compare("true", Qt::CaseInsensitive) == 0;
    if (!delay.isNull()) {
        out.hasDelay = true;
        bool ok = false;
        const int level = delay.toByteArray().toInt(&ok);
        out.delayLevel = ok ? level : 0;
    }
    if (rewrite && !simple) {
        props = protocol::replaceProperties(props, {mc::WaitStoreMsgOk, mc::Cluster}, cluster);
    } else if (rewrite) {
        // Copy the runs of segments between the dropped ones, one separator between runs.
        QByteArray rewritten;
        rewritten.reserve(n + 1 + cluster.size());
        const auto addRun = [&](qsizetype from, qsizetype to) {
            if (to > from && p[to - 1] == kPropertySeparator)
                --to;
            if (to <= from)
                return;
            if (!rewritten.isEmpty())
                rewritten.append(kPropertySeparator);
            rewritten.append(p + from, to - from);
        };
        qsizetype from = 0;
        for (std::size_t i = 0; i < dropCount; ++i) {
            addRun(from, drops[i].first);
            from = drops[i].second + 1;
        }
        addRun(from, n);
        if (!rewritten.isEmpty())
            rewritten.append(kPropertySeparator);
        rewritten.append(cluster);
        props = std::move(rewritten);
    } else {
        if (!props.isEmpty() && !props.endsWith(kPropertySeparator))
            props.append(kPropertySeparator);
        props.append(cluster);
    }
    return out;
}

} // namespace qrocket::broker
