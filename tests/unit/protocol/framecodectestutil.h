#pragma once

// Helpers shared by tst_framecodec and tst_jsonheader: frames built by hand, a reference quoting
// and canonical JSON values to compare the codec's output with.

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/framecodec.h"
#include "clientlib/protocol/jsontext.h"

#include <QJsonValue>
#include <QRandomGenerator>

namespace framecodectest {

using namespace qrocket;
using namespace qrocket::protocol;

inline QByteArray canonical(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String:
        return v.toString().toUtf8();
    case QJsonValue::Bool:
        return v.toBool() ? QByteArrayLiteral("true") : QByteArrayLiteral("false");
    case QJsonValue::Double:
        return QByteArray::number(v.toInteger());
    default:
        return QByteArrayLiteral("<unexpected>");
    }
}

inline QByteArray frameOf(quint32 typeByte, QByteArrayView header, QByteArrayView body = {})
{
    QByteArray f(8, '\0');
    writeI32(f.data(), static_cast<std::int32_t>(4 + header.size() + body.size()));
    writeU32(f.data() + 4, (typeByte << 24) | static_cast<quint32>(header.size()));
    f.append(header.data(), header.size());
    f.append(body.data(), body.size());
    return f;
}

inline QByteArray jsonFrame(const char *header, QByteArrayView body = {})
{
    return frameOf(0, QByteArrayView(header), body);
}

inline bool sameCommand(const RemotingCommand &a, const RemotingCommand &b)
{
    return a.code == b.code && a.language == b.language && a.version == b.version
        && a.opaque == b.opaque && a.flag == b.flag
        && a.remark == b.remark
        // A ROCKETMQ header cannot tell an empty remark from none (length 0 = null, §1.4).
        && (a.remark.isNull() == b.remark.isNull() || a.serializeType == SerializeType::RocketMQ)
        && a.extFields == b.extFields && a.body == b.body && a.serializeType == b.serializeType;
}

/// JSON string quoting as fastjson writes it: '"', '\\' and control characters escaped (short
/// forms for \b \f \n \r \t, else \u00xx), every other byte raw. Byte by byte, as a reference
/// for the encoder's word-at-a-time paths.
inline QByteArray referenceQuoted(QByteArrayView s)
{
    QByteArray out("\"");
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\b':
            out += "\\b";
            break;
        case '\f':
            out += "\\f";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20)
                out += QByteArray("\\u00") + QByteArray::number(c >> 4, 16)
                    + QByteArray::number(c & 0xF, 16);
            else
                out += ch;
        }
    }
    out += '"';
    return out;
}

/// A random string of 0..`maxLen` bytes, mostly plain text with the bytes JSON must escape, a
/// backslash-u lookalike and UTF-8 mixed in.
inline QByteArray randomText(QRandomGenerator &rng, int maxLen)
{
    static const char special[] = {'"', '\\', '\b', '\f', '\n', '\r', '\t', '\x01', '\x02', '\x1f',
        '\x7f', 'u', '/', '\'', '\0'};
    QByteArray s;
    const int n = static_cast<int>(rng.bounded(maxLen + 1));
    for (int i = 0; i < n; ++i) {
        const quint32 kind = rng.bounded(10);
        if (kind == 0)
            s += special[rng.bounded(static_cast<quint32>(sizeof special))];
        else if (kind == 1)
            s += static_cast<char>(0x80 + rng.bounded(0x80));
        else
            s += static_cast<char>('0' + rng.bounded(75));
    }
    return s;
}

// A hand-written ROCKETMQ (type 1) header per protocol.md §1.4.
inline QByteArray binaryHeader(std::int16_t code, std::uint8_t lang, std::int16_t version,
    std::int32_t opaque, std::int32_t flag, QByteArrayView remark,
    const std::vector<std::pair<QByteArray, QByteArray>> &ext)
{
    QByteArray h(17, '\0');
    writeI16(h.data(), code);
    h[2] = static_cast<char>(lang);
    writeI16(h.data() + 3, version);
    writeI32(h.data() + 5, opaque);
    writeI32(h.data() + 9, flag);
    writeI32(h.data() + 13, static_cast<std::int32_t>(remark.size()));
    h.append(remark.data(), remark.size());
    QByteArray map;
    for (const auto &[k, v] : ext) {
        char buf[4];
        writeI16(buf, static_cast<std::int16_t>(k.size()));
        map.append(buf, 2);
        map.append(k);
        writeI32(buf, static_cast<std::int32_t>(v.size()));
        map.append(buf, 4);
        map.append(v);
    }
    char len[4];
    writeI32(len, static_cast<std::int32_t>(map.size()));
    h.append(len, 4);
    h.append(map);
    return h;
}

} // namespace framecodectest
