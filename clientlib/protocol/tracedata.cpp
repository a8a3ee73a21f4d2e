// Message trace records (tracedata.h): RocketMQ 4.9's TraceDataEncoder format.

#include "clientlib/protocol/tracedata.h"

#include <array>
#include <charconv>

namespace qrocket::protocol::trace {

namespace {

constexpr QByteArrayView kNull = "null";

void field(QByteArray &out, QByteArrayView value)
{
    out.append(value);
    out.append(kContentSeparator);
}

/// Java appends a null String as "null"; an absent tag, key list or transaction id is null.
void nullable(QByteArray &out, const QByteArray &value)
{
    field(out, value.isEmpty() ? kNull : QByteArrayView(value));
}

void number(QByteArray &out, std::int64_t value)
{
    std::array<char, 24> buf {};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
    (void)ec;
    field(out, QByteArrayView(buf.data(), end - buf.data()));
}

void boolean(QByteArray &out, bool value)
{
    field(out, value ? QByteArrayView("true") : QByteArrayView("false"));
}

/// Replaces the record's last kContentSeparator with the kFieldSeparator that ends it.
void endRecord(QByteArray &out)
{
    out.back() = kFieldSeparator;
}

template<typename T>
bool parseNumber(QByteArrayView text, T &out)
{
    if (text.isEmpty())
        return false;
    const char *begin = text.data();
    if (*begin == '+' && text.size() > 1)
        ++begin;
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

/// Java's Boolean.parseBoolean.
bool parseBool(QByteArrayView text)
{
    return text.compare("true", Qt::CaseInsensitive) == 0;
}

QByteArray nullToEmpty(QByteArrayView text)
{
    return text == kNull ? QByteArray() : text.toByteArray();
}

/// Java's String.split: the pieces between separators, trailing empty pieces dropped.
std::vector<QByteArrayView> split(QByteArrayView text, char separator)
{
    std::vector<QByteArrayView> parts;
    qsizetype start = 0;
    for (qsizetype i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == separator) {
            parts.push_back(text.sliced(start, i - start));
            start = i + 1;
        }
    }
    while (!parts.empty() && parts.back().isEmpty())
        parts.pop_back();
    return parts;
}

bool decodePub(const std::vector<QByteArrayView> &f, TraceRecord &r)
{
    int msgType = 0;
    if (f.size() < 12 || !parseNumber(f[1], r.timestamp) || !parseNumber(f[9], r.bodyLength)
        || !parseNumber(f[10], r.costTime) || !parseNumber(f[11], msgType) || msgType < 0
        || msgType > static_cast<int>(TraceMessageType::Delay))
        return false;
    r.regionId = f[2].toByteArray();
    r.groupName = f[3].toByteArray();
    r.topic = f[4].toByteArray();
    r.msgId = f[5].toByteArray();
    r.tags = nullToEmpty(f[6]);
    r.keys = nullToEmpty(f[7]);
    r.storeHost = f[8].toByteArray();
    r.msgType = static_cast<TraceMessageType>(msgType);
    if (f.size() == 13) {
        r.success = parseBool(f[12]);
    } else if (f.size() >= 14) {
        r.offsetMsgId = f[12].toByteArray();
        r.success = parseBool(f[13]);
        if (f.size() >= 15)
            r.clientHost = f[14].toByteArray();
    }
    return true;
}

bool decodeSubBefore(const std::vector<QByteArrayView> &f, TraceRecord &r)
{
    if (f.size() < 8 || !parseNumber(f[1], r.timestamp) || !parseNumber(f[6], r.retryTimes))
        return false;
    r.regionId = f[2].toByteArray();
    r.groupName = f[3].toByteArray();
    r.requestId = f[4].toByteArray();
    r.msgId = f[5].toByteArray();
    r.keys = nullToEmpty(f[7]);
    return true;
}

bool decodeSubAfter(const std::vector<QByteArrayView> &f, TraceRecord &r)
{
    if (f.size() < 6 || !parseNumber(f[3], r.costTime))
        return false;
    r.requestId = f[1].toByteArray();
    r.msgId = f[2].toByteArray();
    r.success = parseBool(f[4]);
    r.keys = nullToEmpty(f[5]);
    if (f.size() >= 7 && !parseNumber(f[6], r.contextCode))
        return false;
    if (f.size() >= 9) {
        if (!parseNumber(f[7], r.timestamp))
            return false;
        r.groupName = f[8].toByteArray();
    }
    return true;
}

bool decodeEndTransaction(const std::vector<QByteArrayView> &f, TraceRecord &r)
{
    int msgType = 0;
    if (f.size() < 13 || !parseNumber(f[1], r.timestamp) || !parseNumber(f[9], msgType)
        || msgType < 0 || msgType > static_cast<int>(TraceMessageType::Delay))
        return false;
    r.regionId = f[2].toByteArray();
    r.groupName = f[3].toByteArray();
    r.topic = f[4].toByteArray();
    r.msgId = f[5].toByteArray();
    r.tags = nullToEmpty(f[6]);
    r.keys = nullToEmpty(f[7]);
    r.storeHost = f[8].toByteArray();
    r.msgType = static_cast<TraceMessageType>(msgType);
    r.transactionId = nullToEmpty(f[10]);
    r.transactionState = f[11].toByteArray();
    r.fromTransactionCheck = parseBool(f[12]);
    return true;
}

} // namespace

const char *traceTypeName(TraceType type)
{
    switch (type) {
    case TraceType::Pub:
        return "Pub";
    case TraceType::SubBefore:
        return "SubBefore";
    case TraceType::SubAfter:
        return "SubAfter";
    case TraceType::EndTransaction:
        return "EndTransaction";
    }
    return "Pub";
}

void appendRecord(QByteArray &out, const TraceRecord &r)
{
    field(out, traceTypeName(r.type));
    switch (r.type) {
    case TraceType::Pub:
        number(out, r.timestamp);
        field(out, r.regionId);
        field(out, r.groupName);
        field(out, r.topic);
        field(out, r.msgId);
        nullable(out, r.tags);
        nullable(out, r.keys);
        field(out, r.storeHost);
        number(out, r.bodyLength);
        number(out, r.costTime);
        number(out, static_cast<int>(r.msgType));
        field(out, r.offsetMsgId);
        boolean(out, r.success);
        break;
    case TraceType::SubBefore:
        number(out, r.timestamp);
        field(out, r.regionId);
        field(out, r.groupName);
        field(out, r.requestId);
        field(out, r.msgId);
        number(out, r.retryTimes);
        nullable(out, r.keys);
        break;
    case TraceType::SubAfter:
        field(out, r.requestId);
        field(out, r.msgId);
        number(out, r.costTime);
        boolean(out, r.success);
        nullable(out, r.keys);
        number(out, r.contextCode);
        number(out, r.timestamp);
        field(out, r.groupName);
        break;
    case TraceType::EndTransaction:
        number(out, r.timestamp);
        field(out, r.regionId);
        field(out, r.groupName);
        field(out, r.topic);
        field(out, r.msgId);
        nullable(out, r.tags);
        nullable(out, r.keys);
        field(out, r.storeHost);
        number(out, static_cast<int>(r.msgType));
        nullable(out, r.transactionId);
        field(out, r.transactionState);
        boolean(out, r.fromTransactionCheck);
        break;
    }
    endRecord(out);
}

QByteArray encodeRecord(const TraceRecord &record)
{
    QByteArray out;
    out.reserve(256);
    appendRecord(out, record);
    return out;
}

void appendTraceKeys(std::vector<QByteArray> &keys, const TraceRecord &record)
{
    if (!record.msgId.isEmpty())
        keys.push_back(record.msgId);
    for (QByteArrayView key : split(record.keys, ' ')) {
        if (!key.isEmpty())
            keys.push_back(key.toByteArray());
    }
}

std::vector<TraceRecord> decodeRecords(QByteArrayView body, int *malformed)
{
    std::vector<TraceRecord> out;
    int bad = 0;
    for (QByteArrayView text : split(body, kFieldSeparator)) {
        if (text.isEmpty())
            continue;
        const std::vector<QByteArrayView> f = split(text, kContentSeparator);
        TraceRecord r;
        bool ok = false;
        if (f.empty()) {
            ok = false;
        } else if (f[0] == "Pub") {
            r.type = TraceType::Pub;
            ok = decodePub(f, r);
        } else if (f[0] == "SubBefore") {
            r.type = TraceType::SubBefore;
            ok = decodeSubBefore(f, r);
        } else if (f[0] == "SubAfter") {
            r.type = TraceType::SubAfter;
            ok = decodeSubAfter(f, r);
        } else if (f[0] == "EndTransaction") {
            r.type = TraceType::EndTransaction;
            ok = decodeEndTransaction(f, r);
        }
        if (ok)
            out.push_back(std::move(r));
        else
            ++bad;
    }
    if (malformed)
        *malformed = bad;
    return out;
}

} // namespace qrocket::protocol::trace
