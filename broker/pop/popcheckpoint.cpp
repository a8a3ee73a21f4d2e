#include "broker/pop/popcheckpoint.h"

#include "clientlib/protocol/remotingcommand.h"

#include <algorithm>

namespace qrocket::broker::pop {

namespace {

constexpr std::size_t kMaxOffsets = 4096;

std::vector<QByteArrayView> fields(QByteArrayView body)
{
    std::vector<QByteArrayView> out;
    qsizetype from = 0;
    while (from <= body.size()) {
        qsizetype at = body.indexOf(' ', from);
        if (at < 0)
            at = body.size();
        out.push_back(body.sliced(from, at - from));
        from = at + 1;
        if (out.size() > 16)
            break;
    }
    return out;
}

std::optional<std::int64_t> number(QByteArrayView text)
{
    if (text.isEmpty())
        return std::nullopt;
    return protocol::parseJavaLong(text);
}

void appendOffsets(QByteArray &out, const std::vector<std::int64_t> &offsets)
{
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        if (i > 0)
            out += ',';
        out += QByteArray::number(offsets[i]);
    }
}

bool parseOffsets(QByteArrayView text, std::vector<std::int64_t> &out)
{
    qsizetype from = 0;
    while (from <= text.size()) {
        qsizetype at = text.indexOf(',', from);
        if (at < 0)
            at = text.size();
        const auto v = number(text.sliced(from, at - from));
        if (!v || out.size() >= kMaxOffsets)
            return false;
        out.push_back(*v);
        from = at + 1;
    }
    return !out.empty();
}

void appendHead(QByteArray &out, const char *type, const CheckPoint &ck)
{
    out += type;
    out += ' ';
    out += ck.group;
    out += ' ';
    out += ck.topic;
    out += ' ';
    out += QByteArray::number(ck.queueId);
    out += ' ';
    out += QByteArray::number(ck.startOffset);
    out += ' ';
    out += QByteArray::number(ck.popTime);
}

} // namespace

int CheckPoint::indexOf(std::int64_t offset) const
{
    const auto it = std::find(offsets.begin(), offsets.end(), offset);
    return it == offsets.end() ? -1 : static_cast<int>(it - offsets.begin());
}

int CheckPoint::inFlight() const
{
    return static_cast<int>(std::count(states.begin(), states.end(), OffsetState::InFlight));
}

bool CheckPoint::settled() const
{
    return inFlight() == 0;
}

QByteArray encodeCheckPoint(const CheckPoint &ck)
{
    QByteArray out;
    out.reserve(96 + ck.group.size() + ck.topic.size() + 12 * ck.offsets.size());
    appendHead(out, "CK", ck);
    out += ' ';
    out += QByteArray::number(ck.invisibleTime);
    out += ' ';
    out += QByteArray::number(ck.attempt);
    out += ck.order ? " 1 " : " 0 ";
    out += QByteArray::number(ck.nextBeginOffset);
    out += ' ';
    appendOffsets(out, ck.offsets);
    if (ck.movedFrom) {
        out += ' ';
        out += QByteArray::number(ck.movedFrom->startOffset);
        out += ' ';
        out += QByteArray::number(ck.movedFrom->popTime);
    }
    return out;
}

QByteArray encodeSettle(
    LogRecord::Type type, const CheckPoint &ck, const std::vector<std::int64_t> &offsets)
{
    QByteArray out;
    appendHead(out, type == LogRecord::Type::Ack ? "AK" : "RV", ck);
    out += ' ';
    appendOffsets(out, offsets);
    return out;
}

std::optional<LogRecord> parseLogRecord(QByteArrayView body)
{
    const std::vector<QByteArrayView> f = fields(body);
    if (f.size() < 7)
        return std::nullopt;
    LogRecord r;
    if (f[0] == "CK")
        r.type = LogRecord::Type::CheckPoint;
    else if (f[0] == "AK")
        r.type = LogRecord::Type::Ack;
    else if (f[0] == "RV")
        r.type = LogRecord::Type::Revive;
    else
        return std::nullopt;
    CheckPoint &ck = r.ck;
    ck.group = f[1].toByteArray();
    ck.topic = f[2].toByteArray();
    const auto queueId = number(f[3]);
    const auto start = number(f[4]);
    const auto popTime = number(f[5]);
    if (ck.group.isEmpty() || ck.topic.isEmpty() || !queueId || *queueId < 0 || *queueId > INT32_MAX
        || !start || !popTime)
        return std::nullopt;
    ck.queueId = static_cast<std::int32_t>(*queueId);
    ck.startOffset = *start;
    ck.popTime = *popTime;
    if (r.type != LogRecord::Type::CheckPoint) {
        if (f.size() != 7 || !parseOffsets(f[6], ck.offsets))
            return std::nullopt;
        return r;
    }
    if (f.size() != 11 && f.size() != 13)
        return std::nullopt;
    const auto invisible = number(f[6]);
    const auto attempt = number(f[7]);
    const auto next = number(f[9]);
    if (!invisible || !attempt || *attempt < 0 || *attempt > INT32_MAX || !next
        || (f[8] != "0" && f[8] != "1") || !parseOffsets(f[10], ck.offsets))
        return std::nullopt;
    ck.invisibleTime = *invisible;
    ck.attempt = static_cast<std::int32_t>(*attempt);
    ck.order = f[8] == "1";
    ck.nextBeginOffset = *next;
    ck.states.assign(ck.offsets.size(), OffsetState::InFlight);
    if (f.size() == 13) {
        const auto fromStart = number(f[11]);
        const auto fromPop = number(f[12]);
        if (!fromStart || !fromPop)
            return std::nullopt;
        ck.movedFrom = CheckPointKey {*fromStart, *fromPop};
    }
    return r;
}

} // namespace qrocket::broker::pop
