#include "clientlib/protocol/jsontext.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace qrocket::protocol::jsontext {

namespace {

constexpr char kHex[] = "0123456789abcdef";

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool readHex4(QByteArrayView text, qsizetype pos, std::uint32_t &out)
{
    if (pos + 4 > text.size())
        return false;
    std::uint32_t v = 0;
    for (qsizetype i = 0; i < 4; ++i) {
        const int h = hexValue(text[pos + i]);
        if (h < 0)
            return false;
        v = (v << 4) | static_cast<std::uint32_t>(h);
    }
    out = v;
    return true;
}

void appendUtf8(QByteArray &out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out.append(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.append(static_cast<char>(0xC0 | (cp >> 6)));
        out.append(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.append(static_cast<char>(0xE0 | (cp >> 12)));
        out.append(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.append(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.append(static_cast<char>(0xF0 | (cp >> 18)));
        out.append(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.append(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.append(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

} // namespace

void appendQuoted(QByteArray &out, QByteArrayView s)
{
    out.append('"');
    qsizetype runStart = 0;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(s.data() + runStart, i - runStart);
        runStart = i + 1;
        switch (c) {
        case '"':
            out.append("\\\"", 2);
            break;
        case '\\':
            out.append("\\\\", 2);
            break;
        case '\b':
            out.append("\\b", 2);
            break;
        case '\f':
            out.append("\\f", 2);
            break;
        case '\n':
            out.append("\\n", 2);
            break;
        case '\r':
            out.append("\\r", 2);
            break;
        case '\t':
            out.append("\\t", 2);
            break;
        default: {
            const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
            out.append(esc, 6);
        }
        }
    }
    out.append(s.data() + runStart, s.size() - runStart);
    out.append('"');
}

bool scanString(QByteArrayView text, qsizetype &pos, QByteArray &out)
{
    const char quote = text[pos];
    const qsizetype start = pos + 1;
    qsizetype i = start;
    // Fast path: no escapes.
    while (i < text.size() && text[i] != quote && text[i] != '\\')
        ++i;
    if (i >= text.size())
        return false;
    if (text[i] == quote) {
        out = QByteArray(text.data() + start, i - start);
        pos = i + 1;
        return true;
    }
    QByteArray result;
    result.reserve(i - start + 64);
    result.append(text.data() + start, i - start);
    while (i < text.size()) {
        const char c = text[i];
        if (c == quote) {
            out = std::move(result);
            pos = i + 1;
            return true;
        }
        if (c != '\\') {
            // Copy the run up to the next quote or backslash in one go.
            qsizetype end = i + 1;
            while (end < text.size() && text[end] != quote && text[end] != '\\')
                ++end;
            result.append(text.data() + i, end - i);
            i = end;
            continue;
        }
        if (i + 1 >= text.size())
            return false;
        const char e = text[i + 1];
        i += 2;
        switch (e) {
        case '"':
        case '\\':
        case '/':
        case '\'':
            result.append(e);
            break;
        case 'b':
            result.append('\b');
            break;
        case 'f':
            result.append('\f');
            break;
        case 'n':
            result.append('\n');
            break;
        case 'r':
            result.append('\r');
            break;
        case 't':
            result.append('\t');
            break;
        case 'u': {
            std::uint32_t cp = 0;
            if (!readHex4(text, i, cp))
                return false;
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                std::uint32_t low = 0;
                if (i + 1 < text.size() && text[i] == '\\' && text[i + 1] == 'u'
                    && readHex4(text, i + 2, low) && low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            appendUtf8(result, cp);
            break;
        }
        default:
            return false;
        }
    }
    return false;
}

bool scanNumber(QByteArrayView text, qsizetype &pos, QByteArrayView &literal, bool &isInteger)
{
    const qsizetype start = pos;
    qsizetype i = pos;
    const auto digitAt
        = [&](qsizetype k) { return k < text.size() && text[k] >= '0' && text[k] <= '9'; };
    if (i < text.size() && (text[i] == '-' || text[i] == '+'))
        ++i;
    if (!digitAt(i))
        return false;
    while (digitAt(i))
        ++i;
    isInteger = true;
    if (i < text.size() && text[i] == '.') {
        ++i;
        if (!digitAt(i))
            return false;
        while (digitAt(i))
            ++i;
        isInteger = false;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '-' || text[i] == '+'))
            ++i;
        if (!digitAt(i))
            return false;
        while (digitAt(i))
            ++i;
        isInteger = false;
    }
    literal = text.sliced(start, i - start);
    pos = i;
    return true;
}

std::optional<std::int64_t> parseInteger(QByteArrayView literal)
{
    const char *begin = literal.data();
    const char *end = begin + literal.size();
    if (begin != end && *begin == '+')
        ++begin;
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return v;
}

QByteArray canonicalNumber(QByteArrayView literal, bool isInteger)
{
    if (isInteger) {
        if (const auto v = parseInteger(literal))
            return QByteArray::number(static_cast<qlonglong>(*v));
        return literal.toByteArray(); // beyond int64: keep the digits as sent
    }
    const char *begin = literal.data();
    const char *end = begin + literal.size();
    if (begin != end && *begin == '+')
        ++begin;
    double d = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, d);
    if (ec == std::errc() && ptr == end && std::isfinite(d) && d == std::trunc(d)
        && std::fabs(d) < 9.2e18)
        return QByteArray::number(static_cast<qlonglong>(d));
    return literal.toByteArray();
}

} // namespace qrocket::protocol::jsontext
