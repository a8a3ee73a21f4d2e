#pragma once

// Byte-level JSON text helpers shared by the frame-header scanner (framecodec.cpp) and the body
// reader/writer (json.cpp). Internal to the protocol module.

#include <QByteArray>
#include <QByteArrayView>

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>

namespace qrocket::protocol::jsontext {

/// Appends `s` as a quoted JSON string: `"` `\` and control characters escaped (short forms
/// \b \f \n \r \t, others \u00XX as fastjson and JSON.stringify do); other bytes raw.
void appendQuoted(QByteArray &out, QByteArrayView s);
/// The bytes appendQuoted() would write for `s`, quotes included.
qsizetype quotedSize(QByteArrayView s);
/// Writes what appendQuoted() would append at `out` (quotedSize(s) bytes); returns the end.
inline char *writeQuoted(char *out, QByteArrayView s);
/// writeQuoted() without its inline fast path for short strings that need no escape.
char *writeQuotedGeneral(char *out, QByteArrayView s);

/// Scans a quoted string starting at text[pos] == quote (`"` or `'`). On success stores the
/// unescaped UTF-8 in `out`, advances `pos` past the closing quote and returns true. Handles
/// \uXXXX with surrogate pairs (lone surrogates become U+FFFD). Returns false on a bad escape or
/// an unterminated string.
bool scanString(QByteArrayView text, qsizetype &pos, QByteArray &out);
/// scanString() into `out`, which has room for `room` bytes, instead of a new QByteArray, in one
/// pass: the decoded size, or -1 (pos unchanged) on a bad escape, an unterminated string, or
/// when the string does not fit in `room` (a room of the escaped size is always enough). May
/// write anywhere in the room.
qsizetype scanStringInto(QByteArrayView text, qsizetype &pos, char *out, qsizetype room);
/// Fast path of scanString() without allocating: when the string at text[pos] has no escapes,
/// sets `raw` to its bytes, advances `pos` past the closing quote and returns true. Returns false
/// (pos unchanged) when it has escapes or is unterminated: call scanString() then.
inline bool scanRawString(QByteArrayView text, qsizetype &pos, QByteArrayView &raw);

/// Scans a JSON number at text[pos]; advances `pos` past it. `literal` is the source text and
/// `isInteger` tells whether it had no fraction/exponent. Returns false if no number is there.
bool scanNumber(QByteArrayView text, qsizetype &pos, QByteArrayView &literal, bool &isInteger);

/// The canonical text of a JSON number literal: integers (also integral doubles such as 5.0 or
/// 1e3 that fit in int64) without exponent or fraction; other doubles as written.
QByteArray canonicalNumber(QByteArrayView literal, bool isInteger);

/// Parses an integer literal (no fraction/exponent) into int64; nullopt on overflow.
std::optional<std::int64_t> parseInteger(QByteArrayView literal);

inline bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
inline void skipSpace(QByteArrayView text, qsizetype &pos)
{
    while (pos < text.size() && isSpace(text[pos]))
        ++pos;
}

// SWAR tests over 8 bytes at a time. Each mask flags the matching bytes; its lowest flag is exact
// (borrows only run upwards), so on a little-endian load countr_zero finds the first match.
static_assert(std::endian::native == std::endian::little, "SWAR scanning assumes little endian");
inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHigh = 0x8080808080808080ull;

inline std::uint64_t load64(const unsigned char *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
constexpr std::uint64_t anyZero(std::uint64_t v)
{
    return (v - kOnes) & ~v & kHigh;
}
/// Any byte equal to `c`.
constexpr std::uint64_t anyByte(std::uint64_t v, unsigned char c)
{
    return anyZero(v ^ (kOnes * c));
}
/// The lowest flagged byte of an exact any-byte mask.
inline qsizetype firstFlagged(std::uint64_t mask)
{
    return static_cast<qsizetype>(std::countr_zero(mask) / 8);
}

/// Any byte that quoting must escape: a control character, '"' or '\'.
constexpr std::uint64_t anyEscape(std::uint64_t v)
{
    return ((v - kOnes * 0x20) & ~v & kHigh) | anyByte(v, '"') | anyByte(v, '\\');
}

inline std::uint32_t load32(const unsigned char *p)
{
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

inline bool mustEscape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

/// writeQuoted() of a string of at most 64 bytes that needs no escape (header keys, numbers,
/// names, message ids: most strings a reply carries) with word loads and stores, the last one
/// overlapping, instead of a search loop and a memcpy call; nullptr when `s` is longer or has a
/// byte to escape (then what was written is garbage for the general path to overwrite).
inline char *writeShortPlain(char *out, const unsigned char *p, qsizetype n)
{
    if (n >= 8) {
        if (n > 64)
            return nullptr;
        for (qsizetype i = 0; i + 8 < n; i += 8) {
            const std::uint64_t w = load64(p + i);
            if (anyEscape(w))
                return nullptr;
            std::memcpy(out + i, &w, 8);
        }
        const std::uint64_t tail = load64(p + n - 8);
        if (anyEscape(tail))
            return nullptr;
        std::memcpy(out + n - 8, &tail, 8);
    } else if (n >= 4) {
        const std::uint32_t head = load32(p);
        const std::uint32_t tail = load32(p + n - 4);
        if (anyEscape(head | (std::uint64_t(tail) << 32)))
            return nullptr;
        std::memcpy(out, &head, 4);
        std::memcpy(out + n - 4, &tail, 4);
    } else if (n > 0) {
        // Bytes 0, n/2 and n-1 cover every byte of a 1..3-byte string.
        const unsigned char a = p[0];
        const unsigned char b = p[n / 2];
        const unsigned char c = p[n - 1];
        if (mustEscape(a) || mustEscape(b) || mustEscape(c))
            return nullptr;
        out[0] = static_cast<char>(a);
        out[n / 2] = static_cast<char>(b);
        out[n - 1] = static_cast<char>(c);
    }
    out[n] = '"';
    return out + n + 1;
}

inline char *writeQuoted(char *out, QByteArrayView s)
{
    out[0] = '"';
    if (char *end
        = writeShortPlain(out + 1, reinterpret_cast<const unsigned char *>(s.data()), s.size()))
        return end;
    return writeQuotedGeneral(out, s);
}

/// Index of the first byte in [i, n) equal to `quote` or '\', else n.
inline qsizetype findQuoteOrBackslash(
    const unsigned char *p, qsizetype i, qsizetype n, unsigned char quote)
{
    while (i + 8 <= n) {
        const std::uint64_t w = load64(p + i);
        if (const std::uint64_t m = anyByte(w, quote) | anyByte(w, '\\'))
            return i + firstFlagged(m);
        i += 8;
    }
    while (i < n && p[i] != quote && p[i] != '\\')
        ++i;
    return i;
}

inline bool scanRawString(QByteArrayView text, qsizetype &pos, QByteArrayView &raw)
{
    const auto *p = reinterpret_cast<const unsigned char *>(text.data());
    const unsigned char quote = p[pos];
    const qsizetype i = findQuoteOrBackslash(p, pos + 1, text.size(), quote);
    if (i >= text.size() || p[i] != quote)
        return false;
    raw = QByteArrayView(text.data() + pos + 1, i - pos - 1);
    pos = i + 1;
    return true;
}

} // namespace qrocket::protocol::jsontext
