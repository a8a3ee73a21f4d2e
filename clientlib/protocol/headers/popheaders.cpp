#include "clientlib/protocol/headers/popheaders.h"

namespace qrocket::protocol {

QROCKET_HEADER_CODEC_IMPL(PopMessageRequestHeader,
    headerField<&PopMessageRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&PopMessageRequestHeader::topic>("topic", kRequired),
    headerField<&PopMessageRequestHeader::queueId>("queueId", kRequired),
    headerField<&PopMessageRequestHeader::maxMsgNums>("maxMsgNums", kRequired),
    headerField<&PopMessageRequestHeader::invisibleTime>("invisibleTime", kRequired),
    headerField<&PopMessageRequestHeader::pollTime>("pollTime", kRequired),
    headerField<&PopMessageRequestHeader::bornTime>("bornTime", kRequired),
    headerField<&PopMessageRequestHeader::initMode>("initMode", kRequired),
    headerField<&PopMessageRequestHeader::expType>("expType", kOptional),
    headerField<&PopMessageRequestHeader::exp>("exp", kOptional),
    headerField<&PopMessageRequestHeader::order>("order", kOptional),
    headerField<&PopMessageRequestHeader::attemptId>("attemptId", kOptional))

QROCKET_HEADER_CODEC_IMPL(PopMessageResponseHeader,
    headerField<&PopMessageResponseHeader::popTime>("popTime", kRequired),
    headerField<&PopMessageResponseHeader::invisibleTime>("invisibleTime", kRequired),
    headerField<&PopMessageResponseHeader::reviveQid>("reviveQid", kRequired),
    headerField<&PopMessageResponseHeader::restNum>("restNum", kRequired),
    headerField<&PopMessageResponseHeader::startOffsetInfo>("startOffsetInfo", kOptional),
    headerField<&PopMessageResponseHeader::msgOffsetInfo>("msgOffsetInfo", kOptional),
    headerField<&PopMessageResponseHeader::orderCountInfo>("orderCountInfo", kOptional))

QROCKET_HEADER_CODEC_IMPL(AckMessageRequestHeader,
    headerField<&AckMessageRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&AckMessageRequestHeader::topic>("topic", kRequired),
    headerField<&AckMessageRequestHeader::queueId>("queueId", kRequired),
    headerField<&AckMessageRequestHeader::extraInfo>("extraInfo", kRequired),
    headerField<&AckMessageRequestHeader::offset>("offset", kRequired))

QROCKET_HEADER_CODEC_IMPL(ChangeInvisibleTimeRequestHeader,
    headerField<&ChangeInvisibleTimeRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&ChangeInvisibleTimeRequestHeader::topic>("topic", kRequired),
    headerField<&ChangeInvisibleTimeRequestHeader::queueId>("queueId", kRequired),
    headerField<&ChangeInvisibleTimeRequestHeader::extraInfo>("extraInfo", kRequired),
    headerField<&ChangeInvisibleTimeRequestHeader::offset>("offset", kRequired),
    headerField<&ChangeInvisibleTimeRequestHeader::invisibleTime>("invisibleTime", kRequired))

QROCKET_HEADER_CODEC_IMPL(ChangeInvisibleTimeResponseHeader,
    headerField<&ChangeInvisibleTimeResponseHeader::popTime>("popTime", kRequired),
    headerField<&ChangeInvisibleTimeResponseHeader::invisibleTime>("invisibleTime", kRequired),
    headerField<&ChangeInvisibleTimeResponseHeader::reviveQid>("reviveQid", kRequired))

QROCKET_HEADER_CODEC_IMPL(PeekMessageRequestHeader,
    headerField<&PeekMessageRequestHeader::topic>("topic", kRequired),
    headerField<&PeekMessageRequestHeader::queueId>("queueId", kRequired),
    headerField<&PeekMessageRequestHeader::maxMsgNums>("maxMsgNums", kRequired),
    headerField<&PeekMessageRequestHeader::consumerGroup>("consumerGroup", kRequired))

QROCKET_HEADER_CODEC_IMPL(NotificationRequestHeader,
    headerField<&NotificationRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&NotificationRequestHeader::topic>("topic", kRequired),
    headerField<&NotificationRequestHeader::queueId>("queueId", kRequired),
    headerField<&NotificationRequestHeader::pollTime>("pollTime", kRequired),
    headerField<&NotificationRequestHeader::bornTime>("bornTime", kRequired),
    headerField<&NotificationRequestHeader::order>("order", kOptional),
    headerField<&NotificationRequestHeader::attemptId>("attemptId", kOptional))

QROCKET_HEADER_CODEC_IMPL(NotificationResponseHeader,
    headerField<&NotificationResponseHeader::hasMsg>("hasMsg", kRequired),
    headerField<&NotificationResponseHeader::pollingFull>("pollingFull", kOptional))

QROCKET_HEADER_CODEC_IMPL(PollingInfoRequestHeader,
    headerField<&PollingInfoRequestHeader::consumerGroup>("consumerGroup", kRequired),
    headerField<&PollingInfoRequestHeader::topic>("topic", kRequired),
    headerField<&PollingInfoRequestHeader::queueId>("queueId", kRequired))

QROCKET_HEADER_CODEC_IMPL(PollingInfoResponseHeader,
    headerField<&PollingInfoResponseHeader::pollingNum>("pollingNum", kRequired))

QROCKET_HEADER_CODEC_IMPL(GetTopicConfigRequestHeader,
    headerField<&GetTopicConfigRequestHeader::topic>("topic", kRequired),
    headerField<&GetTopicConfigRequestHeader::lo>("lo", kOptional))

QROCKET_HEADER_CODEC_IMPL(GetSubscriptionGroupConfigRequestHeader,
    headerField<&GetSubscriptionGroupConfigRequestHeader::group>("group", kRequired))

namespace {

constexpr QByteArrayView kRetryPrefix = "%RETRY%";

std::optional<std::int64_t> number(QByteArrayView text)
{
    if (text.isEmpty())
        return std::nullopt;
    return parseJavaLong(text);
}

std::optional<std::int32_t> int32(QByteArrayView text)
{
    const auto v = number(text);
    if (!v || *v < INT32_MIN || *v > INT32_MAX)
        return std::nullopt;
    return static_cast<std::int32_t>(*v);
}

bool validRetry(QByteArrayView flag)
{
    return flag.size() == 1 && (flag[0] == '0' || flag[0] == '1' || flag[0] == '2');
}

/// Splits at `sep` (empty pieces kept, as Java's split keeps inner ones).
std::vector<QByteArrayView> split(QByteArrayView text, char sep)
{
    std::vector<QByteArrayView> out;
    qsizetype from = 0;
    for (;;) {
        const qsizetype at = text.indexOf(sep, from);
        if (at < 0) {
            out.push_back(text.sliced(from));
            return out;
        }
        out.push_back(text.sliced(from, at - from));
        from = at + 1;
    }
}

void appendHead(QByteArray &out, char retry, int queueId)
{
    if (!out.isEmpty())
        out += ';';
    out += retry;
    out += ' ';
    out += QByteArray::number(queueId);
    out += ' ';
}

} // namespace

QByteArray popRetryTopicV1(QByteArrayView topic, QByteArrayView group)
{
    return kRetryPrefix.toByteArray() + group.toByteArray() + '_' + topic.toByteArray();
}

QByteArray popRetryTopicV2(QByteArrayView topic, QByteArrayView group)
{
    return kRetryPrefix.toByteArray() + group.toByteArray() + '+' + topic.toByteArray();
}

char popRetryFlag(QByteArrayView topic)
{
    if (!topic.startsWith(kRetryPrefix))
        return '0';
    return topic.contains('+') ? '2' : '1';
}

std::optional<QByteArray> popRealTopic(QByteArrayView topic, QByteArrayView group, char retry)
{
    switch (retry) {
    case '0':
        return topic.toByteArray();
    case '1':
        return popRetryTopicV1(topic, group);
    case '2':
        return popRetryTopicV2(topic, group);
    default:
        return std::nullopt;
    }
}

QByteArray ExtraInfo::toString() const
{
    QByteArray out;
    out.reserve(64 + brokerName.size());
    out += QByteArray::number(ckQueueOffset);
    out += ' ';
    out += QByteArray::number(popTime);
    out += ' ';
    out += QByteArray::number(invisibleTime);
    out += ' ';
    out += QByteArray::number(reviveQid);
    out += ' ';
    out += retry;
    out += ' ';
    out += brokerName;
    out += ' ';
    out += QByteArray::number(queueId);
    if (queueOffset >= 0) {
        out += ' ';
        out += QByteArray::number(queueOffset);
    }
    return out;
}

std::optional<ExtraInfo> ExtraInfo::parse(QByteArrayView text)
{
    const std::vector<QByteArrayView> f = split(text, ' ');
    if (f.size() < 7 || !validRetry(f[4]))
        return std::nullopt;
    ExtraInfo e;
    const auto ck = number(f[0]);
    const auto popTime = number(f[1]);
    const auto invisible = number(f[2]);
    const auto revive = int32(f[3]);
    const auto queueId = int32(f[6]);
    if (!ck || !popTime || !invisible || !revive || !queueId)
        return std::nullopt;
    e.ckQueueOffset = *ck;
    e.popTime = *popTime;
    e.invisibleTime = *invisible;
    e.reviveQid = *revive;
    e.retry = f[4][0];
    e.brokerName = f[5].toByteArray();
    e.queueId = *queueId;
    if (f.size() >= 8) {
        const auto offset = number(f[7]);
        if (!offset)
            return std::nullopt;
        e.queueOffset = *offset;
    }
    return e;
}

void appendStartOffsetInfo(QByteArray &out, char retry, int queueId, std::int64_t startOffset)
{
    appendHead(out, retry, queueId);
    out += QByteArray::number(startOffset);
}

void appendMsgOffsetInfo(
    QByteArray &out, char retry, int queueId, const std::vector<std::int64_t> &offsets)
{
    appendHead(out, retry, queueId);
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        if (i > 0)
            out += ',';
        out += QByteArray::number(offsets[i]);
    }
}

