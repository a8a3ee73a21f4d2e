#pragma once

// Byte-level JSON text helpers shared by the frame-header scanner (framecodec.cpp) and the body
// reader/writer (json.cpp). Internal to the protocol module.

#include <QByteArray>
#include <QByteArrayView>

#include <cstdint>
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
bool scanRawString(QByteArrayView text, qsizetype &pos, QByteArrayView &raw);

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

} // namespace qrocket::protocol::jsontext
