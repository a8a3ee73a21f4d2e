#include "clientlib/protocol/messageproperties.h"

#include "clientlib/protocol/dedupe.h"
#include "clientlib/protocol/messagecodec.h"

#include <algorithm>

namespace qrocket::protocol {

namespace {

/// Calls fn(name, value) for every segment the §5.3 parser keeps, in order.
template<typename Fn>
void forEachProperty(QByteArrayView text, Fn &&fn)
{
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf(kPropertySeparator, start);
        if (end < 0)
            end = text.size();
        const QByteArrayView segment = text.sliced(start, end - start);
        if (segment.size() >= 3) {
            const qsizetype sep = segment.indexOf(kNameValueSeparator);
            if (sep > 0 && sep < segment.size() - 1)
                fn(segment.first(sep), segment.sliced(sep + 1));
        }
        start = end + 1;
    }
}

/// A QByteArray over static text: copies share it without touching a reference count.
QByteArray staticText(QByteArrayView text)
{
    return QByteArray::fromRawData(text.data(), text.size());
}

/// The names interned by internedName(), and the two values most properties have (WAIT=true,
/// TRACE_ON=false).
const std::vector<QByteArray> &internedNames()
{
    namespace MC = MessageConst;
    static const std::vector<QByteArray> names = [] {
        std::vector<QByteArray> v;
        for (const QByteArrayView n : {MC::UniqClientMessageIdKeyIdx, MC::WaitStoreMsgOk, MC::Tags,
                 MC::Keys, MC::MinOffset, MC::MaxOffset, MC::ConsumeStartTimestamp, MC::TraceSwitch,
                 MC::MsgRegion, MC::DelayTimeLevel, MC::RetryTopic, MC::RealTopic, MC::RealQueueId,
                 MC::TransactionPrepared, MC::ProducerGroup, MC::ReconsumeTime,
                 MC::MaxReconsumeTimes, MC::OriginMessageId, MC::Cluster, MC::TransactionId,
                 MC::StartDeliverTime, MC::InstanceId, MC::CorrelationId, MC::ReplyToClient,
                 MC::Ttl, MC::MessageType, MC::InnerMultiDispatch, MC::InnerMultiQueueOffset,
                 MC::BuyerId, MC::TransferFlag, MC::CorrectionFlag, MC::Mq2Flag,
                 MC::TransactionPreparedQueueOffset, MC::TransactionCheckTimes,
                 MC::CheckImmunityTimeInSeconds, MC::ArriveTime, MC::PushReplyTime})
            v.push_back(staticText(n));
        return v;
    }();
    return names;
}

QByteArray internedValue(QByteArrayView value)
{
    if (value == "true")
        return staticText("true");
    if (value == "false")
        return staticText("false");
    return value.toByteArray();
}

bool encodable(const MessageProperties::Entry &e)
{
    return !e.first.isEmpty() && !e.second.isEmpty() && !e.first.contains(kNameValueSeparator)
        && !e.first.contains(kPropertySeparator) && !e.second.contains(kPropertySeparator);
}

} // namespace

MessageProperties MessageProperties::parse(QByteArrayView text)
{
    MessageProperties props;
    // Room for every segment and for the three a consumer adds (MIN_OFFSET, MAX_OFFSET,
    // CONSUME_START_TIME): no reallocation on the way to a listener.
    props.m_entries.reserve(
        static_cast<std::size_t>(std::count(text.begin(), text.end(), kPropertySeparator)) + 4);
    forEachProperty(text, [&](QByteArrayView name, QByteArrayView value) {
        props.m_entries.emplace_back(internedName(name), internedValue(value));
    });
    detail::dedupeKeepLastValue(props.m_entries);
    return props;
}

QByteArray MessageProperties::internedName(QByteArrayView name)
{
    for (const QByteArray &known : internedNames()) {
        if (known.size() == name.size() && known.front() == name.front() && known == name)
            return known;
    }
    return name.toByteArray();
}

QByteArray MessageProperties::encode() const
{
    qsizetype size = 0;
    for (const Entry &e : m_entries)
        size += e.first.size() + e.second.size() + 2;
    QByteArray out;
    out.reserve(size);
    for (const Entry &e : m_entries) {
        if (!encodable(e))
            continue;
        if (!out.isEmpty())
            out.append(kPropertySeparator);
        out.append(e.first);
        out.append(kNameValueSeparator);
        out.append(e.second);
    }
    return out;
}