void appendOrderCountInfo(QByteArray &out, char retry, int queueId, int count)
{
    appendHead(out, retry, queueId);
    out += QByteArray::number(count);
}

std::optional<std::vector<QueueOffsetInfo>> parseStartOffsetInfo(QByteArrayView text)
{
    std::vector<QueueOffsetInfo> out;
    if (text.isEmpty())
        return out;
    for (QByteArrayView one : split(text, ';')) {
        const std::vector<QByteArrayView> f = split(one, ' ');
        if (f.size() != 3 || !validRetry(f[0]))
            return std::nullopt;
        const auto queueId = int32(f[1]);
        const auto value = number(f[2]);
        if (!queueId || !value)
            return std::nullopt;
        out.push_back({f[0][0], *queueId, *value});
    }
    return out;
}

std::optional<std::vector<QueueMsgOffsets>> parseMsgOffsetInfo(QByteArrayView text)
{
    std::vector<QueueMsgOffsets> out;
    if (text.isEmpty())
        return out;
    for (QByteArrayView one : split(text, ';')) {
        const std::vector<QByteArrayView> f = split(one, ' ');
        if (f.size() != 3 || !validRetry(f[0]))
            return std::nullopt;
        const auto queueId = int32(f[1]);
        if (!queueId)
            return std::nullopt;
        QueueMsgOffsets q {f[0][0], *queueId, {}};
        for (QByteArrayView o : split(f[2], ',')) {
            const auto v = number(o);
            if (!v)
                return std::nullopt;
            q.offsets.push_back(*v);
        }
        out.push_back(std::move(q));
    }
    return out;
}

} // namespace qrocket::protocol
