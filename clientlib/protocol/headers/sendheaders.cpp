#include "clientlib/protocol/headers/sendheaders.h"

#include "clientlib/protocol/requestcode.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <utility>

namespace qrocket::protocol {

namespace {

using H = SendMessageRequestHeader;

const HeaderField<H> kV1Fields[] = {
    headerField<&H::producerGroup>("producerGroup", kRequired),
    headerField<&H::topic>("topic", kRequired),
    headerField<&H::defaultTopic>("defaultTopic", kRequired),
    headerField<&H::defaultTopicQueueNums>("defaultTopicQueueNums", kRequired),
    headerField<&H::queueId>("queueId", kRequired),
    headerField<&H::sysFlag>("sysFlag", kRequired),
    headerField<&H::bornTimestamp>("bornTimestamp", kRequired),
    headerField<&H::flag>("flag", kRequired),
    headerField<&H::properties>("properties", kOptional),
    headerField<&H::reconsumeTimes>("reconsumeTimes", kOptional),
    headerField<&H::unitMode>("unitMode", kOptional),
    headerField<&H::batch>("batch", kOptional),
    headerField<&H::maxReconsumeTimes>("maxReconsumeTimes", kOptional),
    headerField<&H::brokerName>("bname", kOptional),
};

// Same members, Java's SendMessageRequestHeaderV2 keys (createSendMessageRequestHeaderV2).
const HeaderField<H> kV2Fields[] = {
    headerField<&H::producerGroup>("a", kRequired),
    headerField<&H::topic>("b", kRequired),
    headerField<&H::defaultTopic>("c", kRequired),
    headerField<&H::defaultTopicQueueNums>("d", kRequired),
    headerField<&H::queueId>("e", kRequired),
    headerField<&H::sysFlag>("f", kRequired),
    headerField<&H::bornTimestamp>("g", kRequired),
    headerField<&H::flag>("h", kRequired),
    headerField<&H::properties>("i", kOptional),
    headerField<&H::reconsumeTimes>("j", kOptional),
    headerField<&H::unitMode>("k", kOptional),
    headerField<&H::maxReconsumeTimes>("l", kOptional),
    headerField<&H::batch>("m", kOptional),
    headerField<&H::brokerName>("n", kOptional),
};

} // namespace

bool SendMessageRequestHeader::usesV2(int code)
{
    return code == toInt(RequestCode::SendMessageV2) || code == toInt(RequestCode::SendBatchMessage)
        || code == toInt(RequestCode::SendReplyMessageV2);
}

namespace {

// The decoder's field indexes: the V2 key of field i is the letter 'a' + i, its V1 name
// kV1Names[i] (the encode tables above list the same fields).
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
    BrokerName,
    FieldCount,
};
constexpr int kRequiredCount = Properties; // fields 0..7 are required

constexpr std::array<const char *, FieldCount> kV1Names {"producerGroup", "topic", "defaultTopic",
    "defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp", "flag", "properties",
    "reconsumeTimes", "unitMode", "maxReconsumeTimes", "batch", "bname"};
constexpr std::array<const char *, FieldCount> kV2Names {
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"};

const char *fieldName(int field, bool v2)
{
    return (v2 ? kV2Names : kV1Names)[static_cast<std::size_t>(field)];
}

using RawFields = std::array<const QByteArray *, FieldCount>;

int fieldIndex(const QByteArray &key, bool v2)
{
    if (v2) {
        const char c = key.size() == 1 ? key.at(0) : '\0';
        return c >= 'a' && c < 'a' + FieldCount ? c - 'a' : -1;
    }
    for (int i = 0; i < FieldCount; ++i) {
        if (key == kV1Names[static_cast<std::size_t>(i)])
            return i;
    }
    return -1;
}

/// One pass over the ext fields; the first of duplicate keys wins, as RemotingCommand::ext.
RawFields scan(const RemotingCommand &cmd, bool v2)
{
    RawFields raw {};
    for (const auto &[key, value] : cmd.extFields) {
        const int i = fieldIndex(key, v2);
        if (i >= 0 && !raw[static_cast<std::size_t>(i)])
            raw[static_cast<std::size_t>(i)] = &value;
    }
    return raw;
}

/// Integer.parseInt's answer for what is not one or two plain digits.
std::optional<std::int32_t> parseInt32(const QByteArray &raw)
{
    const auto v = parseJavaLong(raw);
    if (!v || *v < INT32_MIN || *v > INT32_MAX)
        return std::nullopt;
    return static_cast<std::int32_t>(*v);
}

/// Integer.parseInt's answer: Long.parseLong, then the int32 range. One or two plain digits
/// (queue ids, flags, counts: most of a send's numbers) need no general parse; Long.parseLong
/// reads them the same way.
inline std::optional<std::int32_t> toInt32(const QByteArray &raw)
{
    const char *p = raw.constData();
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (raw.size() == 1 && digit(p[0]))
        return p[0] - '0';
    if (raw.size() == 2 && digit(p[0]) && digit(p[1]))
        return (p[0] - '0') * 10 + (p[1] - '0');
    return parseInt32(raw);
}

/// The first field decode could not read.
struct Problem
{
    enum Kind { None, Missing, NotANumber } kind = None;
    int field = -1;
};

/// The one send-header decoder. `lenient` is the broker's reading: every required field's
/// presence is checked before any number, and an optional number that does not parse reads
/// as absent; otherwise the fields are read in order and the first problem refuses the header.
/// The strings share the request's bytes.
Problem decodeFields(const RawFields &raw, bool lenient, SendMessageRequestHeader &h)
{
    if (lenient) {
        for (int i = 0; i < kRequiredCount; ++i) {
            if (!raw[static_cast<std::size_t>(i)])
                return {Problem::Missing, i};
        }
    }
    const auto str = [&raw](Field f, QByteArray &out) {
        if (const QByteArray *v = raw[f])
            out = v->isNull() ? QByteArray("", 0) : *v;
    };
    const auto requiredInt = [&raw](Field f, std::int32_t &out) -> Problem {
        if (!raw[f])
            return {Problem::Missing, f};
        const auto v = toInt32(*raw[f]);
        if (!v)
            return {Problem::NotANumber, f};
        out = *v;
        return {};
    };
    const auto optionalInt = [&raw, lenient](Field f, std::optional<std::int32_t> &out) -> Problem {
        if (!raw[f])
            return {};
        out = toInt32(*raw[f]);
        return out || lenient ? Problem {} : Problem {Problem::NotANumber, f};
    };
    for (Field f : {ProducerGroup, Topic, DefaultTopic}) {
        if (!raw[f])
            return {Problem::Missing, f};
    }
    str(ProducerGroup, h.producerGroup);
    str(Topic, h.topic);
    str(DefaultTopic, h.defaultTopic);
    for (auto [f, member] : {std::pair {DefaultTopicQueueNums, &h.defaultTopicQueueNums},
             std::pair {QueueId, &h.queueId}, std::pair {SysFlag, &h.sysFlag}}) {
        if (Problem p = requiredInt(f, *member); p.kind != Problem::None)
            return p;
    }
    if (!raw[BornTimestamp])
        return {Problem::Missing, BornTimestamp};
    const auto born = parseJavaLong(*raw[BornTimestamp]);
    if (!born)
        return {Problem::NotANumber, BornTimestamp};
    h.bornTimestamp = *born;
    if (Problem p = requiredInt(Flag, h.flag); p.kind != Problem::None)
        return p;
    str(Properties, h.properties);
    if (Problem p = optionalInt(ReconsumeTimes, h.reconsumeTimes); p.kind != Problem::None)
        return p;
    h.unitMode = raw[UnitMode] && parseJavaBoolean(*raw[UnitMode]);
    if (Problem p = optionalInt(MaxReconsumeTimes, h.maxReconsumeTimes); p.kind != Problem::None)
        return p;
    h.batch = raw[Batch] && parseJavaBoolean(*raw[Batch]);
    str(BrokerName, h.brokerName);
    return {};
}

Result<SendMessageRequestHeader> decodeStrict(const RemotingCommand &cmd, bool v2)
{
    const RawFields raw = scan(cmd, v2);
    SendMessageRequestHeader h;
    const Problem p = decodeFields(raw, false, h);
    const char *header = v2 ? "SendMessageRequestHeaderV2" : "SendMessageRequestHeader";
    switch (p.kind) {
    case Problem::None:
        return h;
    case Problem::Missing:
        return detail::missingField(header, fieldName(p.field, v2));
    case Problem::NotANumber:
        break;
    }
    return detail::badNumber(header, fieldName(p.field, v2),
        *raw[static_cast<std::size_t>(p.field)], p.field == BornTimestamp ? "a long" : "an int");
}

} // namespace

Result<SendMessageRequestHeader> SendMessageRequestHeader::decode(const RemotingCommand &cmd)
{
    return decodeStrict(cmd, usesV2(cmd.code));
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::decodeV1(const RemotingCommand &cmd)
{
    return decodeStrict(cmd, false);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::decodeV2(const RemotingCommand &cmd)
{
    return decodeStrict(cmd, true);
}

std::optional<SendMessageRequestHeader> SendMessageRequestHeader::decodeSend(
    const RemotingCommand &cmd, QByteArray *remark)
{
    const bool v2 = usesV2(cmd.code);
    std::optional<SendMessageRequestHeader> h(std::in_place); // decoded in place: no moves
    const Problem p = decodeFields(scan(cmd, v2), true, *h);
    switch (p.kind) {
    case Problem::None:
        return h;
    case Problem::Missing:
        *remark = QByteArrayLiteral("the custom field <") + fieldName(p.field, v2)
            + QByteArrayLiteral("> is null");
        break;
    case Problem::NotANumber:
        *remark
            = QByteArrayLiteral("malformed send message header: a numeric field is not a number");
        break;
    }
    return std::nullopt;
}

void SendMessageRequestHeader::encode(RemotingCommand &cmd) const
{
    if (usesV2(cmd.code))
        encodeV2(cmd);
    else
        encodeV1(cmd);
}

void SendMessageRequestHeader::encodeV1(RemotingCommand &cmd) const
{
    encodeHeader<H>(*this, cmd, kV1Fields);
}

namespace {

/// The bytes [from, from + len) of `whole` as a QByteArray sharing its storage (one reference
/// more, no copy); `whole` has a '\0' behind each slice, so constData() stays terminated.
QByteArray sharedSlice(const QByteArray &whole, qsizetype from, qsizetype len)
{
    // data_ptr() has no const overload; copying it only takes one more reference.
    QByteArray::DataPointer d = const_cast<QByteArray &>(whole).data_ptr();
    d.ptr += from; // written only after a detach
    d.size = len;
    return QByteArray(std::move(d));
}

/// A one-letter V2 key: static storage, no allocation.
QByteArray v2Key(const char *key)
{
    return QByteArray::fromRawData(key, 1);
}

} // namespace

void SendMessageRequestHeader::encodeV2(RemotingCommand &cmd) const
{
    if (!cmd.extFields.empty()) { // setExt's replace-or-append semantics: the general path
        encodeHeader<H>(*this, cmd, kV2Fields);
        return;
    }
    // Every send's header (the hot path): the same fields in the same order as the table, but
    // static keys, and all numbers written into one buffer the values share: two allocations
    // instead of one per key, per number and per vector growth.
    constexpr qsizetype kNumberRoom = 12 + 12 + 12 + 21 + 12 + 12 + 12; // each with its '\0'
    QByteArray numbers(kNumberRoom, Qt::Uninitialized);
    char *const base = numbers.data();
    char *p = base;
    struct Span
    {
        qsizetype from = 0;
        qsizetype len = 0;
    };
    auto put = [&](std::int64_t v) {
        const qsizetype from = p - base;
        p = std::to_chars(p, base + kNumberRoom, v).ptr;
        const Span s {from, (p - base) - from};
        *p++ = '\0';
        return s;
    };
    const Span d = put(defaultTopicQueueNums);
    const Span e = put(queueId);
    const Span f = put(sysFlag);
    const Span g = put(bornTimestamp);
    const Span h = put(flag);
    const Span j = reconsumeTimes ? put(*reconsumeTimes) : Span {};
    const Span l = maxReconsumeTimes ? put(*maxReconsumeTimes) : Span {};
    auto number = [&](const Span &s) { return sharedSlice(numbers, s.from, s.len); };
    auto &x = cmd.extFields;
    x.reserve(14);
    auto text = [&](const char *key, const QByteArray &v) {
        if (!v.isNull())
            x.emplace_back(v2Key(key), v);
    };
    auto boolean = [&](const char *key, bool v) {
        x.emplace_back(v2Key(key), v ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
    };
    text("a", producerGroup);
    text("b", topic);
    text("c", defaultTopic);
    x.emplace_back(v2Key("d"), number(d));
    x.emplace_back(v2Key("e"), number(e));
    x.emplace_back(v2Key("f"), number(f));
    x.emplace_back(v2Key("g"), number(g));
    x.emplace_back(v2Key("h"), number(h));
    text("i", properties);
    if (reconsumeTimes)
        x.emplace_back(v2Key("j"), number(j));
    boolean("k", unitMode);
    if (maxReconsumeTimes)
        x.emplace_back(v2Key("l"), number(l));
    boolean("m", batch);
    text("n", brokerName);
}

QROCKET_HEADER_CODEC_IMPL(SendMessageResponseHeader,
    headerField<&SendMessageResponseHeader::msgId>("msgId", kRequired),
    headerField<&SendMessageResponseHeader::queueId>("queueId", kRequired),
    headerField<&SendMessageResponseHeader::queueOffset>("queueOffset", kRequired),
    headerField<&SendMessageResponseHeader::transactionId>("transactionId", kOptional),
    headerField<&SendMessageResponseHeader::msgRegion>("MSG_REGION", kOptional),
    headerField<&SendMessageResponseHeader::traceOn>("TRACE_ON", kOptional))

} // namespace qrocket::protocol