namespace {

bool encodable(QByteArrayView name, QByteArrayView value)
{
    return !name.isEmpty() && !value.isEmpty() && !name.contains(kNameValueSeparator)
        && !name.contains(kPropertySeparator) && !value.contains(kPropertySeparator);
}

Result<QByteArray> lengthChecked(QByteArray out)
{
    if (out.size() > kMaxPropertiesLength)
        return Status::invalidArgument(
            QStringLiteral("properties of %1 bytes exceed the limit of %2 bytes")
                .arg(out.size())
                .arg(kMaxPropertiesLength));
    return out;
}

} // namespace

Result<QByteArray> MessageProperties::encodeCheckedAppending(
    QByteArrayView name, QByteArrayView value) const
{
    qsizetype size = name.size() + value.size() + 2;
    for (const Entry &e : m_entries)
        size += e.first.size() + e.second.size() + 2;
    QByteArray out;
    out.reserve(size);
    for (const Entry &e : m_entries) {
        if (!encodable(e))
            continue;
        if (!out.isEmpty())
            out.append(kPropertySeparator);
        out.append(e.first);
        out.append(kNameValueSeparator);
        out.append(e.second);
    }
    if (encodable(name, value)) {
        if (!out.isEmpty())
            out.append(kPropertySeparator);
        out.append(name);
        out.append(kNameValueSeparator);
        out.append(value);
    }
    return lengthChecked(std::move(out));
}

Result<QByteArray> MessageProperties::encodeChecked() const
{
    return lengthChecked(encode());
}

const QByteArray *MessageProperties::find(QByteArrayView name) const
{
    for (const Entry &e : m_entries) {
        if (e.first == name)
            return &e.second;
    }
    return nullptr;
}

QByteArray MessageProperties::value(QByteArrayView name, const QByteArray &fallback) const
{
    const QByteArray *v = find(name);
    return v ? *v : fallback;
}

void MessageProperties::set(QByteArray name, QByteArray value)
{
    for (Entry &e : m_entries) {
        if (e.first == name) {
            e.second = std::move(value);
            return;
        }
    }
    m_entries.emplace_back(std::move(name), std::move(value));
}

bool MessageProperties::remove(QByteArrayView name)
{
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
        if (it->first == name) {
            m_entries.erase(it);
            return true;
        }
    }
    return false;
}

QByteArrayView findProperty(QByteArrayView text, QByteArrayView name)
{
    QByteArrayView found;
    forEachProperty(text, [&](QByteArrayView n, QByteArrayView v) {
        if (n == name)
            found = v;
    });
    return found;
}

namespace {

/// Appends `text` to `out` without empty segments and without the valid segments whose name
/// `drop` matches (removeProperty's rewrite, shared by replaceProperties).
template<typename Pred>
void appendPropertiesWithout(QByteArray &out, QByteArrayView text, const Pred &drop)
{
    qsizetype start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf(kPropertySeparator, start);
        if (end < 0)
            end = text.size();
        const QByteArrayView segment = text.sliced(start, end - start);
        const qsizetype sep = segment.indexOf(kNameValueSeparator);
        const bool dropped = sep > 0 && sep < segment.size() - 1 && drop(segment.first(sep));
        if (!dropped && !segment.isEmpty()) {
            if (!out.isEmpty())
                out.append(kPropertySeparator);
            out.append(segment.data(), segment.size());
        }
        start = end + 1;
    }
}

} // namespace

QByteArray removeProperty(QByteArrayView text, QByteArrayView name)
{
    if (findProperty(text, name).isNull())
        return text.toByteArray();
    QByteArray out;
    out.reserve(text.size());
    appendPropertiesWithout(out, text, [name](QByteArrayView n) { return n == name; });
    return out;
}

QByteArray appendProperties(QByteArrayView base, QByteArrayView extra)
{
    QByteArray out;
    out.reserve(base.size() + 1 + extra.size());
    out.append(base.data(), base.size());
    if (!base.isEmpty() && !extra.isEmpty() && !base.endsWith(kPropertySeparator))
        out.append(kPropertySeparator);
    out.append(extra.data(), extra.size());
    return out;
}

QByteArray replaceProperties(
    QByteArrayView text, std::initializer_list<QByteArrayView> names, QByteArrayView extra)
{
    const auto named = [&names](QByteArrayView n) {
        for (QByteArrayView name : names) {
            if (n == name)
                return true;
        }
        return false;
    };
    bool present = false;
    forEachProperty(text, [&](QByteArrayView n, QByteArrayView) { present = present || named(n); });
    QByteArray out;
    out.reserve(text.size() + 1 + extra.size());
    if (!present) {
        out.append(text.data(), text.size());
    } else {
        appendPropertiesWithout(out, text, named);
    }
    if (!out.isEmpty() && !extra.isEmpty() && !out.endsWith(kPropertySeparator))
        out.append(kPropertySeparator);
    out.append(extra.data(), extra.size());
    return out;
}

} // namespace qrocket::protocol
