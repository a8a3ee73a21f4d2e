#include "clientlib/protocol/jsontext.h"

#include "clientlib/common/hex.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace qrocket::protocol::jsontext {

namespace {

constexpr std::array<std::int8_t, 256> makeHexValues()
{
    std::array<std::int8_t, 256> t {};
    for (std::size_t c = 0; c < t.size(); ++c)
        t[c] = static_cast<std::int8_t>(hexDigitValue(static_cast<char>(c)));
    return t;
}
constexpr std::array<std::int8_t, 256> kHexValues = makeHexValues();

inline bool readHex4(QByteArrayView text, qsizetype pos, std::uint32_t &out)
{
    if (pos + 4 > text.size())
        return false;
    const auto *p = reinterpret_cast<const unsigned char *>(text.data() + pos);
    const int a = kHexValues[p[0]];
    const int b = kHexValues[p[1]];
    const int c = kHexValues[p[2]];
    const int d = kHexValues[p[3]];
    if ((a | b | c | d) < 0)
        return false;
    out = static_cast<std::uint32_t>((a << 12) | (b << 8) | (c << 4) | d);
    return true;
}

/// Writes `cp` as UTF-8 (at most 4 bytes; a \uXXXX escape is 6) and returns the end.
char *putUtf8(char *o, std::uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = static_cast<char>(cp);
    } else if (cp < 0x800) {
        *o++ = static_cast<char>(0xC0 | (cp >> 6));
        *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = static_cast<char>(0xE0 | (cp >> 12));
        *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        *o++ = static_cast<char>(0xF0 | (cp >> 18));
        *o++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        *o++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *o++ = static_cast<char>(0x80 | (cp & 0x3F));
    }
    return o;
}

} // namespace

namespace {

/// Extra bytes each byte needs when quoted: 0 for plain bytes, 1 for the short escapes, 5 for
/// \u00XX.
constexpr std::array<std::uint8_t, 256> makeEscapeExtra()
{
    std::array<std::uint8_t, 256> t {};
    for (int c = 0; c < 0x20; ++c)
        t[static_cast<std::size_t>(c)] = 5;
    for (const char c : {'\b', '\f', '\n', '\r', '\t', '"', '\\'})
        t[static_cast<unsigned char>(c)] = 1;
    return t;
}
constexpr std::array<std::uint8_t, 256> kEscapeExtra = makeEscapeExtra();

char shortEscape(unsigned char c)
{
    switch (c) {
    case '"':
        return '"';
    case '\\':
        return '\\';
    case '\b':
        return 'b';
    case '\f':
        return 'f';
    case '\n':
        return 'n';
    case '\r':
        return 'r';
    case '\t':
        return 't';
    default:
        return 0;
    }
}

} // namespace

namespace {

/// Index of the first byte in [i, n) that quoting must escape, else n.
qsizetype findEscape(const unsigned char *p, qsizetype i, qsizetype n)
{
    while (i + 8 <= n) {
        if (const std::uint64_t m = anyEscape(load64(p + i)))
            return i + firstFlagged(m);
        i += 8;
    }
    while (i < n && kEscapeExtra[p[i]] == 0)
        ++i;
    return i;
}

} // namespace

qsizetype quotedSize(QByteArrayView s)
{
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const qsizetype n = s.size();
    qsizetype extra = 0;
    for (qsizetype i = findEscape(p, 0, n); i < n; i = findEscape(p, i + 1, n))
        extra += kEscapeExtra[p[i]];
    return n + extra + 2;
}

char *writeQuotedGeneral(char *out, QByteArrayView s)
{
    *out++ = '"';
    const auto *p = reinterpret_cast<const unsigned char *>(s.data());
    const qsizetype n = s.size();
    qsizetype runStart = 0;
    for (;;) {
        const qsizetype i = findEscape(p, runStart, n);
        if (i > runStart) {
            std::memcpy(out, p + runStart, static_cast<std::size_t>(i - runStart));
            out += i - runStart;
        }
        if (i >= n)
            break;
        const unsigned char c = p[i];
        runStart = i + 1;
        *out++ = '\\';
        if (const char e = shortEscape(c)) {
            *out++ = e;
        } else {
            out[0] = 'u';
            out[1] = '0';
            out[2] = '0';
            out[3] = kLowerHexDigits[c >> 4];
            out[4] = kLowerHexDigits[c & 0xF];
            out += 5;
        }
    }
    *out++ = '"';
    return out;
}

void appendQuoted(QByteArray &out, QByteArrayView s)
{
    const qsizetype start = out.size();
    const qsizetype n = quotedSize(s);
    out.resize(start + n);
    writeQuoted(out.data() + start, s);
}

