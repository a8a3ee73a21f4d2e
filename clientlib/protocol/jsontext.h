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
char *writeQuoted(char *out, QByteArrayView s);

/// Scans a quoted string starting at text[pos] == quote (`"` or `'`). On success stores the
/// unescaped UTF-8 in `out`, advances `pos` past the closing quote and returns true. Handles
/// \uXXXX with surrogate pairs (lone surrogates become U+FFFD). Returns false on a bad escape or
/// an unterminated string.
bool scanString(QByteArrayView text, qsizetype &pos, QByteArray &out);
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
