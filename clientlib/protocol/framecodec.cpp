#include "clientlib/protocol/framecodec.h"

#include "clientlib/common/byteorder.h"
#include "clientlib/protocol/dedupe.h"
#include "clientlib/protocol/jsontext.h"

#include <limits>

namespace qrocket::protocol {

namespace {

using jsontext::skipSpace;

constexpr int kMaxSkipDepth = 32;
constexpr qsizetype kBinaryRemarkOffset = 17; // code, language, version, opaque, flag, remarkLen
constexpr qsizetype kBinaryMinHeader = 21; // ... plus the extFields length (§1.4)

/// Hand-written scanner for the one flat JSON object of a type-0 header (§1.2, §1.7).
class JsonHeaderScanner
{
public:
    JsonHeaderScanner(QByteArrayView text, RemotingCommand &cmd) : m_text(text), m_cmd(cmd) { }

    /// Empty on success, else the reason.
    QString run()
    {
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size() || m_text[m_pos] != '{')
            return QStringLiteral("JSON header is not an object");
        ++m_pos;
        skipSpace(m_text, m_pos);
        if (!consume('}')) {
            for (;;) {
                if (!parseMember())
                    return m_error;
                skipSpace(m_text, m_pos);
                if (consume(','))
                    continue;
                if (consume('}'))
                    break;
                return fail("expected ',' or '}'");
            }
        }
        skipSpace(m_text, m_pos); // cpp ends its header with "\n"
        if (m_pos != m_text.size())
            return fail("trailing bytes after the JSON header object");
        return {};
    }

private:
    bool consume(char c)
    {
        if (m_pos < m_text.size() && m_text[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }

    QString fail(const char *what)
    {
        m_error = QStringLiteral("invalid JSON header at byte %1: %2")
                      .arg(m_pos)
                      .arg(QLatin1String(what));
        return m_error;
    }
    bool failed(const char *what)
    {
        fail(what);
        return false;
    }

    bool scanKey(QByteArray &key)
    {
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size() || m_text[m_pos] != '"')
            return failed("expected a quoted key");
        if (!jsontext::scanString(m_text, m_pos, key))
            return failed("bad string");
        skipSpace(m_text, m_pos);
        if (!consume(':'))
            return failed("expected ':'");
        skipSpace(m_text, m_pos);
        return true;
    }

    bool parseInt(int &out, const char *field)
    {
        QByteArrayView literal;
        bool isInteger = false;
        std::optional<std::int64_t> v;
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            // Tolerate a quoted number.
            QByteArray s;
            if (!jsontext::scanString(m_text, m_pos, s))
                return failed("bad string");
            v = jsontext::parseInteger(s);
        } else if (jsontext::scanNumber(m_text, m_pos, literal, isInteger)) {
            v = isInteger ? jsontext::parseInteger(literal)
                          : jsontext::parseInteger(jsontext::canonicalNumber(literal, false));
        } else {
            return failed(field);
        }
        if (!v || *v < std::numeric_limits<std::int32_t>::min()
            || *v > std::numeric_limits<std::int32_t>::max())
            return failed(field);
        out = static_cast<int>(*v);
        return true;
    }

    bool parseMember()
    {
        QByteArray key;
        if (!scanKey(key))
            return false;
        if (key == "code")
            return parseInt(m_cmd.code, "code is not an int32");
        if (key == "flag")
            return parseInt(m_cmd.flag, "flag is not an int32");
        if (key == "opaque")
            return parseInt(m_cmd.opaque, "opaque is not an int32");
        if (key == "version")
            return parseInt(m_cmd.version, "version is not an int32");
        if (key == "language")
            return parseLanguageValue();
        if (key == "remark")
            return parseRemark();
        if (key == "extFields")
            return parseExtFields();
        return skipValue(0);
    }

    bool parseLanguageValue()
    {
        QByteArray text;
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            if (!jsontext::scanString(m_text, m_pos, text))
                return failed("bad string");
        } else {
            QByteArrayView literal;
            bool isInteger = false;
            if (!jsontext::scanNumber(m_text, m_pos, literal, isInteger) || !isInteger)
                return failed("language is neither a name nor an ordinal");
            text = literal.toByteArray();
        }
        // Unknown languages are recorded as OTHER rather than rejected.
        m_cmd.language = parseLanguage(text).value_or(LanguageCode::Other);
        return true;
    }

    bool parseRemark()
    {
        if (m_pos < m_text.size() && m_text[m_pos] == '"') {
            if (!jsontext::scanString(m_text, m_pos, m_cmd.remark))
                return failed("bad string");
            if (m_cmd.remark.isNull())
                m_cmd.remark = QByteArray("", 0); // present but empty
            return true;
        }
        if (keyword("null")) {
            m_cmd.remark = QByteArray();
            return true;
        }
        return failed("remark is not a string");
    }