namespace {

/// The index of the closing quote of the string whose text starts at `start` (a backslash and
/// the byte after it are skipped as a pair), or -1 when the string is unterminated. `escaped`
/// tells whether the string has a backslash.
qsizetype findStringEnd(
    const unsigned char *p, qsizetype start, qsizetype n, unsigned char quote, bool &escaped)
{
    qsizetype end = start;
    escaped = false;
    for (;;) {
        end = findQuoteOrBackslash(p, end, n, quote);
        if (end >= n)
            return -1;
        if (p[end] == quote)
            return end;
        end += 2; // a backslash and the byte it escapes
        escaped = true;
    }
}

/// Decodes the escape at p[i] == '\\' of a string whose text may extend up to `limit` (the
/// closing quote, or the end of the input on a single pass: the four digits of a \\u escape are
/// never a quote, so both bounds accept the same escapes). Writes at most 4 bytes at `o`.
/// Advances `i` and `o`; false on a bad escape.
bool decodeEscape(QByteArrayView text, qsizetype limit, qsizetype &i, char *&o)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    if (i + 1 >= limit)
        return false;
    const QByteArrayView inside = text.first(limit);
    const char e = static_cast<char>(p[i + 1]);
    i += 2;
    switch (e) {
    case '"':
    case '\\':
    case '/':
    case '\'':
        *o++ = e;
        return true;
    case 'b':
        *o++ = '\b';
        return true;
    case 'f':
        *o++ = '\f';
        return true;
    case 'n':
        *o++ = '\n';
        return true;
    case 'r':
        *o++ = '\r';
        return true;
    case 't':
        *o++ = '\t';
        return true;
    case 'u': {
        if (i + 4 <= limit && p[i] == '0' && p[i + 1] == '0') {
            // \u00XX below 0x80 (fastjson's control characters): one byte.
            const int hi = kHexValues[p[i + 2]];
            const int lo = kHexValues[p[i + 3]];
            if (hi >= 0 && hi < 8 && lo >= 0) {
                *o++ = static_cast<char>((hi << 4) | lo);
                i += 4;
                return true;
            }
        }
        std::uint32_t cp = 0;
        if (!readHex4(inside, i, cp))
            return false;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            std::uint32_t low = 0;
            if (i + 1 < limit && p[i] == '\\' && p[i + 1] == 'u' && readHex4(inside, i + 2, low)
                && low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                i += 6;
            } else {
                cp = 0xFFFD;
            }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        o = putUtf8(o, cp);
        return true;
    }
    default:
        return false;
    }
}

/// Decodes the escaped text [start, end) (`end` from findStringEnd) to `o`, which has room for
/// end - start bytes. Returns the end of the output, or nullptr on a bad escape.
char *unescape(QByteArrayView text, qsizetype start, qsizetype end, char *o)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    qsizetype i = start;
    while (i < end) {
        // Copy up to the next backslash (the closing quote is at `end`), a word at a
        // time while a whole word of input is left. Each escape shortens the text, so the output
        // never gets ahead of the input and a word stored at `o` stays inside the room.
        if (i + 8 <= end) {
            const std::uint64_t w = load64(p + i);
            std::memcpy(o, &w, 8);
            const std::uint64_t m = anyByte(w, '\\');
            if (!m) {
                i += 8;
                o += 8;
                continue;
            }
            const qsizetype k = firstFlagged(m);
            i += k;
            o += k;
        } else {
            while (i < end && p[i] != '\\')
                *o++ = static_cast<char>(p[i++]);
            if (i >= end)
                break;
        }
        if (!decodeEscape(text, end, i, o))
            return nullptr;
    }
    return o;
}

} // namespace

bool scanString(QByteArrayView text, qsizetype &pos, QByteArray &out)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const auto quote = static_cast<unsigned char>(text[pos]);
    const qsizetype start = pos + 1;
    // Find the closing quote first: the unescaped text is never longer than the escaped one, so
    // one allocation of that size holds it.
    bool escaped = false;
    const qsizetype end = findStringEnd(p, start, text.size(), quote, escaped);
    if (end < 0)
        return false;
    if (!escaped) {
        out = QByteArray(text.data() + start, end - start);
        pos = end + 1;
        return true;
    }
    QByteArray result(end - start, Qt::Uninitialized);
    const char *o = unescape(text, start, end, result.data());
    if (!o)
        return false;
    result.resize(o - result.constData());
    out = std::move(result);
    pos = end + 1;
    return true;
}

qsizetype scanStringInto(QByteArrayView text, qsizetype &pos, char *out, qsizetype room)
{
    // One pass: copy and decode until the closing quote (scanString finds it first, then
    // decodes). Both accept the same strings with the same result: a backslash always takes the
    // byte after it, and decodeEscape reads the same bytes with either bound.
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const qsizetype n = text.size();
    const auto quote = static_cast<unsigned char>(text[pos]);
    char *o = out;
    char *const outEnd = out + room;
    qsizetype i = pos + 1;
    for (;;) {
        if (i + 8 <= n && outEnd - o >= 8) {
            const std::uint64_t w = load64(p + i);
            std::memcpy(o, &w, 8);
            const std::uint64_t m = anyByte(w, quote) | anyByte(w, '\\');
            if (!m) {
                i += 8;
                o += 8;
                continue;
            }
            const qsizetype k = firstFlagged(m);
            i += k;
            o += k;
        } else {
            while (i < n && p[i] != quote && p[i] != '\\') {
                if (o == outEnd)
                    return -1;
                *o++ = static_cast<char>(p[i++]);
            }
            if (i >= n)
                return -1;
        }
        if (p[i] == quote) {
            pos = i + 1;
            return o - out;
        }
        if (outEnd - o < 4 || !decodeEscape(text, n, i, o))
            return -1;
    }
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
