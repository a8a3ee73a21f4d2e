#include "clientlib/protocol/framecodec.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/headerdecode.h"
#include "clientlib/protocol/jsontext.h"

#include <charconv>
#include <cstring>

namespace qrocket::protocol {
namespace {

using detail::kBinaryMinHeader;
using detail::kBinaryRemarkOffset;

DecodeResult invalid(QString why)
{
    DecodeResult r;
    r.status = DecodeStatus::Invalid;
    r.error = std::move(why);
    return r;
}

template<std::size_t N>
char *putLit(char *p, const char (&s)[N])
{
    std::memcpy(p, s, N - 1);
    return p + N - 1;
}

char *putInt(char *p, int v)
{
    return std::to_chars(p, p + 11, v).ptr;
}

constexpr qsizetype kIntMax = 11; // "-2147483648"

/// Room for `s` quoted without scanning it: every byte could become a 6-byte \u00XX.
qsizetype quotedBound(QByteArrayView s)
{
    return 6 * s.size() + 2;
}

/// Upper bound of the JSON header's size, from the string sizes alone (no scan).
qsizetype jsonHeaderBound(const RemotingCommand &cmd)
{
    // {"code":,"flag":,"language":"","opaque":,"serializeTypeCurrentRPC":"JSON","version":}
    qsizetype n = 86 + 4 * kIntMax + 6;
    if (!cmd.extFields.empty()) {
        n += 15; // ,"extFields":{}
        for (const auto &[key, value] : cmd.extFields)
            n += quotedBound(key) + quotedBound(value) + 2;
    }
    if (!cmd.remark.isNull())
        n += 10 + quotedBound(cmd.remark); // ,"remark":
    return n;
}

/// Writes the JSON header at `p` (room for jsonHeaderBound() bytes); returns its end.
char *writeJsonHeader(const RemotingCommand &cmd, char *p)
{
    p = putLit(p, "{\"code\":");
    p = putInt(p, cmd.code);
    if (!cmd.extFields.empty()) {
        p = putLit(p, ",\"extFields\":{");
        bool first = true;
        for (const auto &[key, value] : cmd.extFields) {
            if (!first)
                *p++ = ',';
            first = false;
            p = jsontext::writeQuoted(p, key);
            *p++ = ':';
            p = jsontext::writeQuoted(p, value);
        }
        *p++ = '}';
    }
    p = putLit(p, ",\"flag\":");
    p = putInt(p, cmd.flag);
    p = putLit(p, ",\"language\":\"");
    const char *language = languageName(cmd.language);
    const std::size_t languageLen = std::strlen(language);
    std::memcpy(p, language, languageLen);
    p += languageLen;
    p = putLit(p, "\",\"opaque\":");
    p = putInt(p, cmd.opaque);
    if (!cmd.remark.isNull()) {
        p = putLit(p, ",\"remark\":");
        p = jsontext::writeQuoted(p, cmd.remark);
    }
    p = putLit(p, ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
    p = putInt(p, cmd.version);
    *p++ = '}';
    return p;
}

void appendJsonHeader(const RemotingCommand &cmd, QByteArray &out)
{
    const qsizetype start = out.size();
    out.resize(start + jsonHeaderBound(cmd));
    char *end = writeJsonHeader(cmd, out.data() + start);
    out.resize(end - out.constData());
}

void appendBinaryHeader(const RemotingCommand &cmd, QByteArray &out)
{
    const qsizetype start = out.size();
    qsizetype extLen = 0;
    for (const auto &[key, value] : cmd.extFields)
        extLen += 2 + key.size() + 4 + value.size();
    out.resize(start + kBinaryMinHeader + cmd.remark.size() + extLen);
    char *p = out.data() + start;
    writeI16(p, static_cast<std::int16_t>(cmd.code));
    p[2] = static_cast<char>(cmd.language);
    writeI16(p + 3, static_cast<std::int16_t>(cmd.version));
    writeI32(p + 5, cmd.opaque);
    writeI32(p + 9, cmd.flag);
    writeI32(p + 13, static_cast<std::int32_t>(cmd.remark.size()));
    p += kBinaryRemarkOffset;
    if (!cmd.remark.isEmpty())
        memcpy(p, cmd.remark.constData(), static_cast<size_t>(cmd.remark.size()));
    p += cmd.remark.size();
    writeI32(p, static_cast<std::int32_t>(extLen));
    p += 4;
    for (const auto &[key, value] : cmd.extFields) {
        writeI16(p, static_cast<std::int16_t>(key.size()));
        p += 2;
        if (!key.isEmpty())
            memcpy(p, key.constData(), static_cast<size_t>(key.size()));
        p += key.size();
        writeI32(p, static_cast<std::int32_t>(value.size()));
        p += 4;
        if (!value.isEmpty())
            memcpy(p, value.constData(), static_cast<size_t>(value.size()));
        p += value.size();
    }
}

} // namespace

namespace {

/// decodeFrame(), with the body copied from `input`, or a slice of `*share` (which holds `input`).
DecodeResult decodeFrameImpl(
    QByteArrayView input, const QByteArray *share, RemotingCommand &out, const FrameLimits &limits)
{
    if (input.size() < 4)
        return {};
    const std::int64_t length = readI32(input.data());
    if (length < 4)
        return invalid(
            QStringLiteral("frame length %1 is smaller than the header-length field").arg(length));
    if (length + 4 > limits.maxFrameBytes)
        return invalid(QStringLiteral("frame of %1 bytes exceeds the limit of %2 bytes")
                           .arg(length + 4)
                           .arg(limits.maxFrameBytes));
    if (input.size() < 8)
        return {};
    const std::uint32_t lenAndType = readU32(input.data() + 4);
    const std::uint32_t type = lenAndType >> 24;
    const std::int64_t headerLen = lenAndType & 0xFFFFFFu;
    if (type > 1)
        return invalid(QStringLiteral("unknown serialize type %1").arg(type));
    if (headerLen > length - 4)
        return invalid(QStringLiteral("header length %1 exceeds the frame length %2")
                           .arg(headerLen)
                           .arg(length));
    if (input.size() < length + 4)
        return {};

    const QByteArrayView header = input.sliced(8, headerLen);
    RemotingCommand cmd;
    QString error = type == 0 ? detail::decodeJsonHeader(header, cmd)
                              : detail::decodeBinaryHeader(header, cmd);
    if (!error.isEmpty())
        return invalid(std::move(error));
    const qsizetype bodyLen = length - 4 - headerLen;
    if (bodyLen > 0) {
        const char *body = input.data() + 8 + headerLen;
        if (share) {
            // data_ptr() has no const overload; copying it only takes one more reference.
            QByteArray::DataPointer slice = const_cast<QByteArray *>(share)->data_ptr();
            slice.ptr = const_cast<char *>(body); // written only after a detach
            slice.size = bodyLen;
            cmd.body = QByteArray(std::move(slice));
        } else {
            cmd.body = QByteArray(body, bodyLen);
        }
    }
    out = std::move(cmd);
    DecodeResult r;
    r.status = DecodeStatus::Ok;
    r.consumed = length + 4;
    return r;
}

} // namespace

DecodeResult decodeFrame(QByteArrayView input, RemotingCommand &out, const FrameLimits &limits)
{
    return decodeFrameImpl(input, nullptr, out, limits);
}

DecodeResult decodeFrameSharingBody(
    const QByteArray &buffer, qsizetype offset, RemotingCommand &out, const FrameLimits &limits)
{
    return decodeFrameImpl(QByteArrayView(buffer).sliced(offset), &buffer, out, limits);
}

qsizetype encodedFrameBound(const RemotingCommand &cmd)
{
    if (cmd.serializeType == SerializeType::RocketMQ) {
        qsizetype extLen = 0;
        for (const auto &[key, value] : cmd.extFields)
            extLen += 2 + key.size() + 4 + value.size();
        return 8 + kBinaryMinHeader + cmd.remark.size() + extLen + cmd.body.size();
    }
    return 8 + jsonHeaderBound(cmd) + cmd.body.size();
}

namespace {
/// encodeFrame(), or with `withBody` false its head only: the length prefix still counts the body,
/// which the caller sends right behind it.
void encodeFrameImpl(const RemotingCommand &cmd, QByteArray &out, bool withBody)
{
    // One size computation, at most one allocation, then plain stores.
    const qsizetype start = out.size();
    const qsizetype body = cmd.body.size();
    const qsizetype bound = encodedFrameBound(cmd) - (withBody ? 0 : body);
    if (out.capacity() < start + bound)
        out.reserve(std::max(start + bound, out.capacity() + out.capacity() / 2));
    qsizetype headerLen = 0;
    if (cmd.serializeType == SerializeType::RocketMQ) {
        out.resize(start + 8);
        appendBinaryHeader(cmd, out);
        headerLen = out.size() - start - 8;
        out.resize(start + bound);
    } else {
        out.resize(start + bound);
        char *header = out.data() + start + 8;
        headerLen = writeJsonHeader(cmd, header) - header;
    }
    char *p = out.data() + start;
    if (withBody && body > 0)
        std::memcpy(p + 8 + headerLen, cmd.body.constData(), static_cast<std::size_t>(body));
    const qsizetype frameLen = 8 + headerLen + body;
    out.resize(start + 8 + headerLen + (withBody ? body : 0));
    writeI32(p, static_cast<std::int32_t>(frameLen - 4));
    const std::uint32_t type = cmd.serializeType == SerializeType::RocketMQ ? 1u : 0u;
    writeU32(p + 4, (type << 24) | (static_cast<std::uint32_t>(headerLen) & 0xFFFFFFu));
}
} // namespace

void encodeFrame(const RemotingCommand &cmd, QByteArray &out)
{
    encodeFrameImpl(cmd, out, true);
}

void encodeFrameHead(const RemotingCommand &cmd, QByteArray &out)
{
    encodeFrameImpl(cmd, out, false);
}

void appendSendOkFrame(QByteArray &out, int opaque, QByteArrayView msgId, int queueId,
    std::int64_t queueOffset, QByteArrayView region, bool traceOn)
{
    // The same stores writeJsonHeader() makes for that command, its fields known in advance.
    constexpr qsizetype kLongMax = 20; // "-9223372036854775808"
    const qsizetype start = out.size();
    const qsizetype bound
        = 8 + 200 + 4 * kIntMax + kLongMax + quotedBound(msgId) + quotedBound(region);
    if (out.capacity() < start + bound)
        out.reserve(std::max(start + bound, out.capacity() + out.capacity() / 2));
    out.resize(start + bound);
    char *const frame = out.data() + start;
    char *const header = frame + 8;
    char *p = putLit(header, "{\"code\":0,\"extFields\":{\"msgId\":");
    p = jsontext::writeQuoted(p, msgId);
    p = putLit(p, ",\"queueId\":\"");
    p = putInt(p, queueId);
    p = putLit(p, "\",\"queueOffset\":\"");
    p = std::to_chars(p, p + kLongMax, queueOffset).ptr;
    p = putLit(p, "\",\"MSG_REGION\":");
    p = jsontext::writeQuoted(p, region);
    p = traceOn ? putLit(p, ",\"TRACE_ON\":\"true\"},\"flag\":")
                : putLit(p, ",\"TRACE_ON\":\"false\"},\"flag\":");
    p = putInt(p, RemotingCommand::kFlagResponse);
    p = putLit(p, ",\"language\":\"");
    const char *language = languageName(LanguageCode::Java);
    const std::size_t languageLen = std::strlen(language);
    std::memcpy(p, language, languageLen);
    p += languageLen;
    p = putLit(p, "\",\"opaque\":");
    p = putInt(p, opaque);
    p = putLit(p, ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
    p = putInt(p, kQRocketVersion);
    *p++ = '}';
    const qsizetype headerLen = p - header;
    out.resize(start + 8 + headerLen);
    writeI32(frame, static_cast<std::int32_t>(4 + headerLen));
    writeU32(frame + 4, static_cast<std::uint32_t>(headerLen) & 0xFFFFFFu);
}

QByteArray encodeFrame(const RemotingCommand &cmd)
{
    QByteArray out;
    encodeFrame(cmd, out);
    if (out.capacity() - out.size() > out.size() / 2 + 4096)
        out.squeeze(); // a header of heavily escaped text: do not keep 6x its size
    return out;
}

QByteArray encodeJsonHeader(const RemotingCommand &cmd)
{
    QByteArray out;
    appendJsonHeader(cmd, out);
    return out;
}

QByteArray encodeBinaryHeader(const RemotingCommand &cmd)
{
    QByteArray out;
    appendBinaryHeader(cmd, out);
    return out;
}

} // namespace qrocket::protocol