    bool keyword(const char *word)
    {
        const QByteArrayView w(word);
        if (m_text.sliced(m_pos).startsWith(w)) {
            m_pos += w.size();
            return true;
        }
        return false;
    }

    /// A scalar ext value as its canonical string; `present` false for null.
    bool parseExtValue(QByteArray &out, bool &present)
    {
        present = true;
        if (m_pos >= m_text.size())
            return failed("unexpected end");
        const char c = m_text[m_pos];
        if (c == '"') {
            if (!jsontext::scanString(m_text, m_pos, out))
                return failed("bad string");
            if (out.isNull())
                out = QByteArray("", 0);
            return true;
        }
        if (keyword("true")) {
            out = QByteArrayLiteral("true");
            return true;
        }
        if (keyword("false")) {
            out = QByteArrayLiteral("false");
            return true;
        }
        if (keyword("null")) {
            present = false;
            return true;
        }
        QByteArrayView number;
        bool isInteger = false;
        if (jsontext::scanNumber(m_text, m_pos, number, isInteger)) {
            out = jsontext::canonicalNumber(number, isInteger);
            return true;
        }
        if (c == '{' || c == '[')
            return failed("extFields value is not a scalar");
        return failed("bad extFields value");
    }

    bool parseExtFields()
    {
        if (keyword("null"))
            return true;
        if (!consume('{'))
            return failed("extFields is not an object");
        m_cmd.extFields.clear();
        m_cmd.extFields.reserve(16);
        skipSpace(m_text, m_pos);
        if (consume('}'))
            return true;
        for (;;) {
            QByteArray key;
            if (!scanKey(key))
                return false;
            QByteArray value;
            bool present = false;
            if (!parseExtValue(value, present))
                return false;
            // null (Java: absent) is kept as a null value until duplicates are resolved.
            m_cmd.extFields.emplace_back(std::move(key), present ? std::move(value) : QByteArray());
            skipSpace(m_text, m_pos);
            if (consume(','))
                continue;
            if (consume('}')) {
                detail::dedupeKeepLastValue(m_cmd.extFields);
                std::erase_if(m_cmd.extFields, [](const auto &f) { return f.second.isNull(); });
                return true;
            }
            return failed("expected ',' or '}' in extFields");
        }
    }

    /// Skips any JSON value of an unknown key.
    bool skipValue(int depth)
    {
        if (depth > kMaxSkipDepth)
            return failed("nesting too deep");
        skipSpace(m_text, m_pos);
        if (m_pos >= m_text.size())
            return failed("unexpected end");
        const char c = m_text[m_pos];
        if (c == '"') {
            QByteArray ignored;
            return jsontext::scanString(m_text, m_pos, ignored) || failed("bad string");
        }
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++m_pos;
            skipSpace(m_text, m_pos);
            if (consume(close))
                return true;
            for (;;) {
                if (c == '{') {
                    QByteArray ignored;
                    if (!scanKey(ignored))
                        return false;
                }
                if (!skipValue(depth + 1))
                    return false;
                skipSpace(m_text, m_pos);
                if (consume(','))
                    continue;
                if (consume(close))
                    return true;
                return failed("expected ',' or a closing bracket");
            }
        }
        if (keyword("true") || keyword("false") || keyword("null"))
            return true;
        QByteArrayView number;
        bool isInteger = false;
        if (jsontext::scanNumber(m_text, m_pos, number, isInteger))
            return true;
        return failed("unexpected character");
    }

    QByteArrayView m_text;
    RemotingCommand &m_cmd;
    qsizetype m_pos = 0;
    QString m_error;
};

