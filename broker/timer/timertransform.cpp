#include "broker/timer/timertransform.h"

#include "broker/schedule/scheduletransform.h"
#include "clientlib/common/byteorder.h"
#include "clientlib/common/hash.h"
#include "clientlib/protocol/messageproperties.h"
#include "clientlib/protocol/responsecode.h"

#include <QHashFunctions>

#include <charconv>
#include <limits>

namespace qrocket::broker::timer {

using protocol::MessageProperties;
namespace MessageConst = protocol::MessageConst;

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

/// A whole decimal int64 (optional leading '-'), as Long.parseLong accepts it.
std::optional<std::int64_t> parseLong(QByteArrayView text)
{
    std::int64_t v = 0;
    const char *b = text.data();
    const char *e = b + text.size();
    if (b != e && *b == '+')
        ++b;
    const auto [ptr, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || ptr != e || b == e)
        return std::nullopt;
    return v;
}

bool addOverflows(std::int64_t a, std::int64_t b, std::int64_t &out)
{
    return __builtin_add_overflow(a, b, &out);
}

} // namespace

TimerRules rulesOf(const storage::MessageStoreConfig &config)
{
    TimerRules r;
    r.enabled = config.timerWheelEnable;
    r.precisionMs = config.normalizedTimerPrecisionMs();
    r.maxDelayMs = static_cast<std::int64_t>(config.timerMaxDelaySec) * 1000;
    return r;
}

DueTime dueTimeOf(QByteArrayView properties, std::int64_t now)
{
    DueTime d;
    const QByteArrayView sec = protocol::findProperty(properties, prop::DelaySec);
    const QByteArrayView ms = protocol::findProperty(properties, prop::DelayMs);
    const QByteArrayView at = protocol::findProperty(properties, prop::DeliverMs);
    if (sec.isNull() && ms.isNull() && at.isNull())
        return d;
    d.present = true;
    if (!sec.isNull()) {
        const auto v = parseLong(sec);
        std::int64_t delayMs = 0;
        d.illegal = !v || __builtin_mul_overflow(*v, std::int64_t {1000}, &delayMs)
            || addOverflows(now, delayMs, d.dueMs);
    } else if (!ms.isNull()) {
        const auto v = parseLong(ms);
        d.illegal = !v || addOverflows(now, *v, d.dueMs);
    } else {
        const auto v = parseLong(at);
        d.illegal = !v;
        d.dueMs = v.value_or(0);
    }
    return d;
}

std::int64_t slotTimeOf(std::int64_t t, std::int64_t precisionMs)
{
    const std::int64_t p = precisionMs > 0 ? precisionMs : 1000;
    const std::int64_t q = t / p;
    return (t % p == 0) ? t : (q + (t > 0 ? 1 : 0)) * p;
}

TimerOutcome applyTimer(storage::MessageExtBrokerInner &msg, std::int64_t now,
    const TimerRules &rules, std::int64_t *slotMs)
{
    const std::int32_t tx = msg.sysFlag & protocol::SysFlag::TransactionMask;
    if (tx != protocol::SysFlag::TransactionNot && tx != protocol::SysFlag::TransactionCommit)
        return TimerOutcome::NotTimer;
    if (!mayCarryTimer(msg.properties) || msg.topic == kTimerTopic)
        return TimerOutcome::NotTimer;
    const QByteArrayView level
        = protocol::findProperty(msg.properties, MessageConst::DelayTimeLevel);
    if (!level.isNull() && level.toInt() > 0) {
        // A delay level wins: the timer properties go.
        MessageProperties props = MessageProperties::parse(msg.properties);
        bool changed = props.remove(prop::DeliverMs);
        changed |= props.remove(prop::DelaySec);
        changed |= props.remove(prop::DelayMs);
        if (changed)
            msg.properties = props.encode();
        return TimerOutcome::NotTimer;
    }
    if (!protocol::findProperty(msg.properties, prop::OutMs).isNull())
        return TimerOutcome::NotTimer; // delivered before: never timed again
    const DueTime due = dueTimeOf(msg.properties, now);
    if (!due.present)
        return TimerOutcome::NotTimer;
    if (!rules.enabled)
        return TimerOutcome::Disabled;
    if (due.illegal)
        return TimerOutcome::Illegal;
    const bool marker = !protocol::findProperty(msg.properties, prop::DelUniqKey).isNull();
    if (due.dueMs <= now)
        return marker ? TimerOutcome::Illegal : TimerOutcome::AtOnce;
    if (due.dueMs - now > rules.maxDelayMs)
        return TimerOutcome::Illegal;
    const std::int64_t slot = slotTimeOf(due.dueMs, rules.precisionMs);
    MessageProperties props = MessageProperties::parse(msg.properties);
    props.set(prop::OutMs.toByteArray(), QByteArray::number(slot));
    props.set(MessageConst::RealTopic.toByteArray(), msg.topic);
    props.set(MessageConst::RealQueueId.toByteArray(), QByteArray::number(msg.queueId));
    msg.properties = props.encode();
    msg.topic = kTimerTopic.toByteArray();
    msg.queueId = 0;
    msg.tagsCode = marker ? -slot : slot;
    if (slotMs)
        *slotMs = slot;
    return TimerOutcome::Parked;
}

std::optional<Refusal> applyOnSend(const storage::MessageStoreConfig &config,
    storage::MessageExtBrokerInner &msg, std::int64_t now, std::int64_t *slot)
{
    if (!mayCarryTimer(msg.properties))
        return std::nullopt;
    const TimerRules rules = rulesOf(config);
    switch (applyTimer(msg, now, rules, slot)) {
    case TimerOutcome::Illegal:
        return Refusal {toInt(protocol::ResponseCode::MessageIllegal), illegalRemark(rules)};
    case TimerOutcome::Disabled:
        return Refusal {toInt(protocol::ResponseCode::SystemError), disabledRemark(rules)};
    case TimerOutcome::NotTimer:
    case TimerOutcome::AtOnce:
    case TimerOutcome::Parked:
        break;
    }
    return std::nullopt;
}

QByteArray illegalRemark(const TimerRules &rules)
{
    return QByteArrayLiteral("timer message illegal, the delay time should not be bigger than the "
                             "max delay ")
        + QByteArray::number(rules.maxDelayMs)
        + QByteArrayLiteral("ms; or if set del msg, the delay time should be bigger than the "
                            "current time");
}

QByteArray disabledRemark(const TimerRules &rules)
{
    return QByteArrayLiteral("accurate timer message is not enabled, timerWheelEnable is ")
        + (rules.enabled ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
}

std::int64_t timerTagsCode(const protocol::MessageRecordView &record)
{
    const auto out = parseLong(protocol::findProperty(record.properties, prop::OutMs));
    if (!out || *out <= 0)
        return 0;
    return protocol::findProperty(record.properties, prop::DelUniqKey).isNull() ? *out : -*out;
}

QByteArray deleteKey(QByteArrayView realTopic, QByteArrayView uniqKey)
{
    QByteArray k;
    k.reserve(realTopic.size() + 1 + uniqKey.size());
    k.append(realTopic).append('+').append(uniqKey);
    return k;
}

Result<storage::MessageExtBrokerInner> timerMessageTimeUp(const protocol::MessageRecordView &record,
    const protocol::HostAddress &storeHost, std::int64_t dequeueMs)
{
    MessageProperties props = MessageProperties::parse(record.properties);
    props.set(prop::EnqueueMs.toByteArray(), QByteArray::number(record.storeTimestamp));
    props.set(prop::DequeueMs.toByteArray(), QByteArray::number(dequeueMs));
    return schedule::restoreParked(record, std::move(props), storeHost, u"timer");
}

bool isDeliveryOf(
    const protocol::MessageRecordView &delivered, const protocol::MessageRecordView &source)
{
    if (delivered.bornTimestamp != source.bornTimestamp || delivered.body != source.body)
        return false;
    const QByteArrayView deq = protocol::findProperty(delivered.properties, prop::DequeueMs);
    if (deq.isNull())
        return false;
    if (delivered.topic != protocol::findProperty(source.properties, MessageConst::RealTopic))
        return false;
    if (QByteArray::number(delivered.queueId)
        != protocol::findProperty(source.properties, MessageConst::RealQueueId))
        return false;
    if (protocol::findProperty(delivered.properties, prop::EnqueueMs)
        != QByteArray::number(source.storeTimestamp))
        return false;
    return protocol::findProperty(delivered.properties, MessageConst::UniqClientMessageIdKeyIdx)
        == protocol::findProperty(source.properties, MessageConst::UniqClientMessageIdKeyIdx);
}

namespace {

std::uint64_t digestOf(QByteArrayView topic, QByteArrayView queueId, std::int64_t born,
    QByteArrayView enqueueMs, QByteArrayView uniqKey, QByteArrayView body)
{
    // A hit is confirmed with isDeliveryOf() on both records: the digest only has to spread.
    return qHashMulti(
        std::size_t(0x9e3779b97f4a7c15ULL), topic, queueId, born, enqueueMs, uniqKey, body);
}

} // namespace

std::optional<std::uint64_t> deliveryDigest(const protocol::MessageRecordView &delivered)
{
    if (delivered.topic == kTimerTopic)
        return std::nullopt;
    if (protocol::findProperty(delivered.properties, prop::DequeueMs).isNull())
        return std::nullopt;
    const QByteArray queueId = QByteArray::number(delivered.queueId);
    return digestOf(delivered.topic, queueId, delivered.bornTimestamp,
        protocol::findProperty(delivered.properties, prop::EnqueueMs),
        protocol::findProperty(delivered.properties, MessageConst::UniqClientMessageIdKeyIdx),
        delivered.body);
}

std::uint64_t parkedDigest(const protocol::MessageRecordView &source)
{
    const QByteArray storeTime = QByteArray::number(source.storeTimestamp);
    return digestOf(protocol::findProperty(source.properties, MessageConst::RealTopic),
        protocol::findProperty(source.properties, MessageConst::RealQueueId), source.bornTimestamp,
        storeTime,
        protocol::findProperty(source.properties, MessageConst::UniqClientMessageIdKeyIdx),
        source.body);
}

QByteArray encodeRecallHandle(QByteArrayView topic, QByteArrayView brokerName,
    std::int64_t timestampMs, QByteArrayView uniqKey)
{
    QByteArray raw = QByteArrayLiteral("v1 ");
    raw.append(topic).append(' ').append(brokerName).append(' ');
    raw.append(QByteArray::number(timestampMs)).append(' ').append(uniqKey);
    return raw.toBase64(QByteArray::Base64UrlEncoding);
}

std::optional<RecallHandle> decodeRecallHandle(QByteArrayView handle)
{
    if (handle.isEmpty() || handle.size() > 4096)
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(handle.toByteArray(),
        QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    const QList<QByteArray> items = decoded.decoded.split(' ');
    if (items.size() < 5 || items[0] != "v1")
        return std::nullopt;
    return RecallHandle {items[1], items[2], items[3], items[4]};
}

std::uint32_t recordMark(QByteArrayView record)
{
    // BODYCRC at 8, SYSFLAG at 36, BORNHOST at 48 (8 bytes, 20 for IPv6), then STORETIMESTAMP.
    if (record.size() < 64)
        return 0;
    const char *d = record.data();
    const bool bornV6 = (readI32(d + 36) & protocol::SysFlag::BornHostV6) != 0;
    const qsizetype storeTsAt = 48 + (bornV6 ? 20 : 8);
    if (record.size() < storeTsAt + 8)
        return 0;
    const auto ts = static_cast<std::uint64_t>(readI64(d + storeTsAt));
    const std::uint32_t mark = static_cast<std::uint32_t>(readI32(d + 8))
        ^ (static_cast<std::uint32_t>(ts) * 0x9E3779B1u) ^ static_cast<std::uint32_t>(ts >> 32);
    return mark == 0 ? 1 : mark;
}

} // namespace qrocket::broker::timer