QString decodeBinaryHeader(QByteArrayView h, RemotingCommand &cmd)
{
    if (h.size() < kBinaryMinHeader)
        return QStringLiteral("binary header truncated: %1 bytes, need at least %2")
            .arg(h.size())
            .arg(kBinaryMinHeader);
    const char *p = h.data();
    cmd.code = readI16(p);
    const auto lang = static_cast<std::uint8_t>(p[2]);
    cmd.language = lang <= static_cast<std::uint8_t>(LanguageCode::Rust)
        ? static_cast<LanguageCode>(lang)
        : LanguageCode::Other;
    cmd.version = readI16(p + 3);
    cmd.opaque = readI32(p + 5);
    cmd.flag = readI32(p + 9);
    const std::int32_t remarkLen = readI32(p + 13);
    qsizetype pos = kBinaryRemarkOffset;
    if (remarkLen < 0 || remarkLen > h.size() - pos)
        return QStringLiteral("binary header remark length %1 beyond the header").arg(remarkLen);
    if (remarkLen > 0)
        cmd.remark = QByteArray(p + pos, remarkLen);
    pos += remarkLen;
    if (h.size() - pos < 4)
        return QStringLiteral("binary header truncated before the extFields length");
    const std::int32_t extLen = readI32(p + pos);
    pos += 4;
    if (extLen < 0 || extLen > h.size() - pos)
        return QStringLiteral("binary header extFields length %1 beyond the header").arg(extLen);
    const qsizetype end = pos + extLen;
    while (pos < end) {
        if (end - pos < 2)
            return QStringLiteral("binary header extFields: truncated key length");
        const std::int16_t keyLen = readI16(p + pos);
        pos += 2;
        if (keyLen < 0 || keyLen > end - pos)
            return QStringLiteral("binary header extFields: key length %1 beyond the map")
                .arg(keyLen);
        QByteArray key(p + pos, keyLen);
        pos += keyLen;
        if (end - pos < 4)
            return QStringLiteral("binary header extFields: truncated value length");
        const std::int32_t valLen = readI32(p + pos);
        pos += 4;
        if (valLen < 0 || valLen > end - pos)
            return QStringLiteral("binary header extFields: value length %1 beyond the map")
                .arg(valLen);
        cmd.extFields.emplace_back(
            std::move(key), valLen > 0 ? QByteArray(p + pos, valLen) : QByteArray("", 0));
        pos += valLen;
    }
    detail::dedupeKeepLastValue(cmd.extFields);
    return {};
}

template<std::size_t N>
void appendLit(QByteArray &out, const char (&s)[N])
{
    out.append(s, static_cast<qsizetype>(N - 1));
}

DecodeResult invalid(QString why)
{
    DecodeResult r;
    r.status = DecodeStatus::Invalid;
    r.error = std::move(why);
    return r;
}

void appendJsonHeader(const RemotingCommand &cmd, QByteArray &out)
{
    appendLit(out, "{\"code\":");
    out.append(QByteArray::number(cmd.code));
    if (!cmd.extFields.empty()) {
        appendLit(out, ",\"extFields\":{");
        bool first = true;
        for (const auto &[key, value] : cmd.extFields) {
            if (!first)
                out.append(',');
            first = false;
            jsontext::appendQuoted(out, key);
            out.append(':');
            jsontext::appendQuoted(out, value);
        }
        out.append('}');
    }
    appendLit(out, ",\"flag\":");
    out.append(QByteArray::number(cmd.flag));
    appendLit(out, ",\"language\":\"");
    out.append(languageName(cmd.language));
    appendLit(out, "\",\"opaque\":");
    out.append(QByteArray::number(cmd.opaque));
    if (!cmd.remark.isNull()) {
        appendLit(out, ",\"remark\":");
        jsontext::appendQuoted(out, cmd.remark);
    }
    appendLit(out, ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":");
    out.append(QByteArray::number(cmd.version));
    out.append('}');
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

DecodeResult decodeFrame(QByteArrayView input, RemotingCommand &out, const FrameLimits &limits)
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
    QString error;
    if (type == 0) {
        cmd.serializeType = SerializeType::Json;
        error = JsonHeaderScanner(header, cmd).run();
    } else {
        cmd.serializeType = SerializeType::RocketMQ;
        error = decodeBinaryHeader(header, cmd);
    }
    if (!error.isEmpty())
        return invalid(std::move(error));
    const qsizetype bodyLen = length - 4 - headerLen;
    if (bodyLen > 0)
        cmd.body = QByteArray(input.data() + 8 + headerLen, bodyLen);
    out = std::move(cmd);
    DecodeResult r;
    r.status = DecodeStatus::Ok;
    r.consumed = length + 4;
    return r;
}

void encodeFrame(const RemotingCommand &cmd, QByteArray &out)
{
    const qsizetype start = out.size();
    out.reserve(start + 8 + 256 + cmd.body.size());
    out.resize(start + 8);
    if (cmd.serializeType == SerializeType::RocketMQ)
        appendBinaryHeader(cmd, out);
    else
        appendJsonHeader(cmd, out);
    const qsizetype headerLen = out.size() - start - 8;
    out.append(cmd.body);
    char *p = out.data() + start;
    writeI32(p, static_cast<std::int32_t>(out.size() - start - 4));
    const std::uint32_t type = cmd.serializeType == SerializeType::RocketMQ ? 1u : 0u;
    writeU32(p + 4, (type << 24) | (static_cast<std::uint32_t>(headerLen) & 0xFFFFFFu));
}

QByteArray encodeFrame(const RemotingCommand &cmd)
{
    QByteArray out;
    encodeFrame(cmd, out);
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
